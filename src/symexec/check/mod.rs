//! The book's correctness properties of a symbolic execution tree, tested on concrete runs:
//!
//! - exhaustive: every run lands in a leaf whose path condition it satisfies, with that
//!   leaf's outcome (a run beyond a bound lands in a `bound` leaf: a counterexample, as the
//!   book's bounded `while` is not exhaustive);
//! - precise: every leaf's witness, run concretely, has the leaf's outcome.
//!
//! Runs are deterministic random inputs plus every leaf's witness, executed in the kernel's
//! interpreter and in CPython (one `python3` child process per batch, running the user's code:
//! see [`Oracle`] for when it does not). CPython's result is what counts; where the interpreter
//! disagrees with CPython, that is reported apart.

mod concrete;
mod cpython;
mod predict;
mod random;
mod values;

use std::collections::BTreeMap;

pub use concrete::{
    Concrete, NORMAL_END, Runnable, SNIPPET_FUNCTION, interpret, snippet_variables,
};
use cpython::Job;
pub use cpython::{forbid as forbid_cpython, forbidden as cpython_forbidden};
pub use predict::{Prediction, Predictor, agrees};
pub use random::{Rng, SEED};
pub use values::{decode, encode, literal, py_str, same, same_key};

use super::packed::pack_all;
use super::{NodeId, Outcome, Tree};
use crate::cancel::Cancel;
use crate::interp::Limits;
use crate::python::PyValue;
use crate::symbolic::Env;

/// Why a check could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The program could not be loaded or called concretely.
    #[error("the concrete run failed: {0}")]
    Program(String),
    #[error("CPython: {0}")]
    Python(String),
    #[error("interrupted by the user")]
    Stopped(#[from] crate::cancel::Stopped),
}

/// How many runs, from which seed, with which bounds.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub runs: usize,
    pub seed: u64,
    /// Bounds of each interpreter run.
    pub limits: Limits,
    pub timeout_ms: u32,
    /// Run CPython too (off: the interpreter's results count).
    pub cpython: bool,
}

/// Which property a counterexample refutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    Exhaustive,
    Precise,
}

/// A run whose result the tree does not predict.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    pub property: Property,
    pub inputs: Vec<(String, PyValue)>,
    pub leaf: Option<NodeId>,
    pub expected: Prediction,
    pub observed: Concrete,
    pub reason: String,
}

/// A run where the kernel's interpreter and CPython differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub inputs: Vec<(String, PyValue)>,
    pub interpreter: Concrete,
    pub cpython: Concrete,
}

/// The verdicts with their evidence.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub function: String,
    /// Random runs (for exhaustiveness).
    pub runs: usize,
    /// Leaves whose witness was run (for precision).
    pub witnesses: usize,
    pub exhaustive: bool,
    pub precise: bool,
    pub counterexamples: Vec<Counterexample>,
    pub mismatches: Vec<Mismatch>,
    /// Whose results counted.
    pub oracle: Oracle,
    /// Random runs per leaf.
    pub hits: BTreeMap<NodeId, usize>,
    /// Runs the solver could not place in the tree.
    pub unresolved: usize,
    /// Runs that did not finish within their budget, not judged.
    pub unfinished: Vec<Unfinished>,
    /// The step budget of each random run in the interpreter.
    pub run_steps: u64,
    /// Random runs not judged because they land in (or may land in) an approximate leaf.
    pub approximate: usize,
    /// Random runs not judged because they break a precondition the tree assumes.
    pub outside_preconditions: usize,
}

/// A run that did not finish within its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Unfinished {
    pub inputs: Vec<(String, PyValue)>,
    /// "did not finish within N steps", "… within 2 s in CPython".
    pub why: String,
}

impl Unfinished {
    fn new(inputs: &[(String, PyValue)], seen: &Concrete) -> Unfinished {
        let why = match seen {
            Concrete::Unfinished(why) => why.clone(),
            _ => String::new(),
        };
        Unfinished {
            inputs: inputs.to_vec(),
            why,
        }
    }
}

/// A random run may use this many times the steps of the costliest witness…
const WITNESS_SCALE: u64 = 1_000;
/// …and never fewer than this many (the configured budget caps both).
const MIN_RUN_STEPS: u64 = 100_000;

/// The step budget of a random run: scaled from what the witnesses that finished cost.
fn random_run_steps(witness_runs: &[(Concrete, u64)], cap: u64) -> u64 {
    let costliest = witness_runs
        .iter()
        .filter(|(c, _)| !matches!(c, Concrete::Unfinished(_)))
        .map(|(_, steps)| *steps)
        .max()
        .unwrap_or(0);
    costliest
        .saturating_mul(WITNESS_SCALE)
        .max(MIN_RUN_STEPS)
        .min(cap)
}

/// Whose results judge the runs: CPython, or the kernel's interpreter and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oracle {
    CPython,
    /// `python3` is not on PATH.
    NotInstalled,
    /// `%config cpython_oracle=0`.
    TurnedOff,
    /// `ANALYSIS_KERNEL_NO_CPYTHON` was set when the kernel started.
    Forbidden,
}

impl Oracle {
    /// Why CPython did not run, for the view (`None` when it did).
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Oracle::CPython => None,
            Oracle::NotInstalled => Some("python3 not found"),
            Oracle::TurnedOff => Some("CPython turned off by %config cpython_oracle=0"),
            Oracle::Forbidden => {
                Some("CPython disabled for this kernel by ANALYSIS_KERNEL_NO_CPYTHON")
            }
        }
    }
}

impl Property {
    pub fn name(self) -> &'static str {
        match self {
            Property::Exhaustive => "exhaustive",
            Property::Precise => "precise",
        }
    }
}

/// Inputs in the tree's input order.
fn ordered(tree: &Tree, values: &[(String, PyValue)]) -> Option<Vec<(String, PyValue)>> {
    tree.inputs
        .iter()
        .map(|(n, _)| {
            values
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| (n.clone(), v.clone()))
        })
        .collect()
}

/// Checks `tree` against concrete runs of `runnable` (the same program); `env` declares the
/// tree's inputs.
pub fn check(
    tree: &Tree,
    env: &Env,
    runnable: &Runnable,
    options: &CheckOptions,
    cancel: &Cancel,
) -> Result<Report, CheckError> {
    // Keyword-only parameters come last among the arguments (`*args` and `**kwargs` pass
    // none): the runs pass them by keyword.
    let keywords: Vec<String> = tree
        .packed
        .iter()
        .filter(|p| p.keyword)
        .map(|p| p.name.clone())
        .collect();
    let arity = tree.parameters().len();
    let keyword_runnable = runnable.with_keywords(arity.saturating_sub(keywords.len()), &keywords);
    let runnable = &keyword_runnable;
    let mut rng = Rng::new(options.seed);
    let mut runs: Vec<Vec<(String, PyValue)>> = (0..options.runs)
        .map(|_| {
            let mut run: Vec<(String, PyValue)> = tree
                .inputs
                .iter()
                .map(|(n, s)| (n.clone(), rng.value(s)))
                .collect();
            for p in &tree.packed {
                p.normalize(&mut run);
            }
            run
        })
        .collect();
    let random = runs.len();
    let mut witnessed: Vec<NodeId> = Vec::new();
    for leaf in &tree.leaves {
        if matches!(leaf.outcome, Outcome::Bound(_) | Outcome::Unsat)
            || tree.is_approximate(leaf.node)
        {
            continue;
        }
        if let Some(w) = tree.witness(leaf).and_then(|w| ordered(tree, &w)) {
            runs.push(w);
            witnessed.push(leaf.node);
        }
    }
    // What a run passes: a packed parameter's inputs make its value.
    let shown = |r: &[(String, PyValue)]| pack_all(&tree.packed, r);
    let args: Vec<Vec<PyValue>> = runs
        .iter()
        .map(|r| shown(r).into_iter().map(|(_, v)| v).collect())
        .collect();
    // Witnesses first, within the configured budget; random runs within a budget scaled
    // from the costliest witness, so inputs that never end or explode stop early.
    let witness_runs = interpret(runnable, &args[random..], options.limits, cancel)?;
    let run_steps = random_run_steps(&witness_runs, options.limits.step_budget);
    let random_limits = Limits {
        step_budget: run_steps,
        ..options.limits
    };
    let mut interpreted = interpret(runnable, &args[..random], random_limits, cancel)?;
    interpreted.extend(witness_runs);
    // CPython runs what finished in the interpreter, with time in proportion to its steps;
    // the rest keeps the interpreter's result.
    let finished: Vec<usize> = (0..args.len())
        .filter(|&i| !matches!(interpreted[i].0, Concrete::Unfinished(_)))
        .collect();
    let jobs: Vec<Job> = finished
        .iter()
        .map(|&i| Job::scaled(args[i].clone(), interpreted[i].1))
        .collect();
    let interpreted: Vec<Concrete> = interpreted.into_iter().map(|(c, _)| c).collect();
    let (python, oracle) = if cpython::forbidden() {
        (None, Oracle::Forbidden)
    } else if !options.cpython {
        (None, Oracle::TurnedOff)
    } else {
        match cpython::run(runnable, &jobs, options.limits.recursion_limit, cancel)? {
            Some(results) => {
                let mut all = interpreted.clone();
                for (i, result) in finished.iter().zip(results) {
                    all[*i] = result;
                }
                (Some(all), Oracle::CPython)
            }
            None => (None, Oracle::NotInstalled),
        }
    };
    let mut report = Report {
        function: tree.function.clone(),
        runs: random,
        witnesses: witnessed.len(),
        exhaustive: true,
        precise: true,
        counterexamples: Vec::new(),
        mismatches: Vec::new(),
        oracle,
        hits: BTreeMap::new(),
        unresolved: 0,
        unfinished: Vec::new(),
        run_steps,
        approximate: 0,
        outside_preconditions: 0,
    };
    let observed: Vec<Concrete> = match &python {
        Some(py) => {
            for ((inputs, ours), theirs) in runs.iter().zip(&interpreted).zip(py) {
                if !concrete_same(ours, theirs) {
                    report.mismatches.push(Mismatch {
                        inputs: shown(inputs),
                        interpreter: ours.clone(),
                        cpython: theirs.clone(),
                    });
                }
            }
            py.clone()
        }
        None => interpreted,
    };
    let mut predictor = Predictor::new(tree, env, options.timeout_ms, cancel);
    for (inputs, seen) in runs.iter().zip(&observed).take(random) {
        if !tree.preconditions.is_empty()
            && predictor.satisfies(inputs, &tree.preconditions)? == Some(false)
        {
            report.outside_preconditions += 1;
            continue;
        }
        let (leaf, expected) = predictor.predict(inputs)?;
        // Only exact leaves are judged: a run that lands in an approximate leaf, or that no
        // single leaf places when some are approximate, says nothing about the tree.
        let approximate = match leaf {
            Some(l) => tree.is_approximate(l),
            None => !tree.approximate.is_empty(),
        };
        if approximate {
            report.approximate += 1;
            continue;
        }
        let reason = match &expected {
            Prediction::Unknown(_) => {
                report.unresolved += 1;
                continue;
            }
            // A run beyond a bound is a counterexample whether or not it ends; any other
            // unfinished run is reported, not judged.
            Prediction::Return(_) | Prediction::Raised { .. } | Prediction::Normal(_)
                if matches!(seen, Concrete::Unfinished(_)) =>
            {
                report
                    .unfinished
                    .push(Unfinished::new(&shown(inputs), seen));
                continue;
            }
            Prediction::NoLeaf if tree.truncated => {
                "the run goes where the node limit stopped the tree".to_string()
            }
            Prediction::NoLeaf => "no leaf's path condition holds for the run".to_string(),
            Prediction::Bound(why) => format!("the run goes beyond the bound ({why})"),
            p if agrees(p, seen) => {
                if let Some(l) = leaf {
                    *report.hits.entry(l).or_default() += 1;
                }
                continue;
            }
            _ => "its result differs from its leaf's outcome".to_string(),
        };
        if let Some(l) = leaf {
            *report.hits.entry(l).or_default() += 1;
        }
        report.exhaustive = false;
        report.counterexamples.push(Counterexample {
            property: Property::Exhaustive,
            inputs: shown(inputs),
            leaf,
            expected,
            observed: seen.clone(),
            reason,
        });
    }
    for ((inputs, seen), node) in runs.iter().zip(&observed).skip(random).zip(&witnessed) {
        let Some(leaf) = tree.leaf_of(*node) else {
            continue;
        };
        if matches!(seen, Concrete::Unfinished(_)) {
            report
                .unfinished
                .push(Unfinished::new(&shown(inputs), seen));
            continue;
        }
        let expected = predictor.at_leaf(leaf, inputs)?;
        if agrees(&expected, seen) {
            continue;
        }
        if let Prediction::Unknown(_) = expected {
            report.unresolved += 1;
            continue;
        }
        report.precise = false;
        report.counterexamples.push(Counterexample {
            property: Property::Precise,
            inputs: shown(inputs),
            leaf: Some(*node),
            expected,
            observed: seen.clone(),
            reason: "the witness does not reproduce its leaf's outcome".to_string(),
        });
    }
    Ok(report)
}

/// Whether two concrete results are the same.
fn concrete_same(a: &Concrete, b: &Concrete) -> bool {
    match (a, b) {
        (Concrete::Return(x), Concrete::Return(y)) => same(x, y),
        (Concrete::Normal(x), Concrete::Normal(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((n, v), (k, w))| n == k && same(v, w))
        }
        (Concrete::NoResult(_), Concrete::NoResult(_))
        | (Concrete::Unfinished(_), Concrete::Unfinished(_)) => true,
        _ => a == b,
    }
}
