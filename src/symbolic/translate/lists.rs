//! Aggregates over lists and tuples of known length: `sum(xs)` is `0 + xs[0] + … + xs[n-1]`
//! with Python's promotions (an `int` start, a `float` item makes the sum a `float`; a
//! `str` item is CPython's `TypeError`). A sequence of unknown length is not modelled here
//! (`%set` reaches known lengths by unrolling; see `symexec::comprehension`).

use super::expr::{Result, Translator};
use crate::python::ir::Expr;
use crate::symbolic::sort::Sort;
use crate::symbolic::term::{ArithOp, Term};

impl Translator<'_> {
    /// `sum(xs)` of a fixed-length list or tuple.
    pub(super) fn sum(&self, e: &Expr, values: Vec<Term>) -> Result<Term> {
        let fail = |err| self.sort_error(e, err);
        let [seq] = <[Term; 1]>::try_from(values)
            .map_err(|_| self.unsupported(e, "sum() with a start value"))?;
        let Sort::Fixed(_, items) = seq.sort() else {
            return Err(self.unsupported(e, format!("sum() of a '{}'", seq.sort())));
        };
        let mut total = Term::int(0);
        for k in 0..items.len() {
            let item = Term::index(seq.clone(), Term::int(k)).map_err(fail)?;
            total = Term::arith(ArithOp::Add, total, item).map_err(fail)?;
        }
        Ok(total)
    }
}
