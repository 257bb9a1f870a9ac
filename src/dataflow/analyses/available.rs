//! Available expressions: forward, must (intersection, as a join over `Dual<BitSet>`). An
//! expression is available where every path has evaluated it since its variables were last
//! bound.

use petgraph::graph::NodeIndex;

use super::expr_sets::ExprSets;
use super::program::Program;
use super::{FactAnalysis, FactReport, report};
use crate::cfg::Edge;
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction, FixpointError, Options, iterate_to_fixpoint};
use crate::dataflow::lattice::Dual;

/// Available expressions over a program's CFG.
pub struct AvailableExpressions<'p> {
    pub exprs: ExprSets,
    program: &'p Program<'p>,
}

impl<'p> AvailableExpressions<'p> {
    pub fn new(program: &'p Program<'p>) -> Self {
        AvailableExpressions {
            exprs: ExprSets::new(program),
            program,
        }
    }
}

impl Analysis for AvailableExpressions<'_> {
    type Domain = Dual<BitSet>;
    const DIRECTION: Direction = Direction::Forward;

    /// Every expression: the identity of intersection.
    fn bottom(&self) -> Dual<BitSet> {
        Dual(self.exprs.universe.full_set())
    }

    /// Nothing has been evaluated at the entry.
    fn boundary(&self) -> Dual<BitSet> {
        Dual(self.exprs.universe.empty_set())
    }

    /// `OUT = (IN ∪ evaluated) − read a name bound here`: `x = x + 1` leaves no `x + 1`.
    fn transfer(&self, node: NodeIndex, state: &mut Dual<BitSet>) {
        let info = self.program.info(node);
        self.exprs.generate(&mut state.0, node);
        self.exprs
            .kill(&mut state.0, info.defs.iter().chain(&info.deletes));
    }

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

impl FactAnalysis for AvailableExpressions<'_> {
    const NAME: &'static str = "available";
    const ALIASES: &'static [&'static str] = &["available-expressions"];
    const TITLE: &'static str = "available expressions";
    const LEGEND: &'static str = "An expression is available where every path has evaluated it since its variables were last bound.";
    const HELP: &'static str = "available expressions: forward, must";
    const DIRECTION: Direction = Direction::Forward;
    const MUST: bool = true;

    fn run(program: &Program<'_>, options: &Options<'_>) -> Result<FactReport, FixpointError> {
        let r = iterate_to_fixpoint(&program.cfg, AvailableExpressions::new(program), options)?;
        Ok(report::<Self, _>(program, &r, |s| {
            r.analysis.exprs.texts(&s.0)
        }))
    }
}
