//! One formula for all paths at once, so that each edge's feasibility is one solver query
//! instead of one per path: a Boolean per node ("reached") and per edge ("taken"), at most
//! one way out of each node, each taken edge's guard, SSA definitions, and at each merge a
//! φ-variable per name whose versions differ (`t_e ⇒ x_φ == x_e` for each way in). The
//! taken edges of any model form one path from the entry, so "edge e can be taken" is
//! "`t_e` is satisfiable". The size is linear in the CFG.

use std::collections::{HashMap, HashSet};

use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId};
use super::none;
use super::optional;
use super::semantics::{Constraint, Names, Semantics, Step};
use crate::symbolic::{CompareOp, Sort, SortError, Term, Var};

/// What an assertion of the encoding states (so a failure to assert it can be judged).
#[derive(Clone, Debug, PartialEq)]
pub enum Owner {
    /// Reachability and at-most-one-way-out.
    Structure,
    /// A guard of this edge.
    Guard(EdgeId),
    /// The definition of this variable (an SSA version or a φ).
    Definition(Var),
}

/// The encoding of one CFG.
#[derive(Clone, Debug)]
pub struct Encoding {
    /// "Edge taken" (`None`: the entry cannot reach the edge's source).
    pub taken: Vec<Option<Term>>,
    /// "Node reached".
    pub reached: Vec<Option<Term>>,
    /// Each edge's step (`None` for unreachable edges).
    pub steps: Vec<Option<Step>>,
    /// The names at each node (as its edges are taken), and after each edge.
    pub names_at: Vec<Option<Names>>,
    pub names_after: Vec<Option<Names>>,
    /// Every guard of the edge was translated.
    pub exact: Vec<bool>,
    /// What is asserted beyond the skeleton (see [`Skeleton::assertions`]).
    pub assertions: Vec<(Term, Owner)>,
    /// The steps' SSA definitions, each once (edges out of one node repeat its own).
    pub definitions: Vec<Term>,
    /// The φ-variables made where paths meet.
    pub merges: Vec<Merge>,
}

/// A φ-variable: at `node`, `value` is the value of its variable on the way in taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    pub node: NodeIndex,
    pub value: Term,
    /// For each edge in, the value it brings.
    pub inputs: Vec<(EdgeId, Term)>,
}

/// Names the φ-variable of a name at a merge node.
pub type PhiVar<'a> = dyn Fn(&str, NodeIndex) -> Var + 'a;

/// The Boolean variable `@{tag}{kind}{index}` (written without `format!`: an encoding
/// makes one per node and edge).
fn flag(tag: &str, kind: char, index: usize) -> Term {
    let mut name = String::with_capacity(tag.len() + 8);
    name.push('@');
    name.push_str(tag);
    name.push(kind);
    let digits = name.len();
    let mut rest = index;
    loop {
        name.insert(digits, char::from(b'0' + (rest % 10) as u8));
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    Term::input(Var::input(name), &Sort::Bool).unwrap_or_else(|_| Term::bool(false))
}

/// `a ⇒ b`.
pub fn implies(a: &Term, b: &Term) -> Result<Term, SortError> {
    Term::or(vec![Term::not(a.clone())?, b.clone()])
}

/// `a ⇔ b`.
fn iff(a: &Term, b: &Term) -> Result<Term, SortError> {
    Term::and(vec![implies(a, b)?, implies(b, a)?])
}

/// The paths of a DAG as a formula: the "reached" and "taken" Booleans, and the
/// assertions that make the taken edges of any model one path from the entry (built when
/// asserted: most encodings never are).
#[derive(Clone, Debug)]
pub struct Skeleton {
    pub taken: Vec<Option<Term>>,
    pub reached: Vec<Option<Term>>,
}

impl Skeleton {
    pub fn new(dag: &Dag, tag: &str) -> Skeleton {
        let mut sk = Skeleton {
            taken: vec![None; dag.edges.len()],
            reached: vec![None; dag.out.len()],
        };
        for &n in &dag.order {
            sk.reached[n.index()] = Some(flag(tag, 'r', n.index()));
            for &e in &dag.out[n.index()] {
                sk.taken[e] = Some(flag(tag, 't', e));
            }
        }
        sk
    }

    /// The assertions over `dag` (the DAG this skeleton was made for).
    pub fn assertions(&self, dag: &Dag) -> Vec<Term> {
        skeleton_assertions(dag, &self.taken, &self.reached)
    }
}

/// The assertions of the skeleton of `dag` with these flags.
fn skeleton_assertions(dag: &Dag, taken: &[Option<Term>], reached: &[Option<Term>]) -> Vec<Term> {
    let mut out = Vec::new();
    for &n in &dag.order {
        let Some(r) = reached[n.index()].clone() else {
            continue;
        };
        if n == dag.entry {
            out.push(r.clone());
        } else {
            let ins: Vec<Term> = dag.forward_in[n.index()]
                .iter()
                .filter_map(|&e| taken[e].clone())
                .collect();
            if let Ok(t) = Term::or(ins).and_then(|any| iff(&r, &any)) {
                out.push(t);
            }
        }
        let flags: Vec<Term> = dag.out[n.index()]
            .iter()
            .filter_map(|&e| taken[e].clone())
            .collect();
        for (i, a) in flags.iter().enumerate() {
            if let Ok(t) = implies(a, &r) {
                out.push(t);
            }
            for b in &flags[i + 1..] {
                if let Ok(t) = Term::and(vec![a.clone(), b.clone()]).and_then(Term::not) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Takes an edge where the names stand for the given terms: the step and the names after.
pub type StepFn<'s> = dyn Fn(EdgeId, &Names) -> (Step, Names) + 's;

impl Encoding {
    /// Encodes `dag` with `step` for its edges and the inputs `params`. At the loop heads of
    /// `havoc`, the names listed there get fresh values (any number of iterations). `tag`
    /// keeps the variables of two encodings apart; `phi_var` names the φ-variables.
    pub fn new(
        dag: &Dag,
        step: &StepFn<'_>,
        params: &Names,
        havoc: &HashMap<NodeIndex, Vec<String>>,
        tag: &str,
        phi_var: &PhiVar<'_>,
    ) -> Encoding {
        let edges = dag.edges.len();
        let sk = Skeleton::new(dag, tag);
        let mut enc = Encoding {
            names_at: vec![None; dag.out.len()],
            names_after: vec![None; edges],
            taken: sk.taken,
            reached: sk.reached,
            steps: vec![None; edges],
            exact: vec![true; edges],
            merges: Vec::new(),
            assertions: Vec::new(),
            definitions: Vec::new(),
        };
        let mut env_out: Vec<Option<Names>> = vec![None; edges];
        let mut defined: HashSet<String> = HashSet::new();
        for &n in &dag.order {
            let mut env = if n == dag.entry {
                params.clone()
            } else {
                enc.merge(n, &dag.forward_in[n.index()], &env_out, phi_var)
            };
            if let Some(names) = havoc.get(&n) {
                for name in names {
                    optional::forget(&mut env, name);
                    let Some(old) = env.get(name) else { continue };
                    let var = Var::input(format!("{name}@{tag}loop{}", n.index()));
                    match Term::input(var, old.sort()) {
                        Ok(fresh) if !none::is_marker(old) => env.insert(name.clone(), fresh),
                        _ => env.remove(name),
                    };
                }
            }
            for &e in &dag.out[n.index()] {
                let Some(t) = enc.taken[e].clone() else {
                    continue;
                };
                let info = &dag.edges[e];
                let (step, out) = step(e, &env);
                for d in &step.defs {
                    if defined.insert(d.term.to_string()) {
                        enc.assertions.push((d.term.clone(), definition_owner(d)));
                        enc.definitions.push(d.term.clone());
                    }
                }
                for g in &step.guards {
                    match implies(&t, &g.term) {
                        Ok(a) => enc.assertions.push((a, Owner::Guard(e))),
                        Err(_) => enc.exact[e] = false,
                    }
                }
                if !step.dropped.is_empty() {
                    enc.exact[e] = false;
                }
                enc.steps[e] = Some(step);
                if !info.back {
                    env_out[e] = Some(out.clone());
                }
                enc.names_after[e] = Some(out);
            }
            enc.names_at[n.index()] = Some(env);
        }
        enc
    }

    /// The names at `n`: those every way in agrees on, a φ where versions differ, none where
    /// a way in does not know the name or the sorts differ.
    fn merge(
        &mut self,
        n: NodeIndex,
        ins: &[EdgeId],
        env_out: &[Option<Names>],
        phi_var: &PhiVar<'_>,
    ) -> Names {
        let envs: Vec<(EdgeId, &Names)> = ins
            .iter()
            .filter_map(|&e| env_out[e].as_ref().map(|env| (e, env)))
            .collect();
        let Some(((_, first), rest)) = envs.split_first() else {
            return Names::new();
        };
        let mut merged = Names::new();
        for (name, term) in first.iter() {
            let others: Option<Vec<&Term>> = rest.iter().map(|(_, env)| env.get(name)).collect();
            let Some(others) = others else {
                continue;
            };
            if others.iter().all(|t| *t == term) {
                merged.insert(name.clone(), term.clone());
                continue;
            }
            let none_somewhere = none::is_marker(term) || others.iter().any(|t| none::is_marker(t));
            if none_somewhere || others.iter().any(|t| t.sort() != term.sort()) {
                continue;
            }
            let var = phi_var(name, n);
            let Ok(phi) = Term::input(var.clone(), term.sort()) else {
                continue;
            };
            let mut ok = true;
            for (e, env) in &envs {
                let (Some(value), Some(t)) = (env.get(name), &self.taken[*e]) else {
                    ok = false;
                    continue;
                };
                match Term::compare(CompareOp::Eq, phi.clone(), value.clone())
                    .and_then(|eq| implies(t, &eq))
                {
                    Ok(a) => self.assertions.push((a, Owner::Definition(var.clone()))),
                    Err(_) => ok = false,
                }
            }
            if ok {
                self.merges.push(Merge {
                    node: n,
                    value: phi.clone(),
                    inputs: envs
                        .iter()
                        .filter_map(|(e, env)| env.get(name).map(|v| (*e, v.clone())))
                        .collect(),
                });
                merged.insert(name.clone(), phi);
            }
        }
        let ways_in: Vec<&Names> = envs.iter().map(|(_, env)| *env).collect();
        optional::merge(&mut merged, &ways_in);
        merged
    }

    /// Whether anything beyond the skeleton is asserted: definitions, φ, guards.
    pub fn constrains(&self) -> bool {
        !self.assertions.is_empty()
    }

    /// The skeleton's assertions over `dag` (this encoding's DAG).
    pub fn skeleton(&self, dag: &Dag) -> Vec<Term> {
        skeleton_assertions(dag, &self.taken, &self.reached)
    }

    /// Whether this encoding has inexact edges.
    pub fn has_inexact(&self) -> bool {
        self.exact
            .iter()
            .zip(&self.taken)
            .any(|(exact, t)| !exact && t.is_some())
    }
}

/// The variable a definition `v == value` defines.
fn definition_owner(d: &Constraint) -> Owner {
    if let crate::symbolic::TermKind::Compare(_, left, _) = d.term.kind()
        && let Some((v, _)) = left.vars().into_iter().next()
    {
        return Owner::Definition(v);
    }
    Owner::Structure
}

/// For each loop head, the names assigned anywhere in its loop.
pub fn loop_assignments(dag: &Dag, sem: &Semantics<'_>) -> HashMap<NodeIndex, Vec<String>> {
    let mut out: HashMap<NodeIndex, Vec<String>> = HashMap::new();
    for (head, body) in dag.loops() {
        let names = out.entry(head).or_default();
        for n in body {
            for name in sem.assigned(n) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    out
}
