//! The software-analysis course's dataflow examples (se2p/sa2022, line-aligned Python
//! versions in tests/fixtures/corpus/fraser/fraser_dataflow_cases.json): reaching definitions
//! (IN sets) and liveness (LIVE-OUT over uses) per line must equal the course's results; the
//! zero analysis must give the course's warnings, and its values where they are sound.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use analysis_kernel::dataflow::absint::{self, AbsReport};
use analysis_kernel::dataflow::analyses::{FactReport, Program};
use analysis_kernel::dataflow::domains::Zero;
use analysis_kernel::dataflow::engine::Options;
use analysis_kernel::dataflow::registry;
use analysis_kernel::python::lower_module;
use petgraph::graph::NodeIndex;
use serde_json::Value;

fn case(id: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus/fraser/fraser_dataflow_cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let all: Value = serde_json::from_str(&text).expect("the corpus is JSON");
    all.as_array()
        .and_then(|cases| cases.iter().find(|c| c["id"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("no case {id:?}"))
}

fn source(case: &Value) -> String {
    case["python_transliteration_line_aligned"]
        .as_str()
        .expect("a Python version")
        .to_string()
}

/// The course's node name for one of ours: `Start`, `End`, or the statement's line.
fn course_name(p: &Program<'_>, n: NodeIndex) -> String {
    if n == p.cfg.entry {
        "Start".into()
    } else if n == p.cfg.exit {
        "End".into()
    } else {
        p.line(n).to_string()
    }
}

/// `"Node 5: ['Def: x in line 9', ...]"` → ("5", {"x@L9", ...}): the course's facts in our
/// notation (`Def: x in line 9` and `Use: x in line 9` are both `x@L9`).
fn course_facts(case: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for line in case["expected_course_output_verbatim"]
        .as_array()
        .expect("expected output")
    {
        let line = line.as_str().expect("a string");
        let (node, facts) = line
            .strip_prefix("Node ")
            .and_then(|l| l.split_once(": "))
            .unwrap_or_else(|| panic!("unexpected line {line:?}"));
        let facts: BTreeSet<String> = facts
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .filter(|f| !f.is_empty())
            .map(|f| {
                let f = f.trim_matches('\'');
                let (_, rest) = f.split_once(": ").expect("Def:/Use: prefix");
                let (var, line) = rest.split_once(" in line ").expect("'in line'");
                format!("{var}@L{line}")
            })
            .collect();
        out.insert(node.to_string(), facts);
    }
    out
}

fn run_facts(case: &Value, function: &str, kind: &str, use_out: bool) {
    let src = source(case);
    let m = lower_module(&src).unwrap_or_else(|e| panic!("{e}"));
    let f = m
        .function(function)
        .unwrap_or_else(|| panic!("no {function}"));
    let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
    let report: FactReport = (registry::find_analysis(kind)
        .unwrap_or_else(|e| panic!("{e}"))
        .run)(&p, &Options::default())
    .unwrap_or_else(|e| panic!("{e}"));
    let ours: BTreeMap<String, BTreeSet<String>> = report
        .nodes
        .iter()
        .map(|n| {
            let facts = if use_out { &n.after } else { &n.before };
            (course_name(&p, n.node), facts.iter().cloned().collect())
        })
        .collect();
    let expected = course_facts(case);
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "the same nodes as the course"
    );
    for (node, facts) in &expected {
        assert_eq!(&ours[node], facts, "{} node {node}", case["id"]);
    }
}

#[test]
fn reaching_definitions_in_sets_equal_the_course() {
    run_facts(&case("reaching_definitions_foo"), "foo", "reaching", false);
    run_facts(
        &case("reaching_definitions_badCode"),
        "badCode",
        "reaching",
        false,
    );
}

#[test]
fn liveness_out_sets_equal_the_course() {
    run_facts(&case("liveness_foo"), "foo", "live", true);
    run_facts(&case("liveness_badCode"), "badCode", "live", true);
}

/// The zero analysis of the case's `foo`, and the course's name of each node (by index).
fn zero_analysis(case: &Value) -> (Vec<String>, AbsReport) {
    let src = source(case);
    let m = lower_module(&src).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("foo").unwrap_or_else(|| panic!("no foo"));
    let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
    let r = absint::analyze::<Zero>(&p, &absint::options(false, None))
        .unwrap_or_else(|e| panic!("{e}"));
    let names = p.cfg.nodes().map(|n| course_name(&p, n)).collect();
    (names, r)
}

/// The course's messages in ours: "Potential division …" is our "Possible division …".
fn course_warnings(case: &Value) -> Vec<String> {
    case["expected_warnings_verbatim"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| {
            w.as_str()
                .unwrap_or("")
                .replace("Potential division", "Possible division")
        })
        .collect()
}

#[test]
fn zero_analysis_warnings_equal_the_course() {
    for id in ["zero_analysis_loop", "zero_analysis_definite"] {
        let c = case(id);
        let (_, r) = zero_analysis(&c);
        let ours: Vec<String> = r.warnings.iter().map(|w| w.message()).collect();
        assert_eq!(ours, course_warnings(&c), "{id}");
    }
    let (_, definite) = zero_analysis(&case("zero_analysis_definite"));
    assert!(definite.warnings.iter().all(|w| w.certain));
    let (_, looping) = zero_analysis(&case("zero_analysis_loop"));
    assert!(looping.warnings.iter().all(|w| !w.certain));
}

/// `'x = {NONZERO, ZERO}'` → ("x", {"NONZERO", "ZERO"}).
fn course_values(facts: &str) -> BTreeMap<String, BTreeSet<String>> {
    facts
        .trim_matches(|c| c == '[' || c == ']')
        .split("', '")
        .map(|f| {
            let f = f.trim_matches('\'');
            let (var, set) = f.split_once(" = ").expect("var = set");
            let atoms = set
                .trim_matches(|c| c == '{' || c == '}')
                .split(", ")
                .filter(|a| !a.is_empty() && *a != "set()")
                .map(str::to_string)
                .collect();
            (var.to_string(), atoms)
        })
        .collect()
}

/// The course prints each node's OUT. Its values are ours except for x: the course's
/// abstract division says NONZERO // NONZERO = NONZERO, but 1 // 6 == 0 (x runs 8, 1, 0, 0,
/// 0 in this very loop), so from the loop head on, where x // y flows back, x is
/// {ZERO, NONZERO}.
#[test]
fn zero_analysis_values_are_the_course_values_made_sound() {
    let c = case("zero_analysis_loop");
    let (names, r) = zero_analysis(&c);
    let unsound_x = ["6", "7", "8", "9", "End"];
    let mut checked = 0;
    for line in c["expected_course_output_verbatim"]
        .as_array()
        .expect("values")
    {
        let line = line.as_str().expect("a string");
        let (node, facts) = line
            .strip_prefix("Node ")
            .and_then(|l| l.split_once(": "))
            .expect("Node N: [...]");
        let mut expected = course_values(facts);
        if unsound_x.contains(&node) {
            expected.insert(
                "x".into(),
                ["NONZERO", "ZERO"].iter().map(|s| s.to_string()).collect(),
            );
        }
        let ours_node = r
            .nodes
            .iter()
            .find(|n| names[n.node.index()] == node)
            .unwrap_or_else(|| panic!("no node {node}"));
        assert!(ours_node.after.reachable, "node {node}");
        for (var, atoms) in &expected {
            let value = ours_node
                .after
                .get(var)
                .unwrap_or_else(|| panic!("no {var} at {node}"));
            let ours: BTreeSet<String> = value
                .json
                .as_array()
                .expect("zero values are lists of atoms")
                .iter()
                .filter_map(|a| a.as_str().map(str::to_string))
                .collect();
            assert_eq!(&ours, atoms, "{var} after node {node}");
            checked += 1;
        }
    }
    assert_eq!(checked, 27, "9 nodes × 3 variables");
}
