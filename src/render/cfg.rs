//! CFGs as text (the tested contract), Graphviz DOT, and JSON.
//!
//! Text: one line per node, `id [kind] L3: text` (blocks list their statements below), then
//! its successors, `-> id [label]`. DOT follows the course figures: diamond conditions, True
//! edges blue and False red, exception edges dashed, entry and exit double-outlined,
//! unreachable nodes grey, labels `3: x = x + 1`, one cluster per CFG when there are several.

use serde_json::{Map, Value, json};

use petgraph::graph::NodeIndex;

use crate::cfg::{Cfg, Edge, Granularity, Node, NodeKind};
use crate::render::cfg_summary::Drawn;

const CODE_FONT: &str = "Menlo,Consolas,DejaVu Sans Mono,monospace";
const TEXT_FONT: &str = "Helvetica,Arial,sans-serif";
pub const TRUE_COLOUR: &str = "#1f5fbf";
pub const FALSE_COLOUR: &str = "#c62828";
pub const EXCEPTION_COLOUR: &str = "#b35c00";
pub const JUMP_COLOUR: &str = "#666666";
const GREY_FILL: &str = "#e6e6e6";
const GREY_TEXT: &str = "#8c8c8c";
const HANDLER_FILL: &str = "#fff4e5";

/// `L3` or `L3-5`.
fn lines(l: (u32, u32)) -> String {
    if l.0 == l.1 {
        format!("L{}", l.0)
    } else {
        format!("L{}-{}", l.0, l.1)
    }
}

/// The text rendering: a title line, then each node and its successors.
pub fn text(cfg: &Cfg, calls: bool) -> String {
    let level = match cfg.granularity {
        Granularity::Statement => "statements",
        Granularity::Block => "basic blocks",
    };
    let mut out = format!("cfg {} ({level})\n", cfg.name);
    for n in cfg.nodes() {
        let node = cfg.node(n);
        let mark = if node.unreachable {
            "  (unreachable)"
        } else {
            ""
        };
        let head = format!(
            "{} [{}] {}",
            cfg.node_id(n),
            node.kind.name(),
            lines(node.lines)
        );
        if node.kind == NodeKind::Block && node.stmts.len() > 1 {
            out.push_str(&format!("{head}:{mark}\n"));
            for s in &node.stmts {
                out.push_str(&format!("    {}: {}\n", lines(s.lines), s.text));
            }
        } else {
            out.push_str(&format!("{head}: {}{mark}\n", node.label));
        }
        if calls && !node.calls.is_empty() {
            out.push_str(&format!("  calls: {}\n", node.calls.join(", ")));
        }
        for (target, edge) in cfg.successors(n) {
            match edge.describe() {
                Some(label) => out.push_str(&format!("  -> {} [{label}]\n", target.index())),
                None => out.push_str(&format!("  -> {}\n", target.index())),
            }
        }
    }
    out
}

/// Several CFGs' text renderings, separated by blank lines.
pub fn text_many(cfgs: &[&Cfg], calls: bool) -> String {
    cfgs.iter()
        .map(|c| text(c, calls))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The JSON payload of one CFG (`kind: "cfg"`, version 1).
pub fn json(cfg: &Cfg, calls: bool) -> Value {
    let mut map = Map::new();
    map.insert("version".into(), json!(1));
    map.insert("kind".into(), json!("cfg"));
    extend_graph(&mut map, cfg, calls);
    Value::Object(map)
}

/// The JSON payload of several CFGs: `{version, kind: "cfg", granularity, cfgs: [...]}`,
/// each element holding the `function`, `granularity`, `nodes` and `edges` of one.
pub fn json_many(cfgs: &[&Cfg], calls: bool) -> Value {
    let granularity = cfgs.first().map_or("statement", |c| c.granularity.name());
    let graphs: Vec<Value> = cfgs
        .iter()
        .map(|c| {
            let mut map = Map::new();
            extend_graph(&mut map, c, calls);
            Value::Object(map)
        })
        .collect();
    json!({"version": 1, "kind": "cfg", "granularity": granularity, "cfgs": graphs})
}

fn extend_graph(map: &mut Map<String, Value>, cfg: &Cfg, calls: bool) {
    map.insert("function".into(), json!(cfg.name));
    map.insert("granularity".into(), json!(cfg.granularity.name()));
    let nodes: Vec<Value> = cfg
        .nodes()
        .map(|n| {
            let node = cfg.node(n);
            let mut v = json!({
                "id": cfg.node_id(n),
                "kind": node.kind.name(),
                "label": node.label,
                "lines": [node.lines.0, node.lines.1],
                "unreachable": node.unreachable,
            });
            if calls && let Value::Object(m) = &mut v {
                m.insert("calls".into(), json!(node.calls));
            }
            v
        })
        .collect();
    let edges: Vec<Value> = cfg
        .edges()
        .into_iter()
        .map(|(s, t, e)| {
            let mut v = json!({
                "source": cfg.node_id(s),
                "target": cfg.node_id(t),
                "label": e.label(),
            });
            if !e.exceptions().is_empty()
                && let Value::Object(m) = &mut v
            {
                m.insert("exceptions".into(), json!(e.exceptions()));
            }
            v
        })
        .collect();
    map.insert("nodes".into(), Value::Array(nodes));
    map.insert("edges".into(), Value::Array(edges));
}

/// A DOT string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A node's DOT label: `3: x = x + 1`, one left-justified line per statement for a block.
fn dot_label(node: &Node, calls: bool) -> String {
    let mut parts: Vec<String> = if node.stmts.is_empty() {
        vec![format!("{}: {}", node.lines.0, node.label)]
    } else {
        node.stmts
            .iter()
            .map(|s| format!("{}: {}", s.lines.0, s.text))
            .collect()
    };
    if calls && !node.calls.is_empty() {
        parts.push(format!("calls: {}", node.calls.join(", ")));
    }
    let body: Vec<String> = parts.iter().map(|p| escape_dot(&shorten(p))).collect();
    if node.kind == NodeKind::Block || parts.len() > 1 {
        format!("\"{}\\l\"", body.join("\\l"))
    } else {
        format!("\"{}\"", body.join("\\n"))
    }
}

/// Longest label line drawn; longer ones end in `...` (the text and JSON keep them whole).
const MAX_LINE: usize = 72;

fn shorten(line: &str) -> String {
    if line.chars().count() <= MAX_LINE {
        return line.to_string();
    }
    let kept: String = line.chars().take(MAX_LINE - 3).collect();
    format!("{kept}...")
}

/// Escapes text for the inside of a DOT string literal.
fn escape_dot(s: &str) -> String {
    let q = quote(s);
    q[1..q.len() - 1].to_string()
}

/// DOT attributes in the order they are written, `key=value` each (the value already in DOT
/// syntax: a word, a quoted string or an HTML label). Graphviz lets a later attribute of the
/// same name win.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attrs(Vec<(&'static str, String)>);

impl Attrs {
    /// Adds `key=value`, `value` written as it is (a word, or DOT already quoted).
    pub fn raw(&mut self, key: &'static str, value: impl Into<String>) -> &mut Self {
        self.0.push((key, value.into()));
        self
    }

    /// Adds `key="text"`, quoted and escaped.
    pub fn text(&mut self, key: &'static str, text: &str) -> &mut Self {
        self.raw(key, quote(text))
    }

    /// Adds `key=<html>` (an HTML-like label, escaped by the caller).
    pub fn html(&mut self, key: &'static str, html: &str) -> &mut Self {
        self.raw(key, format!("<{html}>"))
    }

    /// A figure's title: `text` in bold, above on the left.
    pub fn title(&mut self, text: &str) -> &mut Self {
        self.raw("labelloc", "t").raw("labeljust", "l").html(
            "label",
            &format!("<b>{}</b>", crate::render::html::escape(text)),
        )
    }

    /// Adds `color` and `fontcolor`, both `colour`.
    pub fn colours(&mut self, colour: &str) -> &mut Self {
        self.text("color", colour).text("fontcolor", colour)
    }

    /// Adds `other`'s attributes after these.
    pub fn extend(&mut self, other: Attrs) {
        self.0.extend(other.0);
    }

    /// Drops every attribute (a style that draws the element its own way).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `a=1 b="x"`.
    pub fn render(&self) -> String {
        self.join(" ")
    }

    /// `a=1, b="x"`: inside a statement's brackets.
    pub fn render_list(&self) -> String {
        self.join(", ")
    }

    fn join(&self, sep: &str) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(sep)
    }
}

/// How a figure dresses a CFG beyond `%cfg`'s drawing (in the spirit of rustc's dataflow
/// `graphviz::Formatter`): the renderer walks the graph and asks the style for each element's
/// attributes, so no figure edits DOT text. Every method starts from `%cfg`'s attributes.
pub trait Style {
    /// Graph attributes written first, such as a title (`label`, `labelloc`).
    fn graph(&self, _attrs: &mut Attrs) {}

    /// Node `n`'s attributes (its `%cfg` label and shape come first).
    fn node(&self, _cfg: &Cfg, _n: NodeIndex, _attrs: &mut Attrs) {}

    /// The attributes of edge number `k` in [`Cfg::edges`]'s order; `false` leaves it out.
    fn edge(
        &self,
        _cfg: &Cfg,
        _k: usize,
        _edge: (NodeIndex, NodeIndex, &Edge),
        _attrs: &mut Attrs,
    ) -> bool {
        true
    }

    /// Attributes added to nodes after every node and edge is drawn (a later node
    /// statement adds to its attributes), in order.
    fn restyle(&self, _cfg: &Cfg) -> Vec<(NodeIndex, Attrs)> {
        Vec::new()
    }
}

/// `%cfg`'s own drawing.
pub struct Plain;

impl Style for Plain {}

/// `%cfg`'s attributes of a node: its label, shape and fill.
fn node_attrs(node: &Node, calls: bool) -> Attrs {
    let mut a = Attrs::default();
    a.raw("label", dot_label(node, calls));
    match node.kind {
        NodeKind::Entry | NodeKind::Exit => a.raw("shape", "oval").raw("peripheries", "2"),
        NodeKind::Condition => a.raw("shape", "diamond"),
        NodeKind::Join => a.raw("shape", "oval").text("style", "filled,dashed"),
        _ => a.raw("shape", "box"),
    };
    if node.unreachable {
        a.text("fillcolor", GREY_FILL)
            .text("fontcolor", GREY_TEXT)
            .text("color", GREY_TEXT);
    } else if node.kind == NodeKind::Handler {
        a.text("fillcolor", HANDLER_FILL);
    }
    a
}

/// `%cfg`'s attributes of an edge: its label and its kind's colour and line.
pub fn edge_attrs(edge: &Edge) -> Attrs {
    let mut a = Attrs::default();
    if !matches!(edge, Edge::Normal)
        && let Some(label) = edge.describe()
    {
        a.text("label", &label);
    }
    edge_colours(edge, &mut a);
    a
}

/// The colour (and dashes) of an edge of `edge`'s kind.
pub fn edge_colours(edge: &Edge, a: &mut Attrs) {
    match edge {
        Edge::Normal => {}
        Edge::True => {
            a.colours(TRUE_COLOUR);
        }
        Edge::False => {
            a.colours(FALSE_COLOUR);
        }
        Edge::Exception(_) => {
            a.raw("style", "dashed").colours(EXCEPTION_COLOUR);
        }
        Edge::Return | Edge::Break | Edge::Continue => {
            a.colours(JUMP_COLOUR);
        }
    }
}

/// The DOT source of one or more CFGs (one cluster each when there are several).
pub fn dot(cfgs: &[&Cfg], calls: bool) -> String {
    let mut out = header(&Attrs::default());
    let clustered = cfgs.len() > 1;
    for (i, cfg) in cfgs.iter().enumerate() {
        if clustered {
            out.push_str(&format!("  subgraph cluster_{i} {{\n"));
            out.push_str(&format!(
                "    label={} labeljust=l color=\"#bbbbbb\" style=rounded;\n",
                quote(&cfg.name)
            ));
            write_graph(&mut out, i, cfg, "    ", calls, &Plain);
            out.push_str("  }\n");
        } else {
            write_graph(&mut out, i, cfg, "  ", calls, &Plain);
        }
    }
    out.push_str("}\n");
    out
}

/// The DOT source of `cfg` dressed by `style` (statements only, as `%cfg` labels them).
pub fn styled_dot(cfg: &Cfg, style: &dyn Style) -> String {
    let mut graph = Attrs::default();
    style.graph(&mut graph);
    let mut out = header(&graph);
    write_graph(&mut out, 0, cfg, "  ", false, style);
    let drawn = Drawn::of(cfg);
    for (n, attrs) in style
        .restyle(cfg)
        .into_iter()
        .filter(|(n, _)| drawn.shows(*n))
    {
        out.push_str(&format!("  c0_{} [{}];\n", n.index(), attrs.render()));
    }
    out.push_str("}\n");
    out
}

/// `digraph cfg {`, the graph's own attributes, then the default fonts.
fn header(graph: &Attrs) -> String {
    let mut out = String::from("digraph cfg {\n");
    if !graph.is_empty() {
        out.push_str(&format!("  {};\n", graph.join("; ")));
    }
    out.push_str(&format!(
        "  graph [fontname={} fontsize=12 nodesep=0.3 ranksep=0.35];\n",
        quote(TEXT_FONT)
    ));
    out.push_str(&format!(
        "  node [fontname={} fontsize=11 style=filled fillcolor=white margin=\"0.12,0.06\"];\n",
        quote(CODE_FONT)
    ));
    out.push_str(&format!(
        "  edge [fontname={} fontsize=10];\n",
        quote(TEXT_FONT)
    ));
    out
}

/// The nodes and edges of `cfg`, ids `c{i}_{node}`; a large graph summarised as
/// [`Drawn`] says (its left-out nodes are one box, `c{i}_more`).
fn write_graph(
    out: &mut String,
    i: usize,
    cfg: &Cfg,
    indent: &str,
    calls: bool,
    style: &dyn Style,
) {
    let drawn = Drawn::of(cfg);
    for n in cfg.nodes().filter(|&n| drawn.shows(n)) {
        let mut attrs = node_attrs(cfg.node(n), calls);
        style.node(cfg, n, &mut attrs);
        out.push_str(&format!(
            "{indent}c{i}_{} [{}];\n",
            n.index(),
            attrs.render()
        ));
    }
    if drawn.is_summarised() {
        let mut a = Attrs::default();
        a.text("label", &drawn.box_label())
            .raw("shape", "box")
            .text("style", "filled,rounded")
            .text("fillcolor", GREY_FILL)
            .colours(GREY_TEXT);
        out.push_str(&format!("{indent}c{i}_more [{}];\n", a.render()));
    }
    // Edges into (out of) the box: one per drawn source (target), in edge order.
    let (mut into, mut from) = (Vec::new(), Vec::new());
    for (k, (s, t, e)) in cfg.edges().into_iter().enumerate() {
        let (src, dst) = (drawn.shows(s), drawn.shows(t));
        if !(src && dst) {
            let (end, seen) = if src { (s, &mut into) } else { (t, &mut from) };
            if (src || dst) && !seen.contains(&end) {
                seen.push(end);
                let (a, b) = if src {
                    (format!("c{i}_{}", s.index()), format!("c{i}_more"))
                } else {
                    (format!("c{i}_more"), format!("c{i}_{}", t.index()))
                };
                out.push_str(&format!(
                    "{indent}{a} -> {b} [style=dashed color={}];\n",
                    quote(GREY_TEXT)
                ));
            }
            continue;
        }
        let mut attrs = edge_attrs(e);
        if !style.edge(cfg, k, (s, t, e), &mut attrs) {
            continue;
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.render())
        };
        out.push_str(&format!(
            "{indent}c{i}_{} -> c{i}_{}{attrs};\n",
            s.index(),
            t.index()
        ));
    }
}

/// The line under a CFG figure explaining its colours.
pub fn legend_html() -> String {
    format!(
        "<div class=\"analysis-kernel-legend\" style=\"font-size:smaller;color:#555;margin-top:4px\">\
         Edges: <span style=\"color:{TRUE_COLOUR}\">blue = True</span>, \
         <span style=\"color:{FALSE_COLOUR}\">red = False</span>, \
         <span style=\"color:{EXCEPTION_COLOUR}\">dashed = exception</span> (with the exception names where known), \
         <span style=\"color:{JUMP_COLOUR}\">grey = return/break/continue resumed after <code>finally</code></span>. \
         Nodes: diamonds are conditions, double outlines entry and exit, \
         <span style=\"background:{GREY_FILL};color:{GREY_TEXT}\">grey = unreachable</span>.</div>"
    )
}

/// The plain-text version of the legend.
pub fn legend_text() -> &'static str {
    "Edges: blue True, red False, dashed exception; grey nodes are unreachable."
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_strings_are_escaped() {
        assert_eq!(quote("a \"b\" \\n"), "\"a \\\"b\\\" \\\\n\"");
        assert!(legend_html().contains("dashed = exception"));
        assert_eq!(shorten("short"), "short");
        let long = "x".repeat(100);
        assert_eq!(shorten(&long).chars().count(), MAX_LINE);
        assert!(shorten(&long).ends_with("..."));
    }

    /// A style that titles the graph, relabels nodes, hides the False edges and restyles
    /// the exit.
    struct Test;

    impl Style for Test {
        fn graph(&self, attrs: &mut Attrs) {
            attrs.text("label", "T");
        }
        fn node(&self, _: &Cfg, n: NodeIndex, attrs: &mut Attrs) {
            attrs.text("label", &format!("n{}", n.index()));
        }
        fn edge(
            &self,
            _: &Cfg,
            _: usize,
            (_, _, e): (NodeIndex, NodeIndex, &Edge),
            a: &mut Attrs,
        ) -> bool {
            a.raw("penwidth", "3");
            *e != Edge::False
        }
        fn restyle(&self, cfg: &Cfg) -> Vec<(NodeIndex, Attrs)> {
            let mut a = Attrs::default();
            a.raw("penwidth", "2");
            vec![(cfg.exit, a)]
        }
    }

    #[test]
    fn a_style_dresses_every_element_and_plain_is_cfg() {
        use crate::cfg::function_cfg;
        let m = crate::python::lower_module("def f(x):\n    if x:\n        x = 1\n    return x\n")
            .expect("parses");
        let cfg = function_cfg(m.function("f").expect("f")).expect("cfg");
        assert_eq!(styled_dot(&cfg, &Plain), dot(&[&cfg], false));
        let styled = styled_dot(&cfg, &Test);
        assert!(
            styled.starts_with("digraph cfg {\n  label=\"T\";\n  graph ["),
            "{styled}"
        );
        for n in cfg.nodes() {
            assert!(
                styled.contains(&format!(" label=\"n{}\"];", n.index())),
                "{styled}"
            );
        }
        let edges = cfg.edges();
        let falses = edges.iter().filter(|(_, _, e)| **e == Edge::False).count();
        assert!(falses > 0);
        assert_eq!(styled.matches(" -> ").count(), edges.len() - falses);
        assert_eq!(styled.matches("penwidth=3").count(), edges.len() - falses);
        assert!(styled.ends_with(&format!("  c0_{} [penwidth=2];\n}}\n", cfg.exit.index())));
    }
}
