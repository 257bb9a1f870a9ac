//! The shape the fixpoint engine iterates over: the processing order of the nodes (reverse
//! postorder forward, postorder backward), the widening points (targets of retreating edges
//! in that order), and the straight-line chains whose states are stored once per chain.

use petgraph::Direction as Dir;
use petgraph::graph::NodeIndex;

use super::Direction;
use crate::cfg::{Cfg, Edge};

/// A maximal straight-line run of nodes, in program order: each node but the last has exactly
/// one successor, the next one, by a normal edge, and is its only predecessor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    pub nodes: Vec<NodeIndex>,
    /// Position in the processing order (smaller is processed first).
    pub priority: usize,
    /// Whether the chain is processed at all (forward: reachable from the entry).
    pub live: bool,
}

/// Orders, widening points and chains of one CFG for one direction.
#[derive(Clone, Debug)]
pub struct Layout {
    pub direction: Direction,
    pub chains: Vec<Chain>,
    /// The chain of each node, by node index.
    pub chain_of: Vec<usize>,
    /// Nodes where the flow enters through a retreating edge (loop heads), by node index.
    pub widening_point: Vec<bool>,
    /// The forward reverse postorder of the nodes reachable from the entry.
    pub rpo: Vec<NodeIndex>,
}

impl Layout {
    /// The layout of `cfg` for an analysis in `direction`.
    pub fn new(cfg: &Cfg, direction: Direction) -> Layout {
        let count = cfg.graph.node_count();
        let postorder = postorder(cfg);
        let mut reached = vec![false; count];
        for n in &postorder {
            reached[n.index()] = true;
        }
        let rpo: Vec<NodeIndex> = postorder.iter().rev().copied().collect();
        // Processing order: RPO forward; postorder, then the unreached nodes, backward.
        let order: Vec<NodeIndex> = match direction {
            Direction::Forward => rpo.clone(),
            Direction::Backward => {
                let mut order = postorder.clone();
                order.extend(cfg.nodes().filter(|n| !reached[n.index()]));
                order
            }
        };
        let mut position = vec![usize::MAX; count];
        for (i, n) in order.iter().enumerate() {
            position[n.index()] = i;
        }
        let widening_point = widening_points(cfg, direction, &position);
        let (chains, chain_of) = chains(cfg, direction, &widening_point, &position, &reached);
        Layout {
            direction,
            chains,
            chain_of,
            widening_point,
            rpo,
        }
    }

    /// The node where the flow enters a chain: its first node forward, its last backward.
    pub fn flow_head(&self, chain: usize) -> Option<NodeIndex> {
        let nodes = &self.chains.get(chain)?.nodes;
        match self.direction {
            Direction::Forward => nodes.first().copied(),
            Direction::Backward => nodes.last().copied(),
        }
    }

    /// The loop heads (widening points), in node order.
    pub fn loop_heads(&self) -> Vec<NodeIndex> {
        self.widening_point
            .iter()
            .enumerate()
            .filter(|(_, w)| **w)
            .map(|(i, _)| NodeIndex::new(i))
            .collect()
    }
}

/// Depth-first postorder from the entry. Successors are explored last-first (exception
/// edges, then False, then True): a loop's exit is explored before its body, so in reverse
/// postorder the body follows its head directly instead of coming after the rest of the
/// program, which the worklist would otherwise revisit once per loop.
fn postorder(cfg: &Cfg) -> Vec<NodeIndex> {
    let count = cfg.graph.node_count();
    let mut seen = vec![false; count];
    let mut out = Vec::with_capacity(count);
    if count == 0 {
        return out;
    }
    // (node, its successors, how many of them are done)
    let mut stack: Vec<(NodeIndex, Vec<NodeIndex>, usize)> = Vec::new();
    seen[cfg.entry.index()] = true;
    stack.push((cfg.entry, successor_nodes(cfg, cfg.entry), 0));
    while let Some((node, succs, next)) = stack.last_mut() {
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if !seen[s.index()] {
                seen[s.index()] = true;
                let succs = successor_nodes(cfg, s);
                stack.push((s, succs, 0));
            }
        } else {
            out.push(*node);
            stack.pop();
        }
    }
    out
}

fn successor_nodes(cfg: &Cfg, n: NodeIndex) -> Vec<NodeIndex> {
    cfg.successors(n)
        .into_iter()
        .rev()
        .map(|(t, _)| t)
        .collect()
}

/// The targets (in flow direction) of retreating edges: edges whose flow goes from a node to
/// one at the same or an earlier position. Every cycle has one, so widening there terminates.
fn widening_points(cfg: &Cfg, direction: Direction, position: &[usize]) -> Vec<bool> {
    let mut points = vec![false; cfg.graph.node_count()];
    for e in cfg.graph.edge_indices() {
        let Some((s, t)) = cfg.graph.edge_endpoints(e) else {
            continue;
        };
        let (from, to) = match direction {
            Direction::Forward => (s, t),
            Direction::Backward => (t, s),
        };
        let (pf, pt) = (position[from.index()], position[to.index()]);
        if pf != usize::MAX && pt != usize::MAX && pt <= pf {
            points[to.index()] = true;
        }
    }
    points
}

/// Splits the nodes into straight-line chains. A widening point starts its chain forward and
/// ends it backward, so states are joined and widened only at chain boundaries.
fn chains(
    cfg: &Cfg,
    direction: Direction,
    widening_point: &[bool],
    position: &[usize],
    reached: &[bool],
) -> (Vec<Chain>, Vec<usize>) {
    let count = cfg.graph.node_count();
    // The successor that continues the chain of each node, if any.
    let next: Vec<Option<NodeIndex>> = cfg
        .nodes()
        .map(|n| continuation(cfg, direction, widening_point, n))
        .collect();
    let mut continued = vec![false; count];
    for t in next.iter().flatten() {
        continued[t.index()] = true;
    }
    let mut chain_of = vec![usize::MAX; count];
    let mut chains: Vec<Chain> = Vec::new();
    // Chain starts first; then any cycle of continued nodes (unreachable) from its first node.
    let starts = cfg
        .nodes()
        .filter(|n| !continued[n.index()])
        .chain(cfg.nodes());
    for start in starts {
        if chain_of[start.index()] != usize::MAX {
            continue;
        }
        let id = chains.len();
        let mut nodes = vec![start];
        chain_of[start.index()] = id;
        let mut cur = start;
        while let Some(t) = next[cur.index()] {
            if chain_of[t.index()] != usize::MAX {
                break;
            }
            chain_of[t.index()] = id;
            nodes.push(t);
            cur = t;
        }
        let flow_head = match direction {
            Direction::Forward => nodes[0],
            Direction::Backward => nodes[nodes.len() - 1],
        };
        let live = match direction {
            Direction::Forward => reached[flow_head.index()],
            Direction::Backward => true,
        };
        chains.push(Chain {
            priority: position[flow_head.index()],
            nodes,
            live,
        });
    }
    (chains, chain_of)
}

/// The node after `n` in its chain: its only successor, by a normal edge, when `n` is that
/// node's only predecessor and no widening point separates them.
fn continuation(
    cfg: &Cfg,
    direction: Direction,
    widening_point: &[bool],
    n: NodeIndex,
) -> Option<NodeIndex> {
    let mut succs = cfg.graph.edges_directed(n, Dir::Outgoing);
    let first = succs.next()?;
    if succs.next().is_some() || *first.weight() != Edge::Normal {
        return None;
    }
    let t = petgraph::visit::EdgeRef::target(&first);
    if t == n || t == cfg.entry || n == cfg.exit {
        return None;
    }
    let preds = cfg.graph.edges_directed(t, Dir::Incoming).count();
    let boundary = match direction {
        Direction::Forward => widening_point[t.index()],
        Direction::Backward => widening_point[n.index()],
    };
    (preds == 1 && !boundary).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::python::lower_module;

    fn layout(source: &str, direction: Direction) -> (Cfg, Layout) {
        let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        let cfg = function_cfg(f).unwrap_or_else(|e| panic!("{e}"));
        let l = Layout::new(&cfg, direction);
        (cfg, l)
    }

    fn line_of(cfg: &Cfg, n: NodeIndex) -> u32 {
        cfg.node(n).lines.0
    }

    #[test]
    fn loops_have_one_widening_point_and_chains_break_there() {
        let src = "def f(x):\n    y = 0\n    z = 1\n    while x > 0:\n        x -= 1\n        y += 1\n    return y\n";
        let (cfg, l) = layout(src, Direction::Forward);
        let heads: Vec<u32> = l.loop_heads().iter().map(|&n| line_of(&cfg, n)).collect();
        assert_eq!(heads, [4], "the while test is the loop head");
        let chains: Vec<Vec<u32>> = l
            .chains
            .iter()
            .map(|c| c.nodes.iter().map(|&n| line_of(&cfg, n)).collect())
            .collect();
        // entry+y+z run together; the head stands alone; the body is one chain.
        assert!(chains.contains(&vec![1, 2, 3]), "{chains:?}");
        assert!(chains.contains(&vec![4]), "{chains:?}");
        assert!(chains.contains(&vec![5, 6]), "{chains:?}");
        for (i, c) in l.chains.iter().enumerate() {
            for n in &c.nodes {
                assert_eq!(l.chain_of[n.index()], i);
            }
        }
        // The RPO visits the entry first and every reachable node once, the loop body right
        // after its head and before the code after the loop.
        assert_eq!(l.rpo.first(), Some(&cfg.entry));
        assert_eq!(l.rpo.len(), cfg.graph.node_count());
        let lines: Vec<u32> = l.rpo.iter().map(|&n| line_of(&cfg, n)).collect();
        assert_eq!(&lines[..7], [1, 2, 3, 4, 5, 6, 7], "{lines:?}");
    }

    #[test]
    fn backward_widening_points_end_chains() {
        let src = "def f(x):\n    while x:\n        x -= 1\n        y = x\n    return 0\n";
        let (cfg, l) = layout(src, Direction::Backward);
        for (i, c) in l.chains.iter().enumerate() {
            for &n in &c.nodes[..c.nodes.len() - 1] {
                assert!(!l.widening_point[n.index()], "chain {i} has a point inside");
            }
        }
        assert!(
            l.loop_heads()
                .iter()
                .any(|&n| line_of(&cfg, n) == 4 || line_of(&cfg, n) == 2)
        );
        assert!(l.chains.iter().all(|c| c.live));
    }

    #[test]
    fn unreachable_code_is_not_live_forward() {
        let src = "def f(x):\n    return x\n    y = 1\n";
        let (cfg, l) = layout(src, Direction::Forward);
        let dead = cfg
            .nodes()
            .find(|&n| line_of(&cfg, n) == 3)
            .unwrap_or(cfg.exit);
        assert!(!l.chains[l.chain_of[dead.index()]].live);
        let back = Layout::new(&cfg, Direction::Backward);
        assert!(back.chains[back.chain_of[dead.index()]].live);
    }
}
