//! A concrete run laid on a CFG (`%run`, `%concolic`): the line trace of each activation of a
//! function, mapped to the nodes it visits and the edges it takes, with counts.
//!
//! A line event names the node whose statement starts on that line (its header, for compound
//! statements); where several nodes start on one line, the one reachable from the current node
//! is taken. A step from one node to the next follows a direct edge, or a path through `end
//! finally` joins (which have no line). A line inside the current node's statement (a
//! statement spread over lines) is not a step, nor is an `except` clause followed by another
//! (it was tested and did not match). Steps with no such edge are kept as
//! `unmatched`: they mean the CFG and the interpreter disagree.

use petgraph::graph::NodeIndex;

use super::graph::{Cfg, NodeKind};

/// What a run did on a CFG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// Visits per node, by node index.
    pub nodes: Vec<u64>,
    /// Times each edge was taken, in [`Cfg::edges`] order.
    pub edges: Vec<u64>,
    /// The node path of each activation (entry first; exit last when it was reached).
    pub paths: Vec<Vec<NodeIndex>>,
    /// The edges each activation took, in order (indices in [`Cfg::edges`] order).
    pub routes: Vec<Vec<usize>>,
    /// Steps between lines that no edge joins: (from line, to line).
    pub unmatched: Vec<(u32, u32)>,
    /// For each activation, the node each line event stepped to (`None`: the event was not
    /// a step, as a line inside a statement or an `except` clause that did not match).
    pub at: Vec<Vec<Option<NodeIndex>>>,
}

impl Walk {
    /// Lays `activations` (each a list of line events) on `cfg`; `returned[i]` says whether
    /// activation `i` left normally (then its last node steps to the exit).
    pub fn of(cfg: &Cfg, activations: &[Vec<u32>], returned: &[bool]) -> Walk {
        let edges = cfg.edges();
        let mut walk = Walk {
            nodes: vec![0; cfg.graph.node_count()],
            edges: vec![0; edges.len()],
            ..Walk::default()
        };
        for (i, lines) in activations.iter().enumerate() {
            let mut cur = cfg.entry;
            let mut path = vec![cur];
            let mut taken: Vec<usize> = Vec::new();
            let mut at: Vec<Option<NodeIndex>> = vec![None; lines.len()];
            walk.nodes[cur.index()] += 1;
            let handlers_at = |line: u32| {
                let mut at = starting(cfg, line).peekable();
                at.peek().is_some() && at.all(|n| cfg.node(n).kind == NodeKind::Handler)
            };
            for (j, &line) in lines.iter().enumerate() {
                // An `except` clause followed by another was only tested: it did not match.
                if handlers_at(line) && lines.get(j + 1).is_some_and(|&next| handlers_at(next)) {
                    continue;
                }
                let node = cfg.node(cur);
                let inside =
                    node.kind != NodeKind::Entry && line > node.lines.0 && line <= node.lines.1;
                let starts: Vec<NodeIndex> = starting(cfg, line).collect();
                if inside && starts.is_empty() {
                    continue;
                }
                let step = starts
                    .iter()
                    .find_map(|&n| route(cfg, &edges, cur, n).map(|r| (n, r)));
                match step {
                    Some((n, route)) => {
                        for k in route {
                            walk.edges[k] += 1;
                            taken.push(k);
                        }
                        cur = n;
                    }
                    None => {
                        walk.unmatched.push((cfg.node(cur).lines.0, line));
                        match starts.first() {
                            Some(&n) => cur = n,
                            None => continue,
                        }
                    }
                }
                walk.nodes[cur.index()] += 1;
                path.push(cur);
                at[j] = Some(cur);
            }
            if returned.get(i).copied().unwrap_or(false)
                && let Some(route) = route(cfg, &edges, cur, cfg.exit)
            {
                for k in route {
                    walk.edges[k] += 1;
                    taken.push(k);
                }
                walk.nodes[cfg.exit.index()] += 1;
                path.push(cfg.exit);
            }
            walk.paths.push(path);
            walk.routes.push(taken);
            walk.at.push(at);
        }
        walk
    }

    /// Edges taken at least once.
    pub fn taken(&self) -> usize {
        self.edges.iter().filter(|&&c| c > 0).count()
    }
}

/// The statement nodes whose statement starts on `line`.
fn starting(cfg: &Cfg, line: u32) -> impl Iterator<Item = NodeIndex> + '_ {
    cfg.nodes()
        .filter(move |&n| is_statement(cfg, n) && cfg.node(n).lines.0 == line)
}

fn is_statement(cfg: &Cfg, n: NodeIndex) -> bool {
    !matches!(
        cfg.node(n).kind,
        NodeKind::Entry | NodeKind::Exit | NodeKind::Join
    )
}

/// The edges (by index) from `from` to `to`: one edge, or a path through joins only
/// (breadth first, so the shortest). Normal and branch edges are preferred to exception edges.
fn route(
    cfg: &Cfg,
    edges: &[(NodeIndex, NodeIndex, &super::graph::Edge)],
    from: NodeIndex,
    to: NodeIndex,
) -> Option<Vec<usize>> {
    let out = |n: NodeIndex| {
        let mut ks: Vec<usize> = (0..edges.len()).filter(|&k| edges[k].0 == n).collect();
        ks.sort_by_key(|&k| edges[k].2.is_exception());
        ks
    };
    let mut queue = std::collections::VecDeque::from([(from, Vec::new())]);
    let mut seen = vec![false; cfg.graph.node_count()];
    seen[from.index()] = true;
    while let Some((n, route)) = queue.pop_front() {
        for k in out(n) {
            let t = edges[k].1;
            let mut r = route.clone();
            r.push(k);
            if t == to {
                return Some(r);
            }
            if cfg.node(t).kind == NodeKind::Join && !seen[t.index()] {
                seen[t.index()] = true;
                queue.push_back((t, r));
            }
        }
    }
    None
}
