//! The operators, methods and constructors of `set` and `frozenset`, following the
//! algorithms of CPython's `Objects/setobject.c` so results iterate in CPython's order.

use std::cell::RefCell;
use std::rc::Rc;

use super::budget;
use super::call::{Kwargs, arity, no_kwargs};
use super::exc::{ExcKind, R, Unwind, fail, type_error};
use super::machine::Machine;
use super::repr::repr;
use super::set::{SetObj, element_key, py_hash};
use super::value::{TypeKind, Value, ViewKind};
use crate::python::ir::{BinOp, CmpOp};

/// The methods of `set`; those of `frozenset` are the non-mutating ones.
pub(crate) const SET_METHODS: &[&str] = &[
    "add",
    "clear",
    "copy",
    "difference",
    "difference_update",
    "discard",
    "intersection",
    "intersection_update",
    "isdisjoint",
    "issubset",
    "issuperset",
    "pop",
    "remove",
    "symmetric_difference",
    "symmetric_difference_update",
    "union",
    "update",
];
const MUTATING: &[&str] = &[
    "add",
    "clear",
    "difference_update",
    "discard",
    "intersection_update",
    "pop",
    "remove",
    "symmetric_difference_update",
    "update",
];

pub(crate) fn type_has_method(t: TypeKind, name: &str) -> bool {
    match t {
        TypeKind::Set => SET_METHODS.contains(&name),
        TypeKind::FrozenSet => SET_METHODS.contains(&name) && !MUTATING.contains(&name),
        _ => false,
    }
}

pub(crate) fn new_set(s: SetObj) -> Value {
    Value::Set(Rc::new(RefCell::new(s)))
}

/// The repr: `{1, 2}`, `set()`, `frozenset({1})`, `frozenset()`.
pub(crate) fn set_repr(s: &SetObj) -> R<String> {
    let name = if s.frozen { "frozenset" } else { "set" };
    if s.len() == 0 {
        return Ok(format!("{name}()"));
    }
    budget::charge_items(s.len())?;
    let mut out = String::new();
    if s.frozen {
        out.push_str("frozenset(");
    }
    out.push('{');
    for (i, v) in s.values().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&repr(v)?);
    }
    out.push('}');
    if s.frozen {
        out.push(')');
    }
    Ok(out)
}

/// `a op b` when both are sets (`None` otherwise: the caller raises its usual error).
pub(crate) fn binary(op: BinOp, a: &Value, b: &Value) -> Option<R<Value>> {
    let (Value::Set(x), Value::Set(y)) = (a, b) else {
        return None;
    };
    let (x, y) = (x.borrow(), y.borrow());
    let frozen = x.frozen;
    if let Err(e) = budget::charge_items(x.len() + y.len()) {
        return Some(Err(e));
    }
    let out = match op {
        BinOp::BitOr => {
            let mut r = x.copy_as(frozen);
            r.merge(&y);
            r
        }
        BinOp::BitAnd => intersection(&x, &y, frozen),
        BinOp::Sub => difference(&x, &y, frozen),
        BinOp::BitXor => symmetric_difference(&x, &y, frozen),
        _ => return None,
    };
    Some(Ok(new_set(out)))
}

/// `|`, `&`, `-`, `^` with a dict's keys or items view on either side: both operands as
/// sets (the view's first), the result a set, as CPython's `dictviews_*` compute it.
pub(crate) fn view_binary(op: BinOp, a: &Value, b: &Value) -> Option<R<Value>> {
    let is_view = |v: &Value| matches!(v, Value::View(w) if w.kind != ViewKind::Values);
    let set_op = matches!(
        op,
        BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor
    );
    if !set_op || !(is_view(a) || is_view(b)) {
        return None;
    }
    let (Some(x), Some(y)) = (as_set(a), as_set(b)) else {
        return Some(Err(Unwind::unsupported(format!(
            "`{}` between '{}' and '{}' (a dict view and another iterable)",
            op.symbol(),
            a.type_name(),
            b.type_name()
        ))));
    };
    match (x, y) {
        (Ok(x), Ok(y)) => binary(op, &new_set(x), &new_set(y)),
        (Err(e), _) | (_, Err(e)) => Some(Err(e)),
    }
}

/// A set, or a dict's keys or items view, as a new set (`None` for other values).
fn as_set(v: &Value) -> Option<R<SetObj>> {
    match v {
        Value::View(w) if w.kind != ViewKind::Values => {
            let d = w.dict.borrow();
            let mut s = SetObj::new(false);
            if let Err(e) = budget::charge_items(d.len()) {
                return Some(Err(e));
            }
            for (k, val) in d.iter() {
                let item = match w.kind {
                    ViewKind::Keys => k.clone(),
                    _ => Value::tuple(vec![k.clone(), val.clone()]),
                };
                if let Err(e) = s.add(item) {
                    return Some(Err(e));
                }
            }
            Some(Ok(s))
        }
        Value::Set(s) => Some(Ok(s.borrow().copy_as(false))),
        _ => None,
    }
}

/// A comparison between a dict's keys or items view and a set or view, as sets.
pub(crate) fn view_compare(op: CmpOp, a: &Value, b: &Value) -> Option<R<bool>> {
    let is_view = |v: &Value| matches!(v, Value::View(w) if w.kind != ViewKind::Values);
    let order = matches!(
        op,
        CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE | CmpOp::Eq | CmpOp::NotEq
    );
    if !order || !(is_view(a) || is_view(b)) {
        return None;
    }
    match (as_set(a)?, as_set(b)?) {
        (Ok(x), Ok(y)) => compare(op, &new_set(x), &new_set(y)),
        (Err(e), _) | (_, Err(e)) => Some(Err(e)),
    }
}

/// CPython's `set_intersection` with a set: iterates the smaller one.
fn intersection(so: &SetObj, other: &SetObj, frozen: bool) -> SetObj {
    let (big, small) = if other.len() > so.len() {
        (other, so)
    } else {
        (so, other)
    };
    let mut r = SetObj::new(frozen);
    for (h, kv) in small.elems() {
        if big.contains_key(h, &kv.0) {
            r.add_elem(h, kv);
        }
    }
    r
}

/// CPython's `set_difference` with a set.
fn difference(so: &SetObj, other: &SetObj, frozen: bool) -> SetObj {
    if (so.len() >> 2) > other.len() {
        let mut r = so.copy_as(frozen);
        difference_update(&mut r, other);
        return r;
    }
    let mut r = SetObj::new(frozen);
    for (h, kv) in so.elems() {
        if !other.contains_key(h, &kv.0) {
            r.add_elem(h, kv);
        }
    }
    r
}

fn difference_update(so: &mut SetObj, other: &SetObj) {
    for (h, k, _) in other.entries() {
        so.discard_entry(h, k);
    }
    so.compact_after_removals();
}

/// CPython's `set_symmetric_difference`: a copy of `other` updated with `so`.
fn symmetric_difference(so: &SetObj, other: &SetObj, frozen: bool) -> SetObj {
    let mut r = other.copy_as(frozen);
    symmetric_difference_update(&mut r, so);
    r
}

fn symmetric_difference_update(so: &mut SetObj, other: &SetObj) {
    for (h, kv) in other.elems() {
        if !so.discard_entry(h, &kv.0) {
            so.add_elem(h, kv);
        }
    }
}

/// `a op b` for comparisons when `a` or `b` is a set (`None` otherwise).
pub(crate) fn compare(op: CmpOp, a: &Value, b: &Value) -> Option<R<bool>> {
    match (a, b) {
        (Value::Set(x), Value::Set(y)) => {
            if Rc::ptr_eq(x, y) {
                return Some(Ok(matches!(op, CmpOp::Eq | CmpOp::LtE | CmpOp::GtE)));
            }
            let (x, y) = (x.borrow(), y.borrow());
            if let Err(e) = budget::charge_items(x.len().min(y.len())) {
                return Some(Err(e));
            }
            Some(Ok(match op {
                CmpOp::Eq => x.len() == y.len() && x.is_subset(&y),
                CmpOp::NotEq => !(x.len() == y.len() && x.is_subset(&y)),
                CmpOp::LtE => x.is_subset(&y),
                CmpOp::Lt => x.len() < y.len() && x.is_subset(&y),
                CmpOp::GtE => y.is_subset(&x),
                CmpOp::Gt => y.len() < x.len() && y.is_subset(&x),
                _ => return None,
            }))
        }
        // An instance's reflected method decides (`rich_compare`).
        (Value::Set(_), Value::Instance(_)) | (Value::Instance(_), Value::Set(_)) => None,
        (Value::Set(_), _) | (_, Value::Set(_)) => match op {
            CmpOp::Eq => Some(Ok(false)),
            CmpOp::NotEq => Some(Ok(true)),
            CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE => Some(type_error(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            ))),
            _ => None,
        },
        _ => None,
    }
}

/// `item in s`.
pub(crate) fn contains(s: &SetObj, item: &Value) -> R<bool> {
    let key = element_key(item)?;
    Ok(s.contains_key(py_hash(&key), &key))
}

/// What an update or difference takes from its argument.
enum Items {
    Set(SetObj),
    Values(Vec<Value>),
}

impl Machine {
    /// The elements of an iterable as a new set (a set argument is merged, as CPython does).
    pub fn set_from(&mut self, v: Value, frozen: bool) -> R<SetObj> {
        let mut s = SetObj::new(frozen);
        self.set_update(&mut s, v)?;
        Ok(s)
    }

    /// CPython's `set_update_internal`.
    fn set_update(&mut self, s: &mut SetObj, v: Value) -> R<()> {
        match self.set_items(v)? {
            Items::Set(other) => s.merge(&other),
            Items::Values(vs) => {
                for x in vs {
                    self.set_add(s, x)?;
                }
            }
        }
        Ok(())
    }

    /// The elements an update adds: a set's table, or the items of another iterable.
    fn set_items(&mut self, v: Value) -> R<Items> {
        match &v {
            Value::Set(other) => {
                let other = other.borrow().clone();
                budget::charge_items(other.len())?;
                Ok(Items::Set(other))
            }
            Value::Dict(d) => {
                let keys = d.borrow().keys();
                budget::charge_items(keys.len())?;
                Ok(Items::Values(keys))
            }
            _ => self.collect(v).map(Items::Values),
        }
    }

    /// A set argument as a table (iterables are collected into a temporary set).
    fn set_arg(&mut self, v: Value) -> R<SetObj> {
        match &v {
            Value::Set(s) => Ok(s.borrow().clone()),
            _ => self.set_from(v, false),
        }
    }

    /// `set(...)` / `frozenset(...)`.
    pub fn construct_set(&mut self, t: TypeKind, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let frozen = t == TypeKind::FrozenSet;
        let name = t.name();
        if !kwargs.is_empty() {
            return type_error(format!("{name}() takes no keyword arguments"));
        }
        if args.len() > 1 {
            return type_error(format!(
                "{name} expected at most 1 argument, got {}",
                args.len()
            ));
        }
        match args.into_iter().next() {
            None => Ok(new_set(SetObj::new(frozen))),
            Some(Value::Set(s)) if frozen && s.borrow().frozen => Ok(Value::Set(s)),
            Some(v) => {
                if !self.is_iterable(&v) {
                    return type_error(format!("'{}' object is not iterable", v.type_name()));
                }
                let s = self.set_from(v, frozen)?;
                Ok(new_set(s))
            }
        }
    }

    /// `a op= b` for a set `a` (in place; `None` when `b` is not a set).
    pub fn set_inplace(&mut self, op: BinOp, a: &Value, b: &Value) -> Option<R<()>> {
        let (Value::Set(x), Value::Set(y)) = (a, b) else {
            return None;
        };
        if x.borrow().frozen
            || !matches!(
                op,
                BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor
            )
        {
            return None;
        }
        if Rc::ptr_eq(x, y) {
            match op {
                BinOp::Sub | BinOp::BitXor => x.borrow_mut().clear(),
                _ => {}
            }
            return Some(Ok(()));
        }
        let other = y.borrow().clone();
        if let Err(e) = budget::charge_items(x.borrow().len() + other.len()) {
            return Some(Err(e));
        }
        let mut s = x.borrow_mut();
        match op {
            BinOp::BitOr => s.merge(&other),
            BinOp::BitAnd => {
                let frozen = s.frozen;
                let r = intersection(&s, &other, frozen);
                *s = r;
            }
            BinOp::Sub => difference_update(&mut s, &other),
            _ => symmetric_difference_update(&mut s, &other),
        }
        Some(Ok(()))
    }

    /// Calls method `name` of a set or frozenset.
    pub fn set_method(
        &mut self,
        set: &Rc<RefCell<SetObj>>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        no_kwargs(name, &kwargs)?;
        let frozen = set.borrow().frozen;
        let tname = if frozen { "frozenset" } else { "set" };
        // The qualified name is only formatted for the error (this runs on every `s.add(x)`).
        let exactly = |args: &[Value], n: usize| match args.len() == n {
            true => Ok(()),
            false => arity(&format!("{tname}.{name}"), args, n, n),
        };
        let one = |args: &[Value]| exactly(args, 1);
        let none = |args: &[Value]| exactly(args, 0);
        match name {
            "add" => {
                one(&args)?;
                let v = args.into_iter().next().unwrap_or(Value::None);
                let key = self.hash_key(&v)?;
                set.borrow_mut().add_entry(py_hash(&key), key, v);
                Ok(Value::None)
            }
            "remove" | "discard" => {
                one(&args)?;
                let v = &args[0];
                let key = self.element_key(v)?;
                let found = set.borrow_mut().discard_entry(py_hash(&key), &key);
                if !found && name == "remove" {
                    let exc = super::exc::ExcObject::new(
                        super::exc::ExcClass::Builtin(ExcKind::KeyError),
                        vec![v.clone()],
                    );
                    return Err(Unwind::from_object(exc));
                }
                Ok(Value::None)
            }
            "pop" => {
                none(&args)?;
                set.borrow_mut().pop()
            }
            "clear" => {
                none(&args)?;
                set.borrow_mut().clear();
                Ok(Value::None)
            }
            "copy" => {
                none(&args)?;
                if frozen {
                    return Ok(Value::Set(set.clone()));
                }
                let s = set.borrow().copy_as(false);
                Ok(new_set(s))
            }
            "update" => {
                for a in args {
                    match self.set_items(a)? {
                        Items::Set(o) => set.borrow_mut().merge(&o),
                        Items::Values(vs) => {
                            // keys first: `__hash__`/`__eq__` run with the set not borrowed
                            let mut keyed = Vec::with_capacity(vs.len());
                            for v in vs {
                                keyed.push((self.hash_key(&v)?, v));
                            }
                            let mut s = set.borrow_mut();
                            for (k, v) in keyed {
                                s.add_entry(py_hash(&k), k, v);
                            }
                        }
                    }
                }
                Ok(Value::None)
            }
            "union" => {
                let mut r = set.borrow().copy_as(frozen);
                for a in args {
                    self.set_update(&mut r, a)?;
                }
                Ok(new_set(r))
            }
            "intersection" | "intersection_update" => {
                let mut r = if args.is_empty() {
                    set.borrow().copy_as(frozen)
                } else {
                    set.borrow().clone()
                };
                for a in args {
                    r = match &a {
                        Value::Set(o) => intersection(&r, &o.borrow(), frozen),
                        _ => {
                            let mut out = SetObj::new(frozen);
                            let mut it = self.iter_of(a)?;
                            while let Some(x) = self.next(&mut it)? {
                                self.tick()?;
                                let key = self.element_key(&x)?;
                                let h = py_hash(&key);
                                if r.contains_key(h, &key) {
                                    out.add_entry(h, key, x);
                                }
                            }
                            out
                        }
                    };
                }
                if name == "intersection" {
                    return Ok(new_set(r));
                }
                r.frozen = frozen;
                *set.borrow_mut() = r;
                Ok(Value::None)
            }
            "difference" | "difference_update" => {
                let mut r = if name == "difference" {
                    set.borrow().copy_as(frozen)
                } else {
                    set.borrow().clone()
                };
                for (i, a) in args.into_iter().enumerate() {
                    if i == 0 && name == "difference" {
                        if let Value::Set(_) | Value::Dict(_) = &a {
                            let o = self.set_arg(a)?;
                            r = difference(&set.borrow(), &o, frozen);
                            continue;
                        }
                    }
                    match self.set_items(a)? {
                        Items::Set(o) => difference_update(&mut r, &o),
                        Items::Values(vs) => {
                            for v in vs {
                                let key = self.element_key(&v)?;
                                r.discard_entry(py_hash(&key), &key);
                            }
                            r.compact_after_removals();
                        }
                    }
                }
                if name == "difference" {
                    return Ok(new_set(r));
                }
                *set.borrow_mut() = r;
                Ok(Value::None)
            }
            "symmetric_difference" | "symmetric_difference_update" => {
                one(&args)?;
                let a = args.into_iter().next().unwrap_or(Value::None);
                let o = self.set_arg(a)?;
                if name == "symmetric_difference" {
                    return Ok(new_set(symmetric_difference(&set.borrow(), &o, frozen)));
                }
                let mut s = set.borrow_mut();
                symmetric_difference_update(&mut s, &o);
                Ok(Value::None)
            }
            "issubset" | "issuperset" | "isdisjoint" => {
                one(&args)?;
                let a = args.into_iter().next().unwrap_or(Value::None);
                if !self.is_iterable(&a) {
                    return type_error(format!("'{}' object is not iterable", a.type_name()));
                }
                let o = self.set_arg(a)?;
                let s = set.borrow();
                budget::charge_items(s.len() + o.len())?;
                Ok(Value::Bool(match name {
                    "issubset" => s.is_subset(&o),
                    "issuperset" => o.is_subset(&s),
                    _ => {
                        let (small, big) = if o.len() > s.len() {
                            (&*s, &o)
                        } else {
                            (&o, &*s)
                        };
                        !small.entries().any(|(h, k, _)| big.contains_key(h, k))
                    }
                }))
            }
            _ => fail(
                ExcKind::AttributeError,
                format!("'{tname}' object has no attribute '{name}'"),
            ),
        }
    }
}

/// Equality used by `==` on values (sets against anything).
pub(crate) fn eq(a: &Value, b: &Value) -> Option<R<bool>> {
    compare(CmpOp::Eq, a, b)
}
