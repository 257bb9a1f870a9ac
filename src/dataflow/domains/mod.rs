//! Numeric abstract domains for abstract interpretation of Python ints, behind one trait,
//! [`AbstractDomain`]; [`crate::dataflow::registry::DOMAINS`] lists them.
//!
//! Every abstract operator is sound for Python's semantics: `//` floors, `%` takes the sign of
//! the divisor, and a zero divisor raises `ZeroDivisionError`, so it contributes no value (`⊥`
//! for `x // 0`). [`soundness`] checks this by sampling (`%check-domain`).

mod atoms;
pub mod constant;
pub mod interval;
pub mod ops;
pub mod parity;
pub mod sign;
pub mod soundness;
pub mod zero;

use std::fmt;

use num_bigint::BigInt;
use serde_json::Value;

use super::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use super::registry::LatticeEntry;

pub use constant::Constant;
pub use interval::{Bound, Interval};
pub use ops::{BinOp, CmpOp};
pub use parity::Parity;
pub use sign::Sign;
pub use zero::Zero;

/// A lattice of abstract integer values with sound abstract Python operators.
///
/// `γ(a)` below is the set of ints `a` stands for; [`contains`](Self::contains) decides it.
pub trait AbstractDomain:
    'static
    + Clone
    + Eq
    + fmt::Debug
    + fmt::Display
    + JoinSemiLattice
    + MeetSemiLattice
    + HasBottom
    + HasTop
    + Widening
{
    /// The domain's name in commands and JSON (`zero`, `sign`, …).
    const NAME: &'static str;

    /// What the elements are, in a few words, for `%help absint` (`0, ≠0`); empty for none.
    const DESCRIPTION: &'static str = "";

    /// How `%lattice` draws the domain, when it is finite enough to draw.
    const LATTICE: Option<LatticeEntry> = None;

    /// The most precise abstraction of one int.
    fn alpha(i: &BigInt) -> Self;

    /// Whether `i ∈ γ(self)`.
    fn contains(&self, i: &BigInt) -> bool;

    /// A sound `a op b`: contains `x op y` for all `x ∈ γ(a)`, `y ∈ γ(b)` with `y ≠ 0` for `//`
    /// and `%` (a zero divisor raises instead of producing a value).
    fn binary(op: BinOp, a: &Self, b: &Self) -> Self;

    /// A sound unary `-self`.
    fn negate(&self) -> Self;

    /// Branch refinement: the values `x ∈ γ(self)` for which `x op y` holds for some
    /// `y ∈ γ(other)` (or an over-approximation of them). `⊥` means the comparison cannot hold.
    fn refine(&self, op: CmpOp, other: &Self) -> Self;

    /// Backward refinement of a left operand: the values `x ∈ γ(left)` for which `x % y`
    /// lies in `γ(result)` for some `y ∈ γ(right)` (or an over-approximation of them), so that
    /// `x % 2 == 0` can refine `x`. The default knows nothing and keeps `left`.
    fn refine_mod_left(left: &Self, _right: &Self, _result: &Self) -> Self {
        left.clone()
    }

    /// Whether `0 ∈ γ(self)`: a division by this value may raise `ZeroDivisionError`.
    fn may_be_zero(&self) -> bool {
        self.contains(&BigInt::ZERO)
    }

    /// Whether `γ(self) = {0}`: a division by this value always raises.
    fn must_be_zero(&self) -> bool;

    /// The value as the `absint` JSON payload gives it.
    fn to_json(&self) -> Value;

    /// Every element, for domains with finitely many (`%lattice`, exhaustive tests).
    fn finite_elements() -> Option<Vec<Self>> {
        None
    }
}

/// The join of the abstractions of `values` (`⊥` for none).
pub fn alpha_all<'a, D: AbstractDomain>(values: impl IntoIterator<Item = &'a BigInt>) -> D {
    let mut acc = D::BOTTOM;
    for v in values {
        acc.join(&D::alpha(v));
    }
    acc
}

/// Refines both sides of `a op b` assumed true: `(a', b')`.
pub fn refine_pair<D: AbstractDomain>(op: CmpOp, a: &D, b: &D) -> (D, D) {
    (a.refine(op, b), b.refine(op.flip(), a))
}

/// What the domain knows of `a op b`: `Some(true)` if it holds for every pair of values,
/// `Some(false)` if for none, `None` if it may go either way (or both are `⊥`).
pub fn decide<D: AbstractDomain>(op: CmpOp, a: &D, b: &D) -> Option<bool> {
    if a.is_bottom() || b.is_bottom() {
        return None;
    }
    match (
        a.refine(op, b).is_bottom(),
        a.refine(op.negate(), b).is_bottom(),
    ) {
        (true, false) => Some(false),
        (false, true) => Some(true),
        _ => None,
    }
}

/// An int as JSON: a number when it fits in 64 bits, else its decimal digits as a string.
pub fn int_json(i: &BigInt) -> Value {
    match i64::try_from(i) {
        Ok(n) => Value::from(n),
        Err(_) => Value::String(i.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deciding_comparisons() {
        let pos = Interval::range(1, 5);
        let neg = Interval::range(-5, -1);
        assert_eq!(decide(CmpOp::Lt, &neg, &pos), Some(true));
        assert_eq!(decide(CmpOp::Gt, &neg, &pos), Some(false));
        assert_eq!(decide(CmpOp::Lt, &pos, &Interval::range(3, 9)), None);
        assert_eq!(decide(CmpOp::Eq, &Sign::ZERO, &Sign::POS), Some(false));
        assert_eq!(decide(CmpOp::Ne, &Zero::ZERO, &Zero::NONZERO), Some(true));
        let (a, b) = refine_pair(CmpOp::Lt, &Interval::range(0, 10), &Interval::range(0, 3));
        assert_eq!((a, b), (Interval::range(0, 2), Interval::range(1, 3)));
    }

    #[test]
    fn alpha_and_json() {
        assert_eq!(
            alpha_all::<Interval>(&[BigInt::from(3), BigInt::from(-1)]),
            Interval::range(-1, 3)
        );
        assert_eq!(
            int_json(&(BigInt::from(1) << 70)),
            Value::String("1180591620717411303424".into())
        );
    }
}
