//! One Z3 solver per thread, lent to each analysis that needs one in a scope of its own:
//! making a solver costs about 15 ms (see `symbolic::solver`), more than analysing most
//! functions.

use std::cell::RefCell;

use std::time::{Duration, Instant};

use super::stats::{Stats, timed};
use crate::cancel::Cancel;
use crate::symbolic::Solver;

/// Analyses a pooled solver serves before it is replaced (Z3 keeps some state across
/// scopes).
const USES: u32 = 64;

/// Checks after which a pooled solver replaces its Z3 solver within an analysis: rarely,
/// as the pool replaces solvers anyway (measured on the stdlib corpus: replacing every
/// 200 checks, the solver's default, costs 7% of the run and speeds up no query).
const RECYCLE_AFTER: u32 = 1_000;

/// The solver time one analysis may take, in query timeouts: without a bound, a function
/// of many hard queries (nonlinear arithmetic, say) takes a timeout per edge.
const BUDGET_TIMEOUTS: u64 = 2;

thread_local! {
    static POOL: RefCell<Option<(Solver, u32)>> = const { RefCell::new(None) };
}

/// Runs `work` with a solver of the given timeout that watches `cancel` (one watcher thread
/// for all its checks) and stops after [`BUDGET_TIMEOUTS`] timeouts in all, in a fresh
/// scope popped afterwards.
pub fn with_solver<T>(timeout_ms: u32, cancel: &Cancel, work: impl FnOnce(&mut Solver) -> T) -> T {
    let pooled = POOL.with(|p| p.borrow_mut().take());
    let (solver, uses) = match pooled {
        Some((s, uses)) if s.timeout_ms() == timeout_ms && uses < USES => (s, uses + 1),
        _ => (Solver::new(timeout_ms).recycling_after(RECYCLE_AFTER), 1),
    };
    let mut solver = solver.with_cancel(cancel.clone());
    solver.set_budget(Some(u64::from(timeout_ms).saturating_mul(BUDGET_TIMEOUTS)));
    let out = solver.watching(|solver| {
        solver.push();
        let out = work(solver);
        // Back to the base scope (pop fails once no scope is left).
        while solver.pop().is_ok() {}
        out
    });
    solver.set_budget(None);
    POOL.with(|p| *p.borrow_mut() = Some((solver, uses)));
    out
}

/// [`with_solver`], adding the solver's work and the time taken to get and clear the
/// solver to `stats`.
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
