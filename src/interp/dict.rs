//! Dicts: insertion-ordered tables keyed by the hashable values of the subset, where keys
//! that compare equal in Python (`1`, `1.0`, `True`) are the same key.

use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{FromPrimitive, ToPrimitive};

use super::exc::{R, type_error};
use super::value::{Str, Value};
use crate::fxhash::FxHashMap;

/// The identity of a hashable value as a dict key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    None,
    Ellipsis,
    Int(i64),
    Big(BigInt),
    /// A float that is not integral (by its bits; integral floats are `Int`/`Big`).
    Float(u64),
    Str(Rc<Str>),
    Tuple(Vec<Key>),
    /// `range`s are equal when they have the same elements: (len, first, step).
    Range(i128, i128, i128),
    /// Objects hashed by identity (functions, exceptions, iterators).
    Id(usize),
    /// Builtin functions, types and modules, by kind and name.
    Static(u8, &'static str),
    /// An instance with `__hash__`: its hash and the number of its `__eq__` class among the
    /// instances met with that hash (see `Machine::hash_key`).
    Hashed(i64, u32),
    /// A frozenset, equal to another with the same elements.
    FrozenSet(Rc<super::set::FrozenKey>),
    Bytes(Rc<Vec<u8>>),
}

impl std::fmt::Debug for Str {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// The key of `v`, or `TypeError: unhashable type`.
pub(crate) fn key_of(v: &Value) -> R<Key> {
    Ok(match v {
        Value::None => Key::None,
        Value::Ellipsis => Key::Ellipsis,
        Value::Bool(b) => Key::Int(*b as i64),
        Value::Int(i) => Key::Int(*i),
        Value::Big(b) => Key::Big((**b).clone()),
        Value::Float(f) => float_key(*f),
        Value::Str(s) => Key::Str(s.clone()),
        Value::Bytes(b) => Key::Bytes(b.clone()),
        Value::Tuple(items) => Key::Tuple(items.iter().map(key_of).collect::<R<_>>()?),
        Value::Range(r) => {
            let len = r.len();
            match len {
                0 => Key::Range(0, 0, 0),
                1 => Key::Range(1, r.start as i128, 0),
                _ => Key::Range(len, r.start as i128, r.step as i128),
            }
        }
        Value::Function(f) => Key::Id(Rc::as_ptr(f) as *const () as usize),
        Value::Std(o) if matches!(**o, super::stdlib::StdObj::Slice(_)) => {
            return super::exc::type_error("unhashable type: 'slice'");
        }
        Value::Std(o) => Key::Id(Rc::as_ptr(o) as *const () as usize),
        Value::Exception(e) => Key::Id(Rc::as_ptr(e) as *const () as usize),
        Value::UserExcType(c) => Key::Id(Rc::as_ptr(c) as *const () as usize),
        Value::Iter(i) => Key::Id(Rc::as_ptr(i) as *const () as usize),
        Value::Method(m) => Key::Id(Rc::as_ptr(m) as *const () as usize),
        Value::Unavailable(u) => Key::Id(Rc::as_ptr(u) as *const () as usize),
        Value::Unbound(m) => Key::Id(Rc::as_ptr(m) as *const () as usize),
        Value::Builtin(b) => Key::Static(0, b.name()),
        Value::Type(t) => Key::Static(1, t.name()),
        Value::ExcType(k) => Key::Static(2, k.name()),
        Value::Native(n) => Key::Static(3, super::modules::native_name(*n)),
        Value::Set(s) if s.try_borrow().is_ok_and(|s| s.frozen) => {
            super::set::frozen_key(&s.borrow())
        }
        Value::Instance(i) => {
            if i.class.lookup("__hash__").is_some()
                || i.class.lookup("__eq__").is_some()
                || i.class.is_named_tuple()
            {
                return Err(super::dunder::needs_machine());
            }
            Key::Id(Rc::as_ptr(i) as *const () as usize)
        }
        Value::Class(c) => Key::Id(Rc::as_ptr(c) as *const () as usize),
        Value::Bound(b) => Key::Id(Rc::as_ptr(b) as *const () as usize),
        Value::Descriptor(d) => Key::Id(Rc::as_ptr(d) as *const () as usize),
        Value::Super(s) => Key::Id(Rc::as_ptr(s) as *const () as usize),
        Value::NotImplemented => Key::Static(4, "NotImplemented"),
        Value::Opaque(_) | Value::List(_) | Value::Dict(_) | Value::View(_) | Value::Set(_) => {
            return type_error(format!("unhashable type: '{}'", v.type_name()));
        }
    })
}

fn float_key(f: f64) -> Key {
    if f.is_finite() && f.fract() == 0.0 {
        if let Some(i) = f.to_i64().filter(|_| f.abs() < 9.2e18) {
            return Key::Int(i);
        }
        if let Some(b) = BigInt::from_f64(f) {
            return Key::Big(b);
        }
    }
    Key::Float(f.to_bits())
}

/// An insertion-ordered dict. Deleted entries leave holes until the table is compacted.
#[derive(Default)]
pub(crate) struct Dict {
    entries: Vec<Option<(Value, Value)>>,
    index: FxHashMap<Key, usize>,
    len: usize,
    /// Bumped whenever a key is added or removed (iterators check it).
    pub version: u64,
    /// `Counter`, `defaultdict`, `OrderedDict` (`None` for a plain dict).
    pub flavor: Option<Rc<super::stdlib::Flavor>>,
    /// Set on the copy an instance's `__dict__` or `vars(obj)` gives (the interpreter does
    /// not keep it live): changing it is refused, naming this, rather than lost.
    pub copy_of: Option<&'static str>,
}

impl Dict {
    /// Refuses a change to a dict that only copies a namespace (see `copy_of`).
    pub fn check_changeable(&self) -> Result<(), super::exc::Unwind> {
        match self.copy_of {
            Some(what) => Err(super::exc::Unwind::unsupported(format!(
                "changing {what} (a copy here, not the live namespace; use setattr)"
            ))),
            None => Ok(()),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, key: &Key) -> Option<&Value> {
        let i = *self.index.get(key)?;
        self.entries.get(i)?.as_ref().map(|(_, v)| v)
    }

    /// Sets `key` to `value`; an existing key keeps its original key object and position.
    pub fn insert(&mut self, key: Key, k: Value, value: Value) {
        if let Some(&i) = self.index.get(&key) {
            if let Some(Some(entry)) = self.entries.get_mut(i) {
                entry.1 = value;
                return;
            }
        }
        self.index.insert(key, self.entries.len());
        self.entries.push(Some((k, value)));
        self.len += 1;
        self.version += 1;
    }

    pub fn remove(&mut self, key: &Key) -> Option<(Value, Value)> {
        let i = self.index.remove(key)?;
        let entry = self.entries.get_mut(i)?.take();
        self.len -= 1;
        self.version += 1;
        if self.entries.len() > 16 && self.len * 2 < self.entries.len() {
            self.compact();
        }
        entry
    }

    /// Removes and returns the last entry.
    pub fn pop_last(&mut self) -> Option<(Value, Value)> {
        let i = self.entries.iter().rposition(Option::is_some)?;
        let (k, _) = self.entries.get(i)?.as_ref()?;
        let key = key_of(k).ok()?;
        self.remove(&key)
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.index.clear();
        self.len = 0;
        self.version += 1;
    }

    fn compact(&mut self) {
        self.entries.retain(Option::is_some);
        self.index.clear();
        for (i, (k, _)) in self.entries.iter().flatten().enumerate() {
            if let Ok(key) = key_of(k) {
                self.index.insert(key, i);
            }
        }
    }

    /// The live entries in order.
    pub fn iter(&self) -> impl Iterator<Item = &(Value, Value)> {
        self.entries.iter().flatten()
    }

    /// The first live entry at position `pos` or later, with its position.
    pub fn entry_from(&self, pos: usize) -> Option<(usize, &(Value, Value))> {
        self.entries
            .iter()
            .enumerate()
            .skip(pos)
            .find_map(|(i, e)| e.as_ref().map(|e| (i, e)))
    }

    pub fn keys(&self) -> Vec<Value> {
        self.iter().map(|(k, _)| k.clone()).collect()
    }

    pub fn copy(&self) -> Dict {
        let mut d = Dict::default();
        for (k, v) in self.iter() {
            if let Ok(key) = key_of(k) {
                d.insert(key, k.clone(), v.clone());
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_numbers_are_one_key() {
        let mut d = Dict::default();
        d.insert(
            key_of(&Value::Int(1)).unwrap(),
            Value::Int(1),
            Value::str("a"),
        );
        d.insert(
            key_of(&Value::Float(1.0)).unwrap(),
            Value::Float(1.0),
            Value::str("b"),
        );
        d.insert(
            key_of(&Value::Bool(true)).unwrap(),
            Value::Bool(true),
            Value::str("c"),
        );
        assert_eq!(d.len(), 1);
        let (k, v) = d.iter().next().unwrap();
        assert!(matches!(k, Value::Int(1)));
        assert!(matches!(v, Value::Str(s) if s.as_str() == "c"));
        assert_eq!(
            key_of(&Value::Float(0.5)).unwrap(),
            Key::Float(0.5f64.to_bits())
        );
        assert_eq!(key_of(&Value::Float(-0.0)).unwrap(), Key::Int(0));
    }

    #[test]
    fn lists_are_unhashable_and_order_survives_removal() {
        assert!(key_of(&Value::list(vec![])).is_err());
        let mut d = Dict::default();
        for i in 0..40 {
            d.insert(Key::Int(i), Value::Int(i), Value::None);
        }
        for i in 0..30 {
            d.remove(&Key::Int(i));
        }
        d.insert(Key::Int(5), Value::Int(5), Value::None);
        let keys: Vec<String> = d.keys().iter().map(|k| format!("{k:?}")).collect();
        assert_eq!(keys.join(","), "30,31,32,33,34,35,36,37,38,39,5");
        assert!(d.get(&Key::Int(35)).is_some());
        assert_eq!(
            d.pop_last().map(|(k, _)| format!("{k:?}")),
            Some("5".into())
        );
    }
}
