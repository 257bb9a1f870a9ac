//! CFGs as text (the tested contract), Graphviz DOT, and JSON.
//!
//! Text: one line per node, `id [kind] L3: text` (blocks list their statements below), then
//! its successors, `-> id [label]`. DOT follows the course figures: diamond conditions, True
//! edges blue and False red, exception edges dashed, entry and exit double-outlined,
//! unreachable nodes grey, labels `3: x = x + 1`, one cluster per CFG when there are several.

use serde_json::{Map, Value, json};

use crate::cfg::{Cfg, Edge, Granularity, Node, NodeKind};

const CODE_FONT: &str = "Menlo,Consolas,DejaVu Sans Mono,monospace";
const TEXT_FONT: &str = "Helvetica,Arial,sans-serif";
pub const TRUE_COLOUR: &str = "#1f5fbf";
pub const FALSE_COLOUR: &str = "#c62828";
const EXCEPTION_COLOUR: &str = "#b35c00";
const JUMP_COLOUR: &str = "#666666";
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
fn quote(s: &str) -> String {
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

fn node_attrs(node: &Node) -> String {
    let shape = match node.kind {
        NodeKind::Entry | NodeKind::Exit => "shape=oval peripheries=2",
        NodeKind::Condition => "shape=diamond",
        NodeKind::Join => "shape=oval style=\"filled,dashed\"",
        _ => "shape=box",
    };
    let fill = if node.unreachable {
        format!(" fillcolor=\"{GREY_FILL}\" fontcolor=\"{GREY_TEXT}\" color=\"{GREY_TEXT}\"")
    } else if node.kind == NodeKind::Handler {
        format!(" fillcolor=\"{HANDLER_FILL}\"")
    } else {
        String::new()
    };
    format!("{shape}{fill}")
}

fn edge_attrs(edge: &Edge) -> String {
    let label = edge.describe().map(|l| format!(" label={}", quote(&l)));
    let label = label.unwrap_or_default();
    match edge {
        Edge::Normal => String::new(),
        Edge::True => format!("{label} color=\"{TRUE_COLOUR}\" fontcolor=\"{TRUE_COLOUR}\""),
        Edge::False => format!("{label} color=\"{FALSE_COLOUR}\" fontcolor=\"{FALSE_COLOUR}\""),
        Edge::Exception(_) => format!(
            "{label} style=dashed color=\"{EXCEPTION_COLOUR}\" fontcolor=\"{EXCEPTION_COLOUR}\""
        ),
        Edge::Return | Edge::Break | Edge::Continue => {
            format!("{label} color=\"{JUMP_COLOUR}\" fontcolor=\"{JUMP_COLOUR}\"")
        }
    }
}

/// The DOT source of one or more CFGs (one cluster each when there are several).
pub fn dot(cfgs: &[&Cfg], calls: bool) -> String {
    let mut out = String::from("digraph cfg {\n");
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
    let clustered = cfgs.len() > 1;
    for (i, cfg) in cfgs.iter().enumerate() {
        let indent = if clustered { "    " } else { "  " };
        if clustered {
            out.push_str(&format!("  subgraph cluster_{i} {{\n"));
            out.push_str(&format!(
                "    label={} labeljust=l color=\"#bbbbbb\" style=rounded;\n",
                quote(&cfg.name)
            ));
        }
        for n in cfg.nodes() {
            let node = cfg.node(n);
            out.push_str(&format!(
                "{indent}c{i}_{} [label={} {}];\n",
                n.index(),
                dot_label(node, calls),
                node_attrs(node)
            ));
        }
        for (s, t, e) in cfg.edges() {
            let attrs = edge_attrs(e);
            let attrs = if attrs.is_empty() {
                String::new()
            } else {
                format!(" [{}]", attrs.trim_start())
            };
            out.push_str(&format!(
                "{indent}c{i}_{} -> c{i}_{}{attrs};\n",
                s.index(),
                t.index()
            ));
        }
        if clustered {
            out.push_str("  }\n");
        }
    }
    out.push_str("}\n");
    out
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
}
