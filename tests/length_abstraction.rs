//! The solver's length abstraction (issue 15): `len(v)` of a str or list variable is an Int
//! constant linked to `v` only where `v` itself is used. Conditions on lengths alone that
//! Z3's string theory could not decide (`len(s) > 4294967295`) are decided; every witness is
//! replayed in CPython, and every verdict is checked against Z3 without the abstraction
//! (the condition with each `len(v)` written as a use of `v`'s content where that decides).

use analysis_kernel::python::{PyValue, lower_expression, lower_module};
use analysis_kernel::symbolic::solver::{self, Check, Solver};
use analysis_kernel::symbolic::{Env, Term, translate_condition};

#[path = "common/python3.rs"]
mod python3;

fn env_of(params: &str) -> Env {
    let module = lower_module(&format!("def f({params}):\n    pass\n")).expect("parameters parse");
    Env::from_params(&module.function("f").expect("f").params).0
}

fn condition(src: &str, env: &Env) -> Term {
    translate_condition(&lower_expression(src).expect("parses"), env)
        .expect("translates")
        .holds()
        .expect("a condition")
}

/// The check of `src` alone in a fresh solver (the default timeout).
fn check(src: &str, params: &str) -> (Check, Env) {
    let env = env_of(params);
    let mut s = Solver::default();
    s.assert(&condition(src, &env)).expect("asserts");
    (s.check(), env)
}

/// Whether `src` holds in CPython for `inputs`.
fn holds_in_cpython(src: &str, inputs: &[(String, PyValue)]) -> bool {
    let bindings: String = inputs
        .iter()
        .map(|(n, v)| format!("{n} = {}\n", v.repr()))
        .collect();
    let out = python3::python3(&["-"], &format!("{bindings}print(bool({src}))\n"));
    match out.trim() {
        "True" => true,
        "False" => false,
        other => panic!("python3 printed {other:?} for {src}"),
    }
}

/// `src` is satisfiable, with a witness that CPython replays.
fn witness_replays(src: &str, params: &str) -> Vec<(String, PyValue)> {
    let (answer, env) = check(src, params);
    let Check::Sat(model) = answer else {
        panic!("{src}: {answer:?}")
    };
    let inputs = model.inputs(&env).expect("the witness reads");
    assert!(holds_in_cpython(src, &inputs), "{src}: {inputs:?}");
    inputs
}

#[test]
fn huge_lengths_are_sat_and_their_witness_is_refused_as_too_large() {
    let (answer, env) = check("len(s) > 4294967295", "s: str");
    let Check::Sat(model) = answer else {
        panic!("{answer:?}")
    };
    let err = model.inputs(&env).expect_err("a 4 GB witness is not read");
    assert!(err.to_string().contains("too large"), "{err}");
    // The model's `len(s)` itself is read as the abstraction's value.
    let len = condition("len(s) > 4294967295", &env);
    assert_eq!(model.holds(&len), Err(err.clone()));
}

#[test]
fn moderate_lengths_give_witnesses_of_that_length() {
    let w = witness_replays("len(s) > 300", "s: str");
    let PyValue::Str(s) = &w[0].1 else {
        panic!("{w:?}")
    };
    assert!(s.chars().count() > 300);
    witness_replays(
        "len(s) > 300 and len(s) < 305 and len(t) == 2",
        "s: str, t: str",
    );
    witness_replays("len(xs) > 300", "xs: list[int]");
    witness_replays(
        "len(xs) == 5 and len(ys) > len(xs)",
        "xs: list[str], ys: list[float]",
    );
    witness_replays("len(xs) == 2", "xs: list[list[int]]");
}

#[test]
fn lengths_link_to_contents_used_in_the_same_condition() {
    let w = witness_replays("s[0] == 'a' and len(s) > 3", "s: str");
    let PyValue::Str(s) = &w[0].1 else {
        panic!("{w:?}")
    };
    assert!(s.starts_with('a') && s.chars().count() > 3, "{s:?}");
    witness_replays("len(s) == 4 and s.endswith('xy') and 'q' in s", "s: str");
    witness_replays("len(s) > 20 and s[-1] == 'z'", "s: str");
    witness_replays(
        "xs[0] == 7 and len(xs) == 3 and xs[-1] < 0",
        "xs: list[int]",
    );
    witness_replays("len(s + t) == 5 and len(s) == 2", "s: str, t: str");
    // A quantifier's body may carry the link (it does not mention the bound variable).
    witness_replays("len(s) == 4 and all(c == 'k' for c in s)", "s: str");
    witness_replays("len(xs) > 2 and any(x > 5 for x in xs)", "xs: list[int]");
}

#[test]
fn contradictory_lengths_are_unsat() {
    for (src, params) in [
        ("len(s) > 3 and len(s) < 2", "s: str"),
        ("len(s) > 3 and s == 'ab'", "s: str"),
        ("len(xs) > 3 and len(xs) < 2", "xs: list[int]"),
        (
            "len(xs) == 1 and xs[0] == 1 and xs[-1] == 2",
            "xs: list[int]",
        ),
        ("len(s) < 0", "s: str"),
    ] {
        let (answer, _) = check(src, params);
        assert!(matches!(answer, Check::Unsat), "{src}: {answer:?}");
    }
}

/// Every scope carries its own link: a condition that only uses `len(s)`, asserted after a
/// popped scope that used `s`'s content, still reads a witness of the right length.
#[test]
fn links_are_per_assertion_not_per_solver() {
    let env = env_of("s: str");
    let mut solver = Solver::default();
    solver.push();
    solver.assert(&condition("s[0] == 'q'", &env)).unwrap();
    assert!(matches!(solver.check(), Check::Sat(_)));
    solver.pop().unwrap();
    solver.push();
    solver.assert(&condition("len(s) == 6", &env)).unwrap();
    solver.assert(&condition("s[1] == 'r'", &env)).unwrap();
    let Check::Sat(model) = solver.check() else {
        panic!("sat")
    };
    let inputs = model.inputs(&env).unwrap();
    assert!(
        holds_in_cpython("len(s) == 6 and s[1] == 'r'", &inputs),
        "{inputs:?}"
    );
    solver.pop().unwrap();
    solver.assert(&condition("len(s) == 2", &env)).unwrap();
    solver
        .assert(&condition("len(s) > 2 or s == 'abc'", &env))
        .unwrap();
    assert!(matches!(solver.check(), Check::Unsat));
}

/// The SMT-LIB text shows the abstraction's constant and facts.
#[test]
fn smtlib_prints_the_abstraction() {
    let env = env_of("s: str");
    let text = solver::smtlib(&condition("len(s) > 3 and s[0] == 'a'", &env)).unwrap();
    assert!(text.contains("len!s"), "{text}");
    assert!(text.contains("(assert (>= len!s 0))"), "{text}");
    assert!(text.contains("(assert (= (str.len s) len!s))"), "{text}");
}
