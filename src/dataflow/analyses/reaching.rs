//! Reaching definitions: forward, may (union). A fact `x@L3` is the definition of `x` at line
//! 3; parameters are definitions at the `def` line (the entry node).

use std::ops::Range;

use petgraph::graph::NodeIndex;

use super::per_node::PerNode;
use super::program::Program;
use super::sites::{SiteKey, Sites};
use super::{FactAnalysis, FactReport, report};
use crate::cfg::Edge;
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction, FixpointError, Options, iterate_to_fixpoint};

/// Reaching definitions over a program's CFG.
pub struct ReachingDefinitions {
    pub sites: Sites,
    /// Per node: the sites it defines whenever it completes, and the ranges of sites it kills
    /// first (those of the variables it deletes or defines).
    gens: PerNode<usize>,
    kills: PerNode<Range<usize>>,
    /// Per node: the sites its True edge defines (a `for` target, a `case` pattern), and the
    /// ranges they kill.
    branch_gens: PerNode<usize>,
    branch_kills: PerNode<Range<usize>>,
}

impl ReachingDefinitions {
    pub fn new(program: &Program<'_>) -> Self {
        let mut all = Vec::new();
        for n in program.cfg.nodes() {
            let info = program.info(n);
            all.extend(info.defs.iter().chain(&info.branch_defs).map(|v| SiteKey {
                var: v,
                line: program.line(n),
                node: n.index() as u32,
            }));
        }
        let (sites, number) = Sites::numbered(&all);
        let mut numbers = number.into_iter();
        let (mut gens, mut kills) = (PerNode::default(), PerNode::default());
        let (mut branch_gens, mut branch_kills) = (PerNode::default(), PerNode::default());
        for n in program.cfg.nodes() {
            let info = program.info(n);
            let defined: Vec<usize> = numbers.by_ref().take(info.defs.len()).collect();
            let branch: Vec<usize> = numbers.by_ref().take(info.branch_defs.len()).collect();
            kills.push(sites.ranges(&info.deletes).chain(sites.ranges(&info.defs)));
            gens.push(defined);
            branch_kills.push(sites.ranges(&info.branch_defs));
            branch_gens.push(branch);
        }
        ReachingDefinitions {
            sites,
            gens,
            kills,
            branch_gens,
            branch_kills,
        }
    }
}

/// Kills the ranges, then adds the new sites.
fn define(state: &mut BitSet, kills: &[Range<usize>], new: &[usize]) {
    for r in kills {
        state.remove_range(r.clone());
    }
    for &i in new {
        state.insert(i);
    }
}

impl Analysis for ReachingDefinitions {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Forward;

    fn bottom(&self) -> BitSet {
        self.sites.universe.empty_set()
    }

    fn boundary(&self) -> BitSet {
        self.sites.universe.empty_set()
    }

    fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
        let n = node.index();
        define(state, self.kills.get(n), self.gens.get(n));
    }

    fn edge_effect(
        &self,
        source: NodeIndex,
        edge: &Edge,
        _: NodeIndex,
        state: &BitSet,
    ) -> Option<BitSet> {
        let n = source.index();
        let new = self.branch_gens.get(n);
        if *edge != Edge::True || new.is_empty() {
            return None;
        }
        let mut out = state.clone();
        define(&mut out, self.branch_kills.get(n), new);
        Some(out)
    }
}

impl FactAnalysis for ReachingDefinitions {
    const NAME: &'static str = "reaching";
    const ALIASES: &'static [&'static str] = &["reaching-definitions"];
    const TITLE: &'static str = "reaching definitions";
    const LEGEND: &'static str = "x@L3 is the definition of x at line 3 (parameters: the def line); IN = definitions that may reach the statement.";
    const HELP: &'static str =
        "reaching definitions (alias reaching-definitions): forward, may; x@L3 is the
definition of x at line 3, parameters are defined at the def line";
    const DIRECTION: Direction = Direction::Forward;

    fn run(program: &Program<'_>, options: &Options<'_>) -> Result<FactReport, FixpointError> {
        let r = iterate_to_fixpoint(&program.cfg, ReachingDefinitions::new(program), options)?;
        Ok(report::<Self, _>(program, &r, |s| {
            r.analysis.sites.labels_of(s)
        }))
    }
}
