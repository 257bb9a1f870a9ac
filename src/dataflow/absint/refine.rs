//! Branch refinement: the state in which a condition is true (or false). Comparisons of
//! ints refine both operands that are refinable names (`x < c`, `x == y`, `x != 0`);
//! `not`, `and`, `or` combine refinements; a name or other int expression is tested
//! against 0. A refinement to `⊥` makes the branch unreachable.

use num_bigint::BigInt;

#[cfg(test)]
use super::State;
use super::bindings::Bindings;
use super::eval::{Eval, is_pure, set};
use super::scope::Scope;
use crate::dataflow::domains::{AbstractDomain, CmpOp as DomCmp, refine_pair};
use crate::dataflow::lattice::{JoinSemiLattice, MaybeReachable};
use crate::python::ir::{BinOp, BoolOp, CmpOp, Constant, Expr, ExprKind, UnaryOp};

/// The part of `state` in which `e` has truth value `truth` (an over-approximation).
pub fn refine_truth<D: AbstractDomain, B: Bindings<D>>(
    scope: &Scope,
    state: &MaybeReachable<B>,
    e: &Expr,
    truth: bool,
) -> MaybeReachable<B> {
    if !state.is_reachable() {
        return MaybeReachable::Unreachable;
    }
    match &e.kind {
        ExprKind::Constant(c) => match constant_truth(c) {
            Some(t) if t != truth => MaybeReachable::Unreachable,
            _ => state.clone(),
        },
        ExprKind::UnaryOp {
            op: UnaryOp::Not,
            operand,
        } => refine_truth(scope, state, operand, !truth),
        ExprKind::BoolOp { op, values } => {
            // `and` is true (`or` false) when every operand is; otherwise one of them fails
            // after the ones before it held.
            let all = (*op == BoolOp::And) == truth;
            if all {
                values
                    .iter()
                    .fold(state.clone(), |s, v| refine_truth(scope, &s, v, truth))
            } else {
                let mut out = MaybeReachable::Unreachable;
                let mut prefix = state.clone();
                for v in values {
                    out.join(&refine_truth(scope, &prefix, v, truth));
                    prefix = refine_truth(scope, &prefix, v, !truth);
                }
                out
            }
        }
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            if ops.len() > 1 && !truth {
                // Some link failed, we do not know which.
                return state.clone();
            }
            let mut out = state.clone();
            let mut lhs: &Expr = left;
            for (op, rhs) in ops.iter().zip(comparators) {
                let Some(op) = domain_cmp(*op) else {
                    lhs = rhs;
                    continue;
                };
                let op = if truth { op } else { op.negate() };
                out = compare(scope, out, lhs, op, rhs);
                lhs = rhs;
            }
            out
        }
        _ => test_against_zero(scope, state, e, truth),
    }
}

/// Refines `state` by `lhs op rhs` holding.
fn compare<D: AbstractDomain, B: Bindings<D>>(
    scope: &Scope,
    state: MaybeReachable<B>,
    lhs: &Expr,
    op: DomCmp,
    rhs: &Expr,
) -> MaybeReachable<B> {
    let mut out = state;
    let mut ev = Eval::replay(scope);
    let values = if is_pure(lhs) && is_pure(rhs) {
        (ev.expr(lhs, &mut out), ev.expr(rhs, &mut out))
    } else {
        let mut probe = out.clone();
        (ev.expr(lhs, &mut probe), ev.expr(rhs, &mut probe))
    };
    let (Some(l), Some(r)) = values else {
        return MaybeReachable::Unreachable;
    };
    let (l, r) = refine_pair(op, &l, &r);
    if l.is_bottom() || r.is_bottom() {
        return MaybeReachable::Unreachable;
    }
    for (side, value) in [(lhs, l), (rhs, r)] {
        if let Some(name) = refinable_name(scope, side) {
            set(&mut out, name, value);
        } else if let Some(refined) = refine_mod_operand(scope, &mut out, side, &value) {
            return refined;
        }
    }
    out
}

/// `x % y` known to lie in `result`: `x` refined by the domain's `refine_mod_left`, when `x`
/// is a refinable name and `y` pure. `None` when nothing is learnt; `Some(Unreachable)` when
/// no `x` fits.
fn refine_mod_operand<D: AbstractDomain, B: Bindings<D>>(
    scope: &Scope,
    state: &mut MaybeReachable<B>,
    side: &Expr,
    result: &D,
) -> Option<MaybeReachable<B>> {
    let ExprKind::BinOp {
        op: BinOp::Mod,
        left,
        right,
    } = &side.kind
    else {
        return None;
    };
    let name = refinable_name(scope, left)?;
    if !is_pure(right) {
        return None;
    }
    let mut ev = Eval::replay(scope);
    let mut probe = state.clone();
    let (x, y) = (ev.expr(left, &mut probe)?, ev.expr(right, &mut probe)?);
    let refined = D::refine_mod_left(&x, &y, result);
    if refined == x {
        return None;
    }
    if refined.is_bottom() {
        return Some(MaybeReachable::Unreachable);
    }
    set(state, name, refined);
    None
}

/// `if x:` — an int is true when it is not 0.
fn test_against_zero<D: AbstractDomain, B: Bindings<D>>(
    scope: &Scope,
    state: &MaybeReachable<B>,
    e: &Expr,
    truth: bool,
) -> MaybeReachable<B> {
    let mut out = state.clone();
    let mut ev = Eval::replay(scope);
    let value = if is_pure(e) {
        ev.expr(e, &mut out)
    } else {
        ev.expr(e, &mut state.clone())
    };
    let Some(v) = value else {
        return MaybeReachable::Unreachable;
    };
    if !matches!(
        e.kind,
        ExprKind::Name(_)
            | ExprKind::NamedExpr { .. }
            | ExprKind::BinOp { .. }
            | ExprKind::UnaryOp { .. }
    ) {
        return out;
    }
    let zero = D::alpha(&BigInt::ZERO);
    let refined = v.refine(if truth { DomCmp::Ne } else { DomCmp::Eq }, &zero);
    if refined.is_bottom() {
        return MaybeReachable::Unreachable;
    }
    if let Some(name) = refinable_name(scope, e) {
        set(&mut out, name, refined);
    }
    out
}

/// The variable an operand names: `x`, or the target of `(x := ...)`, when it may be refined.
fn refinable_name<'e>(scope: &Scope, e: &'e Expr) -> Option<&'e str> {
    let name = match &e.kind {
        ExprKind::Name(n) => n,
        ExprKind::NamedExpr { target, .. } => target,
        _ => return None,
    };
    scope.refinable(name).then_some(name.as_str())
}

fn domain_cmp(op: CmpOp) -> Option<DomCmp> {
    Some(match op {
        CmpOp::Eq => DomCmp::Eq,
        CmpOp::NotEq => DomCmp::Ne,
        CmpOp::Lt => DomCmp::Lt,
        CmpOp::LtE => DomCmp::Le,
        CmpOp::Gt => DomCmp::Gt,
        CmpOp::GtE => DomCmp::Ge,
        CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn => return None,
    })
}

/// A literal's truth value.
fn constant_truth(c: &Constant) -> Option<bool> {
    Some(match c {
        Constant::Int(i) => i.sign() != num_bigint::Sign::NoSign,
        Constant::Float(x) => *x != 0.0,
        Constant::Str(s) => !s.is_empty(),
        Constant::Bytes(b) => !b.is_empty(),
        Constant::Bool(b) => *b,
        Constant::None => false,
        Constant::Ellipsis => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::domains::Interval;
    use crate::dataflow::map::MapLattice;
    use crate::python::lower_expression;

    fn scope() -> Scope {
        Scope {
            locals: ["x", "y", "s"].iter().map(|s| s.to_string()).collect(),
            is_function: true,
            opaque: ["s".to_string()].into_iter().collect(),
            ..Scope::default()
        }
    }

    fn state(x: Interval, y: Interval) -> State<Interval> {
        let mut env = MapLattice::new();
        env.set("x".to_string(), x);
        env.set("y".to_string(), y);
        env.set("s".to_string(), Interval::TOP);
        MaybeReachable::Reachable(env)
    }

    fn refined(cond: &str, truth: bool, s: &State<Interval>) -> String {
        let e = lower_expression(cond).unwrap_or_else(|e| panic!("{e}"));
        refine_truth(&scope(), s, &e, truth).to_string()
    }

    use crate::dataflow::lattice::HasTop;

    #[test]
    fn comparisons_and_connectives() {
        let s = state(Interval::range(0, 10), Interval::TOP);
        assert_eq!(
            refined("x < 5", true, &s),
            "{s: [-∞, +∞], x: [0, 4], y: [-∞, +∞]}"
        );
        assert_eq!(
            refined("x < 5", false, &s),
            "{s: [-∞, +∞], x: [5, 10], y: [-∞, +∞]}"
        );
        assert_eq!(
            refined("5 > x", true, &s),
            "{s: [-∞, +∞], x: [0, 4], y: [-∞, +∞]}"
        );
        assert_eq!(
            refined("y == x", true, &s),
            "{s: [-∞, +∞], x: [0, 10], y: [0, 10]}"
        );
        assert_eq!(
            refined("x != 0", true, &s),
            "{s: [-∞, +∞], x: [1, 10], y: [-∞, +∞]}"
        );
        assert_eq!(
            refined("not x", true, &s),
            "{s: [-∞, +∞], x: [0, 0], y: [-∞, +∞]}"
        );
        assert_eq!(refined("x > 20", true, &s), "unreachable");
        assert_eq!(
            refined("x > 2 and y < 0", true, &s),
            "{s: [-∞, +∞], x: [3, 10], y: [-∞, -1]}"
        );
        assert_eq!(
            refined("x > 2 or y < 0", false, &s),
            "{s: [-∞, +∞], x: [0, 2], y: [0, +∞]}"
        );
        assert_eq!(
            refined("x < 3 or x > 8", true, &s),
            "{s: [-∞, +∞], x: [0, 10], y: [-∞, +∞]}"
        );
        assert_eq!(
            refined("0 < x < 3", true, &s),
            "{s: [-∞, +∞], x: [1, 2], y: [-∞, +∞]}"
        );
        assert_eq!(
            refined("s < 3", true, &s),
            "{s: [-∞, +∞], x: [0, 10], y: [-∞, +∞]}",
            "opaque"
        );
        assert_eq!(refined("x % 2 == 5", true, &s), "unreachable");
        assert_eq!(refined("False", true, &s), "unreachable");
        assert_eq!(refined("x is None", true, &s), s.to_string());
    }
}
