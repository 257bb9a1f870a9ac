//! The map lattice `K → V`, ordered pointwise: the course's "program lattice" (one abstract
//! value per variable).
//!
//! A key that is absent maps to `V::BOTTOM`, and `⊥` values are never stored, so equal maps are
//! equal structurally and iterate in key order (deterministic output).

use std::collections::BTreeMap;
use std::fmt;

use super::lattice::{HasBottom, JoinSemiLattice, MeetSemiLattice, Widening};

/// A total map from `K` to `V` in which all but finitely many keys map to `⊥`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MapLattice<K: Ord, V> {
    map: BTreeMap<K, V>,
}

impl<K: Ord, V> Default for MapLattice<K, V> {
    fn default() -> Self {
        MapLattice {
            map: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Clone, V: HasBottom + Clone> MapLattice<K, V> {
    /// The map sending every key to `⊥`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value of `key` (`⊥` when absent).
    pub fn get(&self, key: &K) -> V {
        self.map.get(key).cloned().unwrap_or(V::BOTTOM)
    }

    /// The stored value of `key`, `None` meaning `⊥`.
    pub fn get_ref(&self, key: &K) -> Option<&V> {
        self.map.get(key)
    }

    /// The stored value of a key given in borrowed form (`&str` for `String` keys).
    pub fn get_by<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.map.get(key)
    }

    /// Sets `key` to `value` (strong update); returns whether the map changed.
    pub fn set(&mut self, key: K, value: V) -> bool
    where
        V: Eq,
    {
        if value.is_bottom() {
            return self.map.remove(&key).is_some();
        }
        match self.map.get(&key) {
            Some(old) if *old == value => false,
            _ => {
                self.map.insert(key, value);
                true
            }
        }
    }

    /// The keys with a value other than `⊥` and their values, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.map.iter()
    }

    /// Applies `f` to the value of every key in `keys` and to every stored key; drops `⊥`s.
    fn combine(&mut self, other: &Self, mut f: impl FnMut(&mut V, &V) -> bool) -> bool
    where
        V: Eq,
    {
        let mut changed = false;
        let keys: Vec<K> = self.map.keys().chain(other.map.keys()).cloned().collect();
        for key in keys {
            let mut value = self.get(&key);
            let theirs = other.get(&key);
            if f(&mut value, &theirs) {
                changed = true;
                self.set(key, value);
            }
        }
        changed
    }
}

impl<K: Ord + Clone, V: HasBottom + Clone> FromIterator<(K, V)> for MapLattice<K, V>
where
    V: Eq,
{
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = MapLattice::new();
        for (k, v) in iter {
            m.set(k, v);
        }
        m
    }
}

impl<K: Ord + Clone, V: HasBottom + JoinSemiLattice + Clone> JoinSemiLattice for MapLattice<K, V> {
    fn join(&mut self, other: &Self) -> bool {
        self.combine(other, V::join)
    }

    fn leq(&self, other: &Self) -> bool {
        self.map.iter().all(|(k, v)| v.leq(&other.get(k)))
    }
}

impl<K: Ord + Clone, V: HasBottom + MeetSemiLattice + Clone> MeetSemiLattice for MapLattice<K, V> {
    fn meet(&mut self, other: &Self) -> bool {
        self.combine(other, V::meet)
    }
}

impl<K: Ord + Clone, V: HasBottom + Widening + Clone> Widening for MapLattice<K, V> {
    fn widen(&mut self, next: &Self) -> bool {
        self.combine(next, V::widen)
    }

    fn narrow(&mut self, next: &Self) -> bool {
        self.combine(next, V::narrow)
    }
}

impl<K: Ord, V> HasBottom for MapLattice<K, V> {
    const BOTTOM: Self = MapLattice {
        map: BTreeMap::new(),
    };
    fn is_bottom(&self) -> bool {
        self.map.is_empty()
    }
}

impl<K: Ord + fmt::Debug, V: fmt::Debug> fmt::Debug for MapLattice<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.map.iter()).finish()
    }
}

/// `{x: v, y: w}` with keys in order; `{}` is the all-`⊥` map.
impl<K: Ord + fmt::Display, V: fmt::Display> fmt::Display for MapLattice<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (k, v)) in self.map.iter().enumerate() {
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
    use crate::dataflow::lattice::Flat;
    use crate::dataflow::lattice::laws::check_lattice;

    type Env = MapLattice<&'static str, Flat<i32>>;

    fn env(pairs: &[(&'static str, Flat<i32>)]) -> Env {
        pairs.iter().cloned().collect()
    }

    #[test]
    fn pointwise_lattice() {
        let samples = vec![
            env(&[]),
            env(&[("x", Flat::Elem(1))]),
            env(&[("x", Flat::Elem(2)), ("y", Flat::Top)]),
            env(&[("y", Flat::Elem(0))]),
            env(&[("x", Flat::Top), ("y", Flat::Top)]),
        ];
        check_lattice(&samples, Some(&Env::BOTTOM), None);
    }

    #[test]
    fn bottom_values_are_not_stored() {
        let mut e = env(&[("x", Flat::Elem(1)), ("y", Flat::Bottom)]);
        assert_eq!(e.iter().count(), 1);
        assert_eq!(e.get(&"y"), Flat::Bottom);
        assert!(e.set("x", Flat::Bottom));
        assert_eq!(e, Env::BOTTOM);
        let mut a = env(&[("x", Flat::Elem(1))]);
        assert!(a.meet(&env(&[("y", Flat::Elem(1))])));
        assert!(a.is_bottom());
        let mut b = env(&[("x", Flat::Elem(1))]);
        assert!(b.join(&env(&[("x", Flat::Elem(2)), ("z", Flat::Elem(0))])));
        assert_eq!(b.to_string(), "{x: ⊤, z: 0}");
    }
}
