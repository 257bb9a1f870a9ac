//! Evaluating a translation under concrete inputs with Z3 (assert `var == value`, check,
//! read the model) and comparing with what CPython did. Shared by the unit tests and
//! `tests/z3_translation.rs`, which maps `crate::symbolic`/`crate::python` to the library.

use std::str::FromStr;

use num_bigint::BigInt;
use serde_json::Value;

use super::oracle::{self, Outcome};
use crate::python::PyValue;
use crate::symbolic::solver::ratio_to_f64;
use crate::symbolic::{
    Check, CompareOp, Env, ExceptionKind, SeqKind, Solver, Sort, Term, Translated, Var,
};

/// What our translation says evaluation does.
#[derive(Clone, Debug, PartialEq)]
pub enum Ours {
    Value(PyValue),
    Raises(ExceptionKind),
}

/// The oracle's encoding of a value.
pub fn encode(v: &PyValue) -> Value {
    match v {
        PyValue::Bool(b) => oracle::boolean(*b),
        PyValue::Int(i) => serde_json::json!({"t": "int", "v": i.to_string()}),
        PyValue::Float(f) => oracle::float(*f),
        PyValue::Str(s) => oracle::string(s),
        PyValue::List(items) => oracle::list(items.iter().map(encode).collect()),
        PyValue::Tuple(items) => oracle::tuple(items.iter().map(encode).collect()),
        PyValue::None => serde_json::json!({"t": "none", "v": null}),
        // The oracle's inputs are terms' values: never a dict or set.
        PyValue::Dict(_) | PyValue::Set(_) => serde_json::json!({"t": "other", "v": v.repr()}),
    }
}

/// A value the oracle returned.
pub fn decode(v: &Value) -> Result<PyValue, String> {
    let t = v.get("t").and_then(Value::as_str).ok_or("no type tag")?;
    let x = v.get("v").ok_or("no value")?;
    let text = || x.as_str().ok_or_else(|| format!("bad {t} {x}"));
    let items = || -> Result<Vec<PyValue>, String> {
        x.as_array()
            .ok_or("bad items")?
            .iter()
            .map(decode)
            .collect()
    };
    Ok(match t {
        "bool" => PyValue::Bool(x.as_bool().ok_or("bad bool")?),
        "int" => PyValue::Int(BigInt::from_str(text()?).map_err(|e| e.to_string())?),
        "float" => {
            let part = |k: &str| -> Result<BigInt, String> {
                let s = v.get(k).and_then(Value::as_str).ok_or("no ratio")?;
                BigInt::from_str(s).map_err(|e| e.to_string())
            };
            PyValue::Float(ratio_to_f64(&part("num")?, &part("den")?))
        }
        "str" => PyValue::Str(text()?.to_string()),
        "list" => PyValue::List(items()?),
        "tuple" => PyValue::Tuple(items()?),
        other => return Err(format!("the oracle returned a {other}: {x}")),
    })
}

/// The literal term of a value.
pub fn literal(v: &PyValue) -> Result<Term, String> {
    Ok(match v {
        PyValue::Bool(b) => Term::bool(*b),
        PyValue::Int(i) => Term::int(i.clone()),
        PyValue::Float(f) => Term::real(*f).map_err(|e| e.0)?,
        PyValue::Str(s) => Term::str(s.clone()).map_err(|e| e.0)?,
        PyValue::List(items) | PyValue::Tuple(items) => {
            let kind = if matches!(v, PyValue::List(_)) {
                SeqKind::List
            } else {
                SeqKind::Tuple
            };
            let parts = items.iter().map(literal).collect::<Result<Vec<_>, _>>()?;
            Term::items(kind, parts).map_err(|e| e.0)?
        }
        PyValue::None => return Err("None has no term".into()),
        PyValue::Dict(_) | PyValue::Set(_) => return Err(format!("{} has no term", v.repr())),
    })
}

/// Evaluates a translation with Z3 under `inputs` (each name bound in `env`): the raise
/// whose condition holds, else the value. Checks that at most one raise condition holds.
/// The solver is left as it was (one scope pushed and popped).
pub fn evaluate(
    solver: &mut Solver,
    t: &Translated,
    env: &Env,
    inputs: &[(String, PyValue)],
) -> Result<Ours, String> {
    solver.push();
    let outcome = evaluate_in_scope(solver, t, env, inputs);
    solver.pop().map_err(|e| e.to_string())?;
    outcome
}

fn evaluate_in_scope(
    solver: &mut Solver,
    t: &Translated,
    env: &Env,
    inputs: &[(String, PyValue)],
) -> Result<Ours, String> {
    let mut used = t.value.vars();
    t.raises.iter().for_each(|(_, c)| used.extend(c.vars()));
    for (name, value) in inputs {
        let var = env
            .get(name)
            .ok_or_else(|| format!("{name} is not bound"))?;
        if !var.vars().iter().any(|v| used.contains(v)) {
            continue;
        }
        let eq = Term::compare(CompareOp::Eq, var.clone(), literal(value)?).map_err(|e| e.0)?;
        solver.assert(&eq).map_err(|e| e.to_string())?;
    }
    // The solving path: fresh variables equal to the value and to each raise condition, so
    // that the model's answer comes from the asserted encoding (recursive slice functions,
    // word equations) rather than from evaluating the terms in the model.
    let out = match t.value.sort() {
        Sort::Fixed(..) => None,
        sort => Some(Term::var(Var::input("__out"), sort.clone()).map_err(|e| e.0)?),
    };
    if let Some(o) = &out {
        let eq = Term::compare(CompareOp::Eq, o.clone(), t.value.clone()).map_err(|e| e.0)?;
        solver.assert(&eq).map_err(|e| e.to_string())?;
    }
    let mut flags = Vec::new();
    for (i, (_, c)) in t.raises.iter().enumerate() {
        let flag = Term::var(Var::input(format!("__raise{i}")), Sort::Bool).map_err(|e| e.0)?;
        let eq = Term::compare(CompareOp::Eq, flag.clone(), c.clone()).map_err(|e| e.0)?;
        solver.assert(&eq).map_err(|e| e.to_string())?;
        flags.push(flag);
    }
    let model = match solver.check() {
        Check::Sat(m) => m,
        Check::Unsat => return Err("the inputs are unsatisfiable".into()),
        Check::Unknown(r) => return Err(format!("unknown: {r}")),
    };
    let mut raised = Vec::new();
    for ((kind, c), flag) in t.raises.iter().zip(&flags) {
        let solved = model.holds(flag).map_err(|e| e.to_string())?;
        if solved != model.holds(c).map_err(|e| e.to_string())? {
            return Err(format!(
                "the {kind} condition solves to {solved} but evaluates otherwise"
            ));
        }
        if solved {
            raised.push(*kind);
        }
    }
    match raised.as_slice() {
        [] => {
            let evaluated = model.value(&t.value).map_err(|e| e.to_string())?;
            // Z3's model may give the fresh variable as an unreduced `seq.foldl` over a
            // non-ASCII literal (a numeral nowhere): the evaluated value is then all there is.
            if let Some(Ok(solved)) = out.as_ref().map(|o| model.value(o)) {
                if !same(&solved, &evaluated) {
                    return Err(format!(
                        "the value solves to {solved:?} but evaluates to {evaluated:?}"
                    ));
                }
            }
            Ok(Ours::Value(evaluated))
        }
        [kind] => Ok(Ours::Raises(*kind)),
        more => Err(format!("several raise conditions hold at once: {more:?}")),
    }
}

/// Whether our outcome is CPython's: the same exception, or equal values (Python's `==`
/// between numbers, floats within a relative 1e-12 as exact reals round once where Python
/// rounds every step; sequences of the same kind item by item).
pub fn agrees(ours: &Ours, python: &Outcome) -> Result<bool, String> {
    Ok(match (ours, python) {
        (Ours::Raises(k), Outcome::Raises(name)) => k.name() == name,
        (Ours::Value(v), Outcome::Value(p)) => same(v, &decode(p)?),
        _ => false,
    })
}

pub fn same(a: &PyValue, b: &PyValue) -> bool {
    let number = |v: &PyValue| -> Option<f64> {
        match v {
            PyValue::Bool(x) => Some(f64::from(u8::from(*x))),
            PyValue::Int(i) => i.to_string().parse().ok(),
            PyValue::Float(f) => Some(*f),
            _ => None,
        }
    };
    match (a, b) {
        (PyValue::Int(x), PyValue::Int(y)) => x == y,
        (PyValue::Bool(x), PyValue::Bool(y)) => x == y,
        (PyValue::Str(x), PyValue::Str(y)) => x == y,
        (PyValue::List(xs), PyValue::List(ys)) | (PyValue::Tuple(xs), PyValue::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
            _ => false,
        },
    }
}
