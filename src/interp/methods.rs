//! Methods of lists, tuples, dicts, numbers and the standard streams; `str` methods are in
//! `strings`.

use std::cell::RefCell;
use std::rc::Rc;

use super::Stream;
use super::builtins::index_arg;
use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::dict::Dict;
use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, fail, type_error, value_error};
use super::machine::Machine;
use super::ops::{self, truthy};
use super::repr::repr;
use super::sort;
use super::strings;
use super::value::{Native, TypeKind, Value, View, ViewKind};

const LIST: &[&str] = &[
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse",
    "sort",
];
const DICT: &[&str] = &[
    "clear",
    "copy",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
];

/// Whether `o` has a method `name` the interpreter implements.
pub(crate) fn has_method(o: &Value, name: &str) -> bool {
    match o {
        Value::Native(Native::Stdout | Native::Stderr) => matches!(name, "write" | "flush"),
        Value::Native(_) => false,
        Value::Type(TypeKind::Bytes) => name == "fromhex",
        Value::Type(TypeKind::Int) => name == "from_bytes",
        Value::Type(TypeKind::Str) => name == "maketrans",
        Value::Type(TypeKind::Dict) => name == "fromkeys",
        Value::Exception(e) => super::exc_object::has_base_method(e, name),
        Value::Dict(d) if super::stdlib::is_proxy(d) => {
            matches!(name, "get" | "items" | "keys" | "values")
        }
        Value::Iter(it) => {
            matches!(name, "send" | "close" | "throw")
                && it.try_borrow().map_or(true, |s| {
                    matches!(&*s, super::iter::IterState::Coroutine(_))
                })
        }
        other => other.type_kind().is_some_and(|t| type_has_method(t, name)),
    }
}

/// Whether instances of builtin type `t` have a method `name` the interpreter implements.
pub(crate) fn type_has_method(t: TypeKind, name: &str) -> bool {
    match t {
        TypeKind::Str => strings::METHODS.contains(&name),
        TypeKind::List => LIST.contains(&name),
        TypeKind::Tuple => matches!(name, "count" | "index"),
        TypeKind::Dict => DICT.contains(&name),
        TypeKind::Int | TypeKind::Bool => {
            matches!(name, "bit_length" | "bit_count" | "conjugate" | "to_bytes")
        }
        TypeKind::Float => matches!(name, "is_integer" | "conjugate" | "as_integer_ratio"),
        TypeKind::Set | TypeKind::FrozenSet => super::set_ops::type_has_method(t, name),
        TypeKind::Bytes => super::bytes::METHODS.contains(&name),
        _ => false,
    }
}

/// The position of `x` in `items` (by identity or `==`).
fn position(m: &mut Machine, items: &[Value], x: &Value) -> R<Option<usize>> {
    for (i, item) in items.iter().enumerate() {
        if ops::is(item, x) || m.values_eq(item, x)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

fn count(m: &mut Machine, items: &[Value], x: &Value) -> R<usize> {
    let mut n = 0;
    for item in items {
        if ops::is(item, x) || m.values_eq(item, x)? {
            n += 1;
        }
    }
    Ok(n)
}

/// Start/stop arguments of `index` clamped like slice bounds.
fn index_range(len: usize, start: Option<&Value>, stop: Option<&Value>) -> R<(usize, usize)> {
    let clamp = |v: Option<&Value>, default: usize| -> R<usize> {
        Ok(match v {
            None => default,
            Some(v) => {
                let i = index_arg(v)? as i128;
                let i = if i < 0 { (i + len as i128).max(0) } else { i };
                i.min(len as i128) as usize
            }
        })
    };
    Ok((clamp(start, 0)?, clamp(stop, len)?))
}

impl Machine {
    /// Calls method `name` of `o` (which [`has_method`] accepts).
    pub fn method(&mut self, o: &Value, name: &str, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match o {
            Value::Str(s) => self.str_method(s, name, args, kwargs),
            Value::Bytes(b) => self.bytes_method(b, name, args, kwargs),
            Value::Type(TypeKind::Bytes) => {
                no_kwargs(name, &kwargs)?;
                self.bytes_method(&Rc::new(Vec::new()), name, args, Kwargs::new())
            }
            Value::Type(TypeKind::Str) => {
                no_kwargs(name, &kwargs)?;
                super::translate::maketrans(&args)
            }
            Value::Type(TypeKind::Dict) => {
                no_kwargs(name, &kwargs)?;
                arity("fromkeys", &args, 1, 2)?;
                let value = args.get(1).cloned().unwrap_or(Value::None);
                let keys = self.collect(args[0].clone())?;
                let mut d = Dict::default();
                for k in keys {
                    let hk = self.hash_key(&k)?;
                    d.insert(hk, k, value.clone());
                }
                Ok(Value::Dict(Rc::new(RefCell::new(d))))
            }
            Value::List(l) => self.list_method(l, name, args, kwargs),
            Value::Tuple(t) => {
                no_kwargs(name, &kwargs)?;
                match name {
                    "count" => {
                        arity("tuple.count", &args, 1, 1)?;
                        Ok(Value::Int(count(self, t, &args[0])? as i64))
                    }
                    _ => {
                        arity("index", &args, 1, 3)?;
                        let (a, b) = index_range(t.len(), args.get(1), args.get(2))?;
                        match position(self, &t[a..b.max(a)], &args[0])? {
                            Some(i) => Ok(Value::Int((a + i) as i64)),
                            None => value_error("tuple.index(x): x not in tuple"),
                        }
                    }
                }
            }
            Value::Dict(d) => self.dict_method(d, name, args, kwargs),
            Value::Set(s) => self.set_method(s, name, args, kwargs),
            Value::Exception(e) => self.exc_base_call(e, name, args, kwargs),
            Value::Iter(it) => {
                no_kwargs(name, &kwargs)?;
                if name == "send" {
                    arity("send", &args, 1, 1)?;
                    let v = args.into_iter().next().unwrap_or(Value::None);
                    self.gen_send(it, v)
                } else if name == "throw" {
                    arity("throw", &args, 1, 3)?;
                    self.gen_throw(it, args)
                } else {
                    arity("close", &args, 0, 0)?;
                    self.gen_close(it)
                }
            }
            Value::Int(_) | Value::Big(_) | Value::Bool(_) if name == "to_bytes" => {
                let i = o.to_bigint().unwrap_or_default();
                super::int_bytes::to_bytes(&i, args, kwargs)
            }
            Value::Type(TypeKind::Int) => super::int_bytes::from_bytes(args, kwargs),
            Value::Int(_) | Value::Big(_) | Value::Bool(_) => {
                no_kwargs(name, &kwargs)?;
                if !args.is_empty() {
                    return type_error(format!(
                        "int.{name}() takes no arguments ({} given)",
                        args.len()
                    ));
                }
                let i = o.to_bigint().unwrap_or_default();
                Ok(match name {
                    "bit_length" => Value::Int(i.bits() as i64),
                    "bit_count" => Value::Int(i.magnitude().count_ones() as i64),
                    _ => Value::big(i),
                })
            }
            Value::Float(f) => {
                no_kwargs(name, &kwargs)?;
                if !args.is_empty() {
                    return type_error(format!(
                        "float.{name}() takes no arguments ({} given)",
                        args.len()
                    ));
                }
                Ok(match name {
                    "is_integer" => Value::Bool(f.is_finite() && f.fract() == 0.0),
                    "as_integer_ratio" => float_as_integer_ratio(*f)?,
                    _ => Value::Float(*f),
                })
            }
            Value::Native(n @ (Native::Stdout | Native::Stderr)) => {
                no_kwargs(name, &kwargs)?;
                let stream = if *n == Native::Stdout {
                    Stream::Stdout
                } else {
                    Stream::Stderr
                };
                match name {
                    "write" => {
                        arity("write", &args, 1, 1)?;
                        let Value::Str(s) = &args[0] else {
                            return type_error(format!(
                                "write() argument must be str, not {}",
                                args[0].type_name()
                            ));
                        };
                        self.write(stream, s.as_str());
                        Ok(Value::Int(s.len() as i64))
                    }
                    _ => Ok(Value::None),
                }
            }
            _ => Err(super::call::no_attribute(o, name)),
        }
    }

    fn list_method(
        &mut self,
        l: &Rc<RefCell<Vec<Value>>>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if name == "sort" {
            if !args.is_empty() {
                return type_error("sort() takes no positional arguments");
            }
            let [key, reverse] = take_kwargs("sort", kwargs, ["key", "reverse"])?;
            // As in CPython, the list looks empty while it is being sorted.
            let items = std::mem::take(&mut *l.borrow_mut());
            let sorted = sort::sort(
                self,
                items.clone(),
                key.unwrap_or(Value::None),
                reverse.as_ref().is_some_and(truthy),
            );
            let mut list = l.borrow_mut();
            let modified = !list.is_empty();
            match sorted {
                Ok(sorted) => *list = sorted,
                Err(e) => {
                    *list = items;
                    return Err(e);
                }
            }
            if modified {
                return value_error("list modified during sort");
            }
            return Ok(Value::None);
        }
        if !kwargs.is_empty() {
            no_kwargs(&format!("list.{name}"), &kwargs)?;
        }
        let one = |args: &[Value]| {
            if args.len() == 1 {
                Ok(())
            } else {
                type_error(format!(
                    "list.{name}() takes exactly one argument ({} given)",
                    args.len()
                ))
            }
        };
        let none = |args: &[Value]| {
            if args.is_empty() {
                Ok(())
            } else {
                type_error(format!(
                    "list.{name}() takes no arguments ({} given)",
                    args.len()
                ))
            }
        };
        Ok(match name {
            "append" => {
                one(&args)?;
                let len = l.borrow().len();
                ops::check_len(len + 1)?;
                l.borrow_mut().extend(args);
                Value::None
            }
            "extend" => {
                one(&args)?;
                let v = args.into_iter().next().unwrap_or(Value::None);
                if !self.is_iterable(&v) {
                    return type_error(format!("'{}' object is not iterable", v.type_name()));
                }
                let more = self.collect(v)?;
                let len = l.borrow().len();
                ops::check_len(len + more.len())?;
                l.borrow_mut().extend(more);
                Value::None
            }
            "insert" => {
                arity("insert", &args, 2, 2)?;
                let i = index_arg(&args[0])? as i128;
                let mut list = l.borrow_mut();
                let len = list.len() as i128;
                let at = if i < 0 { (i + len).max(0) } else { i.min(len) } as usize;
                ops::check_len(list.len() + 1)?;
                list.insert(at, args[1].clone());
                Value::None
            }
            "pop" => {
                arity("pop", &args, 0, 1)?;
                let mut list = l.borrow_mut();
                if list.is_empty() {
                    return fail(ExcKind::IndexError, "pop from empty list");
                }
                let len = list.len() as i128;
                let i = match args.first() {
                    Some(v) => index_arg(v)? as i128,
                    None => -1,
                };
                let at = if i < 0 { i + len } else { i };
                if at < 0 || at >= len {
                    return fail(ExcKind::IndexError, "pop index out of range");
                }
                list.remove(at as usize)
            }
            "remove" => {
                one(&args)?;
                let items = l.borrow().clone();
                match position(self, &items, &args[0])? {
                    Some(i) => {
                        let mut list = l.borrow_mut();
                        if i < list.len() {
                            list.remove(i);
                        }
                        Value::None
                    }
                    None => return value_error("list.remove(x): x not in list"),
                }
            }
            "index" => {
                arity("index", &args, 1, 3)?;
                let items = l.borrow().clone();
                let (a, b) = index_range(items.len(), args.get(1), args.get(2))?;
                match position(self, &items[a..b.max(a)], &args[0])? {
                    Some(i) => Value::Int((a + i) as i64),
                    None => return value_error(format!("{} is not in list", repr(&args[0])?)),
                }
            }
            "count" => {
                one(&args)?;
                let items = l.borrow().clone();
                Value::Int(count(self, &items, &args[0])? as i64)
            }
            "reverse" => {
                none(&args)?;
                l.borrow_mut().reverse();
                Value::None
            }
            "clear" => {
                none(&args)?;
                l.borrow_mut().clear();
                Value::None
            }
            "copy" => {
                none(&args)?;
                Value::list(l.borrow().clone())
            }
            _ => return Err(Unwind::unsupported(format!("list.{name}()"))),
        })
    }

    fn dict_method(
        &mut self,
        d: &Rc<RefCell<Dict>>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if matches!(name, "clear" | "pop" | "popitem" | "setdefault" | "update") {
            d.borrow().check_changeable()?;
        }
        if name == "update" {
            if args.len() > 1 {
                return type_error(format!(
                    "update expected at most 1 argument, got {}",
                    args.len()
                ));
            }
            self.dict_update(d, args.into_iter().next().unwrap_or(Value::None), kwargs)?;
            return Ok(Value::None);
        }
        no_kwargs(name, &kwargs)?;
        let view = |kind| {
            Value::View(Rc::new(View {
                dict: d.clone(),
                kind,
            }))
        };
        let none = |args: &[Value]| {
            if args.is_empty() {
                Ok(())
            } else {
                type_error(format!(
                    "dict.{name}() takes no arguments ({} given)",
                    args.len()
                ))
            }
        };
        Ok(match name {
            "get" => {
                arity("get", &args, 1, 2)?;
                let key = self.hash_key(&args[0])?;
                let found = d.borrow().get(&key).cloned();
                found.unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::None))
            }
            "keys" => {
                none(&args)?;
                view(ViewKind::Keys)
            }
            "values" => {
                none(&args)?;
                view(ViewKind::Values)
            }
            "items" => {
                none(&args)?;
                view(ViewKind::Items)
            }
            "pop" => {
                arity("pop", &args, 1, 2)?;
                let key = self.hash_key(&args[0])?;
                let removed = d.borrow_mut().remove(&key);
                match (removed, args.get(1)) {
                    (Some((_, v)), _) => v,
                    (None, Some(default)) => default.clone(),
                    (None, None) => {
                        return Err(Unwind::from_object(ExcObject::new(
                            ExcClass::Builtin(ExcKind::KeyError),
                            vec![args[0].clone()],
                        )));
                    }
                }
            }
            "popitem" => {
                none(&args)?;
                let last = d.borrow_mut().pop_last();
                match last {
                    Some((k, v)) => Value::tuple(vec![k, v]),
                    None => return fail(ExcKind::KeyError, "popitem(): dictionary is empty"),
                }
            }
            "setdefault" => {
                arity("setdefault", &args, 1, 2)?;
                let key = self.hash_key(&args[0])?;
                let found = d.borrow().get(&key).cloned();
                match found {
                    Some(v) => v,
                    None => {
                        let v = args.get(1).cloned().unwrap_or(Value::None);
                        d.borrow_mut().insert(key, args[0].clone(), v.clone());
                        v
                    }
                }
            }
            "clear" => {
                none(&args)?;
                d.borrow_mut().clear();
                Value::None
            }
            "copy" => {
                none(&args)?;
                let copy = d.borrow().copy();
                Value::Dict(Rc::new(RefCell::new(copy)))
            }
            _ => return Err(Unwind::unsupported(format!("dict.{name}()"))),
        })
    }
}

/// `f.as_integer_ratio()`: the float's exact value in lowest terms, a positive denominator.
fn float_as_integer_ratio(f: f64) -> R<Value> {
    match crate::symbolic::term::float_ratio(f) {
        Some((num, den)) => Ok(Value::tuple(vec![Value::big(num), Value::big(den)])),
        None if f.is_nan() => value_error("cannot convert NaN to integer ratio"),
        None => fail(
            ExcKind::OverflowError,
            "cannot convert Infinity to integer ratio",
        ),
    }
}
