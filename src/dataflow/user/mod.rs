//! Domains and dataflow analyses written in cells (`from analysis import Domain, Analysis`), run by
//! the same engine, views and checks as the built-in rows of [`super::registry`].
//!
//! The code here runs on the interpreter's thread (a `host` task of
//! [`crate::interp::Interpreter::host`]): the engine calls the user's methods in process.
//! - [`domain`]: a user domain as an [`super::domains::AbstractDomain`] ([`UserElem`]);
//! - [`check`]: `%check-domain` for user domains (laws on the window, monotonicity,
//!   soundness against Python's operators, a termination hint);
//! - [`flow`]: a user's dataflow analysis (sets of str facts, `transfer` over node data,
//!   `edge` over edges);
//! - [`flow_check`]: `%check-domain` for user analyses (monotone transfer and edge effects);
//! - [`served_flow`]: the engine's side of a served analysis, one for Python classes and
//!   Rust cells ([`served_flow::FactSource`]);
//! - this file: the registry of the `analysis` module, and the runs of `%absint`,
//!   `%lattice` and `%check-domain` on a user entry.

pub mod check;
pub mod domain;
pub mod flow;
pub mod flow_check;
pub mod interproc;
pub mod served_flow;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use petgraph::graph::NodeIndex;

use super::absint::{self, AbsReport};
use super::analyses::Program;
use super::engine::FixpointError;
use crate::cancel::Cancel;
use crate::interp::RunError;
use crate::interp::host::{self, HostValue};
use crate::python::ir;
pub use domain::{UserElem, UserError};

/// Which table of the `analysis` module an entry is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Domain,
    Analysis,
}

impl Kind {
    pub fn key(self) -> &'static str {
        match self {
            Kind::Domain => "domain",
            Kind::Analysis => "analysis",
        }
    }
}

/// A registered user class, as `%help` and completion list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    pub name: String,
    /// The class's `description` (domains) or `title` (analyses).
    pub description: String,
    pub class_name: String,
}

/// `name` as a `&'static str` (the reports' names); each distinct name is kept once.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

fn table(kind: Kind) -> Result<HostValue, RunError> {
    let module = host::module()?;
    let registry = host::attr(&module, "registry")?;
    host::call_method(&registry, "get", vec![HostValue::str(kind.key())])
}

/// The registered entries (when no cell loaded the module, none).
pub fn entries() -> Result<Vec<Entry>, RunError> {
    if host::global(host::GLOBAL).is_none() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for kind in [Kind::Domain, Kind::Analysis] {
        let pairs = host::call_method(&table(kind)?, "items", Vec::new())?;
        for pair in host::items(&pairs)? {
            let [name, class] = <[HostValue; 2]>::try_from(host::items(&pair)?)
                .map_err(|_| RunError::Crashed("a registry item is not a pair".into()))?;
            let text = |attr: &str| {
                host::attr(&class, attr)
                    .ok()
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
            };
            out.push(Entry {
                kind,
                name: name.as_str().unwrap_or_default(),
                description: text(if kind == Kind::Domain {
                    "description"
                } else {
                    "title"
                }),
                class_name: text("__name__"),
            });
        }
    }
    Ok(out)
}

/// The class registered as `name`.
pub fn class_of(kind: Kind, name: &str) -> Result<Option<HostValue>, RunError> {
    let class = host::call_method(&table(kind)?, "get", vec![HostValue::str(name)])?;
    Ok((!class.is_none()).then_some(class))
}

/// `%domain NAME Class` / `%analysis NAME Class`: registers the global class `class`.
pub fn register(kind: Kind, name: &str, class: &str) -> Result<(), RunError> {
    let module = host::module()?;
    let Some(value) = host::global(class) else {
        return Err(RunError::Exception(crate::interp::PyException {
            type_name: "NameError".into(),
            builtin_type: "NameError".into(),
            message: format!("name '{class}' is not defined"),
            line: 0,
            traceback: Vec::new(),
        }));
    };
    host::call_method(
        &module,
        "register",
        vec![HostValue::str(kind.key()), HostValue::str(name), value],
    )
    .map(|_| ())
}

/// Why a run on a user entry failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Unknown(String),
    /// The user's code raised (or was stopped), with where the engine called it.
    User {
        error: UserError,
        /// `node 3 (line 5: x = a + b)`, when the engine was running.
        step: Option<String>,
    },
    Fixpoint(FixpointError),
    Host(RunError),
}

/// What `%absint` analyses, sent to the interpreter's thread.
#[derive(Clone)]
pub enum Code {
    Function(Arc<ir::Function>),
    Module(ir::Module),
}

impl Code {
    pub fn program(&self) -> Result<Program<'_>, crate::cfg::CfgError> {
        match self {
            Code::Function(f) => Program::function(f),
            Code::Module(m) => Program::module(m),
        }
    }
}

/// `node 3 (line 5: x = a + b)`.
pub fn describe_node(program: &Program<'_>, node: usize) -> String {
    let n = NodeIndex::new(node);
    let label = program
        .cfg
        .graph
        .node_weight(n)
        .map(|w| w.label.lines().next().unwrap_or("").to_string())
        .unwrap_or_default();
    format!("node {node} (line {}: {label})", program.line(n))
}

fn user_failure(error: UserError, program: Option<&Program<'_>>) -> Failure {
    let step = match (error.node, program) {
        (Some(n), Some(p)) => Some(describe_node(p, n)),
        _ => None,
    };
    Failure::User { error, step }
}

/// Enters user domain `name`.
fn enter(name: &str) -> Result<domain::Entered, Failure> {
    let class = class_of(Kind::Domain, name)
        .map_err(Failure::Host)?
        .ok_or_else(|| Failure::Unknown(name.to_string()))?;
    domain::Context::enter(intern(name), &class).map_err(|e| user_failure(e, None))
}

/// `%absint NAME` on each piece of code with user domain `name`; the reports carry the
/// domain's name. Also returns the calls into user code.
pub fn absint(
    name: &str,
    code: &[Code],
    trace: bool,
    cancel: &Cancel,
) -> Result<(Vec<AbsReport>, u64), Failure> {
    let _entered = enter(name)?;
    let mut out = Vec::new();
    for c in code {
        let program = c
            .program()
            .map_err(|e| Failure::Host(RunError::Crashed(e.to_string())))?;
        let result = absint::analyze::<UserElem>(&program, &absint::options(trace, Some(cancel)));
        if let Some(e) = domain::take_error() {
            return Err(user_failure(e, Some(&program)));
        }
        let mut report = result.map_err(Failure::Fixpoint)?;
        report.name = intern(name);
        out.push(report);
    }
    Ok((out, domain::calls()))
}

/// `%dataflow NAME` on each piece of code with the user's analysis `name`.
pub fn dataflow(
    name: &str,
    code: &[Code],
    trace: bool,
    cancel: &Cancel,
) -> Result<Vec<super::analyses::FactReport>, Failure> {
    let class = class_of(Kind::Analysis, name)
        .map_err(Failure::Host)?
        .ok_or_else(|| Failure::Unknown(name.to_string()))?;
    let setup = |method: &str, error: RunError| Failure::User {
        error: UserError {
            error,
            method: method.to_string(),
            args: Vec::new(),
            node: None,
        },
        step: None,
    };
    let instance = host::call(&class, Vec::new()).map_err(|e| setup("__init__", e))?;
    let text = |attr: &str| {
        host::attr(&instance, attr)
            .map(|v| v.as_str().unwrap_or_default())
            .map_err(|e| setup(attr, e))
    };
    let title = match text("title")? {
        t if t.is_empty() => name.to_string(),
        t => t,
    };
    let (title, legend) = (intern(&title), intern(&text("legend")?));
    let options = super::engine::Options {
        trace,
        cancel: Some(cancel),
        ..super::engine::Options::default()
    };
    let mut out = Vec::new();
    for c in code {
        let program = c
            .program()
            .map_err(|e| Failure::Host(RunError::Crashed(e.to_string())))?;
        out.push(flow::run(
            intern(name),
            title,
            legend,
            &program,
            instance.clone(),
            &options,
        )?);
    }
    Ok(out)
}

/// `%check-domain NAME [f …]` with the user's analysis `name`: monotonicity of its transfer
/// and edge effects on each piece of code (named), `samples` pairs per step.
pub fn check_analysis(
    name: &str,
    code: &[(String, Code)],
    samples: usize,
    seed: u64,
    cancel: &Cancel,
) -> Result<Result<flow_check::FlowCheck, crate::dataflow::domains::soundness::CheckError>, Failure>
{
    let class = class_of(Kind::Analysis, name)
        .map_err(Failure::Host)?
        .ok_or_else(|| Failure::Unknown(name.to_string()))?;
    let instance = host::call(&class, Vec::new()).map_err(|error| Failure::User {
        error: UserError {
            error,
            method: "__init__".into(),
            args: Vec::new(),
            node: None,
        },
        step: None,
    })?;
    let mut programs = Vec::new();
    for (n, c) in code {
        let program = c
            .program()
            .map_err(|e| Failure::Host(RunError::Crashed(e.to_string())))?;
        programs.push((n.clone(), program));
    }
    match flow_check::check(&programs, &instance, samples, seed, cancel) {
        Ok(Ok(found)) => Ok(Ok(found)),
        Ok(Err((error, step))) => Err(Failure::User { error, step }),
        Err(e) => Ok(Err(e)),
    }
}
