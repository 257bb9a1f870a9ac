//! The concrete interpreter: runs the IR (`python::ir`) of cells with Python's semantics,
//! checked against CPython 3.11 (tests/differential_interp.rs), keeping globals between
//! cells like a notebook session.
//!
//! # Supported subset
//! - Values: unbounded `int`, `bool`, `float`, `str`, `None`, tuples, lists and dicts
//!   (insertion-ordered; keys that compare equal, like `1`, `1.0`, `True`, are one key), plus
//!   `range`, functions, lambdas, exception classes and instances, and the iterators of
//!   `enumerate`, `zip`, `map`, `filter`, `reversed`, `iter` and generator expressions.
//! - Operators: `+ - * / // % **` with Python's rules (true division, floor division and
//!   modulo taking the divisor's sign, int/float mixing, exact big-int true division and
//!   int/float comparison), `<< >> & | ^ ~`, unary `- +`, comparisons (chained), `is`,
//!   `in`/`not in`, `and`/`or`/`not` with short-circuit returning an operand, conditional
//!   expressions, `:=`, str/list/tuple concatenation and repetition, `str % args`, f-strings.
//!   Errors are raised with CPython's types and messages.
//! - Subscripts and slices of str, list, tuple, range and dict (negative indices, clamping,
//!   negative and non-unit steps), slice assignment and deletion on lists.
//! - Statements: assignment (several targets, unpacking with `*`, subscript targets),
//!   augmented (lists extend in place) and annotated assignment, `if`/`while`/`for` with
//!   `else`, `break`, `continue`, `return`, `pass`, `del`, `global`, `nonlocal`, `raise`
//!   (`from` accepted), `assert`, `try`/`except`/`else`/`finally` (handlers match along the
//!   builtin hierarchy; `finally` runs on every way out and its `return`/`break` override),
//!   `def` (defaults, keyword-only, `*args`, `**kwargs`, decorators, closures with cells),
//!   `class E(Base): pass` for exception classes, `import` of `math`, `sys`, `typing` and the
//!   modules of `stdlib` (`string random collections itertools functools heapq bisect
//!   operator copy statistics json`).
//! - Calls with positional, keyword, `*` and `**` arguments, CPython's binding errors;
//!   recursion bounded by [`Limits::recursion_limit`] (`RecursionError`).
//! - Builtins: `abs all any ascii bin bool callable chr dict divmod enumerate filter float
//!   format hex int isinstance issubclass iter len list map max min next oct ord pow print
//!   range repr reversed round sorted str sum tuple type zip`, the methods of str, list,
//!   tuple and dict, `math` functions, `sys.stdout`/`sys.stderr`/`sys.getrecursionlimit`.
//!   `print(..., file=sys.stderr)` writes to the stderr stream.
//!
//! # Refused (a clear `UnsupportedError` with the construct and line)
//! `with`, `match`, sets, bytes, complex results, generators with `yield`, `await`, type
//! aliases, and builtins such as `open`, `input`, `eval`, `hash`, `id`. In a cell's top-level
//! code the statements refuse the whole cell before it runs; inside a function they stop the
//! run when reached. Classes other than exception classes and `async def` only define their
//! name as unavailable, so a cell can still define them next to functions for the analyses:
//! using such a name stops the run. Importing another module raises `ModuleNotFoundError`
//! (or `ImportError` naming the sandbox for `os`, `subprocess`, `socket`, ...) when it runs.
//!
//! # Where it differs from CPython on purpose
//! Annotations are not evaluated; `is` on ints, floats and strs compares type and value;
//! functions and iterators print without an address; `range` bounds must fit in 64 bits;
//! lists of 64 items or more are sorted by a stable merge sort (same result; a failing
//! comparison may be a different pair than CPython's); single results over
//! [`Limits::max_int_bits`] bits or [`Limits::max_len`] items raise `MemoryError` at once.
//!
//! # Bounds
//! Every run has a step budget (`StepBudgetExceeded`; operations on big ints, strings and
//! sequences cost steps in proportion to their size), polls the stop signal (`Interrupted`,
//! also for a spent time budget), raises `MemoryError` over the memory budget, and runs on its own thread with a 1 GiB stack guarded so deep
//! recursion raises `RecursionError` instead of overflowing.

mod budget;
mod builtins;
mod call;
mod code;
mod compile;
mod dict;
mod exc;
mod exec;
mod format;
mod globals;
mod iter;
mod limits;
mod machine;
mod methods;
mod modules;
mod num;
mod ops;
mod repr;
mod scope;
mod seq;
mod sort;
mod stdlib;
mod strings;
mod value;
mod worker;

pub use limits::Limits;

use crate::cancel::Cancel;
use crate::python::{PyValue, ir};
use worker::{Reply, Request, Worker};

/// The stream a program writes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One frame of a Python traceback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracebackEntry {
    /// `<module>`, `f`, `outer.<locals>.inner`, `<lambda>`, `<listcomp>`.
    pub function: String,
    /// The line in the cell that defined the code.
    pub line: u32,
    /// That line's statement (the header of a compound statement).
    pub source: String,
}

/// A Python exception raised by the program and not caught.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{type_name}: {message}")]
pub struct PyException {
    /// The class name: `ValueError`, or a user class such as `InvalidInput`.
    pub type_name: String,
    /// The builtin class it is or derives from.
    pub builtin_type: String,
    /// `str(exception)`.
    pub message: String,
    /// Where it was raised (the innermost frame's line).
    pub line: u32,
    /// Outermost frame first.
    pub traceback: Vec<TracebackEntry>,
}

/// How a call of a function ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Returned(PyValue),
    Raised(PyException),
}

/// The value of a cell's final expression statement.
#[derive(Clone, Debug, PartialEq)]
pub struct CellValue {
    /// Its `repr`, as an `execute_result` shows it.
    pub repr: String,
    /// The value itself when it is plain data.
    pub value: Option<PyValue>,
}

/// Why a run did not complete normally.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Exception(PyException),
    #[error(
        "the program ran more than {budget} steps without finishing; if it is not an endless loop, raise the budget with %config step_budget=N"
    )]
    StepBudgetExceeded { budget: u64 },
    #[error("interrupted by the user")]
    Interrupted,
    /// The cell was refused before anything ran: its top-level code uses a construct outside
    /// the subset.
    #[error("{construct} is not supported by the interpreter (line {line})")]
    Refused { construct: String, line: u32 },
    /// A construct outside the subset was reached while running (in a function body).
    #[error("{construct} is not supported by the interpreter (line {line})")]
    Unsupported { construct: String, line: u32 },
    /// An error CPython's compiler reports (`'break' outside loop`); nothing ran.
    #[error("{message} (line {line})")]
    Syntax { message: String, line: u32 },
    #[error("no function named {0:?} is defined")]
    UnknownFunction(String),
    #[error("{function} returned {repr}, a {type_name} and not a plain data value")]
    NotData {
        function: String,
        type_name: String,
        repr: String,
    },
    #[error("the interpreter stopped unexpectedly ({0}); its state was reset")]
    Crashed(String),
}

/// A session's interpreter: globals persist from one `run_module` to the next.
#[derive(Default)]
pub struct Interpreter {
    worker: Option<Worker>,
}

impl Interpreter {
    pub fn new() -> Interpreter {
        Interpreter::default()
    }

    /// Runs a cell. Returns the value of its last statement when that is an expression
    /// whose value is not `None`.
    pub fn run_module(
        &mut self,
        module: &ir::Module,
        out: &mut dyn FnMut(Stream, &str),
        cancel: &Cancel,
        limits: Limits,
    ) -> Result<Option<CellValue>, RunError> {
        let request = Request::Run {
            module: module.clone(),
            limits,
            cancel: cancel.clone(),
        };
        match self.request(request, out)? {
            Reply::Run(r) => r,
            Reply::Call(_) => Err(RunError::Crashed("mismatched reply".into())),
        }
    }

    /// Calls the global function `function` with `args`.
    pub fn call(
        &mut self,
        function: &str,
        args: Vec<PyValue>,
        out: &mut dyn FnMut(Stream, &str),
        cancel: &Cancel,
        limits: Limits,
    ) -> Result<Outcome, RunError> {
        let request = Request::Call {
            function: function.to_string(),
            args,
            limits,
            cancel: cancel.clone(),
        };
        match self.request(request, out)? {
            Reply::Call(r) => r,
            Reply::Run(_) => Err(RunError::Crashed("mismatched reply".into())),
        }
    }

    /// Forgets every global.
    pub fn reset(&mut self) {
        self.worker = None;
    }

    fn request(
        &mut self,
        request: Request,
        out: &mut dyn FnMut(Stream, &str),
    ) -> Result<Reply, RunError> {
        if self.worker.is_none() {
            self.worker = Some(Worker::spawn()?);
        }
        let reply = self.worker.as_ref().and_then(|w| w.request(request, out));
        match reply {
            Some(r) => Ok(r),
            None => {
                self.worker = None;
                Err(RunError::Crashed("the interpreter thread ended".into()))
            }
        }
    }
}

#[cfg(test)]
mod tests;
