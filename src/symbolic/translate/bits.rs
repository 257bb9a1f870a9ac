//! Python's integer bit operators in the integer arithmetic of the model, exact for every
//! int (Python's ints are two's complement of unbounded width):
//!
//! - `a & b`, `a | b`, `a ^ b` of two bools are `and`, `or`, `!=` (a bool, as in Python);
//!   a bool with an int is the int with the constant 1 or 0, by the bool;
//! - `x & c` with a constant `c >= 0` adds up the runs of `c`'s one bits:
//!   `(x // 2**i) % 2**n * 2**i` for a run of `n` ones from bit `i` (floor semantics, so a
//!   negative `x` reads as its two's complement); a negative `c` is `x - (x & ~c)`;
//! - `x | c` is `x + c - (x & c)` and `x ^ c` is `x + c - 2 * (x & c)`;
//! - `x >> k` is `x // 2**k` and `x << k` is `x * 2**k` for a constant `k >= 0` (a negative
//!   one raises `ValueError: negative shift count`).
//!
//! Two non-constant int operands of `& | ^`, a non-constant shift count, and constants of
//! more than [`MAX_BITS`] bits are not modelled (the caller's havoc).

use num_bigint::{BigInt, Sign};
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::ExceptionKind;
use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::{BinOp, Expr};
use crate::symbolic::simplify::simplify;
use crate::symbolic::sort::Sort;
use crate::symbolic::term::{ArithOp, CompareOp, SortError, Term};

/// The widest constant mask or shift count modelled.
pub const MAX_BITS: u64 = 4096;

type Built = std::result::Result<Term, SortError>;

impl Translator<'_> {
    /// `a op b` for `op` one of `& | ^ << >>`.
    pub(super) fn bitwise(
        &self,
        e: &Expr,
        op: BinOp,
        fx: Effects,
        a: Term,
        b: Term,
    ) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let integral = |t: &Term| matches!(t.sort(), Sort::Int | Sort::Bool);
        if !integral(&a) || !integral(&b) {
            let msg = format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                op.symbol(),
                a.sort(),
                b.sort()
            );
            return Err(self.sort_error(e, SortError(msg)));
        }
        let both_bool = *a.sort() == Sort::Bool && *b.sort() == Sort::Bool;
        // Constant operands written as expressions (`2**8 - 1`, `~1`) fold to literals.
        let (a, b) = (simplify(&a), simplify(&b));
        let value = match op {
            BinOp::BitAnd if both_bool => Term::and(vec![a, b]).map_err(fail)?,
            BinOp::BitOr if both_bool => Term::or(vec![a, b]).map_err(fail)?,
            BinOp::BitXor if both_bool => Term::compare(CompareOp::NotEq, a, b).map_err(fail)?,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                // A bool operand is the constant 0 or 1 on either side of a conditional.
                let flag = |t: &Term| *t.sort() == Sort::Bool && t.bool_literal().is_none();
                if flag(&a) || flag(&b) {
                    let (bit, x) = if flag(&a) { (a, b) } else { (b, a) };
                    let x = Term::to_int(x).map_err(fail)?;
                    let one = with_constant(op, x.clone(), &BigInt::one()).map_err(fail)?;
                    let zero = with_constant(op, x, &BigInt::zero()).map_err(fail)?;
                    return Ok(fx.finish(Term::ite(bit, one, zero).map_err(fail)?));
                }
                let a = Term::to_int(a).map_err(fail)?;
                let b = Term::to_int(b).map_err(fail)?;
                let (x, c) = match (a.int_literal(), b.int_literal()) {
                    (_, Some(c)) => (a, c),
                    (Some(c), None) => (b, c),
                    (None, None) => {
                        return Err(self.unsupported(
                            e,
                            format!("the operator {} of two non-constant ints", op.symbol()),
                        ));
                    }
                };
                if c.bits() > MAX_BITS {
                    return Err(self.unsupported(e, format!("a mask of over {MAX_BITS} bits")));
                }
                with_constant(op, x, &c).map_err(fail)?
            }
            BinOp::LShift | BinOp::RShift => {
                let Some(k) = b.int_literal() else {
                    return Err(self.unsupported(e, "a shift by a non-constant count"));
                };
                if k.is_negative() {
                    return Err(self.always_raises(
                        e,
                        ExceptionKind::ValueError,
                        "negative shift count",
                    ));
                }
                let Some(k) = k.to_u64().filter(|k| *k <= MAX_BITS) else {
                    return Err(self.unsupported(e, format!("a shift by over {MAX_BITS} bits")));
                };
                let x = Term::to_int(a).map_err(fail)?;
                let arith = if op == BinOp::LShift {
                    ArithOp::Mul
                } else {
                    ArithOp::FloorDiv
                };
                shifted(arith, x, k).map_err(fail)?
            }
            other => return Err(self.unsupported(e, format!("the operator {}", other.symbol()))),
        };
        Ok(fx.finish(value))
    }
}

/// `x op c` for `op` one of `& | ^` and a constant `c`.
fn with_constant(op: BinOp, x: Term, c: &BigInt) -> Built {
    let and = and_constant(x.clone(), c)?;
    let sum = Term::arith(ArithOp::Add, x, Term::int(c.clone()))?;
    match op {
        BinOp::BitAnd => Ok(and),
        BinOp::BitOr => Term::arith(ArithOp::Sub, sum, and),
        _ => Term::arith(
            ArithOp::Sub,
            sum,
            Term::arith(ArithOp::Mul, Term::int(2), and)?,
        ),
    }
}

/// `x & c`.
fn and_constant(x: Term, c: &BigInt) -> Built {
    if c.sign() == Sign::Minus {
        // `x` is the sum of its bits under `c` and under `~c`, which share none.
        let complement = -c - BigInt::one();
        let rest = and_constant(x.clone(), &complement)?;
        return Term::arith(ArithOp::Sub, x, rest);
    }
    let mut parts = Vec::new();
    for (start, len) in one_runs(c) {
        let shifted_down = shifted(ArithOp::FloorDiv, x.clone(), start)?;
        let run = Term::arith(ArithOp::Mod, shifted_down, Term::int(power_of_two(len)))?;
        parts.push(shifted(ArithOp::Mul, run, start)?);
    }
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        return Ok(Term::int(0));
    };
    parts.try_fold(first, |sum, p| Term::arith(ArithOp::Add, sum, p))
}

/// `x // 2**k` or `x * 2**k` (`x` itself for `k == 0`).
fn shifted(arith: ArithOp, x: Term, k: u64) -> Built {
    if k == 0 {
        return Ok(x);
    }
    Term::arith(arith, x, Term::int(power_of_two(k)))
}

fn power_of_two(k: u64) -> BigInt {
    BigInt::one() << k
}

/// The runs of one bits of `c >= 0`, lowest first: (first bit, length).
fn one_runs(c: &BigInt) -> Vec<(u64, u64)> {
    let mut runs = Vec::new();
    let mut start = None;
    for i in 0..=c.bits() {
        let set = !(c >> i & BigInt::one()).is_zero();
        match (set, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i - s));
                start = None;
            }
            _ => {}
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_ones() {
        assert_eq!(one_runs(&BigInt::from(0)), vec![]);
        assert_eq!(one_runs(&BigInt::from(1)), vec![(0, 1)]);
        assert_eq!(one_runs(&BigInt::from(0b1101_1000)), vec![(3, 2), (6, 2)]);
        assert_eq!(one_runs(&BigInt::from(255)), vec![(0, 8)]);
    }
}
