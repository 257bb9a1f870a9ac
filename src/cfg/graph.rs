//! The CFG's data types: nodes, edges, and the graph of one function or module.

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::python::ir::StmtId;

/// One node per statement, or one per basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Granularity {
    Statement,
    Block,
}

/// What a node is; `name()` is its JSON `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    Entry,
    Exit,
    /// A statement with one way on (plus exception edges).
    Statement,
    /// A branch: exactly one `True` and one `False` edge (plus exception edges).
    Condition,
    /// An `except` clause, entered by exception edges.
    Handler,
    /// A point where paths meet that has no statement: the end of a `finally` body, from
    /// which each pending way out (normal, `return`, `break`, `continue`, exception) leaves.
    Join,
    /// A basic block (block granularity).
    Block,
}

/// What a statement does at its node; downstream analyses read the IR statement by `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A simple statement, or the header of `def`, `class`, `with`, `try` or `match`.
    Simple,
    /// The test of `if`, `elif` or `while` (a `while True:` test too, which has no False edge).
    Test,
    /// A `for` header: True binds the next item and enters the body, False when exhausted.
    Iterate,
    /// A `case`: True when the pattern and guard match (an irrefutable case has no False edge).
    Case,
    /// An `except` clause: binds the caught exception's name.
    Handler,
}

/// A statement inside a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeStmt {
    /// The IR statement (or except handler, or match case) this is.
    pub id: StmtId,
    pub role: Role,
    /// First and last line of the statement (of the header, for compound statements).
    pub lines: (u32, u32),
    /// The source text, on one line (the header, for compound statements).
    pub text: String,
}

/// A node: a statement (statement granularity) or a basic block, or entry, exit, join.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    /// The statements, in execution order: one at statement granularity, none for
    /// entry, exit and join nodes.
    pub stmts: Vec<NodeStmt>,
    /// The text shown for the node (statement texts joined by newlines for a block).
    pub label: String,
    /// First and last line covered.
    pub lines: (u32, u32),
    /// Not reachable from the entry.
    pub unreachable: bool,
    /// The functions this node calls, in evaluation order (`f`, `obj.method`, `math.sqrt`).
    pub calls: Vec<String>,
}

/// How control moves along an edge; `label()` is its JSON `label`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edge {
    Normal,
    True,
    False,
    /// An exception raised at the source, to a handler, a `finally` body or the exit. The
    /// names are those known to travel this edge (sorted); empty when unknown (a call).
    Exception(Vec<String>),
    /// Out of a `finally` body, resuming a pending `return`.
    Return,
    /// Out of a `finally` body, resuming a pending `break`.
    Break,
    /// Out of a `finally` body, resuming a pending `continue`.
    Continue,
}

/// The control-flow graph of one function, or of a module's (or cell's) top-level code.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// `f`, `C.m`, `f.g`, or `<module>`.
    pub name: String,
    /// `f(a, b)`, or `<module>`: shown on the entry and exit nodes.
    pub signature: String,
    pub granularity: Granularity,
    pub graph: DiGraph<Node, Edge>,
    pub entry: NodeIndex,
    pub exit: NodeIndex,
}

impl Granularity {
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Statement => "statement",
            Granularity::Block => "block",
        }
    }
}

impl NodeKind {
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Entry => "entry",
            NodeKind::Exit => "exit",
            NodeKind::Statement => "statement",
            NodeKind::Condition => "condition",
            NodeKind::Handler => "handler",
            NodeKind::Join => "join",
            NodeKind::Block => "block",
        }
    }
}

impl Node {
    /// The node's statement ids in order.
    pub fn stmt_ids(&self) -> impl Iterator<Item = StmtId> + '_ {
        self.stmts.iter().map(|s| s.id)
    }

    /// The role of the last statement: what decides the node's outgoing edges.
    pub fn last_role(&self) -> Option<Role> {
        self.stmts.last().map(|s| s.role)
    }
}

impl Edge {
    /// `True`, `False`, `exception`, `return`, `break`, `continue`, or `None` for normal flow.
    pub fn label(&self) -> Option<&'static str> {
        match self {
            Edge::Normal => None,
            Edge::True => Some("True"),
            Edge::False => Some("False"),
            Edge::Exception(_) => Some("exception"),
            Edge::Return => Some("return"),
            Edge::Break => Some("break"),
            Edge::Continue => Some("continue"),
        }
    }

    /// The exception names known to travel an exception edge.
    pub fn exceptions(&self) -> &[String] {
        match self {
            Edge::Exception(names) => names,
            _ => &[],
        }
    }

    pub fn is_exception(&self) -> bool {
        matches!(self, Edge::Exception(_))
    }

    /// The label with the exception names: `exception: ZeroDivisionError`.
    pub fn describe(&self) -> Option<String> {
        match self {
            Edge::Exception(names) if !names.is_empty() => {
                Some(format!("exception: {}", names.join(", ")))
            }
            other => other.label().map(str::to_string),
        }
    }
}

impl Cfg {
    pub fn node(&self, n: NodeIndex) -> &Node {
        &self.graph[n]
    }

    /// Every node, in id order (source order; entry first).
    pub fn nodes(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph.node_indices()
    }

    /// The node's stable id: its index, as a string.
    pub fn node_id(&self, n: NodeIndex) -> String {
        n.index().to_string()
    }

    /// The outgoing edges of `n`: normal first, then True, False, exception, `return`,
    /// `break`, `continue`; by target within a label.
    pub fn successors(&self, n: NodeIndex) -> Vec<(NodeIndex, &Edge)> {
        let mut out: Vec<_> = self
            .graph
            .edges_directed(n, Direction::Outgoing)
            .map(|e| (e.target(), e.weight()))
            .collect();
        out.sort_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)));
        out
    }

    /// The incoming edges of `n`, sorted by source and then label.
    pub fn predecessors(&self, n: NodeIndex) -> Vec<(NodeIndex, &Edge)> {
        let mut out: Vec<_> = self
            .graph
            .edges_directed(n, Direction::Incoming)
            .map(|e| (e.source(), e.weight()))
            .collect();
        out.sort();
        out
    }

    /// Every edge as (source, target, edge), by source and then as [`Cfg::successors`].
    pub fn edges(&self) -> Vec<(NodeIndex, NodeIndex, &Edge)> {
        self.nodes()
            .flat_map(|n| self.successors(n).into_iter().map(move |(t, e)| (n, t, e)))
            .collect()
    }

    /// The True and False targets of a branching node.
    pub fn branches(&self, n: NodeIndex) -> Option<(NodeIndex, NodeIndex)> {
        let succ = self.successors(n);
        let find = |want: &Edge| succ.iter().find(|(_, e)| *e == want).map(|(t, _)| *t);
        Some((find(&Edge::True)?, find(&Edge::False)?))
    }

    /// The node holding statement `id`, if any (a linear search).
    pub fn node_of(&self, id: StmtId) -> Option<NodeIndex> {
        self.nodes()
            .find(|&n| self.graph[n].stmts.iter().any(|s| s.id == id))
    }

    /// Which nodes can be reached from the entry (by any edge), indexed by node.
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.graph.node_count()];
        let mut stack = vec![self.entry];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n.index()], true) {
                continue;
            }
            stack.extend(self.graph.neighbors_directed(n, Direction::Outgoing));
        }
        seen
    }
}
