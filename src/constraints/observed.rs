//! Edges a concrete run took. The solver leaves an edge "unknown" where a condition on the
//! way has no translation; a run of the function that took the edge shows it feasible
//! whatever the translation lacks. The runs come from outside this layer (the notebook runs
//! the function in the interpreter and lays the trace on the CFG); here their edges decide
//! what the solver did not, and each such edge keeps the inputs of the run that took it.
//!
//! A listed path (loops taken at most once) whose edges a run took from the entry, up to
//! the path's end, is feasible too, with the run's inputs as its witness.
//!
//! A run is evidence of feasibility only: an edge no run took stays as the solver left it.
//! A run taking an edge the solver found infeasible contradicts the translation; the run
//! wins (it is what Python does) and a note says so.

use super::analysis::{Analysis, EdgeReport, Mode, Verdict, node_verdicts};
use super::dag::EdgeId;
use super::feasibility::Feasible;
use crate::cfg::Edge;
use crate::python::PyValue;

/// One run: the parameters' values and the CFG edges it took (ids of the DAG's edges, which
/// are the CFG's in [`crate::cfg::Cfg::edges`] order).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub inputs: Vec<(String, PyValue)>,
    /// Edges the run surely took (a step the trace cannot place on one edge adds none).
    pub edges: Vec<EdgeId>,
    /// Every edge the run took, in order, when each step was placed on one edge.
    pub route: Option<Vec<EdgeId>>,
}

impl Run {
    /// The inputs as Python: `s='a b', n=3`.
    pub fn inputs_text(&self) -> String {
        inputs_text(&self.inputs)
    }
}

/// Parameter values as Python: `s='a b', n=3`.
pub fn inputs_text(inputs: &[(String, PyValue)]) -> String {
    inputs
        .iter()
        .map(|(n, v)| format!("{n}={}", v.repr()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Analysis {
    /// Decides the undecided edges that one of `runs` took (`--pyta` keeps PythonTA's
    /// verdicts); returns how many edges the runs decided.
    pub fn observe(&mut self, runs: &[Run]) -> usize {
        if self.mode == Mode::Pyta {
            return 0;
        }
        let mut decided = 0;
        for run in runs {
            self.observe_path(run);
            for &id in &run.edges {
                let Some(e) = self.edges.get_mut(id) else {
                    continue;
                };
                match &e.feasible {
                    Feasible::Yes => {}
                    Feasible::Unknown(_) => {
                        decided += 1;
                        decide(e, run);
                    }
                    Feasible::No => {
                        self.notes.push(format!(
                            "the run {} took the edge {} -> {}, which the translation found \
                             infeasible: the translation is wrong there (please report it)",
                            run.inputs_text(),
                            e.source.index(),
                            e.target.index()
                        ));
                        decide(e, run);
                    }
                }
            }
        }
        if decided > 0 {
            self.nodes = node_verdicts(&self.dag, &self.edges);
            self.refresh_conditions();
        }
        decided
    }

    /// The listed path the run's route starts with (up to the first back edge, or to the
    /// exit), if the solver left it undecided.
    fn observe_path(&mut self, run: &Run) {
        let Some(route) = &run.route else { return };
        let end = route
            .iter()
            .position(|&e| self.dag.edges.get(e).is_some_and(|e| e.back))
            .map(|i| i + 1)
            .or_else(|| {
                let last = self.dag.edges.get(*route.last()?)?;
                (last.target == self.dag.exit).then_some(route.len())
            });
        let Some(end) = end else { return };
        let want = &route[..end];
        if let Some(p) = self.paths.iter_mut().find(|p| p.edges == want)
            && matches!(p.feasible, Feasible::Unknown(_))
        {
            p.feasible = Feasible::Yes;
            p.witness = Some(run.inputs.clone());
        }
    }

    /// A test whose True and False edges both turn out feasible can be either.
    fn refresh_conditions(&mut self) {
        for c in &mut self.conditions {
            if !matches!(c.verdict, Verdict::Unknown(_)) {
                continue;
            }
            let branch = |want: Edge| {
                self.edges
                    .iter()
                    .find(|e| e.source == c.node && e.kind == want)
                    .map(|e| &e.feasible)
            };
            if branch(Edge::True) == Some(&Feasible::Yes)
                && branch(Edge::False) == Some(&Feasible::Yes)
            {
                c.verdict = Verdict::Neither;
            }
        }
    }
}

fn decide(e: &mut EdgeReport, run: &Run) {
    e.feasible = Feasible::Yes;
    e.run = Some(run.inputs.clone());
}
