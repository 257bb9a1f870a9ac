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

use super::engine::{Analysis, Direction, FixpointError, Options, Results};
pub use super::report::{FactReport, NodeFacts};
use super::report::{Report, Source};
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

/// The facts of `results` as a report of analysis `F`, each state shown by `facts`.
pub(crate) fn report<F: FactAnalysis, A: Analysis>(
    program: &Program<'_>,
    results: &Results<'_, A>,
    facts: impl Fn(&A::Domain) -> Vec<String>,
) -> FactReport {
    let source = Source::Dataflow {
        title: F::TITLE,
        legend: F::LEGEND,
        quantifier: if F::MUST { "must" } else { "may" },
    };
    Report::new(
        F::NAME,
        source,
        program,
        results,
        &results.node_states(),
        facts,
    )
}

#[cfg(test)]
mod tests;
