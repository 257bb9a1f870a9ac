//! Dominators, post-dominators, dominance frontiers and control dependence checked against
//! their naive all-paths definitions on the CFGs of random Python functions (a seeded
//! generator: `if`/`elif`/`else`, `while` and `for` with `break`/`continue`, `try` with
//! handlers, `else` and `finally`, `return` and `raise` anywhere, `while True` loops), so
//! exception edges and nodes that never reach the exit are covered.
//!
//! `DEPENDENCE_CASES=N` sets the number of functions (default 300), `DEPENDENCE_SEED=S` the seed.

use std::collections::BTreeSet;

use analysis_kernel::cfg::{
    Cfg, Options, Orientation, dominators, frontiers, function_cfg_with, post_dominators,
};
use analysis_kernel::dataflow::dependence::control_dependences;
use analysis_kernel::python::lower_module;
use petgraph::Direction;
use petgraph::graph::NodeIndex;

#[path = "common/random_functions.rs"]
mod random_functions;
#[path = "common/rng.rs"]
mod rng;
use random_functions::Gen;
use rng::Rng;

/// The nodes reachable from `from` along `dir` without passing `avoid`.
fn reach(cfg: &Cfg, from: NodeIndex, avoid: Option<NodeIndex>, dir: Direction) -> Vec<bool> {
    let mut seen = vec![false; cfg.graph.node_count()];
    if Some(from) == avoid {
        return seen;
    }
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n.index()], true) {
            continue;
        }
        stack.extend(
            cfg.graph
                .neighbors_directed(n, dir)
                .filter(|&m| Some(m) != avoid),
        );
    }
    seen
}

/// `dom[a][b]`: every path from the root to `b` (along `dir`) passes `a`; only for `b`
/// reachable from the root.
fn naive_dominance(cfg: &Cfg, root: NodeIndex, dir: Direction) -> (Vec<bool>, Vec<Vec<bool>>) {
    let n = cfg.graph.node_count();
    let reachable = reach(cfg, root, None, dir);
    let mut dom = vec![vec![false; n]; n];
    for a in cfg.nodes() {
        let without = reach(cfg, root, Some(a), dir);
        for b in cfg.nodes() {
            dom[a.index()][b.index()] =
                reachable[b.index()] && reachable[a.index()] && (a == b || !without[b.index()]);
        }
    }
    (reachable, dom)
}

/// The naive immediate dominator: the strict dominator every other strict dominator dominates.
fn naive_idom(dom: &[Vec<bool>], b: usize) -> Option<usize> {
    let strict: Vec<usize> = (0..dom.len()).filter(|&a| a != b && dom[a][b]).collect();
    strict
        .iter()
        .copied()
        .find(|&d| strict.iter().all(|&o| dom[o][d]))
}

fn check_trees(cfg: &Cfg, source: &str) {
    for (orientation, root, dir, tree) in [
        (
            Orientation::Forward,
            cfg.entry,
            Direction::Outgoing,
            dominators(cfg),
        ),
        (
            Orientation::Backward,
            cfg.exit,
            Direction::Incoming,
            post_dominators(cfg),
        ),
    ] {
        let (reachable, dom) = naive_dominance(cfg, root, dir);
        let df = frontiers(cfg, &tree, orientation);
        for b in cfg.nodes() {
            let i = b.index();
            assert_eq!(
                tree.contains(b),
                reachable[i],
                "{orientation:?} tree membership of {i}\n{source}"
            );
            if !reachable[i] {
                continue;
            }
            assert_eq!(
                tree.idom(b).map(|n| n.index()),
                naive_idom(&dom, i),
                "{orientation:?} idom of node {i}\n{source}"
            );
            for a in cfg.nodes() {
                assert_eq!(
                    tree.dominates(a, b),
                    dom[a.index()][i],
                    "{orientation:?} {} dom {i}\n{source}",
                    a.index()
                );
            }
            // DF(b) = {c : b dominates a predecessor of c, and b does not strictly dominate c}.
            let pred_dir = match dir {
                Direction::Outgoing => Direction::Incoming,
                Direction::Incoming => Direction::Outgoing,
            };
            let naive: BTreeSet<usize> = cfg
                .nodes()
                .filter(|&c| reachable[c.index()])
                .filter(|&c| {
                    cfg.graph
                        .neighbors_directed(c, pred_dir)
                        .any(|p| reachable[p.index()] && dom[i][p.index()])
                        && !(c != b && dom[i][c.index()])
                })
                .map(|c| c.index())
                .collect();
            let got: BTreeSet<usize> = df[i].iter().map(|n| n.index()).collect();
            assert_eq!(got, naive, "{orientation:?} frontier of node {i}\n{source}");
        }
    }
}

/// Control dependence, naively: `b` depends on `a` when `a` has a successor `c` that `b`
/// post-dominates (or is) while `b` does not strictly post-dominate `a` (the entry's extra
/// successor is the exit). Compared on the nodes that reach the exit.
fn check_control(cfg: &Cfg, source: &str) {
    let (to_exit, pdom) = naive_dominance(cfg, cfg.exit, Direction::Incoming);
    let pdom_tree = post_dominators(cfg);
    let got: BTreeSet<(usize, usize)> = control_dependences(cfg, &pdom_tree)
        .into_iter()
        .map(|d| (d.from.index(), d.to.index()))
        .filter(|&(a, b)| to_exit[a] && to_exit[b])
        .collect();
    let mut naive = BTreeSet::new();
    for a in cfg.nodes().filter(|a| to_exit[a.index()]) {
        for b in cfg.nodes().filter(|&b| to_exit[b.index()] && b != cfg.exit) {
            let (ai, bi) = (a.index(), b.index());
            let strictly = a != cfg.entry && ai != bi && pdom[bi][ai];
            let decides = cfg
                .graph
                .neighbors_directed(a, Direction::Outgoing)
                .any(|c| to_exit[c.index()] && pdom[bi][c.index()]);
            if decides && !strictly {
                naive.insert((ai, bi));
            }
        }
    }
    assert_eq!(got, naive, "control dependences\n{source}");
}

fn cases() -> (u64, usize) {
    let seed = std::env::var("DEPENDENCE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(21);
    let n = std::env::var("DEPENDENCE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    (seed, n)
}

#[test]
fn trees_frontiers_and_control_dependence_match_the_naive_definitions() {
    let (seed, n) = cases();
    let mut g = Gen {
        rng: Rng::new(seed),
        runnable: false,
        lines: Vec::new(),
        loops: 0,
    };
    let (mut exception_edges, mut stuck) = (0, 0);
    for _ in 0..n {
        let source = g.function();
        let m = lower_module(&source).unwrap_or_else(|e| panic!("{e}\n{source}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        let cfg = function_cfg_with(
            f,
            Options {
                all_exceptions: true,
            },
        )
        .unwrap_or_else(|e| panic!("{e}\n{source}"));
        exception_edges += cfg.edges().iter().filter(|e| e.2.is_exception()).count();
        stuck += usize::from(!post_dominators(&cfg).contains(cfg.entry));
        check_trees(&cfg, &source);
        check_control(&cfg, &source);
    }
    assert!(
        exception_edges > n,
        "the generator makes exception edges ({exception_edges})"
    );
    assert!(
        stuck > 0,
        "some functions have nodes that never reach the exit"
    );
}
