//! Symbolic execution trees: the interpreter of the symbolic-execution book (Steinhöfel's
//! "A Symbolic Interpreter and Correctness of Symbolic Transitions"), done right.
//!
//! A path's state is a call stack of frames (store: variable → [`Term`](crate::symbolic::Term)
//! over the inputs), an abrupt completion on its way out, and a path condition. Every
//! statement reached is a node; expressions fork into "raises E" / "raises nothing" with the
//! translation's exception conditions; `if`, loops and `assert` fork on their tests. The
//! incremental solver prunes infeasible branches and leaves out constraints a path already
//! implies. Loops are unrolled up to a bound and the cut paths end in explicit `bound`
//! leaves (the book drops them silently). User functions are inlined, their statements
//! shown under the call; `len`, `abs`, `min`, `max` are summaries (terms).
//!
//! [`check`] tests a tree's exhaustiveness and precision against concrete runs.
//!
//! Only `symbolic::solver` talks to Z3: this module uses terms, the translation and the
//! [`Solver`](crate::symbolic::Solver).

pub mod check;
mod comprehension;
pub mod concolic;
mod eval;
mod exceptions;
mod explore;
mod flow;
mod havoc;
mod hoist;
mod infer;
mod inputs;
mod lists;
mod none_use;
pub mod packed;
mod path;
mod program;
mod state;
mod step;
mod tree;
pub mod verify;

pub use crate::symbolic::simplify::simplify;
pub use explore::{Options, ResourceLimit, execute};
pub use infer::{DEFAULT_GUESS, infer as infer_parameter_sorts, infer_mapping};
pub use inputs::{Inputs, function_inputs, parse_specs, type_sort};
pub use program::{Entry, Prepared, Program};
pub use tree::{Exc, Leaf, Message, Node, NodeId, Outcome, Stats, Status, Tree, Value};

/// Why a tree could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SymexecError {
    #[error("{construct} is not supported by symbolic execution (line {line})")]
    Unsupported { construct: String, line: u32 },
    /// A bad `ARG:TYPE`, a parameter without a type, an unknown function.
    #[error("{0}")]
    Input(String),
    #[error("{message} (line {line})")]
    Syntax { message: String, line: u32 },
    #[error("solver: {0}")]
    Solver(crate::symbolic::SolverError),
    #[error("interrupted by the user")]
    Stopped(#[from] crate::cancel::Stopped),
    #[error("internal error of symbolic execution: {0}")]
    Internal(String),
}

impl SymexecError {
    /// The source line the error is about, if any.
    pub fn line(&self) -> Option<u32> {
        match self {
            SymexecError::Unsupported { line, .. } | SymexecError::Syntax { line, .. }
                if *line > 0 =>
            {
                Some(*line)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
