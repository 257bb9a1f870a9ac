//! Where one analysis spends its time, for `bench_constraints`: each kind of work counted
//! once, and the solver checks of edge feasibility and of path listing.

use std::ops::AddAssign;
use std::time::{Duration, Instant};

use crate::symbolic::Usage;

/// Time per kind of work, and solver checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The CFG and its DAG.
    pub cfg: Duration,
    /// SSA numbering, parameters, preconditions.
    pub semantics: Duration,
    /// The terms of the path encodings: edge steps, φ-variables, PythonTA's lists.
    pub encoding: Duration,
    /// Making a solver (and its watcher thread) for an analysis.
    pub solver_setup: Duration,
    /// Lowering terms to Z3 and asserting them.
    pub lowering: Duration,
    /// Z3 checks.
    pub checking: Duration,
    /// Pushing and popping solver scopes (Z3 takes in what was asserted at a push).
    pub scoping: Duration,
    /// Reading models: the edges a model settles, witnesses.
    pub models: Duration,
    /// Each listed path's constraints.
    pub path_constraints: Duration,
    /// The whole analysis.
    pub total: Duration,
    /// Deciding edges in later loop iterations: all of the above that it does.
    pub later_iterations: Duration,
    /// Z3 checks deciding edges in later loop iterations (counted in `edge_checks`).
    pub later_iteration_checks: u32,
    /// Z3 checks deciding edges (once through and in later iterations).
    pub edge_checks: u32,
    /// Z3 checks deciding listed paths.
    pub path_checks: u32,
    /// Checks the incremental solver left to a fresh one (counted in the two above).
    pub fallbacks: u32,
    /// Analyses that took a solver from the pool.
    pub solver_uses: u32,
}

impl Stats {
    /// What no other field accounts for.
    pub fn other(&self) -> Duration {
        let counted = self.cfg
            + self.semantics
            + self.encoding
            + self.solver_setup
            + self.lowering
            + self.checking
            + self.scoping
            + self.models
            + self.path_constraints;
        self.total.saturating_sub(counted)
    }

    /// Adds the solver's work since `before` (of the same solver).
    pub fn add_solver(&mut self, before: Usage, after: Usage) {
        let spent = after - before;
        self.lowering += spent.lowering;
        self.checking += spent.checking;
        self.scoping += spent.scoping;
        self.models += spent.reading;
        self.fallbacks += spent.fallbacks;
    }
}

impl AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.cfg += o.cfg;
        self.semantics += o.semantics;
        self.encoding += o.encoding;
        self.solver_setup += o.solver_setup;
        self.lowering += o.lowering;
        self.checking += o.checking;
        self.scoping += o.scoping;
        self.models += o.models;
        self.path_constraints += o.path_constraints;
        self.total += o.total;
        self.later_iterations += o.later_iterations;
        self.later_iteration_checks += o.later_iteration_checks;
        self.edge_checks += o.edge_checks;
        self.path_checks += o.path_checks;
        self.fallbacks += o.fallbacks;
        self.solver_uses += o.solver_uses;
    }
}

/// Runs `f`, adding its time to `slot`.
pub fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    *slot += started.elapsed();
    out
}
