//! `%dataflow live|reaching NAME --interprocedural`: live variables and reaching definitions
//! across calls of the session's functions ([`crate::dataflow::interproc::bitvec`]). Shows the
//! functions reached with their boundary facts, the call edges, the calls not followed, a
//! facts table per function, and NAME's figure. Payload kind `dataflow-interprocedural`.

use serde_json::{Value, json};

use super::annotate::{FactsView, facts_view};
use super::flow::{facts_table, fixpoint_error, json as flow_json, text as flow_text};
use super::interproc::{Usage, notes_with_calls, start, unfollowed_html, unfollowed_text};
use crate::dataflow::engine::Options;
use crate::dataflow::interproc::InterError;
use crate::dataflow::interproc::bitvec::{BitvecResult, Which, analyze};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, payload};
use crate::notebook::session::{Ctx, Session};
use crate::render::html::{escape, table, text_table};

pub const INTERPROCEDURAL: OptionSpec = OptionSpec {
    name: "--interprocedural",
    values: 0,
    help: "live/reaching only: across calls of the session's functions (globals, parameters per call site)",
};

/// Runs `%dataflow ANALYSIS NAME --interprocedural`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let (which, entry, functions) = start(
        session,
        inv,
        &Usage {
            cell: "%%dataflow cannot run --interprocedural: it starts at a session function (%dataflow live NAME --interprocedural)",
            options: "--interprocedural",
            args: "%dataflow ANALYSIS NAME --interprocedural takes one analysis and one function name",
        },
    )?;
    let Some(which) = Which::named(which) else {
        return Err(CellError::new(
            "UnsupportedError",
            format!(
                "--interprocedural runs live and reaching (live variables, reaching definitions), not {which:?}"
            ),
        ));
    };
    let refs: Vec<&crate::python::ir::Function> = functions.iter().map(|f| &**f).collect();
    let options = Options {
        cancel: Some(ctx.cancel),
        ..Options::default()
    };
    let r = analyze(which, &refs, entry, &options).map_err(|e| match e {
        InterError::Fixpoint(f) => fixpoint_error(f),
        InterError::Cfg(..) => CellError::new("SyntaxError", e.to_string()),
        InterError::Unknown(_) => CellError::new("NameError", e.to_string()),
        InterError::TooManyRuns(_) => CellError::new("AnalysisError", e.to_string()),
    })?;
    ctx.check_cancel()?;
    let view = view(&r, session, ctx)?;
    ctx.show(&view, inv)
}

const FUNCTION_HEADERS: [&str; 3] = ["function", "called from", "boundary facts"];
const CALL_HEADERS: [&str; 3] = ["caller", "line", "callee"];

fn boundary_name(which: Which) -> &'static str {
    match which {
        Which::Reaching => "reaching its entry",
        Which::Live => "live at its exit",
    }
}

fn function_rows(r: &BitvecResult<'_>) -> Vec<Vec<String>> {
    r.functions
        .iter()
        .map(|f| {
            let from: Vec<String> = r
                .calls
                .iter()
                .filter(|c| c.callee == f.name)
                .map(|c| format!("{}:L{}", c.caller, c.line))
                .collect();
            vec![
                f.name.clone(),
                if f.name == r.entry && from.is_empty() {
                    "(entry)".to_string()
                } else {
                    from.join(", ")
                },
                format!("{{{}}}", r.facts.labels_of(&f.boundary).join(", ")),
            ]
        })
        .collect()
}

fn call_rows(r: &BitvecResult<'_>) -> Vec<Vec<String>> {
    r.calls
        .iter()
        .map(|c| vec![c.caller.clone(), c.line.to_string(), c.callee.clone()])
        .collect()
}

fn unfollowed_lines(r: &BitvecResult<'_>) -> Vec<String> {
    r.unfollowed
        .iter()
        .map(|u| {
            format!(
                "{} line {}: {} — not followed (assumed not to touch the globals)",
                u.caller, u.line, u.callee
            )
        })
        .collect()
}

fn title(r: &BitvecResult<'_>) -> String {
    format!(
        "{} from {} ({} functions, {} intraprocedural runs; globals: {})",
        r.which.title(),
        r.entry,
        r.functions.len(),
        r.runs,
        if r.globals.is_empty() {
            "none".to_string()
        } else {
            r.globals.join(", ")
        }
    )
}

fn text(r: &BitvecResult<'_>) -> String {
    let mut out = format!(
        "{}\n{}\n\nFunctions (boundary: facts {})\n{}\n\nCalls\n{}",
        title(r),
        r.which.legend(),
        boundary_name(r.which),
        text_table(&FUNCTION_HEADERS, &function_rows(r)),
        if r.calls.is_empty() {
            "(none)".to_string()
        } else {
            text_table(&CALL_HEADERS, &call_rows(r))
        }
    );
    out.push_str(&unfollowed_text("Calls not followed", &unfollowed_lines(r)));
    for (f, p) in r.functions.iter().zip(&r.programs) {
        out.push_str(&format!(
            "\n\n{}\n{}",
            f.name,
            flow_text(p, &f.report, false)
        ));
    }
    out.trim_end().to_string()
}

fn json(r: &BitvecResult<'_>) -> Value {
    let functions: Vec<Value> = r
        .functions
        .iter()
        .zip(&r.programs)
        .map(|(f, p)| {
            let mut analysis = flow_json(p, &f.report, false);
            if let Value::Object(m) = &mut analysis {
                m.remove("version");
                m.remove("kind");
            }
            json!({
                "name": f.name,
                "boundary": r.facts.labels_of(&f.boundary),
                "analysis": analysis,
            })
        })
        .collect();
    let calls: Vec<Value> = r
        .calls
        .iter()
        .map(|c| json!({"caller": c.caller, "line": c.line, "callee": c.callee}))
        .collect();
    let unfollowed: Vec<Value> = r
        .unfollowed
        .iter()
        .map(|u| json!({"caller": u.caller, "line": u.line, "callee": u.callee}))
        .collect();
    payload(
        "dataflow-interprocedural",
        json!({
            "analysis": r.which.name(),
            "function": r.entry,
            "direction": match r.which { Which::Live => "backward", Which::Reaching => "forward" },
            "boundary": boundary_name(r.which),
            "globals": r.globals,
            "functions": functions,
            "calls": calls,
            "unfollowed": unfollowed,
            "runs": r.runs,
        }),
    )
}

fn view(
    r: &BitvecResult<'_>,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<crate::notebook::output::View, CellError> {
    let root = &r.functions[0];
    let program = &r.programs[0];
    let notes = notes_with_calls(&root.report, program, |a, b| {
        r.calls
            .iter()
            .filter(|c| c.caller == r.entry && a <= c.line && c.line <= b)
            .map(|c| format!("call → {}", c.callee))
            .collect()
    });
    let mut middle = format!(
        "<div><b>Functions</b> (boundary: facts {})</div>{}<div style=\"margin-top:8px\"><b>Calls</b></div>{}",
        boundary_name(r.which),
        table(&FUNCTION_HEADERS, &function_rows(r)),
        table(&CALL_HEADERS, &call_rows(r))
    );
    middle.push_str(&unfollowed_html("Calls not followed", &unfollowed_lines(r)));
    let mut tables = String::new();
    for (f, p) in r.functions.iter().zip(&r.programs) {
        tables.push_str(&format!(
            "<div style=\"margin-top:8px\"><b>{}</b></div>{}",
            escape(&f.name),
            facts_table(p, &f.report)
        ));
    }
    let facts = FactsView {
        kind: "dataflow-interprocedural",
        notes,
        title: title(r),
        legend: r.which.legend().to_string(),
        middle_html: middle,
        table_html: tables,
        trace_html: None,
        json: json(r),
        text: text(r),
    };
    facts_view(&program.cfg, facts, session, ctx)
}
