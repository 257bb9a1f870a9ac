//! `functools`: `reduce`, `partial`, `cmp_to_key`, `lru_cache`/`cache` (with
//! `cache_info()`/`cache_clear()`), and `wraps` (copying the metadata of user functions:
//! `interp/funcattr.rs`).

use std::cell::RefCell;

use super::{StdFn, StdObj};
use crate::fxhash::FxHashMap;
use crate::interp::call::{Kwargs, arity, no_kwargs, take_kwargs};
use crate::interp::dict::{Key, key_of};
use crate::interp::exc::{R, type_error, value_error};
use crate::interp::machine::Machine;
use crate::interp::value::Value;
use crate::python::ir::CmpOp;

/// The memo of a cached function.
pub(crate) struct Cache {
    pub func: Value,
    maxsize: Option<usize>,
    entries: FxHashMap<Key, (Value, u64)>,
    clock: u64,
    hits: u64,
    misses: u64,
}

/// `lru_cache(maxsize)(func)`.
pub(crate) fn cached(func: Value, maxsize: Option<usize>) -> Value {
    StdObj::Cached(RefCell::new(Cache {
        func,
        maxsize,
        entries: FxHashMap::default(),
        clock: 0,
        hits: 0,
        misses: 0,
    }))
    .into_value()
}

/// `cache_clear()`, and `cache_info()`'s four counts as a tuple (`CacheInfo`'s fields).
pub(crate) fn cache_method(c: &RefCell<Cache>, name: &str, args: &[Value]) -> R<Value> {
    arity(name, args, 0, 0)?;
    let mut c = c.borrow_mut();
    if name == "cache_clear" {
        c.entries.clear();
        c.hits = 0;
        c.misses = 0;
        return Ok(Value::None);
    }
    let maxsize = c.maxsize.map_or(Value::None, |m| Value::Int(m as i64));
    Ok(Value::tuple(vec![
        Value::Int(c.hits as i64),
        Value::Int(c.misses as i64),
        maxsize,
        Value::Int(c.entries.len() as i64),
    ]))
}

impl Machine {
    pub(super) fn call_functools(
        &mut self,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        match f {
            StdFn::Reduce => {
                no_kwargs("reduce", &kwargs)?;
                arity("reduce", &args, 2, 3)?;
                let func = args[0].clone();
                let mut it = self.iter_of(args[1].clone())?;
                let mut acc = match args.get(2) {
                    Some(v) => v.clone(),
                    None => match self.next(&mut it)? {
                        Some(v) => v,
                        None => {
                            return type_error("reduce() of empty iterable with no initial value");
                        }
                    },
                };
                while let Some(x) = self.next(&mut it)? {
                    self.tick()?;
                    acc = self.call(&func, vec![acc, x], Vec::new())?;
                }
                Ok(acc)
            }
            StdFn::Partial => {
                let mut args = args.into_iter();
                let Some(func) = args.next() else {
                    return type_error("type 'partial' takes at least one argument");
                };
                if !self.is_callable(&func) {
                    return type_error("the first argument must be callable");
                }
                Ok(StdObj::Partial {
                    func,
                    args: args.collect(),
                    kwargs,
                }
                .into_value())
            }
            StdFn::CmpToKey => {
                let [cmp] = take_kwargs("cmp_to_key", kwargs, ["mycmp"])?;
                arity("cmp_to_key", &args, 0, 1)?;
                let Some(cmp) = args.into_iter().next().or(cmp) else {
                    return type_error("cmp_to_key() missing required argument 'mycmp' (pos 1)");
                };
                Ok(StdObj::CmpKey { cmp, obj: None }.into_value())
            }
            StdFn::Cache => {
                no_kwargs("cache", &kwargs)?;
                arity("cache", &args, 1, 1)?;
                Ok(cached(args[0].clone(), None))
            }
            StdFn::LruCache => {
                let [maxsize_kw, typed] = take_kwargs("lru_cache", kwargs, ["maxsize", "typed"])?;
                if typed.as_ref().is_some_and(crate::interp::ops::truthy) {
                    return Err(crate::interp::exc::Unwind::unsupported(
                        "lru_cache(typed=True)",
                    ));
                }
                arity("lru_cache", &args, 0, 2)?;
                let maxsize = args.first().cloned().or(maxsize_kw);
                match maxsize {
                    Some(func) if self.is_callable(&func) => Ok(cached(func, Some(128))),
                    None => Ok(StdObj::CacheDecorator { maxsize: Some(128) }.into_value()),
                    Some(Value::None) => Ok(StdObj::CacheDecorator { maxsize: None }.into_value()),
                    Some(v) if v.is_int() => {
                        let n = crate::interp::builtins::index_arg(&v)?.max(0) as usize;
                        Ok(StdObj::CacheDecorator { maxsize: Some(n) }.into_value())
                    }
                    Some(_) => {
                        type_error("Expected first argument to be an integer, a callable, or None")
                    }
                }
            }
            StdFn::Wraps => {
                no_kwargs("wraps", &kwargs)?;
                arity("wraps", &args, 1, 1)?;
                Ok(StdObj::Wraps(args[0].clone()).into_value())
            }
            _ => value_error(format!("{} is not in functools", f.name())),
        }
    }

    /// Calls a function memoized by `lru_cache`.
    pub(super) fn call_cached(
        &mut self,
        o: &std::rc::Rc<StdObj>,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let StdObj::Cached(c) = &**o else {
            return type_error("not a cached function");
        };
        let mut parts = args.clone();
        for (k, v) in &kwargs {
            parts.push(Value::str(&**k));
            parts.push(v.clone());
        }
        let key = key_of(&Value::tuple(parts))?;
        let hit = {
            let mut c = c.borrow_mut();
            c.clock += 1;
            let now = c.clock;
            match c.entries.get_mut(&key) {
                Some((v, stamp)) => {
                    *stamp = now;
                    Some(v.clone())
                }
                None => None,
            }
        };
        if let Some(v) = hit {
            c.borrow_mut().hits += 1;
            return Ok(v);
        }
        c.borrow_mut().misses += 1;
        let func = c.borrow().func.clone();
        let result = self.call(&func, args, kwargs)?;
        let mut c = c.borrow_mut();
        if c.maxsize == Some(0) {
            return Ok(result);
        }
        if let Some(max) = c.maxsize {
            if c.entries.len() >= max && !c.entries.contains_key(&key) {
                let oldest = c
                    .entries
                    .iter()
                    .min_by_key(|(_, (_, stamp))| *stamp)
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    c.entries.remove(&k);
                }
            }
        }
        let now = c.clock;
        c.entries.insert(key, (result.clone(), now));
        Ok(result)
    }

    /// `a < b` (and the other orders) when `a` is a `cmp_to_key` key: `cmp(a, b) < 0`.
    pub(crate) fn compare_std(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<bool> {
        let (Value::Std(x), Value::Std(y)) = (a, b) else {
            return crate::interp::ops::compare(op, a, b);
        };
        let (StdObj::CmpKey { cmp, obj: Some(xa) }, StdObj::CmpKey { obj: Some(yb), .. }) =
            (&**x, &**y)
        else {
            return crate::interp::ops::compare(op, a, b);
        };
        let r = self.call(cmp, vec![xa.clone(), yb.clone()], Vec::new())?;
        let zero = Value::Int(0);
        self.compare(op, &r, &zero)
    }

    /// `callable(v)`.
    pub(crate) fn is_callable(&mut self, v: &Value) -> bool {
        matches!(
            self.call_builtin(
                crate::interp::builtins::Builtin::Callable,
                vec![v.clone()],
                Vec::new()
            ),
            Ok(Value::Bool(true))
        )
    }
}
