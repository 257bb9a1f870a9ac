//! The expression facts of a program, numbered, with what each node generates and which
//! facts each variable's binding kills: shared by available and very busy expressions.

use std::collections::BTreeMap;

use petgraph::graph::NodeIndex;

use super::program::Program;
use crate::dataflow::bitset::{BitSet, Universe};

/// Every candidate expression of a program, with gen and kill information.
#[derive(Clone, Debug)]
pub struct ExprSets {
    pub universe: Universe<String>,
    /// Per variable: the expressions that read it.
    readers: BTreeMap<String, Vec<usize>>,
    /// Per node: the expressions it evaluates.
    gens: Vec<Vec<usize>>,
}

impl ExprSets {
    pub fn new(program: &Program<'_>) -> ExprSets {
        let universe = Universe::new(
            program
                .nodes
                .iter()
                .flat_map(|info| info.exprs.iter().map(|c| c.text.clone())),
        );
        let mut readers: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for info in &program.nodes {
            for c in &info.exprs {
                let Some(i) = universe.index_of(&c.text) else {
                    continue;
                };
                for name in &c.names {
                    let list = readers.entry(name.clone()).or_default();
                    if !list.contains(&i) {
                        list.push(i);
                    }
                }
            }
        }
        let gens = program
            .nodes
            .iter()
            .map(|info| {
                info.exprs
                    .iter()
                    .filter_map(|c| universe.index_of(&c.text))
                    .collect()
            })
            .collect();
        ExprSets {
            universe,
            readers,
            gens,
        }
    }

    /// Adds the expressions `node` evaluates.
    pub fn generate(&self, set: &mut BitSet, node: NodeIndex) {
        for &i in &self.gens[node.index()] {
            set.insert(i);
        }
    }

    /// Removes the expressions that read any of `vars`.
    pub fn kill<'v>(&self, set: &mut BitSet, vars: impl IntoIterator<Item = &'v String>) {
        for v in vars {
            for &i in self.readers.get(v).map_or(&[][..], Vec::as_slice) {
                set.remove(i);
            }
        }
    }

    /// The texts of the members of `set`, in order.
    pub fn texts(&self, set: &BitSet) -> Vec<String> {
        self.universe.members(set).cloned().collect()
    }
}
