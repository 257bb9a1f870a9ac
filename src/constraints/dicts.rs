//! Dict and set parameters: the input sequences of [`SeqMapping`] (`d.keys`/`d.values`, a
//! set's `s.items`), kept among the names so that they travel with them. `@keys:d` (and
//! `@values:d` for a dict) hold the sequences; the name `d` itself holds the keys while it
//! still is the parameter: a reassignment or a change in place (`d[k] = v`, `s.add(x)`)
//! replaces or removes it, and then `d` is no longer read as the parameter.

use super::semantics::Names;
use crate::python::PyValue;
use crate::python::ir::{CmpOp, Expr, ExprKind, Function, StmtKind, UnaryOp};
use crate::symbolic::mapping::MapKind;
use crate::symbolic::seqmap::SeqMapping;
use crate::symbolic::{Env, Model, SolverError, SortError, Term};

const KEYS: &str = "@keys:";
const VALUES: &str = "@values:";

/// Builtins that read a dict or set argument without keeping it.
const READERS: &[&str] = &[
    "len", "sorted", "min", "max", "sum", "list", "tuple", "set", "any", "all",
];

/// Whether `f` may let its parameter `name` be seen under another name (bound to a second
/// name, passed to a call, stored, returned, an operand of `and`/`or`), where a change in
/// place would not reach `name`'s model: every use of it must be a read the model knows
/// (`d[k]`, `d.m(…)`, `k in d`, a reading builtin, `for … in d`, `if d:`, `not d`) or a
/// rebinding.
pub fn escapes(f: &Function, name: &str) -> bool {
    let is = |e: &Expr| e.as_name() == Some(name);
    let (mut all, mut safe) = (0usize, 0usize);
    for s in &f.body {
        s.walk(&mut |s| {
            let direct: Vec<&Expr> = match &s.kind {
                StmtKind::If { test, .. } | StmtKind::While { test, .. } => vec![test],
                StmtKind::For { target, iter, .. } => vec![target, iter],
                StmtKind::Assign { targets, .. } => targets.iter().collect(),
                StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
                    vec![target]
                }
                _ => Vec::new(),
            };
            safe += direct.iter().filter(|e| is(e)).count();
            for e in s.exprs() {
                e.walk(&mut |x| {
                    if is(x) {
                        all += 1;
                    }
                    safe += match &x.kind {
                        ExprKind::Subscript { value, .. } => usize::from(is(value)),
                        ExprKind::Call { func, args, .. } => match &func.kind {
                            ExprKind::Attribute { value, .. } => usize::from(is(value)),
                            ExprKind::Name(n) if READERS.contains(&n.as_str()) => {
                                args.iter().filter(|a| is(a)).count()
                            }
                            _ => 0,
                        },
                        ExprKind::Compare {
                            ops, comparators, ..
                        } => ops
                            .iter()
                            .zip(comparators)
                            .filter(|(op, c)| matches!(op, CmpOp::In | CmpOp::NotIn) && is(c))
                            .count(),
                        ExprKind::UnaryOp {
                            op: UnaryOp::Not,
                            operand,
                        } => usize::from(is(operand)),
                        _ => 0,
                    };
                });
            }
        });
    }
    safe < all
}

/// Declares the dict or set parameter `name`.
pub fn declare(names: &mut Names, name: &str, m: &SeqMapping) {
    names.insert(format!("{KEYS}{name}"), m.keys.clone());
    if let Some(v) = &m.values {
        names.insert(format!("{VALUES}{name}"), v.clone());
    }
    names.insert(name.to_string(), m.keys.clone());
}

/// Whether `key` is one of the internal names of this module.
pub fn internal(key: &str) -> bool {
    key.starts_with(KEYS) || key.starts_with(VALUES)
}

/// The dict and set parameters of `names`, by name, each as declared.
fn declared(names: &Names) -> impl Iterator<Item = (&str, SeqMapping)> {
    names.iter().filter_map(|(k, keys)| {
        let name = k.strip_prefix(KEYS)?;
        let values = names.get(&format!("{VALUES}{name}")).cloned();
        let kind = if values.is_some() {
            MapKind::Dict
        } else {
            MapKind::Set
        };
        Some((
            name,
            SeqMapping {
                kind,
                keys: keys.clone(),
                values,
            },
        ))
    })
}

/// Whether `name` still holds its parameter's dict or set in `names`.
pub fn holds(names: &Names, name: &str) -> bool {
    names
        .get(&format!("{KEYS}{name}"))
        .is_some_and(|keys| names.get(name) == Some(keys))
}

/// Binds, in `env`, each dict or set parameter that still holds its value.
pub fn bind(env: &mut Env, names: &Names) {
    for (name, m) in declared(names) {
        if holds(names, name) {
            env.bind_seqmap(name, m);
        }
    }
}

/// Whether any parameter is a dict or set.
pub fn any(names: &Names) -> bool {
    names.keys().any(|k| k.starts_with(KEYS))
}

/// What holds of every dict and set parameter (as many values as keys, distinct keys).
pub fn axioms(inputs: &Names) -> Result<Vec<Term>, SortError> {
    let mut out = Vec::new();
    for (_, m) in declared(inputs) {
        out.extend(m.axioms()?);
    }
    Ok(out)
}

/// The dict and set parameters' values in `model`, by name.
pub fn witness(inputs: &Names, model: &Model) -> Result<Vec<(String, PyValue)>, SolverError> {
    let items = |t: &Term| -> Result<Vec<PyValue>, SolverError> {
        match model.value(t)? {
            PyValue::List(items) => Ok(items),
            other => Err(SolverError::Internal(format!(
                "a dict's keys read back as {}",
                other.repr()
            ))),
        }
    };
    let mut out = Vec::new();
    for (name, m) in declared(inputs) {
        let keys = items(&m.keys)?;
        let value = match &m.values {
            Some(v) => PyValue::Dict(keys.into_iter().zip(items(v)?).collect()),
            None => PyValue::Set(keys),
        };
        out.push((name.to_string(), value));
    }
    Ok(out)
}
