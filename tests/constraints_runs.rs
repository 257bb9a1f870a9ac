//! `%constraints`' edges decided by runs (the solver left them "unknown"; a run of the
//! function in the interpreter took them). Each such edge is taken by CPython on the inputs
//! the output names, and runs never decide what they must not: an edge no input within the
//! preconditions takes, an edge of a function reading a global the runs would lack.

#[path = "common/cells.rs"]
mod cells;
#[path = "common/cpython_trace.rs"]
mod cpython_trace;
#[path = "common/everyday.rs"]
mod everyday;

use analysis_kernel::cfg::function_cfg;
use analysis_kernel::notebook::Session;
use analysis_kernel::python::lower_module;
use serde_json::Value;

/// An edge a run decided: the program, the function, the edge, the run's inputs.
struct Decided {
    source: String,
    function: String,
    edge: (String, String, Option<String>),
    inputs: String,
}

/// The `%constraints` payload of `function`, in a session that ran `source`.
fn constraints(session: &mut Session, function: &str) -> Value {
    let (result, out) = cells::run(session, &format!("%constraints {function}"));
    result.unwrap_or_else(|e| panic!("%constraints {function}: {e:?}"));
    cells::payload(&out, "constraints").clone()
}

fn call_text(d: &Decided) -> String {
    format!("{}({})", d.function, d.inputs)
}

fn edge_key(e: &Value) -> (String, String, Option<String>) {
    (
        e["source"].as_str().unwrap_or_default().to_string(),
        e["target"].as_str().unwrap_or_default().to_string(),
        e["label"].as_str().map(str::to_string),
    )
}

#[test]
fn every_edge_a_run_decided_is_taken_by_cpython_on_the_inputs_shown() {
    let mut decided = Vec::new();
    for path in everyday::files() {
        let source = std::fs::read_to_string(&path).expect("fixture");
        let mut session = Session::new(false);
        let (result, _) = cells::run(&mut session, &source);
        result.expect("the fixture runs");
        for function in everyday::functions(&source) {
            let j = constraints(&mut session, &function);
            for e in j["edges"].as_array().into_iter().flatten() {
                if let Some(inputs) = e["run"].as_str() {
                    assert_eq!(e["feasible"], true, "{function}: {e}");
                    decided.push(Decided {
                        source: source.clone(),
                        function: function.clone(),
                        edge: edge_key(e),
                        inputs: inputs.to_string(),
                    });
                }
            }
        }
    }
    assert!(
        decided.len() >= 50,
        "only {} edges decided by runs",
        decided.len()
    );
    let mut failures = Vec::new();
    let mut sources: Vec<&String> = decided.iter().map(|d| &d.source).collect();
    sources.dedup();
    for source in sources {
        let mine: Vec<&Decided> = decided.iter().filter(|d| &d.source == source).collect();
        let calls: Vec<String> = mine.iter().map(|d| call_text(d)).collect();
        let module = lower_module(source).expect("parses");
        for (d, call) in mine.iter().zip(cpython_trace::trace(source, &calls)) {
            let f = module.function(&d.function).expect("defined");
            let cfg = function_cfg(f).expect("cfg");
            let taken = cpython_trace::edges_taken(&cfg, &d.function, &call).contains(&d.edge);
            if !taken {
                failures.push(format!(
                    "{}: CPython (exception {}) did not take {:?}",
                    call_text(d),
                    call["exception"],
                    d.edge
                ));
            }
        }
    }
    println!(
        "{} edges decided by runs, each taken in CPython",
        decided.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Functions with an edge runs must not decide: `(source, function, line of the edge's
/// target)`. The conditions read names `%constraints` cannot translate, so the solver
/// leaves those edges unknown.
const MUST_STAY_UNDECIDED: &[(&str, &str, u32)] = &[
    // No input takes it.
    (
        "def impossible(s: str) -> int:\n    for p in s.split(','):\n        if p == 'x' and p == 'y':\n            return 1\n    return 0\n",
        "impossible",
        4,
    ),
    // Only an input outside the precondition takes it (random inputs include s='').
    (
        "def outside(s: str) -> int:\n    \"\"\"Precondition: len(s) > 0\"\"\"\n    for p in s.split(','):\n        if p == '' and len(s) == 0:\n            return 1\n    return 0\n",
        "outside",
        5,
    ),
    // Only a second call in the same interpreter takes it (the default list remembers the
    // first): every run starts from the functions defined afresh.
    (
        "def remember(x, memo=[]):\n    memo.append(x)\n    return len(memo)\n\ndef second_call(x: int) -> int:\n    if remember(x) > 1:\n        return 1\n    return 0\n",
        "second_call",
        7,
    ),
    // A run without the session's globals would raise NameError into the handler.
    (
        "LIMIT = 3\n\ndef reads_global(s: str) -> int:\n    try:\n        n = len(s.split(',')) + LIMIT\n    except Exception:\n        return -1\n    return n\n",
        "reads_global",
        7,
    ),
];

#[test]
fn runs_never_decide_an_edge_no_admitted_run_takes() {
    for (source, function, line) in MUST_STAY_UNDECIDED {
        let mut session = Session::new(false);
        let (result, _) = cells::run(&mut session, source);
        result.expect("defines");
        let j = constraints(&mut session, function);
        let cfg = function_cfg(
            lower_module(source)
                .expect("parses")
                .function(function)
                .expect("defined"),
        )
        .expect("cfg");
        let into: Vec<Value> = j["edges"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| {
                e["target"]
                    .as_str()
                    .and_then(|t| t.parse::<usize>().ok())
                    .is_some_and(|t| {
                        cfg.nodes()
                            .any(|n| n.index() == t && cfg.node(n).lines.0 == *line)
                    })
            })
            .cloned()
            .collect();
        assert!(!into.is_empty(), "{function}: no edge into line {line}");
        for e in into {
            assert_eq!(e["feasible"], "unknown", "{function}: {e}");
        }
        // The same function's other edges were decided by runs, so the runs did happen
        // (except where the function reads a global).
        let by_runs = j["edges"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["run"].is_string())
            .count();
        assert_eq!(by_runs > 0, *function != "reads_global", "{function}: {j}");
    }
}
