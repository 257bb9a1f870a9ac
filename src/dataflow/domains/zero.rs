//! The zero domain of the course: ⊥, 0, ≠0, ⊤ (the powerset of {ZERO, NONZERO}).
//!
//! Corrected where the course is unsound: `≠0 // ≠0` is ⊤, not ≠0, because `1 // 6 == 0`
//! (likewise `≠0 % ≠0`, since `6 % 3 == 0`, and `≠0 ± ≠0`).

use std::fmt;

use num_bigint::BigInt;
use serde_json::{Value, json};

use super::atoms::{self, Atom};
use super::{AbstractDomain, BinOp, CmpOp};
use crate::dataflow::finite::builtin;
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::registry::LatticeEntry;

/// A set of {ZERO, NONZERO} as a bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Zero(u8);

const Z: u8 = 1;
const NZ: u8 = 2;

const ATOMS: [Atom; 2] = [
    Atom {
        bit: Z,
        ranges: &[(Some(0), Some(0))],
    },
    Atom {
        bit: NZ,
        ranges: &[(None, Some(-1)), (Some(1), None)],
    },
];

impl Zero {
    pub const ZERO: Zero = Zero(Z);
    pub const NONZERO: Zero = Zero(NZ);

    /// The names of the atoms, as the course prints them (`ZERO`, `NONZERO`).
    pub fn atom_names(self) -> Vec<&'static str> {
        [(Z, "ZERO"), (NZ, "NONZERO")]
            .into_iter()
            .filter(|(b, _)| self.0 & b != 0)
            .map(|(_, n)| n)
            .collect()
    }
}

fn table(op: BinOp, x: u8, y: u8) -> u8 {
    match (op, x, y) {
        (BinOp::FloorDiv | BinOp::Mod, _, Z) => 0,
        (BinOp::Add | BinOp::Sub, Z, other) | (BinOp::Add | BinOp::Sub, other, Z) => other,
        (BinOp::Add | BinOp::Sub, _, _) => Z | NZ,
        (BinOp::Mul, Z, _) | (BinOp::Mul, _, Z) => Z,
        (BinOp::Mul, _, _) => NZ,
        (BinOp::FloorDiv | BinOp::Mod, Z, _) => Z,
        // 1 // 6 == 0 and 6 % 3 == 0.
        (BinOp::FloorDiv | BinOp::Mod, _, _) => Z | NZ,
    }
}

atoms::bitmask_lattice!(Zero, Z | NZ);

impl AbstractDomain for Zero {
    const NAME: &'static str = "zero";
    const DESCRIPTION: &'static str = "0, ≠0";
    const LATTICE: Option<LatticeEntry> = Some(LatticeEntry {
        help: "the zero domain: ⊥ 0 ≠0 ⊤",
        build: builtin::of_domain::<Self>,
        factor: true,
    });

    fn alpha(i: &BigInt) -> Self {
        Zero(atoms::alpha(&ATOMS, i))
    }

    fn contains(&self, i: &BigInt) -> bool {
        atoms::contains(&ATOMS, self.0, i)
    }

    fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
        Zero(atoms::lift(&ATOMS, a.0, b.0, |x, y| table(op, x, y)))
    }

    fn negate(&self) -> Self {
        *self
    }

    fn refine(&self, op: CmpOp, other: &Self) -> Self {
        Zero(atoms::refine(&ATOMS, self.0, op, other.0))
    }

    fn must_be_zero(&self) -> bool {
        *self == Zero::ZERO
    }

    fn to_json(&self) -> Value {
        json!(self.atom_names())
    }

    fn finite_elements() -> Option<Vec<Self>> {
        Some((0..4).map(Zero).collect())
    }
}

impl fmt::Display for Zero {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            0 => "⊥",
            Z => "0",
            NZ => "≠0",
            _ => "⊤",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::lattice::laws::check_lattice;

    fn all() -> Vec<Zero> {
        Zero::finite_elements().unwrap_or_default()
    }

    #[test]
    fn zero_lattice_laws() {
        check_lattice(&all(), Some(&Zero::BOTTOM), Some(&Zero::TOP));
        let names: Vec<String> = all().iter().map(ToString::to_string).collect();
        assert_eq!(names, ["⊥", "0", "≠0", "⊤"]);
        assert_eq!(Zero::TOP.to_json(), json!(["ZERO", "NONZERO"]));
    }

    /// The course says NONZERO // NONZERO = NONZERO; Python says 1 // 6 == 0.
    #[test]
    fn nonzero_floor_div_nonzero_may_be_zero() {
        let one = Zero::alpha(&BigInt::from(1));
        let six = Zero::alpha(&BigInt::from(6));
        assert_eq!((one, six), (Zero::NONZERO, Zero::NONZERO));
        let q = Zero::binary(BinOp::FloorDiv, &one, &six);
        assert_eq!(q, Zero::TOP);
        assert!(q.contains(&BigInt::from(0)));
        assert_eq!(
            Zero::binary(BinOp::FloorDiv, &Zero::TOP, &Zero::ZERO),
            Zero::BOTTOM
        );
        assert_eq!(
            Zero::binary(BinOp::Mul, &Zero::NONZERO, &Zero::TOP),
            Zero::TOP
        );
        assert_eq!(Zero::binary(BinOp::Add, &Zero::ZERO, &Zero::TOP), Zero::TOP);
    }

    #[test]
    fn operators_are_sound_on_all_elements() {
        let values: Vec<BigInt> = (-13..=13).map(BigInt::from).collect();
        for a in all() {
            for b in all() {
                for op in BinOp::ALL {
                    let r = Zero::binary(op, &a, &b);
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
                    let r = a.refine(op, &b);
                    for i in values.iter().filter(|i| a.contains(i)) {
                        if values.iter().any(|j| b.contains(j) && op.holds(i, j)) {
                            assert!(r.contains(i), "{a} {op} {b} refined to {r} misses {i}");
                        }
                    }
                }
            }
        }
        assert_eq!(Zero::NONZERO.refine(CmpOp::Eq, &Zero::ZERO), Zero::BOTTOM);
        assert_eq!(Zero::TOP.refine(CmpOp::Ne, &Zero::ZERO), Zero::NONZERO);
    }
}
