//! Names whose value is `None` (`x = None`): terms have no `None`, so such a name is bound
//! to a marker, and expressions reading it are rewritten before translation: the decidable
//! `None` tests fold as in `%set` (`symbolic::none`: `None == 3.0` is False, `None is None`
//! True, False as a truth value), and the name becomes the constant `None` elsewhere.

use crate::python::ir::{Constant, Expr, ExprKind};
use crate::symbolic::none::fold;
use crate::symbolic::{Sort, Term, TermKind, Var};

use super::semantics::Names;

const MARKER: &str = "@None";

/// The term a `None`-valued name is bound to.
pub fn marker() -> Term {
    Term::input(Var::input(MARKER), &Sort::Bool).unwrap_or_else(|_| Term::bool(false))
}

/// Whether `t` is the `None` marker.
pub fn is_marker(t: &Term) -> bool {
    matches!(t.kind(), TermKind::Var(v) if v.name == MARKER)
}

/// Whether `e` is `None`, or a name bound to it.
pub fn is_none(e: &Expr, names: &Names) -> bool {
    match &e.kind {
        ExprKind::Constant(Constant::None) => true,
        ExprKind::Name(n) => names.get(n).is_some_and(is_marker),
        _ => false,
    }
}

/// `e` with its decidable `None` tests folded (`symbolic::none`, as `%set` does) and the
/// remaining `None`-valued names replaced by the constant; `condition` says whether only
/// its truth value matters. Unchanged (borrowed) when no name is `None`.
pub fn resolve<'e>(e: &'e Expr, names: &Names, condition: bool) -> std::borrow::Cow<'e, Expr> {
    // A test against the constant `None` folds too: a name bound to a term is never `None`.
    let mentions = |e: &Expr| {
        let mut found = false;
        e.walk(&mut |x| {
            found |= match &x.kind {
                ExprKind::Name(n) => names.get(n).is_some_and(is_marker),
                ExprKind::Constant(Constant::None) => true,
                _ => false,
            }
        });
        found
    };
    if !mentions(e) {
        return std::borrow::Cow::Borrowed(e);
    }
    let holds_none = |n: &str| names.get(n).map(is_marker);
    let folded = fold(e, &holds_none, condition).unwrap_or_else(|| e.clone());
    std::borrow::Cow::Owned(substitute(&folded, names))
}

/// `e` with every `None`-valued name replaced by the constant (nothing folded).
fn substitute(e: &Expr, names: &Names) -> Expr {
    let mut out = e.clone();
    replace(&mut out, names);
    out
}

fn replace(e: &mut Expr, names: &Names) {
    if is_none(e, names) {
        e.kind = ExprKind::Constant(Constant::None);
        return;
    }
    match &mut e.kind {
        ExprKind::BinOp { left, right, .. } => {
            replace(left, names);
            replace(right, names);
        }
        ExprKind::UnaryOp { operand, .. } => replace(operand, names),
        ExprKind::BoolOp { values, .. }
        | ExprKind::Tuple(values)
        | ExprKind::List(values)
        | ExprKind::Set(values) => values.iter_mut().for_each(|v| replace(v, names)),
        ExprKind::Compare {
            left, comparators, ..
        } => {
            replace(left, names);
            comparators.iter_mut().for_each(|v| replace(v, names));
        }
        ExprKind::IfExp { test, body, orelse } => {
            replace(test, names);
            replace(body, names);
            replace(orelse, names);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(|v| replace(v, names)),
        ExprKind::Subscript { value, index } => {
            replace(value, names);
            replace(index, names);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_expression;

    #[test]
    fn comparisons_with_none_fold() {
        let mut names = Names::new();
        names.insert("x".into(), marker());
        let show = |src: &str, condition: bool| {
            resolve(&lower_expression(src).unwrap(), &names, condition).to_string()
        };
        assert_eq!(show("x == 3.0", true), "False");
        assert_eq!(show("x == 1.0 or x == 2.0", true), "False");
        assert_eq!(show("x is None", true), "True");
        assert_eq!(show("x != 'a' and y > 0", true), "y > 0");
        assert_eq!(show("not x", true), "not False");
        assert_eq!(show("y + 1", false), "y + 1");
        assert_eq!(show("f(x)", false), "f(None)");
    }
}
