//! Python's `//` and `%`: the quotient rounds towards minus infinity and the remainder takes
//! the divisor's sign. The one home of these rules, used by the interpreter, the dataflow
//! domains' concrete operators and the symbolic simplifier; `None` where Python raises
//! `ZeroDivisionError` (its messages are in [`super::messages`]).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::Zero;

/// `a // b`.
pub fn floor_div(a: &BigInt, b: &BigInt) -> Option<BigInt> {
    (!b.is_zero()).then(|| a.div_floor(b))
}

/// `a % b`.
pub fn modulo(a: &BigInt, b: &BigInt) -> Option<BigInt> {
    (!b.is_zero()).then(|| a.mod_floor(b))
}

/// `x // y` on machine words; `None` also when the result needs a big int.
#[inline]
pub fn floor_div_i64(x: i64, y: i64) -> Option<i64> {
    let q = x.checked_div(y)?;
    Some(if (x % y != 0) && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    })
}

/// `x % y` on machine words; `None` when `y` is 0 (or the quotient overflows).
#[inline]
pub fn mod_i64(x: i64, y: i64) -> Option<i64> {
    let r = x.checked_rem(y)?;
    Some(if r != 0 && ((r < 0) != (y < 0)) {
        r + y
    } else {
        r
    })
}

/// CPython's `float_divmod`: `(x // y, x % y)` for a divisor that is not zero.
pub fn float_divmod(vx: f64, wx: f64) -> (f64, f64) {
    let mut m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(wx);
    }
    let floordiv = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(vx / wx)
    };
    (floordiv, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(a, b, a // b, a % b)` as CPython 3.11 printed them.
    const INTS: &[(i128, i128, i128, i128)] = &[
        (7, 2, 3, 1),
        (-7, 2, -4, 1),
        (7, -2, -4, -1),
        (-7, -2, 3, -1),
        (0, 3, 0, 0),
        (6, 3, 2, 0),
        (-6, 3, -2, 0),
        (1, -1, -1, 0),
        (-9223372036854775808, -1, 9223372036854775808, 0),
        (-9223372036854775808, 1, -9223372036854775808, 0),
        (9223372036854775807, -2, -4611686018427387904, -1),
        (100000000000000000000, -7, -14285714285714285715, -5),
        (-100000000000000000000, 7, -14285714285714285715, 5),
    ];

    #[test]
    fn ints_follow_cpython() {
        for &(a, b, q, r) in INTS {
            let (x, y) = (BigInt::from(a), BigInt::from(b));
            assert_eq!(floor_div(&x, &y), Some(BigInt::from(q)), "{a} // {b}");
            assert_eq!(modulo(&x, &y), Some(BigInt::from(r)), "{a} % {b}");
            if let (Ok(x), Ok(y)) = (i64::try_from(a), i64::try_from(b)) {
                assert_eq!(
                    floor_div_i64(x, y).map(i128::from),
                    i64::try_from(q).ok().map(i128::from)
                );
                assert_eq!(
                    mod_i64(x, y).map(i128::from),
                    i64::try_from(r)
                        .ok()
                        .map(i128::from)
                        .filter(|_| x.checked_div(y).is_some())
                );
            }
        }
        assert_eq!(floor_div(&BigInt::from(1), &BigInt::zero()), None);
        assert_eq!(modulo(&BigInt::from(1), &BigInt::zero()), None);
        assert_eq!(floor_div_i64(1, 0), None);
        assert_eq!(mod_i64(1, 0), None);
    }

    /// `(x, y, x // y, x % y)` as CPython 3.11 printed them.
    const FLOATS: &[(f64, f64, f64, f64)] = &[
        (7.5, 2.0, 3.0, 1.5),
        (-7.5, 2.0, -4.0, 0.5),
        (7.5, -2.0, -4.0, -0.5),
        (-0.0, 1.0, -0.0, 0.0),
        (0.0, -1.0, -0.0, -0.0),
        (-1.0, f64::INFINITY, -1.0, f64::INFINITY),
        (5.0, 0.1, 49.0, 0.09999999999999973),
    ];

    #[test]
    fn floats_follow_cpython() {
        for &(x, y, q, r) in FLOATS {
            let (gq, gr) = float_divmod(x, y);
            assert_eq!(
                (gq.to_bits(), gr.to_bits()),
                (q.to_bits(), r.to_bits()),
                "{x} divmod {y}"
            );
        }
    }
}
