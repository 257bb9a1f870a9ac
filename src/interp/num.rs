//! Arithmetic on ints and floats with CPython's rules: floor division and modulo taking the
//! divisor's sign, correctly rounded true division of ints, exact int/float comparison, and
//! CPython's error messages.

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};

use super::budget;
use super::exc::{ExcKind, R, Unwind, fail, value_error};
use super::limits;
use super::value::Value;
use crate::python::ir::BinOp;
use crate::python::{arith, messages};

/// A number borrowed from a value (bools are ints).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num<'a> {
    Small(i64),
    Big(&'a BigInt),
    Float(f64),
}

/// The value as a number, if it is an int, bool or float.
pub(crate) fn num(v: &Value) -> Option<Num<'_>> {
    match v {
        Value::Int(i) => Some(Num::Small(*i)),
        Value::Bool(b) => Some(Num::Small(*b as i64)),
        Value::Big(b) => Some(Num::Big(b)),
        Value::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

impl Num<'_> {
    pub fn to_big(self) -> BigInt {
        match self {
            Num::Small(i) => BigInt::from(i),
            Num::Big(b) => b.clone(),
            Num::Float(f) => BigInt::from_f64(f.trunc()).unwrap_or_default(),
        }
    }

    /// The number as a float; `OverflowError` for ints beyond the float range.
    pub fn to_f64(self) -> R<f64> {
        match self {
            Num::Small(i) => Ok(i as f64),
            Num::Big(b) => big_to_f64(b),
            Num::Float(f) => Ok(f),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Num::Float(_))
    }
}

pub(crate) fn big_to_f64(b: &BigInt) -> R<f64> {
    match b.to_f64() {
        Some(f) if f.is_finite() => Ok(f),
        _ => fail(ExcKind::OverflowError, "int too large to convert to float"),
    }
}

fn too_big(bits: u64) -> Unwind {
    let max = limits::current().max_int_bits;
    Unwind::new(
        ExcKind::MemoryError,
        format!(
            "the result would be an int of about {bits} bits; the interpreter limits ints to {max} bits"
        ),
    )
}

fn check_bits(bits: u64) -> R<()> {
    if bits > limits::current().max_int_bits {
        Err(too_big(bits))
    } else {
        Ok(())
    }
}

/// `a op b` for two numbers (`op` arithmetic or bitwise; the caller rejects bitwise floats).
pub(crate) fn arith(op: BinOp, a: Num<'_>, b: Num<'_>) -> R<Value> {
    if a.is_float() || b.is_float() {
        return float_op(op, a.to_f64()?, b.to_f64()?).map(Value::Float);
    }
    if let (Num::Small(x), Num::Small(y)) = (a, b) {
        if let Some(v) = small_op(op, x, y) {
            return v;
        }
    }
    big_op(op, a, b)
}

/// The `i64` fast path; `None` when the result needs a big int.
pub(crate) fn small_op(op: BinOp, x: i64, y: i64) -> Option<R<Value>> {
    Some(Ok(Value::Int(match op {
        BinOp::Add => x.checked_add(y)?,
        BinOp::Sub => x.checked_sub(y)?,
        BinOp::Mult => x.checked_mul(y)?,
        BinOp::FloorDiv => {
            if y == 0 {
                return Some(fail(
                    ExcKind::ZeroDivisionError,
                    messages::INT_DIVISION_BY_ZERO,
                ));
            }
            arith::floor_div_i64(x, y)?
        }
        BinOp::Mod => {
            if y == 0 {
                return Some(fail(
                    ExcKind::ZeroDivisionError,
                    messages::INT_MODULO_BY_ZERO,
                ));
            }
            arith::mod_i64(x, y)?
        }
        BinOp::Div => {
            return Some(int_true_div(&BigInt::from(x), &BigInt::from(y)).map(Value::Float));
        }
        BinOp::Pow => {
            if y < 0 {
                return Some(float_op(BinOp::Pow, x as f64, y as f64).map(Value::Float));
            }
            x.checked_pow(u32::try_from(y).ok()?)?
        }
        BinOp::LShift => {
            if y < 0 {
                return Some(value_error("negative shift count"));
            }
            if y >= 63 && x != 0 {
                return None;
            }
            let r = x.checked_shl(y as u32)?;
            if r >> y != x {
                return None;
            }
            r
        }
        BinOp::RShift => {
            if y < 0 {
                return Some(value_error("negative shift count"));
            }
            x >> y.min(63)
        }
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::MatMult => return None,
    })))
}

/// The common `i64` results that cannot fail: `None` for everything else.
#[inline]
pub(crate) fn int_fast(op: BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mult => x.checked_mul(y),
        BinOp::FloorDiv if y != 0 => arith::floor_div_i64(x, y),
        BinOp::Mod if y != 0 => arith::mod_i64(x, y),
        BinOp::BitAnd => Some(x & y),
        BinOp::BitOr => Some(x | y),
        BinOp::BitXor => Some(x ^ y),
        _ => None,
    }
}

/// 64-bit words of an int operand.
fn words(n: Num<'_>) -> u64 {
    match n {
        Num::Big(b) => b.bits() / 64 + 1,
        _ => 1,
    }
}

/// The steps an operation on ints of `n` and `m` words costs, about ten nanoseconds each
/// like a statement: one per four words read, plus `n * m / 256` for multiplication and
/// powers (Karatsuba and squaring) and `n * m / 64` for division (schoolbook).
pub(crate) fn int_cost(op: BinOp, n: u64, m: u64) -> u64 {
    let linear = n.saturating_add(m) / 4 + 1;
    let quadratic = match op {
        BinOp::Mult | BinOp::Pow => n.saturating_mul(m) / 256,
        BinOp::FloorDiv | BinOp::Mod => n.saturating_mul(m) / 64,
        _ => 0,
    };
    linear.saturating_add(quadratic)
}

fn big_op(op: BinOp, a: Num<'_>, b: Num<'_>) -> R<Value> {
    budget::charge(int_cost(op, words(a), words(b)))?;
    let (x, y) = (a.to_big(), b.to_big());
    Ok(Value::big(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mult => {
            if !x.is_zero() && !y.is_zero() {
                check_bits(x.bits() + y.bits())?;
            }
            x * y
        }
        BinOp::FloorDiv => {
            if y.is_zero() {
                return fail(ExcKind::ZeroDivisionError, messages::INT_DIVISION_BY_ZERO);
            }
            x.div_floor(&y)
        }
        BinOp::Mod => {
            if y.is_zero() {
                return fail(ExcKind::ZeroDivisionError, messages::INT_MODULO_BY_ZERO);
            }
            x.mod_floor(&y)
        }
        BinOp::Div => return int_true_div(&x, &y).map(Value::Float),
        BinOp::Pow => return int_pow(&x, &y),
        BinOp::LShift => {
            if y.is_negative() {
                return value_error("negative shift count");
            }
            if x.is_zero() {
                return Ok(Value::Int(0));
            }
            let shift = y.to_u64().ok_or_else(|| too_big(u64::MAX))?;
            check_bits(x.bits().saturating_add(shift))?;
            budget::charge(shift / 256)?;
            x << shift
        }
        BinOp::RShift => {
            if y.is_negative() {
                return value_error("negative shift count");
            }
            match y.to_u64().filter(|s| *s < x.bits() + 1) {
                Some(shift) => x >> shift,
                None => BigInt::from(if x.is_negative() { -1 } else { 0 }),
            }
        }
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::MatMult => {
            return Err(Unwind::new(
                ExcKind::TypeError,
                "unsupported operand type(s) for @: 'int' and 'int'",
            ));
        }
    }))
}

fn int_pow(x: &BigInt, y: &BigInt) -> R<Value> {
    if y.is_negative() {
        let (fx, fy) = (Num::Big(x).to_f64()?, Num::Big(y).to_f64()?);
        return float_op(BinOp::Pow, fx, fy).map(Value::Float);
    }
    if x.is_zero() {
        return Ok(Value::Int(if y.is_zero() { 1 } else { 0 }));
    }
    if x.is_one() {
        return Ok(Value::Int(1));
    }
    if *x == BigInt::from(-1) {
        return Ok(Value::Int(if y.is_even() { 1 } else { -1 }));
    }
    let exp = y.to_u64().unwrap_or(u64::MAX);
    // The result has about exp * log2|x| bits.
    let log2 = if x.bits() <= 1000 {
        x.magnitude().to_f64().unwrap_or(2.0).log2()
    } else {
        x.bits() as f64
    };
    let estimate = (exp as f64 * log2).min(u64::MAX as f64) as u64;
    check_bits(estimate.saturating_add(1))?;
    let result_words = estimate / 64 + 1;
    budget::charge(int_cost(BinOp::Pow, result_words, result_words))?;
    let exp32 = u32::try_from(exp).map_err(|_| too_big(u64::MAX))?;
    Ok(Value::big(num_traits::pow::Pow::pow(x, exp32)))
}

/// `pow(x, y, m)` for ints.
pub(crate) fn int_pow_mod(x: &BigInt, y: &BigInt, m: &BigInt) -> R<Value> {
    if m.is_zero() {
        return value_error("pow() 3rd argument cannot be 0");
    }
    let base = if y.is_negative() {
        match mod_inverse(&x.mod_floor(m), m) {
            Some(inv) => inv,
            None => return value_error("base is not invertible for the given modulus"),
        }
    } else {
        x.clone()
    };
    let modulus = m.abs();
    // One squaring and one multiplication modulo `m` per bit of the exponent.
    let mw = modulus.bits() / 64 + 1;
    budget::charge(y.bits().saturating_mul(2 * int_cost(BinOp::Mult, mw, mw)))?;
    let r = base.mod_floor(&modulus).modpow(&y.abs(), &modulus);
    // The result takes the sign of the modulus, as `%` does.
    Ok(Value::big(if m.is_negative() && !r.is_zero() {
        r + m
    } else {
        r
    }))
}

fn mod_inverse(a: &BigInt, m: &BigInt) -> Option<BigInt> {
    let m = m.abs();
    let g = a.extended_gcd(&m);
    if !g.gcd.is_one() {
        return None;
    }
    Some(g.x.mod_floor(&m))
}

/// `x op y` on floats with CPython's rules and messages.
pub(crate) fn float_op(op: BinOp, x: f64, y: f64) -> R<f64> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mult => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return fail(ExcKind::ZeroDivisionError, messages::FLOAT_DIVISION_BY_ZERO);
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return fail(
                    ExcKind::ZeroDivisionError,
                    messages::FLOAT_FLOOR_DIVISION_BY_ZERO,
                );
            }
            float_divmod(x, y).0
        }
        BinOp::Mod => {
            if y == 0.0 {
                return fail(ExcKind::ZeroDivisionError, messages::FLOAT_MODULO_BY_ZERO);
            }
            float_divmod(x, y).1
        }
        BinOp::Pow => float_pow(x, y)?,
        _ => {
            return fail(
                ExcKind::TypeError,
                format!(
                    "unsupported operand type(s) for {}: 'float' and 'float'",
                    op.symbol()
                ),
            );
        }
    })
}

pub(crate) use crate::python::arith::float_divmod;

fn is_odd_integer(x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0 && (x % 2.0).abs() == 1.0
}

/// CPython's `float_pow`.
pub(crate) fn float_pow(iv: f64, iw: f64) -> R<f64> {
    if iw == 0.0 {
        return Ok(1.0);
    }
    if iv.is_nan() {
        return Ok(iv);
    }
    if iw.is_nan() {
        return Ok(if iv == 1.0 { 1.0 } else { iw });
    }
    if iw.is_infinite() {
        let av = iv.abs();
        return Ok(if av == 1.0 {
            1.0
        } else if (iw > 0.0) == (av > 1.0) {
            iw.abs()
        } else {
            0.0
        });
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(if iw > 0.0 {
            if odd { iv } else { iv.abs() }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        });
    }
    if iv == 0.0 {
        if iw < 0.0 {
            return fail(
                ExcKind::ZeroDivisionError,
                "0.0 cannot be raised to a negative power",
            );
        }
        return Ok(if is_odd_integer(iw) { iv } else { 0.0 });
    }
    let mut base = iv;
    let mut negate = false;
    if iv < 0.0 {
        if iw != iw.floor() {
            return Err(Unwind::unsupported(
                "complex numbers (a negative number to a fractional power)",
            ));
        }
        base = -iv;
        negate = is_odd_integer(iw);
    }
    if base == 1.0 {
        return Ok(if negate { -1.0 } else { 1.0 });
    }
    let r = base.powf(iw);
    if r.is_infinite() {
        return fail(
            ExcKind::OverflowError,
            "(34, 'Numerical result out of range')",
        );
    }
    Ok(if negate { -r } else { r })
}

/// `a / b` for ints, correctly rounded as CPython does.
pub(crate) fn int_true_div(a: &BigInt, b: &BigInt) -> R<f64> {
    if b.is_zero() {
        return fail(ExcKind::ZeroDivisionError, messages::DIVISION_BY_ZERO);
    }
    let negative = a.is_negative() != b.is_negative();
    const EXACT: u64 = 53;
    if a.bits() <= EXACT && b.bits() <= EXACT {
        let (x, y) = (a.to_f64().unwrap_or(0.0), b.to_f64().unwrap_or(1.0));
        return Ok(x / y);
    }
    if a.is_zero() {
        return Ok(if negative { -0.0 } else { 0.0 });
    }
    let (x, y) = (a.magnitude(), b.magnitude());
    let e = x.bits() as i64 - y.bits() as i64;
    if e > 1025 {
        return fail(
            ExcKind::OverflowError,
            "integer division result too large for a float",
        );
    }
    if e < -1080 {
        // Below half the smallest subnormal: rounds to zero.
        return Ok(if negative { -0.0 } else { 0.0 });
    }
    // q = floor(x * 2^k / y) has at least 55 bits.
    let k = 56 - e;
    let (num, den) = if k >= 0 {
        (x << k as u64, y.clone())
    } else {
        (x.clone(), y << (-k) as u64)
    };
    let (q, r) = num.div_rem(&den);
    let sticky = !r.is_zero();
    let m = q.bits() as i64;
    // Keep 53 bits, fewer for subnormal results (lowest kept bit worth 2^-1074).
    let drop = (m - 53).max(k - 1074).max(0);
    let mut kept = &q >> drop as u64;
    if drop > 0 {
        let rest = &q - (&kept << drop as u64);
        let half = num_bigint::BigUint::one() << (drop - 1) as u64;
        let up = match rest.cmp(&half) {
            Ordering::Greater => true,
            Ordering::Equal => sticky || kept.bit(0),
            Ordering::Less => false,
        };
        if up {
            kept += 1u32;
        }
    }
    let mantissa = kept.to_f64().unwrap_or(0.0);
    let result = ldexp(mantissa, drop - k);
    if result.is_infinite() {
        return fail(
            ExcKind::OverflowError,
            "integer division result too large for a float",
        );
    }
    Ok(if negative { -result } else { result })
}

/// `m * 2^e`, exact whenever the result is representable.
fn ldexp(m: f64, e: i64) -> f64 {
    let mut x = m;
    let mut e = e;
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        // Scale in two steps so no intermediate loses bits before the last.
        if e < -1000 - 60 {
            x *= 2f64.powi(-1000);
            e += 1000;
        } else {
            x *= 2f64.powi(-60);
            e += 60;
        }
    }
    x * 2f64.powi(e as i32)
}

/// Exact comparison of two numbers; `None` when a NaN is involved.
pub(crate) fn compare(a: Num<'_>, b: Num<'_>) -> Option<Ordering> {
    match (a, b) {
        (Num::Small(x), Num::Small(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Float(x), other) => compare_int_float(other, x).map(Ordering::reverse),
        (other, Num::Float(y)) => compare_int_float(other, y),
        (x, y) => Some(x.to_big().cmp(&y.to_big())),
    }
}

fn compare_int_float(i: Num<'_>, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    if let Num::Small(x) = i {
        if x.unsigned_abs() <= 1 << 53 {
            return (x as f64).partial_cmp(&f);
        }
    }
    let floor = f.floor();
    let fb = BigInt::from_f64(floor)?;
    Some(match i.to_big().cmp(&fb) {
        Ordering::Equal if f != floor => Ordering::Less,
        other => other,
    })
}

/// The int nearest toward zero of a float (`int(x)`).
pub(crate) fn float_to_int(f: f64) -> R<Value> {
    if f.is_nan() {
        return value_error("cannot convert float NaN to integer");
    }
    if f.is_infinite() {
        return fail(
            ExcKind::OverflowError,
            "cannot convert float infinity to integer",
        );
    }
    let t = f.trunc();
    if t.abs() < 9.0e18 {
        return Ok(Value::Int(t as i64));
    }
    Ok(Value::big(BigInt::from_f64(t).unwrap_or_default()))
}

/// `round(x)` for a float: the nearest int, ties to even.
pub(crate) fn round_float(f: f64) -> R<Value> {
    float_to_int(f.round_ties_even())
}

/// `round(x, ndigits)` for a float: correctly rounded, ties to even on the exact value.
pub(crate) fn round_float_digits(x: f64, ndigits: i64) -> R<f64> {
    if !x.is_finite() || x == 0.0 {
        return Ok(x);
    }
    if ndigits > 323 {
        return Ok(x);
    }
    if ndigits < -308 {
        return Ok(0.0 * x);
    }
    // x = mant * 2^exp exactly.
    let (mant, exp) = decompose(x);
    let ten = BigInt::from(10).pow(ndigits.unsigned_abs() as u32);
    // The scaled value num/den = x * 10^ndigits.
    let (mut num, mut den) = (BigInt::from(mant), BigInt::one());
    if exp >= 0 {
        num <<= exp as u64;
    } else {
        den <<= (-exp) as u64;
    }
    if ndigits >= 0 {
        num *= &ten;
    } else {
        den *= &ten;
    }
    let q = round_half_even(&num, &den);
    let result = if q.is_zero() {
        0.0
    } else if ndigits >= 0 {
        int_true_div(&q, &ten)?
    } else {
        match (q * ten).to_f64() {
            Some(f) if f.is_finite() => f,
            _ => {
                return fail(
                    ExcKind::OverflowError,
                    "rounded value too large to represent",
                );
            }
        }
    };
    Ok(result.copysign(x))
}

/// `n / d` (d > 0) rounded to the nearest int, ties to even.
fn round_half_even(n: &BigInt, d: &BigInt) -> BigInt {
    let (q, r) = n.div_mod_floor(d);
    let twice: BigInt = &r * 2;
    match twice.cmp(d) {
        Ordering::Greater => q + 1,
        Ordering::Equal if q.is_odd() => q + 1,
        _ => q,
    }
}

/// (mantissa, exponent) with x = mantissa * 2^exponent exactly.
fn decompose(x: f64) -> (i64, i64) {
    let bits = x.to_bits();
    let sign = if bits >> 63 == 0 { 1 } else { -1 };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = (bits & ((1 << 52) - 1)) as i64;
    if exp == 0 {
        (sign * frac, -1074)
    } else {
        (sign * (frac | (1 << 52)), exp - 1075)
    }
}

/// `round(n, ndigits)` for an int with negative `ndigits`: ties to even.
pub(crate) fn round_int(n: &BigInt, ndigits: i64) -> Value {
    if ndigits >= 0 {
        return Value::big(n.clone());
    }
    let Some(p) = u32::try_from(ndigits.unsigned_abs())
        .ok()
        .filter(|p| (*p as u64) <= n.bits() + 1)
    else {
        return Value::Int(0);
    };
    let unit = BigInt::from(10).pow(p);
    Value::big(round_half_even(n, &unit) * unit)
}

/// `divmod(a, b)`.
pub(crate) fn divmod(a: Num<'_>, b: Num<'_>) -> R<(Value, Value)> {
    if a.is_float() || b.is_float() {
        let (x, y) = (a.to_f64()?, b.to_f64()?);
        if y == 0.0 {
            return fail(ExcKind::ZeroDivisionError, "float divmod()");
        }
        let (q, r) = float_divmod(x, y);
        return Ok((Value::Float(q), Value::Float(r)));
    }
    let (x, y) = (a.to_big(), b.to_big());
    if y.is_zero() {
        return fail(ExcKind::ZeroDivisionError, messages::INT_DIVISION_BY_ZERO);
    }
    let (q, r) = x.div_mod_floor(&y);
    Ok((Value::big(q), Value::big(r)))
}

/// `-x` for a number.
pub(crate) fn negate(n: Num<'_>) -> Value {
    match n {
        Num::Small(i) => i
            .checked_neg()
            .map_or_else(|| Value::big(-BigInt::from(i)), Value::Int),
        Num::Big(b) => Value::big(-b.clone()),
        Num::Float(f) => Value::Float(-f),
    }
}

/// The sign of a number's int part, for `abs`.
pub(crate) fn is_negative(n: Num<'_>) -> bool {
    match n {
        Num::Small(i) => i < 0,
        Num::Big(b) => b.sign() == Sign::Minus,
        Num::Float(f) => f < 0.0 || (f == 0.0 && f.is_sign_negative()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: &Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::Big(b) => b.to_string(),
            Value::Float(f) => format!("{f:?}"),
            other => format!("{other:?}"),
        }
    }

    fn op(o: BinOp, a: i64, b: i64) -> String {
        match arith(o, Num::Small(a), Num::Small(b)) {
            Ok(v) => int(&v),
            Err(e) if e.is_raise() => format!("{:?}", e.raised().map(|r| r.exc.args())),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn floor_division_and_modulo_follow_the_divisor() {
        // Expected values from CPython 3.11.
        assert_eq!(op(BinOp::FloorDiv, 7, 2), "3");
        assert_eq!(op(BinOp::FloorDiv, -7, 2), "-4");
        assert_eq!(op(BinOp::FloorDiv, 7, -2), "-4");
        assert_eq!(op(BinOp::FloorDiv, -7, -2), "3");
        assert_eq!(op(BinOp::Mod, -7, 2), "1");
        assert_eq!(op(BinOp::Mod, 7, -2), "-1");
        assert_eq!(op(BinOp::Mod, -7, -2), "-1");
        assert_eq!(op(BinOp::FloorDiv, i64::MIN, -1), "9223372036854775808");
        assert_eq!(op(BinOp::Mod, i64::MIN, -1), "0");
        assert_eq!(op(BinOp::Pow, 2, 64), "18446744073709551616");
        assert_eq!(op(BinOp::Pow, 2, -2), "0.25");
        assert_eq!(op(BinOp::LShift, 1, 70), "1180591620717411303424");
        assert_eq!(op(BinOp::RShift, -5, 1), "-3");
        assert_eq!(op(BinOp::RShift, -5, 100), "-1");
        assert_eq!(op(BinOp::Div, 1, 3), "0.3333333333333333");
        assert!(op(BinOp::FloorDiv, 1, 0).contains(messages::INT_DIVISION_BY_ZERO));
        assert!(op(BinOp::Mod, 1, 0).contains("integer modulo by zero"));
        assert!(op(BinOp::Div, 1, 0).contains("division by zero"));
    }

    #[test]
    fn float_rules() {
        assert_eq!(float_divmod(-7.5, 2.0), (-4.0, 0.5));
        assert_eq!(float_divmod(7.5, -2.0), (-4.0, -0.5));
        let (q, r) = float_divmod(0.0, -3.0);
        assert!(q == 0.0 && q.is_sign_negative() && r.is_sign_negative());
        assert_eq!(float_pow(-2.0, 3.0).ok(), Some(-8.0));
        assert!(float_pow(0.0, -1.0).is_err());
        assert!(float_pow(10.0, 400.0).is_err());
        assert!(matches!(float_pow(-8.0, 0.5), Err(e) if !e.is_raise()));
    }

    #[test]
    fn big_true_division_is_correctly_rounded() {
        // CPython: 10**30 / 7 == 1.4285714285714286e+29, (2**1100 + 1) / 2**1090 == 1024.0
        let a = BigInt::from(10).pow(30u32);
        assert_eq!(
            int_true_div(&a, &BigInt::from(7)).ok(),
            Some(1.4285714285714286e29)
        );
        let b = (BigInt::one() << 1100u32) + 1;
        assert_eq!(
            int_true_div(&b, &(BigInt::one() << 1090u32)).ok(),
            Some(1024.0)
        );
        // 1 / 10**320 is subnormal: 1e-320 in CPython.
        let c = BigInt::from(10).pow(320u32);
        assert_eq!(int_true_div(&BigInt::one(), &c).ok(), Some(1e-320));
        let d = BigInt::from(10).pow(400u32);
        assert!(int_true_div(&d, &BigInt::one()).is_err());
        // (2**53 + 1) / 1 rounds to even: 9007199254740992.0
        let e = (BigInt::one() << 53u32) + 1;
        assert_eq!(
            int_true_div(&e, &BigInt::one()).ok(),
            Some(9007199254740992.0)
        );
    }

    #[test]
    fn exact_mixed_comparison() {
        let big = BigInt::from(2).pow(53u32) + 1;
        assert_eq!(
            compare(Num::Big(&big), Num::Float(9007199254740992.0)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(Num::Small(1), Num::Float(1.5)),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(Num::Small(-2), Num::Float(-1.5)),
            Some(Ordering::Less)
        );
        assert_eq!(compare(Num::Small(1), Num::Float(f64::NAN)), None);
    }

    #[test]
    fn rounding_matches_cpython() {
        // round(2.675, 2) == 2.67, round(0.125, 2) == 0.12, round(1234.5, -1) == 1230.0,
        // round(-0.4, 0) == -0.0, round(1250, -2) == 1200, round(1350, -2) == 1400
        assert_eq!(round_float_digits(2.675, 2).ok(), Some(2.67));
        assert_eq!(round_float_digits(0.125, 2).ok(), Some(0.12));
        assert_eq!(round_float_digits(0.375, 2).ok(), Some(0.38));
        assert_eq!(round_float_digits(1234.5, -1).ok(), Some(1230.0));
        let z = round_float_digits(-0.4, 0).unwrap_or(1.0);
        assert!(z == 0.0 && z.is_sign_negative());
        assert_eq!(int(&round_int(&BigInt::from(1250), -2)), "1200");
        assert_eq!(int(&round_int(&BigInt::from(1350), -2)), "1400");
        assert_eq!(int(&round_int(&BigInt::from(-1250), -2)), "-1200");
        assert_eq!(int(&round_float(2.5).unwrap()), "2");
        assert_eq!(int(&round_float(-3.5).unwrap()), "-4");
    }

    #[test]
    fn modular_pow() {
        let b = |i: i64| BigInt::from(i);
        assert_eq!(int(&int_pow_mod(&b(2), &b(10), &b(1000)).unwrap()), "24");
        assert_eq!(int(&int_pow_mod(&b(3), &b(-1), &b(7)).unwrap()), "5");
        assert_eq!(int(&int_pow_mod(&b(2), &b(3), &b(-5)).unwrap()), "-2");
        assert!(int_pow_mod(&b(2), &b(-1), &b(4)).is_err());
    }
}
