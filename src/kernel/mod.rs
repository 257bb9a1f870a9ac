//! The Jupyter side: wire protocol, sockets, the kernelspec. The only layer that does I/O.

pub mod history;
pub mod install;
mod save;
pub mod server;
pub mod wire;

pub use server::{KernelError, KernelOptions, run};
