//! Negations that read well, for the conditions `%constraints` states (no exception
//! raised): `not (y == 0)` becomes `y != 0`, `not (a or b)` becomes `not a and not b`, and
//! index bounds that hold for every length are left out (`0 >= -len(s)`); never for the
//! user's own branch conditions, which keep their `not (...)`. The simplifier's negation of
//! one comparison (`simplify`, for `%set`) shares [`CompareOp::opposite`].

use crate::symbolic::{CompareOp, SortError, Term, TermKind};

/// The negation of `t`, pushed inward through `and`, `or` and comparisons. Terms model
/// exact numbers (no NaN), so a negated comparison is the opposite comparison.
pub fn negate(t: &Term) -> Result<Term, SortError> {
    match t.kind() {
        TermKind::Not(inner) => Ok(inner.clone()),
        TermKind::Compare(op, a, b) => {
            let flipped = Term::compare(op.opposite(), a.clone(), b.clone())?;
            Ok(if always_true(&flipped) {
                Term::bool(true)
            } else {
                flipped
            })
        }
        TermKind::And(xs) => Term::or(xs.iter().map(negate).collect::<Result<_, _>>()?),
        TermKind::Or(xs) => Term::and(xs.iter().map(negate).collect::<Result<_, _>>()?),
        _ => Term::not(t.clone()),
    }
}

/// `k >= -len(s)` with `k >= 0`, and `k < len(s)` with `k < 0`: true for every length.
fn always_true(t: &Term) -> bool {
    let TermKind::Compare(op, a, b) = t.kind() else {
        return false;
    };
    let Some(k) = a.int_literal() else {
        return false;
    };
    let is_len = |x: &Term| matches!(x.kind(), TermKind::Len(_));
    match (op, b.kind()) {
        (CompareOp::GtE, TermKind::Neg(inner)) => {
            is_len(inner) && k.sign() != num_bigint::Sign::Minus
        }
        (CompareOp::Lt, _) => is_len(b) && k.sign() == num_bigint::Sign::Minus,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_expression;
    use crate::symbolic::{Env, Sort, translate};

    #[test]
    fn raise_conditions_negate_readably() {
        let mut env = Env::new();
        env.declare("s", &Sort::Str).unwrap();
        env.declare("y", &Sort::Int).unwrap();
        let text = |src: &str| {
            let t = translate(&lower_expression(src).unwrap(), &env).unwrap();
            negate(&t.raises_any().unwrap()).unwrap().to_string()
        };
        assert_eq!(text("s[0]"), "0 < len(s)");
        assert_eq!(text("s[-1]"), "-1 >= -len(s)");
        assert_eq!(text("10 // y"), "y != 0");
        assert_eq!(text("s[y]"), "y < len(s) and y >= -len(s)");
    }
}
