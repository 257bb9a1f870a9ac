//! The one view of `%dataflow` and `%absint`: a [`Report`]'s facts before (IN) and after (OUT)
//! every CFG node as a table, the CFG drawn with them, abstract interpretation's warnings, and
//! with `--trace` the worklist steps; as text, HTML with the figure, and the JSON payload
//! (`kind: "dataflow"` or `"absint"`).

use serde_json::{Map, Value, json};

use super::annotate::{FactsView, Note, facts_view};
use super::flowtext::{cause, cause_json, diff, diff_text, lines, set, statement};
use super::subject::request;
use crate::cancel::Cancel;
use crate::dataflow::absint::StateView;
use crate::dataflow::analyses::Program;
use crate::dataflow::engine::{Direction, FixpointError, Options};
use crate::dataflow::report::{FactStep, Report, Source};
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::notebook::suggest;
use crate::render::html::{escape, table, text_table};

/// How one form of facts is shown: in a table cell, as a change, in JSON.
pub trait ShownFacts {
    /// The table cell: `{x@L2, y@L3}` or `x: [0, 5], y: ⊤`.
    fn cell(&self) -> String;
    /// A trace step's change: `+x@L3 -y@L2` or `x: [0, 0] → [0, 1]`.
    fn changes(old: &Self, new: &Self) -> String;
    /// The node's `in`/`out` fields of the payload.
    fn node_json(before: &Self, after: &Self, node: &mut Map<String, Value>);
    /// A trace step's facts and changes in the payload.
    fn step_json(step: &FactStep<Self>, out: &mut Map<String, Value>)
    where
        Self: Sized;
}

impl ShownFacts for Vec<String> {
    fn cell(&self) -> String {
        set(self)
    }

    fn changes(old: &Self, new: &Self) -> String {
        diff_text(old, new)
    }

    fn node_json(before: &Self, after: &Self, node: &mut Map<String, Value>) {
        node.insert("in".into(), json!(before));
        node.insert("out".into(), json!(after));
    }

    fn step_json(s: &FactStep<Self>, out: &mut Map<String, Value>) {
        let (in_added, in_removed) = diff(&s.old_in, &s.new_in);
        let (out_added, out_removed) = diff(&s.old_out, &s.new_out);
        out.insert("in".into(), json!(s.new_in));
        out.insert("out".into(), json!(s.new_out));
        out.insert("in_added".into(), json!(in_added));
        out.insert("in_removed".into(), json!(in_removed));
        out.insert("out_added".into(), json!(out_added));
        out.insert("out_removed".into(), json!(out_removed));
    }
}

impl ShownFacts for StateView {
    fn cell(&self) -> String {
        self.text()
    }

    /// `x: [0, 0] → [0, 1]; y: ⊥ → ⊤`, `unreachable → reachable`, or `·`.
    fn changes(old: &Self, new: &Self) -> String {
        if old.reachable != new.reachable && !new.reachable {
            return "reachable → unreachable".to_string();
        }
        let mut parts = Vec::new();
        if old.reachable != new.reachable {
            parts.push("unreachable → reachable".to_string());
        }
        for ((var, a), (_, b)) in old.values.iter().zip(&new.values) {
            if a.text != b.text {
                parts.push(format!("{var}: {} → {}", a.text, b.text));
            }
        }
        if parts.is_empty() {
            "·".to_string()
        } else {
            parts.join("; ")
        }
    }

    fn node_json(before: &Self, after: &Self, node: &mut Map<String, Value>) {
        node.insert("in".into(), before.json());
        node.insert("out".into(), after.json());
        node.insert("in_reachable".into(), json!(before.reachable));
        node.insert("out_reachable".into(), json!(after.reachable));
    }

    fn step_json(s: &FactStep<Self>, out: &mut Map<String, Value>) {
        out.insert("in".into(), s.new_in.json());
        out.insert("out".into(), s.new_out.json());
        out.insert("in_reachable".into(), json!(s.new_in.reachable));
        out.insert("out_reachable".into(), json!(s.new_out.reachable));
        out.insert(
            "in_changed".into(),
            json!(changed_vars(&s.old_in, &s.new_in)),
        );
        out.insert(
            "out_changed".into(),
            json!(changed_vars(&s.old_out, &s.new_out)),
        );
    }
}

fn changed_vars(old: &StateView, new: &StateView) -> Vec<String> {
    old.values
        .iter()
        .zip(&new.values)
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, _)| a.0.clone())
        .collect()
}

/// Runs a `%dataflow`-like command: the rest of the line names what to run (`choices`, e.g.
/// `ANALYSIS`), `pick` turns that name into a runner, each subject gets a view.
pub fn run_each<F: ShownFacts + Clone>(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    choices: &str,
    pick: impl FnOnce(&str) -> Result<Runner<F>, CellError>,
    options: fn(bool, Option<&Cancel>) -> Options<'_>,
) -> Result<(), CellError> {
    let req = request(session, inv, choices)?;
    let runner = pick(&req.which)?;
    let trace = inv.flag("--trace");
    for subject in &req.subjects {
        ctx.check_cancel()?;
        let program = subject.program(req.cell_body.as_deref())?;
        let report = runner(&program, &options(trace, Some(ctx.cancel))).map_err(fixpoint_error)?;
        let view = view(&program, &report, trace, session, ctx)?;
        if inv.flag("--step") {
            let traced =
                runner(&program, &options(true, Some(ctx.cancel))).map_err(fixpoint_error)?;
            super::step::play(&program, &traced, &view, session, ctx)?;
            drop(report);
            if let Some(file) = view.save_file(inv)? {
                ctx.sink.save(file)?;
            }
            continue;
        }
        // The facts as text can be large (a set per node): gone before the view is sent.
        drop(report);
        ctx.show(&view, inv)?;
    }
    Ok(())
}

/// What runs one analysis on one program.
pub type Runner<F> = fn(&Program<'_>, &Options<'_>) -> Result<Report<F>, FixpointError>;

/// A name that is none of `words`, as a usage error with a suggestion.
pub fn unknown(error: impl ToString, which: &str, words: &[&str]) -> CellError {
    let words = words.iter().copied();
    let hint = suggest(which, words.clone())
        .or_else(|| words.clone().find(|w| w.starts_with(which)))
        .map(|w| format!("; did you mean {w}?"))
        .unwrap_or_default();
    CellError::usage(format!("{}{hint}", error.to_string()))
}

/// A failed fixpoint as a cell error.
pub fn fixpoint_error(e: FixpointError) -> CellError {
    match e {
        FixpointError::Stopped(s) => s.into(),
        other => CellError::new("AnalysisError", other.to_string()),
    }
}

pub fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Forward => "forward",
        Direction::Backward => "backward",
    }
}

/// `reaching definitions of foo (forward, may; 14 node visits)` or
/// `interval analysis of f (12 node visits, widenings: 1, narrowing rounds: 1)`.
fn title<F>(r: &Report<F>) -> String {
    match &r.source {
        Source::Dataflow {
            title, quantifier, ..
        } => format!(
            "{title} of {} ({}, {quantifier}; {} node visits)",
            r.function,
            direction_name(r.direction),
            r.iterations
        ),
        Source::Absint => format!(
            "{} analysis of {} ({} node visits, widenings: {}, narrowing rounds: {})",
            r.name, r.function, r.iterations, r.widenings, r.narrowing_rounds
        ),
    }
}

/// The payload's kind.
fn kind<F>(r: &Report<F>) -> &'static str {
    match r.source {
        Source::Dataflow { .. } => "dataflow",
        Source::Absint => "absint",
    }
}

/// The table of facts: one row per node.
fn rows<F: ShownFacts>(program: &Program<'_>, r: &Report<F>) -> Vec<Vec<String>> {
    r.nodes
        .iter()
        .map(|n| {
            vec![
                n.node.index().to_string(),
                lines(&program.cfg, n.node),
                statement(&program.cfg, n.node),
                n.before.cell(),
                n.after.cell(),
            ]
        })
        .collect()
}

fn trace_rows<F: ShownFacts>(program: &Program<'_>, r: &Report<F>) -> Vec<Vec<String>> {
    r.trace
        .iter()
        .map(|s| {
            vec![
                s.step.to_string(),
                s.node.index().to_string(),
                lines(&program.cfg, s.node),
                cause(&s.cause, s.phase, s.widened),
                F::changes(&s.old_in, &s.new_in),
                F::changes(&s.old_out, &s.new_out),
            ]
        })
        .collect()
}

const HEADERS: [&str; 5] = ["node", "lines", "statement", "IN", "OUT"];
const TRACE_HEADERS: [&str; 6] = [
    "step",
    "node",
    "lines",
    "changed by",
    "IN changes",
    "OUT changes",
];

fn warnings_text<F>(r: &Report<F>) -> String {
    if r.warnings.is_empty() {
        "Warnings: none".to_string()
    } else {
        let list: Vec<String> = r
            .warnings
            .iter()
            .map(|w| format!("- {}", w.message()))
            .collect();
        format!("Warnings:\n{}", list.join("\n"))
    }
}

/// The text rendering: title, legend (dataflow), the facts table, the warnings (absint), and
/// the trace when asked.
pub fn text<F: ShownFacts>(program: &Program<'_>, r: &Report<F>, trace: bool) -> String {
    let table = text_table(&HEADERS, &rows(program, r));
    let mut out = match &r.source {
        Source::Dataflow { legend, .. } => format!("{}\n{legend}\n\n{table}", title(r)),
        Source::Absint => format!("{}\n\n{table}\n\n{}", title(r), warnings_text(r)),
    };
    if trace {
        out.push_str(&format!(
            "\n\nWorklist trace\n{}",
            text_table(&TRACE_HEADERS, &trace_rows(program, r))
        ));
    }
    out
}

/// The JSON payload.
pub fn json<F: ShownFacts>(program: &Program<'_>, r: &Report<F>, trace: bool) -> Value {
    let nodes: Vec<Value> = r
        .nodes
        .iter()
        .map(|n| {
            let (a, b) = program.cfg.node(n.node).lines;
            let mut node = Map::new();
            node.insert("id".into(), json!(program.cfg.node_id(n.node)));
            node.insert("lines".into(), json!([a, b]));
            F::node_json(&n.before, &n.after, &mut node);
            Value::Object(node)
        })
        .collect();
    let mut fields = match r.source {
        Source::Dataflow { .. } => json!({
            "analysis": r.name,
            "function": r.function,
            "direction": direction_name(r.direction),
            "nodes": nodes,
            "iterations": r.iterations,
        }),
        Source::Absint => {
            let warnings: Vec<Value> = r
                .warnings
                .iter()
                .map(|w| json!({"line": w.line, "kind": w.kind.name(), "certain": w.certain, "message": w.message()}))
                .collect();
            json!({
                "domain": r.name,
                "function": r.function,
                "variables": r.variables,
                "nodes": nodes,
                "warnings": warnings,
                "iterations": r.iterations,
                "widenings": r.widenings,
                "loop_heads": r.loop_heads.iter().map(|n| n.index().to_string()).collect::<Vec<_>>(),
            })
        }
    };
    if let Value::Object(map) = &mut fields {
        if let Some(chains) = &r.chains {
            let chains: Vec<Value> = chains
                .iter()
                .map(|c| {
                    json!({
                        "var": c.var,
                        "def": c.def,
                        "def_node": c.def_node.index().to_string(),
                        "use_node": c.use_node.index().to_string(),
                        "use_line": c.use_line,
                    })
                })
                .collect();
            map.insert("chains".into(), Value::Array(chains));
        }
        if trace {
            let steps: Vec<Value> = r
                .trace
                .iter()
                .map(|s| {
                    let (from, edge) = cause_json(&s.cause);
                    let mut step = Map::new();
                    step.insert("step".into(), json!(s.step));
                    step.insert("node".into(), json!(s.node.index().to_string()));
                    step.insert("from".into(), from);
                    step.insert("edge".into(), edge);
                    step.insert("phase".into(), json!(s.phase.name()));
                    step.insert("widened".into(), json!(s.widened));
                    F::step_json(s, &mut step);
                    Value::Object(step)
                })
                .collect();
            map.insert("trace".into(), Value::Array(steps));
        }
    }
    payload(kind(r), fields)
}

/// The warnings as HTML (absint), red when certain, orange when possible.
fn warnings_html<F>(r: &Report<F>) -> String {
    if r.warnings.is_empty() {
        "<div class=\"analysis-kernel-warnings\">No warnings.</div>".to_string()
    } else {
        let items: String = r
            .warnings
            .iter()
            .map(|w| {
                let colour = if w.certain { "#c62828" } else { "#b35c00" };
                format!("<li style=\"color:{colour}\">{}</li>", escape(&w.message()))
            })
            .collect();
        format!("<ul class=\"analysis-kernel-warnings\">{items}</ul>")
    }
}

/// The facts table as HTML.
pub fn facts_table<F: ShownFacts>(program: &Program<'_>, r: &Report<F>) -> String {
    table(&HEADERS, &rows(program, r))
}

/// The figure's note at each node: the facts before and after it.
pub fn notes<F: ShownFacts>(r: &Report<F>) -> Vec<Note> {
    r.nodes
        .iter()
        .map(|n| Note {
            before: n.before.cell(),
            after: n.after.cell(),
        })
        .collect()
}

/// The whole view: text, HTML with the annotated CFG, SVG, JSON.
pub fn view<F: ShownFacts>(
    program: &Program<'_>,
    r: &Report<F>,
    trace: bool,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<View, CellError> {
    let text = text(program, r, trace);
    let notes = notes(r);
    let (legend, middle_html) = match &r.source {
        Source::Dataflow { legend, .. } => (legend.to_string(), String::new()),
        Source::Absint => (
            "Warnings: red = certain, orange = possible.".to_string(),
            warnings_html(r),
        ),
    };
    let facts = FactsView {
        kind: kind(r),
        notes,
        title: title(r),
        legend,
        middle_html,
        table_html: crate::render::html::paged_table(&HEADERS, &rows(program, r), "nodes"),
        trace_html: trace.then(|| table(&TRACE_HEADERS, &trace_rows(program, r))),
        json: json(program, r, trace),
        text,
    };
    facts_view(&program.cfg, facts, session, ctx)
}
