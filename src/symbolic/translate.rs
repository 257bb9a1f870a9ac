//! Python expressions (`python::ir::Expr`) to terms, with Python's semantics: true division
//! gives a `float`, `//` floors and `%` takes the divisor's sign, negative indices count from
//! the end, slices clamp, `and`/`or` short-circuit, `0 < x < 10` evaluates `x` once, and
//! truthiness applies in conditions (`if s:` is `s != ''`).
//!
//! Besides its value, a translation lists when evaluating the expression raises
//! (`ZeroDivisionError`, `IndexError`, `ValueError`, `TypeError`), so callers can tell "false" from
//! "crashes". Anything outside the supported subset is a [`TranslateError`] naming the
//! construct and its position: nothing is dropped silently.

use std::fmt;

use super::term::{SortError, Term};
use crate::python::ir::Expr;

mod bits;
mod calls;
mod env;
mod expr;
mod fstrings;
mod lists;
mod mappings;
mod quantifier;
mod seqmaps;
mod strings;

pub use env::{Env, annotation_sort, optional_inner};
pub use lists::{sort_in_place, sorted_reverse};
pub use mappings::dict_items;
pub use seqmaps::seqmap_items;

/// An exception the translated expressions can raise at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExceptionKind {
    ZeroDivisionError,
    IndexError,
    ValueError,
    /// `ord()` of a string whose length is not 1.
    TypeError,
    /// `d[k]` of a key the dict does not hold.
    KeyError,
}

/// A translated expression: its value, and when evaluating it raises.
#[derive(Clone, Debug, PartialEq)]
pub struct Translated {
    pub value: Term,
    /// In evaluation order; the conditions exclude one another (each includes "nothing
    /// raised before"), so the exception raised is the one whose condition holds. `value`
    /// means nothing where one does.
    pub raises: Vec<(ExceptionKind, Term)>,
}

/// Why an expression has no translation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    #[error("{construct} is not supported (line {line}, column {column})")]
    Unsupported {
        construct: String,
        line: u32,
        column: u32,
    },
    #[error("name '{name}' has no known type (line {line}, column {column})")]
    UnknownName {
        name: String,
        line: u32,
        column: u32,
    },
    #[error("TypeError: {message} (line {line}, column {column})")]
    Type {
        message: String,
        line: u32,
        column: u32,
    },
    /// Evaluation raises whatever the inputs are (`(1, 2)[5]`, `min(())`).
    #[error("{exception} is always raised: {message} (line {line}, column {column})")]
    AlwaysRaises {
        exception: ExceptionKind,
        message: String,
        line: u32,
        column: u32,
    },
}

impl ExceptionKind {
    pub fn name(self) -> &'static str {
        match self {
            ExceptionKind::ZeroDivisionError => "ZeroDivisionError",
            ExceptionKind::IndexError => "IndexError",
            ExceptionKind::ValueError => "ValueError",
            ExceptionKind::TypeError => "TypeError",
            ExceptionKind::KeyError => "KeyError",
        }
    }
}

impl fmt::Display for ExceptionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TranslateError {
    /// The 1-based position of the offending construct.
    pub fn position(&self) -> (u32, u32) {
        match self {
            TranslateError::Unsupported { line, column, .. }
            | TranslateError::UnknownName { line, column, .. }
            | TranslateError::Type { line, column, .. }
            | TranslateError::AlwaysRaises { line, column, .. } => (*line, *column),
        }
    }
}

impl Translated {
    /// The condition under which evaluation raises (any exception).
    pub fn raises_any(&self) -> Result<Term, SortError> {
        Term::or(self.raises.iter().map(|(_, c)| c.clone()).collect())
    }

    /// The condition under which evaluation raises `kind`.
    pub fn raises_kind(&self, kind: ExceptionKind) -> Result<Term, SortError> {
        let conds = self.raises.iter().filter(|(k, _)| *k == kind);
        Term::or(conds.map(|(_, c)| c.clone()).collect())
    }

    /// For a condition: it evaluates without raising and is true (what a precondition or a
    /// branch taken means).
    pub fn holds(&self) -> Result<Term, SortError> {
        Term::and(vec![Term::not(self.raises_any()?)?, self.value.clone()])
    }
}

/// Translates an expression's value.
pub fn translate(expr: &Expr, env: &Env) -> Result<Translated, TranslateError> {
    expr::translate(expr, env, false)
}

/// Translates an expression used as a condition (`if`, `while`, `assert`, a precondition):
/// the value is its truth value, a `bool` term.
pub fn translate_condition(expr: &Expr, env: &Env) -> Result<Translated, TranslateError> {
    expr::translate(expr, env, true)
}
