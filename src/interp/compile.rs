//! Compiling a lowered cell (`python::ir`) into [`Code`]: names resolved with the scope
//! analysis, function bodies and comprehensions made into their own codes.
//!
//! Constructs outside the subset refuse the whole cell when they are in its top-level code;
//! inside a function body they compile to a node that stops the run when reached, so a cell
//! may still define such a function for the analyses.

use std::collections::HashMap;
use std::rc::Rc;

use super::code::{
    Arg, Body, Case, Code, CodeKind, CompFor, Comprehension, Def, DictItem, Expr, FPart, Handler,
    Kwarg, Params, Pat, Stmt, StmtKind, Target, Var, With,
};
use super::exc::ExcKind;
use super::globals::Globals;
use super::modules;
use super::scope::{Binding, Scope, Scopes, node_key};
use super::value::Value;
use crate::python::ir::{self, ComprehensionKind, Constant, ExprKind, ParamKind, StmtKind as S};

/// The first surrogate escape (`\uD800`..`\uDFFF`, `\U0000D800`..) in a statement's text:
/// a backslash not itself escaped, then a surrogate code point (raw strings included).
fn surrogate_escape(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let digits = match bytes.get(i + 1) {
            Some(b'u') => 4,
            Some(b'U') => 8,
            _ => {
                i += 2;
                continue;
            }
        };
        let hex = text.get(i + 2..i + 2 + digits).unwrap_or("");
        if u32::from_str_radix(hex, 16).is_ok_and(|c| (0xd800..=0xdfff).contains(&c)) {
            return text.get(i..i + 2 + digits);
        }
        i += 2;
    }
    None
}

/// Why a cell cannot be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("{message} (line {line})")]
    Syntax { message: String, line: u32 },
    #[error("{construct} is not supported by the interpreter (line {line})")]
    Unsupported { construct: String, line: u32 },
}

/// The names of one scope being compiled.
struct Frame<'s> {
    scope: &'s Scope,
    locals: HashMap<String, u32>,
    cells: HashMap<String, u32>,
    /// The qualname prefix of functions defined here (`f.<locals>.`).
    prefix: String,
    /// This code's qualified name.
    qualname: Rc<str>,
    /// The first parameter of a function (`self` of a method, for zero-argument `super()`).
    first_param: Option<String>,
    /// Whether its body has `yield`.
    generator: bool,
}

struct Compiler<'a> {
    scopes: &'a Scopes,
    globals: &'a mut Globals,
    frames: Vec<Frame<'a>>,
    /// Nesting of function bodies: inside one, unsupported constructs fail only when run.
    in_function: usize,
    /// `from __future__ import annotations`: annotations stay strings.
    future_annotations: bool,
    /// The line of the statement being compiled.
    line: u32,
    /// Loops enclosing the statement being compiled, in its own scope.
    loops: usize,
}

/// Compiles a cell's module; its top-level code runs with globals as its variables.
pub(crate) fn compile_module(module: &ir::Module, globals: &mut Globals) -> Result<Rc<Code>> {
    let scopes = Scopes::analyze(module).map_err(|e| CompileError::Syntax {
        message: e.message,
        line: e.line,
    })?;
    let mut c = Compiler {
        scopes: &scopes,
        globals,
        frames: Vec::new(),
        in_function: 0,
        future_annotations: false,
        line: 1,
        loops: 0,
    };
    c.frames.push(Frame {
        scope: scopes.module(),
        locals: HashMap::new(),
        cells: HashMap::new(),
        prefix: String::new(),
        qualname: "<module>".into(),
        first_param: None,
        generator: false,
    });
    let body = c.block(&module.body)?;
    Ok(Rc::new(Code {
        kind: CodeKind::Module,
        name: "<module>".into(),
        qualname: "<module>".into(),
        params: Params::default(),
        nlocals: 0,
        ncells: 0,
        free_sources: Vec::new(),
        free_names: Vec::new(),
        body: Body::Block(body),
        line: 1,
        text: "".into(),
        is_generator: false,
        local_names: Vec::new(),
    }))
}

type Result<T> = std::result::Result<T, CompileError>;

/// The name of each local slot, by slot number.
fn slot_names(locals: &HashMap<String, u32>) -> Vec<Rc<str>> {
    let mut names: Vec<Rc<str>> = vec![Rc::from(""); locals.len()];
    for (name, &i) in locals {
        if let Some(slot) = names.get_mut(i as usize) {
            *slot = Rc::from(name.as_str());
        }
    }
    names
}

fn internal(what: &str, line: u32) -> CompileError {
    CompileError::Syntax {
        message: format!("internal compiler error: {what}"),
        line,
    }
}

impl<'a> Compiler<'a> {
    fn frame(&self) -> Result<&Frame<'a>> {
        self.frames
            .last()
            .ok_or_else(|| internal("no scope", self.line))
    }

    fn var(&mut self, name: &str) -> Result<Var> {
        let line = self.line;
        let frame = self.frame()?;
        Ok(match frame.scope.binding(name) {
            Binding::Local => {
                Var::Local(*frame.locals.get(name).ok_or_else(|| internal(name, line))?)
            }
            Binding::Cell => Var::Cell(*frame.cells.get(name).ok_or_else(|| internal(name, line))?),
            Binding::Global => Var::Global(self.globals.intern(name)),
        })
    }

    /// A construct outside the subset: refused now at top level, at run time in a function.
    fn unsupported(&self, construct: impl Into<String>) -> Result<String> {
        let construct = construct.into();
        if self.in_function > 0 {
            Ok(construct)
        } else {
            Err(CompileError::Unsupported {
                construct,
                line: self.line,
            })
        }
    }

    fn syntax(&self, message: &str) -> CompileError {
        CompileError::Syntax {
            message: message.into(),
            line: self.line,
        }
    }

    fn loop_body(&mut self, stmts: &[ir::Stmt]) -> Result<Vec<Stmt>> {
        self.loops += 1;
        let body = self.block(stmts);
        self.loops -= 1;
        body
    }

    /// The qualified name of the code being compiled.
    fn function_name(&self) -> Rc<str> {
        self.frames
            .last()
            .map_or_else(|| "<module>".into(), |f| f.qualname.clone())
    }

    fn block(&mut self, stmts: &[ir::Stmt]) -> Result<Vec<Stmt>> {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, s: &ir::Stmt) -> Result<Stmt> {
        self.line = s.span.line;
        let kind = match surrogate_escape(&s.text) {
            // The parser turns a surrogate escape into U+FFFD; CPython keeps it in the str.
            Some(escape) => StmtKind::Unsupported(
                self.unsupported(format!("the lone surrogate {escape} in a str literal"))?,
            ),
            None => self.stmt_kind(s)?,
        };
        Ok(Stmt {
            line: s.span.line,
            text: s.text.as_str().into(),
            function: self.function_name(),
            kind,
        })
    }

    fn stmt_kind(&mut self, s: &ir::Stmt) -> Result<StmtKind> {
        Ok(match &s.kind {
            S::Expr(e) => StmtKind::Expr(self.expr(e)?),
            S::Assign { targets, value } => StmtKind::Assign {
                value: self.expr(value)?,
                targets: targets
                    .iter()
                    .map(|t| self.target(t))
                    .collect::<Result<_>>()?,
            },
            S::AugAssign { target, op, value } => StmtKind::AugAssign {
                target: self.target(target)?,
                op: *op,
                value: self.expr(value)?,
            },
            S::AnnAssign {
                target,
                value: Some(value),
                ..
            } => StmtKind::Assign {
                value: self.expr(value)?,
                targets: vec![self.target(target)?],
            },
            S::AnnAssign { value: None, .. } | S::Pass | S::Global(_) | S::Nonlocal(_) => {
                StmtKind::Pass
            }
            S::If { test, body, orelse } => StmtKind::If {
                test: self.expr(test)?,
                body: self.block(body)?,
                orelse: self.block(orelse)?,
            },
            S::While { test, body, orelse } => {
                let test = self.expr(test)?;
                let body = self.loop_body(body)?;
                StmtKind::While {
                    test,
                    body,
                    orelse: self.block(orelse)?,
                }
            }
            S::For {
                target,
                iter,
                body,
                orelse,
            } => {
                let iter = self.expr(iter)?;
                let target = self.target(target)?;
                let body = self.loop_body(body)?;
                StmtKind::For {
                    iter,
                    target,
                    body,
                    orelse: self.block(orelse)?,
                }
            }
            S::Break if self.loops == 0 => return Err(self.syntax("'break' outside loop")),
            S::Continue if self.loops == 0 => {
                return Err(self.syntax("'continue' not properly in loop"));
            }
            S::Return(_) if self.in_function == 0 => {
                return Err(self.syntax("'return' outside function"));
            }
            S::Break => StmtKind::Break,
            S::Continue => StmtKind::Continue,
            S::Return(v) => StmtKind::Return(v.as_ref().map(|e| self.expr(e)).transpose()?),
            S::Raise { exc, cause } => StmtKind::Raise {
                exc: exc.as_ref().map(|e| self.expr(e)).transpose()?,
                cause: cause.as_ref().map(|e| self.expr(e)).transpose()?,
            },
            S::Assert { test, msg } => StmtKind::Assert {
                test: self.expr(test)?,
                msg: msg.as_ref().map(|e| self.expr(e)).transpose()?,
            },
            S::Try { is_star: true, .. } => StmtKind::Unsupported(self.unsupported("`except*`")?),
            S::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                let body = self.block(body)?;
                let mut hs = Vec::new();
                for h in handlers {
                    self.line = h.span.line;
                    let class = h.type_.as_ref().map(|e| self.expr(e)).transpose()?;
                    let name = h.name.as_ref().map(|n| self.var(n)).transpose()?;
                    hs.push(Handler {
                        line: h.span.line,
                        text: h.text.as_str().into(),
                        function: self.function_name(),
                        class,
                        name,
                        body: self.block(&h.body)?,
                    });
                }
                StmtKind::Try {
                    body,
                    handlers: hs,
                    orelse: self.block(orelse)?,
                    finalbody: self.block(finalbody)?,
                }
            }
            S::With { items, body } => {
                let mut its = Vec::new();
                for (e, t) in items {
                    let e = self.expr(e)?;
                    let t = t.as_ref().map(|t| self.target(t)).transpose()?;
                    its.push((e, t));
                }
                StmtKind::With(Box::new(With {
                    items: its,
                    body: self.block(body)?,
                }))
            }
            S::Match { subject, cases } => {
                let subject = self.expr(subject)?;
                let mut out = Vec::new();
                for (i, c) in cases.iter().enumerate() {
                    self.line = c.span.line;
                    if i + 1 < cases.len() && c.guard.is_none() {
                        if let Some(message) = irrefutable(&c.pattern) {
                            return Err(self.syntax(&message));
                        }
                    }
                    out.push(Case {
                        line: c.span.line,
                        text: c.text.as_str().into(),
                        function: self.function_name(),
                        pattern: self.pattern(&c.pattern)?,
                        guard: c.guard.as_ref().map(|g| self.expr(g)).transpose()?,
                        body: self.block(&c.body)?,
                    });
                }
                StmtKind::Match {
                    subject,
                    cases: out,
                }
            }
            S::FunctionDef(f) => StmtKind::Def(Box::new(self.def(f, &s.text)?)),
            S::ClassDef { .. } => StmtKind::Class(Box::new(self.class_def(s)?)),
            S::Import(aliases) => self.import(aliases)?,
            S::ImportFrom {
                module,
                names,
                level,
            } => self.import_from(module.as_deref(), names, *level)?,
            S::Delete(targets) => StmtKind::Delete(
                targets
                    .iter()
                    .map(|t| self.target(t))
                    .collect::<Result<_>>()?,
            ),
            S::Unsupported {
                construct: "async def",
            } => match async_def_name(&s.text) {
                Some(name) => {
                    let value = Value::Unavailable(format!("the async function {name}").into());
                    StmtKind::Bind(vec![(self.var(name)?, value)])
                }
                None => StmtKind::Unsupported(self.unsupported("async def")?),
            },
            S::Unsupported { construct } => StmtKind::Unsupported(self.unsupported(*construct)?),
        })
    }

    /// `import m`: the modules the interpreter provides, others bound as unavailable (using
    /// them stops the run; defining functions next to the import still works).
    fn import(&mut self, aliases: &[ir::Alias]) -> Result<StmtKind> {
        let mut binds = Vec::new();
        for a in aliases {
            let first = a.name.split('.').next().unwrap_or(&a.name);
            let bound = a.asname.as_deref().unwrap_or(first);
            let value = match modules::module(&a.name) {
                Some(m) => Value::Native(m),
                None if super::source_module::find(&a.name).is_some() => {
                    match super::source_module::find(&a.name)
                        .and_then(|sm| self.globals.lookup(sm.global))
                    {
                        Some(v) => v.clone(),
                        None => return Ok(import_error(&a.name)),
                    }
                }
                None => return Ok(import_error(&a.name)),
            };
            binds.push((self.var(bound)?, value));
        }
        Ok(StmtKind::Bind(binds))
    }

    fn import_from(
        &mut self,
        module: Option<&str>,
        names: &[ir::Alias],
        level: u32,
    ) -> Result<StmtKind> {
        let name = module.unwrap_or("");
        if level == 0 && name == "__future__" {
            if names.iter().any(|a| a.name == "annotations") {
                self.future_annotations = true;
            }
            return Ok(StmtKind::Pass);
        }
        let m = modules::module(name).filter(|_| level == 0);
        if let Some(sm) = super::source_module::find(name).filter(|_| m.is_none() && level == 0) {
            return self.import_source_module(sm, names);
        }
        if m.is_none() {
            return Ok(import_error(if level > 0 { "." } else { name }));
        }
        let mut binds = Vec::new();
        for a in names {
            if a.name == "*" {
                return Ok(StmtKind::Unsupported(
                    self.unsupported(format!("`from {name} import *`"))?,
                ));
            }
            let extra = || {
                let sm = super::source_module::find(name)?;
                match self.globals.lookup(sm.global) {
                    Some(Value::Instance(i)) => i.get(&a.name),
                    _ => None,
                }
            };
            let value = match m
                .and_then(|m| modules::import_name(m, &a.name))
                .or_else(extra)
            {
                Some(v) => v,
                None => match m.and_then(|m| modules::unmodelled(m, &a.name)) {
                    Some(v) => v,
                    None => {
                        return Ok(StmtKind::ImportError(
                            ExcKind::ImportError,
                            format!(
                                "cannot import name '{}' from '{name}' (unknown location)",
                                a.name
                            ),
                        ));
                    }
                },
            };
            binds.push((self.var(a.asname.as_deref().unwrap_or(&a.name))?, value));
        }
        Ok(StmtKind::Bind(binds))
    }

    /// `from analysis import …`: the names of the module object the module's source bound
    /// (`source_module::load_imported` runs it before the cell is compiled).
    fn import_source_module(
        &mut self,
        sm: &super::source_module::SourceModule,
        names: &[ir::Alias],
    ) -> Result<StmtKind> {
        let module = match self.globals.lookup(sm.global) {
            Some(Value::Instance(i)) => i.clone(),
            _ => return Ok(import_error(sm.name)),
        };
        let mut binds = Vec::new();
        for a in names {
            let Some(value) = module.get(&a.name) else {
                return Ok(StmtKind::ImportError(
                    ExcKind::ImportError,
                    format!(
                        "cannot import name '{}' from '{}' (built-in)",
                        a.name, sm.name
                    ),
                ));
            };
            binds.push((self.var(a.asname.as_deref().unwrap_or(&a.name))?, value));
        }
        Ok(StmtKind::Bind(binds))
    }

    fn target(&mut self, t: &ir::Expr) -> Result<Target> {
        Ok(match &t.kind {
            ExprKind::Name(n) => Target::Var(self.var(n)?, n.as_str().into()),
            ExprKind::Tuple(es) | ExprKind::List(es) => {
                let star = es
                    .iter()
                    .position(|e| matches!(e.kind, ExprKind::Starred(_)));
                let items = es
                    .iter()
                    .map(|e| match &e.kind {
                        ExprKind::Starred(inner) => self.target(inner),
                        _ => self.target(e),
                    })
                    .collect::<Result<_>>()?;
                Target::Unpack { items, star }
            }
            ExprKind::Subscript { value, index } => match &index.kind {
                ExprKind::Slice { lower, upper, step } => Target::Slice {
                    obj: self.expr(value)?,
                    lower: self.opt(lower)?,
                    upper: self.opt(upper)?,
                    step: self.opt(step)?,
                },
                _ => Target::Item {
                    obj: self.expr(value)?,
                    index: self.expr(index)?,
                },
            },
            ExprKind::Attribute { value, attr } => Target::Attr {
                obj: self.expr(value)?,
                name: super::names::intern(attr),
            },
            ExprKind::Starred(inner) => self.target(inner)?,
            _ => {
                return Err(CompileError::Syntax {
                    message: "cannot assign to expression".into(),
                    line: self.line,
                });
            }
        })
    }

    fn opt(&mut self, e: &Option<Box<ir::Expr>>) -> Result<Option<Expr>> {
        e.as_deref().map(|e| self.expr(e)).transpose()
    }

    fn boxed(&mut self, e: &ir::Expr) -> Result<Box<Expr>> {
        Ok(Box::new(self.expr(e)?))
    }

    fn exprs(&mut self, es: &[ir::Expr]) -> Result<Vec<Arg>> {
        es.iter()
            .map(|e| match &e.kind {
                ExprKind::Starred(inner) => Ok(Arg::Star(self.expr(inner)?)),
                _ => Ok(Arg::One(self.expr(e)?)),
            })
            .collect()
    }

    fn kwargs(&mut self, keywords: &[(Option<String>, ir::Expr)]) -> Result<Vec<Kwarg>> {
        keywords
            .iter()
            .map(|(name, e)| {
                Ok(match name {
                    Some(n) => Kwarg::Named(n.as_str().into(), self.expr(e)?),
                    None => Kwarg::Splat(self.expr(e)?),
                })
            })
            .collect()
    }

    fn expr(&mut self, e: &ir::Expr) -> Result<Expr> {
        Ok(match &e.kind {
            ExprKind::Name(n) => Expr::Load(self.var(n)?, n.as_str().into()),
            ExprKind::Constant(c) => match c {
                Constant::Int(i) => Expr::Const(Value::big(i.clone())),
                Constant::Float(f) => Expr::Const(Value::Float(*f)),
                Constant::Str(s) => Expr::Const(Value::str(s.clone())),
                Constant::Bool(b) => Expr::Const(Value::Bool(*b)),
                Constant::None => Expr::Const(Value::None),
                Constant::Ellipsis => Expr::Const(Value::Ellipsis),
                Constant::Bytes(b) => Expr::Const(super::bytes::new(b.clone())),
            },
            ExprKind::BinOp { op, left, right } => {
                Expr::Binary(*op, self.boxed(left)?, self.boxed(right)?)
            }
            ExprKind::UnaryOp { op, operand } => Expr::Unary(*op, self.boxed(operand)?),
            ExprKind::BoolOp { op, values } => {
                let vs = values.iter().map(|v| self.expr(v)).collect::<Result<_>>()?;
                match op {
                    ir::BoolOp::And => Expr::And(vs),
                    ir::BoolOp::Or => Expr::Or(vs),
                }
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let left = self.boxed(left)?;
                let rest = ops
                    .iter()
                    .zip(comparators)
                    .map(|(op, c)| Ok((*op, self.expr(c)?)))
                    .collect::<Result<_>>()?;
                Expr::Compare(left, rest)
            }
            ExprKind::IfExp { test, body, orelse } => Expr::IfExp(Box::new([
                self.expr(test)?,
                self.expr(body)?,
                self.expr(orelse)?,
            ])),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                let mut args_c = self.exprs(args)?;
                if args.is_empty() && keywords.is_empty() {
                    if let ExprKind::Name(n) = &func.kind {
                        if n == "super" {
                            args_c = self.zero_arg_super()?;
                        }
                    }
                }
                let kwargs = self.kwargs(keywords)?;
                match &func.kind {
                    ExprKind::Attribute { value, attr } => Expr::CallMethod {
                        obj: self.boxed(value)?,
                        name: super::names::intern(attr),
                        args: args_c,
                        kwargs,
                    },
                    _ => {
                        let plain =
                            kwargs.is_empty() && args_c.iter().all(|a| matches!(a, Arg::One(_)));
                        Expr::Call {
                            func: self.boxed(func)?,
                            args: args_c,
                            kwargs,
                            plain,
                        }
                    }
                }
            }
            ExprKind::Attribute { value, attr } => {
                Expr::Attr(self.boxed(value)?, super::names::intern(attr))
            }
            ExprKind::Subscript { value, index } => match &index.kind {
                ExprKind::Slice { lower, upper, step } => Expr::Slice {
                    obj: self.boxed(value)?,
                    lower: self.opt(lower)?.map(Box::new),
                    upper: self.opt(upper)?.map(Box::new),
                    step: self.opt(step)?.map(Box::new),
                },
                _ => Expr::Item(self.boxed(value)?, self.boxed(index)?),
            },
            ExprKind::Slice { .. } => {
                Expr::Unsupported(self.unsupported("a slice outside a subscript")?)
            }
            ExprKind::Tuple(es) => Expr::Tuple(self.exprs(es)?),
            ExprKind::List(es) => Expr::List(self.exprs(es)?),
            ExprKind::Set(es) => {
                let items = self.exprs(es)?;
                // CPython folds a display of three or more constants into a frozenset
                // constant that is merged into the new set (which can change the order).
                let folded =
                    items.len() > 2 && items.iter().all(|a| matches!(a, Arg::One(e) if folds(e)));
                Expr::Set { items, folded }
            }
            ExprKind::Dict { keys, values } => {
                let mut items = Vec::new();
                for (k, v) in keys.iter().zip(values) {
                    items.push(match k {
                        Some(k) => DictItem::Pair(self.expr(k)?, self.expr(v)?),
                        None => DictItem::Splat(self.expr(v)?),
                    });
                }
                Expr::Dict(items)
            }
            ExprKind::Lambda { params, body } => {
                let text = format!("{e}");
                let def = self.function(FunctionSource {
                    key: node_key(e),
                    name: "<lambda>",
                    params,
                    body: BodySource::Expr(body),
                    line: e.span.line,
                    text,
                    decorators: &[],
                    target: None,
                })?;
                Expr::Lambda(Box::new(def))
            }
            ExprKind::Comprehension {
                kind,
                elt,
                value,
                generators,
            } => self.comprehension(e, *kind, elt, value, generators)?,
            ExprKind::FString(parts) => Expr::FString(self.fparts(parts)?),
            ExprKind::Starred(_) => {
                Expr::Unsupported(self.unsupported("a starred expression here")?)
            }
            ExprKind::NamedExpr { target, value } => {
                Expr::Walrus(self.var(target)?, self.boxed(value)?)
            }
            ExprKind::Unsupported {
                construct: construct @ ("yield" | "yield from"),
                operand,
                ..
            } => self.yield_expr(construct, operand.as_deref())?,
            ExprKind::Unsupported { construct, .. } => {
                Expr::Unsupported(self.unsupported(*construct)?)
            }
        })
    }

    fn fparts(&mut self, parts: &[ir::FStringPart]) -> Result<Vec<FPart>> {
        parts
            .iter()
            .map(|p| {
                Ok(match p {
                    ir::FStringPart::Literal(s) => FPart::Literal(s.as_str().into()),
                    ir::FStringPart::Expr {
                        expr,
                        conversion,
                        format_spec,
                    } => FPart::Field {
                        expr: self.expr(expr)?,
                        conversion: *conversion,
                        spec: format_spec.as_ref().map(|s| self.fparts(s)).transpose()?,
                    },
                })
            })
            .collect()
    }

    fn def(&mut self, f: &ir::Function, header: &str) -> Result<Def> {
        let target = Some(self.var(&f.name)?);
        self.function(FunctionSource {
            key: node_key(f),
            name: &f.name,
            params: &f.params,
            body: BodySource::Block(&f.body),
            line: f.span.line,
            text: header.to_string(),
            decorators: &f.decorators,
            target,
        })
    }

    /// A function or lambda: defaults and decorators compiled here, the body in its own scope.
    fn function(&mut self, src: FunctionSource<'_>) -> Result<Def> {
        let decorators = src
            .decorators
            .iter()
            .map(|d| self.expr(d))
            .collect::<Result<_>>()?;
        let mut defaults = Vec::new();
        let mut kwdefaults = Vec::new();
        for p in src.params {
            match p.kind {
                ParamKind::PositionalOnly | ParamKind::Positional => {
                    if let Some(d) = &p.default {
                        defaults.push(self.expr(d)?);
                    }
                }
                ParamKind::KeywordOnly => {
                    kwdefaults.push(p.default.as_ref().map(|d| self.expr(d)).transpose()?)
                }
                ParamKind::VarArgs | ParamKind::KwArgs => {}
            }
        }
        let scope = self
            .scopes
            .get(src.key)
            .ok_or_else(|| internal("missing function scope", self.line))?;
        let qualname = format!("{}{}", self.frame()?.prefix, src.name);
        let free_sources = self.free_sources(scope)?;
        let loops = std::mem::take(&mut self.loops);
        self.enter(scope, &qualname);
        let result = self.function_body(&src);
        let frame = self.frames.pop();
        self.in_function -= 1;
        self.loops = loops;
        let (params, body) = result?;
        let frame = frame.ok_or_else(|| internal("scope stack", self.line))?;
        let code = Code {
            kind: if matches!(src.body, BodySource::Expr(_)) {
                CodeKind::Lambda
            } else {
                CodeKind::Function
            },
            name: src.name.into(),
            qualname: qualname.into(),
            params,
            nlocals: frame.locals.len(),
            ncells: scope.cells.len(),
            free_sources,
            free_names: scope.frees.iter().map(|n| n.as_str().into()).collect(),
            body,
            line: src.line,
            text: src.text.into(),
            is_generator: frame.generator,
            local_names: slot_names(&frame.locals),
        };
        Ok(Def {
            code: Rc::new(code),
            decorators,
            defaults,
            kwdefaults,
            target: src.target,
        })
    }

    fn function_body(&mut self, src: &FunctionSource<'_>) -> Result<(Params, Body)> {
        let mut params = Params::default();
        let mut kwonly = Vec::new();
        for p in src.params {
            let slot = self.var(&p.name)?;
            match p.kind {
                ParamKind::PositionalOnly => {
                    params.n_posonly += 1;
                    params.names.push(p.name.as_str().into());
                    params.slots.push(slot);
                }
                ParamKind::Positional => {
                    params.names.push(p.name.as_str().into());
                    params.slots.push(slot);
                }
                ParamKind::KeywordOnly => kwonly.push((p.name.as_str().into(), slot)),
                ParamKind::VarArgs => params.varargs = Some(slot),
                ParamKind::KwArgs => params.kwargs = Some(slot),
            }
        }
        params.n_positional = params.names.len();
        if let (Some(first), Some(frame)) = (params.names.first(), self.frames.last_mut()) {
            frame.first_param = Some(first.to_string());
        }
        params.direct = kwonly.is_empty()
            && params.varargs.is_none()
            && params.kwargs.is_none()
            && params
                .slots
                .iter()
                .enumerate()
                .all(|(i, s)| *s == Var::Local(i as u32));
        for (name, slot) in kwonly {
            params.names.push(name);
            params.slots.push(slot);
        }
        let body = match src.body {
            BodySource::Block(stmts) => Body::Block(self.block(stmts)?),
            BodySource::Expr(e) => Body::Expr(self.expr(e)?),
        };
        Ok((params, body))
    }

    fn free_sources(&self, scope: &Scope) -> Result<Vec<u32>> {
        let frame = self.frame()?;
        scope
            .frees
            .iter()
            .map(|n| {
                frame
                    .cells
                    .get(n)
                    .copied()
                    .ok_or_else(|| internal(&format!("free variable {n}"), self.line))
            })
            .collect()
    }

    /// Opens the scope of a function or comprehension body.
    fn enter(&mut self, scope: &'a Scope, qualname: &str) {
        let locals = scope
            .slot_locals()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        let cells = scope
            .cell_names()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        self.frames.push(Frame {
            scope,
            locals,
            cells,
            prefix: format!("{qualname}.<locals>."),
            qualname: qualname.into(),
            first_param: None,
            generator: false,
        });
        self.in_function += 1;
    }

    fn comprehension(
        &mut self,
        e: &ir::Expr,
        kind: ComprehensionKind,
        elt: &ir::Expr,
        value: &Option<Box<ir::Expr>>,
        generators: &[ir::Generator],
    ) -> Result<Expr> {
        let name = match kind {
            ComprehensionKind::List => "<listcomp>",
            ComprehensionKind::Dict => "<dictcomp>",
            ComprehensionKind::Generator => "<genexpr>",
            ComprehensionKind::Set => "<setcomp>",
        };
        let Some(first) = generators.first() else {
            return Err(internal("comprehension without a loop", self.line));
        };
        let first = self.boxed(&first.iter)?;
        let scope = self
            .scopes
            .get(node_key(e))
            .ok_or_else(|| internal("missing comprehension scope", self.line))?;
        let qualname = format!("{}{}", self.frame()?.prefix, name);
        let free_sources = self.free_sources(scope)?;
        self.enter(scope, &qualname);
        let body = self.comprehension_body(elt, value, generators);
        let frame = self.frames.pop();
        self.in_function -= 1;
        let body = body?;
        let frame = frame.ok_or_else(|| internal("scope stack", self.line))?;
        let code = Code {
            kind: CodeKind::Comprehension(kind),
            name: name.into(),
            qualname: qualname.into(),
            params: Params::default(),
            nlocals: frame.locals.len(),
            ncells: scope.cells.len(),
            free_sources,
            free_names: scope.frees.iter().map(|n| n.as_str().into()).collect(),
            body: Body::Comprehension(body),
            line: e.span.line,
            text: format!("{e}").into(),
            is_generator: false,
            local_names: slot_names(&frame.locals),
        };
        Ok(Expr::Comprehension {
            code: Rc::new(code),
            first,
        })
    }

    fn comprehension_body(
        &mut self,
        elt: &ir::Expr,
        value: &Option<Box<ir::Expr>>,
        generators: &[ir::Generator],
    ) -> Result<Comprehension> {
        let mut gens = Vec::new();
        for (i, g) in generators.iter().enumerate() {
            let iter = if i == 0 {
                None
            } else {
                Some(self.expr(&g.iter)?)
            };
            gens.push(CompFor {
                target: self.target(&g.target)?,
                iter,
                ifs: g.ifs.iter().map(|c| self.expr(c)).collect::<Result<_>>()?,
            });
        }
        Ok(Comprehension {
            generators: gens,
            elt: self.expr(elt)?,
            value: self.opt(value)?,
        })
    }
}

/// What a function is made from.
struct FunctionSource<'f> {
    key: usize,
    name: &'f str,
    params: &'f [ir::Param],
    body: BodySource<'f>,
    line: u32,
    text: String,
    decorators: &'f [ir::Expr],
    target: Option<Var>,
}

enum BodySource<'f> {
    Block(&'f [ir::Stmt]),
    Expr(&'f ir::Expr),
}

/// The name of `async def name(...):`.
fn async_def_name(header: &str) -> Option<&str> {
    let rest = header
        .trim_start()
        .strip_prefix("async")?
        .trim_start()
        .strip_prefix("def")?;
    let name = rest
        .trim_start()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()?;
    (!name.is_empty()).then_some(name)
}

/// `import name` of a module the interpreter does not provide: an `ImportError` when run
/// (modules named before it in the same statement are not bound, unlike CPython).
fn import_error(name: &str) -> StmtKind {
    let (kind, message) = if name == "." {
        (
            ExcKind::ImportError,
            "attempted relative import with no known parent package".to_string(),
        )
    } else {
        super::stdlib::import_error(name)
    };
    StmtKind::ImportError(kind, message)
}

/// Class statements: the body compiled as a function without parameters whose locals
/// become the namespace; `super()` in methods reads the `__class__` cell.
impl Compiler<'_> {
    fn class_def(&mut self, s: &ir::Stmt) -> Result<super::code::ClassDef> {
        let S::ClassDef {
            name,
            bases,
            keywords,
            decorators,
            body,
            ..
        } = &s.kind
        else {
            return Err(internal("not a class", self.line));
        };
        let decorators = decorators
            .iter()
            .map(|d| self.expr(d))
            .collect::<Result<_>>()?;
        let bases_c = self.exprs(bases)?;
        let keywords_c = self.kwargs(keywords)?;
        let target = self.var(name)?;
        let scope = self
            .scopes
            .get(node_key(s))
            .ok_or_else(|| internal("missing class scope", self.line))?;
        let qualname = format!("{}{}", self.frame()?.prefix, name);
        let free_sources = self.free_sources(scope)?;
        let loops = std::mem::take(&mut self.loops);
        let in_function = self.in_function;
        self.enter(scope, &qualname);
        self.in_function = in_function;
        if let Some(f) = self.frames.last_mut() {
            f.prefix = format!("{qualname}.");
        }
        let compiled = self.block(body);
        let field_types = self.field_types(body);
        let frame = self.frames.pop();
        self.loops = loops;
        let body_c = compiled?;
        let field_types = field_types?;
        let frame = frame.ok_or_else(|| internal("scope stack", self.line))?;
        let mut names: Vec<(Rc<str>, u32)> = scope
            .slot_locals()
            .filter_map(|n| frame.locals.get(n).map(|&i| (n.as_str().into(), i)))
            .collect();
        names.sort_by_key(|(_, i)| *i);
        let class_cell = frame.cells.get("__class__").copied();
        let field_decls = super::dataclass_fns::field_decls(body);
        let trivial = body.iter().all(|st| match &st.kind {
            S::Pass => true,
            S::Expr(e) => matches!(
                e.kind,
                ExprKind::Constant(Constant::Str(_) | Constant::Ellipsis)
            ),
            _ => false,
        });
        let code = Code {
            kind: CodeKind::Function,
            name: name.as_str().into(),
            qualname: qualname.as_str().into(),
            params: Params::default(),
            nlocals: frame.locals.len(),
            ncells: scope.cells.len(),
            free_sources,
            free_names: scope.frees.iter().map(|n| n.as_str().into()).collect(),
            body: Body::Block(body_c),
            line: s.span.line,
            text: s.text.as_str().into(),
            is_generator: false,
            local_names: slot_names(&frame.locals),
        };
        Ok(super::code::ClassDef {
            name: name.as_str().into(),
            code: Rc::new(code),
            bases: bases_c,
            keywords: keywords_c,
            decorators,
            names,
            fields: field_decls.fields,
            field_marks: field_decls.marks,
            field_types,
            class_cell,
            trivial,
            target,
        })
    }

    /// The annotation of each field of a class body (in the class's scope), for
    /// `dataclasses.Field.type`.
    fn field_types(
        &mut self,
        body: &[ir::Stmt],
    ) -> Result<Vec<(Rc<str>, super::dataclass_fns::FieldType)>> {
        use super::dataclass_fns::{FieldType, annotation_root};
        let fields = super::dataclass_fns::field_decls(body).fields;
        let mut out: Vec<(Rc<str>, FieldType)> = Vec::new();
        for (n, annotation) in super::dataclass_fns::annotated_names(body) {
            if !fields.iter().any(|f| **f == *n) {
                continue;
            }
            // `ast.unparse` of the annotation: its text in messages, and its value under
            // `from __future__ import annotations`.
            let text: Rc<str> = annotation.to_string().into();
            let class_local = annotation_root(annotation).is_some_and(|r| {
                self.frame()
                    .is_ok_and(|f| f.scope.binding(r) == Binding::Local)
            });
            let t = match &annotation.kind {
                _ if self.future_annotations => FieldType::Const(Value::str(&*text)),
                ExprKind::Constant(Constant::Str(s)) => FieldType::Const(Value::str(s.as_str())),
                ExprKind::Constant(Constant::None) => FieldType::Const(Value::None),
                _ if annotation_root(annotation).is_some() && !class_local => {
                    FieldType::Eval(self.expr(annotation)?, text)
                }
                _ => FieldType::Refused(text),
            };
            out.retain(|(f, _)| **f != *n);
            out.push((n.into(), t));
        }
        Ok(out)
    }

    /// `super()` in a method: `super(__class__, <first parameter>)`.
    fn zero_arg_super(&mut self) -> Result<Vec<Arg>> {
        let Some(first) = self.frame()?.first_param.clone() else {
            return Ok(Vec::new());
        };
        let has_class = self.frame()?.cells.contains_key("__class__");
        if !has_class {
            return Ok(Vec::new());
        }
        Ok(vec![
            Arg::One(Expr::Load(self.var("__class__")?, "__class__".into())),
            Arg::One(Expr::Load(self.var(&first)?, first.as_str().into())),
        ])
    }
}

/// Whether CPython's AST optimizer makes `e` a constant (literals, signed numbers and
/// tuples of them), for the folding of set displays.
fn folds(e: &Expr) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Unary(ir::UnaryOp::USub | ir::UnaryOp::UAdd | ir::UnaryOp::Invert, x) => {
            matches!(
                &**x,
                Expr::Const(Value::Int(_) | Value::Big(_) | Value::Float(_))
            )
        }
        Expr::Tuple(items) => items.iter().all(|a| matches!(a, Arg::One(e) if folds(e))),
        _ => false,
    }
}

/// CPython's complaint about an irrefutable pattern that is not the last case.
fn irrefutable(p: &ir::Pattern) -> Option<String> {
    match p {
        ir::Pattern::Wildcard => Some("wildcard makes remaining patterns unreachable".into()),
        ir::Pattern::Capture(n) => Some(format!(
            "name capture '{n}' makes remaining patterns unreachable"
        )),
        ir::Pattern::As { pattern, .. } => irrefutable(pattern),
        ir::Pattern::Or(ps) => ps.iter().find_map(irrefutable),
        _ => None,
    }
}

impl Compiler<'_> {
    fn pattern(&mut self, p: &ir::Pattern) -> Result<Pat> {
        Ok(match p {
            ir::Pattern::Value(e) => Pat::Value(self.expr(e)?),
            ir::Pattern::Singleton(c) => Pat::Singleton(match c {
                Constant::Bool(b) => Value::Bool(*b),
                _ => Value::None,
            }),
            ir::Pattern::Capture(n) => Pat::Capture(self.var(n)?),
            ir::Pattern::Wildcard => Pat::Wildcard,
            ir::Pattern::Star(_) => {
                return Err(self.syntax("can't use starred name here"));
            }
            ir::Pattern::Sequence(ps) => {
                let mut items = Vec::new();
                let mut star = None;
                for (i, q) in ps.iter().enumerate() {
                    if let ir::Pattern::Star(name) = q {
                        if star.is_some() {
                            return Err(self.syntax("multiple starred names in sequence pattern"));
                        }
                        let var = name.as_ref().map(|n| self.var(n)).transpose()?;
                        star = Some((i, var));
                        items.push(Pat::Wildcard);
                    } else {
                        items.push(self.pattern(q)?);
                    }
                }
                Pat::Sequence { items, star }
            }
            ir::Pattern::Mapping {
                keys,
                patterns,
                rest,
            } => Pat::Mapping {
                keys: keys.iter().map(|k| self.expr(k)).collect::<Result<_>>()?,
                patterns: patterns
                    .iter()
                    .map(|q| self.pattern(q))
                    .collect::<Result<_>>()?,
                rest: rest.as_ref().map(|n| self.var(n)).transpose()?,
            },
            ir::Pattern::Class {
                cls,
                patterns,
                keywords,
            } => Pat::Class {
                cls: self.expr(cls)?,
                patterns: patterns
                    .iter()
                    .map(|q| self.pattern(q))
                    .collect::<Result<_>>()?,
                keywords: keywords
                    .iter()
                    .map(|(n, q)| Ok((n.as_str().into(), self.pattern(q)?)))
                    .collect::<Result<_>>()?,
            },
            ir::Pattern::Or(ps) => {
                let names = ps.first().map(|q| {
                    let mut n = q.bound_names();
                    n.sort();
                    n
                });
                for q in ps {
                    let mut n = q.bound_names();
                    n.sort();
                    if Some(&n) != names.as_ref() {
                        return Err(self.syntax("alternative patterns bind different names"));
                    }
                }
                for q in ps.iter().take(ps.len().saturating_sub(1)) {
                    if let Some(message) = irrefutable(q) {
                        return Err(self.syntax(&message));
                    }
                }
                Pat::Or(ps.iter().map(|q| self.pattern(q)).collect::<Result<_>>()?)
            }
            ir::Pattern::As { pattern, name } => {
                Pat::As(Box::new(self.pattern(pattern)?), self.var(name)?)
            }
        })
    }
}

impl Compiler<'_> {
    /// `yield` / `yield from`: makes the enclosing function a generator.
    fn yield_expr(&mut self, construct: &str, operand: Option<&ir::Expr>) -> Result<Expr> {
        let in_def = self.in_function > 0
            && self
                .frames
                .last()
                .is_some_and(|f| f.scope.kind == super::scope::ScopeKind::Function);
        if !in_def {
            let what = if self.in_function > 0 {
                format!("'{construct}' inside a comprehension or at module level")
            } else {
                format!("'{construct}' outside function")
            };
            return Err(self.syntax(&what));
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.generator = true;
        }
        let operand = operand.map(|e| self.boxed(e)).transpose()?;
        Ok(match (construct, operand) {
            ("yield from", Some(e)) => Expr::YieldFrom(e),
            (_, operand) => Expr::Yield(operand),
        })
    }
}
