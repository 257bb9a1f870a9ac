//! Stopping Z3 checks at their deadline or on cancellation: a watcher thread calls Z3's
//! `ContextHandle::interrupt` while the check runs on the caller's thread. Either one
//! watcher per check ([`check_alone`]), or one [`Watch`] serving every check of a batch
//! (`Solver::watching`, `with_watcher`): starting a thread per check costs more than most
//! checks.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::cancel::Cancel;

/// How often a watcher looks at the cancel flag while a check runs.
const POLL: Duration = Duration::from_millis(2);

/// Why a watcher stopped a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    TimedOut,
    Cancelled,
}

const RUNNING: u8 = 0;
const TIMED_OUT: u8 = 1;
const CANCELLED: u8 = 2;

fn stopped(code: u8) -> Option<Stopped> {
    match code {
        TIMED_OUT => Some(Stopped::TimedOut),
        CANCELLED => Some(Stopped::Cancelled),
        _ => None,
    }
}

/// What a watcher does at `now` for a check due at `deadline`: the reason to stop it, if
/// any, and how long to sleep before looking again.
fn look(deadline: Instant, cancel: Option<&Cancel>, now: Instant) -> (u8, Duration) {
    let why = if cancel.is_some_and(Cancel::is_cancelled) {
        CANCELLED
    } else if now >= deadline {
        TIMED_OUT
    } else {
        RUNNING
    };
    let wait = deadline.saturating_duration_since(now);
    let wait = if cancel.is_some() {
        wait.min(POLL)
    } else {
        wait
    };
    (why, wait.max(Duration::from_millis(1)))
}

/// Runs `check` with a watcher thread of its own.
pub fn check_alone<T>(
    handle: &z3::ContextHandle<'_>,
    cancel: Option<&Cancel>,
    deadline: Instant,
    check: impl FnOnce() -> T,
) -> (T, Option<Stopped>) {
    let done = AtomicBool::new(false);
    let why = AtomicU8::new(RUNNING);
    let result = std::thread::scope(|scope| {
        let (done, why) = (&done, &why);
        let watcher = scope.spawn(move || {
            // Interrupt until the check returns: an interrupt that lands before Z3 starts
            // listening is lost.
            while !done.load(Ordering::SeqCst) {
                let (now_why, wait) = look(deadline, cancel, Instant::now());
                if now_why != RUNNING {
                    why.store(now_why, Ordering::SeqCst);
                }
                if why.load(Ordering::SeqCst) != RUNNING {
                    handle.interrupt();
                }
                std::thread::park_timeout(wait);
            }
        });
        let result = check();
        done.store(true, Ordering::SeqCst);
        watcher.thread().unpark();
        result
    });
    (result, stopped(why.load(Ordering::SeqCst)))
}

/// The check a batch watcher is watching.
#[derive(Clone, Debug)]
struct Running {
    deadline: Instant,
    cancel: Option<Cancel>,
    why: u8,
}

#[derive(Debug, Default)]
struct State {
    check: Option<Running>,
    quit: bool,
}

/// A watcher serving a batch of checks, one at a time.
#[derive(Debug, Default)]
pub struct Watch {
    state: Mutex<State>,
    wake: Condvar,
}

impl Watch {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The watcher thread's loop, until [`Watch::quit`].
    pub fn serve(&self, handle: &z3::ContextHandle<'_>) {
        let mut state = self.lock();
        loop {
            if state.quit {
                return;
            }
            let Some(running) = state.check.as_mut() else {
                state = self
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            let (why, wait) = look(running.deadline, running.cancel.as_ref(), Instant::now());
            if why != RUNNING {
                running.why = why;
            }
            // Interrupt until the check returns (see `check_alone`).
            if running.why != RUNNING {
                handle.interrupt();
            }
            state = self
                .wake
                .wait_timeout(state, wait)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Runs `check` under this watch.
    pub fn check<T>(
        &self,
        deadline: Instant,
        cancel: Option<&Cancel>,
        check: impl FnOnce() -> T,
    ) -> (T, Option<Stopped>) {
        self.lock().check = Some(Running {
            deadline,
            cancel: cancel.cloned(),
            why: RUNNING,
        });
        self.wake.notify_one();
        let result = check();
        let why = self.lock().check.take().map_or(RUNNING, |r| r.why);
        (result, stopped(why))
    }

    /// Whether [`Watch::serve`] still runs (not after a panic ended its batch).
    pub fn serving(&self) -> bool {
        !self.lock().quit
    }

    /// Ends [`Watch::serve`].
    pub fn quit(&self) {
        self.lock().quit = true;
        self.wake.notify_one();
    }
}

/// Runs `work` while a watcher thread serves a new [`Watch`] on `handle`'s context; the
/// watcher quits when `work` returns or panics.
pub fn serving<T>(handle: &z3::ContextHandle<'_>, work: impl FnOnce(&Arc<Watch>) -> T) -> T {
    let watch = Arc::new(Watch::default());
    std::thread::scope(|scope| {
        let _quit = QuitOnDrop(&watch);
        let served = Arc::clone(&watch);
        scope.spawn(move || served.serve(handle));
        work(&watch)
    })
}

/// Quits a watch when dropped, so that a panicking batch does not wait for its watcher.
struct QuitOnDrop<'w>(&'w Watch);

impl Drop for QuitOnDrop<'_> {
    fn drop(&mut self) {
        self.0.quit();
    }
}
