//! One incremental solver following a depth-first walk over paths, as KLEE's does: a scope
//! per step of the path asserted last, so the next path pops to the prefix it shares with
//! it and asserts only the rest. Both symbolic engines use it: `%set` (`symexec::path`,
//! a step per branch constraint) and `%constraints` (`constraints::listing`, a step for the
//! preconditions and one per edge).

use super::{Solver, SolverError};
use crate::symbolic::term::Term;

/// The scopes of the path asserted last, by step.
pub struct PathScopes<K> {
    steps: Vec<Step<K>>,
}

/// One step of the path asserted last.
struct Step<K> {
    key: K,
    /// Whether the step has a scope of its own (a step asserting nothing has none).
    scoped: bool,
    /// The first assertion the solver refused, up to and including this step: nothing is
    /// asserted after it.
    refused: Option<SolverError>,
}

impl<K> Default for PathScopes<K> {
    fn default() -> Self {
        PathScopes { steps: Vec::new() }
    }
}

impl<K> PathScopes<K> {
    /// Steps asserted.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The key of step `i`.
    pub fn key(&self, i: usize) -> Option<&K> {
        self.steps.get(i).map(|s| &s.key)
    }

    /// How many leading steps are `path`'s, compared by `same`.
    pub fn shared<'p>(
        &self,
        path: impl IntoIterator<Item = &'p K>,
        same: impl Fn(&K, &K) -> bool,
    ) -> usize
    where
        K: 'p,
    {
        self.steps
            .iter()
            .zip(path)
            .take_while(|(step, key)| same(&step.key, key))
            .count()
    }

    /// Pops the steps after the first `len`.
    pub fn truncate(&mut self, solver: &mut Solver, len: usize) -> Result<(), SolverError> {
        while self.steps.len() > len {
            if let Some(Step { scoped: true, .. }) = self.steps.pop() {
                solver.pop()?;
            }
        }
        Ok(())
    }

    /// Asserts a step: its `terms` in a scope of their own (none when there are none), or
    /// nothing once an earlier assertion was refused.
    pub fn push<'t>(
        &mut self,
        solver: &mut Solver,
        key: K,
        terms: impl IntoIterator<Item = &'t Term>,
    ) {
        let mut terms = terms.into_iter().peekable();
        let scoped = terms.peek().is_some();
        let mut refused = self.refused().cloned();
        if scoped {
            solver.push();
            if refused.is_none() {
                refused = terms.find_map(|t| solver.assert(t).err());
            }
        }
        self.steps.push(Step {
            key,
            scoped,
            refused,
        });
    }

    /// The first assertion the solver refused on the path asserted last.
    pub fn refused(&self) -> Option<&SolverError> {
        self.steps.last().and_then(|s| s.refused.as_ref())
    }

    /// Pops every scope.
    pub fn clear(&mut self, solver: &mut Solver) -> Result<(), SolverError> {
        self.truncate(solver, 0)
    }
}
