//! [`Frame`]: one abstract value per variable slot of a program, the dense form of the map
//! lattice `var → D` the abstract interpreter iterates over.
//!
//! Values are shared (`Rc`) between frames: copying a frame copies one pointer per slot, and
//! joining two frames that share a value skips it. An unbound slot (`None`) is `⊥`, and `⊥`
//! is never stored, so frames behave exactly like a `MapLattice` over the table's names.

use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use super::names::Names;
use crate::dataflow::domains::AbstractDomain;
use crate::dataflow::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};

/// The values of a program's variables, by slot of its [`Names`].
#[derive(Clone)]
pub struct Frame<D> {
    names: Arc<Names>,
    values: Vec<Option<Rc<D>>>,
}

impl<D: AbstractDomain> Frame<D> {
    /// Every variable unbound.
    pub fn new(names: Arc<Names>) -> Frame<D> {
        Frame {
            values: vec![None; names.len()],
            names,
        }
    }

    /// The value of `name` (`⊥` when unbound), like `MapLattice::get`.
    pub fn get(&self, name: &str) -> D {
        self.get_ref(name).cloned().unwrap_or(D::BOTTOM)
    }

    /// The value bound to `name`, `None` meaning `⊥`.
    pub fn get_ref(&self, name: &str) -> Option<&D> {
        let slot = self.names.slot(name)?;
        self.values.get(slot)?.as_deref()
    }

    /// Binds `name` to `value` (a strong update; `⊥` unbinds). Returns false, changing
    /// nothing, for a name outside the table, which no statement of the program binds.
    pub fn set(&mut self, name: &str, value: D) -> bool {
        let Some(slot) = self.names.slot(name) else {
            return false;
        };
        let Some(cell) = self.values.get_mut(slot) else {
            return false;
        };
        if value.is_bottom() {
            return cell.take().is_some();
        }
        if cell.as_deref() == Some(&value) {
            return false;
        }
        *cell = Some(Rc::new(value));
        true
    }

    /// The bound variables and their values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &D)> {
        self.values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((self.names.name(i)?, v.as_deref()?)))
    }

    /// Applies `f` slot by slot (`⊥` for unbound), skipping slots where both sides hold the
    /// same value (every operator used here leaves `x` unchanged on `(x, x)`) and those where
    /// `unchanged` tells without copying the value that `f` would not change it.
    fn combine(
        &mut self,
        other: &Self,
        f: impl Fn(&mut D, &D) -> bool,
        unchanged: impl Fn(&D, &D) -> bool,
    ) -> bool {
        let bottom = D::BOTTOM;
        let mut changed = false;
        for (mine, theirs) in self.values.iter_mut().zip(&other.values) {
            match (mine.as_ref(), theirs) {
                (None, None) => continue,
                (Some(a), Some(b)) if Rc::ptr_eq(a, b) => continue,
                (Some(a), Some(b)) if a == b => {
                    // Equal values: share one copy from now on.
                    *mine = Some(Rc::clone(b));
                    continue;
                }
                _ => {}
            }
            let theirs_value = theirs.as_deref().unwrap_or(&bottom);
            if unchanged(mine.as_deref().unwrap_or(&bottom), theirs_value) {
                continue;
            }
            let mut value = mine.as_deref().cloned().unwrap_or_else(|| bottom.clone());
            if f(&mut value, theirs_value) {
                changed = true;
                *mine = if value.is_bottom() {
                    None
                } else if theirs.as_deref() == Some(&value) {
                    theirs.clone()
                } else {
                    Some(Rc::new(value))
                };
            }
        }
        changed
    }
}

impl<D: AbstractDomain> PartialEq for Frame<D> {
    fn eq(&self, other: &Self) -> bool {
        self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => Rc::ptr_eq(a, b) || a == b,
                    (a, b) => a.is_none() && b.is_none(),
                })
            && (Arc::ptr_eq(&self.names, &other.names) || self.names == other.names)
    }
}

impl<D: AbstractDomain> Eq for Frame<D> {}

impl<D: AbstractDomain> JoinSemiLattice for Frame<D> {
    fn join(&mut self, other: &Self) -> bool {
        // `b ⊑ a` means `a ⊔ b = a`.
        self.combine(other, D::join, |a, b| b.leq(a))
    }

    fn leq(&self, other: &Self) -> bool {
        let bottom = D::BOTTOM;
        self.values
            .iter()
            .zip(other.values.iter().map(Some).chain(std::iter::repeat(None)))
            .all(|(a, b)| match a {
                None => true,
                Some(a) => a.leq(b.and_then(|b| b.as_deref()).unwrap_or(&bottom)),
            })
    }
}

impl<D: AbstractDomain> MeetSemiLattice for Frame<D> {
    fn meet(&mut self, other: &Self) -> bool {
        // `a ⊑ b` means `a ⊓ b = a`.
        self.combine(other, D::meet, |a, b| a.leq(b))
    }
}

impl<D: AbstractDomain> Widening for Frame<D> {
    fn widen(&mut self, next: &Self) -> bool {
        self.combine(next, D::widen, |_, _| false)
    }

    fn narrow(&mut self, next: &Self) -> bool {
        self.combine(next, D::narrow, |_, _| false)
    }
}

impl<D: AbstractDomain> fmt::Debug for Frame<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// `{x: v, y: w}` in name order, like `MapLattice`.
impl<D: AbstractDomain> fmt::Display for Frame<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k}: {v}")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::domains::Interval;
    use crate::dataflow::lattice::HasTop;
    use crate::dataflow::map::MapLattice;

    fn names() -> Arc<Names> {
        Arc::new(Names::new(["x", "y", "z"].map(String::from)))
    }

    fn frame(pairs: &[(&str, Interval)]) -> (Frame<Interval>, MapLattice<String, Interval>) {
        let mut f = Frame::new(names());
        let mut m = MapLattice::new();
        for (k, v) in pairs {
            f.set(k, v.clone());
            m.set(k.to_string(), v.clone());
        }
        (f, m)
    }

    /// Every operator gives what the map lattice gives, with the same "changed" answers.
    #[test]
    fn frames_agree_with_the_map_lattice() {
        let samples = [
            vec![],
            vec![("x", Interval::range(0, 3))],
            vec![("x", Interval::range(2, 9)), ("y", Interval::TOP)],
            vec![("y", Interval::at_least(1)), ("z", Interval::range(-1, -1))],
            vec![("x", Interval::range(0, 3)), ("z", Interval::at_most(4))],
        ];
        type Op<T> = fn(&mut T, &T) -> bool;
        let frame_ops: [Op<Frame<Interval>>; 4] =
            [Frame::join, Frame::meet, Frame::widen, Frame::narrow];
        let map_ops: [Op<MapLattice<String, Interval>>; 4] = [
            MapLattice::join,
            MapLattice::meet,
            MapLattice::widen,
            MapLattice::narrow,
        ];
        for a in &samples {
            for b in &samples {
                let (fa, ma) = frame(a);
                let (fb, mb) = frame(b);
                assert_eq!(fa.leq(&fb), ma.leq(&mb));
                assert_eq!(fa == fb, ma == mb);
                for (fop, mop) in frame_ops.iter().zip(&map_ops) {
                    let (mut f, mut m) = (fa.clone(), ma.clone());
                    assert_eq!(fop(&mut f, &fb), mop(&mut m, &mb), "{fa} with {fb}");
                    assert_eq!(f.to_string(), m.to_string());
                }
            }
        }
    }

    #[test]
    fn bottom_unbinds_and_unknown_names_are_ignored() {
        let (mut f, _) = frame(&[("x", Interval::range(1, 2))]);
        assert_eq!(f.get("x"), Interval::range(1, 2));
        assert_eq!(f.get("y"), Interval::Bottom);
        assert!(f.set("x", Interval::Bottom));
        assert_eq!(f.to_string(), "{}");
        assert!(!f.set("nope", Interval::TOP));
        assert_eq!(f.get("nope"), Interval::Bottom);
    }
}
