//! Lattice traits in the shape of rustc's `rustc_mir_dataflow::lattice`, and the small generic
//! lattices built from them: [`Flat`], products (pairs), [`Dual`] and [`MaybeReachable`].
//!
//! `join`/`meet` update `self` in place and return whether it changed, which is what a worklist
//! fixpoint engine needs. Bit sets live in [`super::bitset`], variable maps in [`super::map`].

use std::fmt;

/// A partially ordered set with a least upper bound (join, `⊔`) for every pair.
pub trait JoinSemiLattice: Eq {
    /// `self := self ⊔ other`; returns whether `self` changed.
    fn join(&mut self, other: &Self) -> bool;

    /// `self ⊑ other`, decided as `other ⊔ self == other`. Implementations may answer directly.
    fn leq(&self, other: &Self) -> bool
    where
        Self: Clone,
    {
        let mut joined = other.clone();
        !joined.join(self)
    }
}

/// A partially ordered set with a greatest lower bound (meet, `⊓`) for every pair.
pub trait MeetSemiLattice: Eq {
    /// `self := self ⊓ other`; returns whether `self` changed.
    fn meet(&mut self, other: &Self) -> bool;
}

/// A lattice with a least element `⊥`.
pub trait HasBottom {
    const BOTTOM: Self;
    fn is_bottom(&self) -> bool;
}

/// A lattice with a greatest element `⊤`.
pub trait HasTop {
    const TOP: Self;
    fn is_top(&self) -> bool;
}

/// Widening and narrowing, for lattices with infinite ascending chains (intervals).
///
/// Lattices of finite height keep the defaults: widening is the join, narrowing the meet.
/// The fixpoint engine widens at loop heads; the maps and pairs lift both pointwise.
pub trait Widening: JoinSemiLattice + MeetSemiLattice + Sized {
    /// `self := self ∇ next` (an upper bound of both; every chain of widenings is finite).
    /// Returns whether `self` changed.
    fn widen(&mut self, next: &Self) -> bool {
        self.join(next)
    }

    /// `self := self △ next`, refining a post-fixpoint: for `next ⊑ self` the result lies
    /// between them. Returns whether `self` changed.
    fn narrow(&mut self, next: &Self) -> bool {
        self.meet(next)
    }
}

/// The flat lattice over `T`: `⊥`, then every value incomparable to the others, then `⊤`.
/// Constant propagation is `Flat<BigInt>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flat<T> {
    Bottom,
    Elem(T),
    Top,
}

impl<T: Clone + Eq> JoinSemiLattice for Flat<T> {
    fn join(&mut self, other: &Self) -> bool {
        let result = match (&*self, other) {
            (_, Flat::Bottom) | (Flat::Top, _) => return false,
            (Flat::Bottom, _) => other.clone(),
            (Flat::Elem(a), Flat::Elem(b)) if a == b => return false,
            _ => Flat::Top,
        };
        *self = result;
        true
    }

    fn leq(&self, other: &Self) -> bool {
        match (self, other) {
            (Flat::Bottom, _) | (_, Flat::Top) => true,
            (Flat::Elem(a), Flat::Elem(b)) => a == b,
            _ => false,
        }
    }
}

impl<T: Clone + Eq> MeetSemiLattice for Flat<T> {
    fn meet(&mut self, other: &Self) -> bool {
        let result = match (&*self, other) {
            (_, Flat::Top) | (Flat::Bottom, _) => return false,
            (Flat::Top, _) => other.clone(),
            (Flat::Elem(a), Flat::Elem(b)) if a == b => return false,
            _ => Flat::Bottom,
        };
        *self = result;
        true
    }
}

impl<T> HasBottom for Flat<T> {
    const BOTTOM: Self = Flat::Bottom;
    fn is_bottom(&self) -> bool {
        matches!(self, Flat::Bottom)
    }
}

impl<T> HasTop for Flat<T> {
    const TOP: Self = Flat::Top;
    fn is_top(&self) -> bool {
        matches!(self, Flat::Top)
    }
}

impl<T: Clone + Eq> Widening for Flat<T> {}

impl<T: fmt::Display> fmt::Display for Flat<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Flat::Bottom => f.write_str("⊥"),
            Flat::Elem(v) => v.fmt(f),
            Flat::Top => f.write_str("⊤"),
        }
    }
}

/// The product of two lattices, ordered componentwise.
impl<A: JoinSemiLattice, B: JoinSemiLattice> JoinSemiLattice for (A, B) {
    fn join(&mut self, other: &Self) -> bool {
        let a = self.0.join(&other.0);
        let b = self.1.join(&other.1);
        a || b
    }
}

impl<A: MeetSemiLattice, B: MeetSemiLattice> MeetSemiLattice for (A, B) {
    fn meet(&mut self, other: &Self) -> bool {
        let a = self.0.meet(&other.0);
        let b = self.1.meet(&other.1);
        a || b
    }
}

impl<A: HasBottom, B: HasBottom> HasBottom for (A, B) {
    const BOTTOM: Self = (A::BOTTOM, B::BOTTOM);
    fn is_bottom(&self) -> bool {
        self.0.is_bottom() && self.1.is_bottom()
    }
}

impl<A: HasTop, B: HasTop> HasTop for (A, B) {
    const TOP: Self = (A::TOP, B::TOP);
    fn is_top(&self) -> bool {
        self.0.is_top() && self.1.is_top()
    }
}

impl<A: Widening, B: Widening> Widening for (A, B) {
    fn widen(&mut self, next: &Self) -> bool {
        let a = self.0.widen(&next.0);
        let b = self.1.widen(&next.1);
        a || b
    }

    fn narrow(&mut self, next: &Self) -> bool {
        let a = self.0.narrow(&next.0);
        let b = self.1.narrow(&next.1);
        a || b
    }
}

/// The order turned upside down: join is the inner meet, `⊥` the inner `⊤`. A must-analysis
/// (available expressions: facts meet by intersection) is a may-analysis over `Dual<BitSet>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dual<T>(pub T);

impl<T: MeetSemiLattice> JoinSemiLattice for Dual<T> {
    fn join(&mut self, other: &Self) -> bool {
        self.0.meet(&other.0)
    }
}

impl<T: JoinSemiLattice> MeetSemiLattice for Dual<T> {
    fn meet(&mut self, other: &Self) -> bool {
        self.0.join(&other.0)
    }
}

impl<T: HasTop> HasBottom for Dual<T> {
    const BOTTOM: Self = Dual(T::TOP);
    fn is_bottom(&self) -> bool {
        self.0.is_top()
    }
}

impl<T: HasBottom> HasTop for Dual<T> {
    const TOP: Self = Dual(T::BOTTOM);
    fn is_top(&self) -> bool {
        self.0.is_bottom()
    }
}

impl<T: JoinSemiLattice + MeetSemiLattice> Widening for Dual<T> {}

/// A state that may be unreachable: `Unreachable` is a new `⊥` below every reachable state,
/// so that "no path gets here" differs from "a path gets here with every variable `⊥`".
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MaybeReachable<T> {
    Unreachable,
    Reachable(T),
}

impl<T> MaybeReachable<T> {
    pub fn is_reachable(&self) -> bool {
        matches!(self, MaybeReachable::Reachable(_))
    }

    pub fn as_reachable(&self) -> Option<&T> {
        match self {
            MaybeReachable::Reachable(t) => Some(t),
            MaybeReachable::Unreachable => None,
        }
    }
}

impl<T: JoinSemiLattice + Clone> JoinSemiLattice for MaybeReachable<T> {
    fn join(&mut self, other: &Self) -> bool {
        match (&mut *self, other) {
            (_, MaybeReachable::Unreachable) => false,
            (MaybeReachable::Unreachable, MaybeReachable::Reachable(_)) => {
                *self = other.clone();
                true
            }
            (MaybeReachable::Reachable(a), MaybeReachable::Reachable(b)) => a.join(b),
        }
    }
}

impl<T: MeetSemiLattice> MeetSemiLattice for MaybeReachable<T> {
    fn meet(&mut self, other: &Self) -> bool {
        match (&mut *self, other) {
            (MaybeReachable::Unreachable, _) => false,
            (_, MaybeReachable::Unreachable) => {
                *self = MaybeReachable::Unreachable;
                true
            }
            (MaybeReachable::Reachable(a), MaybeReachable::Reachable(b)) => a.meet(b),
        }
    }
}

impl<T> HasBottom for MaybeReachable<T> {
    const BOTTOM: Self = MaybeReachable::Unreachable;
    fn is_bottom(&self) -> bool {
        matches!(self, MaybeReachable::Unreachable)
    }
}

impl<T: HasTop> HasTop for MaybeReachable<T> {
    const TOP: Self = MaybeReachable::Reachable(T::TOP);
    fn is_top(&self) -> bool {
        self.as_reachable().is_some_and(HasTop::is_top)
    }
}

impl<T: Widening + Clone> Widening for MaybeReachable<T> {
    fn widen(&mut self, next: &Self) -> bool {
        match (&mut *self, next) {
            (MaybeReachable::Reachable(a), MaybeReachable::Reachable(b)) => a.widen(b),
            _ => self.join(next),
        }
    }

    fn narrow(&mut self, next: &Self) -> bool {
        match (&mut *self, next) {
            (MaybeReachable::Reachable(a), MaybeReachable::Reachable(b)) => a.narrow(b),
            _ => self.meet(next),
        }
    }
}

impl<T: fmt::Display> fmt::Display for MaybeReachable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaybeReachable::Unreachable => f.write_str("unreachable"),
            MaybeReachable::Reachable(t) => t.fmt(f),
        }
    }
}

/// `a ⊔ b` as a new value.
pub fn joined<T: JoinSemiLattice + Clone>(a: &T, b: &T) -> T {
    let mut r = a.clone();
    r.join(b);
    r
}

/// `a ⊓ b` as a new value.
pub fn met<T: MeetSemiLattice + Clone>(a: &T, b: &T) -> T {
    let mut r = a.clone();
    r.meet(b);
    r
}

#[cfg(test)]
pub(crate) mod laws {
    //! Lattice laws checked on sample elements; shared by the tests of every lattice.

    use super::*;

    /// Checks join/meet commutativity, associativity, idempotence, absorption, the agreement
    /// of `leq` with join and meet, the `changed` flags, and `⊥`/`⊤` when given.
    pub fn check_lattice<T>(samples: &[T], bottom: Option<&T>, top: Option<&T>)
    where
        T: JoinSemiLattice + MeetSemiLattice + Clone + fmt::Debug,
    {
        for a in samples {
            assert_eq!(&joined(a, a), a, "join idempotent on {a:?}");
            assert_eq!(&met(a, a), a, "meet idempotent on {a:?}");
            assert!(a.leq(a), "leq reflexive on {a:?}");
            if let Some(b) = bottom {
                assert!(b.leq(a), "⊥ ⊑ {a:?}");
                assert_eq!(&joined(a, b), a);
            }
            if let Some(t) = top {
                assert!(a.leq(t), "{a:?} ⊑ ⊤");
                assert_eq!(&met(a, t), a);
            }
            for b in samples {
                let j = joined(a, b);
                let m = met(a, b);
                assert_eq!(j, joined(b, a), "join commutative on {a:?}, {b:?}");
                assert_eq!(m, met(b, a), "meet commutative on {a:?}, {b:?}");
                assert_eq!(&joined(a, &m), a, "absorption a ⊔ (a ⊓ b) on {a:?}, {b:?}");
                assert_eq!(&met(a, &j), a, "absorption a ⊓ (a ⊔ b) on {a:?}, {b:?}");
                assert!(
                    a.leq(&j) && b.leq(&j) && m.leq(a) && m.leq(b),
                    "bounds of {a:?}, {b:?}"
                );
                assert_eq!(a.leq(b), &j == b, "leq agrees with join on {a:?}, {b:?}");
                assert_eq!(a.leq(b), &m == a, "leq agrees with meet on {a:?}, {b:?}");
                let mut c = a.clone();
                assert_eq!(c.join(b), &j != a, "join's changed flag on {a:?}, {b:?}");
                let mut c = a.clone();
                assert_eq!(c.meet(b), &m != a, "meet's changed flag on {a:?}, {b:?}");
                for c in samples {
                    assert_eq!(joined(&j, c), joined(a, &joined(b, c)), "join associative");
                    assert_eq!(met(&m, c), met(a, &met(b, c)), "meet associative");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::laws::check_lattice;
    use super::*;

    fn flats() -> Vec<Flat<i32>> {
        vec![
            Flat::Bottom,
            Flat::Elem(0),
            Flat::Elem(1),
            Flat::Elem(2),
            Flat::Top,
        ]
    }

    #[test]
    fn flat_is_a_lattice() {
        check_lattice(&flats(), Some(&Flat::BOTTOM), Some(&Flat::TOP));
        let mut x = Flat::Elem(1);
        assert!(!x.join(&Flat::Elem(1)));
        assert!(x.join(&Flat::Elem(2)));
        assert_eq!(x, Flat::Top);
        assert_eq!(Flat::<i32>::Bottom.to_string(), "⊥");
    }

    #[test]
    fn pairs_dual_and_reachability_are_lattices() {
        let f = flats();
        let pairs: Vec<(Flat<i32>, Flat<i32>)> = f
            .iter()
            .flat_map(|a| [f[0].clone(), f[1].clone(), f[4].clone()].map(|b| (a.clone(), b)))
            .collect();
        check_lattice(&pairs, Some(&HasBottom::BOTTOM), Some(&HasTop::TOP));
        let duals: Vec<Dual<Flat<i32>>> = f.iter().cloned().map(Dual).collect();
        check_lattice(&duals, Some(&Dual(Flat::Top)), Some(&Dual(Flat::Bottom)));
        assert!(Dual(Flat::Top).leq(&Dual(Flat::Elem(3))));
        let mut reach: Vec<MaybeReachable<Flat<i32>>> =
            f.iter().cloned().map(MaybeReachable::Reachable).collect();
        reach.push(MaybeReachable::Unreachable);
        check_lattice(
            &reach,
            Some(&MaybeReachable::BOTTOM),
            Some(&MaybeReachable::TOP),
        );
        assert!(MaybeReachable::Unreachable.leq(&MaybeReachable::Reachable(Flat::<i32>::Bottom)));
        assert!(!MaybeReachable::Reachable(Flat::<i32>::Bottom).leq(&MaybeReachable::Unreachable));
    }
}
