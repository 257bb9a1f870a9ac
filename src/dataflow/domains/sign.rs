//! The sign domain, in its richer form: every set of {<0, 0, >0}, so besides ⊥, <0, 0, >0 and ⊤
//! it has ≤0, ≠0 and ≥0 (8 elements). Joins keep what the plain 5-element lattice would lose:
//! `0 ⊔ >0` is `≥0`, not ⊤.

use std::fmt;

use num_bigint::BigInt;
use serde_json::{Value, json};

use super::atoms::{self, Atom};
use super::{AbstractDomain, BinOp, CmpOp};
use crate::dataflow::finite::builtin;
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::registry::LatticeEntry;

/// A set of {NEG, ZERO, POS} as a bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sign(u8);

const N: u8 = 1;
const Z: u8 = 2;
const P: u8 = 4;
const ALL: u8 = N | Z | P;

const ATOMS: [Atom; 3] = [
    Atom {
        bit: N,
        ranges: &[(None, Some(-1))],
    },
    Atom {
        bit: Z,
        ranges: &[(Some(0), Some(0))],
    },
    Atom {
        bit: P,
        ranges: &[(Some(1), None)],
    },
];

impl Sign {
    pub const NEG: Sign = Sign(N);
    pub const ZERO: Sign = Sign(Z);
    pub const POS: Sign = Sign(P);
    pub const NONPOS: Sign = Sign(N | Z);
    pub const NONZERO: Sign = Sign(N | P);
    pub const NONNEG: Sign = Sign(Z | P);

    /// The names of the atoms (`NEG`, `ZERO`, `POS`).
    pub fn atom_names(self) -> Vec<&'static str> {
        [(N, "NEG"), (Z, "ZERO"), (P, "POS")]
            .into_iter()
            .filter(|(b, _)| self.0 & b != 0)
            .map(|(_, n)| n)
            .collect()
    }
}

fn negate_atom(x: u8) -> u8 {
    match x {
        N => P,
        P => N,
        other => other,
    }
}

fn table(op: BinOp, x: u8, y: u8) -> u8 {
    match op {
        BinOp::Add => match (x, y) {
            (Z, o) | (o, Z) => o,
            (a, b) if a == b => a,
            _ => ALL,
        },
        BinOp::Sub => table(BinOp::Add, x, negate_atom(y)),
        BinOp::Mul => match (x, y) {
            (Z, _) | (_, Z) => Z,
            (a, b) if a == b => P,
            _ => N,
        },
        // -1 // -2 == 0 and 1 // 6 == 0; 1 // -6 == -1.
        BinOp::FloorDiv => match (x, y) {
            (_, Z) => 0,
            (Z, _) => Z,
            (a, b) if a == b => Z | P,
            _ => N,
        },
        // The remainder has the sign of the divisor or is 0.
        BinOp::Mod => match (x, y) {
            (_, Z) => 0,
            (Z, _) => Z,
            (_, d) => d | Z,
        },
    }
}

atoms::bitmask_lattice!(Sign, ALL);

impl AbstractDomain for Sign {
    const NAME: &'static str = "sign";
    const DESCRIPTION: &'static str = "<0, 0, >0 and their unions";
    const LATTICE: Option<LatticeEntry> = Some(LatticeEntry {
        help: "the sign domain: ⊥ <0 0 >0 ≤0 ≠0 ≥0 ⊤",
        build: builtin::of_domain::<Self>,
        factor: true,
    });

    fn alpha(i: &BigInt) -> Self {
        Sign(atoms::alpha(&ATOMS, i))
    }

    fn contains(&self, i: &BigInt) -> bool {
        atoms::contains(&ATOMS, self.0, i)
    }

    fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
        Sign(atoms::lift(&ATOMS, a.0, b.0, |x, y| table(op, x, y)))
    }

    fn negate(&self) -> Self {
        Sign(atoms::lift(&ATOMS, self.0, Z, |x, _| negate_atom(x)))
    }

    fn refine(&self, op: CmpOp, other: &Self) -> Self {
        Sign(atoms::refine(&ATOMS, self.0, op, other.0))
    }

    fn must_be_zero(&self) -> bool {
        *self == Sign::ZERO
    }

    fn to_json(&self) -> Value {
        json!(self.atom_names())
    }

    fn finite_elements() -> Option<Vec<Self>> {
        // Ordered by height, then as listed: ⊥, <0, 0, >0, ≤0, ≠0, ≥0, ⊤.
        Some(
            [0, N, Z, P, N | Z, N | P, Z | P, ALL]
                .into_iter()
                .map(Sign)
                .collect(),
        )
    }
}

impl fmt::Display for Sign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            0 => "⊥",
            N => "<0",
            Z => "0",
            P => ">0",
            0b011 => "≤0",
            0b101 => "≠0",
            0b110 => "≥0",
            _ => "⊤",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::lattice::laws::check_lattice;

    fn all() -> Vec<Sign> {
        Sign::finite_elements().unwrap_or_default()
    }

    #[test]
    fn sign_lattice_laws() {
        check_lattice(&all(), Some(&Sign::BOTTOM), Some(&Sign::TOP));
        let names: Vec<String> = all().iter().map(ToString::to_string).collect();
        assert_eq!(names, ["⊥", "<0", "0", ">0", "≤0", "≠0", "≥0", "⊤"]);
        assert_eq!(Sign::NONNEG.to_json(), json!(["ZERO", "POS"]));
    }

    #[test]
    fn operators_are_sound_on_all_elements() {
        let values: Vec<BigInt> = (-13..=13).map(BigInt::from).collect();
        for a in all() {
            assert!(
                values
                    .iter()
                    .filter(|i| a.contains(i))
                    .all(|i| a.negate().contains(&-i))
            );
            for b in all() {
                for op in BinOp::ALL {
                    let r = Sign::binary(op, &a, &b);
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
    }

    #[test]
    fn precise_results() {
        assert_eq!(
            Sign::binary(BinOp::FloorDiv, &Sign::POS, &Sign::POS),
            Sign::NONNEG
        );
        assert_eq!(
            Sign::binary(BinOp::FloorDiv, &Sign::POS, &Sign::NEG),
            Sign::NEG
        );
        assert_eq!(
            Sign::binary(BinOp::Mod, &Sign::TOP, &Sign::NEG),
            Sign::NONPOS
        );
        assert_eq!(Sign::binary(BinOp::Mul, &Sign::NEG, &Sign::NEG), Sign::POS);
        assert_eq!(Sign::binary(BinOp::Sub, &Sign::POS, &Sign::NEG), Sign::POS);
        assert_eq!(
            Sign::binary(BinOp::FloorDiv, &Sign::TOP, &Sign::ZERO),
            Sign::BOTTOM
        );
        assert_eq!(Sign::TOP.refine(CmpOp::Lt, &Sign::ZERO), Sign::NEG);
        assert_eq!(Sign::TOP.refine(CmpOp::Gt, &Sign::NEG), Sign::TOP);
        assert_eq!(Sign::ZERO.refine(CmpOp::Gt, &Sign::NONPOS), Sign::ZERO);
        assert_eq!(Sign::POS.refine(CmpOp::Le, &Sign::NEG), Sign::BOTTOM);
        assert_eq!(Sign::NONNEG.negate(), Sign::NONPOS);
    }
}
