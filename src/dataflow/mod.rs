//! Lattices and abstract domains for dataflow analysis and abstract interpretation.
//!
//! - [`lattice`]: the traits (`JoinSemiLattice`, `MeetSemiLattice`, `HasBottom`, `HasTop`,
//!   `Widening`) and the generic lattices `Flat`, pairs, `Dual`, `MaybeReachable`;
//! - [`bitset`]: powersets of facts as bit sets, with a `Universe` numbering the facts;
//! - [`map`]: `MapLattice`, one lattice value per variable (the "program lattice");
//! - [`domains`]: the numeric domains (zero, sign, constant, interval, parity) and their
//!   soundness check;
//! - [`finite`]: small finite orders for display, Hasse diagrams and the lattice-law check;
//! - [`engine`]: the generic fixpoint engine (worklist, widening, narrowing, trace);
//! - [`analyses`]: reaching definitions, live variables, available and very busy
//!   expressions, def-use chains;
//! - [`absint`]: abstract interpretation over the numeric domains, with warnings;
//! - [`interproc`]: interprocedural abstract interpretation (call strings, summaries);
//! - [`report`]: the one result type of the analyses and of abstract interpretation;
//! - [`registry`]: the tables of domains and analyses that the commands read;
//! - [`user`]: domains written in cells, run in process through the interpreter.

pub mod absint;
pub mod analyses;
pub mod bitset;
pub mod dependence;
pub mod domains;
pub mod engine;
pub mod finite;
pub mod interproc;
pub mod lattice;
pub mod map;
pub mod registry;
pub mod report;
pub mod slice;
pub mod slice_jumps;
pub mod slice_program;
pub mod user;

pub use bitset::{BitSet, Universe};
pub use lattice::{
    Dual, Flat, HasBottom, HasTop, JoinSemiLattice, MaybeReachable, MeetSemiLattice, Widening,
};
pub use map::MapLattice;
