//! Deciding each edge with the solver over an [`Encoding`]: one query per edge still open,
//! in push/pop scopes on one solver; each satisfiable query's model settles every edge its
//! path takes. A first round allows only edges whose guards were all translated, so a
//! "yes" is a real path; a second round tells "no" from "depends on what was not
//! translated".

use super::dag::{Dag, EdgeId};
use super::encode::{Encoding, Owner};
use crate::cancel::Cancel;
use crate::symbolic::{Check, Solver, Term};

/// Whether something can happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Feasible {
    Yes,
    No,
    /// Undecided, and why (a timeout, conditions that were not translated, …).
    Unknown(String),
}

/// The cell was interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// Asserts the encoding; guards that the solver refuses make their edge inexact, and so do
/// guards reading a variable whose definition it refused.
pub fn assert_encoding(solver: &mut Solver, enc: &mut Encoding) {
    let mut failed_vars = Vec::new();
    for (term, owner) in &enc.assertions {
        if solver.assert(term).is_err() {
            match owner {
                Owner::Guard(e) => enc.exact[*e] = false,
                Owner::Definition(v) => failed_vars.push(v.clone()),
                Owner::Structure => {}
            }
        }
    }
    if failed_vars.is_empty() {
        return;
    }
    for (e, step) in enc.steps.iter().enumerate() {
        let reads_failed = step.as_ref().is_some_and(|s| {
            s.guards
                .iter()
                .any(|g| g.term.vars().iter().any(|(v, _)| failed_vars.contains(v)))
        });
        if reads_failed {
            enc.exact[e] = false;
        }
    }
}

/// The feasibility of every edge of `dag` under the asserted `enc`.
pub fn edges(
    solver: &mut Solver,
    enc: &Encoding,
    dag: &Dag,
    cancel: &Cancel,
) -> Result<Vec<Feasible>, Interrupted> {
    let mut out: Vec<Option<Feasible>> = enc
        .taken
        .iter()
        .map(|t| {
            if t.is_none() {
                Some(Feasible::No)
            } else {
                None
            }
        })
        .collect();
    // Round 1: only exactly translated edges may be taken.
    solver.push();
    for (e, t) in enc.taken.iter().enumerate() {
        if let Some(t) = t
            && !enc.exact[e]
            && let Ok(not) = Term::not(t.clone())
        {
            let _ = solver.assert(&not);
        }
    }
    for e in 0..dag.edges.len() {
        if out[e].is_some() || !enc.exact[e] {
            continue;
        }
        let Some(t) = &enc.taken[e] else { continue };
        check_cancel(cancel)?;
        solver.push();
        let answer = solver.assert(t).map(|()| solver.check());
        match answer {
            Ok(Check::Sat(model)) => {
                out[e] = Some(Feasible::Yes);
                for (f, slot) in out.iter_mut().enumerate() {
                    if slot.is_none()
                        && let Some(tf) = &enc.taken[f]
                        && model.holds(tf) == Ok(true)
                    {
                        *slot = Some(Feasible::Yes);
                    }
                }
            }
            Ok(Check::Unsat) => {}
            Ok(Check::Unknown(reason)) => out[e] = Some(Feasible::Unknown(reason)),
            Err(err) => out[e] = Some(Feasible::Unknown(err.to_string())),
        }
        let _ = solver.pop();
    }
    let _ = solver.pop();
    check_cancel(cancel)?;
    // Round 2: what round 1 could not show, with every edge allowed; a model's path makes
    // every edge it takes "unknown" at once.
    let inexact = enc.has_inexact();
    let depends = "it depends on conditions that could not be translated";
    for e in 0..dag.edges.len() {
        if out[e].is_some() {
            continue;
        }
        if !inexact {
            out[e] = Some(Feasible::No);
            continue;
        }
        let Some(t) = &enc.taken[e] else { continue };
        check_cancel(cancel)?;
        solver.push();
        let answer = match solver.assert(t) {
            Ok(()) => solver.check(),
            Err(err) => Check::Unknown(err.to_string()),
        };
        match answer {
            Check::Sat(model) => {
                out[e] = Some(Feasible::Unknown(depends.into()));
                for (f, slot) in out.iter_mut().enumerate() {
                    if slot.is_none()
                        && let Some(tf) = &enc.taken[f]
                        && model.holds(tf) == Ok(true)
                    {
                        *slot = Some(Feasible::Unknown(depends.into()));
                    }
                }
            }
            Check::Unsat => out[e] = Some(Feasible::No),
            Check::Unknown(reason) => out[e] = Some(Feasible::Unknown(reason)),
        }
        let _ = solver.pop();
    }
    Ok(out.into_iter().map(|f| f.unwrap_or(Feasible::No)).collect())
}

/// Why an edge left undecided by the once-through paths may still be feasible.
pub const LATER_ITERATIONS: &str =
    "no path taking each loop at most once reaches it, and later iterations may";

/// Re-examines the edges `first` says are infeasible under an over-approximating encoding
/// (loop heads reached after any number of iterations): those it cannot refute become
/// "unknown". Returns them.
pub fn confirm(
    solver: &mut Solver,
    enc: &Encoding,
    first: &mut [Feasible],
    cancel: &Cancel,
) -> Result<Vec<EdgeId>, Interrupted> {
    let mut reopened = Vec::new();
    for (e, verdict) in first.iter_mut().enumerate() {
        if *verdict != Feasible::No {
            continue;
        }
        let Some(t) = &enc.taken[e] else { continue };
        check_cancel(cancel)?;
        match query(solver, t) {
            Check::Unsat => {}
            Check::Sat(_) => {
                *verdict = Feasible::Unknown(LATER_ITERATIONS.into());
                reopened.push(e);
            }
            Check::Unknown(reason) => *verdict = Feasible::Unknown(reason),
        }
    }
    Ok(reopened)
}

/// Settles `open` edges on an unrolled encoding whose edge `u` copies edge `origin[u]`: an
/// edge with a feasible exact copy is feasible (and so is every edge the model's path
/// copies). The rest keep `still`'s reason.
pub fn settle(
    solver: &mut Solver,
    enc: &Encoding,
    origin: &[EdgeId],
    open: &[EdgeId],
    verdicts: &mut [Feasible],
    still: &str,
    cancel: &Cancel,
) -> Result<(), Interrupted> {
    solver.push();
    for (u, t) in enc.taken.iter().enumerate() {
        if let Some(t) = t
            && !enc.exact[u]
            && let Ok(not) = Term::not(t.clone())
        {
            let _ = solver.assert(&not);
        }
    }
    for &e in open {
        if verdicts[e] == Feasible::Yes {
            continue;
        }
        let copies: Vec<Term> = origin
            .iter()
            .enumerate()
            .filter(|&(_, &o)| o == e)
            .filter_map(|(u, _)| enc.taken[u].clone())
            .collect();
        let Ok(any) = Term::or(copies) else { continue };
        check_cancel(cancel)?;
        solver.push();
        let answer = solver.assert(&any).map(|()| solver.check());
        if let Ok(Check::Sat(model)) = answer {
            for (u, t) in enc.taken.iter().enumerate() {
                if let Some(t) = t
                    && model.holds(t) == Ok(true)
                {
                    verdicts[origin[u]] = Feasible::Yes;
                }
            }
        } else if let Feasible::Unknown(r) = &mut verdicts[e] {
            *r = still.to_string();
        }
        let _ = solver.pop();
    }
    let _ = solver.pop();
    Ok(())
}

/// Checks `t` in a scope of its own.
pub fn query(solver: &mut Solver, t: &Term) -> Check {
    solver.push();
    let answer = match solver.assert(t) {
        Ok(()) => solver.check(),
        Err(e) => Check::Unknown(e.to_string()),
    };
    let _ = solver.pop();
    answer
}

pub fn check_cancel(cancel: &Cancel) -> Result<(), Interrupted> {
    if cancel.is_cancelled() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}
