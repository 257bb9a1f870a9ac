//! PythonTA's rules, for comparison (`--pyta`): only preconditions and `if`/`while`
//! conditions, over the parameters' input values; once a parameter is reassigned (a plain
//! name target of `=`, `+=` or an annotated assignment), every constraint that mentions it
//! is dropped from the rest of the path, and conditions mentioning it are never added.
//!
//! Edge feasibility follows PythonTA's verdict (an edge is feasible when its constraint list
//! is satisfiable on some path) without listing paths: a Boolean per reassigned name and node
//! says "reassigned on the way here", and a constraint of an earlier edge counts at edge `f`
//! when that edge was taken and none of its names was reassigned before `f`'s source.

use std::collections::{BTreeSet, HashMap, HashSet};

use petgraph::graph::NodeIndex;

use super::analysis::Verdict;
use super::dag::{Dag, EdgeId, Path};
use super::encode::{Skeleton, implies};
use super::feasibility::{Feasible, query};
use super::semantics::{Constraint, Dropped, Kind, Names, Semantics, env_of};
use crate::cancel::{Cancel, Stopped};
use crate::cfg::{Cfg, Edge, NodeKind};
use crate::python::ir::{Expr, ExprKind, StmtKind};
use crate::symbolic::negate::negate;
use crate::symbolic::{Check, Solver, Sort, SortError, Term, Var, translate_condition};

/// PythonTA's rules as a formula: the path skeleton and, per reassigned name and node,
/// "reassigned on the way here".
pub struct Encoded {
    sk: Skeleton,
    killed: HashMap<(String, NodeIndex), Term>,
}

fn decided(c: Check) -> Feasible {
    match c {
        Check::Sat(_) => Feasible::Yes,
        Check::Unsat => Feasible::No,
        Check::Unknown(r) => Feasible::Unknown(r.to_string()),
    }
}

/// A constraint with the parameter names it mentions.
#[derive(Clone, Debug)]
pub struct Entry {
    pub constraint: Constraint,
    pub names: BTreeSet<String>,
}

/// PythonTA's constraints of a function: a pool (preconditions first, then each edge's
/// condition) and the names each node reassigns.
pub struct Pyta {
    pub pool: Vec<Entry>,
    /// How many of `pool` are preconditions.
    preconditions: usize,
    /// For each edge, the pool entries its condition adds.
    pub adds: Vec<Vec<usize>>,
    pub dropped: Vec<Vec<Dropped>>,
    /// For each node, the names it reassigns.
    kills: Vec<Vec<String>>,
}

impl Pyta {
    pub fn new(
        cfg: &Cfg,
        dag: &Dag,
        sem: &Semantics<'_>,
        params: &Names,
        preconditions: &[Constraint],
    ) -> Pyta {
        let mut pyta = Pyta {
            pool: Vec::new(),
            preconditions: preconditions.len(),
            adds: vec![Vec::new(); dag.edges.len()],
            dropped: vec![Vec::new(); dag.edges.len()],
            kills: vec![Vec::new(); dag.out.len()],
        };
        for c in preconditions {
            pyta.push(c.clone());
        }
        let env = env_of(params);
        for (e, info) in dag.edges.iter().enumerate() {
            let negated = match info.kind {
                Edge::True => false,
                Edge::False => true,
                _ => continue,
            };
            let test = match sem.stmt(info.source).map(|s| &s.kind) {
                Some(StmtKind::If { test, .. } | StmtKind::While { test, .. })
                    if cfg.node(info.source).kind == NodeKind::Condition =>
                {
                    test
                }
                _ => continue,
            };
            let built = translate_condition(test, &env)
                .map_err(|e| e.to_string())
                .and_then(|t| {
                    let value = if negated {
                        Term::not(t.value.clone())
                    } else {
                        Ok(t.value.clone())
                    };
                    let safe = t.raises_any().and_then(|r| negate(&r));
                    Ok((safe.map_err(|e| e.0)?, value.map_err(|e| e.0)?))
                });
            match built {
                Ok((safe, value)) => {
                    for (term, kind) in [(safe, Kind::NoException), (value, Kind::Branch)] {
                        if term.bool_literal() != Some(true) || kind == Kind::Branch {
                            let id = pyta.push(Constraint { term, kind });
                            pyta.adds[e].push(id);
                        }
                    }
                }
                Err(reason) => pyta.dropped[e].push(Dropped {
                    node: info.source,
                    text: test.to_string(),
                    reason,
                }),
            }
        }
        for n in cfg.nodes() {
            pyta.kills[n.index()] = reassigned(sem, n);
        }
        pyta
    }

    fn push(&mut self, constraint: Constraint) -> usize {
        let names = constraint
            .term
            .vars()
            .into_iter()
            .map(|(v, _)| v.name)
            .collect();
        self.pool.push(Entry { constraint, names });
        self.pool.len() - 1
    }

    /// The constraint list on each edge of `path`, as PythonTA computes it.
    pub fn lists(&self, dag: &Dag, path: &Path) -> Vec<Vec<usize>> {
        let mut live: Vec<usize> = (0..self.preconditions).collect();
        let mut marked: HashSet<&str> = HashSet::new();
        let mut out = Vec::with_capacity(path.edges.len());
        for &e in &path.edges {
            live.extend(&self.adds[e]);
            live.retain(|&c| {
                self.pool[c]
                    .names
                    .iter()
                    .all(|n| !marked.contains(n.as_str()))
            });
            out.push(live.clone());
            let target = dag.edges[e].target;
            marked.extend(self.kills[target.index()].iter().map(String::as_str));
        }
        out
    }

    /// Asserts the path skeleton and the "reassigned" flags on `solver`.
    pub fn encode(&self, dag: &Dag, solver: &mut Solver) -> Encoded {
        let sk = Skeleton::new(dag, "p");
        for a in &sk.assertions(dag) {
            let _ = solver.assert(a);
        }
        let killed = self.kill_flags(dag, &sk, solver);
        Encoded { sk, killed }
    }

    /// "Edge `f` is taken and its constraint list (as PythonTA computes it on the path
    /// taken) holds".
    fn at_edge(&self, dag: &Dag, enc: &Encoded, f: EdgeId) -> Option<Term> {
        let tf = enc.sk.taken[f].clone()?;
        let source = dag.edges[f].source;
        let precedes = dag.precedes(f);
        let live = |c: usize, when: Option<&Term>| -> Result<Term, SortError> {
            let entry = &self.pool[c];
            let mut conds: Vec<Term> = when.into_iter().cloned().collect();
            for name in &entry.names {
                if let Some(k) = enc.killed.get(&(name.clone(), source)) {
                    conds.push(Term::not(k.clone())?);
                }
            }
            implies(&Term::and(conds)?, &entry.constraint.term)
        };
        let mut parts = vec![tf];
        for c in 0..self.preconditions {
            parts.push(live(c, None).ok()?);
        }
        for (e, adds) in self.adds.iter().enumerate() {
            if adds.is_empty() || !precedes[e] {
                continue;
            }
            let Some(te) = &enc.sk.taken[e] else { continue };
            for &c in adds {
                parts.push(live(c, Some(te)).ok()?);
            }
        }
        Term::and(parts).ok()
    }

    /// PythonTA's verdict for every edge, one query each.
    pub fn edges(
        &self,
        dag: &Dag,
        enc: &Encoded,
        solver: &mut Solver,
        cancel: &Cancel,
    ) -> Result<Vec<Feasible>, Stopped> {
        let mut out = vec![Feasible::No; dag.edges.len()];
        for (f, verdict) in out.iter_mut().enumerate() {
            if enc.sk.taken[f].is_none() {
                continue;
            }
            cancel.check()?;
            *verdict = match self.at_edge(dag, enc, f) {
                Some(all) => decided(query(solver, &all)),
                None => Feasible::Unknown("a constraint could not be built".into()),
            };
        }
        Ok(out)
    }

    /// PythonTA's redundant/impossible check of the test of condition node `n`: over every
    /// edge into `n` (back edges too), its constraint list with the test false (redundant
    /// when never possible) or true (impossible when never possible).
    pub fn condition(
        &self,
        dag: &Dag,
        enc: &Encoded,
        solver: &mut Solver,
        n: NodeIndex,
        test: &Expr,
        params: &Names,
        cancel: &Cancel,
    ) -> Result<Verdict, Stopped> {
        let t = match translate_condition(test, &env_of(params)) {
            Ok(t) => t,
            Err(e) => return Ok(Verdict::Untranslated(e.to_string())),
        };
        let (Ok(holds), Ok(fails)) = (t.holds(), t.holds().and_then(Term::not)) else {
            return Ok(Verdict::Unknown("the test could not be built".into()));
        };
        let ins: Vec<EdgeId> = dag
            .edges
            .iter()
            .enumerate()
            .filter(|(_, e)| e.target == n)
            .map(|(id, _)| id)
            .collect();
        let mut never = [true, true];
        for g in ins {
            if enc.sk.taken[g].is_none() {
                continue;
            }
            cancel.check()?;
            let Some(list) = self.at_edge(dag, enc, g) else {
                return Ok(Verdict::Unknown("a constraint could not be built".into()));
            };
            for (i, c) in [&fails, &holds].into_iter().enumerate() {
                let Ok(both) = Term::and(vec![list.clone(), c.clone()]) else {
                    return Ok(Verdict::Unknown("a constraint could not be built".into()));
                };
                match decided(query(solver, &both)) {
                    Feasible::Yes => never[i] = false,
                    Feasible::No => {}
                    Feasible::Unknown(r) => return Ok(Verdict::Unknown(r)),
                }
            }
        }
        Ok(match never {
            [true, true] => Verdict::Unreachable,
            [true, false] => Verdict::Redundant,
            [false, true] => Verdict::Impossible,
            [false, false] => Verdict::Neither,
        })
    }

    /// "`name` was reassigned on the way to `n` (or at `n`)", for the names some node
    /// reassigns and some constraint mentions; asserted on `solver`.
    fn kill_flags(
        &self,
        dag: &Dag,
        sk: &Skeleton,
        solver: &mut Solver,
    ) -> HashMap<(String, NodeIndex), Term> {
        let mentioned: BTreeSet<&String> = self.pool.iter().flat_map(|e| e.names.iter()).collect();
        let names: BTreeSet<&String> = self
            .kills
            .iter()
            .flatten()
            .filter(|n| mentioned.contains(n))
            .collect();
        let mut flags = HashMap::new();
        for name in names {
            for &n in &dag.order {
                let k = Term::input(Var::input(format!("@pk{}_{name}", n.index())), &Sort::Bool);
                let Ok(k) = k else { continue };
                let definition = if self.kills[n.index()].contains(name) {
                    Ok(k.clone())
                } else {
                    let ways: Result<Vec<Term>, _> = dag.forward_in[n.index()]
                        .iter()
                        .filter_map(|&e| {
                            let t = sk.taken[e].clone()?;
                            let before =
                                flags.get(&(name.clone(), dag.edges[e].source)).cloned()?;
                            Some(Term::and(vec![t, before]))
                        })
                        .collect();
                    ways.and_then(Term::or)
                        .and_then(|any| Term::and(vec![implies(&k, &any)?, implies(&any, &k)?]))
                };
                if let Ok(d) = definition {
                    let _ = solver.assert(&d);
                }
                flags.insert((name.clone(), n), k);
            }
        }
        flags
    }
}

/// The names PythonTA marks reassigned at node `n`: plain-name targets of `=`, `+=` and
/// annotated assignments.
fn reassigned(sem: &Semantics<'_>, n: NodeIndex) -> Vec<String> {
    let Some(s) = sem.stmt(n) else {
        return Vec::new();
    };
    let targets = match &s.kind {
        StmtKind::Assign { targets, .. } => targets.iter().collect(),
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => vec![target],
        _ => Vec::new(),
    };
    targets
        .into_iter()
        .filter_map(|t| match &t.kind {
            ExprKind::Name(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}
