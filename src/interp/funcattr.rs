//! Attributes of user functions: `f.__doc__` (the docstring), `f.__module__`, `f.__dict__`,
//! `f.__defaults__`,
//! and any attribute a program sets (`f.calls = 0`, `inc.reset = reset`); and
//! `functools.wraps`, which copies `__module__`, `__name__`, `__qualname__`, `__doc__`
//! and `__dict__` from the wrapped function and sets `__wrapped__`, as CPython's
//! `update_wrapper` does.

use std::rc::Rc;

use super::code::{Body, Code, Expr, StmtKind};
use super::value::{Function, Value};

/// The names `functools.wraps` copies (`WRAPPER_ASSIGNMENTS` less `__annotations__`,
/// which this interpreter does not evaluate).
pub(crate) const WRAPPER_ASSIGNMENTS: [&str; 4] =
    ["__module__", "__name__", "__qualname__", "__doc__"];

/// `f.name` for a user function: an attribute set on it, then the built-in ones.
pub(crate) fn get(f: &Function, name: &str) -> Option<Value> {
    if let Some(v) = own(f, name) {
        return Some(v);
    }
    Some(match name {
        "__name__" => Value::str(&*f.code.name),
        "__qualname__" => Value::str(&*f.code.qualname),
        "__module__" => Value::str("__main__"),
        "__doc__" => docstring(f).unwrap_or(Value::None),
        "__defaults__" if f.defaults.is_empty() => Value::None,
        "__defaults__" => Value::tuple(f.defaults.clone()),
        _ => return None,
    })
}

/// The attribute `name` set on `f`.
fn own(f: &Function, name: &str) -> Option<Value> {
    let attrs = f.attrs.borrow();
    super::names::position(&attrs, name).map(|i| attrs[i].1.clone())
}

/// `f.__dict__`: the attributes set on `f` other than the built-in ones.
pub(crate) fn dict_items(f: &Function) -> Vec<(Rc<str>, Value)> {
    f.attrs
        .borrow()
        .iter()
        .filter(|(n, _)| !WRAPPER_ASSIGNMENTS.contains(&&**n))
        .cloned()
        .collect()
}

/// `f.name = value`.
pub(crate) fn set(f: &Function, name: &str, value: Value) {
    super::class::set_attr(&mut f.attrs.borrow_mut(), name, value);
}

/// The first statement of the body when it is a string.
fn docstring(f: &Function) -> Option<Value> {
    code_docstring(&f.code)
}

/// The docstring of a function's or class's body: its first statement when it is a string.
pub(crate) fn code_docstring(code: &Code) -> Option<Value> {
    let Body::Block(stmts) = &code.body else {
        return None;
    };
    match stmts.first().map(|s| &s.kind) {
        Some(StmtKind::Expr(Expr::Const(v @ Value::Str(_)))) => Some(v.clone()),
        _ => None,
    }
}

/// `functools.update_wrapper(wrapper, wrapped)` for a user-function `wrapper`; other
/// wrappers are returned unchanged.
pub(crate) fn update_wrapper(
    wrapper: &Value,
    wrapped: &Value,
    lookup: impl Fn(&str) -> Option<Value>,
) {
    let Value::Function(w) = wrapper else {
        return;
    };
    for name in WRAPPER_ASSIGNMENTS {
        if let Some(v) = lookup(name) {
            set(w, name, v);
        }
    }
    if let Value::Function(inner) = wrapped {
        for (k, v) in dict_items(inner) {
            set(w, &k, v);
        }
    }
    set(w, "__wrapped__", wrapped.clone());
}
