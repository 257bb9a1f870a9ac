//! The length abstraction: Z3's string and sequence theory answers `unknown` (or takes
//! seconds) for `(str.len s) > 4294967295`, which its arithmetic alone decides at once.
//!
//! In a condition lowered for assertion, `len(v)` of a str or sequence variable `v` is the
//! Int constant `len!v` (with `len!v >= 0`); any other use of `v` adds the link
//! `len(v) == len!v` to that condition's own facts, so every assertion that constrains
//! `v`'s content carries the link in its scope. This is sound: the link states a fact, and a
//! model in which `v`'s length differs from `len!v` is one where no assertion in force used
//! `v`'s content, so any value of length `len!v` satisfies them all. Reading such a model,
//! `v` is that value (`'a' * n`, `[0] * n`, per item sort), refused beyond `MAX_READ_LENGTH`.

use z3::ast;

use super::SolverError;
use super::lower::{Result, Z, internal, smt_name, str_const, z3_sort};
use crate::symbolic::sort::Sort;
use crate::symbolic::term::Var;

/// Longest value read for a variable whose length the model fixes only through `len!v`.
pub const MAX_READ_LENGTH: u64 = 10_000;

/// Whether `len(v)` is abstracted: a free (not a quantifier's) str or sequence variable.
pub(super) fn abstracts(v: &Var, sort: &Sort) -> bool {
    !v.is_bound() && matches!(sort, Sort::Str | Sort::Seq(..))
}

/// The constant `len!v`.
pub(super) fn constant(v: &Var) -> ast::Int {
    ast::Int::new_const(format!("len!{}", smt_name(v)))
}

/// `len(v) == len!v` for the lowered variable `z`.
pub(super) fn link(v: &Var, z: &Z) -> Result<ast::Bool> {
    let length = match z {
        Z::Str(s) => s.length(),
        Z::Seq(s) => s.length(),
        other => return Err(internal(format!("the length of {other:?}"))),
    };
    Ok(length.eq(constant(v)))
}

/// The variable `v` (lowered as `z`) in `model`: `z` itself unless the model gives `len!v`
/// a value that differs from `z`'s length, then a value of length `len!v`.
pub(super) fn read(model: &z3::Model, v: &Var, sort: &Sort, z: Z) -> Result<Z> {
    // Without completion: a model of assertions that never mention `len!v` leaves it open.
    let Some(n) = model.eval(&constant(v), false).and_then(|n| n.as_u64()) else {
        return Ok(z);
    };
    let length = match &z {
        Z::Str(s) => s.length(),
        Z::Seq(s) => s.length(),
        _ => return Ok(z),
    };
    let actual = super::convert::evaluate(model, &length).and_then(|n| n.as_u64());
    if actual == Some(n) {
        return Ok(z);
    }
    if n > MAX_READ_LENGTH {
        return Err(SolverError::Unsupported(format!(
            "the witness is too large: '{}' would have length {n} (more than {MAX_READ_LENGTH})",
            v.display_name()
        )));
    }
    let count = usize::try_from(n).map_err(|_| internal("a length"))?;
    match sort {
        Sort::Str => Ok(Z::Str(str_const(&"a".repeat(count))?)),
        Sort::Seq(_, item) => {
            let unit = filler(item)?.unit()?;
            Ok(Z::Seq(match count {
                0 => ast::Seq::empty(&z3_sort(item)?),
                1 => unit,
                _ => ast::Seq::concat(&vec![unit; count]),
            }))
        }
        other => Err(internal(format!("a length-abstracted {other}"))),
    }
}

/// A value of sort `sort` that CPython accepts for it: `False`, `0`, `0.0`, `''`, empty.
fn filler(sort: &Sort) -> Result<Z> {
    Ok(match sort {
        Sort::Bool => Z::Bool(ast::Bool::from_bool(false)),
        Sort::Int => Z::Int(ast::Int::from_i64(0)),
        Sort::Real => Z::Real(ast::Real::from_rational(0, 1)),
        Sort::Str => Z::Str(str_const("")?),
        Sort::Seq(_, item) => Z::Seq(ast::Seq::empty(&z3_sort(item)?)),
        Sort::Fixed(..) => return Err(internal("a fixed-length sequence as an item")),
    })
}
