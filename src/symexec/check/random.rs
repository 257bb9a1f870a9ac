//! Deterministic random inputs (SplitMix64 with a fixed seed): ints mostly small or in
//! [-100, 100] with the edge values, floats in quarters, strings over `abc`, sequences of
//! length 0 to 6.

use num_bigint::BigInt;

use crate::python::PyValue;
use crate::splitmix::SplitMix64;
use crate::symbolic::{SeqKind, Sort};

/// The default seed: the same runs every time.
pub const SEED: u64 = 0x5EED_5E7;

const EDGES: [i64; 7] = [0, 1, -1, 2, -2, 100, -100];

/// Random inputs from the crate's [`SplitMix64`].
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// 64 random bits (for the cell fuzzer, `crate::fuzz`).
    pub fn bits(&mut self) -> u64 {
        self.next()
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next() % span) as i64
    }

    fn int(&mut self) -> i64 {
        match self.next() % 4 {
            0 => EDGES[(self.next() % EDGES.len() as u64) as usize],
            1 => self.range(-5, 5),
            _ => self.range(-100, 100),
        }
    }

    /// A random value of `sort`.
    pub fn value(&mut self, sort: &Sort) -> PyValue {
        match sort {
            Sort::Bool => PyValue::Bool(self.next() % 2 == 0),
            Sort::Int => PyValue::Int(BigInt::from(self.int())),
            Sort::Real => PyValue::Float(self.int() as f64 / 4.0),
            Sort::Str => {
                let n = self.range(0, 3) as usize;
                PyValue::Str(
                    (0..n)
                        .map(|_| ['a', 'b', 'c'][self.range(0, 2) as usize])
                        .collect(),
                )
            }
            Sort::Seq(kind, item) => {
                let n = self.range(0, 6) as usize;
                let items = (0..n).map(|_| self.value(item)).collect();
                sequence(*kind, items)
            }
            Sort::Fixed(kind, items) => {
                let items = items.iter().map(|s| self.value(s)).collect();
                sequence(*kind, items)
            }
        }
    }
}

fn sequence(kind: SeqKind, items: Vec<PyValue>) -> PyValue {
    match kind {
        SeqKind::List => PyValue::List(items),
        SeqKind::Tuple => PyValue::Tuple(items),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_deterministic_and_in_range() {
        let sort = Sort::tuple(Sort::Int);
        let a: Vec<PyValue> = {
            let mut r = Rng::new(SEED);
            (0..50).map(|_| r.value(&sort)).collect()
        };
        let mut r = Rng::new(SEED);
        let b: Vec<PyValue> = (0..50).map(|_| r.value(&sort)).collect();
        assert_eq!(a, b);
        let lengths: Vec<usize> = a
            .iter()
            .map(|v| match v {
                PyValue::Tuple(x) => x.len(),
                _ => 99,
            })
            .collect();
        assert!(lengths.iter().all(|n| *n <= 6));
        assert!(lengths.contains(&0) && lengths.contains(&6), "{lengths:?}");
        let mut r = Rng::new(SEED);
        let ints: Vec<PyValue> = (0..200).map(|_| r.value(&Sort::Int)).collect();
        assert!(
            ints.contains(&PyValue::Int(BigInt::from(-100)))
                && ints.contains(&PyValue::Int(BigInt::from(0)))
        );
        assert!(ints.iter().all(
            |v| matches!(v, PyValue::Int(i) if *i >= BigInt::from(-100) && *i <= BigInt::from(100))
        ));
    }
}
