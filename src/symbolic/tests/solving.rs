//! The solver's behaviour: witnesses as Python values, equivalence and implication, scopes,
//! timeouts and cancellation, SMT-LIB text.

use std::time::{Duration, Instant};

use super::{env_of, lower_expression};
use crate::cancel::Cancel;
use crate::python::PyValue;
use crate::symbolic::solver::{self, Check, Solver, SolverError};
use crate::symbolic::{Env, Term, translate_condition};

fn holds(src: &str, env: &Env) -> Term {
    translate_condition(&lower_expression(src).unwrap(), env)
        .unwrap()
        .holds()
        .unwrap()
}

fn witness(src: &str, env: &Env) -> Vec<(String, PyValue)> {
    let mut s = Solver::default();
    s.assert(&holds(src, env)).unwrap();
    match s.check() {
        Check::Sat(m) => m.inputs(env).unwrap(),
        other => panic!("{src}: {other:?}"),
    }
}

#[test]
fn witnesses_are_python_values() {
    let env = env_of("s: str");
    let w = witness(
        "len(s) == 3 and s[-1] == 'b' and s[0] == '\\\\' and 'é' in s",
        &env,
    );
    let PyValue::Str(s) = &w[0].1 else {
        panic!("{w:?}")
    };
    assert_eq!(
        (s.chars().count(), s.chars().last(), s.chars().next()),
        (3, Some('b'), Some('\\'))
    );
    assert!(s.contains('é'));

    let env = env_of("x: int, f: float, xs: list[int], t: tuple[int, str]");
    let w = witness(
        "x > 10 ** 20 and 3 * f == 1 and xs[::-1] == [3, x] and t[1] * 2 == 'abab' and t[0] == -x",
        &env,
    );
    let value = |name: &str| {
        w.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let PyValue::Int(x) = value("x") else {
        panic!()
    };
    assert!(x > num_bigint::BigInt::from(10u64.pow(19)) * 10);
    assert_eq!(value("f"), PyValue::Float(1.0 / 3.0));
    assert_eq!(
        value("xs"),
        PyValue::List(vec![PyValue::Int(x.clone()), PyValue::Int(3.into())])
    );
    assert_eq!(
        value("t"),
        PyValue::Tuple(vec![PyValue::Int(-x), PyValue::Str("ab".into())])
    );
}

/// Z3's model evaluation leaves `str.<` of two constants unreduced; the values read from a
/// model are those Python computes (`max('', 'cba')` was read as `''`).
#[test]
fn model_values_of_string_orderings_are_reduced() {
    let env = env_of("a: str, b: str");
    let mut s = Solver::default();
    s.assert(&holds("a == '' and b == 'cba'", &env)).unwrap();
    let Check::Sat(m) = s.check() else {
        panic!("sat expected")
    };
    let value = |src: &str| {
        let t = crate::symbolic::translate(&lower_expression(src).unwrap(), &env).unwrap();
        m.value(&t.value).unwrap()
    };
    let text = |t: &str| PyValue::Str(t.into());
    assert_eq!(value("max(a, b)"), text("cba"));
    assert_eq!(value("min(b, a)"), text(""));
    assert_eq!(
        value("sorted([b, a])"),
        PyValue::List(vec![text(""), text("cba")])
    );
    assert_eq!(value("a < b"), PyValue::Bool(true));
    assert_eq!(value("1 if a < b else 2"), PyValue::Int(1.into()));
}

#[test]
fn equivalence_and_implication() {
    let env = env_of("x: int, s: str");
    let t = |src: &str| holds(src, &env);
    assert!(solver::equivalent(&t("x // 2 > 1"), &t("x >= 4")).unwrap());
    assert!(solver::equivalent(&t("x % 2 == 1"), &t("x % 2 != 0")).unwrap());
    assert!(solver::equivalent(&t("0 < x < 10"), &t("x > 0 and x < 10")).unwrap());
    assert!(solver::equivalent(&t("s[-1] == 'b'"), &t("s.endswith('b')")).unwrap());
    assert!(solver::equivalent(&t("s[::-1] == 'abc'"), &t("s == 'cba'")).unwrap());
    assert!(!solver::equivalent(&t("x / 2 > 1"), &t("x // 2 > 1")).unwrap());
    let cex = Solver::default()
        .counterexample(&t("x / 2 > 1"), &t("x // 2 > 1"))
        .unwrap();
    assert_eq!(cex, Some(vec![("x".to_string(), PyValue::Int(3.into()))]));
    assert!(solver::implies(&t("x > 5"), &t("x % 7 != 0 or x >= 7")).unwrap());
    assert!(!solver::implies(&t("x > 5"), &t("x > 6")).unwrap());
}

#[test]
fn scopes_push_and_pop() {
    let env = env_of("x: int, s: str");
    let mut s = Solver::default();
    s.assert(&holds("x > 0", &env)).unwrap();
    s.push();
    s.assert(&holds("x < 0", &env)).unwrap();
    assert!(matches!(s.check(), Check::Unsat));
    s.pop().unwrap();
    assert!(matches!(s.check(), Check::Sat(_)));
    assert_eq!(s.pop(), Err(SolverError::NoScope));
    // An open slice asserted inside a scope is forgotten with it, and works again after.
    for _ in 0..2 {
        s.push();
        s.assert(&holds("s[::2] == 'ac'", &env)).unwrap();
        match s.check() {
            Check::Sat(m) => {
                let v = m.inputs(&env).unwrap();
                let PyValue::Str(w) = &v[0].1 else { panic!() };
                assert_eq!(w.chars().step_by(2).collect::<String>(), "ac");
            }
            other => panic!("{other:?}"),
        }
        s.pop().unwrap();
    }
    assert!(matches!(
        s.assert(&env.get("x").unwrap().clone()),
        Err(SolverError::NotCondition(_))
    ));
}

/// A query Z3 cannot settle quickly (4.8.12 nor 5.4): three cubes (no positive solution exists).
fn hard(env: &Env) -> Term {
    holds(
        "x ** 3 + y ** 3 == z ** 3 and x > 0 and y > 0 and z > 0",
        env,
    )
}

#[test]
fn timeouts_answer_unknown() {
    let env = env_of("x: int, y: int, z: int");
    let mut s = Solver::new(200);
    s.assert(&hard(&env)).unwrap();
    let start = Instant::now();
    let answer = s.check();
    assert!(
        matches!(answer, Check::Unknown(ref r) if r.to_string() == "timeout"),
        "{answer:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(matches!(
        Solver::new(200).is_satisfiable(&hard(&env)),
        Err(SolverError::Unknown(_))
    ));
}

#[test]
fn a_resource_limit_answers_unknown_by_units_not_time() {
    let env = env_of("x: int, y: int, z: int");
    // A minute of time but few units: the units run out first, and the answer says so.
    let mut s = Solver::new(60_000);
    s.set_rlimit(50_000);
    s.assert(&hard(&env)).unwrap();
    let answer = s.check();
    assert!(
        matches!(
            answer,
            Check::Unknown(crate::symbolic::Unknown::ResourceLimit(50_000))
        ),
        "{answer:?}"
    );
    // An easy query fits in the same units, on a fresh solver and on this one.
    let mut easy = Solver::new(60_000);
    easy.set_rlimit(50_000);
    easy.assert(&holds("x > 3 and y < x", &env)).unwrap();
    assert!(matches!(easy.check(), Check::Sat(_)));
    s.set_rlimit(0);
    s.push();
    s.assert(&holds("x < 0", &env)).unwrap();
    assert!(matches!(s.check(), Check::Unsat));
}

#[test]
fn a_spent_budget_stops_checks_until_it_is_lifted() {
    let env = env_of("x: int, y: int, z: int");
    let mut s = Solver::new(60_000);
    s.set_budget(Some(200));
    s.push();
    s.assert(&hard(&env)).unwrap();
    let stopped = "stopped: solver time budget spent (limit 200 ms)";
    let answer = s.check();
    assert!(
        matches!(answer, Check::Unknown(ref r) if r.to_string() == stopped),
        "{answer:?}"
    );
    s.pop().unwrap();
    s.assert(&holds("x > 0", &env)).unwrap();
    let answer = s.check();
    assert!(
        matches!(answer, Check::Unknown(ref r) if r.to_string() == stopped),
        "{answer:?}"
    );
    s.set_budget(None);
    assert!(matches!(s.check(), Check::Sat(_)));
}

#[test]
fn cancellation_interrupts_a_running_check() {
    let env = env_of("x: int, y: int, z: int");
    let cancel = Cancel::new();
    let mut s = Solver::new(60_000).with_cancel(cancel.clone());
    s.assert(&hard(&env)).unwrap();
    let start = Instant::now();
    let trigger = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        trigger.cancel();
    });
    let answer = s.check();
    stopper.join().unwrap();
    assert!(
        matches!(answer, Check::Unknown(crate::symbolic::Unknown::Stopped(_))),
        "{answer:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // Still cancelled: a new check does not start. Reset: checks run again.
    assert!(matches!(
        s.check(),
        Check::Unknown(crate::symbolic::Unknown::Stopped(_))
    ));
    cancel.reset();
    let mut easy = Solver::new(60_000).with_cancel(cancel);
    easy.assert(&holds("x > 0", &env)).unwrap();
    assert!(matches!(easy.check(), Check::Sat(_)));
}

#[test]
fn one_thread_watcher_serves_timeouts_cancellation_and_usage() {
    let env = env_of("x: int, y: int, z: int");
    solver::with_watcher(|| {
        let mut s = Solver::new(200);
        s.assert(&hard(&env)).unwrap();
        assert!(matches!(s.check(), Check::Unknown(ref r) if r.to_string() == "timeout"));
        let cancel = Cancel::new();
        let mut c = Solver::new(60_000).with_cancel(cancel.clone());
        c.assert(&hard(&env)).unwrap();
        let trigger = cancel.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            trigger.cancel();
        });
        let answer = c.check();
        stopper.join().unwrap();
        assert!(
            matches!(answer, Check::Unknown(crate::symbolic::Unknown::Stopped(_))),
            "{answer:?}"
        );
        // Nested batches share the thread's watcher; easy checks still answer.
        let mut easy = Solver::default();
        easy.watching(|easy| {
            easy.assert(&holds("x > 0", &env)).unwrap();
            assert_eq!(easy.check_sat(), solver::CheckSat::Sat);
            easy.push();
            easy.assert(&holds("x < 0", &env)).unwrap();
            assert_eq!(easy.check_sat(), solver::CheckSat::Unsat);
            easy.pop().unwrap();
        });
        let usage = easy.usage();
        assert_eq!(usage.checks, 2);
        assert_eq!(usage.fallbacks, 0);
    });
}

#[test]
fn smtlib_text_comes_from_the_lowering() {
    let env = env_of("x: int, s: str");
    let text = solver::smtlib(&holds("x % -3 == 1 and s[-1] == 'b'", &env)).unwrap();
    assert!(
        text.contains("mod") && text.contains("str.at") && text.contains("str.len"),
        "{text}"
    );
    let open = solver::smtlib(&holds("s[::-2] == 'ab'", &env)).unwrap();
    assert!(open.contains("py.slice.-2.String"), "{open}");
    let words = env_of("xs: list[int]");
    let tail = solver::smtlib(&holds("xs[1:] == [2]", &words)).unwrap();
    // The slice's three definitions, and the length abstraction's link for `xs`.
    assert!(
        tail.lines().filter(|l| l.starts_with("(assert")).count() == 4
            && tail.contains("(assert (= (seq.len xs) len!xs))"),
        "{tail}"
    );
    let script = solver::smtlib_script(&[holds("x > 0", &env)]).unwrap();
    assert!(
        script.contains("(declare-fun x () Int)") && script.contains("(assert"),
        "{script}"
    );
}

#[test]
fn smtlib_text_of_a_formula_too_large_written_out_is_refused() {
    // `y = y * y` forty times: forty shared nodes, 2^40 written out.
    use crate::symbolic::{ArithOp, CompareOp, Sort, Var};
    let y = Term::var(Var::input("y"), Sort::Int).unwrap();
    let mut t = y.clone();
    for _ in 0..40 {
        t = Term::arith(ArithOp::Mul, t.clone(), t.clone()).unwrap();
    }
    assert_eq!(t.written_size(1_000), 1_001);
    let square = Term::arith(ArithOp::Mul, y.clone(), y.clone()).unwrap();
    let small = Term::arith(ArithOp::Add, square, y).unwrap();
    assert_eq!(small.written_size(1_000), 5);
    let big = Term::compare(CompareOp::Gt, t, Term::int(0)).unwrap();
    match solver::smtlib(&big) {
        Err(SolverError::Unsupported(why)) => assert!(why.contains("not printed"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn smtlib_text_whose_lowering_is_too_large_written_out_is_refused() {
    // `x // y` nested sixty times: 121 nodes of ours, but the lowering names the dividend
    // in both of its cases (y > 0 and not), so Z3 would write out 2^60 copies of `x`.
    use crate::symbolic::{ArithOp, CompareOp, Sort, Var};
    let x = Term::var(Var::input("x"), Sort::Int).unwrap();
    let y = Term::var(Var::input("y"), Sort::Int).unwrap();
    let mut t = x.clone();
    for _ in 0..60 {
        t = Term::arith(ArithOp::FloorDiv, t, y.clone()).unwrap();
    }
    assert_eq!(t.written_size(1_000), 121);
    let big = Term::compare(CompareOp::Gt, t, Term::int(0)).unwrap();
    // (Before the lowered size was counted, this printed for ever.)
    match solver::smtlib(&big) {
        Err(SolverError::Unsupported(why)) => assert!(why.contains("not printed"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // Three levels still print.
    let mut small = x;
    for _ in 0..3 {
        small = Term::arith(ArithOp::FloorDiv, small, y.clone()).unwrap();
    }
    let text = solver::smtlib(&Term::compare(CompareOp::Gt, small, Term::int(0)).unwrap()).unwrap();
    assert!(text.contains("div"), "{text}");
}

#[test]
fn recycling_keeps_assertions_and_scopes() {
    // A solver starts over with a fresh Z3 solver every few hundred checks; what was asserted,
    // in which scope, must survive.
    let env = env_of("x: int, s: str");
    let mut s = Solver::default();
    s.assert(&holds("x > 3 and s[::-1] == 'ab'", &env)).unwrap();
    s.push();
    s.assert(&holds("x < 10", &env)).unwrap();
    for i in 0..450 {
        s.push();
        s.assert(&holds(&format!("x != {}", i % 7 + 4), &env))
            .unwrap();
        assert!(matches!(s.check(), Check::Sat(_)), "check {i}");
        s.pop().unwrap();
    }
    s.assert(&holds("x > 8", &env)).unwrap();
    match s.check() {
        Check::Sat(m) => assert_eq!(
            m.inputs(&env).unwrap(),
            [
                ("s".to_string(), PyValue::Str("ba".into())),
                ("x".to_string(), PyValue::Int(9.into()))
            ]
        ),
        other => panic!("{other:?}"),
    }
    s.pop().unwrap();
    s.assert(&holds("x < 4", &env)).unwrap();
    assert!(matches!(s.check(), Check::Unsat));
    assert_eq!(s.pop(), Err(SolverError::NoScope));
}

#[test]
fn assumptions_answer_as_a_scope_would_and_leave_nothing_asserted() {
    let env = env_of("x: int, s: str, b: bool");
    let mut s = Solver::default();
    s.assert(&holds("x > 3", &env)).unwrap();
    // A Boolean variable is assumed as it is; other conditions through a fresh Boolean.
    let b = s.assume(&holds("b", &env)).unwrap();
    let not_b = s.assume(&holds("not b", &env)).unwrap();
    let small = s.assume(&holds("x < 5 and s[-1] == 'z'", &env)).unwrap();
    let negative = s.assume(&holds("x % -3 == 1", &env)).unwrap();
    match s.check_assuming(&[b.clone(), small.clone()]) {
        Check::Sat(m) => assert_eq!(
            m.inputs(&env).unwrap()[..2],
            [
                ("b".to_string(), PyValue::Bool(true)),
                ("s".to_string(), PyValue::Str("z".into())),
            ]
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(s.check_assuming(&[b, not_b]), Check::Unsat));
    // Python's `%` takes the divisor's sign: x % -3 is 0, -1 or -2.
    assert_eq!(s.check_sat_assuming(&[negative]), solver::CheckSat::Unsat);
    // Nothing assumed stays: x == 7 satisfies the assertions alone.
    s.assert(&holds("x == 7", &env)).unwrap();
    assert!(matches!(s.check(), Check::Sat(_)));
    assert!(matches!(s.check_assuming(&[small]), Check::Unsat));
}

#[test]
fn an_assumption_ends_with_the_scope_that_defines_it() {
    let env = env_of("x: int");
    let mut s = Solver::default();
    s.push();
    let big = s.assume(&holds("x > 100", &env)).unwrap();
    assert!(matches!(s.check_assuming(&[big.clone()]), Check::Sat(_)));
    s.pop().unwrap();
    s.push();
    s.assert(&holds("x < 0", &env)).unwrap();
    // Its defining implication is gone: using it would answer "sat" wrongly.
    match s.check_assuming(&[big]) {
        Check::Unknown(reason) => assert!(reason.to_string().contains("outlived"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        s.assume(&env.get("x").unwrap().clone()),
        Err(SolverError::NotCondition(_))
    ));
}
