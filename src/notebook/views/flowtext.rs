//! Text pieces shared by the `%dataflow` and `%absint` views: node lines, statements,
//! worklist causes, and changes between two fact lists.

use petgraph::graph::NodeIndex;
use serde_json::{Value, json};

use crate::cfg::Cfg;
use crate::dataflow::engine::{Cause, Phase};

/// `L3` or `L3-5`.
pub fn lines(cfg: &Cfg, n: NodeIndex) -> String {
    let (a, b) = cfg.node(n).lines;
    if a == b {
        format!("L{a}")
    } else {
        format!("L{a}-{b}")
    }
}

/// The node's label as `%cfg` shows it (`x = x + 1`, `enter: f(x)`).
pub fn statement(cfg: &Cfg, n: NodeIndex) -> String {
    let node = cfg.node(n);
    if node.unreachable {
        format!("{}  (unreachable)", node.label)
    } else {
        node.label.clone()
    }
}

/// Why a step ran: `start`, `from 3 (True)`, `descending`; `, widened` when it widened.
pub fn cause(cause: &Cause, phase: Phase, widened: bool) -> String {
    let mut text = match (cause, phase) {
        (_, Phase::Narrowing) | (Cause::Descending, _) => "descending".to_string(),
        (Cause::Start, _) => "start".to_string(),
        (Cause::Edge { from, edge }, _) => match edge.label() {
            Some(label) => format!("from {} ({label})", from.index()),
            None => format!("from {}", from.index()),
        },
    };
    if widened {
        text.push_str(", widened");
    }
    text
}

/// The cause as JSON fields: `from` (node id or null) and `edge` (label or null).
pub fn cause_json(cause: &Cause) -> (Value, Value) {
    match cause {
        Cause::Edge { from, edge } => (json!(from.index().to_string()), json!(edge.label())),
        _ => (Value::Null, Value::Null),
    }
}

/// Facts shown per set in tables and figures (the JSON has them all): on a long function a
/// set can hold thousands, and a table of such sets grows with the square of its length.
pub const MAX_SHOWN_FACTS: usize = 50;

/// `{a, b}`; beyond [`MAX_SHOWN_FACTS`] facts, the first ones and how many more.
pub fn set(facts: &[String]) -> String {
    match facts.get(..MAX_SHOWN_FACTS) {
        Some(shown) if facts.len() > MAX_SHOWN_FACTS => format!(
            "{{{}, … and {} more (limit {MAX_SHOWN_FACTS} shown)}}",
            shown.join(", "),
            facts.len() - MAX_SHOWN_FACTS
        ),
        _ => format!("{{{}}}", facts.join(", ")),
    }
}

/// The facts of `new` not in `old`, and those of `old` not in `new`.
pub fn diff(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let added = new.iter().filter(|f| !old.contains(f)).cloned().collect();
    let removed = old.iter().filter(|f| !new.contains(f)).cloned().collect();
    (added, removed)
}

/// `+a +b −c`, or `·` when nothing changed.
pub fn diff_text(old: &[String], new: &[String]) -> String {
    let (added, removed) = diff(old, new);
    let parts: Vec<String> = added
        .iter()
        .map(|f| format!("+{f}"))
        .chain(removed.iter().map(|f| format!("−{f}")))
        .collect();
    if parts.is_empty() {
        "·".to_string()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Edge;

    #[test]
    fn pieces() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(diff_text(&s(&["a", "b"]), &s(&["b", "c"])), "+c −a");
        assert_eq!(diff_text(&s(&["a"]), &s(&["a"])), "·");
        assert_eq!(set(&s(&["x@L2", "y@L3"])), "{x@L2, y@L3}");
        let many: Vec<String> = (0..MAX_SHOWN_FACTS + 2).map(|i| format!("f{i}")).collect();
        let shown = set(&many);
        assert!(shown.starts_with("{f0, f1, "), "{shown}");
        assert!(
            shown.ends_with(&format!(
                "f{}, … and 2 more (limit {MAX_SHOWN_FACTS} shown)}}",
                MAX_SHOWN_FACTS - 1
            )),
            "{shown}"
        );
        let c = Cause::Edge {
            from: NodeIndex::new(3),
            edge: Edge::True,
        };
        assert_eq!(cause(&c, Phase::Ascending, true), "from 3 (True), widened");
        assert_eq!(cause(&Cause::Start, Phase::Ascending, false), "start");
        assert_eq!(cause_json(&c), (json!("3"), json!("True")));
    }
}
