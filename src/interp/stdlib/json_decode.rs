//! `json.loads`: CPython's scanner (`_json.c`) over the document's code points, so objects
//! keep their key order, ints are unbounded, `NaN`/`Infinity`/`-Infinity` are accepted, and a
//! malformed document raises `json.JSONDecodeError` (a `ValueError`) with CPython's message,
//! `line L column C (char P)` position and `msg`/`doc`/`pos`/`lineno`/`colno` attributes.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;

use crate::interp::dict::{Dict, key_of};
use crate::interp::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, UserClass, fail};
use crate::interp::value::Value;

/// Nesting deeper than this raises `RecursionError`, as CPython's recursive scanner does.
const MAX_DEPTH: usize = 900;

/// A scan failure: CPython's message and the char position it names.
struct Error(&'static str, usize);

/// What `json.loads`' keyword hooks are asked for: a number's text, or an object's pairs
/// in document order (duplicates kept).
pub(super) enum Hook<'a> {
    Int(String),
    Float(String),
    Object(&'a [(Value, Value)]),
}

/// Answers a [`Hook`]: `Some(value)` replaces the default value.
pub(super) type Hooks<'h> = dyn FnMut(Hook<'_>) -> R<Option<Value>> + 'h;

struct Scanner<'a, 'h> {
    doc: &'a [char],
    /// Called as CPython's scanner calls the hooks: each number when read, each object
    /// when closed.
    hooks: Option<RefCell<&'a mut Hooks<'h>>>,
}

/// `json.loads(text)`, with the keyword hooks when there are some.
pub(super) fn loads(text: &str, hooks: Option<&mut Hooks<'_>>) -> R<Value> {
    let doc: Vec<char> = text.chars().collect();
    let s = Scanner {
        doc: &doc,
        hooks: hooks.map(RefCell::new),
    };
    let result = if doc.first() == Some(&'\u{feff}') {
        Err(Error("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0))
    } else {
        s.document()
    };
    result.map_err(|Error(msg, pos)| decode_error(&doc, msg, pos))?
}

/// `JSONDecodeError(msg, doc, pos)`.
fn decode_error(doc: &[char], msg: &str, pos: usize) -> Unwind {
    let before = &doc[..pos.min(doc.len())];
    let line = before.iter().filter(|c| **c == '\n').count() + 1;
    let column = match before.iter().rposition(|c| *c == '\n') {
        Some(nl) => pos - nl,
        None => pos + 1,
    };
    let e = ExcObject::new(
        ExcClass::User(ERROR.with(Rc::clone)),
        vec![Value::str(format!(
            "{msg}: line {line} column {column} (char {pos})"
        ))],
    );
    let int = |n: usize| Value::int128(n as i128);
    *e.attrs.borrow_mut() = vec![
        ("msg".into(), Value::str(msg)),
        ("doc".into(), Value::str(&doc.iter().collect::<String>())),
        ("pos".into(), int(pos)),
        ("lineno".into(), int(line)),
        ("colno".into(), int(column)),
    ];
    Unwind::from_object(e)
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

thread_local! {
    static ERROR: Rc<UserClass> = Rc::new(UserClass::plain("JSONDecodeError".into(), ExcClass::Builtin(ExcKind::ValueError)));
}

/// The class `json.JSONDecodeError`.
pub(crate) fn error_class() -> Value {
    Value::UserExcType(ERROR.with(Rc::clone))
}

/// Either a scan error or an interpreter error (recursion, memory).
type Scan<T> = Result<R<T>, Error>;

/// A dict of the pairs, later duplicates replacing earlier ones.
pub(super) fn dict_of(pairs: &[(Value, Value)]) -> R<Value> {
    let mut d = Dict::default();
    for (k, v) in pairs {
        d.insert(key_of(k)?, k.clone(), v.clone());
    }
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

impl Scanner<'_, '_> {
    fn hook(&self, h: Hook<'_>) -> R<Option<Value>> {
        match &self.hooks {
            Some(hooks) => (hooks.borrow_mut())(h),
            None => Ok(None),
        }
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while self.doc.get(i).is_some_and(|c| is_ws(*c)) {
            i += 1;
        }
        i
    }

    fn starts(&self, i: usize, word: &str) -> bool {
        let mut k = i;
        for c in word.chars() {
            if self.doc.get(k) != Some(&c) {
                return false;
            }
            k += 1;
        }
        true
    }

    fn document(&self) -> Scan<Value> {
        let start = self.skip_ws(0);
        let (v, end) = match self.value(start, 0)? {
            Ok(x) => x,
            Err(e) => return Ok(Err(e)),
        };
        let end = self.skip_ws(end);
        if end != self.doc.len() {
            return Err(Error("Extra data", end));
        }
        Ok(Ok(v))
    }

    /// The value at `i` and the position after it; "Expecting value" when none starts there.
    fn value(&self, i: usize, depth: usize) -> Scan<(Value, usize)> {
        if depth > MAX_DEPTH {
            return Ok(fail(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded while decoding a JSON document",
            ));
        }
        let Some(&c) = self.doc.get(i) else {
            return Err(Error("Expecting value", i));
        };
        let word = |w: &str, v: Value| -> Scan<(Value, usize)> {
            if self.starts(i, w) {
                Ok(Ok((v, i + w.chars().count())))
            } else {
                Err(Error("Expecting value", i))
            }
        };
        match c {
            '"' => Ok(self.string(i + 1)?.map(|(s, end)| (Value::str(s), end))),
            '{' => self.object(i + 1, depth),
            '[' => self.array(i + 1, depth),
            'n' => word("null", Value::None),
            't' => word("true", Value::Bool(true)),
            'f' => word("false", Value::Bool(false)),
            'N' => word("NaN", Value::Float(f64::NAN)),
            'I' => word("Infinity", Value::Float(f64::INFINITY)),
            '-' if self.starts(i, "-Infinity") => {
                word("-Infinity", Value::Float(f64::NEG_INFINITY))
            }
            _ => self.number(i),
        }
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?` at `i`.
    fn number(&self, i: usize) -> Scan<(Value, usize)> {
        let digit = |k: usize| self.doc.get(k).is_some_and(char::is_ascii_digit);
        let mut k = i;
        if self.doc.get(k) == Some(&'-') {
            k += 1;
        }
        match self.doc.get(k) {
            Some('0') => k += 1,
            Some('1'..='9') => {
                while digit(k) {
                    k += 1;
                }
            }
            _ => return Err(Error("Expecting value", i)),
        }
        let mut is_float = false;
        if self.doc.get(k) == Some(&'.') && digit(k + 1) {
            is_float = true;
            k += 1;
            while digit(k) {
                k += 1;
            }
        }
        if matches!(self.doc.get(k), Some('e' | 'E')) {
            let mut e = k + 1;
            if matches!(self.doc.get(e), Some('+' | '-')) {
                e += 1;
            }
            if digit(e) {
                is_float = true;
                k = e;
                while digit(k) {
                    k += 1;
                }
            }
        }
        let text: String = self.doc[i..k].iter().collect();
        if self.hooks.is_some() {
            let hook = if is_float {
                Hook::Float(text.clone())
            } else {
                Hook::Int(text.clone())
            };
            match self.hook(hook) {
                Ok(Some(v)) => return Ok(Ok((v, k))),
                Ok(None) => {}
                Err(e) => return Ok(Err(e)),
            }
        }
        let v = if is_float {
            Value::Float(text.parse::<f64>().unwrap_or(f64::NAN))
        } else {
            match text.parse::<i64>() {
                Ok(n) => Value::Int(n),
                Err(_) => {
                    if let Err(e) = crate::interp::budget::charge_items(text.len()) {
                        return Ok(Err(e));
                    }
                    Value::big(text.parse::<BigInt>().unwrap_or_default())
                }
            }
        };
        Ok(Ok((v, k)))
    }

    /// The string whose opening quote is just before `i`, and the position after its
    /// closing quote.
    fn string(&self, i: usize) -> Scan<(String, usize)> {
        let begin = i - 1;
        let mut out = String::new();
        let mut k = i;
        loop {
            let Some(&c) = self.doc.get(k) else {
                return Err(Error("Unterminated string starting at", begin));
            };
            match c {
                '"' => return Ok(Ok((out, k + 1))),
                '\\' => {
                    let Some(&esc) = self.doc.get(k + 1) else {
                        return Err(Error("Unterminated string starting at", begin));
                    };
                    let simple = match esc {
                        '"' => Some('"'),
                        '\\' => Some('\\'),
                        '/' => Some('/'),
                        'b' => Some('\u{8}'),
                        'f' => Some('\u{c}'),
                        'n' => Some('\n'),
                        'r' => Some('\r'),
                        't' => Some('\t'),
                        'u' => None,
                        _ => return Err(Error("Invalid \\escape", k)),
                    };
                    if let Some(ch) = simple {
                        out.push(ch);
                        k += 2;
                        continue;
                    }
                    let mut u = self
                        .hex4(k + 2)
                        .ok_or(Error("Invalid \\uXXXX escape", k + 1))?;
                    k += 6;
                    if (0xd800..=0xdbff).contains(&u) && self.starts(k, "\\u") {
                        let low = self
                            .hex4(k + 2)
                            .ok_or(Error("Invalid \\uXXXX escape", k + 1))?;
                        if (0xdc00..=0xdfff).contains(&low) {
                            u = 0x10000 + (((u - 0xd800) << 10) | (low - 0xdc00));
                            k += 6;
                        }
                    }
                    // A lone surrogate has no `char` (CPython keeps it in the str).
                    match char::from_u32(u) {
                        Some(ch) => out.push(ch),
                        None => {
                            return Ok(Err(Unwind::unsupported(format!(
                                "the lone surrogate \\u{u:04x} in a JSON string"
                            ))));
                        }
                    }
                }
                c if (c as u32) < 0x20 => return Err(Error("Invalid control character at", k)),
                c => {
                    out.push(c);
                    k += 1;
                }
            }
        }
    }

    fn hex4(&self, i: usize) -> Option<u32> {
        let digits = self.doc.get(i..i + 4)?;
        let mut v = 0;
        for d in digits {
            v = v * 16 + d.to_digit(16)?;
        }
        Some(v)
    }

    /// The object whose `{` is just before `i`.
    fn object(&self, i: usize, depth: usize) -> Scan<(Value, usize)> {
        let mut pairs = Vec::new();
        let mut k = self.skip_ws(i);
        if self.doc.get(k) == Some(&'}') {
            return Ok(self.close_object(&pairs).map(|v| (v, k + 1)));
        }
        loop {
            if self.doc.get(k) != Some(&'"') {
                return Err(Error(
                    "Expecting property name enclosed in double quotes",
                    k,
                ));
            }
            let (key, after) = match self.string(k + 1)? {
                Ok(x) => x,
                Err(e) => return Ok(Err(e)),
            };
            k = self.skip_ws(after);
            if self.doc.get(k) != Some(&':') {
                return Err(Error("Expecting ':' delimiter", k));
            }
            k = self.skip_ws(k + 1);
            let (v, after) = match self.value(k, depth + 1)? {
                Ok(x) => x,
                Err(e) => return Ok(Err(e)),
            };
            pairs.push((Value::str(key), v));
            k = self.skip_ws(after);
            match self.doc.get(k) {
                Some('}') => return Ok(self.close_object(&pairs).map(|v| (v, k + 1))),
                Some(',') => k = self.skip_ws(k + 1),
                _ => return Err(Error("Expecting ',' delimiter", k)),
            }
        }
    }

    /// The value of a closed object: the hook's, or a dict of its pairs.
    fn close_object(&self, pairs: &[(Value, Value)]) -> R<Value> {
        match self.hook(Hook::Object(pairs))? {
            Some(v) => Ok(v),
            None => dict_of(pairs),
        }
    }

    /// The array whose `[` is just before `i`.
    fn array(&self, i: usize, depth: usize) -> Scan<(Value, usize)> {
        let mut items = Vec::new();
        let mut k = self.skip_ws(i);
        if self.doc.get(k) == Some(&']') {
            return Ok(Ok((Value::list(items), k + 1)));
        }
        loop {
            let (v, after) = match self.value(k, depth + 1)? {
                Ok(x) => x,
                Err(e) => return Ok(Err(e)),
            };
            items.push(v);
            k = self.skip_ws(after);
            match self.doc.get(k) {
                Some(']') => return Ok(Ok((Value::list(items), k + 1))),
                Some(',') => k = self.skip_ws(k + 1),
                _ => return Err(Error("Expecting ',' delimiter", k)),
            }
        }
    }
}
