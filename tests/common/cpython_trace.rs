//! Line traces of calls in CPython: one `python3` process runs a batch of calls, each in a
//! fresh namespace holding its program, with `sys.settrace` recording the line events of
//! the called function's outermost frame.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// One call to trace: the program's source, the function traced, the call as Python.
pub struct Job {
    pub source: String,
    pub function: String,
    /// An expression over the program's names, such as `f(3, 'a')` or `f(n=3)`.
    pub call: String,
}

/// What a traced call did: its line events, and `return`, `limit` or `exception:NAME`.
pub struct Traced {
    pub lines: Vec<u32>,
    pub outcome: String,
}

const TRACER: &str = r#"
import sys, json, io, contextlib

class Stop(Exception):
    pass

results = []
for job in json.load(sys.stdin):
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(job["src"], "<case>", "exec"), ns)
    code = ns[job["name"]].__code__
    lines = []
    top = []
    def tracer(frame, event, arg):
        # The outermost call's lines only (recursive calls run the same code).
        if frame.f_code is code and (not top or top[0] is frame):
            if not top:
                top.append(frame)
            if event == "line":
                lines.append(frame.f_lineno)
                if len(lines) > 2000:
                    raise Stop()
            return tracer
        return None
    outcome = "return"
    sys.settrace(tracer)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            eval(job["call"], ns)
    except Stop:
        outcome = "limit"
    except Exception as e:
        outcome = "exception:" + type(e).__name__
    finally:
        sys.settrace(None)
    results.append({"lines": lines, "outcome": outcome})
print(json.dumps(results))
"#;

/// Runs every job in one CPython process; the traces in the jobs' order.
pub fn traces(jobs: &[Job]) -> Vec<Traced> {
    let input: Vec<Value> = jobs
        .iter()
        .map(|j| json!({"src": j.source, "name": j.function, "call": j.call}))
        .collect();
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(TRACER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(serde_json::to_string(&input).expect("json").as_bytes())
        .expect("write jobs");
    let out = child.wait_with_output().expect("python3 finishes");
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).expect("tracer output");
    assert_eq!(results.len(), jobs.len(), "one trace per job");
    results
        .iter()
        .map(|r| Traced {
            lines: r["lines"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_u64().map(|l| l as u32))
                .collect(),
            outcome: r["outcome"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}
