//! Path conditions and the solver behind them. A path keeps the constraints it shows
//! (the book's rule: a constraint implied by the path so far is not added, and older ones a
//! new constraint implies are dropped) and, separately, the chain of constraints the solver
//! must hold. One incremental solver follows the depth-first exploration: it pops to the
//! common prefix of the next path and pushes the rest, so a branch check costs one
//! push/assert/check/pop on top of what is already asserted.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::SymexecError;
use super::tree::Stats;
use crate::cancel::Cancel;
use crate::symbolic::{Check, Model, Solver, Term, Var};

/// One asserted constraint and the ones before it.
#[derive(Debug)]
pub struct Link {
    term: Term,
    parent: Option<Rc<Link>>,
    /// Constraints in the chain up to this one (the root has 1).
    depth: usize,
}

/// A path condition.
#[derive(Clone, Debug, Default)]
pub struct Path {
    /// What the tree shows: equivalent to the whole chain.
    pub shown: Vec<Term>,
    chain: Option<Rc<Link>>,
}

/// The solver's answer about one branch.
pub enum Answer {
    Sat(Rc<Model>),
    Unsat,
    Unknown,
}

/// The solvers of one exploration.
pub struct Oracle {
    solver: Solver,
    /// For implications between two constraints, outside any path.
    scratch: Solver,
    /// The links asserted in `solver`, one scope each, root first.
    asserted: Vec<Rc<Link>>,
    pub stats: Stats,
}

impl Path {
    /// The conjunction of the shown constraints (`True` when there are none).
    pub fn condition(&self) -> Term {
        Term::and(self.shown.clone()).unwrap_or_else(|_| Term::bool(true))
    }
}

fn vars(t: &Term) -> BTreeSet<Var> {
    t.vars().into_iter().map(|(v, _)| v).collect()
}

impl Oracle {
    pub fn new(timeout_ms: u32, cancel: &Cancel) -> Oracle {
        Oracle {
            solver: Solver::new(timeout_ms).with_cancel(cancel.clone()),
            scratch: Solver::new(timeout_ms).with_cancel(cancel.clone()),
            asserted: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Makes the solver hold exactly `path`'s chain: pops to the longest prefix it shares
    /// with what is asserted and pushes the rest (walking only the links that differ).
    fn sync(&mut self, path: &Path) -> Result<(), SymexecError> {
        let mut missing: Vec<Rc<Link>> = Vec::new();
        let mut at = path.chain.clone();
        let common = loop {
            match at {
                None => break 0,
                Some(link) => {
                    if self
                        .asserted
                        .get(link.depth - 1)
                        .is_some_and(|a| Rc::ptr_eq(a, &link))
                    {
                        break link.depth;
                    }
                    at = link.parent.clone();
                    missing.push(link);
                }
            }
        };
        while self.asserted.len() > common {
            self.solver.pop().map_err(SymexecError::Solver)?;
            self.asserted.pop();
        }
        for link in missing.into_iter().rev() {
            self.solver.push();
            self.solver
                .assert(&link.term)
                .map_err(SymexecError::Solver)?;
            self.asserted.push(link);
        }
        Ok(())
    }

    /// Whether `path` and `extra` can hold together.
    pub fn check(&mut self, path: &Path, extra: &Term) -> Result<Answer, SymexecError> {
        self.sync(path)?;
        self.stats.branch_checks += 1;
        self.solver.push();
        let answer = self.solver.assert(extra).map(|()| self.solver.check());
        self.solver.pop().map_err(SymexecError::Solver)?;
        Ok(match answer.map_err(SymexecError::Solver)? {
            Check::Sat(m) => Answer::Sat(Rc::new(m)),
            Check::Unsat => Answer::Unsat,
            Check::Unknown(reason) => {
                reason.stopped()?;
                Answer::Unknown
            }
        })
    }

    /// A model of `path` (for a leaf's witness).
    pub fn model(&mut self, path: &Path) -> Result<Option<Model>, SymexecError> {
        self.sync(path)?;
        self.stats.witness_checks += 1;
        Ok(match self.solver.check() {
            Check::Sat(m) => Some(m),
            Check::Unknown(reason) => {
                reason.stopped()?;
                None
            }
            Check::Unsat => None,
        })
    }

    /// `path` with `c` added: asserted for later checks, shown unless `implied` (the path
    /// already implies it); shown constraints that `c` implies are dropped.
    pub fn extend(&mut self, path: &Path, c: Term, implied: bool) -> Result<Path, SymexecError> {
        if implied {
            return Ok(path.clone());
        }
        let mut next = Path {
            shown: Vec::with_capacity(path.shown.len() + 1),
            chain: Some(Rc::new(Link {
                term: c.clone(),
                parent: path.chain.clone(),
                depth: path.chain.as_ref().map_or(1, |l| l.depth + 1),
            })),
        };
        // A constraint can only imply one over its own variables (up to degenerate ones
        // like `0 * x == 0`, which then stay shown): the others are not asked about.
        let new_vars = vars(&c);
        for old in &path.shown {
            let within = vars(old).iter().all(|v| new_vars.contains(v));
            if within && self.implies(&c, old)? {
                continue;
            }
            next.shown.push(old.clone());
        }
        next.shown.push(c);
        Ok(next)
    }

    /// Whether `a` implies `b` on its own (unknown counts as no).
    fn implies(&mut self, a: &Term, b: &Term) -> Result<bool, SymexecError> {
        self.stats.implication_checks += 1;
        match self.scratch.implies(a, b) {
            Ok(yes) => Ok(yes),
            Err(crate::symbolic::SolverError::Unknown(r)) => {
                r.stopped()?;
                Ok(false)
            }
            Err(e) => Err(SymexecError::Solver(e)),
        }
    }
}
