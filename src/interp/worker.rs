//! The interpreter's own thread: it owns the machine (whose values are not `Send`), runs on a
//! large stack so deep recursion stays within `recursion_limit` rather than the caller's
//! stack, and streams output back while a request runs.

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use super::compile::{CompileError, compile_module};
use super::exc::{Abort, Raised, Unwind};
use super::machine::{Frame, Machine};
use super::repr::{exc_str, repr};
use super::value::Value;
use super::{CellValue, Limits, Outcome, PyException, RunError, Stream, TracebackEntry, Variable};
use crate::cancel::Cancel;
use crate::python::{PyValue, ir};

/// Stack of the interpreter thread (address space; pages are committed as used).
pub(crate) const STACK_SIZE: usize = 1 << 30;
/// Stack left unused as a margin below the guard.
const STACK_MARGIN: usize = 16 << 20;

pub(crate) enum Request {
    Run {
        module: ir::Module,
        limits: Limits,
        cancel: Cancel,
    },
    Call {
        function: String,
        args: Vec<PyValue>,
        limits: Limits,
        cancel: Cancel,
    },
    /// The globals the program has bound.
    Variables { limits: Limits, cancel: Cancel },
    /// Rust work calling into the interpreter (`host`).
    Host {
        task: super::host::Task,
        limits: Limits,
        cancel: Cancel,
    },
}

pub(crate) enum Reply {
    Run(Result<Option<CellValue>, RunError>),
    Call(Result<Outcome, RunError>),
    Variables(Vec<Variable>),
    Host(Box<dyn std::any::Any + Send>),
}

pub(crate) enum Event {
    Output(Stream, String),
    /// The reply, and the steps the request used.
    Done(Reply, u64),
}

/// A running interpreter thread.
pub(crate) struct Worker {
    requests: Option<Sender<(Request, Sender<Event>)>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    pub fn spawn() -> Result<Worker, RunError> {
        let (tx, rx) = mpsc::channel::<(Request, Sender<Event>)>();
        let thread = std::thread::Builder::new()
            .name("interpreter".into())
            .stack_size(STACK_SIZE)
            .spawn(move || serve_all(rx))
            .map_err(|e| RunError::Crashed(format!("cannot start the interpreter thread: {e}")))?;
        Ok(Worker {
            requests: Some(tx),
            thread: Some(thread),
        })
    }

    /// Sends a request and relays its output until the reply and the steps it used; `None`
    /// if the thread died.
    pub fn request(
        &self,
        request: Request,
        out: &mut dyn FnMut(Stream, &str),
    ) -> Option<(Reply, u64)> {
        let (events_tx, events) = mpsc::channel();
        self.requests.as_ref()?.send((request, events_tx)).ok()?;
        loop {
            match events.recv().ok()? {
                Event::Output(stream, text) => out(stream, &text),
                Event::Done(reply, steps) => return Some((reply, steps)),
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.requests = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve_all(requests: Receiver<(Request, Sender<Event>)>) {
    super::host::install(Machine::new());
    for (request, events) in requests {
        let sink_events = events.clone();
        let sink = Box::new(move |stream, text| {
            let _ = sink_events.send(Event::Output(stream, text));
        });
        let (limits, cancel) = match &request {
            Request::Run { limits, cancel, .. }
            | Request::Call { limits, cancel, .. }
            | Request::Variables { limits, cancel }
            | Request::Host { limits, cancel, .. } => (*limits, cancel.clone()),
        };
        let begun = super::host::with(|machine| {
            machine.begin(limits, cancel, sink, STACK_SIZE - STACK_MARGIN)
        });
        if begun.is_err() {
            return;
        }
        let reply = match request {
            Request::Host { task, .. } => Reply::Host(task()),
            other => match super::host::with(|machine| serve(machine, other)) {
                Ok(reply) => reply,
                Err(_) => return,
            },
        };
        let steps = super::host::with(|machine| {
            let steps = machine.steps_used();
            machine.finish();
            steps
        });
        let _ = events.send(Event::Done(reply, steps.unwrap_or(0)));
    }
}

fn serve(machine: &mut Machine, request: Request) -> Reply {
    match request {
        Request::Run { module, .. } => Reply::Run(run_module(machine, &module)),
        Request::Call { function, args, .. } => Reply::Call(call(machine, &function, args)),
        Request::Variables { .. } => Reply::Variables(variables(machine)),
        Request::Host { .. } => Reply::Host(Box::new(())),
    }
}

pub(super) fn run_module(
    m: &mut Machine,
    module: &ir::Module,
) -> Result<Option<CellValue>, RunError> {
    super::source_module::load_imported(m, module)?;
    let code = compile_module(module, &mut m.globals).map_err(|e| match e {
        CompileError::Syntax { message, line } => RunError::Syntax { message, line },
        CompileError::Unsupported { construct, line } => RunError::Refused { construct, line },
    })?;
    let super::code::Body::Block(body) = &code.body else {
        return Ok(None);
    };
    let mut frame = Frame::module();
    let (last, init) = match body.split_last() {
        Some((last, init)) if matches!(last.kind, super::code::StmtKind::Expr(_)) => {
            (Some(last), init)
        }
        _ => (None, body.as_slice()),
    };
    m.exec_block(&mut frame, init)
        .map_err(|e| run_error_in(m, e))?;
    let Some(last) = last else { return Ok(None) };
    let super::code::StmtKind::Expr(e) = &last.kind else {
        return Ok(None);
    };
    let value = m
        .tick()
        .and_then(|_| m.eval(&mut frame, e))
        .and_then(|v| match v {
            Value::None => Ok(None),
            v => {
                let cell = CellValue {
                    repr: m.repr_of(&v)?,
                    value: v.to_py(),
                };
                remember_result(m, v);
                Ok(Some(cell))
            }
        })
        .map_err(|err| {
            let err = m.annotate(err, last.line, &last.text, &last.function);
            run_error_in(m, err)
        })?;
    Ok(value)
}

/// The names IPython binds to the last three cell results.
pub(super) const RESULT_NAMES: [&str; 3] = ["_", "__", "___"];

/// Shifts the result history and binds `_`, `__`, `___` as IPython's display hook does.
fn remember_result(m: &mut Machine, v: Value) {
    m.results.rotate_right(1);
    m.results[0] = Some(v);
    for (name, value) in RESULT_NAMES.iter().zip(m.results.clone()) {
        if let Some(value) = value {
            let slot = m.globals.intern(name);
            m.globals.set(slot, value);
        }
    }
}

fn call(m: &mut Machine, function: &str, args: Vec<PyValue>) -> Result<Outcome, RunError> {
    let Some(f) = m.globals.lookup(function).cloned() else {
        return Err(RunError::UnknownFunction(function.to_string()));
    };
    let args = args.iter().map(Value::from_py).collect();
    match m.call(&f, args, Vec::new()) {
        Ok(v) => match v.to_py() {
            Some(p) => Ok(Outcome::Returned(p)),
            None => Err(RunError::NotData {
                function: function.to_string(),
                type_name: v.type_name(),
                repr: repr(&v).unwrap_or_default(),
            }),
        },
        Err(e) => match e.raised() {
            Some(r) => Ok(Outcome::Raised(public_exception(r))),
            None => Err(run_error_in(m, e)),
        },
    }
}

/// Characters of a value's repr that `variables` keeps.
const SHORT_REPR: usize = 60;

/// The bound globals with their type and a short repr (no user code runs: an instance's
/// `__repr__` is not called).
fn variables(m: &Machine) -> Vec<Variable> {
    m.globals
        .bound()
        .filter(|(name, _)| !super::source_module::is_global(name) && !RESULT_NAMES.contains(name))
        .map(|(name, v)| {
            let type_name = v.type_name();
            let mut text = repr(v).unwrap_or_else(|_| format!("<{type_name} object>"));
            if text.chars().count() > SHORT_REPR {
                text = text.chars().take(SHORT_REPR - 1).collect::<String>() + "…";
            }
            let class = match v {
                Value::Class(c) => Some(c),
                Value::Instance(i) => Some(&i.class),
                _ => None,
            };
            let doc = match class.and_then(|c| c.lookup("__doc__")) {
                Some(Value::Str(s)) => Some(s.as_str().to_string()),
                _ => None,
            };
            Variable {
                name: name.to_string(),
                type_name,
                repr: text,
                doc,
            }
        })
        .collect()
}

/// [`run_error`], with the message of an exception whose class defines `__str__` computed
/// by running it (as CPython's traceback printer does); if that raises, the message says so.
pub(super) fn run_error_in(m: &mut Machine, e: Unwind) -> RunError {
    let user_str = match e.raised() {
        Some(r) if r.exc.class.lookup("__str__").is_some() => {
            let v = Value::Exception(r.exc.clone());
            Some(
                m.str_of(&v)
                    .unwrap_or_else(|_| "<exception str() failed>".to_string()),
            )
        }
        _ => None,
    };
    let mut out = run_error(e);
    if let (RunError::Exception(p), Some(text)) = (&mut out, user_str) {
        p.message = text;
    }
    out
}

pub(super) fn run_error(e: Unwind) -> RunError {
    match e.into_kind() {
        super::exc::Unwound::Raise(r) => RunError::Exception(public_exception(&r)),
        super::exc::Unwound::Abort(a) => match a {
            Abort::StepBudget(budget) => RunError::StepBudgetExceeded { budget },
            Abort::Stopped(s) => RunError::Stopped(s),
            Abort::Unsupported { construct, line } => RunError::Unsupported { construct, line },
        },
    }
}

fn public_exception(r: &Raised) -> PyException {
    PyException {
        type_name: r.exc.class.name().to_string(),
        builtin_type: r.exc.class.builtin_ancestor().name().to_string(),
        message: exc_str(&r.exc).unwrap_or_default(),
        line: r.tb.first().map_or(0, |t| t.line),
        traceback: r
            .tb
            .iter()
            .rev()
            .map(|t| TracebackEntry {
                function: t.function.to_string(),
                line: t.line,
                source: t.text.to_string(),
            })
            .collect(),
    }
}
