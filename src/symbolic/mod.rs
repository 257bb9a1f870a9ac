//! Python expressions as logic: an exact translation of Python expressions into our own
//! typed terms (`term`, printable as Python), and their lowering to Z3 (`solver`) for path
//! constraints, preconditions and symbolic execution.
//!
//! Invariant: only `symbolic::solver` names `z3`. Everything else works on [`Term`]s; formulas
//! shown to users are printed from terms, never read back from Z3.
//!
//! Typical use: `Env::from_params` (sorts from annotations), `translate_condition` of a
//! precondition or branch test, `Translated::holds()` (true and not raising) asserted in a
//! `Solver`, `check`, and `Model::inputs` for a witness.
//!
//! What is not modelled exactly: `float` is the exact reals (no rounding, infinities or NaN;
//! `0.1 + 0.2 == 0.3` holds; conditions on float arithmetic are found by `float_rounding`), strings hold code points up to U+2FFFF (Z3's limit, 4.8 and 5.4 alike), and
//! facts about open non-unit-step slices that need induction over the length answer
//! `unknown` (see `solver::slice`).

pub mod chars;
pub mod iteration;
pub mod mapping;
pub mod negate;
pub mod none;
mod print;
mod rounding;
pub mod seqmap;
pub mod simplify;
pub mod solver;
pub mod sort;
pub mod strfn;
pub mod term;
pub mod translate;

pub use rounding::float_rounding;
pub use solver::{
    Assumption, Check, CheckSat, Model, PathScopes, Solver, SolverError, Unknown, Usage,
    in_fresh_context,
};
pub use sort::{SeqKind, Sort};
pub use term::{ArithOp, CompareOp, Literal, SortError, Term, TermKind, TermMemo, Var};
pub use translate::{
    Env, ExceptionKind, TranslateError, Translated, annotation_sort, dict_items, optional_inner,
    seqmap_items, translate, translate_condition,
};

#[cfg(test)]
mod tests;
