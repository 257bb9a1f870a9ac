//! Very busy expressions: backward, must (intersection, as a join over `Dual<BitSet>`). An
//! expression is very busy where every path evaluates it before any of its variables is
//! bound again.

use petgraph::graph::NodeIndex;

use super::expr_sets::ExprSets;
use super::program::Program;
use super::{FactAnalysis, FactReport, report};
use crate::cfg::Edge;
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction, FixpointError, Options, iterate_to_fixpoint};
use crate::dataflow::lattice::Dual;

/// Very busy expressions over a program's CFG.
pub struct VeryBusyExpressions<'p> {
    pub exprs: ExprSets,
    program: &'p Program<'p>,
}

impl<'p> VeryBusyExpressions<'p> {
    pub fn new(program: &'p Program<'p>) -> Self {
        VeryBusyExpressions {
            exprs: ExprSets::new(program),
            program,
        }
    }
}

impl Analysis for VeryBusyExpressions<'_> {
    type Domain = Dual<BitSet>;
    const DIRECTION: Direction = Direction::Backward;

    fn bottom(&self) -> Dual<BitSet> {
        Dual(self.exprs.universe.full_set())
    }

    /// Nothing is evaluated after the exit.
    fn boundary(&self) -> Dual<BitSet> {
        Dual(self.exprs.universe.empty_set())
    }

    /// `IN = evaluated ∪ (OUT − read a name bound here)`: operands are read before binding.
    fn transfer(&self, node: NodeIndex, state: &mut Dual<BitSet>) {
        let info = self.program.info(node);
        self.exprs
            .kill(&mut state.0, info.defs.iter().chain(&info.deletes));
        self.exprs.generate(&mut state.0, node);
    }

    /// A `for` target is bound on the True edge, before the body evaluates anything.
    fn edge_effect(
        &self,
        source: NodeIndex,
        edge: &Edge,
        _: NodeIndex,
        state: &Dual<BitSet>,
    ) -> Option<Dual<BitSet>> {
        let bound = &self.program.info(source).branch_defs;
        if *edge != Edge::True || bound.is_empty() {
            return None;
        }
        let mut out = state.clone();
        self.exprs.kill(&mut out.0, bound);
        Some(out)
    }
}

impl FactAnalysis for VeryBusyExpressions<'_> {
    const NAME: &'static str = "very-busy";
    const ALIASES: &'static [&'static str] = &["very-busy-expressions"];
    const TITLE: &'static str = "very busy expressions";
    const LEGEND: &'static str = "An expression is very busy where every path evaluates it before any of its variables is bound again.";
    const HELP: &'static str = "very busy expressions: backward, must";
    const DIRECTION: Direction = Direction::Backward;
    const MUST: bool = true;

    fn run(program: &Program<'_>, options: &Options<'_>) -> Result<FactReport, FixpointError> {
        let r = iterate_to_fixpoint(&program.cfg, VeryBusyExpressions::new(program), options)?;
        Ok(report::<Self, _>(program, &r, |s| {
            r.analysis.exprs.texts(&s.0)
        }))
    }
}
