//! Iteration in the value model: the items of `range(...)` and of a str, list or tuple,
//! numbered from 0. Both symbolic engines read a `for` loop through this one model
//! (`constraints` edge by edge, `symexec` iteration by iteration), so they agree on what
//! "the loop has an item number `k`" and "item number `k`" mean. `enumerate`, `zip` and
//! `reversed` of sequences are iterables of their own: item `k` of `enumerate(xs, s)` is
//! `(s + k, xs[k])`, of `zip(a, b)` is `(a[k], b[k])` while both have one, of
//! `reversed(xs)` is `xs[-1 - k]`.

use num_bigint::Sign;

use super::simplify::simplify;
use super::sort::{SeqKind, Sort};
use super::term::{ArithOp, CompareOp, SortError, Term};
use crate::python::ir::{Expr, ExprKind};

/// The builtins whose result a `for` iterates over as an [`Iterable`] of its own.
pub const ITERATOR_BUILTINS: &[&str] = &["enumerate", "zip", "reversed"];

/// `enumerate(…)`, `zip(…)` or `reversed(…)` without keywords or starred arguments: the
/// builtin's name and its arguments.
pub fn iterator_call(e: &Expr) -> Option<(&str, &[Expr])> {
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &e.kind
    else {
        return None;
    };
    let name = func.as_name().filter(|n| ITERATOR_BUILTINS.contains(n))?;
    let plain = keywords.is_empty() && !args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)));
    plain.then_some((name, args.as_slice()))
}

/// What a loop iterates over.
#[derive(Clone, Debug)]
pub enum Iterable {
    /// `range(start, stop, step)`; `step` may be symbolic (a zero step raises before the
    /// loop: see [`Iterable::zero_step`]).
    Range { start: Term, stop: Term, step: Term },
    /// A str, list or tuple.
    Seq(Term),
    /// `enumerate(items, start)`.
    Enumerate(Box<Iterable>, Term),
    /// `zip(a, b, …)`: stops with the shortest.
    Zip(Vec<Iterable>),
    /// `reversed(seq)` of a str, list or tuple.
    Reversed(Term),
}

/// Why a builtin's iterable is not modelled (the caller keeps its havoc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotModelled(pub String);

impl Iterable {
    /// `range(stop)`, `range(start, stop)` or `range(start, stop, step)` of int terms; `None`
    /// for another number of arguments.
    pub fn range(args: &[Term]) -> Option<Iterable> {
        let (start, stop, step) = match args {
            [stop] => (Term::int(0), stop.clone(), Term::int(1)),
            [start, stop] => (start.clone(), stop.clone(), Term::int(1)),
            [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
            _ => return None,
        };
        Some(Iterable::Range { start, stop, step })
    }

    /// `enumerate(seq)`, `enumerate(seq, start)`, `zip(seqs…)` or `reversed(seq)` of
    /// evaluated arguments: sequences (str, list, tuple) and an int `start`. `None` for
    /// another builtin; an error for arguments not modelled (their `TypeError`s included).
    pub fn builtin(name: &str, args: &[Term]) -> Option<Result<Iterable, NotModelled>> {
        let seq = |t: &Term| {
            if t.sort().is_sized() {
                Ok(Iterable::Seq(t.clone()))
            } else {
                Err(NotModelled(format!("{name}() of a '{}'", t.sort())))
            }
        };
        let arity = || {
            Err(NotModelled(format!(
                "{name}() with {} arguments",
                args.len()
            )))
        };
        Some(match (name, args) {
            ("enumerate", [xs]) => {
                seq(xs).map(|it| Iterable::Enumerate(Box::new(it), Term::int(0)))
            }
            ("enumerate", [xs, start]) if matches!(start.sort(), Sort::Int | Sort::Bool) => {
                let start = Term::to_int(start.clone()).map_err(|e| NotModelled(e.0));
                seq(xs).and_then(|it| Ok(Iterable::Enumerate(Box::new(it), start?)))
            }
            ("enumerate", [_, start]) => Err(NotModelled(format!(
                "enumerate() with a '{}' start",
                start.sort()
            ))),
            ("reversed", [xs]) => seq(xs).map(|_| Iterable::Reversed(xs.clone())),
            ("enumerate", _) | ("reversed", _) | ("zip", []) => arity(),
            ("zip", xs) => xs
                .iter()
                .map(seq)
                .collect::<Result<_, _>>()
                .map(Iterable::Zip),
            _ => return None,
        })
    }

    /// When the iterable raises `ValueError: range() arg 3 must not be zero` (false for a
    /// sequence or a non-zero constant step).
    pub fn zero_step(&self) -> Result<Term, SortError> {
        match self {
            Iterable::Range { step, .. } => Ok(simplify(&Term::compare(
                CompareOp::Eq,
                step.clone(),
                Term::int(0),
            )?)),
            _ => Ok(Term::bool(false)),
        }
    }

    /// "There is an item number `k`": `start + k·step < stop` for a positive step, `>` for
    /// a negative one (both, each under its sign, when the step is symbolic); `k < len(s)`
    /// for a sequence.
    pub fn has_item(&self, k: u64) -> Result<Term, SortError> {
        match self {
            Iterable::Range { stop, step, .. } => {
                let cur = self.position(k)?;
                let up = || compare(CompareOp::Lt, cur.clone(), stop.clone());
                let down = || compare(CompareOp::Gt, cur.clone(), stop.clone());
                match step.int_literal().map(|v| v.sign()) {
                    Some(Sign::Plus) => up(),
                    Some(Sign::Minus) => down(),
                    _ => {
                        let pos = compare(CompareOp::Gt, step.clone(), Term::int(0))?;
                        let neg = compare(CompareOp::Lt, step.clone(), Term::int(0))?;
                        let a = Term::and(vec![pos, up()?])?;
                        let b = Term::and(vec![neg, down()?])?;
                        Ok(simplify(&Term::or(vec![a, b])?))
                    }
                }
            }
            Iterable::Seq(seq) | Iterable::Reversed(seq) => {
                compare(CompareOp::Lt, Term::int(k), Term::len(seq.clone())?)
            }
            Iterable::Enumerate(items, _) => items.has_item(k),
            Iterable::Zip(parts) => {
                let each = parts
                    .iter()
                    .map(|p| p.has_item(k))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(simplify(&Term::and(each)?))
            }
        }
    }

    /// Item number `k`; `None` when the iterable surely has no such item (a sequence of a
    /// known length that is shorter).
    pub fn item(&self, k: u64) -> Result<Option<Term>, SortError> {
        match self {
            Iterable::Range { .. } => self.position(k).map(Some),
            Iterable::Seq(seq) => {
                if self.has_item(k)?.bool_literal() == Some(false) {
                    return Ok(None);
                }
                Ok(Some(simplify(&Term::index(seq.clone(), Term::int(k))?)))
            }
            Iterable::Reversed(seq) => {
                if self.has_item(k)?.bool_literal() == Some(false) {
                    return Ok(None);
                }
                let from_end = -1 - i128::from(k);
                Ok(Some(simplify(&Term::index(
                    seq.clone(),
                    Term::int(from_end),
                )?)))
            }
            Iterable::Enumerate(items, start) => {
                let Some(item) = items.item(k)? else {
                    return Ok(None);
                };
                let count = simplify(&Term::arith(ArithOp::Add, start.clone(), Term::int(k))?);
                Ok(Some(Term::items(SeqKind::Tuple, vec![count, item])?))
            }
            Iterable::Zip(parts) => {
                let mut items = Vec::with_capacity(parts.len());
                for p in parts {
                    match p.item(k)? {
                        Some(item) => items.push(item),
                        None => return Ok(None),
                    }
                }
                Ok(Some(Term::items(SeqKind::Tuple, items)?))
            }
        }
    }

    /// `start + k·step` of a range.
    fn position(&self, k: u64) -> Result<Term, SortError> {
        let Iterable::Range { start, step, .. } = self else {
            return Err(SortError("the position of a sequence's item".into()));
        };
        let offset = Term::arith(ArithOp::Mul, step.clone(), Term::int(k))?;
        Ok(simplify(&Term::arith(ArithOp::Add, start.clone(), offset)?))
    }
}

fn compare(op: CompareOp, a: Term, b: Term) -> Result<Term, SortError> {
    Ok(simplify(&Term::compare(op, a, b)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::{Sort, Var};

    fn int(name: &str) -> Term {
        Term::input(Var::input(name), &Sort::Int).unwrap()
    }

    #[test]
    fn a_range_has_its_items_in_both_directions() {
        let up = Iterable::range(&[Term::int(2), int("n")]).unwrap();
        assert_eq!(up.has_item(0).unwrap().to_string(), "2 < n");
        assert_eq!(up.item(3).unwrap().unwrap().to_string(), "5");
        let down = Iterable::range(&[int("n"), Term::int(0), Term::int(-2)]).unwrap();
        assert_eq!(down.has_item(1).unwrap().to_string(), "n + -2 > 0");
        assert_eq!(down.zero_step().unwrap().bool_literal(), Some(false));
        let any = Iterable::range(&[Term::int(0), Term::int(9), int("s")]).unwrap();
        let text = any.has_item(1).unwrap().to_string();
        assert!(text.contains("s > 0") && text.contains("s < 0"), "{text}");
        assert_eq!(any.zero_step().unwrap().to_string(), "s == 0");
    }

    #[test]
    fn a_known_short_sequence_has_no_further_item() {
        let seq = Term::items(crate::symbolic::SeqKind::Tuple, vec![Term::int(7)]).unwrap();
        let it = Iterable::Seq(seq);
        assert_eq!(it.item(0).unwrap().unwrap().to_string(), "7");
        assert!(it.item(1).unwrap().is_none());
    }
}
