//! Views of facts on a CFG (`%dataflow`, `%absint`): the figure (`render::facts`) laid out
//! as SVG, its legend and tables.

use std::time::Duration;

use crate::cfg::Cfg;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
pub use crate::render::facts::Note;
use crate::render::facts::{annotated_dot, legend_html};
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;

/// A laid-out figure: the SVG when Graphviz could draw it, else a note saying why.
pub struct Figure {
    pub dot: String,
    pub svg: Option<String>,
    pub note_html: String,
}

/// A view of facts per CFG node (`%dataflow`, `%absint`) before it is laid out.
pub struct FactsView {
    /// The JSON payload's kind.
    pub kind: &'static str,
    pub text: String,
    /// The facts drawn in each node, by node index.
    pub notes: Vec<Note>,
    /// The figure's title.
    pub title: String,
    /// What the facts mean, for the legend line.
    pub legend: String,
    /// HTML between the legend and the table (warnings, say).
    pub middle_html: String,
    /// The facts table.
    pub table_html: String,
    /// The worklist trace table, when asked for.
    pub trace_html: Option<String>,
    pub json: serde_json::Value,
}

/// Lays out `facts` on `cfg`: the figure, its legend, the tables.
pub fn facts_view(
    cfg: &Cfg,
    facts: FactsView,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<View, CellError> {
    let fig = figure(
        annotated_dot(cfg, &facts.notes, &facts.title),
        &facts.text,
        session,
        ctx,
    )?;
    let mut html = format!(
        "{}{}{}{}",
        fig.note_html,
        legend_html(&facts.legend),
        facts.middle_html,
        facts.table_html
    );
    if let Some(trace) = facts.trace_html {
        html.push_str("<div style=\"margin-top:8px\"><b>Worklist trace</b></div>");
        html.push_str(&trace);
    }
    Ok(View {
        kind: facts.kind,
        text: facts.text,
        html,
        svg: fig.svg,
        dot: Some(fig.dot),
        json: facts.json,
    })
}

/// Lays `dot_source` out; a missing or slow Graphviz gives a note and the text form instead.
pub fn figure(
    dot_source: String,
    text: &str,
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
        Err(e @ (GraphvizError::NotInstalled | GraphvizError::Timeout(_))) => Ok(Figure {
            dot: dot_source,
            svg: None,
            note_html: format!(
                "<div class=\"analysis-kernel-note\">No figure: {}. The text form follows.</div><pre>{}</pre>",
                escape(&e.to_string()),
                escape(text)
            ),
        }),
        Err(e) => Err(CellError::new("DotError", e.to_string())),
    }
}
