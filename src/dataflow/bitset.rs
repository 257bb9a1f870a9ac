//! Powerset lattices as bit sets: [`BitSet`] over element indices `0..domain_size`, and a
//! [`Universe`] that numbers the facts (definitions, uses, expressions) in a stable order.
//!
//! Join is union and meet intersection, one machine word at a time, so sets of thousands of
//! facts cost a few dozen word operations. Over a large domain a set starts sparse, as the
//! sorted list of its members ([`sorted`]), and turns into words once the list would take
//! more room than they do: the states of an analysis with 10^5 facts, of which a program
//! point holds a few hundred, then take a few hundred bytes each instead of 12 kB.

mod sorted;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use super::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};

const WORD: usize = 64;

/// Domains of at most this many words are always stored as words.
const DENSE_WORDS: usize = 16;

/// A subset of `0..domain_size`.
///
/// Sets over different domain sizes may be combined: missing words count as empty and the
/// result takes the larger size. Indices at or past the domain size are ignored by `insert`.
/// Equality, order and hash are those of the members and the domain size, whatever the form.
#[derive(Clone)]
pub struct BitSet {
    domain_size: usize,
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    /// The members in increasing order (a large domain with few members).
    Sparse(Vec<u32>),
    /// `domain_size.div_ceil(64)` words, bits past the domain size clear.
    Dense(Vec<u64>),
}

/// `a[i] := f(a[i], b[i])` for every word of `a`, `b` read as 0 past its end; whether `a`
/// changed.
fn combine_words(a: &mut [u64], b: &[u64], f: impl Fn(u64, u64) -> u64) -> bool {
    let mut changed = false;
    for (i, a) in a.iter_mut().enumerate() {
        let before = *a;
        *a = f(before, b.get(i).copied().unwrap_or(0));
        changed |= before != *a;
    }
    changed
}

impl BitSet {
    /// The empty set (the powerset lattice's `⊥`).
    pub fn new_empty(domain_size: usize) -> BitSet {
        let repr = if sparse_limit(domain_size) > 0 {
            Repr::Sparse(Vec::new())
        } else {
            Repr::Dense(vec![0; domain_size.div_ceil(WORD)])
        };
        BitSet { domain_size, repr }
    }

    /// The full set (the powerset lattice's `⊤`).
    pub fn new_filled(domain_size: usize) -> BitSet {
        let mut set = BitSet {
            domain_size,
            repr: Repr::Dense(vec![u64::MAX; domain_size.div_ceil(WORD)]),
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
        match &mut self.repr {
            Repr::Sparse(members) => {
                // i < domain_size, and sparse domains fit in u32.
                let added = sorted::insert(members, i as u32);
                if members.len() > sparse_limit(self.domain_size) {
                    self.densify();
                }
                added
            }
            Repr::Dense(words) => {
                let (w, mask) = (i / WORD, 1u64 << (i % WORD));
                let before = words[w];
                words[w] |= mask;
                before != words[w]
            }
        }
    }

    /// Removes `i`; returns whether the set changed.
    pub fn remove(&mut self, i: usize) -> bool {
        match &mut self.repr {
            Repr::Sparse(members) => u32::try_from(i).is_ok_and(|i| sorted::remove(members, i)),
            Repr::Dense(words) => match words.get_mut(i / WORD) {
                Some(word) => {
                    let before = *word;
                    *word &= !(1u64 << (i % WORD));
                    before != *word
                }
                None => false,
            },
        }
    }

    /// Removes every member in `range`; returns whether the set changed.
    pub fn remove_range(&mut self, range: Range<usize>) -> bool {
        let end = range.end.min(self.domain_size);
        if range.start >= end {
            return false;
        }
        match &mut self.repr {
            // Both ends are at most the domain size, which fits in u32 for sparse sets.
            Repr::Sparse(members) => sorted::remove_range(members, range.start as u32..end as u32),
            Repr::Dense(words) => {
                let mut changed = false;
                let mut i = range.start;
                while i < end {
                    let (w, bit) = (i / WORD, i % WORD);
                    let n = (WORD - bit).min(end - i);
                    let mask = if n == WORD {
                        u64::MAX
                    } else {
                        ((1u64 << n) - 1) << bit
                    };
                    changed |= words[w] & mask != 0;
                    words[w] &= !mask;
                    i += n;
                }
                changed
            }
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        match &self.repr {
            Repr::Sparse(members) => {
                u32::try_from(i).is_ok_and(|i| members.binary_search(&i).is_ok())
            }
            Repr::Dense(words) => words
                .get(i / WORD)
                .is_some_and(|w| w & (1u64 << (i % WORD)) != 0),
        }
    }

    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Sparse(members) => members.is_empty(),
            Repr::Dense(words) => words.iter().all(|w| *w == 0),
        }
    }

    /// The number of elements.
    pub fn count(&self) -> usize {
        match &self.repr {
            Repr::Sparse(members) => members.len(),
            Repr::Dense(words) => words.iter().map(|w| w.count_ones() as usize).sum(),
        }
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> Iter<'_> {
        match &self.repr {
            Repr::Sparse(members) => Iter::Sparse(members.iter()),
            Repr::Dense(words) => Iter::Dense {
                words,
                at: 0,
                word: words.first().copied().unwrap_or(0),
            },
        }
    }

    /// `self := self ∪ other`; returns whether `self` changed.
    pub fn union(&mut self, other: &BitSet) -> bool {
        self.grow_to(other);
        match (&mut self.repr, &other.repr) {
            (Repr::Sparse(a), Repr::Sparse(b)) => {
                if sorted::is_subset(b, a) {
                    return false;
                }
                *a = sorted::union(a, b);
                if a.len() > sparse_limit(self.domain_size) {
                    self.densify();
                }
                true
            }
            (Repr::Dense(a), Repr::Sparse(b)) => {
                let mut changed = false;
                for &i in b {
                    let (w, mask) = (i as usize / WORD, 1u64 << (i as usize % WORD));
                    changed |= a[w] & mask == 0;
                    a[w] |= mask;
                }
                changed
            }
            (Repr::Sparse(_), Repr::Dense(_)) => {
                self.densify();
                self.union(other)
            }
            (Repr::Dense(a), Repr::Dense(b)) => combine_words(a, b, |a, b| a | b),
        }
    }

    /// `self := self ∩ other`; returns whether `self` changed.
    pub fn intersect(&mut self, other: &BitSet) -> bool {
        self.grow_to(other);
        match (&mut self.repr, &other.repr) {
            (Repr::Sparse(a), _) => {
                let before = a.len();
                a.retain(|&i| other.contains(i as usize));
                a.len() != before
            }
            (Repr::Dense(a), Repr::Sparse(b)) => {
                let kept: Vec<u32> = b
                    .iter()
                    .copied()
                    .filter(|&i| a[i as usize / WORD] & (1u64 << (i as usize % WORD)) != 0)
                    .collect();
                let changed =
                    kept.len() != a.iter().map(|w| w.count_ones() as usize).sum::<usize>();
                self.repr = Repr::Sparse(kept);
                changed
            }
            (Repr::Dense(a), Repr::Dense(b)) => combine_words(a, b, |a, b| a & b),
        }
    }

    /// `self := self ∖ other` (the kill of a gen/kill transfer); returns whether `self` changed.
    pub fn subtract(&mut self, other: &BitSet) -> bool {
        match (&mut self.repr, &other.repr) {
            (Repr::Sparse(a), _) => {
                let before = a.len();
                a.retain(|&i| !other.contains(i as usize));
                a.len() != before
            }
            (Repr::Dense(_), Repr::Sparse(b)) => {
                let mut changed = false;
                for &i in b {
                    changed |= self.remove(i as usize);
                }
                changed
            }
            (Repr::Dense(a), Repr::Dense(b)) => combine_words(a, b, |a, b| a & !b),
        }
    }

    /// `self ⊆ other`.
    pub fn is_subset(&self, other: &BitSet) -> bool {
        match (&self.repr, &other.repr) {
            (Repr::Sparse(a), Repr::Sparse(b)) => sorted::is_subset(a, b),
            (Repr::Dense(a), Repr::Dense(b)) => a
                .iter()
                .enumerate()
                .all(|(i, a)| a & !b.get(i).copied().unwrap_or(0) == 0),
            _ => self.iter().all(|i| other.contains(i)),
        }
    }

    /// The words of the set, lowest first.
    fn words(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        let count = self.domain_size.div_ceil(WORD);
        match &self.repr {
            Repr::Sparse(members) => Box::new(sorted::words(members, count)),
            Repr::Dense(words) => Box::new(words.iter().copied()),
        }
    }

    /// Stores the set as words.
    fn densify(&mut self) {
        if let Repr::Sparse(members) = &self.repr {
            let mut words = vec![0u64; self.domain_size.div_ceil(WORD)];
            for &i in members {
                words[i as usize / WORD] |= 1u64 << (i as usize % WORD);
            }
            self.repr = Repr::Dense(words);
        }
    }

    fn grow_to(&mut self, other: &BitSet) {
        if other.domain_size > self.domain_size {
            self.domain_size = other.domain_size;
            match &mut self.repr {
                Repr::Dense(words) => words.resize(other.domain_size.div_ceil(WORD), 0),
                Repr::Sparse(_) if sparse_limit(self.domain_size) == 0 => self.densify(),
                Repr::Sparse(_) => {}
            }
        }
    }

    fn clear_excess(&mut self) {
        let used = self.domain_size % WORD;
        if used != 0
            && let Repr::Dense(words) = &mut self.repr
            && let Some(last) = words.last_mut()
        {
            *last &= (1u64 << used) - 1;
        }
    }
}

/// How many members a set over `domain_size` may keep sparse: as many as fit in the room its
/// words would take, none for small domains (or ones whose indices do not fit in `u32`).
fn sparse_limit(domain_size: usize) -> usize {
    let words = domain_size.div_ceil(WORD);
    if words <= DENSE_WORDS || u32::try_from(domain_size).is_err() {
        0
    } else {
        words * 2
    }
}

/// The members of a [`BitSet`], in increasing order.
pub enum Iter<'a> {
    Sparse(std::slice::Iter<'a, u32>),
    Dense {
        words: &'a [u64],
        at: usize,
        word: u64,
    },
}

impl Iterator for Iter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            Iter::Sparse(members) => members.next().map(|&i| i as usize),
            Iter::Dense { words, at, word } => loop {
                if *word != 0 {
                    let bit = word.trailing_zeros() as usize;
                    *word &= *word - 1;
                    return Some(*at * WORD + bit);
                }
                *at += 1;
                *word = *words.get(*at)?;
            },
        }
    }
}

impl PartialEq for BitSet {
    fn eq(&self, other: &Self) -> bool {
        if self.domain_size != other.domain_size {
            return false;
        }
        match (&self.repr, &other.repr) {
            (Repr::Sparse(a), Repr::Sparse(b)) => a == b,
            (Repr::Dense(a), Repr::Dense(b)) => a == b,
            _ => self.words().eq(other.words()),
        }
    }
}

impl Eq for BitSet {}

impl Hash for BitSet {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.domain_size.hash(state);
        for w in self.words() {
            w.hash(state);
        }
    }
}

/// By domain size, then word by word from the lowest (the order of the words as a vector).
impl Ord for BitSet {
    fn cmp(&self, other: &Self) -> Ordering {
        self.domain_size
            .cmp(&other.domain_size)
            .then_with(|| self.words().cmp(other.words()))
    }
}

impl PartialOrd for BitSet {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
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
    /// Sorted, without duplicates: an element's id is its position.
    elements: Vec<T>,
}

impl<T: Ord + Clone> Universe<T> {
    /// The universe of `elements`, sorted and without duplicates.
    pub fn new(elements: impl IntoIterator<Item = T>) -> Universe<T> {
        let mut elements: Vec<T> = elements.into_iter().collect();
        elements.sort();
        elements.dedup();
        Universe { elements }
    }

    /// The universe of elements already sorted without duplicates (others are dropped).
    pub fn from_sorted(mut elements: Vec<T>) -> Universe<T> {
        elements.dedup();
        if !elements.is_sorted() {
            elements.sort();
            elements.dedup();
        }
        Universe { elements }
    }

    pub fn len(&self) -> usize {
        self.elements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    pub fn index_of(&self, element: &T) -> Option<usize> {
        self.elements.binary_search(element).ok()
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

    /// Sparse and dense sets over large domains behave like sets of indices, whatever mix of
    /// forms an operation sees.
    #[test]
    fn sparse_and_dense_forms_agree() {
        use std::collections::BTreeSet;
        let n = 5000;
        let mut seed = 7u64;
        let mut next = move |below: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % below
        };
        let mut sets: Vec<(BitSet, BTreeSet<usize>)> = Vec::new();
        for size in [0, 3, 40, 200, 2000] {
            let members: BTreeSet<usize> = (0..size).map(|_| next(n)).collect();
            let sparse = BitSet::from_indices(n, members.iter().copied());
            let mut dense = BitSet::new_filled(n);
            dense.intersect(&BitSet::new_filled(n));
            dense.remove_range(0..n);
            for &i in &members {
                dense.insert(i);
            }
            assert_eq!(
                matches!(sparse.repr, Repr::Sparse(_)),
                members.len() <= sparse_limit(n)
            );
            assert!(matches!(dense.repr, Repr::Dense(_)));
            assert_eq!(sparse, dense);
            assert_eq!(sparse.cmp(&dense), Ordering::Equal);
            sets.push((sparse, members.clone()));
            sets.push((dense, members));
        }
        let elems = |s: &BitSet| s.iter().collect::<BTreeSet<_>>();
        for (a, ma) in &sets {
            assert_eq!(&elems(a), ma);
            assert_eq!(a.count(), ma.len());
            for (b, mb) in &sets {
                assert_eq!(a == b, ma == mb);
                assert_eq!(a.is_subset(b), ma.is_subset(mb));
                let words = |s: &BitSet| s.words().collect::<Vec<u64>>();
                assert_eq!(a.cmp(b), words(a).cmp(&words(b)));
                let mut u = a.clone();
                assert_eq!(u.union(b), !mb.is_subset(ma));
                assert_eq!(elems(&u), ma | mb);
                let mut i = a.clone();
                assert_eq!(i.intersect(b), !ma.is_subset(mb));
                assert_eq!(elems(&i), ma & mb);
                let mut d = a.clone();
                assert_eq!(d.subtract(b), !ma.is_disjoint(mb));
                assert_eq!(elems(&d), ma - mb);
            }
            let mut r = a.clone();
            let range = 1000..3100;
            assert_eq!(
                r.remove_range(range.clone()),
                ma.range(range.clone()).next().is_some()
            );
            assert!(r.iter().all(|i| !range.contains(&i)));
            assert_eq!(r.count(), ma.len() - ma.range(range).count());
        }
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
