//! Exception chaining: `__cause__` (set by `raise ... from ...`, which also sets
//! `__suppress_context__`), and `__context__`, the exception being handled when another
//! one was raised. CPython sets the context at the raise; here it is set when the new
//! exception is raised by a `raise` statement, caught, or leaves a handler (`except`,
//! `finally`, `__exit__`) — the innermost handled exception each time, as in CPython.

use std::rc::Rc;

use super::exc::{ExcObject, R, Unwind};
use super::machine::Machine;
use super::value::Value;

/// The chaining attributes' values for an exception that has not set them.
pub(crate) fn default_attr(name: &str) -> Option<Value> {
    match name {
        "__cause__" | "__context__" => Some(Value::None),
        "__suppress_context__" => Some(Value::Bool(false)),
        _ => None,
    }
}

fn has(exc: &ExcObject, name: &str) -> bool {
    exc.attrs.borrow().iter().any(|(n, _)| **n == *name)
}

fn set(exc: &ExcObject, name: &str, v: Value) {
    super::class::set_attr(&mut exc.attrs.borrow_mut(), name, v);
}

/// `raise exc from cause`: `cause` is an exception object or `None`.
pub(crate) fn set_cause(exc: &ExcObject, cause: Value) {
    set(exc, "__cause__", cause);
    set(exc, "__suppress_context__", Value::Bool(true));
}

/// Sets `exc.__context__` to `handled` unless it has a context already or is `handled`.
pub(crate) fn set_context(exc: &Rc<ExcObject>, handled: &Rc<ExcObject>) {
    if !Rc::ptr_eq(exc, handled) && !has(exc, "__context__") {
        set(exc, "__context__", Value::Exception(handled.clone()));
    }
}

impl Machine {
    /// Chains `exc` to the exception being handled, if any.
    pub(crate) fn chain_to_handled(&self, exc: &Rc<ExcObject>) {
        if let Some(h) = self.handling.last() {
            set_context(exc, &h.exc);
        }
    }
}

/// Chains an exception leaving the handler of `handled` to it.
pub(crate) fn chain_leaving<T>(result: &R<T>, handled: &Rc<ExcObject>) {
    if let Some(raised) = result.as_ref().err().and_then(Unwind::raised) {
        set_context(&raised.exc, handled);
    }
}
