//! Which exceptions travel an exception edge the CFG left unnamed.
//!
//! A statement that calls something may raise anything as far as the CFG can tell, so its
//! exception edges carry no names: one to each handler that may catch, and one on to the
//! `finally` body or the exit. When the statement's effects are translated whole, the
//! exceptions it raises are known, and each goes where Python sends it: to the first handler
//! (innermost `try` first, clauses in order) that catches it, else on.

use petgraph::graph::NodeIndex;

use crate::cfg::exceptions::{Catch, catches, handler_classes, is_computed};
use crate::cfg::{Cfg, Edge};
use crate::python::ir::ExceptHandler;

/// Of the exceptions `raised` (class names) at `source`, those that take the exception edge
/// to `target`. `None` when that cannot be told: a handler whose catch depends on a user
/// class, or an exception the CFG gives no way out.
pub fn travelling<'e>(
    cfg: &Cfg,
    source: NodeIndex,
    target: NodeIndex,
    handler_at: impl Fn(NodeIndex) -> Option<&'e ExceptHandler>,
    raised: &[&str],
) -> Option<Vec<String>> {
    let mut handlers: Vec<(NodeIndex, &ExceptHandler)> = Vec::new();
    let mut onward: Vec<NodeIndex> = Vec::new();
    for (to, edge) in cfg.successors(source) {
        if !matches!(edge, Edge::Exception(_)) {
            continue;
        }
        match handler_at(to) {
            Some(h) => handlers.push((to, h)),
            None => onward.push(to),
        }
    }
    // Handlers of inner `try` statements come first in the source, and clauses in order.
    handlers.sort_by_key(|(_, h)| (h.span.line, h.span.column));
    let mut out = Vec::new();
    for &name in raised {
        let destination = destination(&handlers, &onward, name)?;
        if destination == target && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    Some(out)
}

/// Where an exception named `name` goes: the first handler that surely catches it, else the
/// one onward edge.
fn destination(
    handlers: &[(NodeIndex, &ExceptHandler)],
    onward: &[NodeIndex],
    name: &str,
) -> Option<NodeIndex> {
    for (to, h) in handlers {
        match catches(handler_classes(h).as_deref(), is_computed(h), name) {
            Catch::Yes => return Some(*to),
            Catch::Maybe => return None,
            Catch::No => {}
        }
    }
    match onward {
        [to] => Some(*to),
        _ => None,
    }
}
