//! The state of one path: the call stack (each frame with its store and what is left to
//! run), a pending abrupt completion (`break`, `continue`, `return`, an exception), the path
//! condition and, when known, a model of it.

use std::rc::Rc;

use super::SymexecError;
use super::path::Path;
use super::program::{Prepared, Program};
use super::tree::{Exc, Message, Value};
use crate::python::builtins;
use crate::python::ir::Stmt;
use crate::symbolic::iteration::Iterable;
use crate::symbolic::{Env, Sort, Term};

/// A frame's variables in the order they were first bound (shared between a path's states
/// and the tree's nodes until one of them assigns).
pub type Store = std::sync::Arc<Vec<(std::sync::Arc<str>, std::sync::Arc<Value>)>>;

pub fn get<'s>(store: &'s Store, name: &str) -> Option<&'s Value> {
    store.iter().find(|(n, _)| **n == *name).map(|(_, v)| &**v)
}

pub fn set(store: &mut Store, name: &str, value: Value) {
    let store = std::sync::Arc::make_mut(store);
    match store.iter_mut().find(|(n, _)| **n == *name) {
        Some(slot) => slot.1 = std::sync::Arc::new(value),
        None => store.push((name.into(), std::sync::Arc::new(value))),
    }
}

/// Where a call's result goes in the caller.
#[derive(Clone, Debug)]
pub enum CallTarget {
    /// The entry frame.
    Top,
    Name(String),
    /// `return f(...)`: the caller returns it.
    Return,
    Discard,
}

/// An abrupt completion on its way out.
#[derive(Clone, Debug)]
pub enum Completion {
    Break,
    Continue,
    Return(Value),
    Raise(Exc),
}

/// What a `for` loop iterates over.
#[derive(Clone, Debug)]
pub enum Source {
    /// A `range` or a str, list or tuple.
    Modelled(Iterable),
    /// Something not modelled: any number of unknown items.
    Havoc(String),
}

/// What is left to do in a frame (innermost last).
#[derive(Clone, Debug)]
pub enum Kont<'p> {
    /// `stmts[next..]`
    Block { stmts: &'p [Stmt], next: usize },
    /// A `while`/`for` whose test comes next; `count` iterations started so far.
    Loop {
        stmt: &'p Stmt,
        count: u64,
        /// A `for` loop's source and next position.
        iter: Option<(Source, u64)>,
    },
    /// The body of this `try` is running.
    TryBody { stmt: &'p Stmt },
    /// A handler or the `else` of a `try` is running; `finally` comes after.
    TryTail {
        finalbody: &'p [Stmt],
        handling: Option<Exc>,
    },
    /// A `finally` body is running; afterwards the pending completion resumes.
    Finally { pending: Option<Completion> },
}

/// One activation.
#[derive(Clone, Debug)]
pub struct Frame<'p> {
    /// `None` for a snippet's top level.
    pub function: Option<&'p Prepared>,
    pub store: Store,
    pub konts: Vec<Kont<'p>>,
    pub target: CallTarget,
    /// Hidden bindings expressions may read besides the store (the items of a `split`
    /// once its length is known: see `step::split_items`), by name.
    pub hidden: Vec<(String, Term)>,
}

/// One path through the program.
#[derive(Clone)]
pub struct State<'p> {
    pub frames: Vec<Frame<'p>>,
    pub completion: Option<Completion>,
    pub path: Path,
    /// A model of `path`, when one is at hand.
    pub witness: Option<Rc<super::path::Witness>>,
    /// Set when a bound cuts this path: it ends as a `bound` leaf.
    pub bound: Option<String>,
    pub undecided: bool,
    /// What this path did not model.
    pub havoc: super::havoc::Taint,
}

/// What a called name is.
pub enum Callee<'p> {
    Function(&'p Prepared),
    /// Bound to a value that is not a function (its Python type name).
    NotCallable(String),
    /// A builtin the symbolic interpreter does not model.
    Builtin,
    Missing(Exc),
}

impl<'p> State<'p> {
    /// The start of `program`: its inputs bound in the entry frame.
    pub fn initial(program: &'p Program) -> Result<State<'p>, SymexecError> {
        let mut store = Store::default();
        let hidden = |n: &str| program.packed.iter().any(|p| p.is_hidden(n));
        for (name, _) in program.inputs.0.iter().filter(|(n, _)| !hidden(n)) {
            let t = program.input_env.get(name).cloned().ok_or_else(|| {
                SymexecError::Internal(format!("the input {name} is not declared"))
            })?;
            set(&mut store, name, Value::Term(t));
        }
        let (function, body): (Option<&'p Prepared>, &'p [Stmt]) = match &program.entry {
            super::program::Entry::Snippet(body) => (None, body),
            super::program::Entry::Function(_) => {
                let f = program.entry_function().ok_or_else(|| {
                    SymexecError::Internal("the entry function is not prepared".into())
                })?;
                (Some(f), &f.body)
            }
        };
        Ok(State {
            frames: vec![Frame {
                function,
                store,
                konts: vec![Kont::Block {
                    stmts: body,
                    next: 0,
                }],
                target: CallTarget::Top,
                hidden: Vec::new(),
            }],
            completion: None,
            path: Path::default(),
            witness: None,
            bound: None,
            undecided: false,
            havoc: Default::default(),
        })
    }

    pub fn frame(&self) -> Result<&Frame<'p>, SymexecError> {
        self.frames
            .last()
            .ok_or_else(|| SymexecError::Internal("no frame".into()))
    }

    pub fn frame_mut(&mut self) -> Result<&mut Frame<'p>, SymexecError> {
        self.frames
            .last_mut()
            .ok_or_else(|| SymexecError::Internal("no frame".into()))
    }

    pub fn push(&mut self, k: Kont<'p>) -> Result<(), SymexecError> {
        self.frame_mut()?.konts.push(k);
        Ok(())
    }

    /// Pushes a block unless it is empty.
    pub fn push_block(&mut self, stmts: &'p [Stmt]) -> Result<(), SymexecError> {
        if !stmts.is_empty() {
            self.push(Kont::Block { stmts, next: 0 })?;
        }
        Ok(())
    }

    pub fn raise(mut self, exc: Exc) -> State<'p> {
        self.completion = Some(Completion::Raise(exc));
        self
    }

    pub fn assign(&mut self, name: &str, value: Value) -> Result<(), SymexecError> {
        set(&mut self.frame_mut()?.store, name, value);
        Ok(())
    }

    /// The globals a snippet's functions see: the snippet's own variables.
    fn globals(&self, program: &Program) -> Option<&Store> {
        (program.is_snippet() && self.frames.len() > 1).then(|| &self.frames[0].store)
    }

    /// The names expressions may read, with their terms: the frame's variables over the
    /// snippet's globals (those the function does not bind itself).
    pub fn env(&self, program: &Program) -> Result<Env, SymexecError> {
        let frame = self.frame()?;
        let mut env = Env::new();
        if let Some(globals) = self.globals(program) {
            for (n, v) in globals.iter() {
                let local = frame.function.is_some_and(|f| f.locals.contains(&**n));
                if let (Value::Term(t), false) = (&**v, local) {
                    env.bind(n.to_string(), t.clone());
                }
            }
        }
        for (n, v) in frame.store.iter() {
            match &**v {
                Value::Term(t) => env.bind(n.to_string(), t.clone()),
                // Only an unaliased name (or an unchanged parameter) may be read as the
                // mapping it holds (a dict a call returned into another name is not tracked
                // through its aliases).
                Value::Mapping(m) if super::lists::readable(self, program, n) => {
                    env.bind_mapping(n.to_string(), m.clone())
                }
                _ => {}
            }
        }
        for (n, t) in &frame.hidden {
            env.bind(n.clone(), t.clone());
        }
        Ok(env)
    }

    /// Whether `name` holds `None` (`Some(true)`), a term (`Some(false)`), or neither.
    pub fn holds_none(&self, program: &Program, name: &str) -> Option<bool> {
        let frame = self.frames.last()?;
        let local = frame.function.is_some_and(|f| f.locals.contains(name));
        let v = get(&frame.store, name).or_else(|| {
            self.globals(program)
                .filter(|_| !local)
                .and_then(|g| get(g, name))
        })?;
        match v {
            Value::None => Some(true),
            Value::Term(_) => Some(false),
            _ => None,
        }
    }

    /// What reading the unbound (or not term-valued) `name` does.
    pub fn missing_name(
        &self,
        program: &Program,
        name: &str,
        line: u32,
    ) -> Result<Exc, SymexecError> {
        let frame = self.frame()?;
        let not_term = |v: &Value| SymexecError::Unsupported {
            construct: format!("using {name}, which holds {}", describe(v)),
            line,
        };
        if let Some(v) = get(&frame.store, name) {
            return Err(not_term(v));
        }
        if let Some(f) = frame.function
            && f.locals.contains(name)
        {
            return Ok(exc(
                "UnboundLocalError",
                format!(
                    "cannot access local variable '{name}' where it is not associated with a value"
                ),
            ));
        }
        if let Some(v) = self.globals(program).and_then(|g| get(g, name)) {
            return Err(not_term(v));
        }
        if program.functions.contains_key(name) || builtins::is_builtin(name) {
            return Err(SymexecError::Unsupported {
                construct: format!("the function {name} used as a value"),
                line,
            });
        }
        Ok(exc("NameError", format!("name '{name}' is not defined")))
    }

    /// What calling `name` calls.
    pub fn callee(&self, program: &'p Program, name: &str) -> Result<Callee<'p>, SymexecError> {
        let frame = self.frame()?;
        let found = |v: &Value| -> Result<Callee<'p>, SymexecError> {
            match v {
                Value::Function { key, .. } => function(program, key),
                other => Ok(Callee::NotCallable(type_name(other))),
            }
        };
        if let Some(v) = get(&frame.store, name) {
            return found(v);
        }
        if let Some(f) = frame.function
            && f.locals.contains(name)
        {
            return Ok(Callee::Missing(exc(
                "UnboundLocalError",
                format!(
                    "cannot access local variable '{name}' where it is not associated with a value"
                ),
            )));
        }
        if let Some(v) = self.globals(program).and_then(|g| get(g, name)) {
            return found(v);
        }
        if program.functions.contains_key(name) {
            return function(program, name);
        }
        if builtins::is_builtin(name) {
            return Ok(Callee::Builtin);
        }
        Ok(Callee::Missing(exc(
            "NameError",
            format!("name '{name}' is not defined"),
        )))
    }

    /// The exception being handled by an enclosing `except` of the current frame.
    pub fn handling(&self) -> Option<Exc> {
        let frame = self.frames.last()?;
        frame.konts.iter().rev().find_map(|k| match k {
            Kont::TryTail {
                handling: Some(e), ..
            } => Some(e.clone()),
            _ => None,
        })
    }
}

fn function<'p>(program: &'p Program, key: &str) -> Result<Callee<'p>, SymexecError> {
    match program.functions.get(key) {
        Some(Ok(f)) => Ok(Callee::Function(f)),
        Some(Err(e)) => Err(e.clone()),
        None => Err(SymexecError::Internal(format!(
            "the function {key} is not prepared"
        ))),
    }
}

pub fn exc(type_name: &str, message: impl Into<String>) -> Exc {
    Exc {
        type_name: type_name.to_string(),
        message: Message::Known(message.into()),
    }
}

/// The Python type name of a value.
pub fn type_name(v: &Value) -> String {
    match v {
        Value::Term(t) => sort_type_name(t.sort()).to_string(),
        Value::None => "NoneType".into(),
        Value::Function { .. } => "function".into(),
        Value::Exception(e) => e.type_name.clone(),
        Value::Havoc(_) => "object".into(),
        Value::Mapping(m) => m.kind.name().into(),
    }
}

pub fn sort_type_name(sort: &Sort) -> &'static str {
    match sort {
        Sort::Bool => "bool",
        Sort::Int => "int",
        Sort::Real => "float",
        Sort::Str => "str",
        Sort::Seq(k, _) | Sort::Fixed(k, _) => k.name(),
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Term(t) => format!("a {}", t.sort()),
        Value::None => "None (values of None are not modelled)".into(),
        Value::Function { name, .. } => {
            format!("the function {name} (functions as values are not modelled)")
        }
        Value::Exception(e) => format!("an exception object {} (not modelled)", e.type_name),
        Value::Havoc(_) => "an unmodelled value".into(),
        Value::Mapping(m) => format!(
            "a {} (only read by key, length and iteration)",
            m.kind.name()
        ),
    }
}
