//! Differential checks of translated expressions against CPython, shared by the tests that
//! include it (they name the harness and the oracle `crate::harness`, `crate::oracle`).

use analysis_kernel::python::{PyValue, lower_expression, lower_module};
use analysis_kernel::symbolic::solver::Solver;
use analysis_kernel::symbolic::{Env, translate};

use crate::{harness, oracle};

/// The `Env` of a function with the parameters `params` (`"s: str, n: int"`).
pub fn env_of(params: &str) -> Env {
    let module = lower_module(&format!("def f({params}):\n    pass\n")).expect("parameters parse");
    Env::from_params(&module.function("f").expect("f").params).0
}

/// Each of `expressions` over the parameters `params` at each of `inputs`, solved and
/// evaluated by Z3, agrees with CPython (the value, or the exception raised). The number of
/// cases.
pub fn agree_on(params: &str, expressions: &[&str], inputs: &[Vec<(String, PyValue)>]) -> usize {
    let env = env_of(params);
    let mut solver = Solver::new(10_000);
    let mut cases = Vec::new();
    let mut ours = Vec::new();
    for source in expressions {
        let expr = lower_expression(source).expect("parses");
        let t = translate(&expr, &env).unwrap_or_else(|e| panic!("{source}: {e}"));
        for inputs in inputs {
            let outcome = harness::evaluate(&mut solver, &t, &env, inputs)
                .unwrap_or_else(|e| panic!("{source} at {inputs:?}: {e}"));
            cases.push(oracle::Case {
                source: source.to_string(),
                inputs: inputs
                    .iter()
                    .map(|(n, v)| (n.clone(), harness::encode(v)))
                    .collect(),
            });
            ours.push((source, inputs, outcome));
        }
    }
    let python = oracle::evaluate(&cases).expect("the CPython oracle runs");
    let mut mismatches = Vec::new();
    for ((source, inputs, outcome), expected) in ours.iter().zip(&python) {
        if !harness::agrees(outcome, expected).unwrap_or(false) {
            mismatches.push(format!(
                "{source} at {inputs:?}: ours {outcome:?}, CPython {expected:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    ours.len()
}
