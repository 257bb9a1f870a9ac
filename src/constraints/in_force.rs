//! The constraints in force on each edge of a listed path, as index lists into the path's
//! constraints, stored once: in precise mode every edge's list is a prefix of the path's
//! constraints, so a path of n edges needs n ends rather than n lists of up to n indices.

use std::ops::{Index, Range};

/// One index list per edge of a path, each a slice of one shared vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InForce {
    indices: Vec<usize>,
    spans: Vec<Range<usize>>,
}

impl InForce {
    /// Edge `i` has constraints `0..ends[i]` (`total` at least every end).
    pub fn prefixes(total: usize, ends: Vec<usize>) -> InForce {
        InForce {
            indices: (0..total).collect(),
            spans: ends.into_iter().map(|end| 0..end.min(total)).collect(),
        }
    }

    /// Edge `i` has the constraints of `lists[i]`.
    pub fn lists(lists: Vec<Vec<usize>>) -> InForce {
        let mut out = InForce::default();
        for list in lists {
            let start = out.indices.len();
            out.indices.extend(list);
            out.spans.push(start..out.indices.len());
        }
        out
    }

    /// How many edges.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&[usize]> {
        self.spans.get(i).map(|s| &self.indices[s.clone()])
    }

    pub fn last(&self) -> Option<&[usize]> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Each edge's list, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[usize]> {
        self.spans.iter().map(|s| &self.indices[s.clone()])
    }
}

impl Index<usize> for InForce {
    type Output = [usize];

    fn index(&self, i: usize) -> &[usize] {
        &self.indices[self.spans[i].clone()]
    }
}

#[cfg(test)]
mod tests {
    use super::InForce;

    #[test]
    fn prefixes_and_lists_give_the_same_slices() {
        let a = InForce::prefixes(3, vec![1, 3, 3]);
        let b = InForce::lists(vec![vec![0], vec![0, 1, 2], vec![0, 1, 2]]);
        assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
        assert_eq!(&a[1], &[0, 1, 2]);
        assert_eq!(a.last(), Some(&[0, 1, 2][..]));
        assert_eq!(InForce::default().last(), None);
    }
}
