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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::python::lower_module;

    #[test]
    fn diamond_and_loop() {
        let m = lower_module(
            "def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n    while y:\n        y -= 1\n    return y\n",
        )
        .unwrap();
        let cfg = function_cfg(m.function("f").unwrap()).unwrap();
        let node = |line: u32| {
            cfg.nodes()
                .find(|&n| cfg.node(n).lines.0 == line && !cfg.node(n).stmts.is_empty())
                .unwrap()
        };
        let (test, then, other, head, body, ret) =
            (node(2), node(3), node(5), node(6), node(7), node(8));
        let doms = dominators(&cfg);
        assert_eq!(doms.idom(then), Some(test));
        assert_eq!(doms.idom(other), Some(test));
        assert_eq!(
            doms.idom(head),
            Some(test),
            "the join is dominated by the test"
        );
        assert_eq!(doms.idom(ret), Some(head));
        assert!(doms.dominates(cfg.entry, body) && !doms.dominates(then, head));
        let post = post_dominators(&cfg);
        assert_eq!(
            post.idom(test),
            Some(head),
            "both branches meet at the loop"
        );
        assert_eq!(post.idom(body), Some(head));
        assert_eq!(post.idom(head), Some(ret));
        assert_eq!(post.chain(then), vec![then, head, ret, cfg.exit]);
        assert_eq!(cfg.branches(test), Some((then, other)));
        assert_eq!(cfg.branches(then), None);
    }

    #[test]
    fn nodes_that_never_exit_have_no_post_dominator() {
        let m = lower_module("def f():\n    while True:\n        pass\n    return 1\n").unwrap();
        let cfg = function_cfg(m.function("f").unwrap()).unwrap();
        let post = post_dominators(&cfg);
        let loop_head = cfg.nodes().find(|&n| cfg.node(n).lines.0 == 2).unwrap();
        assert!(!post.contains(loop_head));
        assert!(post.chain(loop_head).is_empty());
        let doms = dominators(&cfg);
        let ret = cfg.nodes().find(|&n| cfg.node(n).lines.0 == 4).unwrap();
        assert!(
            !doms.contains(ret),
            "unreachable code is not in the dominator tree"
        );
    }
}
