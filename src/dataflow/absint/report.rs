//! Abstract interpretation's facts in a domain-independent form: each state with every
//! variable's value as text and as the domain's JSON, gathered into a [`Report`].

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::bindings::Bindings;
use super::transfer::AbsInt;
use super::warnings::Warning;
use crate::dataflow::analyses::Program;
use crate::dataflow::domains::AbstractDomain;
use crate::dataflow::engine::{NodeStates, Results};
use crate::dataflow::lattice::MaybeReachable;
use crate::dataflow::report::{AbsReport, Report, Source};

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
    let mut report = Report::new(D::NAME, Source::Absint, program, results, states, |s| {
        view(&variables, s)
    });
    report.variables = variables;
    report.warnings = warnings;
    report
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
