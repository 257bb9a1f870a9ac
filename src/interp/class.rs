//! User classes and their instances: the class object (namespace, bases, C3 MRO), instance
//! attributes, bound methods, descriptors (`staticmethod`, `classmethod`, `property`) and
//! `super()` objects. The behaviour (attribute lookup, calls, dunder dispatch) is in
//! `instance.rs` and `dunder.rs`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::exc::{R, type_error};
use super::value::Value;

/// What a class is beyond a plain class: the standard-library flavours built on classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    Plain,
    /// `enum.Enum` itself or a subclass: its non-dunder, non-function attributes are members.
    Enum,
    /// `enum.IntEnum` or a subclass: an enum whose members are ints (its methods unwrap
    /// members to their values).
    IntEnum,
    /// `enum.Flag` or a subclass: members are bit flags combined by `|`, `&`, `^`, `~`
    /// (see `flag_enum.rs`).
    Flag,
    /// `enum.IntFlag` or a subclass: flags that are also ints.
    IntFlag,
    /// `enum.StrEnum` or a subclass: an enum whose members are strs.
    StrEnum,
    /// `typing.NamedTuple` or `collections.namedtuple` classes: instances are tuples of
    /// their fields.
    NamedTuple,
}

/// A class defined by a `class` statement (or one of the library classes built like one).
pub(crate) struct Class {
    pub name: Rc<str>,
    pub qualname: Rc<str>,
    /// `__module__`: `__main__` for cells.
    pub module: Rc<str>,
    pub bases: Vec<Rc<Class>>,
    /// The method resolution order after the class itself (C3), `object` left out.
    pub mro: Vec<Rc<Class>>,
    /// The namespace, in definition order.
    pub attrs: RefCell<Vec<(Rc<str>, Value)>>,
    pub flavor: Flavor,
    /// Set by `@dataclass(frozen=True)`: assigning attributes raises `FrozenInstanceError`.
    pub frozen: Cell<bool>,
    /// Enum members in definition order (for flags, the canonical single-bit ones).
    pub members: RefCell<Vec<Value>>,
    /// Flag members by value: the named ones and the pseudo-members made for combinations.
    pub flag_values: RefCell<Vec<(i64, Value)>>,
    /// Annotated names of the body in order (dataclass and named-tuple fields).
    pub fields: RefCell<Vec<Rc<str>>>,
    /// The evaluated annotations of [`Class::fields`] (`dataclasses.Field.type`): the value,
    /// or the annotation's text where the interpreter does not evaluate it faithfully.
    pub field_types: RefCell<Vec<(Rc<str>, Result<Value, Rc<str>>)>>,
    /// Whether the namespace holds a `property` (instance attributes are then looked up
    /// after the class's; otherwise first, the fast path).
    pub has_property: Cell<bool>,
    /// Lookups of fixed names (`__init__`, `__eq__`, ...) along the MRO, valid while no
    /// class namespace has changed since (see [`namespaces_changed`]).
    pub special: RefCell<SpecialCache>,
    /// The attribute names instances may have when every class of the MRO declares
    /// `__slots__` (none of them `__dict__`); `None` when instances have a `__dict__`.
    pub slots: Option<Rc<[Rc<str>]>>,
}

/// Memoized [`Class::lookup_special`] results, with the namespace epoch they were made in.
#[derive(Default)]
pub(crate) struct SpecialCache {
    epoch: u64,
    entries: Vec<(&'static str, Option<Value>)>,
}

thread_local! {
    /// Counts changes to any class namespace: a change can alter what a subclass finds.
    static EPOCH: Cell<u64> = const { Cell::new(1) };
}

/// Invalidates every class's memoized lookups.
fn namespaces_changed() {
    EPOCH.with(|e| e.set(e.get() + 1));
}

/// An instance of a user class.
pub(crate) struct Instance {
    pub class: Rc<Class>,
    /// Instance attributes (`vars(obj)`), in assignment order.
    pub attrs: RefCell<Vec<(Rc<str>, Value)>>,
}

/// A function bound to a receiver.
pub(crate) struct Bound {
    pub func: Value,
    pub receiver: Value,
}

/// `staticmethod(f)`, `classmethod(f)`, `property(fget, fset)`.
pub(crate) enum Descriptor {
    Static(Value),
    ClassMethod(Value),
    Property { fget: Value, fset: Option<Value> },
}

/// `super(cls, obj)`: looks attributes up in the MRO of `obj`'s class after `after`.
pub(crate) struct Super {
    pub after: SuperFrom,
    pub receiver: Value,
}

/// The class `super()` starts looking after: a user class, or an exception class.
pub(crate) enum SuperFrom {
    Class(Rc<Class>),
    Exception(super::exc::ExcClass),
}

impl SuperFrom {
    pub fn name(&self) -> &str {
        match self {
            SuperFrom::Class(c) => &c.name,
            SuperFrom::Exception(e) => e.name(),
        }
    }
}

impl Descriptor {
    pub fn type_name(&self) -> &'static str {
        match self {
            Descriptor::Static(_) => "staticmethod",
            Descriptor::ClassMethod(_) => "classmethod",
            Descriptor::Property { .. } => "property",
        }
    }
}

impl Class {
    /// A new class; fails with CPython's message when the bases have no consistent MRO.
    pub fn new(
        name: Rc<str>,
        qualname: Rc<str>,
        bases: Vec<Rc<Class>>,
        attrs: Vec<(Rc<str>, Value)>,
        flavor: Flavor,
    ) -> R<Class> {
        let mro = c3(&bases)?;
        let slots = slots_of(&attrs, &mro)?;
        Ok(Class {
            name,
            qualname,
            module: "__main__".into(),
            bases,
            mro,
            attrs: RefCell::new(attrs),
            flavor,
            frozen: Cell::new(false),
            members: RefCell::new(Vec::new()),
            flag_values: RefCell::new(Vec::new()),
            fields: RefCell::new(Vec::new()),
            field_types: RefCell::new(Vec::new()),
            has_property: Cell::new(false),
            special: RefCell::new(SpecialCache::default()),
            slots,
        })
        .map(|c| {
            let any = c.attrs.borrow().iter().any(|(_, v)| is_property(v));
            c.has_property.set(any);
            c
        })
    }

    /// The class's own attribute `name`.
    pub fn own(&self, name: &str) -> Option<Value> {
        let attrs = self.attrs.borrow();
        super::names::position(&attrs, name).map(|i| attrs[i].1.clone())
    }

    /// [`Class::lookup`] of a fixed name, memoized until a class namespace changes.
    pub fn lookup_special(&self, name: &'static str) -> Option<Value> {
        let epoch = EPOCH.with(Cell::get);
        let mut cache = self.special.borrow_mut();
        if cache.epoch != epoch {
            cache.epoch = epoch;
            cache.entries.clear();
        }
        let found = cache
            .entries
            .iter()
            .find(|(n, _)| std::ptr::eq(n.as_ptr(), name.as_ptr()) && n.len() == name.len());
        if let Some((_, v)) = found {
            return v.clone();
        }
        drop(cache);
        let v = self.lookup(name);
        // A lookup may not change a namespace, but stay safe if it ever does.
        let mut cache = self.special.borrow_mut();
        if cache.epoch == EPOCH.with(Cell::get) {
            cache.entries.push((name, v.clone()));
        }
        v
    }

    /// `name` looked up along the MRO (the class, then its ancestors).
    pub fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.own(name) {
            return Some(v);
        }
        self.mro.iter().find_map(|c| c.own(name))
    }

    /// Whether `self` is `other` or derives from it.
    pub fn is_subclass_of(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        Rc::ptr_eq(self, other) || self.mro.iter().any(|c| Rc::ptr_eq(c, other))
    }

    pub fn set(&self, name: &str, value: Value) {
        if is_property(&value) {
            self.has_property.set(true);
        }
        set_attr(&mut self.attrs.borrow_mut(), name, value);
        namespaces_changed();
    }

    /// Deletes the class attribute `name`; whether it was there.
    pub fn remove(&self, name: &str) -> bool {
        namespaces_changed();
        remove_attr(&mut self.attrs.borrow_mut(), name)
    }

    /// Whether the class or an ancestor defines a property.
    pub fn any_property(&self) -> bool {
        self.has_property.get() || self.mro.iter().any(|c| c.has_property.get())
    }

    /// Whether a user method `name` is defined along the MRO (not `object`'s default).
    pub fn defines(&self, name: &'static str) -> bool {
        self.lookup_special(name).is_some()
    }

    pub fn is_enum(&self) -> bool {
        matches!(
            self.flavor,
            Flavor::Enum | Flavor::IntEnum | Flavor::Flag | Flavor::IntFlag | Flavor::StrEnum
        )
    }

    /// Whether the class is `enum.Flag`, `enum.IntFlag` or a subclass.
    pub fn is_flag(&self) -> bool {
        matches!(self.flavor, Flavor::Flag | Flavor::IntFlag)
    }

    pub fn is_named_tuple(&self) -> bool {
        self.flavor == Flavor::NamedTuple
    }
}

impl Instance {
    pub fn new(class: Rc<Class>) -> Instance {
        Instance {
            class,
            attrs: RefCell::new(Vec::new()),
        }
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        let attrs = self.attrs.borrow();
        super::names::position(&attrs, name).map(|i| attrs[i].1.clone())
    }
}

/// A property or a user descriptor: reading and writing the attribute through an instance
/// must look at the class first.
fn is_property(v: &Value) -> bool {
    matches!(v, Value::Descriptor(d) if matches!(**d, Descriptor::Property { .. }))
        || super::descriptor::is_user_descriptor(v)
}

/// Sets `name` in an ordered namespace (replacing in place, or appending its interned name).
pub(crate) fn set_attr(attrs: &mut Vec<(Rc<str>, Value)>, name: &str, value: Value) {
    match super::names::position(attrs, name) {
        Some(i) => attrs[i].1 = value,
        None => attrs.push((super::names::intern(name), value)),
    }
}

/// Removes `name`; whether it was there.
pub(crate) fn remove_attr(attrs: &mut Vec<(Rc<str>, Value)>, name: &str) -> bool {
    match super::names::position(attrs, name) {
        Some(i) => {
            attrs.remove(i);
            true
        }
        None => false,
    }
}

/// [`Class::slots`] of a new class with namespace `attrs` and ancestors `mro`; CPython's
/// errors for a malformed `__slots__` or one naming a class variable.
fn slots_of(attrs: &[(Rc<str>, Value)], mro: &[Rc<Class>]) -> R<Option<Rc<[Rc<str>]>>> {
    let Some((_, own)) = attrs.iter().find(|(n, _)| &**n == "__slots__") else {
        return Ok(None);
    };
    let items = match own {
        Value::Str(_) => vec![own.clone()],
        Value::Tuple(t) => t.to_vec(),
        Value::List(l) => l.borrow().clone(),
        other => {
            return type_error(format!("'{}' object is not iterable", other.type_name()));
        }
    };
    let mut names: Vec<Rc<str>> = Vec::new();
    for item in items {
        let Value::Str(s) = &item else {
            return type_error(format!(
                "__slots__ items must be strings, not '{}'",
                item.type_name()
            ));
        };
        let name: Rc<str> = s.as_str().into();
        if attrs.iter().any(|(n, _)| *n == name) {
            return Err(super::exc::Unwind::new(
                super::exc::ExcKind::ValueError,
                format!("'{name}' in __slots__ conflicts with class variable"),
            ));
        }
        names.push(name);
    }
    if names.iter().any(|n| &**n == "__dict__") {
        return Ok(None);
    }
    for c in mro {
        if c.module.as_ref() != "__main__" {
            continue;
        }
        match &c.slots {
            Some(inherited) => names.extend(inherited.iter().cloned()),
            None => return Ok(None),
        }
    }
    Ok(Some(names.into()))
}

/// The C3 linearization of the bases (the class itself excluded).
fn c3(bases: &[Rc<Class>]) -> R<Vec<Rc<Class>>> {
    let full = |c: &Rc<Class>| -> Vec<Rc<Class>> {
        let mut v = vec![c.clone()];
        v.extend(c.mro.iter().cloned());
        v
    };
    let mut seqs: Vec<Vec<Rc<Class>>> = bases.iter().map(full).collect();
    seqs.push(bases.to_vec());
    let mut out: Vec<Rc<Class>> = Vec::new();
    loop {
        seqs.retain(|s| !s.is_empty());
        if seqs.is_empty() {
            return Ok(out);
        }
        let candidate = seqs
            .iter()
            .map(|s| s[0].clone())
            .find(|c| !seqs.iter().any(|s| s[1..].iter().any(|x| Rc::ptr_eq(x, c))));
        let Some(c) = candidate else {
            let names: Vec<&str> = bases.iter().map(|b| &*b.name).collect();
            return type_error(format!(
                "Cannot create a consistent method resolution\norder (MRO) for bases {}",
                names.join(", ")
            ));
        };
        for s in seqs.iter_mut() {
            if Rc::ptr_eq(&s[0], &c) {
                s.remove(0);
            }
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, bases: Vec<Rc<Class>>) -> Rc<Class> {
        Rc::new(Class::new(name.into(), name.into(), bases, Vec::new(), Flavor::Plain).unwrap())
    }

    #[test]
    fn c3_orders_a_diamond_like_python() {
        let a = class("A", vec![]);
        let b = class("B", vec![a.clone()]);
        let c = class("C", vec![a.clone()]);
        let d = class("D", vec![b.clone(), c.clone()]);
        let names: Vec<&str> = d.mro.iter().map(|c| &*c.name).collect();
        assert_eq!(names, ["B", "C", "A"]);
        assert!(d.is_subclass_of(&a));
        assert!(!a.is_subclass_of(&d));
        let bad = Class::new(
            "X".into(),
            "X".into(),
            vec![a, b],
            Vec::new(),
            Flavor::Plain,
        );
        assert!(bad.is_err());
    }
}
