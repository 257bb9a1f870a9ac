//! Replaying counterexamples: every input shown as refuting a contract or distinguishing
//! two functions is run first, in CPython (the oracle) when it is allowed, else in the
//! kernel's interpreter, and shown only if the run fails the same way.

use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

use crate::cancel::Cancel;
use crate::child::{self, ChildError};
use crate::interp::Limits;
use crate::python::PyValue;
use crate::symexec::SymexecError;
use crate::symexec::check::{Concrete, Runnable, interpret, same};

/// Where counterexamples are replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replayer {
    CPython,
    /// The kernel's interpreter, with the reason CPython is not used.
    Interpreter(String),
}

impl Replayer {
    pub fn name(&self) -> String {
        match self {
            Replayer::CPython => "CPython".into(),
            Replayer::Interpreter(why) => format!("the kernel's interpreter ({why})"),
        }
    }
}

/// One run's result as the replay reports it.
#[derive(Clone, Debug, PartialEq)]
pub enum Run {
    Return(String),
    Raised {
        type_name: String,
        message: String,
        /// The innermost frame's function and source line (CPython only).
        function: Option<String>,
        line: Option<String>,
    },
    /// The input breaks a precondition (checked in CPython).
    Precondition,
    Other(String),
}

impl Run {
    pub fn describe(&self) -> String {
        match self {
            Run::Return(v) => format!("returned {v}"),
            Run::Raised {
                type_name, message, ..
            } if message.is_empty() => format!("raised {type_name}"),
            Run::Raised {
                type_name, message, ..
            } => format!("raised {type_name}: {message}"),
            Run::Precondition => "the input breaks a precondition".into(),
            Run::Other(why) => why.clone(),
        }
    }
}

const DRIVER: &str = r#"
import io as _io, json as _json, signal as _signal, sys as _sys, traceback as _tb
class _Timeout(BaseException): pass
def _alarm(*_): raise _Timeout()
_signal.signal(_signal.SIGALRM, _alarm)
_real = _sys.stdout
_NOTHING = object()
def _one(fn, args):
    _sys.stdout = _io.StringIO()
    _signal.setitimer(_signal.ITIMER_REAL, 2.0)
    try:
        _v = fn(*args)
        return {"kind": "return", "value": repr(_v)}, _v
    except _Timeout:
        return {"kind": "other", "why": "did not finish within 2 s"}, _NOTHING
    except BaseException as _e:
        _f = _tb.extract_tb(_e.__traceback__)[-1]
        return {"kind": "exception", "type": type(_e).__name__, "message": str(_e),
                "function": _f.name, "line": (_f.line or "")}, _NOTHING
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _sys.stdout = _real
for _args in _INPUTS:
    _runs, _values, _equal = [], [], None
    if not _pre(*_args):
        _runs = [{"kind": "pre"}]
    else:
        for _fn in _FUNCTIONS:
            _r, _v = _one(_fn, _args)
            _runs.append(_r)
            _values.append(_v)
        if len(_values) == 2 and all(_v is not _NOTHING for _v in _values):
            try:
                _equal = bool(_values[0] == _values[1])
            except BaseException:
                _equal = False
    _real.write(_json.dumps({"runs": _runs, "equal": _equal}) + "\n")
    _real.flush()
"#;

/// What to run: the program, the functions called on each input, the preconditions.
pub struct Program<'a> {
    pub definitions: &'a [String],
    pub functions: &'a [String],
    pub parameters: &'a [String],
    /// Precondition expressions the input must satisfy (checked in CPython only).
    pub preconditions: &'a [String],
}

/// Runs each function on each input; per input, one run per function, and (CPython, two
/// functions both returning) whether the results compared `==`.
pub fn run(
    replayer: &Replayer,
    program: &Program<'_>,
    inputs: &[Vec<PyValue>],
    recursion_limit: u32,
    cancel: &Cancel,
) -> Result<Vec<(Vec<Run>, Option<bool>)>, SymexecError> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    match replayer {
        Replayer::CPython => cpython(program, inputs, recursion_limit, cancel),
        Replayer::Interpreter(_) => interpreter(program, inputs, recursion_limit, cancel),
    }
}

fn cpython(
    program: &Program<'_>,
    inputs: &[Vec<PyValue>],
    recursion_limit: u32,
    cancel: &Cancel,
) -> Result<Vec<(Vec<Run>, Option<bool>)>, SymexecError> {
    let literal = |args: &Vec<PyValue>| {
        let items: Vec<String> = args.iter().map(PyValue::repr).collect();
        format!(
            "({}{})",
            items.join(", "),
            if items.len() == 1 { "," } else { "" }
        )
    };
    let data: Vec<String> = inputs.iter().map(literal).collect();
    let pre = if program.preconditions.is_empty() {
        "True".to_string()
    } else {
        program
            .preconditions
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let script = format!(
        "from __future__ import annotations\n{}\n\n__import__('sys').setrecursionlimit({})\ndef _pre({}):\n    return bool({pre})\n_INPUTS = [{}]\n_FUNCTIONS = [{}]\n{DRIVER}",
        program.definitions.join("\n\n"),
        u64::from(recursion_limit) + 1,
        program.parameters.join(", "),
        data.join(", "),
        program.functions.join(", "),
    );
    let mut command = Command::new("python3");
    command.arg("-");
    let limit = Duration::from_secs_f64(10.0 + 4.0 * inputs.len() as f64);
    let out = match child::run(command, script.into_bytes(), limit, cancel) {
        Ok(out) => out,
        Err(ChildError::Stopped(s)) => return Err(s.into()),
        Err(e) => return Err(SymexecError::Input(format!("replay in python3: {e}"))),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    if lines.len() != inputs.len() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail = stderr.lines().last().unwrap_or("").to_string();
        return Err(SymexecError::Input(format!(
            "replay in python3 gave {} results for {} inputs: {tail}",
            lines.len(),
            inputs.len()
        )));
    }
    Ok(lines.into_iter().map(parse).collect())
}

fn parse(line: &str) -> (Vec<Run>, Option<bool>) {
    let Ok(v) = serde_json::from_str::<Json>(line) else {
        return (
            vec![Run::Other(format!("unreadable result {line:?}"))],
            None,
        );
    };
    let text = |v: &Json, k: &str| v.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    let mut runs = Vec::new();
    for v in v.get("runs").and_then(Json::as_array).into_iter().flatten() {
        runs.push(match v.get("kind").and_then(Json::as_str) {
            Some("return") => Run::Return(text(v, "value")),
            Some("exception") => Run::Raised {
                type_name: text(v, "type"),
                message: text(v, "message"),
                function: Some(text(v, "function")),
                line: Some(text(v, "line")),
            },
            Some("pre") => Run::Precondition,
            _ => Run::Other(text(v, "why")),
        });
    }
    (runs, v.get("equal").and_then(Json::as_bool))
}

fn interpreter(
    program: &Program<'_>,
    inputs: &[Vec<PyValue>],
    recursion_limit: u32,
    cancel: &Cancel,
) -> Result<Vec<(Vec<Run>, Option<bool>)>, SymexecError> {
    let limits = Limits::new(1_000_000, recursion_limit);
    let mut per_function = Vec::new();
    for f in program.functions {
        let r = Runnable::function(program.definitions, f);
        let results = interpret(&r, inputs, limits, cancel).map_err(|e| match e {
            crate::symexec::check::CheckError::Stopped(s) => SymexecError::Stopped(s),
            other => SymexecError::Input(format!("replay in the interpreter: {other}")),
        })?;
        per_function.push(results);
    }
    let mut out = Vec::new();
    for i in 0..inputs.len() {
        let concrete: Vec<&Concrete> = per_function.iter().map(|r| &r[i].0).collect();
        let runs: Vec<Run> = concrete
            .iter()
            .map(|c| match c {
                Concrete::Return(v) => Run::Return(v.repr()),
                Concrete::Raised { type_name, message } => Run::Raised {
                    type_name: type_name.clone(),
                    message: message.clone(),
                    function: None,
                    line: None,
                },
                Concrete::Normal(_) => Run::Other("ran to its end".into()),
                Concrete::NoResult(w) | Concrete::Unfinished(w) => Run::Other(w.clone()),
            })
            .collect();
        let equal = match concrete.as_slice() {
            [Concrete::Return(a), Concrete::Return(b)] => Some(same(a, b)),
            _ => None,
        };
        out.push((runs, equal));
    }
    Ok(out)
}
