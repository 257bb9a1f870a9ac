//! Calls: dispatch on the callee, binding arguments to parameters with CPython's rules and
//! error messages, attribute lookup and method calls.

use std::rc::Rc;

use super::code::Body;
use super::dict::{Dict, key_of};
use super::exc::{ExcClass, ExcKind, R, Unwind, fail, type_error};
use super::exec::Flow;
use super::machine::{Frame, Machine};
use super::modules;
use super::value::{Function, Method, Native, TypeKind, Unbound, Value};

/// Keyword arguments of a call, in order.
pub(crate) type Kwargs = Vec<(Rc<str>, Value)>;

impl Machine {
    pub fn call(&mut self, callee: &Value, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match callee {
            Value::Function(func) => self.call_function(func, args, kwargs),
            Value::Builtin(b) => self.call_builtin(*b, args, kwargs),
            // A bound `BaseException` method (from `super()`), never the class body's.
            Value::Method(m) => match &m.receiver {
                Value::Exception(e) => self.exc_base_call(e, &m.name, args, kwargs),
                r => self.call_method(r.clone(), &m.name, args, kwargs),
            },
            Value::Unbound(m) => {
                let mut args = args.into_iter();
                let Some(receiver) = args.next() else {
                    return type_error(format!(
                        "unbound method {}.{}() needs an argument",
                        m.owner.name(),
                        m.name
                    ));
                };
                // An `IntEnum`/`StrEnum` member stands for its value (`str.upper(member)`).
                let receiver = match receiver {
                    r @ Value::Instance(_) => super::int_enum::unwrap(&r),
                    r => r,
                };
                let applies = receiver
                    .type_kind()
                    .is_some_and(|k| k.is_subtype_of(m.owner) && k != TypeKind::Object);
                if !applies {
                    return type_error(format!(
                        "descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
                        m.name,
                        m.owner.name(),
                        receiver.type_name()
                    ));
                }
                self.call_method(receiver, &m.name, args.collect(), kwargs)
            }
            Value::Type(t) => self.construct(*t, args, kwargs),
            Value::ExcType(k) => self.construct_exception(ExcClass::Builtin(*k), args, kwargs),
            Value::UserExcType(c) => {
                self.construct_exception(ExcClass::User(c.clone()), args, kwargs)
            }
            Value::Unavailable(what) => Err(Unwind::unsupported(what.to_string())),
            Value::Class(c) => self.call_class(c, args, kwargs),
            Value::Bound(b) => self.call_bound(b, args, kwargs),
            Value::Instance(i) if i.class.defines("__call__") => {
                let m = i.class.lookup("__call__").unwrap_or(Value::None);
                self.call_method_value(&m, callee.clone(), args, kwargs)
            }
            Value::Descriptor(d) => match &**d {
                super::class::Descriptor::Static(f) => self.call(f, args, kwargs),
                _ => type_error(format!("'{}' object is not callable", callee.type_name())),
            },
            Value::Std(o) => self.call_std_obj(o, args, kwargs),
            _ => type_error(format!("'{}' object is not callable", callee.type_name())),
        }
    }

    pub fn call_function(
        &mut self,
        func: &Rc<Function>,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        self.tick()?;
        let mut frame = Frame::new(&func.code, &func.closure);
        self.bind_args(func, &mut frame, args, kwargs)?;
        self.run_frame(func, frame)
    }

    /// Calls a function whose arguments are already its first locals (see `Params::direct`).
    pub fn call_with_locals(
        &mut self,
        func: &Rc<Function>,
        locals: Vec<Option<Value>>,
    ) -> R<Value> {
        self.tick()?;
        let frame = Frame::with_locals(&func.code, &func.closure, locals);
        self.run_frame(func, frame)
    }

    fn run_frame(&mut self, func: &Rc<Function>, mut frame: Frame) -> R<Value> {
        let code = &func.code;
        if code.is_generator {
            let g = super::generator::GenObj::new(code.clone(), frame)?;
            return Ok(super::iter::IterState::Coroutine(Box::new(g)).into_value());
        }
        self.enter(&code)?;
        if let Some(t) = self.trace.as_mut() {
            t.push(super::trace::TraceEvent::Call(code.qualname.to_string()));
            t.enter_frame(&code.local_names);
            t.skip_docstring(&code.body);
        }
        let result = match &code.body {
            Body::Block(stmts) => self.exec_block(&mut frame, stmts).map(|flow| match flow {
                Flow::Return(v) => v,
                _ => Value::None,
            }),
            Body::Expr(e) => self
                .eval(&mut frame, e)
                .map_err(|err| self.annotate(err, code.line, &code.text, &code.qualname)),
            Body::Comprehension(_) => Err(Unwind::unsupported("calling a comprehension")),
        };
        if let Some(t) = self.trace.as_mut() {
            t.push(super::trace::TraceEvent::Return {
                raised: result.is_err(),
            });
            t.leave_frame();
        }
        self.leave();
        // One pass: iterators are kept for `release_dropped`, the rest dropped here.
        let mut locals = std::mem::take(&mut frame.locals);
        for v in locals.drain(..) {
            self.note_dropped(v);
        }
        if self.pool.len() < 64 {
            self.pool.push(locals);
        }
        if !self.dropped.is_empty() {
            drop(frame);
            self.release_dropped()?;
        }
        result
    }

    /// Binds arguments to parameters in CPython's order: positionals, keywords, then the
    /// checks for extra positionals, missing positionals and missing keyword-only ones.
    fn bind_args(
        &mut self,
        func: &Function,
        frame: &mut Frame,
        mut args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<()> {
        let p = &func.code.params;
        if kwargs.is_empty() && p.is_simple() && args.len() == p.n_positional {
            for (slot, v) in p.slots.iter().zip(args) {
                self.store(frame, *slot, v);
            }
            return Ok(());
        }
        let qual = &func.code.qualname;
        let n = p.n_positional;
        let given = args.len();
        let extra = if args.len() > n {
            args.split_off(n)
        } else {
            Vec::new()
        };
        let mut values: Vec<Option<Value>> = args.into_iter().map(Some).collect();
        values.resize(p.names.len(), None);
        let mut kwdict = Dict::default();
        for (i, (name, v)) in kwargs.iter().enumerate() {
            match p
                .names
                .iter()
                .position(|x| x == name)
                .filter(|&i| i >= p.n_posonly)
            {
                Some(j) => {
                    if values[j].is_some() {
                        return type_error(format!(
                            "{qual}() got multiple values for argument '{name}'"
                        ));
                    }
                    values[j] = Some(v.clone());
                }
                None if p.kwargs.is_some() => {
                    kwdict.insert(
                        key_of(&Value::str(&**name))?,
                        Value::str(&**name),
                        v.clone(),
                    );
                }
                None => {
                    let posonly: Vec<&str> = kwargs[i..]
                        .iter()
                        .filter(|(k, _)| p.names[..p.n_posonly].contains(k))
                        .map(|(k, _)| &**k)
                        .collect();
                    if !posonly.is_empty() {
                        return type_error(format!(
                            "{qual}() got some positional-only arguments passed as keyword arguments: '{}'",
                            posonly.join(", ")
                        ));
                    }
                    return type_error(format!(
                        "{qual}() got an unexpected keyword argument '{name}'"
                    ));
                }
            }
        }
        if !extra.is_empty() && p.varargs.is_none() {
            let kwonly_given = values[n..].iter().filter(|v| v.is_some()).count();
            return Err(too_many_positional(
                qual,
                n,
                func.defaults.len(),
                given,
                kwonly_given,
            ));
        }
        let first_default = n.saturating_sub(func.defaults.len());
        let mut missing = Vec::new();
        for i in 0..n {
            if values[i].is_none() {
                if i >= first_default {
                    values[i] = func.defaults.get(i - first_default).cloned();
                } else {
                    missing.push(p.names[i].clone());
                }
            }
        }
        if !missing.is_empty() {
            return Err(missing_arguments(qual, "positional", &missing));
        }
        for (j, default) in func.kwdefaults.iter().enumerate() {
            if values[n + j].is_none() {
                match default {
                    Some(d) => values[n + j] = Some(d.clone()),
                    None => missing.push(p.names[n + j].clone()),
                }
            }
        }
        if !missing.is_empty() {
            return Err(missing_arguments(qual, "keyword-only", &missing));
        }
        for (slot, v) in p.slots.iter().zip(values) {
            if let Some(v) = v {
                self.store(frame, *slot, v);
            }
        }
        if let Some(slot) = p.varargs {
            self.store(frame, slot, Value::tuple(extra));
        }
        if let Some(slot) = p.kwargs {
            self.store(
                frame,
                slot,
                Value::Dict(Rc::new(std::cell::RefCell::new(kwdict))),
            );
        }
        Ok(())
    }

    /// `module.name`: the native module's name, else the name its Python-source half
    /// (`prelude/*.py`) defines, so `m.name` finds whatever `from m import name` does.
    fn module_attr(&self, n: Native, name: &str) -> R<Value> {
        modules::attr(n, name).or_else(|e| {
            let source = super::source_module::find(modules::native_name(n))
                .and_then(|sm| self.globals.lookup(sm.global));
            let defined = match source {
                Some(Value::Instance(i)) => i.get(name),
                _ => None,
            };
            defined.or_else(|| modules::unmodelled(n, name)).ok_or(e)
        })
    }

    /// `obj.name`.
    pub fn getattr(&mut self, o: &Value, name: &str) -> R<Value> {
        if let Value::Unavailable(what) = o {
            return Err(Unwind::unsupported(what.to_string()));
        }
        if let Some(r) = self.class_getattr(o, name) {
            return r;
        }
        if let (Value::Type(TypeKind::Object), Some(b)) =
            (o, super::builtins::Builtin::object_method(name))
        {
            return Ok(Value::Builtin(b));
        }
        match (o, name) {
            (Value::Native(n), _) => return self.module_attr(*n, name),
            (Value::Function(f), "__dict__") => {
                return Ok(self.vars_dict(&super::funcattr::dict_items(f)));
            }
            (Value::Function(f), "__closure__") => {
                if f.closure.is_empty() {
                    return Ok(Value::None);
                }
                // CPython orders the cells by free-variable name.
                let mut cells: Vec<_> = f.code.free_names.iter().zip(&f.closure).collect();
                cells.sort_by(|a, b| a.0.cmp(b.0));
                return Ok(Value::tuple(
                    cells
                        .into_iter()
                        .map(|(_, cell)| {
                            Value::Std(Rc::new(super::stdlib::StdObj::Cell(cell.clone())))
                        })
                        .collect(),
                ));
            }
            (Value::Function(f), _) => {
                if let Some(v) = super::funcattr::get(f, name) {
                    return Ok(v);
                }
            }
            (Value::ExcType(_) | Value::UserExcType(_), "__mro__" | "__bases__") => {
                return Ok(exc_lineage(o, name == "__mro__"));
            }
            (Value::Int(_) | Value::Big(_) | Value::Bool(_), _) => {
                let as_int = || match o {
                    Value::Bool(b) => Value::Int(*b as i64),
                    other => other.clone(),
                };
                match name {
                    "real" | "numerator" => return Ok(as_int()),
                    "imag" => return Ok(Value::Int(0)),
                    "denominator" => return Ok(Value::Int(1)),
                    _ => {}
                }
            }
            (Value::Float(x), "real") => return Ok(Value::Float(*x)),
            (Value::Float(_), "imag") => return Ok(Value::Float(0.0)),
            (Value::Type(t), "__name__") => return Ok(Value::str(t.name())),
            (Value::ExcType(k), "__name__") => return Ok(Value::str(k.name())),
            (Value::UserExcType(c), "__name__") => return Ok(Value::str(&*c.name)),
            (Value::Builtin(b), "__name__") => return Ok(Value::str(b.name())),
            (Value::Builtin(super::builtins::Builtin::Std(f)), _) => {
                if let Some(v) = super::stdlib::fn_attr(*f, name) {
                    return Ok(v);
                }
            }
            (Value::Std(s), _) => {
                if let Some(r) = self.std_obj_attr(s, name) {
                    return r;
                }
            }
            (Value::Dict(d), _) if d.borrow().flavor.is_some() => {
                if let Some(v) = self.flavored_attr(d, name) {
                    return Ok(v);
                }
                if super::stdlib::has_flavored_method(d, name) {
                    return Ok(Value::Method(Rc::new(Method {
                        receiver: o.clone(),
                        name: name.into(),
                    })));
                }
            }
            _ => {}
        }
        if super::methods::has_method(o, name) {
            return Ok(Value::Method(Rc::new(Method {
                receiver: o.clone(),
                name: name.into(),
            })));
        }
        if let Value::Type(t) = o {
            if super::methods::type_has_method(*t, name) {
                return Ok(Value::Unbound(Rc::new(Unbound {
                    owner: *t,
                    name: name.into(),
                })));
            }
        }
        Err(no_attribute(o, name))
    }

    /// `obj.name(args)`.
    pub fn call_method(
        &mut self,
        o: Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if let Value::Native(n) = &o {
            if !matches!(n, Native::Stdout | Native::Stderr) {
                let f = self.module_attr(*n, name)?;
                return self.call(&f, args, kwargs);
            }
        }
        if let Value::Std(s) = &o {
            if self.std_obj_attr(s, name).is_some() {
                return self.call_std_method(s, name, args, kwargs);
            }
        }
        if let Value::Dict(d) = &o {
            if d.borrow().flavor.is_some() && super::stdlib::has_flavored_method(d, name) {
                return self.flavored_method(d, name, args, kwargs);
            }
        }
        if super::methods::has_method(&o, name) {
            return self.method(&o, name, args, kwargs);
        }
        let f = self.getattr(&o, name)?;
        self.call(&f, args, kwargs)
    }
}

/// `AttributeError` as CPython words it for modules, types and instances.
pub(crate) fn no_attribute(o: &Value, name: &str) -> Unwind {
    let message = match o {
        Value::Native(n) => format!(
            "module '{}' has no attribute '{name}'",
            modules::native_name(*n)
        ),
        Value::Type(t) => format!("type object '{}' has no attribute '{name}'", t.name()),
        Value::ExcType(k) => format!("type object '{}' has no attribute '{name}'", k.name()),
        _ => format!("'{}' object has no attribute '{name}'", o.type_name()),
    };
    Unwind::new(ExcKind::AttributeError, message)
}

pub(crate) fn too_many_positional(
    qual: &str,
    n: usize,
    ndefaults: usize,
    given: usize,
    kwonly_given: usize,
) -> Unwind {
    let (sig, plural) = if ndefaults > 0 {
        (format!("from {} to {n}", n - ndefaults.min(n)), true)
    } else {
        (n.to_string(), n != 1)
    };
    let kwonly = if kwonly_given > 0 {
        format!(
            " positional argument{} (and {kwonly_given} keyword-only argument{})",
            if given != 1 { "s" } else { "" },
            if kwonly_given != 1 { "s" } else { "" }
        )
    } else {
        String::new()
    };
    Unwind::new(
        ExcKind::TypeError,
        format!(
            "{qual}() takes {sig} positional argument{} but {given}{kwonly} {} given",
            if plural { "s" } else { "" },
            if given == 1 && kwonly_given == 0 {
                "was"
            } else {
                "were"
            }
        ),
    )
}

pub(crate) fn missing_arguments(qual: &str, kind: &str, names: &[Rc<str>]) -> Unwind {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    let list = match quoted.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
        [] => String::new(),
    };
    Unwind::new(
        ExcKind::TypeError,
        format!(
            "{qual}() missing {} required {kind} argument{}: {list}",
            names.len(),
            if names.len() == 1 { "" } else { "s" }
        ),
    )
}

/// Checks the number of positional arguments of a builtin.
pub(crate) fn arity(name: &str, args: &[Value], min: usize, max: usize) -> R<()> {
    let n = args.len();
    if n >= min && n <= max {
        return Ok(());
    }
    let message = if min == max && min == 1 {
        format!("{name}() takes exactly one argument ({n} given)")
    } else if min == max && min == 0 {
        format!("{name}() takes no arguments ({n} given)")
    } else if min == max {
        format!("{name} expected {min} arguments, got {n}")
    } else if n < min {
        format!(
            "{name} expected at least {min} argument{}, got {n}",
            if min == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "{name} expected at most {max} argument{}, got {n}",
            if max == 1 { "" } else { "s" }
        )
    };
    type_error(message)
}

/// Rejects keyword arguments a builtin does not take.
pub(crate) fn no_kwargs(name: &str, kwargs: &Kwargs) -> R<()> {
    match kwargs.first() {
        None => Ok(()),
        Some(_) => fail(
            ExcKind::TypeError,
            format!("{name}() takes no keyword arguments"),
        ),
    }
}

/// Takes the keyword arguments named in `allowed` out of `kwargs`; others are an error.
pub(crate) fn take_kwargs<const N: usize>(
    name: &str,
    kwargs: Kwargs,
    allowed: [&str; N],
) -> R<[Option<Value>; N]> {
    let mut out: [Option<Value>; N] = std::array::from_fn(|_| None);
    for (k, v) in kwargs {
        match allowed.iter().position(|a| **a == *k) {
            Some(i) => out[i] = Some(v),
            None => {
                return type_error(format!("'{k}' is an invalid keyword argument for {name}()"));
            }
        }
    }
    Ok(out)
}

/// `__mro__` (`full`) or `__bases__` of an exception class: its ancestors up to `object`.
fn exc_lineage(class: &Value, full: bool) -> Value {
    let start = match class {
        Value::ExcType(k) => ExcClass::Builtin(*k),
        Value::UserExcType(c) => ExcClass::User(c.clone()),
        _ => return Value::tuple(Vec::new()),
    };
    let object = Value::Type(TypeKind::Object);
    if !full {
        return Value::tuple(vec![start.base().map_or(object, |b| b.as_value())]);
    }
    let mut items = Vec::new();
    let mut cur = Some(start);
    while let Some(c) = cur {
        items.push(c.as_value());
        cur = c.base();
    }
    items.push(object);
    Value::tuple(items)
}
