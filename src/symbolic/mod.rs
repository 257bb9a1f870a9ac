//! Python expressions as logic: an exact translation of Python expressions into our own
//! typed terms (`term`, printable as Python), and their lowering to Z3 (`solver`) for path
//! constraints, preconditions and symbolic execution.
//!
//! Invariant: only `symbolic::solver` names `z3`. Everything else works on [`Term`]s; formulas
//! shown to users are printed from terms, never read back from Z3.

mod print;
pub mod solver;
pub mod sort;
pub mod term;
pub mod translate;

pub use solver::{Check, Model, Solver, SolverError};
pub use sort::{SeqKind, Sort};
pub use term::{ArithOp, CompareOp, Literal, SortError, Term, TermKind, Var};
pub use translate::{
    Env, ExceptionKind, TranslateError, Translated, annotation_sort, translate,
    translate_condition,
};

#[cfg(test)]
mod tests;
