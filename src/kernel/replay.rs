//! Replay protection: the signatures of recently received messages, as jupyter_client's
//! `Session.digest_history` keeps them (2^16 of them, halved when full), so a captured signed
//! message sent again is refused.

use std::collections::HashSet;

use super::wire::Digest;

/// How many signatures jupyter_client remembers (`digest_history_size`).
pub const CAPACITY: usize = 1 << 16;

/// A bounded set of signatures in two generations: when the newer holds half the capacity it
/// becomes the older and the previous older one is forgotten, so between half and all of the
/// last `capacity` signatures are remembered, the most recent always.
#[derive(Debug)]
pub struct Digests {
    newer: HashSet<Digest>,
    older: HashSet<Digest>,
    half: usize,
}

impl Default for Digests {
    fn default() -> Self {
        Digests::new(CAPACITY)
    }
}

impl Digests {
    pub fn new(capacity: usize) -> Digests {
        Digests {
            newer: HashSet::new(),
            older: HashSet::new(),
            half: (capacity / 2).max(1),
        }
    }

    /// Records `digest`; false when it was already seen (a replay).
    pub fn insert(&mut self, digest: Digest) -> bool {
        if self.newer.contains(&digest) || self.older.contains(&digest) {
            return false;
        }
        if self.newer.len() >= self.half {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(digest)
    }

    pub fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(i: u32) -> Digest {
        let mut d = [0; 32];
        d[..4].copy_from_slice(&i.to_le_bytes());
        d
    }

    #[test]
    fn a_second_insert_is_a_replay() {
        let mut seen = Digests::default();
        assert!(seen.insert(digest(1)));
        assert!(!seen.insert(digest(1)));
        assert!(seen.insert(digest(2)));
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn bounded_and_remembers_the_most_recent() {
        let mut seen = Digests::new(8);
        for i in 0..100 {
            assert!(seen.insert(digest(i)));
            assert!(seen.len() <= 8);
        }
        // The last half of the capacity is always remembered; the oldest are forgotten.
        for i in 96..100 {
            assert!(!seen.insert(digest(i)), "{i} forgotten");
        }
        assert!(seen.insert(digest(0)));
    }
}
