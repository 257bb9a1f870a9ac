//! `repr` and `str` of values, as CPython prints them (ints beyond 4300 digits refused as
//! CPython 3.11 does; recursive containers print `[...]`). Functions and iterators print
//! without their address, so output is deterministic.

use num_bigint::BigInt;

use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, value_error};
use super::limits;
use super::modules::native_repr;
use super::value::{Value, ViewKind};

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

/// CPython's float repr: the shortest digits that round-trip, chosen with correct rounding
/// (`1715302934980770.25` is `...770.2`, ties to even), fixed notation for 1e-4 ≤ |x| < 1e16.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let (digits, exp) = shortest_digits(f.abs());
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                format!("{digits}{}.0", "0".repeat(int_len - digits.len()))
            } else {
                format!("{}.{}", &digits[..int_len], &digits[int_len..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let mantissa = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    };
    format!("{sign}{body}")
}

/// The significant digits of the shortest round-tripping repr of `x > 0`, and the decimal
/// exponent of the first digit.
fn shortest_digits(x: f64) -> (String, i32) {
    let shortest = format!("{x:e}");
    let n = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    // Rust picks some shortest digits; CPython the correctly rounded ones of that length.
    let rounded = format!("{:.*e}", n.saturating_sub(1), x);
    let chosen = if rounded.parse::<f64>().ok() == Some(x) {
        rounded
    } else {
        shortest
    };
    let (mantissa, exp) = chosen.split_once('e').unwrap_or((&chosen, "0"));
    (mantissa.replace('.', ""), exp.parse().unwrap_or(0))
}

/// Python's str repr: single quotes unless the text has a single quote and no double quote;
/// non-printable characters escaped as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub(crate) fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable` for one character: exact for Latin-1, and for other characters
/// the separators, format characters and private-use areas are non-printable.
pub(crate) fn is_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x100 {
        return (0x20..0x7f).contains(&u) || (u > 0xa0 && u != 0xad);
    }
    !matches!(u,
        0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f
        | 0x3000 | 0xfeff | 0xfff9..=0xfffb | 0xfffe | 0xffff | 0x0600..=0x0605 | 0x061c
        | 0x06dd | 0x070f | 0x180e | 0xd800..=0xdfff | 0xe000..=0xf8ff | 0x110bd
        | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        | 0xf0000..=0x10ffff)
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
