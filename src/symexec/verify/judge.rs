//! Reading a harness's tree: which obligations each leaf discharged, which leaf failed
//! which obligation, and which leaves say nothing (bound, approximate, undecided).

use std::collections::BTreeMap;

use super::contract::{Form, Harness, Obligation};
use crate::python::PyValue;
use crate::symexec::{NodeId, Outcome, Tree};

/// An obligation on one leaf's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The failing branch was infeasible on this path: proved.
    Proved,
    /// It holds on this leaf, whose path condition includes it: the inputs failing it are
    /// on the leaf named.
    Holds { failing: NodeId },
    /// This leaf fails it.
    Refuted,
}

/// How a leaf ended, for the verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum LeafStatus {
    /// Returned with every obligation on its path discharged.
    Passed,
    /// Fails the obligation (its index), confirmed by the replay.
    Refuted(usize),
    /// The function raised an exception that no obligation is about.
    Raises(String),
    /// A bound cut the path.
    Bound(String),
    /// The input fails a precondition checked by the harness (not judged).
    Excluded,
    /// Says nothing: approximate, undecided, no witness, or the replay disagreed.
    Unknown(String),
}

/// One leaf's row of the verdict table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub node: NodeId,
    pub path_condition: String,
    pub outcome: String,
    pub status: LeafStatus,
    /// Per obligation index, what this path showed (obligations not on the path absent).
    pub checks: BTreeMap<usize, Check>,
    pub witness: Option<Vec<(String, PyValue)>>,
    /// What the replay of the witness did (refuted leaves only).
    pub replay: Option<String>,
}

/// An obligation a leaf's failure points to, before the replay.
pub struct Candidate {
    pub row: usize,
    pub obligation: usize,
    /// The exception the harness raised on this leaf.
    pub type_name: String,
    /// The function whose line raised it (the harness's name for a postcondition).
    pub function: String,
    /// The exception's message, when the tree knows it.
    pub message: Option<String>,
}

/// Finds the obligation of each `assert` node of the tree: the harness's lines, and (when
/// `body_asserts`) the asserts met inside the functions called, added to `obligations`.
fn obligation_of(
    tree: &Tree,
    node: NodeId,
    harness: &Harness,
    obligations: &mut Vec<Obligation>,
    body_asserts: bool,
) -> Option<usize> {
    let n = &tree.nodes[node];
    // The function rewritten by its loop invariants: its own checks, and its lines read
    // back as the function's.
    let inner = harness.inner.as_ref().filter(|i| {
        n.frame
            .as_deref()
            .is_some_and(|fr| fr == i.name || fr == super::invariant::decreases_helper(&i.function))
    });
    if let Some(i) = inner
        && let Some(o) = n.line.and_then(|l| i.lines.get(&l))
    {
        return Some(*o);
    }
    if let Some(frame) = &n.frame
        && harness.stubs.replaced.iter().any(|r| **r == **frame)
    {
        return n.line.and_then(|l| harness.stubs.lines.get(&l).copied());
    }
    match &n.frame {
        None => n.line.and_then(|l| harness.lines.get(&l).copied()),
        Some(frame) if body_asserts && n.statement.starts_with("assert") => {
            let line = n.line.unwrap_or(0);
            let place = Some(match inner {
                Some(i) => (
                    i.function.clone(),
                    i.original.get(&line).copied().unwrap_or(line),
                ),
                None => (frame.to_string(), line),
            });
            if let Some(i) = obligations.iter().position(|o| o.place == place) {
                return Some(i);
            }
            obligations.push(Obligation {
                label: format!(
                    "A{}",
                    obligations.iter().filter(|o| o.kind == "assert").count() + 1
                ),
                kind: "assert",
                text: n.statement.to_string(),
                place,
                form: Form::Plain,
            });
            Some(obligations.len() - 1)
        }
        Some(_) => None,
    }
}

/// The rows of `tree` and the leaves to replay. `obligations` starts as the harness's and
/// grows by the asserts met.
pub fn rows(
    tree: &Tree,
    harness: &Harness,
    obligations: &mut Vec<Obligation>,
    body_asserts: bool,
) -> (Vec<Row>, Vec<Candidate>) {
    // The obligation of every node that is an assert (or a harness line), and the
    // AssertionError leaves under each assert node.
    let mut owner: Vec<Option<usize>> = Vec::with_capacity(tree.nodes.len());
    for id in 0..tree.nodes.len() {
        let is_check =
            tree.nodes[id].statement.starts_with("assert") || tree.nodes[id].frame.is_none();
        owner.push(if is_check {
            obligation_of(tree, id, harness, obligations, body_asserts)
        } else {
            None
        });
    }
    let mut failing: BTreeMap<NodeId, NodeId> = BTreeMap::new();
    for leaf in &tree.leaves {
        if let (Outcome::Exception(e), Some(p)) = (&leaf.outcome, tree.nodes[leaf.node].parent)
            && e.type_name == "AssertionError"
            && tree.nodes[p].statement.starts_with("assert")
            && owner[p].is_some()
        {
            failing.entry(p).or_insert(leaf.node);
        }
    }
    let mut rows = Vec::new();
    let mut candidates = Vec::new();
    for leaf in &tree.leaves {
        if matches!(leaf.outcome, Outcome::Unsat) {
            continue;
        }
        let node = &tree.nodes[leaf.node];
        let mut checks: BTreeMap<usize, Check> = BTreeMap::new();
        let mut up = node.parent;
        // The assert nodes above the leaf's last step (the last step itself is judged by
        // the outcome).
        let last = node.parent;
        while let Some(id) = up {
            if Some(id) != last
                && tree.nodes[id].statement.starts_with("assert")
                && let Some(o) = owner[id]
            {
                let here = match failing.get(&id) {
                    Some(&f) => Check::Holds { failing: f },
                    None => Check::Proved,
                };
                let slot = checks.entry(o).or_insert(Check::Proved);
                if *slot == Check::Proved {
                    *slot = here;
                }
            }
            up = tree.nodes[id].parent;
        }
        let exact = !tree.is_approximate(leaf.node) && !node.undecided;
        let witness = tree.witness(leaf);
        let status = match &leaf.outcome {
            Outcome::Bound(reason) => LeafStatus::Bound(reason.clone()),
            _ if tree.is_approximate(leaf.node) => LeafStatus::Unknown(format!(
                "approximate: {}",
                approximate_notes(tree, leaf.node).join("; ")
            )),
            _ if node.undecided => {
                LeafStatus::Unknown("the solver could not decide this path".into())
            }
            Outcome::Return(_) | Outcome::Normal
                if last.is_some_and(|p| {
                    tree.nodes[p].frame.is_none()
                        && tree.nodes[p]
                            .line
                            .is_some_and(|l| harness.pre_lines.contains(&l))
                }) =>
            {
                LeafStatus::Excluded
            }
            Outcome::Return(_) | Outcome::Normal => {
                if let Some(last) = last
                    && tree.nodes[last].statement.starts_with("assert")
                    && let Some(o) = owner[last]
                {
                    let here = match failing.get(&last) {
                        Some(&f) => Check::Holds { failing: f },
                        None => Check::Proved,
                    };
                    checks.entry(o).or_insert(here);
                }
                LeafStatus::Passed
            }
            Outcome::Exception(_) if excluded(tree, harness, last) => LeafStatus::Excluded,
            Outcome::Exception(e) => {
                let at = last.and_then(|p| owner[p]);
                match at {
                    Some(o) if exact => {
                        checks.insert(o, Check::Refuted);
                        let function = last
                            .and_then(|p| tree.nodes[p].frame.as_deref().map(str::to_string))
                            .unwrap_or_else(|| harness.name.clone());
                        candidates.push(Candidate {
                            row: rows.len(),
                            obligation: o,
                            type_name: e.type_name.clone(),
                            function,
                            message: match &e.message {
                                crate::symexec::Message::Known(m) => Some(m.clone()),
                                _ => None,
                            },
                        });
                        // Refuted once the replay confirms it.
                        LeafStatus::Unknown("not replayed".into())
                    }
                    _ => LeafStatus::Raises(e.to_string()),
                }
            }
            Outcome::Unsat => continue,
        };
        rows.push(Row {
            node: leaf.node,
            path_condition: if node.path_condition.is_empty() {
                "True".into()
            } else {
                node.path_condition
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            },
            outcome: leaf.outcome.to_string(),
            status,
            checks,
            witness: if exact { witness } else { None },
            replay: None,
        });
    }
    (rows, candidates)
}

/// Whether `last` is a line of the invariant-rewritten function that excludes its path.
fn excluded(tree: &Tree, harness: &Harness, last: Option<NodeId>) -> bool {
    let Some(last) = last else {
        return false;
    };
    let n = &tree.nodes[last];
    let (Some(frame), Some(line)) = (n.frame.as_deref(), n.line) else {
        return false;
    };
    if harness.stubs.replaced.iter().any(|r| r == frame) {
        return harness.stubs.excluded.contains(&line);
    }
    harness
        .inner
        .as_ref()
        .is_some_and(|i| frame == i.name && i.excluded.contains(&line))
}

/// Whether the path to `node` ran from a havocked loop state (see [`super::invariant`]).
pub fn from_loop_state(tree: &Tree, harness: &Harness, node: NodeId) -> bool {
    let Some(inner) = &harness.inner else {
        return false;
    };
    let mut up = Some(node);
    while let Some(id) = up {
        let n = &tree.nodes[id];
        if n.frame.as_deref() == Some(inner.name.as_str())
            && n.line.is_some_and(|l| inner.assumed.contains(&l))
        {
            return true;
        }
        up = n.parent;
    }
    false
}

/// The havoc notes on the path to `node`.
fn approximate_notes(tree: &Tree, node: NodeId) -> Vec<String> {
    let mut notes = Vec::new();
    let mut up = Some(node);
    while let Some(id) = up {
        for n in tree.havoc_notes(id).iter().rev() {
            notes.push(n.clone());
        }
        up = tree.nodes[id].parent;
    }
    notes.reverse();
    notes.dedup();
    notes
}
