//! The analysis views behind the `%` commands: each turns code of the session or of a cell
//! into a [`View`](super::output::View).

pub mod cfg;
pub mod constraints;
pub mod lattice;
