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

/// Seconds one run may take in CPython at most.
pub const RUN_SECONDS: f64 = 2.0;

/// One run for CPython: the arguments and the seconds it may take.
#[derive(Clone, Debug)]
pub struct Job {
    pub args: Vec<PyValue>,
    pub seconds: f64,
}

impl Job {
    /// A run whose interpreter run took `steps`: CPython gets a quarter second plus a
    /// microsecond per step (far slower than CPython runs), at most [`RUN_SECONDS`].
    pub fn scaled(args: Vec<PyValue>, steps: u64) -> Job {
        Job {
            args,
            seconds: (0.25 + steps as f64 * 1e-6).min(RUN_SECONDS),
        }
    }
}

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
    if type(v) is dict: return {"t": "dict", "v": [[_enc(k), _enc(x)] for k, x in v.items()]}
    if type(v) is set: return {"t": "set", "v": [_enc(x) for x in v]}
    return {"t": "other", "v": repr(v)}
def _dec(v):
    t = v["t"]
    if t == "none": return None
    if t == "bool": return v["v"]
    if t == "int": return int(v["v"])
    if t == "float": return float(v["v"])
    if t == "str": return v["v"]
    if t == "tuple": return tuple(_dec(x) for x in v["v"])
    if t == "dict": return {_dec(k): _dec(x) for k, x in v["v"]}
    if t == "set": return {_dec(x) for x in v["v"]}
    return [_dec(x) for x in v["v"]]
class _Timeout(BaseException): pass
def _alarm(*_): raise _Timeout()
_signal.signal(_signal.SIGALRM, _alarm)
_real = _sys.stdout
for _args, _seconds in _INPUTS:
    _sys.stdout = _io.StringIO()
    _signal.setitimer(_signal.ITIMER_REAL, _seconds)
    try:
        _r = {"kind": "return", "value": _enc(_FUNCTION(*[_dec(a) for a in _args]))}
    except _Timeout:
        _r = {"kind": "timeout", "seconds": _seconds}
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
/// although the cell's `from typing import List` is not part of the program. CPython's
/// recursion limit is the interpreter's plus the module's frame, so deep recursion ends
/// the same way in both.
fn script(r: &Runnable, jobs: &[Job], recursion_limit: u32) -> String {
    let encoded: Vec<(Vec<Json>, f64)> = jobs
        .iter()
        .map(|job| (job.args.iter().map(encode).collect(), job.seconds))
        .collect();
    let data = serde_json::to_string(&encoded).unwrap_or_else(|_| "[]".into());
    // A JSON string is a valid Python string literal.
    let literal = serde_json::to_string(&data).unwrap_or_else(|_| "\"[]\"".into());
    format!(
        "from __future__ import annotations\n{}\n\nimport json as _json0\n_INPUTS = _json0.loads({literal})\n_FUNCTION = {}\n__import__('sys').setrecursionlimit({})\n{DRIVER}",
        r.source,
        r.function,
        u64::from(recursion_limit) + 1
    )
}

/// Fewest runs worth a `python3` process of their own.
const RUNS_PER_PROCESS: usize = 8;

/// Runs the inputs in CPython, split into batches run side by side (one `python3` process
/// per core, at most 4); results in input order, `None` when `python3` is not installed.
pub fn run(
    r: &Runnable,
    inputs: &[Job],
    recursion_limit: u32,
    cancel: &Cancel,
) -> Result<Option<Vec<Concrete>>, CheckError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let processes = (inputs.len() / RUNS_PER_PROCESS).clamp(1, cores);
    if processes == 1 {
        return run_batch(r, inputs, recursion_limit, cancel);
    }
    let chunk = inputs.len().div_ceil(processes);
    let batches: Vec<Result<Option<Vec<Concrete>>, CheckError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .chunks(chunk)
            .map(|part| scope.spawn(move || run_batch(r, part, recursion_limit, cancel)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(CheckError::Python("a batch's thread failed".into())))
            })
            .collect()
    });
    let mut results = Vec::with_capacity(inputs.len());
    for batch in batches {
        match batch? {
            Some(part) => results.extend(part),
            None => return Ok(None),
        }
    }
    Ok(Some(results))
}

/// Runs one batch in one `python3` process; `None` when `python3` is not installed.
fn run_batch(
    r: &Runnable,
    inputs: &[Job],
    recursion_limit: u32,
    cancel: &Cancel,
) -> Result<Option<Vec<Concrete>>, CheckError> {
    if inputs.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let mut command = Command::new("python3");
    command.arg("-");
    let seconds: f64 = inputs.iter().map(|job| job.seconds).sum();
    let limit = Duration::from_secs_f64(10.0 + seconds);
    let script = script(r, inputs, recursion_limit);
    let out = match child::run(command, script.into_bytes(), limit, cancel) {
        Ok(out) => out,
        Err(ChildError::NotFound(_)) => return Ok(None),
        Err(ChildError::Stopped(s)) => return Err(s.into()),
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
        Some("timeout") => {
            let seconds = v
                .get("seconds")
                .and_then(Json::as_f64)
                .unwrap_or(RUN_SECONDS);
            Concrete::Unfinished(format!("did not finish within {seconds} s in CPython"))
        }
        _ => Concrete::NoResult(format!("unreadable result {line:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Limits;
    use crate::symexec::check::interpret;

    /// Recursion as deep as the limit allows runs in both; one call deeper raises
    /// RecursionError in both.
    #[test]
    fn cpython_and_the_interpreter_share_the_recursion_limit() {
        let r = Runnable::function(
            &["def deep(n: int) -> int:\n    if n <= 1:\n        return 1\n    return 1 + deep(n - 1)\n".to_string()],
            "deep",
        );
        let limit = 50;
        let depths: Vec<i64> = (45..56).collect();
        let args: Vec<Vec<PyValue>> = depths
            .iter()
            .map(|&n| vec![PyValue::Int(n.into())])
            .collect();
        let ours = interpret(&r, &args, Limits::new(100_000, limit), &Cancel::new()).unwrap();
        let jobs: Vec<Job> = args.iter().map(|a| Job::scaled(a.clone(), 1_000)).collect();
        let Some(theirs) = run(&r, &jobs, limit, &Cancel::new()).unwrap() else {
            return; // no python3 on this machine
        };
        let show = |c: &Concrete| format!("{c:?}");
        let ours: Vec<String> = ours.iter().map(|(c, _)| show(c)).collect();
        let theirs: Vec<String> = theirs.iter().map(show).collect();
        assert_eq!(ours, theirs);
        assert!(ours.iter().any(|o| o.contains("RecursionError")));
        assert!(ours.iter().any(|o| o.contains("Return")));
    }
}
