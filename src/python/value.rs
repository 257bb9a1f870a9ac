//! Plain Python data values: what witnesses, inputs and results are, independent of any
//! interpreter or solver. `repr` follows CPython exactly for these types.

use num_bigint::BigInt;
use serde_json::{Value as Json, json};

pub use super::repr::{float_repr, str_repr};

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
    /// A dict's entries in insertion order.
    Dict(Vec<(PyValue, PyValue)>),
    /// A set's items (in no order Python promises: [`PyValue::repr`] sorts them).
    Set(Vec<PyValue>),
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
            PyValue::Dict(entries) => {
                let parts: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.repr(), v.repr()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            PyValue::Set(items) if items.is_empty() => "set()".into(),
            PyValue::Set(items) => {
                let mut parts: Vec<String> = items.iter().map(PyValue::repr).collect();
                parts.sort();
                format!("{{{}}}", parts.join(", "))
            }
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
            PyValue::Dict(_) => "dict",
            PyValue::Set(_) => "set",
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
            PyValue::Dict(entries) => Json::Array(
                entries
                    .iter()
                    .map(|(k, v)| json!([k.to_json(), v.to_json()]))
                    .collect(),
            ),
            PyValue::Set(items) => {
                let mut sorted: Vec<&PyValue> = items.iter().collect();
                sorted.sort_by_key(|v| v.repr());
                Json::Array(sorted.into_iter().map(PyValue::to_json).collect())
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
        let d = PyValue::Dict(vec![
            (PyValue::Str("b".into()), PyValue::Int(2.into())),
            (PyValue::Str("a".into()), PyValue::Int(1.into())),
        ]);
        assert_eq!(d.repr(), "{'b': 2, 'a': 1}");
        assert_eq!(PyValue::Dict(vec![]).repr(), "{}");
        assert_eq!(PyValue::Set(vec![]).repr(), "set()");
        let s = PyValue::Set(vec![PyValue::Int(3.into()), PyValue::Int(1.into())]);
        assert_eq!(s.repr(), "{1, 3}");
    }
}
