//! The code an analysis runs on: a function's (or a cell's) statement-level CFG, the IR
//! behind each node, and what each node reads, binds and evaluates.

use std::collections::{BTreeSet, HashMap};

use petgraph::graph::NodeIndex;

use super::expressions::{Candidate, candidates};
use crate::cfg::{Cfg, CfgError, Item, NodeKind, function_cfg, index, module_cfg};
use crate::fxhash::FxHashSet;
use crate::python::ir::{ExprKind, Function, Module, Param, StmtId, StmtKind};

/// What one node does with names and expressions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeInfo {
    /// Names read, first occurrence first.
    pub uses: Vec<String>,
    /// Names bound by the node whenever it completes.
    pub defs: Vec<String>,
    /// Names unbound (`del x`).
    pub deletes: Vec<String>,
    /// Names bound only when the node's True edge is taken: a `for` target, a `case` pattern.
    pub branch_defs: Vec<String>,
    /// Binary and comparison expressions over variables that every execution of the node
    /// evaluates, in evaluation order, without repeats.
    pub exprs: Vec<Candidate>,
}

/// A function or a cell's top-level code, ready for analysis.
pub struct Program<'a> {
    pub cfg: Cfg,
    /// The parameters (none for top-level code).
    pub params: &'a [Param],
    /// The `def` line for a function; the first line for top-level code.
    pub def_line: u32,
    pub is_function: bool,
    /// Per node, by index.
    pub nodes: Vec<NodeInfo>,
    /// The IR item behind each node, by index.
    items: Vec<Option<Item<'a>>>,
}

impl<'a> Program<'a> {
    /// A function (method, nested function): its CFG over the body, docstring excluded.
    pub fn function(f: &'a Function) -> Result<Program<'a>, CfgError> {
        let cfg = function_cfg(f)?;
        Ok(Program::new(
            cfg,
            index(&f.body),
            &f.params,
            f.span.line,
            true,
        ))
    }

    /// A module's or a cell's top-level code.
    pub fn module(m: &'a Module) -> Result<Program<'a>, CfgError> {
        let cfg = module_cfg(m)?;
        let line = cfg.node(cfg.entry).lines.0;
        Ok(Program::new(cfg, index(&m.body), &[], line, false))
    }

    fn new(
        cfg: Cfg,
        items: HashMap<StmtId, Item<'a>>,
        params: &'a [Param],
        def_line: u32,
        is_function: bool,
    ) -> Program<'a> {
        let nodes = cfg
            .nodes()
            .map(|n| node_info(&cfg, &items, params, n))
            .collect();
        let items = cfg
            .nodes()
            .map(|n| items.get(&cfg.node(n).stmts.first()?.id).copied())
            .collect();
        Program {
            cfg,
            params,
            def_line,
            is_function,
            nodes,
            items,
        }
    }

    /// The IR statement, `except` clause or `case` behind a node.
    pub fn item(&self, n: NodeIndex) -> Option<Item<'a>> {
        self.items.get(n.index()).copied().flatten()
    }

    pub fn info(&self, n: NodeIndex) -> &NodeInfo {
        &self.nodes[n.index()]
    }

    /// The first line of a node.
    pub fn line(&self, n: NodeIndex) -> u32 {
        self.cfg.node(n).lines.0
    }

    /// Every name the code binds (parameters included), sorted.
    pub fn variables(&self) -> Vec<String> {
        self.bound().into_iter().map(str::to_string).collect()
    }

    /// Every name the code binds (parameters included).
    fn bound(&self) -> BTreeSet<&str> {
        let mut names: FxHashSet<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        for info in &self.nodes {
            for n in info
                .defs
                .iter()
                .chain(&info.deletes)
                .chain(&info.branch_defs)
            {
                names.insert(n);
            }
        }
        names.into_iter().collect()
    }

    /// The function's local variables: its parameters and every name it binds, less those
    /// declared `global` or `nonlocal`. Empty for top-level code (every name is global).
    pub fn locals(&self) -> BTreeSet<String> {
        if !self.is_function {
            return BTreeSet::new();
        }
        let mut declared: BTreeSet<&str> = BTreeSet::new();
        for n in self.cfg.nodes() {
            if let Some(Item::Stmt(s)) = self.item(n)
                && let StmtKind::Global(names) | StmtKind::Nonlocal(names) = &s.kind
            {
                declared.extend(names.iter().map(String::as_str));
            }
        }
        self.bound()
            .into_iter()
            .filter(|n| !declared.contains(n))
            .map(str::to_string)
            .collect()
    }
}

fn node_info(
    cfg: &Cfg,
    items: &HashMap<StmtId, Item<'_>>,
    params: &[Param],
    n: NodeIndex,
) -> NodeInfo {
    let node = cfg.node(n);
    if node.kind == NodeKind::Entry {
        return NodeInfo {
            defs: params.iter().map(|p| p.name.clone()).collect(),
            ..NodeInfo::default()
        };
    }
    let Some(item) = node.stmts.first().and_then(|s| items.get(&s.id)) else {
        return NodeInfo::default();
    };
    match item {
        Item::Stmt(s) => {
            let mut info = NodeInfo {
                uses: s.names_used(),
                exprs: candidates(s),
                ..NodeInfo::default()
            };
            match &s.kind {
                StmtKind::For { .. } => info.branch_defs = s.defined_names(),
                StmtKind::Delete(targets) => {
                    info.deletes = targets
                        .iter()
                        .filter_map(|t| match &t.kind {
                            ExprKind::Name(name) => Some(name.clone()),
                            _ => None,
                        })
                        .collect();
                }
                _ => info.defs = s.defined_names(),
            }
            info
        }
        Item::Handler(h) => NodeInfo {
            uses: h.names_used(),
            defs: h.name.iter().cloned().collect(),
            ..NodeInfo::default()
        },
        Item::Case(c) => {
            let names = c.defined_names();
            let (defs, branch_defs) = if node.kind == NodeKind::Condition {
                (Vec::new(), names)
            } else {
                (names, Vec::new())
            };
            NodeInfo {
                uses: c.names_used(),
                defs,
                branch_defs,
                ..NodeInfo::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    #[test]
    fn node_facts_of_a_loop() {
        let m = lower_module(
            "def f(a, b):\n    global g\n    for i in range(a):\n        x = a + b\n        del b\n    g = x\n",
        )
        .unwrap();
        let f = m.function("f").unwrap();
        let p = Program::function(f).unwrap();
        let at = |line: u32| {
            p.cfg
                .nodes()
                .find(|&n| p.line(n) == line && !p.cfg.node(n).stmts.is_empty())
                .map(|n| p.info(n).clone())
                .unwrap_or_default()
        };
        assert_eq!(p.info(p.cfg.entry).defs, ["a", "b"]);
        let header = at(3);
        assert_eq!(header.uses, ["range", "a"]);
        assert!(header.defs.is_empty());
        assert_eq!(header.branch_defs, ["i"]);
        let body = at(4);
        assert_eq!(body.defs, ["x"]);
        let texts: Vec<&str> = body.exprs.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["a + b"]);
        assert_eq!(at(5).deletes, ["b"]);
        let locals: Vec<String> = p.locals().into_iter().collect();
        assert_eq!(locals, ["a", "b", "i", "x"], "g is global");
        assert_eq!(p.variables(), ["a", "b", "g", "i", "x"]);
        assert_eq!(p.def_line, 1);
    }
}
