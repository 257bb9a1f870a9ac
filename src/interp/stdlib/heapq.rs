//! `heapq`: CPython's sift algorithms on a list, in place, comparing with `<` only (so
//! equal items end in CPython's order); `nlargest`/`nsmallest` as their documented
//! equivalents `sorted(...)[:n]`; `merge` lazily, taking the first least item (greatest
//! with `reverse`) of the inputs' heads, as CPython's heap of `[key, order, ...]` entries does.

use std::cell::RefCell;
use std::rc::Rc;

use super::{StdFn, StdIter};
use crate::interp::call::{Kwargs, arity, no_kwargs, take_kwargs};
use crate::interp::exc::{ExcKind, R, fail, type_error};
use crate::interp::iter::IterState;
use crate::interp::machine::Machine;
use crate::interp::sort;
use crate::interp::value::Value;
use crate::python::ir::CmpOp;

type List = Rc<RefCell<Vec<Value>>>;

/// The state of a `heapq.merge` iterator.
pub(crate) struct Merge {
    inputs: Vec<IterState>,
    /// Each live input's head: (key, item); `None` once exhausted.
    heads: Vec<Option<(Value, Value)>>,
    key: Value,
    reverse: bool,
    started: bool,
    /// The input whose head was yielded last (to advance before choosing again).
    taken: Option<usize>,
}

fn list_arg(name: &str, v: &Value) -> R<List> {
    match v {
        Value::List(l) => Ok(l.clone()),
        other => {
            let which = if matches!(name, "heappop" | "heapify") {
                "argument"
            } else {
                "argument 1"
            };
            type_error(format!(
                "{name}() {which} must be list, not {}",
                other.type_name()
            ))
        }
    }
}

fn get(heap: &List, i: usize) -> R<Value> {
    match heap.borrow().get(i) {
        Some(v) => Ok(v.clone()),
        None => fail(ExcKind::RuntimeError, "list changed size during iteration"),
    }
}

fn set(heap: &List, i: usize, v: Value) -> R<()> {
    match heap.borrow_mut().get_mut(i) {
        Some(slot) => {
            *slot = v;
            Ok(())
        }
        None => fail(ExcKind::RuntimeError, "list changed size during iteration"),
    }
}

impl Machine {
    fn lt(&mut self, a: &Value, b: &Value) -> R<bool> {
        self.tick()?;
        self.compare(CmpOp::Lt, a, b)
    }

    fn sift_down(&mut self, heap: &List, start: usize, mut pos: usize) -> R<()> {
        let item = get(heap, pos)?;
        while pos > start {
            let parent_pos = (pos - 1) >> 1;
            let parent = get(heap, parent_pos)?;
            if self.lt(&item, &parent)? {
                set(heap, pos, parent)?;
                pos = parent_pos;
                continue;
            }
            break;
        }
        set(heap, pos, item)
    }

    fn sift_up(&mut self, heap: &List, mut pos: usize) -> R<()> {
        let end = heap.borrow().len();
        let start = pos;
        let item = get(heap, pos)?;
        let mut child = 2 * pos + 1;
        while child < end {
            let right = child + 1;
            if right < end && !self.lt(&get(heap, child)?, &get(heap, right)?)? {
                child = right;
            }
            set(heap, pos, get(heap, child)?)?;
            pos = child;
            child = 2 * pos + 1;
        }
        set(heap, pos, item)?;
        self.sift_down(heap, start, pos)
    }

    pub(super) fn call_heapq(&mut self, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let name = f.name();
        if !matches!(f, StdFn::NLargest | StdFn::NSmallest | StdFn::Merge) {
            no_kwargs(name, &kwargs)?;
        }
        match f {
            StdFn::HeapPush => {
                arity(name, &args, 2, 2)?;
                let heap = list_arg(name, &args[0])?;
                heap.borrow_mut().push(args[1].clone());
                let last = heap.borrow().len() - 1;
                self.sift_down(&heap, 0, last)?;
                Ok(Value::None)
            }
            StdFn::HeapPop => {
                arity(name, &args, 1, 1)?;
                let heap = list_arg(name, &args[0])?;
                let Some(last) = heap.borrow_mut().pop() else {
                    return fail(ExcKind::IndexError, "index out of range");
                };
                if heap.borrow().is_empty() {
                    return Ok(last);
                }
                let top = get(&heap, 0)?;
                set(&heap, 0, last)?;
                self.sift_up(&heap, 0)?;
                Ok(top)
            }
            StdFn::Heapify => {
                arity(name, &args, 1, 1)?;
                let heap = list_arg(name, &args[0])?;
                let n = heap.borrow().len();
                for i in (0..n / 2).rev() {
                    self.sift_up(&heap, i)?;
                }
                Ok(Value::None)
            }
            StdFn::HeapReplace => {
                arity(name, &args, 2, 2)?;
                let heap = list_arg(name, &args[0])?;
                if heap.borrow().is_empty() {
                    return fail(ExcKind::IndexError, "index out of range");
                }
                let top = get(&heap, 0)?;
                set(&heap, 0, args[1].clone())?;
                self.sift_up(&heap, 0)?;
                Ok(top)
            }
            StdFn::HeapPushPop => {
                arity(name, &args, 2, 2)?;
                let heap = list_arg(name, &args[0])?;
                let item = args[1].clone();
                if heap.borrow().is_empty() {
                    return Ok(item);
                }
                let top = get(&heap, 0)?;
                if self.lt(&top, &item)? {
                    set(&heap, 0, item)?;
                    self.sift_up(&heap, 0)?;
                    return Ok(top);
                }
                Ok(item)
            }
            StdFn::NLargest | StdFn::NSmallest => {
                let [key] = take_kwargs(name, kwargs, ["key"])?;
                arity(name, &args, 2, 2)?;
                let n = crate::interp::builtins::index_arg(&args[0])?;
                let items = self.collect(args[1].clone())?;
                let reverse = f == StdFn::NLargest;
                let mut sorted = sort::sort(self, items, key.unwrap_or(Value::None), reverse)?;
                sorted.truncate(n.max(0) as usize);
                Ok(Value::list(sorted))
            }
            StdFn::Merge => {
                let [key, reverse] = take_kwargs(name, kwargs, ["key", "reverse"])?;
                let mut inputs = Vec::with_capacity(args.len());
                for a in args {
                    inputs.push(self.iter_of(a)?);
                }
                let heads = inputs.iter().map(|_| None).collect();
                Ok(StdIter::Merge(Box::new(Merge {
                    inputs,
                    heads,
                    key: key.unwrap_or(Value::None),
                    reverse: reverse.is_some_and(|r| crate::interp::ops::truthy(&r)),
                    started: false,
                    taken: None,
                }))
                .into_value())
            }
            _ => type_error(format!("{name} is not in heapq")),
        }
    }

    fn merge_advance(&mut self, m: &mut Merge, i: usize) -> R<()> {
        m.heads[i] = match self.next(&mut m.inputs[i])? {
            Some(v) => Some((self.key_of_item(&m.key, &v)?, v)),
            None => None,
        };
        Ok(())
    }

    /// The next item of a `heapq.merge` iterator.
    pub(super) fn merge_next(&mut self, m: &mut Merge) -> R<Option<Value>> {
        if !m.started {
            m.started = true;
            for i in 0..m.inputs.len() {
                self.merge_advance(m, i)?;
            }
        } else if let Some(i) = m.taken.take() {
            self.merge_advance(m, i)?;
        }
        let mut best: Option<usize> = None;
        for i in 0..m.heads.len() {
            let Some((k, _)) = &m.heads[i] else { continue };
            let better = match best.and_then(|b| m.heads[b].as_ref()) {
                None => true,
                Some((bk, _)) => {
                    let (a, b) = (k.clone(), bk.clone());
                    if m.reverse {
                        self.lt(&b, &a)?
                    } else {
                        self.lt(&a, &b)?
                    }
                }
            };
            if better {
                best = Some(i);
            }
        }
        let Some(b) = best else { return Ok(None) };
        m.taken = Some(b);
        Ok(m.heads[b].as_ref().map(|(_, v)| v.clone()))
    }
}
