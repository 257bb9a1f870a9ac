//! Large CFGs, summarised for drawing: a graph of more than [`FIGURE_NODES`] nodes is drawn as
//! its first nodes in id (source) order plus the exit, and one grey box standing for the rest,
//! with dashed edges into and out of it where the left-out nodes connect to the drawn ones.
//! Graphviz then never gets thousands of nodes (`%cfg`, `%constraints`, `%dataflow`, `%absint`
//! on a 10^4-statement function). The text form, the tables and the JSON payload (and so
//! `--save FILE.json`) keep every node. A graph at or under the bound is drawn whole, exactly
//! as before. Everything depends only on the graph, so the summary is deterministic.

use petgraph::graph::NodeIndex;

use crate::cfg::Cfg;

/// Nodes a CFG figure draws; beyond this, the rest is one box.
pub const FIGURE_NODES: usize = 300;

/// Which nodes of a CFG its figure draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn {
    /// By node index; `None` when every node is drawn.
    shown: Option<Vec<bool>>,
    /// Nodes left out.
    pub hidden: usize,
    /// First and last line of the nodes left out.
    pub hidden_lines: Option<(u32, u32)>,
    /// All nodes.
    pub total: usize,
}

impl Drawn {
    /// The nodes of `cfg` a figure draws: all of them up to [`FIGURE_NODES`], else the
    /// first `FIGURE_NODES - 1` by id (the entry first) and the exit.
    pub fn of(cfg: &Cfg) -> Drawn {
        Drawn::with_limit(cfg, FIGURE_NODES)
    }

    /// [`Drawn::of`] with another bound (at least 2: a first node and the exit).
    pub fn with_limit(cfg: &Cfg, limit: usize) -> Drawn {
        let total = cfg.graph.node_count();
        let limit = limit.max(2);
        if total <= limit {
            return Drawn {
                shown: None,
                hidden: 0,
                hidden_lines: None,
                total,
            };
        }
        let mut shown = vec![false; total];
        for n in cfg.nodes().filter(|&n| n != cfg.exit).take(limit - 1) {
            shown[n.index()] = true;
        }
        shown[cfg.exit.index()] = true;
        let mut hidden = 0;
        let mut lines: Option<(u32, u32)> = None;
        for n in cfg.nodes().filter(|n| !shown[n.index()]) {
            hidden += 1;
            let (a, b) = cfg.node(n).lines;
            lines = Some(match lines {
                None => (a, b),
                Some((x, y)) => (x.min(a), y.max(b)),
            });
        }
        Drawn {
            shown: Some(shown),
            hidden,
            hidden_lines: lines,
            total,
        }
    }

    /// Whether node `n` is drawn.
    pub fn shows(&self, n: NodeIndex) -> bool {
        self.shown
            .as_ref()
            .is_none_or(|s| s.get(n.index()).copied().unwrap_or(false))
    }

    /// Whether some nodes are left out.
    pub fn is_summarised(&self) -> bool {
        self.shown.is_some()
    }

    /// The label of the box standing for the nodes left out.
    pub fn box_label(&self) -> String {
        let lines = match self.hidden_lines {
            Some((a, b)) if a == b => format!(" (line {a})"),
            Some((a, b)) => format!(" (lines {a}\u{2013}{b})"),
            None => String::new(),
        };
        format!(
            "{} more nodes{lines} not drawn:\nthe text form, the tables and\n--save FILE.json keep them all",
            thousands(self.hidden)
        )
    }

    /// The note under a summarised figure (`None` when the whole graph is drawn).
    pub fn note(&self, name: &str) -> Option<String> {
        if !self.is_summarised() {
            return None;
        }
        Some(format!(
            "{name} has {} nodes: the figure draws the first {} and the exit; the other {}{} are one grey box (dashed edges lead into and out of it). The text form, the tables and --save FILE.json keep every node.",
            thousands(self.total),
            thousands(self.total - self.hidden - 1),
            thousands(self.hidden),
            match self.hidden_lines {
                Some((a, b)) => format!(", lines {a}\u{2013}{b},"),
                None => String::new(),
            }
        ))
    }
}

/// The HTML notes under the figures of `cfgs`, one per summarised graph (empty when every
/// graph is drawn whole).
pub fn notes_html(cfgs: &[&Cfg]) -> String {
    cfgs.iter()
        .filter_map(|c| Drawn::of(c).note(&c.name))
        .map(|n| {
            format!(
                "<div class=\"analysis-kernel-note\">{}</div>",
                crate::render::html::escape(&n)
            )
        })
        .collect()
}

/// `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> Cfg {
        let mut src = String::from("def f(x):\n");
        for i in 0..n {
            src.push_str(&format!("    x = x + {i}\n"));
        }
        src.push_str("    return x\n");
        let m = crate::python::lower_module(&src).expect("parses");
        crate::cfg::function_cfg(m.function("f").expect("f")).expect("cfg")
    }

    #[test]
    fn small_graphs_are_drawn_whole_and_large_ones_cut() {
        let small = chain(5);
        let d = Drawn::of(&small);
        assert!(!d.is_summarised());
        assert!(small.nodes().all(|n| d.shows(n)));
        assert_eq!(d.note("f"), None);

        let big = chain(50);
        let d = Drawn::with_limit(&big, 10);
        assert!(d.is_summarised());
        let drawn = big.nodes().filter(|&n| d.shows(n)).count();
        assert_eq!(drawn, 10);
        assert!(d.shows(big.entry) && d.shows(big.exit));
        assert_eq!(d.hidden, big.graph.node_count() - 10);
        let note = d.note("f").expect("a note");
        assert!(note.contains("the first 9 and the exit"), "{note}");
        assert!(
            d.box_label()
                .starts_with(&format!("{} more nodes", d.hidden))
        );
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
