//! The CFG seen as PythonTA's `get_paths()` sees it: loop back edges end a path (each loop is
//! taken at most once per path), so what remains is acyclic. Paths are enumerated lazily in
//! PythonTA's depth-first order and counted without enumeration.

use num_bigint::BigUint;
use num_traits::{One, Zero};
use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use crate::cfg::{Cfg, Edge};

/// An edge's position in [`Dag::edges`] (the order of `Cfg::edges`).
pub type EdgeId = usize;

/// One CFG edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeInfo {
    pub source: NodeIndex,
    pub target: NodeIndex,
    pub kind: Edge,
    /// Closes a loop: its target is on the depth-first stack when it is explored (for
    /// structured code: the target dominates the source). A path ends with such an edge.
    pub back: bool,
}

/// The CFG's edges with back edges marked, and a topological order of the rest.
#[derive(Clone, Debug)]
pub struct Dag {
    pub edges: Vec<EdgeInfo>,
    /// Outgoing edges of each node in PythonTA's order (normal, True, False, exception, …).
    pub out: Vec<Vec<EdgeId>>,
    /// Incoming edges of each node that are not back edges.
    pub forward_in: Vec<Vec<EdgeId>>,
    /// The nodes reachable from the entry, each after all its forward predecessors.
    pub order: Vec<NodeIndex>,
    pub reachable: Vec<bool>,
    pub entry: NodeIndex,
    pub exit: NodeIndex,
}

/// A path: its edges from the entry, ending at the exit, at a back edge, or at a node
/// without successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub edges: Vec<EdgeId>,
}

/// Lazy enumeration of paths in PythonTA's depth-first order.
pub struct Paths<'d> {
    dag: &'d Dag,
    /// The path so far, and for each of its nodes the next outgoing edge to try.
    stack: Vec<(NodeIndex, usize)>,
    edges: Vec<EdgeId>,
    started: bool,
}

impl Dag {
    pub fn new(cfg: &Cfg) -> Dag {
        let count = cfg.graph.node_count();
        let mut edges = Vec::new();
        let mut out = vec![Vec::new(); count];
        for n in cfg.nodes() {
            let mut succ: Vec<_> = cfg
                .graph
                .edges_directed(n, Direction::Outgoing)
                .map(|e| (e.weight().clone(), e.target()))
                .collect();
            succ.sort();
            for (kind, target) in succ {
                out[n.index()].push(edges.len());
                edges.push(EdgeInfo {
                    source: n,
                    target,
                    kind,
                    back: false,
                });
            }
        }
        let mut dag = Dag {
            edges,
            out,
            forward_in: vec![Vec::new(); count],
            order: Vec::new(),
            reachable: vec![false; count],
            entry: cfg.entry,
            exit: cfg.exit,
        };
        dag.classify();
        dag
    }

    /// Depth-first search from the entry: an edge to a node on the stack is a back edge.
    fn classify(&mut self) {
        let mut state = vec![0u8; self.out.len()]; // 0 new, 1 on the stack, 2 done
        let mut stack: Vec<(NodeIndex, usize)> = vec![(self.entry, 0)];
        state[self.entry.index()] = 1;
        while let Some((n, next)) = stack.last_mut() {
            let n = *n;
            match self.out[n.index()].get(*next).copied() {
                Some(e) => {
                    *next += 1;
                    let t = self.edges[e].target;
                    match state[t.index()] {
                        1 => self.edges[e].back = true,
                        0 => {
                            state[t.index()] = 1;
                            stack.push((t, 0));
                        }
                        _ => {}
                    }
                }
                None => {
                    state[n.index()] = 2;
                    stack.pop();
                }
            }
        }
        self.order_forward();
    }

    /// Reachability, forward in-edges and a topological order (reverse postorder of a
    /// depth-first search along forward edges).
    fn order_forward(&mut self) {
        let mut seen = vec![false; self.out.len()];
        let mut postorder = Vec::new();
        let mut stack: Vec<(NodeIndex, usize)> = vec![(self.entry, 0)];
        seen[self.entry.index()] = true;
        while let Some((n, next)) = stack.last_mut() {
            let n = *n;
            match self.out[n.index()].get(*next).copied() {
                Some(e) => {
                    *next += 1;
                    let t = self.edges[e].target;
                    if !self.edges[e].back && !seen[t.index()] {
                        seen[t.index()] = true;
                        stack.push((t, 0));
                    }
                }
                None => {
                    postorder.push(n);
                    stack.pop();
                }
            }
        }
        for fi in &mut self.forward_in {
            fi.clear();
        }
        for (id, e) in self.edges.iter().enumerate() {
            if !e.back && seen[e.source.index()] {
                self.forward_in[e.target.index()].push(id);
            }
        }
        self.reachable = seen;
        postorder.reverse();
        self.order = postorder;
    }

    /// The natural loops: each loop head with the nodes of its loop (head included), from
    /// all its back edges.
    pub fn loops(&self) -> Vec<(NodeIndex, Vec<NodeIndex>)> {
        let mut heads: Vec<NodeIndex> = self
            .edges
            .iter()
            .filter(|e| e.back)
            .map(|e| e.target)
            .collect();
        heads.sort();
        heads.dedup();
        heads
            .into_iter()
            .map(|head| {
                let mut seen = vec![false; self.out.len()];
                seen[head.index()] = true;
                let mut body = vec![head];
                let mut stack: Vec<NodeIndex> = self
                    .edges
                    .iter()
                    .filter(|e| e.back && e.target == head)
                    .map(|e| e.source)
                    .collect();
                while let Some(n) = stack.pop() {
                    if std::mem::replace(&mut seen[n.index()], true) {
                        continue;
                    }
                    body.push(n);
                    stack.extend(
                        self.forward_in[n.index()]
                            .iter()
                            .map(|&i| self.edges[i].source),
                    );
                }
                body.sort();
                (head, body)
            })
            .collect()
    }

    /// A DAG from nodes `0..count` and edges whose back edges are already marked (and
    /// leave no cycle).
    pub fn from_edges(
        count: usize,
        entry: NodeIndex,
        exit: NodeIndex,
        edges: Vec<EdgeInfo>,
    ) -> Dag {
        let mut out = vec![Vec::new(); count];
        for (id, e) in edges.iter().enumerate() {
            out[e.source.index()].push(id);
        }
        let mut dag = Dag {
            edges,
            out,
            forward_in: vec![Vec::new(); count],
            order: Vec::new(),
            reachable: vec![false; count],
            entry,
            exit,
        };
        dag.order_forward();
        dag
    }

    /// Whether a path that takes edge `e` ends with it.
    pub fn ends_path(&self, e: EdgeId) -> bool {
        let info = &self.edges[e];
        info.back || info.target == self.exit || self.out[info.target.index()].is_empty()
    }

    /// The paths in PythonTA's depth-first order, computed as they are taken.
    pub fn paths(&self) -> Paths<'_> {
        Paths {
            dag: self,
            stack: Vec::new(),
            edges: Vec::new(),
            started: false,
        }
    }

    /// How many paths there are, without listing them.
    pub fn count_paths(&self) -> BigUint {
        let mut from = vec![BigUint::zero(); self.out.len()];
        for &n in self.order.iter().rev() {
            let mut total = BigUint::zero();
            for &e in &self.out[n.index()] {
                if self.ends_path(e) {
                    total += BigUint::one();
                } else {
                    total += &from[self.edges[e].target.index()];
                }
            }
            from[n.index()] = total;
        }
        if self.out[self.entry.index()].is_empty() {
            return BigUint::zero();
        }
        from[self.entry.index()].clone()
    }

    /// The nodes of a path in order: the entry, each edge's target (a back edge's target
    /// closes the list, repeated).
    pub fn nodes(&self, edges: &[EdgeId]) -> Vec<NodeIndex> {
        let mut out = vec![self.entry];
        out.extend(edges.iter().map(|&e| self.edges[e].target));
        out
    }

    /// For each edge, whether edge `to` can follow it on a path (it is `to` itself, or `to`'s
    /// source can be reached from its target along forward edges).
    pub fn precedes(&self, to: EdgeId) -> Vec<bool> {
        let mut reaches = vec![false; self.out.len()];
        let source = self.edges[to].source;
        reaches[source.index()] = true;
        let mut stack = vec![source];
        while let Some(n) = stack.pop() {
            for &e in &self.forward_in[n.index()] {
                let s = self.edges[e].source;
                if !reaches[s.index()] {
                    reaches[s.index()] = true;
                    stack.push(s);
                }
            }
        }
        self.edges
            .iter()
            .enumerate()
            .map(|(id, e)| id == to || (!e.back && reaches[e.target.index()]))
            .collect()
    }
}

impl Iterator for Paths<'_> {
    type Item = Path;

    fn next(&mut self) -> Option<Path> {
        let dag = self.dag;
        if !self.started {
            self.started = true;
            if !dag.out[dag.entry.index()].is_empty() {
                self.stack.push((dag.entry, 0));
            }
        }
        while let Some((n, next)) = self.stack.last_mut() {
            let Some(&e) = dag.out[n.index()].get(*next) else {
                self.stack.pop();
                self.edges.pop();
                continue;
            };
            *next += 1;
            if dag.ends_path(e) {
                let mut edges = self.edges.clone();
                edges.push(e);
                return Some(Path { edges });
            }
            self.edges.push(e);
            self.stack.push((dag.edges[e].target, 0));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::python::lower_module;

    fn dag_of(source: &str) -> (Cfg, Dag) {
        let module = lower_module(source).unwrap();
        let f = module.functions().next().unwrap();
        let cfg = function_cfg(f).unwrap();
        let dag = Dag::new(&cfg);
        (cfg, dag)
    }

    #[test]
    fn loops_end_paths_and_counts_agree() {
        let (_, dag) = dag_of(
            "def f(x: int):\n    while x > 0:\n        if x < 5:\n            break\n        x -= 1\n    print(x)\n",
        );
        let paths: Vec<Vec<usize>> = dag
            .paths()
            .map(|p| dag.nodes(&p.edges).iter().map(|n| n.index()).collect())
            .collect();
        // 1 while, 2 if, 3 break, 4 x -= 1, 5 print, 6 exit.
        assert_eq!(
            paths,
            vec![
                vec![0, 1, 2, 3, 5, 6],
                vec![0, 1, 2, 4, 1],
                vec![0, 1, 5, 6]
            ]
        );
        assert_eq!(dag.count_paths(), BigUint::from(3u32));
        let back: Vec<_> = dag.edges.iter().filter(|e| e.back).collect();
        assert_eq!(back.len(), 1);
        assert_eq!((back[0].source.index(), back[0].target.index()), (4, 1));
    }

    #[test]
    fn sequential_ifs_count_exponentially_without_listing() {
        let mut src = String::from("def f(x: int):\n");
        for i in 0..40 {
            src.push_str(&format!("    if x > {i}:\n        x = x + 1\n"));
        }
        let (_, dag) = dag_of(&src);
        assert_eq!(dag.count_paths(), BigUint::from(1u64 << 40));
        assert_eq!(dag.paths().take(5).count(), 5);
    }
}
