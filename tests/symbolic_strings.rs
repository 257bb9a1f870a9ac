//! String methods modelled exactly in the one value model (issue 15): `s.find(sub)`.
//! - string pairs over an alphabet with non-ASCII characters and a backslash, evaluated by
//!   Z3 (the lowering) and by the constant folder, agree with `python3`;
//! - `%set` on functions using it builds exact trees, and `%check` finds them precise with
//!   every witness reaching its leaf in CPython.

use analysis_kernel::python::{PyValue, lower_expression, lower_module};
use analysis_kernel::symbolic::simplify::simplify;
use analysis_kernel::symbolic::solver::Solver;
use analysis_kernel::symbolic::{Env, translate};

#[path = "common/everyday.rs"]
mod everyday;
#[path = "common/python3.rs"]
mod python3;
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

/// All strings over `alphabet` up to `max` characters.
fn words(alphabet: &[char], max: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..max {
        let next: Vec<String> = last
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        out.extend(next.iter().cloned());
        last = next;
    }
    out
}

#[test]
fn find_agrees_with_cpython() {
    let env = env_of("s: str, t: str");
    let expressions = ["s.find(t)", "t.find(s) + s.find('1')", "s.find(t) == -1"];
    let strings = words(&['a', '1', '\u{663}', '\u{b2}', '\\'], 3);
    let subs = words(&['a', '1', '\u{663}'], 2);
    let mut solver = Solver::new(10_000);
    let mut cases = Vec::new();
    let mut ours = Vec::new();
    for source in expressions {
        let expr = lower_expression(source).expect("parses");
        let t = translate(&expr, &env).expect("translates");
        for (i, s) in strings.iter().enumerate() {
            // Every string with the first few patterns, and a stride through the rest.
            for t_value in subs.iter().skip(i % 3).step_by(3) {
                let inputs = vec![
                    ("s".to_string(), PyValue::Str(s.clone())),
                    ("t".to_string(), PyValue::Str(t_value.clone())),
                ];
                let outcome = harness::evaluate(&mut solver, &t, &env, &inputs)
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
    assert!(ours.len() > 300, "{} cases", ours.len());
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn constant_folding_agrees_with_cpython() {
    let cases = [
        ("'a\u{663}1'.find('\u{663}1')", "1"),
        ("''.find('')", "0"),
        ("'abc'.find('')", "0"),
        ("'abc'.find('d')", "-1"),
        ("'\\\\x'.find('x')", "1"),
    ];
    let env = env_of("s: str");
    let script: String = cases
        .iter()
        .map(|(source, _)| format!("print({source})\n"))
        .collect();
    let python = python3::python3(&["-"], &script);
    for ((source, expected), line) in cases.iter().zip(python.lines()) {
        assert_eq!(&line, expected, "CPython on {source}");
        let t = translate(&lower_expression(source).expect("parses"), &env).expect("translates");
        assert_eq!(simplify(&t.value).to_string(), *expected, "folded {source}");
    }
}

#[test]
fn trees_over_find_are_exact_and_precise() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/everyday_strings/find.py");
    let records = everyday::run_file(&path, true);
    println!("{}", everyday::report(&records));
    assert_eq!(records.len(), 4);
    for r in &records {
        let facts = r
            .set
            .as_ref()
            .unwrap_or_else(|e| panic!("{}: {e:?}", r.function));
        assert_eq!(facts.approximate, 0, "{}: approximate leaves", r.function);
        assert!(facts.leaves >= 2, "{}: {} leaves", r.function, facts.leaves);
        let verdict = r
            .check
            .as_ref()
            .and_then(|c| c.verdict.as_ref().ok())
            .unwrap_or_else(|| panic!("{}: no %check verdict: {:?}", r.function, r.check));
        assert!(verdict.precise, "{}: not precise", r.function);
        assert_eq!(verdict.witness_misses, 0, "{}: witness misses", r.function);
        assert!(
            verdict.witnesses >= 2,
            "{}: {} witnesses",
            r.function,
            verdict.witnesses
        );
    }
}
