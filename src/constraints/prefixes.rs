//! Satisfiability of listed paths that need no witness, on the shared incremental solver
//! ([`PathScopes`]): a step for the preconditions and one per edge of the path asserted
//! last, so that a path only asserts what follows the prefix it shares with that one (paths
//! come in depth-first order). The answer is the one a scope of the path's own would give:
//! the same constraints, the same first one that cannot be asserted.

use super::dag::EdgeId;
use crate::symbolic::{CheckSat, PathScopes, Solver, Term};

/// A path's constraints, split where each edge's begin.
pub struct Split<'p> {
    pub edges: &'p [EdgeId],
    /// The constraints: the preconditions, then each edge's.
    pub terms: Vec<&'p Term>,
    /// Where the preconditions end, then where each edge's constraints end.
    pub ends: Vec<usize>,
}

/// The scopes of the path asserted last: the preconditions (`None`), then its edges.
#[derive(Default)]
pub struct Prefixes {
    scopes: PathScopes<Option<EdgeId>>,
}

/// What a path needing no witness is.
pub enum Answer {
    Checked(CheckSat),
    /// A constraint the solver refused, and why.
    Refused(String),
}

impl Prefixes {
    /// Whether `path` is satisfiable, with the solver's base scope below these scopes.
    pub fn check(&mut self, solver: &mut Solver, path: &Split<'_>) -> Answer {
        let steps: Vec<Option<EdgeId>> = std::iter::once(None)
            .chain(path.edges.iter().copied().map(Some))
            .collect();
        let shared = self.scopes.shared(&steps, |a, b| a == b);
        if let Err(e) = self.scopes.truncate(solver, shared) {
            return Answer::Refused(e.to_string());
        }
        for (i, step) in steps.iter().enumerate().skip(shared) {
            let start = if i == 0 { 0 } else { path.ends[i - 1] };
            let terms = path.terms[start..path.ends[i]].iter().copied();
            self.scopes.push(solver, *step, terms);
        }
        match self.scopes.refused() {
            Some(reason) => Answer::Refused(reason.to_string()),
            None => Answer::Checked(solver.check_sat()),
        }
    }

    /// Pops every scope.
    pub fn clear(&mut self, solver: &mut Solver) {
        // A pop without its push cannot happen: every scope popped was pushed here.
        let _ = self.scopes.clear(solver);
    }
}
