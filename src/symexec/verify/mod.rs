//! `%verify` and `%equiv`: contracts proved or refuted on every leaf of a symbolic
//! execution tree, and bounded equivalence of two functions.
//!
//! Both execute a generated harness ([`contract`]) with the `%set` machinery: the harness
//! calls the function(s) and `assert`s each obligation, so a failing branch the solver
//! proves infeasible is a proof on that path, a feasible one is a counterexample
//! ([`judge`]), replayed before it is shown ([`replay`]). The verdict says exactly what was
//! shown: proved with no bound reached, proved up to the bound (the number of bound
//! leaves), refuted (the input, the clause, the replayed run), or unknown (approximate or
//! undecided paths, a truncated tree, a replay that disagreed).

pub mod contract;
pub mod invariant;
pub mod judge;
pub mod mutation;
pub mod replay;
pub mod summary;

use crate::cancel::Cancel;
use crate::python::PyValue;
use crate::python::ir::Function;
use crate::python::lower_module;
use crate::symbolic::Sort;
use crate::symexec::{Options, Program, SymexecError, Tree, execute};
use contract::{Form, Harness, Obligation};
use judge::{Check, LeafStatus, Row};
use replay::{Replayer, Run};

/// What both commands are given: the session's functions and their sources, the types
/// given on the command line, the bounds and where to replay.
pub struct Setup<'a> {
    pub functions: Vec<&'a Function>,
    /// Sources of the session's top-level functions (for the replay).
    pub definitions: Vec<String>,
    pub given: Vec<(String, Sort)>,
    pub options: Options,
    pub replayer: Replayer,
    /// `--summaries`: calls of other functions with contracts run by their contracts.
    pub summaries: bool,
}

impl Setup<'_> {
    fn clone_shallow(&self) -> Self {
        Setup {
            functions: self.functions.clone(),
            definitions: self.definitions.clone(),
            given: self.given.clone(),
            options: self.options.clone(),
            replayer: self.replayer.clone(),
            summaries: self.summaries,
        }
    }
}

/// What was shown.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every obligation proved on every path; no bound reached.
    Proved,
    /// Proved on every path not cut by a bound.
    UpToBound {
        bound_leaves: usize,
    },
    /// The row whose replayed input fails an obligation.
    Refuted {
        row: usize,
    },
    Unknown {
        reasons: Vec<String>,
    },
}

/// `verify` or `equiv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Verify,
    Equiv,
}

/// A verdict and everything it rests on.
#[derive(Clone, Debug)]
pub struct Report {
    pub kind: Kind,
    /// `[f]` or `[f, g]`.
    pub functions: Vec<String>,
    pub parameters: Vec<String>,
    pub harness: Harness,
    pub obligations: Vec<Obligation>,
    pub tree: Tree,
    pub rows: Vec<Row>,
    pub verdict: Verdict,
    /// Preconditions assumed (text).
    pub preconditions: Vec<String>,
    pub notes: Vec<String>,
    pub replayer: Replayer,
    /// `--returns-only` (equiv).
    pub returns_only: bool,
    /// The recursion bound (`--depth`).
    pub depth: u64,
}

impl Report {
    /// The verdict's name: `verified`, `verified up to bound`, `refuted`, `unknown`
    /// (`equivalent`, `equivalent up to bound`, `different`, `unknown` for `%equiv`).
    pub fn verdict_name(&self) -> &'static str {
        match (&self.verdict, self.kind) {
            (Verdict::Proved, Kind::Verify) => "verified",
            (Verdict::UpToBound { .. }, Kind::Verify) => "verified up to bound",
            (Verdict::Refuted { .. }, Kind::Verify) => "refuted",
            (Verdict::Proved, Kind::Equiv) => "equivalent",
            (Verdict::UpToBound { .. }, Kind::Equiv) => "equivalent up to bound",
            (Verdict::Refuted { .. }, Kind::Equiv) => "different",
            (Verdict::Unknown { .. }, _) => "unknown",
        }
    }

    /// The counterexample's input as `x=1, y=[2]`.
    pub fn input_text(input: &[(String, PyValue)]) -> String {
        input
            .iter()
            .map(|(n, v)| format!("{n}={}", v.repr()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Setup<'_> {
    /// Runs `program` on each input with the session's replayer and recursion limit.
    fn replay(
        &self,
        program: &replay::Program<'_>,
        inputs: &[Vec<PyValue>],
        cancel: &Cancel,
    ) -> Result<Vec<(Vec<Run>, Option<bool>)>, SymexecError> {
        let limit = u32::try_from(self.options.recursion_limit).unwrap_or(u32::MAX);
        replay::run(&self.replayer, program, inputs, limit, cancel)
    }
}

fn find<'a>(setup: &Setup<'a>, name: &str) -> Result<&'a Function, SymexecError> {
    setup
        .functions
        .iter()
        .copied()
        .find(|f| f.qualname == name && !name.contains('.'))
        .ok_or_else(|| SymexecError::Input(format!("no function named {name:?}")))
}

/// The harness program: the session's functions and the harness, with `f`'s inputs (types
/// given, annotated or inferred) and, when `pre`, `f`'s preconditions.
fn harness_program(
    setup: &Setup<'_>,
    f: &Function,
    harness: &Harness,
    pre: bool,
) -> Result<(Program, Vec<String>, Vec<String>), SymexecError> {
    let mut base = Program::function(&f.qualname, setup.functions.iter().copied(), &setup.given)?;
    // The harness passes one plain value per parameter: an optional one is verified as
    // its `T`, and what has no such value is not taken.
    let as_plain = super::packed::positional_sorts(&base.packed, false).map_err(|what| {
        SymexecError::Input(format!(
            "{what}: %verify takes one plain value per parameter"
        ))
    })?;
    if !as_plain.is_empty() {
        let mut given = setup.given.clone();
        given.extend(as_plain);
        base = Program::function(&f.qualname, setup.functions.iter().copied(), &given)?;
    }
    let module = lower_module(&harness.source)
        .map_err(|e| SymexecError::Internal(format!("the generated harness: {e}")))?;
    let own: Vec<&Function> = module.functions().collect();
    let all = setup
        .functions
        .iter()
        .copied()
        .filter(|g| !harness.stubs.replaced.contains(&g.name) || g.qualname.contains('.'))
        .chain(own);
    let mut inputs = base.inputs.0.clone();
    inputs.extend(harness.state.iter().cloned());
    let mut program = Program::function(&harness.name, all, &inputs)?;
    let mut notes: Vec<String> = base.inferred.clone();
    let mut preconditions = Vec::new();
    if pre {
        program.preconditions = base.preconditions.clone();
        if contract::bounded_only() {
            // Quantified preconditions are the harness's guards instead.
            program.preconditions.retain(|(_, t)| !has_quantifier(t));
        }
        preconditions = base.preconditions.iter().map(|(t, _)| t.clone()).collect();
        for (text, why) in &base.ignored_preconditions {
            notes.push(format!(
                "precondition {text:?} is not used by the solver ({why}); counterexamples are checked against it when replayed"
            ));
        }
    }
    program.inferred = base.inferred.clone();
    let replay_pre: Vec<String> = if pre {
        crate::constraints::docstring::preconditions(f.docstring.as_deref().unwrap_or(""))
            .into_iter()
            .filter(|w| w.expr.is_ok())
            .map(|w| w.text)
            .collect()
    } else {
        Vec::new()
    };
    notes.retain(|n| !n.is_empty());
    let _ = &preconditions;
    Ok((program, notes, replay_pre))
}

/// `f` rewritten by its loop invariants (`None`: it has none, or its source is not known).
/// With `--summaries`, a recursive `f` with postconditions is always copied (under the
/// rewritten name), so that the harness runs its body while its recursive calls run its
/// contract; the flag says so.
fn rewrite(
    setup: &Setup<'_>,
    f: &Function,
) -> Result<(Option<invariant::Rewritten>, bool), SymexecError> {
    let def = format!("def {}(", f.name);
    let Some(source) = setup
        .definitions
        .iter()
        .find(|d| d.lines().any(|l| l.trim_start().starts_with(&def)))
    else {
        return Ok((None, false));
    };
    let by_contract = setup.summaries
        && !crate::constraints::docstring::postconditions(f.docstring.as_deref().unwrap_or(""))
            .is_empty()
        && summary::recursive(f, source);
    let base = Program::function(&f.qualname, setup.functions.iter().copied(), &setup.given)?;
    Ok((
        invariant::rewrite(f, source, &base.inputs.0, by_contract)?,
        by_contract,
    ))
}

/// The harness as the replay runs it: without the stubs (the replay's wrappers call the real
/// functions instead).
fn replayed_source(harness: &Harness) -> String {
    if harness.stubs.replaced.is_empty() {
        return harness.source.clone();
    }
    let own: Vec<&str> = harness
        .source
        .lines()
        .take(harness.stubs.offset as usize)
        .collect();
    own.join("\n") + "\n"
}

/// A harness's tree, read: what both commands start from.
struct HarnessRun {
    tree: Tree,
    /// The harness's obligations and (for `%verify`) the body asserts met.
    obligations: Vec<Obligation>,
    rows: Vec<Row>,
    /// Leaves failing an obligation, to replay (their rows say "no input to replay" until
    /// the replay confirms them).
    candidates: Vec<judge::Candidate>,
    notes: Vec<String>,
    /// Preconditions the replay checks its inputs against.
    replay_pre: Vec<String>,
    /// The harness's inputs, in order.
    parameters: Vec<String>,
}

/// Executes `harness` (over `f`'s inputs; `f`'s preconditions assumed when `pre`) and reads
/// its tree (`body_asserts`: asserts met in the functions called are obligations too).
fn run_harness(
    setup: &Setup<'_>,
    f: &Function,
    harness: &Harness,
    pre: bool,
    body_asserts: bool,
    cancel: &Cancel,
) -> Result<HarnessRun, SymexecError> {
    let (program, notes, replay_pre) = harness_program(setup, f, harness, pre)?;
    let tree = execute(&program, &setup.options, cancel)?;
    let mut obligations = harness.obligations.clone();
    let (mut rows, candidates) = judge::rows(&tree, harness, &mut obligations, body_asserts);
    for c in &candidates {
        rows[c.row].status = LeafStatus::Unknown("no input to replay".into());
    }
    let parameters = harness.parameters.clone();
    Ok(HarnessRun {
        tree,
        obligations,
        rows,
        candidates,
        notes,
        replay_pre,
        parameters,
    })
}

/// The arguments of a row's witness, in parameter order.
fn arguments(row: &Row, parameters: &[String]) -> Option<Vec<PyValue>> {
    let w = row.witness.as_ref()?;
    parameters
        .iter()
        .map(|p| w.iter().find(|(n, _)| n == p).map(|(_, v)| v.clone()))
        .collect()
}

/// What the replay of a leaf's input must do.
enum Expect<'c> {
    Fails(&'c judge::Candidate),
    Returns,
    Raises(String),
}

/// Whether `t` holds an `all`/`any` quantifier.
fn has_quantifier(t: &crate::symbolic::Term) -> bool {
    matches!(t.kind(), crate::symbolic::TermKind::Quantified { .. })
        || t.children().into_iter().any(has_quantifier)
}

/// Z3's work per check in the first, quantified attempt of `%verify`, in Z3's resource units
/// (about 55 ms of an idle machine's time): a quantifier Z3 decides is decided in well under
/// this (every decided check of the verification notebook took under 32,000 units), and one
/// it cannot would otherwise spend the whole per-check timeout on each leaf before the
/// bounded fallback. Units, unlike time, do not depend on the machine's load, so the attempt
/// gives the same verdict and witnesses on a busy machine.
pub const QUANTIFIED_RLIMIT: u32 = 100_000;

/// Checks of the quantified attempt that may spend all their units before its remaining
/// questions are "unknown" without a check, so that an undecidable quantifier leaves time
/// for the bounded fallback.
pub const QUANTIFIED_EXHAUSTED_CHECKS: u32 = 4;

/// A safety net under the resource limit: the quantified attempt's time per check (the
/// `--timeout` when lower) and in all (the `solver_budget_ms` when lower and set), ten times
/// what the units take on an idle machine.
const QUANTIFIED_TIMEOUT_MS: u32 = 1_000;
const QUANTIFIED_BUDGET_MS: u64 = 4_000;

/// `%verify f`: with `all`/`any` as quantifiers (each check given [`QUANTIFIED_RLIMIT`]
/// units, the attempt at most [`QUANTIFIED_EXHAUSTED_CHECKS`] checks that spend them all);
/// when that leaves the verdict unknown and some clause was quantified, again with every
/// `all`/`any` in bounded form (the verdict of the second run is kept when it says more, and
/// the note says so). When no clause was quantified and the capped run is unknown because the
/// solver gave up, it is run again with the full options, so the cap never changes the verdict
/// of a contract without quantifiers.
pub fn verify(setup: &Setup<'_>, name: &str, cancel: &Cancel) -> Result<Report, SymexecError> {
    let mut quick = setup.clone_shallow();
    quick.options.timeout_ms = quick.options.timeout_ms.min(QUANTIFIED_TIMEOUT_MS);
    if quick.options.solver_budget_ms == 0 || quick.options.solver_budget_ms > QUANTIFIED_BUDGET_MS
    {
        quick.options.solver_budget_ms = QUANTIFIED_BUDGET_MS;
    }
    quick.options.resource_limit = Some(crate::symexec::ResourceLimit {
        per_check: QUANTIFIED_RLIMIT,
        exhausted_checks: QUANTIFIED_EXHAUSTED_CHECKS,
    });
    let capped = quick.options != setup.options;
    let first = verify_once(&quick, name, cancel)?;
    let quantified = first
        .obligations
        .iter()
        .any(|o| matches!(o.form, Form::Quantified(_)))
        || first
            .tree
            .preconditions
            .iter()
            .any(|(_, t)| has_quantifier(t));
    if !matches!(first.verdict, Verdict::Unknown { .. }) {
        return Ok(first);
    }
    if !quantified {
        return if capped && solver_gave_up(&first.tree) {
            verify_once(setup, name, cancel)
        } else {
            Ok(first)
        };
    }
    let mut second = contract::with_bounded_forms(|| verify_once(setup, name, cancel))?;
    if matches!(second.verdict, Verdict::Unknown { .. }) {
        return Ok(first);
    }
    let reasons = match &first.verdict {
        Verdict::Unknown { reasons } => reasons.len(),
        _ => 0,
    };
    let cap = if capped {
        format!(
            " (Z3 given {QUANTIFIED_RLIMIT} resource units per check, at most {QUANTIFIED_EXHAUSTED_CHECKS} checks spending them all)"
        )
    } else {
        String::new()
    };
    second.notes.insert(
        0,
        format!(
            "with all()/any() as quantifiers{cap} the verdict was unknown ({reasons} undecided leaf/leaves); this verdict is from every all()/any() in bounded form"
        ),
    );
    Ok(second)
}

/// Whether the solver left something undecided in `tree` (a timeout, or the budget spent).
fn solver_gave_up(tree: &Tree) -> bool {
    tree.stats.past_budget > 0
        || tree.nodes.iter().any(|n| n.undecided)
        || tree.leaves.iter().any(|l| {
            l.witness.is_none() && !matches!(l.outcome, crate::symexec::tree::Outcome::Bound(_))
        })
}

fn verify_once(setup: &Setup<'_>, name: &str, cancel: &Cancel) -> Result<Report, SymexecError> {
    let f = find(setup, name)?;
    mutation::refuse(f)?;
    let (rewritten, by_contract) = rewrite(setup, f)?;
    let mut harness = contract::verify(f, rewritten.as_ref())?;
    let summaries = if setup.summaries {
        // A recursive `f` is summarized too: its body runs once, its recursive calls by
        // its contract (the entry is not excluded).
        let entry = if by_contract { "" } else { f.name.as_str() };
        summary::summarize(&setup.functions, &setup.definitions, entry)?
    } else {
        summary::Summaries::default()
    };
    harness.add_stubs(&summaries);
    let mut raised = None;
    let setup = &if rewritten.as_ref().is_some_and(|r| r.wrapped) && setup.options.unroll == 0 {
        raised = Some(
            "--unroll 0 is run as --unroll 1: a loop with an invariant and a break runs its one iteration inside `while True:`".to_string(),
        );
        Setup {
            functions: setup.functions.clone(),
            definitions: setup.definitions.clone(),
            given: setup.given.clone(),
            options: Options {
                unroll: 1,
                ..setup.options.clone()
            },
            replayer: setup.replayer.clone(),
            summaries: setup.summaries,
        }
    } else {
        setup.clone_shallow()
    };
    let HarnessRun {
        tree,
        obligations,
        mut rows,
        candidates,
        mut notes,
        replay_pre,
        parameters,
    } = run_harness(setup, f, &harness, true, true, cancel)?;
    if let Some(r) = &rewritten {
        notes.extend(r.notes.iter().cloned());
    }
    notes.extend(summaries.notes.iter().cloned());
    let measure = rewritten.as_ref().and_then(|r| r.measure.clone());
    let partial_loops = notes
        .iter()
        .any(|n| n.starts_with("partial correctness: the loop"));
    match (&measure, by_contract) {
        (Some(m), true) => notes.push(format!(
            "recursion by contract: {name}()'s recursive calls run by its own contract (its preconditions an obligation at each call, its result any value satisfying its postconditions); with its measure {m} non-negative on entry (Dr.nonneg) and smaller at every recursive call (Dr.dec), a \"verified\" is total correctness: {name}() terminates{}",
            if partial_loops {
                " (but for its while loops without a measure: see their notes)"
            } else {
                ""
            }
        )),
        (None, true) => notes.push(format!(
            "recursion by contract: {name}()'s recursive calls run by its own contract (its preconditions an obligation at each call, its result any value satisfying its postconditions), so a \"verified\" is partial correctness: that {name}() terminates is not shown (a `Decreases: EXPR` line in its docstring adds the proof)"
        )),
        _ => {}
    }
    if !by_contract
        && !crate::constraints::docstring::decreases(f.docstring.as_deref().unwrap_or(""))
            .is_empty()
    {
        notes.push(if setup.summaries {
            format!(
                "{name}()'s Decreases: is not used: it is checked for a function with postconditions that calls itself (recursion by contract)"
            )
        } else {
            format!(
                "{name}()'s Decreases: is checked with --summaries (recursion by contract); without it the recursion is inlined up to --depth and the measure is not used"
            )
        });
    }
    notes.extend(raised);
    if obligations.is_empty() {
        return Err(SymexecError::Input(format!(
            "{name}() has no contract to verify: no Postconditions: in its docstring and no assert reached in its body"
        )));
    }
    // Replay every candidate, and every other leaf with an input: a passed leaf must
    // return in the replay, a raising one raise the same exception (else the tree and
    // the replay disagree, and the leaf says nothing).
    let mut definitions = setup.definitions.clone();
    definitions.extend(harness.stubs.replay.iter().cloned());
    definitions.push(replayed_source(&harness));
    let mut expected: Vec<(usize, Expect)> = candidates
        .iter()
        .map(|c| (c.row, Expect::Fails(c)))
        .collect();
    for (i, row) in rows.iter().enumerate() {
        match &row.status {
            LeafStatus::Passed => expected.push((i, Expect::Returns)),
            LeafStatus::Raises(_) => {
                if let Some(crate::symexec::Outcome::Exception(e)) =
                    tree.leaf_of(row.node).map(|l| &l.outcome)
                {
                    expected.push((i, Expect::Raises(e.type_name.clone())));
                }
            }
            _ => {}
        }
    }
    expected.retain(|(row, _)| arguments(&rows[*row], &parameters).is_some());
    let inputs: Vec<Vec<PyValue>> = expected
        .iter()
        .filter_map(|(row, _)| arguments(&rows[*row], &parameters))
        .collect();
    let program_r = replay::Program {
        definitions: &definitions,
        functions: std::slice::from_ref(&harness.name),
        parameters: &parameters,
        preconditions: &replay_pre,
    };
    let results = setup.replay(&program_r, &inputs, cancel)?;
    for ((row, expect), (runs, _)) in expected.iter().zip(results) {
        let run = runs.into_iter().next();
        let shown = run.as_ref().map_or("no result".into(), Run::describe);
        let agrees = match (expect, &run) {
            // The same exception, raised in the same function, with the same message
            // when the tree knows it (`postcondition 2` names the clause).
            (
                Expect::Fails(c),
                Some(Run::Raised {
                    type_name,
                    function,
                    message,
                    ..
                }),
            ) => {
                type_name == &c.type_name
                    && function.as_ref().is_none_or(|f| *f == c.function)
                    && c.message.as_ref().is_none_or(|m| m == message)
            }
            (Expect::Returns, Some(Run::Return(_))) => true,
            (Expect::Raises(t), Some(Run::Raised { type_name, .. })) => t == type_name,
            _ => false,
        };
        let args = arguments(&rows[*row], &parameters)
            .unwrap_or_default()
            .iter()
            .map(PyValue::repr)
            .collect::<Vec<_>>()
            .join(", ");
        let r = &mut rows[*row];
        match (expect, agrees) {
            (Expect::Fails(c), true) => {
                r.status = LeafStatus::Refuted(c.obligation);
                r.replay = Some(format!("{}: {name}({args}) {shown}", setup.replayer.name()));
            }
            (Expect::Fails(c), false) => {
                r.status = LeafStatus::Unknown(format!(
                    "the replay in {} did not fail {}: {shown}",
                    setup.replayer.name(),
                    obligations[c.obligation].label
                ));
                r.replay = Some(shown);
            }
            (_, true) => {}
            (_, false) => {
                r.status = LeafStatus::Unknown(format!(
                    "the replay in {} disagrees with the tree ({}): {shown}",
                    setup.replayer.name(),
                    r.outcome
                ));
                r.replay = Some(shown);
            }
        }
    }
    // A clause other than an invariant's own, failing from a havocked loop state: the state
    // satisfies the invariants but need not be reachable. The function's own inputs are
    // replayed through the plain harness (no invariants): refuted only if it fails there too.
    let suspect: Vec<usize> = (0..rows.len())
        .filter(|&i| match rows[i].status {
            LeafStatus::Refuted(o) => {
                !obligations[o].kind.starts_with("invariant")
                    && !obligations[o].kind.starts_with("decreases")
                    && judge::from_loop_state(&tree, &harness, rows[i].node)
            }
            _ => false,
        })
        .collect();
    if !suspect.is_empty() {
        let plain = contract::verify(f, None)?;
        let own: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
        let mut definitions = setup.definitions.clone();
        definitions.extend(harness.stubs.replay.iter().cloned());
        definitions.push(plain.source.clone());
        let inputs: Vec<Vec<PyValue>> = suspect
            .iter()
            .map(|&i| arguments(&rows[i], &own).unwrap_or_default())
            .collect();
        let program_r = replay::Program {
            definitions: &definitions,
            functions: std::slice::from_ref(&plain.name),
            parameters: &own,
            preconditions: &replay_pre,
        };
        let results = setup.replay(&program_r, &inputs, cancel)?;
        for (&i, (runs, _)) in suspect.iter().zip(results) {
            let LeafStatus::Refuted(o) = rows[i].status else {
                continue;
            };
            let run = runs.into_iter().next();
            let shown = run.as_ref().map_or("no result".into(), Run::describe);
            let expected = rows[i].replay.clone().unwrap_or_default();
            let candidate = candidates.iter().find(|c| c.row == i);
            let fails = match (&run, candidate) {
                (
                    Some(Run::Raised {
                        type_name, message, ..
                    }),
                    Some(c),
                ) => *type_name == c.type_name && c.message.as_ref().is_none_or(|m| m == message),
                _ => false,
            };
            let r = &mut rows[i];
            if fails {
                r.replay = Some(format!(
                    "{}: {name}() itself, on these arguments: {shown}",
                    setup.replayer.name()
                ));
            } else {
                r.status = LeafStatus::Unknown(format!(
                    "{} fails from a loop state the invariants allow ({}), but not when {name}() runs on these arguments ({shown}): the invariants may be too weak to prove it",
                    obligations[o].label, expected
                ));
            }
        }
    }
    let raising = rows
        .iter()
        .filter(|r| matches!(r.status, LeafStatus::Raises(_)))
        .count();
    if raising > 0 {
        notes.push(format!(
            "{raising} leaf(s) end in an exception of {name}() itself: a postcondition speaks of returns only, so they are listed, not judged"
        ));
    }
    for o in &obligations {
        match &o.form {
            Form::Bounded(q) => notes.push(format!(
                "{} ({q}) is checked in bounded form: a loop over its generator, unrolled up to --unroll {}; longer iterations end in bound leaves",
                o.label, setup.options.unroll
            )),
            Form::Quantified(q) => notes.push(format!(
                "{} ({q}) is checked as a quantifier over the positions (Z3, no bound); where Z3 cannot decide it the leaf is unknown",
                o.label
            )),
            Form::Unreadable(why) => notes.push(format!("{} is not checked: {why}", o.label)),
            Form::Plain => {}
        }
    }
    let verdict = verdict(&tree, &rows, &obligations);
    Ok(Report {
        kind: Kind::Verify,
        functions: vec![name.to_string()],
        parameters,
        harness,
        obligations,
        preconditions: tree.preconditions.iter().map(|(t, _)| t.clone()).collect(),
        tree,
        rows,
        verdict,
        notes,
        replayer: setup.replayer.clone(),
        returns_only: false,
        depth: setup.options.depth,
    })
}

/// The verdict of the judged rows.
fn verdict(tree: &Tree, rows: &[Row], obligations: &[Obligation]) -> Verdict {
    if let Some(row) = rows
        .iter()
        .position(|r| matches!(r.status, LeafStatus::Refuted(_)))
    {
        return Verdict::Refuted { row };
    }
    let mut reasons = Vec::new();
    for r in rows {
        if let LeafStatus::Unknown(why) = &r.status {
            reasons.push(format!("leaf {}: {why}", r.node));
        }
    }
    if tree.truncated {
        reasons.push(format!(
            "the tree reached the node limit ({}) with {} states unexplored",
            tree.node_limit, tree.unexplored
        ));
    }
    for o in obligations {
        if let Form::Unreadable(why) = &o.form {
            reasons.push(format!("{} is not checked: {why}", o.label));
        }
    }
    if !reasons.is_empty() {
        return Verdict::Unknown { reasons };
    }
    let bound_leaves = rows
        .iter()
        .filter(|r| matches!(r.status, LeafStatus::Bound(_)))
        .count();
    if bound_leaves > 0 {
        Verdict::UpToBound { bound_leaves }
    } else {
        Verdict::Proved
    }
}

/// `%equiv f g`: same results and (unless `returns_only`) same exceptions on every input
/// (satisfying `f`'s preconditions when `pre`).
pub fn equiv(
    setup: &Setup<'_>,
    f_name: &str,
    g_name: &str,
    returns_only: bool,
    pre: bool,
    cancel: &Cancel,
) -> Result<Report, SymexecError> {
    let f = find(setup, f_name)?;
    let g = find(setup, g_name)?;
    let harness = contract::equiv(f, g, returns_only, pre)?;
    let HarnessRun {
        tree,
        obligations,
        mut rows,
        candidates,
        mut notes,
        replay_pre,
        parameters,
    } = run_harness(setup, f, &harness, pre, false, cancel)?;
    let functions = [f_name.to_string(), g_name.to_string()];
    // Every candidate and every passed leaf with an input is replayed: a candidate counts
    // only if the replay tells the functions apart; a passed leaf the replay tells apart
    // is a distinguishing input all the same (the tree was wrong there, the replay is not).
    let mut replayed: Vec<(usize, Option<usize>)> = candidates
        .iter()
        .map(|c| (c.row, Some(c.obligation)))
        .collect();
    for (i, row) in rows.iter().enumerate() {
        if row.status == LeafStatus::Passed {
            replayed.push((i, None));
        }
    }
    replayed.retain(|(row, _)| arguments(&rows[*row], &parameters).is_some());
    let inputs: Vec<Vec<PyValue>> = replayed
        .iter()
        .filter_map(|(row, _)| arguments(&rows[*row], &parameters))
        .collect();
    let program_r = replay::Program {
        definitions: &setup.definitions,
        functions: &functions,
        parameters: &parameters,
        preconditions: &replay_pre,
    };
    let results = setup.replay(&program_r, &inputs, cancel)?;
    let outcome_obligation = obligations.iter().position(|o| o.kind == "same outcome");
    let result_obligation = obligations.iter().position(|o| o.kind == "same result");
    for ((row, obligation), (runs, equal)) in replayed.iter().zip(results) {
        // Which obligation the replayed runs break, if any.
        let broken = match runs.as_slice() {
            [Run::Return(_), Run::Return(_)] if equal == Some(false) => result_obligation,
            [
                Run::Raised { type_name: a, .. },
                Run::Raised { type_name: b, .. },
            ] if a != b => outcome_obligation,
            [Run::Return(_), Run::Raised { .. }] | [Run::Raised { .. }, Run::Return(_)] => {
                outcome_obligation
            }
            _ => None,
        };
        let agree = matches!(
            runs.as_slice(),
            [Run::Return(_), Run::Return(_)] if equal == Some(true)
        ) || matches!(
            runs.as_slice(),
            [Run::Raised { type_name: a, .. }, Run::Raised { type_name: b, .. }] if a == b
        ) || (returns_only
            && runs.len() == 2
            && runs.iter().any(|r| matches!(r, Run::Raised { .. })));
        let args = arguments(&rows[*row], &parameters)
            .unwrap_or_default()
            .iter()
            .map(PyValue::repr)
            .collect::<Vec<_>>()
            .join(", ");
        let shown = match runs.as_slice() {
            [a, b] => format!(
                "{f_name}({args}) {}; {g_name}({args}) {}",
                a.describe(),
                b.describe()
            ),
            other => other
                .iter()
                .map(Run::describe)
                .collect::<Vec<_>>()
                .join("; "),
        };
        let r = &mut rows[*row];
        match (broken, obligation) {
            (Some(o), _) => {
                r.status = LeafStatus::Refuted(o);
                r.checks.insert(o, Check::Refuted);
                r.replay = Some(format!("{}: {shown}", setup.replayer.name()));
            }
            (None, Some(o)) => {
                r.status = LeafStatus::Unknown(format!(
                    "the replay in {} does not tell them apart ({}): {shown}",
                    setup.replayer.name(),
                    obligations[*o].label
                ));
                r.replay = Some(shown);
            }
            (None, None) if agree => {}
            (None, None) => {
                r.status = LeafStatus::Unknown(format!(
                    "the replay in {}: {shown}",
                    setup.replayer.name()
                ));
                r.replay = Some(shown);
            }
        }
    }
    // The harness catches every exception: one escaping it is not understood.
    for r in &mut rows {
        if let LeafStatus::Raises(e) = &r.status {
            r.status = LeafStatus::Unknown(format!("the harness itself raised {e}"));
        }
    }
    if returns_only {
        notes.push("--returns-only: inputs where either function raises are not compared".into());
    }
    notes.push(format!(
        "results are compared with ==; exceptions by class ({} told apart, any other is \"another exception\")",
        contract::EXCEPTIONS.join(", ")
    ));
    let verdict = verdict(&tree, &rows, &obligations);
    Ok(Report {
        kind: Kind::Equiv,
        functions: functions.to_vec(),
        parameters,
        harness,
        obligations,
        preconditions: tree.preconditions.iter().map(|(t, _)| t.clone()).collect(),
        tree,
        rows,
        verdict,
        notes,
        replayer: setup.replayer.clone(),
        returns_only,
        depth: setup.options.depth,
    })
}

/// Marks of a row's checks, for tables: `✓` proved, `✓*` holds on this leaf (fails on
/// another), `✗` refuted, empty when the obligation is not on the path.
pub fn mark(check: Option<&Check>) -> &'static str {
    match check {
        Some(Check::Proved) => "✓",
        Some(Check::Holds { .. }) => "✓*",
        Some(Check::Refuted) => "✗",
        None => "",
    }
}
