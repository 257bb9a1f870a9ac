//! `%run CALL --on set` and `%run CALL --on absint DOMAIN`:
//!
//! - on the symbolic tree, for random inputs, the leaf the run is drawn to has a path
//!   condition that holds for the input (Z3, the inputs asserted equal to their values), and
//!   the tree's outcome at that leaf is CPython's result for the call;
//! - on abstract interpretation, no built-in domain has a concrete value outside its abstract
//!   state on many random runs, and a deliberately unsound user domain (`UnsoundParity` of
//!   `tests/fixtures/user_analyses/buggy.py`: even + odd = even) is flagged where it is wrong;
//! - `%run obj.method(ARGS)` draws the method's run.

#[path = "common/cells.rs"]
mod cells;
#[path = "common/cpython_trace.rs"]
mod cpython_trace;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use analysis_kernel::python::lower_module;
use analysis_kernel::symbolic::{Check, CompareOp, Solver, Term};
use analysis_kernel::symexec::check::{Rng, literal};
use analysis_kernel::symexec::{Inputs, Options, Program, execute};
use serde_json::Value;

const FUNCTIONS: &str = r#"
def classify(x: int, y: int) -> str:
    """Compare x with twice y.

    Preconditions:
        - y >= 0
    """
    if x > 2 * y:
        return "big"
    elif x < 0:
        return "negative"
    return "small"

def average(n: int) -> int:
    total = 0
    i = 0
    while i < n:
        total = total + i
        i = i + 1
    return total // i

def clamp(x: int, lo: int, hi: int) -> int:
    if lo > hi:
        raise ValueError("empty range")
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x

def mixed(a: int, b: int) -> int:
    if a > 10:
        return a // b
    c = a * 3 - b
    if c % 2 == 0 and b != 0:
        return c // b
    return c

def pick(xs: list[int], i: int) -> int:
    if i < len(xs):
        return xs[i]
    return -1
"#;

fn session() -> Session {
    let mut s = Session::default();
    s.skip_layout = true;
    let (r, _) = s.run_cell(FUNCTIONS, &Cancel::new());
    r.unwrap();
    s
}

/// The text of the file a cell's `--save` wrote.
fn saved(out: &[Output], name: &str) -> String {
    out.iter()
        .find_map(|o| match o {
            Output::File { path, contents } if path == name => {
                Some(String::from_utf8(contents.clone()).unwrap())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {name} saved"))
}

fn run_payload(session: &mut Session, cell: &str) -> Value {
    let (r, out) = session.run_cell(cell, &Cancel::new());
    r.unwrap_or_else(|e| panic!("{cell}: {e}"));
    out.iter()
        .rev()
        .find_map(|o| match o {
            Output::Display(b) => b
                .data
                .get("application/vnd.analysis-kernel.run+json")
                .cloned(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{cell}: no run payload"))
}

/// The tree `%set NAME` builds with the default settings.
fn tree(name: &str) -> analysis_kernel::symexec::Tree {
    let module = lower_module(FUNCTIONS).unwrap();
    let functions: Vec<_> = module.functions().collect();
    let program = Program::function(name, functions.iter().copied(), &[]).unwrap();
    let config = analysis_kernel::notebook::Config::default();
    let options = Options {
        unroll: config.unroll,
        node_limit: config.node_limit as usize,
        recursion_limit: config.recursion_limit,
        timeout_ms: config.z3_timeout_ms as u32,
        keep_unsat: false,
        shortcuts: true,
        depth: config.depth,
        solver_budget_ms: config.solver_budget_ms,
        resource_limit: None,
    };
    execute(&program, &options, &Cancel::new()).unwrap()
}

#[test]
fn the_leaf_drawn_holds_for_the_input_and_has_cpythons_outcome() {
    let mut s = session();
    let mut rng = Rng::new(20);
    let (mut checked, mut outcomes, mut bound) = (0, 0, 0);
    for name in ["classify", "average", "clamp", "mixed", "pick"] {
        let tree = tree(name);
        let env = Inputs(tree.inputs.clone()).env().unwrap();
        let mut calls = Vec::new();
        let mut inputs = Vec::new();
        for _ in 0..12 {
            let values: Vec<_> = tree.inputs.iter().map(|(_, s)| rng.value(s)).collect();
            let args: Vec<String> = values.iter().map(|v| v.repr()).collect();
            calls.push(format!("{name}({})", args.join(", ")));
            inputs.push(values);
        }
        let expected = cpython_trace::trace(FUNCTIONS, &calls);
        for ((call, values), want) in calls.iter().zip(&inputs).zip(&expected) {
            let got = run_payload(&mut s, &format!("%run {call} --on set"));
            let set = &got["set"];
            let Some(leaf) = set["leaf"].as_u64() else {
                // Only an input outside classify's docstring precondition has no leaf.
                assert_eq!(name, "classify", "{call}: no leaf: {set}");
                assert!(values[1].repr().starts_with('-'), "{call}: no leaf: {set}");
                assert_eq!(set["tree_outcome"]["kind"], "no_leaf");
                assert_eq!(set["failed_preconditions"], serde_json::json!(["y >= 0"]));
                continue;
            };
            let leaf = tree
                .leaves
                .iter()
                .find(|l| l.node as u64 == leaf)
                .unwrap_or_else(|| panic!("{call}: node {leaf} is no leaf"));
            // The path condition holds for the input.
            let mut solver = Solver::new(10_000);
            solver.assert(&leaf.path_condition).unwrap();
            for ((n, _), v) in tree.inputs.iter().zip(values) {
                let eq = Term::compare(
                    CompareOp::Eq,
                    env.get(n).unwrap().clone(),
                    literal(v).unwrap(),
                )
                .unwrap();
                solver.assert(&eq).unwrap();
            }
            assert!(
                matches!(solver.check(), Check::Sat(_)),
                "{call}: the path condition of leaf {leaf:?} does not hold"
            );
            checked += 1;
            // The tree's outcome there is CPython's.
            let outcome = &set["tree_outcome"];
            match outcome["kind"].as_str().unwrap() {
                "return" => {
                    assert_eq!(outcome["value"], want["result"], "{call}: {set}");
                    assert_eq!(got["result"], want["result"], "{call}");
                    assert_eq!(set["agrees"], true, "{call}");
                    outcomes += 1;
                }
                "exception" => {
                    assert_eq!(outcome["type"], want["exception"], "{call}: {set}");
                    assert_eq!(set["agrees"], true, "{call}");
                    outcomes += 1;
                }
                "bound" => bound += 1,
                other => panic!("{call}: tree outcome {other}: {set}"),
            }
        }
    }
    assert!(checked >= 45, "only {checked} leaves checked");
    assert!(
        outcomes >= 40,
        "only {outcomes} outcomes compared ({bound} bound)"
    );
}

#[test]
fn a_leaf_is_highlighted_on_the_tree_figure() {
    let mut s = session();
    let (r, out) = s.run_cell("%run clamp(5, 0, 3) --on set --save t.dot", &Cancel::new());
    r.unwrap();
    let bundle = out
        .iter()
        .find_map(|o| match o {
            Output::Display(b) => Some(b),
            _ => None,
        })
        .unwrap();
    let dot = saved(&out, "t.dot");
    let payload = &bundle.data["application/vnd.analysis-kernel.run+json"];
    let path: Vec<u64> = serde_json::from_value(payload["set"]["path"].clone()).unwrap();
    assert!(path.len() >= 3, "{payload}");
    for w in path.windows(2) {
        assert!(
            dot.contains(&format!("n{} -> n{} [penwidth=3", w[0], w[1])),
            "edge {w:?} not highlighted:\n{dot}"
        );
    }
    let text = bundle.data["text/plain"].as_str().unwrap();
    assert!(text.contains("returned 3"), "{text}");
    assert!(text.contains("path condition: {"), "{text}");
    assert_eq!(payload["set"]["tree_outcome"]["value"], "3");
}

#[test]
fn built_in_domains_hold_every_value_of_random_runs() {
    let mut s = session();
    let mut rng = Rng::new(2020);
    let domains = ["zero", "sign", "constant", "interval", "parity"];
    let mut runs = 0;
    for name in ["classify", "average", "clamp", "mixed"] {
        let tree = tree(name);
        let mut calls = Vec::new();
        for _ in 0..8 {
            let args: Vec<String> = tree
                .inputs
                .iter()
                .map(|(_, s)| rng.value(s).repr())
                .collect();
            calls.push(format!("{name}({})", args.join(", ")));
        }
        let expected = cpython_trace::trace(FUNCTIONS, &calls);
        for (call, want) in calls.iter().zip(&expected) {
            for d in domains {
                let got = run_payload(&mut s, &format!("%run {call} --on absint {d}"));
                let a = &got["absint"];
                assert_eq!(a["domain"], d);
                assert_eq!(
                    a["soundness_bugs"],
                    serde_json::json!([]),
                    "{call} in {d}: {a}"
                );
                assert_eq!(a["sound"], true);
                assert!(a["observations"].as_u64().unwrap() >= 2, "{call}: {a}");
                match want["exception"].as_str() {
                    Some(ty) => assert_eq!(got["exception"]["type"], ty, "{call}"),
                    None => assert_eq!(got["result"], want["result"], "{call}"),
                }
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 4 * 8 * 5);
}

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/user_analyses/{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn an_unsound_user_domain_is_flagged_where_a_value_escapes() {
    let mut s = session();
    for f in ["parity", "interval", "buggy"] {
        let (r, _) = cells::run(&mut s, &fixture(f));
        r.unwrap_or_else(|e| panic!("{f}: {e:?}"));
    }
    let (r, _) = cells::run(&mut s, "%domain unsound UnsoundParity");
    r.unwrap();
    let (r, _) = cells::run(
        &mut s,
        "def bump(a: int) -> int:\n    b = 2 * a\n    c = b + 1\n    return c\n",
    );
    r.unwrap();
    // The sound versions: no flag.
    for d in ["parity", "uparity"] {
        let got = run_payload(&mut s, &format!("%run bump(4) --on absint {d}"));
        assert_eq!(got["absint"]["sound"], true, "{d}: {}", got["absint"]);
    }
    // even + odd = even: c = 9 is outside `even` before `return c` (line 4).
    let (r, out) = s.run_cell(
        "%run bump(4) --on absint unsound --save bug.dot",
        &Cancel::new(),
    );
    r.unwrap();
    let bundle = out
        .iter()
        .find_map(|o| match o {
            Output::Display(b) => Some(b),
            _ => None,
        })
        .unwrap();
    let got = &bundle.data["application/vnd.analysis-kernel.run+json"];
    let bugs = got["absint"]["soundness_bugs"].as_array().unwrap();
    assert_eq!(got["absint"]["sound"], false);
    assert_eq!(got["result"], "9");
    assert!(
        bugs.iter()
            .any(|b| b["line"] == 4 && b["variable"] == "c" && b["value"] == "9"),
        "{bugs:?}"
    );
    assert!(
        bugs.iter().all(|b| b["variable"] == "c"),
        "only c is wrong: {bugs:?}"
    );
    let html = bundle.data["text/html"].as_str().unwrap();
    assert!(html.contains("color:#c62828"), "the bug is not red");
    let text = bundle.data["text/plain"].as_str().unwrap();
    assert!(text.contains("SOUNDNESS BUG"), "{text}");
    let dot = saved(&out, "bug.dot");
    assert!(dot.contains("#ffcdd2"), "no red node:\n{dot}");
}

#[test]
fn method_calls_are_drawn_on_the_methods_cfg() {
    let mut s = session();
    let (r, _) = cells::run(
        &mut s,
        "class Counter:\n    def __init__(self, start=0):\n        self.n = start\n\n    def inc(self, k):\n        for _ in range(k):\n            self.n += 1\n        return self.n\n\nc = Counter(5)\n",
    );
    r.unwrap();
    let got = run_payload(&mut s, "%run Counter().inc(2)");
    assert_eq!(got["function"], "Counter.inc");
    assert_eq!(got["result"], "2");
    assert_eq!(got["unmatched"], serde_json::json!([]));
    let got = run_payload(&mut s, "%run c.inc(3)");
    assert_eq!(got["result"], "8");
    // The for header is tested k + 1 times.
    let for_line = got["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["line"] == 6)
        .unwrap()
        .clone();
    assert_eq!(for_line["count"], 4, "{got}");
    // A builtin method has no CFG: refused by name.
    let (r, _) = s.run_cell("%run [].append(1)", &Cancel::new());
    let e = r.unwrap_err();
    assert!(
        e.to_string().contains("no function or method defined"),
        "{e}"
    );
    // --on set takes a function by name.
    let (r, _) = s.run_cell("%run c.inc(1) --on set", &Cancel::new());
    assert!(r.is_err());
    let (r, _) = s.run_cell("%run clamp(1, 2, 3) --on absint nosuch", &Cancel::new());
    assert!(r.unwrap_err().to_string().contains("unknown domain"));
    let (r, _) = s.run_cell("%run clamp(1, 2, 3) --on absint", &Cancel::new());
    assert!(r.unwrap_err().to_string().contains("needs a domain"));
}
