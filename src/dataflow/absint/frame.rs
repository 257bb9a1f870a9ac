//! [`Frame`]: one abstract value per variable slot of a program, the dense form of the map
//! lattice `var → D` the abstract interpreter iterates over.
//!
//! Frames share structure: the slots come in chunks of [`CHUNK`] behind `Rc`s, copied only
//! when a frame writes one of them, and each value sits behind its own `Rc`. Copying a frame
//! copies one pointer per chunk; joining two frames skips the chunks and values they share,
//! so the states stored along a program cost what their differences cost. An unbound slot
//! (`None`) is `⊥`, and `⊥` is never stored, so frames behave exactly like a `MapLattice`
//! over the table's names.

use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use super::names::Names;
use crate::dataflow::domains::AbstractDomain;
use crate::dataflow::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};

/// Slots per chunk.
pub const CHUNK: usize = 16;

/// The values of [`CHUNK`] consecutive slots.
type Chunk<D> = [Option<Rc<D>>; CHUNK];

/// The values of a program's variables, by slot of its [`Names`].
#[derive(Clone)]
pub struct Frame<D> {
    names: Arc<Names>,
    /// Slot `i` is entry `i % CHUNK` of chunk `i / CHUNK`; `None` is a chunk of unbound slots.
    chunks: Vec<Option<Rc<Chunk<D>>>>,
}

/// The value in `offset` of `chunk`, `None` meaning `⊥`.
fn value<D>(chunk: &Option<Rc<Chunk<D>>>, offset: usize) -> Option<&Rc<D>> {
    chunk.as_ref().and_then(|c| c[offset].as_ref())
}

/// `chunk`, copied first if another frame shares it (created if all unbound).
fn writable<D>(chunk: &mut Option<Rc<Chunk<D>>>) -> &mut Chunk<D> {
    Rc::make_mut(chunk.get_or_insert_with(|| Rc::new(std::array::from_fn(|_| None))))
}

impl<D: AbstractDomain> Frame<D> {
    /// Every variable unbound.
    pub fn new(names: Arc<Names>) -> Frame<D> {
        Frame {
            chunks: vec![None; names.len().div_ceil(CHUNK)],
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
        value(self.chunks.get(slot / CHUNK)?, slot % CHUNK).map(|v| &**v)
    }

    /// Binds `name` to `value` (a strong update; `⊥` unbinds). Returns false, changing
    /// nothing, for a name outside the table, which no statement of the program binds.
    pub fn set(&mut self, name: &str, new: D) -> bool {
        let Some(slot) = self.names.slot(name) else {
            return false;
        };
        let Some(chunk) = self.chunks.get_mut(slot / CHUNK) else {
            return false;
        };
        let offset = slot % CHUNK;
        let old = value(chunk, offset);
        if new.is_bottom() {
            if old.is_none() {
                return false;
            }
            writable(chunk)[offset] = None;
            return true;
        }
        if old.is_some_and(|v| **v == new) {
            return false;
        }
        writable(chunk)[offset] = Some(Rc::new(new));
        true
    }

    /// The bound variables and their values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &D)> {
        self.chunks.iter().enumerate().flat_map(move |(c, chunk)| {
            chunk.iter().flat_map(move |values| {
                values.iter().enumerate().filter_map(move |(o, v)| {
                    Some((self.names.name(c * CHUNK + o)?, &**v.as_ref()?))
                })
            })
        })
    }

    /// Applies `f` slot by slot (`⊥` for unbound), skipping the chunks and slots where both
    /// sides hold the same values (every operator used here leaves `x` unchanged on
    /// `(x, x)`) and the slots where `unchanged` tells without copying the value that `f`
    /// would not change it. A chunk that ends up equal to `other`'s is shared from then on.
    fn combine(
        &mut self,
        other: &Self,
        f: impl Fn(&mut D, &D) -> bool,
        unchanged: impl Fn(&D, &D) -> bool,
    ) -> bool {
        let bottom = D::BOTTOM;
        let mut changed = false;
        for (mine, theirs) in self.chunks.iter_mut().zip(&other.chunks) {
            match (&*mine, theirs) {
                (None, None) => continue,
                (Some(a), Some(b)) if Rc::ptr_eq(a, b) => continue,
                _ => {}
            }
            let mut same = true;
            for offset in 0..CHUNK {
                let (a, b) = (value(mine, offset), value(theirs, offset));
                match (a, b) {
                    (None, None) => continue,
                    (Some(x), Some(y)) if Rc::ptr_eq(x, y) || x == y => continue,
                    _ => {}
                }
                let theirs_value = b.map_or(&bottom, |v| &**v);
                if unchanged(a.map_or(&bottom, |v| &**v), theirs_value) {
                    same = false;
                    continue;
                }
                let mut result = a.map_or_else(|| bottom.clone(), |v| (**v).clone());
                if !f(&mut result, theirs_value) {
                    same = false;
                    continue;
                }
                changed = true;
                let new = if result.is_bottom() {
                    None
                } else if b.is_some_and(|v| **v == result) {
                    b.cloned()
                } else {
                    Some(Rc::new(result))
                };
                same &= new.as_ref() == b;
                writable(mine)[offset] = new;
            }
            if same {
                *mine = theirs.clone();
            }
        }
        changed
    }
}

impl<D: AbstractDomain> PartialEq for Frame<D> {
    fn eq(&self, other: &Self) -> bool {
        self.chunks.len() == other.chunks.len()
            && self
                .chunks
                .iter()
                .zip(&other.chunks)
                .all(|(a, b)| match (a, b) {
                    (Some(x), Some(y)) if Rc::ptr_eq(x, y) => true,
                    _ => (0..CHUNK).all(|o| value(a, o) == value(b, o)),
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
        let none = None;
        let theirs = other.chunks.iter().chain(std::iter::repeat(&none));
        self.chunks.iter().zip(theirs).all(|(a, b)| match (a, b) {
            (Some(x), Some(y)) if Rc::ptr_eq(x, y) => true,
            _ => (0..CHUNK).all(|o| match value(a, o) {
                None => true,
                Some(x) => x.leq(value(b, o).map_or(&bottom, |y| &**y)),
            }),
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

    /// Over several chunks, with frames sharing chunks and values through copies, sequences
    /// of updates and operators keep giving what the map lattice gives.
    #[test]
    fn shared_chunks_agree_with_the_map_lattice() {
        let vars: Vec<String> = (0..40).map(|i| format!("v{i:02}")).collect();
        let names = Arc::new(Names::new(vars.clone()));
        let mut seed = 11u64;
        let mut next = move |below: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % below
        };
        type Pair = (Frame<Interval>, MapLattice<String, Interval>);
        let mut pool: Vec<Pair> = vec![(Frame::new(Arc::clone(&names)), MapLattice::new())];
        for _ in 0..3000 {
            let i = next(pool.len() as u64) as usize;
            let (mut f, mut m) = pool[i].clone();
            match next(6) {
                0 | 1 => {
                    let var = &vars[next(40) as usize];
                    let lo = next(7) as i64 - 3;
                    let value = match next(5) {
                        0 => Interval::Bottom,
                        1 => Interval::at_least(lo),
                        _ => Interval::range(lo, lo + next(4) as i64),
                    };
                    assert_eq!(f.set(var, value.clone()), m.set(var.clone(), value));
                }
                op => {
                    let (g, n) = &pool[next(pool.len() as u64) as usize];
                    let (a, b) = match op {
                        2 => (f.join(g), m.join(n)),
                        3 => (f.meet(g), m.meet(n)),
                        4 => (f.widen(g), m.widen(n)),
                        _ => (f.narrow(g), m.narrow(n)),
                    };
                    assert_eq!(a, b);
                    assert_eq!(f.leq(g), m.leq(n));
                    assert_eq!(f == *g, m == *n);
                }
            }
            assert_eq!(f.to_string(), m.to_string());
            if pool.len() < 12 {
                pool.push((f, m));
            } else {
                pool[i] = (f, m);
            }
        }
        for (f, m) in &pool {
            for v in &vars {
                assert_eq!(f.get(v), m.get(v));
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
