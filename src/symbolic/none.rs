//! `None` in the value model. Terms are never `None`, so where it is decidable an expression
//! that involves a name holding `None` is folded before translation: a comparison
//! `is`/`is not`/`==`/`!=` with `None` on a side and `None` or a modelled value on the
//! other is a constant, a name holding `None` is `False` as a truth value and the constant
//! `None` as a value, and `and`/`or` drop the operands whose truth value is known and does
//! not decide (`False or y` is `y`, `None and y` is `None`). Both symbolic engines read
//! `None` through this one folding: `%set` keeps `None` as a value of its own, `%constraints`
//! binds such names to a marker.

use crate::python::ir::{BoolOp, CmpOp, Constant, Expr, ExprKind, UnaryOp};

/// Whether `e` is `None` (`Some(true)`), surely not (`Some(false)`), or not known.
/// `holds_none(name)` says the same of a name.
fn is_none(e: &Expr, holds_none: &impl Fn(&str) -> Option<bool>) -> Option<bool> {
    match &e.kind {
        ExprKind::Constant(Constant::None) => Some(true),
        ExprKind::Constant(_) => Some(false),
        ExprKind::Name(n) => holds_none(n),
        _ => None,
    }
}

/// The truth value of a constant `bool` or `None`.
fn truth(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Constant(Constant::Bool(b)) => Some(*b),
        ExprKind::Constant(Constant::None) => Some(false),
        _ => None,
    }
}

fn constant(c: Constant, like: &Expr) -> Expr {
    Expr::new(ExprKind::Constant(c), like.span)
}

/// `e` with its decidable `None` tests folded, or `None` when nothing changed.
/// `holds_none(name)`: `Some(true)` when the name holds `None`, `Some(false)` when it holds
/// a modelled value, `None` when not known. `condition`: only `e`'s truth value matters.
pub fn fold(e: &Expr, holds_none: &impl Fn(&str) -> Option<bool>, condition: bool) -> Option<Expr> {
    match &e.kind {
        ExprKind::Name(n) if holds_none(n) == Some(true) => Some(if condition {
            constant(Constant::Bool(false), e)
        } else {
            constant(Constant::None, e)
        }),
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } if ops.len() == 1 && comparators.len() == 1 => {
            let (Some(a), Some(b)) = (
                is_none(left, holds_none),
                is_none(&comparators[0], holds_none),
            ) else {
                return fold_within(e, holds_none);
            };
            if !a && !b {
                return None;
            }
            let same = a == b;
            match ops[0] {
                CmpOp::Is | CmpOp::Eq => Some(constant(Constant::Bool(same), e)),
                CmpOp::IsNot | CmpOp::NotEq => Some(constant(Constant::Bool(!same), e)),
                _ => fold_within(e, holds_none),
            }
        }
        ExprKind::UnaryOp {
            op: UnaryOp::Not,
            operand,
        } => {
            let inner = fold(operand, holds_none, true)?;
            Some(Expr::new(
                ExprKind::UnaryOp {
                    op: UnaryOp::Not,
                    operand: Box::new(inner),
                },
                e.span,
            ))
        }
        ExprKind::BoolOp { op, values } => {
            let folded: Vec<Option<Expr>> = values
                .iter()
                .map(|v| fold(v, holds_none, condition))
                .collect();
            if folded.iter().all(Option::is_none) {
                return None;
            }
            // `x or y` is `x` when `x` is true, else `y`; `x and y` is `x` when `x` is false,
            // else `y`. An operand whose truth value is known either decides (and nothing
            // after it runs) or is skipped; the last operand is the value otherwise.
            let decides = matches!(op, BoolOp::Or);
            let last = values.len() - 1;
            let mut kept: Vec<Expr> = Vec::new();
            for (i, (f, v)) in folded.into_iter().zip(values).enumerate() {
                let v = f.unwrap_or_else(|| v.clone());
                match truth(&v) {
                    Some(t) if t == decides => {
                        kept.push(v);
                        break;
                    }
                    Some(_) if i < last => {}
                    _ => kept.push(v),
                }
            }
            match kept.len() {
                1 => kept.pop(),
                _ => Some(Expr::new(
                    ExprKind::BoolOp {
                        op: *op,
                        values: kept,
                    },
                    e.span,
                )),
            }
        }
        _ => fold_within(e, holds_none),
    }
}

/// `e` with the `None` tests inside its operands folded (`(x or 5) + 1` is `5 + 1` when `x`
/// holds `None`), or `None` when nothing changed. An operand that is a bare name holding
/// `None` is left for the translation to report (it is not a value terms can hold).
fn fold_within(e: &Expr, holds_none: &impl Fn(&str) -> Option<bool>) -> Option<Expr> {
    let mut changed = false;
    let mut sub = |x: &Expr, condition: bool| -> Expr {
        if matches!(x.kind, ExprKind::Name(_)) {
            return x.clone();
        }
        match fold(x, holds_none, condition) {
            Some(f) => {
                changed = true;
                f
            }
            None => x.clone(),
        }
    };
    let kind = match &e.kind {
        ExprKind::BinOp { op, left, right } => ExprKind::BinOp {
            op: *op,
            left: Box::new(sub(left, false)),
            right: Box::new(sub(right, false)),
        },
        ExprKind::UnaryOp { op, operand } => ExprKind::UnaryOp {
            op: *op,
            operand: Box::new(sub(operand, false)),
        },
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => ExprKind::Compare {
            left: Box::new(sub(left, false)),
            ops: ops.clone(),
            comparators: comparators.iter().map(|c| sub(c, false)).collect(),
        },
        ExprKind::IfExp { test, body, orelse } => ExprKind::IfExp {
            test: Box::new(sub(test, true)),
            body: Box::new(sub(body, false)),
            orelse: Box::new(sub(orelse, false)),
        },
        ExprKind::Tuple(items) => ExprKind::Tuple(items.iter().map(|i| sub(i, false)).collect()),
        ExprKind::List(items) => ExprKind::List(items.iter().map(|i| sub(i, false)).collect()),
        ExprKind::Subscript { value, index } => ExprKind::Subscript {
            value: Box::new(sub(value, false)),
            index: Box::new(sub(index, false)),
        },
        ExprKind::Call {
            func,
            args,
            keywords,
        } => ExprKind::Call {
            func: func.clone(),
            args: args.iter().map(|a| sub(a, false)).collect(),
            keywords: keywords
                .iter()
                .map(|(k, v)| (k.clone(), sub(v, false)))
                .collect(),
        },
        _ => return None,
    };
    changed.then(|| Expr::new(kind, e.span))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_expression;

    /// `x` holds `None`, `y` a modelled value, other names are not known.
    fn show(src: &str, condition: bool) -> String {
        let holds = |n: &str| match n {
            "x" => Some(true),
            "y" => Some(false),
            _ => None,
        };
        let e = lower_expression(src).unwrap();
        fold(&e, &holds, condition).map_or_else(|| format!("unchanged: {e}"), |f| f.to_string())
    }

    #[test]
    fn tests_of_none_fold_where_both_sides_are_known() {
        assert_eq!(show("x == 3.0", true), "False");
        assert_eq!(show("x is None", true), "True");
        assert_eq!(show("y is not None", true), "True");
        assert_eq!(show("x == 1.0 or x == 2.0", true), "False");
        assert_eq!(show("x != 'a' and y > 0", true), "y > 0");
        assert_eq!(show("not x", true), "not False");
        assert_eq!(show("z is None", true), "unchanged: z is None");
        assert_eq!(show("x < 3", true), "unchanged: x < 3");
    }

    #[test]
    fn and_or_keep_python_values() {
        // As values: `None or 5` is 5, `None and 5` is None, `5 or None` is unchanged.
        assert_eq!(show("x or 5", false), "5");
        assert_eq!(show("x and 5", false), "None");
        assert_eq!(show("y and x", false), "y and None");
        assert_eq!(show("x", false), "None");
        assert_eq!(show("x", true), "False");
        assert_eq!(show("x or x", false), "None");
        assert_eq!(show("(x or 5) + 1", false), "5 + 1");
        assert_eq!(show("f(x is None, y)", false), "f(True, y)");
        assert_eq!(show("x + 1", false), "unchanged: x + 1");
    }
}
