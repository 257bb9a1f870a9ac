//! The engine-facing half of a dataflow analysis served by user code, written once for both
//! front-ends: a Python class ([`super::flow::UserFlow`]) and a Rust cell
//! (`crate::rustcell::flow::RustFlow`) each implement [`FactSource`] (how to ask the user for
//! a node's or an edge's effect), and this module makes that an engine [`Analysis`] over
//! [`Facts`] in either direction and the `%dataflow` report.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::flow::{Facts, natural};
use crate::cfg::Edge;
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::engine::{
    Analysis, Direction, FixpointError, Options, Results, iterate_to_fixpoint,
};
use crate::dataflow::report::{Report, Source};

/// A dataflow analysis of sets of str facts whose effects are computed by user code.
pub trait FactSource {
    /// The first failure in user code, as the front-end reports it.
    type Error;

    /// Facts meet by intersection (unvisited nodes hold every fact).
    fn must(&self) -> bool;
    fn direction(&self) -> Direction;
    /// The facts at the entry (forward) or exit (backward).
    fn boundary_facts(&self) -> BTreeSet<String>;
    /// Every fact, when the analysis names them (a must-analysis' unvisited state); `None`:
    /// "every fact" stays symbolic.
    fn universe(&self) -> Option<BTreeSet<String>> {
        None
    }
    /// The node's effect on `facts`; `None` after a failure (the facts are kept).
    fn transfer(&self, node: NodeIndex, facts: &BTreeSet<String>) -> Option<BTreeSet<String>>;
    /// The effect of the edge of `kind` out of `node`, when it has one.
    fn edge(
        &self,
        _node: NodeIndex,
        _kind: &'static str,
        _facts: &BTreeSet<String>,
    ) -> Option<BTreeSet<String>> {
        None
    }
    /// The first failure, removing it.
    fn take_error(&self) -> Option<Self::Error>;
}

/// An edge's kind as the user's `edge` sees it.
pub fn edge_kind(edge: &Edge) -> &'static str {
    match edge {
        Edge::Normal => "normal",
        Edge::True => "true",
        Edge::False => "false",
        Edge::Exception(_) => "exception",
        Edge::Return => "return",
        Edge::Break => "break",
        Edge::Continue => "continue",
    }
}

fn bottom<S: FactSource>(s: &S) -> Facts {
    Facts {
        must: s.must(),
        set: if s.must() {
            s.universe()
        } else {
            Some(BTreeSet::new())
        },
    }
}

fn boundary<S: FactSource>(s: &S) -> Facts {
    Facts {
        must: s.must(),
        set: Some(s.boundary_facts()),
    }
}

fn transfer<S: FactSource>(s: &S, node: NodeIndex, state: &mut Facts) {
    let Some(facts) = &state.set else { return };
    if let Some(new) = s.transfer(node, facts) {
        state.set = Some(new);
    }
}

fn edge_effect<S: FactSource>(
    s: &S,
    source: NodeIndex,
    edge: &Edge,
    state: &Facts,
) -> Option<Facts> {
    let facts = state.set.as_ref()?;
    let new = s.edge(source, edge_kind(edge), facts)?;
    Some(Facts {
        must: state.must,
        set: Some(new),
    })
}

/// A forward analysis on the engine.
pub struct Forward<S>(pub S);
/// A backward analysis on the engine (its direction is a constant of the trait).
pub struct Backward<S>(pub S);

macro_rules! served_analysis {
    ($t:ident, $dir:expr) => {
        impl<S: FactSource> Analysis for $t<S> {
            type Domain = Facts;
            const DIRECTION: Direction = $dir;

            fn bottom(&self) -> Facts {
                bottom(&self.0)
            }

            fn boundary(&self) -> Facts {
                boundary(&self.0)
            }

            fn transfer(&self, node: NodeIndex, state: &mut Facts) {
                transfer(&self.0, node, state)
            }

            fn edge_effect(
                &self,
                source: NodeIndex,
                edge: &Edge,
                _: NodeIndex,
                state: &Facts,
            ) -> Option<Facts> {
                edge_effect(&self.0, source, edge, state)
            }
        }
    };
}

served_analysis!(Forward, Direction::Forward);
served_analysis!(Backward, Direction::Backward);

/// The facts in the order the built-ins list them.
fn shown(f: &Facts) -> Vec<String> {
    let mut v: Vec<String> = f.set.clone().unwrap_or_default().into_iter().collect();
    v.sort_by(|a, b| natural(a, b));
    v
}

/// The analysis an engine wrapper ([`Forward`], [`Backward`]) serves.
trait Serving {
    type Source: FactSource;
    fn served(&self) -> &Self::Source;
}

impl<S: FactSource> Serving for Forward<S> {
    type Source = S;
    fn served(&self) -> &S {
        &self.0
    }
}

impl<S: FactSource> Serving for Backward<S> {
    type Source = S;
    fn served(&self) -> &S {
        &self.0
    }
}

type Outcome<S> = Result<Result<FactReport, FixpointError>, <S as FactSource>::Error>;

/// The report of a finished run, or the first failure in user code.
fn finish<A: Analysis<Domain = Facts> + Serving>(
    name: &'static str,
    source: Source,
    program: &Program<'_>,
    run: Result<Results<'_, A>, FixpointError>,
) -> Outcome<A::Source> {
    let r = match run {
        Ok(r) => r,
        Err(e) => return Ok(Err(e)),
    };
    if let Some(e) = r.analysis.served().take_error() {
        return Err(e);
    }
    let states = r.node_states();
    Ok(Ok(Report::new(name, source, program, &r, &states, shown)))
}

/// Runs `served` on `program` to its fixpoint and reports it as `name` (`source`: title,
/// legend, quantifier). The outer error is the first failure in user code.
pub fn run<S: FactSource>(
    name: &'static str,
    source: Source,
    program: &Program<'_>,
    served: S,
    options: &Options<'_>,
) -> Outcome<S> {
    let cfg = &program.cfg;
    match served.direction() {
        Direction::Forward => finish(
            name,
            source,
            program,
            iterate_to_fixpoint(cfg, Forward(served), options),
        ),
        Direction::Backward => finish(
            name,
            source,
            program,
            iterate_to_fixpoint(cfg, Backward(served), options),
        ),
    }
}
