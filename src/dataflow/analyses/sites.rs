//! Facts about a variable at a node — a definition (reaching definitions) or a use
//! (liveness) — numbered so that the sites of one variable are contiguous.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use crate::dataflow::bitset::{BitSet, Universe};
use crate::fxhash::{FxHashMap, FxHashSet};

/// Variable `var` at node `node` (on line `line`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    pub var: String,
    pub line: u32,
    pub node: u32,
}

/// A site given by reference, for numbering sites without building them first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteKey<'a> {
    pub var: &'a str,
    pub line: u32,
    pub node: u32,
}

/// The sites of one analysis, with their labels and each variable's index range.
#[derive(Clone, Debug)]
pub struct Sites {
    pub universe: Universe<Site>,
    ranges: BTreeMap<String, Range<usize>>,
    /// Each site's label, made when first asked for.
    labels: Vec<OnceLock<String>>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@L{}", self.var, self.line)
    }
}

impl Sites {
    /// Numbers `sites` in (variable, line, node) order.
    #[cfg(test)]
    pub fn new(sites: impl IntoIterator<Item = Site>) -> Sites {
        let sites: Vec<Site> = sites.into_iter().collect();
        let keys: Vec<SiteKey<'_>> = sites
            .iter()
            .map(|s| SiteKey {
                var: &s.var,
                line: s.line,
                node: s.node,
            })
            .collect();
        Sites::numbered(&keys).0
    }

    /// Numbers the sites `keys` stand for in (variable, line, node) order, and gives each
    /// key's number.
    pub fn numbered(keys: &[SiteKey<'_>]) -> (Sites, Vec<usize>) {
        // Sort by the rank of the variable's name: integer keys instead of string compares.
        let mut vars: Vec<&str> = keys
            .iter()
            .map(|k| k.var)
            .collect::<FxHashSet<_>>()
            .into_iter()
            .collect();
        vars.sort_unstable();
        let rank: FxHashMap<&str, u32> = vars
            .iter()
            .enumerate()
            .map(|(i, v)| (*v, i as u32))
            .collect();
        let sort_key = |k: &SiteKey<'_>| (rank.get(k.var).copied().unwrap_or(0), k.line, k.node);
        let mut order: Vec<(u32, u32, u32, usize)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let (r, line, node) = sort_key(k);
                (r, line, node, i)
            })
            .collect();
        order.sort_unstable();
        let mut number = vec![0; keys.len()];
        let mut elements: Vec<Site> = Vec::with_capacity(keys.len());
        let mut last = None;
        for (r, line, node, i) in order {
            if last != Some((r, line, node)) {
                last = Some((r, line, node));
                elements.push(Site {
                    var: keys[i].var.to_string(),
                    line,
                    node,
                });
            }
            number[i] = elements.len() - 1;
        }
        // Each variable's sites are contiguous.
        let mut ranges: BTreeMap<String, Range<usize>> = BTreeMap::new();
        let mut start = 0;
        for i in 1..=elements.len() {
            if elements.get(i).map(|s| &s.var) != elements.get(start).map(|s| &s.var) {
                ranges.insert(elements[start].var.clone(), start..i);
                start = i;
            }
        }
        let labels = (0..elements.len()).map(|_| OnceLock::new()).collect();
        let sites = Sites {
            universe: Universe::from_sorted(elements),
            ranges,
            labels,
        };
        (sites, number)
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

    /// The non-empty ranges of `vars`' sites, in order.
    pub fn ranges<'s>(&'s self, vars: &'s [String]) -> impl Iterator<Item = Range<usize>> + 's {
        vars.iter().map(|v| self.range(v)).filter(|r| !r.is_empty())
    }

    pub fn get(&self, i: usize) -> Option<&Site> {
        self.universe.get(i)
    }

    /// `x@L3`, or `x@L3#7` (node 7) when another site of x is on line 3 too.
    pub fn label(&self, i: usize) -> &str {
        let (Some(cell), Some(site)) = (self.labels.get(i), self.get(i)) else {
            return "?";
        };
        cell.get_or_init(|| {
            let elements = self.universe.elements();
            let twin = |j: usize| {
                elements
                    .get(j)
                    .is_some_and(|o| o.var == site.var && o.line == site.line)
            };
            if twin(i + 1) || (i > 0 && twin(i - 1)) {
                format!("{site}#{}", site.node)
            } else {
                site.to_string()
            }
        })
    }

    /// The labels of the members of `set`, in order.
    pub fn labels_of(&self, set: &BitSet) -> Vec<String> {
        set.iter().map(|i| self.label(i).to_string()).collect()
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
        set.remove_range(s.range("y"));
        assert_eq!(s.labels_of(&set), ["x@L2", "x@L9"]);
    }
}
