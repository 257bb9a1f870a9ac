//! `None` where it is decidable: a variable holding `None` (a function that returned
//! nothing) compared with `is`/`is not`/`==`/`!=` against `None` or a modelled value, or
//! used as a truth value. Terms are never `None`, so such tests are constants; folding
//! them keeps the path exact instead of a havoc.

use crate::python::ir::{BoolOp, CmpOp, Constant, Expr, ExprKind, UnaryOp};

/// Whether `e` is `None` (`Some(true)`), surely not (`Some(false)`), or not known.
fn is_none(e: &Expr, holds_none: &impl Fn(&str) -> Option<bool>) -> Option<bool> {
    match &e.kind {
        ExprKind::Constant(Constant::None) => Some(true),
        ExprKind::Constant(_) => Some(false),
        ExprKind::Name(n) => holds_none(n),
        _ => None,
    }
}

fn constant(value: bool, like: &Expr) -> Expr {
    Expr::new(ExprKind::Constant(Constant::Bool(value)), like.span)
}

/// `e` with its decidable `None` tests folded to constants, or `None` when nothing changed.
/// `holds_none(name)`: `Some(true)` when the name holds `None`, `Some(false)` when it holds
/// a modelled value, `None` otherwise.
pub fn fold(e: &Expr, holds_none: &impl Fn(&str) -> Option<bool>) -> Option<Expr> {
    match &e.kind {
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } if ops.len() == 1 && comparators.len() == 1 => {
            let (a, b) = (
                is_none(left, holds_none)?,
                is_none(&comparators[0], holds_none)?,
            );
            if !a && !b {
                return None;
            }
            let same = a == b;
            match ops[0] {
                CmpOp::Is | CmpOp::Eq => Some(constant(same, e)),
                CmpOp::IsNot | CmpOp::NotEq => Some(constant(!same, e)),
                _ => None,
            }
        }
        ExprKind::Name(n) if holds_none(n) == Some(true) => Some(constant(false, e)),
        ExprKind::UnaryOp {
            op: UnaryOp::Not,
            operand,
        } => {
            let inner = fold(operand, holds_none)?;
            Some(Expr::new(
                ExprKind::UnaryOp {
                    op: UnaryOp::Not,
                    operand: Box::new(inner),
                },
                e.span,
            ))
        }
        ExprKind::BoolOp { op, values } => {
            let folded: Vec<Option<Expr>> = values.iter().map(|v| fold(v, holds_none)).collect();
            if folded.iter().all(Option::is_none) {
                return None;
            }
            // `False or y` is `y`; nothing after a `True` operand of `or` runs (the same
            // for `and` with `True` and `False` swapped).
            let neutral = matches!(op, BoolOp::And);
            let mut kept: Vec<Expr> = Vec::new();
            for (f, v) in folded.into_iter().zip(values) {
                let v = f.unwrap_or_else(|| v.clone());
                match &v.kind {
                    ExprKind::Constant(Constant::Bool(b)) if *b == neutral => {}
                    ExprKind::Constant(Constant::Bool(_)) => {
                        kept.push(v);
                        break;
                    }
                    _ => kept.push(v),
                }
            }
            match kept.len() {
                0 => Some(constant(neutral, e)),
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
        _ => None,
    }
}
