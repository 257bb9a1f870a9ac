//! The result of abstract interpretation in a domain-independent form: each node's states
//! with every variable's value as text and as the domain's JSON, the warnings, the trace.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;
use serde_json::{Map, Value};

use super::bindings::Bindings;
use super::transfer::AbsInt;
use super::warnings::Warning;
use crate::dataflow::analyses::Program;
use crate::dataflow::domains::AbstractDomain;
use crate::dataflow::engine::{Cause, NodeStates, Phase, Results};
use crate::dataflow::lattice::MaybeReachable;

/// One abstract value, printed and as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueView {
    pub text: String,
    pub json: Value,
}

/// A state: unreachable, or a value for every variable of the report (`⊥` when unbound).
#[derive(Clone, Debug, PartialEq)]
pub struct StateView {
    pub reachable: bool,
    pub values: Vec<(String, ValueView)>,
}

/// One node's states before and after its statement.
#[derive(Clone, Debug, PartialEq)]
pub struct AbsNode {
    pub node: NodeIndex,
    pub before: StateView,
    pub after: StateView,
}

/// One worklist step.
#[derive(Clone, Debug, PartialEq)]
pub struct AbsStep {
    pub step: usize,
    pub node: NodeIndex,
    pub cause: Cause,
    pub phase: Phase,
    pub widened: bool,
    pub old_in: StateView,
    pub new_in: StateView,
    pub old_out: StateView,
    pub new_out: StateView,
}

/// Abstract interpretation of one program in one domain.
#[derive(Clone, Debug, PartialEq)]
pub struct AbsReport {
    pub domain: &'static str,
    pub function: String,
    /// The variables shown, sorted.
    pub variables: Vec<String>,
    /// Every node, in node order.
    pub nodes: Vec<AbsNode>,
    pub warnings: Vec<Warning>,
    pub iterations: u64,
    pub widenings: u64,
    pub narrowing_rounds: u32,
    pub loop_heads: Vec<NodeIndex>,
    pub trace: Vec<AbsStep>,
}

impl StateView {
    /// `x: [0, 5], y: ⊤`, or `unreachable`.
    pub fn text(&self) -> String {
        if !self.reachable {
            return "unreachable".to_string();
        }
        self.values
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.text))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `{var: value}` with the domain's JSON values.
    pub fn json(&self) -> Value {
        let map: Map<String, Value> = self
            .values
            .iter()
            .map(|(k, v)| (k.clone(), v.json.clone()))
            .collect();
        Value::Object(map)
    }

    /// The value of `var`.
    pub fn get(&self, var: &str) -> Option<&ValueView> {
        self.values.iter().find(|(k, _)| k == var).map(|(_, v)| v)
    }
}

pub(super) fn build<D: AbstractDomain, B: Bindings<D>>(
    program: &Program<'_>,
    results: &Results<'_, AbsInt<'_, D, B>>,
    states: &[NodeStates<MaybeReachable<B>>],
    warnings: Vec<Warning>,
) -> AbsReport {
    let mut names: BTreeSet<String> = program.variables().into_iter().collect();
    for s in states {
        for state in [&s.before, &s.after] {
            if let Some(env) = state.as_reachable() {
                env.each(&mut |k, _| {
                    if !names.contains(k) {
                        names.insert(k.to_string());
                    }
                });
            }
        }
    }
    let variables: Vec<String> = names.into_iter().collect();
    let show = |s: &MaybeReachable<B>| view(&variables, s);
    let nodes = states
        .iter()
        .enumerate()
        .map(|(i, s)| AbsNode {
            node: NodeIndex::new(i),
            before: show(&s.before),
            after: show(&s.after),
        })
        .collect();
    let trace = results
        .trace
        .iter()
        .map(|s| AbsStep {
            step: s.step,
            node: s.node,
            cause: s.cause.clone(),
            phase: s.phase,
            widened: s.widened,
            old_in: show(&s.old_in),
            new_in: show(&s.new_in),
            old_out: show(&s.old_out),
            new_out: show(&s.new_out),
        })
        .collect();
    AbsReport {
        domain: D::NAME,
        function: program.cfg.name.clone(),
        variables: variables.clone(),
        nodes,
        warnings,
        iterations: results.stats.iterations,
        widenings: results.stats.widenings,
        narrowing_rounds: results.stats.narrowing_rounds,
        loop_heads: results.layout.loop_heads(),
        trace,
    }
}

fn view<D: AbstractDomain, B: Bindings<D>>(
    variables: &[String],
    state: &MaybeReachable<B>,
) -> StateView {
    let env = state.as_reachable();
    let values = variables
        .iter()
        .map(|v| {
            let value = env.and_then(|e| e.value(v)).cloned().unwrap_or(D::BOTTOM);
            let shown = ValueView {
                text: value.to_string(),
                json: value.to_json(),
            };
            (v.clone(), shown)
        })
        .collect();
    StateView {
        reachable: env.is_some(),
        values,
    }
}
