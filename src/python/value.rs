//! Plain Python data values: what witnesses, inputs and results are, independent of any
//! interpreter or solver. `repr` follows CPython exactly for these types.

use num_bigint::BigInt;
use serde_json::{Value as Json, json};

/// An immutable snapshot of a Python value of the supported data types.
#[derive(Clone, Debug, PartialEq)]
pub enum PyValue {
    None,
    Bool(bool),
    Int(BigInt),
    Float(f64),
    Str(String),
    Tuple(Vec<PyValue>),
    List(Vec<PyValue>),
}

impl PyValue {
    /// CPython's `repr`.
    pub fn repr(&self) -> String {
        match self {
            PyValue::None => "None".into(),
            PyValue::Bool(b) => if *b { "True" } else { "False" }.into(),
            PyValue::Int(i) => i.to_string(),
            PyValue::Float(f) => float_repr(*f),
            PyValue::Str(s) => str_repr(s),
            PyValue::Tuple(items) if items.len() == 1 => format!("({},)", items[0].repr()),
            PyValue::Tuple(items) => format!("({})", join_reprs(items)),
            PyValue::List(items) => format!("[{}]", join_reprs(items)),
        }
    }

    /// The Python type name (`int`, `str`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::Tuple(_) => "tuple",
            PyValue::List(_) => "list",
        }
    }

    /// JSON for payloads: ints stay exact (as a string when outside i64), tuples become lists.
    pub fn to_json(&self) -> Json {
        match self {
            PyValue::None => Json::Null,
            PyValue::Bool(b) => json!(b),
            PyValue::Int(i) => i64::try_from(i).map_or_else(|_| json!(i.to_string()), |v| json!(v)),
            PyValue::Float(f) if f.is_finite() => json!(f),
            PyValue::Float(f) => json!(float_repr(*f)),
            PyValue::Str(s) => json!(s),
            PyValue::Tuple(items) | PyValue::List(items) => {
                Json::Array(items.iter().map(PyValue::to_json).collect())
            }
        }
    }
}

fn join_reprs(items: &[PyValue]) -> String {
    items
        .iter()
        .map(PyValue::repr)
        .collect::<Vec<_>>()
        .join(", ")
}

/// CPython's float repr: shortest round-trip digits, `.0` for integral values, exponent
/// form outside 1e-4 ≤ |x| < 1e16.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let abs = f.abs();
    if (1e-4..1e16).contains(&abs) {
        let s = format!("{f}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        // Rust's `{:e}` gives the shortest digits, e.g. "1e16", "1.5e-5".
        let s = format!("{f:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

/// CPython's str repr: single quotes unless the text has a single quote and no double quote.
pub fn str_repr(s: &str) -> String {
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
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_match_cpython() {
        // Expected strings are what CPython 3.11 prints for the same values.
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(123456789012345.6), "123456789012345.6");
        assert_eq!(float_repr(1.5e-5), "1.5e-05");
        assert_eq!(float_repr(-0.0), "-0.0");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_repr("x\n\t\x01"), "'x\\n\\t\\x01'");
        let t = PyValue::Tuple(vec![PyValue::Int(1.into())]);
        assert_eq!(t.repr(), "(1,)");
        let l = PyValue::List(vec![
            PyValue::Bool(true),
            PyValue::None,
            PyValue::Str("a".into()),
        ]);
        assert_eq!(l.repr(), "[True, None, 'a']");
    }
}
