//! Z3 path constraints on CFG edges (`%constraints`), PythonTA's edge constraints done
//! without its exponential blow-up.
//!
//! For a function: the preconditions of its docstring, every path from the entry (loops
//! taken at most once per path, so the paths are PythonTA's `get_paths()`) with the
//! constraints on each edge (preconditions, branch conditions negated on False edges, SSA
//! definitions such as `x_1 == x - 5`), the feasibility of each path with a witness input,
//! the feasibility of every edge, and the redundant or impossible conditions (PythonTA's
//! R9900/R9901). Edge feasibility never enumerates paths: at most one query per edge over
//! a path-encoding of the acyclic CFG (`encode`), none where following guard-free edges
//! decides (`free`), so that most functions need no solver at all (`precise`). Paths are
//! listed up to a limit, those that need a query sharing the scopes of common prefixes.
//! `Mode::Pyta` reproduces PythonTA's rule of dropping every constraint that mentions a
//! reassigned parameter, for comparison.
//!
//! Only `symbolic::solver` talks to Z3; constraints are printed from the term tree.

mod analysis;
mod dag;
mod dicts;
pub(crate) mod docstring;
mod effects;
mod encode;
mod feasibility;
mod free;
mod fresh_solver;
mod in_force;
mod iterations;
mod listing;
mod none;
mod observed;
mod optional;
mod paths;
mod precise;
mod prefixes;
mod pyta;
mod routing;
mod semantics;
mod smt;
mod stats;
mod stores;
mod unroll;

pub use analysis::{
    Analysis, ConditionReport, ConstraintsError, EdgeReport, Ignored, Mode, Options, Precondition,
    Verdict, analyze,
};
pub use dag::{Dag, EdgeId, EdgeInfo};
pub use encode::Merge;
pub use feasibility::Feasible;
pub use in_force::InForce;
pub use observed::{Run, inputs_text};
pub use paths::{End, PathReport};
pub use semantics::{Constraint, Dropped, Kind};
pub use stats::Stats;

#[cfg(test)]
mod tests;
