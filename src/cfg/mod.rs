//! Control-flow graphs of Python functions and top-level code (petgraph), for `%cfg` and for
//! the analyses built on them (dataflow, path constraints, symbolic execution).
//!
//! [`function_cfg`] and [`module_cfg`] build the statement-level graph: an entry and an exit
//! node, one node per statement (compound statements by their header), `except` clause and
//! `case`, condition nodes with one True and one False edge, exception edges to the handlers
//! that may catch (or to the exit), a join node after each `finally` body, and unreachable
//! nodes kept and marked. [`basic_blocks`] merges straight-line runs; [`dominators`] and
//! [`post_dominators`] give the dominator trees; [`verify`] checks the invariants.

mod blocks;
mod build;
mod calls;
mod dominators;
pub mod exceptions;
mod frontiers;
mod graph;
mod index;
mod verify;
pub mod walk;

pub use blocks::{Blocks, basic_blocks};
pub use build::{
    CfgError, Options, function_cfg, function_cfg_with, module_cfg, module_cfg_with, scope_code,
};
pub use dominators::{DomTree, dominators, post_dominators};
pub use frontiers::{Orientation, children, frontiers};
pub use graph::{Cfg, Edge, Granularity, Node, NodeKind, NodeStmt, Role};
pub use index::{Item, index};
pub use verify::{InvariantError, verify};
pub use walk::Walk;
