//! Parameters that may be `None` (`Optional[T]`, `T | None`, `x=None`): the input `x` of
//! sort `T` and the Boolean input `x.is_none`. A step whose statement reads such a name is
//! taken twice, once with the name holding `None` (the marker of `none`) and once holding
//! its `T` value, and the two are joined under `x.is_none`; an edge one of them cannot take
//! (`x is None`'s False edge with `None`) narrows the name on that edge.
//!
//! In the names, `@opt:x` (present while `x` may still be `None`) and `@flag:x` (kept
//! while `x` is not reassigned, so that paths which narrowed `x` differently can meet) both
//! stand for the flag `x.is_none`.

use petgraph::graph::NodeIndex;

use super::none;
use super::semantics::{Constraint, Kind, Names, Step};
use crate::symbolic::{Sort, Term, Var};

const OPT: &str = "@opt:";
const FLAG: &str = "@flag:";

/// At most this many names that may be `None` are split on in one statement; the others are
/// forgotten there (their conditions stay untranslated).
const MAX_SPLIT: usize = 3;

/// The flag `name.is_none`.
pub fn flag(name: &str) -> Term {
    Term::input(Var::input(format!("{name}.is_none")), &Sort::Bool)
        .unwrap_or_else(|_| Term::bool(false))
}

/// Marks the declared input `name` as one that may be `None`.
pub fn declare(names: &mut Names, name: &str) {
    let f = flag(name);
    names.insert(format!("{OPT}{name}"), f.clone());
    names.insert(format!("{FLAG}{name}"), f);
}

/// Whether any name may be `None` (or was narrowed from one that may).
pub fn any(names: &Names) -> bool {
    names.keys().any(|k| k.starts_with(FLAG))
}

/// The flag of `name` when it may still be `None` here.
pub fn may_be_none<'n>(names: &'n Names, name: &str) -> Option<&'n Term> {
    names.get(&format!("{OPT}{name}"))
}

/// The flag of the input `name` if it may be `None` (in the inputs).
pub fn flag_of<'n>(inputs: &'n Names, name: &str) -> Option<&'n Term> {
    inputs.get(&format!("{FLAG}{name}"))
}

/// Forgets that `name` was a parameter that may be `None` (it is reassigned).
pub fn forget(names: &mut Names, name: &str) {
    names.remove(&format!("{OPT}{name}"));
    names.remove(&format!("{FLAG}{name}"));
}

/// Of `read`, the names that may be `None` in `names`, the first [`MAX_SPLIT`]; the rest
/// are removed from `names` (not known in this statement).
pub fn to_split(names: &mut Names, read: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in read {
        if out.contains(n) || may_be_none(names, n).is_none() {
            continue;
        }
        if out.len() < MAX_SPLIT {
            out.push(n.clone());
        } else {
            names.remove(n);
            forget(names, n);
        }
    }
    out
}

/// `names` with `name` holding `None`, and with it holding its value.
pub fn split(names: &Names, name: &str) -> (Names, Names) {
    let mut some = names.clone();
    some.remove(&format!("{OPT}{name}"));
    let mut nothing = some.clone();
    nothing.insert(name.to_string(), none::marker());
    (nothing, some)
}

fn impossible(step: &Step) -> bool {
    step.guards
        .iter()
        .any(|g| g.term.bool_literal() == Some(false))
}

/// Joins the step taken with `name` holding `None` and the one with its value, under the
/// flag `f`. `before` are the names before the step.
pub fn join(
    n: NodeIndex,
    name: &str,
    f: &Term,
    before: &Names,
    (step_none, out_none): (Step, Names),
    (step_some, out_some): (Step, Names),
) -> (Step, Names) {
    let narrowed = |mut step: Step, out: Names, holds: bool| {
        let t = if holds {
            Ok(f.clone())
        } else {
            Term::not(f.clone())
        };
        let mut guards = match t {
            Ok(t) => vec![Constraint {
                term: t,
                kind: Kind::Branch,
            }],
            Err(_) => Vec::new(),
        };
        guards.extend(
            std::mem::take(&mut step.guards)
                .into_iter()
                .filter(|g| g.term.bool_literal() != Some(true)),
        );
        step.guards = guards;
        (step, out)
    };
    match (impossible(&step_none), impossible(&step_some)) {
        (true, true) => return (step_some, out_some),
        (false, true) => return narrowed(step_none, out_none, true),
        (true, false) => return narrowed(step_some, out_some, false),
        (false, false) => {}
    }
    let mut step = Step::default();
    for d in &step_none.defs {
        if step_some.defs.contains(d) {
            step.defs.push(d.clone());
        }
    }
    let guard = |s: &Step, holds: Term| {
        let mut parts = vec![holds];
        parts.extend(
            s.guards
                .iter()
                .filter(|g| g.term.bool_literal() != Some(true))
                .map(|g| g.term.clone()),
        );
        Term::and(parts)
    };
    let joined = Term::not(f.clone()).and_then(|not_f| {
        Term::or(vec![
            guard(&step_none, f.clone())?,
            guard(&step_some, not_f)?,
        ])
    });
    let kind = if step_none
        .guards
        .iter()
        .chain(&step_some.guards)
        .any(|g| g.kind == Kind::Branch)
    {
        Kind::Branch
    } else {
        Kind::NoException
    };
    let any_guard = !step_none.guards.is_empty() || !step_some.guards.is_empty();
    match joined {
        Ok(term) if any_guard => step.guards.push(Constraint { term, kind }),
        Ok(_) => {}
        Err(e) => step.dropped.push(super::semantics::Dropped {
            node: n,
            text: name.to_string(),
            reason: e.0,
        }),
    }
    step.dropped.extend(step_none.dropped);
    for d in step_some.dropped {
        if !step.dropped.contains(&d) {
            step.dropped.push(d);
        }
    }
    // Names both ways agree on stay; `name` itself may still be `None` when neither way
    // reassigned it; any other name they disagree on is not known after the step.
    let mut out = Names::new();
    for (k, v) in &out_some {
        match out_none.get(k) {
            Some(w) if w == v => {
                out.insert(k.clone(), v.clone());
            }
            Some(w) if k == name && none::is_marker(w) && before.get(name) == Some(v) => {
                out.insert(k.clone(), v.clone());
                out.insert(format!("{OPT}{name}"), f.clone());
            }
            _ => {}
        }
    }
    (step, out)
}

/// Where paths meet: a name every way in holds as `None` or as its parameter value `t`,
/// with the same flag, is the parameter that may be `None` again (the flag is an input,
/// fixed along each path); a name that may be `None` on one way in may be `None` after.
pub fn merge(merged: &mut Names, envs: &[&Names]) {
    let flagged: Vec<(String, Term)> = merged
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(FLAG).map(|n| (n.to_string(), v.clone())))
        .collect();
    for (name, f) in flagged {
        let values: Vec<Option<&Term>> = envs.iter().map(|e| e.get(&name)).collect();
        let value = values
            .iter()
            .flatten()
            .find(|t| !none::is_marker(t))
            .copied();
        let Some(value) = value else { continue };
        let agree = values
            .iter()
            .all(|v| v.is_some_and(|t| t == value || none::is_marker(t)));
        let somewhere_none = values.iter().flatten().any(|t| none::is_marker(t))
            || envs.iter().any(|e| may_be_none(e, &name).is_some());
        if agree && somewhere_none {
            merged.insert(name.clone(), value.clone());
            merged.insert(format!("{OPT}{name}"), f);
        }
    }
}
