//! `set` and `frozenset`: an open-addressing table that follows CPython's
//! `Objects/setobject.c` (table sizes, linear probes then perturbation, dummies, the resize
//! rules, and the algorithms of each operation), so that sets of ints, floats, bools and
//! tuples of them iterate in CPython's order. Elements are compared by their dict [`Key`];
//! hashes are CPython's ([`py_hash`]) except for `str` (CPython randomizes them per process).

use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};

use super::dict::{Key, key_of};
use super::exc::{ExcKind, R, Unwind, type_error};
use super::value::Value;
use crate::fxhash::FxHasher;

/// CPython's `PySet_MINSIZE`.
const MIN_SIZE: usize = 8;
const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;

/// The slot CPython probes after `i` (`i * 5 + 1 + perturb`, with `perturb` shifted first).
fn next_probe(i: usize, perturb: &mut u64, mask: usize) -> usize {
    *perturb >>= PERTURB_SHIFT;
    ((i as u64)
        .wrapping_mul(5)
        .wrapping_add(1)
        .wrapping_add(*perturb) as usize)
        & mask
}

/// `sys.hash_info.modulus`: 2**61 - 1.
const MODULUS: u64 = (1 << 61) - 1;
const HASH_BITS: u32 = 61;
const HASH_INF: i64 = 314159;

/// An element with its key, shared between the sets holding it: copying a set, or taking
/// elements of one into another (`|`, `&`, `-`, `^`), allocates nothing per element.
pub(crate) type Elem = Rc<(Key, Value)>;

/// A table slot. The key and element live behind a pointer so that a slot is 16 bytes:
/// large tables are then cheap to allocate and resize (the pages are what costs, not the
/// moves).
#[derive(Clone)]
enum Slot {
    Empty,
    Dummy,
    Full { hash: i64, kv: Elem },
}

/// The table of a set or frozenset.
#[derive(Clone)]
pub(crate) struct SetObj {
    table: Vec<Slot>,
    mask: usize,
    /// Active plus dummy slots.
    fill: usize,
    /// Active slots.
    used: usize,
    /// Where `pop` looks next.
    finger: usize,
    pub frozen: bool,
    /// Bumped when an element is added or removed (iterators check the size like CPython).
    pub version: u64,
}

impl SetObj {
    pub fn new(frozen: bool) -> SetObj {
        SetObj {
            table: vec![Slot::Empty; MIN_SIZE],
            mask: MIN_SIZE - 1,
            fill: 0,
            used: 0,
            finger: 0,
            frozen,
            version: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.used
    }

    /// The elements in table order, with their hashes and keys.
    pub fn entries(&self) -> impl Iterator<Item = (i64, &Key, &Value)> {
        self.elems().map(|(hash, kv)| (hash, &kv.0, &kv.1))
    }

    /// The elements in table order, with their hashes, shareable with other sets.
    pub fn elems(&self) -> impl Iterator<Item = (i64, &Elem)> {
        self.table.iter().filter_map(|s| match s {
            Slot::Full { hash, kv } => Some((*hash, kv)),
            _ => None,
        })
    }

    pub fn values(&self) -> Vec<Value> {
        self.entries().map(|(_, _, v)| v.clone()).collect()
    }

    /// The first element at table position `pos` or later, and the position after it.
    pub fn entry_from(&self, pos: usize) -> Option<(usize, Value)> {
        self.table
            .iter()
            .enumerate()
            .skip(pos)
            .find_map(|(i, s)| match s {
                Slot::Full { kv, .. } => Some((i + 1, kv.1.clone())),
                _ => None,
            })
    }

    /// CPython's `set_lookkey`: the slot holding `key`.
    fn find(&self, hash: i64, key: &Key) -> Option<usize> {
        let mask = self.mask;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in i..=i + probes {
                match &self.table[j] {
                    Slot::Empty => return None,
                    Slot::Full { hash: h, kv } if *h == hash && kv.0 == *key => {
                        return Some(j);
                    }
                    _ => {}
                }
            }
            i = next_probe(i, &mut perturb, mask);
        }
    }

    pub fn contains_key(&self, hash: i64, key: &Key) -> bool {
        self.find(hash, key).is_some()
    }

    /// CPython's `set_add_entry`.
    pub fn add_entry(&mut self, hash: i64, key: Key, value: Value) {
        if let Some(at) = self.insert_at(hash, &key) {
            self.put(at, hash, Rc::new((key, value)));
        }
    }

    /// `add_entry` of an element another set holds.
    pub fn add_elem(&mut self, hash: i64, kv: &Elem) {
        if let Some(at) = self.insert_at(hash, &kv.0) {
            self.put(at, hash, kv.clone());
        }
    }

    /// Where `set_add_entry` puts a new key: `None` when it is there already, else the
    /// slot and whether it is a dummy (reused) rather than an empty one.
    fn insert_at(&self, hash: i64, key: &Key) -> Option<(usize, bool)> {
        let mask = self.mask;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut freeslot = None;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in i..=i + probes {
                match &self.table[j] {
                    Slot::Empty => return Some(freeslot.map_or((j, false), |f| (f, true))),
                    Slot::Full { hash: h, kv } => {
                        if *h == hash && kv.0 == *key {
                            return None;
                        }
                    }
                    Slot::Dummy => {
                        if freeslot.is_none() {
                            freeslot = Some(j);
                        }
                    }
                }
            }
            i = next_probe(i, &mut perturb, mask);
        }
    }

    /// Fills the slot [`SetObj::insert_at`] chose, resizing as `set_add_entry` does.
    fn put(&mut self, (at, dummy): (usize, bool), hash: i64, kv: Elem) {
        self.version += 1;
        self.used += 1;
        self.table[at] = Slot::Full { hash, kv };
        if dummy {
            return;
        }
        self.fill += 1;
        if self.fill * 5 < self.mask * 3 {
            return;
        }
        let used = self.used;
        self.resize(if used > 50000 { used * 2 } else { used * 4 });
    }

    /// Adds a value (`TypeError` if it is unhashable).
    pub fn add(&mut self, v: Value) -> R<()> {
        let key = key_of(&v)?;
        let hash = py_hash(&key);
        self.add_entry(hash, key, v);
        Ok(())
    }

    /// CPython's `set_discard_entry`: whether it was there.
    pub fn discard_entry(&mut self, hash: i64, key: &Key) -> bool {
        match self.find(hash, key) {
            Some(j) => {
                self.table[j] = Slot::Dummy;
                self.used -= 1;
                self.version += 1;
                true
            }
            None => false,
        }
    }

    /// CPython's `set_table_resize`.
    fn resize(&mut self, minused: usize) {
        let mut size = MIN_SIZE;
        while size <= minused {
            size <<= 1;
        }
        let old = std::mem::replace(&mut self.table, vec![Slot::Empty; size]);
        self.mask = size - 1;
        self.fill = self.used;
        for slot in old {
            if let Slot::Full { hash, kv } = slot {
                self.insert_clean(hash, kv);
            }
        }
    }

    /// CPython's `set_insert_clean`: into a table without dummies or this key.
    fn insert_clean(&mut self, hash: i64, kv: Elem) {
        let mask = self.mask;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            if matches!(self.table[i], Slot::Empty) {
                self.table[i] = Slot::Full { hash, kv };
                return;
            }
            if i + LINEAR_PROBES <= mask {
                for j in i + 1..=i + LINEAR_PROBES {
                    if matches!(self.table[j], Slot::Empty) {
                        self.table[j] = Slot::Full { hash, kv };
                        return;
                    }
                }
            }
            i = next_probe(i, &mut perturb, mask);
        }
    }

    /// CPython's `set_merge`: adds every element of `other`.
    pub fn merge(&mut self, other: &SetObj) {
        if other.used == 0 {
            return;
        }
        if (self.fill + other.used) * 5 >= self.mask * 3 {
            self.resize((self.used + other.used) * 2);
        }
        self.version += 1;
        if self.fill == 0 && self.mask == other.mask && other.fill == other.used {
            self.table = other.table.clone();
            self.fill = other.fill;
            self.used = other.used;
            return;
        }
        if self.fill == 0 {
            self.fill = other.used;
            self.used = other.used;
            for slot in &other.table {
                if let Slot::Full { hash, kv } = slot {
                    self.insert_clean(*hash, kv.clone());
                }
            }
            return;
        }
        for (hash, kv) in other.elems() {
            self.add_elem(hash, kv);
        }
    }

    /// A new set of the given kind with the elements of `self` (CPython's `set_copy`).
    pub fn copy_as(&self, frozen: bool) -> SetObj {
        let mut s = SetObj::new(frozen);
        s.merge(self);
        s
    }

    pub fn clear(&mut self) {
        let frozen = self.frozen;
        let version = self.version + 1;
        *self = SetObj::new(frozen);
        self.version = version;
    }

    /// CPython's `set_pop`.
    pub fn pop(&mut self) -> R<Value> {
        if self.used == 0 {
            return Err(Unwind::new(
                ExcKind::KeyError,
                "pop from an empty set".to_string(),
            ));
        }
        let mut j = self.finger & self.mask;
        while !matches!(self.table[j], Slot::Full { .. }) {
            j += 1;
            if j > self.mask {
                j = 0;
            }
        }
        let slot = std::mem::replace(&mut self.table[j], Slot::Dummy);
        self.used -= 1;
        self.finger = j + 1;
        self.version += 1;
        match slot {
            Slot::Full { kv, .. } => {
                Ok(Rc::try_unwrap(kv).map_or_else(|kv| kv.1.clone(), |kv| kv.1))
            }
            _ => Ok(Value::None),
        }
    }

    /// Removes dummies when more than a quarter of the table is dummies (after
    /// `difference_update`).
    pub fn compact_after_removals(&mut self) {
        if self.fill - self.used <= self.mask / 4 {
            return;
        }
        let used = self.used;
        self.resize(if used > 50000 { used * 2 } else { used * 4 });
    }

    /// Whether every element of `self` is in `other`.
    pub fn is_subset(&self, other: &SetObj) -> bool {
        self.used <= other.used && self.entries().all(|(h, k, _)| other.contains_key(h, k))
    }

    /// The hash of a frozenset (CPython's `frozenset_hash`).
    pub fn frozen_hash(&self) -> i64 {
        fn shuffle(h: u64) -> u64 {
            ((h ^ 89869747) ^ (h << 16)).wrapping_mul(3644798167)
        }
        let mut hash: u64 = 0;
        for (h, _, _) in self.entries() {
            hash ^= shuffle(h as u64);
        }
        hash ^= (self.used as u64 + 1).wrapping_mul(1927868237);
        hash ^= (hash >> 11) ^ (hash >> 25);
        hash = hash.wrapping_mul(69069).wrapping_add(907133923);
        if hash == u64::MAX {
            hash = 590923713;
        }
        hash as i64
    }
}

/// The key of a set element: a set argument of `in`/`remove`/`discard` stands for the
/// frozenset of its elements, as in CPython.
pub(crate) fn element_key(v: &Value) -> R<Key> {
    match v {
        Value::Set(s) => match s.try_borrow() {
            Ok(s) => Ok(frozen_key(&s)),
            Err(_) => type_error("unhashable type: 'set'"),
        },
        _ => key_of(v),
    }
}

/// The dict/set key of a frozenset (or of a set used as a lookup key).
pub(crate) fn frozen_key(s: &SetObj) -> Key {
    let mut keys: Vec<(i64, Key)> = s.entries().map(|(h, k, _)| (h, k.clone())).collect();
    keys.sort_by_key(|(h, _)| *h);
    Key::FrozenSet(Rc::new(FrozenKey {
        hash: s.frozen_hash(),
        keys,
    }))
}

/// A frozenset as a key: equal when the element sets are equal.
#[derive(Debug)]
pub(crate) struct FrozenKey {
    hash: i64,
    /// Sorted by hash.
    keys: Vec<(i64, Key)>,
}

impl PartialEq for FrozenKey {
    fn eq(&self, other: &FrozenKey) -> bool {
        self.hash == other.hash
            && self.keys.len() == other.keys.len()
            && self.keys.iter().all(|(h, k)| {
                let start = other.keys.partition_point(|(g, _)| g < h);
                other.keys[start..]
                    .iter()
                    .take_while(|(g, _)| g == h)
                    .any(|(_, q)| q == k)
            })
    }
}
impl Eq for FrozenKey {}
impl std::hash::Hash for FrozenKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.hash.hash(state);
    }
}

/// Reduces an int modulo 2**61 - 1 with CPython's sign rule.
fn int_hash(i: i64) -> i64 {
    let m = MODULUS as i128;
    let r = (i as i128).abs() % m;
    let h = if i < 0 { -r } else { r } as i64;
    if h == -1 { -2 } else { h }
}

fn big_hash(b: &BigInt) -> i64 {
    let r = (b.abs() % BigInt::from(MODULUS)).to_i64().unwrap_or(0);
    let h = if b.is_negative() { -r } else { r };
    if h == -1 { -2 } else { h }
}

/// CPython's `_Py_HashDouble` for a finite or infinite float (NaN hashes by identity there;
/// here it is a fixed value).
fn float_hash(v: f64) -> i64 {
    if v.is_infinite() {
        return if v > 0.0 { HASH_INF } else { -HASH_INF };
    }
    if v.is_nan() {
        return 0;
    }
    let (mut m, mut e) = frexp(v);
    let mut sign: i64 = 1;
    if m < 0.0 {
        sign = -1;
        m = -m;
    }
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | x >> (HASH_BITS - 28);
        m *= 268435456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    let e = if e >= 0 {
        e % HASH_BITS as i32
    } else {
        HASH_BITS as i32 - 1 - ((-1 - e) % HASH_BITS as i32)
    } as u32;
    x = ((x << e) & MODULUS) | x >> (HASH_BITS - e);
    let h = (x as i64).wrapping_mul(sign);
    if h == -1 { -2 } else { h }
}

/// `frexp`: `v = m * 2**e` with `0.5 <= |m| < 1`.
fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (v, 0);
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(v * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

fn text_hash(text: &str) -> i64 {
    data_hash(text.as_bytes())
}

/// The hash of a str's UTF-8 or of bytes (equal for ASCII, as CPython's are).
fn data_hash(data: &[u8]) -> i64 {
    use std::hash::Hasher;
    let mut h = FxHasher::default();
    h.write(data);
    let v = h.finish() as i64;
    if v == -1 { -2 } else { v }
}

/// `hash(x)` for a key: CPython's value for numbers, tuples, frozensets; a fixed hash for
/// `str` (CPython's is randomized per process) and for objects hashed by identity.
pub(crate) fn py_hash(key: &Key) -> i64 {
    match key {
        Key::Int(i) => int_hash(*i),
        Key::Big(b) => big_hash(b),
        Key::Float(bits) => float_hash(f64::from_bits(*bits)),
        Key::Str(s) => text_hash(s.as_str()),
        Key::Bytes(b) => data_hash(b),
        Key::Tuple(items) => tuple_hash(items.iter().map(py_hash)),
        Key::None => 0x_fc_a8_6c_7e,
        Key::Ellipsis => 0x_fc_a8_6c_9e,
        Key::Range(len, start, step) => tuple_hash(
            [*len, *start, *step]
                .iter()
                .map(|i| big_hash(&BigInt::from(*i))),
        ),
        Key::Id(p) => (*p as u64).rotate_right(4) as i64,
        Key::Static(kind, name) => text_hash(name).wrapping_add(*kind as i64),
        Key::FrozenSet(f) => f.hash,
        // An instance's `__hash__` value, as CPython keeps it (-1 is reserved for errors).
        Key::Hashed(h, _) => {
            if *h == -1 {
                -2
            } else {
                *h
            }
        }
    }
}

/// CPython's xxHash-based `tuplehash`.
fn tuple_hash(lanes: impl ExactSizeIterator<Item = i64>) -> i64 {
    const P1: u64 = 11400714785074694791;
    const P2: u64 = 14029467366897019727;
    const P5: u64 = 2870177450012600261;
    let len = lanes.len() as u64;
    let mut acc = P5;
    for lane in lanes {
        acc = acc.wrapping_add((lane as u64).wrapping_mul(P2));
        acc = acc.rotate_left(31);
        acc = acc.wrapping_mul(P1);
    }
    acc = acc.wrapping_add(len ^ (P5 ^ 3527539));
    if acc == u64::MAX {
        return 1546275796;
    }
    acc as i64
}

/// `hash(v)` (`TypeError: unhashable type` for lists, dicts, sets).
pub(crate) fn hash_value(v: &Value) -> R<i64> {
    if let Value::Set(s) = v {
        let s = s.borrow();
        if !s.frozen {
            return type_error("unhashable type: 'set'");
        }
        return Ok(s.frozen_hash());
    }
    key_of(v).map(|k| py_hash(&k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_cpython() {
        assert_eq!(int_hash(-1), -2);
        assert_eq!(int_hash((1 << 61) - 1), 0);
        assert_eq!(float_hash(1.5), 1152921504606846977);
        assert_eq!(float_hash(-0.25), -576460752303423488);
        assert_eq!(float_hash(2.0), 2);
        // hash((1, 2)) in CPython 3.11
        assert_eq!(tuple_hash([1i64, 2].into_iter()), -3550055125485641917);
        let mut s = SetObj::new(true);
        assert_eq!(s.frozen_hash(), 133146708735736);
        for i in 1..=3 {
            s.add(Value::Int(i)).unwrap();
        }
        assert_eq!(s.frozen_hash(), -272375401224217160);
    }

    #[test]
    fn int_order_follows_the_table() {
        let mut s = SetObj::new(false);
        for i in [8i64, 0, 16, 1] {
            s.add(Value::Int(i)).unwrap();
        }
        let order: Vec<String> = s.values().iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(order.join(","), "8,0,16,1");
    }
}
