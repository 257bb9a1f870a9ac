//! End-to-end checks of the analysis on small functions.

use super::*;
use crate::cancel::Cancel;
use crate::python::lower_module;

fn run_with(source: &str, mode: Mode, path_limit: usize) -> Analysis {
    let module = lower_module(source).unwrap();
    let f = module.functions().next().unwrap();
    let options = Options {
        mode,
        path_limit,
        timeout_ms: 5_000,
        given: Vec::new(),
    };
    analyze(f, &options, &Cancel::new()).unwrap()
}

fn run(source: &str, mode: Mode) -> Analysis {
    run_with(source, mode, 64)
}

/// The shown constraints of path `k`.
fn constraints(a: &Analysis, k: usize) -> Vec<String> {
    a.paths[k]
        .constraints
        .iter()
        .filter(|c| c.kind != Kind::Internal)
        .map(|c| c.term.to_string())
        .collect()
}

fn nodes(a: &Analysis, k: usize) -> Vec<usize> {
    a.dag
        .nodes(&a.paths[k].edges)
        .iter()
        .map(|n| n.index())
        .collect()
}

const LOOP: &str = "def func(x: int, y: int) -> None:\n    '''\n    Preconditions:\n        - x > 5\n        - y > 10\n    '''\n    while x + y > 15:\n        x -= 1\n        y -= 1\n    print(x + y)\n";

#[test]
fn reassignment_keeps_ssa_versions_or_drops_as_pythonta() {
    let precise = run(LOOP, Mode::Precise);
    assert_eq!(nodes(&precise, 0), [0, 1, 2, 3, 1]);
    assert_eq!(
        constraints(&precise, 0),
        [
            "x > 5",
            "y > 10",
            "x + y > 15",
            "x_1 == x - 1",
            "y_1 == y - 1"
        ]
    );
    let w = precise.paths[0].witness.as_ref().unwrap();
    assert_eq!(
        w.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["x", "y"]
    );
    // PythonTA's rule: on the back edge, every constraint on x or y is gone.
    let pyta = run(LOOP, Mode::Pyta);
    let p = &pyta.paths[0];
    assert!(p.at_edge.last().unwrap().is_empty());
    assert_eq!(p.at_edge[1].len(), 3);
}

#[test]
fn loop_exits_are_found_after_iterations() {
    let a = run(LOOP, Mode::Precise);
    // The once-through path with the False edge is infeasible (x + y > 15 at first) ...
    assert_eq!(a.paths[1].feasible, Feasible::No);
    // ... but the loop ends after an iteration, so its exit edge and print are feasible.
    let exit = a
        .edges
        .iter()
        .find(|e| e.kind == crate::cfg::Edge::False)
        .unwrap();
    assert_eq!(exit.feasible, Feasible::Yes);
    // A loop never entered: its body cannot be reached, whatever later iterations do.
    let never = "def f(x: int, y: int):\n    '''Precondition: x > 10 and y > 10'''\n    while x + y < 15:\n        x -= 1\n    return x\n";
    let b = run(never, Mode::Precise);
    let body = b
        .edges
        .iter()
        .find(|e| e.kind == crate::cfg::Edge::True)
        .unwrap();
    assert_eq!(body.feasible, Feasible::No);
    assert_eq!(b.conditions[0].verdict, Verdict::Impossible);
}

#[test]
fn redundant_impossible_and_unreachable_conditions() {
    let src = "def f(x: int):\n    '''\n    Preconditions:\n        - x in {1, 2, 3}\n    '''\n    if x == 1:\n        print(1)\n    elif x == 2:\n        print(2)\n    elif x != 2:\n        print(2)\n    elif x == 3:\n        print(3)\n";
    let a = run(src, Mode::Precise);
    let verdicts: Vec<(u32, Verdict)> = a
        .conditions
        .iter()
        .map(|c| (c.line, c.verdict.clone()))
        .collect();
    assert_eq!(
        verdicts,
        [
            (6, Verdict::Neither),
            (8, Verdict::Neither),
            (10, Verdict::Redundant),
            (12, Verdict::Unreachable),
        ]
    );
    // The node only the infeasible edge reaches is infeasible too.
    let print3 = a
        .cfg
        .nodes()
        .find(|&n| a.cfg.node(n).label == "print(3)")
        .unwrap();
    assert_eq!(a.nodes[print3.index()], Feasible::No);
}

#[test]
fn preconditions_and_parameters_not_modelled_are_listed() {
    let src = "def f(x: int, d: dict, g: Widget):\n    '''\n    Preconditions:\n        - x > 5\n        - a > 5\n        - bad precondition\n    '''\n    return x\n";
    let a = run(src, Mode::Precise);
    assert_eq!(a.parameters.len(), 1);
    let skipped: Vec<&str> = a
        .unsupported_parameters
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(skipped, ["d", "g"]);
    assert_eq!(a.preconditions.len(), 1);
    let ignored: Vec<&str> = a
        .ignored_preconditions
        .iter()
        .map(|i| i.text.as_str())
        .collect();
    assert_eq!(ignored, ["a > 5", "bad precondition"]);
    assert!(a.ignored_preconditions[0].reason.contains("no known type"));
    assert!(a.ignored_preconditions[1].reason.starts_with("SyntaxError"));
}

#[test]
fn untranslated_conditions_make_paths_unknown() {
    let src = "def f(x: int, s: str):\n    if isinstance(x, int):\n        return s.upper()\n    return s\n";
    let a = run(src, Mode::Precise);
    for p in &a.paths {
        assert!(
            matches!(p.feasible, Feasible::Unknown(_)),
            "{:?}",
            p.feasible
        );
        assert!(p.witness.is_none());
        assert_eq!(p.dropped.len(), 1);
    }
    assert!(matches!(a.conditions[0].verdict, Verdict::Untranslated(_)));
    // PythonTA's rule ignores what it cannot parse.
    let b = run(src, Mode::Pyta);
    assert!(b.paths.iter().all(|p| p.feasible == Feasible::Yes));
}

#[test]
fn paths_are_listed_up_to_the_limit_and_counted_exactly() {
    let mut src = String::from("def f(x: int):\n");
    for i in 0..30 {
        src.push_str(&format!("    if x > {i}:\n        x = x + 1\n"));
    }
    let a = run_with(&src, Mode::Precise, 5);
    assert_eq!(a.paths.len(), 5);
    assert!(a.truncated);
    assert_eq!(a.path_count, num_bigint::BigUint::from(1u64 << 30));
    assert!(a.edges.iter().all(|e| e.feasible == Feasible::Yes));
}

#[test]
fn finally_is_left_the_way_it_was_entered() {
    let src = "def f(x: int) -> int:\n    try:\n        if x > 3:\n            return 1\n        x = x + 1\n    finally:\n        x = x - 1\n    return x\n";
    let a = run(src, Mode::Precise);
    let mut checked = 0;
    for p in &a.paths {
        // 3 is `return 1` (entering the finally to return), 7 the `return x` after it.
        let through_return = nodes(&a, p.id).contains(&3);
        let ends_after_finally = nodes(&a, p.id).contains(&7);
        if through_return && ends_after_finally {
            assert_eq!(p.feasible, Feasible::No, "path {}", p.id);
            checked += 1;
        }
    }
    assert_eq!(checked, 1);
    assert!(
        a.paths
            .iter()
            .filter(|p| p.feasible == Feasible::Yes)
            .count()
            >= 2
    );
}

#[test]
fn an_interrupt_stops_the_analysis() {
    let module = lower_module(LOOP).unwrap();
    let f = module.functions().next().unwrap();
    let cancel = Cancel::new();
    cancel.cancel();
    let options = Options {
        mode: Mode::Precise,
        path_limit: 64,
        timeout_ms: 5_000,
        given: Vec::new(),
    };
    assert_eq!(
        analyze(f, &options, &cancel).unwrap_err(),
        ConstraintsError::Stopped(crate::cancel::Stopped(crate::cancel::Stop::Interrupted))
    );
}

#[test]
fn without_translated_conditions_no_solver_is_taken() {
    let src =
        "def f(a: Widget, b: Widget):\n    if a:\n        return b\n    c = b\n    return c\n";
    let a = run(src, Mode::Precise);
    assert_eq!(a.stats.solver_uses, 0);
    assert_eq!(a.stats.edge_checks + a.stats.path_checks, 0);
    let depends = Feasible::Unknown(feasibility::DEPENDS.into());
    assert_eq!(a.edges[0].feasible, Feasible::Yes);
    assert!(a.edges[1..].iter().all(|e| e.feasible == depends));
    assert!(a.paths.iter().all(|p| p.feasible == depends));
}

#[test]
fn guard_free_edges_after_a_feasible_path_need_no_query() {
    // After the branch only definitions are translated: a query per branch edge settles
    // everything after it.
    let src = "def f(x: int, s) -> int:\n    if x > 0:\n        y = 1\n    else:\n        y = 2\n    z = y + 1\n    s.append(z)\n    print(z)\n    return z\n";
    let a = run(src, Mode::Precise);
    assert!(a.edges.iter().all(|e| e.feasible == Feasible::Yes));
    assert!(a.stats.edge_checks <= 2, "{:?}", a.stats);
    assert!(a.paths.iter().all(|p| p.feasible == Feasible::Yes));
}

#[test]
fn paths_through_refuted_edges_are_infeasible_without_a_query() {
    let src = "def f(x: int):\n    \"\"\"Precondition: x > 0\"\"\"\n    if x < 0:\n        print(1)\n    if x > 5:\n        print(2)\n";
    let a = run(src, Mode::Precise);
    let refuted: Vec<usize> = (0..a.edges.len())
        .filter(|&e| a.edges[e].feasible == Feasible::No)
        .collect();
    assert_eq!(
        refuted.len(),
        2,
        "the True edge and the edge out of print(1)"
    );
    let through = |p: &PathReport| p.edges.iter().any(|e| refuted.contains(e));
    assert_eq!(a.paths.iter().filter(|p| through(p)).count(), 2);
    for p in &a.paths {
        let expected = if through(p) {
            Feasible::No
        } else {
            Feasible::Yes
        };
        assert_eq!(p.feasible, expected, "path {}", p.id);
    }
    assert_eq!(a.stats.path_checks, 2);
}

#[test]
fn a_range_with_a_symbolic_step_is_modelled_as_in_set() {
    // The shared iteration model (`symbolic::iteration`): the first item exists when the
    // step's sign lets 0 move towards `n`; a zero step raises ValueError before the loop.
    let src = "def f(n: int, k: int):\n    t = 0\n    for i in range(0, n, k):\n        t = t + i\n    return t\n";
    let a = run(src, Mode::Precise);
    let body = a
        .edges
        .iter()
        .find(|e| e.kind == crate::cfg::Edge::True && !e.back)
        .unwrap();
    assert!(body.dropped.is_empty(), "{:?}", body.dropped);
    assert_eq!(body.feasible, Feasible::Yes);
    let shown: Vec<String> = body.adds.iter().map(|c| c.term.to_string()).collect();
    assert!(
        shown
            .iter()
            .any(|c| c.contains("k > 0") && c.contains("k < 0")),
        "{shown:?}"
    );
    let zero = "def f(n: int):\n    for i in range(0, n, 0):\n        n = n - 1\n    return n\n";
    let b = run(zero, Mode::Precise);
    let into = b
        .edges
        .iter()
        .find(|e| e.kind == crate::cfg::Edge::True)
        .unwrap();
    assert_eq!(
        into.feasible,
        Feasible::No,
        "range(0, n, 0) raises ValueError"
    );
}

#[test]
fn float_arithmetic_is_not_decided_over_the_reals() {
    // Python rounds `x / 3 * 3` (0.1 / 3 * 3 != 0.1) and `x + y` (1e20 + 1.0 == 1e20): over
    // the reals the first branch would be "impossible", the second path "infeasible".
    let src = "def f(x: float, y: float) -> int:\n    if x / 3 * 3 != x:\n        return 1\n    z = x + y\n    if z == x and y > 0:\n        return 2\n    if x > 2.5:\n        return 3\n    return 0\n";
    let a = run(src, Mode::Precise);
    assert!(matches!(a.conditions[0].verdict, Verdict::Untranslated(_)));
    for p in &a.paths {
        assert!(
            matches!(p.feasible, Feasible::Unknown(_)),
            "{:?}",
            p.feasible
        );
    }
    // Comparing a float as it is stays exact.
    let exact = run(
        "def g(x: float) -> int:\n    if x > 2.5:\n        return 3\n    return 0\n",
        Mode::Precise,
    );
    assert!(exact.paths.iter().all(|p| p.feasible == Feasible::Yes));
}

#[test]
fn parameters_nothing_types_take_the_default_guess_with_a_note_and_pyta_mode_leaves_them_out() {
    let src = "def clamp(x, low, high):\n    if x < low:\n        return low\n    if x > high:\n        return high\n    return x\n";
    let a = run(src, Mode::Precise);
    let sorts: Vec<String> = a
        .parameters
        .iter()
        .map(|(n, s)| format!("{n}: {s}"))
        .collect();
    assert_eq!(sorts, ["x: int", "low: int", "high: int"]);
    assert!(a.unsupported_parameters.is_empty());
    assert!(
        a.notes.iter().any(|n| n
            .starts_with("the verdicts hold for x: int, low: int, high: int, the default guess")),
        "{:?}",
        a.notes
    );
    assert!(a.edges.iter().all(|e| e.feasible == Feasible::Yes));
    let p = run(src, Mode::Pyta);
    assert!(p.parameters.is_empty());
    assert!(p.notes.is_empty());
}

/// The verdicts of the exception edges, as `source->target: verdict`.
fn exception_verdicts(a: &Analysis) -> Vec<String> {
    a.edges
        .iter()
        .filter(|e| e.kind.is_exception())
        .map(|e| {
            let verdict = match &e.feasible {
                Feasible::Yes => "yes",
                Feasible::No => "no",
                Feasible::Unknown(_) => "unknown",
            };
            format!("{}->{}: {verdict}", e.source.index(), e.target.index())
        })
        .collect()
}

#[test]
fn exception_edges_take_what_python_sends_there_and_stay_unknown_where_that_is_not_modelled() {
    // (function, the verdicts of its exception edges). The CFG names no exceptions for a
    // statement with a call; each exception the statement raises goes to the first handler
    // that catches it. Stores raise: unpacking another length, a list index out of range;
    // attribute stores, imports and `raise e` of an unknown class are not modelled.
    let cases: &[(&str, &[&str])] = &[
        (
            "def f(x: int):\n    try:\n        x.flag = True\n    except AttributeError:\n        return 0\n    return 1\n",
            &["2->3: unknown"],
        ),
        (
            "def f(xs: list[int], i: int):\n    try:\n        xs[i] = 0\n    except IndexError:\n        return 0\n    return 1\n",
            &["2->3: yes", "2->6: no"],
        ),
        (
            "def f(xs: list[int]):\n    try:\n        a, b = xs\n    except ValueError:\n        return 0\n    return 1\n",
            &["2->6: no", "2->3: yes"],
        ),
        (
            "def f(x: int):\n    try:\n        a, b = x, 1\n    except ValueError:\n        return 0\n    return a\n",
            &["2->6: no", "2->3: no"],
        ),
        (
            "def f(s: str):\n    try:\n        return int(s)\n    except ValueError:\n        return 0\n",
            &["2->3: yes", "2->5: no"],
        ),
        (
            "def f(xs: list[int]):\n    try:\n        return xs.index(3)\n    except ValueError:\n        return -1\n",
            &["2->3: unknown", "2->5: unknown"],
        ),
        (
            "def f(s: str):\n    try:\n        assert int(s) > 0\n    except AssertionError:\n        return 2\n    return 1\n",
            &["2->3: yes", "2->6: yes"],
        ),
        (
            "def f(e: int):\n    try:\n        raise e\n    except ValueError:\n        return 1\n    except KeyError:\n        return 3\n    return 2\n",
            &["2->3: unknown", "2->5: unknown", "2->8: unknown"],
        ),
        (
            "def f(s: str):\n    try:\n        import math\n    except ImportError:\n        return 1\n    return 2\n",
            &["2->3: unknown", "2->6: unknown"],
        ),
        (
            "def f(xs: list[int]):\n    try:\n        for a, b in xs:\n            pass\n    except TypeError:\n        return 1\n    return 2\n",
            &["2->4: unknown", "2->7: unknown"],
        ),
    ];
    let mut wrong = Vec::new();
    for (src, expected) in cases {
        let got = exception_verdicts(&run(src, Mode::Precise));
        if got != *expected {
            wrong.push(format!(
                "{src}\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
