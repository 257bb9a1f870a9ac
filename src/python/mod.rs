//! The Python front end: parsing (behind this module, with `ruff_python_parser`), source
//! positions and errors, summaries of the definitions a cell makes.
//!
//! Nothing outside this module names a `ruff_*` type.

pub mod arith;
pub mod builtins;
pub mod depth;
pub mod exceptions;
pub mod ir;
mod lower;
pub mod messages;
pub mod repr;
mod source;
mod syntax;
pub mod value;

pub use lower::{lower_expression, lower_module};
pub use source::{SourceError, SourceErrorKind, SourceMap, Span};
pub use syntax::{
    ClassSummary, Completeness, FunctionSummary, ParamSummary, ParsedCell, completeness, parse_cell,
};
pub use value::PyValue;
