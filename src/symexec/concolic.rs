//! Concolic following: the symbolic interpreter run along ONE path, the one a concrete input
//! takes. Every fork is decided by evaluating its alternatives' conditions at the input (a
//! Z3 model that fixes each input to its value) instead of by the solver, so no branch is
//! explored that the input does not take; what is recorded is the path condition as the
//! sequence of forks (each with every alternative's condition and the one taken). Loops are
//! not unrolled to a bound: the input decides how often they run (a step cap stops endless
//! ones). [`solve`] asks Z3 for an input taking a prefix of forks and then another
//! alternative: the negation step of concolic testing.
//!
//! The terms are those of `%set` (one translation, [`Machine::step`]); a statement the
//! translation does not model (havoc) ends the following there, since a fresh value's model
//! value says nothing about the concrete run.

use std::time::Instant;

use super::SymexecError;
use super::flow::{Next, advance};
use super::program::Program;
use super::state::{Completion, State};
use super::step::{Branch, Machine};
use super::tree::Outcome;
use crate::cancel::Cancel;
use crate::python::PyValue;
use crate::symbolic::{Check, CompareOp, Model, Solver, SolverError, Term, in_fresh_context};

/// One fork on the followed path.
#[derive(Clone, Debug)]
pub struct Fork {
    /// The statement's line.
    pub line: u32,
    /// The function the statement is in, when it is not the entry function (an inlined call).
    pub frame: Option<String>,
    /// Each alternative's label (`True`/`False`, `raises E`, `no exception`) and condition.
    pub alternatives: Vec<(String, Term)>,
    pub taken: usize,
    /// Statements of the entry function the path ran up to and including this one.
    pub position: usize,
}

impl Fork {
    /// `L7:True`, `g@L3:raises ZeroDivisionError`: alternative `k`'s branch id.
    pub fn id(&self, k: usize) -> String {
        let label = self.alternatives.get(k).map_or("?", |(l, _)| l.as_str());
        match &self.frame {
            Some(f) => format!("{f}@L{}:{label}", self.line),
            None => format!("L{}:{label}", self.line),
        }
    }

    /// The taken alternative's branch id.
    pub fn taken_id(&self) -> String {
        self.id(self.taken)
    }
}

/// Why following stopped before the path's end.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// The path's end: what the symbolic interpreter says the run does.
    Finished(String),
    /// A construct outside the modelled subset (the havoc note).
    Havoc(String),
    /// No alternative (or several) held at the input: the model could not decide.
    Undecided(String),
    /// The step cap.
    Cut(usize),
}

/// The path an input takes, symbolically.
#[derive(Clone, Debug)]
pub struct Followed {
    pub forks: Vec<Fork>,
    /// Lines of the entry function's statements (and loop tests), in the order run.
    pub lines: Vec<u32>,
    pub stop: Stop,
}

/// Follows `program` along the path `inputs` take, for at most `max_steps` statements.
pub fn follow(
    program: &Program,
    inputs: &[(String, PyValue)],
    max_steps: usize,
    timeout_ms: u32,
    cancel: &Cancel,
) -> Result<Followed, SymexecError> {
    let model = fix_inputs(program, inputs, timeout_ms, cancel)?;
    let machine = Machine {
        program,
        unroll: u64::MAX,
        recursion_limit: 200,
        depth: 200,
    };
    let mut s = State::initial(program)?;
    let mut out = Followed {
        forks: Vec::new(),
        lines: Vec::new(),
        stop: Stop::Cut(max_steps),
    };
    for _ in 0..max_steps {
        cancel.check()?;
        let next = advance(&mut s, program)?;
        let line = match &next {
            Next::Finished(outcome) => {
                out.stop = Stop::Finished(outcome_text(outcome));
                return Ok(out);
            }
            Next::Stmt(st) | Next::LoopTest(st) => st.span.line,
        };
        if s.frames.len() == 1 {
            out.lines.push(line);
        }
        let frame = (s.frames.len() > 1)
            .then(|| s.frames.last().and_then(|f| f.function))
            .flatten()
            .map(|f| f.name.clone());
        let branch = machine.step(s, &next)?;
        match choose(
            branch,
            line,
            &frame,
            out.lines.len(),
            &model,
            &mut out.forks,
        )? {
            Ok(next_state) => s = next_state,
            Err(stop) => {
                out.stop = stop;
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// The one alternative of `branch` that holds at the input, recording every fork passed.
fn choose<'p>(
    branch: Branch<'p>,
    line: u32,
    frame: &Option<String>,
    position: usize,
    model: &Model,
    forks: &mut Vec<Fork>,
) -> Result<Result<State<'p>, Stop>, SymexecError> {
    let alts = match branch {
        Branch::Go(s) if s.havoc.approximate => {
            return Ok(Err(Stop::Havoc(havoc_note(&s, line))));
        }
        Branch::Go(s) => return Ok(Ok(s)),
        Branch::Split(alts) => alts,
    };
    let labels = labels(&alts);
    let mut holding = Vec::new();
    for (k, (c, _)) in alts.iter().enumerate() {
        let holds = match c.bool_literal() {
            Some(b) => b,
            None => match model.holds(c) {
                Ok(b) => b,
                Err(e) => {
                    return Ok(Err(Stop::Undecided(format!(
                        "line {line}: the condition {c} has no value at the input ({e})"
                    ))));
                }
            },
        };
        if holds {
            holding.push(k);
        }
    }
    let [taken] = holding[..] else {
        return Ok(Err(Stop::Undecided(format!(
            "line {line}: {} alternatives hold at the input",
            holding.len()
        ))));
    };
    let alternatives: Vec<(String, Term)> = labels
        .into_iter()
        .zip(alts.iter().map(|(c, _)| c.clone()))
        .collect();
    let Some((_, chosen)) = alts.into_iter().nth(taken) else {
        return Err(SymexecError::Internal("a fork lost its alternative".into()));
    };
    // A fork on a havoc value (or whose alternative goes through one) is not claimed.
    if let Some(s) = first_state(&chosen)
        && s.havoc.approximate
    {
        return Ok(Err(Stop::Havoc(havoc_note(s, line))));
    }
    forks.push(Fork {
        line,
        frame: frame.clone(),
        alternatives,
        taken,
        position,
    });
    choose(chosen, line, frame, position, model, forks)
}

fn first_state<'a, 'p>(b: &'a Branch<'p>) -> Option<&'a State<'p>> {
    match b {
        Branch::Go(s) => Some(s),
        Branch::Split(alts) => alts.iter().find_map(|(_, b)| first_state(b)),
    }
}

fn havoc_note(s: &State<'_>, line: u32) -> String {
    s.havoc
        .notes
        .first()
        .cloned()
        .unwrap_or_else(|| format!("havoc: a value not modelled, line {line}"))
}

/// Labels of a fork's alternatives: `raises E` for those that raise, `no exception` beside
/// them; `True`/`False` for a test's two sides.
fn labels(alts: &[(Term, Branch<'_>)]) -> Vec<String> {
    let raised: Vec<Option<String>> = alts
        .iter()
        .map(|(_, b)| match b {
            Branch::Go(s) => match &s.completion {
                Some(Completion::Raise(e)) => Some(e.type_name.clone()),
                _ => None,
            },
            Branch::Split(_) => None,
        })
        .collect();
    let any_raise = raised.iter().any(Option::is_some);
    raised
        .iter()
        .enumerate()
        .map(|(k, r)| match r {
            Some(ty) => format!("raises {ty}"),
            None if any_raise => "no exception".to_string(),
            None if alts.len() == 2 => ["True", "False"][k].to_string(),
            None => format!("alternative {k}"),
        })
        .collect()
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Return(v) => format!("returns {v}"),
        Outcome::Exception(e) => format!("raises {}", e.type_name),
        Outcome::Normal => "ends".into(),
        Outcome::Bound(reason) => format!("cut: {reason}"),
        Outcome::Unsat => "unsat".into(),
    }
}

/// A model in which every input has its concrete value.
fn fix_inputs(
    program: &Program,
    inputs: &[(String, PyValue)],
    timeout_ms: u32,
    cancel: &Cancel,
) -> Result<Model, SymexecError> {
    let mut solver = Solver::new(timeout_ms).with_cancel(cancel.clone());
    for (name, value) in inputs {
        let var = program.input_env.get(name).ok_or_else(|| {
            SymexecError::Input(format!("{name} is not an input of the function"))
        })?;
        let lit = super::check::literal(value).ok_or_else(|| {
            SymexecError::Input(format!(
                "the input {name}={} has no symbolic value",
                value.repr()
            ))
        })?;
        let eq = Term::compare(CompareOp::Eq, var.clone(), lit).map_err(|_| {
            SymexecError::Input(format!(
                "the input {name}={} does not fit its type {}",
                value.repr(),
                var.sort()
            ))
        })?;
        solver.assert(&eq).map_err(SymexecError::Solver)?;
    }
    match solver.check() {
        Check::Sat(m) => Ok(m),
        Check::Unsat => Err(SymexecError::Input(
            "the inputs do not fit the function's parameter types".into(),
        )),
        Check::Unknown(r) => {
            r.stopped()?;
            Err(SymexecError::Internal(format!(
                "Z3 could not fix the inputs: {r}"
            )))
        }
    }
}

/// What Z3 said about a prefix and a negated alternative.
#[derive(Clone, Debug, PartialEq)]
pub enum Solved {
    /// An input taking them, in the order of the program's inputs.
    Sat(Vec<(String, PyValue)>),
    Unsat,
    Unknown(String),
}

/// Solves the preconditions ∧ `prefix` ∧ `alternative` for an input; `deadline` is the end of
/// the solver budget (checks after it answer unknown without running).
///
/// Each query runs on a thread of its own, so in a Z3 context of its own: Z3's model depends
/// on the terms its context made before (it reuses the ids of released ones), so in the
/// session's context the same query answered differently after different earlier cells.
/// In a fresh context the answer depends on the query alone.
pub fn solve(
    program: &Program,
    timeout_ms: u32,
    cancel: &Cancel,
    prefix: &[Term],
    alternative: &Term,
    deadline: Option<Instant>,
) -> Result<Solved, SymexecError> {
    if alternative.bool_literal() == Some(false) {
        return Ok(Solved::Unsat);
    }
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(Solved::Unknown("the solver budget is spent".into()));
    }
    let query: Vec<Term> = program
        .preconditions
        .iter()
        .map(|(_, t)| t.clone())
        .chain(prefix.iter().cloned())
        .chain([alternative.clone()])
        .collect();
    // In the order of the parameters (the order a positional call passes them in), not by
    // name as `Model::inputs` reads them: `grade(score, bonus)` got its values swapped.
    let inputs = program
        .inputs
        .0
        .iter()
        .map(|(name, _)| {
            let term = program.input_env.get(name).ok_or_else(|| {
                SymexecError::Internal(format!("the input {name} is not declared"))
            })?;
            Ok((name.clone(), term.clone()))
        })
        .collect::<Result<Vec<_>, SymexecError>>()?;
    in_fresh_context("concolic-solve", || {
        solve_here(timeout_ms, cancel, &query, &inputs)
    })
    .map_err(SymexecError::Solver)?
}

/// [`solve`]'s `query` in this thread's Z3 context; a model is read for `inputs` and checked
/// against the query before it is used.
fn solve_here(
    timeout_ms: u32,
    cancel: &Cancel,
    query: &[Term],
    inputs: &[(String, Term)],
) -> Result<Solved, SymexecError> {
    let mut solver = Solver::new(timeout_ms).with_cancel(cancel.clone());
    query
        .iter()
        .try_for_each(|t| solver.assert(t))
        .map_err(SymexecError::Solver)?;
    match solver.check() {
        Check::Sat(m) => {
            let values: Result<Vec<(String, PyValue)>, SolverError> = inputs
                .iter()
                .map(|(name, t)| Ok((name.clone(), m.value(t)?)))
                .collect();
            Ok(match values {
                Ok(values) if query.iter().all(|t| m.holds(t).unwrap_or(false)) => {
                    Solved::Sat(values)
                }
                Ok(_) => {
                    Solved::Unknown("Z3's model does not satisfy the query when read back".into())
                }
                Err(e) => Solved::Unknown(format!("the model has no input value: {e}")),
            })
        }
        Check::Unsat => Ok(Solved::Unsat),
        Check::Unknown(r) => match r.stopped() {
            Err(stopped) => Err(stopped.into()),
            Ok(()) => Ok(Solved::Unknown(r.to_string())),
        },
    }
}

/// The value each input starts from when no seed is given: 0, 0.0, False, "", empty
/// sequences (fixed-length ones filled with those).
pub fn zero_inputs(program: &Program) -> Vec<(String, PyValue)> {
    program
        .inputs
        .0
        .iter()
        .map(|(n, s)| (n.clone(), zero(s)))
        .collect()
}

pub(crate) fn zero(sort: &crate::symbolic::Sort) -> PyValue {
    use crate::symbolic::{SeqKind, Sort};
    match sort {
        Sort::Bool => PyValue::Bool(false),
        Sort::Int => PyValue::Int(0.into()),
        Sort::Real => PyValue::Float(0.0),
        Sort::Str => PyValue::Str(String::new()),
        Sort::Seq(SeqKind::List, _) => PyValue::List(Vec::new()),
        Sort::Seq(SeqKind::Tuple, _) => PyValue::Tuple(Vec::new()),
        Sort::Fixed(kind, items) => {
            let items = items.iter().map(zero).collect();
            match kind {
                SeqKind::List => PyValue::List(items),
                SeqKind::Tuple => PyValue::Tuple(items),
            }
        }
    }
}
