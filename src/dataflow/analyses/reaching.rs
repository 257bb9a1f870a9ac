//! Reaching definitions: forward, may (union). A fact `x@L3` is the definition of `x` at line
//! 3; parameters are definitions at the `def` line (the entry node).

use petgraph::graph::NodeIndex;

use super::program::Program;
use super::sites::{Site, Sites};
use crate::cfg::Edge;
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction};

/// Reaching definitions over a program's CFG.
pub struct ReachingDefinitions<'p> {
    pub sites: Sites,
    program: &'p Program<'p>,
    /// Per node: the sites it defines whenever it completes.
    gens: Vec<Vec<usize>>,
    /// Per node: the sites its True edge defines (a `for` target, a `case` pattern).
    branch_gens: Vec<Vec<usize>>,
}

impl<'p> ReachingDefinitions<'p> {
    pub fn new(program: &'p Program<'p>) -> Self {
        let site = |n: NodeIndex, var: &str| Site {
            var: var.to_string(),
            line: program.line(n),
            node: n.index() as u32,
        };
        let mut all = Vec::new();
        for n in program.cfg.nodes() {
            let info = program.info(n);
            all.extend(
                info.defs
                    .iter()
                    .chain(&info.branch_defs)
                    .map(|v| site(n, v)),
            );
        }
        let sites = Sites::new(all);
        let index = |n: NodeIndex, vars: &[String]| -> Vec<usize> {
            vars.iter()
                .filter_map(|v| sites.index(&site(n, v)))
                .collect()
        };
        let gens = program
            .cfg
            .nodes()
            .map(|n| index(n, &program.info(n).defs))
            .collect();
        let branch_gens = program
            .cfg
            .nodes()
            .map(|n| index(n, &program.info(n).branch_defs))
            .collect();
        ReachingDefinitions {
            sites,
            program,
            gens,
            branch_gens,
        }
    }

    /// Kills every definition of the variables of `new` and adds `new`.
    fn define(&self, state: &mut BitSet, new: &[usize]) {
        for &i in new {
            if let Some(s) = self.sites.get(i) {
                self.sites.kill(state, &s.var);
            }
        }
        for &i in new {
            state.insert(i);
        }
    }
}

impl Analysis for ReachingDefinitions<'_> {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Forward;

    fn bottom(&self) -> BitSet {
        self.sites.universe.empty_set()
    }

    fn boundary(&self) -> BitSet {
        self.sites.universe.empty_set()
    }

    fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
        for v in &self.program.info(node).deletes {
            self.sites.kill(state, v);
        }
        self.define(state, &self.gens[node.index()]);
    }

    fn edge_effect(
        &self,
        source: NodeIndex,
        edge: &Edge,
        _: NodeIndex,
        state: &BitSet,
    ) -> Option<BitSet> {
        let new = &self.branch_gens[source.index()];
        if *edge != Edge::True || new.is_empty() {
            return None;
        }
        let mut out = state.clone();
        self.define(&mut out, new);
        Some(out)
    }
}
