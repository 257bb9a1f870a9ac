//! `copy`: `copy` (new list, dict, set and user-class instance, immutable values
//! themselves) and `deepcopy` (lists, dicts, tuples, sets and instances copied
//! recursively, shared and cyclic structure preserved through a memo). Instances are copied
//! as CPython's `__reduce_ex__` does, attribute by attribute without `__init__` or
//! `__setattr__`; classes defining `__copy__`/`__deepcopy__`, and other mutable objects
//! (`deque`, generators, ...), are refused by name.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::{StdFn, StdObj};
use crate::interp::call::{Kwargs, arity, no_kwargs};
use crate::interp::class::Instance;
use crate::interp::dict::Dict;
use crate::interp::exc::{ExcKind, R, Unwind, fail};
use crate::interp::machine::Machine;
use crate::interp::value::Value;

const MAX_DEPTH: usize = 1000;

impl Machine {
    pub(super) fn call_copy(&mut self, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let name = f.name();
        no_kwargs(name, &kwargs)?;
        arity(name, &args, 1, if f == StdFn::DeepCopy { 2 } else { 1 })?;
        let x = &args[0];
        if f == StdFn::Copy {
            return Ok(match x {
                Value::List(l) => {
                    let items = l.borrow().clone();
                    crate::interp::budget::charge_items(items.len())?;
                    Value::list(items)
                }
                Value::Dict(d) => Value::Dict(Rc::new(RefCell::new(d.borrow().copy()))),
                Value::Set(s) if !s.borrow().frozen => {
                    let s = s.borrow();
                    crate::interp::budget::charge_items(s.len())?;
                    Value::Set(Rc::new(RefCell::new(s.copy_as(false))))
                }
                Value::Instance(i) => {
                    refuse_hooks(i, "__copy__")?;
                    let attrs = i.attrs.borrow().clone();
                    new_instance(i, attrs)
                }
                other => {
                    refuse_mutable(other)?;
                    other.clone()
                }
            });
        }
        let mut memo = HashMap::new();
        self.deep(x, &mut memo, 0)
    }

    /// `copy.deepcopy(x)` with a fresh memo.
    pub(crate) fn deepcopy_value(&mut self, x: &Value) -> R<Value> {
        self.deep(x, &mut HashMap::new(), 0)
    }

    fn deep(&mut self, x: &Value, memo: &mut HashMap<usize, Value>, depth: usize) -> R<Value> {
        if depth > MAX_DEPTH {
            return fail(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded while calling a Python object",
            );
        }
        self.tick()?;
        Ok(match x {
            Value::List(l) => {
                let id = Rc::as_ptr(l) as *const () as usize;
                if let Some(v) = memo.get(&id) {
                    return Ok(v.clone());
                }
                let out = Rc::new(RefCell::new(Vec::new()));
                memo.insert(id, Value::List(out.clone()));
                let items = l.borrow().clone();
                for item in &items {
                    let c = self.deep(item, memo, depth + 1)?;
                    out.borrow_mut().push(c);
                }
                Value::List(out)
            }
            Value::Dict(d) => {
                let id = Rc::as_ptr(d) as *const () as usize;
                if let Some(v) = memo.get(&id) {
                    return Ok(v.clone());
                }
                let out = Rc::new(RefCell::new(Dict::default()));
                memo.insert(id, Value::Dict(out.clone()));
                let entries: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
                for (k, v) in &entries {
                    let k2 = self.deep(k, memo, depth + 1)?;
                    let v2 = self.deep(v, memo, depth + 1)?;
                    let key = crate::interp::dict::key_of(&k2)?;
                    out.borrow_mut().insert(key, k2, v2);
                }
                Value::Dict(out)
            }
            Value::Tuple(items) => {
                let id = Rc::as_ptr(items) as usize;
                if let Some(v) = memo.get(&id) {
                    return Ok(v.clone());
                }
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    out.push(self.deep(item, memo, depth + 1)?);
                }
                let same = out
                    .iter()
                    .zip(items.iter())
                    .all(|(a, b)| crate::interp::ops::is(a, b));
                let v = if same { x.clone() } else { Value::tuple(out) };
                memo.insert(id, v.clone());
                v
            }
            Value::Set(s) => {
                let id = Rc::as_ptr(s) as *const () as usize;
                if let Some(v) = memo.get(&id) {
                    return Ok(v.clone());
                }
                let (frozen, items) = (s.borrow().frozen, s.borrow().values());
                let mut out = crate::interp::set::SetObj::new(frozen);
                for item in &items {
                    let c = self.deep(item, memo, depth + 1)?;
                    self.set_add(&mut out, c)?;
                }
                let v = Value::Set(Rc::new(RefCell::new(out)));
                memo.insert(id, v.clone());
                v
            }
            Value::Instance(i) => {
                let id = Rc::as_ptr(i) as *const () as usize;
                if let Some(v) = memo.get(&id) {
                    return Ok(v.clone());
                }
                refuse_hooks(i, "__deepcopy__")?;
                let v = new_instance(i, Vec::new());
                memo.insert(id, v.clone());
                let attrs = i.attrs.borrow().clone();
                let mut copied = Vec::with_capacity(attrs.len());
                for (k, a) in &attrs {
                    copied.push((k.clone(), self.deep(a, memo, depth + 1)?));
                }
                if let Value::Instance(n) = &v {
                    *n.attrs.borrow_mut() = copied;
                }
                v
            }
            other => {
                refuse_mutable(other)?;
                other.clone()
            }
        })
    }
}

/// A new instance of `i`'s class holding `attrs` (enum members and named tuples are
/// returned themselves, as CPython's `__reduce_ex__`/`__copy__` do for them).
fn new_instance(i: &Rc<Instance>, attrs: Vec<(Rc<str>, Value)>) -> Value {
    if i.class.is_enum() || i.class.is_named_tuple() {
        return Value::Instance(i.clone());
    }
    let n = Instance::new(i.class.clone());
    *n.attrs.borrow_mut() = attrs;
    Value::Instance(Rc::new(n))
}

fn refuse_hooks(i: &Instance, hook: &'static str) -> R<()> {
    if i.class.defines(hook) || i.class.defines("__reduce_ex__") || i.class.defines("__reduce__") {
        return Err(Unwind::unsupported(format!(
            "copying an instance of {} (a class defining {hook} or __reduce__)",
            i.class.name
        )));
    }
    Ok(())
}

/// Mutable objects this module cannot copy yet: refused rather than shared.
fn refuse_mutable(v: &Value) -> R<()> {
    match v {
        Value::Std(s) if matches!(&**s, StdObj::Deque(..) | StdObj::Random(_)) => Err(
            Unwind::unsupported(format!("copying a {} object", v.type_name())),
        ),
        Value::Iter(_) => Err(Unwind::unsupported(format!(
            "copying a {} object",
            v.type_name()
        ))),
        _ => Ok(()),
    }
}
