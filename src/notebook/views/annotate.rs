//! Views of facts on a CFG (`%dataflow`, `%absint`): the figure (`render::facts`) laid out
//! as SVG, its legend and tables.

use super::figure;
use crate::cfg::Cfg;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
pub use crate::render::facts::Note;
use crate::render::facts::{annotated_dot, legend_html};

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
        Some(&facts.text),
        session,
        ctx,
    )?;
    let mut html = format!(
        "{}{}{}{}{}",
        fig.note_html,
        crate::render::cfg_summary::notes_html(&[cfg]),
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
