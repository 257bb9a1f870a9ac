//! What `%%rust` cells of analysis-kernel compile against.
//!
//! A cell writes a [`Domain`] or an [`Analysis`] in Rust, tries it on the session's Python
//! functions ([`function`] gives one as a CFG, [`solve`] runs an analysis, [`show`] displays a
//! view), and registers it ([`register_domain`], [`register_analysis`]) so that `%absint`,
//! `%lattice`, `%check-domain` and `%dataflow` run it like a built-in, with the kernel's
//! own engine and views.
//!
//! The crate has no dependencies so that evcxr builds it in a moment for a session's first
//! Rust cell; the kernel passes the functions as data (see ARCHITECTURE.md, "Rust cells").
//!
//! ```
//! use analysis_prelude::prelude::*;
//! let view = table(&["name", "value"], &[vec!["x".into(), "1".into()]]);
//! assert_eq!(view.text(), "name\tvalue\nx\t1");
//! ```

pub mod analysis;
pub mod domain;
pub mod program;
pub mod render;
pub mod serve;
pub mod wire;

pub use analysis::{Analysis, Direction, Facts, Solution, solve};
pub use domain::{BinOp, Cmp, Domain};
pub use program::{Edge, Program, ProgramError, Stmt, function, functions};
pub use render::{Html, View, show, table};
pub use serve::{RegisterError, register_analysis, register_domain};

/// Everything a cell needs: `use analysis_prelude::prelude::*;` (the kernel adds it to
/// every `%%rust` cell's context).
pub mod prelude {
    pub use crate::analysis::{Analysis, Direction, Facts, Solution, solve};
    pub use crate::domain::{BinOp, Cmp, Domain};
    pub use crate::program::{Edge, Program, ProgramError, Stmt, function, functions};
    pub use crate::render::{Html, View, show, table};
    pub use crate::serve::{RegisterError, register_analysis, register_domain};
}
