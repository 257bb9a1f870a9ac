//! The interval domain over unbounded ints with `±∞` bounds, with widening and narrowing.

use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, Zero};
use serde_json::{Value, json};

use super::{AbstractDomain, BinOp, CmpOp, int_json};
use crate::dataflow::finite::builtin;
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::registry::LatticeEntry;

/// One end of an interval. The derived order is `-∞ < every int < +∞`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bound {
    NegInf,
    Finite(BigInt),
    PosInf,
}

/// `⊥` (no value) or `[lo, hi]` with `lo ≤ hi`, `lo < +∞` and `hi > -∞`.
///
/// Construct ranges with [`Interval::new`], which turns empty ranges into `⊥`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Interval {
    Bottom,
    Range { lo: Bound, hi: Bound },
}

impl Bound {
    fn int(i: impl Into<BigInt>) -> Bound {
        Bound::Finite(i.into())
    }

    fn finite(&self) -> Option<&BigInt> {
        match self {
            Bound::Finite(i) => Some(i),
            _ => None,
        }
    }

    fn negate(&self) -> Bound {
        match self {
            Bound::NegInf => Bound::PosInf,
            Bound::Finite(i) => Bound::Finite(-i),
            Bound::PosInf => Bound::NegInf,
        }
    }

    /// `self + d` for a finite `d`.
    fn offset(&self, d: i64) -> Bound {
        match self {
            Bound::Finite(i) => Bound::Finite(i + d),
            inf => inf.clone(),
        }
    }

    /// The sum of two lower (or two upper) bounds: an infinite operand wins. The invariant of
    /// [`Interval`] rules out `-∞ + +∞`.
    fn add(&self, other: &Bound) -> Bound {
        match (self, other) {
            (Bound::Finite(a), Bound::Finite(b)) => Bound::Finite(a + b),
            (Bound::Finite(_), inf) | (inf, _) => inf.clone(),
        }
    }

    /// The product, with `0 · ±∞ = 0` (exact for interval endpoints).
    fn mul(&self, other: &Bound) -> Bound {
        match (self, other) {
            (Bound::Finite(a), Bound::Finite(b)) => Bound::Finite(a * b),
            (Bound::Finite(z), _) | (_, Bound::Finite(z)) if z.is_zero() => Bound::int(0),
            _ => {
                if self.is_negative() == other.is_negative() {
                    Bound::PosInf
                } else {
                    Bound::NegInf
                }
            }
        }
    }

    fn is_negative(&self) -> bool {
        match self {
            Bound::NegInf => true,
            Bound::Finite(i) => i.is_negative(),
            Bound::PosInf => false,
        }
    }

    fn is_nonnegative(&self) -> bool {
        !self.is_negative()
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::NegInf => f.write_str("-∞"),
            Bound::Finite(i) => i.fmt(f),
            Bound::PosInf => f.write_str("+∞"),
        }
    }
}

impl Interval {
    /// `[lo, hi]`, or `⊥` when that range is empty.
    pub fn new(lo: Bound, hi: Bound) -> Interval {
        if empty(&lo, &hi) {
            Interval::Bottom
        } else {
            Interval::Range { lo, hi }
        }
    }

    /// The finite range `[lo, hi]` (`⊥` if `lo > hi`).
    pub fn range(lo: impl Into<BigInt>, hi: impl Into<BigInt>) -> Interval {
        Interval::new(Bound::int(lo), Bound::int(hi))
    }

    /// `[lo, +∞]`.
    pub fn at_least(lo: impl Into<BigInt>) -> Interval {
        Interval::new(Bound::int(lo), Bound::PosInf)
    }

    /// `[-∞, hi]`.
    pub fn at_most(hi: impl Into<BigInt>) -> Interval {
        Interval::new(Bound::NegInf, Bound::int(hi))
    }

    /// The bounds, `None` for `⊥`.
    pub fn bounds(&self) -> Option<(&Bound, &Bound)> {
        match self {
            Interval::Bottom => None,
            Interval::Range { lo, hi } => Some((lo, hi)),
        }
    }

    /// The single value of `[c, c]`.
    pub fn as_constant(&self) -> Option<&BigInt> {
        match self.bounds() {
            Some((Bound::Finite(a), Bound::Finite(b))) if a == b => Some(a),
            _ => None,
        }
    }

    /// The part of `self` at or above `lo`.
    fn clamp_below(&self, lo: Bound) -> Interval {
        self.meet_with(&Interval::new(lo, Bound::PosInf))
    }

    /// The part of `self` at or below `hi`.
    fn clamp_above(&self, hi: Bound) -> Interval {
        self.meet_with(&Interval::new(Bound::NegInf, hi))
    }

    fn meet_with(&self, other: &Interval) -> Interval {
        let mut r = self.clone();
        r.meet(other);
        r
    }

    fn join_with(&self, other: &Interval) -> Interval {
        let mut r = self.clone();
        r.join(other);
        r
    }

    fn add(&self, other: &Interval) -> Interval {
        match (self.bounds(), other.bounds()) {
            (Some((a, b)), Some((c, d))) => Interval::new(a.add(c), b.add(d)),
            _ => Interval::Bottom,
        }
    }

    fn mul(&self, other: &Interval) -> Interval {
        let (Some((a, b)), Some((c, d))) = (self.bounds(), other.bounds()) else {
            return Interval::Bottom;
        };
        let products = [a.mul(c), a.mul(d), b.mul(c), b.mul(d)];
        let lo = products.iter().min().cloned().unwrap_or(Bound::NegInf);
        let hi = products.iter().max().cloned().unwrap_or(Bound::PosInf);
        Interval::new(lo, hi)
    }

    /// The divisors of `self` split into their negative and positive parts (zero dropped).
    fn split_divisor(&self) -> (Interval, Interval) {
        (
            self.clamp_above(Bound::int(-1)),
            self.clamp_below(Bound::int(1)),
        )
    }

    fn floor_div(&self, divisor: &Interval) -> Interval {
        let (neg, pos) = divisor.split_divisor();
        // a // b == (-a) // (-b): the negative divisors reduce to positive ones.
        let from_neg = self.negate().floor_div_positive(&neg.negate());
        from_neg.join_with(&self.floor_div_positive(&pos))
    }

    /// `self // [p, q]` for `1 ≤ p`: `a // b` rises with `a`; in `b` it falls for `a ≥ 0` and
    /// rises for `a < 0`, so the extremes lie at the corners named below.
    fn floor_div_positive(&self, divisor: &Interval) -> Interval {
        let (Some((l, h)), Some((p, q))) = (self.bounds(), divisor.bounds()) else {
            return Interval::Bottom;
        };
        let Some(p) = p.finite() else {
            return Interval::Bottom;
        };
        let lo = match l {
            Bound::NegInf => Bound::NegInf,
            Bound::Finite(l) if l.is_negative() => Bound::Finite(l.div_floor(p)),
            Bound::Finite(l) => match q {
                Bound::Finite(q) => Bound::Finite(l.div_floor(q)),
                _ => Bound::int(0),
            },
            Bound::PosInf => return Interval::Bottom,
        };
        let hi = match h {
            Bound::PosInf => Bound::PosInf,
            Bound::Finite(h) if !h.is_negative() => Bound::Finite(h.div_floor(p)),
            Bound::Finite(h) => match q {
                Bound::Finite(q) => Bound::Finite(h.div_floor(q)),
                _ => Bound::int(-1),
            },
            Bound::NegInf => return Interval::Bottom,
        };
        Interval::new(lo, hi)
    }

    fn modulo(&self, divisor: &Interval) -> Interval {
        let (neg, pos) = divisor.split_divisor();
        // a % b == -((-a) % (-b)).
        let from_neg = self.negate().mod_positive(&neg.negate()).negate();
        from_neg.join_with(&self.mod_positive(&pos))
    }

    /// `self % [p, q]` for `1 ≤ p`: within `[0, q - 1]`; `a` itself when `0 ≤ a < p`; at most
    /// `a` when `a ≥ 0`.
    fn mod_positive(&self, divisor: &Interval) -> Interval {
        let (Some((l, h)), Some((p, q))) = (self.bounds(), divisor.bounds()) else {
            return Interval::Bottom;
        };
        if l.is_nonnegative() && h < p {
            return self.clone();
        }
        let mut hi = q.offset(-1);
        if l.is_nonnegative() {
            hi = hi.min(h.clone());
        }
        Interval::new(Bound::int(0), hi)
    }
}

impl JoinSemiLattice for Interval {
    fn join(&mut self, other: &Self) -> bool {
        match (&mut *self, other) {
            (_, Interval::Bottom) => false,
            (Interval::Bottom, _) => {
                *self = other.clone();
                true
            }
            (Interval::Range { lo: a, hi: b }, Interval::Range { lo: c, hi: d }) => {
                let lower = c < a;
                let higher = d > b;
                if lower {
                    *a = c.clone();
                }
                if higher {
                    *b = d.clone();
                }
                lower || higher
            }
        }
    }

    fn leq(&self, other: &Self) -> bool {
        match (self, other) {
            (Interval::Bottom, _) => true,
            (_, Interval::Bottom) => false,
            (Interval::Range { lo: a, hi: b }, Interval::Range { lo: c, hi: d }) => {
                c <= a && b <= d
            }
        }
    }
}

impl MeetSemiLattice for Interval {
    fn meet(&mut self, other: &Self) -> bool {
        match (&*self, other) {
            (Interval::Bottom, _) => false,
            (_, Interval::Bottom) => {
                *self = Interval::Bottom;
                true
            }
            (Interval::Range { lo: a, hi: b }, Interval::Range { lo: c, hi: d }) => {
                let (raise, lower) = (c > a, d < b);
                let (lo, hi) = (if raise { c } else { a }, if lower { d } else { b });
                if empty(lo, hi) {
                    *self = Interval::Bottom;
                    return true;
                }
                let (lo, hi) = (raise.then(|| c.clone()), lower.then(|| d.clone()));
                self.set_bounds(lo, hi)
            }
        }
    }
}

impl Interval {
    /// Replaces the bounds given (the range stays non-empty); returns whether any was given.
    fn set_bounds(&mut self, new_lo: Option<Bound>, new_hi: Option<Bound>) -> bool {
        let changed = new_lo.is_some() || new_hi.is_some();
        if let Interval::Range { lo, hi } = self {
            if let Some(l) = new_lo {
                *lo = l;
            }
            if let Some(h) = new_hi {
                *hi = h;
            }
        }
        changed
    }
}

/// Whether `[lo, hi]` is empty (what [`Interval::new`] turns into `⊥`).
fn empty(lo: &Bound, hi: &Bound) -> bool {
    *lo == Bound::PosInf || *hi == Bound::NegInf || lo > hi
}

impl HasBottom for Interval {
    const BOTTOM: Self = Interval::Bottom;
    fn is_bottom(&self) -> bool {
        matches!(self, Interval::Bottom)
    }
}

impl HasTop for Interval {
    const TOP: Self = Interval::Range {
        lo: Bound::NegInf,
        hi: Bound::PosInf,
    };
    fn is_top(&self) -> bool {
        *self == Self::TOP
    }
}

impl Widening for Interval {
    /// The standard widening: a bound that moved jumps to infinity.
    fn widen(&mut self, next: &Self) -> bool {
        match (&mut *self, next) {
            (_, Interval::Bottom) => false,
            (Interval::Bottom, _) => {
                *self = next.clone();
                true
            }
            (Interval::Range { lo: a, hi: b }, Interval::Range { lo: c, hi: d }) => {
                let (lower, higher) = (c < a, d > b);
                if lower {
                    *a = Bound::NegInf;
                }
                if higher {
                    *b = Bound::PosInf;
                }
                lower || higher
            }
        }
    }

    /// The standard narrowing: only infinite bounds are replaced by the next iterate's.
    fn narrow(&mut self, next: &Self) -> bool {
        match (&*self, next) {
            (Interval::Bottom, _) => false,
            (_, Interval::Bottom) => {
                *self = Interval::Bottom;
                true
            }
            (Interval::Range { lo: a, hi: b }, Interval::Range { lo: c, hi: d }) => {
                let raise = *a == Bound::NegInf && c != a;
                let lower = *b == Bound::PosInf && d != b;
                let (lo, hi) = (if raise { c } else { a }, if lower { d } else { b });
                if empty(lo, hi) {
                    *self = Interval::Bottom;
                    return true;
                }
                let (lo, hi) = (raise.then(|| c.clone()), lower.then(|| d.clone()));
                self.set_bounds(lo, hi)
            }
        }
    }
}

impl AbstractDomain for Interval {
    const NAME: &'static str = "interval";
    const LATTICE: Option<LatticeEntry> = Some(LatticeEntry {
        help: "⊥ and every [a, b] with LO ≤ a ≤ b ≤ HI for --window LO HI (default -2 2);
with --unbounded also [-∞, b], [a, +∞] and [-∞, +∞]",
        build: builtin::interval_lattice,
        factor: false,
    });

    fn alpha(i: &BigInt) -> Self {
        Interval::new(Bound::Finite(i.clone()), Bound::Finite(i.clone()))
    }

    fn contains(&self, i: &BigInt) -> bool {
        let i = Bound::Finite(i.clone());
        self.bounds().is_some_and(|(lo, hi)| *lo <= i && i <= *hi)
    }

    fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
        match op {
            BinOp::Add => a.add(b),
            BinOp::Sub => a.add(&b.negate()),
            BinOp::Mul => a.mul(b),
            BinOp::FloorDiv => a.floor_div(b),
            BinOp::Mod => a.modulo(b),
        }
    }

    fn negate(&self) -> Self {
        match self.bounds() {
            Some((lo, hi)) => Interval::new(hi.negate(), lo.negate()),
            None => Interval::Bottom,
        }
    }

    fn refine(&self, op: CmpOp, other: &Self) -> Self {
        let Some((lo, hi)) = other.bounds() else {
            return Interval::Bottom;
        };
        match op {
            CmpOp::Lt => self.clamp_above(hi.offset(-1)),
            CmpOp::Le => self.clamp_above(hi.clone()),
            CmpOp::Gt => self.clamp_below(lo.offset(1)),
            CmpOp::Ge => self.clamp_below(lo.clone()),
            CmpOp::Eq => self.meet_with(other),
            CmpOp::Ne => match (other.as_constant(), self.bounds()) {
                (Some(c), Some((a, b))) => {
                    let c = Bound::Finite(c.clone());
                    let a = if *a == c { a.offset(1) } else { a.clone() };
                    let b = if *b == c { b.offset(-1) } else { b.clone() };
                    Interval::new(a, b)
                }
                _ => self.clone(),
            },
        }
    }

    fn must_be_zero(&self) -> bool {
        self.as_constant().is_some_and(Zero::is_zero)
    }

    fn to_json(&self) -> Value {
        let end = |b: &Bound| b.finite().map_or(Value::Null, int_json);
        match self.bounds() {
            Some((lo, hi)) => json!({"lo": end(lo), "hi": end(hi)}),
            None => json!("bottom"),
        }
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.bounds() {
            Some((lo, hi)) => write!(f, "[{lo}, {hi}]"),
            None => f.write_str("⊥"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::lattice::laws::check_lattice;

    fn samples() -> Vec<Interval> {
        let mut v = vec![
            Interval::Bottom,
            Interval::TOP,
            Interval::at_least(0),
            Interval::at_most(-1),
        ];
        v.extend(
            [(-3, -1), (-1, 1), (0, 0), (0, 5), (2, 2), (3, 9)].map(|(a, b)| Interval::range(a, b)),
        );
        v
    }

    #[test]
    fn interval_lattice_laws() {
        check_lattice(&samples(), Some(&Interval::BOTTOM), Some(&Interval::TOP));
        assert_eq!(Interval::range(3, 1), Interval::Bottom);
        assert_eq!(Interval::TOP.to_string(), "[-∞, +∞]");
        assert_eq!(Interval::range(-2, 5).to_json(), json!({"lo": -2, "hi": 5}));
        assert_eq!(
            Interval::at_least(1).to_json(),
            json!({"lo": 1, "hi": null})
        );
    }

    /// Exhaustive soundness on every interval within [-6, 6] (and its half-lines), checked
    /// against every pair of members in the window.
    #[test]
    fn operators_are_sound_exhaustively() {
        let w = 6i64;
        let mut elems: Vec<Interval> = Vec::new();
        for a in -w..=w {
            for b in a..=w {
                elems.push(Interval::range(a, b));
            }
            elems.push(Interval::at_least(a));
            elems.push(Interval::at_most(a));
        }
        elems.push(Interval::TOP);
        let members = |x: &Interval| -> Vec<BigInt> {
            (-w - 3..=w + 3)
                .map(BigInt::from)
                .filter(|i| x.contains(i))
                .collect()
        };
        let member_lists: Vec<Vec<BigInt>> = elems.iter().map(members).collect();
        for (x, xs) in elems.iter().zip(&member_lists) {
            let neg = x.negate();
            assert!(xs.iter().all(|i| neg.contains(&-i)), "-{x}");
            for (y, ys) in elems.iter().zip(&member_lists) {
                for op in BinOp::ALL {
                    let r = Interval::binary(op, x, y);
                    for i in xs {
                        for j in ys {
                            if let Some(v) = op.apply(i, j) {
                                assert!(
                                    r.contains(&v),
                                    "{x} {op} {y} = {r} misses {i} {op} {j} = {v}"
                                );
                            }
                        }
                    }
                }
                for op in CmpOp::ALL {
                    let r = x.refine(op, y);
                    for i in xs {
                        if ys.iter().any(|j| op.holds(i, j)) {
                            assert!(r.contains(i), "{x} refined by {op} {y} = {r} misses {i}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn division_is_precise_where_it_matters() {
        let r = |a: (i64, i64), b: (i64, i64), op| {
            Interval::binary(op, &Interval::range(a.0, a.1), &Interval::range(b.0, b.1))
        };
        assert_eq!(r((1, 1), (6, 6), BinOp::FloorDiv), Interval::range(0, 0));
        assert_eq!(r((1, 10), (0, 0), BinOp::FloorDiv), Interval::Bottom);
        assert_eq!(r((-7, 7), (0, 2), BinOp::FloorDiv), Interval::range(-7, 7));
        assert_eq!(
            r((7, 7), (-2, -2), BinOp::FloorDiv),
            Interval::range(-4, -4)
        );
        assert_eq!(r((0, 3), (5, 9), BinOp::Mod), Interval::range(0, 3));
        assert_eq!(r((-10, 10), (-3, -3), BinOp::Mod), Interval::range(-2, 0));
        assert_eq!(
            Interval::binary(
                BinOp::FloorDiv,
                &Interval::at_least(0),
                &Interval::at_least(1)
            ),
            Interval::at_least(0)
        );
        assert_eq!(
            Interval::binary(BinOp::Mul, &Interval::range(0, 0), &Interval::TOP),
            Interval::range(0, 0)
        );
        assert_eq!(Interval::range(1, 1).as_constant(), Some(&BigInt::from(1)));
        assert!(Interval::range(0, 0).must_be_zero() && !Interval::range(0, 1).must_be_zero());
        assert!(Interval::range(-1, 1).may_be_zero() && !Interval::at_least(1).may_be_zero());
    }

    #[test]
    fn refinement_of_branches() {
        let x = Interval::range(0, 10);
        assert_eq!(
            x.refine(CmpOp::Lt, &Interval::range(5, 5)),
            Interval::range(0, 4)
        );
        assert_eq!(
            x.refine(CmpOp::Ge, &Interval::range(5, 5)),
            Interval::range(5, 10)
        );
        assert_eq!(
            x.refine(CmpOp::Ne, &Interval::range(0, 0)),
            Interval::range(1, 10)
        );
        assert_eq!(
            x.refine(CmpOp::Gt, &Interval::range(10, 20)),
            Interval::Bottom
        );
        assert_eq!(
            Interval::TOP.refine(CmpOp::Gt, &Interval::range(-1, -1)),
            Interval::at_least(0)
        );
        assert_eq!(x.refine(CmpOp::Lt, &Interval::Bottom), Interval::Bottom);
    }

    /// The in-place lattice operators give what rebuilding the interval from its new bounds
    /// gives, and say "changed" exactly when the value changed.
    #[test]
    fn in_place_operators_match_their_definitions() {
        type Rebuild = fn(&Bound, &Bound, &Bound, &Bound) -> Interval;
        let ops: [(&str, fn(&mut Interval, &Interval) -> bool, Rebuild); 4] = [
            ("join", Interval::join, |a, b, c, d| {
                Interval::new(a.min(c).clone(), b.max(d).clone())
            }),
            ("meet", Interval::meet, |a, b, c, d| {
                Interval::new(a.max(c).clone(), b.min(d).clone())
            }),
            ("widen", Interval::widen, |a, b, c, d| {
                Interval::new(
                    if c < a { Bound::NegInf } else { a.clone() },
                    if d > b { Bound::PosInf } else { b.clone() },
                )
            }),
            ("narrow", Interval::narrow, |a, b, c, d| {
                Interval::new(
                    if *a == Bound::NegInf {
                        c.clone()
                    } else {
                        a.clone()
                    },
                    if *b == Bound::PosInf {
                        d.clone()
                    } else {
                        b.clone()
                    },
                )
            }),
        ];
        let mut elems = vec![Interval::Bottom, Interval::TOP];
        for a in -3..=3 {
            elems.push(Interval::at_least(a));
            elems.push(Interval::at_most(a));
            for b in a..=3 {
                elems.push(Interval::range(a, b));
            }
        }
        for (name, op, rebuild) in ops {
            for x in &elems {
                for y in &elems {
                    let want = match (x.bounds(), y.bounds()) {
                        (Some((a, b)), Some((c, d))) => rebuild(a, b, c, d),
                        _ => {
                            let mut r = x.clone();
                            match name {
                                "join" | "widen" if !y.is_bottom() => r = y.clone(),
                                "meet" | "narrow" if !x.is_bottom() => r = Interval::Bottom,
                                _ => {}
                            }
                            r
                        }
                    };
                    let mut got = x.clone();
                    let changed = op(&mut got, y);
                    assert_eq!(got, want, "{x} {name} {y}");
                    assert_eq!(changed, want != *x, "{x} {name} {y}");
                }
            }
        }
    }

    /// `i = 0; while True: i = i + 1` — the join chain [0,0] ⊑ [0,1] ⊑ … never ends; widening
    /// stabilises in two steps, and narrowing with the loop guard `i < 100` recovers [0, 100].
    #[test]
    fn widening_terminates_on_an_increasing_chain() {
        let step = |x: &Interval| {
            let mut next = Interval::range(0, 0);
            next.join(&Interval::binary(
                BinOp::Add,
                &x.refine(CmpOp::Lt, &Interval::range(100, 100)),
                &Interval::range(1, 1),
            ));
            next
        };
        let mut x = Interval::range(0, 0);
        let mut rounds = 0;
        loop {
            rounds += 1;
            assert!(rounds < 10, "widening did not stabilise: {x}");
            if !x.widen(&step(&x)) {
                break;
            }
        }
        assert_eq!(x, Interval::at_least(0));
        assert!(rounds <= 3);
        let mut narrowed = x.clone();
        while narrowed.narrow(&step(&narrowed)) {}
        assert_eq!(narrowed, Interval::range(0, 100));
        // Without widening the same chain would grow by one per round.
        let mut y = Interval::range(0, 0);
        for _ in 0..50 {
            y.join(&step(&y));
        }
        assert_eq!(y, Interval::range(0, 50));
    }
}
