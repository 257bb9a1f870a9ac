//! The figure of a run on a CFG (`%run`, `%concolic`): `%cfg`'s drawing with the edges taken
//! drawn thick and labelled with how often (`×3`), the nodes visited filled, what was not
//! taken in grey, under a title; and a run's path down `%set`'s tree (`%run --on set`).

use petgraph::graph::NodeIndex;

use crate::cfg::{Cfg, Edge, Walk};
use crate::render::cfg::{Attrs, Style, styled_dot};
use crate::render::html::escape;
use crate::render::set::{TreeStyle, styled_dot as tree_dot};
use crate::symexec::{NodeId, Tree};

/// The colour of what a run took.
pub const TAKEN: &str = "#e65100";
const VISITED_FILL: &str = "#fff3c4";
const NOT_TAKEN: &str = "#b0b0b0";

/// The DOT of `cfg` with `walk` drawn on it and `title` above.
pub fn run_dot(cfg: &Cfg, walk: &Walk, title: &str) -> String {
    styled_dot(
        cfg,
        &Run {
            walk,
            title,
            flagged: &[],
        },
    )
}

/// [`run_dot`] with the `flagged` nodes drawn red (`%run --on absint`: a soundness bug there).
pub fn run_dot_flagged(cfg: &Cfg, walk: &Walk, title: &str, flagged: &[NodeIndex]) -> String {
    styled_dot(
        cfg,
        &Run {
            walk,
            title,
            flagged,
        },
    )
}

const FLAGGED_FILL: &str = "#ffcdd2";
const FLAGGED: &str = "#c62828";

/// The line under a run figure.
pub fn legend_html(extra: &str) -> String {
    format!(
        "<div class=\"analysis-kernel-legend\" style=\"font-size:smaller;color:#555;margin:4px 0\">\
         <span style=\"color:{TAKEN}\">Thick edges were taken</span> (×n: how often), filled nodes \
         were visited (×n beside them); grey edges were not taken. {}</div>",
        escape(extra)
    )
}

struct Run<'a> {
    walk: &'a Walk,
    title: &'a str,
    flagged: &'a [NodeIndex],
}

impl Style for Run<'_> {
    fn graph(&self, attrs: &mut Attrs) {
        attrs.title(self.title);
    }

    fn node(&self, _cfg: &Cfg, n: NodeIndex, attrs: &mut Attrs) {
        let count = self.walk.nodes.get(n.index()).copied().unwrap_or(0);
        if count > 0 {
            attrs
                .text("fillcolor", VISITED_FILL)
                .text("xlabel", &format!("×{count}"));
        }
        if self.flagged.contains(&n) {
            attrs
                .text("fillcolor", FLAGGED_FILL)
                .text("color", FLAGGED)
                .raw("penwidth", "2.5");
        }
    }

    fn edge(
        &self,
        _cfg: &Cfg,
        k: usize,
        (_, _, edge): (NodeIndex, NodeIndex, &Edge),
        attrs: &mut Attrs,
    ) -> bool {
        let count = self.walk.edges.get(k).copied().unwrap_or(0);
        if count > 0 {
            let label = match edge.describe() {
                Some(l) => format!("{l} ×{count}"),
                None => format!("×{count}"),
            };
            attrs
                .text("label", &label)
                .raw("penwidth", "2.5")
                .text("color", TAKEN);
        } else {
            attrs.colours(NOT_TAKEN);
        }
        true
    }
}

/// `%set`'s DOT of `tree` with `path` (the run's nodes, root first) drawn thick, the leaf
/// thickest, and `title` above.
pub fn tree_path_dot(tree: &Tree, path: &[NodeId], title: &str) -> String {
    tree_dot(tree, &TreePath { path, title })
}

struct TreePath<'a> {
    path: &'a [NodeId],
    title: &'a str,
}

impl TreeStyle for TreePath<'_> {
    fn graph(&self, attrs: &mut Attrs) {
        attrs.title(self.title);
    }

    fn edge(&self, parent: NodeId, child: NodeId, attrs: &mut Attrs) {
        if self.path.windows(2).any(|w| w == [parent, child]) {
            attrs.raw("penwidth", "3").text("color", TAKEN);
        }
    }

    fn restyle(&self) -> Vec<(NodeId, Attrs)> {
        self.path
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let width = if i + 1 == self.path.len() { 5 } else { 3 };
                let mut attrs = Attrs::default();
                attrs
                    .raw("penwidth", width.to_string())
                    .text("color", TAKEN);
                (n, attrs)
            })
            .collect()
    }
}
