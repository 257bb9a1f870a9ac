//! What needs no solver query: edges without guards, under an encoding whose definitions
//! only define.
//!
//! An encoding is *definitional* when each SSA definition `x_k == e` and each φ-variable
//! (`t_e ⇒ x_φ == v`) gives a variable of its own a value computed from the inputs and
//! earlier variables, never twice and never in a cycle, and the preconditions mention none
//! of them. Every Z3 function the lowering uses is total, so any input values extend to all
//! those variables, whichever path is taken: only guards and preconditions can make a path
//! infeasible. Then a feasible path to node `n` followed by a guard-free edge out of `n` is
//! a feasible path too, so one model (or, without preconditions, the entry itself) settles
//! every edge reached from its path along guard-free edges.

use std::collections::HashMap;

use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId};
use super::encode::Encoding;
use super::semantics::{Constraint, Kind};
use crate::symbolic::{CompareOp, Term, TermKind, Var};

/// The guard-free edges of an encoding, and whether it is definitional.
#[derive(Clone, Debug)]
pub struct Free {
    /// The edge is taken without a condition (none, or only literal `True`s).
    pub guard_free: Vec<bool>,
    /// A guard of the edge is literal `False`: it is never taken.
    pub blocked: Vec<bool>,
    /// See the module documentation.
    pub definitional: bool,
}

impl Free {
    pub fn new(enc: &Encoding, pre: &[Constraint]) -> Free {
        let guard_free = enc
            .steps
            .iter()
            .map(|s| {
                s.as_ref()
                    .is_some_and(|s| s.guards.iter().all(|g| g.term.bool_literal() == Some(true)))
            })
            .collect();
        let blocked = enc
            .steps
            .iter()
            .map(|s| {
                s.as_ref().is_some_and(|s| {
                    s.guards
                        .iter()
                        .any(|g| g.term.bool_literal() == Some(false))
                })
            })
            .collect();
        Free {
            guard_free,
            blocked,
            definitional: definitional(enc, pre),
        }
    }

    /// Marks `from` and every node reached from it along guard-free edges (`exact_only`:
    /// exactly translated ones) in `reach`, calling `found` for each such edge. Back edges
    /// end a path: their targets are not reached through them.
    pub fn spread(
        &self,
        dag: &Dag,
        enc: &Encoding,
        exact_only: bool,
        reach: &mut [bool],
        from: impl IntoIterator<Item = NodeIndex>,
        mut found: impl FnMut(EdgeId),
    ) {
        let mut stack: Vec<NodeIndex> = Vec::new();
        for n in from {
            if !reach[n.index()] {
                reach[n.index()] = true;
                stack.push(n);
            }
        }
        while let Some(n) = stack.pop() {
            for &e in &dag.out[n.index()] {
                let open =
                    enc.taken[e].is_some() && self.guard_free[e] && (!exact_only || enc.exact[e]);
                if !open {
                    continue;
                }
                found(e);
                let info = &dag.edges[e];
                if !info.back && !reach[info.target.index()] {
                    reach[info.target.index()] = true;
                    stack.push(info.target);
                }
            }
        }
    }
}

/// The variables of a definition's left side: a variable, or the items of a tuple of them.
fn pattern_vars(t: &Term, out: &mut Vec<Var>) -> bool {
    match t.kind() {
        TermKind::Var(v) => {
            out.push(v.clone());
            true
        }
        TermKind::Items(_, items) => items.iter().all(|i| pattern_vars(i, out)),
        _ => false,
    }
}

/// Defined variables, each with the variables its value reads.
#[derive(Default)]
struct Definitions(HashMap<Var, Vec<Var>>);

impl Definitions {
    /// Records `lhs == value`; false unless `lhs` is a pattern of variables not defined yet.
    fn define(&mut self, lhs: &Term, value: &[&Term]) -> bool {
        let mut vars = Vec::new();
        if !pattern_vars(lhs, &mut vars) {
            return false;
        }
        let reads: Vec<Var> = value
            .iter()
            .flat_map(|t| t.vars())
            .map(|(v, _)| v)
            .collect();
        vars.into_iter()
            .all(|v| self.0.insert(v, reads.clone()).is_none())
    }

    /// Records a definition `lhs == value` given as a constraint.
    fn define_eq(&mut self, d: &Term) -> bool {
        match d.kind() {
            TermKind::Compare(CompareOp::Eq, lhs, rhs) => self.define(lhs, &[rhs]),
            _ => false,
        }
    }

    /// Whether the definitions only define, none of their variables being read by `other`.
    fn only_define<'t>(&self, mut other: impl Iterator<Item = &'t Term>) -> bool {
        !other.any(|t| t.vars().iter().any(|(v, _)| self.0.contains_key(v))) && acyclic(&self.0)
    }
}

/// Whether the encoding's definitions and φ-variables only define (see the module docs).
fn definitional(enc: &Encoding, pre: &[Constraint]) -> bool {
    let mut defs = Definitions::default();
    if !enc.definitions.iter().all(|d| defs.define_eq(d)) {
        return false;
    }
    for m in &enc.merges {
        let values: Vec<&Term> = m.inputs.iter().map(|(_, v)| v).collect();
        if !defs.define(&m.value, &values) {
            return false;
        }
    }
    defs.only_define(pre.iter().map(|c| &c.term))
}

/// Whether a path's constraints are all definitions that only define: then any input
/// values satisfy them.
pub fn only_definitions(constraints: &[Constraint]) -> bool {
    let mut defs = Definitions::default();
    constraints
        .iter()
        .all(|c| c.kind == Kind::Definition && defs.define_eq(&c.term))
        && defs.only_define(std::iter::empty())
}

/// Whether no defined variable reads itself, directly or not.
fn acyclic(reads: &HashMap<Var, Vec<Var>>) -> bool {
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state: HashMap<&Var, u8> = HashMap::new();
    for root in reads.keys() {
        if state.contains_key(root) {
            continue;
        }
        let mut stack: Vec<(&Var, usize)> = vec![(root, 0)];
        state.insert(root, 1);
        while let Some((v, next)) = stack.last_mut() {
            let deps = &reads[*v];
            match deps.get(*next) {
                Some(d) => {
                    *next += 1;
                    if !reads.contains_key(d) {
                        continue;
                    }
                    match state.get(d) {
                        Some(1) => return false,
                        Some(_) => {}
                        None => {
                            state.insert(d, 1);
                            stack.push((d, 0));
                        }
                    }
                }
                None => {
                    state.insert(*v, 2);
                    stack.pop();
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::{ArithOp, Sort};

    fn var(name: &str, version: u32) -> Term {
        let v = Var {
            name: name.into(),
            version,
            path: Vec::new(),
        };
        Term::var(v, Sort::Int).unwrap()
    }

    fn def(lhs: Term, rhs: Term) -> Constraint {
        Constraint {
            term: Term::compare(CompareOp::Eq, lhs, rhs).unwrap(),
            kind: Kind::Definition,
        }
    }

    fn plus_one(t: &Term) -> Term {
        Term::arith(ArithOp::Add, t.clone(), Term::int(1)).unwrap()
    }

    #[test]
    fn definitions_that_only_define() {
        let (x, x1, x2) = (var("x", 0), var("x", 1), var("x", 2));
        let chain = [
            def(x1.clone(), plus_one(&x)),
            def(x2.clone(), plus_one(&x1)),
        ];
        assert!(only_definitions(&chain));
        assert!(only_definitions(&[]));
        // A guard, a variable defined twice, a cycle, a left side that is no variable.
        let guard = Constraint {
            kind: Kind::Branch,
            ..def(x1.clone(), plus_one(&x))
        };
        assert!(!only_definitions(&[guard]));
        let twice = [def(x1.clone(), plus_one(&x)), def(x1.clone(), x.clone())];
        assert!(!only_definitions(&twice));
        let cycle = [
            def(x1.clone(), plus_one(&x2)),
            def(x2.clone(), plus_one(&x1)),
        ];
        assert!(!only_definitions(&cycle));
        assert!(!only_definitions(&[def(x1.clone(), plus_one(&x1))]));
        assert!(!only_definitions(&[def(plus_one(&x), x1)]));
    }
}
