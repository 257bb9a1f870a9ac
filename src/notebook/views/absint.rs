//! `%absint DOMAIN NAME` and `%%absint DOMAIN`: abstract values before (IN) and after (OUT)
//! every CFG node in a domain of the registry, the CFG drawn with them,
//! the warnings (division by zero, index out of range), and with `--trace` the worklist.

use serde_json::{Value, json};

use super::annotate::{FactsView, Note, facts_view};
use super::dataflow::fixpoint_error;
use super::flowtext::{cause, cause_json, lines, statement};
use super::subject::request;
use crate::dataflow::absint::{self, AbsReport, StateView};
use crate::dataflow::analyses::Program;
use crate::dataflow::registry;
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::notebook::suggest;
use crate::render::html::{escape, table, text_table};

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "--trace",
    values: 0,
    help: "also list the worklist steps: node, the edge whose facts changed it, values that changed",
}];

pub const USAGE: &str = "%absint DOMAIN NAME [--trace]\n%%absint DOMAIN [--trace]\n<Python code>";

pub const SUMMARY: &str = "abstract interpretation ({domains}) with division-by-zero warnings";

pub const HELP: &str = "Abstract interpretation of function NAME (or with %%absint of the rest of the cell) in \
DOMAIN: {domain-choices}. Each CFG node gets the abstract value of every variable before (IN) and after (OUT) it; \
`unreachable` means no execution gets there. Parameters start at ⊤ (0..1 for `bool`); assignments \
evaluate + - * // % and unary minus in the domain (anything else is ⊤); True/False edges refine the \
state with their condition (x < c, x == y, x != 0, not, and, or), so infeasible branches become \
unreachable; a `for` over range(...) binds its bounds; loops are widened at their heads after 3 \
visits, then narrowed.\n\n\
Warnings: \"Possible division by zero in line N\" when a divisor may be 0 in a reachable state, \
\"Division by zero in line N\" when it must be; likewise for indexing a tuple or string of known \
length outside [-len, len-1] (constant and interval domains). Values are analysed as ints; names \
that may hold floats, strings or call results are ⊤ and are not refined.";

/// Runs `%absint` / `%%absint`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let req = request(session, inv, "DOMAIN")?;
    let domain = registry::find_domain(&req.which).map_err(|e| {
        let names = registry::DOMAIN_NAMES.iter().copied();
        let hint = suggest(&req.which, names.clone())
            .or_else(|| names.clone().find(|w| w.starts_with(req.which.as_str())))
            .map(|w| format!("; did you mean {w}?"))
            .unwrap_or_default();
        CellError::usage(format!("{e}{hint}"))
    })?;
    let trace = inv.flag("--trace");
    for subject in &req.subjects {
        ctx.check_cancel()?;
        let program = subject.program(req.cell_body.as_deref())?;
        let options = absint::options(trace, Some(ctx.cancel));
        let report = (domain.analyze)(&program, &options).map_err(fixpoint_error)?;
        let view = view(&program, &report, trace, session, ctx)?;
        ctx.show(&view, inv)?;
    }
    Ok(())
}

fn title(r: &AbsReport) -> String {
    format!(
        "{} analysis of {} ({} node visits, widenings: {}, narrowing rounds: {})",
        r.domain, r.function, r.iterations, r.widenings, r.narrowing_rounds
    )
}

fn rows(program: &Program<'_>, r: &AbsReport) -> Vec<Vec<String>> {
    r.nodes
        .iter()
        .map(|n| {
            vec![
                n.node.index().to_string(),
                lines(&program.cfg, n.node),
                statement(&program.cfg, n.node),
                n.before.text(),
                n.after.text(),
            ]
        })
        .collect()
}

/// `x: [0, 0] → [0, 1]; y: ⊥ → ⊤`, `unreachable → reachable`, or `·`.
fn changes(old: &StateView, new: &StateView) -> String {
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

fn changed_vars(old: &StateView, new: &StateView) -> Vec<String> {
    old.values
        .iter()
        .zip(&new.values)
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, _)| a.0.clone())
        .collect()
}

fn trace_rows(program: &Program<'_>, r: &AbsReport) -> Vec<Vec<String>> {
    r.trace
        .iter()
        .map(|s| {
            vec![
                s.step.to_string(),
                s.node.index().to_string(),
                lines(&program.cfg, s.node),
                cause(&s.cause, s.phase, s.widened),
                changes(&s.old_in, &s.new_in),
                changes(&s.old_out, &s.new_out),
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

fn warnings_text(r: &AbsReport) -> String {
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

/// The text rendering: title, the values table, the warnings, and the trace when asked.
pub fn text(program: &Program<'_>, r: &AbsReport, trace: bool) -> String {
    let mut out = format!(
        "{}\n\n{}\n\n{}",
        title(r),
        text_table(&HEADERS, &rows(program, r)),
        warnings_text(r)
    );
    if trace {
        out.push_str(&format!(
            "\n\nWorklist trace\n{}",
            text_table(&TRACE_HEADERS, &trace_rows(program, r))
        ));
    }
    out
}

/// The JSON payload (`kind: "absint"`).
pub fn json(program: &Program<'_>, r: &AbsReport, trace: bool) -> Value {
    let nodes: Vec<Value> = r
        .nodes
        .iter()
        .map(|n| {
            let (a, b) = program.cfg.node(n.node).lines;
            json!({
                "id": program.cfg.node_id(n.node),
                "lines": [a, b],
                "in": n.before.json(),
                "out": n.after.json(),
                "in_reachable": n.before.reachable,
                "out_reachable": n.after.reachable,
            })
        })
        .collect();
    let warnings: Vec<Value> = r
        .warnings
        .iter()
        .map(|w| json!({"line": w.line, "kind": w.kind.name(), "certain": w.certain, "message": w.message()}))
        .collect();
    let mut fields = json!({
        "domain": r.domain,
        "function": r.function,
        "variables": r.variables,
        "nodes": nodes,
        "warnings": warnings,
        "iterations": r.iterations,
        "widenings": r.widenings,
        "loop_heads": r.loop_heads.iter().map(|n| n.index().to_string()).collect::<Vec<_>>(),
    });
    if trace && let Value::Object(map) = &mut fields {
        let steps: Vec<Value> = r
            .trace
            .iter()
            .map(|s| {
                let (from, edge) = cause_json(&s.cause);
                json!({
                    "step": s.step,
                    "node": s.node.index().to_string(),
                    "from": from,
                    "edge": edge,
                    "phase": s.phase.name(),
                    "widened": s.widened,
                    "in": s.new_in.json(),
                    "out": s.new_out.json(),
                    "in_reachable": s.new_in.reachable,
                    "out_reachable": s.new_out.reachable,
                    "in_changed": changed_vars(&s.old_in, &s.new_in),
                    "out_changed": changed_vars(&s.old_out, &s.new_out),
                })
            })
            .collect();
        map.insert("trace".into(), Value::Array(steps));
    }
    payload("absint", fields)
}

fn view(
    program: &Program<'_>,
    r: &AbsReport,
    trace: bool,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<View, CellError> {
    let text = text(program, r, trace);
    let notes: Vec<Note> = r
        .nodes
        .iter()
        .map(|n| Note {
            before: n.before.text(),
            after: n.after.text(),
        })
        .collect();
    let warnings_html = if r.warnings.is_empty() {
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
    };
    let facts = FactsView {
        kind: "absint",
        notes,
        title: title(r),
        legend: "Warnings: red = certain, orange = possible.".to_string(),
        middle_html: warnings_html,
        table_html: table(&HEADERS, &rows(program, r)),
        trace_html: trace.then(|| table(&TRACE_HEADERS, &trace_rows(program, r))),
        json: json(program, r, trace),
        text,
    };
    facts_view(&program.cfg, facts, session, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn report(source: &str, kind: &str, trace: bool) -> String {
        let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
        let domain = registry::find_domain(kind).unwrap_or_else(|e| panic!("{e}"));
        let r =
            (domain.analyze)(&p, &absint::options(trace, None)).unwrap_or_else(|e| panic!("{e}"));
        text(&p, &r, trace)
    }

    #[test]
    fn zero_analysis_table() {
        expect_test::expect![[r#"
            zero analysis of f (13 node visits, widenings: 0, narrowing rounds: 1)

            node  lines  statement      IN                  OUT
            ----  -----  -------------  ------------------  ------------------
            0     L2     enter: f()     x: ⊥, y: ⊥, z: ⊥    x: ⊥, y: ⊥, z: ⊥
            1     L3     x = 8          x: ⊥, y: ⊥, z: ⊥    x: ≠0, y: ⊥, z: ⊥
            2     L4     y = x          x: ≠0, y: ⊥, z: ⊥   x: ≠0, y: ≠0, z: ⊥
            3     L5     z = 0          x: ≠0, y: ≠0, z: ⊥  x: ≠0, y: ≠0, z: 0
            4     L6     while y > -1:  x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤
            5     L7     x = x // y     x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤
            6     L8     y = y - 2      x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤
            7     L9     z = 5          x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ≠0
            8     L9     exit: f()      x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤

            Warnings:
            - Possible division by zero in line 7"#]].assert_eq(&report(
            "\ndef f():\n    x = 8\n    y = x\n    z = 0\n    while y > -1:\n        x = x // y\n        y = y - 2\n        z = 5\n",
            "zero",
            false,
        ));
    }

    #[test]
    fn interval_table_with_trace() {
        expect_test::expect![[r#"
            interval analysis of f (12 node visits, widenings: 1, narrowing rounds: 1)

            node  lines  statement       IN                       OUT
            ----  -----  --------------  -----------------------  -----------------------
            0     L1     enter: f(n)     i: ⊥, n: [-∞, +∞]        i: ⊥, n: [-∞, +∞]
            1     L2     i = 0           i: ⊥, n: [-∞, +∞]        i: [0, 0], n: [-∞, +∞]
            2     L3     while i < n:    i: [0, +∞], n: [-∞, +∞]  i: [0, +∞], n: [-∞, +∞]
            3     L4     i = i + 1       i: [0, +∞], n: [1, +∞]   i: [1, +∞], n: [1, +∞]
            4     L5     return 10 // i  i: [0, +∞], n: [-∞, +∞]  i: [0, +∞], n: [-∞, +∞]
            5     L5     exit: f(n)      i: [0, +∞], n: [-∞, +∞]  i: [0, +∞], n: [-∞, +∞]

            Warnings:
            - Possible division by zero in line 5

            Worklist trace
            step  node  lines  changed by       IN changes                                                OUT changes
            ----  ----  -----  ---------------  --------------------------------------------------------  --------------------------------------------------------
            1     0     L1     start            unreachable → reachable; n: ⊥ → [-∞, +∞]                  unreachable → reachable; n: ⊥ → [-∞, +∞]
            2     1     L2     from 0           unreachable → reachable; n: ⊥ → [-∞, +∞]                  unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [-∞, +∞]
            3     2     L3     from 1           unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [-∞, +∞]   unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [-∞, +∞]
            4     3     L4     from 2 (True)    unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [1, +∞]    unreachable → reachable; i: ⊥ → [1, 1]; n: ⊥ → [1, +∞]
            5     2     L3     from 3           i: [0, 0] → [0, 1]                                        i: [0, 0] → [0, 1]
            6     3     L4     from 2 (True)    i: [0, 0] → [0, 1]                                        i: [1, 1] → [1, 2]
            7     2     L3     from 3           i: [0, 1] → [0, 2]                                        i: [0, 1] → [0, 2]
            8     3     L4     from 2 (True)    i: [0, 1] → [0, 2]                                        i: [1, 2] → [1, 3]
            9     2     L3     from 3, widened  i: [0, 2] → [0, +∞]                                       i: [0, 2] → [0, +∞]
            10    3     L4     from 2 (True)    i: [0, 2] → [0, +∞]                                       i: [1, 3] → [1, +∞]
            11    4     L5     from 2 (False)   unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]  unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]
            12    5     L5     from 4           unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]  unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]"#]].assert_eq(&report(
            "def f(n: int):\n    i = 0\n    while i < n:\n        i = i + 1\n    return 10 // i\n",
            "interval",
            true,
        ));
    }
}
