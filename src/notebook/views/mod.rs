//! The analysis views behind the `%` commands: each turns code of the session or of a cell
//! into a [`View`](super::output::View).

pub mod absint;
pub mod annotate;
pub mod callgraph;
pub mod cfg;
pub mod check;
pub mod concolic;
pub mod constraints;
pub mod dataflow;
pub mod dependence;
pub mod flow;
pub mod flowtext;
pub mod lattice;
pub mod run;
pub mod set;
pub mod slice;
pub mod step;
pub mod subject;
pub mod user;
pub mod verify;
