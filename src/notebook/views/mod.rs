//! The analysis views behind the `%` commands: each turns code of the session or of a cell
//! into a [`View`](super::output::View).

pub mod absint;
pub mod annotate;
pub mod callgraph;
pub mod cfg;
pub mod check;
pub mod concolic;
pub mod constraints;
pub mod constraints_run_inputs;
pub mod constraints_runs;
pub mod dataflow;
pub mod dependence;
pub mod flow;
pub mod flowtext;
pub mod interproc;
pub mod interproc_dataflow;
pub mod lattice;
pub mod run;
pub mod run_on;
pub mod set;
pub mod set_step;
pub mod slice;
pub mod step;
pub mod subject;
pub mod user;
pub mod verify;

use std::time::Duration;

use super::output::CellError;
use super::session::{Ctx, Session};
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;

/// A laid-out figure: the SVG when Graphviz could draw it, else a note saying why.
pub struct Figure {
    pub dot: String,
    pub svg: Option<String>,
    pub note_html: String,
}

/// Lays `dot_source` out. A missing or slow Graphviz gives a note instead of the SVG, followed
/// by `text` (the figure's text form) or, without one, pointing at the view's tables; a stop
/// is the cell's; any other failure is a `DotError`.
pub fn figure(
    dot_source: String,
    text: Option<&str>,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<Figure, CellError> {
    let limit = Duration::from_secs(session.config.dot_timeout_s);
    match session.layout(&dot_source, ctx.cancel, limit) {
        Ok(svg) => Ok(Figure {
            dot: dot_source,
            svg: Some(svg),
            note_html: String::new(),
        }),
        Err(GraphvizError::Stopped(s)) => Err(s.into()),
        Err(e @ (GraphvizError::NotInstalled | GraphvizError::Timeout(_))) => {
            let follows = match text {
                Some(t) => format!(" The text form follows.</div><pre>{}</pre>", escape(t)),
                None => " The table follows.</div>".to_string(),
            };
            Ok(Figure {
                dot: dot_source,
                svg: None,
                note_html: format!(
                    "<div class=\"analysis-kernel-note\">No figure: {}.{follows}",
                    escape(&e.to_string())
                ),
            })
        }
        Err(e) => Err(CellError::new("DotError", e.to_string())),
    }
}
