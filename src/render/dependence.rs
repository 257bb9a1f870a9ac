//! Figures of `%dom`, `%pdom`, `%cdg`, `%ddg`, `%pdg` and `%slice`: each draws the CFG's own
//! nodes (as `%cfg` does) over a derived graph — the tree's edges, the dependence edges — or
//! the CFG itself with the slice highlighted, through [`styled_dot`]'s [`Style`].

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::NodeIndex;

use crate::cfg::{Cfg, DomTree, Edge};
use crate::dataflow::dependence::{ControlDep, DataDep};
use crate::render::cfg::{
    Attrs, EXCEPTION_COLOUR, FALSE_COLOUR, Style, TRUE_COLOUR, edge_colours, styled_dot,
};
use crate::render::html::{chip, escape, legend};

pub const DATA_COLOUR: &str = "#2e7d32";
const SLICE_FILL: &str = "#fff59d";
const CRITERION_FILL: &str = "#ffb74d";
const FADED: &str = "#9e9e9e";

/// The CFG's nodes with the tree's edges (parent above child) and, not constraining the
/// layout, the CFG's exception edges dashed as `%cfg` draws them.
pub fn tree_dot(cfg: &Cfg, tree: &DomTree, heading: &str) -> String {
    let mut derived = cfg.clone();
    derived.graph.clear_edges();
    for n in cfg.nodes() {
        if let Some(d) = tree.idom(n) {
            derived.graph.add_edge(d, n, Edge::Normal);
        }
    }
    for (s, t, e) in cfg.edges() {
        if e.is_exception() {
            derived.graph.add_edge(s, t, e.clone());
        }
    }
    let outside: Vec<bool> = cfg.nodes().map(|n| !tree.contains(n)).collect();
    styled_dot(
        &derived,
        &TreeStyle {
            heading,
            outside: &outside,
        },
    )
}

struct TreeStyle<'a> {
    heading: &'a str,
    outside: &'a [bool],
}

impl Style for TreeStyle<'_> {
    fn graph(&self, attrs: &mut Attrs) {
        attrs.title(self.heading);
    }

    fn node(&self, _: &Cfg, n: NodeIndex, attrs: &mut Attrs) {
        if self.outside.get(n.index()).copied().unwrap_or(false) {
            attrs
                .text("style", "filled,dotted")
                .text("tooltip", "not in the tree");
        }
    }

    fn edge(&self, _: &Cfg, _: usize, e: (NodeIndex, NodeIndex, &Edge), attrs: &mut Attrs) -> bool {
        if e.2.is_exception() {
            attrs.raw("constraint", "false");
        } else {
            attrs.raw("penwidth", "1.5");
        }
        true
    }
}

/// The CFG's nodes with control dependences (solid, coloured by the deciding edge's label)
/// and data dependences (dashed green, labelled with the variables).
pub fn dependence_dot(
    cfg: &Cfg,
    control: &[ControlDep],
    data: &[DataDep],
    heading: &str,
) -> String {
    let mut derived = cfg.clone();
    derived.graph.clear_edges();
    let mut controls: BTreeMap<(NodeIndex, NodeIndex), Vec<&str>> = BTreeMap::new();
    for d in control {
        controls.entry((d.from, d.to)).or_default().push(&d.label);
    }
    let mut datas: BTreeMap<(NodeIndex, NodeIndex), Vec<&str>> = BTreeMap::new();
    for d in data {
        datas.entry((d.from, d.to)).or_default().push(&d.var);
    }
    for &(s, t) in controls.keys() {
        derived.graph.add_edge(s, t, Edge::Normal);
    }
    for &(s, t) in datas.keys() {
        // Data edges ride on a label of their own, so the style tells them apart.
        derived.graph.add_edge(s, t, Edge::Break);
    }
    let dependence = Dependence {
        heading,
        controls,
        datas,
    };
    styled_dot(&derived, &dependence)
}

struct Dependence<'a> {
    heading: &'a str,
    controls: BTreeMap<(NodeIndex, NodeIndex), Vec<&'a str>>,
    datas: BTreeMap<(NodeIndex, NodeIndex), Vec<&'a str>>,
}

impl Style for Dependence<'_> {
    fn graph(&self, attrs: &mut Attrs) {
        attrs.title(self.heading);
    }

    fn edge(&self, _: &Cfg, _: usize, e: (NodeIndex, NodeIndex, &Edge), attrs: &mut Attrs) -> bool {
        attrs.clear();
        let key = (e.0, e.1);
        if matches!(e.2, Edge::Break) {
            let vars = self
                .datas
                .get(&key)
                .map(|v| v.join(", "))
                .unwrap_or_default();
            attrs
                .text("label", &vars)
                .raw("style", "dashed")
                .colours(DATA_COLOUR);
            if !self.controls.is_empty() {
                attrs.raw("constraint", "false");
            }
            return true;
        }
        let labels = self.controls.get(&key).cloned().unwrap_or_default();
        let shown: Vec<&str> = labels
            .iter()
            .copied()
            .filter(|l| !matches!(*l, "next" | "entry"))
            .collect();
        if !shown.is_empty() {
            attrs.text("label", &shown.join(", "));
        }
        match labels.first().copied() {
            Some("True") => {
                attrs.colours(TRUE_COLOUR);
            }
            Some("False") => {
                attrs.colours(FALSE_COLOUR);
            }
            Some("exception") => {
                attrs.colours(EXCEPTION_COLOUR);
            }
            _ => {}
        }
        attrs.raw("penwidth", "1.5");
        true
    }
}

/// The CFG with the slice's nodes filled yellow, the criterion orange, the rest faded.
pub fn slice_dot(
    cfg: &Cfg,
    slice: &BTreeSet<NodeIndex>,
    criterion: &[NodeIndex],
    heading: &str,
) -> String {
    styled_dot(
        cfg,
        &SliceStyle {
            heading,
            slice,
            criterion,
        },
    )
}

struct SliceStyle<'a> {
    heading: &'a str,
    slice: &'a BTreeSet<NodeIndex>,
    criterion: &'a [NodeIndex],
}

impl Style for SliceStyle<'_> {
    fn graph(&self, attrs: &mut Attrs) {
        attrs.title(self.heading);
    }

    fn node(&self, cfg: &Cfg, n: NodeIndex, attrs: &mut Attrs) {
        if self.criterion.contains(&n) {
            attrs.text("fillcolor", CRITERION_FILL).raw("penwidth", "2");
        } else if self.slice.contains(&n) {
            attrs.text("fillcolor", SLICE_FILL);
        } else if n != cfg.entry && n != cfg.exit {
            attrs.colours(FADED);
        }
    }

    fn edge(&self, _: &Cfg, _: usize, e: (NodeIndex, NodeIndex, &Edge), attrs: &mut Attrs) -> bool {
        if !(self.slice.contains(&e.0) && self.slice.contains(&e.1)) {
            attrs.clear();
            edge_colours(e.2, attrs);
            attrs.colours(FADED);
        }
        true
    }
}

/// The legend under dependence figures.
pub fn legend_html() -> String {
    legend(&format!(
        "Control dependences solid (<span style=\"color:{TRUE_COLOUR}\">blue True</span>, \
         <span style=\"color:{FALSE_COLOUR}\">red False</span>, \
         <span style=\"color:{EXCEPTION_COLOUR}\">orange exception</span>, black: the entry or \
         normal flow); <span style=\"color:{DATA_COLOUR}\">data dependences dashed green</span>, \
         labelled with the variable."
    ))
}

/// The legend under `%dom` / `%pdom` figures.
pub fn tree_legend_html(post: bool) -> String {
    let (dominator, parent) = if post {
        ("post-dominator", "its immediate post-dominator")
    } else {
        ("dominator", "its immediate dominator")
    };
    legend(&format!(
        "The {dominator} tree: each node drawn under {parent} (solid edges); the CFG's \
         <span style=\"color:{EXCEPTION_COLOUR}\">exception edges dashed</span> (they count as \
         paths but do not shape the tree); {} not in the tree.",
        chip("border-style:dotted", "dotted nodes")
    ))
}

/// The legend under `%slice` figures and listings.
pub fn slice_legend_html(forward: bool) -> String {
    let what = if forward {
        "statements that depend on the criterion"
    } else {
        "statements the criterion depends on"
    };
    legend(&format!(
        "{} {what}; {} the criterion; <span style=\"color:{FADED}\">grey: not in the slice</span>.",
        chip(&format!("background:{SLICE_FILL}"), "in the slice:"),
        chip(&format!("background:{CRITERION_FILL}"), "orange:"),
    ))
}

/// The source lines, numbered, with `marked` lines highlighted (`strong` ones stronger).
pub fn listing_html(
    lines: &[(u32, String)],
    marked: &BTreeSet<u32>,
    strong: &BTreeSet<u32>,
) -> String {
    let mut html =
        String::from("<pre class=\"analysis-kernel-listing\" style=\"line-height:1.35\">");
    for (no, text) in lines {
        let style = if strong.contains(no) {
            format!("background:{CRITERION_FILL}")
        } else if marked.contains(no) {
            format!("background:{SLICE_FILL}")
        } else {
            format!("color:{FADED}")
        };
        html.push_str(&format!(
            "<span style=\"{style}\">{no:>4}  {}</span>\n",
            escape(text)
        ));
    }
    html.push_str("</pre>");
    html
}
