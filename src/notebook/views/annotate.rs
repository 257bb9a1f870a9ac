//! CFG figures with facts: the `%cfg` drawing (`render::cfg::dot`, same shapes, colours and
//! ids) with each node's label replaced by one that shows the facts before the statement
//! (IN, above it) and after it (OUT, below it), and the figure laid out as SVG.

use std::time::Duration;

use crate::cfg::Cfg;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::render::cfg::dot;
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;

const IN_COLOUR: &str = "#2e7d32";
const OUT_COLOUR: &str = "#1565c0";
/// Longest line of facts in a node; longer lists wrap after a comma.
const WRAP: usize = 56;
/// Longest statement line drawn (as `%cfg` draws them).
const MAX_LINE: usize = 72;

/// The facts shown in one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub before: String,
    pub after: String,
}

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

/// The line under an annotated figure: what the two colours of facts mean, then `extra`.
pub fn legend_html(extra: &str) -> String {
    format!(
        "<div class=\"analysis-kernel-legend\" style=\"font-size:smaller;color:#555;margin:4px 0\">\
         Each node shows <span style=\"color:{IN_COLOUR}\">IN (the facts before the statement)</span> above it \
         and <span style=\"color:{OUT_COLOUR}\">OUT (after it)</span> below; edges as in <code>%cfg</code>: \
         blue True, red False, dashed exception. {}</div>",
        escape(extra)
    )
}

/// The DOT of `cfg` with `notes` (by node index) in its nodes and `title` above it.
pub fn annotated_dot(cfg: &Cfg, notes: &[Note], title: &str) -> String {
    let base = dot(&[cfg], false);
    let mut out = String::with_capacity(base.len() * 2);
    for line in base.lines() {
        out.push_str(&annotate_line(cfg, notes, line));
        out.push('\n');
        if line.starts_with("digraph") {
            out.push_str(&format!(
                "  labelloc=t; labeljust=l; label=<<b>{}</b>>;\n",
                escape(title)
            ));
        }
    }
    out
}

/// A node statement `  c0_3 [label=... shape=...];` gets a later `label=<...>`, which wins.
fn annotate_line(cfg: &Cfg, notes: &[Note], line: &str) -> String {
    let Some(index) = node_index(line) else {
        return line.to_string();
    };
    let (Some(note), Some(head)) = (notes.get(index), line.strip_suffix("];")) else {
        return line.to_string();
    };
    let n = petgraph::graph::NodeIndex::new(index);
    if n.index() >= cfg.graph.node_count() {
        return line.to_string();
    }
    format!("{head} label=<{}>];", html_label(&statement(cfg, n), note))
}

/// The node id in `  c0_12 [label=...];` (not an edge line).
fn node_index(line: &str) -> Option<usize> {
    let rest = line.trim_start().strip_prefix("c0_")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[digits.len()..];
    if !after.starts_with(" [") {
        return None;
    }
    digits.parse().ok()
}

/// The statement line as `%cfg` labels it: `3: x = x + 1`.
fn statement(cfg: &Cfg, n: petgraph::graph::NodeIndex) -> String {
    let node = cfg.node(n);
    let text = match node.stmts.first() {
        Some(s) => format!("{}: {}", s.lines.0, s.text),
        None => format!("{}: {}", node.lines.0, node.label),
    };
    if text.chars().count() <= MAX_LINE {
        text
    } else {
        let kept: String = text.chars().take(MAX_LINE - 3).collect();
        format!("{kept}...")
    }
}

fn html_label(statement: &str, note: &Note) -> String {
    let facts = |tag: &str, text: &str, colour: &str| {
        format!(
            "<tr><td align=\"left\"><font point-size=\"9\" color=\"{colour}\">{}</font></td></tr>",
            wrapped(tag, text)
        )
    };
    format!(
        "<table border=\"0\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"1\">{}<tr><td>{}</td></tr>{}</table>",
        facts("IN&nbsp;", &note.before, IN_COLOUR),
        escape(statement),
        facts("OUT", &note.after, OUT_COLOUR),
    )
}

/// `tag text`, escaped, broken after commas into left-aligned lines of at most `WRAP`.
fn wrapped(tag: &str, text: &str) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for (i, piece) in text.split_inclusive(", ").enumerate() {
        let current = lines.last().map_or(0, |l| l.chars().count());
        if i > 0 && current + piece.chars().count() > WRAP {
            lines.push(String::new());
        }
        if let Some(last) = lines.last_mut() {
            last.push_str(piece);
        }
    }
    let indent = "&nbsp;".repeat(4);
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let lead = if i == 0 {
                format!("{tag} ")
            } else {
                indent.clone()
            };
            format!("{lead}{}", escape(l.trim_end()))
        })
        .collect::<Vec<_>>()
        .join("<br align=\"left\"/>")
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
        Err(GraphvizError::Interrupted) => Err(CellError::interrupted()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::python::lower_module;

    #[test]
    fn every_node_gets_its_facts() {
        let m =
            lower_module("def f(x):\n    while x > 0:\n        x -= 1\n    return x\n").unwrap();
        let cfg = function_cfg(m.function("f").unwrap()).unwrap();
        let notes: Vec<Note> = cfg
            .nodes()
            .map(|n| Note {
                before: format!("in-{}", n.index()),
                after: format!("out-{}, a < b", n.index()),
            })
            .collect();
        let dot = annotated_dot(&cfg, &notes, "reaching definitions of f");
        for n in cfg.nodes() {
            let i = n.index();
            let line = dot
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("c0_{i} [")))
                .unwrap_or_else(|| panic!("no node {i} in\n{dot}"));
            assert!(line.contains(&format!("IN&nbsp; in-{i}")), "{line}");
            assert!(line.contains(&format!("OUT out-{i}, a &lt; b")), "{line}");
            assert!(line.ends_with(">];"), "{line}");
        }
        assert!(dot.contains("2: while x &gt; 0:"));
        assert!(dot.contains("label=<<b>reaching definitions of f</b>>"));
        assert!(dot.contains("c0_1 -> c0_2") || dot.contains("->"));
    }

    #[test]
    fn long_fact_lists_wrap_after_commas() {
        let facts: Vec<String> = (0..20).map(|i| format!("v{i}@L{i}")).collect();
        let w = wrapped("IN", &facts.join(", "));
        let lines: Vec<&str> = w.split("<br align=\"left\"/>").collect();
        assert!(lines.len() > 2, "{w}");
        assert!(lines[0].starts_with("IN v0@L0, "));
        assert!(lines[1].starts_with("&nbsp;&nbsp;&nbsp;&nbsp;"));
        assert_eq!(w.matches("@L").count(), 20);
    }
}
