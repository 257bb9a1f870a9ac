//! The facts of interprocedural live variables and reaching definitions: a variable (a local
//! of one function, or a module global) at a place (a statement, a call site, the module),
//! numbered so that each variable's facts are contiguous.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use crate::dataflow::bitset::{BitSet, Universe};

/// Whose variable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// A module global (declared `global`, or read without being bound).
    Global,
    /// A local of this function (parameters included).
    Local(String),
}

/// Where a definition (reaching) or a use (live) is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum At {
    /// Reaching: the global's value from before the entry function is called (module code,
    /// earlier cells). Shown `x@module`.
    Module,
    /// Reaching: a parameter of the entry function, bound by its (outside) caller. `a@L1`.
    Entry { line: u32 },
    /// A statement of `func`: `x@L3` for a local, `x@f:L3` for a global.
    Stmt { func: String, line: u32, node: u32 },
    /// Reaching: a parameter bound by the call at `caller`'s node. `a←g:L5`.
    Call {
        caller: String,
        line: u32,
        node: u32,
    },
    /// Live: the global may be read after the entry function returns. `x@after`.
    After,
}

/// One fact.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fact {
    pub scope: Scope,
    pub var: String,
    pub at: At,
}

impl fmt::Display for Fact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = &self.var;
        match (&self.scope, &self.at) {
            (_, At::Module) => write!(f, "{v}@module"),
            (_, At::After) => write!(f, "{v}@after"),
            (_, At::Entry { line }) => write!(f, "{v}@L{line}"),
            (Scope::Local(_), At::Stmt { line, .. }) => write!(f, "{v}@L{line}"),
            (Scope::Global, At::Stmt { func, line, .. }) => write!(f, "{v}@{func}:L{line}"),
            (_, At::Call { caller, line, .. }) => write!(f, "{v}←{caller}:L{line}"),
        }
    }
}

/// Every fact of one analysis over all the functions analysed.
pub struct Facts {
    pub universe: Universe<Fact>,
    ranges: BTreeMap<(Scope, String), Range<usize>>,
    labels: Vec<String>,
    /// The global facts.
    pub globals: BitSet,
}

impl Facts {
    pub fn new(facts: impl IntoIterator<Item = Fact>) -> Facts {
        let universe = Universe::new(facts);
        let elements = universe.elements();
        let mut ranges: BTreeMap<(Scope, String), Range<usize>> = BTreeMap::new();
        for (i, f) in elements.iter().enumerate() {
            ranges
                .entry((f.scope.clone(), f.var.clone()))
                .and_modify(|r| r.end = i + 1)
                .or_insert(i..i + 1);
        }
        let plain: Vec<String> = elements.iter().map(Fact::to_string).collect();
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for l in &plain {
            *count.entry(l).or_default() += 1;
        }
        let labels = elements
            .iter()
            .zip(&plain)
            .map(|(f, l)| match &f.at {
                At::Stmt { node, .. } | At::Call { node, .. } if count[l.as_str()] > 1 => {
                    format!("{l}#{node}")
                }
                _ => l.clone(),
            })
            .collect();
        let globals = BitSet::from_indices(
            elements.len(),
            elements
                .iter()
                .enumerate()
                .filter(|(_, f)| f.scope == Scope::Global)
                .map(|(i, _)| i),
        );
        Facts {
            universe,
            ranges,
            labels,
            globals,
        }
    }

    pub fn empty(&self) -> BitSet {
        self.universe.empty_set()
    }

    /// The indices of the facts of `var` in `scope`.
    pub fn range(&self, scope: &Scope, var: &str) -> Range<usize> {
        self.ranges
            .get(&(scope.clone(), var.to_string()))
            .cloned()
            .unwrap_or(0..0)
    }

    pub fn index(&self, fact: &Fact) -> Option<usize> {
        self.universe.index_of(fact)
    }

    pub fn get(&self, i: usize) -> Option<&Fact> {
        self.universe.get(i)
    }

    pub fn labels_of(&self, set: &BitSet) -> Vec<String> {
        set.iter()
            .filter_map(|i| self.labels.get(i).cloned())
            .collect()
    }

    /// `set`'s global facts only.
    pub fn global_part(&self, set: &BitSet) -> BitSet {
        let mut out = set.clone();
        out.intersect(&self.globals);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_per_scope_and_labels_distinguish() {
        let local = |var: &str, line| Fact {
            scope: Scope::Local("f".into()),
            var: var.into(),
            at: At::Stmt {
                func: "f".into(),
                line,
                node: line,
            },
        };
        let global = Fact {
            scope: Scope::Global,
            var: "x".into(),
            at: At::Stmt {
                func: "g".into(),
                line: 4,
                node: 2,
            },
        };
        let module = Fact {
            scope: Scope::Global,
            var: "x".into(),
            at: At::Module,
        };
        let call = Fact {
            scope: Scope::Local("f".into()),
            var: "a".into(),
            at: At::Call {
                caller: "g".into(),
                line: 7,
                node: 5,
            },
        };
        let facts = Facts::new([local("x", 3), global.clone(), module, call, local("x", 5)]);
        assert_eq!(facts.range(&Scope::Global, "x").len(), 2);
        assert_eq!(facts.range(&Scope::Local("f".into()), "x").len(), 2);
        assert!(facts.range(&Scope::Local("g".into()), "x").is_empty());
        let all = facts.universe.full_set();
        assert_eq!(
            facts.labels_of(&all),
            ["x@module", "x@g:L4", "a←g:L7", "x@L3", "x@L5"]
        );
        assert_eq!(facts.global_part(&all).count(), 2);
        assert!(facts.index(&global).is_some());
    }
}
