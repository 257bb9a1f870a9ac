//! The symbolic execution tree: nodes (path condition, store, next statement, status), the
//! leaves with their outcomes and witnesses, and the figures about how it was built.

use std::fmt;
use std::sync::Arc;

use crate::python::PyValue;
use crate::symbolic::{Sort, Term};

/// A node's position in [`Tree::nodes`] (ids are given in depth-first pre-order).
pub type NodeId = usize;

/// What a variable holds: a term, `None` (a function that returned nothing), a function
/// defined by the program, or a caught exception (`except E as e`).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Term(Term),
    None,
    /// The key of a prepared function and its name.
    Function {
        key: String,
        name: String,
    },
    Exception(Exc),
    /// What an expression the symbolic interpreter does not model produced ("havoc"), with
    /// the note saying which: anything at all. Paths through it are approximate.
    Havoc(String),
    /// A dict or set of known structure (see [`crate::symbolic::mapping`]).
    Mapping(crate::symbolic::mapping::Mapping),
}

/// An exception as the tree reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exc {
    /// `ZeroDivisionError`, or a class the program defines.
    pub type_name: String,
    pub message: Message,
}

/// The text of an exception (`str(e)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Known(String),
    /// `str(term)`: the message depends on the inputs.
    Of(Term),
    /// `repr(term)`: a `KeyError`'s message (`str(KeyError(k))` is `repr(k)`).
    Repr(Term),
    /// Several operations could have raised it, with different messages.
    Unknown,
}

/// How a path ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A `return` (of a function, or at the top level of a snippet).
    Return(Value),
    /// An exception nobody caught.
    Exception(Exc),
    /// A snippet ran to its end.
    Normal,
    /// A bound cut the path (loop unrolling or recursion depth); the reason says which.
    Bound(String),
    /// A branch the solver proved infeasible (kept only on request).
    Unsat,
}

/// A node's kind, as the JSON payload names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Inner,
    /// A path that returned or ran to its end.
    Leaf,
    Exception,
    Unsat,
    Bound,
}

/// One node: the state before `statement` runs (for leaves, the final state).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: NodeId,
    pub parent: Option<NodeId>,
    /// The next statement (a compound statement's header); empty for leaves.
    pub statement: Arc<str>,
    pub line: Option<u32>,
    /// The function whose frame is running (`None` at the entry's own level).
    pub frame: Option<Arc<str>>,
    /// The path condition, one constraint per item (constraints implied by others left out).
    pub path_condition: Arc<Vec<Term>>,
    /// The current frame's variables, in the order they were first assigned.
    pub store: Arc<Vec<(Arc<str>, Arc<Value>)>>,
    pub status: Status,
    /// The solver could not decide whether this path is feasible (a timeout, nonlinear
    /// arithmetic): it is kept.
    pub undecided: bool,
}

/// A leaf: where a path ended, how, and an input that takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub node: NodeId,
    /// The conjunction of the node's path condition.
    pub path_condition: Term,
    pub outcome: Outcome,
    /// Input values from the solver's model, one index into [`Tree::values`] per name of
    /// [`Tree::witness_names`] ([`Tree::witness`] reads it); `None` when the solver could
    /// not decide.
    pub witness: Option<Box<[u32]>>,
}

/// Counters of the work done, for the report and the bench.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Feasibility checks of branches.
    pub branch_checks: u64,
    /// Checks that an older constraint is implied by a new one (the book's pruning).
    pub implication_checks: u64,
    /// Checks made only to find a witness for a leaf.
    pub witness_checks: u64,
    /// Branches pruned as unsatisfiable.
    pub pruned: u64,
    /// Branches and implications decided by syntax (a constraint on the path, or its
    /// negation) without the solver.
    pub syntactic: u64,
    /// Questions answered from the cache of earlier answers without the solver.
    pub cache_hits: u64,
    /// Microseconds in the solver's branch and witness checks.
    pub check_us: u64,
    /// Microseconds in the solver's implication checks.
    pub implication_us: u64,
    /// Questions answered "unknown" (or "not implied") without a check because the
    /// exploration's solver time budget was spent.
    pub past_budget: u64,
    /// Checks that spent all the resource units they were given (`Options::resource_limit`).
    pub exhausted: u64,
}

/// A symbolic execution tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The function's name, or `<cell>` for a snippet.
    pub function: String,
    /// The solver's inputs: the parameters, a dict or set parameter by its hidden inputs.
    pub inputs: Vec<(String, Sort)>,
    /// The parameters of several inputs (dicts, sets, optionals).
    pub packed: Vec<crate::symexec::packed::Packed>,
    pub unroll: u64,
    pub nodes: Vec<Node>,
    /// In node order.
    pub leaves: Vec<Leaf>,
    /// The node limit stopped exploration.
    pub truncated: bool,
    /// States left unexplored when the node limit was reached.
    pub unexplored: usize,
    pub node_limit: usize,
    pub stats: Stats,
    /// The inputs a witness names, in the order it names them.
    pub witness_names: Vec<String>,
    /// The input values of the witnesses, each stored once.
    pub values: Vec<PyValue>,
    /// Notes of the nodes reached by a step that did not model something ("havoc: the
    /// method .append(), line 4"), by node.
    pub havoc: Vec<(NodeId, Vec<String>)>,
    /// Leaves whose path went through a havoc: their path condition, outcome and witness
    /// are not exact, and `%check` does not judge them.
    pub approximate: Vec<NodeId>,
    /// Notes on the inputs' types (inferred for parameters without annotation).
    pub inferred: Vec<String>,
    /// Docstring preconditions assumed at the root (text, condition).
    pub preconditions: Vec<(String, Term)>,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Inner => "inner",
            Status::Leaf => "leaf",
            Status::Exception => "exception",
            Status::Unsat => "unsat",
            Status::Bound => "bound",
        }
    }
}

impl Outcome {
    pub fn status(&self) -> Status {
        match self {
            Outcome::Return(_) | Outcome::Normal => Status::Leaf,
            Outcome::Exception(_) => Status::Exception,
            Outcome::Bound(_) => Status::Bound,
            Outcome::Unsat => Status::Unsat,
        }
    }
}

impl Tree {
    /// Paths cut by a bound (each is a `bound` leaf).
    pub fn cut_paths(&self) -> usize {
        self.leaves
            .iter()
            .filter(|l| matches!(l.outcome, Outcome::Bound(_)))
            .count()
    }

    /// Solver checks of every kind.
    pub fn solver_calls(&self) -> u64 {
        self.stats.branch_checks + self.stats.implication_checks + self.stats.witness_checks
    }

    /// The children of `id`, in order.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(move |n| n.parent == Some(id))
    }

    /// The input values of `leaf`'s witness, by name.
    pub fn witness(&self, leaf: &Leaf) -> Option<Vec<(String, PyValue)>> {
        let w = leaf.witness.as_ref()?;
        self.witness_names
            .iter()
            .zip(w.iter())
            .map(|(n, &i)| Some((n.clone(), self.values.get(i as usize)?.clone())))
            .collect()
    }

    /// The arguments of `leaf`'s witness: its inputs with each packed parameter's inputs
    /// made the parameter's value.
    pub fn witness_arguments(&self, leaf: &Leaf) -> Option<Vec<(String, PyValue)>> {
        self.witness(leaf)
            .map(|w| crate::symexec::packed::pack_all(&self.packed, &w))
    }

    /// The parameters runs pass, with their types as shown (`int`, `dict[str, int]`).
    pub fn parameters(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (n, s) in &self.inputs {
            match self.packed.iter().find(|p| p.has_input(n)) {
                Some(p) if p.inputs().first().is_some_and(|(first, _)| first == n) => {
                    out.push((p.name.clone(), p.describe()))
                }
                Some(_) => {}
                None => out.push((n.clone(), s.to_string())),
            }
        }
        out
    }

    /// Whether the path to leaf `node` went through a havoc.
    pub fn is_approximate(&self, node: NodeId) -> bool {
        self.approximate.binary_search(&node).is_ok()
    }

    /// The havoc notes of `node`.
    pub fn havoc_notes(&self, node: NodeId) -> &[String] {
        self.havoc
            .binary_search_by_key(&node, |(n, _)| *n)
            .map_or(&[], |i| self.havoc[i].1.as_slice())
    }

    pub fn leaf_of(&self, node: NodeId) -> Option<&Leaf> {
        self.leaves.iter().find(|l| l.node == node)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Term(t) => write!(f, "{t}"),
            Value::None => f.write_str("None"),
            Value::Function { name, .. } => write!(f, "<function {name}>"),
            Value::Exception(e) => write!(f, "{}({})", e.type_name, e.message.repr()),
            Value::Havoc(_) => f.write_str("?"),
            Value::Mapping(m) => write!(f, "{m}"),
        }
    }
}

impl Message {
    /// The message of a `KeyError` for `key`: `str(KeyError(k))` is `repr(k)`.
    pub fn of_key(key: &Term) -> Message {
        match key.literal() {
            Some(_) => Message::Known(key.to_string()),
            None => Message::Repr(key.clone()),
        }
    }

    /// The message as Python source: `'text'`, `str(x)`, `...`.
    pub fn repr(&self) -> String {
        match self {
            Message::Known(s) if s.is_empty() => String::new(),
            Message::Known(s) => crate::python::value::str_repr(s),
            Message::Of(t) => format!("str({t})"),
            Message::Repr(t) => format!("repr({t})"),
            Message::Unknown => "...".into(),
        }
    }

    /// The text shown after `Type: `.
    pub fn text(&self) -> String {
        match self {
            Message::Known(s) => s.clone(),
            Message::Of(t) => format!("str({t})"),
            Message::Repr(t) => format!("repr({t})"),
            Message::Unknown => "(message depends on the operation that raised)".into(),
        }
    }
}

impl fmt::Display for Exc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.message {
            Message::Known(s) if s.is_empty() => f.write_str(&self.type_name),
            m => write!(f, "{}: {}", self.type_name, m.text()),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Return(v) => write!(f, "return {v}"),
            Outcome::Exception(e) => write!(f, "raises {e}"),
            Outcome::Normal => f.write_str("normal end"),
            Outcome::Bound(reason) => write!(f, "bound reached: {reason}"),
            Outcome::Unsat => f.write_str("unsatisfiable"),
        }
    }
}
