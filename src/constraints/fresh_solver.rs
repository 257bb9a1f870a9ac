//! A fresh Z3 solver for each analysis, in a scope of its own.
//!
//! Solvers are not reused across analyses. A reused one (the earlier pool, 64 analyses per
//! solver) kept Z3 state that made later queries over dict parameters (a quantified axiom
//! over sequences of keys) spend the analysis' whole time budget where a fresh solver
//! answers in milliseconds: which functions lost their verdicts depended on what ran
//! before (measured: 3 in 5 `%constraints positive_stock` after the same other functions).
//! Making a solver costs under a millisecond with today's Z3 (about 0.8 ms: 624 ms for
//! 772 analyses of the stdlib corpus), and the corpus ran faster without reuse (47.6 s
//! against 59.9 s).

use std::time::{Duration, Instant};

use super::stats::{Stats, timed};
use crate::cancel::Cancel;
use crate::symbolic::Solver;

/// Checks after which a solver replaces its Z3 solver within an analysis (measured on the
/// stdlib corpus: replacing every 200 checks, the solver's default, costs 7% of the run and
/// speeds up no query).
const RECYCLE_AFTER: u32 = 1_000;

/// The solver time one analysis may take, in query timeouts: without a bound, a function
/// of many hard queries (nonlinear arithmetic, say) takes a timeout per edge.
const BUDGET_TIMEOUTS: u64 = 2;

/// Runs `work` with a fresh solver of the given timeout that watches `cancel` (one watcher
/// thread for all its checks) and stops after [`BUDGET_TIMEOUTS`] timeouts in all.
pub fn with_solver<T>(timeout_ms: u32, cancel: &Cancel, work: impl FnOnce(&mut Solver) -> T) -> T {
    let mut solver = Solver::new(timeout_ms)
        .recycling_after(RECYCLE_AFTER)
        .with_cancel(cancel.clone());
    solver.set_budget(Some(u64::from(timeout_ms).saturating_mul(BUDGET_TIMEOUTS)));
    solver.watching(work)
}

/// [`with_solver`], adding the solver's work and the time taken to make the solver to
/// `stats`.
pub fn with_solver_counted<T>(
    timeout_ms: u32,
    cancel: &Cancel,
    stats: &mut Stats,
    work: impl FnOnce(&mut Solver, &mut Stats) -> T,
) -> T {
    let started = Instant::now();
    let mut working = Duration::ZERO;
    let out = with_solver(timeout_ms, cancel, |solver| {
        let before = solver.usage();
        let out = timed(&mut working, || work(solver, stats));
        stats.add_solver(before, solver.usage());
        out
    });
    stats.solver_setup += started.elapsed().saturating_sub(working);
    stats.solver_uses += 1;
    out
}
