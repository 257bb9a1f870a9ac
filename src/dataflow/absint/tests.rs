//! Abstract interpretation on small functions with hand-computed results.

use super::*;
use crate::dataflow::domains::{Constant, Interval, Parity, Sign, Zero};
use crate::python::lower_module;

struct Run {
    report: AbsReport,
    lines: Vec<u32>,
    has_stmt: Vec<bool>,
}

fn run_in(source: &str, name: Option<&str>, kind: &str) -> Run {
    let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
    let program = match name {
        Some(n) => {
            let f = m.function(n).unwrap_or_else(|| panic!("no {n}"));
            Program::function(f).unwrap_or_else(|e| panic!("{e}"))
        }
        None => Program::module(&m).unwrap_or_else(|e| panic!("{e}")),
    };
    let domain = crate::dataflow::registry::find_domain(kind).unwrap_or_else(|e| panic!("{e}"));
    let report =
        (domain.analyze)(&program, &options(false, None)).unwrap_or_else(|e| panic!("{e}"));
    let lines = program.cfg.nodes().map(|n| program.line(n)).collect();
    let has_stmt = program
        .cfg
        .nodes()
        .map(|n| !program.cfg.node(n).stmts.is_empty())
        .collect();
    Run {
        report,
        lines,
        has_stmt,
    }
}

fn run(source: &str, kind: &str) -> Run {
    run_in(source, Some("f"), kind)
}

impl Run {
    fn node(&self, line: u32) -> &crate::dataflow::report::NodeFacts<StateView> {
        self.report
            .nodes
            .iter()
            .find(|n| self.has_stmt[n.node.index()] && self.lines[n.node.index()] == line)
            .unwrap_or_else(|| panic!("no node at line {line}"))
    }

    /// The value of `var` before the statement on `line`.
    fn before(&self, line: u32, var: &str) -> String {
        let s = &self.node(line).before;
        if !s.reachable {
            return "unreachable".into();
        }
        s.get(var)
            .map(|v| v.text.clone())
            .unwrap_or_else(|| panic!("no {var}"))
    }

    fn warnings(&self) -> Vec<String> {
        self.report.warnings.iter().map(Warning::message).collect()
    }
}

#[test]
fn loops_are_widened_then_narrowed() {
    let src = "def f():\n    i = 0\n    while i < 10:\n        i = i + 1\n    return i\n";
    let r = run(src, "interval");
    assert_eq!(r.before(3, "i"), "[0, 10]");
    assert_eq!(r.before(4, "i"), "[0, 9]");
    assert_eq!(r.before(5, "i"), "[10, 10]");
    assert!(r.report.widenings >= 1, "the head was widened");
    assert!(r.report.narrowing_rounds >= 1);
    assert_eq!(r.report.loop_heads.len(), 1);
    let c = run(src, "constant");
    assert_eq!(c.before(5, "i"), "⊤");
    let s = run(src, "sign");
    assert_eq!(s.before(5, "i"), ">0", "i >= 10 on the False edge");
}

#[test]
fn a_certain_division_makes_the_rest_unreachable() {
    let src = "def f():\n    x = 8\n    y = 0\n    z = x // y\n    return z\n";
    // The domains with an element {0}; parity only knows that 0 is even.
    for kind in ["zero", "sign", "constant", "interval"] {
        let r = run(src, kind);
        assert_eq!(r.warnings(), ["Division by zero in line 4"], "{kind:?}");
        assert_eq!(r.before(5, "x"), "unreachable", "{kind:?}");
    }
    let r = run(src, "parity");
    assert_eq!(r.warnings(), ["Possible division by zero in line 4"]);
    assert_eq!(r.before(5, "x"), "even");
}

#[test]
fn infeasible_branches_are_unreachable() {
    let src =
        "def f(x):\n    if x > 0:\n        if x < 0:\n            return 1 // 0\n    return 2\n";
    assert!(run(src, "interval").warnings().is_empty());
    assert!(run(src, "sign").warnings().is_empty());
    assert_eq!(run(src, "sign").before(4, "x"), "unreachable");
    // The zero domain cannot tell x > 0 from x < 0.
    assert_eq!(run(src, "zero").warnings(), ["Division by zero in line 4"]);
}

#[test]
fn index_checks_where_the_domain_can_tell() {
    let src = "def f(i):\n    t = (1, 2, 3)\n    a = t[2]\n    if 0 <= i < 3:\n        b = t[i]\n    c = 'abc'[i]\n    d = t[-4]\n    return d\n";
    let r = run(src, "interval");
    assert_eq!(r.before(5, "i"), "[0, 2]");
    assert_eq!(
        r.warnings(),
        [
            "Possible index out of range in line 6",
            "Index out of range in line 7"
        ]
    );
    assert_eq!(r.before(8, "i"), "unreachable");
    let c = run(src, "constant");
    assert_eq!(
        c.warnings(),
        [
            "Possible index out of range in line 5",
            "Possible index out of range in line 6",
            "Index out of range in line 7"
        ]
    );
    assert!(run(src, "sign").warnings().is_empty(), "signs cannot tell");
}

#[test]
fn for_loops_bind_range_items() {
    let src = "def f(n):\n    s = 0\n    for i in range(n):\n        s = s + 10 // (i + 1)\n    return s\n";
    let r = run(src, "interval");
    assert_eq!(r.before(4, "i"), "[0, +∞]");
    assert!(r.warnings().is_empty());
    assert_eq!(run(src, "sign").before(4, "i"), "≥0");
    assert!(run(src, "sign").warnings().is_empty());
    assert_eq!(
        run(src, "zero").warnings(),
        ["Possible division by zero in line 4"]
    );
    let empty = "def f():\n    for i in range(0):\n        x = 1 // 0\n    for j in (2, 5):\n        y = 10 // j\n    return j\n";
    let r = run(empty, "interval");
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    assert_eq!(r.before(3, "i"), "unreachable");
    assert_eq!(r.before(5, "j"), "[2, 5]");
}

#[test]
fn short_circuits_and_conditional_expressions_refine() {
    let src = "def f(y):\n    ok = y != 0 and 10 // y > 1\n    z = 10 // y if y != 0 else 0\n    return ok\n";
    for kind in ["zero", "sign"] {
        assert!(run(src, kind).warnings().is_empty(), "{kind:?}");
    }
    // An interval cannot leave out the 0 inside [-∞, +∞].
    assert_eq!(
        run(src, "interval").warnings(),
        [
            "Possible division by zero in line 2",
            "Possible division by zero in line 3"
        ]
    );
    assert_eq!(run(src, "interval").before(4, "ok"), "[0, 1]");
    assert_eq!(run(src, "interval").before(4, "z"), "[-10, 10]");
}

#[test]
fn walrus_assert_and_unbound_paths() {
    let walrus = "def f(x):\n    if (n := x - 1) > 0:\n        return 10 // n\n    return 0\n";
    let r = run(walrus, "interval");
    assert!(r.warnings().is_empty());
    assert_eq!(r.before(3, "n"), "[1, +∞]");
    let asserted = "def f(x):\n    assert x != 0\n    return 10 // x\n";
    assert!(run(asserted, "sign").warnings().is_empty());
    assert_eq!(
        run(asserted, "interval").warnings(),
        ["Possible division by zero in line 3"]
    );
    let maybe = "def f(c):\n    if c:\n        y = 1\n    return 10 // y\n";
    let r = run(maybe, "interval");
    assert_eq!(r.before(4, "y"), "[1, 1]", "y is unbound on the other path");
    assert!(r.warnings().is_empty());
}

#[test]
fn non_ints_are_not_refined() {
    let src = "def f():\n    x = 4.5\n    if x < 5:\n        if x > 4:\n            return 1 // 0\n    return 0\n";
    assert_eq!(
        run(src, "interval").warnings(),
        ["Division by zero in line 5"],
        "4.5 is between 4 and 5"
    );
}

#[test]
fn calls_clobber_globals_their_functions_rebind() {
    let src = "x = 5\ndef reset():\n    global x\n    x = 0\nreset()\ny = 10 // x\n";
    let r = run_in(src, None, "interval");
    assert_eq!(r.warnings(), ["Possible division by zero in line 6"]);
    assert_eq!(r.before(5, "x"), "[5, 5]");
}

#[test]
fn unsupported_expressions_are_top_and_traces_are_kept() {
    let src = "def f(s):\n    n = len(s)\n    m = s.count('a') ** 2\n    k = [c for c in s]\n    return n // (n + 1)\n";
    let r = run(src, "interval");
    assert_eq!(r.before(5, "n"), "[0, +∞]");
    assert_eq!(r.before(5, "m"), "[-∞, +∞]");
    assert!(r.warnings().is_empty());
    let m = lower_module(src).unwrap();
    let p = Program::function(m.function("f").unwrap()).unwrap();
    let traced = analyze::<Interval>(&p, &options(true, None)).unwrap();
    assert_eq!(traced.trace.len() as u64, traced.iterations);
    assert!(traced.trace.iter().any(|s| {
        s.new_out
            .get("n")
            .is_some_and(|v| v.json == serde_json::json!({"lo": 0, "hi": null}))
    }));
}

/// The dense frames the analysis runs on give exactly what the name-keyed map lattice gives:
/// the same states at every node, the same trace and the same counts, in every domain.
#[test]
fn frames_and_maps_agree() {
    fn same<D: AbstractDomain>(p: &Program<'_>) {
        let options = options(true, None);
        let frames = iterate_to_fixpoint(&p.cfg, AbsInt::<D>::new(p), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let maps = iterate_to_fixpoint(&p.cfg, AbsInt::<D, Env<D>>::new(p), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(frames.stats, maps.stats, "{}", D::NAME);
        let text = |s: &dyn std::fmt::Display| s.to_string();
        for (f, m) in frames.node_states().iter().zip(maps.node_states()) {
            assert_eq!(text(&f.before), text(&m.before), "{}", D::NAME);
            assert_eq!(text(&f.after), text(&m.after), "{}", D::NAME);
        }
        assert_eq!(frames.trace.len(), maps.trace.len());
        for (f, m) in frames.trace.iter().zip(&maps.trace) {
            assert_eq!((f.node, &f.cause, f.widened), (m.node, &m.cause, m.widened));
            assert_eq!(
                [&f.old_in, &f.new_in, &f.old_out, &f.new_out].map(|s| s.to_string()),
                [&m.old_in, &m.new_in, &m.old_out, &m.new_out].map(|s| s.to_string())
            );
        }
    }
    let sources = [
        "def f(x, y: bool, *a, **k):\n    i = 0\n    while i < x:\n        if (n := i % 3) == 0:\n            y = y + n\n        else:\n            del y\n            y = 10 // (i - 5)\n        i += 1\n    for j in range(2, x, -1):\n        t = (1, 2)\n        z = t[j]\n    try:\n        w = a[0] * -i\n    except ValueError as e:\n        w = ~i if i and x else 7 // 0\n    match x:\n        case [p, *q]:\n            w = p\n        case _:\n            pass\n    def g():\n        nonlocal i\n        i = 0\n    g()\n    assert w > 2\n    return w + i\n",
        "x = 5\nif y < 3:\n    z = x * y\nelse:\n    z = -x\nwhile z:\n    z = z // 2\n",
    ];
    for src in sources {
        let m = lower_module(src).unwrap_or_else(|e| panic!("{e}"));
        let p = match m.function("f") {
            Some(f) => Program::function(f),
            None => Program::module(&m),
        }
        .unwrap_or_else(|e| panic!("{e}"));
        same::<Zero>(&p);
        same::<Sign>(&p);
        same::<Constant>(&p);
        same::<Interval>(&p);
        same::<Parity>(&p);
    }
}

#[test]
fn an_even_remainder_makes_the_operand_even() {
    let src = "def f(x):\n    if x % 2 == 0:\n        y = x\n    else:\n        y = x + 1\n    return y\n";
    let r = run(src, "parity");
    assert_eq!(r.before(3, "x"), "even");
    assert_eq!(r.before(5, "x"), "⊤");
    let r = run(
        "def f(x):\n    if x % 4 == 1:\n        y = x\n    return x\n",
        "parity",
    );
    assert_eq!(r.before(3, "x"), "odd");
    // Other domains learn nothing about x from its remainder.
    assert_eq!(run(src, "interval").before(3, "x"), "[-∞, +∞]");
}
