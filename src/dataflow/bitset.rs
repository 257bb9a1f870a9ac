//! Powerset lattices as bit sets: [`BitSet`] over element indices `0..domain_size`, and a
//! [`Universe`] that numbers the facts (definitions, uses, expressions) in a stable order.
//!
//! Join is union and meet intersection, one machine word at a time, so sets of thousands of
//! facts cost a few dozen word operations.

use std::collections::BTreeMap;
use std::fmt;

use super::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};

const WORD: usize = 64;

/// A subset of `0..domain_size`.
///
/// Sets over different domain sizes may be combined: missing words count as empty and the
/// result takes the larger size. Indices at or past the domain size are ignored by `insert`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BitSet {
    domain_size: usize,
    words: Vec<u64>,
}

impl BitSet {
    /// The empty set (the powerset lattice's `⊥`).
    pub fn new_empty(domain_size: usize) -> BitSet {
        BitSet {
            domain_size,
            words: vec![0; domain_size.div_ceil(WORD)],
        }
    }

    /// The full set (the powerset lattice's `⊤`).
    pub fn new_filled(domain_size: usize) -> BitSet {
        let mut set = BitSet {
            domain_size,
            words: vec![u64::MAX; domain_size.div_ceil(WORD)],
        };
        set.clear_excess();
        set
    }

    /// The set of the given indices (those in range).
    pub fn from_indices(domain_size: usize, indices: impl IntoIterator<Item = usize>) -> BitSet {
        let mut set = BitSet::new_empty(domain_size);
        for i in indices {
            set.insert(i);
        }
        set
    }

    pub fn domain_size(&self) -> usize {
        self.domain_size
    }

    /// Adds `i`; returns whether the set changed.
    pub fn insert(&mut self, i: usize) -> bool {
        if i >= self.domain_size {
            return false;
        }
        let (w, mask) = (i / WORD, 1u64 << (i % WORD));
        let before = self.words[w];
        self.words[w] |= mask;
        before != self.words[w]
    }

    /// Removes `i`; returns whether the set changed.
    pub fn remove(&mut self, i: usize) -> bool {
        match self.words.get_mut(i / WORD) {
            Some(word) => {
                let before = *word;
                *word &= !(1u64 << (i % WORD));
                before != *word
            }
            None => false,
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / WORD)
            .is_some_and(|w| w & (1u64 << (i % WORD)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// The number of elements.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * WORD + bit)
            })
        })
    }

    /// `self := self ∪ other`; returns whether `self` changed.
    pub fn union(&mut self, other: &BitSet) -> bool {
        self.grow_to(other);
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let before = *a;
            *a |= b;
            changed |= before != *a;
        }
        changed
    }

    /// `self := self ∩ other`; returns whether `self` changed.
    pub fn intersect(&mut self, other: &BitSet) -> bool {
        self.grow_to(other);
        let mut changed = false;
        for (i, a) in self.words.iter_mut().enumerate() {
            let before = *a;
            *a &= other.words.get(i).copied().unwrap_or(0);
            changed |= before != *a;
        }
        changed
    }

    /// `self := self ∖ other` (the kill of a gen/kill transfer); returns whether `self` changed.
    pub fn subtract(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let before = *a;
            *a &= !b;
            changed |= before != *a;
        }
        changed
    }

    /// `self ⊆ other`.
    pub fn is_subset(&self, other: &BitSet) -> bool {
        self.words
            .iter()
            .enumerate()
            .all(|(i, a)| a & !other.words.get(i).copied().unwrap_or(0) == 0)
    }

    fn grow_to(&mut self, other: &BitSet) {
        if other.domain_size > self.domain_size {
            self.domain_size = other.domain_size;
            self.words.resize(other.words.len(), 0);
        }
    }

    fn clear_excess(&mut self) {
        let used = self.domain_size % WORD;
        if used != 0
            && let Some(last) = self.words.last_mut()
        {
            *last &= (1u64 << used) - 1;
        }
    }
}

impl JoinSemiLattice for BitSet {
    fn join(&mut self, other: &Self) -> bool {
        self.union(other)
    }

    fn leq(&self, other: &Self) -> bool {
        self.is_subset(other)
    }
}

impl MeetSemiLattice for BitSet {
    fn meet(&mut self, other: &Self) -> bool {
        self.intersect(other)
    }
}

impl Widening for BitSet {}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The facts a powerset ranges over, numbered in sorted order so ids are stable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Universe<T: Ord> {
    elements: Vec<T>,
    index: BTreeMap<T, usize>,
}

impl<T: Ord + Clone> Universe<T> {
    /// The universe of `elements`, sorted and without duplicates.
    pub fn new(elements: impl IntoIterator<Item = T>) -> Universe<T> {
        let mut elements: Vec<T> = elements.into_iter().collect();
        elements.sort();
        elements.dedup();
        let index = elements
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, e)| (e, i))
            .collect();
        Universe { elements, index }
    }

    pub fn len(&self) -> usize {
        self.elements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    pub fn index_of(&self, element: &T) -> Option<usize> {
        self.index.get(element).copied()
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        self.elements.get(index)
    }

    pub fn elements(&self) -> &[T] {
        &self.elements
    }

    pub fn empty_set(&self) -> BitSet {
        BitSet::new_empty(self.len())
    }

    pub fn full_set(&self) -> BitSet {
        BitSet::new_filled(self.len())
    }

    /// The set of the given elements; elements outside the universe are ignored.
    pub fn set_of<'a>(&self, elements: impl IntoIterator<Item = &'a T>) -> BitSet
    where
        T: 'a,
    {
        BitSet::from_indices(
            self.len(),
            elements.into_iter().filter_map(|e| self.index_of(e)),
        )
    }

    /// The elements of `set`, in universe order.
    pub fn members<'a>(&'a self, set: &'a BitSet) -> impl Iterator<Item = &'a T> + 'a {
        set.iter().filter_map(|i| self.elements.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::lattice::laws::check_lattice;

    #[test]
    fn basic_operations() {
        let mut s = BitSet::new_empty(130);
        assert!(s.insert(0) && s.insert(64) && s.insert(129));
        assert!(!s.insert(64) && !s.insert(130));
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 64, 129]);
        assert_eq!(s.count(), 3);
        assert!(s.remove(64) && !s.remove(64) && !s.remove(5000));
        assert!(s.contains(129) && !s.contains(64) && !s.contains(9999));
        let full = BitSet::new_filled(130);
        assert_eq!(full.count(), 130);
        assert!(s.is_subset(&full) && !full.is_subset(&s));
        let mut t = full.clone();
        assert!(t.subtract(&s));
        assert_eq!(t.count(), 128);
        assert!(!t.contains(0));
    }

    #[test]
    fn powerset_of_three_is_a_lattice() {
        let all: Vec<BitSet> = (0u32..8)
            .map(|m| BitSet::from_indices(3, (0..3).filter(|i| m & (1 << i) != 0)))
            .collect();
        check_lattice(
            &all,
            Some(&BitSet::new_empty(3)),
            Some(&BitSet::new_filled(3)),
        );
    }

    #[test]
    fn thousands_of_elements() {
        let n = 5000;
        let evens = BitSet::from_indices(n, (0..n).step_by(2));
        let threes = BitSet::from_indices(n, (0..n).step_by(3));
        let mut u = evens.clone();
        assert!(u.join(&threes));
        assert_eq!(
            u.count(),
            (0..n).filter(|i| i % 2 == 0 || i % 3 == 0).count()
        );
        let mut m = evens.clone();
        assert!(m.meet(&threes));
        assert_eq!(
            m.iter().collect::<Vec<_>>(),
            (0..n).step_by(6).collect::<Vec<_>>()
        );
        assert!(m.leq(&evens) && !evens.leq(&m));
        assert!(!u.clone().join(&m));
    }

    #[test]
    fn mismatched_sizes_do_not_panic() {
        let mut a = BitSet::from_indices(3, [1]);
        let b = BitSet::from_indices(100, [99]);
        assert!(a.union(&b));
        assert_eq!(a.domain_size(), 100);
        assert_eq!(a.iter().collect::<Vec<_>>(), [1, 99]);
        let mut c = BitSet::from_indices(100, [1, 99]);
        assert!(c.intersect(&BitSet::from_indices(3, [1])));
        assert_eq!(c.iter().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn universe_numbers_in_sorted_order() {
        let u = Universe::new(["y@3", "x@2", "y@3", "tmp@6"]);
        assert_eq!(u.elements(), ["tmp@6", "x@2", "y@3"]);
        let s = u.set_of([&"y@3", &"nope"]);
        assert_eq!(u.members(&s).collect::<Vec<_>>(), [&"y@3"]);
        assert_eq!(u.full_set().count(), 3);
    }
}
