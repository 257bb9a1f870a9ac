//! Calls into the interpreter from Rust code running on the interpreter's thread: the
//! engine's user-written domains and analyses (`dataflow::user`) call the methods of a cell's
//! classes in process through this module.
//!
//! The worker keeps the session's [`Machine`] in a thread-local; a [`Task`] request runs a
//! closure on the worker's thread, where [`HostValue`]s (interpreter values, which never
//! leave that thread) can be created, compared and called. Every call charges the request's
//! step budget and polls its stop signal like a cell's code; an exception comes back as a
//! [`RunError`] with its traceback (the user's lines).
//!
//! The `analysis` module (`prelude/analysis.py`: `Domain`, `Analysis`, the `domain` and
//! `analysis` decorators, the registry) is Python source run once per session, the first
//! time a cell imports it (`source_module.rs`); it binds one global, `__analysis__`.

use std::any::Any;
use std::cell::RefCell;

use num_bigint::BigInt;

use super::RunError;
use super::machine::Machine;
use super::value::Value;

/// The module's import name.
pub(crate) const MODULE: &str = "analysis";
/// The global holding the module object.
pub(crate) const GLOBAL: &str = "__analysis__";

thread_local! {
    static MACHINE: RefCell<Option<Machine>> = const { RefCell::new(None) };
}

/// Work run on the interpreter's thread (see [`super::Interpreter::host`]).
pub type Task = Box<dyn FnOnce() -> Box<dyn Any + Send> + Send>;

/// Puts the worker's machine in place for the thread's lifetime.
pub(super) fn install(machine: Machine) {
    MACHINE.with(|m| *m.borrow_mut() = Some(machine));
}

/// Runs `f` with the machine; `Crashed` when there is none or it is in use (a host call
/// made from inside another).
pub(super) fn with<T>(f: impl FnOnce(&mut Machine) -> T) -> Result<T, RunError> {
    MACHINE.with(|m| match m.try_borrow_mut() {
        Ok(mut guard) => match guard.as_mut() {
            Some(machine) => Ok(f(machine)),
            None => Err(RunError::Crashed(
                "no interpreter on this thread (host calls run on the interpreter's worker)".into(),
            )),
        },
        Err(_) => Err(RunError::Crashed(
            "re-entrant call into the interpreter".into(),
        )),
    })
}

/// An interpreter value, held by Rust code on the interpreter's thread.
#[derive(Clone)]
pub struct HostValue(pub(super) Value);

impl HostValue {
    pub fn int(i: &BigInt) -> HostValue {
        HostValue(Value::big(i.clone()))
    }

    pub fn str(text: &str) -> HostValue {
        HostValue(Value::str(text))
    }

    pub fn bool(b: bool) -> HostValue {
        HostValue(Value::Bool(b))
    }

    pub fn none() -> HostValue {
        HostValue(Value::None)
    }

    pub fn tuple(items: Vec<HostValue>) -> HostValue {
        HostValue(Value::tuple(items.into_iter().map(|v| v.0).collect()))
    }

    pub fn list(items: Vec<HostValue>) -> HostValue {
        HostValue(Value::list(items.into_iter().map(|v| v.0).collect()))
    }

    pub fn is_none(&self) -> bool {
        matches!(self.0, Value::None)
    }

    /// The value as an int, when it is one (`bool` included).
    pub fn to_int(&self) -> Option<BigInt> {
        self.0.to_bigint()
    }

    /// The value as a `str`, when it is one.
    pub fn as_str(&self) -> Option<String> {
        match &self.0 {
            Value::Str(_) => super::repr::to_str(&self.0).ok(),
            _ => None,
        }
    }

    /// The value as plain data (None, bool, int, float, str, tuples and lists of these).
    pub fn to_py(&self) -> Option<crate::python::value::PyValue> {
        self.0.to_py()
    }

    /// `type(v).__name__`.
    pub fn type_name(&self) -> String {
        self.0.type_name()
    }
}

fn run<T>(f: impl FnOnce(&mut Machine) -> super::exc::R<T>) -> Result<T, RunError> {
    with(|m| f(m).map_err(|e| super::worker::run_error_in(m, e)))?
}

/// The global `name`, when the cells bound it.
pub fn global(name: &str) -> Option<HostValue> {
    with(|m| m.globals.lookup(name).cloned().map(HostValue))
        .ok()
        .flatten()
}

/// `f(*args)`.
pub fn call(f: &HostValue, args: Vec<HostValue>) -> Result<HostValue, RunError> {
    run(|m| {
        m.call(&f.0, args.into_iter().map(|a| a.0).collect(), Vec::new())
            .map(HostValue)
    })
}

/// `obj.name(*args)`.
pub fn call_method(
    obj: &HostValue,
    name: &str,
    args: Vec<HostValue>,
) -> Result<HostValue, RunError> {
    run(|m| {
        let args = args.into_iter().map(|a| a.0).collect();
        match &obj.0 {
            Value::Instance(i) => {
                m.call_instance_method(&i.clone(), obj.0.clone(), name, args, Vec::new())
            }
            other => {
                let f = m.getattr(other, name)?;
                m.call(&f, args, Vec::new())
            }
        }
        .map(HostValue)
    })
}

/// `obj.name`.
pub fn attr(obj: &HostValue, name: &str) -> Result<HostValue, RunError> {
    run(|m| m.getattr(&obj.0, name).map(HostValue))
}

/// `a == b`.
pub fn eq(a: &HostValue, b: &HostValue) -> Result<bool, RunError> {
    run(|m| m.values_eq(&a.0, &b.0))
}

/// `bool(v)`.
pub fn truthy(v: &HostValue) -> Result<bool, RunError> {
    run(|m| m.truth(&v.0))
}

/// `str(v)`.
pub fn str_of(v: &HostValue) -> Result<String, RunError> {
    run(|m| m.str_of(&v.0))
}

/// `repr(v)`.
pub fn repr_of(v: &HostValue) -> Result<String, RunError> {
    run(|m| m.repr_of(&v.0))
}

/// `list(v)`.
pub fn items(v: &HostValue) -> Result<Vec<HostValue>, RunError> {
    run(|m| {
        m.collect(v.0.clone())
            .map(|xs| xs.into_iter().map(HostValue).collect())
    })
}

/// `set(items)` of strs.
pub fn str_set<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<HostValue, RunError> {
    let list = Value::list(items.into_iter().map(Value::str).collect());
    run(|m| {
        m.call(
            &Value::Type(super::value::TypeKind::Set),
            vec![list],
            Vec::new(),
        )
        .map(HostValue)
    })
}

/// A dict with str keys.
pub fn str_dict(pairs: Vec<(&str, HostValue)>) -> Result<HostValue, RunError> {
    let mut dict = super::dict::Dict::default();
    for (k, v) in pairs {
        let key = Value::str(k);
        let hashed = super::dict::key_of(&key).map_err(super::worker::run_error)?;
        dict.insert(hashed, key, v.0);
    }
    Ok(HostValue(Value::Dict(std::rc::Rc::new(RefCell::new(dict)))))
}

/// The `analysis` module object, loading it first when no cell has imported it yet.
pub fn module() -> Result<HostValue, RunError> {
    with(load_prelude)??;
    global(GLOBAL).ok_or_else(|| RunError::Crashed("the analysis module did not load".into()))
}

/// Runs the prelude unless it ran in this session.
pub(super) fn load_prelude(m: &mut Machine) -> Result<(), RunError> {
    match super::source_module::find(MODULE) {
        Some(module) => super::source_module::load(m, module),
        None => Err(RunError::Crashed(
            "the analysis module is not listed".into(),
        )),
    }
}
