//! Dependences between a CFG's statements: control dependence from post-dominance
//! (Ferrante, Ottenstein and Warren), data dependence from reaching definitions, and the
//! program-dependence graph (both) with its backward and forward slices.
//!
//! Exception edges count as control flow: a statement after one that may raise inside `try`
//! is control dependent on it (labelled `exception`). The entry node stands for the
//! function's start: statements that run whenever the function runs depend on it (the usual
//! virtual edge entry→exit). Nodes from which the exit cannot be reached (an endless loop)
//! have no post-dominator: they depend only on the branches that lead into them.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::analyses::def_use::chains;
use super::analyses::{Program, ReachingDefinitions};
use super::bitset::BitSet;
use super::engine::{FixpointError, Options, iterate_to_fixpoint};
use crate::cfg::{Cfg, DomTree, post_dominators};

/// `to` is control dependent on `from`: taking the edge labelled `label` out of `from`
/// decides whether `to` runs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ControlDep {
    pub from: NodeIndex,
    pub to: NodeIndex,
    /// `True`, `False`, `exception`, `return`/`break`/`continue`, `next` (normal flow out
    /// of a node with several ways on), or `entry`.
    pub label: String,
}

/// `to` reads `var`, which `from` may have defined (a def-use chain).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DataDep {
    pub from: NodeIndex,
    pub to: NodeIndex,
    pub var: String,
}

/// The control dependences of `cfg`, sorted, given its post-dominator tree.
pub fn control_dependences(cfg: &Cfg, pdom: &DomTree) -> Vec<ControlDep> {
    let mut out = BTreeSet::new();
    let ipdom = |n: NodeIndex| {
        if n == cfg.entry {
            Some(cfg.exit)
        } else {
            pdom.idom(n)
        }
    };
    for a in cfg.nodes() {
        let mut succ: Vec<(NodeIndex, String)> = cfg
            .successors(a)
            .into_iter()
            .map(|(t, e)| (t, e.label().unwrap_or("next").to_string()))
            .collect();
        if a == cfg.entry {
            succ = succ.into_iter().map(|(t, _)| (t, "entry".into())).collect();
        }
        let stop = ipdom(a);
        for (b, label) in succ {
            let mut cur = Some(b);
            while let Some(c) = cur {
                if Some(c) == stop || c == cfg.exit {
                    break;
                }
                out.insert(ControlDep {
                    from: a,
                    to: c,
                    label: label.clone(),
                });
                if c == a {
                    break;
                }
                cur = pdom.idom(c);
            }
        }
    }
    out.into_iter().collect()
}

/// Reaching definitions before each node: the (variable, defining node) pairs.
pub struct Reaching {
    pub before: Vec<Vec<(String, NodeIndex)>>,
}

/// The data dependences of `program` (def-use chains; parameters are defined at the entry)
/// and the definitions reaching each node.
pub fn data_dependences(
    program: &Program<'_>,
    options: &Options<'_>,
) -> Result<(Vec<DataDep>, Reaching), FixpointError> {
    let r = iterate_to_fixpoint(&program.cfg, ReachingDefinitions::new(program), options)?;
    let ins: Vec<BitSet> = r.node_states().into_iter().map(|s| s.before).collect();
    let sites = &r.analysis.sites;
    let before = ins
        .iter()
        .map(|set| {
            set.iter()
                .filter_map(|i| sites.get(i))
                .map(|s| (s.var.clone(), NodeIndex::new(s.node as usize)))
                .collect()
        })
        .collect();
    let mut deps: Vec<DataDep> = chains(program, &r.analysis, &ins)
        .into_iter()
        .map(|c| DataDep {
            from: c.def_node,
            to: c.use_node,
            var: c.var,
        })
        .collect();
    deps.sort();
    deps.dedup();
    Ok((deps, Reaching { before }))
}

/// The program-dependence graph: control and data dependences of one function's statements.
pub struct Pdg {
    pub control: Vec<ControlDep>,
    pub data: Vec<DataDep>,
    pub reaching: Reaching,
}

impl Pdg {
    pub fn new(program: &Program<'_>, options: &Options<'_>) -> Result<Pdg, FixpointError> {
        let pdom = post_dominators(&program.cfg);
        let control = control_dependences(&program.cfg, &pdom);
        let (data, reaching) = data_dependences(program, options)?;
        Ok(Pdg {
            control,
            data,
            reaching,
        })
    }

    /// Every dependence edge as (from, to), control first.
    fn edges(&self) -> impl Iterator<Item = (NodeIndex, NodeIndex)> + '_ {
        self.control
            .iter()
            .map(|d| (d.from, d.to))
            .chain(self.data.iter().map(|d| (d.from, d.to)))
    }

    /// The nodes that `seeds` depend on, transitively, `seeds` included (a backward slice).
    pub fn backward(&self, n_nodes: usize, seeds: &[NodeIndex]) -> BTreeSet<NodeIndex> {
        let mut preds: Vec<Vec<NodeIndex>> = vec![Vec::new(); n_nodes];
        for (from, to) in self.edges() {
            preds[to.index()].push(from);
        }
        closure(&preds, seeds)
    }

    /// The nodes that depend on `seeds`, transitively, `seeds` included (a forward slice).
    pub fn forward(&self, n_nodes: usize, seeds: &[NodeIndex]) -> BTreeSet<NodeIndex> {
        let mut succs: Vec<Vec<NodeIndex>> = vec![Vec::new(); n_nodes];
        for (from, to) in self.edges() {
            succs[from.index()].push(to);
        }
        closure(&succs, seeds)
    }

    /// The nodes whose definitions of one of `vars` reach `node`.
    pub fn definitions_reaching(&self, node: NodeIndex, vars: &[String]) -> Vec<NodeIndex> {
        let mut out: Vec<NodeIndex> = self
            .reaching
            .before
            .get(node.index())
            .into_iter()
            .flatten()
            .filter(|(v, _)| vars.contains(v))
            .map(|(_, n)| *n)
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

fn closure(next: &[Vec<NodeIndex>], seeds: &[NodeIndex]) -> BTreeSet<NodeIndex> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<NodeIndex> = seeds.to_vec();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(next.get(n.index()).into_iter().flatten().copied());
        }
    }
    seen
}
