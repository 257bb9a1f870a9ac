//! The values runs of `%constraints` pass: for each parameter, a random value of its type.
//! Parameters the solver models take their sort (`None` too when they may be `None`);
//! dict and set parameters, which it does not, take `%set`'s reading of them (the
//! annotation, or inference from the body); a bare `list` annotation takes the item type the
//! body implies (else `int`). Runs only ever show an edge feasible, so a guessed item type
//! cannot make a verdict wrong: the input run is a value the parameter may hold.

use crate::constraints::Analysis;
use crate::python::PyValue;
use crate::python::ir::{ExprKind, Function, ParamKind};
use crate::symbolic::Sort;
use crate::symbolic::mapping::MapKind;
use crate::symexec::check::Rng;
use crate::symexec::packed::Shape;

/// What a run passes for one parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum RunParam {
    /// A value of the sort, or `None` when `optional`.
    Value { sort: Sort, optional: bool },
    /// A dict (`value` its values' sort) or a set of distinct keys.
    Map {
        kind: MapKind,
        key: Sort,
        value: Sort,
    },
}

/// Each parameter of `f` with what runs pass for it, in order; `None` when one cannot be
/// passed (`*args`, keyword-only, a type with no random values).
pub fn run_params(f: &Function, analysis: &Analysis) -> Option<Vec<(String, RunParam)>> {
    let mut packed: Option<Vec<crate::symexec::packed::Packed>> = None;
    let mut out = Vec::new();
    for p in &f.params {
        if !matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly) {
            return None;
        }
        if let Some((_, sort)) = analysis.parameters.iter().find(|(n, _)| *n == p.name) {
            let optional = analysis.optional_parameters.contains(&p.name);
            out.push((
                p.name.clone(),
                RunParam::Value {
                    sort: sort.clone(),
                    optional,
                },
            ));
            continue;
        }
        if let Some(sort) = bare_list(f, p) {
            out.push((
                p.name.clone(),
                RunParam::Value {
                    sort,
                    optional: false,
                },
            ));
            continue;
        }
        let packed = packed.get_or_insert_with(|| {
            crate::symexec::function_inputs(f, &[], &[])
                .map(|(_, _, packed)| packed)
                .unwrap_or_default()
        });
        match packed.iter().find(|q| q.name == p.name).map(|q| &q.shape) {
            Some(Shape::Map { kind, key, value }) => out.push((
                p.name.clone(),
                RunParam::Map {
                    kind: *kind,
                    key: key.clone(),
                    value: value.clone(),
                },
            )),
            _ => return None,
        }
    }
    Some(out)
}

/// The sort of a parameter annotated a bare `list`/`List`: the list the body implies, else
/// `list[int]`.
fn bare_list(f: &Function, p: &crate::python::ir::Param) -> Option<Sort> {
    let a = p.annotation.as_ref()?;
    if !matches!(&a.kind, ExprKind::Name(n) if n == "list" || n == "List") {
        return None;
    }
    let inferred = crate::symexec::infer_parameter_sorts(f, &[], std::slice::from_ref(&p.name));
    Some(match inferred.into_iter().next() {
        Some((_, sort @ Sort::Seq(crate::symbolic::SeqKind::List, _), _)) => sort,
        _ => Sort::list(Sort::Int),
    })
}

/// A random value for `param`: `None` one time in four when it may be `None`; a dict's
/// or set's keys distinct.
pub fn random_value(rng: &mut Rng, param: &RunParam) -> PyValue {
    match param {
        RunParam::Value { sort, optional } => {
            if *optional && rng.range(0, 3) == 0 {
                PyValue::None
            } else {
                rng.value(sort)
            }
        }
        RunParam::Map { kind, key, value } => {
            let n = rng.range(0, 4);
            let mut keys: Vec<PyValue> = Vec::new();
            for _ in 0..n {
                let k = rng.value(key);
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            match kind {
                MapKind::Set => PyValue::Set(keys),
                MapKind::Dict => {
                    PyValue::Dict(keys.into_iter().map(|k| (k, rng.value(value))).collect())
                }
            }
        }
    }
}
