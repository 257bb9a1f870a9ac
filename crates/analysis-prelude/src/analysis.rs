//! Dataflow analyses over sets of string facts, and the fixpoint engine that runs them in a
//! cell ([`solve`]); `%dataflow NAME f` runs a registered one with the kernel's engine.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::program::{Program, Stmt};

/// Facts: a set of strings (`x`, `d3: x`, `a + b` …).
pub type Facts = BTreeSet<String>;

/// Which way facts flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// A gen/kill-style analysis: `transfer` maps the facts before a node (in the analysis's
/// direction) to the facts after it.
///
/// ```
/// use analysis_prelude::prelude::*;
///
/// /// Live variables: backward, may.
/// struct Live;
/// impl Analysis for Live {
///     fn direction(&self) -> Direction { Direction::Backward }
///     fn transfer(&self, stmt: &Stmt, live: &Facts) -> Facts {
///         let mut out: Facts = live.difference(&stmt.targets).cloned().collect();
///         out.extend(stmt.uses.iter().cloned());
///         out
///     }
/// }
///
/// let text = "function\tf\tx\n\
///             node\t0\tentry\t1\tf\t\t\t\n\
///             node\t1\tstatement\t2\ty = x + 1\ty\tx\t\n\
///             node\t2\tstatement\t3\treturn y\t\ty\t\n\
///             node\t3\texit\t3\texit\t\t\t\n\
///             edge\t0\t1\t\nedge\t1\t2\t\nedge\t2\t3\t\n";
/// let f = &Program::parse_all(text).unwrap()[0];
/// let s = solve(&Live, f);
/// assert_eq!(s.before[&1], Facts::from(["x".to_string()]));
/// assert_eq!(s.before[&2], Facts::from(["y".to_string()]));
/// ```
pub trait Analysis: Send + 'static {
    /// Forward (facts flow along edges) or backward.
    fn direction(&self) -> Direction {
        Direction::Forward
    }
    /// `true`: facts join by union (may); `false`: by intersection (must).
    fn may(&self) -> bool {
        true
    }
    /// The facts at the entry (forward) or exit (backward).
    fn boundary(&self) -> Facts {
        Facts::new()
    }
    /// The view's title.
    fn title(&self) -> String {
        String::new()
    }
    /// What a fact means, under the title.
    fn legend(&self) -> String {
        String::new()
    }
    /// The facts after `stmt` (in the analysis's direction) given those before it.
    fn transfer(&self, stmt: &Stmt, facts: &Facts) -> Facts;
}

/// The fixpoint: the facts at each node's start and end, in program order (for a backward
/// analysis `before` is the node's entry side as well: `before[n]` is live-in).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Solution {
    pub before: BTreeMap<usize, Facts>,
    pub after: BTreeMap<usize, Facts>,
}

/// Runs `analysis` on `program` with a worklist until nothing changes.
pub fn solve<A: Analysis + ?Sized>(analysis: &A, program: &Program) -> Solution {
    let forward = analysis.direction() == Direction::Forward;
    let may = analysis.may();
    let nodes: Vec<usize> = program.stmts.iter().map(|s| s.node).collect();
    let start = if forward {
        program.entry()
    } else {
        program.exit()
    };
    // `input[n]`: facts flowing into n in the analysis's direction; `None` is ⊥ (unreached).
    let mut input: BTreeMap<usize, Option<Facts>> = nodes.iter().map(|&n| (n, None)).collect();
    let mut output: BTreeMap<usize, Option<Facts>> = input.clone();
    input.insert(start, Some(analysis.boundary()));
    let mut work: VecDeque<usize> = nodes.iter().copied().collect();
    while let Some(n) = work.pop_front() {
        let Some(stmt) = program.stmts.iter().find(|s| s.node == n) else {
            continue;
        };
        let Some(Some(inp)) = input.get(&n).cloned() else {
            continue;
        };
        let out = analysis.transfer(stmt, &inp);
        if output.get(&n) == Some(&Some(out.clone())) {
            continue;
        }
        output.insert(n, Some(out.clone()));
        let next: Vec<usize> = if forward {
            program.successors(n).collect()
        } else {
            program.predecessors(n).collect()
        };
        for m in next {
            let merged = match input.get(&m).cloned().flatten() {
                None => out.clone(),
                Some(old) if may => old.union(&out).cloned().collect(),
                Some(old) => old.intersection(&out).cloned().collect(),
            };
            if input.get(&m) != Some(&Some(merged.clone())) {
                input.insert(m, Some(merged));
                work.push_back(m);
            }
        }
    }
    let get = |m: &BTreeMap<usize, Option<Facts>>| {
        m.iter()
            .map(|(&n, f)| (n, f.clone().unwrap_or_default()))
            .collect()
    };
    if forward {
        Solution {
            before: get(&input),
            after: get(&output),
        }
    } else {
        Solution {
            before: get(&output),
            after: get(&input),
        }
    }
}
