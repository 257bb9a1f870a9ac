//! The multiply-rotate hash of rustc (FxHash), for maps and sets keyed by short names and
//! values: a few cycles per key where the default SipHash, built against hash flooding,
//! costs more than the rest of a lookup. Keys come from the program being analysed or run,
//! not an adversary. Shared by the dataflow analyses and the interpreter's dicts.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with [`FxHasher`].
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` hashed with [`FxHasher`].
pub type FxHashSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

/// One word of state, mixed with each word written.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_by_name() {
        let mut m: FxHashMap<String, usize> = FxHashMap::default();
        for (i, name) in ["x", "y", "a_longer_name_than_eight", "x"]
            .iter()
            .enumerate()
        {
            m.insert(name.to_string(), i);
        }
        assert_eq!(m.len(), 3);
        assert_eq!(m.get("x"), Some(&3));
        assert_eq!(m.get("a_longer_name_than_eight"), Some(&2));
        let s: FxHashSet<&str> = ["p", "q", "p"].into_iter().collect();
        assert_eq!(s.len(), 2);
    }
}
