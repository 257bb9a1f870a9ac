//! Static slices over the program-dependence graph ([`Pdg`]), and the backward slice as
//! runnable Python.
//!
//! A backward slice for (LINE, VARS) holds the statement on LINE and every statement the
//! values of VARS there (all its uses, without VARS) depend on, through control and data
//! dependences. Jumps are kept where dropping them would change whether the criterion runs
//! (a `break`/`continue` under a kept branch, a `return`/`raise` under a
//! branch from which the criterion can be reached, or from which it is reached; every jump
//! before an unreachable criterion), with what they depend on, and then every jump that
//! Agrawal's rule needs ([`super::slice_jumps`]). Statements no execution reaches are left
//! out (unless the criterion is one). A forward slice holds
//! the statements that depend on LINE (on VARS' values there, when given).

use std::collections::BTreeSet;

use petgraph::Direction;
use petgraph::graph::NodeIndex;

use super::analyses::Program;
use super::dependence::Pdg;
use crate::cfg::{Cfg, Item, NodeKind};
use crate::python::ir::{Function, StmtKind};

/// What a slice is taken for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Criterion {
    pub line: u32,
    /// The variables whose values matter there (empty: every name the statement reads).
    pub vars: Vec<String>,
    pub forward: bool,
}

/// A slice: its nodes, the criterion's nodes, and the source lines they cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    pub nodes: BTreeSet<NodeIndex>,
    pub criterion: Vec<NodeIndex>,
    pub lines: BTreeSet<u32>,
}

/// Why no slice.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SliceError {
    #[error(
        "line {line} holds no statement of {function} (its statements are on lines {first}–{last})"
    )]
    NoStatement {
        line: u32,
        function: String,
        first: u32,
        last: u32,
    },
}

/// The nodes whose statements cover `line`.
pub fn nodes_on(cfg: &Cfg, line: u32) -> Vec<NodeIndex> {
    cfg.nodes()
        .filter(|&n| n != cfg.entry && n != cfg.exit)
        .filter(|&n| {
            cfg.node(n)
                .stmts
                .iter()
                .any(|s| s.lines.0 <= line && line <= s.lines.1)
        })
        .collect()
}

/// The slice of `program` (function `f`'s) for `criterion`.
pub fn slice(
    f: &Function,
    program: &Program<'_>,
    pdg: &Pdg,
    criterion: &Criterion,
) -> Result<Slice, SliceError> {
    let cfg = &program.cfg;
    let at = nodes_on(cfg, criterion.line);
    if at.is_empty() {
        let covered: Vec<u32> = cfg
            .nodes()
            .flat_map(|n| cfg.node(n).stmts.iter().map(|s| s.lines.0))
            .collect();
        return Err(SliceError::NoStatement {
            line: criterion.line,
            function: cfg.name.clone(),
            first: covered.iter().copied().min().unwrap_or(0),
            last: covered.iter().copied().max().unwrap_or(0),
        });
    }
    let n = cfg.graph.node_count();
    let nodes = if criterion.forward {
        forward(cfg, pdg, &at, &criterion.vars)
    } else {
        let mut seeds: Vec<NodeIndex> = Vec::new();
        for &c in &at {
            if criterion.vars.is_empty() {
                seeds.push(c);
            } else {
                seeds.extend(pdg.definitions_reaching(c, &criterion.vars));
                seeds.extend(pdg.control.iter().filter(|d| d.to == c).map(|d| d.from));
            }
        }
        seeds.extend(jumps(program, pdg, &at));
        let mut nodes = pdg.backward(n, &seeds);
        // Which way a `finally` join resumes depends on how its body was entered, which no
        // dependence edge records: a kept join keeps every raise and jump that leads to it.
        loop {
            let joins: Vec<NodeIndex> = nodes
                .iter()
                .copied()
                .filter(|&m| cfg.node(m).kind == NodeKind::Join)
                .collect();
            let into = reaching_to(cfg, &joins);
            let extra: Vec<NodeIndex> = cfg
                .nodes()
                .filter(|m| into[m.index()] && !nodes.contains(m))
                .filter(|&m| diverts(program, m))
                .collect();
            if !extra.is_empty() {
                seeds.extend(extra);
                nodes = pdg.backward(n, &seeds);
                continue;
            }
            let mut live = without_dead(cfg, &nodes, &at);
            live.extend(at.iter().copied());
            let extra = super::slice_jumps::needed_jumps(f, program, &live);
            if extra.is_empty() {
                break;
            }
            seeds.extend(extra);
            nodes = pdg.backward(n, &seeds);
        }
        nodes.extend(at.iter().copied());
        without_dead(cfg, &nodes, &at)
    };
    let mut lines = BTreeSet::new();
    for &m in &nodes {
        for s in &cfg.node(m).stmts {
            lines.extend(s.lines.0..=s.lines.1);
        }
    }
    Ok(Slice {
        nodes,
        criterion: at,
        lines,
    })
}

fn forward(cfg: &Cfg, pdg: &Pdg, at: &[NodeIndex], vars: &[String]) -> BTreeSet<NodeIndex> {
    let n = cfg.graph.node_count();
    if vars.is_empty() {
        return pdg.forward(n, at);
    }
    // The first step follows only the criterion's own values of VARS: the uses its
    // definitions of them reach, or, when it does not define them, the uses the same
    // definitions reach after it.
    let mut seeds: Vec<NodeIndex> = at.to_vec();
    for &c in at {
        seeds.extend(
            pdg.data
                .iter()
                .filter(|d| d.from == c && vars.contains(&d.var))
                .map(|d| d.to),
        );
        let defs = pdg.definitions_reaching(c, vars);
        seeds.extend(
            pdg.data
                .iter()
                .filter(|d| defs.contains(&d.from) && vars.contains(&d.var) && d.to != c)
                .filter(|d| reaches(cfg, c, d.to))
                .map(|d| d.to),
        );
        seeds.extend(pdg.control.iter().filter(|d| d.from == c).map(|d| d.to));
    }
    let mut out = pdg.forward(n, &seeds[at.len()..]);
    out.extend(at.iter().copied());
    out
}

/// `nodes` without the statements no execution reaches, unless the criterion is one of them
/// (then the jumps before it keep it unreachable in the slice too).
fn without_dead(cfg: &Cfg, nodes: &BTreeSet<NodeIndex>, at: &[NodeIndex]) -> BTreeSet<NodeIndex> {
    if at.iter().any(|c| cfg.node(*c).unreachable) {
        return nodes.clone();
    }
    nodes
        .iter()
        .copied()
        .filter(|&m| !cfg.node(m).unreachable)
        .collect()
}

/// Whether `to` can be reached from `from` in the CFG.
fn reaches(cfg: &Cfg, from: NodeIndex, to: NodeIndex) -> bool {
    reachable_from(cfg, from)[to.index()]
}

fn reachable_from(cfg: &Cfg, from: NodeIndex) -> Vec<bool> {
    let mut seen = vec![false; cfg.graph.node_count()];
    let mut stack: Vec<NodeIndex> = cfg
        .graph
        .neighbors_directed(from, Direction::Outgoing)
        .collect();
    while let Some(m) = stack.pop() {
        if !std::mem::replace(&mut seen[m.index()], true) {
            stack.extend(cfg.graph.neighbors_directed(m, Direction::Outgoing));
        }
    }
    seen
}

/// The nodes from which one of `targets` can be reached.
fn reaching_to(cfg: &Cfg, targets: &[NodeIndex]) -> Vec<bool> {
    let mut seen = vec![false; cfg.graph.node_count()];
    let mut stack: Vec<NodeIndex> = targets.to_vec();
    while let Some(m) = stack.pop() {
        if !std::mem::replace(&mut seen[m.index()], true) {
            stack.extend(cfg.graph.neighbors_directed(m, Direction::Incoming));
        }
    }
    seen
}

/// Whether `m` may leave its block other than by normal flow: an exception edge, or a jump.
fn diverts(program: &Program<'_>, m: NodeIndex) -> bool {
    let cfg = &program.cfg;
    cfg.successors(m).iter().any(|(_, e)| e.is_exception())
        || matches!(
            program.item(m),
            Some(Item::Stmt(s)) if matches!(
                s.kind,
                StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) | StmtKind::Raise { .. }
            )
        )
}

/// The jumps a backward slice of `at` keeps.
fn jumps(program: &Program<'_>, pdg: &Pdg, at: &[NodeIndex]) -> Vec<NodeIndex> {
    let cfg = &program.cfg;
    let reaches_criterion = |m: NodeIndex| {
        let r = reachable_from(cfg, m);
        at.iter().any(|c| r[c.index()] || *c == m)
    };
    // An unreachable criterion stays unreachable only with the jumps before it.
    let dead_line = at
        .iter()
        .filter(|c| cfg.node(**c).unreachable)
        .map(|c| cfg.node(*c).lines.0)
        .max();
    let mut out = Vec::new();
    for j in cfg.nodes() {
        let Some(Item::Stmt(s)) = program.item(j) else {
            continue;
        };
        let parents: Vec<NodeIndex> = pdg
            .control
            .iter()
            .filter(|d| d.to == j && d.from != cfg.entry)
            .map(|d| d.from)
            .collect();
        let before_dead = dead_line.is_some_and(|l| s.span.line < l);
        let keep = before_dead
            || match &s.kind {
                StmtKind::Break | StmtKind::Continue => {
                    parents.iter().any(|&p| reaches_criterion(p))
                }
                // Raised (and returned through `finally`) flow may itself reach the criterion.
                StmtKind::Return(_) | StmtKind::Raise { .. } => {
                    reaches_criterion(j) || parents.iter().any(|&p| reaches_criterion(p))
                }
                _ => false,
            };
        let keep = keep
            && matches!(
                s.kind,
                StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) | StmtKind::Raise { .. }
            );
        if keep {
            out.push(j);
        }
    }
    out
}
