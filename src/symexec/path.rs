//! Path conditions and the solver behind them. A path keeps the constraints it shows
//! (the book's rule: a constraint implied by the path so far is not added, and older ones a
//! new constraint implies are dropped) and, separately, the chain of constraints the solver
//! must hold.
//!
//! A branch is decided the way mature symbolic executors do it (KLEE's solver chain):
//! - cheap syntactic checks first: a constraint already on the path holds wherever the path
//!   does, and the literal negation of one on the path cannot hold;
//! - constraint independence: only the constraints that share variables (transitively) with
//!   the branch are asked about, the rest of the path is satisfied by the parent's witness;
//! - a cache of answers keyed by the constraints asked about, so siblings and cousins that
//!   ask the same question do not ask Z3 again;
//! - when every constraint of the path is relevant, one incremental solver follows the
//!   depth-first exploration ([`PathScopes`], shared with `%constraints`): it pops to the
//!   common prefix of the next path and pushes the rest, so a check costs one
//!   push/assert/check/pop on top of what is already asserted.
//!
//! A path's witness is a [`Witness`]: one model per independent part of the path condition.
//! [`Oracle::plain`] turns every shortcut off (every branch asks Z3 about the whole path), for
//! the differential test that the shortcuts never change a verdict.

use std::rc::Rc;
use std::sync::Arc;

use super::SymexecError;
use super::explore::ResourceLimit;
use super::tree::Stats;
use crate::cancel::Cancel;
use crate::fxhash::FxHashMap;
use crate::python::PyValue;
use crate::symbolic::{
    Check, Env, Model, PathScopes, Solver, SolverError, Sort, Term, TermKind, Unknown, Var,
};

/// One asserted constraint and the ones before it.
#[derive(Debug)]
pub struct Link {
    term: Term,
    parent: Option<Rc<Link>>,
    /// Constraints in the chain up to this one (the root has 1).
    depth: usize,
    /// The constraint's variables (the oracle's numbers, sorted).
    vars: Box<[u32]>,
    /// The constraint's structural key (for the cache and the syntactic checks).
    key: Rc<str>,
}

/// A path condition.
#[derive(Clone, Debug, Default)]
pub struct Path {
    /// What the tree shows: equivalent to the whole chain (shared with the tree's nodes).
    pub shown: Arc<Vec<Term>>,
    /// The variables of each shown constraint.
    shown_vars: Rc<Vec<Rc<[u32]>>>,
    chain: Option<Rc<Link>>,
}

/// A model of a path: one model per independent part (disjoint sets of variables; every
/// constraint of the path lies within one part, whose model satisfies it).
#[derive(Debug, Default)]
pub struct Witness {
    parts: Vec<(Box<[u32]>, Rc<Model>)>,
    /// The one part is a model of the whole path and of every variable.
    whole: bool,
}

/// The solver's answer about one branch.
pub enum Answer {
    Sat(Rc<Witness>),
    Unsat,
    Unknown,
}

/// A cached answer: the model of the constraints asked about, or none.
#[derive(Clone)]
enum Cached {
    Sat(Rc<Model>),
    Unsat,
    Unknown,
}

/// The solvers of one exploration.
pub struct Oracle {
    solver: Solver,
    /// For the independent parts of a path (push, assert, check, pop).
    parts: Solver,
    /// For implications between two constraints, outside any path.
    scratch: Solver,
    /// The links asserted in `solver`, one step each, root first.
    asserted: PathScopes<Rc<Link>>,
    /// Whether the shortcuts (syntax, independence, cache) are used.
    shortcuts: bool,
    /// Variable numbers.
    var_ids: FxHashMap<Var, u32>,
    /// By variable number: whether the variable is a string or a sequence.
    sequences: Vec<bool>,
    cancel: Option<Cancel>,
    /// Answers by the keys of the constraints asked about (sorted, joined).
    cache: FxHashMap<String, Cached>,
    implications: FxHashMap<(Rc<str>, Rc<str>), bool>,
    /// A model of no constraint: the values of unconstrained inputs.
    empty: Option<Rc<Model>>,
    /// Structural keys of terms by address (the term kept alive so the address is not
    /// reused); cleared when it grows large.
    keys: FxHashMap<usize, (Term, Rc<str>)>,
    /// The variables of each input of the witness's environment, by its position.
    input_vars: Vec<Box<[u32]>>,
    /// Input values read from models: by the model's address and the input's position
    /// (the models kept alive in `read_models`).
    values: FxHashMap<(usize, usize), u32>,
    /// The values read, each once (a witness is one index per input).
    table: Vec<PyValue>,
    read_models: Vec<Rc<Model>>,
    pub stats: Stats,
    /// Microseconds of solver time the exploration may spend (`None`: no bound); past it,
    /// every question the shortcuts cannot answer is "unknown" without a check.
    budget_us: Option<u64>,
    /// Z3's work per check in resource units, and how many checks may spend it all
    /// (`None`: time alone bounds the checks).
    resource: Option<ResourceLimit>,
}

impl Path {
    /// The conjunction of the shown constraints (`True` when there are none).
    pub fn condition(&self) -> Term {
        Term::and(self.shown.to_vec()).unwrap_or_else(|_| Term::bool(true))
    }

    fn links(&self) -> impl Iterator<Item = &Link> {
        std::iter::successors(self.chain.as_deref(), |l| l.parent.as_deref())
    }
}

fn subset(small: &[u32], big: &[u32]) -> bool {
    small.iter().all(|v| big.binary_search(v).is_ok())
}

fn overlaps(a: &[u32], b: &[u32]) -> bool {
    a.iter().any(|v| b.binary_search(v).is_ok())
}

fn union(a: &[u32], b: &[u32]) -> Box<[u32]> {
    let mut out: Vec<u32> = a.iter().chain(b).copied().collect();
    out.sort_unstable();
    out.dedup();
    out.into_boxed_slice()
}

/// `otherwise` when Z3 could not decide (counting a check that spent its resource units),
/// the stop signal or the error otherwise.
fn interrupted_or<T>(e: SolverError, otherwise: T, stats: &mut Stats) -> Result<T, SymexecError> {
    match e {
        SolverError::Unknown(r) => {
            r.stopped()?;
            count_exhausted(&r, stats);
            Ok(otherwise)
        }
        e => Err(SymexecError::Solver(e)),
    }
}

impl Witness {
    fn of(model: Rc<Model>, vars: Box<[u32]>) -> Witness {
        Witness {
            parts: vec![(vars, model)],
            whole: false,
        }
    }

    fn whole(model: Rc<Model>) -> Witness {
        Witness {
            parts: vec![(Box::new([]), model)],
            whole: true,
        }
    }

    /// Whether `c` (over the variables `vars`) holds in this witness; `None` when no single
    /// part decides it.
    fn holds(&self, c: &Term, vars: &[u32]) -> Option<bool> {
        if self.whole {
            return self.parts.first().and_then(|(_, m)| m.holds(c).ok());
        }
        if vars.is_empty() {
            return c.bool_literal();
        }
        let (_, m) = self.parts.iter().find(|(p, _)| subset(vars, p))?;
        m.holds(c).ok()
    }

    /// This witness with the parts that overlap `vars` replaced by `model` (which satisfies
    /// every constraint over them).
    fn replaced(&self, vars: Box<[u32]>, model: Rc<Model>) -> Witness {
        let mut parts: Vec<(Box<[u32]>, Rc<Model>)> = self
            .parts
            .iter()
            .filter(|(p, _)| !overlaps(p, &vars))
            .cloned()
            .collect();
        parts.push((vars, model));
        Witness {
            parts,
            whole: false,
        }
    }
}

impl Oracle {
    pub fn new(timeout_ms: u32, cancel: &Cancel) -> Oracle {
        Oracle {
            solver: Solver::new(timeout_ms).with_cancel(cancel.clone()),
            parts: Solver::new(timeout_ms).with_cancel(cancel.clone()),
            scratch: Solver::new(timeout_ms).with_cancel(cancel.clone()),
            asserted: PathScopes::default(),
            shortcuts: true,
            var_ids: FxHashMap::default(),
            sequences: Vec::new(),
            cancel: Some(cancel.clone()),
            cache: FxHashMap::default(),
            implications: FxHashMap::default(),
            empty: None,
            keys: FxHashMap::default(),
            input_vars: Vec::new(),
            values: FxHashMap::default(),
            table: Vec::new(),
            read_models: Vec::new(),
            stats: Stats::default(),
            budget_us: None,
            resource: None,
        }
    }

    /// Bounds each check by resource units as well as time, and the exploration by the
    /// number of checks that spend them all: past it, questions are "unknown" at once. Unlike
    /// a time budget, this gives the same answers on a busy machine.
    pub fn with_resource_limit(mut self, limit: Option<ResourceLimit>) -> Oracle {
        let units = limit.map_or(0, |l| l.per_check);
        for solver in [&mut self.solver, &mut self.parts, &mut self.scratch] {
            solver.set_rlimit(units);
        }
        self.resource = limit;
        self
    }

    /// Bounds the solver time of the whole exploration to `ms` milliseconds (0: no bound):
    /// once spent, checks answer "unknown" at once (shown, never dropped).
    pub fn with_budget(mut self, ms: u64) -> Oracle {
        self.budget_us = (ms > 0).then(|| ms.saturating_mul(1000));
        self
    }

    /// Whether the solver time budget is spent; counts the question answered "unknown".
    fn spent(&mut self) -> bool {
        let spent = self
            .budget_us
            .is_some_and(|b| self.stats.check_us + self.stats.implication_us >= b)
            || self
                .resource
                .is_some_and(|r| self.stats.exhausted >= u64::from(r.exhausted_checks));
        if spent {
            self.stats.past_budget += 1;
        }
        spent
    }

    /// Without the shortcuts: every branch is a check of the whole path.
    pub fn plain(mut self) -> Oracle {
        self.shortcuts = false;
        self
    }

    /// The structural key of `t`, remembered by its address.
    fn key_of(&mut self, t: &Term) -> Rc<str> {
        if let Some((_, k)) = self.keys.get(&t.id()) {
            return k.clone();
        }
        if self.keys.len() >= 4096 {
            self.keys.clear();
        }
        let k = term_key(t);
        self.keys.insert(t.id(), (t.clone(), k.clone()));
        k
    }

    /// The sorted numbers of `t`'s variables.
    fn vars_of(&mut self, t: &Term) -> Box<[u32]> {
        let mut out: Vec<u32> = Vec::new();
        let mut stack: Vec<&Term> = vec![t];
        while let Some(t) = stack.pop() {
            match t.kind() {
                TermKind::Var(v) => out.push(match self.var_ids.get(v) {
                    Some(&id) => id,
                    None => {
                        let id = self.var_ids.len() as u32;
                        self.var_ids.insert(v.clone(), id);
                        self.sequences.push(matches!(
                            t.sort(),
                            Sort::Str | Sort::Seq(..) | Sort::Fixed(..)
                        ));
                        id
                    }
                }),
                TermKind::Literal(_) => {}
                _ => stack.extend(t.children()),
            }
        }
        out.sort_unstable();
        out.dedup();
        out.into_boxed_slice()
    }

    /// Whether one of `vars` is a string or a sequence: Z3's incremental core is slow on
    /// those theories (a fresh solver, with its preprocessing, settled `is_pal`'s checks
    /// 20x faster), so such queries go to a fresh solver.
    fn any_sequence(&self, vars: &[u32]) -> bool {
        vars.iter()
            .any(|&v| self.sequences.get(v as usize).copied().unwrap_or(false))
    }

    fn has_sequence(&mut self, t: &Term) -> bool {
        let vars = self.vars_of(t);
        self.any_sequence(&vars)
    }

    /// Makes the solver hold exactly `path`'s chain: pops to the longest prefix it shares
    /// with what is asserted and pushes the rest (walking only the links that differ).
    fn sync(&mut self, path: &Path) -> Result<(), SymexecError> {
        let mut missing: Vec<Rc<Link>> = Vec::new();
        let mut at = path.chain.clone();
        let common = loop {
            match at {
                None => break 0,
                Some(link) => {
                    if self
                        .asserted
                        .key(link.depth - 1)
                        .is_some_and(|a| Rc::ptr_eq(a, &link))
                    {
                        break link.depth;
                    }
                    at = link.parent.clone();
                    missing.push(link);
                }
            }
        };
        self.asserted
            .truncate(&mut self.solver, common)
            .map_err(SymexecError::Solver)?;
        for link in missing.into_iter().rev() {
            let term = link.term.clone();
            self.asserted
                .push(&mut self.solver, link, std::iter::once(&term));
        }
        match self.asserted.refused() {
            Some(e) => Err(SymexecError::Solver(e.clone())),
            None => Ok(()),
        }
    }

    /// A check of the whole path and `extra` on the incremental solver.
    fn check_whole(&mut self, path: &Path, extra: Option<&Term>) -> Result<Cached, SymexecError> {
        if self.spent() {
            return Ok(Cached::Unknown);
        }
        let started = std::time::Instant::now();
        let answer = self.check_whole_timed(path, extra);
        self.stats.check_us += started.elapsed().as_micros() as u64;
        answer
    }

    fn check_whole_timed(
        &mut self,
        path: &Path,
        extra: Option<&Term>,
    ) -> Result<Cached, SymexecError> {
        self.sync(path)?;
        let answer = match extra {
            Some(extra) => {
                self.solver.push();
                let answer = self.solver.assert(extra).map(|()| self.solver.check());
                self.solver.pop().map_err(SymexecError::Solver)?;
                answer.map_err(SymexecError::Solver)?
            }
            None => self.solver.check(),
        };
        cached(answer, &mut self.stats)
    }

    /// A check of `terms` alone on the solver of parts.
    fn check_terms(&mut self, terms: &[&Term]) -> Result<Cached, SymexecError> {
        if self.spent() {
            return Ok(Cached::Unknown);
        }
        let started = std::time::Instant::now();
        if terms.iter().any(|t| self.has_sequence(t)) {
            let mut fresh = Solver::new(self.parts.timeout_ms());
            fresh.set_rlimit(self.parts.rlimit());
            if let Some(c) = &self.cancel {
                fresh = fresh.with_cancel(c.clone());
            }
            let mut answer = Ok(());
            for t in terms {
                answer = answer.and_then(|()| fresh.assert(t));
            }
            let answer = answer.map(|()| fresh.check());
            self.stats.check_us += started.elapsed().as_micros() as u64;
            return cached(answer.map_err(SymexecError::Solver)?, &mut self.stats);
        }
        self.parts.push();
        let mut answer = Ok(());
        for t in terms {
            answer = answer.and_then(|()| self.parts.assert(t));
        }
        let answer = answer.map(|()| self.parts.check());
        self.parts.pop().map_err(SymexecError::Solver)?;
        self.stats.check_us += started.elapsed().as_micros() as u64;
        cached(answer.map_err(SymexecError::Solver)?, &mut self.stats)
    }

    /// The constraints of `path` connected to the variables `start` (through shared
    /// variables, and through the parts of `witness`), and the variables they cover.
    fn relevant<'a>(
        path: &'a Path,
        start: &[u32],
        witness: Option<&Witness>,
    ) -> (Vec<&'a Link>, Box<[u32]>) {
        let links: Vec<&Link> = path.links().collect();
        let mut taken = vec![false; links.len()];
        let mut vars: Box<[u32]> = start.into();
        loop {
            let mut grew = false;
            for (i, l) in links.iter().enumerate() {
                if !taken[i] && overlaps(&l.vars, &vars) {
                    taken[i] = true;
                    vars = union(&vars, &l.vars);
                    grew = true;
                }
            }
            if let Some(w) = witness {
                for (p, _) in &w.parts {
                    if overlaps(p, &vars) && !subset(p, &vars) {
                        vars = union(&vars, p);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        let chosen = links
            .into_iter()
            .zip(taken)
            .filter_map(|(l, t)| t.then_some(l))
            .collect();
        (chosen, vars)
    }

    /// The key of a query about `links` and `extra`.
    fn key(links: &[&Link], extra: Option<&str>) -> String {
        let mut keys: Vec<&str> = links.iter().map(|l| &*l.key).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut out = keys.join("\u{1}");
        if let Some(e) = extra {
            out.push('\u{2}');
            out.push_str(e);
        }
        out
    }

    /// Whether `path` and `extra` can hold together; `witness` is a model of `path` when
    /// one is at hand.
    pub fn check(
        &mut self,
        path: &Path,
        witness: Option<&Witness>,
        extra: &Term,
    ) -> Result<Answer, SymexecError> {
        if !self.shortcuts {
            self.stats.branch_checks += 1;
            return Ok(match self.check_whole(path, Some(extra))? {
                Cached::Sat(m) => Answer::Sat(Rc::new(Witness::whole(m))),
                Cached::Unsat => Answer::Unsat,
                Cached::Unknown => Answer::Unknown,
            });
        }
        let vars = self.vars_of(extra);
        let key = self.key_of(extra);
        let (mut links, mut covered) = Self::relevant(path, &vars, witness);
        // Without a model of the rest of the path, only a check of the whole path says
        // whether the branch is feasible.
        if witness.is_none() {
            links = path.links().collect();
            covered = links
                .iter()
                .fold(vars.clone(), |acc, l| union(&acc, &l.vars));
        }
        // Syntax: the branch is on the path already, or its negation is.
        if let Some(w) = witness
            && links.iter().any(|l| *l.key == *key)
        {
            self.stats.syntactic += 1;
            return Ok(Answer::Sat(Rc::new(Witness {
                parts: w.parts.clone(),
                whole: w.whole,
            })));
        }
        if links.iter().any(|l| *l.vars == *vars)
            && let Ok(negation) = Term::not(extra.clone()).map(|t| super::simplify(&t))
        {
            let negation = term_key(&negation);
            if links.iter().any(|l| *l.key == *negation) {
                self.stats.syntactic += 1;
                return Ok(Answer::Unsat);
            }
        }
        let whole = links.len() == path.links().count();
        let query = Self::key(&links, Some(&key));
        let answer = match self.cache.get(&query) {
            Some(a) => {
                self.stats.cache_hits += 1;
                a.clone()
            }
            None => {
                self.stats.branch_checks += 1;
                let a = if whole && !self.any_sequence(&covered) {
                    self.check_whole(path, Some(extra))?
                } else {
                    let mut terms: Vec<&Term> = links.iter().map(|l| &l.term).collect();
                    terms.push(extra);
                    self.check_terms(&terms)?
                };
                self.cache.insert(query, a.clone());
                a
            }
        };
        Ok(match answer {
            Cached::Sat(m) => match witness {
                Some(w) => Answer::Sat(Rc::new(w.replaced(covered, m))),
                // Without a model of the rest of the path, the part is a model of the whole
                // path only when it covers every constraint.
                None => Answer::Sat(Rc::new(Witness::of(m, covered))),
            },
            Cached::Unsat => Answer::Unsat,
            Cached::Unknown => Answer::Unknown,
        })
    }

    /// Whether `witness` decides that `c` holds.
    pub fn holds(&mut self, witness: &Witness, c: &Term) -> bool {
        if witness.whole {
            return witness.holds(c, &[]).unwrap_or(false);
        }
        let vars = self.vars_of(c);
        witness.holds(c, &vars).unwrap_or(false)
    }

    /// A model of `path` (for a leaf's witness), one check per independent part.
    pub fn model(&mut self, path: &Path) -> Result<Option<Witness>, SymexecError> {
        if !self.shortcuts {
            self.stats.witness_checks += 1;
            return Ok(match self.check_whole(path, None)? {
                Cached::Sat(m) => Some(Witness::whole(m)),
                _ => None,
            });
        }
        let mut parts = Vec::new();
        let mut left: Vec<&Link> = path.links().filter(|l| !l.vars.is_empty()).collect();
        while let Some(first) = left.first() {
            let (links, vars) = Self::relevant(path, &first.vars, None);
            let query = Self::key(&links, None);
            let answer = match self.cache.get(&query) {
                Some(a) => {
                    self.stats.cache_hits += 1;
                    a.clone()
                }
                None => {
                    self.stats.witness_checks += 1;
                    let terms: Vec<&Term> = links.iter().map(|l| &l.term).collect();
                    let a = self.check_terms(&terms)?;
                    self.cache.insert(query, a.clone());
                    a
                }
            };
            match answer {
                Cached::Sat(m) => parts.push((vars.clone(), m)),
                _ => return Ok(None),
            }
            left.retain(|l| !overlaps(&l.vars, &vars));
        }
        Ok(Some(Witness {
            parts,
            whole: false,
        }))
    }

    /// One model of the whole path.
    pub fn model_whole(&mut self, path: &Path) -> Result<Option<Witness>, SymexecError> {
        self.stats.witness_checks += 1;
        Ok(match self.check_whole(path, None)? {
            Cached::Sat(m) => Some(Witness::whole(m)),
            _ => None,
        })
    }

    /// The witness input of a leaf: the value of each input from the part that holds it
    /// (unconstrained inputs from a model of nothing); `None` when an input spans parts.
    pub fn inputs(
        &mut self,
        witness: &Witness,
        env: &Env,
    ) -> Result<Option<Box<[u32]>>, SymexecError> {
        if self.input_vars.len() != env.iter().count() {
            self.input_vars = env.iter().map(|(_, t)| self.vars_of(t)).collect();
        }
        let mut out = Vec::new();
        for (i, (_, t)) in env.iter().enumerate() {
            let vars = &self.input_vars[i];
            let part = if witness.whole {
                witness.parts.first()
            } else {
                witness.parts.iter().find(|(p, _)| subset(vars, p))
            };
            let model = match part {
                Some((_, m)) => m.clone(),
                None if witness.parts.iter().any(|(p, _)| overlaps(p, vars)) => {
                    return Ok(None);
                }
                None => self.empty_model()?,
            };
            let at = (Rc::as_ptr(&model) as usize, i);
            let index = match self.values.get(&at) {
                Some(&v) => v,
                None => match model.value(t) {
                    Ok(v) => {
                        let index = self.table.len() as u32;
                        self.table.push(v);
                        self.values.insert(at, index);
                        self.read_models.push(model);
                        index
                    }
                    Err(_) => return Ok(None),
                },
            };
            out.push(index);
        }
        Ok(Some(out.into_boxed_slice()))
    }

    /// The values the witnesses index.
    pub fn take_values(&mut self) -> Vec<PyValue> {
        std::mem::take(&mut self.table)
    }

    fn empty_model(&mut self) -> Result<Rc<Model>, SymexecError> {
        if let Some(m) = &self.empty {
            return Ok(m.clone());
        }
        self.stats.witness_checks += 1;
        // No constraint: a check that always answers, outside the solver time budget.
        let budget = self.budget_us.take();
        let answer = self.check_terms(&[]);
        self.budget_us = budget;
        match answer? {
            Cached::Sat(m) => {
                self.empty = Some(m.clone());
                Ok(m)
            }
            _ => Err(SymexecError::Internal(
                "the solver found no model of no constraint".into(),
            )),
        }
    }

    /// `path` with `c` added: asserted for later checks, shown unless `implied` (the path
    /// already implies it); shown constraints that `c` implies are dropped.
    pub fn extend(&mut self, path: &Path, c: Term, implied: bool) -> Result<Path, SymexecError> {
        if implied {
            return Ok(path.clone());
        }
        let vars = self.vars_of(&c);
        let key = self.key_of(&c);
        let mut shown = Vec::with_capacity(path.shown.len() + 1);
        let mut shown_vars = Vec::with_capacity(path.shown.len() + 1);
        // A constraint can only imply one over its own variables (up to degenerate ones
        // like `0 * x == 0`, which then stay shown): the others are not asked about.
        for (old, old_vars) in path.shown.iter().zip(path.shown_vars.iter()) {
            if subset(old_vars, &vars) && self.implies(&c, &key, old)? {
                continue;
            }
            shown.push(old.clone());
            shown_vars.push(old_vars.clone());
        }
        shown.push(c.clone());
        shown_vars.push(vars.clone().into());
        Ok(Path {
            shown: Arc::new(shown),
            shown_vars: Rc::new(shown_vars),
            chain: Some(Rc::new(Link {
                term: c,
                parent: path.chain.clone(),
                depth: path.chain.as_ref().map_or(1, |l| l.depth + 1),
                vars,
                key,
            })),
        })
    }

    /// Whether `a` (whose key is `a_key`) implies `b` on its own (unknown counts as no).
    fn implies(&mut self, a: &Term, a_key: &Rc<str>, b: &Term) -> Result<bool, SymexecError> {
        if !self.shortcuts {
            self.stats.implication_checks += 1;
            let yes = self.scratch.implies(a, b);
            return yes.or_else(|e| interrupted_or(e, false, &mut self.stats));
        }
        let pair = (a_key.clone(), self.key_of(b));
        if pair.0 == pair.1 {
            self.stats.syntactic += 1;
            return Ok(true);
        }
        if let Some(&yes) = self.implications.get(&pair) {
            self.stats.cache_hits += 1;
            return Ok(yes);
        }
        if self.spent() {
            return Ok(false);
        }
        self.stats.implication_checks += 1;
        let started = std::time::Instant::now();
        let yes = self.scratch.implies(a, b);
        self.stats.implication_us += started.elapsed().as_micros() as u64;
        let yes = yes.or_else(|e| interrupted_or(e, false, &mut self.stats))?;
        self.implications.insert(pair, yes);
        Ok(yes)
    }
}

/// A structural key of a term (its kind and sort, in full).
fn term_key(t: &Term) -> Rc<str> {
    format!("{t:?}").into()
}

fn cached(answer: Check, stats: &mut Stats) -> Result<Cached, SymexecError> {
    Ok(match answer {
        Check::Sat(m) => Cached::Sat(Rc::new(m)),
        Check::Unsat => Cached::Unsat,
        Check::Unknown(reason) => {
            reason.stopped()?;
            count_exhausted(&reason, stats);
            Cached::Unknown
        }
    })
}

/// Counts a check that spent its resource units.
fn count_exhausted(reason: &Unknown, stats: &mut Stats) {
    if matches!(reason, Unknown::ResourceLimit(_)) {
        stats.exhausted += 1;
    }
}
