//! What the tree says a concrete input does: the leaf whose path condition the input
//! satisfies, and that leaf's outcome evaluated at the input (with the solver: the inputs
//! fixed to their values, one model, every leaf's condition and value read from it).

use super::CheckError;
use super::concrete::Concrete;
use super::values::{literal, py_str, same};
use crate::python::PyValue;
use crate::symbolic::mapping::MapKind;
use crate::symbolic::{Check, CompareOp, Env, Model, Solver, Term};
use crate::symexec::{Leaf, Message, NodeId, Outcome, Tree, Value};

/// A leaf's outcome at one input.
#[derive(Clone, Debug, PartialEq)]
pub enum Prediction {
    Return(PyValue),
    /// `message` is `None` when the tree does not know it.
    Raised {
        type_name: String,
        message: Option<String>,
    },
    Normal(Vec<(String, PyValue)>),
    Bound(String),
    /// No leaf's path condition holds.
    NoLeaf,
    /// The solver could not evaluate it.
    Unknown(String),
}

/// Evaluates a tree's leaves at inputs.
pub struct Predictor<'t> {
    tree: &'t Tree,
    env: &'t Env,
    solver: Solver,
}

impl<'t> Predictor<'t> {
    pub fn new(
        tree: &'t Tree,
        env: &'t Env,
        timeout_ms: u32,
        cancel: &crate::cancel::Cancel,
    ) -> Predictor<'t> {
        Predictor {
            tree,
            env,
            solver: Solver::new(timeout_ms).with_cancel(cancel.clone()),
        }
    }

    /// A model that fixes every input to its value.
    fn model(&mut self, inputs: &[(String, PyValue)]) -> Result<Option<Model>, CheckError> {
        self.solver.push();
        let mut result = Ok(None);
        for (name, value) in inputs {
            let (Some(var), Some(lit)) = (self.env.get(name), literal(value)) else {
                result = Err(CheckError::Program(format!(
                    "the input {name}={} has no term",
                    value.repr()
                )));
                break;
            };
            let eq = Term::compare(CompareOp::Eq, var.clone(), lit)
                .map_err(|e| CheckError::Program(e.0));
            match eq.and_then(|t| {
                self.solver
                    .assert(&t)
                    .map_err(|e| CheckError::Program(e.to_string()))
            }) {
                Ok(()) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_ok() {
            result = Ok(match self.solver.check() {
                Check::Sat(m) => Some(m),
                Check::Unknown(r) => {
                    if let Err(stopped) = r.stopped() {
                        let _ = self.solver.pop();
                        return Err(stopped.into());
                    }
                    None
                }
                Check::Unsat => None,
            });
        }
        self.solver
            .pop()
            .map_err(|e| CheckError::Program(e.to_string()))?;
        result
    }

    /// Whether `inputs` satisfy every condition (`None`: the solver cannot tell).
    pub fn satisfies(
        &mut self,
        inputs: &[(String, PyValue)],
        conditions: &[(String, Term)],
    ) -> Result<Option<bool>, CheckError> {
        let Some(model) = self.model(inputs)? else {
            return Ok(None);
        };
        for (_, c) in conditions {
            match model.holds(c) {
                Ok(true) => {}
                Ok(false) => return Ok(Some(false)),
                Err(_) => return Ok(None),
            }
        }
        Ok(Some(true))
    }

    /// The leaf `inputs` land in (unsat leaves do not count) and its outcome there.
    pub fn predict(
        &mut self,
        inputs: &[(String, PyValue)],
    ) -> Result<(Option<NodeId>, Prediction), CheckError> {
        let Some(model) = self.model(inputs)? else {
            return Ok((
                None,
                Prediction::Unknown("the solver found no model of the inputs".into()),
            ));
        };
        let mut landed = Vec::new();
        for leaf in &self.tree.leaves {
            if matches!(leaf.outcome, Outcome::Unsat) {
                continue;
            }
            match model.holds(&leaf.path_condition) {
                Ok(true) => landed.push(leaf),
                Ok(false) => {}
                Err(e) => return Ok((Some(leaf.node), Prediction::Unknown(e.to_string()))),
            }
        }
        match landed.as_slice() {
            [] => Ok((None, Prediction::NoLeaf)),
            [leaf] => Ok((Some(leaf.node), self.outcome(leaf, &model))),
            several => {
                let ids: Vec<String> = several.iter().map(|l| l.node.to_string()).collect();
                Ok((
                    None,
                    Prediction::Unknown(format!(
                        "the input satisfies the path conditions of leaves {}",
                        ids.join(", ")
                    )),
                ))
            }
        }
    }

    /// `leaf`'s outcome at `inputs` (whether or not they satisfy its path condition).
    pub fn at_leaf(
        &mut self,
        leaf: &Leaf,
        inputs: &[(String, PyValue)],
    ) -> Result<Prediction, CheckError> {
        Ok(match self.model(inputs)? {
            Some(model) => self.outcome(leaf, &model),
            None => Prediction::Unknown("the solver found no model of the inputs".into()),
        })
    }

    fn outcome(&self, leaf: &Leaf, model: &Model) -> Prediction {
        let term = |t: &Term| model.value(t).map_err(|e| e.to_string());
        let value = |v: &Value| -> Result<PyValue, String> {
            match v {
                Value::Term(t) => term(t),
                Value::None => Ok(PyValue::None),
                // Its keys are distinct on the leaf's path (the mapping's invariant).
                Value::Mapping(m) => match m.kind {
                    MapKind::Dict => m
                        .entries
                        .iter()
                        .map(|(k, v)| Ok((term(k)?, term(v)?)))
                        .collect::<Result<Vec<_>, String>>()
                        .map(PyValue::Dict),
                    MapKind::Set => m
                        .keys()
                        .map(term)
                        .collect::<Result<Vec<_>, String>>()
                        .map(PyValue::Set),
                },
                other => Err(format!("{other} has no value")),
            }
        };
        let result = match &leaf.outcome {
            Outcome::Return(v) => value(v).map(Prediction::Return),
            Outcome::Exception(e) => {
                let message = match &e.message {
                    Message::Known(m) => Ok(Some(m.clone())),
                    Message::Of(t) => model
                        .value(t)
                        .map(|v| Some(py_str(&v)))
                        .map_err(|e| e.to_string()),
                    Message::Repr(t) => model
                        .value(t)
                        .map(|v| Some(v.repr()))
                        .map_err(|e| e.to_string()),
                    Message::Unknown => Ok(None),
                };
                message.map(|message| Prediction::Raised {
                    type_name: e.type_name.clone(),
                    message,
                })
            }
            Outcome::Normal => {
                let store = &self.tree.nodes[leaf.node].store;
                store
                    .iter()
                    .filter(|(n, v)| {
                        !n.starts_with('$') && matches!(&**v, Value::Term(_) | Value::None)
                    })
                    .map(|(n, v)| value(v).map(|x| (n.to_string(), x)))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Prediction::Normal)
            }
            Outcome::Bound(reason) => Ok(Prediction::Bound(reason.clone())),
            Outcome::Unsat => Err("an unsatisfiable leaf".into()),
        };
        result.unwrap_or_else(Prediction::Unknown)
    }
}

/// Whether a concrete run did what the prediction says.
pub fn agrees(p: &Prediction, c: &Concrete) -> bool {
    match (p, c) {
        (Prediction::Return(a), Concrete::Return(b)) => same(a, b),
        (
            Prediction::Raised { type_name, message },
            Concrete::Raised {
                type_name: t,
                message: m,
            },
        ) => type_name == t && message.as_ref().is_none_or(|x| x == m),
        (Prediction::Normal(a), Concrete::Normal(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(n, x)| b.iter().any(|(k, y)| k == n && same(x, y)))
        }
        _ => false,
    }
}
