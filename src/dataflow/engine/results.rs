//! The result of a fixpoint computation: one stored state per chain, from which every
//! node's IN and OUT are recomputed on demand.

use super::fixpoint::has_exception_edge;
use super::layout::Layout;
use super::trace::TraceStep;
use super::{Analysis, Direction};
use crate::cfg::Cfg;
use crate::dataflow::lattice::JoinSemiLattice;

/// Counts of the work done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Node visits (transfer applications), narrowing included.
    pub iterations: u64,
    /// Chains taken from the worklist.
    pub chain_visits: u64,
    /// Joins at loop heads that widened and changed the state.
    pub widenings: u64,
    /// Narrowing rounds run.
    pub narrowing_rounds: u32,
}

/// A node's states in program order: before its statement (`IN`) and after it (`OUT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeStates<D> {
    pub before: D,
    pub after: D,
}

/// The fixpoint of an analysis on a CFG.
pub struct Results<'c, A: Analysis> {
    pub analysis: A,
    pub cfg: &'c Cfg,
    pub layout: Layout,
    pub stats: Stats,
    /// One step per node visit, when asked for.
    pub trace: Vec<TraceStep<A::Domain>>,
    states: Vec<A::Domain>,
    exc: Vec<Option<A::Domain>>,
}

impl<'c, A: Analysis> Results<'c, A> {
    pub(super) fn new(
        cfg: &'c Cfg,
        analysis: A,
        layout: Layout,
        states: Vec<A::Domain>,
        exc: Vec<Option<A::Domain>>,
        stats: Stats,
        trace: Vec<TraceStep<A::Domain>>,
    ) -> Self {
        Results {
            analysis,
            cfg,
            layout,
            stats,
            trace,
            states,
            exc,
        }
    }

    /// Every node's IN and OUT, by node index. Nodes the analysis never reached (forward:
    /// unreachable from the entry) have `bottom` for both.
    pub fn node_states(&self) -> Vec<NodeStates<A::Domain>> {
        let bottom = self.analysis.bottom();
        let mut out: Vec<Option<NodeStates<A::Domain>>> = vec![None; self.cfg.graph.node_count()];
        for c in 0..self.layout.chains.len() {
            for (n, s) in self.chain_states(c) {
                out[n] = Some(s);
            }
        }
        out.into_iter()
            .map(|s| {
                s.unwrap_or_else(|| NodeStates {
                    before: bottom.clone(),
                    after: bottom.clone(),
                })
            })
            .collect()
    }

    /// The IN and OUT of each node of chain `c`, by node index.
    fn chain_states(&self, c: usize) -> Vec<(usize, NodeStates<A::Domain>)> {
        let chain = &self.layout.chains[c];
        let bottom = self.analysis.bottom();
        if !chain.live {
            return chain
                .nodes
                .iter()
                .map(|n| {
                    let s = NodeStates {
                        before: bottom.clone(),
                        after: bottom.clone(),
                    };
                    (n.index(), s)
                })
                .collect();
        }
        let mut state = self.states[c].clone();
        let mut out = Vec::with_capacity(chain.nodes.len());
        match A::DIRECTION {
            Direction::Forward => {
                for &n in &chain.nodes {
                    let before = state.clone();
                    self.analysis.transfer(n, &mut state);
                    let s = NodeStates {
                        before,
                        after: state.clone(),
                    };
                    out.push((n.index(), s));
                }
            }
            Direction::Backward => {
                let last = chain.nodes.len() - 1;
                for (i, &n) in chain.nodes.iter().enumerate().rev() {
                    let mut after = state.clone();
                    self.analysis.transfer(n, &mut state);
                    if i == last
                        && has_exception_edge(self.cfg, n)
                        && let Some(e) = &self.exc[c]
                    {
                        state.join(e);
                        after.join(e);
                    }
                    let s = NodeStates {
                        before: state.clone(),
                        after,
                    };
                    out.push((n.index(), s));
                }
                out.reverse();
            }
        }
        out
    }
}
