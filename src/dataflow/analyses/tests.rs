//! The analyses on small functions whose facts are worked out by hand.

use super::*;
use crate::dataflow::registry::{ANALYSES, ANALYSIS_WORDS, find_analysis};
use crate::python::lower_module;

/// Runs `kind` on function `f` of `source`; returns (first line, IN, OUT) per statement node.
fn facts(source: &str, kind: &str) -> Vec<(u32, Vec<String>, Vec<String>)> {
    let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("f").unwrap_or_else(|| panic!("no f"));
    let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
    let analysis = find_analysis(kind).unwrap_or_else(|e| panic!("{e}"));
    let rep = (analysis.run)(&p, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    rep.nodes
        .into_iter()
        .filter(|n| !p.cfg.node(n.node).stmts.is_empty())
        .map(|n| (p.line(n.node), n.before, n.after))
        .collect()
}

fn at(rows: &[(u32, Vec<String>, Vec<String>)], line: u32) -> (Vec<String>, Vec<String>) {
    rows.iter()
        .find(|r| r.0 == line)
        .map(|r| (r.1.clone(), r.2.clone()))
        .unwrap_or_else(|| panic!("no node at line {line}"))
}

#[test]
fn a_for_target_is_bound_on_the_true_edge_only() {
    let src = "def f(n):\n    i = 5\n    for i in range(n):\n        pass\n    print(i)\n";
    let rd = facts(src, "reaching");
    // The loop may run zero times: both definitions of i reach the print.
    assert_eq!(at(&rd, 5).0, ["i@L2", "i@L3", "n@L1"]);
    assert_eq!(
        at(&rd, 4).0,
        ["i@L3", "n@L1"],
        "the body sees the target only"
    );
    assert_eq!(
        at(&rd, 3).1,
        ["i@L2", "i@L3", "n@L1"],
        "the header itself binds nothing"
    );
    let live = facts(src, "live");
    // So the use at line 5 is live after `i = 5`.
    assert_eq!(
        at(&live, 2).1,
        ["i@L5", "n@L3"],
        "range and print are not locals"
    );
    assert_eq!(at(&live, 4).1, ["i@L5", "n@L3"]);
}

#[test]
fn an_exception_leaves_before_the_assignment() {
    let src = "def f():\n    x = 0\n    try:\n        x = g()\n    except E:\n        return x\n    return 1\n";
    let live = facts(src, "live");
    // `g()` may raise before x is bound, so the use in the handler sees `x = 0`.
    assert!(at(&live, 2).1.contains(&"x@L6".to_string()), "{live:?}");
    assert!(at(&live, 4).0.contains(&"x@L6".to_string()));
    let rd = facts(src, "reaching");
    assert_eq!(at(&rd, 5).0, ["x@L2", "x@L4"], "both reach the handler");
    assert_eq!(at(&rd, 7).0, ["x@L4"]);
}

#[test]
fn available_expressions_meet_at_joins() {
    let src = "def f(a, b, c):\n    x = a + b\n    if c:\n        y = a * b\n    else:\n        y = a + b\n        a = 0\n    return a + b\n";
    let av = facts(src, "available");
    assert_eq!(at(&av, 3).0, ["a + b"]);
    assert_eq!(at(&av, 4).1, ["a * b", "a + b"]);
    assert!(at(&av, 7).1.is_empty(), "a = 0 kills both");
    assert!(at(&av, 8).0.is_empty(), "not available on the else path");
    let vb = facts(src, "very-busy");
    assert_eq!(
        at(&vb, 3).0,
        ["a + b"],
        "the return evaluates it on the then path"
    );
    assert_eq!(at(&vb, 6).0, ["a + b"]);
    assert!(
        at(&vb, 7).0.is_empty(),
        "a is bound before the return reads it"
    );
    assert_eq!(at(&vb, 2).0, ["a + b"]);
}

#[test]
fn very_busy_through_a_loop_and_self_kill() {
    let src = "def f(x, y):\n    while x > 0:\n        x = x - y\n    return x\n";
    let vb = facts(src, "very-busy");
    assert_eq!(at(&vb, 3).0, ["x - y"]);
    assert_eq!(at(&vb, 3).1, ["x > 0"], "the test runs next on every path");
    assert_eq!(at(&vb, 2).0, ["x > 0"]);
    let av = facts(src, "available");
    assert_eq!(at(&av, 2).1, ["x > 0"]);
    assert!(
        at(&av, 3).1.is_empty(),
        "x = x - y kills its own expression"
    );
    assert_eq!(at(&av, 4).0, ["x > 0"], "the test was just evaluated again");
    assert!(at(&av, 2).0.is_empty(), "killed on the back edge");
}

#[test]
fn def_use_chains_link_definitions_to_uses() {
    let src = "def f(x):\n    y = 0\n    while x >= 0:\n        y = y + x\n        x -= 1\n    return y\n";
    let du = facts(src, "def-use");
    assert_eq!(at(&du, 3).0, ["x@L1→L3", "x@L5→L3"]);
    assert_eq!(at(&du, 4).0, ["x@L1→L4", "x@L5→L4", "y@L2→L4", "y@L4→L4"]);
    assert_eq!(at(&du, 5).1, ["x@L5→L3", "x@L5→L4", "x@L5→L5"]);
    assert_eq!(at(&du, 2).1, ["y@L2→L4", "y@L2→L6"]);
}

#[test]
fn deletion_kills_and_names_parse() {
    let src = "def f(a):\n    b = a\n    del a\n    return b\n";
    let rd = facts(src, "reaching");
    assert_eq!(at(&rd, 4).0, ["b@L2"]);
    for a in ANALYSES {
        assert_eq!(find_analysis(a.name).map(|r| r.title), Ok(a.title));
    }
    for w in ANALYSIS_WORDS {
        assert!(find_analysis(w).is_ok(), "{w}");
    }
    assert_eq!(find_analysis("liveness").map(|a| a.name), Ok("live"));
    assert!(find_analysis("reach").is_err());
}

#[test]
fn traces_and_iterations_are_reported() {
    let m = lower_module("def f(x):\n    while x:\n        x -= 1\n    return x\n").unwrap();
    let p = Program::function(m.function("f").unwrap()).unwrap();
    let options = Options {
        trace: true,
        ..Options::default()
    };
    for kind in ANALYSES {
        let rep = (kind.run)(&p, &options).unwrap();
        assert_eq!(rep.direction, kind.direction, "{}", kind.name);
        assert_eq!(rep.trace.len() as u64, rep.iterations, "{}", kind.name);
        assert!(rep.iterations >= p.cfg.graph.node_count() as u64);
        assert_eq!(rep.nodes.len(), p.cfg.graph.node_count());
    }
}
