//! `repr` and `str` of values, as CPython prints them (ints beyond 4300 digits refused as
//! CPython 3.11 does; recursive containers print `[...]`). Functions and iterators print
//! without their address, so output is deterministic.

use num_bigint::BigInt;

use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, value_error};
use super::limits;
use super::modules::native_repr;
use super::value::{Value, ViewKind};
pub(crate) use crate::python::repr::{float_repr, str_repr};

/// CPython 3.11's limit on decimal digits converted to or from an int.
pub(crate) const MAX_STR_DIGITS: usize = 4300;

/// `repr(v)`.
pub(crate) fn repr(v: &Value) -> R<String> {
    let mut out = String::new();
    write_repr(v, &mut out, &mut Vec::new())?;
    Ok(out)
}

/// `str(v)`.
pub(crate) fn to_str(v: &Value) -> R<String> {
    match v {
        Value::Str(s) => Ok(s.as_str().to_string()),
        Value::Exception(e) => exc_str(e),
        other => repr(other),
    }
}

/// `str(exception)`: empty, the single argument, or the tuple of arguments; a class
/// body's `__str__` needs the machine.
pub(crate) fn exc_str(e: &ExcObject) -> R<String> {
    if e.class.lookup("__str__").is_some() {
        return Err(super::dunder::needs_machine());
    }
    exc_str_base(e)
}

/// `BaseException.__str__` where it needs no machine.
pub(crate) fn exc_str_base(e: &ExcObject) -> R<String> {
    if let Some(text) = super::codec::unicode_error_str(e) {
        return Ok(text);
    }
    match e.args().as_slice() {
        [] => Ok(String::new()),
        [one]
            if e.class
                .is_subclass_of(&ExcClass::Builtin(ExcKind::KeyError)) =>
        {
            repr(one)
        }
        [one] => to_str(one),
        many => repr(&Value::tuple(many.to_vec())),
    }
}

/// The decimal text of an int, refused beyond 4300 digits.
pub(crate) fn int_str(b: &BigInt) -> R<String> {
    if b.bits() > 14_300 {
        return Err(digits_error());
    }
    let s = b.to_string();
    if s.trim_start_matches('-').len() > MAX_STR_DIGITS {
        return Err(digits_error());
    }
    Ok(s)
}

fn digits_error() -> Unwind {
    Unwind::new(
        ExcKind::ValueError,
        format!(
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
        ),
    )
}

/// Guards against cycles (`[...]`) and runaway nesting.
fn enter(ptr: usize, seen: &mut Vec<usize>) -> R<bool> {
    if seen.contains(&ptr) {
        return Ok(false);
    }
    if seen.len() as u32 > limits::current().recursion_limit {
        return Err(Unwind::new(
            ExcKind::RecursionError,
            "maximum recursion depth exceeded while getting the repr of an object",
        ));
    }
    seen.push(ptr);
    Ok(true)
}

fn write_items(items: &[Value], out: &mut String, seen: &mut Vec<usize>) -> R<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(item, out, seen)?;
    }
    Ok(())
}

fn write_repr(v: &Value, out: &mut String, seen: &mut Vec<usize>) -> R<()> {
    match v {
        Value::None => out.push_str("None"),
        Value::Ellipsis => out.push_str("Ellipsis"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Big(b) => out.push_str(&int_str(b)?),
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => out.push_str(&str_repr(s.as_str())),
        Value::Bytes(b) => out.push_str(&super::bytes::repr(b)),
        Value::Instance(_) | Value::Bound(_) => return Err(super::dunder::needs_machine()),
        Value::Class(c) if c.is_flag() => out.push_str(&format!("<flag '{}'>", c.name)),
        Value::Class(c) if c.is_enum() => out.push_str(&format!("<enum '{}'>", c.name)),
        Value::Class(c) => out.push_str(&format!("<class '{}.{}'>", c.module, c.qualname)),
        Value::Descriptor(d) => out.push_str(&format!("<{} object>", d.type_name())),
        Value::Super(s) => out.push_str(&format!(
            "<super: <class '{}'>, <{} object>>",
            s.after.name(),
            s.receiver.type_name()
        )),
        Value::NotImplemented => out.push_str("NotImplemented"),
        Value::Set(s) => {
            let set = s.borrow().clone();
            out.push_str(&super::set_ops::set_repr(&set)?);
        }
        Value::Tuple(items) => {
            if !enter(std::rc::Rc::as_ptr(items) as usize, seen)? {
                out.push_str("(...)");
                return Ok(());
            }
            out.push('(');
            write_items(items, out, seen)?;
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
            seen.pop();
        }
        Value::List(items) => {
            if !enter(std::rc::Rc::as_ptr(items) as *const () as usize, seen)? {
                out.push_str("[...]");
                return Ok(());
            }
            let snapshot = items.borrow().clone();
            out.push('[');
            write_items(&snapshot, out, seen)?;
            out.push(']');
            seen.pop();
        }
        Value::Dict(d) if d.borrow().flavor.is_some() => {
            if let Some(text) = super::stdlib::dict_repr(d, &repr)? {
                out.push_str(&text);
            }
        }
        Value::Dict(d) => {
            if !enter(std::rc::Rc::as_ptr(d) as *const () as usize, seen)? {
                out.push_str("{...}");
                return Ok(());
            }
            let entries: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
            out.push('{');
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, out, seen)?;
                out.push_str(": ");
                write_repr(val, out, seen)?;
            }
            out.push('}');
            seen.pop();
        }
        Value::View(view) => {
            let d = view.dict.borrow();
            let items: Vec<Value> = match view.kind {
                ViewKind::Keys => d.iter().map(|(k, _)| k.clone()).collect(),
                ViewKind::Values => d.iter().map(|(_, v)| v.clone()).collect(),
                ViewKind::Items => d
                    .iter()
                    .map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()]))
                    .collect(),
            };
            drop(d);
            out.push_str(v.type_name().as_str());
            out.push_str("([");
            write_items(&items, out, seen)?;
            out.push_str("])");
        }
        Value::Range(r) => {
            if r.step == 1 {
                out.push_str(&format!("range({}, {})", r.start, r.stop));
            } else {
                out.push_str(&format!("range({}, {}, {})", r.start, r.stop, r.step));
            }
        }
        Value::Function(f) => out.push_str(&format!("<function {}>", f.code.qualname)),
        Value::Builtin(super::builtins::Builtin::Std(f)) => out.push_str(&f.repr()),
        Value::Builtin(b) => out.push_str(&format!("<built-in function {}>", b.name())),
        Value::Method(m) => out.push_str(&format!(
            "<built-in method {} of {} object>",
            m.name,
            m.receiver.type_name()
        )),
        Value::Unbound(m) => out.push_str(&format!(
            "<method '{}' of '{}' objects>",
            m.name,
            m.owner.name()
        )),
        Value::Type(t) => out.push_str(&format!("<class '{}'>", t.name())),
        Value::ExcType(k) => out.push_str(&format!("<class '{}'>", k.name())),
        Value::UserExcType(c) => out.push_str(&format!("<class '__main__.{}'>", c.name)),
        Value::Exception(e) if e.class.lookup("__repr__").is_some() => {
            return Err(super::dunder::needs_machine());
        }
        Value::Exception(e) => {
            out.push_str(e.class.name());
            out.push('(');
            write_items(&e.args(), out, seen)?;
            out.push(')');
        }
        Value::Iter(it) => out.push_str(&it.borrow().repr()),
        Value::Native(n) => out.push_str(native_repr(*n)),
        Value::Opaque(name) => out.push_str(&format!("typing.{name}")),
        Value::Unavailable(what) => out.push_str(&format!("<{what}>")),
        Value::Std(o) => out.push_str(&super::stdlib::obj_repr(o, &repr)?),
    }
    Ok(())
}

/// `ValueError` for an int literal of too many digits, as `int()` raises it.
pub(crate) fn too_many_digits<T>(digits: usize) -> R<T> {
    value_error(format!(
        "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_and_strings_print_like_cpython() {
        let l = Value::list(vec![
            Value::Int(1),
            Value::str("it's"),
            Value::Float(0.5),
            Value::None,
        ]);
        assert_eq!(repr(&l).unwrap(), "[1, \"it's\", 0.5, None]");
        assert_eq!(
            repr(&Value::tuple(vec![Value::Bool(true)])).unwrap(),
            "(True,)"
        );
        assert_eq!(
            str_repr("a\u{7f}\u{a0}\u{e9}\u{200b}"),
            "'a\\x7f\\xa0\u{e9}\\u200b'"
        );
        assert_eq!(to_str(&Value::str("x")).unwrap(), "x");
        // CPython: repr of these floats (ties in the last digit go to even).
        let floats = [
            (1715302934980770.25, "1715302934980770.2"),
            (234525627840439.625, "234525627840439.62"),
            (5e-324, "5e-324"),
            (1e23, "1e+23"),
            (9007199254740993.0, "9007199254740992.0"),
            (0.3, "0.3"),
            (1.5e-323, "1.5e-323"),
            (1e16, "1e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (-1.5e-5, "-1.5e-05"),
            (1e15, "1000000000000000.0"),
        ];
        for (f, text) in floats {
            assert_eq!(float_repr(f), text);
        }
        if let Value::List(items) = &l {
            items.borrow_mut().push(l.clone());
        }
        assert_eq!(repr(&l).unwrap(), "[1, \"it's\", 0.5, None, [...]]");
        if let Value::List(items) = &l {
            items.borrow_mut().clear();
        }
    }

    #[test]
    fn huge_ints_are_refused_like_cpython() {
        let big = BigInt::from(10).pow(4300u32);
        assert!(int_str(&big).is_err());
        assert_eq!(int_str(&(big / 10)).map(|s| s.len()).ok(), Some(4300));
    }

    #[test]
    fn exceptions_print_their_arguments() {
        let e = ExcObject::new(ExcClass::Builtin(ExcKind::KeyError), vec![Value::str("k")]);
        assert_eq!(exc_str(&e).unwrap(), "'k'");
        let e = ExcObject::new(
            ExcClass::Builtin(ExcKind::ValueError),
            vec![Value::Int(1), Value::Int(2)],
        );
        assert_eq!(exc_str(&e).unwrap(), "(1, 2)");
        assert_eq!(
            repr(&Value::Exception(std::rc::Rc::new(e))).unwrap(),
            "ValueError(1, 2)"
        );
    }
}
