//! Aggregates and searches over lists and tuples of known length: `sum(xs)` is
//! `0 + xs[0] + … + xs[n-1]` with Python's promotions (an `int` start, a `float` item makes
//! the sum a `float`; a `str` item is CPython's `TypeError`); `xs.count(x)` counts the
//! items equal to `x`; `xs.index(x)` is the first such position, `ValueError` when there is
//! none; `sorted(xs)` is a sorting network of `min`/`max` over the items (exact on values,
//! which is all the model has: equal items are indistinguishable). A sequence of unknown
//! length is not modelled here: `%set` splits on its length first (see
//! `symexec::step::list_lengths`) and unrolls loops (see `symexec::comprehension`).

use super::ExceptionKind;
use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::{Constant, Expr, ExprKind};
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::term::{ArithOp, CompareOp, Term};

/// The largest `sorted(xs)` result kept, in nodes written out: the network nests each
/// item in `min`/`max` of the others, so longer lists print (and solve) too large.
const MAX_SORTED_NODES: usize = 400;

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

    /// `xs.count(x)` / `xs.index(x)` when `receiver` is a list or tuple (`None` otherwise:
    /// a str's methods are translated elsewhere).
    pub(super) fn seq_method(
        &self,
        e: &Expr,
        receiver: &Expr,
        attr: &str,
        args: &[Expr],
    ) -> Option<Result<Partial>> {
        if !matches!(attr, "count" | "index") {
            return None;
        }
        let recv = self.expr(receiver, false).ok()?;
        let kind = recv.value.sort().seq_kind()?;
        let [x] = args else {
            let n = args.len();
            return Some(Err(
                self.unsupported(e, format!(".{attr}() with {n} arguments"))
            ));
        };
        let mut fx = Effects::default();
        let xs = fx.then(recv);
        Some(self.expr(x, false).and_then(|x| {
            let x = fx.then(x);
            let value = self.search(e, kind, attr, &xs, x, &mut fx)?;
            Ok(fx.finish(value))
        }))
    }

    /// The value of `xs.count(x)` / `xs.index(x)`, `ValueError` pushed for a missing `x`.
    fn search(
        &self,
        e: &Expr,
        kind: SeqKind,
        attr: &str,
        xs: &Term,
        x: Term,
        fx: &mut Effects,
    ) -> Result<Term> {
        let Sort::Fixed(_, items) = xs.sort() else {
            let what = format!(".{attr}() of a {} of unknown length", kind.name());
            return Err(self.unsupported(e, what));
        };
        // A comparison the model has no meaning for is not modelled (never a TypeError:
        // `==` does not raise in Python).
        let not_modelled = |_| self.unsupported(e, format!(".{attr}() of '{}'", x.sort()));
        let equal = (0..items.len())
            .map(|k| {
                let item = Term::index(xs.clone(), Term::int(k)).map_err(not_modelled)?;
                Term::compare(CompareOp::Eq, item, x.clone()).map_err(not_modelled)
            })
            .collect::<Result<Vec<_>>>()?;
        let fail = |err| self.sort_error(e, err);
        if attr == "count" {
            let mut total = Term::int(0);
            for eq in equal {
                let one = Term::ite(eq, Term::int(1), Term::int(0)).map_err(fail)?;
                total = Term::arith(ArithOp::Add, total, one).map_err(fail)?;
            }
            return Ok(total);
        }
        let none = Term::and(
            equal
                .iter()
                .map(|eq| Term::not(eq.clone()))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(fail)?,
        )
        .map_err(fail)?;
        fx.push(ExceptionKind::ValueError, none);
        let mut first = Term::int(0);
        for (k, eq) in equal.into_iter().enumerate().rev() {
            first = Term::ite(eq, Term::int(k), first).map_err(fail)?;
        }
        Ok(first)
    }

    /// `sorted(xs)` (`sorted(xs, reverse=True)`, see [`sorted_reverse`]) of a fixed-length
    /// list or tuple whose items share one sort.
    pub(super) fn sorted(&self, e: &Expr, values: Vec<Term>) -> Result<Term> {
        let fail = |err| self.sort_error(e, err);
        let [seq] = <[Term; 1]>::try_from(values)
            .map_err(|_| self.unsupported(e, "sorted() with several arguments"))?;
        let Sort::Fixed(_, sorts) = seq.sort() else {
            return Err(self.unsupported(e, format!("sorted() of a '{}'", seq.sort())));
        };
        let comparable = matches!(
            sorts.first(),
            None | Some(Sort::Int | Sort::Real | Sort::Str)
        );
        if !comparable || sorts.iter().any(|s| Some(s) != sorts.first()) {
            return Err(self.unsupported(e, format!("sorted() of a '{}'", seq.sort())));
        }
        let mut items = (0..sorts.len())
            .map(|k| Term::index(seq.clone(), Term::int(k)))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(fail)?;
        // Bubble network: pass `i` carries the largest of the first `n - i` items up.
        for end in (1..items.len()).rev() {
            for j in 0..end {
                let (a, b) = (items[j].clone(), items[j + 1].clone());
                items[j] = Term::min(vec![a.clone(), b.clone()]).map_err(fail)?;
                items[j + 1] = Term::max(vec![a, b]).map_err(fail)?;
            }
        }
        // The items are plain values: equal ones cannot be told apart, so the stable
        // descending sort is the ascending one reversed.
        if sorted_reverse(e) == Some(true) {
            items.reverse();
        }
        let sorted = Term::items(SeqKind::List, items).map_err(fail)?;
        if sorted.written_size(MAX_SORTED_NODES) > MAX_SORTED_NODES {
            return Err(self.unsupported(e, "sorted() of a list this long"));
        }
        Ok(sorted)
    }
}

/// For a call `sorted(…)` without keywords or with a constant `reverse=`: whether it sorts
/// in reverse (`None` for anything else).
pub fn sorted_reverse(e: &Expr) -> Option<bool> {
    let ExprKind::Call { func, keywords, .. } = &e.kind else {
        return None;
    };
    if func.as_name() != Some("sorted") {
        return None;
    }
    reverse_flag(keywords)
}

/// For a call `xs.sort()` without keywords or with a constant `reverse=`: `xs`, and whether
/// it sorts in reverse (`None` for anything else).
pub fn sort_in_place(e: &Expr) -> Option<(&Expr, bool)> {
    let (receiver, attr, args, keywords) = e.as_method_call_with_keywords()?;
    if attr != "sort" || !args.is_empty() {
        return None;
    }
    Some((receiver, reverse_flag(keywords)?))
}

/// No keywords (`false`), or `reverse=` a constant bool.
fn reverse_flag(keywords: &[(Option<String>, Expr)]) -> Option<bool> {
    match keywords {
        [] => Some(false),
        [(Some(name), flag)] if name == "reverse" => match flag.kind {
            ExprKind::Constant(Constant::Bool(b)) => Some(b),
            _ => None,
        },
        _ => None,
    }
}
