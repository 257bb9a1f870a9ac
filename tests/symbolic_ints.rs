//! Integer operators in the one value model (issue 15): `& | ^` of bools and with a constant
//! operand, `>>`/`<<` by a constant count, `round()` of an int and `divmod()` of ints.
//! - each expression, evaluated by Z3 (solved, see the shared harness) at a grid of ints
//!   (negative ones, zero, past 64 bits) and bools, agrees with `python3`, exceptions
//!   included;
//! - what is not modelled (two non-constant ints under `&`, a non-constant shift count) is
//!   refused, never guessed; a negative constant shift count always raises;
//! - `%set` on functions using them builds exact trees, and `%check` finds them precise with
//!   every witness reaching its leaf in CPython.

use analysis_kernel::python::{PyValue, lower_expression, lower_module};
use analysis_kernel::symbolic::solver::Solver;
use analysis_kernel::symbolic::{Env, TranslateError, translate};

#[path = "common/everyday.rs"]
mod everyday;
mod symbolic {
    pub use analysis_kernel::symbolic::*;
}
mod python {
    pub use analysis_kernel::python::*;
}
#[path = "../src/symbolic/tests/harness.rs"]
mod harness;
#[path = "../src/symbolic/tests/oracle.rs"]
mod oracle;

fn env_of(params: &str) -> Env {
    let module = lower_module(&format!("def f({params}):\n    pass\n")).expect("parameters parse");
    Env::from_params(&module.function("f").expect("f").params).0
}

const EXPRESSIONS: &[&str] = &[
    "x & 1",
    "x & 7",
    "x & 0b11011000",
    "6 & x",
    "x & -8",
    "-3 & x",
    "x & 0",
    "x & -1",
    "x | 5",
    "x | -6",
    "x ^ 12",
    "x ^ -1",
    "(x | 0b1000) & ~1",
    "x & 1180591620717411303427",
    "x & (255 - 16)",
    "x >> 0",
    "x >> 3",
    "x >> 70",
    "x << 2",
    "x << 65",
    "(x & 15) == (x % 16)",
    "a & b",
    "a | b",
    "a ^ b",
    "a & x",
    "x ^ a",
    "a << 3",
    "round(x)",
    "round(a)",
    "divmod(x, y)",
    "divmod(x, y)[1] + 1",
    "divmod(a, y)",
];

fn ints() -> Vec<i128> {
    let mut v: Vec<i128> = (-20..=20).collect();
    v.extend([-257, -256, -255, -129, 100, 127, 128, 255, 256, 1000, -1000]);
    v.extend([1 << 70, (1 << 70) + 5, -(1 << 70) - 3, (1 << 64) - 1]);
    v
}

#[test]
fn bit_operators_round_and_divmod_agree_with_cpython() {
    let env = env_of("x: int, y: int, a: bool, b: bool");
    let mut solver = Solver::new(10_000);
    let xs = ints();
    let ys: [i128; 6] = [-7, -2, 0, 1, 3, 16];
    let mut cases = Vec::new();
    let mut ours = Vec::new();
    for source in EXPRESSIONS {
        let t = translate(&lower_expression(source).expect("parses"), &env)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        for (i, x) in xs.iter().enumerate() {
            let y = ys[i % ys.len()];
            let inputs = vec![
                ("x".to_string(), PyValue::Int((*x).into())),
                ("y".to_string(), PyValue::Int(y.into())),
                ("a".to_string(), PyValue::Bool(i % 2 == 0)),
                ("b".to_string(), PyValue::Bool(i % 3 == 0)),
            ];
            let outcome = harness::evaluate(&mut solver, &t, &env, &inputs)
                .unwrap_or_else(|e| panic!("{source} at x={x}, y={y}: {e}"));
            cases.push(oracle::Case {
                source: source.to_string(),
                inputs: inputs
                    .iter()
                    .map(|(n, v)| (n.clone(), harness::encode(v)))
                    .collect(),
            });
            ours.push((source, x, y, outcome));
        }
    }
    let python = oracle::evaluate(&cases).expect("the CPython oracle runs");
    let mismatches: Vec<String> = ours
        .iter()
        .zip(&python)
        .filter(|((.., outcome), expected)| !harness::agrees(outcome, expected).unwrap_or(false))
        .map(|((source, x, y, outcome), expected)| {
            format!("{source} at x={x}, y={y}: ours {outcome:?}, CPython {expected:?}")
        })
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(
        python
            .iter()
            .any(|o| matches!(o, oracle::Outcome::Raises(_))),
        "divmod by zero is among the cases"
    );
}

#[test]
fn unmodelled_bit_operations_are_refused() {
    let env = env_of("x: int, y: int, f: float");
    for source in ["x & y", "x | y", "x ^ y", "x << y", "x >> y", "round(f)"] {
        let e = translate(&lower_expression(source).unwrap(), &env);
        assert!(
            matches!(e, Err(TranslateError::Unsupported { .. })),
            "{source}: {e:?}"
        );
    }
    for source in ["f & 1", "x >> 1.0"] {
        let e = translate(&lower_expression(source).unwrap(), &env);
        assert!(
            matches!(e, Err(TranslateError::Type { .. })),
            "{source}: {e:?}"
        );
    }
    let e = translate(&lower_expression("x << -1").unwrap(), &env);
    assert!(
        matches!(&e, Err(TranslateError::AlwaysRaises { message, .. }) if message == "negative shift count"),
        "{e:?}"
    );
}

#[test]
fn trees_over_bit_operators_are_exact_and_precise() {
    let path = everyday::sibling_fixture("symbolic_ints").join("bits.py");
    let records = everyday::run_file_with(&path, true, true);
    println!("{}", everyday::report(&records));
    assert_eq!(records.len(), 8);
    for r in &records {
        let facts = everyday::assert_checked(r, true);
        assert_eq!(facts.approximate, 0, "{}: approximate leaves", r.function);
        assert!(facts.leaves >= 2, "{}: {} leaves", r.function, facts.leaves);
        let edges = r
            .constraints
            .as_ref()
            .expect("constraints ran")
            .edges
            .clone();
        let (all, decided) = edges.unwrap_or_else(|e| panic!("{}: {e}", r.function));
        assert_eq!(all, decided, "{}: an undecided edge", r.function);
    }
}
