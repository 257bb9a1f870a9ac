//! Deciding each edge over an [`Encoding`]: at most one query per edge still open, each a
//! check assuming the edge's "taken" Boolean (the encoding sits in one scope of its own, and
//! no query opens another); each satisfiable query's model settles every edge its
//! path takes, and every edge reached from that path along guard-free edges (`free`). A
//! first round allows only edges whose guards were all translated, so a "yes" is a real
//! path; a second round tells "no" from "depends on what was not translated". Edges decided
//! without a query (guard-free from the entry, unreachable by exact edges, guarded by a
//! literal `False`) need no solver, and the encoding is asserted only for the first query
//! ([`Lazy`]).

use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId};
use super::encode::{Encoding, Owner};
use super::free::Free;
use crate::cancel::{Cancel, Stopped};
use crate::symbolic::{Assumption, Check, Model, Solver, Term};

/// Whether something can happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Feasible {
    Yes,
    No,
    /// Undecided, and why (a timeout, conditions that were not translated, …).
    Unknown(String),
}

/// Asserts the encoding of `dag`; guards that the solver refuses make their edge inexact,
/// and so do guards reading a variable whose definition it refused.
pub fn assert_encoding(solver: &mut Solver, enc: &mut Encoding, dag: &Dag) {
    for term in enc.skeleton(dag) {
        let _ = solver.assert(&term);
    }
    let mut failed_vars = Vec::new();
    for (term, owner) in &enc.assertions {
        if solver.assert(term).is_err() {
            match owner {
                Owner::Guard(e) => enc.exact[*e] = false,
                Owner::Definition(v) => failed_vars.push(v.clone()),
                Owner::Structure => {}
            }
        }
    }
    if failed_vars.is_empty() {
        return;
    }
    for (e, step) in enc.steps.iter().enumerate() {
        let reads_failed = step.as_ref().is_some_and(|s| {
            s.guards
                .iter()
                .any(|g| g.term.vars().iter().any(|(v, _)| failed_vars.contains(v)))
        });
        if reads_failed {
            enc.exact[e] = false;
        }
    }
}

/// Why an edge that only paths through untranslated conditions take is "unknown".
pub const DEPENDS: &str = "it depends on conditions that could not be translated";

/// A solver that asserts an encoding (in a scope of its own) when first asked for: many
/// encodings are decided without a query, and asserting one costs more than most queries.
pub struct Lazy<'s> {
    solver: Option<&'s mut Solver>,
    asserted: bool,
    /// A query was wanted without a solver.
    wanted: bool,
}

impl<'s> Lazy<'s> {
    pub fn new(solver: Option<&'s mut Solver>) -> Lazy<'s> {
        Lazy {
            solver,
            asserted: false,
            wanted: false,
        }
    }

    /// Whether a query was wanted without a solver (so the answers are not complete).
    pub fn wanted(&self) -> bool {
        self.wanted
    }

    /// Whether `enc` is asserted (so its exactness is final).
    pub fn asserted(&self) -> bool {
        self.asserted
    }

    /// The solver with `enc` (of `dag`) asserted (`None`, noted as wanted, without a
    /// solver).
    pub fn get(&mut self, enc: &mut Encoding, dag: &Dag) -> Option<&mut Solver> {
        let Some(solver) = self.solver.as_deref_mut() else {
            self.wanted = true;
            return None;
        };
        if !self.asserted {
            self.asserted = true;
            solver.push();
            assert_encoding(solver, enc, dag);
        }
        Some(solver)
    }

    /// Pops the encoding's scope.
    pub fn finish(self) {
        if self.asserted
            && let Some(solver) = self.solver
        {
            let _ = solver.pop();
        }
    }
}

/// The feasibility of every edge of `dag` under `enc`, asserted on `lazy`'s solver when a
/// query needs it (without a solver, the answers stop there: see [`Lazy::wanted`]).
/// Guard-free edges reached from a feasible path need no query (`free`).
pub fn edges(
    lazy: &mut Lazy<'_>,
    enc: &mut Encoding,
    dag: &Dag,
    free: &Free,
    base_feasible: bool,
    cancel: &Cancel,
) -> Result<Vec<Feasible>, Stopped> {
    let mut out: Vec<Option<Feasible>> = enc
        .taken
        .iter()
        .map(|t| t.is_none().then_some(Feasible::No))
        .collect();
    let nodes = dag.out.len();
    // Nodes that end a feasible path (of exact edges, then of any edges). Guard-free
    // edges are exact or not before the encoding is asserted.
    let (mut exact_reach, mut any_reach) = (vec![false; nodes], vec![false; nodes]);
    let spreads = free.definitional;
    // Round 1: only exactly translated edges may be taken.
    let settle_yes = |out: &mut [Option<Feasible>], e: EdgeId| {
        if out[e].is_none() {
            out[e] = Some(Feasible::Yes);
        }
    };
    if spreads && base_feasible {
        free.spread(dag, enc, true, &mut exact_reach, [dag.entry], |e| {
            settle_yes(&mut out, e)
        });
    }
    // Round 1 paths take exact edges only: a source they cannot reach refutes the edge.
    // (Asserting can only make edges inexact.)
    let mut exact_graph = exact_sources(dag, enc, &free.blocked);
    // Round 1's checks assume every inexact edge is not taken.
    let mut exact_only: Option<Vec<Assumption>> = None;
    for e in 0..dag.edges.len() {
        let open = |enc: &Encoding, exact_graph: &[bool]| {
            enc.exact[e] && !free.blocked[e] && exact_graph[dag.edges[e].source.index()]
        };
        if out[e].is_some() || !open(enc, &exact_graph) {
            continue;
        }
        let Some(t) = enc.taken[e].clone() else {
            continue;
        };
        cancel.check()?;
        let was_asserted = lazy.asserted();
        let Some(solver) = lazy.get(enc, dag) else {
            return Ok(Vec::new());
        };
        if !was_asserted {
            exact_graph = exact_sources(dag, enc, &free.blocked);
            if !open(enc, &exact_graph) {
                continue;
            }
        }
        let base = exact_only.get_or_insert_with(|| not_taken_inexact(solver, enc));
        match check_assuming(solver, base, &t) {
            Check::Sat(model) => {
                out[e] = Some(Feasible::Yes);
                along_model(free, &model, dag, enc, true, &mut exact_reach, |f| {
                    settle_yes(&mut out, f)
                });
            }
            Check::Unsat => {}
            Check::Unknown(reason) => out[e] = Some(Feasible::Unknown(reason.to_string())),
        }
    }
    cancel.check()?;
    // Round 2: what round 1 could not show, with every edge allowed; a model's path makes
    // every edge it takes "unknown" at once. Whether some edge is inexact is only final
    // once the encoding is asserted.
    let undecided = out.iter().any(Option::is_none);
    if undecided && !enc.has_inexact() && enc.constrains() && lazy.get(enc, dag).is_none() {
        return Ok(Vec::new());
    }
    if !enc.has_inexact() {
        return Ok(out.into_iter().map(|f| f.unwrap_or(Feasible::No)).collect());
    }
    let settle_unknown = |out: &mut [Option<Feasible>], e: EdgeId| {
        if out[e].is_none() {
            out[e] = Some(Feasible::Unknown(DEPENDS.into()));
        }
    };
    if spreads {
        let seeds: Vec<NodeIndex> = (0..nodes)
            .filter(|&n| exact_reach[n])
            .map(NodeIndex::new)
            .collect();
        free.spread(dag, enc, false, &mut any_reach, seeds, |e| {
            settle_unknown(&mut out, e)
        });
    }
    for e in 0..dag.edges.len() {
        if out[e].is_some() {
            continue;
        }
        let Some(t) = enc.taken[e].clone() else {
            continue;
        };
        if free.blocked[e] {
            out[e] = Some(Feasible::No);
            continue;
        }
        cancel.check()?;
        let Some(solver) = lazy.get(enc, dag) else {
            return Ok(Vec::new());
        };
        match check_assuming(solver, &[], &t) {
            Check::Sat(model) => {
                out[e] = Some(Feasible::Unknown(DEPENDS.into()));
                along_model(free, &model, dag, enc, false, &mut any_reach, |f| {
                    settle_unknown(&mut out, f)
                });
            }
            Check::Unsat => out[e] = Some(Feasible::No),
            Check::Unknown(reason) => out[e] = Some(Feasible::Unknown(reason.to_string())),
        }
    }
    Ok(out.into_iter().map(|f| f.unwrap_or(Feasible::No)).collect())
}

/// Why something that needed a query when there was no solver is "unknown" (a bug).
pub const NO_SOLVER: &str = "internal error: no solver for a query";

/// The nodes the entry reaches along exact edges, whatever their guards (but literal
/// `False`).
pub fn exact_sources(dag: &Dag, enc: &Encoding, blocked: &[bool]) -> Vec<bool> {
    let mut reach = vec![false; dag.out.len()];
    reach[dag.entry.index()] = true;
    let mut stack = vec![dag.entry];
    while let Some(n) = stack.pop() {
        for &e in &dag.out[n.index()] {
            let info = &dag.edges[e];
            let open = enc.exact[e] && enc.taken[e].is_some() && !blocked[e];
            if open && !info.back && !reach[info.target.index()] {
                reach[info.target.index()] = true;
                stack.push(info.target);
            }
        }
    }
    reach
}

/// Calls `mark` for every edge the path of `model` takes and, when the encoding is
/// definitional, every edge reached from that path along guard-free edges (exactly
/// translated ones if `exact_only`), marking the nodes so reached in `reach`.
pub fn along_model(
    free: &Free,
    model: &Model,
    dag: &Dag,
    enc: &Encoding,
    exact_only: bool,
    reach: &mut [bool],
    mut mark: impl FnMut(EdgeId),
) {
    let path = model_path(model, dag, enc);
    for &f in &path {
        mark(f);
    }
    if free.definitional {
        free.spread(dag, enc, exact_only, reach, path_nodes(dag, &path), mark);
    }
}

/// The edges a model takes: one path from the entry (the skeleton allows no other).
pub fn model_path(model: &Model, dag: &Dag, enc: &Encoding) -> Vec<EdgeId> {
    let mut path = Vec::new();
    let mut n = dag.entry;
    loop {
        let next = dag.out[n.index()].iter().copied().find(|&e| {
            enc.taken[e]
                .as_ref()
                .is_some_and(|t| model.holds(t) == Ok(true))
        });
        let Some(e) = next else { return path };
        path.push(e);
        let info = &dag.edges[e];
        if info.back || path.len() > dag.edges.len() {
            return path;
        }
        n = info.target;
    }
}

/// The nodes of a path from the entry (not the target of a closing back edge).
pub fn path_nodes(dag: &Dag, path: &[EdgeId]) -> Vec<NodeIndex> {
    std::iter::once(dag.entry)
        .chain(
            path.iter()
                .filter(|&&e| !dag.edges[e].back)
                .map(|&e| dag.edges[e].target),
        )
        .collect()
}

/// Checks `t` together with the `base` assumptions, without a scope of its own.
pub fn check_assuming(solver: &mut Solver, base: &[Assumption], t: &Term) -> Check {
    match solver.assume(t) {
        Ok(a) => {
            let mut assumed = base.to_vec();
            assumed.push(a);
            solver.check_assuming(&assumed)
        }
        Err(err) => Check::Unknown(err.to_string().into()),
    }
}

/// Assumptions that no inexact edge of `enc` is taken.
pub fn not_taken_inexact(solver: &mut Solver, enc: &Encoding) -> Vec<Assumption> {
    enc.taken
        .iter()
        .zip(&enc.exact)
        .filter(|(_, exact)| !**exact)
        .filter_map(|(t, _)| Term::not(t.clone()?).ok())
        .filter_map(|not| solver.assume(&not).ok())
        .collect()
}

/// Checks `t` in a scope of its own.
pub fn query(solver: &mut Solver, t: &Term) -> Check {
    solver.push();
    let answer = match solver.assert(t) {
        Ok(()) => solver.check(),
        Err(e) => Check::Unknown(e.to_string().into()),
    };
    let _ = solver.pop();
    answer
}
