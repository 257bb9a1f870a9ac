//! The interpreter's global namespace: a slot per name seen by any compiled cell, falling
//! back to the builtin of that name.

use std::collections::HashMap;
use std::rc::Rc;

use super::builtins;
use super::value::Value;

/// Globals by slot; names are interned once and keep their slot across cells.
#[derive(Default)]
pub(crate) struct Globals {
    names: Vec<Rc<str>>,
    index: HashMap<Rc<str>, u32>,
    values: Vec<Option<Value>>,
    builtins: Vec<Option<Value>>,
}

impl Globals {
    /// The slot of `name`, created on first use.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&slot) = self.index.get(name) {
            return slot;
        }
        let slot = self.names.len() as u32;
        let name: Rc<str> = name.into();
        self.builtins.push(builtins::lookup(&name));
        self.values.push(None);
        self.index.insert(name.clone(), slot);
        self.names.push(name);
        slot
    }

    /// The global's value, or the builtin of that name.
    pub fn get(&self, slot: u32) -> Option<&Value> {
        let i = slot as usize;
        match self.values.get(i) {
            Some(Some(v)) => Some(v),
            _ => self.builtins.get(i).and_then(Option::as_ref),
        }
    }

    /// The global's own value (not a builtin), for updating in place.
    pub fn get_mut(&mut self, slot: u32) -> Option<&mut Value> {
        self.values.get_mut(slot as usize)?.as_mut()
    }

    /// Binds a global, returning the value it held.
    pub fn set(&mut self, slot: u32, value: Value) -> Option<Value> {
        self.values.get_mut(slot as usize)?.replace(value)
    }

    /// Removes a global, returning the value it held (`None` if it was not set).
    pub fn delete(&mut self, slot: u32) -> Option<Value> {
        self.values.get_mut(slot as usize).and_then(Option::take)
    }

    /// Every global the program has bound (not builtins), in the order names were first seen.
    pub fn bound(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.names
            .iter()
            .zip(&self.values)
            .filter_map(|(n, v)| v.as_ref().map(|v| (&**n, v)))
    }

    /// The user-defined global `name` (not builtins).
    pub fn lookup(&self, name: &str) -> Option<&Value> {
        let slot = *self.index.get(name)?;
        self.values.get(slot as usize)?.as_ref()
    }
}
