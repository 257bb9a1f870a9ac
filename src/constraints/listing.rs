//! Listing paths up to the limit: first every listed path's constraints (so the analysis
//! knows whether it needs a solver at all), then each path decided: without a query when
//! that is possible, else by a query in a scope of its own for a witness, or on the scopes
//! of the prefix it shares with the previous path (`prefixes`).

use super::dag::{Dag, Path};
use super::feasibility::{DEPENDS, Feasible, NO_SOLVER};
use super::in_force::InForce;
use super::paths::{self, Decision, PathReport};
use super::prefixes::{Answer, Prefixes, Split};
use super::semantics::{Constraint, Dropped, Names};
use super::stats::{Stats, timed};
use crate::cancel::{Cancel, Stopped};
use crate::symbolic::solver::assertable;
use crate::symbolic::{CheckSat, Solver, Sort, Term, TermMemo};
use std::cell::RefCell;

/// A listed path with its constraints, not decided yet.
pub struct Pending {
    path: Path,
    constraints: Vec<Constraint>,
    at_edge: InForce,
    dropped: Vec<Dropped>,
}

/// What deciding paths reads.
pub struct Listing<'a> {
    pub dag: &'a Dag,
    pub params: &'a [(String, Sort)],
    pub inputs: &'a Names,
    /// PythonTA's rules: untranslated conditions do not make a path "unknown".
    pub lenient: bool,
    /// Whether the solver takes a term, by term (paths share their terms).
    pub assertable: Assertable,
    /// How many preconditions begin each path's constraints, each edge then adding its
    /// own (precise mode): paths may share the scopes of a prefix.
    pub pre_len: Option<usize>,
    pub cancel: &'a Cancel,
}

impl Listing<'_> {
    /// The first `limit` paths with their constraints, and whether there are more.
    pub fn gather(
        &self,
        limit: usize,
        mut constraints_of: impl FnMut(&Path) -> (Vec<Constraint>, InForce, Vec<Dropped>),
        stats: &mut Stats,
    ) -> Result<(Vec<Pending>, bool), Stopped> {
        let mut out = Vec::new();
        for path in self.dag.paths() {
            if out.len() == limit {
                return Ok((out, true));
            }
            self.cancel.check()?;
            let (constraints, at_edge, dropped) =
                timed(&mut stats.path_constraints, || constraints_of(&path));
            out.push(Pending {
                path,
                constraints,
                at_edge,
                dropped,
            });
        }
        self.cancel.check()?;
        Ok((out, false))
    }

    /// Whether deciding `p` takes a query (see [`Listing::decide`] for `refuted`).
    pub fn needs_solver(&self, p: &Pending, refuted: &[bool]) -> bool {
        self.without_solver(p, refuted).is_none()
    }

    /// The decision on `p` when it needs no query.
    fn without_solver(&self, p: &Pending, refuted: &[bool]) -> Option<paths::Decision> {
        if p.path.edges.iter().any(|&e| refuted.get(e) == Some(&true)) {
            return Some(paths::refuted(&p.constraints));
        }
        paths::decided_without_solver(
            &p.constraints,
            &p.dropped,
            self.params,
            self.inputs,
            self.lenient,
            |t| self.assertable.check(t),
        )
    }

    /// Decides the paths; `solver` (holding the preconditions) may be `None` when no path
    /// needs it. A path taking a `refuted` edge is infeasible without a query: `refuted`
    /// edges are those a definitional encoding of all paths refutes (it is weaker than any
    /// one path's constraints).
    pub fn decide(
        &self,
        mut solver: Option<&mut Solver>,
        pending: Vec<Pending>,
        refuted: &[bool],
        stats: &mut Stats,
    ) -> Result<Vec<PathReport>, Stopped> {
        let checks = solver.as_ref().map(|s| s.usage().checks);
        let mut out = Vec::with_capacity(pending.len());
        let mut prefixes = Prefixes::default();
        for p in pending {
            self.cancel.check()?;
            let (feasible, witness) = match self.without_solver(&p, refuted) {
                Some(decided) => decided,
                None => match solver.as_deref_mut() {
                    Some(solver) => self.query(solver, &mut prefixes, &p),
                    None => (Feasible::Unknown(NO_SOLVER.into()), None),
                },
            };
            out.push(PathReport {
                id: out.len(),
                end: paths::end_of(self.dag, p.path.edges.last().copied()),
                edges: p.path.edges,
                constraints: p.constraints,
                at_edge: p.at_edge,
                dropped: p.dropped,
                feasible,
                witness,
            });
        }
        if let (Some(before), Some(solver)) = (checks, solver) {
            prefixes.clear(solver);
            stats.path_checks += solver.usage().checks - before;
        }
        Ok(out)
    }

    /// Decides `p` with a query: on the shared prefix's scopes when it needs no witness,
    /// else in a scope of its own.
    fn query(&self, solver: &mut Solver, prefixes: &mut Prefixes, p: &Pending) -> Decision {
        let Some(split) = self.split(p) else {
            prefixes.clear(solver);
            return paths::decide(
                solver,
                &p.constraints,
                &p.dropped,
                self.params,
                self.inputs,
                self.lenient,
            );
        };
        match prefixes.check(solver, &split) {
            Answer::Checked(CheckSat::Sat) => (Feasible::Unknown(DEPENDS.into()), None),
            Answer::Checked(CheckSat::Unsat) => (Feasible::No, None),
            Answer::Checked(CheckSat::Unknown(reason)) => {
                (Feasible::Unknown(reason.to_string()), None)
            }
            Answer::Refused(reason) => (Feasible::Unknown(reason), None),
        }
    }

    /// `p`'s constraints split by edge, when it can share a prefix's scopes: it depends
    /// on untranslated conditions, so it needs no witness.
    fn split<'p>(&self, p: &'p Pending) -> Option<Split<'p>> {
        let pre_len = self.pre_len?;
        if p.dropped.is_empty() || self.lenient {
            return None;
        }
        let ends: Vec<usize> = std::iter::once(pre_len)
            .chain(p.at_edge.iter().map(<[usize]>::len))
            .collect();
        let ordered = ends.windows(2).all(|w| w[0] <= w[1]);
        if !ordered || ends.last() != Some(&p.constraints.len()) {
            return None;
        }
        Some(Split {
            edges: &p.path.edges,
            terms: p.constraints.iter().map(|c| &c.term).collect(),
            ends,
        })
    }
}

/// Whether the solver takes each term ([`assertable`], which lowers it), found once per
/// term however many paths share it.
#[derive(Default)]
pub struct Assertable(RefCell<TermMemo<bool>>);

impl Assertable {
    fn check(&self, t: &Term) -> bool {
        *self.0.borrow_mut().get_or(t, |t| assertable(t).is_ok())
    }
}
