//! The precise (SSA) decisions for one function: every edge (once through, then in later
//! loop iterations) and the listed paths. First without a solver: most functions need no
//! query at all, and then no solver is made. Otherwise again with a fresh solver
//! (`fresh_solver`), the preconditions in its base scope and each encoding in a scope of
//! its own.

use std::collections::HashMap;
use std::time::Instant;

use petgraph::graph::NodeIndex;

use super::analysis::Options;
use super::dag::{Dag, EdgeId};
use super::encode::{Encoding, Merge};
use super::feasibility::{self, Feasible, Lazy};
use super::free::Free;
use super::fresh_solver;
use super::iterations::Loops;
use super::listing::{Listing, Pending};
use super::paths::PathReport;
use super::semantics::{Constraint, Dropped, Names, Semantics, Visit};
use super::stats::{Stats, timed};
use crate::cancel::{Cancel, Stopped};
use crate::symbolic::Solver;

/// What the precise decisions read.
pub struct Precise<'a> {
    pub dag: &'a Dag,
    pub sem: &'a Semantics<'a>,
    pub inputs: &'a Names,
    pub pre: &'a [Constraint],
    pub options: &'a Options,
    pub cancel: &'a Cancel,
}

/// The decisions: edge verdicts with each edge's own constraints, the φ-variables, the
/// listed paths.
pub struct Decisions {
    pub verdicts: Vec<Feasible>,
    pub adds: Vec<(Vec<Constraint>, Vec<Dropped>)>,
    pub merges: Vec<Merge>,
    pub paths: Vec<PathReport>,
}

/// The edges decided, unless a query needed a solver there was not (`complete`).
struct Edges {
    complete: bool,
    verdicts: Vec<Feasible>,
    /// The encoding (as asserted, if it was).
    enc: Encoding,
    /// The edges the once-through encoding refutes, when it is definitional: a listed path
    /// (once through) taking one is infeasible.
    refuted: Vec<bool>,
}

impl Precise<'_> {
    /// The encoding of every once-through path.
    pub fn encoding(&self, stats: &mut Stats) -> Encoding {
        let (dag, sem) = (self.dag, self.sem);
        let first = |e: EdgeId, env: &Names| sem.step(&dag.edges[e], env, Visit::FIRST);
        let phi = |name: &str, n: NodeIndex| sem.phi_var(name, n);
        timed(&mut stats.encoding, || {
            Encoding::new(dag, &first, self.inputs, &HashMap::new(), "", &phi)
        })
    }

    /// Decides the edges of `enc` and the `pending` listed paths.
    pub fn decide(
        &self,
        enc: Encoding,
        listing: &Listing<'_>,
        pending: Vec<Pending>,
        stats: &mut Stats,
    ) -> Result<Decisions, Stopped> {
        let edges = self.edges(None, enc, stats)?;
        let paths_need_solver = pending
            .iter()
            .any(|p| listing.needs_solver(p, &edges.refuted));
        if edges.complete && !paths_need_solver {
            let paths = listing.decide(None, pending, &edges.refuted, stats)?;
            return Ok(decisions(edges, paths));
        }
        fresh_solver::with_solver_counted(
            self.options.timeout_ms,
            self.cancel,
            stats,
            |solver, stats| {
                for c in self.pre {
                    let _ = solver.assert(&c.term);
                }
                let edges = if edges.complete {
                    edges
                } else {
                    // Nothing was asserted without a solver: the encoding is as it was made.
                    let checks = solver.usage().checks;
                    let edges = self.edges(Some(&mut *solver), edges.enc, stats)?;
                    stats.edge_checks += solver.usage().checks - checks;
                    edges
                };
                let paths = listing.decide(Some(solver), pending, &edges.refuted, stats)?;
                Ok(decisions(edges, paths))
            },
        )
    }

    /// Decides every edge (not `complete` when that needs a query and there is no solver).
    fn edges(
        &self,
        mut solver: Option<&mut Solver>,
        mut enc: Encoding,
        stats: &mut Stats,
    ) -> Result<Edges, Stopped> {
        let dag = self.dag;
        let free = Free::new(&enc, self.pre);
        let mut lazy = Lazy::new(solver.as_deref_mut());
        let verdicts = feasibility::edges(
            &mut lazy,
            &mut enc,
            dag,
            &free,
            self.pre.is_empty(),
            self.cancel,
        );
        let wanted = lazy.wanted();
        lazy.finish();
        let mut verdicts = verdicts?;
        let incomplete = |verdicts, enc| Edges {
            complete: false,
            verdicts,
            enc,
            refuted: Vec::new(),
        };
        if wanted {
            return Ok(incomplete(verdicts, enc));
        }
        let refuted = if free.definitional {
            verdicts.iter().map(|v| *v == Feasible::No).collect()
        } else {
            Vec::new()
        };
        // Later iterations can only reopen refuted edges that the entry reaches.
        let reopenable = verdicts
            .iter()
            .zip(&enc.taken)
            .any(|(v, t)| *v == Feasible::No && t.is_some());
        if dag.edges.iter().any(|e| e.back) && reopenable {
            let started = Instant::now();
            let checks = solver.as_ref().map_or(0, |s| s.usage().checks);
            let loops = Loops {
                dag,
                sem: self.sem,
                inputs: self.inputs,
                pre: self.pre,
                cancel: self.cancel,
            };
            let complete = loops.revise(solver.as_deref_mut(), &mut verdicts, stats);
            stats.later_iterations += started.elapsed();
            stats.later_iteration_checks +=
                solver.as_ref().map_or(0, |s| s.usage().checks) - checks;
            if !complete? {
                return Ok(incomplete(verdicts, enc));
            }
        }
        Ok(Edges {
            complete: true,
            verdicts,
            enc,
            refuted,
        })
    }
}

fn decisions(edges: Edges, paths: Vec<PathReport>) -> Decisions {
    let adds = edges
        .enc
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
    Decisions {
        verdicts: edges.verdicts,
        adds,
        merges: edges.enc.merges,
        paths,
    }
}
