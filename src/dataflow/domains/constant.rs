//! Constant propagation: the flat lattice over unbounded ints.

use num_bigint::BigInt;
use num_traits::{One, Zero};
use serde_json::{Value, json};

use super::{AbstractDomain, BinOp, CmpOp, int_json};
use crate::dataflow::lattice::{Flat, MeetSemiLattice};

/// ⊥, one known int, or ⊤ (not a constant).
pub type Constant = Flat<BigInt>;

fn is_zero(c: &Constant) -> bool {
    matches!(c, Flat::Elem(v) if v.is_zero())
}

/// `x // ±1` and `x % ±1` are known for every `x`.
fn unit(c: &Constant) -> Option<bool> {
    match c {
        Flat::Elem(v) if v.is_one() => Some(true),
        Flat::Elem(v) if (-v).is_one() => Some(false),
        _ => None,
    }
}

impl AbstractDomain for Constant {
    const NAME: &'static str = "constant";
    const DESCRIPTION: &'static str = "constant propagation";

    fn alpha(i: &BigInt) -> Self {
        Flat::Elem(i.clone())
    }

    fn contains(&self, i: &BigInt) -> bool {
        match self {
            Flat::Bottom => false,
            Flat::Elem(v) => v == i,
            Flat::Top => true,
        }
    }

    fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
        match (a, b) {
            (Flat::Bottom, _) | (_, Flat::Bottom) => Flat::Bottom,
            (Flat::Elem(x), Flat::Elem(y)) => op.apply(x, y).map_or(Flat::Bottom, Flat::Elem),
            // At least one operand is ⊤ from here on.
            _ if op.divides() && is_zero(b) => Flat::Bottom,
            _ if op == BinOp::Mul && (is_zero(a) || is_zero(b)) => Flat::Elem(BigInt::ZERO),
            _ if op.divides() && is_zero(a) => Flat::Elem(BigInt::ZERO),
            _ if op == BinOp::Mod && unit(b).is_some() => Flat::Elem(BigInt::ZERO),
            _ if op == BinOp::FloorDiv && unit(b) == Some(true) => a.clone(),
            _ if op == BinOp::FloorDiv && unit(b) == Some(false) => a.negate(),
            _ => Flat::Top,
        }
    }

    fn negate(&self) -> Self {
        match self {
            Flat::Elem(v) => Flat::Elem(-v),
            other => other.clone(),
        }
    }

    fn refine(&self, op: CmpOp, other: &Self) -> Self {
        match (self, other) {
            (Flat::Bottom, _) | (_, Flat::Bottom) => Flat::Bottom,
            (_, _) if op == CmpOp::Eq => {
                let mut r = self.clone();
                r.meet(other);
                r
            }
            (Flat::Elem(x), Flat::Elem(y)) if !op.holds(x, y) => Flat::Bottom,
            _ => self.clone(),
        }
    }

    fn must_be_zero(&self) -> bool {
        is_zero(self)
    }

    fn to_json(&self) -> Value {
        match self {
            Flat::Bottom => json!("bottom"),
            Flat::Elem(v) => int_json(v),
            Flat::Top => json!("top"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::lattice::laws::check_lattice;
    use crate::dataflow::lattice::{HasBottom, HasTop};

    fn c(i: i64) -> Constant {
        Flat::Elem(BigInt::from(i))
    }

    fn samples() -> Vec<Constant> {
        vec![
            Flat::Bottom,
            c(-2),
            c(-1),
            c(0),
            c(1),
            c(2),
            c(7),
            Flat::Top,
        ]
    }

    #[test]
    fn constant_lattice_laws() {
        check_lattice(&samples(), Some(&Constant::BOTTOM), Some(&Constant::TOP));
        assert_eq!(c(3).to_json(), json!(3));
        assert_eq!(Constant::TOP.to_json(), json!("top"));
    }

    #[test]
    fn operators_are_sound() {
        let values: Vec<BigInt> = (-9..=9).map(BigInt::from).collect();
        let elems = samples();
        for a in &elems {
            for b in &elems {
                for op in BinOp::ALL {
                    let r = Constant::binary(op, a, b);
                    for i in values.iter().filter(|i| a.contains(i)) {
                        for j in values.iter().filter(|j| b.contains(j)) {
                            if let Some(v) = op.apply(i, j) {
                                assert!(
                                    r.contains(&v),
                                    "{a} {op} {b} = {r} misses {i} {op} {j} = {v}"
                                );
                            }
                        }
                    }
                }
                for op in CmpOp::ALL {
                    let r = a.refine(op, b);
                    for i in values.iter().filter(|i| a.contains(i)) {
                        if values.iter().any(|j| b.contains(j) && op.holds(i, j)) {
                            assert!(r.contains(i), "{a} {op} {b} refined to {r} misses {i}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn folding() {
        assert_eq!(Constant::binary(BinOp::FloorDiv, &c(1), &c(6)), c(0));
        assert_eq!(Constant::binary(BinOp::Mod, &c(-7), &c(3)), c(2));
        assert_eq!(
            Constant::binary(BinOp::FloorDiv, &c(7), &c(0)),
            Flat::Bottom
        );
        assert_eq!(Constant::binary(BinOp::Mul, &Flat::Top, &c(0)), c(0));
        assert_eq!(
            Constant::binary(BinOp::FloorDiv, &Flat::Top, &c(-1)),
            Flat::Top
        );
        assert_eq!(Constant::binary(BinOp::Mod, &Flat::Top, &c(1)), c(0));
        assert_eq!(Constant::binary(BinOp::Add, &Flat::Top, &c(1)), Flat::Top);
        assert_eq!(c(3).refine(CmpOp::Lt, &c(2)), Flat::Bottom);
        assert_eq!(Constant::TOP.refine(CmpOp::Eq, &c(2)), c(2));
        assert!(c(0).must_be_zero() && Constant::TOP.may_be_zero() && !c(4).may_be_zero());
    }
}
