//! Def-use chains from reaching definitions: each use of a variable is linked to every
//! definition of it that reaches the use's node.

use std::fmt;

use petgraph::graph::NodeIndex;

use super::program::Program;
use super::reaching::ReachingDefinitions;
use crate::dataflow::bitset::BitSet;

/// The definition `def` (a reaching-definitions site) of `var` reaches its use at `use_node`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DefUse {
    /// The definition's label, `x@L2`.
    pub def: String,
    pub def_node: NodeIndex,
    pub var: String,
    pub use_node: NodeIndex,
    pub use_line: u32,
}

impl fmt::Display for DefUse {
    /// `x@L2→L5`: the definition of x at line 2 reaches the use at line 5.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}→L{}", self.def, self.use_line)
    }
}

/// The chains of `program`, given the reaching definitions before each node (by index),
/// sorted by use node, variable and definition.
pub fn chains(program: &Program<'_>, rd: &ReachingDefinitions, ins: &[BitSet]) -> Vec<DefUse> {
    let mut out = Vec::new();
    for n in program.cfg.nodes() {
        let Some(reaching) = ins.get(n.index()) else {
            continue;
        };
        for var in &program.info(n).uses {
            for i in rd.sites.range(var) {
                if !reaching.contains(i) {
                    continue;
                }
                let Some(site) = rd.sites.get(i) else {
                    continue;
                };
                out.push(DefUse {
                    def: rd.sites.label(i).to_string(),
                    def_node: NodeIndex::new(site.node as usize),
                    var: var.clone(),
                    use_node: n,
                    use_line: program.line(n),
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (a.use_node, &a.var, a.def_node, &a.def).cmp(&(b.use_node, &b.var, b.def_node, &b.def))
    });
    out
}
