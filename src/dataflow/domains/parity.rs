//! The parity domain: ⊥, even, odd, ⊤ (the powerset of {EVEN, ODD}).
//!
//! `+ - *` and unary minus are exact on parities; `x % y` keeps the parity of `x` when `y` is
//! even (`x - y * (x // y)` differs from `x` by a multiple of `y`), and is ⊤ for an odd divisor
//! (`4 % 3 == 1`, `5 % 3 == 2`); `x // y` is ⊤ (`4 // 2 == 2`, `6 // 2 == 3`). A zero divisor
//! raises, so `x // y` and `x % y` with `y = ⊥` are ⊥. Refinement is exact: `x == y` keeps the
//! parities both may have, and every other comparison holds for some `y` of any parity; a
//! branch on `x % 2 == 0` (any even divisor) refines `x` (`refine_mod_left`).

use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use serde_json::{Value, json};

use super::{AbstractDomain, BinOp, CmpOp, atoms};
use crate::dataflow::finite::builtin;
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::registry::LatticeEntry;

/// A set of {EVEN, ODD} as a bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Parity(u8);

const E: u8 = 1;
const O: u8 = 2;
const BOTH: u8 = E | O;

impl Parity {
    pub const EVEN: Parity = Parity(E);
    pub const ODD: Parity = Parity(O);

    /// The names of the atoms (`EVEN`, `ODD`).
    pub fn atom_names(self) -> Vec<&'static str> {
        [(E, "EVEN"), (O, "ODD")]
            .into_iter()
            .filter(|(b, _)| self.0 & b != 0)
            .map(|(_, n)| n)
            .collect()
    }
}

/// `x op y` for one parity atom each.
fn table(op: BinOp, x: u8, y: u8) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => {
            if x == y {
                E
            } else {
                O
            }
        }
        BinOp::Mul => {
            if x == O && y == O {
                O
            } else {
                E
            }
        }
        BinOp::Mod if y == E => x,
        BinOp::Mod | BinOp::FloorDiv => BOTH,
    }
}

atoms::bitmask_lattice!(Parity, BOTH);

impl AbstractDomain for Parity {
    const NAME: &'static str = "parity";
    const DESCRIPTION: &'static str = "even, odd";
    const LATTICE: Option<LatticeEntry> = Some(LatticeEntry {
        help: "the parity domain: ⊥ even odd ⊤",
        build: builtin::of_domain::<Self>,
        factor: true,
    });

    fn alpha(i: &BigInt) -> Self {
        if i.is_even() {
            Parity::EVEN
        } else {
            Parity::ODD
        }
    }

    fn contains(&self, i: &BigInt) -> bool {
        self.0 & Parity::alpha(i).0 != 0
    }

    fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
        Parity(atoms::lift_bits([E, O].into_iter(), a.0, b.0, |x, y| {
            table(op, x, y)
        }))
    }

    fn negate(&self) -> Self {
        *self
    }

    fn refine(&self, op: CmpOp, other: &Self) -> Self {
        match op {
            _ if other.is_bottom() => Parity::BOTTOM,
            CmpOp::Eq => Parity(self.0 & other.0),
            CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => *self,
        }
    }

    /// `x % y ≡ x (mod 2)` for an even `y`: `x % 2 == 0` makes `x` even.
    fn refine_mod_left(left: &Self, right: &Self, result: &Self) -> Self {
        if right.0 == E {
            Parity(left.0 & result.0)
        } else {
            *left
        }
    }

    fn must_be_zero(&self) -> bool {
        false
    }

    fn to_json(&self) -> Value {
        json!(self.atom_names())
    }

    fn finite_elements() -> Option<Vec<Self>> {
        Some((0..4).map(Parity).collect())
    }
}

impl fmt::Display for Parity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            0 => "⊥",
            E => "even",
            O => "odd",
            _ => "⊤",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::dataflow::domains::soundness::{CheckOptions, check_domain};
    use crate::dataflow::lattice::laws::check_lattice;

    fn all() -> Vec<Parity> {
        Parity::finite_elements().unwrap_or_default()
    }

    #[test]
    fn parity_lattice_and_operators() {
        check_lattice(&all(), Some(&Parity::BOTTOM), Some(&Parity::TOP));
        let names: Vec<String> = all().iter().map(ToString::to_string).collect();
        assert_eq!(names, ["⊥", "even", "odd", "⊤"]);
        assert_eq!(Parity::TOP.to_json(), json!(["EVEN", "ODD"]));
        let (e, o, top) = (Parity::EVEN, Parity::ODD, Parity::TOP);
        assert_eq!(Parity::binary(BinOp::Add, &o, &o), e);
        assert_eq!(Parity::binary(BinOp::Sub, &e, &o), o);
        assert_eq!(Parity::binary(BinOp::Mul, &e, &top), e);
        assert_eq!(Parity::binary(BinOp::Mul, &o, &o), o);
        assert_eq!(Parity::binary(BinOp::Mod, &o, &e), o);
        assert_eq!(Parity::binary(BinOp::Mod, &e, &o), top);
        assert_eq!(Parity::binary(BinOp::FloorDiv, &e, &e), top);
        assert_eq!(
            Parity::binary(BinOp::FloorDiv, &e, &Parity::BOTTOM),
            Parity::BOTTOM
        );
        assert_eq!(o.negate(), o);
        assert_eq!(e.refine(CmpOp::Eq, &o), Parity::BOTTOM);
        assert_eq!(top.refine(CmpOp::Eq, &o), o);
        assert_eq!(e.refine(CmpOp::Lt, &o), e);
        assert!(e.may_be_zero() && !o.may_be_zero() && !e.must_be_zero());
        assert!(Parity::alpha(&BigInt::from(-3)).contains(&BigInt::from(7)));
    }

    /// `refine_mod_left` keeps every `x` with `x % y ∈ γ(result)` for some `y ∈ γ(right)`.
    #[test]
    fn remainder_refinement_is_sound_and_exact_for_even_divisors() {
        let ints: Vec<BigInt> = (-13..=13).map(BigInt::from).collect();
        for a in all() {
            for b in all() {
                for res in all() {
                    let r = Parity::refine_mod_left(&a, &b, &res);
                    for x in ints.iter().filter(|x| a.contains(x)) {
                        let fits = ints
                            .iter()
                            .filter(|y| b.contains(y))
                            .any(|y| BinOp::Mod.apply(x, y).is_some_and(|v| res.contains(&v)));
                        if fits {
                            assert!(r.contains(x), "{a} % {b} ∈ {res}: {r} misses {x}");
                        }
                    }
                }
            }
        }
        let (e, o, top) = (Parity::EVEN, Parity::ODD, Parity::TOP);
        assert_eq!(Parity::refine_mod_left(&top, &e, &e), e);
        assert_eq!(Parity::refine_mod_left(&top, &e, &o), o);
        assert_eq!(Parity::refine_mod_left(&top, &o, &e), top);
    }

    #[test]
    fn parity_is_sound() {
        let report = check_domain::<Parity>(&CheckOptions::default(), &Cancel::new())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(report.is_sound(), "{:#?}", report.failures);
        assert!(report.cases > 10_000, "only {} cases", report.cases);
    }
}
