//! The classic dataflow analyses on the fixpoint engine, over bit sets of facts:
//!
//! | analysis | direction | join | facts |
//! | --- | --- | --- | --- |
//! | reaching definitions | forward | ∪ | definitions `x@L3` |
//! | live variables | backward | ∪ | uses `x@L5` (the course's liveness over uses) |
//! | available expressions | forward | ∩ | expressions `a + b` |
//! | very busy expressions | backward | ∩ | expressions `a + b` |
//! | def-use chains | (from reaching definitions) | | `x@L3→L5` |
//!
//! Each is a [`FactAnalysis`], a row of [`crate::dataflow::registry::ANALYSES`]; its `run`
//! computes it on a [`Program`] and reports each node's facts as text.

pub mod available;
pub mod def_use;
pub mod expr_sets;
pub mod expressions;
pub mod live;
pub mod per_node;
pub mod program;
pub mod reaching;
pub mod sites;
pub mod very_busy;

use petgraph::graph::NodeIndex;

use super::engine::{Analysis, Cause, Direction, FixpointError, Options, Phase, Results};
pub use available::AvailableExpressions;
pub use def_use::{DefUse, DefUseChains};
pub use live::LiveVariables;
pub use program::{NodeInfo, Program};
pub use reaching::ReachingDefinitions;
pub use very_busy::VeryBusyExpressions;

/// A dataflow analysis `%dataflow` offers: its row of [`crate::dataflow::registry::ANALYSES`].
pub trait FactAnalysis {
    /// The name in commands and JSON.
    const NAME: &'static str;
    /// Other names `%dataflow` accepts.
    const ALIASES: &'static [&'static str] = &[];
    const TITLE: &'static str;
    /// What a fact means, for the views.
    const LEGEND: &'static str;
    /// Its lines in `%help dataflow` (after the name).
    const HELP: &'static str;
    const DIRECTION: Direction;
    /// Whether the join is intersection (`must`) rather than union (`may`).
    const MUST: bool = false;

    /// Runs the analysis on `program`.
    fn run(program: &Program<'_>, options: &Options<'_>) -> Result<FactReport, FixpointError>;
}

/// One node's facts before (`IN`) and after (`OUT`) its statement, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeFacts {
    pub node: NodeIndex,
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// One worklist step with the node's facts before and after the visit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactStep {
    pub step: usize,
    pub node: NodeIndex,
    pub cause: Cause,
    pub phase: Phase,
    pub widened: bool,
    pub old_in: Vec<String>,
    pub new_in: Vec<String>,
    pub old_out: Vec<String>,
    pub new_out: Vec<String>,
}

/// An analysis' result on one program, as text facts per node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactReport {
    /// The analysis' name, title, legend and `may`/`must`.
    pub analysis: &'static str,
    pub title: &'static str,
    pub legend: &'static str,
    pub quantifier: &'static str,
    pub function: String,
    pub direction: Direction,
    /// Every node, in node order.
    pub nodes: Vec<NodeFacts>,
    /// Node visits until the fixpoint.
    pub iterations: u64,
    /// The worklist steps, when asked for.
    pub trace: Vec<FactStep>,
    /// The def-use chains (def-use only).
    pub chains: Option<Vec<DefUse>>,
}

/// The facts of `results` as a report of analysis `F`, each state shown by `facts`.
pub(crate) fn report<F: FactAnalysis, A: Analysis>(
    program: &Program<'_>,
    results: &Results<'_, A>,
    facts: impl Fn(&A::Domain) -> Vec<String>,
) -> FactReport {
    let nodes = results
        .node_states()
        .iter()
        .enumerate()
        .map(|(i, s)| NodeFacts {
            node: NodeIndex::new(i),
            before: facts(&s.before),
            after: facts(&s.after),
        })
        .collect();
    let trace = results
        .trace
        .iter()
        .map(|s| FactStep {
            step: s.step,
            node: s.node,
            cause: s.cause.clone(),
            phase: s.phase,
            widened: s.widened,
            old_in: facts(&s.old_in),
            new_in: facts(&s.new_in),
            old_out: facts(&s.old_out),
            new_out: facts(&s.new_out),
        })
        .collect();
    FactReport {
        analysis: F::NAME,
        title: F::TITLE,
        legend: F::LEGEND,
        quantifier: if F::MUST { "must" } else { "may" },
        function: program.cfg.name.clone(),
        direction: A::DIRECTION,
        nodes,
        iterations: results.stats.iterations,
        trace,
        chains: None,
    }
}

#[cfg(test)]
mod tests;
