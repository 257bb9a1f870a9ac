//! The result of a dataflow analysis or of abstract interpretation on one program, in one type,
//! [`Report`]: each node's facts before and after its statement (text sets for the classic
//! analyses, abstract states for `absint`), the worklist trace, the engine's counts, and what
//! only one side has (the def-use chains; the variables and warnings of abstract
//! interpretation). `%dataflow` and `%absint` draw it with one view.

use petgraph::graph::NodeIndex;

use super::absint::{StateView, Warning};
use super::analyses::{DefUse, Program};
use super::engine::{Analysis, Cause, Direction, NodeStates, Phase, Results};

/// Which command's report this is, with what only that side shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A classic analysis: its title, the legend of its facts, `may` or `must`.
    Dataflow {
        title: &'static str,
        legend: &'static str,
        quantifier: &'static str,
    },
    /// Abstract interpretation.
    Absint,
}

/// One node's facts before (`IN`) and after (`OUT`) its statement.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFacts<F> {
    pub node: NodeIndex,
    pub before: F,
    pub after: F,
}

/// One worklist step with the node's facts before and after the visit.
#[derive(Clone, Debug, PartialEq)]
pub struct FactStep<F> {
    pub step: usize,
    pub node: NodeIndex,
    pub cause: Cause,
    pub phase: Phase,
    pub widened: bool,
    pub old_in: F,
    pub new_in: F,
    pub old_out: F,
    pub new_out: F,
}

/// An analysis' result on one program, with facts of form `F` per node.
#[derive(Clone, Debug, PartialEq)]
pub struct Report<F> {
    /// The analysis' or the domain's name.
    pub name: &'static str,
    pub source: Source,
    pub function: String,
    pub direction: Direction,
    /// Every node, in node order.
    pub nodes: Vec<NodeFacts<F>>,
    /// The worklist steps, when asked for.
    pub trace: Vec<FactStep<F>>,
    /// Node visits until the fixpoint.
    pub iterations: u64,
    pub widenings: u64,
    pub narrowing_rounds: u32,
    pub loop_heads: Vec<NodeIndex>,
    /// The variables shown, sorted (abstract interpretation).
    pub variables: Vec<String>,
    /// Division and index warnings (abstract interpretation).
    pub warnings: Vec<Warning>,
    /// The def-use chains (def-use only).
    pub chains: Option<Vec<DefUse>>,
}

/// A classic analysis' report: facts as sorted text.
pub type FactReport = Report<Vec<String>>;

/// Abstract interpretation's report: a state per node.
pub type AbsReport = Report<StateView>;

impl<F> Report<F> {
    /// The report of `results` with node states `states`, each state shown by `show`.
    pub fn new<A: Analysis>(
        name: &'static str,
        source: Source,
        program: &Program<'_>,
        results: &Results<'_, A>,
        states: &[NodeStates<A::Domain>],
        show: impl Fn(&A::Domain) -> F,
    ) -> Report<F> {
        let nodes = states
            .iter()
            .enumerate()
            .map(|(i, s)| NodeFacts {
                node: NodeIndex::new(i),
                before: show(&s.before),
                after: show(&s.after),
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
                old_in: show(&s.old_in),
                new_in: show(&s.new_in),
                old_out: show(&s.old_out),
                new_out: show(&s.new_out),
            })
            .collect();
        Report {
            name,
            source,
            function: program.cfg.name.clone(),
            direction: A::DIRECTION,
            nodes,
            trace,
            iterations: results.stats.iterations,
            widenings: results.stats.widenings,
            narrowing_rounds: results.stats.narrowing_rounds,
            loop_heads: results.layout.loop_heads(),
            variables: Vec::new(),
            warnings: Vec::new(),
            chains: None,
        }
    }
}
