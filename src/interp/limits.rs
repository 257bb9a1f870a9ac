//! The bounds of one run: steps, call depth, and the size of ints and sequences a single
//! operation may produce (so `2 ** 10**9` or `'a' * 10**12` fail fast instead of hanging).

use std::cell::Cell;

/// Bounds of one `run_module` or `call`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Statements, loop iterations, calls and elements consumed by builtins, per run.
    pub step_budget: u64,
    /// Nested calls of user functions (lambdas and comprehensions count).
    pub recursion_limit: u32,
    /// Bits of the largest int `*`, `**` and `<<` may produce (beyond: `MemoryError`).
    pub max_int_bits: u64,
    /// Items of the largest str, list or tuple an operation may produce (beyond: `MemoryError`).
    pub max_len: usize,
}

impl Limits {
    /// The given budget and depth with the default size bounds.
    pub fn new(step_budget: u64, recursion_limit: u32) -> Limits {
        Limits {
            step_budget,
            recursion_limit,
            ..Limits::default()
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            step_budget: 100_000_000,
            recursion_limit: 200,
            max_int_bits: 1 << 22,
            max_len: 1 << 24,
        }
    }
}

thread_local! {
    /// The limits of the run in progress on this thread (each interpreter runs on its own).
    static CURRENT: Cell<Limits> = Cell::new(Limits::default());
}

pub(crate) fn current() -> Limits {
    CURRENT.with(Cell::get)
}

pub(crate) fn set_current(limits: Limits) {
    CURRENT.with(|c| c.set(limits));
}
