//! The CFG's invariants, checked against the code it was built from: every statement in
//! exactly one node, reachability marks that match the graph, and two-way branches.

use std::collections::BTreeMap;

use crate::python::ir::{Stmt, StmtId, StmtKind};

use super::build::scope_code;
use super::graph::{Cfg, Edge, Granularity, NodeKind};

/// A broken invariant, naming the CFG and the node or statement.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvariantError {
    #[error("{cfg}: line {line} `{text}` is in no node")]
    Missing {
        cfg: String,
        line: u32,
        text: String,
    },
    #[error("{cfg}: line {line} `{text}` is in {count} nodes")]
    Duplicated {
        cfg: String,
        line: u32,
        text: String,
        count: usize,
    },
    #[error("{cfg}: node {node} holds a statement from outside this scope")]
    Foreign { cfg: String, node: usize },
    #[error("{cfg}: node {node} is {actual} but marked otherwise")]
    Reachability {
        cfg: String,
        node: usize,
        actual: &'static str,
    },
    #[error("{cfg}: node {node} ({kind}) has {trues} True and {falses} False edges")]
    Branches {
        cfg: String,
        node: usize,
        kind: &'static str,
        trues: usize,
        falses: usize,
    },
    #[error("{cfg}: the entry has incoming or the exit outgoing edges")]
    Ends { cfg: String },
}

/// Checks `cfg` against `body`, the statements of its scope (a function's body, or a
/// module's): every statement (`except` clauses and `case`s too, docstrings and nested
/// function bodies not) is in exactly one node; a node is marked unreachable exactly when no
/// path from the entry reaches it; a condition node has exactly one True and one False edge
/// and no other node has either (a block: both or neither); the entry has no incoming and
/// the exit no outgoing edges.
pub fn verify(cfg: &Cfg, body: &[Stmt]) -> Result<(), InvariantError> {
    let name = || cfg.name.clone();
    let mut expected = BTreeMap::new();
    scope_statements(scope_code(body), &mut expected);
    let mut seen: BTreeMap<StmtId, usize> = BTreeMap::new();
    for n in cfg.nodes() {
        for s in &cfg.node(n).stmts {
            if !expected.contains_key(&s.id) {
                return Err(InvariantError::Foreign {
                    cfg: name(),
                    node: n.index(),
                });
            }
            *seen.entry(s.id).or_default() += 1;
        }
    }
    for (id, (line, text)) in &expected {
        match seen.get(id).copied().unwrap_or(0) {
            1 => {}
            0 => {
                return Err(InvariantError::Missing {
                    cfg: name(),
                    line: *line,
                    text: text.clone(),
                });
            }
            count => {
                return Err(InvariantError::Duplicated {
                    cfg: name(),
                    line: *line,
                    text: text.clone(),
                    count,
                });
            }
        }
    }
    let reachable = cfg.reachable();
    for n in cfg.nodes() {
        let node = cfg.node(n);
        if node.unreachable == reachable[n.index()] {
            return Err(InvariantError::Reachability {
                cfg: name(),
                node: n.index(),
                actual: if reachable[n.index()] {
                    "reachable"
                } else {
                    "unreachable"
                },
            });
        }
        let succ = cfg.successors(n);
        let trues = succ.iter().filter(|(_, e)| **e == Edge::True).count();
        let falses = succ.iter().filter(|(_, e)| **e == Edge::False).count();
        let ok = match (cfg.granularity, node.kind) {
            (Granularity::Statement, NodeKind::Condition) => trues == 1 && falses == 1,
            (Granularity::Statement, _) => trues == 0 && falses == 0,
            (Granularity::Block, _) => trues == falses && trues <= 1,
        };
        if !ok {
            return Err(InvariantError::Branches {
                cfg: name(),
                node: n.index(),
                kind: node.kind.name(),
                trues,
                falses,
            });
        }
    }
    if !cfg.predecessors(cfg.entry).is_empty() || !cfg.successors(cfg.exit).is_empty() {
        return Err(InvariantError::Ends { cfg: name() });
    }
    Ok(())
}

/// The statements a CFG of this scope holds, with their line and text.
fn scope_statements(stmts: &[Stmt], out: &mut BTreeMap<StmtId, (u32, String)>) {
    for s in stmts {
        out.insert(s.id, (s.span.line, s.text.clone()));
        match &s.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => {
                scope_statements(body, out);
                scope_statements(orelse, out);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                scope_statements(body, out);
                for h in handlers {
                    out.insert(h.id, (h.span.line, h.text.clone()));
                    scope_statements(&h.body, out);
                }
                scope_statements(orelse, out);
                scope_statements(finalbody, out);
            }
            StmtKind::With { body, .. } => scope_statements(body, out),
            StmtKind::ClassDef { body, .. } => scope_statements(scope_code(body), out),
            StmtKind::Match { cases, .. } => {
                for c in cases {
                    out.insert(c.id, (c.span.line, c.text.clone()));
                    scope_statements(&c.body, out);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::python::lower_module;

    fn broken(edit: impl Fn(&mut Cfg)) -> InvariantError {
        let m = lower_module("def f(x):\n    if x:\n        x = 1\n    return x\n").unwrap();
        let f = m.function("f").unwrap();
        let mut cfg = function_cfg(f).unwrap();
        assert_eq!(verify(&cfg, &f.body), Ok(()));
        edit(&mut cfg);
        verify(&cfg, &f.body).unwrap_err()
    }

    #[test]
    fn each_invariant_is_checked() {
        let e = broken(|c| {
            let n = petgraph::graph::NodeIndex::new(2);
            c.graph[n].stmts.clear();
        });
        assert!(matches!(e, InvariantError::Missing { line: 3, .. }), "{e}");
        let e = broken(|c| {
            let s = c.graph[petgraph::graph::NodeIndex::new(2)].stmts.clone();
            c.graph[petgraph::graph::NodeIndex::new(3)].stmts.extend(s);
        });
        assert!(
            matches!(e, InvariantError::Duplicated { count: 2, .. }),
            "{e}"
        );
        let e = broken(|c| c.graph[petgraph::graph::NodeIndex::new(3)].unreachable = true);
        assert!(
            matches!(e, InvariantError::Reachability { node: 3, .. }),
            "{e}"
        );
        let e = broken(|c| {
            let cond = petgraph::graph::NodeIndex::new(1);
            if let Some(edge) = c.graph.find_edge(cond, petgraph::graph::NodeIndex::new(3)) {
                c.graph[edge] = Edge::Normal;
            }
        });
        assert!(
            matches!(e, InvariantError::Branches { falses: 0, .. }),
            "{e}"
        );
        let e = broken(|c| {
            let (exit, entry) = (c.exit, c.entry);
            c.graph.add_edge(exit, entry, Edge::Normal);
        });
        assert!(matches!(e, InvariantError::Ends { .. }), "{e}");
    }
}
