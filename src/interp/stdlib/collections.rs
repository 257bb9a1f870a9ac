//! `collections`: `Counter`, `defaultdict` and `OrderedDict` are dicts with a [`Flavor`]
//! (so every dict operation works on them and `isinstance(c, dict)` holds), adding their
//! missing-key rule, repr, methods and (for `Counter`) `+ - & |`; `deque` is a `StdObj`.
//! Not provided: `namedtuple` (with classes), `ChainMap`, `UserDict`; `OrderedDict`
//! equality is not order-sensitive, and `Counter` equality does not ignore zero counts.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::{StdFn, StdObj};
use crate::interp::builtins::index_arg;
use crate::interp::call::{Kwargs, arity, no_kwargs, take_kwargs};
use crate::interp::dict::{Dict, key_of};
use crate::interp::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, fail, type_error};
use crate::interp::iter::IterState;
use crate::interp::machine::Machine;
use crate::interp::ops::{self, truthy};
use crate::interp::value::{TypeKind, Value};
use crate::python::ir::{BinOp, CmpOp};

/// What kind of dict a flavored dict is.
pub(crate) enum Flavor {
    Counter,
    /// With its `default_factory` (`None` allowed).
    DefaultDict(Value),
    OrderedDict,
    /// A read-only view of a namespace (`Enum.__members__`).
    MappingProxy,
}

type DictRef = Rc<RefCell<Dict>>;

fn new_dict(flavor: Flavor) -> DictRef {
    let mut d = Dict::default();
    d.flavor = Some(Rc::new(flavor));
    Rc::new(RefCell::new(d))
}

fn flavor_of(d: &DictRef) -> Option<Rc<Flavor>> {
    d.borrow().flavor.clone()
}

/// Whether `d` is a read-only `mappingproxy`.
pub(crate) fn is_proxy(d: &DictRef) -> bool {
    matches!(d.borrow().flavor.as_deref(), Some(Flavor::MappingProxy))
}

/// The type name of a flavored dict.
pub(crate) fn type_name(f: &Flavor) -> &'static str {
    match f {
        Flavor::Counter => "Counter",
        Flavor::DefaultDict(_) => "collections.defaultdict",
        Flavor::OrderedDict => "collections.OrderedDict",
        Flavor::MappingProxy => "mappingproxy",
    }
}

fn get(d: &DictRef, k: &Value) -> R<Option<Value>> {
    Ok(d.borrow().get(&key_of(k)?).cloned())
}

fn set(d: &DictRef, k: Value, v: Value) -> R<()> {
    let key = key_of(&k)?;
    d.borrow_mut().insert(key, k, v);
    Ok(())
}

fn entries(d: &DictRef) -> Vec<(Value, Value)> {
    d.borrow().iter().cloned().collect()
}

/// Items by count, largest first, ties in insertion order (`most_common()`); counts that
/// do not compare keep their order.
fn by_count(d: &DictRef) -> Vec<(Value, Value)> {
    let mut items = entries(d);
    items.sort_by(|(_, a), (_, b)| {
        if ops::compare(CmpOp::Lt, a, b).unwrap_or(false) {
            std::cmp::Ordering::Greater
        } else if ops::compare(CmpOp::Lt, b, a).unwrap_or(false) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Equal
        }
    });
    items
}

/// The repr of a flavored dict, or `None` for a plain dict.
pub(crate) fn dict_repr(d: &DictRef, repr: &dyn Fn(&Value) -> R<String>) -> R<Option<String>> {
    let Some(f) = flavor_of(d) else {
        return Ok(None);
    };
    let pairs = |items: &[(Value, Value)]| -> R<String> {
        let mut parts = Vec::with_capacity(items.len());
        for (k, v) in items {
            parts.push(format!("{}: {}", repr(k)?, repr(v)?));
        }
        Ok(parts.join(", "))
    };
    let empty = d.borrow().len() == 0;
    Ok(Some(match &*f {
        Flavor::Counter if empty => "Counter()".into(),
        Flavor::Counter => format!("Counter({{{}}})", pairs(&by_count(d))?),
        Flavor::DefaultDict(factory) => {
            format!(
                "defaultdict({}, {{{}}})",
                repr(factory)?,
                pairs(&entries(d))?
            )
        }
        // `str()` of a mappingproxy is its mapping's (what `print` shows); its `repr()`
        // would wrap that in `mappingproxy(...)`, which is not told apart here.
        Flavor::MappingProxy => format!("{{{}}}", pairs(&entries(d))?),
        Flavor::OrderedDict if empty => "OrderedDict()".into(),
        Flavor::OrderedDict => {
            let mut parts = Vec::new();
            for (k, v) in entries(d) {
                parts.push(format!("({}, {})", repr(&k)?, repr(&v)?));
            }
            format!("OrderedDict([{}])", parts.join(", "))
        }
    }))
}

/// `a op b` for Counters (`+ - & |`); `None` when neither is a Counter.
pub(crate) fn counter_op(op: BinOp, a: &Value, b: &Value) -> Option<R<Value>> {
    let (Value::Dict(x), Value::Dict(y)) = (a, b) else {
        return None;
    };
    let is_counter = |d: &DictRef| matches!(flavor_of(d).as_deref(), Some(Flavor::Counter));
    if !is_counter(x) || !is_counter(y) {
        return None;
    }
    Some(counter_binary(op, x, y))
}

fn counter_binary(op: BinOp, x: &DictRef, y: &DictRef) -> R<Value> {
    let zero = Value::Int(0);
    let out = new_dict(Flavor::Counter);
    let gt0 = |v: &Value| ops::compare(CmpOp::Gt, v, &zero);
    for (k, c) in entries(x) {
        let other = get(y, &k)?.unwrap_or(Value::Int(0));
        let n = match op {
            BinOp::Add => ops::binary(BinOp::Add, &c, &other)?,
            BinOp::Sub => ops::binary(BinOp::Sub, &c, &other)?,
            BinOp::BitOr => {
                if ops::compare(CmpOp::Lt, &c, &other)? {
                    other
                } else {
                    c
                }
            }
            BinOp::BitAnd => {
                if ops::compare(CmpOp::Lt, &c, &other)? {
                    c
                } else {
                    other
                }
            }
            _ => {
                return ops::unsupported_operands(
                    op,
                    &Value::Dict(x.clone()),
                    &Value::Dict(y.clone()),
                );
            }
        };
        if gt0(&n)? {
            set(&out, k, n)?;
        }
    }
    if op != BinOp::BitAnd {
        for (k, c) in entries(y) {
            if get(x, &k)?.is_some() {
                continue;
            }
            if op == BinOp::Sub {
                if ops::compare(CmpOp::Lt, &c, &zero)? {
                    set(&out, k, ops::binary(BinOp::Sub, &zero, &c)?)?;
                }
            } else if gt0(&c)? {
                set(&out, k, c)?;
            }
        }
    }
    Ok(Value::Dict(out))
}

/// The methods flavored dicts add to (or change in) dict.
pub(crate) fn has_flavored_method(d: &DictRef, name: &str) -> bool {
    match flavor_of(d).as_deref() {
        Some(Flavor::Counter) => matches!(
            name,
            "most_common" | "elements" | "update" | "subtract" | "total" | "copy"
        ),
        Some(Flavor::OrderedDict) => matches!(name, "move_to_end" | "popitem" | "copy"),
        Some(Flavor::DefaultDict(_)) => name == "copy",
        Some(Flavor::MappingProxy) => false,
        None => false,
    }
}

impl Machine {
    /// `d[k]` of a flavored dict when `k` is missing: `Counter` gives 0, `defaultdict`
    /// stores and returns `default_factory()`. `None` when the dict has no such rule.
    pub(crate) fn dict_missing(&mut self, d: &DictRef, k: &Value) -> Option<R<Value>> {
        match flavor_of(d).as_deref() {
            Some(Flavor::Counter) => Some(Ok(Value::Int(0))),
            Some(Flavor::DefaultDict(f)) if !matches!(f, Value::None) => {
                let f = f.clone();
                Some(self.call(&f, Vec::new(), Vec::new()).and_then(|v| {
                    set(d, k.clone(), v.clone())?;
                    Ok(v)
                }))
            }
            _ => None,
        }
    }

    /// `d.default_factory` and the methods of a flavored dict.
    pub(crate) fn flavored_attr(&mut self, d: &DictRef, name: &str) -> Option<Value> {
        if let (Some(Flavor::DefaultDict(f)), "default_factory") = (flavor_of(d).as_deref(), name) {
            return Some(f.clone());
        }
        None
    }

    fn count_into(&mut self, d: &DictRef, source: Value, sign: BinOp) -> R<()> {
        if let Value::Dict(src) = &source {
            for (k, v) in entries(src) {
                self.tick()?;
                let cur = get(d, &k)?.unwrap_or(Value::Int(0));
                set(d, k, ops::binary(sign, &cur, &v)?)?;
            }
            return Ok(());
        }
        let mut it = self.iter_of(source)?;
        while let Some(x) = self.next(&mut it)? {
            self.tick()?;
            let cur = get(d, &x)?.unwrap_or(Value::Int(0));
            set(d, x, ops::binary(sign, &cur, &Value::Int(1))?)?;
        }
        Ok(())
    }

    /// A method of a flavored dict (see [`has_flavored_method`]).
    pub(crate) fn flavored_method(
        &mut self,
        d: &DictRef,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let flavor = flavor_of(d);
        match (flavor.as_deref(), name) {
            (Some(f), "copy") => {
                no_kwargs("copy", &kwargs)?;
                arity("copy", &args, 0, 0)?;
                let mut c = d.borrow().copy();
                c.flavor = Some(Rc::new(match f {
                    Flavor::Counter => Flavor::Counter,
                    Flavor::DefaultDict(v) => Flavor::DefaultDict(v.clone()),
                    Flavor::OrderedDict => Flavor::OrderedDict,
                    Flavor::MappingProxy => Flavor::MappingProxy,
                }));
                Ok(Value::Dict(Rc::new(RefCell::new(c))))
            }
            (_, "most_common") => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 0, 1)?;
                let mut items = by_count(d);
                if let Some(n) = args.first().filter(|v| !matches!(v, Value::None)) {
                    items.truncate(index_arg(n)?.max(0) as usize);
                }
                Ok(Value::list(
                    items
                        .into_iter()
                        .map(|(k, v)| Value::tuple(vec![k, v]))
                        .collect(),
                ))
            }
            (_, "elements") => {
                arity(name, &args, 0, 0)?;
                let mut out = Vec::new();
                for (k, v) in entries(d) {
                    if !v.is_int() {
                        return type_error(format!(
                            "'{}' object cannot be interpreted as an integer",
                            v.type_name()
                        ));
                    }
                    let n = index_arg(&v)?.max(0) as usize;
                    crate::interp::budget::produce(n, 16)?;
                    out.extend(std::iter::repeat_n(k, n));
                }
                Ok(IterState::Items {
                    items: out,
                    index: 0,
                    kind: TypeKind::ListIterator,
                }
                .into_value())
            }
            (_, "total") => {
                arity(name, &args, 0, 0)?;
                let mut acc = Value::Int(0);
                for (_, v) in entries(d) {
                    acc = ops::binary(BinOp::Add, &acc, &v)?;
                }
                Ok(acc)
            }
            (_, "update" | "subtract") => {
                arity(name, &args, 0, 1)?;
                let sign = if name == "update" {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                if let Some(src) = args.into_iter().next() {
                    self.count_into(d, src, sign)?;
                }
                for (k, v) in kwargs {
                    let k = Value::str(&*k);
                    let cur = get(d, &k)?.unwrap_or(Value::Int(0));
                    set(d, k, ops::binary(sign, &cur, &v)?)?;
                }
                Ok(Value::None)
            }
            (_, "move_to_end") => {
                let [last_kw] = take_kwargs(name, kwargs, ["last"])?;
                arity(name, &args, 1, 2)?;
                let last = args.get(1).or(last_kw.as_ref()).is_none_or(truthy);
                let key = key_of(&args[0])?;
                let Some((k, v)) = d.borrow_mut().remove(&key) else {
                    return Err(Unwind::from_object(ExcObject::new(
                        ExcClass::Builtin(ExcKind::KeyError),
                        vec![args[0].clone()],
                    )));
                };
                if last {
                    d.borrow_mut().insert(key, k, v);
                } else {
                    let rest = entries(d);
                    let mut db = d.borrow_mut();
                    db.clear();
                    db.insert(key, k, v);
                    for (k2, v2) in rest {
                        let key2 = key_of(&k2)?;
                        db.insert(key2, k2, v2);
                    }
                }
                Ok(Value::None)
            }
            (_, "popitem") => {
                let [last_kw] = take_kwargs(name, kwargs, ["last"])?;
                arity(name, &args, 0, 1)?;
                let last = args.first().or(last_kw.as_ref()).is_none_or(truthy);
                let entry = if last {
                    d.borrow_mut().pop_last()
                } else {
                    let first = d.borrow().iter().next().cloned();
                    match first {
                        Some((k, _)) => d.borrow_mut().remove(&key_of(&k)?),
                        None => None,
                    }
                };
                match entry {
                    Some((k, v)) => Ok(Value::tuple(vec![k, v])),
                    None => fail(ExcKind::KeyError, "dictionary is empty"),
                }
            }
            _ => type_error(format!("no method {name}")),
        }
    }

    pub(super) fn call_collections(
        &mut self,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        match f {
            StdFn::Counter => {
                arity("Counter", &args, 0, 1)?;
                let d = new_dict(Flavor::Counter);
                self.flavored_method(&d, "update", args, kwargs)?;
                Ok(Value::Dict(d))
            }
            StdFn::DefaultDict => {
                let mut it = args.into_iter();
                let factory = it.next().unwrap_or(Value::None);
                if !matches!(factory, Value::None) && !self.is_callable(&factory) {
                    return type_error("first argument must be callable or None");
                }
                let rest: Vec<Value> = it.collect();
                let d = new_dict(Flavor::DefaultDict(factory));
                self.fill(&d, rest, kwargs)?;
                Ok(Value::Dict(d))
            }
            StdFn::OrderedDict => {
                let d = new_dict(Flavor::OrderedDict);
                self.fill(&d, args, kwargs)?;
                Ok(Value::Dict(d))
            }
            StdFn::Deque => {
                let [iterable_kw, maxlen_kw] =
                    take_kwargs("deque", kwargs, ["iterable", "maxlen"])?;
                arity("deque", &args, 0, 2)?;
                let maxlen = match args.get(1).or(maxlen_kw.as_ref()) {
                    None | Some(Value::None) => None,
                    Some(v) => {
                        let n = index_arg(v)?;
                        if n < 0 {
                            return fail(ExcKind::ValueError, "maxlen must be non-negative");
                        }
                        Some(n as usize)
                    }
                };
                let items = match args.first().cloned().or(iterable_kw) {
                    Some(src) => self.collect(src)?,
                    None => Vec::new(),
                };
                let mut q = VecDeque::new();
                for x in items {
                    push_back(&mut q, x, maxlen);
                }
                Ok(StdObj::Deque(RefCell::new(q), maxlen).into_value())
            }
            _ => type_error(format!("{} is not in collections", f.name())),
        }
    }

    /// `dict.update(args, **kwargs)` into `d`.
    fn fill(&mut self, d: &DictRef, args: Vec<Value>, kwargs: Kwargs) -> R<()> {
        if args.len() > 1 {
            return type_error(format!("expected at most 1 argument, got {}", args.len()));
        }
        self.method(&Value::Dict(d.clone()), "update", args, kwargs)
            .map(|_| ())
    }

    /// A method of a deque.
    pub(super) fn deque_method(
        &mut self,
        q: &RefCell<VecDeque<Value>>,
        maxlen: Option<usize>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        no_kwargs(name, &kwargs)?;
        let one = |args: &[Value]| -> R<Value> {
            arity(name, args, 1, 1)?;
            Ok(args[0].clone())
        };
        match name {
            "append" => push_back(&mut q.borrow_mut(), one(&args)?, maxlen),
            "appendleft" => push_front(&mut q.borrow_mut(), one(&args)?, maxlen),
            "pop" | "popleft" => {
                arity(name, &args, 0, 0)?;
                let v = if name == "pop" {
                    q.borrow_mut().pop_back()
                } else {
                    q.borrow_mut().pop_front()
                };
                return v
                    .ok_or_else(|| Unwind::new(ExcKind::IndexError, "pop from an empty deque"));
            }
            "extend" | "extendleft" => {
                let items = self.collect(one(&args)?)?;
                let mut q = q.borrow_mut();
                for x in items {
                    if name == "extend" {
                        push_back(&mut q, x, maxlen);
                    } else {
                        push_front(&mut q, x, maxlen);
                    }
                }
            }
            "rotate" => {
                arity(name, &args, 0, 1)?;
                let n = match args.first() {
                    Some(v) => index_arg(v)?,
                    None => 1,
                };
                let mut q = q.borrow_mut();
                let len = q.len() as i64;
                if len > 0 {
                    let k = n.rem_euclid(len) as usize;
                    q.rotate_right(k);
                }
            }
            "clear" => q.borrow_mut().clear(),
            "reverse" => {
                let mut q = q.borrow_mut();
                let v: Vec<Value> = q.drain(..).rev().collect();
                q.extend(v);
            }
            "count" => {
                let x = one(&args)?;
                let items: Vec<Value> = q.borrow().iter().cloned().collect();
                let mut n = 0;
                for v in &items {
                    if ops::is(v, &x) || ops::eq(v, &x)? {
                        n += 1;
                    }
                }
                return Ok(Value::Int(n));
            }
            "index" => {
                let x = one(&args)?;
                let items: Vec<Value> = q.borrow().iter().cloned().collect();
                for (i, v) in items.iter().enumerate() {
                    if ops::is(v, &x) || ops::eq(v, &x)? {
                        return Ok(Value::Int(i as i64));
                    }
                }
                return fail(
                    ExcKind::ValueError,
                    format!("{} is not in deque", crate::interp::repr::repr(&x)?),
                );
            }
            "remove" => {
                let x = one(&args)?;
                let items: Vec<Value> = q.borrow().iter().cloned().collect();
                for (i, v) in items.iter().enumerate() {
                    if ops::is(v, &x) || ops::eq(v, &x)? {
                        q.borrow_mut().remove(i);
                        return Ok(Value::None);
                    }
                }
                return fail(
                    ExcKind::ValueError,
                    format!("{} is not in deque", crate::interp::repr::repr(&x)?),
                );
            }
            "copy" => {
                arity(name, &args, 0, 0)?;
                return Ok(StdObj::Deque(RefCell::new(q.borrow().clone()), maxlen).into_value());
            }
            _ => {
                return fail(
                    ExcKind::AttributeError,
                    format!("'collections.deque' object has no attribute '{name}'"),
                );
            }
        }
        Ok(Value::None)
    }
}

fn push_back(q: &mut VecDeque<Value>, x: Value, maxlen: Option<usize>) {
    if maxlen == Some(0) {
        return;
    }
    if maxlen.is_some_and(|m| q.len() >= m) {
        q.pop_front();
    }
    q.push_back(x);
}

fn push_front(q: &mut VecDeque<Value>, x: Value, maxlen: Option<usize>) {
    if maxlen == Some(0) {
        return;
    }
    if maxlen.is_some_and(|m| q.len() >= m) {
        q.pop_back();
    }
    q.push_front(x);
}

/// The methods of a deque.
pub(crate) const DEQUE_METHODS: &[&str] = &[
    "append",
    "appendleft",
    "pop",
    "popleft",
    "extend",
    "extendleft",
    "rotate",
    "clear",
    "reverse",
    "count",
    "index",
    "remove",
    "copy",
];

/// `d[i]` of a deque.
pub(crate) fn deque_index(q: &RefCell<VecDeque<Value>>, i: &Value) -> R<usize> {
    if !i.is_int() {
        return type_error(format!(
            "sequence index must be integer, not '{}'",
            i.type_name()
        ));
    }
    let n = q.borrow().len() as i64;
    let k = index_arg(i)?;
    let k = if k < 0 { k + n } else { k };
    if k < 0 || k >= n {
        return fail(ExcKind::IndexError, "deque index out of range");
    }
    Ok(k as usize)
}
