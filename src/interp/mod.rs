//! The concrete interpreter: runs the IR (`python::ir`) of cells with Python's semantics,
//! checked against CPython 3.11 (tests/differential_interp.rs), keeping globals between
//! cells like a notebook session.
//!
//! # Supported subset
//! - Values: unbounded `int`, `bool`, `float`, `str`, `None`, tuples, lists and dicts
//!   (insertion-ordered; keys that compare equal, like `1`, `1.0`, `True`, are one key), plus
//!   `range`, functions, lambdas, exception classes (with methods, `__init__`, `super()`:
//!   `exc_object.rs`) and instances, and the iterators of `enumerate`, `zip`, `map`,
//!   `filter`, `reversed`, `iter` and generator expressions.
//! - `set` and `frozenset` (`set.rs`, `set_ops.rs`): every operator, in-place operator and
//!   method, displays and comprehensions, frozensets as keys, `hash()`. The table follows
//!   CPython's `setobject.c` (sizes, probing, dummies, resizes, each operation's algorithm,
//!   the folding of constant displays), so sets of ints, floats, bools and tuples of
//!   them iterate and `pop` in CPython's order; `str` hashes are randomized per process in
//!   CPython, so sets of strs iterate in an order of their own.
//! - Generator functions (`generator.rs`): `yield`, `yield from` (with the inner return
//!   value), `next(g[, default])`, `send`, `throw` (forwarded through `yield from`),
//!   `close`, `StopIteration.value`, `RuntimeError: generator raised StopIteration`; each
//!   generator runs as a stackful coroutine on its own lazily committed stack. A suspended
//!   generator is closed (its `finally` runs) when a `for` loop leaves it or a `del`, a
//!   rebinding or its function's return drops its last reference, as CPython does.
//! - `match` (`pattern.rs`): literal, capture, wildcard, value, singleton, sequence (with
//!   `*rest`), mapping (with `**rest`), class (builtins that match themselves, keyword
//!   attributes, `__match_args__` through `match_class`), or and `as` patterns, guards.
//! - `eval(str)` / `exec(str)` at a cell's top level (`eval.rs`), against the globals.
//! - `bytes` (`bytes.rs`): literals, repr, indexing (ints), slicing, iteration, `in`, `+`,
//!   `*`, comparisons, hashing, `bytes(n | iterable | str, encoding)`, `fromhex`/`hex`, the
//!   common methods; `str.encode`/`bytes.decode`/`str(b, encoding)` (`codec.rs`) for utf-8,
//!   ascii and latin-1 with `strict`/`ignore`/`replace` and CPython's
//!   `UnicodeEncodeError`/`UnicodeDecodeError` (messages and `encoding object start end
//!   reason`).
//! - Exception classes: every builtin one of CPython's hierarchy except `SystemExit`,
//!   `BaseExceptionGroup` and `ExceptionGroup`, usable as bases of user exception classes;
//!   `IOError`/`EnvironmentError` are `OSError`.
//! - Operators: `+ - * / // % **` with Python's rules (true division, floor division and
//!   modulo taking the divisor's sign, int/float mixing, exact big-int true division and
//!   int/float comparison), `<< >> & | ^ ~`, unary `- +`, comparisons (chained), `is`,
//!   `in`/`not in`, `and`/`or`/`not` with short-circuit returning an operand, conditional
//!   expressions, `:=`, str/list/tuple concatenation and repetition, `str % args`, f-strings.
//!   Errors are raised with CPython's types and messages.
//! - Subscripts and slices of str, list, tuple, range and dict (negative indices, clamping,
//!   negative and non-unit steps), slice assignment and deletion on lists; `slice` objects
//!   (`slice.rs`: `xs[s]`, `s.indices(n)`, what `obj[a:b]` passes to `__getitem__`).
//! - Statements: assignment (several targets, unpacking with `*`, subscript targets),
//!   augmented (lists extend in place) and annotated assignment, `if`/`while`/`for` with
//!   `else`, `break`, `continue`, `return`, `pass`, `del`, `global`, `nonlocal`, `raise`
//!   (`from` accepted), `assert`, `try`/`except`/`else`/`finally` (handlers match along the
//!   builtin hierarchy; `finally` runs on every way out and its `return`/`break` override),
//!   `def` (defaults, keyword-only, `*args`, `**kwargs`, decorators, closures with cells),
//!   `class` (see below), `with`, `import` of `math`, `sys`, `typing`, the class-based library
//!   and the modules of `stdlib` (`string random collections itertools functools heapq bisect
//!   operator copy statistics json re`; `re` translates Python's pattern syntax to the
//!   `regex-automata` crate's), and `analysis`, the kernel's protocol for domains and
//!   analyses written in cells (`prelude/analysis.py`, run once when first imported; `host.rs`).
//! - Calls with positional, keyword, `*` and `**` arguments, CPython's binding errors;
//!   recursion bounded by [`Limits::recursion_limit`] (`RecursionError`). `obj.m(a, b)` with
//!   plain positional arguments, `m` a function of the instance's class taking them, looks
//!   `m` up before evaluating them as CPython's `LOAD_METHOD` does (`fastcall.rs`); other
//!   method calls of user classes evaluate the arguments first.
//! - Builtins: `abs all any ascii bin bool callable chr dict divmod enumerate filter float
//!   format hex int isinstance issubclass iter len list map max min next oct ord pow print
//!   range repr reversed round sorted str sum tuple type zip`, the methods of str, list,
//!   tuple and dict, `math` functions, `sys.stdout`/`sys.stderr`/`sys.getrecursionlimit`.
//!   `print(..., file=sys.stderr)` writes to the stderr stream.
//! - User classes: instances, methods and bound methods, class and instance attributes,
//!   single and multiple inheritance (C3 MRO), `super()` (zero-argument and two-argument),
//!   `isinstance`/`issubclass`, `staticmethod`/`classmethod`/`property` (getter and setter),
//!   `type(x)`, `x.__class__`, `__name__`/`__qualname__`/`__mro__`/`__bases__`/`__dict__`,
//!   `getattr`/`setattr`/`hasattr`/`delattr`/`vars`/`hash`, `object()`, and the dunder methods
//!   operators and builtins call (`__init__`, `__new__`, `__repr__`, `__str__`, `__format__`,
//!   `__eq__`/`__ne__`, `__hash__`, ordering with reflection, arithmetic with `__r*__` and
//!   `__i*__` and `NotImplemented`, unary operators, `__len__`, `__bool__`, `__iter__`/`__next__`,
//!   `__getitem__`/`__setitem__`/`__delitem__`, `__contains__`, `__call__`, `__getattr__`,
//!   `__setattr__`, `__abs__`); a class with `__eq__` and no `__hash__` is unhashable.
//!   Binary operators and comparisons follow CPython's operand order (`dunder.rs`): the
//!   right operand's reflected method first when its class is a proper subclass of the
//!   left's (for arithmetic, only if it overrides it), no reflected arithmetic between two
//!   operands of one class, `==`/`!=` falling back to identity; builtin operands (sets
//!   included) let the instance's reflected method decide. User descriptors
//!   (`descriptor.rs`: `__get__`, `__set__`, `__delete__`, `__set_name__`; data
//!   descriptors before the instance's attributes), `object.__new__`, attributes set on
//!   functions and `__doc__` (`funcattr.rs`), `__cause__`/`__context__`/
//!   `__suppress_context__` (`exc_chain.rs`), `copy`/`deepcopy` of sets and instances. `with` statements
//!   (`__enter__`/`__exit__`, several items, suppression). `dataclasses.dataclass` (`field`,
//!   `frozen`, `order`, `kw_only`, `InitVar`, `KW_ONLY`, `__post_init__`, `__match_args__`;
//!   `is_dataclass`, `asdict`, `astuple`, `replace`, `fields` in `dataclass_fns.rs`), `enum.Enum` (`auto`),
//!   `typing.NamedTuple`,
//!   `collections.namedtuple`, `functools.total_ordering`; in Python (`prelude/`): `abc.ABC`/
//!   `abstractmethod`, `collections.ChainMap`, `functools.cached_property`,
//!   `typing.TypeVar`/`Generic`/`Protocol`/`cast`/`final`. `type()` of a `Counter`,
//!   `defaultdict`, `OrderedDict` or `deque` is its `collections` class; `m.name` finds every
//!   name `from m import name` does; the other names of `typing.__all__` are unavailable
//!   (refused when used).
//!
//! # Refused (a clear `UnsupportedError` with the construct and line)
//! `bytearray`, `memoryview`, `bytes % args`, encodings other than utf-8/ascii/latin-1 and
//! error handlers other than strict/ignore/replace (when an error needs one), `SystemExit`,
//! `ExceptionGroup`, `BaseExceptionGroup` (in `raise`, `except` or a call), `OSError(errno,
//! strerror, ...)` (CPython picks a subclass by errno), complex results, `await`, in `re` what needs a backtracking engine (backreferences,
//! lookaround, atomic groups, possessive repeats, conditionals: named in the error), type aliases, `eval`/`exec` inside functions or with
//! globals/locals dicts, `sys.settrace`/`gettrace`/`setprofile`/`_getframe`, `@prop.deleter`/`getter`,
//! `C.mro()`, `reversed()` of an instance without `__reversed__`, and builtins such as `open`, `input`, `id`. In a cell's top-level
//! code the statements refuse the whole cell before it runs; inside a function they stop the
//! run when reached. `async def` only defines its name as unavailable, so a cell can still
//! define it next to functions for the analyses: using such a name stops the run. Importing
//! another module raises `ModuleNotFoundError` (or `ImportError` naming the sandbox for `os`,
//! `subprocess`, `socket`, ...) when it runs. Classes deriving from builtin types other than
//! `object` (and exception classes with several bases), metaclasses other than
//! `abc.ABCMeta` and class keywords (also `boundary=` of an enum) stop the run when the
//! class statement runs; so does combining `enum.auto()` values in an enum's body
//! (`RW = R | W`); a Flag's own `_missing_` is refused when a lookup needs it, and
//! `enum.FlagBoundary`/`STRICT`/`KEEP` are not importable. Reading `dataclasses.Field.type`
//! of an annotation other than a (dotted) name, a string or `None` (subscripts, unions),
//! `dataclass(unsafe_hash=/match_args=/slots=/weakref_slot=)`, `field(metadata=)` with a
//! mapping other than a dict,
//! `asdict`/`astuple` with a factory or over a `defaultdict`/`Counter`/`OrderedDict`,
//! an `Enum` defining `__init__`/`__new__`, `object.__new__(object)`,
//! and copying a `deque`, a `Random`, an iterator or an instance whose class defines
//! `__copy__`/`__deepcopy__`/`__reduce__` are refused by name.
//!
//! # Where it differs from CPython on purpose
//! Annotations are not evaluated, except a class body's field annotations that are
//! (dotted) names, for `dataclasses.Field.type` (`InitVar`/`KW_ONLY`/`ClassVar` are read by
//! name); `is` on ints, floats and strs compares type and value;
//! functions, iterators, generators and instances without `__repr__` print without an address
//! (`<__main__.Point object>`, `<generator object f>`); `__exit__` receives `None` for the
//! traceback; `vars(obj)` and `obj.__dict__` are copies; an instance with `__hash__` is compared by
//! `__eq__` with the first instance met with the same hash (kept for the session), not with
//! each colliding element in turn as CPython does (same result for a consistent `__eq__`);
//! sets of strs (and of bytes) iterate in their own
//! order; `UnicodeDecodeError`/`UnicodeEncodeError` accept any arguments (CPython requires
//! five); `hash(None)` and hashes of functions are fixed values, not addresses; `range` bounds
//! must fit in 64 bits;
//! lists of 64 items or more are sorted by a stable merge sort (same result; a failing
//! comparison may be a different pair than CPython's); single results over
//! [`Limits::max_int_bits`] bits or [`Limits::max_len`] items raise `MemoryError` at once.
//!
//! # Tracing
//! `trace.rs` (for `%run`): when turned on, frames and statements push the `call`, `line` and
//! `return` events CPython 3.11's `sys.settrace` reports (loop headers at each test, `except`
//! clauses as tested, no event for a docstring). Off, it costs one branch per statement.
//!
//! # Bounds
//! Every run has a step budget (`StepBudgetExceeded`; operations on big ints, strings and
//! sequences cost steps in proportion to their size), polls the stop signal (`RunError::Stopped`,
//! also for a spent time budget), raises `MemoryError` over the memory budget, and runs on its own thread with a 1 GiB stack guarded so deep
//! recursion raises `RecursionError` instead of overflowing.

mod budget;
mod builtins;
mod bytes;
mod call;
mod class;
mod classdef;
mod code;
mod codec;
mod compile;
mod dataclass_fns;
mod descriptor;
mod dict;
mod dunder;
mod eval;
mod exc;
mod exc_chain;
mod exc_object;
mod exec;
mod fastcall;
mod flag_enum;
mod format;
mod funcattr;
mod generator;
mod globals;
pub mod host;
mod instance;
mod int_bytes;
mod int_enum;
mod iter;
mod limits;
mod machine;
mod methods;
mod modules;
mod names;
mod num;
mod ops;
mod pattern;
mod repr;
mod scope;
mod seq;
mod set;
mod set_ops;
mod slice;
mod sort;
mod source_module;
mod stdclass;
mod stdlib;
mod strings;
pub mod trace;
mod translate;
mod value;
mod with;
mod worker;

pub use limits::Limits;

use crate::cancel::Cancel;
use crate::python::{PyValue, ir};
use worker::{Reply, Request, Worker};

/// How the interpreter treats the builtin `name`: `Some(true)` implemented, `Some(false)`
/// refused by name (`UnsupportedError`), `None` unknown to it (a `NameError`).
pub fn builtin_support(name: &str) -> Option<bool> {
    builtins::lookup(name)
        .map(|v| !matches!(v, value::Value::Builtin(builtins::Builtin::Refused(_))))
}

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

/// A global the program has bound, for `%who` / `%whos`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub type_name: String,
    /// Its repr, cut to 60 characters (an instance shows as `<Point object>`).
    pub repr: String,
    /// The docstring of a class, or of an instance's class.
    pub doc: Option<String>,
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
    Stopped(#[from] crate::cancel::Stopped),
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
    /// Steps the last `run_module` or `call` used.
    last_steps: u64,
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
            _ => Err(RunError::Crashed("mismatched reply".into())),
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
            _ => Err(RunError::Crashed("mismatched reply".into())),
        }
    }

    /// The globals the cells have bound so far, in the order their names first appeared.
    pub fn variables(&mut self, cancel: &Cancel) -> Result<Vec<Variable>, RunError> {
        let request = Request::Variables {
            limits: Limits::default(),
            cancel: cancel.clone(),
        };
        match self.request(request, &mut |_, _| {})? {
            Reply::Variables(v) => Ok(v),
            _ => Err(RunError::Crashed("mismatched reply".into())),
        }
    }

    /// Runs `task` on the interpreter's thread, where it may call into the session's
    /// values through [`host`]; its calls share `limits` and `cancel`. Returns what the
    /// task returned.
    pub fn host(
        &mut self,
        task: host::Task,
        out: &mut dyn FnMut(Stream, &str),
        cancel: &Cancel,
        limits: Limits,
    ) -> Result<Box<dyn std::any::Any + Send>, RunError> {
        let request = Request::Host {
            task,
            limits,
            cancel: cancel.clone(),
        };
        match self.request(request, out)? {
            Reply::Host(r) => Ok(r),
            _ => Err(RunError::Crashed("mismatched reply".into())),
        }
    }

    /// Steps the last `run_module` or `call` used: what a run costs, to scale the budgets
    /// of similar runs (`%check`).
    pub fn last_steps(&self) -> u64 {
        self.last_steps
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
            Some((r, steps)) => {
                self.last_steps = steps;
                Ok(r)
            }
            None => {
                self.worker = None;
                Err(RunError::Crashed("the interpreter thread ended".into()))
            }
        }
    }
}

#[cfg(test)]
mod tests;
