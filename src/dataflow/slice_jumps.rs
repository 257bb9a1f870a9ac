//! Agrawal's rule for jump statements in backward slices (Agrawal 1994, after Ball and
//! Horwitz 1993): a `break`, `continue`, `return` or `raise` outside the slice belongs in it
//! when its nearest post-dominator in the slice differs from its nearest lexical successor in
//! the slice, that is when deleting it would make the sliced program go on at another kept
//! statement than the function does.
//!
//! The lexical successors come from the function itself with every jump outside the slice
//! replaced by `pass` (the program the slice would run, as far as control goes): the nearest
//! post-dominator there of the `pass` that stands for a jump is where the slice would go on
//! without it, which is what Agrawal's lexical-successor tree gives for structured code.

use std::collections::{BTreeSet, HashSet};

use petgraph::graph::NodeIndex;

use super::analyses::Program;
use crate::cfg::{Cfg, DomTree, Item, function_cfg, post_dominators};
use crate::python::ir::{Function, Stmt, StmtId, StmtKind};

/// Where control goes on after a node, as far as the slice sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// The first kept statement on every way on.
    Stmt(StmtId),
    /// The function's exit.
    Exit,
    /// No way on reaches the exit (an endless loop).
    Never,
}

/// The jumps outside `slice` (a set of `program`'s nodes) that Agrawal's rule adds.
pub fn needed_jumps(
    f: &Function,
    program: &Program<'_>,
    slice: &BTreeSet<NodeIndex>,
) -> Vec<NodeIndex> {
    let cfg = &program.cfg;
    let outside: Vec<(NodeIndex, StmtId)> = cfg
        .nodes()
        .filter(|n| !slice.contains(n) && !cfg.node(*n).unreachable)
        .filter_map(|n| match program.item(n) {
            Some(Item::Stmt(s)) if is_jump(s) => Some((n, s.id)),
            _ => None,
        })
        .collect();
    if outside.is_empty() {
        return Vec::new();
    }
    let kept: HashSet<StmtId> = slice
        .iter()
        .flat_map(|&n| cfg.node(n).stmts.iter().map(|s| s.id))
        .collect();
    let dropped: HashSet<StmtId> = outside.iter().map(|(_, id)| *id).collect();
    let mut without = f.clone();
    replace_jumps(&mut without.body, &dropped);
    // The function built once already; a failure here would be a bug, and then no jump is added.
    let Ok(lexical) = function_cfg(&without) else {
        return Vec::new();
    };
    let pdom = post_dominators(cfg);
    let lexical_pdom = post_dominators(&lexical);
    outside
        .into_iter()
        .filter(|&(n, id)| {
            let Some(stand_in) = lexical
                .nodes()
                .find(|&m| lexical.node(m).stmts.first().is_some_and(|s| s.id == id))
            else {
                return false;
            };
            next_kept(cfg, &pdom, n, &kept) != next_kept(&lexical, &lexical_pdom, stand_in, &kept)
        })
        .map(|(n, _)| n)
        .collect()
}

fn is_jump(s: &Stmt) -> bool {
    matches!(
        s.kind,
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) | StmtKind::Raise { .. }
    )
}

/// The nearest post-dominator of `n` holding a kept statement.
fn next_kept(cfg: &Cfg, pdom: &DomTree, n: NodeIndex, kept: &HashSet<StmtId>) -> Next {
    let mut cur = pdom.idom(n);
    while let Some(c) = cur {
        if c == cfg.exit {
            return Next::Exit;
        }
        if let Some(s) = cfg.node(c).stmts.first()
            && kept.contains(&s.id)
        {
            return Next::Stmt(s.id);
        }
        cur = pdom.idom(c);
    }
    Next::Never
}

/// Replaces the jumps among `ids` by `pass`, in every block of `body` (not in nested
/// functions and classes, which have their own CFGs).
fn replace_jumps(body: &mut [Stmt], ids: &HashSet<StmtId>) {
    for s in body {
        if ids.contains(&s.id) && is_jump(s) {
            s.kind = StmtKind::Pass;
            s.text = "pass".into();
            continue;
        }
        match &mut s.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => {
                replace_jumps(body, ids);
                replace_jumps(orelse, ids);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                replace_jumps(body, ids);
                for h in handlers {
                    replace_jumps(&mut h.body, ids);
                }
                replace_jumps(orelse, ids);
                replace_jumps(finalbody, ids);
            }
            StmtKind::With { body, .. } => replace_jumps(body, ids),
            StmtKind::Match { cases, .. } => {
                for c in cases {
                    replace_jumps(&mut c.body, ids);
                }
            }
            _ => {}
        }
    }
}
