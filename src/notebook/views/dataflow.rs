//! `%dataflow ANALYSIS NAME` and `%%dataflow ANALYSIS`: the facts before (IN) and after (OUT)
//! every CFG node as a table, the CFG drawn with them, and with `--trace` the worklist steps.

use serde_json::{Value, json};

use super::annotate::{FactsView, Note, facts_view};
use super::flowtext::{cause, cause_json, diff, diff_text, lines, set, statement};
use super::subject::request;
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::engine::{Direction, FixpointError, Options};
use crate::dataflow::registry;
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::notebook::suggest;
use crate::render::html::{table, text_table};

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "--trace",
    values: 0,
    help: "also list the worklist steps: node, the edge whose facts changed it, facts added/removed",
}];

pub const USAGE: &str =
    "%dataflow ANALYSIS NAME [--trace]\n%%dataflow ANALYSIS [--trace]\n<Python code>";

pub const SUMMARY: &str = "dataflow facts IN/OUT per CFG node: {analyses}";

pub const HELP: &str = "Runs a dataflow analysis to its fixpoint (a worklist in reverse postorder, postorder for \
backward analyses) on the statement-level CFG of function NAME, or with %%dataflow on the rest of the \
cell (its top-level code; each function when it only defines functions). Shows a table of the facts \
before (IN) and after (OUT) each node, in program order whatever the direction, and the CFG (node \
ids as %cfg shows them) with IN above and OUT below each statement.\n\n\
ANALYSIS:\n{analysis-help}\n\n\
Expressions are the binary operations and comparisons over variables and constants that a \
statement always evaluates (x += 1 evaluates x + 1). A `for` binds its target on its True edge; \
an exception edge carries the facts from before and after its statement.";

/// Runs `%dataflow` / `%%dataflow`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let req = request(session, inv, "ANALYSIS")?;
    let analysis = registry::find_analysis(&req.which).map_err(|e| {
        let words = registry::ANALYSIS_WORDS.iter().copied();
        let hint = suggest(&req.which, words.clone())
            .or_else(|| words.clone().find(|w| w.starts_with(req.which.as_str())))
            .map(|w| format!("; did you mean {w}?"))
            .unwrap_or_default();
        CellError::usage(format!("{e}{hint}"))
    })?;
    let trace = inv.flag("--trace");
    for subject in &req.subjects {
        ctx.check_cancel()?;
        let program = subject.program(req.cell_body.as_deref())?;
        let options = Options {
            trace,
            cancel: Some(ctx.cancel),
            ..Options::default()
        };
        let report = (analysis.run)(&program, &options).map_err(fixpoint_error)?;
        let view = view(&program, &report, trace, session, ctx)?;
        // The facts as text can be large (a set per node): gone before the view is sent.
        drop(report);
        ctx.show(&view, inv)?;
    }
    Ok(())
}

/// A failed fixpoint as a cell error.
pub fn fixpoint_error(e: FixpointError) -> CellError {
    match e {
        FixpointError::Cancelled => CellError::interrupted(),
        other => CellError::new("AnalysisError", other.to_string()),
    }
}

pub fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Forward => "forward",
        Direction::Backward => "backward",
    }
}

/// The title line: `reaching definitions of foo (forward, may; 14 node visits)`.
fn title(r: &FactReport) -> String {
    format!(
        "{} of {} ({}, {}; {} node visits)",
        r.title,
        r.function,
        direction_name(r.direction),
        r.quantifier,
        r.iterations
    )
}

/// The table of facts: one row per node.
fn rows(program: &Program<'_>, r: &FactReport) -> Vec<Vec<String>> {
    r.nodes
        .iter()
        .map(|n| {
            vec![
                n.node.index().to_string(),
                lines(&program.cfg, n.node),
                statement(&program.cfg, n.node),
                set(&n.before),
                set(&n.after),
            ]
        })
        .collect()
}

fn trace_rows(program: &Program<'_>, r: &FactReport) -> Vec<Vec<String>> {
    r.trace
        .iter()
        .map(|s| {
            vec![
                s.step.to_string(),
                s.node.index().to_string(),
                lines(&program.cfg, s.node),
                cause(&s.cause, s.phase, s.widened),
                diff_text(&s.old_in, &s.new_in),
                diff_text(&s.old_out, &s.new_out),
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

/// The text rendering: title, legend, the facts table, and the trace when asked.
pub fn text(program: &Program<'_>, r: &FactReport, trace: bool) -> String {
    let mut out = format!(
        "{}\n{}\n\n{}",
        title(r),
        r.legend,
        text_table(&HEADERS, &rows(program, r))
    );
    if trace {
        out.push_str(&format!(
            "\n\nWorklist trace\n{}",
            text_table(&TRACE_HEADERS, &trace_rows(program, r))
        ));
    }
    out
}

/// The JSON payload (`kind: "dataflow"`).
pub fn json(program: &Program<'_>, r: &FactReport, trace: bool) -> Value {
    let nodes: Vec<Value> = r
        .nodes
        .iter()
        .map(|n| {
            let (a, b) = program.cfg.node(n.node).lines;
            json!({"id": program.cfg.node_id(n.node), "lines": [a, b], "in": n.before, "out": n.after})
        })
        .collect();
    let mut fields = json!({
        "analysis": r.analysis,
        "function": r.function,
        "direction": direction_name(r.direction),
        "nodes": nodes,
        "iterations": r.iterations,
    });
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
                    let (in_added, in_removed) = diff(&s.old_in, &s.new_in);
                    let (out_added, out_removed) = diff(&s.old_out, &s.new_out);
                    json!({
                        "step": s.step,
                        "node": s.node.index().to_string(),
                        "from": from,
                        "edge": edge,
                        "phase": s.phase.name(),
                        "widened": s.widened,
                        "in": s.new_in,
                        "out": s.new_out,
                        "in_added": in_added,
                        "in_removed": in_removed,
                        "out_added": out_added,
                        "out_removed": out_removed,
                    })
                })
                .collect();
            map.insert("trace".into(), Value::Array(steps));
        }
    }
    payload("dataflow", fields)
}

fn view(
    program: &Program<'_>,
    r: &FactReport,
    trace: bool,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<View, CellError> {
    let text = text(program, r, trace);
    let notes: Vec<Note> = r
        .nodes
        .iter()
        .map(|n| Note {
            before: set(&n.before),
            after: set(&n.after),
        })
        .collect();
    let facts = FactsView {
        kind: "dataflow",
        notes,
        title: title(r),
        legend: r.legend.to_string(),
        middle_html: String::new(),
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
        let options = Options {
            trace,
            ..Options::default()
        };
        let analysis = registry::find_analysis(kind).unwrap_or_else(|e| panic!("{e}"));
        let r = (analysis.run)(&p, &options).unwrap_or_else(|e| panic!("{e}"));
        text(&p, &r, trace)
    }

    const FOO: &str = "\ndef f(x):\n    y = 0\n\n    while x >= 0:\n        tmp = x\n        if tmp % 2 == 0:\n            y = x\n        x -= 1\n\n\n    return y\n";

    #[test]
    fn reaching_definitions_table() {
        expect_test::expect![[r#"
            reaching definitions of f (forward, may; 14 node visits)
            x@L3 is the definition of x at line 3 (parameters: the def line); IN = definitions that may reach the statement.

            node  lines  statement         IN                                OUT
            ----  -----  ----------------  --------------------------------  --------------------------------
            0     L2     enter: f(x)       {}                                {x@L2}
            1     L3     y = 0             {x@L2}                            {x@L2, y@L3}
            2     L5     while x >= 0:     {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            3     L6     tmp = x           {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            4     L7     if tmp % 2 == 0:  {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            5     L8     y = x             {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L8}
            6     L9     x -= 1            {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L9, y@L3, y@L8}
            7     L12    return y          {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            8     L12    exit: f(x)        {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}"#]]
        .assert_eq(&report(FOO, "reaching", false));
    }

    #[test]
    fn liveness_table_with_trace() {
        expect_test::expect![[r#"
            live variables of f (backward, may; 6 node visits)
            x@L5 is the use of x at line 5; a use is live where some path reaches it before x is bound again, so x is live there. OUT is the course's LIVE-OUT.

            node  lines  statement       IN                        OUT
            ----  -----  --------------  ------------------------  ------------------------
            0     L1     enter: f(a, b)  {}                        {a@L2, a@L3, a@L4, b@L3}
            1     L2     while a > 0:    {a@L2, a@L3, a@L4, b@L3}  {a@L3, a@L4, b@L3}
            2     L3     a = a - b       {a@L3, b@L3}              {a@L2, a@L3, a@L4, b@L3}
            3     L4     return a        {a@L4}                    {}
            4     L4     exit: f(a, b)   {}                        {}

            Worklist trace
            step  node  lines  changed by     IN changes               OUT changes
            ----  ----  -----  -------------  -----------------------  -----------------------
            1     4     L4     start          ·                        ·
            2     3     L4     from 4         +a@L4                    ·
            3     2     L3     start          +a@L3 +b@L3              ·
            4     1     L2     from 2 (True)  +a@L2 +a@L3 +a@L4 +b@L3  +a@L3 +a@L4 +b@L3
            5     2     L3     from 1         ·                        +a@L2 +a@L3 +a@L4 +b@L3
            6     0     L1     from 1         ·                        +a@L2 +a@L3 +a@L4 +b@L3"#]].assert_eq(&report(
            "def f(a, b):\n    while a > 0:\n        a = a - b\n    return a\n",
            "live",
            true,
        ));
    }
}
