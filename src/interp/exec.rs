//! Statements: assignment and unpacking, control flow with `else` clauses, `try` with
//! handlers matched along the class hierarchy and `finally` on every way out, `raise`,
//! `assert`, definitions and `del`.

use std::rc::Rc;

use super::code::{Def, Expr, Handler, Stmt, StmtKind, Target, Var};
use super::exc::{ExcClass, ExcKind, ExcObject, R, Raised, Unwind, fail, type_error};
use super::machine::{Frame, Handled, Machine};
use super::ops;
use super::value::{Function, Value};
use crate::python::ir::BinOp;

/// How a block finished.
pub(crate) enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

impl Machine {
    /// Records a line event when `%run` traces (`trace.rs`).
    #[inline]
    fn trace_line(&mut self, f: &Frame, line: u32) {
        if let Some(t) = self.trace.as_mut()
            && t.push(super::trace::TraceEvent::Line(line))
        {
            t.snapshot(&f.locals);
        }
    }

    pub fn exec_block(&mut self, f: &mut Frame, body: &[Stmt]) -> R<Flow> {
        for s in body {
            match self.exec(f, s) {
                Ok(Flow::Normal) if self.dropped.is_empty() => {}
                Ok(Flow::Normal) => self
                    .release_dropped()
                    .map_err(|e| self.annotate(e, s.line, &s.text, &s.function))?,
                Ok(flow) => return Ok(flow),
                Err(e) => return Err(self.annotate(e, s.line, &s.text, &s.function)),
            }
        }
        Ok(Flow::Normal)
    }

    pub fn exec(&mut self, f: &mut Frame, s: &Stmt) -> R<Flow> {
        self.tick()?;
        self.trace_line(f, s.line);
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(f, e)?;
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval(f, value)?;
                if let [t] = targets.as_slice() {
                    self.assign(f, t, v)?;
                } else {
                    for t in targets {
                        self.assign(f, t, v.clone())?;
                    }
                }
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(f, target, *op, value)?,
            StmtKind::Match { subject, cases } => return self.exec_match(f, subject, cases),
            StmtKind::If { test, body, orelse } => {
                return if self.eval_cond(f, test)? {
                    self.exec_block(f, body)
                } else {
                    self.exec_block(f, orelse)
                };
            }
            StmtKind::While { test, body, orelse } => loop {
                if !self.eval_cond(f, test)? {
                    return self.exec_block(f, orelse);
                }
                match self.exec_block(f, body)? {
                    Flow::Break => return Ok(Flow::Normal),
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => self.tick()?,
                }
                self.trace_line(f, s.line);
            },
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                let iterable = self.eval(f, iter)?;
                let mut it = self.iter_of(iterable)?;
                while let Some(v) = self.next(&mut it)? {
                    self.assign(f, target, v)?;
                    match self.exec_block(f, body) {
                        Ok(Flow::Break) => {
                            self.release_iter(it)?;
                            return Ok(Flow::Normal);
                        }
                        Ok(Flow::Return(v)) => {
                            self.release_iter(it)?;
                            return Ok(Flow::Return(v));
                        }
                        Ok(Flow::Normal | Flow::Continue) => self.tick()?,
                        Err(e) => {
                            self.release_iter(it)?;
                            return Err(e);
                        }
                    }
                    self.trace_line(f, s.line);
                }
                return self.exec_block(f, orelse);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => self.eval(f, e)?,
                    None => Value::None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Pass => {}
            StmtKind::Raise { exc, cause } => {
                return Err(self.raise(f, exc.as_ref(), cause.as_ref()));
            }
            StmtKind::Assert { test, msg } => {
                let t = self.eval(f, test)?;
                if !self.truth(&t)? {
                    let args = match msg {
                        Some(m) => vec![self.eval(f, m)?],
                        None => Vec::new(),
                    };
                    return Err(Unwind::from_object(ExcObject::new(
                        ExcClass::Builtin(ExcKind::AssertionError),
                        args,
                    )));
                }
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                return self.exec_try(f, body, handlers, orelse, finalbody);
            }
            StmtKind::Def(def) => {
                let decorators: Vec<Value> = def
                    .decorators
                    .iter()
                    .map(|d| self.eval(f, d))
                    .collect::<R<_>>()?;
                let mut v = Value::Function(self.make_function(f, def)?);
                for d in decorators.iter().rev() {
                    v = self.call(d, vec![v], Vec::new())?;
                }
                if let Some(target) = def.target {
                    self.store(f, target, v);
                }
            }
            StmtKind::Class(def) => self.exec_class(f, def)?,
            StmtKind::With(w) => return self.exec_with(f, &w.items, &w.body),
            StmtKind::Bind(binds) => {
                for (target, value) in binds {
                    self.store(f, *target, value.clone());
                }
            }
            StmtKind::Delete(targets) => {
                for t in targets {
                    self.delete(f, t)?;
                }
            }
            StmtKind::Unsupported(construct) => return Err(Unwind::unsupported(construct.clone())),
            StmtKind::ImportError(kind, message) => {
                return Err(Unwind::new(*kind, message.clone()));
            }
        }
        Ok(Flow::Normal)
    }

    /// Creates a function object: evaluates defaults and captures the closure cells.
    pub fn make_function(&mut self, f: &mut Frame, def: &Def) -> R<Rc<Function>> {
        let defaults = def
            .defaults
            .iter()
            .map(|d| self.eval(f, d))
            .collect::<R<_>>()?;
        let mut kwdefaults = Vec::with_capacity(def.kwdefaults.len());
        for d in &def.kwdefaults {
            kwdefaults.push(match d {
                Some(e) => Some(self.eval(f, e)?),
                None => None,
            });
        }
        let closure = capture(f, &def.code.free_sources)?;
        Ok(Rc::new(Function {
            code: def.code.clone(),
            defaults,
            kwdefaults,
            closure,
            attrs: Default::default(),
        }))
    }

    fn raise(&mut self, f: &mut Frame, exc: Option<&Expr>, cause: Option<&Expr>) -> Unwind {
        let Some(exc) = exc else {
            return match self.handling.last() {
                Some(h) => Unwind::raise(Raised {
                    exc: h.exc.clone(),
                    tb: h.tb.clone(),
                }),
                None => Unwind::new(ExcKind::RuntimeError, "No active exception to reraise"),
            };
        };
        let v = match self.eval(f, exc) {
            Ok(Value::Unavailable(what)) => return Unwind::unsupported(what.to_string()),
            Ok(v) => v,
            Err(e) => return e,
        };
        let mut cause_value = None;
        if let Some(c) = cause {
            match self.eval(f, c) {
                Ok(Value::None) => cause_value = Some(Value::None),
                Ok(c @ (Value::Exception(_) | Value::ExcType(_) | Value::UserExcType(_))) => {
                    cause_value = exception_of(c).map(Value::Exception);
                }
                Ok(_) => {
                    return Unwind::new(
                        ExcKind::TypeError,
                        "exception causes must derive from BaseException",
                    );
                }
                Err(e) => return e,
            }
        }
        // `raise E` instantiates E as `E()` does (running a class body's `__init__`).
        let v = match v {
            Value::UserExcType(c) if c.namespace.iter().any(|(n, _)| &**n == "__init__") => {
                match self.construct_exception(ExcClass::User(c), Vec::new(), Vec::new()) {
                    Ok(v) => v,
                    Err(e) => return e,
                }
            }
            v => v,
        };
        match exception_of(v) {
            Some(obj) => {
                if let Some(c) = cause_value {
                    super::exc_chain::set_cause(&obj, c);
                }
                self.chain_to_handled(&obj);
                Unwind::raise(Raised {
                    exc: obj,
                    tb: Vec::new(),
                })
            }
            None => Unwind::new(
                ExcKind::TypeError,
                "exceptions must derive from BaseException",
            ),
        }
    }

    fn exec_try(
        &mut self,
        f: &mut Frame,
        body: &[Stmt],
        handlers: &[Handler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
    ) -> R<Flow> {
        let mut result = self.exec_block(f, body);
        result = match result {
            Err(raised) if raised.is_raise() && !handlers.is_empty() => {
                self.handle(f, raised, handlers)
            }
            Ok(Flow::Normal) => self.exec_block(f, orelse),
            other => other,
        };
        if finalbody.is_empty() {
            return result;
        }
        match result {
            Err(unwind) => {
                let Some(raised) = unwind.raised() else {
                    return Err(unwind);
                };
                let exc = raised.exc.clone();
                self.handling.push(Handled {
                    exc: exc.clone(),
                    tb: raised.tb.clone(),
                });
                let fin = self.exec_block(f, finalbody);
                self.handling.pop();
                super::exc_chain::chain_leaving(&fin, &exc);
                match fin {
                    Ok(Flow::Normal) => Err(unwind),
                    other => other,
                }
            }
            Ok(flow) => match self.exec_block(f, finalbody)? {
                Flow::Normal => Ok(flow),
                other => Ok(other),
            },
        }
    }

    /// The handler of `unwind` (a raised exception) among `handlers`, run; the exception
    /// again when none matches.
    fn handle(&mut self, f: &mut Frame, unwind: Unwind, handlers: &[Handler]) -> R<Flow> {
        let Some(raised) = unwind.raised() else {
            return Err(unwind);
        };
        for h in handlers {
            self.trace_line(f, h.line);
            let matched = match &h.class {
                None => true,
                Some(e) => {
                    let class = self
                        .eval(f, e)
                        .map_err(|err| self.annotate(err, h.line, &h.text, &h.function))?;
                    exc_matches(&raised.exc, &class)
                        .map_err(|err| self.annotate(err, h.line, &h.text, &h.function))?
                }
            };
            if !matched {
                continue;
            }
            self.chain_to_handled(&raised.exc);
            if let Some(var) = h.name {
                self.store(f, var, Value::Exception(raised.exc.clone()));
            }
            self.handling.push(Handled {
                exc: raised.exc.clone(),
                tb: raised.tb.clone(),
            });
            let r = self.exec_block(f, &h.body);
            self.handling.pop();
            super::exc_chain::chain_leaving(&r, &raised.exc);
            if let Some(var) = h.name {
                self.clear(f, var);
            }
            return r;
        }
        Err(unwind)
    }

    /// Binds `value` to a target.
    pub fn assign(&mut self, f: &mut Frame, t: &Target, value: Value) -> R<()> {
        match t {
            Target::Var(var, _) => {
                self.store(f, *var, value);
                Ok(())
            }
            Target::Item { obj, index } => {
                let o = self.eval(f, obj)?;
                let i = self.eval(f, index)?;
                self.setitem(&o, &i, value)
            }
            Target::Slice {
                obj,
                lower,
                upper,
                step,
            } => {
                let o = self.eval(f, obj)?;
                let (lo, hi, st) = self.slice_bounds(f, lower, upper, step)?;
                self.set_slice(&o, &lo, &hi, &st, value)
            }
            Target::Attr { obj, name } => {
                let o = self.eval(f, obj)?;
                self.store_attr(&o, name, value)
            }
            Target::Unpack { items, star } => {
                let values = self.unpack(value, items.len(), *star)?;
                for (t, v) in items.iter().zip(values) {
                    self.assign(f, t, v)?;
                }
                Ok(())
            }
        }
    }

    fn slice_bounds(
        &mut self,
        f: &mut Frame,
        lower: &Option<Expr>,
        upper: &Option<Expr>,
        step: &Option<Expr>,
    ) -> R<(Value, Value, Value)> {
        let mut get = |m: &mut Machine, e: &Option<Expr>| match e {
            Some(e) => m.eval(f, e),
            None => Ok(Value::None),
        };
        let lo = get(self, lower)?;
        let hi = get(self, upper)?;
        let st = get(self, step)?;
        Ok((lo, hi, st))
    }

    /// The values of `a, *b, c = value`.
    fn unpack(&mut self, value: Value, n: usize, star: Option<usize>) -> R<Vec<Value>> {
        if !self.is_iterable(&value) {
            return type_error(format!(
                "cannot unpack non-iterable {} object",
                value.type_name()
            ));
        }
        let mut it = self.iter_of(value)?;
        let mut items = Vec::with_capacity(n);
        match star {
            None => {
                while let Some(v) = self.next(&mut it)? {
                    if items.len() == n {
                        return fail(
                            ExcKind::ValueError,
                            format!("too many values to unpack (expected {n})"),
                        );
                    }
                    items.push(v);
                }
                if items.len() < n {
                    return fail(
                        ExcKind::ValueError,
                        format!(
                            "not enough values to unpack (expected {n}, got {})",
                            items.len()
                        ),
                    );
                }
                Ok(items)
            }
            Some(k) => {
                while let Some(v) = self.next(&mut it)? {
                    self.tick()?;
                    items.push(v);
                }
                let fixed = n - 1;
                if items.len() < fixed {
                    return fail(
                        ExcKind::ValueError,
                        format!(
                            "not enough values to unpack (expected at least {fixed}, got {})",
                            items.len()
                        ),
                    );
                }
                let after = fixed - k;
                let tail = items.split_off(items.len() - after);
                let middle = items.split_off(k);
                items.push(Value::list(middle));
                items.extend(tail);
                Ok(items)
            }
        }
    }

    fn aug_assign(&mut self, f: &mut Frame, target: &Target, op: BinOp, value: &Expr) -> R<()> {
        if let Target::Var(var @ (Var::Local(_) | Var::Global(_)), _) = target {
            // `n += 1` on a small int (a local, or a global such as a module-level
            // counter): updated in place.
            if let Some(&Value::Int(y)) = self.peek(f, value)
                && let Some(slot) = self.slot_mut(f, *var)
                && let Value::Int(x) = *slot
                && let Some(r) = super::num::int_fast(op, x, y)
            {
                *slot = Value::Int(r);
                return Ok(());
            }
        }
        match target {
            Target::Var(var, name) => {
                let cur = self.load(f, *var, name)?;
                let rhs = self.eval(f, value)?;
                if let (BinOp::Add, Value::Str(a), Value::Str(b)) = (op, &cur, &rhs) {
                    ops::check_len(a.len() + b.len())?;
                    // `s += t`: append in place when the variable holds the only reference,
                    // as CPython does, so building a string in a loop is not quadratic.
                    let held = Rc::as_ptr(a);
                    drop(cur);
                    if let Some(Value::Str(slot)) = self.slot_mut(f, *var) {
                        if Rc::as_ptr(slot) == held {
                            if let Some(s) = Rc::get_mut(slot) {
                                s.push_str(b.as_str());
                                return Ok(());
                            }
                        }
                    }
                    let cur = self.load(f, *var, name)?;
                    let new = ops::binary(op, &cur, &rhs)?;
                    self.store(f, *var, new);
                    return Ok(());
                }
                let new = self.inplace(op, cur, rhs)?;
                self.store(f, *var, new);
                Ok(())
            }
            Target::Item { obj, index } => {
                let o = self.eval(f, obj)?;
                let i = self.eval(f, index)?;
                let cur = self.getitem(&o, &i)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace(op, cur, rhs)?;
                self.setitem(&o, &i, new)
            }
            Target::Slice {
                obj,
                lower,
                upper,
                step,
            } => {
                let o = self.eval(f, obj)?;
                let (lo, hi, st) = self.slice_bounds(f, lower, upper, step)?;
                let cur = self.get_slice_of(&o, &lo, &hi, &st)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace(op, cur, rhs)?;
                self.set_slice(&o, &lo, &hi, &st, new)
            }
            Target::Attr { obj, name } => {
                let o = self.eval(f, obj)?;
                let cur = self.load_attr(&o, name)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace(op, cur, rhs)?;
                self.store_attr(&o, name, new)
            }
            Target::Unpack { .. } => type_error("illegal expression for augmented assignment"),
        }
    }

    /// `a op= b`, with CPython's `for +=:` in the unsupported-operands message.
    fn inplace(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        match self.inplace_op(op, a, b) {
            Err(unwind)
                if unwind
                    .raised()
                    .is_some_and(|r| r.exc.class.same(&ExcClass::Builtin(ExcKind::TypeError))) =>
            {
                let Some(raised) = unwind.raised() else {
                    return Err(unwind);
                };
                let binary = format!(
                    "unsupported operand type(s) for {}: ",
                    ops::binary_symbol(op)
                );
                let args = raised.exc.args();
                match args.as_slice() {
                    [Value::Str(m)] if m.as_str().starts_with(&binary) => type_error(format!(
                        "unsupported operand type(s) for {}=: {}",
                        op.symbol(),
                        &m.as_str()[binary.len()..]
                    )),
                    _ => Err(unwind),
                }
            }
            other => other,
        }
    }

    /// `a op= b`: lists extend and repeat in place; everything else as `a op b`.
    fn inplace_op(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        if super::dunder::is_instance(&a) {
            return self.inplace_dunder(op, &a, &b);
        }
        if let Some(r) = self.set_inplace(op, &a, &b) {
            r?;
            return Ok(a);
        }
        if super::dunder::is_instance(&b) {
            return self.binary_dunder(op, &a, &b);
        }
        if let Value::List(list) = &a {
            match op {
                BinOp::Add => {
                    if !self.is_iterable(&b) {
                        return type_error(format!("'{}' object is not iterable", b.type_name()));
                    }
                    let more = self.collect(b)?;
                    let len = list.borrow().len();
                    ops::check_len(len + more.len())?;
                    list.borrow_mut().extend(more);
                    return Ok(a);
                }
                BinOp::Mult => {
                    let Some(n) = ops::repeat_count(&b)? else {
                        return type_error(format!(
                            "can't multiply sequence by non-int of type '{}'",
                            b.type_name()
                        ));
                    };
                    let items = list.borrow().clone();
                    ops::check_len(items.len().saturating_mul(n))?;
                    *list.borrow_mut() = ops::repeat_items(&items, n);
                    return Ok(a);
                }
                _ => {}
            }
        }
        if let Value::Dict(d) = &a {
            if op == BinOp::BitOr {
                d.borrow().check_changeable()?;
                self.dict_update(d, b, Vec::new())?;
                return Ok(a);
            }
        }
        ops::binary(op, &a, &b)
    }

    fn delete(&mut self, f: &mut Frame, t: &Target) -> R<()> {
        match t {
            Target::Var(var, name) => self.unbind(f, *var, name),
            Target::Item { obj, index } => {
                let o = self.eval(f, obj)?;
                let i = self.eval(f, index)?;
                self.delitem(&o, &i)
            }
            Target::Slice {
                obj,
                lower,
                upper,
                step,
            } => {
                let o = self.eval(f, obj)?;
                let (lo, hi, st) = self.slice_bounds(f, lower, upper, step)?;
                self.del_slice_of(&o, &lo, &hi, &st)
            }
            Target::Attr { obj, name } => {
                let o = self.eval(f, obj)?;
                self.delattr(&o, name)
            }
            Target::Unpack { items, .. } => {
                for t in items {
                    self.delete(f, t)?;
                }
                Ok(())
            }
        }
    }
}

/// The cells a new function captures from the defining frame.
pub(crate) fn capture(f: &Frame, sources: &[u32]) -> R<Vec<super::value::Cell>> {
    sources
        .iter()
        .map(|&i| {
            f.cells
                .get(i as usize)
                .cloned()
                .ok_or_else(|| Unwind::unsupported("a closure over an unknown variable"))
        })
        .collect()
}

/// The exception object raised by `raise v`: an instance, or a class instantiated without
/// arguments.
pub(crate) fn exception_of(v: Value) -> Option<Rc<ExcObject>> {
    match v {
        Value::Exception(e) => Some(e),
        Value::ExcType(k) => Some(Rc::new(ExcObject::new(ExcClass::Builtin(k), Vec::new()))),
        Value::UserExcType(c) => Some(Rc::new(ExcObject::new(ExcClass::User(c), Vec::new()))),
        _ => None,
    }
}

/// Whether an `except` clause's class (or tuple of classes) catches `exc`.
fn exc_matches(exc: &ExcObject, class: &Value) -> R<bool> {
    match class {
        Value::ExcType(k) => Ok(exc.class.is_subclass_of(&ExcClass::Builtin(*k))),
        Value::UserExcType(c) => Ok(exc.class.is_subclass_of(&ExcClass::User(c.clone()))),
        Value::Tuple(items) => {
            for item in items.iter() {
                if exc_matches(exc, item)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Unavailable(what) => Err(Unwind::unsupported(what.to_string())),
        _ => type_error("catching classes that do not inherit from BaseException is not allowed"),
    }
}
