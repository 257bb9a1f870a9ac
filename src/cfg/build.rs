//! Building the statement-level CFG of a function, or of a module's top-level code, from the IR.
//!
//! Nodes are made first, in source order (entry, then every statement, `except` clause and
//! `case` with the `finally` join after its body, then exit), so node ids are stable for the
//! same source. Edges are then added by walking the code with a frontier: the dangling edges
//! (source node and label) waiting for the next statement.
//!
//! A `finally` body exists once: every way into it (normal, `return`, `break`, `continue`,
//! exception) enters its first statement, and its join node has one edge per pending way out,
//! labelled `return`, `break`, `continue` or `exception`. Implicit exceptions (calls,
//! operators; see `exceptions`) get edges only inside a `try` (everywhere with
//! [`Options::all_exceptions`]); `raise` and `assert` always do.

use std::collections::HashMap;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::python::ir::{
    Constant, ExceptHandler, Expr, ExprKind, Function, MatchCase, Module, ParamKind, Pattern, Stmt,
    StmtId, StmtKind,
};

use super::calls::{case_calls, stmt_calls};
use super::exceptions::{
    Catch, Raises, catches, catches_any, caught_by, expr_raises, handler_classes, is_computed,
    raised_by,
};
use super::graph::{Cfg, Edge, Granularity, Node, NodeKind, NodeStmt, Role};

/// Control flow Python itself rejects.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CfgError {
    #[error("'{keyword}' outside loop (line {line})")]
    OutsideLoop { keyword: &'static str, line: u32 },
    #[error("'return' outside function (line {line})")]
    ReturnOutsideFunction { line: u32 },
}

impl CfgError {
    pub fn line(&self) -> u32 {
        match self {
            CfgError::OutsideLoop { line, .. } | CfgError::ReturnOutsideFunction { line } => *line,
        }
    }
}

/// How much to draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Exception edges for implicit exceptions (calls, operators, subscripts) outside `try`
    /// too, to the exit. Off by default: only `raise` and `assert` have them there.
    pub all_exceptions: bool,
}

/// A dangling edge: its source and label, waiting for a target.
type Pending = (NodeIndex, Edge);

/// A jump that leaves statements in between (and may pass through `finally` bodies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Jump {
    Break,
    Continue,
    Return,
}

/// The ways into one `finally` body other than normal completion.
#[derive(Default)]
struct Finally {
    entries: Vec<Pending>,
    returns: bool,
    breaks: bool,
    continues: bool,
    exceptions: Option<Raises>,
}

/// What encloses the statement being built, innermost last.
enum Frame<'a> {
    Loop {
        head: NodeIndex,
        breaks: Vec<Pending>,
    },
    /// `active` while building the `try` body (its handlers apply); `finally` indexes
    /// `Builder::finals`.
    Try {
        handlers: &'a [ExceptHandler],
        active: bool,
        finally: Option<usize>,
    },
    /// Inside an `except` body: what a bare `raise` re-raises.
    Handler { caught: Raises },
}

struct Builder<'a> {
    graph: DiGraph<Node, Edge>,
    exit: NodeIndex,
    nodes: HashMap<StmtId, NodeIndex>,
    /// The join node after each `finally` body, by `try` statement.
    joins: HashMap<StmtId, NodeIndex>,
    frames: Vec<Frame<'a>>,
    finals: Vec<Finally>,
    in_function: bool,
    all_exceptions: bool,
}

/// The CFG of a function (a method, a nested function) over its body, docstring excluded.
pub fn function_cfg(f: &Function) -> Result<Cfg, CfgError> {
    function_cfg_with(f, Options::default())
}

/// [`function_cfg`] with options.
pub fn function_cfg_with(f: &Function, options: Options) -> Result<Cfg, CfgError> {
    let signature = signature(f);
    let lines = (f.span.line, f.span.end_line);
    let code = scope_code(&f.body);
    build(&f.qualname, &signature, code, lines, true, options)
}

/// The CFG of a module's (or a cell's) top-level code; class bodies run inline, function
/// bodies are `def` nodes (each has its own CFG).
pub fn module_cfg(m: &Module) -> Result<Cfg, CfgError> {
    module_cfg_with(m, Options::default())
}

/// [`module_cfg`] with options.
pub fn module_cfg_with(m: &Module, options: Options) -> Result<Cfg, CfgError> {
    let code = scope_code(&m.body);
    let first = code.first().map_or(1, |s| s.span.line);
    let last = code.last().map_or(first, |s| s.span.end_line);
    build("<module>", "<module>", code, (first, last), false, options)
}

/// A scope's statements without its docstring (a leading string literal statement), which
/// is documentation rather than code and gets no node.
pub fn scope_code(body: &[Stmt]) -> &[Stmt] {
    match body.split_first() {
        Some((first, rest)) if is_docstring(first) => rest,
        _ => body,
    }
}

fn is_docstring(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Constant(Constant::Str(_))))
}

/// `f(a, *args, **kw)`.
fn signature(f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match p.kind {
            ParamKind::VarArgs => format!("*{}", p.name),
            ParamKind::KwArgs => format!("**{}", p.name),
            _ => p.name.clone(),
        })
        .collect();
    format!("{}({})", f.qualname, params.join(", "))
}

fn build(
    name: &str,
    signature: &str,
    code: &[Stmt],
    lines: (u32, u32),
    in_function: bool,
    options: Options,
) -> Result<Cfg, CfgError> {
    let mut graph = DiGraph::new();
    let entry = graph.add_node(bare_node(
        NodeKind::Entry,
        format!("enter: {signature}"),
        (lines.0, lines.0),
    ));
    let mut b = Builder {
        graph,
        exit: entry,
        nodes: HashMap::new(),
        joins: HashMap::new(),
        frames: Vec::new(),
        finals: Vec::new(),
        in_function,
        all_exceptions: options.all_exceptions,
    };
    b.create_block(code);
    b.exit = b.graph.add_node(bare_node(
        NodeKind::Exit,
        format!("exit: {signature}"),
        (lines.1, lines.1),
    ));
    let end = b.block(code, vec![(entry, Edge::Normal)])?;
    b.connect(end, b.exit);
    let mut cfg = Cfg {
        name: name.to_string(),
        signature: signature.to_string(),
        granularity: Granularity::Statement,
        graph: b.graph,
        entry,
        exit: b.exit,
    };
    let reachable = cfg.reachable();
    for n in cfg.graph.node_indices() {
        cfg.graph[n].unreachable = !reachable[n.index()];
    }
    Ok(cfg)
}

fn bare_node(kind: NodeKind, label: String, lines: (u32, u32)) -> Node {
    Node {
        kind,
        stmts: Vec::new(),
        label,
        lines,
        unreachable: false,
        calls: Vec::new(),
    }
}

fn stmt_node(
    kind: NodeKind,
    id: StmtId,
    role: Role,
    span: crate::python::Span,
    text: &str,
    calls: Vec<String>,
) -> Node {
    let lines = (span.line, span.end_line);
    Node {
        kind,
        stmts: vec![NodeStmt {
            id,
            role,
            lines,
            text: text.to_string(),
        }],
        label: text.to_string(),
        lines,
        unreachable: false,
        calls,
    }
}

/// A literal whose truth value is True: `while True:` never takes its False edge.
fn is_truthy_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Constant(Constant::Bool(b)) => *b,
        ExprKind::Constant(Constant::Int(i)) => i.sign() != num_bigint::Sign::NoSign,
        ExprKind::Constant(Constant::Float(x)) => *x != 0.0,
        ExprKind::Constant(Constant::Str(s)) => !s.is_empty(),
        _ => false,
    }
}

/// A pattern that matches every subject: `_`, a capture, or an `or`/`as` of one.
fn irrefutable(p: &Pattern) -> bool {
    match p {
        Pattern::Wildcard | Pattern::Capture(_) => true,
        Pattern::As { pattern, .. } => irrefutable(pattern),
        Pattern::Or(ps) => ps.iter().any(irrefutable),
        _ => false,
    }
}

fn case_is_irrefutable(c: &MatchCase) -> bool {
    c.guard.is_none() && irrefutable(&c.pattern)
}

impl<'a> Builder<'a> {
    /// Adds the nodes of `stmts` and everything nested in them (function bodies excluded),
    /// in source order.
    fn create_block(&mut self, stmts: &'a [Stmt]) {
        for s in stmts {
            self.create(s);
        }
    }

    fn create(&mut self, s: &'a Stmt) {
        let (kind, role) = match &s.kind {
            StmtKind::If { .. } => (NodeKind::Condition, Role::Test),
            StmtKind::While { test, .. } if is_truthy_constant(test) => {
                (NodeKind::Statement, Role::Test)
            }
            StmtKind::While { .. } => (NodeKind::Condition, Role::Test),
            StmtKind::For { .. } => (NodeKind::Condition, Role::Iterate),
            _ => (NodeKind::Statement, Role::Simple),
        };
        let mut node = stmt_node(kind, s.id, role, s.header, &s.text, stmt_calls(s));
        if let StmtKind::Unsupported { construct } = &s.kind {
            node.label = format!("{}  [unsupported: {construct}]", s.text);
        }
        let n = self.graph.add_node(node);
        self.nodes.insert(s.id, n);
        match &s.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => {
                self.create_block(body);
                self.create_block(orelse);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                self.create_block(body);
                for h in handlers {
                    let hn = self.graph.add_node(stmt_node(
                        NodeKind::Handler,
                        h.id,
                        Role::Handler,
                        h.header,
                        &h.text,
                        Vec::new(),
                    ));
                    self.nodes.insert(h.id, hn);
                    self.create_block(&h.body);
                }
                self.create_block(orelse);
                self.create_block(finalbody);
                if let Some(last) = finalbody.last() {
                    let line = last.span.end_line;
                    let join = self.graph.add_node(bare_node(
                        NodeKind::Join,
                        "end finally".to_string(),
                        (line, line),
                    ));
                    self.joins.insert(s.id, join);
                }
            }
            StmtKind::With { body, .. } => self.create_block(body),
            StmtKind::ClassDef { body, .. } => self.create_block(scope_code(body)),
            StmtKind::Match { cases, .. } => {
                for c in cases {
                    let kind = if case_is_irrefutable(c) {
                        NodeKind::Statement
                    } else {
                        NodeKind::Condition
                    };
                    let cn = self.graph.add_node(stmt_node(
                        kind,
                        c.id,
                        Role::Case,
                        c.header,
                        &c.text,
                        case_calls(c),
                    ));
                    self.nodes.insert(c.id, cn);
                    self.create_block(&c.body);
                }
            }
            _ => {}
        }
    }

    fn node(&self, id: StmtId) -> NodeIndex {
        // Every statement of the scope was given a node by `create`.
        self.nodes.get(&id).copied().unwrap_or(self.exit)
    }

    fn connect(&mut self, frontier: Vec<Pending>, target: NodeIndex) {
        for (source, edge) in frontier {
            self.graph.add_edge(source, target, edge);
        }
    }

    /// Adds the edges of `stmts`, entered along `frontier`; returns the frontier after them.
    fn block(
        &mut self,
        stmts: &'a [Stmt],
        mut frontier: Vec<Pending>,
    ) -> Result<Vec<Pending>, CfgError> {
        for s in stmts {
            frontier = self.stmt(s, frontier)?;
        }
        Ok(frontier)
    }

    /// Whether implicit exceptions get edges here: inside a `try` (its handlers or its
    /// `finally`), or everywhere with `all_exceptions`.
    fn implicit_exceptions(&self) -> bool {
        self.all_exceptions
            || self.frames.iter().any(|f| {
                matches!(f, Frame::Try { handlers, active, finally }
                if (*active && !handlers.is_empty()) || finally.is_some())
            })
    }

    /// What a bare `raise` re-raises here.
    fn reraise(&self) -> Option<&Raises> {
        self.frames.iter().rev().find_map(|f| match f {
            Frame::Handler { caught } => Some(caught),
            _ => None,
        })
    }

    fn stmt(&mut self, s: &'a Stmt, frontier: Vec<Pending>) -> Result<Vec<Pending>, CfgError> {
        let n = self.node(s.id);
        self.connect(frontier, n);
        let explicit = matches!(s.kind, StmtKind::Raise { .. } | StmtKind::Assert { .. });
        if explicit || self.implicit_exceptions() {
            let raises = raised_by(s, self.reraise());
            if !raises.is_empty() {
                self.raise_from(&[n], raises);
            }
        }
        let line = s.span.line;
        Ok(match &s.kind {
            StmtKind::If { body, orelse, .. } => {
                let mut out = self.block(body, vec![(n, Edge::True)])?;
                out.extend(self.block(orelse, vec![(n, Edge::False)])?);
                out
            }
            StmtKind::While { test, body, orelse } => {
                let endless = is_truthy_constant(test);
                let into_body = if endless { Edge::Normal } else { Edge::True };
                let exhausted = if endless {
                    vec![]
                } else {
                    vec![(n, Edge::False)]
                };
                self.lp(n, body, orelse, into_body, exhausted)?
            }
            StmtKind::For { body, orelse, .. } => {
                self.lp(n, body, orelse, Edge::True, vec![(n, Edge::False)])?
            }
            StmtKind::Break => {
                self.jump(vec![(n, Edge::Normal)], Jump::Break, line)?;
                vec![]
            }
            StmtKind::Continue => {
                self.jump(vec![(n, Edge::Normal)], Jump::Continue, line)?;
                vec![]
            }
            StmtKind::Return(_) => {
                if !self.in_function {
                    return Err(CfgError::ReturnOutsideFunction { line });
                }
                self.jump(vec![(n, Edge::Normal)], Jump::Return, line)?;
                vec![]
            }
            StmtKind::Raise { .. } => vec![],
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => self.try_stmt(s.id, n, body, handlers, orelse, finalbody)?,
            StmtKind::With { body, .. } => self.block(body, vec![(n, Edge::Normal)])?,
            StmtKind::ClassDef { body, .. } => {
                self.block(scope_code(body), vec![(n, Edge::Normal)])?
            }
            StmtKind::Match { cases, .. } => self.match_stmt(n, cases)?,
            _ => vec![(n, Edge::Normal)],
        })
    }

    /// A loop at `head`: the body is entered along `into_body` and flows back to the head;
    /// the `else` runs from `exhausted`; `break`s skip it.
    fn lp(
        &mut self,
        head: NodeIndex,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        into_body: Edge,
        exhausted: Vec<Pending>,
    ) -> Result<Vec<Pending>, CfgError> {
        self.frames.push(Frame::Loop {
            head,
            breaks: Vec::new(),
        });
        let end = self.block(body, vec![(head, into_body)])?;
        self.connect(end, head);
        let breaks = match self.frames.pop() {
            Some(Frame::Loop { breaks, .. }) => breaks,
            _ => Vec::new(),
        };
        let mut out = self.block(orelse, exhausted)?;
        out.extend(breaks);
        Ok(out)
    }

    fn match_stmt(
        &mut self,
        n: NodeIndex,
        cases: &'a [MatchCase],
    ) -> Result<Vec<Pending>, CfgError> {
        let mut next = vec![(n, Edge::Normal)];
        let mut out = Vec::new();
        for c in cases {
            let cn = self.node(c.id);
            self.connect(std::mem::take(&mut next), cn);
            if let Some(guard) = &c.guard
                && self.implicit_exceptions()
            {
                let raises = expr_raises(guard);
                if !raises.is_empty() {
                    self.raise_from(&[cn], raises);
                }
            }
            if case_is_irrefutable(c) {
                out.extend(self.block(&c.body, vec![(cn, Edge::Normal)])?);
            } else {
                out.extend(self.block(&c.body, vec![(cn, Edge::True)])?);
                next = vec![(cn, Edge::False)];
            }
        }
        out.extend(next);
        Ok(out)
    }

    fn try_stmt(
        &mut self,
        id: StmtId,
        n: NodeIndex,
        body: &'a [Stmt],
        handlers: &'a [ExceptHandler],
        orelse: &'a [Stmt],
        finalbody: &'a [Stmt],
    ) -> Result<Vec<Pending>, CfgError> {
        let finally = (!finalbody.is_empty()).then(|| {
            self.finals.push(Finally::default());
            self.finals.len() - 1
        });
        self.frames.push(Frame::Try {
            handlers,
            active: true,
            finally,
        });
        let body_end = self.block(body, vec![(n, Edge::Normal)])?;
        if let Some(Frame::Try { active, .. }) = self.frames.last_mut() {
            *active = false;
        }
        let mut out = self.block(orelse, body_end)?;
        for h in handlers {
            let hn = self.node(h.id);
            self.frames.push(Frame::Handler {
                caught: caught_by(h),
            });
            let end = self.block(&h.body, vec![(hn, Edge::Normal)]);
            self.frames.pop();
            out.extend(end?);
        }
        self.frames.pop();
        let Some(index) = finally else {
            return Ok(out);
        };
        let record = std::mem::take(&mut self.finals[index]);
        let join = self.joins.get(&id).copied().unwrap_or(self.exit);
        let completes = !out.is_empty();
        let mut entries = out;
        entries.extend(record.entries);
        let end = self.block(finalbody, entries)?;
        self.connect(end, join);
        let line = finalbody.last().map_or(0, |s| s.span.end_line);
        if record.returns {
            self.jump(vec![(join, Edge::Return)], Jump::Return, line)?;
        }
        if record.breaks {
            self.jump(vec![(join, Edge::Break)], Jump::Break, line)?;
        }
        if record.continues {
            self.jump(vec![(join, Edge::Continue)], Jump::Continue, line)?;
        }
        if let Some(raises) = record.exceptions {
            self.raise_from(&[join], raises);
        }
        Ok(if completes {
            vec![(join, Edge::Normal)]
        } else {
            vec![]
        })
    }

    /// Sends `from` to the target of `jump`: through the innermost enclosing `finally` if one
    /// comes first, else to the loop head, the loop's exit, or the function's exit.
    fn jump(&mut self, from: Vec<Pending>, jump: Jump, line: u32) -> Result<(), CfgError> {
        for i in (0..self.frames.len()).rev() {
            match &mut self.frames[i] {
                Frame::Try {
                    finally: Some(index),
                    ..
                } => {
                    let record = &mut self.finals[*index];
                    record.entries.extend(from);
                    match jump {
                        Jump::Break => record.breaks = true,
                        Jump::Continue => record.continues = true,
                        Jump::Return => record.returns = true,
                    }
                    return Ok(());
                }
                Frame::Loop { head, breaks } if jump != Jump::Return => {
                    if jump == Jump::Break {
                        breaks.extend(from);
                    } else {
                        let head = *head;
                        self.connect(from, head);
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        match jump {
            Jump::Return => {
                let exit = self.exit;
                self.connect(from, exit);
                Ok(())
            }
            Jump::Break => Err(CfgError::OutsideLoop {
                keyword: "break",
                line,
            }),
            Jump::Continue => Err(CfgError::OutsideLoop {
                keyword: "continue",
                line,
            }),
        }
    }

    /// Adds exception edges from `sources` for `raises`: to each handler that may catch (in
    /// order, stopping at one that surely catches everything left), else into the innermost
    /// `finally`, else to the exit.
    fn raise_from(&mut self, sources: &[NodeIndex], mut raises: Raises) {
        for i in (0..self.frames.len()).rev() {
            let (handlers, active, finally) = match &self.frames[i] {
                Frame::Try {
                    handlers,
                    active,
                    finally,
                } => (*handlers, *active, *finally),
                _ => continue,
            };
            if active {
                for h in handlers {
                    let target = self.node(h.id);
                    let (caught, rest) = match_handler(h, raises);
                    if let Some(names) = caught {
                        for &s in sources {
                            self.graph
                                .add_edge(s, target, Edge::Exception(names.clone()));
                        }
                    }
                    match rest {
                        Some(r) => raises = r,
                        None => return,
                    }
                }
            }
            if let Some(index) = finally {
                let names = raises.names();
                let record = &mut self.finals[index];
                record
                    .entries
                    .extend(sources.iter().map(|&s| (s, Edge::Exception(names.clone()))));
                match &mut record.exceptions {
                    Some(r) => r.union(raises),
                    None => record.exceptions = Some(raises),
                }
                return;
            }
        }
        let names = raises.names();
        for &s in sources {
            self.graph
                .add_edge(s, self.exit, Edge::Exception(names.clone()));
        }
    }
}

/// Matches `raises` against one handler: the names it may catch (`Some` when there is an
/// edge), and what is left to propagate (`None` when the handler surely catches everything).
fn match_handler(h: &ExceptHandler, raises: Raises) -> (Option<Vec<String>>, Option<Raises>) {
    let classes = handler_classes(h);
    match raises {
        Raises::Any => match catches_any(classes.as_deref()) {
            Catch::Yes => (Some(Vec::new()), None),
            Catch::Maybe => (Some(Vec::new()), Some(Raises::Any)),
            Catch::No => (None, Some(Raises::Any)),
        },
        Raises::Known(names) => {
            let computed = is_computed(h);
            let mut caught = Vec::new();
            let mut rest = names.clone();
            for name in &names {
                match catches(classes.as_deref(), computed, name) {
                    Catch::Yes => {
                        caught.push(name.clone());
                        rest.remove(name);
                    }
                    Catch::Maybe => caught.push(name.clone()),
                    Catch::No => {}
                }
            }
            let edge = (!caught.is_empty()).then_some(caught);
            let rest = (!rest.is_empty()).then_some(Raises::Known(rest));
            (edge, rest)
        }
    }
}
