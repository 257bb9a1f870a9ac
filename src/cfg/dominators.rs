//! Dominators (from the entry) and post-dominators (towards the exit), with
//! `petgraph::algo::dominators::simple_fast`.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::NodeIndex;
use petgraph::visit::Reversed;

use super::graph::Cfg;

/// A dominator tree over a CFG's nodes. Nodes the root cannot reach (or, for
/// post-dominators, that cannot reach the exit) are not in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    pub root: NodeIndex,
    /// The immediate dominator of each node, by index (`None` for the root and absent nodes).
    idom: Vec<Option<NodeIndex>>,
    in_tree: Vec<bool>,
}

/// Dominators: `a` dominates `b` when every path from the entry to `b` passes `a`.
pub fn dominators(cfg: &Cfg) -> DomTree {
    let doms = simple_fast(&cfg.graph, cfg.entry);
    tree(cfg, cfg.entry, |n| {
        (doms.immediate_dominator(n), doms.dominators(n).is_some())
    })
}

/// Post-dominators: `a` post-dominates `b` when every path from `b` to the exit passes `a`.
pub fn post_dominators(cfg: &Cfg) -> DomTree {
    let doms = simple_fast(Reversed(&cfg.graph), cfg.exit);
    tree(cfg, cfg.exit, |n| {
        (doms.immediate_dominator(n), doms.dominators(n).is_some())
    })
}

fn tree(
    cfg: &Cfg,
    root: NodeIndex,
    info: impl Fn(NodeIndex) -> (Option<NodeIndex>, bool),
) -> DomTree {
    let (idom, in_tree) = cfg.nodes().map(info).unzip();
    DomTree {
        root,
        idom,
        in_tree,
    }
}

impl DomTree {
    /// The immediate (post-)dominator of `n`.
    pub fn idom(&self, n: NodeIndex) -> Option<NodeIndex> {
        self.idom.get(n.index()).copied().flatten()
    }

    /// Whether `n` is in the tree (reachable from the root in the relevant direction).
    pub fn contains(&self, n: NodeIndex) -> bool {
        self.in_tree.get(n.index()).copied().unwrap_or(false)
    }

    /// `n` and its (post-)dominators up to the root, nearest first; empty if `n` is absent.
    pub fn chain(&self, n: NodeIndex) -> Vec<NodeIndex> {
        if !self.contains(n) {
            return Vec::new();
        }
        let mut out = vec![n];
        let mut cur = n;
        while let Some(d) = self.idom(cur) {
            out.push(d);
            cur = d;
        }
        out
    }

    /// Whether `a` (post-)dominates `b` (every node dominates itself).
    pub fn dominates(&self, a: NodeIndex, b: NodeIndex) -> bool {
        self.chain(b).contains(&a)
    }
}
