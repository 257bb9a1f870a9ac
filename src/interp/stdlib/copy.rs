//! `copy`: `copy` (new list/dict, everything else itself) and `deepcopy` (lists, dicts and
//! tuples copied recursively, shared and cyclic structure preserved through a memo).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::StdFn;
use crate::interp::call::{Kwargs, arity, no_kwargs};
use crate::interp::dict::Dict;
use crate::interp::exc::{ExcKind, R, fail};
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
                other => other.clone(),
            });
        }
        let mut memo = HashMap::new();
        self.deep(x, &mut memo, 0)
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
            other => other.clone(),
        })
    }
}
