//! Sets as sorted vectors of distinct indices: the sparse form of a `BitSet`.

use std::cmp::Ordering;
use std::ops::Range;

/// Adds `i`; returns whether it was absent.
pub fn insert(set: &mut Vec<u32>, i: u32) -> bool {
    match set.binary_search(&i) {
        Ok(_) => false,
        Err(at) => {
            set.insert(at, i);
            true
        }
    }
}

/// Removes `i`; returns whether it was present.
pub fn remove(set: &mut Vec<u32>, i: u32) -> bool {
    match set.binary_search(&i) {
        Ok(at) => {
            set.remove(at);
            true
        }
        Err(_) => false,
    }
}

/// Removes every member in `range`; returns whether any was present.
pub fn remove_range(set: &mut Vec<u32>, range: Range<u32>) -> bool {
    let start = set.partition_point(|&x| x < range.start);
    let end = set.partition_point(|&x| x < range.end);
    set.drain(start..end.max(start));
    end > start
}

/// `a ⊆ b`.
pub fn is_subset(a: &[u32], b: &[u32]) -> bool {
    let mut rest = b;
    for &x in a {
        match rest.binary_search(&x) {
            Ok(at) => rest = &rest[at + 1..],
            Err(_) => return false,
        }
    }
    true
}

/// `a ∪ b`, in order.
pub fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The 64-bit words of the set over `words` words, lowest first.
pub fn words(set: &[u32], words: usize) -> impl Iterator<Item = u64> + '_ {
    let mut rest = set;
    (0..words).map(move |w| {
        let end = rest.partition_point(|&x| (x as usize) / 64 <= w);
        let word = rest[..end].iter().fold(0u64, |acc, &x| acc | 1 << (x % 64));
        rest = &rest[end..];
        word
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations() {
        let mut s = vec![2, 5, 9];
        assert!(insert(&mut s, 7) && !insert(&mut s, 7));
        assert!(remove(&mut s, 2) && !remove(&mut s, 2));
        assert_eq!(s, [5, 7, 9]);
        assert!(remove_range(&mut s, 6..9) && !remove_range(&mut s, 6..9));
        assert!(!remove_range(&mut s, 9..3));
        assert_eq!(s, [5, 9]);
        assert!(is_subset(&[5], &s) && !is_subset(&[5, 6], &s) && is_subset(&[], &s));
        assert_eq!(union(&[1, 5, 70], &[0, 5, 9]), [0, 1, 5, 9, 70]);
        let w: Vec<u64> = words(&[0, 3, 64, 130], 3).collect();
        assert_eq!(w, [0b1001, 1, 1 << 2]);
    }
}
