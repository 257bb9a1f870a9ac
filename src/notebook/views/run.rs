//! `%run f(ARGS)`: runs a call in the session's interpreter with line tracing on, shows its
//! result and output, and draws the run on `f`'s CFG (edges taken with counts, nodes visited).

use serde_json::{Value, json};

use super::{Figure, figure};
use crate::cfg::{Cfg, Walk, function_cfg};
use crate::interp::trace::{self, Trace, TraceEvent};
use crate::interp::{Limits, RunError, Stream};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, Output, View, payload};
use crate::notebook::session::{Ctx, Session, run_error};
use crate::python::ir::{ExprKind, StmtKind};
use crate::python::lower_module;
use crate::render::html::{escape, table, text_table};
use crate::render::run::{legend_html, run_dot};

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "--on",
    values: 1,
    help: "the figure the run is drawn on: cfg (default), constraints, set, or absint DOMAIN",
}];

pub const USAGE: &str =
    "%run F(ARGS) [--on cfg|constraints|set|absint DOMAIN]\n%run OBJ.METHOD(ARGS) [--on ...]";

pub const SUMMARY: &str = "run a call and draw the run on F's control-flow graph";

pub const HELP: &str = "Evaluates the call F(ARGS) in the session's interpreter (ARGS are any \
expressions over the session's globals), shows what it printed and its result (or the exception \
it raised), and draws the run on F's control-flow graph: thick orange edges were taken (×n: how \
often, so loops show their counts), filled nodes were visited, grey edges were not taken. Every \
call of F during the run (recursion too) is drawn. The JSON payload (kind `run`) has each \
activation's line trace (the lines CPython's sys.settrace reports as `line` events, in order), \
the visits per node and the count per edge.\n\n\
A method call (`%run Counter().inc(2)`, `%run c.inc(3)`) is drawn on the method's CFG.\n\n\
--on set: the run on F's symbolic execution tree (%set F with the session's settings): the leaf \
whose path condition the arguments satisfy, the path to it drawn thick, its path condition, and \
the tree's outcome there beside the run's. The arguments must be plain data; they are evaluated \
once more, quietly, to read their values.\n\n\
--on absint DOMAIN: the int values each local held as each node of F started, beside the node's \
abstract state in DOMAIN (built-in or registered with %domain); a value outside its abstract \
state is a soundness bug, shown in red (and under `absint.soundness_bugs` in the JSON).\n\n\
--on cfg (the default) and --on constraints: the view above.\n\n\
Limits: a line holding several statements (`if x: return 1`) is one line; lines run by \
generator frames are traced in the frame that resumed them (and their values are not judged).";

/// One activation of a user function: its lines, and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activation {
    pub function: String,
    pub lines: Vec<u32>,
    /// `None` while unfinished; `Some(true)` when it ended by an exception.
    pub raised: Option<bool>,
    /// The index in the trace's events of each line event of `lines`.
    pub events: Vec<usize>,
    /// Whether it started at the top level of the run (not inside another traced call).
    pub top: bool,
}

/// Splits a trace into activations, in the order they started.
pub fn activations(trace: &Trace) -> Vec<Activation> {
    let mut done: Vec<Activation> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for (k, e) in trace.events.iter().enumerate() {
        match e {
            TraceEvent::Call(function) => {
                let top = stack.is_empty();
                stack.push(done.len());
                done.push(Activation {
                    function: function.clone(),
                    lines: Vec::new(),
                    raised: None,
                    events: Vec::new(),
                    top,
                });
            }
            TraceEvent::Line(line) => {
                if let Some(&top) = stack.last() {
                    done[top].lines.push(*line);
                    done[top].events.push(k);
                }
            }
            TraceEvent::Return { raised } => {
                if let Some(top) = stack.pop() {
                    done[top].raised = Some(*raised);
                }
            }
        }
    }
    done
}

/// The call typed after `%run`: the source line's text up to its options.
fn call_text(inv: &Invocation) -> String {
    let line = inv.source_line.trim_start();
    let rest = line
        .strip_prefix("%run")
        .unwrap_or(line)
        .trim_start()
        .to_string();
    // The call ends where `--` starts a word outside brackets and quotes.
    let (mut depth, mut quote, mut prev_space) = (0i32, None::<char>, true);
    let chars: Vec<char> = rest.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                '-' if depth == 0 && prev_space && chars.get(i + 1) == Some(&'-') => {
                    return chars[..i].iter().collect::<String>().trim().to_string();
                }
                _ => {}
            },
        }
        prev_space = c.is_whitespace();
    }
    rest.trim().to_string()
}

/// The words after the call (its options), as typed.
pub fn options_text(inv: &Invocation) -> String {
    let call = call_text(inv);
    let line = inv.source_line.trim_start();
    let rest = line.strip_prefix("%run").unwrap_or(line).trim_start();
    rest.get(call.len()..).unwrap_or("").to_string()
}

/// What a traced call did.
pub struct Traced {
    /// The call as typed.
    pub call: String,
    pub function: String,
    /// `repr` of the result, when it returned.
    pub result: Option<String>,
    /// The exception it raised (type and message).
    pub exception: Option<(String, String)>,
    pub stdout: String,
    pub trace: Trace,
}

/// The parts of a `%run` call: the callee and its arguments as Python text.
pub struct CallParts {
    /// The function's name when the callee is a plain name; `None` for `obj.method(...)`.
    pub name: Option<String>,
    pub args: Vec<String>,
    /// `(name, value)`; `None` names a `**mapping`.
    pub keywords: Vec<(Option<String>, String)>,
}

/// Parses `call`: one call expression of a name (`f(3)`) or of an attribute
/// (`obj.method(3)`, `Counter().inc(2)`).
pub fn call_parts(call: &str) -> Result<CallParts, CellError> {
    let module = lower_module(call)?;
    let parts = match module.body.as_slice() {
        [stmt] => match &stmt.kind {
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Call {
                    func,
                    args,
                    keywords,
                } => {
                    let name = match &func.kind {
                        ExprKind::Name(name) => Some(Some(name.clone())),
                        ExprKind::Attribute { .. } => Some(None),
                        _ => None,
                    };
                    name.map(|name| CallParts {
                        name,
                        args: args.iter().map(|a| a.to_string()).collect(),
                        keywords: keywords
                            .iter()
                            .map(|(k, v)| (k.clone(), v.to_string()))
                            .collect(),
                    })
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    parts.ok_or_else(|| {
        CellError::usage(format!(
            "%run needs one call of a defined function or method, such as %run f(3, [1, 2]) or \
             %run Counter().inc(2); got {call:?}"
        ))
    })
}

/// Runs `call` (a call of a defined function or method) with tracing on; prints go to `ctx`
/// as they come. `locals`: also keep the int locals at each line event.
pub fn traced_call(
    session: &mut Session,
    call: &str,
    ctx: &mut Ctx<'_>,
) -> Result<Traced, CellError> {
    traced_call_with(session, call, ctx, false)
}

/// [`traced_call`], keeping the locals of each line event when `locals` is set.
pub fn traced_call_with(
    session: &mut Session,
    call: &str,
    ctx: &mut Ctx<'_>,
    locals: bool,
) -> Result<Traced, CellError> {
    let module = lower_module(call)?;
    let parts = call_parts(call)?;
    if let Some(name) = &parts.name {
        session.require_lowered(name)?;
    }
    let limits = Limits::new(
        session.config.step_budget,
        u32::try_from(session.config.recursion_limit).unwrap_or(u32::MAX),
    );
    let Ctx { sink, cancel } = ctx;
    let mut stdout = String::new();
    let mut out = |stream: Stream, text: &str| {
        if stream == Stream::Stdout {
            stdout.push_str(text);
        }
        sink.emit(match stream {
            Stream::Stdout => Output::Stdout(text.to_string()),
            Stream::Stderr => Output::Stderr(text.to_string()),
        })
    };
    let interp = &mut session.interpreter;
    let host =
        |interp: &mut crate::interp::Interpreter,
         task: crate::interp::host::Task,
         out: &mut dyn FnMut(Stream, &str)| { interp.host(task, out, cancel, limits) };
    host(
        interp,
        Box::new(move || {
            Box::new(if locals {
                trace::start_with_locals()
            } else {
                trace::start()
            }) as Box<dyn std::any::Any + Send>
        }),
        &mut out,
    )
    .map_err(|e| run_error(e, call))?;
    let ran = interp.run_module(&module, &mut out, cancel, limits);
    let taken = host(
        interp,
        Box::new(|| Box::new(trace::take()) as Box<dyn std::any::Any + Send>),
        &mut out,
    )
    .map_err(|e| run_error(e, call))?;
    let trace = taken
        .downcast::<Result<Trace, RunError>>()
        .map_err(|_| CellError::new("InternalError", "the trace did not come back"))?
        .map_err(|e| run_error(*Box::new(e), call))?;
    let (result, exception) = match ran {
        Ok(value) => (
            Some(value.map(|v| v.repr).unwrap_or_else(|| "None".into())),
            None,
        ),
        Err(RunError::Exception(x)) => (None, Some((x.type_name, x.message))),
        Err(e) => return Err(run_error(e, call)),
    };
    // A method call: the callee is the last activation started at the top level (the
    // receiver and the arguments are evaluated before it is called).
    let function = match parts.name {
        Some(name) => name,
        None => {
            let callee = activations(&trace)
                .into_iter()
                .rev()
                .find(|a| a.top)
                .map(|a| a.function)
                .filter(|f| session.lowered(f).is_some());
            callee.ok_or_else(|| {
                CellError::usage(format!(
                    "%run {call}: the call ran no function or method defined in a cell \
                     (a method of a builtin type, such as list.append, has no CFG to draw)"
                ))
            })?
        }
    };
    Ok(Traced {
        call: call.to_string(),
        function,
        result,
        exception,
        stdout,
        trace,
    })
}

/// Runs `%run`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let call = call_text(inv);
    if call.is_empty() {
        return Err(CellError::usage(
            "%run needs a call, such as %run f(3) (see %help run)",
        ));
    }
    let on = super::run_on::On::parse(inv)?;
    if !matches!(on, super::run_on::On::Cfg) {
        return super::run_on::run(session, inv, ctx, &call, on);
    }
    let traced = traced_call(session, &call, ctx)?;
    let f = session.require_lowered(&traced.function)?.clone();
    let cfg = function_cfg(&f).map_err(|e| CellError::new("CfgError", e.to_string()))?;
    let acts = activations(&traced.trace);
    let mine: Vec<&Activation> = acts
        .iter()
        .filter(|a| a.function == traced.function)
        .collect();
    let lines: Vec<Vec<u32>> = mine.iter().map(|a| a.lines.clone()).collect();
    let returned: Vec<bool> = mine.iter().map(|a| a.raised == Some(false)).collect();
    let walk = Walk::of(&cfg, &lines, &returned);
    let view = view(session, ctx, &traced, &cfg, &walk, &acts)?;
    ctx.show(&view, inv)
}

/// Most paths `%constraints` lists that are searched for a run's path.
const PATH_SEARCH: usize = 100_000;

/// The id of the path `%constraints F` lists that the activation's edges `route` take: the
/// route up to its first back edge (a path ends there), or to the exit. `None` when the route
/// ends elsewhere (an exception) or the path is past the first [`PATH_SEARCH`] paths.
pub fn constraints_path(cfg: &Cfg, route: &[usize]) -> Option<usize> {
    let dag = crate::constraints::Dag::new(cfg);
    let end = route
        .iter()
        .position(|&e| dag.edges[e].back)
        .map(|i| i + 1)
        .or_else(|| {
            route
                .last()
                .filter(|&&e| dag.edges[e].target == dag.exit)
                .map(|_| route.len())
        })?;
    let want = &route[..end];
    dag.paths().take(PATH_SEARCH).position(|p| p.edges == want)
}

/// How the call ended, in one line.
pub fn outcome_line(t: &Traced) -> String {
    match (&t.result, &t.exception) {
        (_, Some((ty, msg))) if msg.is_empty() => format!("{} raised {ty}", t.call),
        (_, Some((ty, msg))) => format!("{} raised {ty}: {msg}", t.call),
        (Some(r), None) => format!("{} returned {r}", t.call),
        (None, None) => format!("{} finished", t.call),
    }
}

fn view(
    session: &Session,
    ctx: &Ctx<'_>,
    traced: &Traced,
    cfg: &Cfg,
    walk: &Walk,
    acts: &[Activation],
) -> Result<View, CellError> {
    let headline = outcome_line(traced);
    let n_mine = acts
        .iter()
        .filter(|a| a.function == traced.function)
        .count();
    let total = walk.edges.len();
    let summary = format!(
        "{n_mine} call{} of {}; {} of {total} edges taken",
        if n_mine == 1 { "" } else { "s" },
        traced.function,
        walk.taken()
    );
    let edges = cfg.edges();
    let edge_rows: Vec<Vec<String>> = edges
        .iter()
        .enumerate()
        .filter(|(k, _)| walk.edges[*k] > 0)
        .map(|(k, (s, t, e))| {
            vec![
                format!("{} → {}", line_of(cfg, *s), line_of(cfg, *t)),
                e.describe().unwrap_or_default(),
                walk.edges[k].to_string(),
            ]
        })
        .collect();
    let headers = ["edge (lines)", "label", "times"];
    let mut text = format!("{headline}\n{summary}\n");
    if let Some(path) = walk.paths.first() {
        let lines: Vec<String> = path.iter().map(|&n| line_of(cfg, n)).collect();
        text.push_str(&format!("first call's path: {}\n", lines.join(" → ")));
    }
    if let Some(id) = walk.routes.first().and_then(|r| constraints_path(cfg, r)) {
        text.push_str(&format!(
            "first call's path is path {id} of %constraints {}\n",
            traced.function
        ));
    }
    text.push_str(&text_table(&headers, &edge_rows));
    if !walk.unmatched.is_empty() {
        text.push_str(&format!(
            "\n{} steps have no CFG edge: {:?}",
            walk.unmatched.len(),
            walk.unmatched
        ));
    }
    if traced.trace.cut {
        text.push_str(&format!(
            "\nThe trace keeps the first {} events only.",
            trace::MAX_EVENTS
        ));
    }
    let title = format!("{headline} — {summary}");
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(run_dot(cfg, walk, &title), None, session, ctx)?;
    let html = format!(
        "{note}{}<p><b>{}</b><br>{}</p>{}",
        legend_html(""),
        escape(&headline),
        escape(&summary),
        table(&headers, &edge_rows)
    );
    let json = payload("run", run_json(traced, cfg, walk, acts));
    Ok(View {
        kind: "run",
        text: text.trim_end().to_string(),
        html,
        svg,
        dot: Some(dot),
        json,
    })
}

/// `3` for a statement node, `entry`/`exit`/`join` otherwise.
fn line_of(cfg: &Cfg, n: petgraph::graph::NodeIndex) -> String {
    let node = cfg.node(n);
    match node.kind {
        crate::cfg::NodeKind::Entry => "entry".into(),
        crate::cfg::NodeKind::Exit => "exit".into(),
        crate::cfg::NodeKind::Join => format!("join@{}", node.lines.0),
        _ => node.lines.0.to_string(),
    }
}

/// The payload fields of a run: the call, its outcome, the activations' line traces, and the
/// walk on the CFG (node visits, edge counts, each activation's node path).
pub fn run_json(traced: &Traced, cfg: &Cfg, walk: &Walk, acts: &[Activation]) -> Value {
    let edges: Vec<Value> = cfg
        .edges()
        .iter()
        .enumerate()
        .map(|(k, (s, t, e))| {
            json!({"from": cfg.node_id(*s), "to": cfg.node_id(*t), "label": e.label(), "count": walk.edges[k]})
        })
        .collect();
    let nodes: Vec<Value> = cfg
        .nodes()
        .map(|n| json!({"id": cfg.node_id(n), "line": cfg.node(n).lines.0, "count": walk.nodes[n.index()]}))
        .collect();
    let activations: Vec<Value> = acts
        .iter()
        .map(|a| json!({"function": a.function, "lines": a.lines, "raised": a.raised}))
        .collect();
    let paths: Vec<Vec<String>> = walk
        .paths
        .iter()
        .map(|p| p.iter().map(|&n| cfg.node_id(n)).collect())
        .collect();
    json!({
        "call": traced.call,
        "function": traced.function,
        "result": traced.result,
        "exception": traced.exception.as_ref().map(|(t, m)| json!({"type": t, "message": m})),
        "stdout": traced.stdout,
        "activations": activations,
        "trace_cut": traced.trace.cut,
        "nodes": nodes,
        "edges": edges,
        "paths": paths,
        "edges_taken": walk.taken(),
        "constraints_paths": walk.routes.iter().map(|r| constraints_path(cfg, r)).collect::<Vec<_>>(),
        "unmatched": walk.unmatched,
    })
}
