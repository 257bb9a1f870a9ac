//! Tests across the symbolic layer: translations evaluated by Z3 against CPython, and the
//! solver's own behaviour (timeouts, cancellation, scopes, models, equivalence).

mod harness;
mod oracle;
mod semantics;
mod solving;

use crate::python::ir::{Constant, Expr, ExprKind, UnaryOp};
use crate::python::{PyValue, lower_expression, lower_module};
use crate::symbolic::Env;

/// The environment of a parameter list such as `"x: int, s: str"`.
fn env_of(params: &str) -> Env {
    let module = lower_module(&format!("def f({params}):\n    pass\n")).expect("parameters parse");
    let f = module.function("f").expect("the function");
    let (env, skipped) = Env::from_params(&f.params);
    assert!(skipped.is_empty(), "unsupported parameters {skipped:?}");
    env
}

/// The value of a literal expression (`-7`, `'ab'`, `[1, 2]`, `(1, 'a')`).
fn literal_value(e: &Expr) -> PyValue {
    match &e.kind {
        ExprKind::Constant(Constant::Int(i)) => PyValue::Int(i.clone()),
        ExprKind::Constant(Constant::Float(f)) => PyValue::Float(*f),
        ExprKind::Constant(Constant::Str(s)) => PyValue::Str(s.clone()),
        ExprKind::Constant(Constant::Bool(b)) => PyValue::Bool(*b),
        ExprKind::UnaryOp {
            op: UnaryOp::USub,
            operand,
        } => match literal_value(operand) {
            PyValue::Int(i) => PyValue::Int(-i),
            PyValue::Float(f) => PyValue::Float(-f),
            other => panic!("-{other:?}"),
        },
        ExprKind::List(items) => PyValue::List(items.iter().map(literal_value).collect()),
        ExprKind::Tuple(items) => PyValue::Tuple(items.iter().map(literal_value).collect()),
        other => panic!("not a literal: {other:?}"),
    }
}

/// Inputs written as a dict display: `{'x': 7, 's': 'ab'}`.
fn inputs(text: &str) -> Vec<(String, PyValue)> {
    let e = lower_expression(text).expect("inputs parse");
    let ExprKind::Dict { keys, values } = &e.kind else {
        panic!("inputs must be a dict")
    };
    keys.iter()
        .zip(values)
        .map(|(k, v)| match k.as_ref().map(literal_value) {
            Some(PyValue::Str(name)) => (name, literal_value(v)),
            other => panic!("bad key {other:?}"),
        })
        .collect()
}
