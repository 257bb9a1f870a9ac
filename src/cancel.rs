//! Cooperative cancellation: the kernel's interrupt sets the flag, long work polls it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A shared flag set by an interrupt request and polled by long-running work.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
