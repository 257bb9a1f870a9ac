//! `%constraints NAME`: the CFG whose edges carry Z3 path constraints, the table of paths
//! with feasibility and witness inputs, edge verdicts and redundant or impossible
//! conditions; as text, SVG (the `%cfg` drawing, annotated) and the `constraints` JSON.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::cfg::{Edge, NodeKind};
use crate::constraints::{
    Analysis, ConstraintsError, Feasible, Mode, Options, PathReport, Verdict, analyze,
};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::render::cfg::{FALSE_COLOUR, TRUE_COLOUR, dot as cfg_dot};
use crate::render::graphviz::GraphvizError;
use crate::render::html::{escape, table, text_table};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--pyta",
        values: 0,
        help: "PythonTA's rule: drop every constraint that mentions a reassigned parameter",
    },
    OptionSpec {
        name: "--paths",
        values: 1,
        help: "list at most N paths (default: %config path_limit)",
    },
    OptionSpec {
        name: "--path",
        values: 1,
        help: "draw path K with the constraints on each of its edges",
    },
];

pub const USAGE: &str = "%constraints NAME [--pyta] [--paths N] [--path K]";

pub const SUMMARY: &str =
    "Z3 path constraints on the CFG's edges, path feasibility and witness inputs";

pub const HELP: &str = "Path constraints of a function, as PythonTA computes them, with Z3.\n\n\
Preconditions come from the docstring (`Preconditions:` followed by `- expr` lines, or one line \
`Precondition: expr`) over the parameters annotated int, float, bool, str, list[T], tuple[...]. \
Preconditions that cannot be translated are listed with the reason.\n\n\
A path runs from the entry to the exit, taking each loop at most once (it ends with the edge back \
to the loop head), so the paths are PythonTA's. On each edge: the preconditions, every branch \
condition so far (negated on False edges), the SSA definitions of assignments (`x_1 == x - 5`), and \
what must not raise (`y != 0`). Each path is checked with Z3; a feasible path gets a witness input \
that takes it. Every edge is decided with one query over a formula for all paths at once (no path \
listing), so this scales where listing 2**k paths cannot: infeasible edges and the nodes only they \
reach are grey. Edges reached only after more loop iterations than one are \"unknown\". Conditions \
that are always true (R9900) or always false (R9901) where reached are flagged. Z3 gets at most \
twice the query timeout (%config z3_timeout_ms) per analysis: what it has not decided by then is \
\"unknown\" (stopped: solver time budget spent).\n\n\
--pyta applies PythonTA's rule instead of SSA: constraints that mention a reassigned parameter are \
dropped from the rest of the path. Statements the translation does not cover are assumed to \
complete; conditions it does not cover make their paths \"unknown\" (with --pyta they are ignored, \
as PythonTA does).";

/// Runs `%constraints`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let [name] = inv.args.as_slice() else {
        return Err(CellError::usage(
            "%constraints takes one function name (see %help constraints)",
        ));
    };
    let f = session.require_lowered(name)?.clone();
    let path_limit = match inv.option("--paths") {
        Some(n) => parse_count("--paths", n)?,
        None => usize::try_from(session.config.path_limit).unwrap_or(usize::MAX),
    };
    let selected = inv
        .option("--path")
        .map(|k| parse_count("--path", k))
        .transpose()?;
    let options = Options {
        mode: if inv.flag("--pyta") {
            Mode::Pyta
        } else {
            Mode::Precise
        },
        path_limit,
        timeout_ms: u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX),
    };
    let analysis = analyze(&f, &options, ctx.cancel).map_err(|e| match e {
        ConstraintsError::Interrupted => CellError::interrupted(),
        ConstraintsError::Cfg(e) => CellError::new("SyntaxError", format!("in {name}: {e}")),
    })?;
    if let Some(k) = selected
        && k >= analysis.paths.len()
    {
        return Err(CellError::usage(format!(
            "--path {k}: {name} has {} listed paths (numbered from 0)",
            analysis.paths.len()
        )));
    }
    ctx.check_cancel()?;
    let source = dot(&analysis, selected);
    let limit = Duration::from_secs(session.config.dot_timeout_s);
    let (svg, note) = match session.layout(&source, ctx.cancel, limit) {
        Ok(svg) => (Some(svg), String::new()),
        Err(GraphvizError::Interrupted) => return Err(CellError::interrupted()),
        Err(e) => (
            None,
            format!(
                "<div class=\"analysis-kernel-note\">No figure: {}.</div>",
                escape(&e.to_string())
            ),
        ),
    };
    let view = View {
        kind: "constraints",
        text: text(&analysis, selected),
        html: format!("{note}{}", html(&analysis, selected)),
        svg,
        dot: Some(source),
        json: json(&analysis),
    };
    ctx.show(&view, inv)
}

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

fn parse_count(option: &str, value: &str) -> Result<usize, CellError> {
    value
        .parse()
        .map_err(|_| CellError::usage(format!("{option} takes a whole number, got {value:?}")))
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
        Some(w) => w
            .iter()
            .map(|(n, v)| format!("{n}={}", v.repr()))
            .collect::<Vec<_>>()
            .join(", "),
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

/// The text rendering.
pub fn text(a: &Analysis, selected: Option<usize>) -> String {
    let mut out = format!("constraints of {} ({})\n", signature(a), mode_text(a));
    let params: Vec<String> = a
        .parameters
        .iter()
        .map(|(n, s)| format!("{n}: {s}"))
        .collect();
    out.push_str(&format!("parameters: {}\n", or_none(&params)));
    for (n, reason) in &a.unsupported_parameters {
        out.push_str(&format!("  not modelled: {n} ({reason})\n"));
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
                feasible_word(&e.feasible).into(),
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

/// The HTML under the figure: the paths table and the conditions.
fn html(a: &Analysis, selected: Option<usize>) -> String {
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
        out.push_str(&table(&["line", "condition", "verdict"], &rows));
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
        .map(|(n, s)| (n.clone(), json!(s.to_string())))
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
    let base = cfg_dot(&[&a.cfg], false);
    let path = selected.and_then(|k| a.paths.get(k));
    let mut edge_no = 0;
    let mut out = String::new();
    for line in base.lines() {
        if is_edge_line(line) {
            if let Some(e) = a.edges.get(edge_no) {
                out.push_str(&edge_line(a, e, line, path));
            }
            edge_no += 1;
        } else if line == "}" {
            for n in a.cfg.nodes() {
                let node = a.cfg.node(n);
                if a.nodes[n.index()] == Feasible::No && !node.unreachable {
                    out.push_str(&format!(
                        "  c0_{} [fillcolor=\"{GREY_FILL}\" fontcolor=\"{GREY_TEXT}\" color=\"{GREY}\"];\n",
                        n.index()
                    ));
                }
                if let Some(p) = path
                    && a.dag.nodes(&p.edges).contains(&n)
                    && node.kind != NodeKind::Join
                {
                    out.push_str(&format!(
                        "  c0_{} [penwidth=2 color=\"{PATH_COLOUR}\"];\n",
                        n.index()
                    ));
                }
            }
            out.push_str("}\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `  c0_3 -> c0_4 [...];` (node lines start `  c0_3 [`, whatever their label holds).
fn is_edge_line(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("c0_") else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with(" -> c0_")
}

fn edge_line(
    a: &Analysis,
    e: &crate::constraints::EdgeReport,
    line: &str,
    path: Option<&PathReport>,
) -> String {
    let head = line
        .split(" [")
        .next()
        .unwrap_or(line)
        .trim_end_matches(';');
    let mut attrs: Vec<String> = Vec::new();
    let label_word = e.kind.describe();
    let mut label_lines: Vec<String> = label_word.iter().cloned().collect();
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
            attrs.push(format!(
                "penwidth=2.5 color=\"{PATH_COLOUR}\" fontcolor=\"{PATH_COLOUR}\""
            ));
        }
        (Some(_), None) => attrs.push(format!("color=\"{GREY}\" fontcolor=\"{GREY_TEXT}\"")),
        (None, _) => {
            label_lines.extend(
                e.adds
                    .iter()
                    .filter(|c| c.kind != crate::constraints::Kind::Internal)
                    .map(|c| shorten(&c.term.to_string())),
            );
            match &e.feasible {
                Feasible::No => attrs.push(format!(
                    "color=\"{GREY}\" fontcolor=\"{GREY_TEXT}\" style=dashed"
                )),
                Feasible::Unknown(_) => attrs.push("style=dotted".into()),
                Feasible::Yes => attrs.push(colour_of(&e.kind)),
            }
        }
    }
    if !label_lines.is_empty() {
        attrs.insert(0, format!("label={}", quote(&label_lines.join("\n"))));
    }
    attrs.retain(|a| !a.is_empty());
    let tip = tooltip(a, e);
    attrs.push(format!("tooltip={0} labeltooltip={0}", quote(&tip)));
    format!("{head} [{}];\n", attrs.join(" "))
}

fn colour_of(edge: &Edge) -> String {
    match edge {
        Edge::True => format!("color=\"{TRUE_COLOUR}\" fontcolor=\"{TRUE_COLOUR}\""),
        Edge::False => format!("color=\"{FALSE_COLOUR}\" fontcolor=\"{FALSE_COLOUR}\""),
        Edge::Exception(_) => "style=dashed color=\"#b35c00\" fontcolor=\"#b35c00\"".into(),
        Edge::Normal => String::new(),
        Edge::Return | Edge::Break | Edge::Continue => {
            "color=\"#666666\" fontcolor=\"#666666\"".into()
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
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
