//! `%%rust` cells: Rust evaluated by evcxr in a child process, against the
//! `analysis-prelude` crate (`crates/analysis-prelude`), and the domains and analyses those
//! cells register, run by the kernel's own engine and views.
//!
//! - [`prelude_crate`]: the prelude's sources, carried in the binary and written once to a
//!   directory cells depend on by path;
//! - [`builds`]: stopping a running compilation on interrupt;
//! - [`worker`]: the evcxr context (one per session, made by the first Rust cell, dropped by
//!   `%rust-reset`), on its own thread; compile errors, panics and interrupts;
//! - [`registry`]: the Unix socket a cell's `register_domain`/`register_analysis` connects
//!   to, and the connections the kernel calls the cell's code through;
//! - [`domain`]: a registered domain as an [`crate::dataflow::domains::AbstractDomain`];
//! - [`flow`]: a registered analysis as an engine analysis;
//! - [`views`]: the commands, and `%absint`/`%dataflow`/`%lattice`/`%check-domain` on a
//!   registered name.

mod builds;
pub mod domain;
pub mod flow;
mod prelude_crate;
pub mod registry;
pub mod views;
pub mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use registry::{Registry, RustEntry};

use crate::dataflow::user::{Entry, Kind};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Allows `%%rust` in this process: only a binary whose `main` calls `evcxr::runtime_hook()`
/// first can be evcxr's child process (the kernel's does; in-process tests and the fuzzer
/// do not, and get a clear refusal).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Whether [`enable`] was called.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The session's Rust state: the evcxr context (once a Rust cell ran) and the registry.
#[derive(Default)]
pub struct RustCells {
    pub worker: Option<worker::Worker>,
    pub registry: Option<Arc<Registry>>,
}

impl RustCells {
    /// The registered entry `name` of `kind`, if a Rust cell registered one.
    pub fn entry(&self, kind: Kind, name: &str) -> Option<RustEntry> {
        self.registry.as_ref()?.get(kind, name)
    }

    /// The registered entries as the `analysis` registry lists them.
    pub fn entries(&self) -> Vec<Entry> {
        self.registry
            .as_ref()
            .map(|r| r.list())
            .unwrap_or_default()
            .into_iter()
            .map(|e| Entry {
                kind: e.kind,
                name: e.name.clone(),
                description: e.description.clone(),
                class_name: format!("{} (Rust)", e.type_name),
            })
            .collect()
    }

    /// Drops the context (killing its process) and the registrations.
    pub fn reset(&mut self) -> bool {
        if let Some(r) = &self.registry {
            r.clear();
        }
        self.worker.take().is_some()
    }
}

/// Puts the Rust entries into the session's listing of cell-defined entries (after the
/// Python ones, replacing the previous Rust ones).
pub fn sync_entries(session: &mut crate::notebook::session::Session) {
    let rust = session.rust.entries();
    session
        .user
        .entries
        .retain(|e| !e.class_name.ends_with(" (Rust)"));
    session.user.entries.extend(rust);
}
