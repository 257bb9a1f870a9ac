//! Symbolic execution trees as text (the tested contract), Graphviz DOT in the book's style,
//! the leaf table, and the JSON payload.
//!
//! Figure: one box per node with the path condition, the store and the next statement
//! (`L3: x = -x`, in a monospace font); leaves show their outcome instead. Leaf colours
//! follow the book: paleturquoise for a return or normal end, lightpink for an exception,
//! lightgreen for an unsatisfiable branch (only with `--unsat`), and grey stripes with a
//! dashed border for a path cut by a bound.

use serde_json::{Map, Value as Json, json};

use crate::render::cfg::Attrs;
use crate::render::html::{chip, escape, legend, table, text_table};
use crate::render::set_summary::{
    FIGURE_NODES, JSON_NODES, PAGE, TABLE_LEAVES, TEXT_NODES, collapsed, leaf_index, note,
    table_note,
};
use crate::symexec::{Exc, Leaf, Message, Node, NodeId, Outcome, Status, Tree, Value};

const TEXT_FONT: &str = "Helvetica,Arial,sans-serif";
const CODE_FONT: &str = "Menlo,Consolas,DejaVu Sans Mono,monospace";
/// paleturquoise2, the book's normal leaf.
pub const LEAF_FILL: &str = "#aeeeee";
/// lightpink1, the book's exception leaf.
pub const EXCEPTION_FILL: &str = "#ffaeb9";
/// lightgreen, the book's unsatisfiable node.
pub const UNSAT_FILL: &str = "#90ee90";
const BOUND_STRIPE: &str = "#dcdcdc";
const BOUND_GAP: &str = "#f4f4f4";
const NOTE_COLOUR: &str = "#666666";
/// Constraints longer than this (together) are shown one per line in the figure.
const WRAP: usize = 48;

/// `{c1, c2}` (the book's set notation; `{}` for the empty path condition).
pub fn path_condition(node: &Node) -> String {
    let parts: Vec<String> = node.path_condition.iter().map(|t| t.to_string()).collect();
    format!("{{{}}}", parts.join(", "))
}

/// `{x: 2 * y, y: y}`
pub fn store(store: &[(std::sync::Arc<str>, std::sync::Arc<Value>)]) -> String {
    let parts: Vec<String> = store.iter().map(|(n, v)| format!("{n}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// The mark of an approximate leaf (its path went through a havoc).
pub const APPROX: &str = "≈ ";

/// How `float` is modelled, as the payload says.
pub const FLOAT_SEMANTICS: &str = "reals: floats are exact real numbers (no rounding, infinities or NaN); the paths through a branch on float arithmetic are approximate";

/// What a leaf shows: `return 0`, `ZeroDivisionError: division by zero`, `normal end`, ...
pub fn outcome(o: &Outcome) -> String {
    match o {
        Outcome::Exception(e) => e.to_string(),
        other => other.to_string(),
    }
}

/// `L3: x = -x` for an inner node (`in f(): ` first inside a call), the outcome for a leaf.
/// Marks a leaf whose path the solver could not decide (a timeout, the solver time budget,
/// nonlinear arithmetic): its outcome holds only if the path is feasible.
pub const UNKNOWN: &str = "[unknown] ";

/// Whether `leaf`'s feasibility is unknown: a branch on its path was undecided and no model
/// of the whole path was found (a witness shows the path feasible).
fn is_unknown(node: &Node, leaf: &Leaf) -> bool {
    node.undecided && leaf.witness.is_none() && node.status != Status::Unsat
}

/// [`UNKNOWN`] for a leaf whose feasibility is unknown, else nothing.
fn unknown_mark(node: &Node, leaf: &Leaf) -> &'static str {
    if is_unknown(node, leaf) { UNKNOWN } else { "" }
}

/// A leaf's JSON `feasible`: `true`, `false` (an `--unsat` leaf) or `"unknown"`.
fn feasible_json(node: &Node, leaf: &Leaf) -> Json {
    if node.status == Status::Unsat {
        json!(false)
    } else if is_unknown(node, leaf) {
        json!("unknown")
    } else {
        json!(true)
    }
}

fn what(tree: &Tree, node: &Node, leaf: Option<&Leaf>) -> String {
    let u = leaf.map_or("", |l| unknown_mark(node, l));
    let head = match leaf {
        Some(l) if tree.is_approximate(l.node) => {
            format!("⇒ {u}{APPROX}{}", outcome(&l.outcome))
        }
        Some(l) => format!("⇒ {u}{}", outcome(&l.outcome)),
        None => match node.line {
            Some(line) => format!("L{line}: {}", node.statement),
            None => node.statement.to_string(),
        },
    };
    match &node.frame {
        Some(f) => format!("in {f}(): {head}"),
        None => head,
    }
}

fn depth(tree: &Tree, node: &Node) -> usize {
    let mut d = 0;
    let mut at = node.parent;
    while let Some(p) = at {
        d += 1;
        at = tree.nodes.get(p).and_then(|n| n.parent);
    }
    d
}

/// The headline: what was executed, with how many nodes and leaves of each kind.
pub fn summary(tree: &Tree) -> String {
    let inputs: Vec<String> = tree
        .parameters()
        .iter()
        .map(|(n, ty)| format!("{n}: {ty}"))
        .collect();
    let subject = if tree.function == "<cell>" {
        format!("the cell ({})", inputs.join(", "))
    } else {
        format!("{}({})", tree.function, inputs.join(", "))
    };
    let mut kinds: Vec<String> = Vec::new();
    for (label, test) in [
        (
            "return",
            &(|o: &Outcome| matches!(o, Outcome::Return(_))) as &dyn Fn(&Outcome) -> bool,
        ),
        ("normal", &|o: &Outcome| matches!(o, Outcome::Normal)),
        ("exception", &|o: &Outcome| {
            matches!(o, Outcome::Exception(_))
        }),
        ("bound", &|o: &Outcome| matches!(o, Outcome::Bound(_))),
        ("unsat", &|o: &Outcome| matches!(o, Outcome::Unsat)),
    ] {
        let n = tree.leaves.iter().filter(|l| test(&l.outcome)).count();
        if n > 0 {
            kinds.push(format!("{n} {label}"));
        }
    }
    format!(
        "symbolic execution tree of {subject}, unroll {}: {} nodes, {} leaves ({})",
        tree.unroll,
        tree.nodes.len(),
        tree.leaves.len(),
        kinds.join(", ")
    )
}

/// Notes on what bounds did: paths cut, nodes not explored.
pub fn notes(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    if !tree.preconditions.is_empty() {
        let texts: Vec<&str> = tree.preconditions.iter().map(|(t, _)| t.as_str()).collect();
        out.push(format!(
            "Preconditions assumed (from the docstring; --no-pre ignores them): {}.",
            texts.join("; ")
        ));
    }
    if !tree.inferred.is_empty() {
        out.push(format!("Input types: {}.", tree.inferred.join("; ")));
    }
    let cut = tree.cut_paths();
    if cut > 0 {
        let s = if cut == 1 { "path was" } else { "paths were" };
        out.push(format!(
            "{cut} {s} cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further."
        ));
    }
    if tree.truncated {
        out.push(format!(
            "The tree was cut at {} nodes (%config node_limit): {} states were not explored; their leaves are missing from the table.",
            tree.node_limit, tree.unexplored
        ));
    }
    if !tree.approximate.is_empty() {
        let n = tree.approximate.len();
        let s = if n == 1 { "leaf is" } else { "leaves are" };
        let mut seen: Vec<&str> = Vec::new();
        for (_, notes) in &tree.havoc {
            for note in notes {
                if !seen.contains(&note.as_str()) {
                    seen.push(note);
                }
            }
        }
        out.push(format!(
            "{n} {s} approximate (marked {}): their paths go through what is not modelled ({}); their path conditions, outcomes and witnesses are not exact, and %check does not judge them.",
            APPROX.trim(),
            seen.join("; ")
        ));
    }
    if tree.nodes.iter().any(|n| n.undecided) {
        let unknown = tree
            .leaves
            .iter()
            .filter(|l| is_unknown(&tree.nodes[l.node], l))
            .count();
        let budget = if tree.stats.past_budget > 0 {
            format!(
                " {} questions came after the solver time budget was spent (%config solver_budget_ms) and were answered unknown without a check.",
                tree.stats.past_budget
            )
        } else {
            String::new()
        };
        out.push(format!(
            "The solver could not decide some branches (a timeout: %config z3_timeout_ms; the solver time budget; or nonlinear arithmetic): they are kept, with a dashed border, and the {unknown} leaves below them without a witness are marked {} (feasibility unknown).{budget}",
            UNKNOWN.trim()
        ));
    }
    out
}

/// The text rendering: the headline, one line per node (indented by depth), the notes.
pub fn text(tree: &Tree) -> String {
    let mut out = summary(tree);
    out.push('\n');
    let index = leaf_index(tree);
    let mut depths: Vec<usize> = Vec::with_capacity(tree.nodes.len().min(TEXT_NODES));
    for node in tree.nodes.iter().take(TEXT_NODES) {
        let leaf = index[node.id]
            .map(|i| &tree.leaves[i])
            .filter(|_| node.status != Status::Inner);
        let d = match node.parent {
            Some(p) if p < depths.len() => depths[p] + 1,
            Some(_) => depth(tree, node),
            None => 0,
        };
        depths.push(d);
        out.push_str(&format!(
            "{}[{}] {}  |  {}  |  {}\n",
            "  ".repeat(d),
            node.id,
            what(tree, node, leaf),
            path_condition(node),
            store(&node.store)
        ));
    }
    if let Some(n) = note(tree, TEXT_NODES, "text") {
        out.push_str(&format!(
            "... {} more nodes not listed\n{n}\n",
            tree.nodes.len() - TEXT_NODES
        ));
    }
    for n in notes(tree) {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

fn witness(tree: &Tree, leaf: &Leaf) -> String {
    match &tree.witness_arguments(leaf) {
        Some(w) => w
            .iter()
            .map(|(n, v)| format!("{n}={}", v.repr()))
            .collect::<Vec<_>>()
            .join(", "),
        None => "-".into(),
    }
}

/// One row per leaf (the first [`TABLE_LEAVES`]): node, path condition (Python), outcome,
/// final store, witness.
pub fn leaf_rows(tree: &Tree) -> Vec<Vec<String>> {
    tree.leaves
        .iter()
        .take(TABLE_LEAVES)
        .map(|l| {
            let node = &tree.nodes[l.node];
            let approx = if tree.is_approximate(l.node) {
                APPROX
            } else {
                ""
            };
            vec![
                l.node.to_string(),
                l.path_condition.to_string(),
                format!("{}{approx}{}", unknown_mark(node, l), outcome(&l.outcome)),
                store(&node.store),
                witness(tree, l),
            ]
        })
        .collect()
}

pub const LEAF_HEADERS: [&str; 5] = [
    "leaf",
    "path condition",
    "outcome",
    "final store",
    "witness",
];

pub fn leaf_table_text(tree: &Tree) -> String {
    let mut out = text_table(&LEAF_HEADERS, &leaf_rows(tree));
    if let Some(n) = table_note(tree) {
        out.push('\n');
        out.push_str(&n);
    }
    out
}

/// The leaf table; past [`PAGE`] rows, one page open and the others folded (`<details>`,
/// which needs no script).
pub fn leaf_table_html(tree: &Tree) -> String {
    let rows = leaf_rows(tree);
    let mut out = if rows.len() <= PAGE {
        table(&LEAF_HEADERS, &rows)
    } else {
        rows.chunks(PAGE)
            .enumerate()
            .map(|(i, page)| {
                let (first, last) = (i * PAGE + 1, i * PAGE + page.len());
                let open = if i == 0 { " open" } else { "" };
                format!(
                    "<details class=\"analysis-kernel-page\"{open}><summary>leaves {first}\u{2013}{last} of {}</summary>{}</details>",
                    tree.leaves.len(),
                    table(&LEAF_HEADERS, page)
                )
            })
            .collect()
    };
    if let Some(n) = table_note(tree) {
        out.push_str(&format!(
            "<div class=\"analysis-kernel-note\">{}</div>",
            escape(&n)
        ));
    }
    out
}

/// The line under the figure explaining its colours.
pub fn legend_html() -> String {
    let stripes = format!(
        "background:repeating-linear-gradient(90deg,{BOUND_STRIPE} 0 4px,#fff 4px 8px);border-style:dashed"
    );
    legend(&format!(
        "Each box: path condition, store, next statement (line: code). Leaves: {} {} {} {}.",
        chip(&format!("background:{LEAF_FILL}"), "return / normal end"),
        chip(&format!("background:{EXCEPTION_FILL}"), "exception"),
        chip(&stripes, "bound reached (path cut)"),
        chip(
            &format!("background:{UNSAT_FILL}"),
            "unsatisfiable (with --unsat)"
        ),
    ))
}

pub fn legend_text() -> &'static str {
    "Each box: path condition, store, next statement. Leaves: paleturquoise return/normal end, lightpink exception, grey striped bound reached (path cut), lightgreen unsatisfiable (with --unsat)."
}

fn html_lines(parts: &[String]) -> String {
    let total: usize = parts.iter().map(|p| p.chars().count()).sum();
    let escaped: Vec<String> = parts.iter().map(|p| escape(p)).collect();
    if total > WRAP && parts.len() > 1 {
        format!("{{{}}}", escaped.join(",<BR ALIGN=\"LEFT\"/>"))
    } else {
        format!("{{{}}}", escaped.join(", "))
    }
}

fn label(node: &Node, leaf: Option<&Leaf>, havoc: &[String], approximate: bool) -> String {
    let mut rows = Vec::new();
    for n in havoc {
        rows.push(format!(
            "<FONT COLOR=\"{NOTE_COLOUR}\" POINT-SIZE=\"8\">{}</FONT>",
            escape(n)
        ));
    }
    if let Some(f) = &node.frame {
        rows.push(format!(
            "<FONT COLOR=\"{NOTE_COLOUR}\" POINT-SIZE=\"8\">in {}()</FONT>",
            escape(f)
        ));
    }
    let pc: Vec<String> = node.path_condition.iter().map(|t| t.to_string()).collect();
    rows.push(html_lines(&pc));
    let st: Vec<String> = node
        .store
        .iter()
        .map(|(n, v)| format!("{n}: {v}"))
        .collect();
    rows.push(html_lines(&st));
    match leaf {
        Some(l) => rows.push(format!(
            "<B>{}{}{}</B>",
            unknown_mark(node, l),
            if approximate { APPROX } else { "" },
            escape(&outcome(&l.outcome))
        )),
        None => rows.push(format!(
            "<FONT FACE=\"{CODE_FONT}\">{}</FONT>",
            escape(&match node.line {
                Some(line) => format!("{line}: {}", node.statement),
                None => node.statement.to_string(),
            })
        )),
    }
    let body: String = rows
        .iter()
        .map(|r| format!("<TR><TD ALIGN=\"LEFT\" BALIGN=\"LEFT\">{r}</TD></TR>"))
        .collect();
    format!(
        "<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\">{body}</TABLE>>"
    )
}

fn style(node: &Node) -> String {
    let dashed = if node.undecided { ", dashed" } else { "" };
    match node.status {
        Status::Inner if node.undecided => "style=\"dashed\"".into(),
        Status::Inner => String::new(),
        Status::Leaf => format!("style=\"filled{dashed}\", fillcolor=\"{LEAF_FILL}\""),
        Status::Exception => format!("style=\"filled{dashed}\", fillcolor=\"{EXCEPTION_FILL}\""),
        Status::Unsat => format!("style=\"filled\", fillcolor=\"{UNSAT_FILL}\""),
        Status::Bound => {
            let stripes = vec![format!("{BOUND_STRIPE}:{BOUND_GAP}"); 24].join(":");
            format!("style=\"striped, dashed\", fillcolor=\"{stripes}\"")
        }
    }
}

/// How a figure dresses `%set`'s tree beyond `%set`'s drawing (`%verify`'s verdicts, a run's
/// path), as [`crate::render::cfg::Style`] does for CFGs: the renderer walks the tree and asks
/// the style for attributes, so no figure edits DOT text.
pub trait TreeStyle {
    /// The graph's attributes (a title), written after every node and edge.
    fn graph(&self, _attrs: &mut Attrs) {}

    /// The attributes of the edge from `parent` to `child` (none in `%set`'s drawing).
    fn edge(&self, _parent: NodeId, _child: NodeId, _attrs: &mut Attrs) {}

    /// Attributes added to nodes after every node and edge is drawn (a later node statement
    /// adds to its attributes), in order; nodes the figure does not draw are skipped.
    fn restyle(&self) -> Vec<(NodeId, Attrs)> {
        Vec::new()
    }
}

/// `%set`'s own drawing.
pub struct Plain;

impl TreeStyle for Plain {}

/// The figure as Graphviz DOT.
pub fn dot(tree: &Tree) -> String {
    styled_dot(tree, &Plain)
}

/// The figure as Graphviz DOT, dressed by `style`.
pub fn styled_dot(tree: &Tree, style: &dyn TreeStyle) -> String {
    let mut out = String::from("digraph set {\n");
    out.push_str(&format!(
        "  graph [fontname=\"{TEXT_FONT}\", nodesep=0.25, ranksep=0.3];\n  node [shape=box, fontname=\"{TEXT_FONT}\", fontsize=10, margin=\"0.08,0.04\"];\n  edge [arrowsize=0.6, color=\"#555555\"];\n"
    ));
    let index = leaf_index(tree);
    let mut drawn = vec![false; tree.nodes.len()];
    for node in tree.nodes.iter().take(FIGURE_NODES) {
        if let Some(d) = drawn.get_mut(node.id) {
            *d = true;
        }
        let leaf = index[node.id]
            .map(|i| &tree.leaves[i])
            .filter(|_| node.status != Status::Inner);
        let style = self::style(node);
        let sep = if style.is_empty() { "" } else { ", " };
        out.push_str(&format!(
            "  n{} [label={}{sep}{style}];\n",
            node.id,
            label(
                node,
                leaf,
                tree.havoc_notes(node.id),
                tree.is_approximate(node.id)
            )
        ));
    }
    for node in tree.nodes.iter().take(FIGURE_NODES) {
        if let Some(p) = node.parent {
            let mut attrs = Attrs::default();
            style.edge(p, node.id, &mut attrs);
            out.push_str(&statement(&format!("n{p} -> n{}", node.id), &attrs));
        }
    }
    // Each kept node's children left out: one grey box with their counts.
    for (parent, counts) in collapsed(tree, FIGURE_NODES) {
        out.push_str(&format!(
            "  c{parent} [label=\"{} not drawn\", style=\"filled, dashed\", fillcolor=\"#eeeeee\", fontcolor=\"{NOTE_COLOUR}\"];\n  n{parent} -> c{parent} [style=dashed];\n",
            escape(&counts.describe())
        ));
    }
    let mut graph = Attrs::default();
    style.graph(&mut graph);
    if !graph.is_empty() {
        out.push_str(&statement("graph", &graph));
    }
    for (n, attrs) in style.restyle() {
        if drawn.get(n).copied().unwrap_or(false) {
            out.push_str(&statement(&format!("n{n}"), &attrs));
        }
    }
    out.push_str("}\n");
    out
}

/// One DOT statement: `  what [attrs];`, or `  what;` with none.
fn statement(what: &str, attrs: &Attrs) -> String {
    if attrs.is_empty() {
        format!("  {what};\n")
    } else {
        format!("  {what} [{}];\n", attrs.render_list())
    }
}

/// The note under a summarised figure, if it is one.
pub fn figure_note(tree: &Tree) -> Option<String> {
    note(tree, FIGURE_NODES, "figure")
}

fn exc_json(e: &Exc) -> Json {
    let message = match &e.message {
        Message::Known(m) => json!(m),
        Message::Of(t) => json!(format!("str({t})")),
        Message::Repr(t) => json!(format!("repr({t})")),
        Message::Unknown => Json::Null,
    };
    json!({"kind": "exception", "type": e.type_name, "message": message})
}

/// An outcome as the payload's `outcome` object.
pub fn outcome_json(o: &Outcome) -> Json {
    match o {
        Outcome::Return(v) => json!({"kind": "return", "value": v.to_string()}),
        Outcome::Exception(e) => exc_json(e),
        Outcome::Normal => json!({"kind": "normal"}),
        Outcome::Bound(reason) => json!({"kind": "bound", "reason": reason}),
        Outcome::Unsat => json!({"kind": "unsat"}),
    }
}

/// The `set` payload (version 1): for large trees, the first [`JSON_NODES`] nodes and leaves
/// and an `omitted` object counting the rest.
pub fn json(tree: &Tree) -> Json {
    payload(tree, JSON_NODES)
}

/// The `set` payload of the whole tree (`--save FILE.json`).
pub fn json_full(tree: &Tree) -> Json {
    payload(tree, usize::MAX)
}

fn payload(tree: &Tree, limit: usize) -> Json {
    let mut inputs = Map::new();
    for (n, ty) in tree.parameters() {
        inputs.insert(n, json!(ty));
    }
    let nodes: Vec<Json> = tree
        .nodes
        .iter()
        .take(limit)
        .map(|n| {
            let mut st = Map::new();
            for (k, v) in n.store.iter() {
                st.insert(k.to_string(), json!(v.to_string()));
            }
            json!({
                "id": n.id.to_string(),
                "parent": n.parent.map(|p| p.to_string()),
                "statement": &*n.statement,
                "line": n.line,
                "path_condition": n.path_condition.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
                "store": st,
                "status": n.status.name(),
                "frame": n.frame.as_deref(),
                "undecided": n.undecided,
                "havoc": tree.havoc_notes(n.id),
            })
        })
        .collect();
    let leaves: Vec<Json> = tree
        .leaves
        .iter()
        .take(limit)
        .map(|l| {
            let witness = tree.witness_arguments(l).map(|w| {
                let mut m = Map::new();
                for (k, v) in w {
                    m.insert(k.clone(), v.to_json());
                }
                Json::Object(m)
            });
            json!({
                "node": l.node.to_string(),
                "path_condition": l.path_condition.to_string(),
                "outcome": outcome_json(&l.outcome),
                "witness": witness,
                "approximate": tree.is_approximate(l.node),
                "feasible": feasible_json(&tree.nodes[l.node], l),
            })
        })
        .collect();
    let mut out = json!({
            "version": 1,
            "kind": "set",
            "function": tree.function,
            "inputs": inputs,
            "unroll": tree.unroll,
            "nodes": nodes,
            "leaves": leaves,
            "truncated": tree.truncated,
            "unexplored": tree.unexplored,
            "node_limit": tree.node_limit,
            "cut_paths": tree.cut_paths(),
            "approximate_leaves": tree.approximate.len(),
            "inferred": tree.inferred,
            "preconditions": tree.preconditions.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(),
            "float_semantics": FLOAT_SEMANTICS,
            "solver_calls": {
                "branch_checks": tree.stats.branch_checks,
                "implication_checks": tree.stats.implication_checks,
                "witness_checks": tree.stats.witness_checks,
                "pruned": tree.stats.pruned,
            },
    });
    if (tree.nodes.len() > limit || tree.leaves.len() > limit)
        && let Json::Object(m) = &mut out
    {
        m.insert(
            "omitted".into(),
            json!({
                "nodes": tree.nodes.len().saturating_sub(limit),
                "leaves": tree.leaves.len().saturating_sub(limit),
                "note": "the payload keeps the first nodes and leaves; --save FILE.json writes the whole tree",
            }),
        );
    }
    out
}
