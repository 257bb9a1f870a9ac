//! Live variables as the course computes them: backward, may (union), over uses. A fact
//! `x@L5` is the use of `x` at line 5, live where some path reaches it before `x` is bound
//! again; the live variables at a point are the names of its facts.

use petgraph::graph::NodeIndex;

use super::program::Program;
use super::sites::{Site, Sites};
use crate::cfg::Edge;
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction};

/// Liveness over a program's CFG.
pub struct LiveVariables<'p> {
    pub sites: Sites,
    program: &'p Program<'p>,
    /// Per node: the uses it makes.
    gens: Vec<Vec<usize>>,
}

impl<'p> LiveVariables<'p> {
    pub fn new(program: &'p Program<'p>) -> Self {
        let site = |n: NodeIndex, var: &str| Site {
            var: var.to_string(),
            line: program.line(n),
            node: n.index() as u32,
        };
        let locals = program.locals();
        let tracked = |v: &String| !program.is_function || locals.contains(v);
        let sites = Sites::new(program.cfg.nodes().flat_map(|n| {
            program
                .info(n)
                .uses
                .iter()
                .filter(|v| tracked(v))
                .map(move |v| site(n, v))
        }));
        let gens = program
            .cfg
            .nodes()
            .map(|n| {
                program
                    .info(n)
                    .uses
                    .iter()
                    .filter_map(|v| sites.index(&site(n, v)))
                    .collect()
            })
            .collect();
        LiveVariables {
            sites,
            program,
            gens,
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
        let info = self.program.info(node);
        for v in info.defs.iter().chain(&info.deletes) {
            self.sites.kill(state, v);
        }
        for &i in &self.gens[node.index()] {
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
        let bound = &self.program.info(source).branch_defs;
        if *edge != Edge::True || bound.is_empty() {
            return None;
        }
        let mut out = state.clone();
        for v in bound {
            self.sites.kill(&mut out, v);
        }
        Some(out)
    }
}
