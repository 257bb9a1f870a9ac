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
    /// The edges asserted, each with whether it has a scope (those adding nothing have
    /// none); the preconditions' scope is below them.
    edges: Vec<(EdgeId, bool)>,
    /// For the preconditions and each edge: the first constraint the solver refused up
    /// to there.
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
                    .take_while(|((a, _), b)| a == *b)
                    .count(),
            )
        };
        match shared {
            Some(k) => {
                while self.edges.len() > k {
                    if let Some((_, true)) = self.edges.pop() {
                        let _ = solver.pop();
                    }
                    self.failures.pop();
                }
            }
            None => {
                solver.push();
                let failure = assert_all(solver, &path.terms[..path.ends[0]]);
                self.failures.push(failure);
            }
        }
        for i in self.edges.len()..path.edges.len() {
            let terms = &path.terms[path.ends[i]..path.ends[i + 1]];
            self.push(solver, terms, path.edges[i]);
        }
        match self.failures.last().cloned().flatten() {
            Some(reason) => Answer::Refused(reason),
            None => Answer::Checked(solver.check_sat()),
        }
    }

    /// Asserts `edge`'s `terms`, in a scope of their own if there are any.
    fn push(&mut self, solver: &mut Solver, terms: &[&Term], edge: EdgeId) {
        let scoped = !terms.is_empty();
        let mut failure = self.failures.last().cloned().flatten();
        if scoped {
            solver.push();
            if failure.is_none() {
                failure = assert_all(solver, terms);
            }
        }
        self.failures.push(failure);
        self.edges.push((edge, scoped));
    }

    /// Pops every scope.
    pub fn clear(&mut self, solver: &mut Solver) {
        let scopes = self.edges.iter().filter(|(_, scoped)| *scoped).count();
        let preconditions = usize::from(!self.failures.is_empty());
        for _ in 0..scopes + preconditions {
            let _ = solver.pop();
        }
        self.edges.clear();
        self.failures.clear();
    }
}

/// Asserts `terms` up to the first the solver refuses; why it refused it.
fn assert_all(solver: &mut Solver, terms: &[&Term]) -> Option<String> {
    for t in terms {
        if let Err(e) = solver.assert(t) {
            return Some(e.to_string());
        }
    }
    None
}
