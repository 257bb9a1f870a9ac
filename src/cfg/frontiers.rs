//! Dominance frontiers and tree children, from a [`DomTree`] (Cooper, Harvey and Kennedy's
//! runner algorithm, run from every node: a node with one predecessor adds nothing). For post-dominators the "predecessors" are the CFG's successors, so
//! the result is the post-dominance frontier (the reverse dominance frontier).

use petgraph::Direction;
use petgraph::graph::NodeIndex;

use super::dominators::DomTree;
use super::graph::Cfg;

/// Which way a tree was built: from the entry (dominators) or towards the exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    Forward,
    Backward,
}

/// The (post-)dominance frontier of every node, by node index, each sorted.
pub fn frontiers(cfg: &Cfg, tree: &DomTree, orientation: Orientation) -> Vec<Vec<NodeIndex>> {
    let preds_dir = match orientation {
        Orientation::Forward => Direction::Incoming,
        Orientation::Backward => Direction::Outgoing,
    };
    let mut out: Vec<Vec<NodeIndex>> = vec![Vec::new(); cfg.graph.node_count()];
    for b in cfg.nodes() {
        if !tree.contains(b) {
            continue;
        }
        let mut preds: Vec<NodeIndex> = cfg
            .graph
            .neighbors_directed(b, preds_dir)
            .filter(|&p| tree.contains(p))
            .collect();
        preds.sort();
        preds.dedup();
        let stop = tree.idom(b);
        for p in preds {
            let mut runner = Some(p);
            while let Some(r) = runner {
                if Some(r) == stop {
                    break;
                }
                if !out[r.index()].contains(&b) {
                    out[r.index()].push(b);
                }
                runner = tree.idom(r);
            }
        }
    }
    for f in &mut out {
        f.sort();
    }
    out
}

/// The children of each node in the tree, by node index, sorted.
pub fn children(cfg: &Cfg, tree: &DomTree) -> Vec<Vec<NodeIndex>> {
    let mut out: Vec<Vec<NodeIndex>> = vec![Vec::new(); cfg.graph.node_count()];
    for n in cfg.nodes() {
        if let Some(d) = tree.idom(n) {
            out[d.index()].push(n);
        }
    }
    out
}
