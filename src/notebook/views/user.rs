//! Domains written in cells: `%domain NAME Class`, and `%absint`, `%lattice`,
//! `%check-domain` on a name the `analysis` module's registry holds (the built-in commands
//! hand such names here). The work runs on the interpreter's thread ([`crate::dataflow::user`]);
//! the views are the built-ins' own.

use std::any::Any;

use serde_json::json;

use super::flow::{fixpoint_error, view};
use super::lattice::{check_error, check_view};
use super::subject::{Subject, request};
use crate::dataflow::absint::AbsReport;
use crate::dataflow::domains::soundness::{CheckError, CheckOptions, SoundnessReport};
use crate::dataflow::finite::{FiniteOrder, OrderError};
use crate::dataflow::registry;
use crate::dataflow::user::{self, Code, Entry, Failure, Kind, UserElem, check::UserCheck};
use crate::interp::{Limits, RunError, Stream};
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, Output};
use crate::notebook::session::{Ctx, Session};
use crate::render::html::escape;

/// `%help analysis`.
pub const ANALYSIS_HELP: &str = "Registers the class CLASS (a subclass of analysis.Analysis defined in a cell) as the \
dataflow analysis NAME, as the decorator @analysis(\"NAME\") does; then %dataflow NAME f [--trace] runs it like a \
built-in analysis.\n\n\
The protocol (from analysis import Analysis): class attributes direction (\"forward\" or \"backward\"), may (True: \
facts join by union; False: by intersection), title and legend (for the view); methods gen(stmt) and kill(stmt, facts) \
returning sets of str facts, or transfer(stmt, facts) (by default (facts - kill) | gen), and boundary() (the facts \
at the entry, or at the exit backward; empty by default). stmt is a dict: node, kind (entry, exit, statement, \
condition, …), text, line, targets (names bound), uses (names read), deletes, branch_targets (names a for loop or case pattern binds on its \"true\" edge), locals (the function's local variables, a tuple; None for top-level code). Edges: edge(stmt, kind, facts) is the effect of an edge out of stmt (backward, the facts flow against it), kind one of \"normal\", \"true\", \"false\", \"exception\", \"return\", \"break\", \"continue\"; it returns the new facts or None (unchanged); by default the \"true\" edge binds branch_targets by transfer(binding(stmt), facts), as the built-ins do. %check-domain NAME [FUNCTION ...] checks that transfer and edge are monotone.";

/// `%help domain`.
pub const DOMAIN_HELP: &str = "Registers the class CLASS (a subclass of analysis.Domain defined in a cell) as the \
abstract domain NAME, as the decorator @domain(\"NAME\") does. From then on %absint NAME f, %lattice NAME \
(when the class defines elements()) and %check-domain NAME use it like a built-in domain; a new registration \
under NAME replaces the old one (after redefining CLASS, run %domain again; a class decorated with @domain re-registers itself when redefined).\n\n\
The protocol (from analysis import Domain): class attributes bottom and top (elements), methods leq(a, b), \
join(a, b), abstract(n) (the element of int n); optional meet, widen, narrow, contains(a, n), elements() (a \
finite window for %lattice and the law check), show(a), the operators add sub mul floordiv mod (a, b) and \
neg(a), and refine(op, a, b) (the values of a for which `a op b` can hold; op is \"<\", \"<=\", \">\", \">=\", \
\"==\", \"!=\"), refine_mod(a, b, r) (the values of a for which a % b can be in r, so that `x % 2 == 0` refines x). Elements are any values that compare with ==; operators never receive bottom.";

/// The kernel-side mirror of the registry, refreshed after each cell once the module is used.
#[derive(Clone, Debug, Default)]
pub struct UserEntries {
    pub loaded: bool,
    pub entries: Vec<Entry>,
}

impl UserEntries {
    /// The names registered as `kind`.
    pub fn names(&self, kind: Kind) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(move |e| e.kind == kind)
            .map(|e| e.name.as_str())
    }

    fn has(&self, kind: Kind, name: &str) -> bool {
        self.names(kind).any(|n| n == name)
    }
}

/// Runs `task` on the interpreter's thread with the cell's budget.
pub(super) fn on_worker<T: Send + 'static>(
    session: &mut Session,
    ctx: &mut Ctx<'_>,
    task: impl FnOnce() -> T + Send + 'static,
) -> Result<T, CellError> {
    let limits = Limits::new(
        session.config.step_budget,
        u32::try_from(session.config.recursion_limit).unwrap_or(u32::MAX),
    );
    let Ctx { sink, cancel } = ctx;
    let boxed = session
        .interpreter
        .host(
            Box::new(move || Box::new(task()) as Box<dyn Any + Send>),
            &mut |stream, text| {
                sink.emit(match stream {
                    Stream::Stdout => Output::Stdout(text.to_string()),
                    Stream::Stderr => Output::Stderr(text.to_string()),
                })
            },
            cancel,
            limits,
        )
        .map_err(|e| run_error(e, None, None))?;
    boxed
        .downcast::<T>()
        .map(|b| *b)
        .map_err(|_| CellError::new("InterpreterError", "a host task returned the wrong type"))
}

/// After a Python cell: re-reads the registry once a cell has mentioned `analysis`.
pub fn refresh(session: &mut Session, source: &str, ctx: &mut Ctx<'_>) {
    if !session.user.loaded && !source.contains("analysis") {
        return;
    }
    session.user.loaded = true;
    if let Ok(Ok(entries)) = on_worker(session, ctx, user::entries) {
        session.user.entries = entries;
        crate::rustcell::sync_entries(session);
    }
}

/// An error of the user's code (or of the run) as a cell error: the exception with the
/// user's traceback, the method and its arguments, and the engine step that called it.
fn run_error(e: RunError, method: Option<String>, step: Option<String>) -> CellError {
    let mut context = Vec::new();
    if let Some(m) = method {
        match &e {
            RunError::Exception(x) if x.line > 0 => {
                context.push(format!("in your {m} at line {}", x.line))
            }
            _ => context.push(format!("in your {m}")),
        }
    }
    if let Some(s) = step {
        context.push(format!("called by the engine at {s}"));
    }
    let context = context.join(", ");
    match e {
        RunError::Exception(x) => {
            let mut traceback = Vec::new();
            for frame in &x.traceback {
                traceback.push(format!("  Cell line {}, in {}", frame.line, frame.function));
                traceback.push(format!("    {}", frame.source));
            }
            let evalue = if context.is_empty() {
                x.message.clone()
            } else {
                format!("{} ({context})", x.message)
            };
            traceback.push(format!("{}: {evalue}", x.type_name));
            CellError {
                ename: x.type_name,
                evalue,
                traceback,
            }
        }
        RunError::Stopped(stop) => stop.into(),
        RunError::StepBudgetExceeded { .. } => CellError::new(
            "StepBudgetExceeded",
            if context.is_empty() {
                e.to_string()
            } else {
                format!("{e} ({context})")
            },
        ),
        other => CellError::new(
            "InterpreterError",
            if context.is_empty() {
                other.to_string()
            } else {
                format!("{other} ({context})")
            },
        ),
    }
}

pub(super) fn failure(f: Failure, kind: &str) -> CellError {
    match f {
        Failure::Unknown(name) => CellError::usage(format!("unknown {kind} {name:?}")),
        Failure::User { error, step } => {
            let method = format!("{}({})", error.method, error.args.join(", "));
            run_error(error.error, Some(method), step)
        }
        Failure::Fixpoint(e) => fixpoint_error(e),
        Failure::Host(e) => run_error(e, None, None),
    }
}

/// `%domain NAME CLASS`.
pub fn run_domain(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    register(session, inv, ctx, Kind::Domain)
}

fn register(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    kind: Kind,
) -> Result<(), CellError> {
    let [name, class] = inv.args.as_slice() else {
        return Err(CellError::usage(format!(
            "usage: %{} NAME CLASS (a class defined in a cell)",
            inv.name
        )));
    };
    let builtin = match kind {
        Kind::Domain => registry::find_domain(name).is_ok(),
        Kind::Analysis => registry::find_analysis(name).is_ok(),
    };
    if builtin {
        return Err(CellError::usage(format!(
            "{name} is a built-in {}; choose another name",
            kind.key()
        )));
    }
    let (n, c) = (name.clone(), class.clone());
    on_worker(session, ctx, move || user::register(kind, &n, &c))?
        .map_err(|e| run_error(e, None, None))?;
    session.user.loaded = true;
    if let Ok(Ok(entries)) = on_worker(session, ctx, user::entries) {
        session.user.entries = entries;
    }
    ctx.sink.emit(Output::Stdout(format!(
        "registered {} {name} (class {class})\n",
        kind.key()
    )));
    Ok(())
}

/// `%analysis NAME CLASS`.
pub fn run_analysis(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    register(session, inv, ctx, Kind::Analysis)
}

/// Whether `%dataflow WHICH …` names a user analysis rather than a built-in.
pub fn is_user_analysis(session: &Session, which: Option<&String>) -> bool {
    which
        .is_some_and(|w| registry::find_analysis(w).is_err() && session.user.has(Kind::Analysis, w))
}

/// `%dataflow NAME f` / `%%dataflow NAME` with a user analysis.
pub fn dataflow(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    if let Some(entry) = rust_entry(session, Kind::Analysis, inv.args.first()) {
        return crate::rustcell::views::dataflow(session, inv, ctx, entry);
    }
    let req = request(session, inv, "ANALYSIS")?;
    let trace = inv.flag("--trace");
    let code = codes(&req.subjects);
    for s in &req.subjects {
        s.program(req.cell_body.as_deref())?;
    }
    let which = req.which.clone();
    let cancel = ctx.cancel.clone();
    let reports = on_worker(session, ctx, move || {
        user::dataflow(&which, &code, trace, &cancel)
    })?
    .map_err(|f| failure(f, "analysis"))?;
    for (subject, report) in req.subjects.iter().zip(&reports) {
        let program = subject.program(req.cell_body.as_deref())?;
        let v = view(&program, report, trace, session, ctx)?;
        ctx.show(&v, inv)?;
    }
    Ok(())
}

fn codes(subjects: &[Subject]) -> Vec<Code> {
    subjects
        .iter()
        .map(|s| match s {
            Subject::Function(f) => Code::Function(f.clone()),
            Subject::Module(m) => Code::Module(m.clone()),
        })
        .collect()
}

/// The entry a Rust cell registered as `which` (Rust registrations come first for a name
/// both a Python and a Rust cell registered).
fn rust_entry(
    session: &Session,
    kind: Kind,
    which: Option<&String>,
) -> Option<crate::rustcell::RustEntry> {
    session.rust.entry(kind, which?)
}

/// Whether `%cmd WHICH …` names a user domain rather than a built-in.
pub fn is_user_domain(session: &Session, which: Option<&String>) -> bool {
    which.is_some_and(|w| registry::find_domain(w).is_err() && session.user.has(Kind::Domain, w))
}

/// `%absint NAME f` / `%%absint NAME` with a user domain.
pub fn absint(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    if let Some(entry) = rust_entry(session, Kind::Domain, inv.args.first()) {
        return crate::rustcell::views::absint(session, inv, ctx, entry);
    }
    let req = request(session, inv, "DOMAIN")?;
    let trace = inv.flag("--trace");
    let code = codes(&req.subjects);
    // Control-flow errors are reported as for the built-ins, before running anything.
    for s in &req.subjects {
        s.program(req.cell_body.as_deref())?;
    }
    let which = req.which.clone();
    let cancel = ctx.cancel.clone();
    let (reports, calls): (Vec<AbsReport>, u64) = on_worker(session, ctx, move || {
        user::absint(&which, &code, trace, &cancel)
    })?
    .map_err(|f| failure(f, "domain"))?;
    for (subject, report) in req.subjects.iter().zip(&reports) {
        let program = subject.program(req.cell_body.as_deref())?;
        let mut v = view(&program, report, trace, session, ctx)?;
        if let Some(data) = v.json.as_object_mut() {
            // Calls into the user's methods for the whole command (every function).
            data.insert("user_calls".into(), json!(calls));
        }
        ctx.show(&v, inv)?;
    }
    Ok(())
}

/// The order of a user domain's window, with its join table when `join` stays in it.
fn user_order(name: &str) -> Result<Result<FiniteOrder, OrderError>, Failure> {
    let _entered = user_enter(name)?;
    let Some(elems) = <UserElem as crate::dataflow::domains::AbstractDomain>::finite_elements()
    else {
        return Ok(Err(OrderError::Usage(format!(
            "the domain {name} does not enumerate its elements: define elements() to draw it"
        ))));
    };
    let order = FiniteOrder::from_leq(name, &elems, ToString::to_string, |a, b| {
        crate::dataflow::lattice::JoinSemiLattice::leq(a, b)
    });
    let mut table = Vec::new();
    for a in &elems {
        let mut row = Vec::new();
        for b in &elems {
            let j = crate::dataflow::lattice::joined(a, b);
            match elems.iter().position(|e| *e == j) {
                Some(i) => row.push(i),
                None => break,
            }
        }
        table.push(row);
    }
    if let Some(e) = user::domain::take_error() {
        return Err(Failure::User {
            error: e,
            step: None,
        });
    }
    let complete = table.iter().all(|r| r.len() == elems.len());
    Ok(order.map(|o| {
        if complete {
            o.with_join_table(table)
        } else {
            o
        }
    }))
}

fn user_enter(name: &str) -> Result<user::domain::Entered, Failure> {
    let class = user::class_of(Kind::Domain, name)
        .map_err(Failure::Host)?
        .ok_or_else(|| Failure::Unknown(name.to_string()))?;
    user::domain::Context::enter(user::intern(name), &class)
        .map_err(|error| Failure::User { error, step: None })
}

/// `%lattice NAME` for a user domain.
pub fn lattice(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    if let Some(entry) = rust_entry(session, Kind::Domain, inv.args.first()) {
        return crate::rustcell::views::lattice(session, inv, ctx, entry);
    }
    let name = inv.args.first().cloned().unwrap_or_default();
    let n = name.clone();
    let order = on_worker(session, ctx, move || user_order(&n))?
        .map_err(|f| failure(f, "domain"))?
        .map_err(|e| CellError::new("LatticeError", e.to_string()))?;
    crate::notebook::views::lattice::show_order(session, inv, ctx, &order)
}

fn user_check(
    name: &str,
    options: &CheckOptions,
    cancel: &crate::cancel::Cancel,
) -> Result<Result<(SoundnessReport, UserCheck), CheckError>, Failure> {
    let _entered = user_enter(name)?;
    let result = user::check::check::<UserElem>(options, cancel);
    if let Some(error) = user::domain::take_error() {
        return Err(Failure::User { error, step: None });
    }
    Ok(result)
}

/// `%check-domain NAME` for a user domain: the built-in soundness view, then the laws,
/// monotonicity and termination findings.
pub fn check_domain(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    options: CheckOptions,
) -> Result<(), CellError> {
    if let Some(entry) = rust_entry(session, Kind::Domain, inv.args.first()) {
        return crate::rustcell::views::check(inv, ctx, entry, options);
    }
    let name = inv.args.first().cloned().unwrap_or_default();
    let n = name.clone();
    let cancel = ctx.cancel.clone();
    let (report, found) = on_worker(session, ctx, move || user_check(&n, &options, &cancel))?
        .map_err(|f| failure(f, "domain"))?
        .map_err(check_error)?;
    ctx.show(&served_check_view(&name, &report, &options, &found), inv)
}

/// The `check-domain` view of a domain served by user code (Python or Rust): the built-in
/// soundness view, then the laws, monotonicity and termination findings.
pub fn served_check_view(
    name: &str,
    report: &SoundnessReport,
    options: &CheckOptions,
    found: &UserCheck,
) -> crate::notebook::output::View {
    let mut v = check_view(report, options);
    let passed = found.passed(report);
    let sections: [(&str, &Vec<String>); 4] = [
        ("lattice laws", &found.laws),
        ("monotonicity", &found.monotonicity),
        ("soundness", &found.soundness),
        ("termination", &found.termination),
    ];
    let window = format!(
        "{} on {} elements{}: {}",
        if passed { "PASSED" } else { "FAILED" },
        found.window.len(),
        if found.enumerated {
            " (elements())"
        } else {
            " (abstractions of -2..5 and their joins)"
        },
        found.window.join(", ")
    );
    v.text
        .push_str(&format!("\n\nyour domain {name}: {window}"));
    v.html.push_str(&format!(
        "<p><b>your domain {}</b>: {}</p>",
        escape(&name),
        escape(&window)
    ));
    for (title, items) in sections {
        if items.is_empty() {
            continue;
        }
        v.text.push_str(&format!("\n{title}:"));
        v.html.push_str(&format!("<p>{title}:</p><ul>"));
        for i in items.iter() {
            v.text.push_str(&format!("\n- {i}"));
            v.html.push_str(&format!("<li>{}</li>", escape(i)));
        }
        v.html.push_str("</ul>");
    }
    if let Some(data) = v.json.as_object_mut() {
        data.insert(
            "user".into(),
            json!({
                "passed": passed,
                "window": found.window,
                "enumerated": found.enumerated,
                "laws": found.laws,
                "monotonicity": found.monotonicity,
                "soundness": found.soundness,
                "termination": found.termination,
                "user_calls": found.calls,
                "memo_hits": found.memo_hits,
                "user_calls_by_method": found
                    .calls_by_method
                    .iter()
                    .map(|(m, n)| (m.clone(), json!(n)))
                    .collect::<serde_json::Map<String, serde_json::Value>>(),
            }),
        );
    }
    v
}

/// Pairs of fact sets per step at most (`--samples` for an analysis).
const MAX_PAIRS: usize = 64;

/// `%check-domain NAME [FUNCTION ...]` for a user analysis: monotone transfer and edge
/// effects on the functions (by default [`user::flow_check::SAMPLE`]).
pub fn check_analysis(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    options: CheckOptions,
) -> Result<(), CellError> {
    let name = inv.args.first().cloned().unwrap_or_default();
    let mut code = Vec::new();
    for f in inv.args.iter().skip(1) {
        code.push((
            f.clone(),
            Code::Function(session.require_lowered(f)?.clone()),
        ));
    }
    if code.is_empty() {
        let module = crate::python::lower_module(user::flow_check::SAMPLE)
            .map_err(|e| CellError::new("InterpreterError", e.to_string()))?;
        for f in module.functions() {
            code.push((
                f.name.clone(),
                Code::Function(std::sync::Arc::new(f.clone())),
            ));
        }
    }
    let samples = options.random_samples.min(MAX_PAIRS);
    let seed = options.seed;
    let n = name.clone();
    let cancel = ctx.cancel.clone();
    let found = on_worker(session, ctx, move || {
        user::check_analysis(&n, &code, samples, seed, &cancel)
    })?
    .map_err(|f| failure(f, "analysis"))?
    .map_err(check_error)?;
    let verdict = if found.passed() { "PASSED" } else { "FAILED" };
    let headline = format!(
        "your analysis {name}: {verdict} — transfer and edge effects checked for monotonicity on {} ({} facts, {} pairs of fact sets, seed {seed})",
        found.functions.join(", "),
        found.facts,
        found.pairs
    );
    let mut text = headline.clone();
    let mut html = format!("<p><b>{}</b></p>", escape(&headline));
    if !found.monotonicity.is_empty() {
        text.push_str("\nmonotonicity:");
        html.push_str("<p>monotonicity:</p><ul>");
        for m in &found.monotonicity {
            text.push_str(&format!("\n- {m}"));
            html.push_str(&format!("<li>{}</li>", escape(m)));
        }
        html.push_str("</ul>");
    }
    let json = crate::notebook::output::payload(
        "check-domain",
        json!({
            "analysis": name,
            "passed": found.passed(),
            "functions": found.functions,
            "facts": found.facts,
            "pairs": found.pairs,
            "seed": seed,
            "user_calls": found.calls,
            "monotonicity": found.monotonicity,
        }),
    );
    let v = crate::notebook::output::View {
        kind: "check-domain",
        text,
        html,
        svg: None,
        dot: None,
        json,
    };
    ctx.show(&v, inv)
}

/// User names a command's positional argument may take (completion).
pub fn words<'a>(session: &'a Session, command: &str) -> Vec<&'a str> {
    match command {
        "absint" | "lattice" => session.user.names(Kind::Domain).collect(),
        "check-domain" => session
            .user
            .names(Kind::Domain)
            .chain(session.user.names(Kind::Analysis))
            .collect(),
        "dataflow" => session.user.names(Kind::Analysis).collect(),
        _ => Vec::new(),
    }
}

/// `%help`'s list of what cells defined, for `command` (or every entry).
pub fn help_lines(session: &Session, command: Option<&str>) -> String {
    let kind = match command {
        Some("absint" | "check-domain" | "lattice" | "domain") | None => Some(Kind::Domain),
        Some("dataflow" | "analysis") => Some(Kind::Analysis),
        _ => None,
    };
    let mut out = String::new();
    for e in &session.user.entries {
        if kind.is_some_and(|k| k == e.kind) || command.is_none() {
            let about = if e.description.is_empty() {
                String::new()
            } else {
                format!(" ({})", e.description)
            };
            out.push_str(&format!(
                "  {:<10} {} {}{about}, class {}\n",
                e.name,
                "defined in a cell:",
                e.kind.key(),
                e.class_name
            ));
        }
    }
    if out.is_empty() {
        out
    } else {
        format!("\nDefined in cells:\n{out}")
    }
}
