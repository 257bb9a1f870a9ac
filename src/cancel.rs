//! The one stop signal of a cell: the kernel's interrupt sets it, and it trips itself when the
//! cell's time or memory budget ([`Budget`], armed per cell) is exceeded. Long work polls
//! [`Cancel::is_cancelled`] (or [`Cancel::check`]); [`Cancel::reason`] then says why it
//! stopped. [`Stopped`] is the one error of stopped work: every layer's error type holds it
//! (`From`), so `?` carries it up to the kernel, which maps it to the cell's error in one place.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::memory;

/// Why work was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The user interrupted the kernel.
    Interrupted,
    /// The cell ran past its time limit.
    Time,
    /// The process used more memory than the limit.
    Memory,
}

impl Stop {
    const CODES: [Stop; 3] = [Stop::Interrupted, Stop::Time, Stop::Memory];

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Stop> {
        Stop::CODES.get(usize::from(code).checked_sub(1)?).copied()
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stop::Interrupted => "interrupted by the user",
            Stop::Time => "time limit exceeded",
            Stop::Memory => "memory limit exceeded",
        })
    }
}

/// Work the stop signal ended, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Stopped(pub Stop);

/// The limits of one cell's work (`None`: unlimited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock time from the cell's start.
    pub time: Option<Duration>,
    /// Bytes the process may hold: its heap ([`memory::in_use`]) gets this less room for
    /// what is not counted ([`memory::heap_budget`]).
    pub memory: Option<usize>,
}

/// How many polls pass between two looks at the clock.
const CLOCK_EVERY: u32 = 256;
const NONE: u64 = u64::MAX;

#[derive(Debug)]
struct Inner {
    /// 0, or the code of the first [`Stop`].
    stop: AtomicU8,
    polls: AtomicU32,
    /// The time the deadline is measured from.
    epoch: Instant,
    /// Nanoseconds after `epoch` (`NONE`: no deadline).
    deadline_ns: AtomicU64,
    /// The armed time limit in milliseconds (`NONE`: none), for messages.
    time_ms: AtomicU64,
    /// Heap bytes (`usize::MAX`: no limit).
    memory: AtomicUsize,
    /// The armed memory budget (`usize::MAX`: none), for messages.
    memory_budget: AtomicUsize,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            stop: AtomicU8::new(0),
            polls: AtomicU32::new(0),
            epoch: Instant::now(),
            deadline_ns: AtomicU64::new(NONE),
            time_ms: AtomicU64::new(NONE),
            memory: AtomicUsize::new(usize::MAX),
            memory_budget: AtomicUsize::new(usize::MAX),
        }
    }
}

/// A stop signal shared by the kernel's control task and the work of the running cell.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<Inner>);

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the work (an interrupt), unless it was already stopped for another reason.
    pub fn cancel(&self) {
        self.trip(Stop::Interrupted);
    }

    /// Clears the stop and the budgets.
    pub fn reset(&self) {
        let i = &*self.0;
        i.deadline_ns.store(NONE, Ordering::SeqCst);
        i.time_ms.store(NONE, Ordering::SeqCst);
        i.memory.store(usize::MAX, Ordering::SeqCst);
        i.memory_budget.store(usize::MAX, Ordering::SeqCst);
        i.stop.store(0, Ordering::SeqCst);
    }

    /// Sets the budgets of work that started at `start` (the time limit counts from there).
    pub fn arm(&self, budget: Budget, start: Instant) {
        let i = &*self.0;
        let (deadline, ms) = match budget.time {
            Some(t) => {
                // A deadline before the epoch is already past: it saturates to the epoch.
                let at = (start + t).saturating_duration_since(i.epoch);
                let ns = u64::try_from(at.as_nanos()).unwrap_or(NONE - 1);
                (ns, u64::try_from(t.as_millis()).unwrap_or(NONE - 1))
            }
            None => (NONE, NONE),
        };
        i.deadline_ns.store(deadline, Ordering::SeqCst);
        i.time_ms.store(ms, Ordering::SeqCst);
        let memory = budget.memory.unwrap_or(usize::MAX);
        let heap = budget.memory.map_or(usize::MAX, memory::heap_budget);
        i.memory_budget.store(memory, Ordering::SeqCst);
        i.memory.store(heap, Ordering::SeqCst);
        i.polls.store(0, Ordering::Relaxed);
    }

    /// The armed budgets.
    pub fn budget(&self) -> Budget {
        let i = &*self.0;
        let ms = i.time_ms.load(Ordering::Relaxed);
        let memory = i.memory_budget.load(Ordering::Relaxed);
        Budget {
            time: (ms != NONE).then(|| Duration::from_millis(ms)),
            memory: (memory != usize::MAX).then_some(memory),
        }
    }

    /// Whether the work must stop: interrupted, or a budget exceeded (memory is checked at
    /// every poll, the clock at every 256th).
    pub fn is_cancelled(&self) -> bool {
        let i = &*self.0;
        if i.stop.load(Ordering::Relaxed) != 0 {
            return true;
        }
        if memory::in_use() > i.memory.load(Ordering::Relaxed) {
            self.trip(Stop::Memory);
            return true;
        }
        if i.polls
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(CLOCK_EVERY)
            && self.past_deadline()
        {
            self.trip(Stop::Time);
            return true;
        }
        false
    }

    /// `Err(Stopped)` when the work must stop ([`Cancel::is_cancelled`]).
    pub fn check(&self) -> Result<(), Stopped> {
        if self.is_cancelled() {
            Err(self.stopped())
        } else {
            Ok(())
        }
    }

    /// The error of work stopped by this signal (an interrupt when no reason is recorded).
    pub fn stopped(&self) -> Stopped {
        Stopped(self.reason().unwrap_or(Stop::Interrupted))
    }

    /// Why the work was stopped, if it was.
    pub fn reason(&self) -> Option<Stop> {
        Stop::from_code(self.0.stop.load(Ordering::SeqCst))
    }

    /// The heap bytes the armed memory budget allows, if one is armed.
    pub fn memory_limit(&self) -> Option<usize> {
        let heap = self.0.memory.load(Ordering::Relaxed);
        (heap != usize::MAX).then_some(heap)
    }

    fn past_deadline(&self) -> bool {
        let i = &*self.0;
        let deadline = i.deadline_ns.load(Ordering::Relaxed);
        deadline != NONE && i.epoch.elapsed().as_nanos() >= u128::from(deadline)
    }

    /// Records the first reason to stop.
    fn trip(&self, why: Stop) {
        let _ = self
            .0
            .stop
            .compare_exchange(0, why.code(), Ordering::SeqCst, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_is_the_reason_until_reset() {
        let c = Cancel::new();
        assert!(!c.is_cancelled());
        assert_eq!(c.reason(), None);
        c.clone().cancel();
        assert!(c.is_cancelled());
        assert_eq!(c.reason(), Some(Stop::Interrupted));
        assert_eq!(c.check(), Err(Stopped(Stop::Interrupted)));
        c.reset();
        assert_eq!(c.check(), Ok(()));
        assert!(!c.is_cancelled());
        assert_eq!(c.reason(), None);
    }

    #[test]
    fn a_spent_time_budget_trips_with_its_reason() {
        let c = Cancel::new();
        let start = Instant::now() - Duration::from_secs(2);
        c.arm(
            Budget {
                time: Some(Duration::from_secs(1)),
                memory: None,
            },
            start,
        );
        assert!((0..CLOCK_EVERY).any(|_| c.is_cancelled()));
        assert_eq!(c.reason(), Some(Stop::Time));
        c.cancel();
        assert_eq!(c.reason(), Some(Stop::Time), "the first reason is kept");
        assert_eq!(c.budget().time, Some(Duration::from_secs(1)));
    }

    #[test]
    fn memory_over_the_limit_trips_at_once() {
        let c = Cancel::new();
        c.arm(
            Budget {
                time: None,
                memory: Some(1),
            },
            Instant::now(),
        );
        assert!(c.is_cancelled());
        assert_eq!(c.reason(), Some(Stop::Memory));
        assert_eq!(c.memory_limit(), Some(1));
        c.reset();
        assert_eq!(c.budget(), Budget::default());
        assert!(!c.is_cancelled());
    }
}
