//! `%constraints NAME ARG:TYPE …` (issue 15): a given type takes the place of the annotation
//! or of inference and is listed as given; a bad type or an unknown parameter is a usage
//! error naming the accepted forms; functions using the ASCII string methods say so.

#[path = "common/cells.rs"]
mod cells;

use analysis_kernel::notebook::Session;
use cells::{payload, run};
use serde_json::Value;

const DEFS: &str = "def half(n):\n    return n\n\n\
def grade(score: float, label):\n    if score >= 50:\n        return label\n    return 'F'\n\n\
def parity(k):\n    if k % 2 == 0:\n        return 'even'\n    return 'odd'\n\n\
def kind(s: str) -> str:\n    if s.isdigit():\n        return 'n'\n    return 'w'\n";

fn session() -> Session {
    let mut s = Session::default();
    let (r, _) = run(&mut s, DEFS);
    r.expect("definitions");
    s
}

fn constraints(session: &mut Session, cell: &str) -> Value {
    let (r, out) = run(session, cell);
    r.unwrap_or_else(|e| panic!("{cell}: {e:?}"));
    payload(&out, "constraints").clone()
}

fn decided(p: &Value) -> (usize, usize) {
    let edges = p["edges"].as_array().expect("edges");
    let known = edges.iter().filter(|e| e["feasible"] != "unknown").count();
    (edges.len(), known)
}

#[test]
fn a_given_type_models_a_parameter_and_is_listed_as_given() {
    let mut s = session();
    // `half(n)` has no evidence for n's type: without ARG:TYPE it gets `%set`'s default
    // guess, and a note says the verdicts hold for that guess.
    let before = constraints(&mut s, "%constraints half");
    assert_eq!(before["parameters"]["n"], "int", "{}", before["parameters"]);
    let notes = before["notes"].as_array().expect("notes");
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.contains("n: int, the default guess") && n.contains("ARG:TYPE"))),
        "{notes:?}"
    );
    let after = constraints(&mut s, "%constraints half n:list[int]");
    assert_eq!(after["parameters"]["n"], "list[int]");
    assert_eq!(
        after["given_parameters"],
        serde_json::json!([{"name": "n", "type": "list[int]"}])
    );
    assert_eq!(after["notes"], serde_json::json!([]));
    // It overrides an annotation and an inference too.
    let p = constraints(&mut s, "%constraints grade score:int label: str");
    assert_eq!(p["parameters"]["score"], "int");
    assert_eq!(p["parameters"]["label"], "str");
    let (all, known) = decided(&p);
    assert_eq!(all, known, "{}", p["edges"]);
    let p = constraints(&mut s, "%constraints parity k:int");
    assert_eq!(p["inferred_parameters"], serde_json::json!([]));
    assert_eq!(p["given_parameters"][0]["name"], "k");
    let (all, known) = decided(&p);
    assert_eq!(all, known);
}

#[test]
fn the_text_says_which_types_were_given() {
    let mut s = session();
    let (r, out) = run(&mut s, "%constraints parity k:int");
    r.expect("runs");
    let text = cells::display(&out)["text/plain"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("given: k: int (ARG:TYPE)"), "{text}");
}

#[test]
fn bad_types_and_unknown_parameters_are_usage_errors() {
    let mut s = session();
    for (cell, needle) in [
        ("%constraints half n:complex", "list[T], tuple[T, ...]"),
        ("%constraints half n", "expected ARG:TYPE"),
        (
            "%constraints half m:int",
            "half has no parameter m (its parameters: n)",
        ),
        ("%constraints half n:int n:str", "given twice"),
    ] {
        let (r, _) = run(&mut s, cell);
        let err = r.expect_err(cell);
        let text = format!("{err:?}");
        assert!(text.contains(needle), "{cell}: {text}");
    }
}

#[test]
fn the_ascii_model_is_said() {
    let mut s = session();
    let p = constraints(&mut s, "%constraints kind");
    let notes = p["notes"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("taken to be ASCII"))),
        "{notes:?}"
    );
    let (all, known) = decided(&p);
    assert_eq!(all, known);
    let p = constraints(&mut s, "%constraints parity k:int");
    assert_eq!(p["notes"], serde_json::json!([]));
}
