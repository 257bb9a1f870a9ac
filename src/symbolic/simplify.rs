//! Folding terms (for `%set`'s trees; `negate` is `%constraints`' negation) so trees read like the book's: `i = i + 1` stores `2`, not `0 + 1 + 1`;
//! `len((1, 2, 3))` is `3`; `(1, 2)[i]` with `i == 1` is `2`. Only rewrites that keep the
//! Python meaning exactly: integer arithmetic on literals (floor division and modulo by
//! Python's rules), `x + 0`, `x + 1 + 1`, lengths of displays and string literals, and
//! whatever the term constructors fold once their operands are literals.

use std::collections::HashMap;

use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use crate::python::arith;
use crate::symbolic::{ArithOp, CompareOp, Literal, Sort, Term, TermKind};

/// The folded form of `t` (the same term when nothing folds).
pub fn simplify(t: &Term) -> Term {
    Folder::default().fold(t)
}

#[derive(Default)]
struct Folder {
    /// Keyed by term identity, the term kept alive so that its address is not reused.
    memo: HashMap<usize, (Term, Term)>,
}

impl Folder {
    fn fold(&mut self, t: &Term) -> Term {
        if let Some((_, done)) = self.memo.get(&t.id()) {
            return done.clone();
        }
        let folded = self.rebuild(t).unwrap_or_else(|| t.clone());
        // Never change a sort: a caller may rely on it.
        let folded = if folded.sort() == t.sort() {
            folded
        } else {
            t.clone()
        };
        self.memo.insert(t.id(), (t.clone(), folded.clone()));
        folded
    }

    fn all(&mut self, ts: &[Term]) -> Vec<Term> {
        ts.iter().map(|x| self.fold(x)).collect()
    }

    fn rebuild(&mut self, t: &Term) -> Option<Term> {
        use TermKind as K;
        Some(match t.kind() {
            K::Literal(_) | K::Var(_) => return None,
            K::Neg(a) => negative(self.fold(a))?,
            K::Invert(a) => Term::invert(self.fold(a)).ok()?,
            K::Not(a) => negate(self.fold(a))?,
            K::Arith(op, a, b) => arith(*op, self.fold(a), self.fold(b))?,
            K::Pow(a, n) => Term::pow(self.fold(a), *n).ok()?,
            K::Compare(op, a, b) => compare(*op, self.fold(a), self.fold(b))?,
            K::And(xs) => Term::and(self.all(xs)).ok()?,
            K::Or(xs) => Term::or(self.all(xs)).ok()?,
            K::Ite(c, a, b) => Term::ite(self.fold(c), self.fold(a), self.fold(b)).ok()?,
            K::Abs(a) => {
                let a = self.fold(a);
                match int_of(&a) {
                    Some(i) => Term::int(i.abs()),
                    None => Term::abs(a).ok()?,
                }
            }
            K::Min(xs) => extremum(self.all(xs), true)?,
            K::Max(xs) => extremum(self.all(xs), false)?,
            K::ToReal(a) => Term::to_real(self.fold(a)).ok()?,
            K::ToInt(a) => Term::to_int(self.fold(a)).ok()?,
            K::Len(a) => {
                let a = self.fold(a);
                match known_len(&a) {
                    Some(n) => Term::int(n),
                    None => Term::len(a).ok()?,
                }
            }
            K::Index(s, i) => index(self.fold(s), self.fold(i))?,
            K::Slice {
                seq,
                lower,
                upper,
                step,
            } => {
                let lower = lower.as_ref().map(|x| self.fold(x));
                let upper = upper.as_ref().map(|x| self.fold(x));
                Term::slice(self.fold(seq), lower, upper, *step).ok()?
            }
            K::Contains(n, h) => contains(self.fold(n), self.fold(h))?,
            K::StartsWith(s, p) => Term::starts_with(self.fold(s), self.fold(p)).ok()?,
            K::EndsWith(s, p) => Term::ends_with(self.fold(s), self.fold(p)).ok()?,
            K::Find(s, p) => {
                let (s, p) = (self.fold(s), self.fold(p));
                match (s.literal(), p.literal()) {
                    (Some(Literal::Str(a)), Some(Literal::Str(b))) => Term::int(
                        a.find(b.as_str())
                            .map_or(-1, |byte| a[..byte].chars().count() as i64),
                    ),
                    _ => Term::find(s, p).ok()?,
                }
            }
            K::CharTest(test, s) => {
                let s = self.fold(s);
                match s.literal() {
                    Some(Literal::Str(a)) => Term::bool(test.eval(a)?),
                    _ => Term::char_test(*test, s).ok()?,
                }
            }
            K::CaseMap(map, s) => {
                let s = self.fold(s);
                match s.literal() {
                    Some(Literal::Str(a)) => Term::str(map.eval(a)?).ok()?,
                    _ => Term::case_map(*map, s).ok()?,
                }
            }
            K::StrFn(f, args) => {
                let args = self.all(args);
                let literals: Option<Vec<_>> = args.iter().map(|a| a.literal()).collect();
                match literals.and_then(|ls| f.eval(&ls)) {
                    Some(Literal::Str(s)) => Term::str(s).ok()?,
                    Some(Literal::Int(i)) => Term::int(i),
                    Some(Literal::Bool(b)) => Term::bool(b),
                    _ => Term::str_fn(f.clone(), args).ok()?,
                }
            }
            K::Concat(parts) => concat(self.all(parts))?,
            K::Repeat(a, n) => Term::repeat(self.fold(a), *n).ok()?,
            K::Items(kind, xs) => Term::items(*kind, self.all(xs)).ok()?,
            K::Quantified {
                forall,
                var,
                lo,
                hi,
                body,
            } => Term::quantified(
                *forall,
                var.clone(),
                self.fold(lo),
                self.fold(hi),
                self.fold(body),
            )
            .ok()?,
        })
    }
}

/// The value of an `int` literal (not `bool`: folding `True + 1` would change nothing
/// visible but is left to the solver).
fn int_of(t: &Term) -> Option<BigInt> {
    match t.literal()? {
        Literal::Int(i) => Some(i.clone()),
        _ => None,
    }
}

fn arith(op: ArithOp, a: Term, b: Term) -> Option<Term> {
    if let (Some(x), Some(y)) = (int_of(&a), int_of(&b)) {
        let folded = match op {
            ArithOp::Add => Some(x + y),
            ArithOp::Sub => Some(x - y),
            ArithOp::Mul => Some(x * y),
            ArithOp::FloorDiv => arith::floor_div(&x, &y),
            ArithOp::Mod => arith::modulo(&x, &y),
            _ => None,
        };
        if let Some(v) = folded {
            return Some(Term::int(v));
        }
    }
    let int_sorted = *a.sort() == Sort::Int && *b.sort() == Sort::Int;
    if int_sorted {
        match (op, int_of(&a), int_of(&b)) {
            (ArithOp::Add | ArithOp::Sub, _, Some(y)) if y.is_zero() => return Some(a),
            (ArithOp::Add, Some(x), _) if x.is_zero() => return Some(b),
            (ArithOp::Mul, _, Some(y)) if y == BigInt::from(1) => return Some(a),
            (ArithOp::Mul, Some(x), _) if x == BigInt::from(1) => return Some(b),
            (ArithOp::Add | ArithOp::Sub, _, Some(y)) => {
                // (x ± c1) ± c2 → x ± (c1 ± c2)
                if let TermKind::Arith(inner @ (ArithOp::Add | ArithOp::Sub), x, c1) = a.kind()
                    && let Some(c1) = int_of(c1)
                    && *x.sort() == Sort::Int
                {
                    let signed = |o: ArithOp, v: BigInt| if o == ArithOp::Add { v } else { -v };
                    let total = signed(*inner, c1) + signed(op, y);
                    return Some(offset(x.clone(), total));
                }
            }
            _ => {}
        }
    }
    Term::arith(op, a, b).ok()
}

/// `x + c` / `x - |c|` / `x`.
fn offset(x: Term, c: BigInt) -> Term {
    if c.is_zero() {
        return x;
    }
    let (op, magnitude) = if c.is_negative() {
        (ArithOp::Sub, -c)
    } else {
        (ArithOp::Add, c)
    };
    Term::arith(op, x.clone(), Term::int(magnitude)).unwrap_or(x)
}

/// `-(2 * y)` is `-2 * y`.
fn negative(a: Term) -> Option<Term> {
    if let TermKind::Arith(ArithOp::Mul, c, x) = a.kind()
        && let Some(c) = int_of(c)
        && *x.sort() == Sort::Int
    {
        return Term::arith(ArithOp::Mul, Term::int(-c), x.clone()).ok();
    }
    Term::neg(a).ok()
}

/// `not (a < b)` is `a >= b` (numbers and strings are totally ordered; `not (a == b)` is
/// `a != b` for any operands).
fn negate(a: Term) -> Option<Term> {
    if let TermKind::Compare(op, x, y) = a.kind() {
        let ordered = (x.sort().is_numeric() && y.sort().is_numeric())
            || (*x.sort() == Sort::Str && *y.sort() == Sort::Str);
        let flipped = match op {
            CompareOp::Eq | CompareOp::NotEq => Some(op.opposite()),
            _ if ordered => Some(op.opposite()),
            _ => None,
        };
        if let Some(op) = flipped {
            return Term::compare(op, x.clone(), y.clone()).ok();
        }
    }
    Term::not(a).ok()
}

fn compare(op: CompareOp, a: Term, b: Term) -> Option<Term> {
    Term::compare(op, a, b).ok()
}

fn extremum(xs: Vec<Term>, is_min: bool) -> Option<Term> {
    let ints: Option<Vec<BigInt>> = xs.iter().map(int_of).collect();
    if let Some(ints) = ints {
        let pick = if is_min {
            ints.into_iter().min()
        } else {
            ints.into_iter().max()
        };
        return pick.map(Term::int);
    }
    if is_min {
        Term::min(xs).ok()
    } else {
        Term::max(xs).ok()
    }
}

/// The length of a display or a string literal.
fn known_len(t: &Term) -> Option<usize> {
    match (t.sort(), t.literal()) {
        (Sort::Fixed(_, items), _) => Some(items.len()),
        (_, Some(Literal::Str(s))) => Some(s.chars().count()),
        _ => None,
    }
}

fn index(s: Term, i: Term) -> Option<Term> {
    if let (Some(Literal::Str(text)), Some(k)) = (s.literal(), int_of(&i)) {
        let chars: Vec<char> = text.chars().collect();
        let n = BigInt::from(chars.len());
        let at = if k.is_negative() { k + &n } else { k };
        if !at.is_negative() && at < n {
            let at: usize = at.try_into().ok()?;
            return Term::str(chars[at].to_string()).ok();
        }
    }
    Term::index(s, i).ok()
}

/// `n in (a, b)` folds when every comparison folds.
fn contains(needle: Term, hay: Term) -> Option<Term> {
    if let TermKind::Items(_, items) = hay.kind() {
        let tests: Option<Vec<bool>> = items
            .iter()
            .map(|x| {
                Term::compare(CompareOp::Eq, needle.clone(), x.clone())
                    .ok()?
                    .bool_literal()
            })
            .collect();
        if let Some(tests) = tests {
            return Some(Term::bool(tests.into_iter().any(|b| b)));
        }
    }
    if let (Some(Literal::Str(n)), Some(Literal::Str(h))) = (needle.literal(), hay.literal()) {
        return Some(Term::bool(h.contains(n.as_str())));
    }
    Term::contains(needle, hay).ok()
}

/// Adjacent displays of one kind join: `(a,) + (b,)` is `(a, b)`.
fn concat(parts: Vec<Term>) -> Option<Term> {
    let mut out: Vec<Term> = Vec::with_capacity(parts.len());
    for p in parts {
        if let Some(prev) = out.last()
            && let (TermKind::Items(k1, xs), TermKind::Items(k2, ys)) = (prev.kind(), p.kind())
            && k1 == k2
        {
            let joined = Term::items(*k1, xs.iter().chain(ys).cloned().collect()).ok()?;
            out.pop();
            out.push(joined);
            continue;
        }
        if let Some(prev) = out.last()
            && let (Some(Literal::Str(a)), Some(Literal::Str(b))) = (prev.literal(), p.literal())
        {
            let joined = Term::str(format!("{a}{b}")).ok()?;
            out.pop();
            out.push(joined);
            continue;
        }
        out.push(p);
    }
    if out.len() == 1 {
        return out.pop();
    }
    Term::concat(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::{SeqKind, Var};

    fn var(name: &str, sort: Sort) -> Term {
        Term::var(Var::input(name), sort).unwrap()
    }

    #[test]
    fn folds_keep_python_meaning() {
        let x = var("x", Sort::Int);
        let plus = |a: Term, b: i64| Term::arith(ArithOp::Add, a, Term::int(b)).unwrap();
        assert_eq!(simplify(&plus(plus(Term::int(0), 1), 1)).to_string(), "2");
        assert_eq!(simplify(&plus(plus(x.clone(), 1), 1)).to_string(), "x + 2");
        let minus = Term::arith(ArithOp::Sub, plus(x.clone(), 1), Term::int(1)).unwrap();
        assert_eq!(simplify(&minus).to_string(), "x");
        let fd = Term::arith(ArithOp::FloorDiv, Term::int(7), Term::int(-2)).unwrap();
        assert_eq!(simplify(&fd).to_string(), "-4");
        let md = Term::arith(ArithOp::Mod, Term::int(7), Term::int(-2)).unwrap();
        assert_eq!(simplify(&md).to_string(), "-1");
        let by_zero = Term::arith(ArithOp::Mod, Term::int(7), Term::int(0)).unwrap();
        assert_eq!(simplify(&by_zero).to_string(), "7 % 0");
        let t = Term::items(
            SeqKind::Tuple,
            vec![Term::int(1), Term::int(2), Term::int(3)],
        )
        .unwrap();
        let len = Term::len(t.clone()).unwrap();
        let lt = Term::compare(CompareOp::Lt, plus(Term::int(2), 1), len).unwrap();
        assert_eq!(simplify(&lt).bool_literal(), Some(false));
        let item = Term::index(t.clone(), plus(Term::int(0), 1)).unwrap();
        assert_eq!(simplify(&item).to_string(), "2");
        let member = Term::contains(Term::int(3), t).unwrap();
        assert_eq!(simplify(&member).bool_literal(), Some(true));
        let twice = Term::arith(ArithOp::Mul, Term::int(2), x.clone()).unwrap();
        assert_eq!(simplify(&Term::neg(twice).unwrap()).to_string(), "-2 * x");
        let lt = Term::compare(CompareOp::Lt, x.clone(), Term::int(0)).unwrap();
        assert_eq!(simplify(&Term::not(lt).unwrap()).to_string(), "x >= 0");
        let b = var("b", Sort::Bool);
        let bool_plus = Term::arith(ArithOp::Add, b, Term::int(0)).unwrap();
        assert_eq!(
            simplify(&bool_plus).to_string(),
            "b + 0",
            "bool + 0 is an int: kept"
        );
    }
}
