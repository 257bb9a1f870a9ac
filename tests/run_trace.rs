//! `%run` draws the run CPython takes: for every call in `tests/fixtures/runs/programs.py`, the
//! line trace of each activation (function, lines in order, how it ended) equals the `line`
//! events `sys.settrace` reports in CPython 3.11 for the same cell, the result is CPython's,
//! and every step of the trace follows an edge of the CFG.

#[path = "common/cpython_trace.rs"]
mod cpython_trace;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use serde_json::Value;

struct Case {
    name: String,
    source: String,
    calls: Vec<String>,
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/runs/programs.py"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("#### ") {
            cases.push(Case {
                name: name.trim().to_string(),
                source: String::new(),
                calls: Vec::new(),
            });
        } else if let Some(call) = line.strip_prefix("# run: ") {
            cases
                .last_mut()
                .unwrap()
                .calls
                .push(call.trim().to_string());
        } else if let Some(c) = cases.last_mut() {
            c.source.push_str(line);
            c.source.push('\n');
        }
    }
    cases
}

fn cpython(case: &Case) -> Vec<Value> {
    cpython_trace::trace(&case.source, &case.calls)
}

fn run_payload(session: &mut Session, call: &str) -> Value {
    let (r, out) = session.run_cell(&format!("%run {call}"), &Cancel::new());
    r.unwrap_or_else(|e| panic!("%run {call}: {e}"));
    out.iter()
        .find_map(|o| match o {
            Output::Display(b) => b
                .data
                .get("application/vnd.analysis-kernel.run+json")
                .cloned(),
            _ => None,
        })
        .expect("a run payload")
}

#[test]
fn runs_trace_the_lines_cpython_traces() {
    let mut compared = 0;
    for case in cases() {
        let expected = cpython(&case);
        let mut session = Session::new(false);
        session.skip_layout = true;
        let (r, _) = session.run_cell(&case.source, &Cancel::new());
        r.unwrap();
        for (call, want) in case.calls.iter().zip(&expected) {
            let got = run_payload(&mut session, call);
            let acts: Vec<Value> = got["activations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| serde_json::json!({"function": a["function"], "lines": a["lines"], "raised": a["raised"]}))
                .collect();
            assert_eq!(
                Value::Array(acts),
                want["activations"],
                "{}: %run {call}: activations differ from CPython's",
                case.name
            );
            match want["exception"].as_str() {
                Some(ty) => assert_eq!(got["exception"]["type"], ty, "{call}"),
                None => assert_eq!(got["result"], want["result"], "{call}"),
            }
            assert_eq!(
                got["unmatched"],
                serde_json::json!([]),
                "{call}: steps off the CFG"
            );
            compared += 1;
        }
    }
    assert!(compared >= 15, "only {compared} calls compared");
}

/// The loop of `average(4)` is drawn with its counts: the `while` test's True edge taken 4
/// times, its False edge once, the loop body's nodes visited 4 times.
#[test]
fn loop_counts_are_drawn() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "tour_average")
        .unwrap();
    let mut session = Session::new(false);
    session.skip_layout = true;
    session.run_cell(&case.source, &Cancel::new()).0.unwrap();
    let got = run_payload(&mut session, "average(4)");
    let line_of = |id: &Value| {
        got["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| &n["id"] == id)
            .unwrap()["line"]
            .as_u64()
            .unwrap()
    };
    let count = |from: u64, label: Option<&str>| {
        got["edges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| line_of(&e["from"]) == from && e["label"].as_str() == label)
            .map(|e| e["count"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(count(4, Some("True")), 4);
    assert_eq!(count(4, Some("False")), 1);
    assert_eq!(count(6, None), 4, "the back edge from i = i + 1");
    assert_eq!(got["result"], "1");
    let (r, out) = session.run_cell("%run average(0)", &Cancel::new());
    r.unwrap();
    let text = out
        .iter()
        .find_map(|o| match o {
            Output::Display(b) => b.plain_text().map(str::to_string),
            _ => None,
        })
        .unwrap();
    assert!(
        text.starts_with("average(0) raised ZeroDivisionError"),
        "{text}"
    );
    let (r, _) = session.run_cell("%run 1 + 2", &Cancel::new());
    assert_eq!(r.unwrap_err().ename, "UsageError");
    let (r, _) = session.run_cell("%run nosuch(1)", &Cancel::new());
    assert_eq!(r.unwrap_err().ename, "NameError");
}

/// Each feasible path `%constraints` lists to the exit is the path `%run` reports for the
/// path's own witness: the run is drawn on `%constraints` under the right id.
#[test]
fn a_witness_runs_along_its_constraints_path() {
    let source = "def classify(x: int, y: int) -> str:\n    if x > 2 * y:\n        return \"big\"\n    elif x < 0:\n        return \"negative\"\n    return \"small\"\n\ndef grade(score: int, bonus: int) -> int:\n    total = score + bonus\n    if total > 100:\n        total = 100\n    if total >= 50:\n        if bonus == 0:\n            return 2\n        return 1\n    return 0\n";
    let mut session = Session::new(false);
    session.skip_layout = true;
    session.run_cell(source, &Cancel::new()).0.unwrap();
    let mut checked = 0;
    for f in ["classify", "grade"] {
        let (r, out) = session.run_cell(&format!("%constraints {f}"), &Cancel::new());
        r.unwrap();
        let payload = out
            .iter()
            .find_map(|o| match o {
                Output::Display(b) => b
                    .data
                    .get("application/vnd.analysis-kernel.constraints+json")
                    .cloned(),
                _ => None,
            })
            .unwrap();
        for p in payload["paths"].as_array().unwrap() {
            let Some(w) = p["witness"].as_object() else {
                continue;
            };
            if p["end"] != "exit" {
                continue;
            }
            let args: Vec<String> = w.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let call = format!("{f}({})", args.join(", "));
            let got = run_payload(&mut session, &call);
            assert_eq!(got["constraints_paths"][0], p["id"], "{call}");
            checked += 1;
        }
    }
    assert!(checked >= 7, "only {checked} paths checked");
}
