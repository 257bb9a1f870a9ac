//! Model values back to Python values (`PyValue`): ints exact, reals as the nearest float,
//! strings character by character (Z3's escaped text is ambiguous when a string holds a
//! backslash), sequences item by item.

use std::str::FromStr;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use z3::ast::{self, Ast};
use z3_sys::Z3_is_string;

use super::lower::{Result, Z, internal};
use crate::python::PyValue;
use crate::symbolic::sort::{SeqKind, Sort};

/// `x` evaluated in `model` (with completion) and simplified: Z3's evaluator can leave a
/// comparison of string constants unreduced (`'' < 'cba'` evaluates to
/// `Not("" == "cba")`, `max` of two strings to an `If` of them), and reading a value out of
/// such a term gives garbage (`Z3_get_string` of an `If` is `""`).
pub(crate) fn evaluate<A: Ast>(model: &z3::Model, x: &A) -> Option<A> {
    model.eval(x, true).map(|v| v.simplify())
}

/// The value of a lowered term of sort `sort` in `model`.
pub(super) fn value(model: &z3::Model, z: &Z, sort: &Sort) -> Result<PyValue> {
    let missing = || internal(format!("the model has no value of sort {sort}"));
    match (z, sort) {
        (Z::Bool(b), _) => {
            let v = evaluate(model, b)
                .and_then(|v| v.as_bool())
                .ok_or_else(missing)?;
            Ok(PyValue::Bool(v))
        }
        (Z::Int(i), _) => Ok(PyValue::Int(int_value(
            &evaluate(model, i).ok_or_else(missing)?,
        )?)),
        (Z::Real(r), _) => Ok(PyValue::Float(real_value(
            &evaluate(model, r).ok_or_else(missing)?,
        )?)),
        (Z::Str(s), _) => Ok(PyValue::Str(string_value(model, s)?)),
        (Z::Seq(s), Sort::Seq(kind, item)) => {
            let n = evaluate(model, &s.length())
                .and_then(|n| n.as_u64())
                .ok_or_else(missing)?;
            let mut items = Vec::new();
            for k in 0..n {
                let d = s.nth(ast::Int::from_u64(k));
                items.push(value(model, &Z::from_dynamic(d, item)?, item)?);
            }
            Ok(sequence(*kind, items))
        }
        (Z::Fixed(parts), Sort::Fixed(kind, sorts)) => {
            let items = parts
                .iter()
                .zip(sorts)
                .map(|(p, s)| value(model, p, s))
                .collect::<Result<Vec<_>>>()?;
            Ok(sequence(*kind, items))
        }
        (z, sort) => Err(internal(format!("{z:?} as a value of sort {sort}"))),
    }
}

fn sequence(kind: SeqKind, items: Vec<PyValue>) -> PyValue {
    match kind {
        SeqKind::List => PyValue::List(items),
        SeqKind::Tuple => PyValue::Tuple(items),
    }
}

/// An integer numeral: `42`, `(- 42)`.
pub(super) fn int_value(i: &ast::Int) -> Result<BigInt> {
    if let Some(v) = i.as_i64() {
        return Ok(BigInt::from(v));
    }
    parse_int(&i.to_string()).ok_or_else(|| internal(format!("the integer numeral {i}")))
}

fn parse_int(text: &str) -> Option<BigInt> {
    let t = text.trim();
    match t.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        Some(inner) => parse_int(inner).map(|v| -v),
        None => BigInt::from_str(t).ok(),
    }
}

/// A real numeral (`2.0`, `(/ 1.0 3.0)`, `(- (/ 1.0 3.0))`) as the nearest float; an
/// algebraic number (`root-obj`) through its decimal approximation.
pub(super) fn real_value(r: &ast::Real) -> Result<f64> {
    if let Some((n, d)) = r.as_rational() {
        return Ok(ratio_to_f64(&BigInt::from(n), &BigInt::from(d)));
    }
    let text = r.to_string();
    if let Some((n, d)) = parse_ratio(&text) {
        return Ok(ratio_to_f64(&n, &d));
    }
    let approx = r.approx(30);
    f64::from_str(approx.trim_end_matches('?'))
        .map_err(|_| internal(format!("the real numeral {text}")))
}

fn parse_ratio(text: &str) -> Option<(BigInt, BigInt)> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        return parse_ratio(inner).map(|(n, d)| (-n, d));
    }
    if let Some(inner) = t.strip_prefix("(/").and_then(|r| r.strip_suffix(')')) {
        let mut parts = inner.split_whitespace();
        let (n, _) = parse_ratio(parts.next()?)?;
        let (d, _) = parse_ratio(parts.next()?)?;
        return (parts.next().is_none() && !d.is_zero()).then_some((n, d));
    }
    let integral = t.strip_suffix(".0").unwrap_or(t);
    BigInt::from_str(integral).ok().map(|n| (n, BigInt::one()))
}

/// The float nearest to `num / den` (ties to even), as Python's `float(Fraction(num, den))`.
pub fn ratio_to_f64(num: &BigInt, den: &BigInt) -> f64 {
    if num.is_zero() || den.is_zero() {
        return 0.0;
    }
    let negative = num.is_negative() != den.is_negative();
    let (n, d) = (num.abs(), den.abs());
    // Scale so that the quotient has 54 bits (53 and a rounding bit).
    let mut shift: i64 = 54 - (n.bits() as i64 - d.bits() as i64);
    let quotient = |shift: i64| {
        if shift >= 0 {
            (&n << shift as usize).div_rem(&d)
        } else {
            n.div_rem(&(&d << (-shift) as usize))
        }
    };
    let (mut q, mut r) = quotient(shift);
    while q.bits() > 54 {
        shift -= 1;
        (q, r) = quotient(shift);
    }
    while q.bits() < 54 {
        shift += 1;
        (q, r) = quotient(shift);
    }
    let round_bit = q.bit(0);
    let mut mantissa = &q >> 1usize;
    if round_bit && (!r.is_zero() || mantissa.bit(0)) {
        mantissa += 1;
    }
    let m = mantissa.to_f64().unwrap_or(f64::INFINITY);
    let value = scale(m, 1 - shift);
    if negative { -value } else { value }
}

/// `m * 2^exp` without overflowing intermediate powers.
fn scale(m: f64, exp: i64) -> f64 {
    let mut v = m;
    let mut e = exp;
    while e > 1000 {
        v *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        v *= 2f64.powi(-1000);
        e += 1000;
    }
    v * 2f64.powi(e as i32)
}

/// A string value, decoded per character: a one-character string's text is either the
/// character itself or a `\u{…}` escape.
fn string_value(model: &z3::Model, s: &ast::String) -> Result<String> {
    let evaluated =
        evaluate(model, s).ok_or_else(|| internal("the model has no value of a str"))?;
    // SAFETY: a live term of the model's context.
    let literal =
        unsafe { Z3_is_string(evaluated.get_ctx().get_z3_context(), evaluated.get_z3_ast()) };
    let text = evaluated
        .as_string()
        .filter(|_| literal)
        .ok_or_else(|| internal(format!("a str value is not a constant: {evaluated}")))?;
    if !text.contains('\\') {
        return Ok(text);
    }
    let n = evaluate(model, &evaluated.length())
        .and_then(|n| n.as_u64())
        .ok_or_else(|| internal("the length of a str value"))?;
    let mut out = String::new();
    for k in 0..n {
        let c = evaluate(model, &evaluated.at(ast::Int::from_u64(k)))
            .and_then(|c| c.as_string())
            .ok_or_else(|| internal("a character of a str value"))?;
        out.push(decode_char(&c)?);
    }
    Ok(out)
}

fn decode_char(text: &str) -> Result<char> {
    let mut chars = text.chars();
    if let (Some(c), None) = (chars.next(), chars.clone().next()) {
        return Ok(c);
    }
    let hex = text
        .strip_prefix("\\u{")
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(|| internal(format!("the character escape {text}")))?;
    u32::from_str_radix(hex, 16)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| internal(format!("the code point {hex} (a lone surrogate?)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_round_to_nearest_float() {
        let f = |n: i64, d: i64| ratio_to_f64(&BigInt::from(n), &BigInt::from(d));
        assert_eq!(f(1, 3), 1.0 / 3.0);
        assert_eq!(f(-7, 2), -3.5);
        assert_eq!(f(2, 3), 2.0 / 3.0);
        assert_eq!(f(1, 10), 0.1);
        assert_eq!(f(123456789, 1000), 123456.789);
        // 2**53 + 1 is a tie between 2**53 and 2**53 + 2: to even.
        assert_eq!(f((1 << 53) + 1, 1), 9007199254740992.0);
        assert_eq!(f((1 << 53) + 3, 1), 9007199254740996.0);
    }

    #[test]
    fn numerals_parse() {
        assert_eq!(parse_int("(- 12)"), Some(BigInt::from(-12)));
        assert_eq!(
            parse_ratio("(- (/ 1.0 3.0))"),
            Some((BigInt::from(-1), BigInt::from(3)))
        );
        assert_eq!(parse_ratio("17.0"), Some((BigInt::from(17), BigInt::one())));
        assert_eq!(decode_char("\\u{5c}").ok(), Some('\\'));
        assert_eq!(decode_char("\\").ok(), Some('\\'));
    }
}
