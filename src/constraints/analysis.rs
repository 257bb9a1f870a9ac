//! The whole analysis of one function: preconditions, the feasibility of every edge (one
//! query each over the path encoding), the paths listed up to a limit with their
//! constraints and witnesses, and the redundant or impossible conditions.

use num_bigint::BigUint;
use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId};
use super::docstring;
use super::encode::Encoding;
use super::encode::loop_assignments;
use super::feasibility::{self, Feasible, Interrupted};
use super::negate::negate;
use super::paths::{self, PathReport};
use super::pyta::Pyta;
use super::semantics::{self, Arrival, Constraint, Dropped, Kind, Names, Semantics, Visit, env_of};
use super::unroll::unroll;
use crate::cancel::Cancel;
use crate::cfg::{Cfg, CfgError, Edge, NodeKind, function_cfg};
use crate::python::ir::{Function, StmtKind};
use crate::symbolic::{Solver, Sort, translate_condition};
use std::collections::HashMap;

/// How constraints are kept when a variable is reassigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// SSA versions (`x_1 == x - 5`): nothing is lost.
    Precise,
    /// PythonTA's rule: drop every constraint that mentions a reassigned parameter.
    Pyta,
}

/// What to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// Paths listed at most.
    pub path_limit: usize,
    /// Z3 timeout per query.
    pub timeout_ms: u32,
}

/// Why there is no analysis.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintsError {
    #[error("{0}")]
    Cfg(#[from] CfgError),
    #[error("interrupted by the user")]
    Interrupted,
}

impl From<Interrupted> for ConstraintsError {
    fn from(_: Interrupted) -> Self {
        ConstraintsError::Interrupted
    }
}

/// A precondition that could not be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignored {
    pub text: String,
    pub reason: String,
}

/// A precondition as written and as constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct Precondition {
    pub text: String,
    pub constraints: Vec<Constraint>,
}

/// One CFG edge's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeReport {
    pub id: EdgeId,
    pub source: NodeIndex,
    pub target: NodeIndex,
    pub kind: Edge,
    pub back: bool,
    pub feasible: Feasible,
    /// The listed paths that take this edge.
    pub paths: Vec<usize>,
    /// What the edge itself adds: SSA definitions of its source, its branch condition,
    /// "no exception".
    pub adds: Vec<Constraint>,
    /// The edge's conditions that have no translation.
    pub dropped: Vec<Dropped>,
}

/// PythonTA's R9900/R9901 for an `if`/`elif`/`while` test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Always true where it is reached (R9900, redundant-condition).
    Redundant,
    /// Always false where it is reached (R9901, impossible-condition).
    Impossible,
    /// Never reached.
    Unreachable,
    /// Its evaluation always raises.
    AlwaysRaises,
    /// Can be true and can be false.
    Neither,
    /// Not decided, and why.
    Unknown(String),
    /// The test has no translation, and why.
    Untranslated(String),
}

/// A condition and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionReport {
    pub node: NodeIndex,
    pub line: u32,
    /// The test, as written.
    pub test: String,
    pub verdict: Verdict,
}

/// The analysis of one function.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub cfg: Cfg,
    pub dag: Dag,
    pub mode: Mode,
    /// The parameters with a modelled type, in order.
    pub parameters: Vec<(String, Sort)>,
    /// The other parameters, with the reason.
    pub unsupported_parameters: Vec<(String, String)>,
    pub preconditions: Vec<Precondition>,
    pub ignored_preconditions: Vec<Ignored>,
    pub paths: Vec<PathReport>,
    /// How many paths there are in all.
    pub path_count: BigUint,
    /// The path limit stopped the listing.
    pub truncated: bool,
    pub edges: Vec<EdgeReport>,
    /// For each node: can it be reached (from its incoming edges' verdicts).
    pub nodes: Vec<Feasible>,
    pub conditions: Vec<ConditionReport>,
}

/// Analyses function `f`.
pub fn analyze(
    f: &Function,
    options: &Options,
    cancel: &Cancel,
) -> Result<Analysis, ConstraintsError> {
    let cfg = function_cfg(f)?;
    let dag = Dag::new(&cfg);
    let sem = Semantics::new(&cfg, f);
    let (inputs, parameters, unsupported_parameters) = semantics::inputs(f);
    let (preconditions, ignored_preconditions) = read_preconditions(f, &inputs);
    let pre: Vec<Constraint> = preconditions
        .iter()
        .flat_map(|p| p.constraints.clone())
        .collect();
    let mut solver = Solver::new(options.timeout_ms).with_cancel(cancel.clone());

    let (edge_verdicts, guards, pyta) = match options.mode {
        Mode::Precise => {
            for c in &pre {
                let _ = solver.assert(&c.term);
            }
            let first = |e: EdgeId, env: &Names| sem.step(&dag.edges[e], env, Visit::FIRST);
            let mut enc = Encoding::new(&dag, &first, &inputs, &HashMap::new(), "");
            feasibility::assert_encoding(&mut solver, &mut enc);
            let mut verdicts = feasibility::edges(&mut solver, &enc, &dag, cancel)?;
            let loops = dag.edges.iter().any(|e| e.back);
            if loops && verdicts.contains(&Feasible::No) {
                later_iterations(&dag, &sem, &inputs, &pre, options, &mut verdicts, cancel)?;
            }
            let guards: Vec<(Vec<Constraint>, Vec<Dropped>)> = enc
                .steps
                .iter()
                .map(|s| {
                    s.as_ref()
                        .map(|s| {
                            let adds = s.defs.iter().chain(&s.guards).cloned().collect();
                            (adds, s.dropped.clone())
                        })
                        .unwrap_or_default()
                })
                .collect();
            (verdicts, guards, None)
        }
        Mode::Pyta => {
            let pyta = Pyta::new(&cfg, &dag, &sem, &inputs, &pre);
            let encoded = pyta.encode(&dag, &mut solver);
            let verdicts = pyta.edges(&dag, &encoded, &mut solver, cancel)?;
            let guards = pyta
                .adds
                .iter()
                .zip(&pyta.dropped)
                .map(|(ids, dropped)| {
                    let own = ids
                        .iter()
                        .map(|&c| pyta.pool[c].constraint.clone())
                        .collect();
                    (own, dropped.clone())
                })
                .collect();
            (verdicts, guards, Some((pyta, encoded)))
        }
    };

    let mut paths_out = Vec::new();
    let mut listing = dag.paths();
    let mut truncated = false;
    while let Some(path) = listing.next() {
        if paths_out.len() == options.path_limit {
            truncated = true;
            break;
        }
        feasibility::check_cancel(cancel)?;
        let (constraints, at_edge, dropped) = match &pyta {
            None => paths::precise(&dag, &sem, &inputs, &pre, &path),
            Some((p, _)) => paths::pyta(&dag, p, &path),
        };
        let (feasible, witness) = paths::decide(
            &mut solver,
            &constraints,
            &dropped,
            &parameters,
            &inputs,
            pyta.is_some(),
        );
        paths_out.push(PathReport {
            id: paths_out.len(),
            end: paths::end_of(&dag, path.edges.last().copied()),
            smtlib: paths::smtlib(&constraints),
            edges: path.edges,
            constraints,
            at_edge,
            dropped,
            feasible,
            witness,
        });
    }
    feasibility::check_cancel(cancel)?;

    let edges: Vec<EdgeReport> = dag
        .edges
        .iter()
        .enumerate()
        .map(|(id, e)| EdgeReport {
            id,
            source: e.source,
            target: e.target,
            kind: e.kind.clone(),
            back: e.back,
            feasible: edge_verdicts[id].clone(),
            paths: paths_out
                .iter()
                .filter(|p| p.edges.contains(&id))
                .map(|p| p.id)
                .collect(),
            adds: guards[id].0.clone(),
            dropped: guards[id].1.clone(),
        })
        .collect();
    let nodes = node_verdicts(&dag, &edges);
    let mut conditions = condition_verdicts(&cfg, &sem, &dag, &edges, &nodes);
    if let Some((p, encoded)) = &pyta {
        for c in &mut conditions {
            let test = match sem.stmt(c.node).map(|s| &s.kind) {
                Some(StmtKind::If { test, .. } | StmtKind::While { test, .. }) => test,
                _ => continue,
            };
            c.verdict = p.condition(&dag, encoded, &mut solver, c.node, test, &inputs, cancel)?;
        }
    }
    Ok(Analysis {
        path_count: dag.count_paths(),
        cfg,
        dag,
        mode: options.mode,
        parameters,
        unsupported_parameters,
        preconditions,
        ignored_preconditions,
        paths: paths_out,
        truncated,
        edges,
        nodes,
        conditions,
    })
}

/// Edges no once-through path takes: refuted when even loop heads reached after any number
/// of iterations cannot take them, else looked for within `UNROLL` iterations of each loop;
/// the rest stay "unknown".
fn later_iterations(
    dag: &Dag,
    sem: &Semantics<'_>,
    inputs: &Names,
    pre: &[Constraint],
    options: &Options,
    verdicts: &mut [Feasible],
    cancel: &Cancel,
) -> Result<(), Interrupted> {
    let fresh_solver = || {
        let mut s = Solver::new(options.timeout_ms).with_cancel(cancel.clone());
        for c in pre {
            let _ = s.assert(&c.term);
        }
        s
    };
    let mut solver = fresh_solver();
    let any = |e: EdgeId, env: &Names| {
        let visit = Visit {
            arrival: Arrival::Any,
            copy: 0,
        };
        sem.step(&dag.edges[e], env, visit)
    };
    // A loop head is reached again only if an iteration can end (its back edge), or if an
    // enclosing loop can bring the run back to it.
    let loops = dag.loops();
    let mut havoc = loop_assignments(dag, sem);
    havoc.retain(|head, _| {
        let nested = loops
            .iter()
            .any(|(h, body)| h != head && body.contains(head));
        let iterates = dag
            .edges
            .iter()
            .enumerate()
            .any(|(e, info)| info.back && info.target == *head && verdicts[e] != Feasible::No);
        nested || iterates
    });
    let mut over = Encoding::new(dag, &any, inputs, &havoc, "h");
    feasibility::assert_encoding(&mut solver, &mut over);
    let open = feasibility::confirm(&mut solver, &over, verdicts, cancel)?;
    if open.is_empty() {
        return Ok(());
    }
    let Some(unrolled) = unroll(dag, sem, UNROLL, UNROLL_NODES) else {
        return Ok(());
    };
    let mut solver = fresh_solver();
    let copy = |u: EdgeId, env: &Names| {
        let (e, visit) = unrolled.origin[u];
        sem.step(&dag.edges[e], env, visit)
    };
    let mut enc = Encoding::new(&unrolled.dag, &copy, inputs, &HashMap::new(), "u");
    feasibility::assert_encoding(&mut solver, &mut enc);
    let origin: Vec<EdgeId> = unrolled.origin.iter().map(|(e, _)| *e).collect();
    let still = format!(
        "no path taking each loop at most {UNROLL} times reaches it, and later iterations may"
    );
    feasibility::settle(&mut solver, &enc, &origin, &open, verdicts, &still, cancel)
}

/// Iterations of each loop the bounded unrolling covers, and its size bound.
const UNROLL: u32 = 12;
const UNROLL_NODES: usize = 4_000;

/// The docstring's preconditions, translated over the parameters; the others with reasons.
fn read_preconditions(f: &Function, inputs: &Names) -> (Vec<Precondition>, Vec<Ignored>) {
    let mut used = Vec::new();
    let mut ignored = Vec::new();
    let env = env_of(inputs);
    for w in docstring::preconditions(f.docstring.as_deref().unwrap_or("")) {
        let built = w.expr.and_then(|e| {
            let t = translate_condition(&e, &env).map_err(|e| e.to_string())?;
            let any = t.raises_any().map_err(|e| e.0)?;
            let mut constraints = Vec::new();
            if any.bool_literal() != Some(false) {
                let safe = negate(&any).map_err(|e| e.0)?;
                constraints.push(Constraint {
                    term: safe,
                    kind: Kind::NoException,
                });
            }
            constraints.push(Constraint {
                term: t.value,
                kind: Kind::Precondition,
            });
            Ok(constraints)
        });
        match built {
            Ok(constraints) => used.push(Precondition {
                text: w.text,
                constraints,
            }),
            Err(reason) => ignored.push(Ignored {
                text: w.text,
                reason,
            }),
        }
    }
    (used, ignored)
}

/// A node can be reached when one of its incoming edges can be taken.
fn node_verdicts(dag: &Dag, edges: &[EdgeReport]) -> Vec<Feasible> {
    let mut out = vec![Feasible::No; dag.out.len()];
    if dag.reachable[dag.entry.index()] {
        out[dag.entry.index()] = Feasible::Yes;
    }
    for e in edges {
        let slot = &mut out[e.target.index()];
        *slot = match (&*slot, &e.feasible) {
            (Feasible::Yes, _) | (_, Feasible::Yes) => Feasible::Yes,
            (Feasible::Unknown(r), _) | (_, Feasible::Unknown(r)) => Feasible::Unknown(r.clone()),
            _ => Feasible::No,
        };
    }
    out
}

/// The verdict of every `if`/`elif`/`while` test, from its True and False edges.
fn condition_verdicts(
    cfg: &Cfg,
    sem: &Semantics<'_>,
    dag: &Dag,
    edges: &[EdgeReport],
    nodes: &[Feasible],
) -> Vec<ConditionReport> {
    let mut out = Vec::new();
    for n in cfg.nodes() {
        let Some(s) = sem.stmt(n) else { continue };
        let (StmtKind::If { test, .. } | StmtKind::While { test, .. }) = &s.kind else {
            continue;
        };
        if cfg.node(n).kind != NodeKind::Condition {
            continue;
        }
        let branch = |want: Edge| {
            dag.out[n.index()]
                .iter()
                .find(|&&e| dag.edges[e].kind == want)
                .map(|&e| &edges[e])
        };
        let (Some(yes), Some(no)) = (branch(Edge::True), branch(Edge::False)) else {
            continue;
        };
        let untranslated = yes.dropped.first().map(|d| d.reason.clone());
        let verdict = match (&nodes[n.index()], &yes.feasible, &no.feasible) {
            (Feasible::No, _, _) => Verdict::Unreachable,
            _ if let Some(reason) = untranslated => Verdict::Untranslated(reason),
            (_, Feasible::No, Feasible::No) => Verdict::AlwaysRaises,
            (_, Feasible::No, _) => Verdict::Impossible,
            (_, _, Feasible::No) => Verdict::Redundant,
            (_, Feasible::Yes, Feasible::Yes) => Verdict::Neither,
            (_, Feasible::Unknown(r), _) | (_, _, Feasible::Unknown(r)) => {
                Verdict::Unknown(r.clone())
            }
        };
        out.push(ConditionReport {
            node: n,
            line: s.span.line,
            test: test.to_string(),
            verdict,
        });
    }
    out
}
