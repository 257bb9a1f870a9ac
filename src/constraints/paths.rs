//! Listing paths: each path's constraints edge by edge, its feasibility with one query, and
//! a witness input read from the model.

use super::dag::{Dag, EdgeId, Path};
use super::dicts;
use super::encode::Encoding;
use super::feasibility::{DEPENDS, Feasible};
use super::free::only_definitions;
use super::in_force::InForce;
use super::optional;
use super::pyta::Pyta;
use super::semantics::{Constraint, Dropped, Names, Semantics, Step, Visit};
use super::smt;
use crate::python::PyValue;
use crate::symbolic::solver::assertable;
use crate::symbolic::{Check, CheckSat, Solver, Sort, Term};

/// How a path ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Exit,
    /// With a back edge: the loop would run again.
    Loop,
    /// At a node without successors.
    Stuck,
}

/// One path from the entry, with its constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct PathReport {
    pub id: usize,
    pub edges: Vec<EdgeId>,
    pub end: End,
    /// Every constraint asserted along the path, in order (preconditions first).
    pub constraints: Vec<Constraint>,
    /// For each edge, the constraints in force on it (indices into `constraints`).
    pub at_edge: InForce,
    pub dropped: Vec<Dropped>,
    pub feasible: Feasible,
    /// Parameter values that take the path (for feasible paths).
    pub witness: Option<Vec<(String, PyValue)>>,
}

/// The precise constraints of paths: preconditions, then what each edge adds. Paths come
/// in depth-first order, so each shares a prefix with the one before: its steps are kept.
/// Where a path's names are those the encoding of all paths has at the same node (no
/// φ-variable met yet), the encoding's step is the path's.
pub struct Precise<'a> {
    dag: &'a Dag,
    sem: &'a Semantics<'a>,
    params: &'a Names,
    pre: &'a [Constraint],
    enc: &'a Encoding,
    /// The last path's edges, each with its step and the names after it.
    prefix: Vec<(EdgeId, Step, Names)>,
}

impl<'a> Precise<'a> {
    pub fn new(
        dag: &'a Dag,
        sem: &'a Semantics<'a>,
        params: &'a Names,
        pre: &'a [Constraint],
        enc: &'a Encoding,
    ) -> Precise<'a> {
        Precise {
            dag,
            sem,
            params,
            pre,
            enc,
            prefix: Vec::new(),
        }
    }

    /// Taking edge `e` where the names are `env`: the step and the names after.
    fn step(&self, e: EdgeId, env: &Names) -> (Step, Names) {
        let info = &self.dag.edges[e];
        let at = self
            .enc
            .names_at
            .get(info.source.index())
            .and_then(Option::as_ref);
        if at == Some(env)
            && let (Some(Some(step)), Some(Some(after))) =
                (self.enc.steps.get(e), self.enc.names_after.get(e))
        {
            return (step.clone(), after.clone());
        }
        self.sem.step(info, env, Visit::FIRST)
    }

    /// The constraints of `path`, the constraints in force on each edge, and the dropped
    /// conditions.
    pub fn constraints(&mut self, path: &Path) -> (Vec<Constraint>, InForce, Vec<Dropped>) {
        let shared = self
            .prefix
            .iter()
            .zip(&path.edges)
            .take_while(|((e, ..), f)| e == *f)
            .count();
        self.prefix.truncate(shared);
        for &e in &path.edges[shared..] {
            let env = self.prefix.last().map_or(self.params, |(_, _, env)| env);
            let (step, out) = self.step(e, env);
            self.prefix.push((e, step, out));
        }
        let mut constraints: Vec<Constraint> = self.pre.to_vec();
        let mut ends = Vec::with_capacity(path.edges.len());
        let mut dropped = Vec::new();
        for (_, step, _) in &self.prefix {
            constraints.extend(step.defs.iter().cloned());
            constraints.extend(step.guards.iter().cloned());
            dropped.extend(step.dropped.iter().cloned());
            ends.push(constraints.len());
        }
        let at_edge = InForce::prefixes(constraints.len(), ends);
        (constraints, at_edge, dropped)
    }
}

/// PythonTA's constraints of `path`: the lists on its edges, and everything they hold.
pub fn pyta(dag: &Dag, pyta: &Pyta, path: &Path) -> (Vec<Constraint>, InForce, Vec<Dropped>) {
    let lists = pyta.lists(dag, path);
    let mut order: Vec<usize> = Vec::new();
    for list in &lists {
        for &c in list {
            if !order.contains(&c) {
                order.push(c);
            }
        }
    }
    let constraints = order
        .iter()
        .map(|&c| pyta.pool[c].constraint.clone())
        .collect();
    let at_edge = InForce::lists(
        lists
            .iter()
            .map(|l| {
                l.iter()
                    .filter_map(|c| order.iter().position(|o| o == c))
                    .collect()
            })
            .collect(),
    );
    let dropped = path
        .edges
        .iter()
        .flat_map(|&e| pyta.dropped[e].clone())
        .collect();
    (constraints, at_edge, dropped)
}

/// A path's verdict, and its witness if it is feasible.
pub type Decision = (Feasible, Option<Vec<(String, PyValue)>>);

/// A path's verdict and witness when no query is needed, `None` otherwise: nothing to
/// assert (preconditions included) is satisfiable, and then the witness reads no
/// parameter; definitions that only define are satisfiable too, which is all that
/// matters for a path that depends on untranslated conditions (it has no witness).
pub fn decided_without_solver(
    constraints: &[Constraint],
    dropped: &[Dropped],
    params: &[(String, Sort)],
    inputs: &Names,
    lenient: bool,
    assertable: impl Fn(&Term) -> bool,
) -> Option<Decision> {
    let depends = !dropped.is_empty() && !lenient;
    if depends && only_definitions(constraints) && constraints.iter().all(|c| assertable(&c.term)) {
        return Some((Feasible::Unknown(DEPENDS.into()), None));
    }
    if !constraints.is_empty() {
        return None;
    }
    if params.iter().any(|(name, _)| inputs.contains_key(name)) || dicts::any(inputs) {
        return None;
    }
    Some((Feasible::Yes, Some(Vec::new())))
}

/// The decision on a path known to be infeasible: what [`decide`] answers, the failure to
/// assert a constraint first.
pub fn refuted(constraints: &[Constraint]) -> Decision {
    match constraints.iter().find_map(|c| assertable(&c.term).err()) {
        Some(e) => (Feasible::Unknown(e.to_string()), None),
        None => (Feasible::No, None),
    }
}

/// Decides a path's constraints and reads a witness for the parameters. Paths that drop
/// untranslated conditions are at best "unknown"; `lenient` (PythonTA's rules) ignores them.
pub fn decide(
    solver: &mut Solver,
    constraints: &[Constraint],
    dropped: &[Dropped],
    params: &[(String, Sort)],
    inputs: &Names,
    lenient: bool,
) -> Decision {
    solver.push();
    let mut failure = None;
    for c in constraints {
        if let Err(e) = solver.assert(&c.term) {
            failure = Some(e.to_string());
            break;
        }
    }
    // A path that depends on untranslated conditions has no witness: no model to read.
    let depends = !dropped.is_empty() && !lenient;
    let answer = match failure {
        Some(reason) => (Feasible::Unknown(reason), None),
        None if depends => match solver.check_sat() {
            CheckSat::Unsat => (Feasible::No, None),
            CheckSat::Unknown(reason) => (Feasible::Unknown(reason.to_string()), None),
            CheckSat::Sat => (Feasible::Unknown(DEPENDS.into()), None),
        },
        None => match solver.check() {
            Check::Unsat => (Feasible::No, None),
            Check::Unknown(reason) => (Feasible::Unknown(reason.to_string()), None),
            Check::Sat(model) => {
                let mut witness: Result<Vec<_>, _> = params
                    .iter()
                    .filter_map(|(name, _)| inputs.get(name).map(|t| (name, t)))
                    .map(|(name, t)| {
                        let none = optional::flag_of(inputs, name)
                            .map(|f| model.value(f))
                            .transpose()?;
                        if none == Some(PyValue::Bool(true)) {
                            return Ok((name.clone(), PyValue::None));
                        }
                        model.value(t).map(|v| (name.clone(), v))
                    })
                    .collect();
                if let Ok(w) = &mut witness {
                    match dicts::witness(inputs, &model) {
                        Ok(maps) => w.extend(maps),
                        Err(e) => witness = Err(e),
                    }
                }
                // A model whose values cannot be read back still shows feasibility.
                (Feasible::Yes, witness.ok())
            }
        },
    };
    let _ = solver.pop();
    answer
}

/// The SMT-LIB script of the constraints (empty if one has no SMT-LIB form).
pub fn smtlib(scripts: &mut smt::Scripts, constraints: &[Constraint]) -> String {
    let terms: Vec<_> = constraints.iter().map(|c| &c.term).collect();
    scripts.script(&terms).unwrap_or_else(|e| format!("; {e}"))
}

/// How a path through `last` ends.
pub fn end_of(dag: &Dag, last: Option<EdgeId>) -> End {
    match last.map(|e| &dag.edges[e]) {
        Some(e) if e.back => End::Loop,
        Some(e) if e.target == dag.exit => End::Exit,
        None if dag.entry == dag.exit => End::Exit,
        _ => End::Stuck,
    }
}
