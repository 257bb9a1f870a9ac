//! `slice` objects: `slice(stop)`, `slice(start, stop[, step])`, what `obj[a:b]` passes to a
//! user class's `__getitem__`/`__setitem__`/`__delitem__`, and `xs[s]` on the builtin
//! sequences. Attributes `start`/`stop`/`step`, `indices(n)`, repr, `==` (as tuples) and
//! unhashable, as in CPython 3.11.

use std::rc::Rc;

use super::call::{Kwargs, no_kwargs};
use super::exc::{R, type_error, value_error};
use super::stdlib::StdObj;
use super::value::Value;

/// A slice object holding `start`, `stop`, `step` (each any value; `None` when absent).
pub(crate) fn new(start: Value, stop: Value, step: Value) -> Value {
    Value::Std(Rc::new(StdObj::Slice([start, stop, step])))
}

/// The parts of `v` when it is a slice object.
pub(crate) fn parts(v: &Value) -> Option<&[Value; 3]> {
    match v {
        Value::Std(o) => match &**o {
            StdObj::Slice(p) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

/// `slice(...)`, with CPython's argument-count messages.
pub(crate) fn construct(args: Vec<Value>, kwargs: &Kwargs) -> R<Value> {
    no_kwargs("slice", kwargs)?;
    let mut it = args.into_iter();
    match it.len() {
        0 => type_error("slice expected at least 1 argument, got 0"),
        1 => Ok(new(
            Value::None,
            it.next().unwrap_or(Value::None),
            Value::None,
        )),
        2 | 3 => {
            let start = it.next().unwrap_or(Value::None);
            let stop = it.next().unwrap_or(Value::None);
            Ok(new(start, stop, it.next().unwrap_or(Value::None)))
        }
        n => type_error(format!("slice expected at most 3 arguments, got {n}")),
    }
}

/// `s.start`, `s.stop`, `s.step`.
pub(crate) fn attr(p: &[Value; 3], name: &str) -> Option<Value> {
    match name {
        "start" => Some(p[0].clone()),
        "stop" => Some(p[1].clone()),
        "step" => Some(p[2].clone()),
        _ => None,
    }
}

/// `s.indices(length)`: `(start, stop, step)` clamped to a sequence of that length.
pub(crate) fn indices(p: &[Value; 3], args: &[Value]) -> R<Value> {
    let [length] = args else {
        return type_error(format!(
            "slice.indices() takes exactly one argument ({} given)",
            args.len()
        ));
    };
    let n = match super::seq::as_index(length) {
        Some(n) => n,
        None => {
            return type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                length.type_name()
            ));
        }
    };
    if n < 0 {
        return value_error("length should not be negative");
    }
    let len = usize::try_from(n).unwrap_or(usize::MAX);
    let (start, stop, step) = super::seq::bounds(len, &p[0], &p[1], &p[2])?;
    let int = |x: i128| Value::big(num_bigint::BigInt::from(x));
    Ok(Value::tuple(vec![int(start), int(stop), int(step)]))
}

/// `repr(s)`: `slice(1, None, 2)`.
pub(crate) fn repr(p: &[Value; 3], repr: &dyn Fn(&Value) -> R<String>) -> R<String> {
    Ok(format!(
        "slice({}, {}, {})",
        repr(&p[0])?,
        repr(&p[1])?,
        repr(&p[2])?
    ))
}
