//! Iteration: the iterator states of lists, tuples, strs, ranges, dicts, builtin iterator
//! objects and generator expressions (lazy, resumable), and the comprehensions that drive
//! them.

use std::cell::RefCell;
use std::rc::Rc;

use super::code::{Body, Code, CodeKind, Comprehension};
use super::dict::Dict;
use super::exc::{ExcKind, R, Unwind, fail, type_error};
use super::exec::capture;
use super::machine::{Frame, Machine};
use super::ops::{self, truthy};
use super::set::SetObj;
use super::value::{Str, TypeKind, Value, ViewKind};
use crate::python::ir::ComprehensionKind;

/// A paused generator expression: its frame and the iterators of its active loops.
pub(crate) struct GenState {
    code: Rc<Code>,
    frame: Frame,
    stack: Vec<IterState>,
}

/// Where an iteration is.
pub(crate) enum IterState {
    /// `None` once exhausted (a finished list iterator stays finished).
    List {
        list: Option<Rc<RefCell<Vec<Value>>>>,
        index: usize,
    },
    ListReversed {
        list: Option<Rc<RefCell<Vec<Value>>>>,
        index: usize,
    },
    Tuple {
        items: Rc<Vec<Value>>,
        index: usize,
    },
    Str {
        text: Rc<Str>,
        byte: usize,
    },
    Range {
        next: i128,
        remaining: i128,
        step: i128,
    },
    Dict {
        dict: Option<Rc<RefCell<Dict>>>,
        pos: usize,
        kind: ViewKind,
        len: usize,
        version: u64,
    },
    /// Items computed up front (`reversed` of a tuple, str or dict).
    Items {
        items: Vec<Value>,
        index: usize,
        kind: TypeKind,
    },
    Enumerate {
        inner: Box<IterState>,
        count: Value,
    },
    Zip {
        inners: Vec<IterState>,
        /// `zip(..., strict=True)`: unequal lengths raise `ValueError`.
        strict: bool,
    },
    Map {
        func: Value,
        inners: Vec<IterState>,
    },
    Filter {
        func: Value,
        inner: Box<IterState>,
    },
    /// An iterator object iterated by another (`for x in it`, `enumerate(it)`).
    Shared(Rc<RefCell<IterState>>),
    Generator(Box<GenState>),
    /// A generator whose next value is being computed.
    Running,
    /// An instance of a user class with `__next__` (what its `__iter__` returned).
    Object(Value),
    /// A generator function's generator.
    Coroutine(Box<super::generator::GenObj>),
    /// A set's elements in table order; `len` is its size when iteration began.
    Set {
        set: Option<Rc<RefCell<SetObj>>>,
        pos: usize,
        len: usize,
    },
    /// An `itertools` iterator.
    Std(Box<super::stdlib::StdIter>),
}

/// Takes a shared iterator's state out to advance it, leaving `Running` in its place (so
/// that advancing it again meanwhile is "generator already executing").
pub(crate) fn take_running(shared: &RefCell<IterState>) -> IterState {
    std::mem::replace(&mut *shared.borrow_mut(), IterState::Running)
}

/// Puts back the state [`take_running`] took. The slot holds `Running`, which owns nothing,
/// so it is forgotten rather than dropped (this is on the path of every generator resume).
pub(crate) fn put_back(shared: &RefCell<IterState>, state: IterState) {
    let running = std::mem::replace(&mut *shared.borrow_mut(), state);
    debug_assert!(matches!(running, IterState::Running));
    std::mem::forget(running);
}

impl IterState {
    pub fn type_kind(&self) -> TypeKind {
        match self {
            IterState::List { .. } => TypeKind::ListIterator,
            IterState::ListReversed { .. } => TypeKind::ListReverseIterator,
            IterState::Tuple { .. } => TypeKind::TupleIterator,
            IterState::Str { .. } => TypeKind::StrIterator,
            IterState::Range { .. } => TypeKind::RangeIterator,
            IterState::Dict {
                kind: ViewKind::Keys,
                ..
            } => TypeKind::DictKeyIterator,
            IterState::Dict {
                kind: ViewKind::Values,
                ..
            } => TypeKind::DictValueIterator,
            IterState::Dict {
                kind: ViewKind::Items,
                ..
            } => TypeKind::DictItemIterator,
            IterState::Items { kind, .. } => *kind,
            IterState::Enumerate { .. } => TypeKind::Enumerate,
            IterState::Zip { .. } => TypeKind::Zip,
            IterState::Map { .. } => TypeKind::Map,
            IterState::Filter { .. } => TypeKind::Filter,
            IterState::Shared(inner) => inner
                .try_borrow()
                .map_or(TypeKind::Generator, |i| i.type_kind()),
            IterState::Generator(_) | IterState::Running => TypeKind::Generator,
            IterState::Object(_) => TypeKind::Object,
            IterState::Set { .. } => TypeKind::SetIterator,
            IterState::Coroutine(_) => TypeKind::Generator,
            IterState::Std(_) => TypeKind::Object,
        }
    }

    pub fn repr(&self) -> String {
        match self {
            IterState::Generator(g) => format!("<generator object {}>", g.code.qualname),
            IterState::Coroutine(g) => g.repr(),
            IterState::Std(s) => format!("<itertools.{} object>", s.name()),
            other => format!("<{} object>", other.type_kind().name()),
        }
    }

    /// A new iterator object.
    pub fn into_value(self) -> Value {
        Value::Iter(Rc::new(RefCell::new(self)))
    }
}

impl Machine {
    pub fn is_iterable(&self, v: &Value) -> bool {
        match v {
            Value::Instance(i) => return i.class.defines("__iter__") || i.class.is_named_tuple(),
            Value::Class(c) => return c.is_enum(),
            _ => {}
        }
        matches!(
            v,
            Value::List(_)
                | Value::Tuple(_)
                | Value::Str(_)
                | Value::Range(_)
                | Value::Dict(_)
                | Value::View(_)
                | Value::Iter(_)
                | Value::Set(_)
                | Value::Bytes(_)
        ) || matches!(v, Value::Std(o) if o.len().is_some())
    }

    /// `iter(v)`.
    pub fn iter_of(&mut self, v: Value) -> R<IterState> {
        Ok(match v {
            Value::List(list) => IterState::List {
                list: Some(list),
                index: 0,
            },
            Value::Tuple(items) => IterState::Tuple { items, index: 0 },
            Value::Bytes(b) => IterState::Items {
                items: b.iter().map(|x| Value::Int(*x as i64)).collect(),
                index: 0,
                kind: TypeKind::BytesIterator,
            },
            Value::Str(text) => IterState::Str { text, byte: 0 },
            Value::Range(r) => IterState::Range {
                next: r.start as i128,
                remaining: r.len(),
                step: r.step as i128,
            },
            Value::Dict(d) => dict_iter(d, ViewKind::Keys),
            Value::View(view) => dict_iter(view.dict.clone(), view.kind),
            Value::Iter(it) => IterState::Shared(it),
            Value::Set(s) => {
                let len = s.borrow().len();
                IterState::Set {
                    set: Some(s),
                    pos: 0,
                    len,
                }
            }
            Value::Std(o) if o.len().is_some() => IterState::Items {
                items: super::stdlib::items_of(&o),
                index: 0,
                kind: TypeKind::ListIterator,
            },
            Value::Unavailable(what) => return Err(Unwind::unsupported(what.to_string())),
            Value::Instance(ref i) => {
                if let Some(t) = self.as_tuple(&v) {
                    if !i.class.defines("__iter__") {
                        return self.iter_of(t);
                    }
                }
                match self.dunder(&v, "__iter__", Vec::new())? {
                    Some(Value::Instance(o)) => IterState::Object(Value::Instance(o)),
                    Some(Value::Iter(it)) => IterState::Shared(it),
                    Some(other @ (Value::List(_) | Value::Tuple(_) | Value::Str(_))) => {
                        return type_error(format!(
                            "iter() returned non-iterator of type '{}'",
                            other.type_name()
                        ));
                    }
                    Some(other) => return self.iter_of(other),
                    None => {
                        return type_error(format!("'{}' object is not iterable", v.type_name()));
                    }
                }
            }
            Value::Class(ref c) if c.is_enum() => IterState::Items {
                items: c.members.borrow().clone(),
                index: 0,
                kind: TypeKind::Object,
            },
            other => return type_error(format!("'{}' object is not iterable", other.type_name())),
        })
    }

    /// The next item, or `None` when the iteration is over.
    pub fn next(&mut self, it: &mut IterState) -> R<Option<Value>> {
        match it {
            IterState::Coroutine(g) => {
                self.gen_resume(g, super::generator::Resume::Send(Value::None))
            }
            IterState::Set { set, pos, len } => {
                let Some(s) = set.as_ref() else {
                    return Ok(None);
                };
                let next = {
                    let s = s.borrow();
                    if s.len() != *len {
                        *len = usize::MAX;
                        return fail(ExcKind::RuntimeError, "Set changed size during iteration");
                    }
                    s.entry_from(*pos)
                };
                match next {
                    Some((p, v)) => {
                        *pos = p;
                        Ok(Some(v))
                    }
                    None => {
                        *set = None;
                        Ok(None)
                    }
                }
            }
            IterState::List { list, index } => {
                let item = list.as_ref().and_then(|l| l.borrow().get(*index).cloned());
                match item {
                    Some(v) => {
                        *index += 1;
                        Ok(Some(v))
                    }
                    None => {
                        *list = None;
                        Ok(None)
                    }
                }
            }
            IterState::ListReversed { list, index } => {
                let item = match list {
                    Some(l) if *index > 0 => l.borrow().get(*index - 1).cloned(),
                    _ => None,
                };
                match item {
                    Some(v) => {
                        *index -= 1;
                        Ok(Some(v))
                    }
                    None => {
                        *list = None;
                        Ok(None)
                    }
                }
            }
            IterState::Tuple { items, index } => {
                let item = items.get(*index).cloned();
                if item.is_some() {
                    *index += 1;
                }
                Ok(item)
            }
            IterState::Str { text, byte } => match text.as_str()[*byte..].chars().next() {
                Some(c) => {
                    *byte += c.len_utf8();
                    Ok(Some(Value::str(c.to_string())))
                }
                None => Ok(None),
            },
            IterState::Range {
                next,
                remaining,
                step,
            } => {
                if *remaining <= 0 {
                    return Ok(None);
                }
                let v = *next;
                *next += *step;
                *remaining -= 1;
                Ok(Some(Value::int128(v)))
            }
            IterState::Dict {
                dict,
                pos,
                kind,
                len,
                version,
            } => {
                let Some(d) = dict.as_ref() else {
                    return Ok(None);
                };
                let d2 = d.clone();
                let d = d2.borrow();
                if d.len() != *len {
                    *len = d.len();
                    return fail(
                        ExcKind::RuntimeError,
                        "dictionary changed size during iteration",
                    );
                }
                if d.version != *version {
                    *version = d.version;
                    return fail(
                        ExcKind::RuntimeError,
                        "dictionary keys changed during iteration",
                    );
                }
                match d.entry_from(*pos) {
                    Some((i, (k, v))) => {
                        *pos = i + 1;
                        Ok(Some(match kind {
                            ViewKind::Keys => k.clone(),
                            ViewKind::Values => v.clone(),
                            ViewKind::Items => Value::tuple(vec![k.clone(), v.clone()]),
                        }))
                    }
                    None => {
                        drop(d);
                        *dict = None;
                        Ok(None)
                    }
                }
            }
            IterState::Items { items, index, .. } => {
                let item = items.get(*index).cloned();
                if item.is_some() {
                    *index += 1;
                }
                Ok(item)
            }
            IterState::Enumerate { inner, count } => match self.next(inner)? {
                Some(v) => {
                    let n = count.clone();
                    *count = ops::binary(crate::python::ir::BinOp::Add, count, &Value::Int(1))?;
                    Ok(Some(Value::tuple(vec![n, v])))
                }
                None => Ok(None),
            },
            IterState::Zip { inners, strict } => {
                if inners.is_empty() {
                    return Ok(None);
                }
                let mut items = Vec::with_capacity(inners.len());
                for (i, inner) in inners.iter_mut().enumerate() {
                    match self.next(inner)? {
                        Some(v) => items.push(v),
                        None if *strict && i > 0 => return zip_unequal(i, "shorter"),
                        None if *strict => {
                            for (j, rest) in inners.iter_mut().enumerate().skip(1) {
                                if self.next(rest)?.is_some() {
                                    return zip_unequal(j, "longer");
                                }
                            }
                            return Ok(None);
                        }
                        None => return Ok(None),
                    }
                }
                Ok(Some(Value::tuple(items)))
            }
            IterState::Map { func, inners } => {
                let mut args = Vec::with_capacity(inners.len());
                for inner in inners.iter_mut() {
                    match self.next(inner)? {
                        Some(v) => args.push(v),
                        None => return Ok(None),
                    }
                }
                let func = func.clone();
                self.call(&func, args, Vec::new()).map(Some)
            }
            IterState::Filter { func, inner } => loop {
                let Some(v) = self.next(inner)? else {
                    return Ok(None);
                };
                self.tick()?;
                let keep = match &*func {
                    Value::None => truthy(&v),
                    f => {
                        let f = f.clone();
                        truthy(&self.call(&f, vec![v.clone()], Vec::new())?)
                    }
                };
                if keep {
                    return Ok(Some(v));
                }
            },
            IterState::Shared(shared) => {
                let mut state = take_running(shared);
                if matches!(state, IterState::Running) {
                    return fail(ExcKind::ValueError, "generator already executing");
                }
                let result = self.next(&mut state);
                put_back(shared, state);
                result
            }
            IterState::Generator(g) => self.generator_next(g),
            IterState::Std(s) => self.std_next(s),
            IterState::Running => fail(ExcKind::ValueError, "generator already executing"),
            IterState::Object(obj) => {
                let obj = obj.clone();
                match self.dunder(&obj, "__next__", Vec::new()) {
                    Ok(Some(v)) => Ok(Some(v)),
                    Ok(None) => {
                        type_error(format!("'{}' object is not an iterator", obj.type_name()))
                    }
                    Err(unwind)
                        if unwind
                            .raises(&super::exc::ExcClass::Builtin(ExcKind::StopIteration)) =>
                    {
                        Ok(None)
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// All items of an iterable, one step each.
    pub fn collect(&mut self, v: Value) -> R<Vec<Value>> {
        match &v {
            Value::List(items) => return Ok(items.borrow().clone()),
            Value::Tuple(items) => return Ok(items.to_vec()),
            _ => {}
        }
        let mut it = self.iter_of(v)?;
        let mut out = Vec::new();
        while let Some(item) = self.next(&mut it)? {
            self.tick()?;
            out.push(item);
            ops::check_len(out.len())?;
        }
        Ok(out)
    }

    /// Runs a comprehension whose first iterable is `iterable`; a generator expression
    /// becomes a lazy iterator.
    pub fn comprehension(&mut self, f: &Frame, code: &Rc<Code>, iterable: Value) -> R<Value> {
        let first = self.iter_of(iterable)?;
        let frame = Frame::new(code, &capture(f, &code.free_sources)?);
        let (Body::Comprehension(comp), CodeKind::Comprehension(kind)) = (&code.body, code.kind)
        else {
            return Err(Unwind::unsupported("a malformed comprehension"));
        };
        if kind == ComprehensionKind::Generator {
            let state = GenState {
                code: code.clone(),
                frame,
                stack: vec![first],
            };
            return Ok(IterState::Generator(Box::new(state)).into_value());
        }
        let mut frame = frame;
        self.enter(code)?;
        let mut out = Collected::new(kind);
        let result = self.comprehension_loop(&mut frame, comp, 0, first, &mut out);
        let result = result.map_err(|e| self.annotate(e, code.line, &code.text, &code.qualname));
        self.leave();
        result?;
        Ok(out.into_value())
    }

    fn comprehension_loop(
        &mut self,
        frame: &mut Frame,
        comp: &Comprehension,
        level: usize,
        mut it: IterState,
        out: &mut Collected,
    ) -> R<()> {
        let Some(g) = comp.generators.get(level) else {
            return Ok(());
        };
        'items: while let Some(v) = self.next(&mut it)? {
            self.tick()?;
            self.assign(frame, &g.target, v)?;
            for cond in &g.ifs {
                if !truthy(&self.eval(frame, cond)?) {
                    continue 'items;
                }
            }
            match comp.generators.get(level + 1) {
                Some(inner) => {
                    let iterable = match &inner.iter {
                        Some(e) => self.eval(frame, e)?,
                        None => return Err(Unwind::unsupported("a malformed comprehension")),
                    };
                    let inner_it = self.iter_of(iterable)?;
                    self.comprehension_loop(frame, comp, level + 1, inner_it, out)?;
                }
                None => {
                    let elt = self.eval(frame, &comp.elt)?;
                    match out {
                        Collected::List(items) => {
                            items.push(elt);
                            ops::check_len(items.len())?;
                        }
                        Collected::Dict(d) => {
                            let value = match &comp.value {
                                Some(e) => self.eval(frame, e)?,
                                None => Value::None,
                            };
                            d.insert(self.hash_key(&elt)?, elt, value);
                        }
                        Collected::Set(s) => self.set_add(s, elt)?,
                    }
                }
            }
        }
        Ok(())
    }

    fn generator_next(&mut self, g: &mut GenState) -> R<Option<Value>> {
        if g.stack.is_empty() {
            return Ok(None);
        }
        let code = g.code.clone();
        self.enter(&code)?;
        let result = self.generator_step(g);
        let result = result.map_err(|e| self.annotate(e, code.line, &code.text, &code.qualname));
        self.leave();
        if result.is_err() {
            g.stack.clear();
        }
        result
    }

    fn generator_step(&mut self, g: &mut GenState) -> R<Option<Value>> {
        let code = g.code.clone();
        let Body::Comprehension(comp) = &code.body else {
            return Ok(None);
        };
        'items: loop {
            let level = g.stack.len();
            let Some(top) = g.stack.last_mut() else {
                return Ok(None);
            };
            let Some(v) = self.next(top)? else {
                g.stack.pop();
                continue;
            };
            self.tick()?;
            let Some(this) = comp.generators.get(level - 1) else {
                return Ok(None);
            };
            self.assign(&mut g.frame, &this.target, v)?;
            for cond in &this.ifs {
                if !truthy(&self.eval(&mut g.frame, cond)?) {
                    continue 'items;
                }
            }
            if let Some(inner) = comp.generators.get(level) {
                let iterable = match &inner.iter {
                    Some(e) => self.eval(&mut g.frame, e)?,
                    None => return Err(Unwind::unsupported("a malformed comprehension")),
                };
                let it = self.iter_of(iterable)?;
                g.stack.push(it);
                continue;
            }
            return self.eval(&mut g.frame, &comp.elt).map(Some);
        }
    }
}

fn dict_iter(d: Rc<RefCell<Dict>>, kind: ViewKind) -> IterState {
    let (len, version) = {
        let b = d.borrow();
        (b.len(), b.version)
    };
    IterState::Dict {
        dict: Some(d),
        pos: 0,
        kind,
        len,
        version,
    }
}

/// What a list or dict comprehension builds.
enum Collected {
    List(Vec<Value>),
    Dict(Dict),
    Set(SetObj),
}

impl Collected {
    fn new(kind: ComprehensionKind) -> Collected {
        match kind {
            ComprehensionKind::Dict => Collected::Dict(Dict::default()),
            ComprehensionKind::Set => Collected::Set(SetObj::new(false)),
            _ => Collected::List(Vec::new()),
        }
    }

    fn into_value(self) -> Value {
        match self {
            Collected::List(items) => Value::list(items),
            Collected::Dict(d) => Value::Dict(Rc::new(RefCell::new(d))),
            Collected::Set(s) => Value::Set(Rc::new(RefCell::new(s))),
        }
    }
}

/// CPython's `ValueError` when argument `i` (from 0) of `zip(strict=True)` ends early or late.
fn zip_unequal<T>(i: usize, how: &str) -> R<T> {
    let before = if i == 1 {
        "argument 1".to_string()
    } else {
        format!("arguments 1-{i}")
    };
    Err(Unwind::new(
        ExcKind::ValueError,
        format!("zip() argument {} is {how} than {before}", i + 1),
    ))
}
