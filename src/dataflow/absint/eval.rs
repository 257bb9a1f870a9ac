//! Abstract evaluation of IR expressions in one domain. Int constants are abstracted with
//! `alpha`; `+ - * // %`, unary `-`, `+`, `~` and names are evaluated in the domain; bools are
//! 0 and 1; anything else is `⊤` (sound whatever it computes). Evaluation updates the state
//! (`:=`), records warnings when asked, and returns `None` when the expression raises
//! whenever it is evaluated (a division by zero, an index surely out of range, an unbound
//! local).

use std::any::Any;
use std::rc::Rc;

use num_bigint::BigInt;

use super::bindings::Bindings;
use super::calls::{Args, CallOracle};
use super::refine::refine_truth;
use super::scope::{Scope, literal_length};
use super::warnings::{Warning, WarningKind};
use crate::dataflow::domains::{AbstractDomain, BinOp as DomOp, CmpOp as DomCmp};
use crate::dataflow::lattice::{JoinSemiLattice, MaybeReachable};
use crate::python::ir::{BinOp, BoolOp, Constant, Expr, ExprKind, UnaryOp};

/// An evaluator for one scope.
pub struct Eval<'s> {
    pub scope: &'s Scope,
    /// Where warnings go; `None` while iterating to the fixpoint.
    pub warnings: Option<Vec<Warning>>,
    /// Re-evaluating a condition already evaluated by its node (for branch refinement): `:=`
    /// reads its target instead of assigning it again, and nothing warns.
    pub replay: bool,
    /// Gives calls of the session's functions their values (an `Rc<dyn CallOracle<D>>`, for
    /// the domain evaluated in); none: calls are `⊤`.
    pub calls: Option<&'s dyn Any>,
    /// How deep evaluation is in parts the statement may skip (`and`/`or` operands after the
    /// first, `if`/`else` branches, later links of a chained comparison): a certain error
    /// there makes the statement raise only possibly.
    conditional: u32,
}

impl<'s> Eval<'s> {
    pub fn new(scope: &'s Scope, collect: bool) -> Eval<'s> {
        Eval {
            scope,
            warnings: collect.then(Vec::new),
            replay: false,
            calls: None,
            conditional: 0,
        }
    }

    /// An evaluator that replays a condition: no assignments, no warnings.
    pub fn replay(scope: &'s Scope) -> Eval<'s> {
        Eval {
            scope,
            warnings: None,
            replay: true,
            calls: None,
            conditional: 0,
        }
    }

    /// Records a warning; `certain` means the statement raises whenever it runs.
    fn warn(&mut self, line: u32, kind: WarningKind, certain: bool) {
        let certain = certain && self.conditional == 0;
        if let Some(w) = &mut self.warnings {
            w.push(Warning {
                line,
                kind,
                certain,
            });
        }
    }

    /// Evaluates `e` in a part of the statement that may not run.
    fn maybe<D: AbstractDomain, B: Bindings<D>>(
        &mut self,
        e: &Expr,
        state: &mut MaybeReachable<B>,
    ) -> Option<D> {
        self.conditional += 1;
        let v = self.expr(e, state);
        self.conditional -= 1;
        v
    }

    /// The value of `e` in `state`; `None` when evaluating it always raises (or the state is
    /// unreachable). A `Some` value is never `⊥`.
    pub fn expr<D: AbstractDomain, B: Bindings<D>>(
        &mut self,
        e: &Expr,
        state: &mut MaybeReachable<B>,
    ) -> Option<D> {
        if !state.is_reachable() {
            return None;
        }
        let value = match &e.kind {
            ExprKind::Constant(c) => constant(c),
            ExprKind::Name(n) => self.lookup(n, state)?,
            ExprKind::BinOp { op, left, right } => {
                let l = self.expr(left, state)?;
                let r = self.expr(right, state)?;
                self.binary(*op, &l, &r, e.span.line)?
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.expr(operand, state)?;
                match op {
                    UnaryOp::USub => v.negate(),
                    UnaryOp::UAdd => v,
                    UnaryOp::Invert => {
                        D::binary(DomOp::Sub, &v.negate(), &D::alpha(&BigInt::from(1)))
                    }
                    UnaryOp::Not => boolean(),
                }
            }
            ExprKind::Compare {
                left, comparators, ..
            } => {
                self.expr(left, state)?;
                let (first, rest) = comparators.split_first()?;
                self.expr(first, state)?;
                if !rest.is_empty() {
                    // Later links run only while the chain holds.
                    let mut later = state.clone();
                    for c in rest {
                        if self.maybe(c, &mut later).is_none() {
                            break;
                        }
                    }
                    state.join(&later);
                }
                boolean()
            }
            ExprKind::BoolOp { op, values } => self.bool_op(*op, values, state)?,
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(test, state)?;
                let mut then = refine_truth(self.scope, state, test, true);
                let mut other = refine_truth(self.scope, state, test, false);
                let a = self.maybe(body, &mut then);
                let b = self.maybe(orelse, &mut other);
                let mut value = D::BOTTOM;
                let mut after = MaybeReachable::Unreachable;
                for (v, s) in [(a, then), (b, other)] {
                    if let Some(v) = v {
                        value.join(&v);
                        after.join(&s);
                    }
                }
                if !after.is_reachable() {
                    return None;
                }
                *state = after;
                value
            }
            ExprKind::NamedExpr { target, value } => {
                if self.replay {
                    self.lookup(target, state)?
                } else {
                    let v = self.expr(value, state)?;
                    set(state, target, v.clone());
                    v
                }
            }
            ExprKind::Subscript { value, index } => {
                self.expr(value, state)?;
                let i = self.expr(index, state)?;
                if !matches!(index.kind, ExprKind::Slice { .. })
                    && let Some(len) = self.length_of(value)
                {
                    self.check_index(&i, len, e.span.line)?;
                }
                D::TOP
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } if self.oracle::<D>().is_some()
                && func
                    .as_name()
                    .is_some_and(|f| !self.scope.locals.contains(f)) =>
            {
                self.expr(func, state)?;
                let mut values = Args {
                    positional: Vec::new(),
                    keywords: Vec::new(),
                    unpacked: false,
                };
                for a in args {
                    let v = self.expr(a, state)?;
                    match a.kind {
                        ExprKind::Starred(_) => values.unpacked = true,
                        _ => values.positional.push(v),
                    }
                }
                for (name, v) in keywords {
                    let v = self.expr(v, state)?;
                    match name {
                        Some(name) => values.keywords.push((name.clone(), v)),
                        None => values.unpacked = true,
                    }
                }
                for name in &self.scope.clobbered {
                    set(state, name, D::TOP);
                }
                let callee = func.as_name().unwrap_or_default();
                match self.oracle::<D>().and_then(|o| o.call(e, callee, values)) {
                    Some(v) => v,
                    None => self.call_value(func, args),
                }
            }
            ExprKind::Call { func, args, .. } => {
                for c in e.children() {
                    self.expr(c, state)?;
                }
                for name in &self.scope.clobbered {
                    set(state, name, D::TOP);
                }
                self.call_value(func, args)
            }
            ExprKind::Lambda { params, .. } => {
                for d in params.iter().filter_map(|p| p.default.as_ref()) {
                    self.expr(d, state)?;
                }
                D::TOP
            }
            ExprKind::Comprehension { generators, .. } => {
                if let Some(g) = generators.first() {
                    self.expr(&g.iter, state)?;
                }
                for name in e.walrus_targets() {
                    set(state, &name, D::TOP);
                }
                D::TOP
            }
            _ => {
                for c in e.children() {
                    self.expr(c, state)?;
                }
                D::TOP
            }
        };
        (!value.is_bottom()).then_some(value)
    }

    /// The call oracle, when there is one for domain `D`.
    fn oracle<D: AbstractDomain>(&self) -> Option<&Rc<dyn CallOracle<D>>> {
        self.calls?.downcast_ref::<Rc<dyn CallOracle<D>>>()
    }

    /// A name's value: `⊤` for a global or builtin, `None` for an unbound local.
    pub fn lookup<D: AbstractDomain, B: Bindings<D>>(
        &self,
        name: &str,
        state: &MaybeReachable<B>,
    ) -> Option<D> {
        let env = state.as_reachable()?;
        match env.value(name) {
            Some(v) => Some(v.clone()),
            None if self.scope.locals.contains(name) => None,
            None => Some(D::TOP),
        }
    }

    /// `l op r`, warning about divisions by a divisor that may be zero.
    pub fn binary<D: AbstractDomain>(&mut self, op: BinOp, l: &D, r: &D, line: u32) -> Option<D> {
        if matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod) {
            if r.must_be_zero() {
                self.warn(line, WarningKind::DivisionByZero, true);
                return None;
            }
            if r.may_be_zero() {
                self.warn(line, WarningKind::DivisionByZero, false);
            }
        }
        let op = match op {
            BinOp::Add => DomOp::Add,
            BinOp::Sub => DomOp::Sub,
            BinOp::Mult => DomOp::Mul,
            BinOp::FloorDiv => DomOp::FloorDiv,
            BinOp::Mod => DomOp::Mod,
            _ => return Some(D::TOP),
        };
        let v = D::binary(op, l, r);
        (!v.is_bottom()).then_some(v)
    }

    /// `a and b and c` / `a or b`: each operand in the state where the previous ones let
    /// evaluation continue; the value and state are the joins over the ways out.
    fn bool_op<D: AbstractDomain, B: Bindings<D>>(
        &mut self,
        op: BoolOp,
        values: &[Expr],
        state: &mut MaybeReachable<B>,
    ) -> Option<D> {
        let continue_when = op == BoolOp::And;
        let mut cur = state.clone();
        let mut value = D::BOTTOM;
        let mut after = MaybeReachable::Unreachable;
        for (i, v) in values.iter().enumerate() {
            let x = if i == 0 {
                self.expr(v, &mut cur)
            } else {
                self.maybe(v, &mut cur)
            };
            let Some(x) = x else {
                break;
            };
            if i + 1 == values.len() {
                value.join(&x);
                after.join(&cur);
                break;
            }
            let stop = refine_truth(self.scope, &cur, v, !continue_when);
            if stop.is_reachable() {
                value.join(&x);
                after.join(&stop);
            }
            cur = refine_truth(self.scope, &cur, v, continue_when);
            if !cur.is_reachable() {
                break;
            }
        }
        if !after.is_reachable() {
            return None;
        }
        *state = after;
        Some(value)
    }

    /// The length of a tuple or string literal, or of a name only ever bound to one.
    fn length_of(&self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Name(n) => self.scope.lengths.get(n).copied(),
            _ => literal_length(e),
        }
    }

    /// Checks an index into a sequence of length `len` (domains with exact constants only:
    /// the others cannot tell). `None` when the index is surely out of range.
    fn check_index<D: AbstractDomain>(&mut self, index: &D, len: usize, line: u32) -> Option<()> {
        if !exact_constants::<D>() {
            return Some(());
        }
        let (lo, hi) = (
            D::alpha(&-BigInt::from(len)),
            D::alpha(&(BigInt::from(len) - 1)),
        );
        let inside = index.refine(DomCmp::Ge, &lo).refine(DomCmp::Le, &hi);
        if inside.is_bottom() {
            self.warn(line, WarningKind::IndexOutOfRange, true);
            return None;
        }
        let below = index.refine(DomCmp::Lt, &lo);
        let above = index.refine(DomCmp::Gt, &hi);
        if !below.is_bottom() || !above.is_bottom() {
            self.warn(line, WarningKind::IndexOutOfRange, false);
        }
        Some(())
    }

    /// `len(x)` is at least 0 (exactly the length of a known literal); other calls are `⊤`.
    fn call_value<D: AbstractDomain>(&self, func: &Expr, args: &[Expr]) -> D {
        let builtin =
            |name: &str| func.as_name() == Some(name) && !self.scope.locals.contains(name);
        match args {
            [arg] if builtin("len") => match self.length_of(arg) {
                Some(n) => D::alpha(&BigInt::from(n)),
                None => D::TOP.refine(DomCmp::Ge, &D::alpha(&BigInt::ZERO)),
            },
            _ => D::TOP,
        }
    }
}

/// Whether evaluating `e` leaves the state as it is: names, constants and arithmetic on
/// them (`:=`, calls, conditional and short-circuit parts may change it).
pub fn is_pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Constant(_) => true,
        ExprKind::BinOp { left, right, .. } => is_pure(left) && is_pure(right),
        ExprKind::UnaryOp { operand, .. } => is_pure(operand),
        _ => false,
    }
}

/// Whether `alpha` of an int stands for that int alone (intervals, constants), so that
/// comparisons with a bound are exact.
pub fn exact_constants<D: AbstractDomain>() -> bool {
    [-3i64, 0, 2]
        .iter()
        .all(|&c| !D::alpha(&BigInt::from(c)).contains(&BigInt::from(c + 1)))
}

/// An int or bool literal's abstraction; other literals are `⊤`.
pub fn constant<D: AbstractDomain>(c: &Constant) -> D {
    match c {
        Constant::Int(i) => D::alpha(i),
        Constant::Bool(b) => D::alpha(&BigInt::from(u8::from(*b))),
        _ => D::TOP,
    }
}

/// 0 or 1: the value of a comparison or `not`.
pub fn boolean<D: AbstractDomain>() -> D {
    let mut v = D::alpha(&BigInt::ZERO);
    v.join(&D::alpha(&BigInt::from(1)));
    v
}

/// Binds `name` to `value` (a strong update; `⊥` unbinds).
pub fn set<D: AbstractDomain, B: Bindings<D>>(state: &mut MaybeReachable<B>, name: &str, value: D) {
    if let MaybeReachable::Reachable(env) = state {
        env.bind(name, value);
    }
}
