//! The abstract interpreter as an engine analysis: the state is `MaybeReachable` of the
//! variables' values (a dense [`Frame`] by default); statements update it, True/False edges refine it with
//! their condition, a `for`'s True edge binds its target, an `assert` refines its normal
//! successor.

use std::any::Any;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use num_bigint::BigInt;
use petgraph::graph::NodeIndex;

use super::bindings::Bindings;
use super::calls::CallOracle;
use super::eval::{Eval, boolean, set};
use super::frame::Frame;
use super::names::Names;
use super::refine::refine_truth;
use super::scope::Scope;
use super::warnings::Warning;
use crate::cfg::{Edge, Item, NodeKind, Role};
use crate::dataflow::analyses::Program;
use crate::dataflow::domains::{AbstractDomain, CmpOp as DomCmp, decide};
use crate::dataflow::engine::{Analysis, Direction};
use crate::dataflow::lattice::{HasBottom, MaybeReachable};
use crate::python::ir::{Expr, ExprKind, ParamKind, Stmt, StmtKind};

/// Abstract interpretation of one program in domain `D`, its states holding the variables'
/// values as `B` (the dense [`Frame`] unless a test asks for the name-keyed `Env`).
pub struct AbsInt<'p, D, B = Frame<D>> {
    pub program: &'p Program<'p>,
    pub scope: Scope,
    /// The variables a state has a slot for.
    pub names: Arc<Names>,
    /// Values for calls of the session's functions (interprocedural analysis); none: `⊤`.
    pub calls: Option<Rc<dyn CallOracle<D>>>,
    /// The parameters' starting values, in order; none: `⊤` (0..1 for `bool`).
    pub params_in: Option<Vec<D>>,
    domain: PhantomData<(D, B)>,
}

/// The right-hand side of an assignment: one value, or the items of a tuple or list literal.
enum Rhs<D> {
    Value(D),
    Items(Vec<D>),
}

impl<'p, D: AbstractDomain, B: Bindings<D>> AbsInt<'p, D, B> {
    pub fn new(program: &'p Program<'p>) -> Self {
        let scope = Scope::new(program);
        let names = Arc::new(Names::of(program, &scope));
        AbsInt {
            program,
            scope,
            names,
            calls: None,
            params_in: None,
            domain: PhantomData,
        }
    }

    /// Runs `node` on `state`, adding the warnings it raises to `warnings` when given.
    pub fn exec(
        &self,
        node: NodeIndex,
        state: &mut MaybeReachable<B>,
        warnings: Option<&mut Vec<Warning>>,
    ) {
        if !state.is_reachable() {
            return;
        }
        let mut ev = Eval::new(&self.scope, warnings.is_some());
        ev.calls = self.calls.as_ref().map(|c| c as &dyn Any);
        let completes = match self.program.item(node) {
            Some(Item::Stmt(s)) => self.stmt(&mut ev, s, state).is_some(),
            Some(Item::Handler(h)) => {
                if let Some(name) = &h.name {
                    set(state, name, D::TOP);
                }
                true
            }
            Some(Item::Case(c)) => {
                if self.program.cfg.node(node).kind != NodeKind::Condition {
                    for name in c.defined_names() {
                        set(state, &name, D::TOP);
                    }
                }
                true
            }
            None => true,
        };
        if !completes {
            *state = MaybeReachable::Unreachable;
        }
        if let (Some(sink), Some(found)) = (warnings, ev.warnings) {
            sink.extend(found);
        }
    }

    /// The value of `e` in `state` (calls given values as in [`AbsInt::exec`]); `None` when
    /// evaluating it always raises or the state is unreachable.
    pub fn value_of(&self, e: &Expr, state: &MaybeReachable<B>) -> Option<D> {
        let mut probe = state.clone();
        let mut ev = Eval::new(&self.scope, false);
        ev.calls = self.calls.as_ref().map(|c| c as &dyn Any);
        ev.expr(e, &mut probe)
    }

    /// One statement (the header of a compound one); `None` when it always raises.
    fn stmt(&self, ev: &mut Eval<'_>, s: &Stmt, state: &mut MaybeReachable<B>) -> Option<()> {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                let rhs = self.rhs(ev, value, state)?;
                for t in targets {
                    self.assign(ev, t, &rhs, state)?;
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } => {
                let rhs = self.rhs(ev, value, state)?;
                self.assign(ev, target, &rhs, state)?;
            }
            StmtKind::AugAssign { target, op, value } => match target.as_name() {
                Some(name) => {
                    let current = ev.lookup(name, state)?;
                    let r = ev.expr(value, state)?;
                    let v = ev.binary(*op, &current, &r, s.span.line)?;
                    set(state, name, v);
                }
                None => {
                    for c in target.children() {
                        ev.expr(c, state)?;
                    }
                    let r = ev.expr(value, state)?;
                    ev.binary(*op, &D::TOP, &r, s.span.line)?;
                }
            },
            StmtKind::Delete(targets) => {
                for t in targets {
                    match t.as_name() {
                        Some(name) => set(state, name, D::BOTTOM),
                        None => {
                            for c in t.children() {
                                ev.expr(c, state)?;
                            }
                        }
                    }
                }
            }
            StmtKind::With { items, .. } => {
                for (context, var) in items {
                    ev.expr(context, state)?;
                    if let Some(var) = var {
                        self.assign(ev, var, &Rhs::Value(D::TOP), state)?;
                    }
                }
            }
            StmtKind::Assert { test, .. } => {
                ev.expr(test, state)?;
            }
            StmtKind::Raise { .. }
            | StmtKind::Return(_)
            | StmtKind::Expr(_)
            | StmtKind::If { .. } => {
                for e in s.exprs() {
                    ev.expr(e, state)?;
                }
            }
            StmtKind::While { test, .. }
            | StmtKind::Match { subject: test, .. }
            | StmtKind::For { iter: test, .. } => {
                ev.expr(test, state)?;
            }
            StmtKind::Global(_)
            | StmtKind::Nonlocal(_)
            | StmtKind::Pass
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Try { .. }
            | StmtKind::AnnAssign { value: None, .. } => {}
            _ => {
                // def, class, imports, unsupported statements: their names hold non-ints.
                for e in s.exprs() {
                    ev.expr(e, state)?;
                }
                for name in s.defined_names() {
                    set(state, &name, D::TOP);
                }
            }
        }
        Some(())
    }

    /// Evaluates an assignment's right-hand side, item by item for a tuple or list literal.
    fn rhs(
        &self,
        ev: &mut Eval<'_>,
        value: &Expr,
        state: &mut MaybeReachable<B>,
    ) -> Option<Rhs<D>> {
        match &value.kind {
            ExprKind::Tuple(items) | ExprKind::List(items)
                if !items.iter().any(|e| matches!(e.kind, ExprKind::Starred(_))) =>
            {
                let mut values = Vec::with_capacity(items.len());
                for e in items {
                    values.push(ev.expr(e, state)?);
                }
                Some(Rhs::Items(values))
            }
            _ => ev.expr(value, state).map(Rhs::Value),
        }
    }

    /// Binds `target` to `rhs`: names strongly, unpacked items pairwise when the lengths
    /// match (`⊤` otherwise); subscript and attribute targets evaluate their operands.
    fn assign(
        &self,
        ev: &mut Eval<'_>,
        target: &Expr,
        rhs: &Rhs<D>,
        state: &mut MaybeReachable<B>,
    ) -> Option<()> {
        match (&target.kind, rhs) {
            (ExprKind::Name(n), Rhs::Value(v)) => set(state, n, v.clone()),
            (ExprKind::Name(n), Rhs::Items(_)) => set(state, n, D::TOP),
            (ExprKind::Tuple(ts) | ExprKind::List(ts), Rhs::Items(vs))
                if ts.len() == vs.len()
                    && !ts.iter().any(|t| matches!(t.kind, ExprKind::Starred(_))) =>
            {
                for (t, v) in ts.iter().zip(vs) {
                    self.assign(ev, t, &Rhs::Value(v.clone()), state)?;
                }
            }
            (ExprKind::Tuple(ts) | ExprKind::List(ts), _) => {
                for t in ts {
                    self.assign(ev, t, &Rhs::Value(D::TOP), state)?;
                }
            }
            (ExprKind::Starred(inner), _) => self.assign(ev, inner, &Rhs::Value(D::TOP), state)?,
            _ => {
                for c in target.children() {
                    ev.expr(c, state)?;
                }
            }
        }
        Some(())
    }

    /// The values a `for` over `iter` binds: `range(...)` bounds, the items of an int
    /// tuple or list literal (`⊥` when it is surely empty), or `None` when unknown.
    fn items(&self, iter: &Expr, state: &MaybeReachable<B>) -> Option<D> {
        let mut probe = state.clone();
        let mut ev = Eval::replay(&self.scope);
        match &iter.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } if func.as_name() == Some("range")
                && !self.scope.locals.contains("range")
                && keywords.is_empty()
                && !args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_))) =>
            {
                let mut values = Vec::new();
                for a in args {
                    values.push(ev.expr(a, &mut probe)?);
                }
                let zero = D::alpha(&BigInt::ZERO);
                let one = D::alpha(&BigInt::from(1));
                let (start, stop, step) = match values.as_slice() {
                    [stop] => (zero.clone(), stop.clone(), one),
                    [start, stop] => (start.clone(), stop.clone(), one),
                    [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
                    _ => return None,
                };
                let up = D::TOP.refine(DomCmp::Ge, &start).refine(DomCmp::Lt, &stop);
                let down = D::TOP.refine(DomCmp::Le, &start).refine(DomCmp::Gt, &stop);
                Some(
                    match (
                        decide(DomCmp::Gt, &step, &zero),
                        decide(DomCmp::Lt, &step, &zero),
                    ) {
                        (Some(true), _) => up,
                        (_, Some(true)) => down,
                        _ => {
                            let mut both = up;
                            both.join(&down);
                            both
                        }
                    },
                )
            }
            ExprKind::Tuple(items) | ExprKind::List(items)
                if !items.iter().any(|e| matches!(e.kind, ExprKind::Starred(_))) =>
            {
                let mut joined = D::BOTTOM;
                for e in items {
                    joined.join(&ev.expr(e, &mut probe)?);
                }
                Some(joined)
            }
            _ => None,
        }
    }

    /// The state entering a `for` body: the target bound to the next item.
    fn bind_for(&self, target: &Expr, iter: &Expr, state: &MaybeReachable<B>) -> MaybeReachable<B> {
        let items = self.items(iter, state);
        if items.as_ref().is_some_and(HasBottom::is_bottom) {
            return MaybeReachable::Unreachable;
        }
        let mut out = state.clone();
        let value = match (target.as_name(), items) {
            (Some(name), Some(v)) if !self.scope.opaque.contains(name) => v,
            _ => D::TOP,
        };
        let mut ev = Eval::new(&self.scope, false);
        if self
            .assign(&mut ev, target, &Rhs::Value(value), &mut out)
            .is_none()
        {
            return MaybeReachable::Unreachable;
        }
        out
    }

    /// The parameters' starting values: `⊤`, or 0 and 1 for a `bool` annotation.
    fn entry_env(&self) -> B {
        let mut env = B::unbound(&self.names);
        if let Some(values) = &self.params_in {
            for (p, v) in self.program.params.iter().zip(values) {
                env.bind(&p.name, v.clone());
            }
            return env;
        }
        for p in self.program.params {
            let bool_like = matches!(
                p.kind,
                ParamKind::PositionalOnly | ParamKind::Positional | ParamKind::KeywordOnly
            ) && p.annotation_text.as_deref() == Some("bool");
            env.bind(&p.name, if bool_like { boolean() } else { D::TOP });
        }
        env
    }
}

impl<D: AbstractDomain, B: Bindings<D>> Analysis for AbsInt<'_, D, B> {
    type Domain = MaybeReachable<B>;
    const DIRECTION: Direction = Direction::Forward;

    fn bottom(&self) -> MaybeReachable<B> {
        MaybeReachable::Unreachable
    }

    fn boundary(&self) -> MaybeReachable<B> {
        MaybeReachable::Reachable(self.entry_env())
    }

    fn transfer(&self, node: NodeIndex, state: &mut MaybeReachable<B>) {
        crate::dataflow::user::domain::at_node(node.index());
        self.exec(node, state, None);
    }

    fn edge_effect(
        &self,
        source: NodeIndex,
        edge: &Edge,
        _: NodeIndex,
        state: &MaybeReachable<B>,
    ) -> Option<MaybeReachable<B>> {
        if !state.is_reachable() {
            return None;
        }
        crate::dataflow::user::domain::at_node(source.index());
        let node = self.program.cfg.node(source);
        let role = node.last_role()?;
        match (self.program.item(source)?, role, edge) {
            (Item::Stmt(s), Role::Test, Edge::True | Edge::False) => match &s.kind {
                StmtKind::If { test, .. } | StmtKind::While { test, .. } => {
                    Some(refine_truth(&self.scope, state, test, *edge == Edge::True))
                }
                _ => None,
            },
            (Item::Stmt(s), Role::Simple, Edge::Normal) => match &s.kind {
                StmtKind::Assert { test, .. } => Some(refine_truth(&self.scope, state, test, true)),
                _ => None,
            },
            (Item::Stmt(s), Role::Iterate, Edge::True) => match &s.kind {
                StmtKind::For { target, iter, .. } => Some(self.bind_for(target, iter, state)),
                _ => None,
            },
            (Item::Case(c), Role::Case, Edge::True) if node.kind == NodeKind::Condition => {
                let mut out = state.clone();
                for name in c.defined_names() {
                    set(&mut out, &name, D::TOP);
                }
                Some(out)
            }
            _ => None,
        }
    }
}
