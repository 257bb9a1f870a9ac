//! `%absint DOMAIN NAME --context K` and `--summaries`: interprocedural abstract
//! interpretation ([`crate::dataflow::interproc`]). Shows the contexts (function, context,
//! parameters, return value), the calls between them, the calls not followed, a facts table
//! per context, and the figure of NAME (its own context) with each call site annotated with
//! the callee context and the value it returns. Payload kind `absint-contexts`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::annotate::{FactsView, Note, facts_view};
use super::flow::{
    ShownFacts, facts_table, fixpoint_error, json as flow_json, notes as flow_notes,
    text as flow_text,
};
use crate::dataflow::absint;
use crate::dataflow::analyses::Program;
use crate::dataflow::interproc::{self, InterError, Sensitivity, Shown};
use crate::dataflow::report::Report;
use crate::dataflow::user::{self, Kind};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, payload};
use crate::notebook::session::{Ctx, Session};
use crate::python::ir;
use crate::render::html::{escape, table, text_table};

pub const CONTEXT: OptionSpec = OptionSpec {
    name: "--context",
    values: 1,
    help: "K: interprocedural, call strings of length K (calls of the session's functions analysed per context)",
};

pub const SUMMARIES: OptionSpec = OptionSpec {
    name: "--summaries",
    values: 0,
    help: "interprocedural, functional approach: one context per abstract input of each callee, tabulated",
};

/// Which interprocedural mode `inv` asks for, if any.
pub fn requested(inv: &Invocation) -> Result<Option<Sensitivity>, CellError> {
    match (inv.option("--context"), inv.flag("--summaries")) {
        (Some(_), true) => Err(CellError::usage(
            "%absint: choose one of --context K and --summaries",
        )),
        (Some(k), false) => {
            let k: usize = k.parse().ok().filter(|k| *k <= 8).ok_or_else(|| {
                CellError::usage(format!(
                    "--context takes a call-string length from 0 to 8, not {k:?}"
                ))
            })?;
            Ok(Some(Sensitivity::CallStrings(k)))
        }
        (None, true) => Ok(Some(Sensitivity::Summaries)),
        (None, false) => Ok(None),
    }
}

/// What an interprocedural view says when it is misused.
pub(super) struct Usage {
    /// Run as a cell (`%%absint`, `%%dataflow`).
    pub cell: &'static str,
    /// The options that select the interprocedural view, for the `--trace`/`--step` refusal.
    pub options: &'static str,
    /// Not given exactly WHAT and a function name.
    pub args: &'static str,
}

/// The start every interprocedural view shares: a line command without `--trace`/`--step`,
/// naming what to run and an entry function of the session; and every lowered function.
pub(super) fn start<'i>(
    session: &Session,
    inv: &'i Invocation,
    usage: &Usage,
) -> Result<(&'i str, &'i str, Vec<Arc<ir::Function>>), CellError> {
    if inv.cell {
        return Err(CellError::usage(usage.cell));
    }
    if inv.flag("--trace") || inv.flag("--step") {
        return Err(CellError::usage(format!(
            "--trace and --step show one intraprocedural run; they do not combine with {}",
            usage.options
        )));
    }
    let [what, entry] = inv.args.as_slice() else {
        return Err(CellError::usage(usage.args));
    };
    session.require_lowered(entry)?;
    let functions = session
        .functions()
        .filter_map(|f| session.lowered(&f.name).cloned())
        .collect();
    Ok((what.as_str(), entry.as_str(), functions))
}

/// Runs `%absint DOMAIN NAME --context K` / `--summaries`.
pub fn run(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    sensitivity: Sensitivity,
) -> Result<(), CellError> {
    let (domain, entry, functions) = start(
        session,
        inv,
        &Usage {
            cell: "%%absint cannot run --context/--summaries: interprocedural analysis starts at a session function (%absint DOMAIN NAME --context K)",
            options: "--context/--summaries",
            args: "%absint DOMAIN NAME --context K takes one domain and one function name",
        },
    )?;
    let refs: Vec<&crate::python::ir::Function> = functions.iter().map(|f| &**f).collect();
    let options = absint::options(false, Some(ctx.cancel));
    let mut user_calls = None;
    let result = match interproc::run_named(domain, &refs, entry, sensitivity, &options) {
        Some(r) => r,
        None if session.rust.entry(Kind::Domain, domain).is_some() => {
            return Err(CellError::new(
                "UnsupportedError",
                format!(
                    "--context/--summaries run in the built-in domains and Python-written ones, not in the Rust-cell domain {domain:?}"
                ),
            ));
        }
        None if super::user::is_user_domain(session, inv.args.first()) => {
            let (name, entry, cancel) = (domain.to_string(), entry.to_string(), ctx.cancel.clone());
            drop(refs);
            let (r, calls) = super::user::on_worker(session, ctx, move || {
                user::interproc::run(&name, functions, &entry, sensitivity, &cancel)
            })?
            .map_err(|f| super::user::failure(f, "domain"))?;
            user_calls = Some(calls);
            r
        }
        None => {
            return Err(CellError::new(
                "UnsupportedError",
                format!(
                    "--context/--summaries run in the built-in domains ({}) and domains defined with `from analysis import Domain`, not in {domain:?}",
                    interproc::DOMAINS.join(", ")
                ),
            ));
        }
    };
    let shown = result.map_err(|e| match e {
        InterError::Fixpoint(f) => fixpoint_error(f),
        InterError::Cfg(..) => CellError::new("SyntaxError", e.to_string()),
        InterError::Unknown(_) => CellError::new("NameError", e.to_string()),
        InterError::TooManyRuns(_) => CellError::new("AnalysisError", e.to_string()),
    })?;
    ctx.check_cancel()?;
    let mut programs = Vec::new();
    for c in &shown.contexts {
        let f = session.require_lowered(&c.function)?;
        programs.push(
            Program::function(f)
                .map_err(|e| CellError::new("SyntaxError", format!("in {}: {e}", c.function)))?,
        );
    }
    let mut view = view(&shown, &programs, session, ctx)?;
    if let (Some(calls), Some(data)) = (user_calls, view.json.as_object_mut()) {
        // Calls into the user's methods for the whole command.
        data.insert("user_calls".into(), serde_json::json!(calls));
    }
    ctx.show(&view, inv)
}

const CONTEXT_HEADERS: [&str; 5] = ["#", "function", "context", "parameters", "returns"];
const CALL_HEADERS: [&str; 5] = ["from #", "call site", "callee", "to #", "returns"];

fn context_rows(s: &Shown) -> Vec<Vec<String>> {
    s.contexts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let params: Vec<String> = c.params.iter().map(|(n, v)| format!("{n}: {v}")).collect();
            vec![
                i.to_string(),
                c.function.clone(),
                c.label.clone(),
                params.join(", "),
                c.returns.clone(),
            ]
        })
        .collect()
}

fn call_rows(s: &Shown) -> Vec<Vec<String>> {
    s.calls
        .iter()
        .map(|c| {
            vec![
                c.from.to_string(),
                c.site.to_string(),
                s.contexts[c.to].function.clone(),
                c.to.to_string(),
                s.contexts[c.to].returns.clone(),
            ]
        })
        .collect()
}

fn unfollowed_lines(s: &Shown) -> Vec<String> {
    s.unfollowed
        .iter()
        .map(|u| format!("{} line {}: {} — {}", u.caller, u.line, u.callee, u.why))
        .collect()
}

fn title(s: &Shown) -> String {
    format!(
        "{} analysis of {}, interprocedural: {} ({} contexts, {} context runs)",
        s.domain,
        s.entry,
        s.sensitivity,
        s.contexts.len(),
        s.runs
    )
}

fn text(s: &Shown, programs: &[Program<'_>]) -> String {
    let mut out = format!(
        "{}\n\nContexts\n{}\n\nCalls between contexts\n{}",
        title(s),
        text_table(&CONTEXT_HEADERS, &context_rows(s)),
        if s.calls.is_empty() {
            "(none)".to_string()
        } else {
            text_table(&CALL_HEADERS, &call_rows(s))
        }
    );
    out.push_str(&unfollowed_text(
        "Calls not followed (their value is ⊤)",
        &unfollowed_lines(s),
    ));
    for (i, (c, p)) in s.contexts.iter().zip(programs).enumerate() {
        out.push_str(&format!(
            "\n\n#{i} {} in context {}\n{}",
            c.function,
            c.label,
            flow_text(p, &c.report, false)
        ));
    }
    out.trim_end().to_string()
}

fn json(s: &Shown, programs: &[Program<'_>]) -> Value {
    let sensitivity = match s.sensitivity {
        Sensitivity::CallStrings(k) => json!({"call_strings": k}),
        Sensitivity::Summaries => json!("summaries"),
    };
    let contexts: Vec<Value> = s
        .contexts
        .iter()
        .zip(programs)
        .enumerate()
        .map(|(i, (c, p))| {
            let mut analysis = flow_json(p, &c.report, false);
            if let Value::Object(m) = &mut analysis {
                m.remove("version");
                m.remove("kind");
            }
            json!({
                "id": i,
                "function": c.function,
                "label": c.label,
                "call_string": c.call_string,
                "params": c.params.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
                "returns": c.returns,
                "analysis": analysis,
            })
        })
        .collect();
    let calls: Vec<Value> = s
        .calls
        .iter()
        .map(|c| {
            json!({
                "from": c.from,
                "to": c.to,
                "caller": c.site.caller,
                "line": c.site.line,
                "column": c.site.column,
            })
        })
        .collect();
    let unfollowed: Vec<Value> = s
        .unfollowed
        .iter()
        .map(|u| json!({"caller": u.caller, "line": u.line, "callee": u.callee, "why": u.why}))
        .collect();
    payload(
        "absint-contexts",
        json!({
            "domain": s.domain,
            "function": s.entry,
            "sensitivity": sensitivity,
            "contexts": contexts,
            "calls": calls,
            "unfollowed": unfollowed,
            "runs": s.runs,
        }),
    )
}

fn view(
    s: &Shown,
    programs: &[Program<'_>],
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<crate::notebook::output::View, CellError> {
    let root = &s.contexts[0];
    let program = &programs[0];
    // The entry's figure: its facts, and at each call site the contexts it calls.
    let notes = notes_with_calls(&root.report, program, |a, b| {
        s.calls
            .iter()
            .filter(|c| c.from == 0 && a <= c.site.line && c.site.line <= b)
            .map(|c| {
                format!(
                    "call → #{} {}: returns {}",
                    c.to, s.contexts[c.to].function, s.contexts[c.to].returns
                )
            })
            .collect()
    });
    let unfollowed = unfollowed_lines(s);
    let mut middle = format!(
        "<div><b>Contexts</b></div>{}<div style=\"margin-top:8px\"><b>Calls between contexts</b></div>{}",
        table(&CONTEXT_HEADERS, &context_rows(s)),
        table(&CALL_HEADERS, &call_rows(s))
    );
    middle.push_str(&unfollowed_html(
        "Calls not followed (their value is ⊤)",
        &unfollowed,
    ));
    let mut tables = String::new();
    for (i, (c, p)) in s.contexts.iter().zip(programs).enumerate() {
        tables.push_str(&format!(
            "<div style=\"margin-top:8px\"><b>#{i} {} in context {}</b> (returns {})</div>{}",
            escape(&c.function),
            escape(&c.label),
            escape(&c.returns),
            facts_table(p, &c.report)
        ));
    }
    let facts = FactsView {
        kind: "absint-contexts",
        notes,
        title: title(s),
        legend: format!(
            "The figure is {} in its own context (#0); call sites list the contexts they call and what those return.",
            s.entry
        ),
        middle_html: middle,
        table_html: tables,
        trace_html: None,
        json: json(s, programs),
        text: text(s, programs),
    };
    facts_view(&program.cfg, facts, session, ctx)
}

/// The entry's notes (facts before and after each node), with the calls `calls_on(first line,
/// last line)` lists for each node added after its facts.
pub(super) fn notes_with_calls<F: ShownFacts>(
    report: &Report<F>,
    program: &Program<'_>,
    calls_on: impl Fn(u32, u32) -> Vec<String>,
) -> Vec<Note> {
    let mut notes = flow_notes(report);
    for (note, n) in notes.iter_mut().zip(&report.nodes) {
        let (a, b) = program.cfg.node(n.node).lines;
        let called = calls_on(a, b);
        if !called.is_empty() {
            note.after = format!("{}\n{}", note.after, called.join("\n"));
        }
    }
    notes
}

/// The list of calls not followed, under `heading` ("none" when there are none).
pub(super) fn unfollowed_html(heading: &str, unfollowed: &[String]) -> String {
    let mut html = format!("<div style=\"margin-top:8px\"><b>{heading}</b></div><ul>");
    if unfollowed.is_empty() {
        html.push_str("<li>none</li>");
    }
    for u in unfollowed {
        html.push_str(&format!("<li>{}</li>", escape(u)));
    }
    html.push_str("</ul>");
    html
}

/// The text view's list of calls not followed, under `heading` ("(none)" when there are none).
pub(super) fn unfollowed_text(heading: &str, unfollowed: &[String]) -> String {
    let list = if unfollowed.is_empty() {
        "(none)".to_string()
    } else {
        unfollowed.join("\n")
    };
    format!("\n\n{heading}\n{list}")
}
