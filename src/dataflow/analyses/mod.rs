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
//! [`run`] computes one on a [`Program`] and reports each node's facts as text.

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

use super::bitset::BitSet;
use super::engine::{
    Analysis, Cause, Direction, FixpointError, Options, Phase, Results, iterate_to_fixpoint,
};
pub use available::AvailableExpressions;
pub use def_use::DefUse;
pub use live::LiveVariables;
pub use program::{NodeInfo, Program};
pub use reaching::ReachingDefinitions;
pub use very_busy::VeryBusyExpressions;

/// The analyses `%dataflow` offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AnalysisKind {
    Reaching,
    Live,
    Available,
    VeryBusy,
    DefUse,
}

/// A name that is none of the analyses or their aliases.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown analysis {0:?}: choose one of reaching, live, available, very-busy, def-use")]
pub struct UnknownAnalysis(pub String);

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
    pub kind: AnalysisKind,
    pub function: String,
    pub direction: Direction,
    /// Every node, in node order.
    pub nodes: Vec<NodeFacts>,
    /// Node visits until the fixpoint.
    pub iterations: u64,
    /// The worklist steps, when asked for.
    pub trace: Vec<FactStep>,
    /// The def-use chains (def-use only).
    pub chains: Vec<DefUse>,
}

impl AnalysisKind {
    pub const ALL: [AnalysisKind; 5] = [
        AnalysisKind::Reaching,
        AnalysisKind::Live,
        AnalysisKind::Available,
        AnalysisKind::VeryBusy,
        AnalysisKind::DefUse,
    ];

    /// Every name and alias `parse` accepts.
    pub const WORDS: &'static [&'static str] = &[
        "reaching",
        "reaching-definitions",
        "live",
        "liveness",
        "live-variables",
        "available",
        "available-expressions",
        "very-busy",
        "very-busy-expressions",
        "def-use",
    ];

    /// The name in commands and JSON.
    pub fn name(self) -> &'static str {
        match self {
            AnalysisKind::Reaching => "reaching",
            AnalysisKind::Live => "live",
            AnalysisKind::Available => "available",
            AnalysisKind::VeryBusy => "very-busy",
            AnalysisKind::DefUse => "def-use",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            AnalysisKind::Reaching => "reaching definitions",
            AnalysisKind::Live => "live variables",
            AnalysisKind::Available => "available expressions",
            AnalysisKind::VeryBusy => "very busy expressions",
            AnalysisKind::DefUse => "def-use chains",
        }
    }

    /// What a fact means, for the views.
    pub fn legend(self) -> &'static str {
        match self {
            AnalysisKind::Reaching => {
                "x@L3 is the definition of x at line 3 (parameters: the def line); IN = definitions that may reach the statement."
            }
            AnalysisKind::Live => {
                "x@L5 is the use of x at line 5; a use is live where some path reaches it before x is bound again, so x is live there. OUT is the course's LIVE-OUT."
            }
            AnalysisKind::Available => {
                "An expression is available where every path has evaluated it since its variables were last bound."
            }
            AnalysisKind::VeryBusy => {
                "An expression is very busy where every path evaluates it before any of its variables is bound again."
            }
            AnalysisKind::DefUse => {
                "x@L2→L5: the definition of x at line 2 reaches the use of x at line 5. IN lists the chains of the uses in the statement, OUT those of its definitions."
            }
        }
    }

    pub fn direction(self) -> Direction {
        match self {
            AnalysisKind::Live | AnalysisKind::VeryBusy => Direction::Backward,
            _ => Direction::Forward,
        }
    }

    /// `may` (join is union) or `must` (join is intersection).
    pub fn quantifier(self) -> &'static str {
        match self {
            AnalysisKind::Available | AnalysisKind::VeryBusy => "must",
            _ => "may",
        }
    }

    pub fn parse(name: &str) -> Result<AnalysisKind, UnknownAnalysis> {
        Ok(match name {
            "reaching" | "reaching-definitions" => AnalysisKind::Reaching,
            "live" | "liveness" | "live-variables" => AnalysisKind::Live,
            "available" | "available-expressions" => AnalysisKind::Available,
            "very-busy" | "very-busy-expressions" => AnalysisKind::VeryBusy,
            "def-use" => AnalysisKind::DefUse,
            _ => return Err(UnknownAnalysis(name.to_string())),
        })
    }
}

/// Runs analysis `kind` on `program`.
pub fn run(
    kind: AnalysisKind,
    program: &Program<'_>,
    options: &Options<'_>,
) -> Result<FactReport, FixpointError> {
    match kind {
        AnalysisKind::Reaching => {
            let r = iterate_to_fixpoint(&program.cfg, ReachingDefinitions::new(program), options)?;
            Ok(report(kind, program, &r, |s| r.analysis.sites.labels_of(s)))
        }
        AnalysisKind::Live => {
            let r = iterate_to_fixpoint(&program.cfg, LiveVariables::new(program), options)?;
            Ok(report(kind, program, &r, |s| r.analysis.sites.labels_of(s)))
        }
        AnalysisKind::Available => {
            let r = iterate_to_fixpoint(&program.cfg, AvailableExpressions::new(program), options)?;
            Ok(report(kind, program, &r, |s| r.analysis.exprs.texts(&s.0)))
        }
        AnalysisKind::VeryBusy => {
            let r = iterate_to_fixpoint(&program.cfg, VeryBusyExpressions::new(program), options)?;
            Ok(report(kind, program, &r, |s| r.analysis.exprs.texts(&s.0)))
        }
        AnalysisKind::DefUse => def_use_report(program, options),
    }
}

/// Reaching definitions, then the chains: IN lists each node's ud-chains, OUT its du-chains.
fn def_use_report(
    program: &Program<'_>,
    options: &Options<'_>,
) -> Result<FactReport, FixpointError> {
    let r = iterate_to_fixpoint(&program.cfg, ReachingDefinitions::new(program), options)?;
    let mut rep = report(AnalysisKind::DefUse, program, &r, |s| {
        r.analysis.sites.labels_of(s)
    });
    let ins: Vec<BitSet> = r.node_states().into_iter().map(|s| s.before).collect();
    let chains = def_use::chains(program, &r.analysis, &ins);
    for facts in &mut rep.nodes {
        facts.before = chains
            .iter()
            .filter(|c| c.use_node == facts.node)
            .map(ToString::to_string)
            .collect();
        let mut defined: Vec<&DefUse> =
            chains.iter().filter(|c| c.def_node == facts.node).collect();
        defined.sort_by(|a, b| (&a.def, a.use_node).cmp(&(&b.def, b.use_node)));
        facts.after = defined.into_iter().map(ToString::to_string).collect();
    }
    rep.chains = chains;
    Ok(rep)
}

fn report<A: Analysis>(
    kind: AnalysisKind,
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
        kind,
        function: program.cfg.name.clone(),
        direction: A::DIRECTION,
        nodes,
        iterations: results.stats.iterations,
        trace,
        chains: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
