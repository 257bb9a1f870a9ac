//! The concrete operators the domains abstract, with Python's semantics on unbounded ints.

use std::fmt;

use num_bigint::BigInt;

use crate::python::arith;

/// A binary arithmetic operator on ints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `//`: the quotient rounded towards negative infinity.
    FloorDiv,
    /// `%`: the remainder with the sign of the divisor.
    Mod,
}

impl BinOp {
    pub const ALL: [BinOp; 5] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::FloorDiv,
        BinOp::Mod,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
        }
    }

    /// Python's `a op b`; `None` where Python raises `ZeroDivisionError`.
    pub fn apply(self, a: &BigInt, b: &BigInt) -> Option<BigInt> {
        match self {
            BinOp::Add => Some(a + b),
            BinOp::Sub => Some(a - b),
            BinOp::Mul => Some(a * b),
            BinOp::FloorDiv => arith::floor_div(a, b),
            BinOp::Mod => arith::modulo(a, b),
        }
    }

    /// Whether the right operand may not be zero (`//` and `%`).
    pub fn divides(self) -> bool {
        matches!(self, BinOp::FloorDiv | BinOp::Mod)
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// A comparison of two ints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Eq,
        CmpOp::Ne,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    /// `a op b`.
    pub fn holds(self, a: &BigInt, b: &BigInt) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }

    /// The operator of `not (a op b)` (the False branch).
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }

    /// The operator with the operands swapped: `a op b` ⇔ `b op.flip() a`.
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Eq => CmpOp::Eq,
            CmpOp::Ne => CmpOp::Ne,
        }
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (a, b, a // b, a % b) as CPython 3.11 computes them.
    #[rustfmt::skip]
    const PYTHON: &[(i64, i64, i64, i64)] = &[
        (-7, -6, 1, -1), (-7, -5, 1, -2), (-7, -1, 7, 0), (-7, 1, -7, 0), (-7, 5, -2, 3), (-7, 6, -2, 5),
        (-6, -6, 1, 0), (-6, -5, 1, -1), (-6, -1, 6, 0), (-6, 1, -6, 0), (-6, 5, -2, 4), (-6, 6, -1, 0),
        (-5, -6, 0, -5), (-5, -5, 1, 0), (-5, -1, 5, 0), (-5, 1, -5, 0), (-5, 5, -1, 0), (-5, 6, -1, 1),
        (-1, -6, 0, -1), (-1, -5, 0, -1), (-1, -1, 1, 0), (-1, 1, -1, 0), (-1, 5, -1, 4), (-1, 6, -1, 5),
        (0, -6, 0, 0), (0, -5, 0, 0), (0, -1, 0, 0), (0, 1, 0, 0), (0, 5, 0, 0), (0, 6, 0, 0),
        (1, -6, -1, -5), (1, -5, -1, -4), (1, -1, -1, 0), (1, 1, 1, 0), (1, 5, 0, 1), (1, 6, 0, 1),
        (5, -6, -1, -1), (5, -5, -1, 0), (5, -1, -5, 0), (5, 1, 5, 0), (5, 5, 1, 0), (5, 6, 0, 5),
        (6, -6, -1, 0), (6, -5, -2, -4), (6, -1, -6, 0), (6, 1, 6, 0), (6, 5, 1, 1), (6, 6, 1, 0),
        (7, -6, -2, -5), (7, -5, -2, -3), (7, -1, -7, 0), (7, 1, 7, 0), (7, 5, 1, 2), (7, 6, 1, 1),
    ];

    #[test]
    fn floor_division_and_modulo_match_cpython() {
        for &(a, b, q, r) in PYTHON {
            let (a, b) = (BigInt::from(a), BigInt::from(b));
            assert_eq!(
                BinOp::FloorDiv.apply(&a, &b),
                Some(BigInt::from(q)),
                "{a} // {b}"
            );
            assert_eq!(BinOp::Mod.apply(&a, &b), Some(BigInt::from(r)), "{a} % {b}");
        }
        assert_eq!(
            BinOp::FloorDiv.apply(&BigInt::from(1), &BigInt::from(6)),
            Some(BigInt::from(0))
        );
        assert_eq!(
            BinOp::FloorDiv.apply(&BigInt::from(1), &BigInt::from(0)),
            None
        );
        assert_eq!(BinOp::Mod.apply(&BigInt::from(0), &BigInt::from(0)), None);
    }

    #[test]
    fn comparison_algebra() {
        let (two, three) = (BigInt::from(2), BigInt::from(3));
        for op in CmpOp::ALL {
            assert_eq!(
                op.negate().holds(&two, &three),
                !op.holds(&two, &three),
                "{op}"
            );
            assert_eq!(
                op.flip().holds(&three, &two),
                op.holds(&two, &three),
                "{op}"
            );
            assert_eq!(op.negate().negate(), op);
        }
    }
}
