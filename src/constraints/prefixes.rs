//! Satisfiability of listed paths that need no witness, asserted incrementally: a scope for
//! the preconditions and one per edge of the path asserted last, so that a path only
//! asserts what follows the prefix it shares with that one (paths come in depth-first
//! order). The answer is the one a scope of the path's own would give: the same
//! constraints, the same first one that cannot be asserted.

use super::dag::EdgeId;
use crate::symbolic::{CheckSat, Solver, Term};

/// A path's constraints, split where each edge's begin.
pub struct Split<'p> {
    pub edges: &'p [EdgeId],
    /// The constraints: the preconditions, then each edge's.
    pub terms: Vec<&'p Term>,
    /// Where the preconditions end, then where each edge's constraints end.
    pub ends: Vec<usize>,
}

/// The scopes pushed for the path asserted last.
#[derive(Default)]
pub struct Prefixes {
    /// The edges with a scope (the preconditions' scope is below them).
    edges: Vec<EdgeId>,
    /// For the preconditions' scope and each edge's: the first constraint the solver
    /// refused up to there.
    failures: Vec<Option<String>>,
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
        let shared = if self.failures.is_empty() {
            None
        } else {
            Some(
                self.edges
                    .iter()
                    .zip(path.edges)
                    .take_while(|(a, b)| a == b)
                    .count(),
            )
        };
        match shared {
            Some(k) => {
                while self.edges.len() > k {
                    self.edges.pop();
                    self.failures.pop();
                    let _ = solver.pop();
                }
            }
            None => self.push(solver, &path.terms[..path.ends[0]], None),
        }
        for i in self.edges.len()..path.edges.len() {
            let terms = &path.terms[path.ends[i]..path.ends[i + 1]];
            self.push(solver, terms, Some(path.edges[i]));
        }
        match self.failures.last().cloned().flatten() {
            Some(reason) => Answer::Refused(reason),
            None => Answer::Checked(solver.check_sat()),
        }
    }

    /// A scope asserting `terms` (for `edge`, or the preconditions).
    fn push(&mut self, solver: &mut Solver, terms: &[&Term], edge: Option<EdgeId>) {
        solver.push();
        let mut failure = self.failures.last().cloned().flatten();
        if failure.is_none() {
            for t in terms {
                if let Err(e) = solver.assert(t) {
                    failure = Some(e.to_string());
                    break;
                }
            }
        }
        self.failures.push(failure);
        if let Some(e) = edge {
            self.edges.push(e);
        }
    }

    /// Pops every scope.
    pub fn clear(&mut self, solver: &mut Solver) {
        for _ in 0..self.failures.len() {
            let _ = solver.pop();
        }
        self.edges.clear();
        self.failures.clear();
    }
}
