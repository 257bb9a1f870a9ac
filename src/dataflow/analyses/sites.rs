//! Facts about a variable at a node — a definition (reaching definitions) or a use
//! (liveness) — numbered so that the sites of one variable are contiguous.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use crate::dataflow::bitset::{BitSet, Universe};

/// Variable `var` at node `node` (on line `line`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    pub var: String,
    pub line: u32,
    pub node: u32,
}

/// The sites of one analysis, with their labels and each variable's index range.
#[derive(Clone, Debug)]
pub struct Sites {
    pub universe: Universe<Site>,
    ranges: BTreeMap<String, Range<usize>>,
    labels: Vec<String>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@L{}", self.var, self.line)
    }
}

impl Sites {
    /// Numbers `sites` in (variable, line, node) order.
    pub fn new(sites: impl IntoIterator<Item = Site>) -> Sites {
        let universe = Universe::new(sites);
        let mut ranges: BTreeMap<String, Range<usize>> = BTreeMap::new();
        for (i, s) in universe.elements().iter().enumerate() {
            ranges
                .entry(s.var.clone())
                .and_modify(|r| r.end = i + 1)
                .or_insert(i..i + 1);
        }
        let elements = universe.elements();
        // `x@L3`, or `x@L3#7` (node 7) when another site of x is on line 3 too.
        let labels = elements
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let twin = |j: usize| {
                    elements
                        .get(j)
                        .is_some_and(|o| o.var == s.var && o.line == s.line)
                };
                if twin(i + 1) || (i > 0 && twin(i - 1)) {
                    format!("{s}#{}", s.node)
                } else {
                    s.to_string()
                }
            })
            .collect();
        Sites {
            universe,
            ranges,
            labels,
        }
    }

    pub fn len(&self) -> usize {
        self.universe.len()
    }

    pub fn is_empty(&self) -> bool {
        self.universe.is_empty()
    }

    /// The indices of `var`'s sites (empty when it has none).
    pub fn range(&self, var: &str) -> Range<usize> {
        self.ranges.get(var).cloned().unwrap_or(0..0)
    }

    pub fn index(&self, site: &Site) -> Option<usize> {
        self.universe.index_of(site)
    }

    pub fn get(&self, i: usize) -> Option<&Site> {
        self.universe.get(i)
    }

    pub fn label(&self, i: usize) -> &str {
        self.labels.get(i).map_or("?", String::as_str)
    }

    /// The labels of the members of `set`, in order.
    pub fn labels_of(&self, set: &BitSet) -> Vec<String> {
        set.iter().map(|i| self.label(i).to_string()).collect()
    }

    /// Removes every site of `var` from `set`.
    pub fn kill(&self, set: &mut BitSet, var: &str) {
        set.remove_range(self.range(var));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(var: &str, line: u32, node: u32) -> Site {
        Site {
            var: var.into(),
            line,
            node,
        }
    }

    #[test]
    fn ranges_and_labels() {
        let s = Sites::new([
            site("y", 3, 1),
            site("x", 2, 0),
            site("x", 9, 6),
            site("y", 3, 2),
        ]);
        assert_eq!(s.range("x"), 0..2);
        assert_eq!(s.range("y"), 2..4);
        assert_eq!(s.range("z"), 0..0);
        let labels: Vec<&str> = (0..s.len()).map(|i| s.label(i)).collect();
        assert_eq!(labels, ["x@L2", "x@L9", "y@L3#1", "y@L3#2"]);
        let mut set = s.universe.full_set();
        s.kill(&mut set, "y");
        assert_eq!(s.labels_of(&set), ["x@L2", "x@L9"]);
    }
}
