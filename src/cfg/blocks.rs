//! Basic blocks: the statement-level CFG with maximal straight-line runs merged (PythonTA's view).
//!
//! A node starts a block when it is the entry, the exit or a `finally` join, has other than
//! one predecessor, is entered by a labelled edge (True, False, exception, ...), or follows a
//! node with other than one successor (or the entry). Entry, exit and joins stay blocks of
//! their own (and keep their kind).

use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};

use super::graph::{Cfg, Edge, Granularity, Node, NodeKind};

/// A block-level CFG and where each statement-level node went.
#[derive(Clone, Debug)]
pub struct Blocks {
    pub cfg: Cfg,
    /// For each node of the statement-level CFG (by index), its block.
    pub block_of: Vec<NodeIndex>,
    /// For each block (by index), its statement-level nodes in order.
    pub members: Vec<Vec<NodeIndex>>,
}

/// Merges the straight-line runs of a statement-level CFG into basic blocks. Block ids follow
/// the first node's id, so they are stable for the same source too.
pub fn basic_blocks(cfg: &Cfg) -> Blocks {
    let count = cfg.graph.node_count();
    let leader: Vec<bool> = cfg.nodes().map(|n| is_leader(cfg, n)).collect();
    let mut block_of: Vec<Option<usize>> = vec![None; count];
    let mut members: Vec<Vec<NodeIndex>> = Vec::new();
    // Leaders in id order; then any cycle of non-leaders (unreachable) starts at its first node.
    let starts = cfg.nodes().filter(|n| leader[n.index()]).chain(cfg.nodes());
    for start in starts {
        if block_of[start.index()].is_some() {
            continue;
        }
        let id = members.len();
        let mut run = vec![start];
        block_of[start.index()] = Some(id);
        let mut cur = start;
        while let [(next, Edge::Normal)] = cfg.successors(cur).as_slice() {
            let next = *next;
            if leader[next.index()] || block_of[next.index()].is_some() || cur == cfg.entry {
                break;
            }
            block_of[next.index()] = Some(id);
            run.push(next);
            cur = next;
        }
        members.push(run);
    }
    // Renumber blocks by their first node so ids follow the source.
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&b| members[b][0]);
    let mut renumber = vec![0; members.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = new;
    }
    let members: Vec<Vec<NodeIndex>> = order.iter().map(|&b| members[b].clone()).collect();
    let block_of: Vec<NodeIndex> = block_of
        .iter()
        .map(|b| NodeIndex::new(renumber[b.unwrap_or(0)]))
        .collect();

    let mut graph = DiGraph::new();
    for run in &members {
        graph.add_node(merge(cfg, run));
    }
    // Edges between blocks: every edge into a block's first node. Exception edges between the
    // same blocks merge their names.
    let mut edges: BTreeMap<(NodeIndex, NodeIndex, Edge), ()> = BTreeMap::new();
    let mut exceptions: BTreeMap<(NodeIndex, NodeIndex), Option<Vec<String>>> = BTreeMap::new();
    for (source, target, edge) in cfg.edges() {
        let (bs, bt) = (block_of[source.index()], block_of[target.index()]);
        if members[bt.index()][0] != target {
            continue;
        }
        match edge {
            Edge::Exception(names) => {
                let entry = exceptions
                    .entry((bs, bt))
                    .or_insert_with(|| Some(Vec::new()));
                match (entry.as_mut(), names.is_empty()) {
                    (Some(all), false) => all.extend(names.iter().cloned()),
                    _ => *entry = None,
                }
            }
            other => {
                edges.insert((bs, bt, other.clone()), ());
            }
        }
    }
    for ((s, t), names) in exceptions {
        let mut names = names.unwrap_or_default();
        names.sort();
        names.dedup();
        edges.insert((s, t, Edge::Exception(names)), ());
    }
    for (s, t, e) in edges.into_keys() {
        graph.add_edge(s, t, e);
    }
    Blocks {
        cfg: Cfg {
            name: cfg.name.clone(),
            signature: cfg.signature.clone(),
            granularity: Granularity::Block,
            graph,
            entry: block_of[cfg.entry.index()],
            exit: block_of[cfg.exit.index()],
        },
        block_of,
        members,
    }
}

fn is_leader(cfg: &Cfg, n: NodeIndex) -> bool {
    if n == cfg.entry || n == cfg.exit || cfg.node(n).kind == NodeKind::Join {
        return true;
    }
    match cfg.predecessors(n).as_slice() {
        [(p, Edge::Normal)] => *p == cfg.entry || cfg.successors(*p).len() != 1 || *p == n,
        _ => true,
    }
}

/// One block's node: its members' statements, labels and calls in order.
fn merge(cfg: &Cfg, run: &[NodeIndex]) -> Node {
    let first = cfg.node(run[0]);
    let kind = match first.kind {
        NodeKind::Entry | NodeKind::Exit | NodeKind::Join => first.kind,
        _ => NodeKind::Block,
    };
    let mut node = Node {
        kind,
        stmts: Vec::new(),
        label: String::new(),
        lines: first.lines,
        unreachable: first.unreachable,
        calls: Vec::new(),
    };
    let mut labels = Vec::new();
    for &m in run {
        let member = cfg.node(m);
        node.stmts.extend(member.stmts.iter().cloned());
        labels.push(member.label.clone());
        node.lines = (
            node.lines.0.min(member.lines.0),
            node.lines.1.max(member.lines.1),
        );
        for c in &member.calls {
            if !node.calls.contains(c) {
                node.calls.push(c.clone());
            }
        }
    }
    node.label = labels.join("\n");
    node
}
