//! What big operations cost. An operation on big ints, strings or sequences charges steps in
//! proportion to the size of its operands ([`charge`]), so the step budget bounds time spent
//! in them (`while True: x = x * 3` stops in about a second), and polls the interrupt flag
//! and the memory budget as it goes. The memory budget is checked before every big result
//! ([`reserve`]) and every few steps: over it, the program gets a catchable `MemoryError`.

use std::cell::{Cell, RefCell};

use super::exc::{Abort, ExcKind, R, Unwind};
use crate::cancel::Cancel;
use crate::memory;

/// Steps charged between two polls of the interrupt flag and the memory inside operations.
const POLL_STEPS: u64 = 1 << 14;
/// Items of a sequence (or bytes of a string) read that cost one step (about ten
/// nanoseconds, like a statement).
const ITEMS_PER_STEP: usize = 16;
/// Bytes of a new string, list or tuple that cost one step.
const BYTES_PER_STEP: usize = 64;
/// Results smaller than this many bytes skip the memory check before allocating.
const RESERVE_FROM: usize = 1 << 16;

thread_local! {
    /// Steps charged by operations since the machine last took them.
    static DEBT: Cell<u64> = const { Cell::new(0) };
    /// Steps left in the run's budget when the machine last polled.
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    static BUDGET: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Heap bytes allowed, and the budget as the user set it (for the message).
    static MEMORY_LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
    static MEMORY_BUDGET: Cell<usize> = const { Cell::new(usize::MAX) };
    static CANCEL: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// Starts a run on this thread with `step_budget` steps and the budgets armed on `cancel`.
pub(crate) fn begin(step_budget: u64, cancel: &Cancel) {
    DEBT.set(0);
    LEFT.set(step_budget);
    BUDGET.set(step_budget);
    MEMORY_LIMIT.set(cancel.memory_limit().unwrap_or(usize::MAX));
    MEMORY_BUDGET.set(cancel.budget().memory.unwrap_or(usize::MAX));
    CANCEL.set(Some(cancel.clone()));
}

/// Ends the run: drops its handle on the stop signal.
pub(crate) fn end() {
    CANCEL.set(None);
}

/// Takes the steps charged since the last call (the machine pays them from its budget).
pub(crate) fn take_debt() -> u64 {
    DEBT.replace(0)
}

/// Records the steps left in the run's budget (after the machine paid its debt).
pub(crate) fn set_left(left: u64) {
    LEFT.set(left);
}

/// Charges `steps` to the run; stops it when the budget is spent, polls the interrupt flag
/// and the memory budget every [`POLL_STEPS`].
pub(crate) fn charge(steps: u64) -> R<()> {
    let before = DEBT.get();
    let after = before.saturating_add(steps);
    DEBT.set(after);
    if after / POLL_STEPS == before / POLL_STEPS {
        return Ok(());
    }
    if after >= LEFT.get() {
        return Err(step_budget_spent());
    }
    check_memory()?;
    let stopped = CANCEL.with_borrow(|c| c.as_ref().map_or(Ok(()), Cancel::check));
    if let Err(stopped) = stopped {
        return Err(Unwind::abort(Abort::Stopped(stopped)));
    }
    Ok(())
}

/// Charges an operation over `n` items or bytes.
pub(crate) fn charge_items(n: usize) -> R<()> {
    charge((n / ITEMS_PER_STEP) as u64)
}

/// Before building a result of `n` items of `item_bytes` bytes each: charges the work and
/// checks that the result fits in the memory budget.
pub(crate) fn produce(n: usize, item_bytes: usize) -> R<()> {
    let bytes = n.saturating_mul(item_bytes);
    charge((bytes / BYTES_PER_STEP) as u64)?;
    reserve(bytes)
}

/// The abort of a run whose step budget is spent.
pub(crate) fn step_budget_spent() -> Unwind {
    Unwind::abort(Abort::StepBudget(BUDGET.get()))
}

/// `MemoryError` if the process uses more than the memory budget.
pub(crate) fn check_memory() -> R<()> {
    check_room(0)
}

/// Before building a result of about `bytes` bytes: `MemoryError` if it would not fit in
/// the memory budget (small results are not checked here, only every few steps).
pub(crate) fn reserve(bytes: usize) -> R<()> {
    if bytes < RESERVE_FROM {
        return Ok(());
    }
    check_room(bytes)
}

fn check_room(bytes: usize) -> R<()> {
    let limit = MEMORY_LIMIT.get();
    if memory::in_use().saturating_add(bytes) <= limit {
        return Ok(());
    }
    Err(Unwind::new(
        ExcKind::MemoryError,
        format!(
            "the kernel would use more than {} MB (%config memory_mb); delete large values or raise the limit",
            MEMORY_BUDGET.get() >> 20
        ),
    ))
}
