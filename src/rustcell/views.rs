//! The commands: `%%rust` (evaluate a cell with evcxr), `%rust-reset`, and `%absint`,
//! `%lattice`, `%check-domain`, `%dataflow` on a name a Rust cell registered (the built-in
//! views, run by the kernel's engine, calling the cell's code over the registry socket).

use std::collections::HashMap;
use std::path::PathBuf;

use analysis_prelude::render::{PANIC_MIME, VIEW_MIME};
use analysis_prelude::wire;
use serde_json::json;

use super::domain::{self, RustElem};
use super::registry::{CallError, Registry, RustEntry};
use super::worker::{Outcome, Stopped, Worker, child_env};
use crate::dataflow::absint;
use crate::dataflow::domains::soundness::CheckOptions;
use crate::dataflow::finite::FiniteOrder;
use crate::dataflow::user;
use crate::notebook::commands::graphviz_error;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{Bundle, CellError, Output};
use crate::notebook::session::{Ctx, Session};
use crate::notebook::views::flow::{fixpoint_error, view};
use crate::notebook::views::subject::request;

/// `%help rust`.
pub const HELP: &str = "Compiles and runs the rest of the cell as Rust with evcxr, against the kernel's crate \
analysis_prelude (in scope: use analysis_prelude::prelude::*). Variables, functions and types persist from \
cell to cell; %rust-reset drops them. The first Rust cell of a session starts the context (a few seconds). \
function(\"f\") gives a function of the session as a CFG (Program), solve(&analysis, &program) runs a \
dataflow Analysis, show(&view) displays a view (a Program draws its CFG; Solution::table a table). \
register_domain::<D>(\"name\", \"description\") makes %absint name f, %lattice name and %check-domain name \
use the Domain D, and register_analysis(\"name\", a) makes %dataflow name f run the Analysis a, like the \
built-ins; they are listed with the domains and analyses cells defined. A compile error points at the \
cell's line and column; a panic fails the cell (the kernel keeps running); an interrupt kills the Rust \
process (its variables are lost, items stay).";

/// `%help rust-reset`.
pub const RESET_HELP: &str = "Drops the Rust context of %%rust cells: its process, variables, items and the \
domains and analyses Rust cells registered. The next %%rust cell starts a new context.";

fn scratch_dir() -> Result<PathBuf, CellError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    // Those of kernels that are gone (killed before they could clean up).
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let pid = name
                .strip_prefix("analysis-kernel-rust-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "analysis-kernel-rust-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| {
        CellError::new("RustError", format!("cannot create {}: {e}", dir.display()))
    })?;
    Ok(dir)
}

/// The session's functions in the prelude's text format.
pub fn functions_text(session: &Session) -> String {
    let mut out = String::new();
    let names: Vec<String> = session.functions().map(|f| f.name.clone()).collect();
    for name in names {
        let Some(f) = session.lowered(&name) else {
            continue;
        };
        let Ok(program) = crate::dataflow::analyses::Program::function(f) else {
            continue;
        };
        let params: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
        out.push_str(&wire::line(&[
            "function".to_string(),
            name.clone(),
            params.join(","),
        ]));
        for n in program.cfg.nodes() {
            let node = program.cfg.node(n);
            let info = program.info(n);
            let text = node.label.lines().next().unwrap_or("").to_string();
            out.push_str(&wire::line(&[
                "node".to_string(),
                n.index().to_string(),
                format!("{:?}", node.kind).to_lowercase(),
                program.line(n).to_string(),
                text,
                info.defs.join(","),
                info.uses.join(","),
                info.deletes.join(","),
            ]));
        }
        for e in program.cfg.graph.edge_indices() {
            if let Some((a, b)) = program.cfg.graph.edge_endpoints(e) {
                out.push_str(&wire::line(&[
                    "edge".to_string(),
                    a.index().to_string(),
                    b.index().to_string(),
                    program.cfg.graph[e].label().unwrap_or("").to_string(),
                ]));
            }
        }
    }
    out
}

/// `%%rust`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let code = inv.body.trim_start_matches('\n').to_string();
    if code.trim().is_empty() {
        return Err(CellError::usage(
            "%%rust needs Rust code in the rest of the cell",
        ));
    }
    if !super::enabled() {
        return Err(CellError::new(
            "UnsupportedError",
            "%%rust runs only in the analysis-kernel binary (evcxr re-executes it as the cell's process)",
        ));
    }
    let registry = match &session.rust.registry {
        Some(r) => r.clone(),
        None => {
            let dir = scratch_dir()?;
            let r = Registry::start(&dir.join("registry.sock"))
                .map_err(|e| CellError::new("RustError", format!("cannot listen: {e}")))?;
            session.rust.registry = Some(r.clone());
            r
        }
    };
    let dir = registry
        .socket
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let functions = dir.join("functions.txt");
    std::fs::write(&functions, functions_text(session)).map_err(|e| {
        CellError::new(
            "RustError",
            format!("cannot write {}: {e}", functions.display()),
        )
    })?;
    if session.rust.worker.is_none() {
        let w =
            Worker::start(child_env(&registry.socket, &functions), ctx.cancel).map_err(|e| {
                if ctx.cancel.is_cancelled() {
                    CellError::new(
                        "KeyboardInterrupt",
                        "interrupted by the user while the Rust context started",
                    )
                } else {
                    CellError::new("RustError", e.to_string())
                }
            })?;
        session.rust.worker = Some(w);
    }
    let Some(worker) = session.rust.worker.as_mut() else {
        return Err(CellError::new("RustError", "no Rust context"));
    };
    let sink = &mut *ctx.sink;
    let (outcome, stopped) = worker.eval(&code, ctx.cancel, &mut |err, line| {
        sink.emit(if err {
            Output::Stderr(format!("{line}\n"))
        } else {
            Output::Stdout(format!("{line}\n"))
        })
    });
    if matches!(
        outcome,
        Outcome::Failed(evcxr::Error::SubprocessTerminated(_))
    ) {
        // The registrations lived in the old process.
        registry.clear();
    }
    let result = match outcome {
        Outcome::Done(content) => show_content(session, inv, ctx, content),
        Outcome::Failed(_) if stopped == Some(Stopped::Build) => Err(CellError::new(
            "KeyboardInterrupt",
            "interrupted by the user while the cell compiled: nothing of it ran",
        )),
        Outcome::Failed(evcxr::Error::CompilationErrors(errors)) => {
            Err(compile_error(&errors, &code, inv.line))
        }
        Outcome::Failed(evcxr::Error::SubprocessTerminated(_))
            if stopped == Some(Stopped::Process) =>
        {
            Err(CellError::new(
                "KeyboardInterrupt",
                "interrupted by the user: the Rust process was stopped (its variables are lost; items and uses stay)",
            ))
        }
        Outcome::Failed(e) => Err(CellError::new("RustError", e.to_string())),
    };
    super::sync_entries(session);
    result
}

/// The cell's displays: the views `show` printed (in order), a panic, the value of a final
/// expression.
fn show_content(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    mut content: HashMap<String, String>,
) -> Result<(), CellError> {
    let panic = content.remove(PANIC_MIME);
    let mut views: Vec<(usize, String)> = Vec::new();
    content.retain(|mime, body| match mime.strip_prefix(VIEW_MIME) {
        Some(seq) => {
            views.push((seq.parse().unwrap_or(usize::MAX), std::mem::take(body)));
            false
        }
        None => true,
    });
    views.sort_by_key(|(seq, _)| *seq);
    for (_, body) in views {
        let f = wire::fields(&body);
        let field = |i: usize| f.get(i).cloned().unwrap_or_default();
        let (text, html, dot) = (field(0), field(1), field(2));
        let mut bundle = Bundle::text(text);
        let mut page = String::new();
        if !dot.is_empty() {
            let limit = std::time::Duration::from_secs(session.config.dot_timeout_s);
            let svg = session
                .layout(&dot, ctx.cancel, limit)
                .map_err(|e| graphviz_error(e, inv))?;
            page.push_str(&svg);
        }
        page.push_str(&html);
        if !page.is_empty() {
            bundle = bundle.with("text/html", json!(page));
        }
        ctx.sink.emit(Output::Display(bundle));
    }
    if let Some(p) = panic {
        let f = wire::fields(&p);
        return Err(CellError::new(
            "RustPanic",
            format!(
                "the cell's code panicked: {}",
                f.first().cloned().unwrap_or_default()
            ),
        ));
    }
    if let Some(text) = content.remove("text/plain") {
        let mut bundle = Bundle::text(text);
        if let Some(html) = content.remove("text/html") {
            bundle = bundle.with("text/html", json!(html));
        }
        ctx.sink.emit(Output::Result(bundle));
    }
    Ok(())
}

/// rustc's errors as one cell error: the first error's message, cell line and column, then
/// every error with its place and rustc's notes in the traceback.
fn compile_error(errors: &[evcxr::CompilationError], code: &str, cell_line: u32) -> CellError {
    let lines: Vec<&str> = code.lines().collect();
    let mut first: Option<String> = None;
    let mut traceback = Vec::new();
    for e in errors {
        let head = match e.code() {
            Some(c) => format!("error[{c}]: {}", e.message()),
            None => format!("error: {}", e.message()),
        };
        let place = e.primary_spanned_message().and_then(|m| {
            m.span
                .as_ref()
                .map(|s| (s.start_line, s.start_column, m.label.clone()))
        });
        let summary = match &place {
            Some((l, c, _)) => format!("{head} (cell line {}, column {c})", cell_line as usize + l),
            None => head.clone(),
        };
        if let Some((l, c, label)) = &place {
            let src = lines.get(l.saturating_sub(1)).copied().unwrap_or("");
            traceback.push(format!(
                "  Cell line {}, column {c}",
                cell_line as usize + l
            ));
            traceback.push(format!("    {src}"));
            traceback.push(format!("    {}^ {label}", " ".repeat(c.saturating_sub(1))));
        }
        traceback.push(summary.clone());
        for h in e.help() {
            traceback.push(format!("  help: {h}"));
        }
        first.get_or_insert(summary);
    }
    let evalue = first.unwrap_or_else(|| "the Rust code did not compile".into());
    CellError {
        ename: "RustCompileError".into(),
        evalue,
        traceback,
    }
}

/// `%rust-reset`.
pub fn reset(session: &mut Session, _: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let had = session.rust.reset();
    super::sync_entries(session);
    ctx.sink.emit(Output::Display(Bundle::text(if had {
        "Dropped the Rust context and its registrations."
    } else {
        "No Rust context to drop."
    })));
    Ok(())
}

fn call_failure(name: &str, op: &str, e: CallError) -> CellError {
    match e {
        CallError::Interrupted => CellError::interrupted(),
        CallError::Panic(m) => CellError::new(
            "RustPanic",
            format!("the Rust domain {name} panicked in `{op}`: {m}"),
        ),
        other => CellError::new("RustError", format!("{name}: `{op}`: {other}")),
    }
}

/// `%absint NAME f` with a Rust domain.
pub fn absint(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    entry: RustEntry,
) -> Result<(), CellError> {
    let req = request(session, inv, "DOMAIN")?;
    let trace = inv.flag("--trace");
    for s in &req.subjects {
        let program = s.program(req.cell_body.as_deref())?;
        let report = {
            let _entered = domain::enter(
                user::intern(&entry.name),
                entry.conn.clone(),
                ctx.cancel.clone(),
            );
            let result =
                absint::analyze::<RustElem>(&program, &absint::options(trace, Some(ctx.cancel)));
            if let Some((op, e)) = domain::take_error() {
                return Err(call_failure(&entry.name, &op, e));
            }
            let mut report = result.map_err(fixpoint_error)?;
            report.name = user::intern(&entry.name);
            report
        };
        let v = view(&program, &report, trace, session, ctx)?;
        ctx.show(&v, inv)?;
    }
    Ok(())
}

/// `%lattice NAME` with a Rust domain that lists its elements.
pub fn lattice(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    entry: RustEntry,
) -> Result<(), CellError> {
    let name = entry.name.clone();
    let order = {
        let _entered = domain::enter(
            user::intern(&entry.name),
            entry.conn.clone(),
            ctx.cancel.clone(),
        );
        let elems = <RustElem as crate::dataflow::domains::AbstractDomain>::finite_elements();
        let order = elems.map(|elems| {
            let labels: Vec<String> = elems.iter().map(domain::show).collect();
            let by_id: HashMap<RustElem, String> =
                elems.iter().copied().zip(labels.iter().cloned()).collect();
            FiniteOrder::from_leq(
                &name,
                &elems,
                |e| by_id.get(e).cloned().unwrap_or_default(),
                |a, b| crate::dataflow::lattice::JoinSemiLattice::leq(a, b),
            )
        });
        if let Some((op, e)) = domain::take_error() {
            return Err(call_failure(&name, &op, e));
        }
        order
    };
    let order = order
        .ok_or_else(|| {
            CellError::new(
                "LatticeError",
                format!("the Rust domain {name} does not list its elements: define Domain::elements to draw it"),
            )
        })?
        .map_err(|e| CellError::new("LatticeError", e.to_string()))?;
    crate::notebook::views::lattice::show_order(session, inv, ctx, &order)
}

/// `%check-domain NAME` with a Rust domain: the built-in soundness check.
pub fn check(
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    entry: RustEntry,
    options: CheckOptions,
) -> Result<(), CellError> {
    let (report, found) = {
        let _entered = domain::enter(
            user::intern(&entry.name),
            entry.conn.clone(),
            ctx.cancel.clone(),
        );
        let result = user::check::check::<RustElem>(&options, ctx.cancel);
        if let Some((op, e)) = domain::take_error() {
            return Err(call_failure(&entry.name, &op, e));
        }
        result.map_err(crate::notebook::views::lattice::check_error)?
    };
    let v = crate::notebook::views::user::served_check_view(&entry.name, &report, &options, &found);
    ctx.show(&v, inv)
}

/// `%dataflow NAME f` with a Rust analysis.
pub fn dataflow(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    entry: RustEntry,
) -> Result<(), CellError> {
    let req = request(session, inv, "ANALYSIS")?;
    let trace = inv.flag("--trace");
    for s in &req.subjects {
        let program = s.program(req.cell_body.as_deref())?;
        let report = super::flow::run(&entry, &program, trace, ctx.cancel)
            .map_err(|(op, e)| call_failure(&entry.name, &op, e))?
            .map_err(fixpoint_error)?;
        let v = view(&program, &report, trace, session, ctx)?;
        ctx.show(&v, inv)?;
    }
    Ok(())
}
