//! The same runs in CPython, the oracle: one `python3` process per batch, reading a script
//! on stdin and writing one JSON line per run (the program's own output is discarded). Each
//! run has a time limit (`SIGALRM`), the batch one too; an interrupt kills the process.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

use super::CheckError;
use super::concrete::{Concrete, Runnable};
use super::values::{decode, encode};
use crate::cancel::Cancel;
use crate::python::PyValue;

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

/// The batch script: the program, the inputs, the driver.
fn script(r: &Runnable, inputs: &[Vec<PyValue>]) -> String {
    let encoded: Vec<Vec<Json>> = inputs
        .iter()
        .map(|args| args.iter().map(encode).collect())
        .collect();
    let data = serde_json::to_string(&encoded).unwrap_or_else(|_| "[]".into());
    // A JSON string is a valid Python string literal.
    let literal = serde_json::to_string(&data).unwrap_or_else(|_| "\"[]\"".into());
    format!(
        "{}\n\nimport json as _json0\n_INPUTS = _json0.loads({literal})\n_FUNCTION = {}\n_SECONDS = {RUN_SECONDS}\n_sys_recursion = __import__('sys').setrecursionlimit(10000)\n{DRIVER}",
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
    let mut child = match Command::new("python3")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CheckError::Python(e.to_string())),
    };
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| CheckError::Python("no stdin".into()))?;
    let text = script(r, inputs);
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(text.as_bytes());
    });
    let out_reader = drain(child.stdout.take());
    let err_reader = drain(child.stderr.take());
    let limit = Duration::from_secs_f64(10.0 + RUN_SECONDS * inputs.len() as f64);
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => {}
            Err(e) => return Err(CheckError::Python(e.to_string())),
        }
        if cancel.is_cancelled() || start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(if cancel.is_cancelled() {
                CheckError::Interrupted
            } else {
                CheckError::Python(format!("python3 took longer than {} s", limit.as_secs()))
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = writer.join();
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
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

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_string(&mut s);
        }
        s
    })
}
