//! CPython as the oracle: one `python3` process evaluates a whole batch of expressions with
//! their inputs. Values cross as JSON (`{"t": "int", "v": "-7"}`, floats exactly as hex and
//! as a ratio). Shared by the unit tests and `tests/z3_translation.rs` (through `#[path]`),
//! so it names nothing of the crate.

#![allow(dead_code)] // shared with tests/z3_translation.rs, which uses a different subset

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// An expression and its inputs (encoded values by name).
#[derive(Clone, Debug)]
pub struct Case {
    pub source: String,
    pub inputs: Vec<(String, Value)>,
}

/// What CPython did: a value (encoded) or the name of the exception raised.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Value(Value),
    Raises(String),
}

const SCRIPT: &str = r#"
import json, sys

def dec(v):
    t, x = v["t"], v["v"]
    if t == "int": return int(x)
    if t == "bool": return bool(x)
    if t == "float": return float.fromhex(x)
    if t == "str": return x
    if t == "list": return [dec(i) for i in x]
    if t == "tuple": return tuple(dec(i) for i in x)
    raise ValueError(t)

def enc(v):
    if isinstance(v, bool): return {"t": "bool", "v": v}
    if isinstance(v, int): return {"t": "int", "v": str(v)}
    if isinstance(v, float):
        n, d = v.as_integer_ratio()
        return {"t": "float", "v": v.hex(), "num": str(n), "den": str(d)}
    if isinstance(v, str): return {"t": "str", "v": v}
    if isinstance(v, list): return {"t": "list", "v": [enc(i) for i in v]}
    if isinstance(v, tuple): return {"t": "tuple", "v": [enc(i) for i in v]}
    return {"t": "other", "v": repr(v)}

out = []
for case in json.load(sys.stdin):
    env = {k: dec(v) for k, v in case["inputs"].items()}
    try:
        out.append({"value": enc(eval(case["source"], {"__builtins__": __builtins__}, env))})
    except Exception as e:
        out.append({"raises": type(e).__name__})
json.dump(out, sys.stdout)
"#;

/// Encodes an int for the oracle.
pub fn int(v: i64) -> Value {
    json!({"t": "int", "v": v.to_string()})
}

/// Encodes a float (exactly, through its hex form).
pub fn float(v: f64) -> Value {
    json!({"t": "float", "v": float_hex(v)})
}

pub fn string(v: &str) -> Value {
    json!({"t": "str", "v": v})
}

pub fn boolean(v: bool) -> Value {
    json!({"t": "bool", "v": v})
}

pub fn list(items: Vec<Value>) -> Value {
    json!({"t": "list", "v": items})
}

pub fn tuple(items: Vec<Value>) -> Value {
    json!({"t": "tuple", "v": items})
}

/// Python's `float.hex` of a finite float.
fn float_hex(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0x0.0p+0"
        } else {
            "0x0.0p+0"
        }
        .to_string();
    }
    let bits = v.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (lead, e) = if exp == 0 {
        (0, -1022)
    } else {
        (1, exp - 1023)
    };
    format!("{sign}0x{lead}.{frac:013x}p{e:+}")
}

/// Evaluates every case in one `python3` process.
pub fn evaluate(cases: &[Case]) -> Result<Vec<Outcome>, String> {
    let payload: Vec<Value> = cases
        .iter()
        .map(|c| {
            let inputs: serde_json::Map<String, Value> = c.inputs.iter().cloned().collect();
            json!({"source": c.source, "inputs": inputs})
        })
        .collect();
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run python3 (the oracle these tests need): {e}"))?;
    let input = serde_json::to_vec(&payload).map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(&input)
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "python3 failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    if results.len() != cases.len() {
        return Err(format!(
            "{} results for {} cases",
            results.len(),
            cases.len()
        ));
    }
    results
        .into_iter()
        .map(|r| match (r.get("value"), r.get("raises")) {
            (Some(v), _) => Ok(Outcome::Value(v.clone())),
            (_, Some(Value::String(name))) => Ok(Outcome::Raises(name.clone())),
            _ => Err(format!("bad oracle result {r}")),
        })
        .collect()
}
