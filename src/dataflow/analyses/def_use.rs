//! Def-use chains from reaching definitions: each use of a variable is linked to every
//! definition of it that reaches the use's node.

use std::fmt;

use petgraph::graph::NodeIndex;

use super::program::Program;
use super::reaching::ReachingDefinitions;
use super::{FactAnalysis, FactReport, report};
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Direction, FixpointError, Options, iterate_to_fixpoint};

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

/// The def-use chains as a `%dataflow` analysis: reaching definitions, then the chains; IN
/// lists each node's ud-chains, OUT its du-chains.
pub struct DefUseChains;

impl FactAnalysis for DefUseChains {
    const NAME: &'static str = "def-use";
    const TITLE: &'static str = "def-use chains";
    const LEGEND: &'static str = "x@L2→L5: the definition of x at line 2 reaches the use of x at line 5. IN lists the chains of the uses in the statement, OUT those of its definitions.";
    const HELP: &'static str =
        "def-use chains from reaching definitions: x@L2→L5; IN lists the chains of the
statement's uses, OUT those of its definitions";
    const DIRECTION: Direction = Direction::Forward;

    fn run(program: &Program<'_>, options: &Options<'_>) -> Result<FactReport, FixpointError> {
        let r = iterate_to_fixpoint(&program.cfg, ReachingDefinitions::new(program), options)?;
        let mut rep = report::<Self, _>(program, &r, |s| r.analysis.sites.labels_of(s));
        let ins: Vec<BitSet> = r.node_states().into_iter().map(|s| s.before).collect();
        let chains = chains(program, &r.analysis, &ins);
        for facts in &mut rep.nodes {
            facts.before = chains
                .iter()
                .filter(|c| c.use_node == facts.node)
                .map(ToString::to_string)
                .collect();
            let mut defined: Vec<&DefUse> =
                chains.iter().filter(|c| c.def_node == facts.node).collect();
            defined.sort_by(|a, b| (&a.def, a.use_node).cmp(&(&b.def, b.use_node)));
            facts.after = defined.into_iter().map(ToString::to_string).collect();
        }
        rep.chains = Some(chains);
        Ok(rep)
    }
}
