//! Slices `s[lower:upper:step]` of strings and sequences, with Python's clamping, for any
//! constant step.
//!
//! Bounds are adjusted as CPython's `PySlice_AdjustIndices`: a negative bound counts from the
//! end and clamps to `0` (step > 0) or to "before the start", `-1` (step < 0); a large one
//! clamps to `len` (step > 0) or `len - 1` (step < 0). The slice has
//! `count = ceil((stop - start) / step)` items (or none), item `k` being
//! `s[start + k * step]`.
//!
//! Encodings, chosen per slice; all are exact:
//! * step 1 of a string: `str.substr(s, start, count)`.
//! * the count has a static bound `m <= UNROLL_LIMIT` (literal bounds such as `s[1:5:2]`,
//!   `s[-4::2]`, `s[6:3:-2]`): the quantifier-free concatenation of
//!   `if k < count then s.at(start + k * step) else ""` for `k < m`.
//! * step 1 of a sequence otherwise (`xs[1:]`): a fresh `r` with the quantifier-free word
//!   equation `xs == a ++ r ++ b`, `len(a) == start`, `len(r) == count`.
//! * any other step otherwise (`s[::2]`, `s[1::3]`, `s[::-1]`, variable bounds):
//!   `stride(s, start, count)` of the recursive function (`define-fun-rec`, one per step and
//!   sort) `stride(s, i, n) = if n <= 0 then "" else s.at(i) ++ stride(s, i + step, n - 1)`.
//!   Z3 unfolds it on demand: models and refutations that need finitely many items are found
//!   (`s[::2] == 'abc'`, `s[::-1] == 'abc'` iff `s == 'cba'`); facts that need induction over
//!   the length (`s[::-1][::-1] == s`) answer `unknown`, never a wrong verdict.
//!
//! A model evaluates open slices itself (Z3's evaluator leaves recursive functions folded):
//! the model's `start` and `count` give the positions to read.

use std::cell::RefCell;
use std::collections::HashMap;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use z3::ast;

use super::SolverError;
use super::lower::{Lowerer, Result, Z, coerce, internal, str_const, z3_sort};
use crate::symbolic::sort::Sort;
use crate::symbolic::term::{Term, TermKind, slice_positions};

/// Largest statically bounded slice length that is unrolled.
pub const UNROLL_LIMIT: u64 = 64;

/// Most items a model's slice is unrolled to when evaluated.
const EVALUATION_LIMIT: i64 = 1 << 20;

thread_local! {
    /// The `stride` functions defined in this thread's Z3 context, by name.
    static STRIDES: RefCell<HashMap<String, z3::RecFuncDecl>> = RefCell::new(HashMap::new());
}

/// A string or a sequence (with its Z3 item sort): what Z3 slices.
#[derive(Clone)]
enum Val {
    Str(ast::String),
    Seq(ast::Seq, z3::Sort),
}

impl Val {
    fn len(&self) -> ast::Int {
        match self {
            Val::Str(s) => s.length(),
            Val::Seq(s, _) => s.length(),
        }
    }

    /// The item at `i` as a one-item value (empty out of range).
    fn at(&self, i: &ast::Int) -> Val {
        match self {
            Val::Str(s) => Val::Str(s.at(i)),
            Val::Seq(s, item) => Val::Seq(s.at(i), item.clone()),
        }
    }

    fn empty(&self) -> Result<Val> {
        Ok(match self {
            Val::Str(_) => Val::Str(str_const("")?),
            Val::Seq(_, item) => Val::Seq(ast::Seq::empty(item), item.clone()),
        })
    }

    fn fresh(&self) -> Val {
        match self {
            Val::Str(_) => Val::Str(ast::String::fresh_const("slice")),
            Val::Seq(_, item) => Val::Seq(ast::Seq::fresh_const("slice", item), item.clone()),
        }
    }

    fn dynamic(&self) -> ast::Dynamic {
        match self {
            Val::Str(s) => ast::Dynamic::from_ast(s),
            Val::Seq(s, _) => ast::Dynamic::from_ast(s),
        }
    }

    /// `d` as a value of this value's sort.
    fn like(&self, d: ast::Dynamic) -> Result<Val> {
        let bad = || internal("a stride of another sort");
        Ok(match self {
            Val::Str(_) => Val::Str(d.as_string().ok_or_else(bad)?),
            Val::Seq(_, item) => Val::Seq(d.as_seq().ok_or_else(bad)?, item.clone()),
        })
    }

    fn eq(&self, other: &Val) -> Result<ast::Bool> {
        self.dynamic()
            .safe_eq(other.dynamic())
            .map_err(|e| internal(format!("slice equality: {e:?}")))
    }

    fn ite(c: &ast::Bool, a: &Val, b: &Val) -> Result<Val> {
        Ok(match (a, b) {
            (Val::Str(x), Val::Str(y)) => Val::Str(c.ite(x, y)),
            (Val::Seq(x, item), Val::Seq(y, _)) => Val::Seq(c.ite(x, y), item.clone()),
            _ => return Err(internal("slice branches differ")),
        })
    }

    fn concat(&self, parts: Vec<Val>) -> Result<Val> {
        if parts.len() <= 1 {
            return match parts.into_iter().next() {
                Some(p) => Ok(p),
                None => self.empty(),
            };
        }
        Ok(match self {
            Val::Str(_) => {
                let strs: Vec<ast::String> = parts
                    .into_iter()
                    .filter_map(|p| match p {
                        Val::Str(s) => Some(s),
                        Val::Seq(..) => None,
                    })
                    .collect();
                Val::Str(ast::String::concat(&strs))
            }
            Val::Seq(_, item) => {
                let seqs: Vec<ast::Seq> = parts
                    .into_iter()
                    .filter_map(|p| match p {
                        Val::Seq(s, _) => Some(s),
                        Val::Str(_) => None,
                    })
                    .collect();
                Val::Seq(ast::Seq::concat(&seqs), item.clone())
            }
        })
    }

    fn into_z(self) -> Z {
        match self {
            Val::Str(s) => Z::Str(s),
            Val::Seq(s, _) => Z::Seq(s),
        }
    }

    /// `stride(self, start, count)` for this step, defining the function on first use.
    fn stride(&self, step: i64, start: &ast::Int, count: &ast::Int) -> Result<Val> {
        let sort = match self {
            Val::Str(_) => z3::Sort::string(),
            Val::Seq(_, item) => z3::Sort::seq(item),
        };
        let sort_name: String = sort
            .to_string()
            .chars()
            .filter_map(|c| match c {
                '(' | ')' => None,
                ' ' => Some('_'),
                c => Some(c),
            })
            .collect();
        let name = format!("py.slice.{step}.{sort_name}");
        let applied = STRIDES.with(|strides| -> Result<ast::Dynamic> {
            let mut strides = strides
                .try_borrow_mut()
                .map_err(|_| internal("stride registry in use"))?;
            if !strides.contains_key(&name) {
                let f = z3::RecFuncDecl::new(
                    name.as_str(),
                    &[&sort, &z3::Sort::int(), &z3::Sort::int()],
                    &sort,
                );
                let s = self.fresh();
                let (i, n) = (ast::Int::fresh_const("i"), ast::Int::fresh_const("n"));
                let rest =
                    self.like(f.apply(&[&s.dynamic(), &add(&i, &int(step)), &sub(&n, &int(1))]))?;
                let body = Val::ite(
                    &n.le(int(0)),
                    &self.empty()?,
                    &self.concat(vec![s.at(&i), rest])?,
                )?;
                f.add_def(&[&s.dynamic(), &i, &n], &body.dynamic());
                strides.insert(name.clone(), f);
            }
            let f = strides
                .get(&name)
                .ok_or_else(|| internal("stride registry"))?;
            Ok(f.apply(&[&self.dynamic(), start, count]))
        })?;
        self.like(applied)
    }
}

fn int(i: i64) -> ast::Int {
    ast::Int::from_i64(i)
}

fn add(a: &ast::Int, b: &ast::Int) -> ast::Int {
    ast::Int::add(&[a, b])
}

fn sub(a: &ast::Int, b: &ast::Int) -> ast::Int {
    ast::Int::sub(&[a, b])
}

/// Lowers a slice term.
pub(super) fn lower(low: &mut Lowerer, t: &Term) -> Result<Z> {
    let TermKind::Slice {
        seq,
        lower,
        upper,
        step,
    } = t.kind()
    else {
        return Err(internal("slice lowering of a non-slice"));
    };
    let step = step.unwrap_or(1);
    let z = low.lower(seq)?;
    if step == 0 {
        // Raises ValueError; the value is never used.
        return coerce(z, seq.sort(), t.sort());
    }
    let val = match (z, seq.sort(), t.sort()) {
        // A display sliced to a display: literal bounds, or no items at all (see
        // `Term::slice`), so the positions are known now.
        (Z::Fixed(parts), Sort::Fixed(..), Sort::Fixed(..)) => {
            let lit = |b: &Option<Term>| b.as_ref().and_then(Term::int_literal);
            let picked = slice_positions(parts.len(), lit(lower), lit(upper), step);
            return Ok(Z::Fixed(
                picked
                    .into_iter()
                    .filter_map(|i| parts.get(i).cloned())
                    .collect(),
            ));
        }
        (z @ Z::Fixed(_), from, to @ Sort::Seq(_, item)) => {
            let item = z3_sort(item)?;
            Val::Seq(coerce(z, from, to)?.into_seq()?, item)
        }
        (Z::Str(s), ..) => Val::Str(s),
        (Z::Seq(s), Sort::Seq(_, item), _) => Val::Seq(s, z3_sort(item)?),
        (other, ..) => return Err(internal(format!("slicing {other:?}"))),
    };
    let len = val.len();
    let mut bound = |b: &Option<Term>, default: ast::Int, lo: ast::Int, hi: ast::Int| {
        adjust(low, b.as_ref(), &len, default, lo, hi)
    };
    let (start, stop) = if step > 0 {
        (
            bound(lower, int(0), int(0), len.clone())?,
            bound(upper, len.clone(), int(0), len.clone())?,
        )
    } else {
        let last = sub(&len, &int(1));
        (
            bound(lower, last.clone(), int(-1), last.clone())?,
            bound(upper, int(-1), int(-1), last)?,
        )
    };
    let magnitude = step.unsigned_abs() as i64;
    let (span, nonempty) = if step > 0 {
        (sub(&stop, &start), stop.gt(&start))
    } else {
        (sub(&start, &stop), start.gt(&stop))
    };
    let count = if magnitude == 1 {
        nonempty.ite(&span, &int(0))
    } else {
        nonempty.ite(
            &add(&span, &int(magnitude - 1)).div(int(magnitude)),
            &int(0),
        )
    };
    let position = |k: &ast::Int| add(&start, &ast::Int::mul(&[k, &int(step)]));
    let unrolled = |m: i64, positions: &dyn Fn(i64) -> ast::Int| -> Result<Z> {
        let empty = val.empty()?;
        let parts = (0..m)
            .map(|k| Val::ite(&int(k).lt(&count), &val.at(&positions(k)), &empty))
            .collect::<Result<Vec<_>>>()?;
        Ok(val.concat(parts)?.into_z())
    };

    if step == 1
        && let Val::Str(s) = &val
    {
        return Ok(Z::Str(s.substr(&start, &count)));
    }
    let static_count: Option<BigInt> =
        static_span(step, lower.as_ref(), upper.as_ref()).map(|span| {
            let m = BigInt::from(magnitude);
            (span + &m - 1) / m
        });
    if let Some(m) = static_count
        .and_then(|m| m.to_i64())
        .filter(|m| *m as u64 <= UNROLL_LIMIT)
    {
        return unrolled(m, &|k| position(&int(k)));
    }
    if let Some(model) = low.model() {
        // Evaluating in a model: the model fixes start and count.
        let value = |x: &ast::Int| super::convert::evaluate(model, x).and_then(|v| v.as_i64());
        let (Some(first), Some(n)) = (value(&start), value(&count)) else {
            return Err(internal("a slice's bounds in the model"));
        };
        if n > EVALUATION_LIMIT {
            let msg = format!("a slice of {n} items in a model");
            return Err(SolverError::Unsupported(msg));
        }
        return unrolled(n, &|k| int(first + k * step));
    }
    if step == 1 {
        // xs == a ++ r ++ b with |a| = start, |r| = count: quantifier-free.
        let (a, r, b) = (val.fresh(), val.fresh(), val.fresh());
        low.definitions
            .push(val.eq(&val.concat(vec![a.clone(), r.clone(), b])?)?);
        low.definitions.push(a.len().eq(&start));
        low.definitions.push(r.len().eq(&count));
        return Ok(r.into_z());
    }
    Ok(val.stride(step, &start, &count)?.into_z())
}

/// A bound adjusted to the sequence: `default` when absent; a negative one plus `len`,
/// at least `lo`; a non-negative one at most `hi`.
fn adjust(
    low: &mut Lowerer,
    bound: Option<&Term>,
    len: &ast::Int,
    default: ast::Int,
    lo: ast::Int,
    hi: ast::Int,
) -> Result<ast::Int> {
    let Some(b) = bound else {
        return Ok(default);
    };
    let x = low.int(b)?;
    let from_end = add(&x, len);
    let negative = from_end.lt(&lo).ite(&lo, &from_end);
    let positive = x.gt(&hi).ite(&hi, &x);
    Ok(match b.int_literal() {
        Some(v) if v.is_negative() => negative,
        Some(_) => positive,
        None => x.lt(int(0)).ite(&negative, &positive),
    })
}

/// An upper bound on `stop - start` (step > 0) or `start - stop` (step < 0) that holds for
/// every length, from the bounds that are literals; `None` when the span grows with the
/// length (`s[1:]`, `s[::-1]`, variable bounds).
pub fn static_span(step: i64, lower: Option<&Term>, upper: Option<&Term>) -> Option<BigInt> {
    let lit = |b: Option<&Term>| b.and_then(Term::int_literal);
    let (l, u) = (lit(lower), lit(upper));
    let mut best: Option<BigInt> = None;
    let mut limit = |v: BigInt| {
        let v = v.max(BigInt::zero());
        best = Some(match best.take() {
            Some(b) => b.min(v),
            None => v,
        });
    };
    let nonneg = |v: &Option<BigInt>| v.as_ref().filter(|v| !v.is_negative()).cloned();
    let neg = |v: &Option<BigInt>| v.as_ref().filter(|v| v.is_negative()).cloned();
    if step > 0 {
        // start in [0, len], stop in [0, len].
        if let Some(u) = nonneg(&u) {
            limit(&u - nonneg(&l).unwrap_or_default());
        }
        if let Some(l) = neg(&l) {
            limit(-&l);
            if let Some(u) = neg(&u) {
                limit(u - l);
            }
        }
    } else {
        // start in [-1, len - 1], stop in [-1, len - 1].
        if let Some(l) = nonneg(&l) {
            limit(&l + 1);
            if let Some(u) = nonneg(&u) {
                limit(&l - u);
            }
        }
        if let Some(u) = neg(&u) {
            limit(-1 - &u);
            if let Some(l) = neg(&l) {
                limit(l - u);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(step: i64, l: Option<i64>, u: Option<i64>) -> Option<i64> {
        let t = |v: Option<i64>| v.map(Term::int);
        static_span(step, t(l).as_ref(), t(u).as_ref()).and_then(|b| b.to_i64())
    }

    #[test]
    fn static_spans_bound_every_length() {
        assert_eq!(span(2, Some(1), Some(5)), Some(4));
        assert_eq!(span(4, None, Some(5)), Some(5));
        assert_eq!(span(2, Some(-4), None), Some(4));
        assert_eq!(span(1, Some(-4), Some(-1)), Some(3));
        assert_eq!(span(-2, Some(6), Some(3)), Some(3));
        assert_eq!(span(-1, None, Some(-3)), Some(2));
        assert_eq!(span(2, None, None), None);
        assert_eq!(span(3, Some(1), None), None);
        assert_eq!(span(-1, None, None), None);
        // Check the bounds against Python's slice arithmetic for lengths 0..20.
        for step in [-3i64, -2, -1, 1, 2, 3] {
            for l in [None, Some(-7), Some(-2), Some(0), Some(3), Some(9)] {
                for u in [None, Some(-6), Some(-1), Some(0), Some(4), Some(12)] {
                    let Some(b) = span(step, l, u) else { continue };
                    let m = step.unsigned_abs() as i64;
                    for len in 0..20usize {
                        let n = slice_positions(len, l.map(BigInt::from), u.map(BigInt::from), step)
                            .len() as i64;
                        assert!(n <= (b + m - 1) / m, "{l:?}:{u:?}:{step} len {len}");
                    }
                }
            }
        }
    }
}
