//! `%constraints`' outputs: the text, the HTML tables, the `constraints` JSON and the figure,
//! the `%cfg` drawing styled with each edge's constraints, feasibility and tooltips.

use std::collections::HashSet;

use petgraph::graph::NodeIndex;
use serde_json::{Map, Value, json};

use crate::cfg::{Cfg, Edge, NodeKind};
use crate::constraints::{Analysis, Feasible, Mode, PathReport, Verdict, inputs_text};
use crate::render::cfg::{Attrs, FALSE_COLOUR, Style, TRUE_COLOUR, edge_colours, styled_dot};
use crate::render::html::{escape, table, text_table};

/// How many constraints the edge-by-edge lists of paths may still show
/// ([`MAX_EDGE_CONSTRAINTS`]), and the paths left out.
#[derive(Default)]
struct EdgeListBudget {
    used: usize,
    left_out: Vec<usize>,
}

impl EdgeListBudget {
    /// Whether `p`'s lists fit in what is left (then they are counted).
    fn take(&mut self, p: &PathReport) -> bool {
        let need: usize = p.at_edge.iter().map(<[usize]>::len).sum();
        match self.used.checked_add(need) {
            Some(total) if total <= MAX_EDGE_CONSTRAINTS => {
                self.used = total;
                true
            }
            _ => {
                self.left_out.push(p.id);
                false
            }
        }
    }

    /// `stopped: …` when some path's lists were left out.
    fn stopped(&self) -> Option<String> {
        let (first, count) = (self.left_out.first()?, self.left_out.len());
        Some(format!(
            "stopped: the constraints edge by edge of {count} path(s) from path {first} on are left out (limit {MAX_EDGE_CONSTRAINTS} constraints)"
        ))
    }
}

fn feasible_word(f: &Feasible) -> &'static str {
    match f {
        Feasible::Yes => "yes",
        Feasible::No => "no",
        Feasible::Unknown(_) => "unknown",
    }
}

fn feasible_json(f: &Feasible) -> Value {
    match f {
        Feasible::Yes => json!(true),
        Feasible::No => json!(false),
        Feasible::Unknown(_) => json!("unknown"),
    }
}

fn verdict_text(v: &Verdict) -> String {
    match v {
        Verdict::Redundant => "redundant: always True where reached (R9900)".into(),
        Verdict::Impossible => "impossible: always False where reached (R9901)".into(),
        Verdict::Unreachable => "never reached".into(),
        Verdict::AlwaysRaises => "always raises".into(),
        Verdict::Neither => "can be True and False".into(),
        Verdict::Unknown(r) => format!("unknown ({r})"),
        Verdict::Untranslated(r) => format!("not translated ({r})"),
    }
}

fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Redundant => "redundant",
        Verdict::Impossible => "impossible",
        Verdict::Unreachable => "unreachable",
        Verdict::AlwaysRaises => "always-raises",
        Verdict::Neither => "neither",
        Verdict::Unknown(_) => "unknown",
        Verdict::Untranslated(_) => "untranslated",
    }
}

/// The shown constraints of a path (preconditions, conditions, definitions; not bookkeeping).
fn shown(p: &PathReport, indices: impl IntoIterator<Item = usize>) -> Vec<String> {
    indices
        .into_iter()
        .filter_map(|i| p.constraints.get(i))
        .filter(|c| c.kind != crate::constraints::Kind::Internal)
        .map(|c| c.term.to_string())
        .collect()
}

fn witness_text(p: &PathReport) -> String {
    match &p.witness {
        Some(w) => inputs_text(w),
        None => "-".into(),
    }
}

fn path_nodes(a: &Analysis, p: &PathReport) -> Vec<String> {
    let path = a.dag.nodes(&p.edges);
    path.iter().map(|n| n.index().to_string()).collect()
}

fn mode_text(a: &Analysis) -> &'static str {
    match a.mode {
        Mode::Precise => "SSA versions for reassigned variables",
        Mode::Pyta => "PythonTA's rule: constraints on reassigned parameters dropped",
    }
}

fn signature(a: &Analysis) -> String {
    a.cfg.signature.clone()
}

/// A parameter's type as shown: its sort, `| None` when it may be `None`.
fn parameter_type(a: &Analysis, name: &str, sort: &crate::symbolic::Sort) -> String {
    if a.optional_parameters.iter().any(|n| n == name) {
        format!("{sort} | None")
    } else {
        sort.to_string()
    }
}

/// The text rendering.
pub fn text(a: &Analysis, selected: Option<usize>) -> String {
    let mut out = format!("constraints of {} ({})\n", signature(a), mode_text(a));
    let params: Vec<String> = a
        .parameters
        .iter()
        .map(|(n, s)| format!("{n}: {}", parameter_type(a, n, s)))
        .chain(
            a.mapping_parameters
                .iter()
                .map(|(n, t)| format!("{n}: {t}")),
        )
        .collect();
    out.push_str(&format!("parameters: {}\n", or_none(&params)));
    for (n, reason) in &a.unsupported_parameters {
        out.push_str(&format!("  not modelled: {n} ({reason})\n"));
    }
    for (n, note) in &a.inferred_parameters {
        out.push_str(&format!("  inferred: {n}: {note}\n"));
    }
    for (n, sort) in &a.given_parameters {
        out.push_str(&format!("  given: {n}: {sort} (ARG:TYPE)\n"));
    }
    for note in &a.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    let pre: Vec<String> = a.preconditions.iter().map(|p| p.text.clone()).collect();
    out.push_str(&format!("preconditions: {}\n", or_none(&pre)));
    for i in &a.ignored_preconditions {
        out.push_str(&format!("  ignored: {} ({})\n", i.text, i.reason));
    }
    out.push_str(&format!(
        "\npaths: {} in all, {} listed{}\n",
        a.path_count,
        a.paths.len(),
        if a.truncated { " (truncated)" } else { "" }
    ));
    let rows: Vec<Vec<String>> = a
        .paths
        .iter()
        .map(|p| {
            vec![
                p.id.to_string(),
                path_nodes(a, p).join(" "),
                feasible_word(&p.feasible).into(),
                witness_text(p),
                shown(p, 0..p.constraints.len()).join("; "),
            ]
        })
        .collect();
    out.push_str(&text_table(
        &["id", "nodes", "feasible", "witness", "constraints"],
        &rows,
    ));
    out.push('\n');
    for p in &a.paths {
        for d in &p.dropped {
            out.push_str(&format!(
                "  path {}: not translated at node {}: {} ({})\n",
                p.id,
                d.node.index(),
                d.text,
                d.reason
            ));
        }
    }
    out.push_str("\nedges:\n");
    let rows: Vec<Vec<String>> = a
        .edges
        .iter()
        .map(|e| {
            let adds: Vec<String> = e
                .adds
                .iter()
                .filter(|c| c.kind != crate::constraints::Kind::Internal)
                .map(|c| c.term.to_string())
                .collect();
            vec![
                format!("{} -> {}", e.source.index(), e.target.index()),
                e.kind.describe().unwrap_or_default(),
                match &e.run {
                    Some(_) => "yes (run)".into(),
                    None => feasible_word(&e.feasible).into(),
                },
                e.paths
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                adds.join("; "),
            ]
        })
        .collect();
    out.push_str(&text_table(
        &["edge", "label", "feasible", "paths", "adds"],
        &rows,
    ));
    out.push('\n');
    let runs: Vec<String> = a
        .edges
        .iter()
        .filter_map(|e| {
            let run = e.run.as_ref()?;
            Some(format!(
                "  {} -> {}: {}\n",
                e.source.index(),
                e.target.index(),
                inputs_text(run)
            ))
        })
        .collect();
    if !runs.is_empty() {
        out.push_str(
            "\nedges a run took (undecided by the solver; the function ran on these inputs):\n",
        );
        out.extend(runs);
    }
    if !a.merges.is_empty() {
        out.push_str("\nmerges (SSA φ: the value of the way in taken):\n");
        for m in &a.merges {
            out.push_str(&format!("  {}\n", merge_text(a, m)));
        }
    }
    if !a.conditions.is_empty() {
        out.push_str("\nconditions:\n");
        for c in &a.conditions {
            out.push_str(&format!(
                "  L{} {}: {}\n",
                c.line,
                c.test,
                verdict_text(&c.verdict)
            ));
        }
    }
    if let Some(k) = selected
        && let Some(p) = a.paths.get(k)
    {
        out.push_str(&format!("\npath {k}, edge by edge:\n"));
        let mut budget = EdgeListBudget::default();
        if !budget.take(p) {
            out.push_str(&format!("  {}\n", budget.stopped().unwrap_or_default()));
        }
        let shown_edges = if budget.stopped().is_some() {
            0
        } else {
            p.edges.len()
        };
        for (i, &e) in p.edges.iter().enumerate().take(shown_edges) {
            let info = &a.dag.edges[e];
            let label = info
                .kind
                .describe()
                .map(|l| format!(" [{l}]"))
                .unwrap_or_default();
            let list = shown(p, p.at_edge[i].iter().copied());
            out.push_str(&format!(
                "  {} -> {}{label}: {}\n",
                info.source.index(),
                info.target.index(),
                or_none(&list)
            ));
        }
    }
    out.trim_end().to_string()
}

/// `x_5 = x_1 from 2, x from 1 (node 3)`.
fn merge_text(a: &Analysis, m: &crate::constraints::Merge) -> String {
    let inputs: Vec<String> = m
        .inputs
        .iter()
        .map(|(e, v)| format!("{v} from {}", a.dag.edges[*e].source.index()))
        .collect();
    format!(
        "{} = {} (node {})",
        m.value,
        inputs.join(", "),
        m.node.index()
    )
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.join("; ")
    }
}

/// The HTML under the figure: the legend, the paths table and the conditions.
pub fn html(a: &Analysis, selected: Option<usize>) -> String {
    let mut out = legend_html(selected.is_some());
    out.push_str(&format!(
        "<p class=\"analysis-kernel-caption\">{}: {} paths, {} listed{}. {}</p>",
        escape(&signature(a)),
        a.path_count,
        a.paths.len(),
        if a.truncated { " (truncated)" } else { "" },
        escape(mode_text(a))
    ));
    if !a.ignored_preconditions.is_empty() {
        let rows: Vec<Vec<String>> = a
            .ignored_preconditions
            .iter()
            .map(|i| vec![i.text.clone(), i.reason.clone()])
            .collect();
        out.push_str(&table(&["ignored precondition", "reason"], &rows));
    }
    if !a.inferred_parameters.is_empty() {
        let rows: Vec<Vec<String>> = a
            .inferred_parameters
            .iter()
            .map(|(n, note)| vec![n.clone(), note.clone()])
            .collect();
        out.push_str(&table(&["parameter", "type inferred"], &rows));
    }
    for note in &a.notes {
        out.push_str(&format!(
            "<p class=\"analysis-kernel-note\">Note: {}.</p>",
            escape(note)
        ));
    }
    if !a.given_parameters.is_empty() {
        let rows: Vec<Vec<String>> = a
            .given_parameters
            .iter()
            .map(|(n, sort)| vec![n.clone(), sort.clone()])
            .collect();
        out.push_str(&table(&["parameter", "type given (ARG:TYPE)"], &rows));
    }
    let rows: Vec<Vec<String>> = a
        .paths
        .iter()
        .map(|p| {
            let mark = if Some(p.id) == selected { " ◀" } else { "" };
            vec![
                format!("{}{mark}", p.id),
                path_nodes(a, p).join(" "),
                feasible_word(&p.feasible).into(),
                witness_text(p),
                shown(p, 0..p.constraints.len()).join("\n"),
            ]
        })
        .collect();
    out.push_str(&table(
        &["path", "nodes", "feasible", "witness", "constraints"],
        &rows,
    ));
    if !a.conditions.is_empty() {
        let rows: Vec<Vec<String>> = a
            .conditions
            .iter()
            .map(|c| vec![c.line.to_string(), c.test.clone(), verdict_text(&c.verdict)])
            .collect();
        out.push_str(&crate::render::html::paged_table(
            &["line", "condition", "verdict"],
            &rows,
            "conditions",
        ));
    }
    out
}

/// The line under the figure explaining its colours.
fn legend_html(path_selected: bool) -> String {
    let path = if path_selected {
        format!(
            " <span style=\"color:{PATH_COLOUR}\">Green, thick: the selected path</span>, its constraints on its edges."
        )
    } else {
        String::new()
    };
    format!(
        "<div class=\"analysis-kernel-legend\" style=\"font-size:smaller;color:#555;margin:4px 0\">\
         Edges: <span style=\"color:{TRUE_COLOUR}\">blue = True</span>, <span style=\"color:{FALSE_COLOUR}\">red = False</span>, \
         each with the constraint it adds; <span style=\"color:{GREY_TEXT}\">grey dashed = infeasible</span>, \
         and <span style=\"background:{GREY_FILL};color:{GREY_TEXT}\">grey nodes</span> are reached by infeasible edges only. \
         Hover over an edge for its constraints on every path.{path}</div>"
    )
}

/// The `constraints` JSON payload (spec fields, then extras).
pub fn json(a: &Analysis) -> Value {
    let mut map = Map::new();
    map.insert("version".into(), json!(1));
    map.insert("kind".into(), json!("constraints"));
    map.insert("function".into(), json!(a.cfg.name));
    let params: Map<String, Value> = a
        .parameters
        .iter()
        .map(|(n, s)| (n.clone(), json!(parameter_type(a, n, s))))
        .chain(
            a.mapping_parameters
                .iter()
                .map(|(n, t)| (n.clone(), json!(t))),
        )
        .collect();
    map.insert("parameters".into(), Value::Object(params));
    map.insert(
        "preconditions".into(),
        json!(a.preconditions.iter().map(|p| &p.text).collect::<Vec<_>>()),
    );
    map.insert(
        "ignored_preconditions".into(),
        json!(
            a.ignored_preconditions
                .iter()
                .map(|i| json!({"text": i.text, "reason": i.reason}))
                .collect::<Vec<_>>()
        ),
    );
    let mut budget = EdgeListBudget::default();
    let paths: Vec<Value> = a
        .paths
        .iter()
        .zip(a.smtlib_scripts())
        .map(|(p, smtlib)| {
            let witness = p.witness.as_ref().map(|w| {
                Value::Object(w.iter().map(|(n, v)| (n.clone(), v.to_json())).collect())
            });
            let mut m = json!({
                "id": p.id,
                "nodes": path_nodes(a, p),
                "constraints": shown(p, 0..p.constraints.len()),
                "smtlib": smtlib,
                "feasible": feasible_json(&p.feasible),
                "witness": witness.unwrap_or(Value::Null),
                "end": match p.end {
                    crate::constraints::End::Exit => "exit",
                    crate::constraints::End::Loop => "loop",
                    crate::constraints::End::Stuck => "stuck",
                },
            });
            if budget.take(p)
                && let Value::Object(m) = &mut m
            {
                let lists: Vec<Vec<String>> =
                    p.at_edge.iter().map(|l| shown(p, l.iter().copied())).collect();
                m.insert("edge_constraints".into(), json!(lists));
            }
            if let (Value::Object(m), Feasible::Unknown(r)) = (&mut m, &p.feasible) {
                m.insert("reason".into(), json!(r));
            }
            if !p.dropped.is_empty()
                && let Value::Object(m) = &mut m
            {
                m.insert(
                    "untranslated".into(),
                    json!(p
                        .dropped
                        .iter()
                        .map(|d| json!({"node": d.node.index().to_string(), "text": d.text, "reason": d.reason}))
                        .collect::<Vec<_>>()),
                );
            }
            m
        })
        .collect();
    map.insert("paths".into(), Value::Array(paths));
    if let Some(note) = budget.stopped() {
        map.insert("stopped".into(), json!(note));
    }
    let edges: Vec<Value> = a
        .edges
        .iter()
        .map(|e| {
            let mut m = json!({
                "source": e.source.index().to_string(),
                "target": e.target.index().to_string(),
                "feasible": feasible_json(&e.feasible),
                "paths": e.paths,
                "label": e.kind.label(),
                "back": e.back,
                "adds": e.adds.iter().filter(|c| c.kind != crate::constraints::Kind::Internal).map(|c| c.term.to_string()).collect::<Vec<_>>(),
            });
            if let (Value::Object(m), Feasible::Unknown(r)) = (&mut m, &e.feasible) {
                m.insert("reason".into(), json!(r));
            }
            if let (Value::Object(m), Some(run)) = (&mut m, &e.run) {
                m.insert("run".into(), json!(inputs_text(run)));
            }
            m
        })
        .collect();
    map.insert("edges".into(), Value::Array(edges));
    map.insert("truncated".into(), json!(a.truncated));
    map.insert(
        "mode".into(),
        json!(match a.mode {
            Mode::Precise => "precise",
            Mode::Pyta => "pyta",
        }),
    );
    let count =
        u64::try_from(&a.path_count).map_or_else(|_| json!(a.path_count.to_string()), |n| json!(n));
    map.insert("path_count".into(), count);
    map.insert(
        "unsupported_parameters".into(),
        json!(
            a.unsupported_parameters
                .iter()
                .map(|(n, r)| json!({"name": n, "reason": r}))
                .collect::<Vec<_>>()
        ),
    );
    map.insert(
        "inferred_parameters".into(),
        json!(
            a.inferred_parameters
                .iter()
                .map(|(n, note)| json!({"name": n, "note": note}))
                .collect::<Vec<_>>()
        ),
    );
    map.insert("notes".into(), json!(a.notes));
    map.insert(
        "given_parameters".into(),
        json!(
            a.given_parameters
                .iter()
                .map(|(n, sort)| json!({"name": n, "type": sort}))
                .collect::<Vec<_>>()
        ),
    );
    map.insert(
        "conditions".into(),
        json!(
            a.conditions
                .iter()
                .map(|c| {
                    let mut m = json!({
                        "node": c.node.index().to_string(),
                        "line": c.line,
                        "test": c.test,
                        "verdict": verdict_name(&c.verdict),
                        "redundant": c.verdict == Verdict::Redundant,
                        "impossible": c.verdict == Verdict::Impossible,
                    });
                    if let (Value::Object(m), Verdict::Unknown(r) | Verdict::Untranslated(r)) =
                        (&mut m, &c.verdict)
                    {
                        m.insert("reason".into(), json!(r));
                    }
                    m
                })
                .collect::<Vec<_>>()
        ),
    );
    map.insert(
        "merges".into(),
        json!(
            a.merges
                .iter()
                .map(|m| json!({
                    "node": m.node.index().to_string(),
                    "value": m.value.to_string(),
                    "inputs": m.inputs.iter().map(|(e, v)| json!({
                        "from": a.dag.edges[*e].source.index().to_string(),
                        "value": v.to_string(),
                    })).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>()
        ),
    );
    map.insert(
        "nodes".into(),
        Value::Object(
            a.cfg
                .nodes()
                .map(|n| (n.index().to_string(), feasible_json(&a.nodes[n.index()])))
                .collect(),
        ),
    );
    Value::Object(map)
}

const GREY: &str = "#bdbdbd";
const GREY_FILL: &str = "#eeeeee";
const GREY_TEXT: &str = "#9e9e9e";
const PATH_COLOUR: &str = "#2e7d32";
/// Longest constraint line drawn on an edge; the tooltip and the text keep them whole.
const MAX_LABEL: usize = 48;
/// Paths shown in an edge's tooltip.
const MAX_TOOLTIP_PATHS: usize = 12;
/// Constraints shown in one edge's tooltip, over all its paths: on a long path each edge
/// has every constraint before it in force, so tooltips would grow with the square of the
/// function's length.
const MAX_TOOLTIP_CONSTRAINTS: usize = 120;
/// Constraints listed edge by edge (the JSON's `edge_constraints`, the text's `--path`
/// section), over the whole view: each edge lists every constraint in force on it, so the
/// lists grow with the square of a path's length.
pub const MAX_EDGE_CONSTRAINTS: usize = 100_000;

/// The `%cfg` drawing with constraints on the edges: each edge's own condition (or, with a
/// selected path, the constraints it adds on that path), every listed path's constraints in
/// the edge's tooltip, infeasible edges and the nodes only they reach in grey.
pub fn dot(a: &Analysis, selected: Option<usize>) -> String {
    let path = selected.and_then(|k| a.paths.get(k));
    styled_dot(&a.cfg, &Constraints { a, path })
}

/// The constraints style: edge number `k` of the CFG is `a.edges[k]`.
struct Constraints<'a> {
    a: &'a Analysis,
    path: Option<&'a PathReport>,
}

impl Style for Constraints<'_> {
    fn edge(
        &self,
        _cfg: &Cfg,
        k: usize,
        _edge: (NodeIndex, NodeIndex, &Edge),
        attrs: &mut Attrs,
    ) -> bool {
        let Some(e) = self.a.edges.get(k) else {
            return false;
        };
        *attrs = edge_attrs(self.a, e, self.path);
        true
    }

    fn restyle(&self, cfg: &Cfg) -> Vec<(NodeIndex, Attrs)> {
        let mut out = Vec::new();
        for n in cfg.nodes() {
            let node = cfg.node(n);
            if self.a.nodes[n.index()] == Feasible::No && !node.unreachable {
                let mut grey = Attrs::default();
                grey.text("fillcolor", GREY_FILL)
                    .text("fontcolor", GREY_TEXT)
                    .text("color", GREY);
                out.push((n, grey));
            }
            if let Some(p) = self.path
                && self.a.dag.nodes(&p.edges).contains(&n)
                && node.kind != NodeKind::Join
            {
                let mut on_path = Attrs::default();
                on_path.raw("penwidth", "2").text("color", PATH_COLOUR);
                out.push((n, on_path));
            }
        }
        out
    }
}

/// An edge's label (its kind, then the constraints it adds), colours and tooltip.
fn edge_attrs(
    a: &Analysis,
    e: &crate::constraints::EdgeReport,
    path: Option<&PathReport>,
) -> Attrs {
    let mut label_lines: Vec<String> = e.kind.describe().into_iter().collect();
    let mut colours = Attrs::default();
    let on_path = path.and_then(|p| p.edges.iter().position(|&x| x == e.id).map(|i| (p, i)));
    match (path, on_path) {
        (Some(_), Some((p, i))) => {
            let before: HashSet<usize> = match i.checked_sub(1) {
                Some(j) => p.at_edge[j].iter().copied().collect(),
                None => HashSet::new(),
            };
            let new: Vec<usize> = p.at_edge[i]
                .iter()
                .copied()
                .filter(|c| !before.contains(c))
                .collect();
            label_lines.extend(shown(p, new).iter().map(|t| shorten(t)));
            colours.raw("penwidth", "2.5").colours(PATH_COLOUR);
        }
        (Some(_), None) => {
            colours.text("color", GREY).text("fontcolor", GREY_TEXT);
        }
        (None, _) => {
            label_lines.extend(
                e.adds
                    .iter()
                    .filter(|c| c.kind != crate::constraints::Kind::Internal)
                    .map(|c| shorten(&c.term.to_string())),
            );
            match &e.feasible {
                Feasible::No => {
                    colours
                        .text("color", GREY)
                        .text("fontcolor", GREY_TEXT)
                        .raw("style", "dashed");
                }
                Feasible::Unknown(_) => {
                    colours.raw("style", "dotted");
                }
                Feasible::Yes => edge_colours(&e.kind, &mut colours),
            }
        }
    }
    let mut attrs = Attrs::default();
    if !label_lines.is_empty() {
        attrs.text("label", &label_lines.join("\n"));
    }
    attrs.extend(colours);
    let tip = tooltip(a, e);
    attrs.text("tooltip", &tip).text("labeltooltip", &tip);
    attrs
}

/// An edge's tooltip: its verdict, then the constraints in force on it on each listed path.
fn tooltip(a: &Analysis, e: &crate::constraints::EdgeReport) -> String {
    let mut lines = vec![format!(
        "{} -> {}: feasible {}",
        e.source.index(),
        e.target.index(),
        feasible_word(&e.feasible)
    )];
    if let Feasible::Unknown(r) = &e.feasible {
        lines.push(format!("({r})"));
    }
    let mut budget = MAX_TOOLTIP_CONSTRAINTS;
    for (k, &pid) in e.paths.iter().take(MAX_TOOLTIP_PATHS).enumerate() {
        let p = &a.paths[pid];
        let Some(i) = p.edges.iter().position(|&x| x == e.id) else {
            continue;
        };
        let Some(left) = budget.checked_sub(p.at_edge[i].len()) else {
            lines.push(format!(
                "stopped: {} more paths not shown (limit {MAX_TOOLTIP_CONSTRAINTS} constraints per tooltip)",
                e.paths.len().min(MAX_TOOLTIP_PATHS) - k
            ));
            break;
        };
        budget = left;
        let list = shown(p, p.at_edge[i].iter().copied());
        lines.push(format!("path {pid}: {}", or_none(&list)));
    }
    if e.paths.len() > MAX_TOOLTIP_PATHS {
        lines.push(format!(
            "… and {} more paths",
            e.paths.len() - MAX_TOOLTIP_PATHS
        ));
    }
    lines.join("\n")
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL {
        return s.to_string();
    }
    let kept: String = s.chars().take(MAX_LABEL - 3).collect();
    format!("{kept}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::constraints::{Options, analyze};
    use crate::python::lower_module;

    /// `n` sequential `if x > i: y = y + i`.
    fn long_analysis(n: usize) -> Analysis {
        let mut source = String::from("def f(x: int):\n    y = 0\n");
        for i in 0..n {
            source.push_str(&format!("    if x > {i}:\n        y = y + {i}\n"));
        }
        source.push_str("    return y\n");
        let module = lower_module(&source).expect("parses");
        let f = module.functions().next().expect("one function");
        let options = Options {
            mode: Mode::Precise,
            path_limit: 64,
            timeout_ms: 5_000,
            given: Vec::new(),
        };
        analyze(f, &options, &Cancel::new()).expect("analyses")
    }

    #[test]
    fn long_paths_keep_edge_lists_and_tooltips_within_their_limits() {
        let a = long_analysis(100);
        let payload = json(&a);
        let paths = payload["paths"].as_array().expect("paths");
        assert!(paths[0].get("edge_constraints").is_some());
        assert!(
            paths
                .last()
                .and_then(|p| p.get("edge_constraints"))
                .is_none()
        );
        let listed: usize = paths
            .iter()
            .filter_map(|p| p["edge_constraints"].as_array())
            .flatten()
            .filter_map(Value::as_array)
            .map(Vec::len)
            .sum();
        assert!(listed <= MAX_EDGE_CONSTRAINTS, "{listed}");
        let stopped = payload["stopped"].as_str().expect("a stopped note");
        assert!(stopped.starts_with("stopped: "), "{stopped}");
        assert!(stopped.contains(&format!("(limit {MAX_EDGE_CONSTRAINTS} constraints)")));
        let figure = dot(&a, None);
        assert!(figure.contains("(limit 120 constraints per tooltip)"));
        assert!(
            !text(&a, Some(0)).contains("stopped:"),
            "one path's lists fit"
        );
        let longer = long_analysis(300);
        assert!(text(&longer, Some(0)).contains("stopped: "));
        assert!(json(&longer)["paths"][0].get("edge_constraints").is_none());
        let short = long_analysis(20);
        assert!(text(&short, Some(0)).contains("edge by edge:\n  0 -> 1"));
        assert!(!text(&short, Some(0)).contains("stopped:"));
    }

    #[test]
    fn short_functions_are_not_cut() {
        let a = long_analysis(3);
        assert!(json(&a).get("stopped").is_none());
        assert!(!dot(&a, None).contains("stopped:"));
    }
}
