//! Live counters of the work a running command has done (nodes explored, leaves, solver
//! calls, concrete runs), which the progress line (`kernel::progress`) reads every half
//! second. The analyses store their running totals with relaxed atomic writes (a few
//! nanoseconds per node); the kernel runs one cell at a time, and a command clears the
//! counters when it starts. Nothing but the progress line reads them, so concurrent analyses
//! in other threads (tests) can only blur a progress line, never a result.

use std::sync::atomic::{AtomicU64, Ordering};

static NODES: AtomicU64 = AtomicU64::new(0);
static LEAVES: AtomicU64 = AtomicU64::new(0);
static SOLVER_CALLS: AtomicU64 = AtomicU64::new(0);
static RUNS: AtomicU64 = AtomicU64::new(0);

/// Clears every counter (a command starts).
pub fn reset() {
    for c in [&NODES, &LEAVES, &SOLVER_CALLS, &RUNS] {
        c.store(0, Ordering::Relaxed);
    }
}

/// An exploration's running totals: nodes, leaves and solver calls so far.
pub fn explored(nodes: usize, leaves: usize, solver_calls: u64) {
    NODES.store(nodes as u64, Ordering::Relaxed);
    LEAVES.store(leaves as u64, Ordering::Relaxed);
    SOLVER_CALLS.store(solver_calls, Ordering::Relaxed);
}

/// One more concrete run finished (`%check`).
pub fn ran() {
    RUNS.fetch_add(1, Ordering::Relaxed);
}

/// The counters as the progress line shows them (`1,204 nodes, 310 leaves, 57 solver calls`),
/// or `None` while all are zero.
pub fn describe() -> Option<String> {
    format_counts(&[
        (NODES.load(Ordering::Relaxed), "nodes"),
        (LEAVES.load(Ordering::Relaxed), "leaves"),
        (SOLVER_CALLS.load(Ordering::Relaxed), "solver calls"),
        (RUNS.load(Ordering::Relaxed), "runs"),
    ])
}

/// The non-zero counts, `1,204 nodes, 310 leaves`; `None` when all are zero.
fn format_counts(counts: &[(u64, &str)]) -> Option<String> {
    let parts: Vec<String> = counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| {
            format!(
                "{} {what}",
                crate::render::cfg_summary::thousands(*n as usize)
            )
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_described_when_not_zero() {
        assert_eq!(format_counts(&[(0, "nodes"), (0, "runs")]), None);
        assert_eq!(
            format_counts(&[(1204, "nodes"), (0, "leaves"), (57, "solver calls")]).as_deref(),
            Some("1,204 nodes, 57 solver calls")
        );
    }
}
