//! Live variables as the course computes them: backward, may (union), over uses. A fact
//! `x@L5` is the use of `x` at line 5, live where some path reaches it before `x` is bound
//! again; the live variables at a point are the names of its facts.

use std::collections::BTreeSet;
use std::ops::Range;

use petgraph::graph::NodeIndex;

use super::per_node::PerNode;
use super::program::Program;
use super::sites::{SiteKey, Sites};
use super::{FactAnalysis, FactReport, report};
use crate::cfg::Edge;
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction, FixpointError, Options, iterate_to_fixpoint};

/// Liveness over a program's CFG.
pub struct LiveVariables<'p> {
    pub sites: Sites,
    program: &'p Program<'p>,
    /// Per node: the uses it makes, and the ranges of uses it kills first (those of the
    /// names it binds or deletes).
    gens: PerNode<usize>,
    kills: PerNode<Range<usize>>,
    /// Per node: the ranges of uses its True edge kills (a `for` target, a `case` pattern).
    branch_kills: PerNode<Range<usize>>,
}

impl<'p> LiveVariables<'p> {
    pub fn new(program: &'p Program<'p>) -> Self {
        let locals = program.locals();
        let locals: BTreeSet<&str> = locals.iter().map(String::as_str).collect();
        let tracked = |v: &String| !program.is_function || locals.contains(v.as_str());
        let mut all = Vec::new();
        for n in program.cfg.nodes() {
            all.extend(
                program
                    .info(n)
                    .uses
                    .iter()
                    .filter(|v| tracked(v))
                    .map(|v| SiteKey {
                        var: v,
                        line: program.line(n),
                        node: n.index() as u32,
                    }),
            );
        }
        let (sites, number) = Sites::numbered(&all);
        let mut numbers = number.into_iter();
        let (mut gens, mut kills, mut branch_kills) =
            (PerNode::default(), PerNode::default(), PerNode::default());
        for n in program.cfg.nodes() {
            let info = program.info(n);
            let count = info.uses.iter().filter(|v| tracked(v)).count();
            gens.push(numbers.by_ref().take(count));
            kills.push(sites.ranges(&info.defs).chain(sites.ranges(&info.deletes)));
            branch_kills.push(sites.ranges(&info.branch_defs));
        }
        LiveVariables {
            sites,
            program,
            gens,
            kills,
            branch_kills,
        }
    }

    /// The variables live at a point: the names of its use facts, sorted and unique.
    pub fn variables(&self, state: &BitSet) -> Vec<String> {
        let mut names: Vec<String> = state
            .iter()
            .filter_map(|i| self.sites.get(i).map(|s| s.var.clone()))
            .collect();
        names.dedup();
        names
    }
}

impl Analysis for LiveVariables<'_> {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Backward;

    fn bottom(&self) -> BitSet {
        self.sites.universe.empty_set()
    }

    fn boundary(&self) -> BitSet {
        self.sites.universe.empty_set()
    }

    /// `IN = uses ∪ (OUT − uses of the names bound or deleted here)`.
    fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
        let n = node.index();
        for r in self.kills.get(n) {
            state.remove_range(r.clone());
        }
        for &i in self.gens.get(n) {
            state.insert(i);
        }
    }

    /// A `for` target (a `case` pattern) is bound on the True edge, before the body runs.
    fn edge_effect(
        &self,
        source: NodeIndex,
        edge: &Edge,
        _: NodeIndex,
        state: &BitSet,
    ) -> Option<BitSet> {
        if *edge != Edge::True || self.program.info(source).branch_defs.is_empty() {
            return None;
        }
        let mut out = state.clone();
        for r in self.branch_kills.get(source.index()) {
            out.remove_range(r.clone());
        }
        Some(out)
    }
}

impl FactAnalysis for LiveVariables<'_> {
    const NAME: &'static str = "live";
    const ALIASES: &'static [&'static str] = &["liveness", "live-variables"];
    const TITLE: &'static str = "live variables";
    const LEGEND: &'static str = "x@L5 is the use of x at line 5; a use is live where some path reaches it before x is bound again, so x is live there. OUT is the course's LIVE-OUT.";
    const HELP: &'static str =
        "live variables (aliases liveness, live-variables): backward, may, over uses as in
the course: x@L5 is the use of x at line 5, live until x is bound again";
    const DIRECTION: Direction = Direction::Backward;

    fn run(program: &Program<'_>, options: &Options<'_>) -> Result<FactReport, FixpointError> {
        let r = iterate_to_fixpoint(&program.cfg, LiveVariables::new(program), options)?;
        Ok(report::<Self, _>(program, &r, |s| {
            r.analysis.sites.labels_of(s)
        }))
    }
}
