//! Python values between the solver, the interpreters and JSON: literal terms of values,
//! the tagged JSON the CPython batch reads and writes (exact ints and floats, tuples apart
//! from lists), `str()` of a value, and equality as a test needs it.

use std::str::FromStr;

use num_bigint::BigInt;
use serde_json::{Value as Json, json};

use crate::python::PyValue;
use crate::symbolic::{SeqKind, Term};

/// The literal term of a value (`None` has none).
pub fn literal(v: &PyValue) -> Option<Term> {
    Some(match v {
        PyValue::Bool(b) => Term::bool(*b),
        PyValue::Int(i) => Term::int(i.clone()),
        PyValue::Float(f) => Term::real(*f).ok()?,
        PyValue::Str(s) => Term::str(s.clone()).ok()?,
        PyValue::Tuple(items) | PyValue::List(items) => {
            let kind = if matches!(v, PyValue::List(_)) {
                SeqKind::List
            } else {
                SeqKind::Tuple
            };
            let parts = items.iter().map(literal).collect::<Option<Vec<_>>>()?;
            Term::items(kind, parts).ok()?
        }
        PyValue::None | PyValue::Dict(_) | PyValue::Set(_) => return None,
    })
}

/// `{"t": "int", "v": "12"}` and the like.
pub fn encode(v: &PyValue) -> Json {
    match v {
        PyValue::None => json!({"t": "none"}),
        PyValue::Bool(b) => json!({"t": "bool", "v": b}),
        PyValue::Int(i) => json!({"t": "int", "v": i.to_string()}),
        PyValue::Float(f) => json!({"t": "float", "v": crate::python::value::float_repr(*f)}),
        PyValue::Str(s) => json!({"t": "str", "v": s}),
        PyValue::Tuple(items) => {
            json!({"t": "tuple", "v": items.iter().map(encode).collect::<Vec<_>>()})
        }
        PyValue::List(items) => {
            json!({"t": "list", "v": items.iter().map(encode).collect::<Vec<_>>()})
        }
        PyValue::Dict(entries) => {
            let pairs: Vec<Json> = entries
                .iter()
                .map(|(k, v)| json!([encode(k), encode(v)]))
                .collect();
            json!({"t": "dict", "v": pairs})
        }
        PyValue::Set(items) => {
            json!({"t": "set", "v": items.iter().map(encode).collect::<Vec<_>>()})
        }
    }
}

/// The value of an encoding; `Err` carries the repr of what has no `PyValue`.
pub fn decode(v: &Json) -> Result<PyValue, String> {
    let tag = v.get("t").and_then(Json::as_str).unwrap_or("");
    let x = v.get("v");
    let text = || {
        x.and_then(Json::as_str)
            .ok_or_else(|| format!("bad {tag} {v}"))
    };
    let items = || -> Result<Vec<PyValue>, String> {
        x.and_then(Json::as_array)
            .ok_or("bad items")?
            .iter()
            .map(decode)
            .collect()
    };
    Ok(match tag {
        "none" => PyValue::None,
        "bool" => PyValue::Bool(x.and_then(Json::as_bool).ok_or("bad bool")?),
        "int" => PyValue::Int(BigInt::from_str(text()?).map_err(|e| e.to_string())?),
        "float" => PyValue::Float(f64::from_str(text()?).map_err(|e| e.to_string())?),
        "str" => PyValue::Str(text()?.to_string()),
        "tuple" => PyValue::Tuple(items()?),
        "list" => PyValue::List(items()?),
        "set" => PyValue::Set(items()?),
        "dict" => {
            let pairs = x.and_then(Json::as_array).ok_or("bad dict")?;
            let mut entries = Vec::with_capacity(pairs.len());
            for pair in pairs {
                match pair.as_array().map(Vec::as_slice) {
                    Some([k, v]) => entries.push((decode(k)?, decode(v)?)),
                    _ => return Err(format!("bad dict entry {pair}")),
                }
            }
            PyValue::Dict(entries)
        }
        _ => return Err(text().unwrap_or_default().to_string()),
    })
}

/// Python's `str()`.
pub fn py_str(v: &PyValue) -> String {
    match v {
        PyValue::Str(s) => s.clone(),
        other => other.repr(),
    }
}

/// Equality of results: the same types, floats within a relative 1e-9 (the solver's floats
/// are exact reals), sequences item by item, dicts and sets as Python's `==` compares them
/// (whatever their order: every key of one is a key of the other, with the same value).
pub fn same(a: &PyValue, b: &PyValue) -> bool {
    use PyValue::*;
    match (a, b) {
        (Float(x), Float(y)) => close(*x, *y),
        (Tuple(xs), Tuple(ys)) | (List(xs), List(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        (Dict(xs), Dict(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, v)| ys.iter().any(|(j, w)| same_key(k, j) && same(v, w)))
        }
        (Set(xs), Set(ys)) => {
            xs.len() == ys.len() && xs.iter().all(|x| ys.iter().any(|y| same_key(x, y)))
        }
        _ => a == b,
    }
}

/// Whether two keys are the same key: equal numbers of any numeric type (`1 == 1.0 ==
/// True`) or equal values.
pub fn same_key(a: &PyValue, b: &PyValue) -> bool {
    use num_traits::ToPrimitive;
    let number = |v: &PyValue| match v {
        PyValue::Bool(x) => Some(f64::from(u8::from(*x))),
        PyValue::Int(i) => i.to_f64(),
        PyValue::Float(f) => Some(*f),
        _ => None,
    };
    match (a, b) {
        (PyValue::Int(x), PyValue::Int(y)) => x == y,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => same(a, b),
        },
    }
}

fn close(x: f64, y: f64) -> bool {
    x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()) || (x.is_nan() && y.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        let v = PyValue::Tuple(vec![
            PyValue::Int(BigInt::from(10).pow(30)),
            PyValue::Float(0.1),
            PyValue::List(vec![
                PyValue::Str("a'b".into()),
                PyValue::Bool(true),
                PyValue::None,
            ]),
        ]);
        assert_eq!(decode(&encode(&v)).unwrap(), v);
        assert!(same(
            &PyValue::Float(0.30000000000000004),
            &PyValue::Float(0.3)
        ));
        assert!(!same(&PyValue::Tuple(vec![]), &PyValue::List(vec![])));
        assert_eq!(py_str(&PyValue::Str("x".into())), "x");
        assert_eq!(py_str(&PyValue::Int(BigInt::from(-3))), "-3");
        let d = PyValue::Dict(vec![
            (PyValue::Str("a".into()), PyValue::Int(1.into())),
            (
                PyValue::Int(2.into()),
                PyValue::Set(vec![PyValue::Bool(true)]),
            ),
        ]);
        assert_eq!(decode(&encode(&d)).unwrap(), d);
        // Python's `==`: order does not matter, 1 == 1.0 == True as keys.
        let e = PyValue::Dict(vec![
            (
                PyValue::Float(2.0),
                PyValue::Set(vec![PyValue::Int(1.into())]),
            ),
            (PyValue::Str("a".into()), PyValue::Int(1.into())),
        ]);
        assert!(same(&d, &e));
        let s = PyValue::Set(vec![PyValue::Int(1.into()), PyValue::Int(2.into())]);
        let t = PyValue::Set(vec![PyValue::Int(2.into()), PyValue::Int(1.into())]);
        assert!(same(&s, &t));
        assert!(!same(&s, &PyValue::Set(vec![PyValue::Int(2.into())])));
        assert!(!same(&d, &PyValue::Dict(vec![])));
    }
}
