//! The machine that runs compiled code: frames, the step budget and cancellation, output
//! buffering, variable access and expression evaluation. Statements are in `exec`, calls in
//! `call`, iteration in `iter`.

use std::rc::Rc;
use std::time::{Duration, Instant};

use super::Stream;
use super::budget;
use super::code::{Arg, Code, DictItem, Expr, FPart, Kwarg, Var};
use super::dict::Dict;
use super::dunder::{is_instance, is_marker};
use super::exc::{Abort, ExcKind, ExcObject, R, TbEntry, Unwind, fail, type_error};
use super::format;
use super::globals::Globals;
use super::limits::{self, Limits};
use super::ops;
use super::value::{Cell, Value};
use crate::cancel::Cancel;
use crate::python::ir::{CmpOp, Conversion};

/// Where printed text goes while a run is in progress.
pub(crate) type Sink = Box<dyn FnMut(Stream, String)>;

/// The variables of one activation.
pub(crate) struct Frame {
    pub locals: Vec<Option<Value>>,
    /// Own cells, then the closure's.
    pub cells: Vec<Cell>,
    pub ncells: usize,
}

impl Frame {
    pub fn new(code: &Code, closure: &[Cell]) -> Frame {
        Frame {
            locals: vec![None; code.nlocals],
            cells: cells_of(code, closure),
            ncells: code.ncells,
        }
    }

    /// A frame whose locals are given (arguments first).
    pub fn with_locals(code: &Code, closure: &[Cell], locals: Vec<Option<Value>>) -> Frame {
        Frame {
            locals,
            cells: cells_of(code, closure),
            ncells: code.ncells,
        }
    }

    /// The frame of module code: every name is global.
    pub fn module() -> Frame {
        Frame {
            locals: Vec::new(),
            cells: Vec::new(),
            ncells: 0,
        }
    }
}

/// New cells for a frame of `code`, then the closure's.
fn cells_of(code: &Code, closure: &[Cell]) -> Vec<Cell> {
    if code.ncells == 0 && closure.is_empty() {
        return Vec::new();
    }
    let mut cells = Vec::with_capacity(code.ncells + closure.len());
    cells.extend((0..code.ncells).map(|_| Cell::default()));
    cells.extend(closure.iter().cloned());
    cells
}

/// A Python exception being handled, for a bare `raise`.
pub(crate) struct Handled {
    pub exc: Rc<ExcObject>,
    pub tb: Vec<TbEntry>,
}

pub(crate) struct Machine {
    pub globals: Globals,
    pub limits: Limits,
    steps_left: u64,
    cancel: Cancel,
    /// Current call depth (0 in module code).
    pub depth: u32,
    pub handling: Vec<Handled>,
    /// Emptied locals vectors of finished calls, reused by the next ones.
    pub pool: Vec<Vec<Option<Value>>>,
    /// Iterators a store, `del` or a finished frame let go of: a suspended generator among
    /// them that nothing else refers to is closed at the end of the statement or frame
    /// (`generator::release_dropped`), as CPython closes it when its last reference goes.
    pub dropped: Vec<std::rc::Rc<std::cell::RefCell<super::iter::IterState>>>,
    sink: Option<Sink>,
    pending: String,
    pending_stream: Stream,
    last_flush: Instant,
    pub(crate) stack_base: usize,
    pub(crate) stack_room: usize,
    /// The yielder of the innermost running generator (null outside generators).
    pub(crate) yielder: *const super::generator::Y,
    /// The line trace of `%run`, when on (`trace.rs`).
    pub(crate) trace: Option<super::trace::Trace>,
    /// The last three cell results, newest first, as IPython's `_`, `__`, `___` hold them
    /// (kept here, so a user's own `_ = ...` does not shift the history).
    pub(crate) results: [Option<Value>; 3],
}

/// An address on the current stack (its distance from a base measures stack use).
#[inline(never)]
pub(crate) fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

impl Machine {
    pub fn new() -> Machine {
        Machine {
            globals: Globals::default(),
            limits: Limits::default(),
            steps_left: 0,
            cancel: Cancel::new(),
            depth: 0,
            handling: Vec::new(),
            pool: Vec::new(),
            dropped: Vec::new(),
            sink: None,
            pending: String::new(),
            pending_stream: Stream::Stdout,
            last_flush: Instant::now(),
            trace: None,
            stack_base: stack_address(),
            stack_room: 1 << 20,
            yielder: std::ptr::null(),
            results: [None, None, None],
        }
    }

    /// Prepares a run: its limits, interrupt flag, output and the stack it may use.
    pub fn begin(&mut self, limits: Limits, cancel: Cancel, sink: Sink, stack_room: usize) {
        limits::set_current(limits);
        budget::begin(limits.step_budget, &cancel);
        self.limits = limits;
        self.steps_left = limits.step_budget;
        self.cancel = cancel;
        self.depth = 0;
        self.handling.clear();
        self.sink = Some(sink);
        self.stack_base = stack_address();
        self.stack_room = stack_room;
    }

    /// Steps the current run has used so far (operations on big values count their size).
    pub fn steps_used(&self) -> u64 {
        self.limits.step_budget.saturating_sub(self.steps_left)
    }

    /// Ends a run: flushes output.
    pub fn finish(&mut self) {
        self.flush();
        self.sink = None;
        budget::end();
    }

    /// Counts one step; stops the run when the budget is spent or the stop signal is set.
    #[inline]
    pub fn tick(&mut self) -> R<()> {
        if self.steps_left == 0 {
            return Err(Unwind::abort(Abort::StepBudget(self.limits.step_budget)));
        }
        self.steps_left -= 1;
        if self.steps_left & 0x3f == 0 {
            return self.poll();
        }
        Ok(())
    }

    /// Every 64 steps: pays the steps big operations charged, checks the memory budget
    /// (a catchable `MemoryError`) and the stop signal (interrupt or time limit).
    #[cold]
    #[inline(never)]
    fn poll(&mut self) -> R<()> {
        let debt = budget::take_debt();
        if debt >= self.steps_left {
            self.steps_left = 0;
            return Err(budget::step_budget_spent());
        }
        self.steps_left -= debt;
        budget::set_left(self.steps_left);
        budget::check_memory()?;
        if let Err(stopped) = self.cancel.check() {
            return Err(Unwind::abort(Abort::Stopped(stopped)));
        }
        Ok(())
    }

    pub fn write(&mut self, stream: Stream, text: &str) {
        if stream != self.pending_stream && !self.pending.is_empty() {
            self.flush();
        }
        self.pending_stream = stream;
        self.pending.push_str(text);
        if self.pending.len() > 1 << 13 || self.last_flush.elapsed() > Duration::from_millis(100) {
            self.flush();
        }
    }

    pub fn flush(&mut self) {
        self.last_flush = Instant::now();
        if self.pending.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.pending);
        if let Some(sink) = self.sink.as_mut() {
            sink(self.pending_stream, text);
        }
    }

    /// Enters a frame of `code`: checks the recursion limit and the native stack.
    pub fn enter(&mut self, _code: &Code) -> R<()> {
        if self.depth >= self.limits.recursion_limit
            || self.stack_base.abs_diff(stack_address()) > self.stack_room
        {
            return fail(ExcKind::RecursionError, "maximum recursion depth exceeded");
        }
        self.depth += 1;
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Records where an exception passes through the current frame (once per frame), and
    /// fills in the line of an unsupported construct.
    pub fn annotate(&self, mut e: Unwind, line: u32, text: &Rc<str>, function: &Rc<str>) -> Unwind {
        match e.kind_mut() {
            super::exc::Unwound::Raise(r) => {
                if r.tb.last().is_none_or(|t| t.depth != self.depth) {
                    r.tb.push(TbEntry {
                        depth: self.depth,
                        function: function.clone(),
                        line,
                        text: text.clone(),
                    });
                }
            }
            super::exc::Unwound::Abort(a) => {
                if let Abort::Unsupported { line: l, .. } = a {
                    if *l == 0 {
                        *l = line;
                    }
                }
            }
        }
        e
    }

    pub fn load(&self, f: &Frame, var: Var, name: &str) -> R<Value> {
        match var {
            Var::Local(i) => match f.locals.get(i as usize) {
                Some(Some(v)) => Ok(v.clone()),
                _ => unbound_local(name),
            },
            Var::Cell(i) => {
                let v = f.cells.get(i as usize).and_then(|c| c.borrow().clone());
                match v {
                    Some(v) => Ok(v),
                    None if (i as usize) < f.ncells => unbound_local(name),
                    None => fail(
                        ExcKind::NameError,
                        format!(
                            "cannot access free variable '{name}' where it is not associated with a value in enclosing scope"
                        ),
                    ),
                }
            }
            Var::Global(g) => match self.globals.get(g) {
                Some(v) => Ok(v.clone()),
                None => fail(ExcKind::NameError, format!("name '{name}' is not defined")),
            },
        }
    }

    pub fn store(&mut self, f: &mut Frame, var: Var, value: Value) {
        match var {
            Var::Local(i) => {
                if let Some(slot) = f.locals.get_mut(i as usize) {
                    let old = slot.replace(value);
                    self.note_dropped(old);
                }
            }
            Var::Cell(i) => {
                if let Some(c) = f.cells.get(i as usize) {
                    let old = c.borrow_mut().replace(value);
                    self.note_dropped(old);
                }
            }
            Var::Global(g) => {
                let old = self.globals.set(g, value);
                self.note_dropped(old);
            }
        }
    }

    /// Keeps an overwritten or deleted iterator for [`Machine::release_dropped`].
    #[inline(always)]
    pub fn note_dropped(&mut self, old: Option<Value>) {
        if let Some(Value::Iter(rc)) = old {
            self.dropped.push(rc);
        }
    }

    /// The value a local or global variable holds, for updating in place (not cells: a
    /// closure may hold the same value).
    pub fn slot_mut<'a>(&'a mut self, f: &'a mut Frame, var: Var) -> Option<&'a mut Value> {
        match var {
            Var::Local(i) => f.locals.get_mut(i as usize)?.as_mut(),
            Var::Global(g) => self.globals.get_mut(g),
            Var::Cell(_) => None,
        }
    }

    /// `del name`.
    pub fn unbind(&mut self, f: &mut Frame, var: Var, name: &str) -> R<()> {
        let old = match var {
            Var::Local(i) => f.locals.get_mut(i as usize).and_then(Option::take),
            Var::Cell(i) => f.cells.get(i as usize).and_then(|c| c.borrow_mut().take()),
            Var::Global(g) => match self.globals.delete(g) {
                Some(v) => Some(v),
                None => {
                    return fail(ExcKind::NameError, format!("name '{name}' is not defined"));
                }
            },
        };
        if old.is_none() {
            return unbound_local(name);
        }
        self.note_dropped(old);
        Ok(())
    }

    /// Unbinds silently (the `as` name after an `except` block).
    pub fn clear(&mut self, f: &mut Frame, var: Var) {
        match var {
            Var::Local(i) => {
                if let Some(slot) = f.locals.get_mut(i as usize) {
                    *slot = None;
                }
            }
            Var::Cell(i) => {
                if let Some(c) = f.cells.get(i as usize) {
                    *c.borrow_mut() = None;
                }
            }
            Var::Global(g) => {
                self.globals.delete(g);
            }
        }
    }

    pub fn eval(&mut self, f: &mut Frame, e: &Expr) -> R<Value> {
        match e {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Load(var, name) => self.load(f, *var, name),
            Expr::Binary(op, a, b) => {
                if let (Some(x), Some(y)) = (self.peek(f, a), self.peek(f, b)) {
                    if !is_instance(x) && !is_instance(y) {
                        match ops::binary(*op, x, y) {
                            Err(e) if is_marker(&e) => {}
                            r => return r,
                        }
                    }
                }
                let x = self.eval(f, a)?;
                // `3 * n + 1`: a small int result and a constant or variable operand.
                if let (Value::Int(p), Some(Value::Int(q))) = (&x, self.peek(f, b)) {
                    if let Some(v) = super::num::int_fast(*op, *p, *q) {
                        return Ok(Value::Int(v));
                    }
                }
                let y = self.eval(f, b)?;
                if is_instance(&x) || is_instance(&y) {
                    return self.binary_dunder(*op, &x, &y);
                }
                match ops::binary(*op, &x, &y) {
                    Err(e) if is_marker(&e) => self.binary_slow(*op, &x, &y, e),
                    r => r,
                }
            }
            Expr::Unary(op, a) => {
                let x = self.eval(f, a)?;
                if is_instance(&x) {
                    return self.unary_dunder(*op, &x);
                }
                ops::unary(*op, &x)
            }
            Expr::And(values) => {
                let mut last = Value::None;
                for v in values {
                    last = self.eval(f, v)?;
                    if !self.truth(&last)? {
                        break;
                    }
                }
                Ok(last)
            }
            Expr::Or(values) => {
                let mut last = Value::None;
                for v in values {
                    last = self.eval(f, v)?;
                    if self.truth(&last)? {
                        break;
                    }
                }
                Ok(last)
            }
            Expr::Compare(left, rest) => {
                let mut a = self.eval(f, left)?;
                for (op, e) in rest {
                    let b = self.eval(f, e)?;
                    if !self.compare(*op, &a, &b)? {
                        return Ok(Value::Bool(false));
                    }
                    a = b;
                }
                Ok(Value::Bool(true))
            }
            Expr::IfExp(parts) => {
                let [test, body, orelse] = &**parts;
                if self.eval_cond(f, test)? {
                    self.eval(f, body)
                } else {
                    self.eval(f, orelse)
                }
            }
            Expr::Call {
                func,
                args,
                kwargs,
                plain,
            } => {
                let callee = self.eval(f, func)?;
                if let (true, Value::Function(fun)) = (*plain, &callee) {
                    let code = &fun.code;
                    if code.params.direct && args.len() == code.params.n_positional {
                        let mut locals = self.pool.pop().unwrap_or_default();
                        locals.reserve(code.nlocals);
                        for a in args {
                            if let Arg::One(e) = a {
                                locals.push(Some(self.eval(f, e)?));
                            }
                        }
                        locals.resize(code.nlocals, None);
                        return self.call_with_locals(fun, locals);
                    }
                }
                if let (true, Value::Class(c)) = (*plain, &callee) {
                    return self.construct_direct(f, c, &callee, args);
                }
                let (pos, kw) = self.eval_args(f, args, kwargs, &callee)?;
                self.call(&callee, pos, kw)
            }
            Expr::CallMethod {
                obj,
                name,
                args,
                kwargs,
            } => {
                let o = self.eval(f, obj)?;
                if let (Value::Instance(inst), true) = (&o, kwargs.is_empty()) {
                    if let Some(func) = super::fastcall::direct_method(inst, name, args) {
                        return self.call_direct(f, &func, o, args);
                    }
                }
                if let (Value::List(l), [Arg::One(e)], true, "append") =
                    (&o, args.as_slice(), kwargs.is_empty(), &**name)
                {
                    return self.append_direct(f, l, e);
                }
                let (pos, kw) = self.eval_args(f, args, kwargs, &Value::None)?;
                if let Value::Instance(inst) = &o {
                    let inst = inst.clone();
                    return self.call_instance_method(&inst, o, name, pos, kw);
                }
                self.call_method(o, name, pos, kw)
            }
            Expr::Attr(obj, name) => {
                // `self.x`: read without taking a reference to the instance.
                if let Some(Value::Instance(inst)) = self.peek(f, obj) {
                    if !inst.class.any_property() {
                        if let Some(v) = inst.get(name) {
                            return Ok(v);
                        }
                    }
                }
                let o = self.eval(f, obj)?;
                self.load_attr(&o, name)
            }
            Expr::Item(obj, index) => {
                let o = self.eval(f, obj)?;
                let i = self.eval(f, index)?;
                self.getitem(&o, &i)
            }
            Expr::Slice {
                obj,
                lower,
                upper,
                step,
            } => {
                let o = self.eval(f, obj)?;
                let lo = self.eval_opt(f, lower.as_deref())?;
                let hi = self.eval_opt(f, upper.as_deref())?;
                let st = self.eval_opt(f, step.as_deref())?;
                self.get_slice_of(&o, &lo, &hi, &st)
            }
            Expr::Tuple(items) => Ok(Value::tuple(self.eval_items(f, items)?)),
            Expr::List(items) => Ok(Value::list(self.eval_items(f, items)?)),
            Expr::Dict(items) => self.eval_dict(f, items),
            Expr::Lambda(def) => self.make_function(f, def).map(Value::Function),
            Expr::Comprehension { code, first } => {
                let iterable = self.eval(f, first)?;
                self.comprehension(f, code, iterable)
            }
            Expr::FString(parts) => self.fstring(f, parts).map(Value::str),
            Expr::Walrus(var, e) => {
                let v = self.eval(f, e)?;
                self.store(f, *var, v.clone());
                Ok(v)
            }
            Expr::Unsupported(construct) => Err(Unwind::unsupported(construct.clone())),
            Expr::Yield(value) => {
                let v = match value {
                    Some(e) => self.eval(f, e)?,
                    None => Value::None,
                };
                self.yield_value(v)
            }
            Expr::YieldFrom(e) => {
                let iterable = self.eval(f, e)?;
                self.yield_from(iterable)
            }
            Expr::Set { items, folded } => {
                let values = self.eval_items(f, items)?;
                let mut s = super::set::SetObj::new(false);
                if *folded {
                    // The compiler's frozenset, rebuilt from its own iteration order when
                    // constants are merged (CPython's `merge_consts_recursive`).
                    let mut first = super::set::SetObj::new(true);
                    for v in values {
                        first.add(v)?;
                    }
                    let mut constant = super::set::SetObj::new(true);
                    for v in first.values() {
                        constant.add(v)?;
                    }
                    s.merge(&constant);
                } else {
                    for v in values {
                        self.set_add(&mut s, v)?;
                    }
                }
                Ok(super::set_ops::new_set(s))
            }
        }
    }

    /// The value of a constant or a bound local or global, without evaluating (or cloning).
    #[inline]
    pub fn peek<'a>(&'a self, f: &'a Frame, e: &'a Expr) -> Option<&'a Value> {
        match e {
            Expr::Const(v) => Some(v),
            Expr::Load(Var::Local(i), _) => f.locals.get(*i as usize)?.as_ref(),
            Expr::Load(Var::Global(g), _) => self.globals.get(*g),
            _ => None,
        }
    }

    /// The truth of a condition, without building the `bool` value of a comparison.
    pub fn eval_cond(&mut self, f: &mut Frame, e: &Expr) -> R<bool> {
        match e {
            Expr::Compare(left, rest) if rest.len() == 1 => {
                let (op, right) = &rest[0];
                if let (Some(a), Some(b)) = (self.peek(f, left), self.peek(f, right)) {
                    if let (Value::Int(x), Value::Int(y)) = (a, b) {
                        if let Some(r) = int_compare(*op, *x, *y) {
                            return Ok(r);
                        }
                    }
                }
                let a = self.eval(f, left)?;
                // `n % 2 == 0`: a small int and a constant or variable, compared in place.
                if let (Value::Int(x), Some(Value::Int(y))) = (&a, self.peek(f, right)) {
                    if let Some(r) = int_compare(*op, *x, *y) {
                        return Ok(r);
                    }
                }
                let b = self.eval(f, right)?;
                self.compare(*op, &a, &b)
            }
            Expr::Unary(crate::python::ir::UnaryOp::Not, x) => self.eval_cond(f, x).map(|t| !t),
            Expr::And(values) => {
                for v in values {
                    if !self.eval_cond(f, v)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Expr::Or(values) => {
                for v in values {
                    if self.eval_cond(f, v)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            other => {
                let v = self.eval(f, other)?;
                match v {
                    Value::Bool(b) => Ok(b),
                    v => self.truth(&v),
                }
            }
        }
    }

    fn eval_opt(&mut self, f: &mut Frame, e: Option<&Expr>) -> R<Value> {
        match e {
            Some(e) => self.eval(f, e),
            None => Ok(Value::None),
        }
    }

    /// `a op b` for any comparison operator.
    pub fn compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<bool> {
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            if let Some(r) = int_compare(op, *x, *y) {
                return Ok(r);
            }
        }
        match op {
            CmpOp::Is => Ok(ops::is(a, b)),
            CmpOp::IsNot => Ok(!ops::is(a, b)),
            CmpOp::In => self.contains(b, a),
            CmpOp::NotIn => self.contains(b, a).map(|c| !c),
            _ if is_instance(a) || is_instance(b) => self.compare_slow(op, a, b),
            _ if matches!(a, Value::Std(_)) => self.compare_std(op, a, b),
            _ => match ops::compare(op, a, b) {
                Err(e) if is_marker(&e) => self.compare_slow(op, a, b),
                other => other,
            },
        }
    }

    /// `item in container`, consuming iterators as CPython does.
    pub fn contains(&mut self, container: &Value, item: &Value) -> R<bool> {
        if let Value::Class(c) = container {
            let member = matches!(item, Value::Instance(i) if i.class.is_enum());
            if c.is_enum() && !member {
                // CPython 3.11's `EnumType.__contains__` (3.12 answers False instead).
                return type_error(format!(
                    "unsupported operand type(s) for 'in': '{}' and 'EnumType'",
                    item.type_name()
                ));
            }
            if c.is_flag() {
                // `member._name_ in cls._member_map_`: named members, not pseudo-members.
                let named = |i: &super::class::Instance| match i.get("name") {
                    Some(Value::Str(n)) => c.lookup(n.as_str()).is_some_and(|m| ops::is(&m, item)),
                    _ => false,
                };
                return Ok(
                    matches!(item, Value::Instance(i) if i.class.is_subclass_of(c) && named(i)),
                );
            }
            if c.is_enum() {
                return Ok(c.members.borrow().iter().any(|m| ops::is(m, item)));
            }
        }
        if let Value::Instance(_) = container {
            if let Some(r) = self.dunder(container, "__contains__", vec![item.clone()])? {
                return self.truth(&r);
            }
        } else {
            match ops::contains(container, item) {
                Ok(Some(found)) => return Ok(found),
                Ok(None) => {}
                Err(e) if is_marker(&e) => return self.contains_slow(container, item),
                Err(e) => return Err(e),
            }
        }
        let mut it = self.iter_of(container.clone())?;
        while let Some(v) = self.next(&mut it)? {
            self.tick()?;
            if ops::is(&v, item) || self.values_eq(&v, item)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn eval_items(&mut self, f: &mut Frame, items: &[Arg]) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Arg::One(e) => out.push(self.eval(f, e)?),
                Arg::Star(e) => {
                    let v = self.eval(f, e)?;
                    let more = self.collect(v)?;
                    ops::check_len(out.len() + more.len())?;
                    out.extend(more);
                }
            }
        }
        Ok(out)
    }

    fn eval_dict(&mut self, f: &mut Frame, items: &[DictItem]) -> R<Value> {
        let mut d = Dict::default();
        for item in items {
            match item {
                DictItem::Pair(k, v) => {
                    let key = self.eval(f, k)?;
                    let value = self.eval(f, v)?;
                    d.insert(self.hash_key(&key)?, key, value);
                }
                DictItem::Splat(e) => {
                    let m = self.eval(f, e)?;
                    let Value::Dict(other) = &m else {
                        return type_error(format!("'{}' object is not a mapping", m.type_name()));
                    };
                    let entries: Vec<(Value, Value)> = other.borrow().iter().cloned().collect();
                    for (k, v) in entries {
                        d.insert(self.hash_key(&k)?, k, v);
                    }
                }
            }
        }
        Ok(Value::Dict(Rc::new(std::cell::RefCell::new(d))))
    }

    /// Evaluates call arguments: `*iterable` spread, `**mapping` merged.
    fn eval_args(
        &mut self,
        f: &mut Frame,
        args: &[Arg],
        kwargs: &[Kwarg],
        callee: &Value,
    ) -> R<(Vec<Value>, Vec<(Rc<str>, Value)>)> {
        let mut pos = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::One(e) => pos.push(self.eval(f, e)?),
                Arg::Star(e) => {
                    let v = self.eval(f, e)?;
                    if !self.is_iterable(&v) {
                        return type_error(format!(
                            "{}() argument after * must be an iterable, not {}",
                            callable_name(callee),
                            v.type_name()
                        ));
                    }
                    pos.extend(self.collect(v)?);
                }
            }
        }
        let mut kw: Vec<(Rc<str>, Value)> = Vec::with_capacity(kwargs.len());
        // Names can repeat only once a `**` mapping has been spread.
        let mut spread = false;
        for k in kwargs {
            match k {
                Kwarg::Named(name, e) => {
                    let v = self.eval(f, e)?;
                    if spread && kw.iter().any(|(n, _)| *n == *name) {
                        return type_error(format!(
                            "{}() got multiple values for keyword argument '{name}'",
                            function_str(callee)
                        ));
                    }
                    kw.push((name.clone(), v));
                }
                Kwarg::Splat(e) => {
                    spread = true;
                    let m = self.eval(f, e)?;
                    let Value::Dict(d) = &m else {
                        return type_error(format!(
                            "{}() argument after ** must be a mapping, not {}",
                            callable_name(callee),
                            m.type_name()
                        ));
                    };
                    let entries: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
                    for (k, v) in entries {
                        let Value::Str(name) = &k else {
                            return type_error("keywords must be strings");
                        };
                        if kw.iter().any(|(n, _)| **n == *name.as_str()) {
                            return type_error(format!(
                                "{}() got multiple values for keyword argument '{}'",
                                function_str(callee),
                                name.as_str()
                            ));
                        }
                        kw.push((name.as_str().into(), v));
                    }
                }
            }
        }
        Ok((pos, kw))
    }

    fn fstring(&mut self, f: &mut Frame, parts: &[FPart]) -> R<String> {
        let mut out = String::new();
        for part in parts {
            match part {
                FPart::Literal(s) => out.push_str(s),
                FPart::Field {
                    expr,
                    conversion,
                    spec,
                } => {
                    let v = self.eval(f, expr)?;
                    let v = match conversion {
                        None => v,
                        Some(Conversion::Str) => Value::str(self.str_of(&v)?),
                        Some(Conversion::Repr) => Value::str(self.repr_of(&v)?),
                        Some(Conversion::Ascii) => Value::str(format::ascii(&self.repr_of(&v)?)),
                    };
                    let spec = match spec {
                        Some(s) => self.fstring(f, s)?,
                        None => String::new(),
                    };
                    out.push_str(&self.format_of(&v, &spec)?);
                    ops::check_len(out.len())?;
                }
            }
        }
        Ok(out)
    }
}

/// `x op y` for two small ints (`None` for `in`, which needs a container).
#[inline]
fn int_compare(op: CmpOp, x: i64, y: i64) -> Option<bool> {
    Some(match op {
        CmpOp::Lt => x < y,
        CmpOp::LtE => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::GtE => x >= y,
        CmpOp::Eq | CmpOp::Is => x == y,
        CmpOp::NotEq | CmpOp::IsNot => x != y,
        CmpOp::In | CmpOp::NotIn => return None,
    })
}

fn unbound_local<T>(name: &str) -> R<T> {
    fail(
        ExcKind::UnboundLocalError,
        format!("cannot access local variable '{name}' where it is not associated with a value"),
    )
}

/// The name CPython uses for a callable in argument errors.
/// CPython's `_PyObject_FunctionStr`: user functions, methods and classes named with their
/// module (`__main__.f`), builtins by their name.
fn function_str(v: &Value) -> String {
    match v {
        Value::Function(func) => format!("__main__.{}", func.code.qualname),
        Value::Bound(b) => function_str(&b.func),
        Value::Class(c) => format!("{}.{}", c.module, c.qualname),
        other => callable_name(other),
    }
}

pub(crate) fn callable_name(v: &Value) -> String {
    match v {
        Value::Function(func) => func.code.qualname.to_string(),
        Value::Builtin(b) => b.name().to_string(),
        Value::Type(t) => t.name().to_string(),
        Value::Method(m) => format!("{}.{}", m.receiver.type_name(), m.name),
        Value::Unbound(m) => format!("{}.{}", m.owner.name(), m.name),
        other => other.type_name(),
    }
}
