//! Domains that are sets of atoms (zero: {0, ≠0}; sign: {<0, 0, >0}) as bit masks: operators
//! are tables on single atoms, lifted to sets by union.

use num_bigint::BigInt;

use super::{AbstractDomain, CmpOp, Interval};
use crate::dataflow::lattice::{HasBottom, HasTop};

/// One atom: its bit and the ints it stands for, as a union of `(lo, hi)` ranges (`None` is
/// infinite).
pub(super) struct Atom {
    pub bit: u8,
    pub ranges: &'static [(Option<i64>, Option<i64>)],
}

impl Atom {
    fn intervals(&self) -> impl Iterator<Item = Interval> + '_ {
        self.ranges.iter().map(|&(lo, hi)| match (lo, hi) {
            (Some(lo), Some(hi)) => Interval::range(lo, hi),
            (Some(lo), None) => Interval::at_least(lo),
            (None, Some(hi)) => Interval::at_most(hi),
            (None, None) => Interval::TOP,
        })
    }

    fn contains(&self, i: &BigInt) -> bool {
        self.intervals().any(|r| r.contains(i))
    }
}

/// The lattice of a domain that is a bit mask over atoms (`struct D(u8)`): join is union,
/// meet intersection, order inclusion, ⊥ the empty set, ⊤ the mask `$top`; no widening needed
/// (the lattice is finite).
macro_rules! bitmask_lattice {
    ($domain:ident, $top:expr) => {
        impl JoinSemiLattice for $domain {
            fn join(&mut self, other: &Self) -> bool {
                let before = self.0;
                self.0 |= other.0;
                before != self.0
            }

            fn leq(&self, other: &Self) -> bool {
                self.0 & !other.0 == 0
            }
        }

        impl MeetSemiLattice for $domain {
            fn meet(&mut self, other: &Self) -> bool {
                let before = self.0;
                self.0 &= other.0;
                before != self.0
            }
        }

        impl HasBottom for $domain {
            const BOTTOM: Self = $domain(0);
            fn is_bottom(&self) -> bool {
                self.0 == 0
            }
        }

        impl HasTop for $domain {
            const TOP: Self = $domain($top);
            fn is_top(&self) -> bool {
                self.0 == $top
            }
        }

        impl Widening for $domain {}
    };
}
pub(super) use bitmask_lattice;

/// The union of `table(x, y)` over the atoms `x` of `a` and `y` of `b`.
pub(super) fn lift(atoms: &[Atom], a: u8, b: u8, table: impl Fn(u8, u8) -> u8) -> u8 {
    lift_bits(atoms.iter().map(|x| x.bit), a, b, table)
}

/// [`lift`] for atoms given by their bits alone (a domain whose atoms are not ranges).
pub(super) fn lift_bits(
    bits: impl Iterator<Item = u8> + Clone,
    a: u8,
    b: u8,
    table: impl Fn(u8, u8) -> u8,
) -> u8 {
    let mut out = 0;
    for x in bits.clone().filter(|x| a & x != 0) {
        for y in bits.clone().filter(|y| b & y != 0) {
            out |= table(x, y);
        }
    }
    out
}

/// The atoms of `a` holding some `x` with `x op y` for some `y` in an atom of `b`. Exact,
/// because interval refinement is exact on single ranges.
pub(super) fn refine(atoms: &[Atom], a: u8, op: CmpOp, b: u8) -> u8 {
    let mut out = 0;
    for x in atoms.iter().filter(|x| a & x.bit != 0) {
        let possible = atoms.iter().filter(|y| b & y.bit != 0).any(|y| {
            x.intervals()
                .any(|xr| y.intervals().any(|yr| !xr.refine(op, &yr).is_bottom()))
        });
        if possible {
            out |= x.bit;
        }
    }
    out
}

/// The set of the atoms containing `i`.
pub(super) fn alpha(atoms: &[Atom], i: &BigInt) -> u8 {
    atoms
        .iter()
        .filter(|a| a.contains(i))
        .fold(0, |m, a| m | a.bit)
}

/// Whether some atom of `mask` contains `i`.
pub(super) fn contains(atoms: &[Atom], mask: u8, i: &BigInt) -> bool {
    atoms.iter().any(|a| mask & a.bit != 0 && a.contains(i))
}
