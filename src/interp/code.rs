//! The compiled form the interpreter runs: the IR with every name resolved to a local slot,
//! a closure cell or a global, and every function, lambda and comprehension a [`Code`].

use std::rc::Rc;

use super::value::Value;
use crate::python::ir::{BinOp, CmpOp, ComprehensionKind, Conversion, UnaryOp};

/// Where a name lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Var {
    /// A slot of the frame's locals.
    Local(u32),
    /// A cell of the frame: its own captured variables first, then those it captured.
    Cell(u32),
    /// A slot of the interpreter's globals.
    Global(u32),
}

/// What kind of scope a [`Code`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodeKind {
    Module,
    Function,
    Lambda,
    Comprehension(ComprehensionKind),
}

/// A unit of code with its own frame.
pub(crate) struct Code {
    pub kind: CodeKind,
    pub name: Rc<str>,
    /// CPython's `__qualname__`: `f`, `outer.<locals>.inner`, `<listcomp>`.
    pub qualname: Rc<str>,
    pub params: Params,
    pub nlocals: usize,
    /// Cells created by each frame (its variables captured by inner functions).
    pub ncells: usize,
    /// For each free variable, the cell index in the defining frame it is taken from.
    pub free_sources: Vec<u32>,
    /// The free variables' names, in `free_sources`' order (`__closure__` sorts by them).
    pub free_names: Vec<Rc<str>>,
    pub body: Body,
    pub line: u32,
    /// The header line (`def f(x):`), for tracebacks.
    pub text: Rc<str>,
    /// A function whose body has `yield`: calling it makes a generator.
    pub is_generator: bool,
    /// The name of each local slot (`%run`'s traced values; empty for modules).
    pub local_names: Vec<Rc<str>>,
}

/// Parameters of a function, in CPython's binding order.
#[derive(Default)]
pub(crate) struct Params {
    /// Positional (positional-only first) then keyword-only names.
    pub names: Vec<Rc<str>>,
    pub slots: Vec<Var>,
    pub n_posonly: usize,
    /// Positional-only plus positional-or-keyword.
    pub n_positional: usize,
    pub varargs: Option<Var>,
    pub kwargs: Option<Var>,
    /// Only positional parameters, in local slots 0, 1, ...: calls can evaluate their
    /// arguments straight into the new frame.
    pub direct: bool,
}

impl Params {
    /// Whether calls can bind positional arguments straight into slots.
    pub fn is_simple(&self) -> bool {
        self.varargs.is_none() && self.kwargs.is_none() && self.n_positional == self.names.len()
    }
}

pub(crate) enum Body {
    Block(Vec<Stmt>),
    /// A lambda's expression.
    Expr(Expr),
    Comprehension(Comprehension),
}

/// A comprehension's loops and result; its first iterable is evaluated by the caller.
pub(crate) struct Comprehension {
    pub generators: Vec<CompFor>,
    pub elt: Expr,
    /// The value of a dict comprehension.
    pub value: Option<Expr>,
}

pub(crate) struct CompFor {
    pub target: Target,
    /// `None` for the first loop, whose iterable is passed in.
    pub iter: Option<Expr>,
    pub ifs: Vec<Expr>,
}

pub(crate) struct Stmt {
    pub line: u32,
    pub text: Rc<str>,
    /// The qualified name of the code it belongs to (for tracebacks).
    pub function: Rc<str>,
    pub kind: StmtKind,
}

pub(crate) enum StmtKind {
    Expr(Expr),
    Assign {
        targets: Vec<Target>,
        value: Expr,
    },
    AugAssign {
        target: Target,
        op: BinOp,
        value: Expr,
    },
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Target,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Pass,
    Raise {
        exc: Option<Expr>,
        cause: Option<Expr>,
    },
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
    },
    Def(Box<Def>),
    /// A `class` statement.
    Class(Box<ClassDef>),
    /// An import: binds module objects or their attributes.
    Bind(Vec<(Var, Value)>),
    Delete(Vec<Target>),
    Unsupported(String),
    With(Box<With>),
    /// An import of a module the interpreter does not provide: raises this error when run.
    ImportError(super::exc::ExcKind, String),
    Match {
        subject: Expr,
        cases: Vec<Case>,
    },
}

/// One `case` of a `match`.
pub(crate) struct Case {
    pub line: u32,
    pub text: Rc<str>,
    pub function: Rc<str>,
    pub pattern: Pat,
    pub guard: Option<Expr>,
    pub body: Vec<Stmt>,
}

/// A compiled `match` pattern.
pub(crate) enum Pat {
    /// Compared with `==`.
    Value(Expr),
    /// `None`, `True`, `False`: compared with `is`.
    Singleton(Value),
    Capture(Var),
    Wildcard,
    /// `star` is the index of the `*name` item (bound to a list when `Some`).
    Sequence {
        items: Vec<Pat>,
        star: Option<(usize, Option<Var>)>,
    },
    Mapping {
        keys: Vec<Expr>,
        patterns: Vec<Pat>,
        rest: Option<Var>,
    },
    Class {
        cls: Expr,
        patterns: Vec<Pat>,
        keywords: Vec<(Rc<str>, Pat)>,
    },
    Or(Vec<Pat>),
    As(Box<Pat>, Var),
}

/// A `class` statement: its body runs as a function whose locals become the namespace.
pub(crate) struct ClassDef {
    pub name: Rc<str>,
    pub code: Rc<Code>,
    pub bases: Vec<Arg>,
    pub keywords: Vec<Kwarg>,
    pub decorators: Vec<Expr>,
    /// The body's local slots with their names, in binding order.
    pub names: Vec<(Rc<str>, u32)>,
    /// Annotated names (`x: int`), in order: the fields of dataclasses and named tuples.
    pub fields: Vec<Rc<str>>,
    /// What the annotations make of some fields (`InitVar`, after `KW_ONLY`).
    pub field_marks: super::dataclass_fns::FieldMarks,
    /// The annotation of each field, to evaluate when the class is made.
    pub field_types: Vec<(Rc<str>, super::dataclass_fns::FieldType)>,
    /// The cell of `__class__` in the body's frame, when a method uses `super()`.
    pub class_cell: Option<u32>,
    /// A body of `pass`/docstrings only (exception classes stay exception classes).
    pub trivial: bool,
    pub target: Var,
}

/// A `with` statement: its items (context expression, `as` target) and body.
pub(crate) struct With {
    pub items: Vec<(Expr, Option<Target>)>,
    pub body: Vec<Stmt>,
}

/// A `def` statement or a lambda: what is evaluated when it runs.
pub(crate) struct Def {
    pub code: Rc<Code>,
    pub decorators: Vec<Expr>,
    pub defaults: Vec<Expr>,
    pub kwdefaults: Vec<Option<Expr>>,
    /// Where a `def` binds the function (`None` for a lambda).
    pub target: Option<Var>,
}

pub(crate) struct Handler {
    pub line: u32,
    pub text: Rc<str>,
    pub function: Rc<str>,
    pub class: Option<Expr>,
    pub name: Option<Var>,
    pub body: Vec<Stmt>,
}

/// An assignment target.
pub(crate) enum Target {
    Var(Var, Rc<str>),
    Item {
        obj: Expr,
        index: Expr,
    },
    Slice {
        obj: Expr,
        lower: Option<Expr>,
        upper: Option<Expr>,
        step: Option<Expr>,
    },
    Attr {
        obj: Expr,
        name: Rc<str>,
    },
    /// `a, *b, c`: `star` is the index of the starred target.
    Unpack {
        items: Vec<Target>,
        star: Option<usize>,
    },
}

pub(crate) enum Expr {
    Const(Value),
    Load(Var, Rc<str>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    IfExp(Box<[Expr; 3]>),
    /// `plain`: only positional arguments without `*`.
    Call {
        func: Box<Expr>,
        args: Vec<Arg>,
        kwargs: Vec<Kwarg>,
        plain: bool,
    },
    /// `obj.name(args)`, without creating the bound method.
    CallMethod {
        obj: Box<Expr>,
        name: Rc<str>,
        args: Vec<Arg>,
        kwargs: Vec<Kwarg>,
    },
    Attr(Box<Expr>, Rc<str>),
    Item(Box<Expr>, Box<Expr>),
    Slice {
        obj: Box<Expr>,
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    Tuple(Vec<Arg>),
    List(Vec<Arg>),
    Dict(Vec<DictItem>),
    Lambda(Box<Def>),
    Comprehension {
        code: Rc<Code>,
        first: Box<Expr>,
    },
    FString(Vec<FPart>),
    Walrus(Var, Box<Expr>),
    Unsupported(String),
    /// `yield value` (only in the body of a generator function).
    Yield(Option<Box<Expr>>),
    YieldFrom(Box<Expr>),
    /// `{a, b, *c}`; `folded` when CPython builds it from a constant frozenset.
    Set {
        items: Vec<Arg>,
        folded: bool,
    },
}

/// A positional argument or list/tuple element.
pub(crate) enum Arg {
    One(Expr),
    Star(Expr),
}

pub(crate) enum Kwarg {
    Named(Rc<str>, Expr),
    Splat(Expr),
}

pub(crate) enum DictItem {
    Pair(Expr, Expr),
    Splat(Expr),
}

pub(crate) enum FPart {
    Literal(Rc<str>),
    Field {
        expr: Expr,
        conversion: Option<Conversion>,
        spec: Option<Vec<FPart>>,
    },
}
