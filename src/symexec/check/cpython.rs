//! The same runs in CPython, the oracle: one `python3` process per batch, reading a script
//! on stdin and writing one JSON line per run (the program's own output is discarded). Each
//! run has a time limit (`SIGALRM`), the batch one too; an interrupt kills the process
//! ([`crate::child`]). This runs the user's code with the kernel's rights: `%config
//! cpython_oracle=0` or `ANALYSIS_KERNEL_NO_CPYTHON=1` turns it off.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value as Json;

use super::CheckError;
use super::concrete::{Concrete, Runnable};
use super::values::{decode, encode};
use crate::cancel::Cancel;
use crate::child::{self, ChildError};
use crate::python::PyValue;

/// Set once at kernel start by `ANALYSIS_KERNEL_NO_CPYTHON`: no `%config` can turn it back on.
static FORBIDDEN: AtomicBool = AtomicBool::new(false);

/// Turns the oracle off for the rest of the process (a grading harness running untrusted code).
pub fn forbid() {
    FORBIDDEN.store(true, Ordering::SeqCst);
}

pub fn forbidden() -> bool {
    FORBIDDEN.load(Ordering::SeqCst)
}

/// Seconds one run may take in CPython.
const RUN_SECONDS: f64 = 2.0;

const DRIVER: &str = r#"
import io as _io, json as _json, signal as _signal, sys as _sys
def _enc(v):
    if v is None: return {"t": "none"}
    if isinstance(v, bool): return {"t": "bool", "v": v}
    if isinstance(v, int): return {"t": "int", "v": str(v)}
    if isinstance(v, float): return {"t": "float", "v": repr(v)}
    if isinstance(v, str): return {"t": "str", "v": v}
    if isinstance(v, tuple): return {"t": "tuple", "v": [_enc(x) for x in v]}
    if isinstance(v, list): return {"t": "list", "v": [_enc(x) for x in v]}
    return {"t": "other", "v": repr(v)}
def _dec(v):
    t = v["t"]
    if t == "none": return None
    if t == "bool": return v["v"]
    if t == "int": return int(v["v"])
    if t == "float": return float(v["v"])
    if t == "str": return v["v"]
    if t == "tuple": return tuple(_dec(x) for x in v["v"])
    return [_dec(x) for x in v["v"]]
class _Timeout(BaseException): pass
def _alarm(*_): raise _Timeout()
_signal.signal(_signal.SIGALRM, _alarm)
_real = _sys.stdout
for _args in _INPUTS:
    _sys.stdout = _io.StringIO()
    _signal.setitimer(_signal.ITIMER_REAL, _SECONDS)
    try:
        _r = {"kind": "return", "value": _enc(_FUNCTION(*[_dec(a) for a in _args]))}
    except _Timeout:
        _r = {"kind": "timeout"}
    except BaseException as _e:
        _r = {"kind": "exception", "type": type(_e).__name__, "message": str(_e)}
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _sys.stdout = _real
    _real.write(_json.dumps(_r) + "\n")
    _real.flush()
"#;

/// The batch script: the program, the inputs, the driver. Annotations are not evaluated
/// (PEP 563), as in the kernel's interpreter: a function annotated `List[int]` runs
/// although the cell's `from typing import List` is not part of the program.
fn script(r: &Runnable, inputs: &[Vec<PyValue>]) -> String {
    let encoded: Vec<Vec<Json>> = inputs
        .iter()
        .map(|args| args.iter().map(encode).collect())
        .collect();
    let data = serde_json::to_string(&encoded).unwrap_or_else(|_| "[]".into());
    // A JSON string is a valid Python string literal.
    let literal = serde_json::to_string(&data).unwrap_or_else(|_| "\"[]\"".into());
    format!(
        "from __future__ import annotations\n{}\n\nimport json as _json0\n_INPUTS = _json0.loads({literal})\n_FUNCTION = {}\n_SECONDS = {RUN_SECONDS}\n_sys_recursion = __import__('sys').setrecursionlimit(10000)\n{DRIVER}",
        r.source, r.function
    )
}

/// Runs the batch; `None` when `python3` is not installed.
pub fn run(
    r: &Runnable,
    inputs: &[Vec<PyValue>],
    cancel: &Cancel,
) -> Result<Option<Vec<Concrete>>, CheckError> {
    if inputs.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let mut command = Command::new("python3");
    command.arg("-");
    let limit = Duration::from_secs_f64(10.0 + RUN_SECONDS * inputs.len() as f64);
    let out = match child::run(command, script(r, inputs).into_bytes(), limit, cancel) {
        Ok(out) => out,
        Err(ChildError::NotFound(_)) => return Ok(None),
        Err(ChildError::Interrupted) => return Err(CheckError::Interrupted),
        Err(e @ ChildError::Timeout(_)) => return Err(CheckError::Python(format!("python3 {e}"))),
        Err(ChildError::Io(e)) => return Err(CheckError::Python(e)),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    if lines.len() != inputs.len() {
        let tail: Vec<&str> = stderr
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(CheckError::Python(format!(
            "python3 gave {} results for {} runs: {}",
            lines.len(),
            inputs.len(),
            tail.join(" / ")
        )));
    }
    Ok(Some(lines.into_iter().map(|l| parse(r, l)).collect()))
}

fn parse(r: &Runnable, line: &str) -> Concrete {
    let Ok(v) = serde_json::from_str::<Json>(line) else {
        return Concrete::NoResult(format!("unreadable result {line:?}"));
    };
    let text = |k: &str| v.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    match v.get("kind").and_then(Json::as_str) {
        Some("return") => match v.get("value").map(decode) {
            Some(Ok(value)) => r.outcome(value),
            Some(Err(repr)) => {
                Concrete::NoResult(format!("returned {repr}, not a plain data value"))
            }
            None => Concrete::NoResult("no value".into()),
        },
        Some("exception") => Concrete::Raised {
            type_name: text("type"),
            message: text("message"),
        },
        Some("timeout") => Concrete::NoResult(format!("ran longer than {RUN_SECONDS} s")),
        _ => Concrete::NoResult(format!("unreadable result {line:?}")),
    }
}
