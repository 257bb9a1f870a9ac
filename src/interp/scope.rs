//! Scope analysis with Python's rules: for each function, lambda and comprehension, which
//! names are locals, which are captured by inner scopes (cells), which come from enclosing
//! functions (free) and which are globals. Computed over a whole cell before compiling it.

use std::collections::{HashMap, HashSet};

use crate::python::ir::{self, ExprKind, StmtKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    Module,
    Function,
    Comprehension,
    /// A class body: its names become the class namespace; inner functions do not see them
    /// (except `__class__`, the cell zero-argument `super()` reads).
    Class,
}

/// How a name is reached from one scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    Local,
    /// A captured local or a free variable: through a cell.
    Cell,
    Global,
}

/// One scope's names.
#[derive(Debug)]
pub(crate) struct Scope {
    pub kind: ScopeKind,
    parent: Option<usize>,
    /// Names bound in the scope, in first-binding order.
    bound: Vec<String>,
    bound_set: HashSet<String>,
    globals: HashSet<String>,
    /// `nonlocal` names with the line of their declaration.
    nonlocals: HashMap<String, u32>,
    uses: Vec<String>,
    use_set: HashSet<String>,
    /// Locals captured by inner scopes.
    pub cells: Vec<String>,
    /// Variables of enclosing functions this scope uses (or passes on to inner scopes).
    pub frees: Vec<String>,
}

/// Every scope of a module, found by the IR node that creates it.
#[derive(Debug)]
pub(crate) struct Scopes {
    scopes: Vec<Scope>,
    by_node: HashMap<usize, usize>,
}

/// A `nonlocal` without a binding, as CPython's compiler reports it.
#[derive(Debug)]
pub(crate) struct ScopeError {
    pub message: String,
    pub line: u32,
}

/// The key of the IR node that opens a scope (a `def`'s function, a lambda or comprehension).
pub(crate) fn node_key<T>(node: &T) -> usize {
    node as *const T as usize
}

impl Scope {
    fn new(kind: ScopeKind, parent: Option<usize>) -> Scope {
        Scope {
            kind,
            parent,
            bound: Vec::new(),
            bound_set: HashSet::new(),
            globals: HashSet::new(),
            nonlocals: HashMap::new(),
            uses: Vec::new(),
            use_set: HashSet::new(),
            cells: Vec::new(),
            frees: Vec::new(),
        }
    }

    fn is_local(&self, name: &str) -> bool {
        self.bound_set.contains(name)
            && !self.globals.contains(name)
            && !self.nonlocals.contains_key(name)
    }

    pub fn binding(&self, name: &str) -> Binding {
        if self.kind == ScopeKind::Module {
            return Binding::Global;
        }
        if self.cells.iter().chain(&self.frees).any(|n| n == name) {
            Binding::Cell
        } else if self.is_local(name) {
            Binding::Local
        } else {
            Binding::Global
        }
    }

    /// Locals that live in plain slots (not captured), in binding order.
    pub fn slot_locals(&self) -> impl Iterator<Item = &String> {
        self.bound
            .iter()
            .filter(|n| self.is_local(n) && !self.cells.contains(n))
    }

    /// Cell names: captured locals, then free variables.
    pub fn cell_names(&self) -> impl Iterator<Item = &String> {
        self.cells.iter().chain(&self.frees)
    }
}

impl Scopes {
    /// Analyzes a module.
    pub fn analyze(module: &ir::Module) -> Result<Scopes, ScopeError> {
        let mut s = Scopes {
            scopes: vec![Scope::new(ScopeKind::Module, None)],
            by_node: HashMap::new(),
        };
        s.block(0, &module.body);
        s.resolve()?;
        Ok(s)
    }

    pub fn module(&self) -> &Scope {
        &self.scopes[0]
    }

    /// The scope opened by the node with this [`node_key`].
    pub fn get(&self, key: usize) -> Option<&Scope> {
        self.by_node.get(&key).and_then(|&i| self.scopes.get(i))
    }

    fn open(&mut self, kind: ScopeKind, parent: usize, key: usize) -> usize {
        self.scopes.push(Scope::new(kind, Some(parent)));
        let id = self.scopes.len() - 1;
        self.by_node.insert(key, id);
        id
    }

    fn bind(&mut self, s: usize, name: &str) {
        let scope = &mut self.scopes[s];
        if scope.bound_set.insert(name.to_string()) {
            scope.bound.push(name.to_string());
        }
    }

    fn use_name(&mut self, s: usize, name: &str) {
        let scope = &mut self.scopes[s];
        if scope.use_set.insert(name.to_string()) {
            scope.uses.push(name.to_string());
        }
    }

    fn block(&mut self, s: usize, stmts: &[ir::Stmt]) {
        for stmt in stmts {
            self.stmt(s, stmt);
        }
    }

    fn stmt(&mut self, s: usize, stmt: &ir::Stmt) {
        match &stmt.kind {
            StmtKind::Expr(e) => self.expr(s, e),
            StmtKind::Assign { targets, value } => {
                self.expr(s, value);
                targets.iter().for_each(|t| self.target(s, t));
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.expr(s, value);
                self.target(s, target);
                if let ExprKind::Name(n) = &target.kind {
                    self.use_name(s, n);
                }
            }
            StmtKind::AnnAssign {
                target,
                value,
                annotation,
                ..
            } => {
                if let Some(v) = value {
                    self.expr(s, v);
                }
                // A class body evaluates a field's annotation (`dataclasses.Field.type`).
                if self.scopes[s].kind == ScopeKind::Class
                    && super::dataclass_fns::annotation_root(annotation).is_some()
                {
                    self.expr(s, annotation);
                }
                self.target(s, target);
            }
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                self.expr(s, test);
                self.block(s, body);
                self.block(s, orelse);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                self.expr(s, iter);
                self.target(s, target);
                self.block(s, body);
                self.block(s, orelse);
            }
            StmtKind::Return(Some(e)) => self.expr(s, e),
            StmtKind::Raise { exc, cause } => {
                exc.iter().chain(cause).for_each(|e| self.expr(s, e));
            }
            StmtKind::Assert { test, msg } => {
                self.expr(s, test);
                if let Some(m) = msg {
                    self.expr(s, m);
                }
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                self.block(s, body);
                for h in handlers {
                    if let Some(t) = &h.type_ {
                        self.expr(s, t);
                    }
                    if let Some(n) = &h.name {
                        self.bind(s, n);
                    }
                    self.block(s, &h.body);
                }
                self.block(s, orelse);
                self.block(s, finalbody);
            }
            StmtKind::With { items, body } => {
                for (e, var) in items {
                    self.expr(s, e);
                    if let Some(v) = var {
                        self.target(s, v);
                    }
                }
                self.block(s, body);
            }
            StmtKind::Match { subject, cases } => {
                self.expr(s, subject);
                for c in cases {
                    for n in c.pattern.bound_names() {
                        self.bind(s, &n);
                    }
                    for e in c.pattern.exprs() {
                        self.expr(s, e);
                    }
                    if let Some(g) = &c.guard {
                        self.expr(s, g);
                    }
                    self.block(s, &c.body);
                }
            }
            StmtKind::FunctionDef(f) => {
                for e in f
                    .decorators
                    .iter()
                    .chain(f.params.iter().filter_map(|p| p.default.as_ref()))
                {
                    self.expr(s, e);
                }
                self.bind(s, &f.name);
                let child = self.open(ScopeKind::Function, s, node_key(&**f));
                for p in &f.params {
                    self.bind(child, &p.name);
                }
                self.block(child, &f.body);
            }
            StmtKind::ClassDef {
                name,
                bases,
                keywords,
                decorators,
                body,
                ..
            } => {
                for e in decorators
                    .iter()
                    .chain(bases)
                    .chain(keywords.iter().map(|(_, e)| e))
                {
                    self.expr(s, e);
                }
                self.bind(s, name);
                let child = self.open(ScopeKind::Class, s, node_key(stmt));
                self.block(child, body);
            }
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let first = a.name.split('.').next().unwrap_or(&a.name);
                    self.bind(s, a.asname.as_deref().unwrap_or(first));
                }
            }
            StmtKind::ImportFrom { names, .. } => {
                for a in names.iter().filter(|a| a.name != "*") {
                    self.bind(s, a.asname.as_deref().unwrap_or(&a.name));
                }
            }
            StmtKind::Global(names) => {
                for n in names {
                    self.scopes[s].globals.insert(n.clone());
                }
            }
            StmtKind::Nonlocal(names) => {
                for n in names {
                    self.scopes[s].nonlocals.insert(n.clone(), stmt.span.line);
                }
            }
            StmtKind::Delete(targets) => targets.iter().for_each(|t| self.target(s, t)),
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Unsupported { .. } => {}
        }
    }

    fn target(&mut self, s: usize, t: &ir::Expr) {
        match &t.kind {
            ExprKind::Name(n) => self.bind(s, n),
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|e| self.target(s, e)),
            ExprKind::Starred(inner) => self.target(s, inner),
            _ => self.expr(s, t),
        }
    }

    fn expr(&mut self, s: usize, e: &ir::Expr) {
        match &e.kind {
            ExprKind::Name(n) => {
                self.use_name(s, n);
                // A method using `super` or `__class__` reads its class from a cell.
                if n == "super" || n == "__class__" {
                    if let Some(p) = self.scopes[s].parent {
                        if self.scopes[s].kind == ScopeKind::Function
                            && self.scopes[p].kind == ScopeKind::Class
                        {
                            self.use_name(s, "__class__");
                            self.bind(p, "__class__");
                        }
                    }
                }
            }
            ExprKind::Lambda { params, body } => {
                for d in params.iter().filter_map(|p| p.default.as_ref()) {
                    self.expr(s, d);
                }
                let child = self.open(ScopeKind::Function, s, node_key(e));
                for p in params {
                    self.bind(child, &p.name);
                }
                self.expr(child, body);
            }
            ExprKind::Comprehension {
                elt,
                value,
                generators,
                ..
            } => {
                if let Some(first) = generators.first() {
                    self.expr(s, &first.iter);
                }
                let child = self.open(ScopeKind::Comprehension, s, node_key(e));
                for (i, g) in generators.iter().enumerate() {
                    if i > 0 {
                        self.expr(child, &g.iter);
                    }
                    self.target(child, &g.target);
                    g.ifs.iter().for_each(|c| self.expr(child, c));
                }
                self.expr(child, elt);
                if let Some(v) = value {
                    self.expr(child, v);
                }
            }
            ExprKind::NamedExpr { target, value } => {
                self.expr(s, value);
                // Binds in the nearest enclosing scope that is not a comprehension.
                let mut t = s;
                while self.scopes[t].kind == ScopeKind::Comprehension {
                    self.use_name(t, target);
                    match self.scopes[t].parent {
                        Some(p) => t = p,
                        None => break,
                    }
                }
                self.bind(t, target);
            }
            ExprKind::Unsupported {
                operand: Some(operand),
                ..
            } => self.expr(s, operand),
            _ => e.children().into_iter().for_each(|c| self.expr(s, c)),
        }
    }

    /// Decides cells and free variables: each name a scope uses without binding it is looked
    /// up in the enclosing function scopes.
    fn resolve(&mut self) -> Result<(), ScopeError> {
        for s in 0..self.scopes.len() {
            let scope = &self.scopes[s];
            let mut names: Vec<(String, Option<u32>)> =
                scope.uses.iter().map(|n| (n.clone(), None)).collect();
            let mut declared: Vec<(&String, &u32)> = scope.nonlocals.iter().collect();
            declared.sort();
            names.extend(declared.into_iter().map(|(n, l)| (n.clone(), Some(*l))));
            for (name, nonlocal_line) in names {
                self.resolve_name(s, &name, nonlocal_line)?;
            }
        }
        Ok(())
    }

    fn resolve_name(
        &mut self,
        s: usize,
        name: &str,
        nonlocal_line: Option<u32>,
    ) -> Result<(), ScopeError> {
        let scope = &self.scopes[s];
        if scope.kind == ScopeKind::Module {
            if let Some(line) = nonlocal_line {
                return Err(ScopeError {
                    message: "nonlocal declaration not allowed at module level".into(),
                    line,
                });
            }
            return Ok(());
        }
        if scope.globals.contains(name) || scope.is_local(name) {
            return Ok(());
        }
        let missing = |line: Option<u32>| match line {
            Some(line) => Err(ScopeError {
                message: format!("no binding for nonlocal '{name}' found"),
                line,
            }),
            None => Ok(()),
        };
        let mut chain = vec![s];
        let mut parent = scope.parent;
        while let Some(a) = parent {
            let outer = &self.scopes[a];
            if outer.kind == ScopeKind::Module || outer.globals.contains(name) {
                return missing(nonlocal_line);
            }
            let class_hides = outer.kind == ScopeKind::Class && name != "__class__";
            if outer.is_local(name) && !class_hides {
                push_unique(&mut self.scopes[a].cells, name);
                for c in chain {
                    push_unique(&mut self.scopes[c].frees, name);
                }
                return Ok(());
            }
            chain.push(a);
            parent = outer.parent;
        }
        missing(nonlocal_line)
    }
}

fn push_unique(v: &mut Vec<String>, name: &str) {
    if !v.iter().any(|n| n == name) {
        v.push(name.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn function_scope<'a>(scopes: &'a Scopes, module: &ir::Module, qualname: &str) -> &'a Scope {
        let f = module.function(qualname).unwrap();
        scopes.get(node_key(f)).unwrap()
    }

    #[test]
    fn captured_locals_become_cells() {
        let m = lower_module(
            "g = 1\ndef outer(a):\n    x = 1\n    def mid():\n        def inner():\n            return x + a + g\n        return inner\n    return mid\n",
        )
        .unwrap();
        let s = Scopes::analyze(&m).unwrap();
        let outer = function_scope(&s, &m, "outer");
        assert_eq!(outer.cells, ["x", "a"]);
        assert_eq!(outer.binding("x"), Binding::Cell);
        assert_eq!(outer.binding("g"), Binding::Global);
        let mid = function_scope(&s, &m, "outer.mid");
        assert_eq!(mid.frees, ["x", "a"]);
        let inner = function_scope(&s, &m, "outer.mid.inner");
        assert_eq!(inner.frees, ["x", "a"]);
        assert_eq!(inner.binding("g"), Binding::Global);
    }

    #[test]
    fn globals_nonlocals_and_comprehensions() {
        let m = lower_module(
            "def f():\n    global t\n    t = 1\n    n = 0\n    def g():\n        nonlocal n\n        n += 1\n    ys = [y + n for y in range(3) if (last := y)]\n    return last\n",
        )
        .unwrap();
        let s = Scopes::analyze(&m).unwrap();
        let f = function_scope(&s, &m, "f");
        assert_eq!(f.binding("t"), Binding::Global);
        assert_eq!(f.binding("n"), Binding::Cell);
        assert_eq!(f.binding("last"), Binding::Cell);
        assert_eq!(f.slot_locals().cloned().collect::<Vec<_>>(), ["g", "ys"]);
        let g = function_scope(&s, &m, "f.g");
        assert_eq!(g.binding("n"), Binding::Cell);
        let bad = lower_module("def f():\n    nonlocal q\n").unwrap();
        let err = Scopes::analyze(&bad).unwrap_err();
        assert_eq!(
            (err.message.as_str(), err.line),
            ("no binding for nonlocal 'q' found", 2)
        );
    }
}
