//! `str.maketrans` and `str.translate`, with CPython's checks and messages: the table maps
//! code points to a code point, a string or `None` (delete), and is read through
//! `__getitem__` (a `LookupError` keeps the character).

use std::cell::RefCell;
use std::rc::Rc;

use super::dict::{Dict, key_of};
use super::exc::{ExcClass, ExcKind, R, type_error, value_error};
use super::machine::Machine;
use super::value::Value;

/// `str.maketrans(x)`, `(x, y)` or `(x, y, z)`.
pub(crate) fn maketrans(args: &[Value]) -> R<Value> {
    let mut table = Dict::default();
    let mut put = |k: i64, v: Value| -> R<()> {
        let k = Value::Int(k);
        table.insert(key_of(&k)?, k, v);
        Ok(())
    };
    match args {
        [] => return type_error("maketrans() takes at least 1 argument (0 given)"),
        [Value::Dict(d)] => {
            for (k, v) in d.borrow().iter() {
                match k {
                    Value::Int(i) => put(*i, v.clone())?,
                    Value::Bool(b) => put(*b as i64, v.clone())?,
                    Value::Str(s) => {
                        let mut cs = s.as_str().chars();
                        match (cs.next(), cs.next()) {
                            (Some(c), None) => put(c as i64, v.clone())?,
                            _ => {
                                return value_error(
                                    "string keys in translate table must be of length 1",
                                );
                            }
                        }
                    }
                    _ => return type_error("keys in translate table must be strings or integers"),
                }
            }
        }
        [_] => {
            return type_error("if you give only one argument to maketrans it must be a dict");
        }
        [x, y, rest @ ..] if rest.len() <= 1 => {
            let text = |v: &Value, n: usize| -> R<Vec<char>> {
                match v {
                    Value::Str(s) => Ok(s.as_str().chars().collect()),
                    other => type_error(format!(
                        "maketrans() argument {n} must be str, not {}",
                        other.type_name()
                    )),
                }
            };
            let (from, to) = (text(x, 1)?, text(y, 2)?);
            let delete = match rest.first() {
                Some(z) => text(z, 3)?,
                None => Vec::new(),
            };
            if from.len() != to.len() {
                return value_error("the first two maketrans arguments must have equal length");
            }
            for (a, b) in from.iter().zip(&to) {
                put(*a as i64, Value::Int(*b as i64))?;
            }
            for c in delete {
                put(c as i64, Value::None)?;
            }
        }
        _ => {
            return type_error(format!(
                "maketrans() takes at most 3 arguments ({} given)",
                args.len()
            ));
        }
    }
    Ok(Value::Dict(Rc::new(RefCell::new(table))))
}

impl Machine {
    /// `text.translate(table)`.
    pub(crate) fn translate(&mut self, text: &str, table: &Value) -> R<Value> {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            let mapped = match self.getitem(table, &Value::Int(c as i64)) {
                Ok(v) => v,
                Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::LookupError)) => {
                    out.push(c);
                    continue;
                }
                Err(e) => return Err(e),
            };
            match mapped {
                Value::None => {}
                Value::Str(s) => out.push_str(s.as_str()),
                Value::Int(i) => match u32::try_from(i).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => return value_error("character mapping must be in range(0x110000)"),
                },
                Value::Bool(b) => out.push(char::from(b as u8)),
                _ => return type_error("character mapping must return integer, None or str"),
            }
            super::ops::check_len(out.len())?;
        }
        Ok(Value::str(out))
    }
}
