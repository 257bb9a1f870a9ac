//! Figures with facts (`%dataflow`, `%absint`): the `%cfg` drawing (same shapes, colours and
//! ids) with each node's label showing the facts before the statement (IN, above it) and
//! after it (OUT, below it), under a title.

use petgraph::graph::NodeIndex;

use crate::cfg::Cfg;
use crate::render::cfg::{Attrs, Style, styled_dot};
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
    styled_dot(cfg, &Facts { notes, title })
}

/// The facts style: a bold title, and each node's label replaced by its statement between
/// its IN and OUT facts (shapes and edges as `%cfg` draws them).
struct Facts<'a> {
    notes: &'a [Note],
    title: &'a str,
}

impl Style for Facts<'_> {
    fn graph(&self, attrs: &mut Attrs) {
        attrs.title(self.title);
    }

    fn node(&self, cfg: &Cfg, n: NodeIndex, attrs: &mut Attrs) {
        if let Some(note) = self.notes.get(n.index()) {
            attrs.html("label", &html_label(&statement(cfg, n), note));
        }
    }
}

/// The statement line as `%cfg` labels it: `3: x = x + 1`.
fn statement(cfg: &Cfg, n: NodeIndex) -> String {
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
