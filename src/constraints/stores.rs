//! What storing a value into an assignment target raises.
//!
//! A name never raises. Unpacking raises `ValueError` unless the value has as many items as
//! the target names. A store into a list item raises exactly what reading that item raises
//! (`IndexError` out of range); into a `str` or `tuple` item, `TypeError`. Stores into
//! attributes, dicts and slices, and starred targets, are not modelled.

use crate::python::ir::{Expr, ExprKind};
use crate::symbolic::{CompareOp, Env, ExceptionKind, SeqKind, Sort, Term, translate};

/// A raise condition: the exception, and when it is raised.
pub type Raise = (ExceptionKind, Term);

/// What storing `value` into `target` raises, in order; `None` when that is not modelled.
pub fn store_raises(target: &Expr, value: &Term, env: &Env) -> Option<Vec<Raise>> {
    match &target.kind {
        ExprKind::Name(_) => Some(Vec::new()),
        ExprKind::Tuple(parts) | ExprKind::List(parts) => unpack_raises(parts, value, env),
        ExprKind::Subscript {
            value: object,
            index,
        } => {
            if matches!(index.kind, ExprKind::Slice { .. }) {
                return None;
            }
            let object = translate(object, env).ok()?;
            match object.value.sort() {
                Sort::Seq(SeqKind::List, _) | Sort::Fixed(SeqKind::List, _) => {
                    // Reading the item evaluates the same operands and raises the same way.
                    Some(translate(target, env).ok()?.raises)
                }
                Sort::Str | Sort::Seq(SeqKind::Tuple, _) | Sort::Fixed(SeqKind::Tuple, _) => {
                    let mut raises = object.raises;
                    raises.extend(translate(index, env).ok()?.raises);
                    raises.push((ExceptionKind::TypeError, Term::bool(true)));
                    Some(raises)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether storing a value whose translation failed into `target` cannot raise.
pub fn stores_untranslated_without_raising(target: &Expr) -> bool {
    matches!(target.kind, ExprKind::Name(_))
}

/// The items `a, b = value` binds, by position, when `value` is a sequence: `None` for other
/// values and starred targets.
pub fn unpacked_items(parts: &[Expr], value: &Term) -> Option<Vec<Term>> {
    if parts.iter().any(|p| matches!(p.kind, ExprKind::Starred(_))) {
        return None;
    }
    match value.sort() {
        Sort::Fixed(_, items) if items.len() != parts.len() => None,
        Sort::Fixed(..) | Sort::Seq(..) | Sort::Str => (0..parts.len())
            .map(|i| Term::index(value.clone(), Term::int(i as i64)).ok())
            .collect(),
        _ => None,
    }
}

/// `a, b = value`: `ValueError` unless `value` has as many items, then the items' stores.
fn unpack_raises(parts: &[Expr], value: &Term, env: &Env) -> Option<Vec<Raise>> {
    let mut raises = Vec::new();
    match value.sort() {
        Sort::Fixed(_, items) if items.len() != parts.len() => {
            if parts.iter().any(|p| matches!(p.kind, ExprKind::Starred(_))) {
                return None;
            }
            return Some(vec![(ExceptionKind::ValueError, Term::bool(true))]);
        }
        Sort::Fixed(..) => {}
        Sort::Seq(..) | Sort::Str => {
            let count = Term::int(parts.len() as i64);
            let len = Term::len(value.clone()).ok()?;
            let other = Term::compare(CompareOp::NotEq, len, count).ok()?;
            raises.push((ExceptionKind::ValueError, other));
        }
        _ => return None,
    }
    let items = unpacked_items(parts, value)?;
    for (part, item) in parts.iter().zip(&items) {
        raises.extend(store_raises(part, item, env)?);
    }
    Some(raises)
}
