//! `json`: `dumps` with CPython's layout (`indent`, `sort_keys`, `separators`,
//! `ensure_ascii`) and `loads` (CPython's scanner, in `json_decode.rs`).

use super::StdFn;
use super::json_decode::Hook;
use crate::interp::call::{Kwargs, arity, take_kwargs};
use crate::interp::exc::{ExcKind, R, Unwind, fail, type_error, value_error};
use crate::interp::machine::Machine;
use crate::interp::ops::truthy;
use crate::interp::repr::{float_repr, int_str};
use crate::interp::value::Value;

struct Style {
    indent: Option<String>,
    item_sep: String,
    key_sep: String,
    sort_keys: bool,
    ascii: bool,
}

fn quote(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn float_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f == f64::INFINITY {
        "Infinity".into()
    } else if f == f64::NEG_INFINITY {
        "-Infinity".into()
    } else {
        float_repr(f)
    }
}

impl Machine {
    fn dump(&mut self, v: &Value, st: &Style, level: usize, out: &mut String) -> R<()> {
        self.tick()?;
        if level > 900 {
            return fail(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded while encoding a JSON object",
            );
        }
        crate::interp::budget::charge_items(out.len() / 64)?;
        match v {
            Value::None => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Big(b) => out.push_str(&int_str(b)?),
            Value::Float(f) => out.push_str(&float_text(*f)),
            Value::Str(s) => quote(s.as_str(), st.ascii, out),
            Value::List(_) | Value::Tuple(_) => {
                let items = match v {
                    Value::List(l) => l.borrow().clone(),
                    Value::Tuple(t) => t.to_vec(),
                    _ => Vec::new(),
                };
                if items.is_empty() {
                    out.push_str("[]");
                    return Ok(());
                }
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&st.item_sep);
                    }
                    newline(st, level + 1, out);
                    self.dump(item, st, level + 1, out)?;
                }
                newline(st, level, out);
                out.push(']');
            }
            Value::Dict(d) => {
                let mut entries: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
                if entries.is_empty() {
                    out.push_str("{}");
                    return Ok(());
                }
                if st.sort_keys {
                    let keys: Vec<Value> = entries.iter().map(|(k, _)| k.clone()).collect();
                    let sorted = crate::interp::sort::sort(self, keys, Value::None, false)?;
                    let mut by_key = Vec::with_capacity(entries.len());
                    for k in sorted {
                        if let Some(pos) = entries
                            .iter()
                            .position(|(x, _)| crate::interp::ops::is(x, &k))
                        {
                            by_key.push(entries.swap_remove(pos));
                        }
                    }
                    entries = by_key;
                }
                out.push('{');
                for (i, (k, val)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&st.item_sep);
                    }
                    newline(st, level + 1, out);
                    let key = match k {
                        Value::Str(s) => s.as_str().to_string(),
                        Value::None => "null".into(),
                        Value::Bool(b) => (if *b { "true" } else { "false" }).into(),
                        Value::Int(i) => i.to_string(),
                        Value::Big(b) => int_str(b)?,
                        Value::Float(f) => float_text(*f),
                        other => {
                            return type_error(format!(
                                "keys must be str, int, float, bool or None, not {}",
                                other.type_name()
                            ));
                        }
                    };
                    quote(&key, st.ascii, out);
                    out.push_str(&st.key_sep);
                    self.dump(val, st, level + 1, out)?;
                }
                newline(st, level, out);
                out.push('}');
            }
            other => {
                return type_error(format!(
                    "Object of type {} is not JSON serializable",
                    other.type_name()
                ));
            }
        }
        Ok(())
    }

    pub(super) fn call_json(&mut self, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match f {
            StdFn::Dumps => {
                let [indent, sort_keys, separators, ensure_ascii] = take_kwargs(
                    "dumps",
                    kwargs,
                    ["indent", "sort_keys", "separators", "ensure_ascii"],
                )?;
                arity("dumps", &args, 1, 1)?;
                let indent = match indent {
                    None | Some(Value::None) => None,
                    Some(Value::Str(s)) => Some(s.as_str().to_string()),
                    Some(v) if v.is_int() => Some(
                        " ".repeat(crate::interp::builtins::index_arg(&v)?.clamp(0, 1000) as usize),
                    ),
                    Some(v) => {
                        return type_error(format!(
                            "can't multiply sequence by non-int of type '{}'",
                            v.type_name()
                        ));
                    }
                };
                let (item_sep, key_sep) = match separators {
                    None | Some(Value::None) => (
                        if indent.is_some() { "," } else { ", " }.to_string(),
                        ": ".to_string(),
                    ),
                    Some(Value::Tuple(t)) if t.len() == 2 => match (&t[0], &t[1]) {
                        (Value::Str(a), Value::Str(b)) => {
                            (a.as_str().to_string(), b.as_str().to_string())
                        }
                        _ => return type_error("separators must be a pair of str"),
                    },
                    Some(_) => return type_error("separators must be a pair of str"),
                };
                let st = Style {
                    indent,
                    item_sep,
                    key_sep,
                    sort_keys: sort_keys.as_ref().is_some_and(truthy),
                    ascii: ensure_ascii.as_ref().is_none_or(truthy),
                };
                let mut out = String::new();
                self.dump(&args[0], &st, 0, &mut out)?;
                Ok(Value::str(out))
            }
            StdFn::Loads => {
                const HOOKS: [&str; 4] = [
                    "object_hook",
                    "parse_float",
                    "parse_int",
                    "object_pairs_hook",
                ];
                if let Some((k, _)) = kwargs.iter().find(|(k, _)| !HOOKS.contains(&&**k)) {
                    return Err(Unwind::unsupported(format!("json.loads({k}=...)")));
                }
                let [object_hook, parse_float, parse_int, pairs_hook] =
                    take_kwargs("loads", kwargs, HOOKS)?;
                arity("loads", &args, 1, 1)?;
                let Value::Str(s) = &args[0] else {
                    return type_error(format!(
                        "the JSON object must be str, bytes or bytearray, not {}",
                        args[0].type_name()
                    ));
                };
                crate::interp::budget::charge_items(s.as_str().len())?;
                let given = |v: Option<Value>| v.filter(|v| !matches!(v, Value::None));
                let (object_hook, parse_float, parse_int, pairs_hook) = (
                    given(object_hook),
                    given(parse_float),
                    given(parse_int),
                    given(pairs_hook),
                );
                if object_hook.is_none()
                    && parse_float.is_none()
                    && parse_int.is_none()
                    && pairs_hook.is_none()
                {
                    return super::json_decode::loads(s.as_str(), None);
                }
                let mut hooks = |h: Hook<'_>| -> R<Option<Value>> {
                    let (f, arg) = match h {
                        Hook::Int(t) => (&parse_int, Value::str(t)),
                        Hook::Float(t) => (&parse_float, Value::str(t)),
                        Hook::Object(pairs) => match (&pairs_hook, &object_hook) {
                            (Some(_), _) => (
                                &pairs_hook,
                                Value::list(
                                    pairs
                                        .iter()
                                        .map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()]))
                                        .collect(),
                                ),
                            ),
                            (None, Some(_)) => (&object_hook, super::json_decode::dict_of(pairs)?),
                            (None, None) => return Ok(None),
                        },
                    };
                    match f {
                        Some(f) => self.call(f, vec![arg], Vec::new()).map(Some),
                        None => Ok(None),
                    }
                };
                super::json_decode::loads(s.as_str(), Some(&mut hooks))
            }
            _ => value_error(format!("{} is not in json", f.name())),
        }
    }
}

fn newline(st: &Style, level: usize, out: &mut String) {
    if let Some(ind) = &st.indent {
        out.push('\n');
        for _ in 0..level {
            out.push_str(ind);
        }
    }
}
