//! Bounded unrolling, to settle edges that no path reaches when each loop is taken at most
//! once but that later iterations may reach (a loop's exit after it ran, a branch taken in
//! the third iteration): a copy of each loop body per iteration, up to a bound, so that the
//! copies form a DAG with exact semantics (`for` heads take item k on the k-th arrival).
//! An edge one of whose copies is feasible is feasible, with a real execution behind it.

use std::collections::HashMap;

use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId, EdgeInfo};
use super::semantics::{Arrival, Semantics, Visit};
use crate::python::ir::StmtKind;

/// The unrolled DAG and, for each of its edges, the original edge and how its source is
/// visited.
pub struct Unrolled {
    pub dag: Dag,
    pub origin: Vec<(EdgeId, Visit)>,
}

/// Unrolls every loop of `dag` `iterations` times (each loop of a nest within each copy of
/// the outer one); `None` when that makes more than `max_nodes` nodes.
pub fn unroll(
    dag: &Dag,
    sem: &Semantics<'_>,
    iterations: u32,
    max_nodes: usize,
) -> Option<Unrolled> {
    let mut loops = dag.loops();
    // Outer loops first (a loop contains the loops nested in it).
    loops.sort_by_key(|(_, body)| std::cmp::Reverse(body.len()));
    let mut member: Vec<Vec<usize>> = vec![Vec::new(); dag.out.len()];
    for (i, (_, body)) in loops.iter().enumerate() {
        for n in body {
            member[n.index()].push(i);
        }
    }
    let invariant: Vec<bool> = loops
        .iter()
        .map(|(head, body)| iterable_is_invariant(sem, *head, body))
        .collect();

    let mut index: HashMap<(NodeIndex, Vec<u32>), usize> = HashMap::new();
    let mut nodes: Vec<(NodeIndex, Vec<u32>)> = Vec::new();
    let mut edges: Vec<EdgeInfo> = Vec::new();
    let mut origin: Vec<(EdgeId, Visit)> = Vec::new();
    let mut intern =
        |key: (NodeIndex, Vec<u32>), nodes: &mut Vec<(NodeIndex, Vec<u32>)>| -> (usize, bool) {
            if let Some(&i) = index.get(&key) {
                return (i, false);
            }
            nodes.push(key.clone());
            index.insert(key, nodes.len() - 1);
            (nodes.len() - 1, true)
        };
    let (entry, _) = intern((dag.entry, Vec::new()), &mut nodes);
    let mut queue = vec![entry];
    while let Some(u) = queue.pop() {
        if nodes.len() > max_nodes {
            return None;
        }
        let (n, ctx) = nodes[u].clone();
        let arrival = arrival_at(&loops, &member, &invariant, n, &ctx);
        for &e in &dag.out[n.index()] {
            let info = &dag.edges[e];
            let m = info.target;
            let mut cut = false;
            let ctx_m: Vec<u32> = member[m.index()]
                .iter()
                .map(|&l| match member[n.index()].iter().position(|&x| x == l) {
                    Some(pos) if info.back && loops[l].0 == m => {
                        let next = ctx[pos] + 1;
                        cut |= next >= iterations;
                        next
                    }
                    Some(pos) => ctx[pos],
                    None => 0,
                })
                .collect();
            let (v, new) = intern((m, ctx_m), &mut nodes);
            if new && !cut {
                queue.push(v);
            }
            edges.push(EdgeInfo {
                source: NodeIndex::new(u),
                target: NodeIndex::new(v),
                kind: info.kind.clone(),
                back: cut,
            });
            origin.push((
                e,
                Visit {
                    arrival,
                    copy: u as u32,
                },
            ));
        }
    }
    let exit = index
        .get(&(dag.exit, Vec::new()))
        .copied()
        .unwrap_or(nodes.len());
    let count = nodes.len().max(exit + 1);
    Some(Unrolled {
        dag: Dag::from_edges(count, NodeIndex::new(entry), NodeIndex::new(exit), edges),
        origin,
    })
}

/// How node `n` is reached in context `ctx`: a `for` head on its k-th arrival takes item k
/// when its iterable does not change in the loop; otherwise after the first arrival its
/// item is unknown.
fn arrival_at(
    loops: &[(NodeIndex, Vec<NodeIndex>)],
    member: &[Vec<usize>],
    invariant: &[bool],
    n: NodeIndex,
    ctx: &[u32],
) -> Arrival {
    for (pos, &l) in member[n.index()].iter().enumerate() {
        if loops[l].0 == n {
            let k = ctx.get(pos).copied().unwrap_or(0);
            return if k == 0 {
                Arrival::First
            } else if invariant[l] {
                Arrival::Iteration(k)
            } else {
                Arrival::Any
            };
        }
    }
    Arrival::First
}

/// Whether the head is a `for` whose iterable reads no name its loop assigns (Python
/// evaluates it once; re-reading it on a later arrival is then the same value).
fn iterable_is_invariant(sem: &Semantics<'_>, head: NodeIndex, body: &[NodeIndex]) -> bool {
    let Some(StmtKind::For { iter, .. }) = sem.stmt(head).map(|s| &s.kind) else {
        return true;
    };
    let read = iter.names_used();
    body.iter()
        .filter(|&&n| n != head)
        .all(|&n| sem.assigned(n).iter().all(|a| !read.contains(a)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::python::lower_module;

    #[test]
    fn copies_per_iteration_and_cut_at_the_bound() {
        let module = lower_module(
            "def f(n: int):\n    i = 0\n    while i < n:\n        i = i + 1\n    return i\n",
        )
        .unwrap();
        let f = module.functions().next().unwrap();
        let cfg = function_cfg(f).unwrap();
        let dag = Dag::new(&cfg);
        let sem = Semantics::new(&cfg, f);
        let u = unroll(&dag, &sem, 3, 100).unwrap();
        // entry, i = 0, then 3 copies of (while, i = i + 1), 3 copies of return... once the
        // loop is left, the context is dropped: one `return`, one exit.
        let back: Vec<_> = u.dag.edges.iter().filter(|e| e.back).collect();
        assert_eq!(back.len(), 1, "only the third iteration's back edge is cut");
        assert_eq!(u.dag.count_paths(), num_bigint::BigUint::from(4u32));
        assert!(unroll(&dag, &sem, 3, 3).is_none());
    }
}
