//! Edges no once-through path takes, looked at again in later loop iterations: refuted when
//! even loop heads reached after any number of iterations cannot take them (`confirm`, on
//! an over-approximating encoding), else looked for within `UNROLL` iterations of each loop
//! (`settle`, on a bounded unrolling); the rest stay "unknown".

use std::collections::HashMap;

use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId};
use super::encode::{Encoding, loop_assignments};
use super::feasibility::{
    Feasible, Lazy, along_model, check_assuming, exact_sources, model_path, not_taken_inexact,
    path_nodes,
};
use super::free::Free;
use super::semantics::{Arrival, Constraint, Names, Semantics, Visit};
use super::stats::{Stats, timed};
use super::unroll::unroll;
use crate::cancel::{Cancel, Stopped};
use crate::symbolic::{Assumption, Check, Solver, Term, Var};

/// Why an edge left undecided by the once-through paths may still be feasible.
pub const LATER_ITERATIONS: &str =
    "no path taking each loop at most once reaches it, and later iterations may";

/// Iterations of each loop the bounded unrolling covers, and its size bound.
const UNROLL: u32 = 12;
const UNROLL_NODES: usize = 4_000;

/// What looking at later iterations reads.
pub struct Loops<'a> {
    pub dag: &'a Dag,
    pub sem: &'a Semantics<'a>,
    pub inputs: &'a Names,
    /// Asserted in the solver's base scope.
    pub pre: &'a [Constraint],
    pub cancel: &'a Cancel,
}

impl Loops<'_> {
    /// Revises the once-through `verdicts` (see the module documentation). Without a
    /// solver, false when a query was needed (the verdicts are then incomplete).
    pub fn revise(
        &self,
        mut solver: Option<&mut Solver>,
        verdicts: &mut [Feasible],
        stats: &mut Stats,
    ) -> Result<bool, Stopped> {
        let (dag, sem) = (self.dag, self.sem);
        let any = |e: EdgeId, env: &Names| {
            let visit = Visit {
                arrival: Arrival::Any,
                copy: 0,
            };
            sem.step(&dag.edges[e], env, visit)
        };
        // A loop head is reached again only if an iteration can end (its back edge), or if
        // an enclosing loop can bring the run back to it.
        let loops = dag.loops();
        let mut havoc = loop_assignments(dag, sem);
        havoc.retain(|head, _| {
            let nested = loops
                .iter()
                .any(|(h, body)| h != head && body.contains(head));
            let iterates =
                dag.edges.iter().enumerate().any(|(e, info)| {
                    info.back && info.target == *head && verdicts[e] != Feasible::No
                });
            nested || iterates
        });
        let phi = |name: &str, n: NodeIndex| Var::input(format!("{name}@hphi{}", n.index()));
        let mut over = timed(&mut stats.encoding, || {
            Encoding::new(dag, &any, self.inputs, &havoc, "h", &phi)
        });
        let mut lazy = Lazy::new(solver.as_deref_mut());
        let open = self.confirm(&mut lazy, &mut over, verdicts);
        let wanted = lazy.wanted();
        lazy.finish();
        let open = open?;
        if wanted {
            return Ok(false);
        }
        if open.is_empty() {
            return Ok(true);
        }
        let Some(unrolled) = timed(&mut stats.encoding, || {
            unroll(dag, sem, UNROLL, UNROLL_NODES)
        }) else {
            return Ok(true);
        };
        let copy = |u: EdgeId, env: &Names| {
            let (e, visit) = unrolled.origin[u];
            sem.step(&dag.edges[e], env, visit)
        };
        let phi = |name: &str, n: NodeIndex| Var::input(format!("{name}@uphi{}", n.index()));
        let mut enc = timed(&mut stats.encoding, || {
            Encoding::new(
                &unrolled.dag,
                &copy,
                self.inputs,
                &HashMap::new(),
                "u",
                &phi,
            )
        });
        let origin: Vec<EdgeId> = unrolled.origin.iter().map(|(e, _)| *e).collect();
        let mut lazy = Lazy::new(solver);
        let settled = self.settle(&mut lazy, &unrolled.dag, &mut enc, &origin, &open, verdicts);
        let wanted = lazy.wanted();
        lazy.finish();
        settled.map(|()| !wanted)
    }

    /// Re-examines the edges the once-through `first` verdicts refute under the
    /// over-approximating `enc` (loop heads reached after any number of iterations): those
    /// it cannot refute become "unknown". Returns them. A model's path, and guard-free edges
    /// from it, show every refuted edge they take satisfiable without a query of its own.
    fn confirm(
        &self,
        lazy: &mut Lazy<'_>,
        enc: &mut Encoding,
        first: &mut [Feasible],
    ) -> Result<Vec<EdgeId>, Stopped> {
        let dag = self.dag;
        let free = Free::new(enc, self.pre);
        let mut shown = vec![false; first.len()];
        let mut reach = vec![false; dag.out.len()];
        if free.definitional && self.pre.is_empty() {
            free.spread(dag, enc, false, &mut reach, [dag.entry], |e| {
                shown[e] = true
            });
        }
        let mut reopened = Vec::new();
        for e in 0..first.len() {
            if first[e] != Feasible::No {
                continue;
            }
            let Some(t) = enc.taken[e].clone() else {
                continue;
            };
            if free.blocked[e] {
                continue;
            }
            let answer = if shown[e] {
                None
            } else {
                self.cancel.check()?;
                let Some(solver) = lazy.get(enc, dag) else {
                    return Ok(reopened);
                };
                let answer = check_assuming(solver, &[], &t);
                if let Check::Sat(model) = &answer {
                    along_model(&free, model, dag, enc, false, &mut reach, |f| {
                        shown[f] = true
                    });
                }
                Some(answer)
            };
            match answer {
                Some(Check::Unsat) => {}
                None | Some(Check::Sat(_)) => {
                    first[e] = Feasible::Unknown(LATER_ITERATIONS.into());
                    reopened.push(e);
                }
                Some(Check::Unknown(reason)) => first[e] = Feasible::Unknown(reason.to_string()),
            }
        }
        Ok(reopened)
    }

    /// Settles `open` edges on an unrolled `dag` and its encoding, whose edge `u` copies
    /// edge `origin[u]`: an edge with a feasible exact copy is feasible (and so is every
    /// edge the model's path copies, and every open edge reached from that path along
    /// exact guard-free edges). The rest keep the unrolling's reason.
    fn settle(
        &self,
        lazy: &mut Lazy<'_>,
        dag: &Dag,
        enc: &mut Encoding,
        origin: &[EdgeId],
        open: &[EdgeId],
        verdicts: &mut [Feasible],
    ) -> Result<(), Stopped> {
        let still = format!(
            "no path taking each loop at most {UNROLL} times reaches it, and later iterations may"
        );
        let free = Free::new(enc, self.pre);
        let is_open = {
            let mut is_open = vec![false; verdicts.len()];
            for &e in open {
                is_open[e] = true;
            }
            is_open
        };
        // Before the encoding is asserted, which can make edges inexact, this is too large.
        let mut exact_graph = exact_sources(dag, enc, &free.blocked);
        let mut reach = vec![false; dag.out.len()];
        let show_open = |u: EdgeId, verdicts: &mut [Feasible]| {
            if is_open[origin[u]] {
                verdicts[origin[u]] = Feasible::Yes;
            }
        };
        if free.definitional && self.pre.is_empty() {
            free.spread(dag, enc, true, &mut reach, [dag.entry], |u| {
                show_open(u, verdicts)
            });
        }
        // The checks assume every inexact edge is not taken.
        let mut exact_only: Option<Vec<Assumption>> = None;
        for &e in open {
            if verdicts[e] == Feasible::Yes {
                continue;
            }
            let copies: Vec<Term> = origin
                .iter()
                .enumerate()
                .filter(|&(_, &o)| o == e)
                .filter_map(|(u, _)| enc.taken[u].clone())
                .collect();
            let Ok(any) = Term::or(copies) else { continue };
            // Only exact copies may be taken: one no exact path reaches is refuted.
            let viable = |enc: &Encoding, exact_graph: &[bool]| {
                (0..origin.len()).any(|u| {
                    origin[u] == e
                        && enc.taken[u].is_some()
                        && enc.exact[u]
                        && !free.blocked[u]
                        && exact_graph[dag.edges[u].source.index()]
                })
            };
            let refuted = |verdicts: &mut [Feasible]| {
                if let Feasible::Unknown(r) = &mut verdicts[e] {
                    *r = still.clone();
                }
            };
            if !viable(enc, &exact_graph) {
                refuted(verdicts);
                continue;
            }
            self.cancel.check()?;
            if exact_only.is_none() {
                let Some(solver) = lazy.get(enc, dag) else {
                    return Ok(());
                };
                exact_only = Some(not_taken_inexact(solver, enc));
                exact_graph = exact_sources(dag, enc, &free.blocked);
                if !viable(enc, &exact_graph) {
                    refuted(verdicts);
                    continue;
                }
            }
            let Some(solver) = lazy.get(enc, dag) else {
                return Ok(());
            };
            let base = exact_only.as_deref().unwrap_or_default();
            if let Check::Sat(model) = check_assuming(solver, base, &any) {
                let path = model_path(&model, dag, enc);
                for &u in &path {
                    verdicts[origin[u]] = Feasible::Yes;
                }
                if free.definitional {
                    let ends = path_nodes(dag, &path);
                    free.spread(dag, enc, true, &mut reach, ends, |u| show_open(u, verdicts));
                }
            } else if let Feasible::Unknown(r) = &mut verdicts[e] {
                *r = still.clone();
            }
        }
        Ok(())
    }
}
