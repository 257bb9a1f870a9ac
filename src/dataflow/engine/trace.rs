//! The recorded trace of a fixpoint computation: one step per node visit.

use petgraph::graph::NodeIndex;

use crate::cfg::Edge;

/// What last changed a node's state before a visit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Nothing: the initial pass over every node.
    Start,
    /// The state flowing along this edge (forward from its source, backward from its target;
    /// `from` is the node the state came from). A chain's later nodes name their predecessor.
    Edge { from: NodeIndex, edge: Edge },
    /// A descending (narrowing) pass over every node whose entry state shrank.
    Descending,
}

/// The phase of the computation a step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Joining (and widening at loop heads) up to a post-fixpoint.
    Ascending,
    /// Narrowing the post-fixpoint back down (intervals).
    Narrowing,
}

/// One visit of one node: its states before and after the visit, in program order (`IN`
/// before the statement, `OUT` after it) whatever the analysis' direction.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep<D> {
    /// 1-based.
    pub step: usize,
    pub node: NodeIndex,
    pub cause: Cause,
    pub phase: Phase,
    /// The state entering the node was widened (rather than joined) on this visit.
    pub widened: bool,
    pub old_in: D,
    pub new_in: D,
    pub old_out: D,
    pub new_out: D,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Ascending => "ascending",
            Phase::Narrowing => "narrowing",
        }
    }
}

impl<D: PartialEq> TraceStep<D> {
    pub fn in_changed(&self) -> bool {
        self.old_in != self.new_in
    }

    pub fn out_changed(&self) -> bool {
        self.old_out != self.new_out
    }
}
