//! Runs that decide `%constraints`' unknown edges. Where a condition has no translation the
//! solver cannot say whether an edge is taken; running the function shows it. The inputs
//! are a few random ones, then, for the edges they leave undecided, the witnesses of
//! `%set`'s leaves for the same parameter types (each aims at one path). Each runs in an
//! interpreter holding only the session's functions, defined afresh before every run (so no
//! default value or cache carries over from one run to the next), traced, and the trace is
//! laid on the CFG ([`Walk`]). An edge counts only when the trace says which edge it was: a
//! step between two nodes that more than one edge (or join route) connects decides nothing.
//!
//! Runs are evidence of feasibility only, so nothing here can make an edge "no". Inputs
//! outside the docstring preconditions `%constraints` honours are not run; nor are
//! functions that read a global the fresh interpreter would lack, generators, and methods.

use std::collections::BTreeSet;
use std::sync::Arc;

use petgraph::graph::NodeIndex;

use super::constraints_run_inputs::{RunParam, random_value, run_params};
use super::set::{session_functions, session_options};
use crate::cancel::Cancel;
use crate::cfg::{Cfg, Edge, NodeKind, Walk};
use crate::constraints::{Analysis, EdgeId, Feasible, Run};
use crate::interp::trace::{self, Trace};
use crate::interp::{Interpreter, Limits, Outcome, RunError, Stream};
use crate::notebook::output::CellError;
use crate::notebook::session::Session;
use crate::python::ir::{Function, StmtKind};
use crate::python::{PyValue, builtins, lower_module};
use crate::symexec::check::Rng;
use crate::symexec::{Outcome as LeafOutcome, Program, execute};

/// Random inputs run besides the witnesses.
const RANDOM_RUNS: usize = 24;

/// Interpreter steps per run, at most.
const STEPS_PER_RUN: u64 = 200_000;

/// The name of the function that tests the preconditions in the fresh interpreter.
const PRECONDITION_FUNCTION: &str = "__analysis_kernel_preconditions__";

/// Decides what runs of `f` can of `analysis`' unknown edges; returns how many they decided.
pub fn decide_by_runs(
    session: &Session,
    f: &Arc<Function>,
    analysis: &mut Analysis,
    cancel: &Cancel,
) -> Result<usize, CellError> {
    let undecided = analysis
        .edges
        .iter()
        .any(|e| matches!(e.feasible, Feasible::Unknown(_)));
    if !undecided || !runnable(session, f) {
        return Ok(0);
    }
    let Some(params) = run_params(f, analysis) else {
        return Ok(0);
    };
    let Some(cell_line) = session.function(&f.qualname).map(|s| s.lines.0) else {
        return Ok(0);
    };
    // Random inputs first (cheap); `%set`'s witnesses only for what they left undecided.
    let random = random_inputs(&params);
    let runs = run_all(session, f, analysis, &params, &random, cell_line, cancel)?;
    let mut decided = analysis.observe(&runs);
    if analysis
        .edges
        .iter()
        .any(|e| matches!(e.feasible, Feasible::Unknown(_)))
    {
        let witnesses: Vec<Vec<PyValue>> = tree_witnesses(session, f, analysis, cancel)?
            .into_iter()
            .filter(|w| !random.contains(w))
            .collect();
        let runs = run_all(session, f, analysis, &params, &witnesses, cell_line, cancel)?;
        decided += analysis.observe(&runs);
    }
    Ok(decided)
}

/// Whether a fresh interpreter with the session's functions runs `f` as the session would:
/// a top-level function, not a generator, and every global it reads a builtin or a session
/// function (its parameters must have values runs can pass: [`run_params`]).
fn runnable(session: &Session, f: &Function) -> bool {
    if f.qualname.contains('.') || f.is_generator() {
        return false;
    }
    let functions: BTreeSet<String> = session
        .functions()
        .map(|s| s.name.clone())
        .filter(|n| !n.contains('.'))
        .collect();
    let mut local: BTreeSet<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let mut read = BTreeSet::new();
    let mut declared_outside = false;
    for s in &f.body {
        s.walk(&mut |s| {
            local.extend(s.defined_names());
            read.extend(s.names_used());
            match &s.kind {
                StmtKind::Global(_) | StmtKind::Nonlocal(_) => declared_outside = true,
                StmtKind::Try { handlers, .. } => {
                    local.extend(handlers.iter().filter_map(|h| h.name.clone()));
                }
                _ => {}
            }
        });
    }
    !declared_outside
        && read
            .iter()
            .all(|n| local.contains(n) || functions.contains(n) || builtins::is_builtin(n))
}

/// Random inputs of the parameters' types, each once.
fn random_inputs(params: &[(String, RunParam)]) -> Vec<Vec<PyValue>> {
    let mut rng = Rng::new(crate::symexec::check::SEED);
    let mut out: Vec<Vec<PyValue>> = Vec::new();
    for _ in 0..RANDOM_RUNS {
        let values: Vec<PyValue> = params
            .iter()
            .map(|(_, p)| random_value(&mut rng, p))
            .collect();
        if !out.contains(&values) {
            out.push(values);
        }
    }
    out
}

/// The witnesses of `%set`'s leaves, explored with `%constraints`' parameter types, each
/// once (none when `%set` cannot explore the function, or a parameter has no sort in
/// `%constraints`: a dict, a set, a bare `list`).
fn tree_witnesses(
    session: &Session,
    f: &Function,
    analysis: &Analysis,
    cancel: &Cancel,
) -> Result<Vec<Vec<PyValue>>, CellError> {
    if analysis.parameters.len() != f.params.len() {
        return Ok(Vec::new());
    }
    let functions = session_functions(session);
    let program = Program::function(
        &f.qualname,
        functions.iter().map(|g| g.as_ref()),
        &analysis.parameters,
    );
    let Ok(program) = program else {
        return Ok(Vec::new());
    };
    let options = session_options(session, session.config.unroll, session.config.depth);
    let tree = match execute(&program, &options, cancel) {
        Ok(tree) => tree,
        Err(crate::symexec::SymexecError::Stopped(s)) => return Err(s.into()),
        Err(_) => return Ok(Vec::new()),
    };
    let mut out: Vec<Vec<PyValue>> = Vec::new();
    for leaf in &tree.leaves {
        if matches!(leaf.outcome, LeafOutcome::Unsat) {
            continue;
        }
        let Some(w) = tree.witness(leaf) else {
            continue;
        };
        let values: Option<Vec<PyValue>> = analysis
            .parameters
            .iter()
            .map(|(n, _)| w.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()))
            .collect();
        if let Some(values) = values
            && !out.contains(&values)
        {
            out.push(values);
        }
    }
    Ok(out)
}

/// Runs every input (those the preconditions admit) with tracing on; the edges each run
/// took where the trace tells them.
fn run_all(
    session: &Session,
    f: &Function,
    analysis: &Analysis,
    params: &[(String, RunParam)],
    inputs: &[Vec<PyValue>],
    cell_line: u32,
    cancel: &Cancel,
) -> Result<Vec<Run>, CellError> {
    // `f` first, so that its lines are the cell's shifted by `cell_line - 1`.
    let mut sources: Vec<String> = session
        .function(&f.qualname)
        .map(|s| s.source.clone())
        .into_iter()
        .collect();
    sources.extend(
        session
            .functions()
            .filter(|s| !s.name.contains('.') && s.name != f.qualname)
            .map(|s| s.source.clone()),
    );
    if !analysis.preconditions.is_empty() {
        let params: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
        let tests: Vec<String> = analysis
            .preconditions
            .iter()
            .map(|p| format!("bool({})", p.text))
            .collect();
        sources.push(format!(
            "def {PRECONDITION_FUNCTION}({}):\n    return all([{}])\n",
            params.join(", "),
            tests.join(", ")
        ));
    }
    let Ok(module) = lower_module(&sources.join("\n\n")) else {
        return Ok(Vec::new());
    };
    let limits = Limits::new(
        session.config.step_budget.min(STEPS_PER_RUN),
        u32::try_from(session.config.recursion_limit).unwrap_or(u32::MAX),
    );
    let mut interp = Interpreter::new();
    let mut quiet = |_: Stream, _: &str| {};
    let mut runs = Vec::new();
    for args in inputs {
        cancel.check()?;
        // Defined afresh: nothing a run leaves behind (a mutated default, a cache) is seen
        // by the next.
        match interp.run_module(&module, &mut quiet, cancel, limits) {
            Ok(_) => {}
            Err(RunError::Stopped(s)) => return Err(s.into()),
            Err(_) => return Ok(Vec::new()),
        }
        if !analysis.preconditions.is_empty() {
            let admitted = interp.call(
                PRECONDITION_FUNCTION,
                args.clone(),
                &mut quiet,
                cancel,
                limits,
            );
            match admitted {
                Ok(Outcome::Returned(PyValue::Bool(true))) => {}
                Err(RunError::Stopped(s)) => return Err(s.into()),
                _ => continue,
            }
        }
        let Some((lines, returned)) = traced(&mut interp, f, args, limits, cancel)? else {
            continue;
        };
        let lines: Vec<u32> = lines.iter().map(|l| l + cell_line - 1).collect();
        let walk = Walk::of(&analysis.cfg, &[lines], &[returned]);
        if !walk.unmatched.is_empty() {
            continue;
        }
        let Some(path) = walk.paths.first() else {
            continue;
        };
        let (edges, route) = edges_taken(&analysis.cfg, path, returned);
        runs.push(Run {
            inputs: params
                .iter()
                .map(|(n, _)| n.clone())
                .zip(args.iter().cloned())
                .collect(),
            edges,
            route,
        });
        crate::work::ran();
    }
    Ok(runs)
}

/// The line events of the first activation of `f` in a traced call with `args`, and whether
/// it returned; `None` when the run stopped on a budget or the interpreter refused it.
fn traced(
    interp: &mut Interpreter,
    f: &Function,
    args: &[PyValue],
    limits: Limits,
    cancel: &Cancel,
) -> Result<Option<(Vec<u32>, bool)>, CellError> {
    let mut quiet = |_: Stream, _: &str| {};
    let start = interp.host(
        Box::new(|| Box::new(trace::start()) as Box<dyn std::any::Any + Send>),
        &mut quiet,
        cancel,
        limits,
    );
    if let Err(RunError::Stopped(s)) = start {
        return Err(s.into());
    }
    let ran = interp.call(&f.qualname, args.to_vec(), &mut quiet, cancel, limits);
    let taken = interp.host(
        Box::new(|| Box::new(trace::take()) as Box<dyn std::any::Any + Send>),
        &mut quiet,
        cancel,
        limits,
    );
    let ended = match ran {
        // A value that is not plain data was still returned.
        Ok(Outcome::Returned(_)) | Err(RunError::NotData { .. }) => true,
        Ok(Outcome::Raised(_)) | Err(RunError::Exception(_)) => false,
        Err(RunError::Stopped(s)) => return Err(s.into()),
        Err(_) => return Ok(None),
    };
    let Ok(Ok(trace)) = taken.map(|t| t.downcast::<Result<Trace, RunError>>()) else {
        return Ok(None);
    };
    let Ok(trace) = *trace else { return Ok(None) };
    if trace.cut {
        return Ok(None);
    }
    let activations = super::run::activations(&trace);
    let Some(first) = activations
        .into_iter()
        .find(|a| a.top && a.function == f.qualname)
    else {
        return Ok(None);
    };
    // The call's own activation ended as the call did.
    Ok(Some((first.lines, ended && first.raised == Some(false))))
}

/// The edges (by index in [`Cfg::edges`] order) of a walked node path where the path names
/// them: for each step, the one edge (or route through joins) that joins its nodes, when
/// there is exactly one; and the whole route when every step named its edges. The last
/// step to the exit of a run that returned takes no exception edge.
fn edges_taken(
    cfg: &Cfg,
    path: &[NodeIndex],
    returned: bool,
) -> (Vec<EdgeId>, Option<Vec<EdgeId>>) {
    let edges = cfg.edges();
    let mut named = Vec::new();
    let mut whole = true;
    for (i, pair) in path.windows(2).enumerate() {
        let to_exit = returned && i + 2 == path.len() && pair[1] == cfg.exit;
        match routes(cfg, &edges, pair[0], pair[1], !to_exit).as_slice() {
            [route] => named.extend(route.iter().copied()),
            _ => whole = false,
        }
    }
    let route = whole.then(|| named.clone());
    (named, route)
}

/// The routes from `from` to `to`: a direct edge, or edges through join nodes only; at
/// most two (two already mean the step is ambiguous).
fn routes(
    cfg: &Cfg,
    edges: &[(NodeIndex, NodeIndex, &Edge)],
    from: NodeIndex,
    to: NodeIndex,
    exceptions: bool,
) -> Vec<Vec<EdgeId>> {
    let mut found = Vec::new();
    let mut stack = vec![(from, Vec::new())];
    while let Some((n, route)) = stack.pop() {
        for (k, (_, t, e)) in edges.iter().enumerate().filter(|(_, (s, _, _))| *s == n) {
            if found.len() > 1 || (!exceptions && e.is_exception()) {
                continue;
            }
            // A cycle through joins goes nowhere new.
            if route.iter().any(|&j: &EdgeId| edges[j].0 == *t) {
                continue;
            }
            let mut r: Vec<EdgeId> = route.clone();
            r.push(k);
            if *t == to {
                found.push(r);
            } else if cfg.node(*t).kind == NodeKind::Join {
                stack.push((*t, r));
            }
        }
    }
    found
}
