//! The intermediate representation of Python shared by the CFG builder, the interpreters and
//! the dataflow analyses: ruff's AST lowered (by `lower`) to owned nodes that carry spans.
//!
//! `Display` prints expressions, patterns and statements as Python with minimal parentheses.

use num_bigint::BigInt;
use serde::Serialize;

use super::source::Span;

mod display;

/// A statement's identity: its index in the source pre-order of its module (stable for the
/// same source). Except handlers and match cases are numbered in the same sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct StmtId(pub u32);

/// A lowered module (a cell or a definition's source).
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub body: Vec<Stmt>,
}

/// A `def` (methods and nested functions included).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// `f`, `Class.method`, `outer.inner`.
    pub qualname: String,
    pub params: Vec<Param>,
    pub returns: Option<Expr>,
    pub returns_text: Option<String>,
    /// PEP 257-trimmed docstring; its statement stays first in `body` (see [`Function::code`]).
    pub docstring: Option<String>,
    pub body: Vec<Stmt>,
    /// From the `def` keyword (decorators excluded) to the end of the body.
    pub span: Span,
    pub decorators: Vec<Expr>,
}

/// A parameter of a function or lambda.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    pub annotation: Option<Expr>,
    /// The annotation's source text.
    pub annotation_text: Option<String>,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ParamKind {
    /// Before `/`.
    PositionalOnly,
    Positional,
    /// `*args`.
    VarArgs,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    KwArgs,
}

/// A statement with its identity, position and label text.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub id: StmtId,
    /// The whole statement (for a `def`/`class`, from the keyword; decorators excluded).
    pub span: Span,
    /// The header of a compound statement (through its `:`); equal to `span` otherwise.
    pub header: Span,
    /// The source text: the header only for compound statements, on one line.
    pub text: String,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    /// `a = b = value`; targets may be tuples, lists, starred, attributes, subscripts.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    /// An `elif` is an `If` alone in `orelse`, with its own span, id and `elif ...:` text.
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
        target: Expr,
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
        handlers: Vec<ExceptHandler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
        /// `except*`.
        is_star: bool,
    },
    /// `with a as b, c:` is `[(a, Some(b)), (c, None)]`.
    With {
        items: Vec<(Expr, Option<Expr>)>,
        body: Vec<Stmt>,
    },
    Match {
        subject: Expr,
        cases: Vec<MatchCase>,
    },
    FunctionDef(Box<Function>),
    ClassDef {
        name: String,
        qualname: String,
        bases: Vec<Expr>,
        /// `metaclass=M` and the like; `None` for `**kw`.
        keywords: Vec<(Option<String>, Expr)>,
        decorators: Vec<Expr>,
        body: Vec<Stmt>,
    },
    Import(Vec<Alias>),
    /// `from ..m import a as b`: `module` is `Some("m")`, `level` 2.
    ImportFrom {
        module: Option<String>,
        names: Vec<Alias>,
        level: u32,
    },
    Global(Vec<String>),
    Nonlocal(Vec<String>),
    Delete(Vec<Expr>),
    /// A construct outside the supported subset (`async def`, `async for`, `async with`,
    /// `type` aliases, IPython escapes), kept so consumers can report it with its line.
    Unsupported {
        construct: &'static str,
    },
}

/// `import a.b as c` / `from m import a as c`; `name` is `*` for a star import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    pub name: String,
    pub asname: Option<String>,
}

/// One `except` clause.
#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    pub id: StmtId,
    pub type_: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Stmt>,
    pub span: Span,
    pub header: Span,
    /// `except ValueError as e:`
    pub text: String,
}

/// One `case` of a `match`.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchCase {
    pub id: StmtId,
    pub pattern: Pattern,
    pub guard: Option<Expr>,
    pub body: Vec<Stmt>,
    pub span: Span,
    pub header: Span,
    /// `case [x, y] if x > y:`
    pub text: String,
}

/// A `match` pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// A literal, a negative or complex number, or a dotted name: compared with `==`.
    Value(Expr),
    /// `None`, `True`, `False`: compared with `is`.
    Singleton(Constant),
    /// A bare name: always matches and binds.
    Capture(String),
    /// `_`
    Wildcard,
    /// `[p, *rest]` or `(p, q)`.
    Sequence(Vec<Pattern>),
    /// `*rest` / `*_` inside a sequence pattern.
    Star(Option<String>),
    /// `{"k": p, **rest}`.
    Mapping {
        keys: Vec<Expr>,
        patterns: Vec<Pattern>,
        rest: Option<String>,
    },
    /// `Point(p, y=q)`.
    Class {
        cls: Expr,
        patterns: Vec<Pattern>,
        keywords: Vec<(String, Pattern)>,
    },
    Or(Vec<Pattern>),
    /// `p as name`.
    As {
        pattern: Box<Pattern>,
        name: String,
    },
}

/// An expression with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    Constant(Constant),
    BinOp {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `a and b and c` is one node with three values.
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `a < b < c` is one node: `ops` and `comparators` have the same length.
    Compare {
        left: Box<Expr>,
        ops: Vec<CmpOp>,
        comparators: Vec<Expr>,
    },
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// Positional `args` may be `Starred`; a keyword named `None` is `**mapping`.
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<(Option<String>, Expr)>,
    },
    Attribute {
        value: Box<Expr>,
        attr: String,
    },
    /// `a[i]`; `a[i:j]` has a `Slice` index, `a[i, j]` a `Tuple`.
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Set(Vec<Expr>),
    /// A key of `None` is a `**mapping` entry.
    Dict {
        keys: Vec<Option<Expr>>,
        values: Vec<Expr>,
    },
    Lambda {
        params: Vec<Param>,
        body: Box<Expr>,
    },
    /// `elt` is the key of a dict comprehension, `value` its value.
    Comprehension {
        kind: ComprehensionKind,
        elt: Box<Expr>,
        value: Option<Box<Expr>>,
        generators: Vec<Generator>,
    },
    /// Implicitly concatenated strings are joined; `f"{x=}"` becomes `"x="` and `{x!r}`.
    FString(Vec<FStringPart>),
    Starred(Box<Expr>),
    /// `target := value`.
    NamedExpr {
        target: String,
        value: Box<Expr>,
    },
    /// `await`, `yield`, `yield from`, complex numbers, t-strings, async comprehensions;
    /// `text` is the source.
    Unsupported {
        construct: &'static str,
        text: String,
        /// The operand of `yield` / `yield from` (for the interpreter, which runs
        /// generators; the analyses treat the node as opaque).
        operand: Option<Box<Expr>>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// Exact, whatever the size or base of the literal.
    Int(BigInt),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Bool(bool),
    None,
    Ellipsis,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mult,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMult,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    Not,
    USub,
    UAdd,
    Invert,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ComprehensionKind {
    List,
    Set,
    Dict,
    Generator,
}

/// `for target in iter if c1 if c2` in a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct Generator {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FStringPart {
    Literal(String),
    /// `{expr!conversion:format_spec}`; the spec may itself hold replacement fields.
    Expr {
        expr: Box<Expr>,
        conversion: Option<Conversion>,
        format_spec: Option<Vec<FStringPart>>,
    },
}

/// `!s`, `!r`, `!a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Conversion {
    Str,
    Repr,
    Ascii,
}

/// How an expression operand of a statement is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Read,
    /// Assigned or deleted: only its inner subexpressions (`a` and `i` of `a[i]`) are read.
    Target,
    /// Read, then assigned (the target of `+=`).
    ReadWrite,
}

impl BinOp {
    /// The operator's symbol: `+`, `//`, `@`, ...
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mult => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMult => "@",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }
}

impl UnaryOp {
    /// `not `, `-`, `+`, `~`: the text written before the operand.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Not => "not ",
            UnaryOp::USub => "-",
            UnaryOp::UAdd => "+",
            UnaryOp::Invert => "~",
        }
    }
}

impl BoolOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        }
    }
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl Module {
    /// Every function, methods (`C.m`) and nested functions (`f.g`) included, in source order.
    pub fn functions(&self) -> impl Iterator<Item = &Function> + '_ {
        let mut found = Vec::new();
        walk_block(&self.body, &mut |s| {
            if let StmtKind::FunctionDef(f) = &s.kind {
                found.push(f.as_ref());
            }
        });
        found.into_iter()
    }

    /// The function with this qualified name (the last definition if redefined).
    pub fn function(&self, qualname: &str) -> Option<&Function> {
        self.functions().filter(|f| f.qualname == qualname).last()
    }

    /// The statement with this id, at any depth.
    pub fn stmt(&self, id: StmtId) -> Option<&Stmt> {
        let mut found = None;
        walk_block(&self.body, &mut |s| {
            if s.id == id {
                found = Some(s);
            }
        });
        found
    }

    /// Visits every statement in source pre-order, function and class bodies included.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Stmt)) {
        walk_block(&self.body, f);
    }
}

fn walk_block<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in stmts {
        s.walk(f);
    }
}

impl Function {
    /// The body without its docstring statement.
    pub fn code(&self) -> &[Stmt] {
        match self.docstring {
            Some(_) => self.body.get(1..).unwrap_or(&[]),
            None => &self.body,
        }
    }

    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Whether the body (nested functions included, erring on "yes") yields.
    pub fn is_generator(&self) -> bool {
        let mut found = false;
        for s in &self.body {
            s.walk(&mut |s| {
                for e in s.exprs() {
                    e.walk(&mut |e| {
                        if let ExprKind::Unsupported { construct, .. } = &e.kind {
                            found |= construct.contains("yield");
                        }
                    });
                }
            });
        }
        found
    }
}

impl Stmt {
    /// For `target op= value`, the expression `target op value`: the value the analyses
    /// bind to `target` (they read an augmented assignment as an assignment; a list's `+=`
    /// also extends the list in place, which each reader handles where it models lists).
    pub fn augmented_value(&self) -> Option<Expr> {
        match &self.kind {
            StmtKind::AugAssign { target, op, value } => Some(Expr::new(
                ExprKind::BinOp {
                    op: *op,
                    left: Box::new(target.clone()),
                    right: Box::new(value.clone()),
                },
                self.span,
            )),
            _ => None,
        }
    }

    /// The statement blocks nested in this one, in source order: bodies, `elif`/`else`
    /// branches, handler and case bodies, `finally`, function and class bodies.
    pub fn blocks(&self) -> Vec<&[Stmt]> {
        match &self.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => vec![body, orelse],
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                let mut blocks: Vec<&[Stmt]> = vec![body];
                blocks.extend(handlers.iter().map(|h| h.body.as_slice()));
                blocks.push(orelse);
                blocks.push(finalbody);
                blocks
            }
            StmtKind::With { body, .. } | StmtKind::ClassDef { body, .. } => vec![body],
            StmtKind::Match { cases, .. } => cases.iter().map(|c| c.body.as_slice()).collect(),
            StmtKind::FunctionDef(f) => vec![&f.body],
            _ => Vec::new(),
        }
    }

    /// Visits this statement and all nested ones in source pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Stmt)) {
        f(self);
        for block in self.blocks() {
            walk_block(block, f);
        }
    }

    /// Whether this statement has nested blocks (and so a header rather than full text).
    pub fn is_compound(&self) -> bool {
        matches!(
            self.kind,
            StmtKind::If { .. }
                | StmtKind::While { .. }
                | StmtKind::For { .. }
                | StmtKind::Try { .. }
                | StmtKind::With { .. }
                | StmtKind::Match { .. }
                | StmtKind::FunctionDef(_)
                | StmtKind::ClassDef { .. }
        )
    }

    /// The expressions this statement evaluates itself, in evaluation order (nested blocks,
    /// handler types and case patterns excluded). A `def` evaluates its decorators and
    /// defaults, a `class` its decorators, bases and keywords; annotations are left out.
    pub fn exprs(&self) -> Vec<&Expr> {
        self.operands().into_iter().map(|(e, _)| e).collect()
    }

    /// Names this statement reads (not those of nested blocks), first occurrence first.
    pub fn names_used(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (e, role) in self.operands() {
            match role {
                Role::Read => e.collect_reads(&mut Vec::new(), &mut out),
                Role::Target => e.collect_target_reads(&mut out),
                Role::ReadWrite => {
                    e.collect_reads(&mut Vec::new(), &mut out);
                    e.collect_target_reads(&mut out);
                }
            }
        }
        out
    }

    /// Names this statement binds itself (not those of nested blocks): assignment, `for` and
    /// `with` targets, `:=` targets, imports, `def`/`class` names. `del` binds nothing.
    pub fn defined_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (e, role) in self.operands() {
            if matches!(role, Role::Target | Role::ReadWrite)
                && !matches!(self.kind, StmtKind::Delete(_))
            {
                e.collect_target_names(&mut out);
            }
            e.collect_walrus_targets(&mut out);
        }
        match &self.kind {
            StmtKind::FunctionDef(f) => push_unique(&mut out, &f.name),
            StmtKind::ClassDef { name, .. } => push_unique(&mut out, name),
            StmtKind::Import(names) => {
                for a in names {
                    let first = a.name.split('.').next().unwrap_or(&a.name);
                    push_unique(&mut out, a.asname.as_deref().unwrap_or(first));
                }
            }
            StmtKind::ImportFrom { names, .. } => {
                for a in names.iter().filter(|a| a.name != "*") {
                    push_unique(&mut out, a.asname.as_deref().unwrap_or(&a.name));
                }
            }
            _ => {}
        }
        out
    }

    /// This statement's own expressions with how each is used.
    fn operands(&self) -> Vec<(&Expr, Role)> {
        use Role::*;
        match &self.kind {
            StmtKind::Expr(e) | StmtKind::If { test: e, .. } | StmtKind::While { test: e, .. } => {
                vec![(e, Read)]
            }
            StmtKind::Assign { targets, value } => {
                let mut v = vec![(value, Read)];
                v.extend(targets.iter().map(|t| (t, Target)));
                v
            }
            StmtKind::AugAssign { target, value, .. } => vec![(target, ReadWrite), (value, Read)],
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } => {
                vec![(value, Read), (target, Target)]
            }
            StmtKind::For { target, iter, .. } => vec![(iter, Read), (target, Target)],
            StmtKind::Return(value) => value.iter().map(|e| (e, Read)).collect(),
            StmtKind::Raise { exc, cause } => exc.iter().chain(cause).map(|e| (e, Read)).collect(),
            StmtKind::Assert { test, msg } => std::iter::once(test)
                .chain(msg)
                .map(|e| (e, Read))
                .collect(),
            StmtKind::With { items, .. } => items
                .iter()
                .flat_map(|(e, var)| {
                    std::iter::once((e, Read)).chain(var.iter().map(|v| (v, Target)))
                })
                .collect(),
            StmtKind::Match { subject, .. } => vec![(subject, Read)],
            StmtKind::FunctionDef(f) => f
                .decorators
                .iter()
                .chain(f.params.iter().filter_map(|p| p.default.as_ref()))
                .map(|e| (e, Read))
                .collect(),
            StmtKind::ClassDef {
                bases,
                keywords,
                decorators,
                ..
            } => decorators
                .iter()
                .chain(bases)
                .chain(keywords.iter().map(|(_, e)| e))
                .map(|e| (e, Read))
                .collect(),
            StmtKind::Delete(targets) => targets.iter().map(|t| (t, Target)).collect(),
            _ => Vec::new(),
        }
    }
}

impl ExceptHandler {
    /// Names read by the handler's type expression.
    pub fn names_used(&self) -> Vec<String> {
        self.type_
            .as_ref()
            .map(Expr::names_used)
            .unwrap_or_default()
    }
}

impl MatchCase {
    /// Names bound by the pattern and by `:=` in the guard.
    pub fn defined_names(&self) -> Vec<String> {
        let mut out = self.pattern.bound_names();
        if let Some(g) = &self.guard {
            g.collect_walrus_targets(&mut out);
        }
        out
    }

    /// Names read by the pattern's value expressions and the guard.
    pub fn names_used(&self) -> Vec<String> {
        let mut out = Vec::new();
        for e in self.pattern.exprs().into_iter().chain(&self.guard) {
            e.collect_reads(&mut Vec::new(), &mut out);
        }
        out
    }
}

impl Pattern {
    /// The names a successful match binds, in source order.
    pub fn bound_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_bound(&mut out);
        out
    }

    fn collect_bound(&self, out: &mut Vec<String>) {
        match self {
            Pattern::Capture(n) | Pattern::Star(Some(n)) => push_unique(out, n),
            Pattern::Sequence(ps) | Pattern::Or(ps) => ps.iter().for_each(|p| p.collect_bound(out)),
            Pattern::Mapping { patterns, rest, .. } => {
                patterns.iter().for_each(|p| p.collect_bound(out));
                if let Some(r) = rest {
                    push_unique(out, r);
                }
            }
            Pattern::Class {
                patterns, keywords, ..
            } => {
                patterns
                    .iter()
                    .chain(keywords.iter().map(|(_, p)| p))
                    .for_each(|p| p.collect_bound(out));
            }
            Pattern::As { pattern, name } => {
                pattern.collect_bound(out);
                push_unique(out, name);
            }
            Pattern::Value(_) | Pattern::Singleton(_) | Pattern::Wildcard | Pattern::Star(None) => {
            }
        }
    }

    /// The expressions in the pattern: values, mapping keys, class names.
    pub fn exprs(&self) -> Vec<&Expr> {
        let mut out = Vec::new();
        self.collect_exprs(&mut out);
        out
    }

    fn collect_exprs<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        match self {
            Pattern::Value(e) => out.push(e),
            Pattern::Sequence(ps) | Pattern::Or(ps) => ps.iter().for_each(|p| p.collect_exprs(out)),
            Pattern::Mapping { keys, patterns, .. } => {
                for (k, p) in keys.iter().zip(patterns) {
                    out.push(k);
                    p.collect_exprs(out);
                }
            }
            Pattern::Class {
                cls,
                patterns,
                keywords,
            } => {
                out.push(cls);
                patterns
                    .iter()
                    .chain(keywords.iter().map(|(_, p)| p))
                    .for_each(|p| p.collect_exprs(out));
            }
            Pattern::As { pattern, .. } => pattern.collect_exprs(out),
            Pattern::Singleton(_) | Pattern::Capture(_) | Pattern::Wildcard | Pattern::Star(_) => {}
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { span, kind }
    }

    /// The direct subexpressions, in source order (lambda defaults and body, comprehension
    /// parts and f-string fields included).
    pub fn children(&self) -> Vec<&Expr> {
        let mut out = Vec::new();
        match &self.kind {
            ExprKind::Name(_) | ExprKind::Constant(_) | ExprKind::Unsupported { .. } => {}
            ExprKind::BinOp { left, right, .. } => out.extend([&**left, &**right]),
            ExprKind::UnaryOp { operand: e, .. }
            | ExprKind::Attribute { value: e, .. }
            | ExprKind::Starred(e)
            | ExprKind::NamedExpr { value: e, .. } => out.push(e),
            ExprKind::BoolOp { values: es, .. }
            | ExprKind::Tuple(es)
            | ExprKind::List(es)
            | ExprKind::Set(es) => out.extend(es),
            ExprKind::Compare {
                left, comparators, ..
            } => {
                out.push(left);
                out.extend(comparators);
            }
            ExprKind::IfExp { test, body, orelse } => out.extend([&**body, &**test, &**orelse]),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                out.push(func);
                out.extend(args);
                out.extend(keywords.iter().map(|(_, e)| e));
            }
            ExprKind::Subscript { value, index } => out.extend([&**value, &**index]),
            ExprKind::Slice { lower, upper, step } => {
                out.extend([lower, upper, step].into_iter().flatten().map(|e| &**e));
            }
            ExprKind::Dict { keys, values } => {
                for (k, v) in keys.iter().zip(values) {
                    out.extend(k);
                    out.push(v);
                }
            }
            ExprKind::Lambda { params, body } => {
                out.extend(params.iter().filter_map(|p| p.default.as_ref()));
                out.push(body);
            }
            ExprKind::Comprehension {
                elt,
                value,
                generators,
                ..
            } => {
                out.push(elt);
                out.extend(value.as_deref());
                for g in generators {
                    out.extend([&g.target, &g.iter]);
                    out.extend(&g.ifs);
                }
            }
            ExprKind::FString(parts) => fstring_exprs(parts, &mut out),
        }
        out
    }

    /// Visits this expression and all subexpressions in pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// The free names this expression reads, first occurrence first (names bound by lambda
    /// parameters and comprehension targets inside it are not free; `:=` targets are writes).
    pub fn names_used(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_reads(&mut Vec::new(), &mut out);
        out
    }

    /// The names bound when this expression is an assignment target (`a, *b = ...` binds
    /// `a` and `b`; `x.f = ...` and `x[i] = ...` bind none).
    pub fn target_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_target_names(&mut out);
        out
    }

    /// The `:=` targets in this expression, lambda bodies excluded.
    pub fn walrus_targets(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_walrus_targets(&mut out);
        out
    }

    /// The integer value, if this is an int literal.
    pub fn as_int(&self) -> Option<&BigInt> {
        match &self.kind {
            ExprKind::Constant(Constant::Int(i)) => Some(i),
            _ => None,
        }
    }

    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }

    /// `receiver.attr(args)` without keywords or starred arguments: its parts.
    pub fn as_method_call(&self) -> Option<(&Expr, &str, &[Expr])> {
        let (value, attr, args, keywords) = self.as_method_call_with_keywords()?;
        let plain =
            keywords.is_empty() && !args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)));
        plain.then_some((value, attr, args))
    }

    /// `value.attr(args, keywords)`: a method call with whatever arguments.
    #[allow(clippy::type_complexity)]
    pub fn as_method_call_with_keywords(
        &self,
    ) -> Option<(&Expr, &str, &[Expr], &[(Option<String>, Expr)])> {
        let ExprKind::Call {
            func,
            args,
            keywords,
        } = &self.kind
        else {
            return None;
        };
        let ExprKind::Attribute { value, attr } = &func.kind else {
            return None;
        };
        Some((
            &**value,
            attr.as_str(),
            args.as_slice(),
            keywords.as_slice(),
        ))
    }

    fn collect_reads(&self, bound: &mut Vec<String>, out: &mut Vec<String>) {
        match &self.kind {
            ExprKind::Name(n) => {
                if !bound.contains(n) {
                    push_unique(out, n);
                }
            }
            ExprKind::Lambda { params, body } => {
                for d in params.iter().filter_map(|p| p.default.as_ref()) {
                    d.collect_reads(bound, out);
                }
                let depth = bound.len();
                bound.extend(params.iter().map(|p| p.name.clone()));
                body.collect_reads(bound, out);
                bound.truncate(depth);
            }
            ExprKind::Comprehension {
                elt,
                value,
                generators,
                ..
            } => {
                let depth = bound.len();
                for g in generators {
                    g.iter.collect_reads(bound, out);
                    bound.extend(g.target.target_names());
                    g.target.collect_target_reads_in(bound, out);
                    g.ifs.iter().for_each(|c| c.collect_reads(bound, out));
                }
                elt.collect_reads(bound, out);
                if let Some(v) = value {
                    v.collect_reads(bound, out);
                }
                bound.truncate(depth);
            }
            _ => self
                .children()
                .into_iter()
                .for_each(|c| c.collect_reads(bound, out)),
        }
    }

    fn collect_target_reads(&self, out: &mut Vec<String>) {
        self.collect_target_reads_in(&mut Vec::new(), out);
    }

    /// Reads made by a target: the object and index of `a[i]`, the object of `a.f`.
    fn collect_target_reads_in(&self, bound: &mut Vec<String>, out: &mut Vec<String>) {
        match &self.kind {
            ExprKind::Name(_) => {}
            ExprKind::Tuple(es) | ExprKind::List(es) => {
                es.iter()
                    .for_each(|e| e.collect_target_reads_in(bound, out));
            }
            ExprKind::Starred(e) => e.collect_target_reads_in(bound, out),
            _ => self
                .children()
                .into_iter()
                .for_each(|c| c.collect_reads(bound, out)),
        }
    }

    fn collect_target_names(&self, out: &mut Vec<String>) {
        match &self.kind {
            ExprKind::Name(n) => push_unique(out, n),
            ExprKind::Tuple(es) | ExprKind::List(es) => {
                es.iter().for_each(|e| e.collect_target_names(out));
            }
            ExprKind::Starred(e) => e.collect_target_names(out),
            _ => {}
        }
    }

    fn collect_walrus_targets(&self, out: &mut Vec<String>) {
        match &self.kind {
            ExprKind::NamedExpr { target, value } => {
                value.collect_walrus_targets(out);
                push_unique(out, target);
            }
            ExprKind::Lambda { params, .. } => {
                params
                    .iter()
                    .filter_map(|p| p.default.as_ref())
                    .for_each(|d| d.collect_walrus_targets(out));
            }
            _ => self
                .children()
                .into_iter()
                .for_each(|c| c.collect_walrus_targets(out)),
        }
    }
}

fn fstring_exprs<'a>(parts: &'a [FStringPart], out: &mut Vec<&'a Expr>) {
    for part in parts {
        if let FStringPart::Expr {
            expr, format_spec, ..
        } = part
        {
            out.push(expr);
            if let Some(spec) = format_spec {
                fstring_exprs(spec, out);
            }
        }
    }
}

fn push_unique(out: &mut Vec<String>, name: &str) {
    if !out.iter().any(|n| n == name) {
        out.push(name.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::display::{bytes_repr, float_repr, str_repr};
    use super::*;
    use crate::python::{lower_expression, lower_module};

    /// The `Debug` text of a tree with every `span: Span { .. }` removed.
    fn shape(tree: &impl std::fmt::Debug) -> String {
        let text = format!("{tree:?}");
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("span: Span {") {
            out.push_str(&rest[..i]);
            let after = &rest[i..];
            let close = after.find('}').map_or(after.len(), |j| j + 1);
            rest = after[close..].strip_prefix(", ").unwrap_or(&after[close..]);
        }
        out.push_str(rest);
        out
    }

    /// Prints `source` and checks the printed form, and that it re-parses to the same tree.
    fn round_trip(source: &str, printed: &str) {
        let e = lower_expression(source).unwrap();
        let text = e.to_string();
        assert_eq!(text, printed, "printing {source}");
        let again = lower_expression(&text).unwrap_or_else(|err| panic!("{text}: {err}"));
        assert_eq!(
            shape(&e),
            shape(&again),
            "round trip of {source} via {text}"
        );
    }

    #[test]
    fn display_uses_minimal_parentheses() {
        let cases = [
            ("-(x ** 2)", "-x ** 2"),
            ("(-x) ** 2", "(-x) ** 2"),
            ("2 ** -x", "2 ** -x"),
            ("(2 ** 3) ** 4", "(2 ** 3) ** 4"),
            ("2 ** 3 ** 4", "2 ** 3 ** 4"),
            ("a - (b - c)", "a - (b - c)"),
            ("(a - b) - c", "a - b - c"),
            ("(a + b) * c", "(a + b) * c"),
            ("a * (b // c) % d", "a * (b // c) % d"),
            ("a | b ^ c & d << 1 + 2", "a | b ^ c & d << 1 + 2"),
            ("((a | b) ^ c) & d", "((a | b) ^ c) & d"),
            ("not (a and b)", "not (a and b)"),
            ("not a and b", "not a and b"),
            ("(a or b) and c", "(a or b) and c"),
            ("(a and b) and c", "(a and b) and c"),
            ("a and b and c", "a and b and c"),
            ("a or (b or c)", "a or (b or c)"),
            ("x if c else y", "x if c else y"),
            ("(x if c else y) if d else z", "(x if c else y) if d else z"),
            ("x if c else (y if d else z)", "x if c else y if d else z"),
            ("a < b < c", "a < b < c"),
            ("(a < b) < c", "(a < b) < c"),
            ("a not in b is not c", "a not in b is not c"),
            ("not a == b", "not a == b"),
            ("(not a) == b", "(not a) == b"),
            ("-a.b[1](2)", "-a.b[1](2)"),
            ("(a + b).c", "(a + b).c"),
            ("(1).real", "(1).real"),
            ("1.5.real", "1.5.real"),
            ("s[-1:]", "s[-1:]"),
            ("s[::2]", "s[::2]"),
            ("s[:]", "s[:]"),
            ("s[a:b, c]", "s[a:b, c]"),
            ("s[(a, b)]", "s[a, b]"),
            ("s[()]", "s[()]"),
            ("f(*a, k=1, **kw)", "f(*a, k=1, **kw)"),
            ("f(x for x in y)", "f((x for x in y))"),
            ("f((a, b), c)", "f((a, b), c)"),
            ("lambda: 0", "lambda: 0"),
            (
                "lambda x, *ys, z=1, **kw: x + z",
                "lambda x, *ys, z=1, **kw: x + z",
            ),
            ("lambda a, /, b, *, c: a", "lambda a, /, b, *, c: a"),
            ("(lambda: 1)()", "(lambda: 1)()"),
            ("x if (lambda: 1) else y", "x if (lambda: 1) else y"),
            (
                "[x * y for x in xs if x for y in range(x)]",
                "[x * y for x in xs if x for y in range(x)]",
            ),
            (
                "{k: v for k, v in d.items()}",
                "{k: v for k, v in d.items()}",
            ),
            ("{x for x in (a, b)}", "{x for x in (a, b)}"),
            (
                "(x for x in y if (a if b else c))",
                "(x for x in y if (a if b else c))",
            ),
            ("[*a, *b]", "[*a, *b]"),
            ("{**a, 'k': 1}", "{**a, 'k': 1}"),
            ("{1, 2}", "{1, 2}"),
            ("()", "()"),
            ("(1,)", "(1,)"),
            ("1, 2", "(1, 2)"),
            ("(x := 1)", "(x := 1)"),
            ("f(x := 1)", "f((x := 1))"),
            (
                "f'{x!r:>10} and {y:{w}.{p}f} {{lit}}'",
                "f'{x!r:>10} and {y:{w}.{p}f} {{lit}}'",
            ),
            ("f\"{d['k']}\"", "f\"{d['k']}\""),
            ("f'{ {1: 2} }'", "f'{ {1: 2}}'"),
            (
                "f'{(lambda: 1)()}{(a if b else c)}'",
                "f'{(lambda: 1)()}{(a if b else c)}'",
            ),
            ("f'{x=}'", "f'x={x!r}'"),
            ("\"it's\"", "\"it's\""),
            ("'say \"hi\"'", "'say \"hi\"'"),
            ("'both \\' and \"'", "'both \\' and \"'"),
            (
                "'tab\\tnew\\nline\\\\ \\x00 \\u00e9'",
                "'tab\\tnew\\nline\\\\ \\x00 é'",
            ),
            ("b'a\\'\\x00\\xff'", "b\"a'\\x00\\xff\""),
            ("1.0", "1.0"),
            ("1e100", "1e+100"),
            ("0.00001", "1e-05"),
            ("123.456", "123.456"),
            ("1_000.5", "1000.5"),
            ("1e16", "1e+16"),
            ("0xff", "255"),
            ("-1", "-1"),
            ("- -1", "--1"),
            ("~x", "~x"),
            ("a @ b", "a @ b"),
            ("x.y.z(a)[b]", "x.y.z(a)[b]"),
            ("await x", "(await x)"),
        ];
        for (source, printed) in cases {
            round_trip(source, printed);
        }
    }

    #[test]
    fn reprs_follow_python() {
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(-0.0), "-0.0");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(123456789012345678.0), "1.2345678901234568e+17");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(f64::INFINITY), "1e309");
        assert_eq!(str_repr("a'b"), "\"a'b\"");
        assert_eq!(str_repr("a'b\""), "'a\\'b\"'");
        assert_eq!(str_repr("\u{7f}\u{a0}"), "'\\x7f\\xa0'");
        assert_eq!(bytes_repr(b"\t'"), "b\"\\t'\"");
        let neg = Expr::new(
            ExprKind::Constant(Constant::Int(BigInt::from(-3))),
            Span {
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
            },
        );
        let pow = Expr::new(
            ExprKind::BinOp {
                op: BinOp::Pow,
                left: Box::new(neg.clone()),
                right: Box::new(neg),
            },
            Span {
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
            },
        );
        assert_eq!(pow.to_string(), "(-3) ** -3");
    }

    #[test]
    fn statements_print_and_reparse() {
        let source = "@dec\ndef f(a, /, b: int = 1, *args, c, **kw) -> int:\n    \"\"\"Doc.\"\"\"\n    x = y = (1, 2)\n    a, *b = c\n    x += 1\n    t: int = 0\n    if (n := len(a)) > 1:\n        pass\n    elif a:\n        return\n    else:\n        return a, b\n    while x:\n        break\n    else:\n        continue\n    for i, j in z:\n        del a[i], b\n    try:\n        raise E from None\n    except (A, B) as e:\n        assert e, 'm'\n    finally:\n        global g\n    try:\n        pass\n    except* C:\n        pass\n    with open(p) as h, q:\n        import os.path as op, sys\n        from ..m import a as b, c\n    match s:\n        case [1, *r] if r:\n            pass\n        case P(x=0) | None:\n            pass\nclass K(B, metaclass=M):\n    def m(self):\n        nonlocal q\n";
        let module = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        let printed = module.to_string();
        let again = lower_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        assert_eq!(printed, again.to_string());
        expect_test::expect![[r#"
            @dec
            def f(a, /, b: int = 1, *args, c, **kw) -> int:
                'Doc.'
                x = y = 1, 2
                a, *b = c
                x += 1
                t: int = 0
                if (n := len(a)) > 1:
                    pass
                elif a:
                    return
                else:
                    return a, b
                while x:
                    break
                else:
                    continue
                for i, j in z:
                    del a[i], b
                try:
                    raise E from None
                except (A, B) as e:
                    assert e, 'm'
                finally:
                    global g
                try:
                    pass
                except* C:
                    pass
                with open(p) as h, q:
                    import os.path as op, sys
                    from ..m import a as b, c
                match s:
                    case [1, *r] if r:
                        pass
                    case P(x=0) | None:
                        pass
            class K(B, metaclass=M):
                def m(self):
                    nonlocal q
        "#]]
        .assert_eq(&printed);
    }

    #[test]
    fn names_read_and_written() {
        let module = lower_module(
            "a[i], b.f, (c, *d) = e = g(h)\nx += y\nfor k, v in items(m):\n    pass\nz = [u * w for u in us if u > t] + list(map(lambda p: p + q, r))\nif (n := len(s)) > 0:\n    pass\nimport os.path, numpy as np\nfrom m import (f1, f2 as g2)\ndef fn(p=dflt):\n    pass\ndel a[j], old\n",
        )
        .unwrap();
        let rows: Vec<String> = module
            .body
            .iter()
            .map(|s| {
                format!(
                    "{}: reads {:?} writes {:?}",
                    s.text,
                    s.names_used(),
                    s.defined_names()
                )
            })
            .collect();
        expect_test::expect![[r#"
            [
                "a[i], b.f, (c, *d) = e = g(h): reads [\"g\", \"h\", \"a\", \"i\", \"b\"] writes [\"c\", \"d\", \"e\"]",
                "x += y: reads [\"x\", \"y\"] writes [\"x\"]",
                "for k, v in items(m):: reads [\"items\", \"m\"] writes [\"k\", \"v\"]",
                "z = [u * w for u in us if u > t] + list(map(lambda p: p + q, r)): reads [\"us\", \"t\", \"w\", \"list\", \"map\", \"q\", \"r\"] writes [\"z\"]",
                "if (n := len(s)) > 0:: reads [\"len\", \"s\"] writes [\"n\"]",
                "import os.path, numpy as np: reads [] writes [\"os\", \"np\"]",
                "from m import (f1, f2 as g2): reads [] writes [\"f1\", \"g2\"]",
                "def fn(p=dflt):: reads [\"dflt\"] writes [\"fn\"]",
                "del a[j], old: reads [\"a\", \"j\"] writes []",
            ]
        "#]].assert_debug_eq(&rows);
    }

    #[test]
    fn walk_visits_every_subexpression() {
        let e = lower_expression("f(a + 1, k=[b, *c])[d:e]").unwrap();
        let mut names = Vec::new();
        e.walk(&mut |x| {
            if let Some(n) = x.as_name() {
                names.push(n.to_string());
            }
        });
        assert_eq!(names, ["f", "a", "b", "c", "d", "e"]);
    }
}
