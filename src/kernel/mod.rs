//! The Jupyter side: wire protocol, sockets, the kernelspec. The only layer that does I/O.

pub mod history;
pub mod inbound;
pub mod install;
pub mod progress;
pub mod replay;
mod save;
pub mod server;
pub mod wire;

#[cfg(test)]
mod fuzz;

pub use server::{KernelError, KernelOptions, run};
