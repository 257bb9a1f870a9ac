//! Trees of small programs: their text rendering (snapshots), and behaviour the book's
//! examples do not reach (exceptions, try/finally, calls, recursion, for loops), and the
//! exhaustiveness/precision check on programs that pass and on the book's one that fails.

use super::check::{
    CheckOptions, Concrete, Oracle, Prediction, Property, Runnable, SEED, check, snippet_variables,
};
use super::*;
use crate::cancel::Cancel;
use crate::interp::Limits;
use crate::python::lower_module;
use crate::render::set::{leaf_table_text, text};

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn options(unroll: u64) -> Options {
    Options {
        unroll,
        ..Options::default()
    }
}

fn snippet_program(src: &str, inputs: &str) -> Program {
    let module = lower_module(src).unwrap();
    let given = parse_specs(&words(inputs)).unwrap();
    Program::snippet(&module, [], &given).unwrap()
}

/// The tree of a snippet with `inputs` (`ARG:TYPE ...`).
fn snippet(src: &str, inputs: &str, unroll: u64) -> Tree {
    execute(
        &snippet_program(src, inputs),
        &options(unroll),
        &Cancel::new(),
    )
    .unwrap()
}

fn function_program(src: &str, name: &str) -> Program {
    let module = lower_module(src).unwrap();
    Program::function(name, module.functions(), &[]).unwrap()
}

/// The tree of function `name` defined in `src`.
fn function(src: &str, name: &str, unroll: u64) -> Tree {
    execute(
        &function_program(src, name),
        &options(unroll),
        &Cancel::new(),
    )
    .unwrap()
}

fn render(tree: &Tree) -> String {
    format!("{}\n{}", text(tree), leaf_table_text(tree))
}

fn outcomes(tree: &Tree) -> Vec<String> {
    tree.leaves
        .iter()
        .map(|l| {
            format!(
                "{} | {}",
                l.path_condition,
                crate::render::set::outcome(&l.outcome)
            )
        })
        .collect()
}

fn check_options(runs: usize) -> CheckOptions {
    CheckOptions {
        runs,
        seed: SEED,
        limits: Limits::new(1_000_000, 200),
        timeout_ms: 5_000,
        cpython: true,
    }
}

/// Checks function `name` of `src`.
fn check_function(src: &str, name: &str, unroll: u64, runs: usize) -> check::Report {
    let program = function_program(src, name);
    let tree = execute(&program, &options(unroll), &Cancel::new()).unwrap();
    let runnable = Runnable::function(&[src.to_string()], name);
    check(
        &tree,
        &program.input_env,
        &runnable,
        &check_options(runs),
        &Cancel::new(),
    )
    .unwrap()
}

/// Checks a snippet.
fn check_snippet(src: &str, inputs: &str, unroll: u64, runs: usize) -> check::Report {
    let program = snippet_program(src, inputs);
    let tree = execute(&program, &options(unroll), &Cancel::new()).unwrap();
    let names: Vec<String> = tree.inputs.iter().map(|(n, _)| n.clone()).collect();
    let mut captured = names.clone();
    captured.extend(snippet_variables(&lower_module(src).unwrap()));
    let runnable = Runnable::snippet(&[], src, &names, &captured);
    check(
        &tree,
        &program.input_env,
        &runnable,
        &check_options(runs),
        &Cancel::new(),
    )
    .unwrap()
}

const FIND_BODY: &str = "i = 0\nwhile i < len(haystack):\n    if haystack[i] == needle:\n        break\n    i = i + 1\nelse:\n    return -1\n\nreturn i\n";

#[test]
fn abs_double_tree_text() {
    expect_test::expect![[r#"
        symbolic execution tree of the cell (y: int), unroll 4: 5 nodes, 2 leaves (2 normal)
        [0] L1: x = 2 * y  |  {}  |  {y: y}
          [1] L2: if x < 0:  |  {}  |  {y: y, x: 2 * y}
            [2] L3: x = -x  |  {2 * y < 0}  |  {y: y, x: 2 * y}
              [3] ⇒ normal end  |  {2 * y < 0}  |  {y: y, x: -2 * y}
            [4] ⇒ normal end  |  {2 * y >= 0}  |  {y: y, x: 2 * y}

        leaf  path condition  outcome     final store        witness
        ----  --------------  ----------  -----------------  -------
        3     2 * y < 0       normal end  {y: y, x: -2 * y}  y=-1
        4     2 * y >= 0      normal end  {y: y, x: 2 * y}   y=0"#]]
    .assert_eq(&render(&snippet(
        "x = 2 * y\nif x < 0:\n    x = -x\n",
        "y:int",
        4,
    )));
}

#[test]
fn find_with_symbolic_haystack_cuts_one_path_at_unroll_2() {
    let tree = snippet(FIND_BODY, "needle:int haystack:tuple", 2);
    expect_test::expect![[r#"
        symbolic execution tree of the cell (needle: int, haystack: tuple[int, ...]), unroll 2: 21 nodes, 6 leaves (5 return, 1 bound)
        [0] L1: i = 0  |  {}  |  {needle: needle, haystack: haystack}
          [1] L2: while i < len(haystack):  |  {}  |  {needle: needle, haystack: haystack, i: 0}
            [2] L3: if haystack[i] == needle:  |  {0 < len(haystack)}  |  {needle: needle, haystack: haystack, i: 0}
              [3] L4: break  |  {0 < len(haystack), haystack[0] == needle}  |  {needle: needle, haystack: haystack, i: 0}
                [4] L9: return i  |  {0 < len(haystack), haystack[0] == needle}  |  {needle: needle, haystack: haystack, i: 0}
                  [5] ⇒ return 0  |  {0 < len(haystack), haystack[0] == needle}  |  {needle: needle, haystack: haystack, i: 0}
              [6] L5: i = i + 1  |  {0 < len(haystack), haystack[0] != needle}  |  {needle: needle, haystack: haystack, i: 0}
                [7] L2: while i < len(haystack):  |  {0 < len(haystack), haystack[0] != needle}  |  {needle: needle, haystack: haystack, i: 1}
                  [8] L3: if haystack[i] == needle:  |  {haystack[0] != needle, 1 < len(haystack)}  |  {needle: needle, haystack: haystack, i: 1}
                    [9] L4: break  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] == needle}  |  {needle: needle, haystack: haystack, i: 1}
                      [10] L9: return i  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] == needle}  |  {needle: needle, haystack: haystack, i: 1}
                        [11] ⇒ return 1  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] == needle}  |  {needle: needle, haystack: haystack, i: 1}
                    [12] L5: i = i + 1  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] != needle}  |  {needle: needle, haystack: haystack, i: 1}
                      [13] L2: while i < len(haystack):  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] != needle}  |  {needle: needle, haystack: haystack, i: 2}
                        [14] ⇒ bound reached: the loop at line 2 ran 2 times (unroll bound)  |  {haystack[0] != needle, haystack[1] != needle, 2 < len(haystack)}  |  {needle: needle, haystack: haystack, i: 2}
                        [15] L7: return -1  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] != needle, 2 >= len(haystack)}  |  {needle: needle, haystack: haystack, i: 2}
                          [16] ⇒ return -1  |  {haystack[0] != needle, 1 < len(haystack), haystack[1] != needle, 2 >= len(haystack)}  |  {needle: needle, haystack: haystack, i: 2}
                  [17] L7: return -1  |  {0 < len(haystack), haystack[0] != needle, 1 >= len(haystack)}  |  {needle: needle, haystack: haystack, i: 1}
                    [18] ⇒ return -1  |  {0 < len(haystack), haystack[0] != needle, 1 >= len(haystack)}  |  {needle: needle, haystack: haystack, i: 1}
            [19] L7: return -1  |  {0 >= len(haystack)}  |  {needle: needle, haystack: haystack, i: 0}
              [20] ⇒ return -1  |  {0 >= len(haystack)}  |  {needle: needle, haystack: haystack, i: 0}
        1 path was cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further.
    "#]]
    .assert_eq(&text(&tree));
    assert_eq!(tree.cut_paths(), 1);
}

#[test]
fn exceptions_are_leaves_with_cpython_messages() {
    let tree = function(
        "def f(a: int, b: int, t: tuple[int, ...]) -> int:\n    if a > 0:\n        return a // b\n    assert b != 1, 'b is one'\n    return t[a] % 2\n",
        "f",
        4,
    );
    expect_test::expect![[r#"
        [
            "a > 0 and b != 0 | return a // b",
            "a > 0 and b == 0 | ZeroDivisionError: integer division or modulo by zero",
            "a <= 0 and b != 1 and not (a >= len(t) or a < -len(t)) | return t[a] % 2",
            "a <= 0 and b != 1 and (a >= len(t) or a < -len(t)) | IndexError: tuple index out of range",
            "a <= 0 and b == 1 | AssertionError: b is one",
        ]
    "#]]
    .assert_debug_eq(&outcomes(&tree));
}

#[test]
fn try_except_finally_and_raise() {
    let src = "class Invalid(ValueError):\n    pass\n\nr = 0\ntry:\n    if x < 0:\n        raise Invalid('negative')\n    r = 10 // x\nexcept ValueError:\n    r = -1\nelse:\n    r = r + 1\nfinally:\n    done = True\n";
    let tree = snippet(src, "x:int", 4);
    expect_test::expect![[r#"
        [
            "x < 0 | normal end",
            "x >= 0 and x != 0 | normal end",
            "x == 0 | ZeroDivisionError: integer division or modulo by zero",
        ]
    "#]]
    .assert_debug_eq(&outcomes(&tree));
    let stores: Vec<String> = tree
        .leaves
        .iter()
        .map(|l| crate::render::set::store(&tree.nodes[l.node].store))
        .collect();
    expect_test::expect![[r#"
        [
            "{x: x, r: -1, done: True}",
            "{x: x, r: 10 // x + 1, done: True}",
            "{x: x, r: 0, done: True}",
        ]
    "#]]
    .assert_debug_eq(&stores);
}

#[test]
fn calls_are_inlined_and_recursion_is_bounded() {
    let src = "def sign(v: int) -> int:\n    if v < 0:\n        return -1\n    return 1\n\ndef twice_sign(v: int) -> int:\n    return 2 * sign(v)\n";
    let tree = function(src, "twice_sign", 4);
    expect_test::expect![[r#"
        symbolic execution tree of twice_sign(v: int), unroll 4: 8 nodes, 2 leaves (2 return)
        [0] L7: $1 = sign(v)  |  {}  |  {v: v}
          [1] in sign(): L2: if v < 0:  |  {}  |  {v: v}
            [2] in sign(): L3: return -1  |  {v < 0}  |  {v: v}
              [3] L7: return 2 * $1  |  {v < 0}  |  {v: v, $1: -1}
                [4] ⇒ return -2  |  {v < 0}  |  {v: v, $1: -1}
            [5] in sign(): L4: return 1  |  {v >= 0}  |  {v: v}
              [6] L7: return 2 * $1  |  {v >= 0}  |  {v: v, $1: 1}
                [7] ⇒ return 2  |  {v >= 0}  |  {v: v, $1: 1}
    "#]]
    .assert_eq(&text(&tree));
    let fact =
        "def fact(n: int) -> int:\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n";
    let program = function_program(fact, "fact");
    let tree = execute(
        &program,
        &Options {
            recursion_limit: 3,
            ..Options::default()
        },
        &Cancel::new(),
    )
    .unwrap();
    expect_test::expect![[r#"
        [
            "n <= 1 | return 1",
            "n > 1 and n - 1 <= 1 | return n",
            "n - 1 > 1 and n - 2 <= 1 | return n * (n - 1)",
            "n - 2 > 1 | bound reached: calling fact() at depth 3 (recursion_limit)",
        ]
    "#]]
    .assert_debug_eq(&outcomes(&tree));
}

#[test]
fn for_loops_over_ranges_and_sequences() {
    let tree = snippet(
        "total = 0\nfor i in range(n):\n    total = total + i\n",
        "n:int",
        3,
    );
    expect_test::expect![[r#"
        [
            "3 < n | bound reached: the loop at line 2 ran 3 times (unroll bound)",
            "2 < n and 3 >= n | normal end",
            "1 < n and 2 >= n | normal end",
            "0 < n and 1 >= n | normal end",
            "0 >= n | normal end",
        ]
    "#]]
    .assert_debug_eq(&outcomes(&tree));
    let tree = snippet(
        "count = 0\nfor c in s:\n    if c == 'a':\n        count += 1\n",
        "s:str",
        2,
    );
    assert_eq!(tree.cut_paths(), 4, "{}", text(&tree));
    // len 0: 1 leaf; len 1: 2; len 2: 4; longer: 4 cut at the bound.
    assert_eq!(tree.leaves.len(), 11, "{}", text(&tree));
}

#[test]
fn unsat_branches_are_kept_on_request() {
    let src = "if x > 0:\n    if x < 0:\n        y = 1\n";
    let pruned = snippet(src, "x:int", 4);
    assert!(pruned.leaves.iter().all(|l| l.outcome != Outcome::Unsat));
    assert_eq!(pruned.stats.pruned, 1);
    let program = snippet_program(src, "x:int");
    let kept = execute(
        &program,
        &Options {
            keep_unsat: true,
            ..Options::default()
        },
        &Cancel::new(),
    )
    .unwrap();
    let unsat: Vec<String> = kept
        .leaves
        .iter()
        .filter(|l| l.outcome == Outcome::Unsat)
        .map(|l| l.path_condition.to_string())
        .collect();
    assert_eq!(unsat, ["x > 0 and x < 0"]);
    assert!(
        kept.leaves
            .iter()
            .all(|l| l.outcome != Outcome::Unsat || l.witness.is_none())
    );
}

#[test]
fn node_limit_truncates() {
    let program = snippet_program("while x > 0:\n    x = x - 1\n", "x:int");
    let tree = execute(
        &program,
        &Options {
            unroll: 100,
            node_limit: 10,
            ..Options::default()
        },
        &Cancel::new(),
    )
    .unwrap();
    assert!(tree.truncated);
    assert_eq!(tree.nodes.len(), 10);
    assert!(tree.unexplored > 0);
    assert!(text(&tree).contains("cut at 10 nodes"));
}

#[test]
fn unmodelled_constructs_become_havoc_with_their_line() {
    // What is not modelled no longer refuses the program: it is a havoc with a note on the
    // next node, and the leaves below are approximate.
    let tree = snippet("x = 1\nwith open('f') as h:\n    pass\n", "y:int", 4);
    assert_eq!(tree.havoc, [(2, vec!["havoc: with, line 2".to_string()])]);
    assert_eq!(tree.approximate, [3]);
    let tree = snippet("z = y.bit_length()\nif z > 2:\n    y = 0\n", "y:int", 4);
    let notes: Vec<&String> = tree.havoc.iter().flat_map(|(_, n)| n).collect();
    assert!(notes.iter().any(|n| n.ends_with(", line 1")), "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("using z") && n.ends_with(", line 2")),
        "{notes:?}"
    );
    assert_eq!(tree.leaves.len(), 2);
    assert!(tree.leaves.iter().all(|l| tree.is_approximate(l.node)));
    let tree = snippet("z = w + 1\n", "y:int", 4);
    assert_eq!(
        outcomes(&tree),
        ["True | NameError: name 'w' is not defined"]
    );
    assert!(tree.approximate.is_empty());
    let tree = snippet("z = y + 'a'\n", "y:int", 4);
    assert_eq!(
        outcomes(&tree),
        ["True | TypeError: unsupported operand type(s) for +: 'int' and 'str'"]
    );
    assert!(tree.approximate.is_empty());
}

#[test]
fn check_passes_on_programs_with_exceptions_loops_and_calls() {
    let cases = [
        (
            "def f(a: int, b: int) -> int:\n    if a > 0:\n        return a // b\n    return a % b\n",
            "f",
            4,
        ),
        (
            "def g(t: tuple[int, ...], i: int) -> int:\n    x = t[i]\n    assert x != 3, 'three'\n    return x * 2\n",
            "g",
            4,
        ),
        (
            "def total(t: tuple[int, ...]) -> int:\n    s = 0\n    for x in t:\n        s = s + x\n    return s\n",
            "total",
            8,
        ),
        (
            "def upto(n: int) -> int:\n    s = 0\n    for i in range(min(n, 5)):\n        s += i * i\n    return s\n",
            "upto",
            6,
        ),
        (
            "def div_all(t: list[int], d: int) -> int:\n    r = 0\n    i = 0\n    while i < len(t):\n        r = r + t[i] // d\n        i += 1\n    return r\n",
            "div_all",
            7,
        ),
        (
            "def sign(v: int) -> int:\n    if v < 0:\n        return -1\n    return 1\n\ndef h(a: int, b: int) -> int:\n    try:\n        return sign(a) * (b // a)\n    except ZeroDivisionError:\n        return 0\n",
            "h",
            4,
        ),
        (
            "def skip_odd(t: tuple[int, int, int]) -> int:\n    s = 0\n    for x in t:\n        if x % 2 == 1:\n            continue\n        try:\n            s = s + 10 // x\n        except ZeroDivisionError:\n            s = s - 1\n            break\n        finally:\n            s = s + 1\n    else:\n        s = s * 2\n    return s\n",
            "skip_odd",
            4,
        ),
        (
            "def dec(n: int) -> int:\n    return n - 1\n\ndef pos(n: int) -> bool:\n    return n > 0\n\ndef down(n: int) -> int:\n    c = 0\n    while dec(n) > 0 and c < 3:\n        n = dec(n)\n        c += 1\n    else:\n        c = c + 100\n    ok = n > 5 and pos(n - 7)\n    return c if ok else -c\n",
            "down",
            4,
        ),
        (
            "def first_positive(xs: List[int]) -> int:\n    if len(xs) > 1 and xs[1] > 0:\n        return xs[1] // len(xs)\n    return 0\n",
            "first_positive",
            3,
        ),
    ];
    for (src, name, unroll) in cases {
        let r = check_function(src, name, unroll, 60);
        assert_eq!(r.oracle, Oracle::CPython, "python3 is the oracle");
        assert!(
            r.exhaustive && r.precise,
            "{name}: {:#?}",
            r.counterexamples
        );
        assert!(r.mismatches.is_empty(), "{name}: {:#?}", r.mismatches);
        assert!(r.witnesses > 1);
    }
    let book_if = "\nif a >= t[a] and g:\n    x = a // c\nelse:\n    x = c // b\n";
    let r = check_snippet(book_if, "a:int b:int c:int g:bool t:tuple", 4, 100);
    assert!(r.exhaustive && r.precise, "{:#?}", r.counterexamples);
}

#[test]
fn check_finds_the_books_non_exhaustive_while() {
    let r = check_snippet(
        "\nwhile idx >= x:\n    idx = idx - 1\n",
        "x:int idx:int",
        2,
        100,
    );
    assert!(!r.exhaustive);
    assert!(r.precise, "{:#?}", r.counterexamples);
    let c = &r.counterexamples[0];
    assert_eq!(c.property, Property::Exhaustive);
    assert!(matches!(c.expected, check::Prediction::Bound(_)), "{c:?}");
    let value = |n: &str| {
        c.inputs
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
    };
    let (Some(crate::python::PyValue::Int(x)), Some(crate::python::PyValue::Int(idx))) =
        (value("x"), value("idx"))
    else {
        panic!("{c:?}")
    };
    assert!(
        idx - x >= num_bigint::BigInt::from(2),
        "the loop runs more than twice"
    );
}

/// Random runs that never end stop at a budget scaled from the witnesses and are never
/// sent to CPython: collatz's `n <= 0` loops forever, and its tree sends those inputs to a
/// bound leaf, so they are counterexamples to exhaustiveness whose run did not finish.
#[test]
fn check_stops_endless_runs_at_a_budget_scaled_from_the_witnesses() {
    let src = "def collatz(n: int) -> int:\n    steps = 0\n    while n != 1:\n        n = n // 2 if n % 2 == 0 else 3 * n + 1\n        steps += 1\n    return steps\n";
    let r = check_function(src, "collatz", 4, 40);
    assert!(
        r.run_steps >= 100_000 && r.run_steps < 1_000_000,
        "{}",
        r.run_steps
    );
    let endless: Vec<&check::Counterexample> = r
        .counterexamples
        .iter()
        .filter(|c| matches!(&c.inputs[0].1, crate::python::PyValue::Int(n) if *n <= 0.into()))
        .collect();
    assert!(!endless.is_empty());
    for c in endless {
        assert_eq!(
            c.observed,
            Concrete::Unfinished(format!("did not finish within {} steps", r.run_steps))
        );
        assert!(matches!(c.expected, Prediction::Bound(_)), "{c:?}");
    }
    assert!(r.mismatches.is_empty(), "{:#?}", r.mismatches);
    assert!(r.precise);
}

#[test]
fn recursion_stops_at_the_depth_bound() {
    // Unannotated, as students write it: `n` is inferred an int from `n <= 1`, and the
    // recursion is cut at depth 2 with a bound leaf instead of running into the node limit.
    let fact = "def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n";
    let program = function_program(fact, "fact");
    assert_eq!(
        program.inferred,
        ["n: int inferred from `n <= 1` (give n:TYPE to override)"]
    );
    let tree = execute(
        &program,
        &Options {
            depth: 2,
            ..Options::default()
        },
        &Cancel::new(),
    )
    .unwrap();
    assert!(!tree.truncated);
    expect_test::expect![[r#"
        [
            "n <= 1 | return 1",
            "n > 1 and n - 1 <= 1 | return n",
            "n - 1 > 1 and n - 2 <= 1 | return n * (n - 1)",
            "n - 2 > 1 | bound reached: calling fact() at recursion depth 2 (--depth)",
        ]
    "#]]
    .assert_debug_eq(&outcomes(&tree));
    let tree = execute(&program, &Options::default(), &Cancel::new()).unwrap();
    assert!(!tree.truncated);
    assert_eq!(tree.cut_paths(), 1);
}

#[test]
fn havoc_paths_are_approximate_and_exact_ones_stay_exact() {
    let src = "def f(xs: list[int], k: int) -> int:\n    if k < 0:\n        return -1\n    ys = sorted(xs, key=abs)\n    if len(ys) > k:\n        return ys[k]\n    return 0\n";
    let tree = function(src, "f", 4);
    expect_test::expect![[r#"
        symbolic execution tree of f(xs: list[int], k: int), unroll 4: 9 nodes, 3 leaves (3 return)
        [0] L2: if k < 0:  |  {}  |  {xs: xs, k: k}
          [1] L3: return -1  |  {k < 0}  |  {xs: xs, k: k}
            [2] ⇒ return -1  |  {k < 0}  |  {xs: xs, k: k}
          [3] L4: ys = sorted(xs, key=abs)  |  {k >= 0}  |  {xs: xs, k: k}
            [4] L5: if len(ys) > k:  |  {k >= 0}  |  {xs: xs, k: k, ys: ?}
              [5] L6: return ys[k]  |  {k >= 0, $havoc_1}  |  {xs: xs, k: k, ys: ?}
                [6] ⇒ ≈ return ?  |  {k >= 0, $havoc_1}  |  {xs: xs, k: k, ys: ?}
              [7] L7: return 0  |  {k >= 0, not $havoc_1}  |  {xs: xs, k: k, ys: ?}
                [8] ⇒ ≈ return 0  |  {k >= 0, not $havoc_1}  |  {xs: xs, k: k, ys: ?}
        2 leaves are approximate (marked ≈): their paths go through what is not modelled (havoc: keyword arguments, line 4; havoc: using ys, which holds an unmodelled value, line 5; havoc: using ys, which holds an unmodelled value, line 6); their path conditions, outcomes and witnesses are not exact, and %check does not judge them.
    "#]]
    .assert_eq(&text(&tree));
}

#[test]
fn docstring_preconditions_are_assumed() {
    let src = "def f(x: int, y: int) -> int:\n    \"\"\"Preconditions:\n        - y != 0\n        - x >= 0\n    \"\"\"\n    if x > 5:\n        return x // y\n    return 0\n";
    let program = function_program(src, "f");
    let texts: Vec<&str> = program
        .preconditions
        .iter()
        .map(|(t, _)| t.as_str())
        .collect();
    assert_eq!(texts, ["y != 0", "x >= 0"]);
    let tree = execute(&program, &Options::default(), &Cancel::new()).unwrap();
    // No ZeroDivisionError leaf: y != 0 is assumed; and no path with x < 0.
    expect_test::expect![[r#"
        [
            "y != 0 and x > 5 | return x // y",
            "y != 0 and x >= 0 and x <= 5 | return 0",
        ]
    "#]]
    .assert_debug_eq(&outcomes(&tree));
    let without = Program {
        preconditions: Vec::new(),
        ..function_program(src, "f")
    };
    let tree = execute(&without, &Options::default(), &Cancel::new()).unwrap();
    assert!(
        outcomes(&tree)
            .iter()
            .any(|o| o.contains("ZeroDivisionError")),
        "{:?}",
        outcomes(&tree)
    );
}

/// Three branches on a query Z3 cannot settle (three positive cubes).
const CUBES: &str = "
def cubes(x: int, y: int, z: int) -> int:
    if x > 0 and y > 0 and z > 0 and x ** 3 + y ** 3 == z ** 3:
        return 1
    if x > 1 and y > 1 and z > 1 and x ** 3 + y ** 3 == z ** 3:
        return 2
    if x > 2 and y > 2 and z > 2 and x ** 3 + y ** 3 == z ** 3:
        return 3
    return 0
";

#[test]
fn a_resource_limit_stops_the_exploration_after_its_exhausted_checks() {
    let limited = Options {
        timeout_ms: 60_000,
        resource_limit: Some(ResourceLimit {
            per_check: 20_000,
            exhausted_checks: 2,
        }),
        ..Options::default()
    };
    let run = || execute(&function_program(CUBES, "cubes"), &limited, &Cancel::new()).unwrap();
    let tree = run();
    assert_eq!(tree.stats.exhausted, 2, "{:?}", tree.stats);
    assert!(tree.stats.past_budget > 0, "{:?}", tree.stats);
    assert!(tree.nodes.iter().any(|n| n.undecided));
    // Units, not time: the same tree every time.
    assert_eq!(render(&tree), render(&run()));
}

#[test]
fn branches_on_float_arithmetic_are_approximate_and_float_comparisons_exact() {
    // Python rounds `x + y` (1e20 + 1.0 == 1e20), the reals do not: the tree has one leaf,
    // so it must not be claimed exact.
    let src = "def f(x: float, y: float) -> int:\n    if x < 0.5:\n        return -1\n    if x + y == x and y > 0:\n        return 1\n    return 0\n";
    let tree = function(src, "f", 4);
    expect_test::expect![[r#"
        symbolic execution tree of f(x: float, y: float), unroll 4: 6 nodes, 2 leaves (2 return)
        [0] L2: if x < 0.5:  |  {}  |  {x: x, y: y}
          [1] L3: return -1  |  {x < 0.5}  |  {x: x, y: y}
            [2] ⇒ return -1  |  {x < 0.5}  |  {x: x, y: y}
          [3] L4: if x + y == x and y > 0:  |  {x >= 0.5}  |  {x: x, y: y}
            [4] L6: return 0  |  {x >= 0.5}  |  {x: x, y: y}
              [5] ⇒ ≈ return 0  |  {x >= 0.5}  |  {x: x, y: y}
        1 leaf is approximate (marked ≈): their paths go through what is not modelled (havoc: float arithmetic `x + y` (floats are modelled as exact reals, without rounding)); their path conditions, outcomes and witnesses are not exact, and %check does not judge them.
    "#]]
    .assert_eq(&text(&tree));
}
