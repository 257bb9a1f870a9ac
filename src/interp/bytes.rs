//! `bytes`: its repr, operators (`+`, `*`, comparisons, `in`), indexing (ints) and slicing,
//! the constructor (`bytes()`, `bytes(n)`, `bytes(iterable)`, `bytes(str, encoding)`),
//! `bytes.fromhex` and the common methods, with CPython's error messages. `bytearray`,
//! `memoryview` and `%`-formatting of bytes are refused by name.

use std::rc::Rc;

use super::budget;
use super::builtins::index_arg;
use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::codec::{self, Codec};
use super::exc::{ExcKind, R, Unwind, fail, type_error, value_error};
use super::machine::Machine;
use super::ops::{check_len, repeat_count};
use crate::python::ir::{BinOp, CmpOp};

use super::value::Value;

/// The methods of `bytes` the interpreter implements.
pub(crate) const METHODS: &[&str] = &[
    "count",
    "decode",
    "endswith",
    "find",
    "fromhex",
    "hex",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdigit",
    "islower",
    "isspace",
    "isupper",
    "join",
    "lower",
    "lstrip",
    "replace",
    "rfind",
    "rindex",
    "rsplit",
    "rstrip",
    "split",
    "startswith",
    "strip",
    "upper",
];

/// A new bytes value.
pub(crate) fn new(data: Vec<u8>) -> Value {
    Value::Bytes(Rc::new(data))
}

pub(crate) use crate::python::repr::bytes_repr as repr;

/// `a op b` when the left operand (or, for `*`, either) is bytes; `None` otherwise.
pub(crate) fn binary(op: BinOp, a: &Value, b: &Value) -> Option<R<Value>> {
    match (op, a, b) {
        (BinOp::Add, Value::Bytes(x), Value::Bytes(y)) => Some(concat(x, y)),
        (BinOp::Add, Value::Bytes(_), other) => Some(type_error(format!(
            "can't concat {} to bytes",
            other.type_name()
        ))),
        (BinOp::Mult, Value::Bytes(x), n) | (BinOp::Mult, n, Value::Bytes(x)) => Some(repeat(x, n)),
        (BinOp::Mod, Value::Bytes(_), _) => Some(Err(Unwind::unsupported("bytes % formatting"))),
        _ => None,
    }
}

fn concat(x: &[u8], y: &[u8]) -> R<Value> {
    check_len(x.len() + y.len())?;
    budget::produce(x.len() + y.len(), 1)?;
    let mut out = Vec::with_capacity(x.len() + y.len());
    out.extend_from_slice(x);
    out.extend_from_slice(y);
    Ok(new(out))
}

fn repeat(x: &[u8], n: &Value) -> R<Value> {
    let Some(count) = repeat_count(n)? else {
        return type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            n.type_name()
        ));
    };
    check_len(x.len().saturating_mul(count))?;
    budget::produce(x.len().saturating_mul(count), 1)?;
    Ok(new(x.repeat(count)))
}

/// `a op b` for two bytes values (lexicographic, as CPython).
pub(crate) fn compare(op: CmpOp, a: &[u8], b: &[u8]) -> R<bool> {
    budget::charge_items(a.len().min(b.len()))?;
    let o = a.cmp(b);
    Ok(match op {
        CmpOp::Lt => o.is_lt(),
        CmpOp::LtE => o.is_le(),
        CmpOp::Gt => o.is_gt(),
        CmpOp::GtE => o.is_ge(),
        CmpOp::Eq => o.is_eq(),
        _ => o.is_ne(),
    })
}

/// An int argument that must be a byte value.
fn byte_value(v: &Value, message: &str) -> R<u8> {
    match v {
        Value::Bool(b) => Ok(*b as u8),
        Value::Int(i) => u8::try_from(*i).or_else(|_| value_error(message)),
        Value::Big(_) => value_error(message),
        other => type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        )),
    }
}

fn bytes_like<'a>(v: &'a Value) -> R<&'a [u8]> {
    match v {
        Value::Bytes(b) => Ok(b),
        other => type_error(format!(
            "a bytes-like object is required, not '{}'",
            other.type_name()
        )),
    }
}

/// `item in data`.
pub(crate) fn contains(data: &[u8], item: &Value) -> R<bool> {
    budget::charge_items(data.len())?;
    match item {
        Value::Bytes(sub) => Ok(find_in(data, sub).is_some()),
        Value::Int(_) | Value::Bool(_) | Value::Big(_) => {
            let b = byte_value(item, "byte must be in range(0, 256)")?;
            Ok(data.contains(&b))
        }
        other => type_error(format!(
            "a bytes-like object is required, not '{}'",
            other.type_name()
        )),
    }
}

fn find_in(hay: &[u8], sub: &[u8]) -> Option<usize> {
    if sub.is_empty() {
        return Some(0);
    }
    hay.windows(sub.len()).position(|w| w == sub)
}

fn rfind_in(hay: &[u8], sub: &[u8]) -> Option<usize> {
    if sub.is_empty() {
        return Some(hay.len());
    }
    hay.windows(sub.len()).rposition(|w| w == sub)
}

/// The bytes searched for by `find`/`count`/`index`: bytes or one byte value.
fn needle(v: &Value) -> R<Vec<u8>> {
    match v {
        Value::Bytes(b) => Ok(b.to_vec()),
        Value::Int(_) | Value::Bool(_) | Value::Big(_) => {
            Ok(vec![byte_value(v, "byte must be in range(0, 256)")?])
        }
        other => type_error(format!(
            "argument should be integer or bytes-like object, not '{}'",
            other.type_name()
        )),
    }
}

/// CPython's ADJUST_INDICES for optional `start`/`end` arguments; `None` when start > end.
fn window(len: usize, start: Option<&Value>, end: Option<&Value>) -> R<Option<(usize, usize)>> {
    let len = len as i128;
    let get = |v: Option<&Value>, default: i128| -> R<i128> {
        match v {
            None | Some(Value::None) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b as i128),
            Some(Value::Int(i)) => Ok(*i as i128),
            Some(Value::Big(b)) => Ok(if b.sign() == num_bigint::Sign::Minus {
                i128::MIN / 2
            } else {
                i128::MAX / 2
            }),
            Some(_) => {
                type_error("slice indices must be integers or None or have an __index__ method")
            }
        }
    };
    let mut end = get(end, len)?;
    let mut start = get(start, 0)?;
    if end > len {
        end = len;
    } else if end < 0 {
        end = (end + len).max(0);
    }
    if start < 0 {
        start = (start + len).max(0);
    }
    Ok((start <= end).then_some((start as usize, end as usize)))
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn strip(data: &[u8], chars: Option<&[u8]>, left: bool, right: bool) -> Vec<u8> {
    let drop = |b: &u8| chars.map_or_else(|| is_space(*b), |c| c.contains(b));
    let mut a = 0;
    let mut z = data.len();
    if left {
        while a < z && drop(&data[a]) {
            a += 1;
        }
    }
    if right {
        while z > a && drop(&data[z - 1]) {
            z -= 1;
        }
    }
    data[a..z].to_vec()
}

fn split(data: &[u8], sep: Option<&[u8]>, maxsplit: i64, right: bool) -> Vec<Value> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    match sep {
        None => {
            let mut rest = data;
            loop {
                rest = if right {
                    &rest[..rest.len() - rest.iter().rev().take_while(|b| is_space(**b)).count()]
                } else {
                    &rest[rest.iter().take_while(|b| is_space(**b)).count()..]
                };
                if rest.is_empty() {
                    break;
                }
                if maxsplit >= 0 && out.len() as i64 == maxsplit {
                    out.push(rest.to_vec());
                    break;
                }
                if right {
                    let start = rest.iter().rposition(|b| is_space(*b)).map_or(0, |i| i + 1);
                    out.push(rest[start..].to_vec());
                    rest = &rest[..start];
                } else {
                    let end = rest.iter().position(|b| is_space(*b)).unwrap_or(rest.len());
                    out.push(rest[..end].to_vec());
                    rest = &rest[end..];
                }
            }
        }
        Some(sep) => {
            let mut rest = data;
            loop {
                if maxsplit >= 0 && out.len() as i64 == maxsplit {
                    out.push(rest.to_vec());
                    break;
                }
                let found = if right {
                    rfind_in(rest, sep).filter(|_| rest.len() >= sep.len())
                } else {
                    find_in(rest, sep)
                };
                match found {
                    Some(i) if right => {
                        out.push(rest[i + sep.len()..].to_vec());
                        rest = &rest[..i];
                    }
                    Some(i) => {
                        out.push(rest[..i].to_vec());
                        rest = &rest[i + sep.len()..];
                    }
                    None => {
                        out.push(rest.to_vec());
                        break;
                    }
                }
            }
        }
    }
    if right {
        out.reverse();
    }
    out.into_iter().map(new).collect()
}

fn replace(data: &[u8], old: &[u8], new_: &[u8], count: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut left = if count < 0 {
        usize::MAX
    } else {
        count as usize
    };
    if old.is_empty() {
        for (i, b) in data.iter().enumerate() {
            if left > 0 {
                out.extend_from_slice(new_);
                left -= 1;
            } else {
                out.extend_from_slice(&data[i..]);
                return out;
            }
            out.push(*b);
        }
        if left > 0 {
            out.extend_from_slice(new_);
        }
        return out;
    }
    let mut i = 0;
    while i < data.len() {
        if left > 0 && data[i..].starts_with(old) {
            out.extend_from_slice(new_);
            i += old.len();
            left -= 1;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// `bytes.fromhex(text)`.
fn fromhex(v: &Value) -> R<Value> {
    let Value::Str(s) = v else {
        return type_error(format!(
            "fromhex() argument must be str, not {}",
            v.type_name()
        ));
    };
    let bad = |pos: usize| {
        value_error(format!(
            "non-hexadecimal number found in fromhex() arg at position {pos}"
        ))
    };
    if !s.is_ascii() {
        return bad(s.as_str().chars().take_while(char::is_ascii).count());
    }
    let text = s.as_str().as_bytes();
    let digit = |i: usize| text.get(i).and_then(|c| (*c as char).to_digit(16));
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut i = 0;
    while i < text.len() {
        if is_space(text[i]) {
            i += 1;
            continue;
        }
        let Some(top) = digit(i) else {
            return bad(i);
        };
        let Some(bot) = digit(i + 1) else {
            return bad(i + 1);
        };
        out.push((top * 16 + bot) as u8);
        i += 2;
    }
    Ok(new(out))
}

/// `data.hex([sep])` (a separator between every byte).
fn hex(data: &[u8], args: &[Value]) -> R<Value> {
    arity("hex", args, 0, 2)?;
    let sep = match args.first() {
        None => None,
        Some(Value::Str(s)) if s.is_ascii() && s.len() == 1 => Some(s.as_str().to_string()),
        Some(Value::Bytes(b)) if b.len() == 1 && b[0].is_ascii() => {
            Some((b[0] as char).to_string())
        }
        Some(Value::Str(s)) if !s.is_ascii() => return value_error("sep must be ASCII."),
        Some(Value::Str(_) | Value::Bytes(_)) => {
            return value_error("sep must be length 1.");
        }
        Some(other) => {
            return type_error(format!(
                "sep must be str or bytes, not {}",
                other.type_name()
            ));
        }
    };
    if args.len() == 2 && !matches!(args[1], Value::Int(1)) {
        return Err(Unwind::unsupported(
            "bytes.hex() with bytes_per_sep other than 1",
        ));
    }
    budget::produce(data.len() * 3, 1)?;
    let digits: Vec<String> = data.iter().map(|b| format!("{b:02x}")).collect();
    Ok(Value::str(digits.join(sep.as_deref().unwrap_or(""))))
}

fn classify(data: &[u8], name: &str) -> bool {
    let cased = |b: &u8| b.is_ascii_alphabetic();
    match name {
        "isascii" => data.is_ascii(),
        _ if data.is_empty() => false,
        "isalnum" => data.iter().all(u8::is_ascii_alphanumeric),
        "isalpha" => data.iter().all(u8::is_ascii_alphabetic),
        "isdigit" => data.iter().all(u8::is_ascii_digit),
        "isspace" => data.iter().all(|b| is_space(*b)),
        "islower" => data.iter().any(cased) && !data.iter().any(u8::is_ascii_uppercase),
        _ => data.iter().any(cased) && !data.iter().any(u8::is_ascii_lowercase),
    }
}

/// The `(encoding, errors)` of `decode`/`encode`/`bytes()`/`str()` arguments.
pub(crate) fn codec_args(
    name: &str,
    encoding: Option<&Value>,
    errors: Option<&Value>,
) -> R<(Codec, String)> {
    let text = |v: &Value, what: &str| -> R<String> {
        match v {
            Value::Str(s) => Ok(s.as_str().to_string()),
            Value::None => type_error(format!("{name}() argument '{what}' must be str, not None")),
            other => type_error(format!(
                "{name}() argument '{what}' must be str, not {}",
                other.type_name()
            )),
        }
    };
    let codec = match encoding {
        None => Codec::Utf8,
        Some(v) => Codec::named(&text(v, "encoding")?)?,
    };
    let errors = match errors {
        None => "strict".to_string(),
        Some(v) => text(v, "errors")?,
    };
    Ok((codec, errors))
}

impl Machine {
    /// Calls method `name` of a bytes value.
    pub fn bytes_method(
        &mut self,
        data: &Rc<Vec<u8>>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if !matches!(name, "split" | "rsplit" | "decode") {
            no_kwargs(name, &kwargs)?;
        }
        Ok(match name {
            "decode" => {
                arity("decode", &args, 0, 2)?;
                let [enc, err] = take_kwargs("decode", kwargs, ["encoding", "errors"])?;
                let (codec, errors) = codec_args(
                    "decode",
                    args.first().or(enc.as_ref()),
                    args.get(1).or(err.as_ref()),
                )?;
                budget::produce(data.len() * 2, 1)?;
                Value::str(codec::decode(data, codec, &errors)?)
            }
            "upper" | "lower" => {
                arity(name, &args, 0, 0)?;
                budget::produce(data.len(), 1)?;
                new(if name == "upper" {
                    data.to_ascii_uppercase()
                } else {
                    data.to_ascii_lowercase()
                })
            }
            "strip" | "lstrip" | "rstrip" => {
                arity(name, &args, 0, 1)?;
                let chars = match args.first() {
                    None | Some(Value::None) => None,
                    Some(v) => Some(bytes_like(v)?),
                };
                budget::charge_items(data.len())?;
                new(strip(data, chars, name != "rstrip", name != "lstrip"))
            }
            "split" | "rsplit" => {
                arity(name, &args, 0, 2)?;
                let [sep, maxsplit] = take_kwargs(name, kwargs, ["sep", "maxsplit"])?;
                let sep = args.first().or(sep.as_ref());
                let maxsplit = match args.get(1).or(maxsplit.as_ref()) {
                    None => -1,
                    Some(v) => index_arg(v)?,
                };
                let sep = match sep {
                    None | Some(Value::None) => None,
                    Some(v) => Some(bytes_like(v)?),
                };
                if sep.is_some_and(<[u8]>::is_empty) {
                    return value_error("empty separator");
                }
                budget::produce(data.len(), 2)?;
                Value::list(split(data, sep, maxsplit, name == "rsplit"))
            }
            "join" => {
                arity("join", &args, 1, 1)?;
                let items = self.collect(args.into_iter().next().unwrap_or(Value::None))?;
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let Value::Bytes(b) = item else {
                        return type_error(format!(
                            "sequence item {i}: expected a bytes-like object, {} found",
                            item.type_name()
                        ));
                    };
                    if i > 0 {
                        out.extend_from_slice(data);
                    }
                    check_len(out.len() + b.len())?;
                    budget::produce(b.len() + data.len(), 1)?;
                    out.extend_from_slice(b);
                }
                new(out)
            }
            "replace" => {
                arity("replace", &args, 2, 3)?;
                let (old, with) = (bytes_like(&args[0])?, bytes_like(&args[1])?);
                let count = match args.get(2) {
                    None => -1,
                    Some(v) => index_arg(v)?,
                };
                let grown = if old.is_empty() {
                    (data.len() + 1).saturating_mul(with.len()) + data.len()
                } else {
                    (data.len() / old.len()).saturating_mul(with.len()) + data.len()
                };
                check_len(grown.min(usize::MAX / 2))?;
                budget::produce(grown, 1)?;
                new(replace(data, old, with, count))
            }
            "startswith" | "endswith" => {
                arity(name, &args, 1, 3)?;
                let prefixes: Vec<&[u8]> = match &args[0] {
                    Value::Bytes(b) => vec![b],
                    Value::Tuple(items) => items.iter().map(bytes_like).collect::<R<_>>()?,
                    other => {
                        return type_error(format!(
                            "{name} first arg must be bytes or a tuple of bytes, not {}",
                            other.type_name()
                        ));
                    }
                };
                let Some((a, z)) = window(data.len(), args.get(1), args.get(2))? else {
                    return Ok(Value::Bool(false));
                };
                let hay = &data[a..z];
                Value::Bool(prefixes.iter().any(|p| {
                    if name == "startswith" {
                        hay.starts_with(p)
                    } else {
                        hay.ends_with(p)
                    }
                }))
            }
            "find" | "rfind" | "index" | "rindex" | "count" => {
                arity(name, &args, 1, 3)?;
                let sub = needle(&args[0])?;
                budget::charge_items(data.len())?;
                let found = window(data.len(), args.get(1), args.get(2))?;
                if name == "count" {
                    let n = match found {
                        None => 0,
                        Some((a, z)) if sub.is_empty() => z - a + 1,
                        Some((a, z)) => {
                            let (mut n, mut i) = (0, a);
                            while let Some(k) = find_in(&data[i..z], &sub) {
                                n += 1;
                                i += k + sub.len();
                            }
                            n
                        }
                    };
                    return Ok(Value::Int(n as i64));
                }
                let at = found.and_then(|(a, z)| {
                    let hay = &data[a..z];
                    if name.starts_with('r') {
                        rfind_in(hay, &sub)
                    } else {
                        find_in(hay, &sub)
                    }
                    .map(|k| a + k)
                });
                match at {
                    Some(k) => Value::Int(k as i64),
                    None if name.ends_with("find") => Value::Int(-1),
                    None => return value_error("subsection not found"),
                }
            }
            "hex" => hex(data, &args)?,
            "fromhex" => {
                arity("fromhex", &args, 1, 1)?;
                fromhex(&args[0])?
            }
            _ => {
                arity(name, &args, 0, 0)?;
                Value::Bool(classify(data, name))
            }
        })
    }

    /// `str(object, encoding, errors)`.
    pub fn str_decode(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        arity("str", &args, 0, 3)?;
        let [object, enc, err] = take_kwargs("str", kwargs, ["object", "encoding", "errors"])?;
        let object = args.first().or(object.as_ref());
        let enc = args.get(1).or(enc.as_ref());
        let err = args.get(2).or(err.as_ref());
        match object {
            None => Ok(Value::str("")),
            Some(v) if enc.is_none() && err.is_none() => self.str_of(v).map(Value::str),
            Some(Value::Bytes(data)) => {
                let (codec, errors) = codec_args("str", enc, err)?;
                budget::produce(data.len() * 2, 1)?;
                Ok(Value::str(codec::decode(data, codec, &errors)?))
            }
            Some(Value::Str(_)) => type_error("decoding str is not supported"),
            Some(other) => type_error(format!(
                "decoding to str: need a bytes-like object, {} found",
                other.type_name()
            )),
        }
    }

    /// `bytes(...)`.
    pub fn construct_bytes(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        arity("bytes", &args, 0, 3)?;
        let [source, enc, err] = take_kwargs("bytes", kwargs, ["source", "encoding", "errors"])?;
        let source = args.first().or(source.as_ref());
        let enc = args.get(1).or(enc.as_ref());
        let err = args.get(2).or(err.as_ref());
        let Some(source) = source else {
            return Ok(new(Vec::new()));
        };
        if enc.is_some() || err.is_some() {
            let Value::Str(s) = source else {
                return type_error(if enc.is_some() {
                    "encoding without a string argument"
                } else {
                    "errors without a string argument"
                });
            };
            let (codec, errors) = codec_args("bytes", enc, err)?;
            budget::produce(s.as_str().len(), 1)?;
            return Ok(new(codec::encode(s.as_str(), codec, &errors)?));
        }
        match source {
            Value::Str(_) => type_error("string argument without an encoding"),
            Value::Bytes(_) => Ok(source.clone()),
            Value::Int(_) | Value::Bool(_) | Value::Big(_) => {
                let n = match source {
                    Value::Big(b) if b.sign() == num_bigint::Sign::Minus => -1,
                    Value::Big(_) => {
                        return fail(
                            ExcKind::OverflowError,
                            "cannot fit 'int' into an index-sized integer",
                        );
                    }
                    v => index_arg(v)?,
                };
                if n < 0 {
                    return value_error("negative count");
                }
                check_len(n as usize)?;
                budget::produce(n as usize, 1)?;
                Ok(new(vec![0; n as usize]))
            }
            v if self.is_iterable(v) => {
                let items = self.collect(v.clone())?;
                let data = items
                    .iter()
                    .map(|i| byte_value(i, "bytes must be in range(0, 256)"))
                    .collect::<R<Vec<u8>>>()?;
                Ok(new(data))
            }
            other => type_error(format!(
                "cannot convert '{}' object to bytes",
                other.type_name()
            )),
        }
    }
}
