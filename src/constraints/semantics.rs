//! What taking one CFG edge means, precisely: the SSA definitions its source node makes
//! (`x_1 == x - 5`) and the conditions under which the edge is taken (a branch condition, its
//! negation, "no exception"), as terms over the inputs and SSA versions.
//!
//! Names map to terms; a name whose value has no translation (assigned from a call, bound by
//! `except ... as e`, a list changed in place) is removed, so conditions that read it are
//! reported as not translated instead of being read with a stale value. Versions are per
//! definition site, numbered in node order, so `x_2` means the same definition on every path.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use petgraph::graph::NodeIndex;

use super::dag::EdgeInfo;
use super::dicts;
use super::effects::{Effects, mutated_names};
use super::none;
use super::optional;
use super::routing;
use super::stores::{store_raises, stores_untranslated_without_raising, unpacked_items};
use crate::cfg::{Cfg, Edge, Item, NodeKind, index};
use crate::python::ir::{
    Constant, Expr, ExprKind, Function, MatchCase, ParamKind, Pattern, Stmt, StmtId, StmtKind,
};
use crate::symbolic::iteration::{Iterable, iterator_call};
use crate::symbolic::mapping::MapKind;
use crate::symbolic::negate::negate;
use crate::symbolic::seqmap::SeqMapping;
use crate::symbolic::{
    CompareOp, Env, ExceptionKind, Sort, SortError, Term, TermKind, Translated, Var,
    float_rounding, translate, translate_condition,
};
use crate::symexec::packed::Shape;

/// What each name currently stands for (absent: unknown or unbound).
pub type Names = BTreeMap<String, Term>;

/// Why a constraint is on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Precondition,
    /// A branch condition (or its negation) of `if`, `elif`, `while`, `for`, `assert`, `case`.
    Branch,
    /// An SSA definition: `x_1 == x - 5`.
    Definition,
    /// Evaluation does not raise: `y != 0`, `0 < len(s)`.
    NoException,
    /// Bookkeeping, not shown: how a `finally` body was entered.
    Internal,
}

/// A constraint on an edge, printed as Python.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    pub term: Term,
    pub kind: Kind,
}

/// A condition that has no translation: where, its text, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub node: NodeIndex,
    pub text: String,
    pub reason: String,
}

/// Moves the guards on float arithmetic to the dropped conditions: Python rounds it, the
/// model's reals do not ([`float_rounding`]), so what such a guard decides is not claimed.
fn drop_float_rounding(step: &mut Step, n: NodeIndex) {
    let (rounded, exact): (Vec<Constraint>, Vec<Constraint>) = std::mem::take(&mut step.guards)
        .into_iter()
        .partition(|g| float_rounding(&g.term).is_some());
    step.guards = exact;
    for g in rounded {
        let arithmetic = float_rounding(&g.term)
            .map(Term::to_string)
            .unwrap_or_default();
        step.dropped.push(Dropped {
            node: n,
            text: g.term.to_string(),
            reason: format!(
                "float arithmetic `{arithmetic}` rounds in Python, not over the model's reals"
            ),
        });
    }
}

/// What taking one edge means.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// Definitions the source node makes on this edge, in order.
    pub defs: Vec<Constraint>,
    /// What must hold for the edge to be taken.
    pub guards: Vec<Constraint>,
    /// Conditions of this edge left out for want of a translation.
    pub dropped: Vec<Dropped>,
}

/// How a `for` head is reached: first (as on PythonTA's paths), for the k-th time after
/// k iterations (the bounded unrolling), or after any number of iterations (the
/// over-approximation that confirms infeasibility; its loop steps count as untranslated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    First,
    Iteration(u32),
    Any,
}

/// Where an edge is taken: how its source was reached, and which copy of it (an unrolled
/// copy defines SSA versions of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    pub arrival: Arrival,
    pub copy: u32,
}

impl Visit {
    /// The visit on a path: first arrival, the one copy.
    pub const FIRST: Visit = Visit {
        arrival: Arrival::First,
        copy: 0,
    };
}

/// The precise semantics of a function's CFG edges.
pub struct Semantics<'a> {
    cfg: &'a Cfg,
    items: HashMap<StmtId, Item<'a>>,
    /// The subject of each `case`'s `match`.
    subjects: HashMap<StmtId, &'a Expr>,
    /// Definition-site versions: (node, name) → version (1, 2, … per name).
    versions: HashMap<(NodeIndex, String), u32>,
    /// The last definition-site version of each name.
    last_version: HashMap<String, u32>,
    /// The first node of each `finally` body → its join node.
    finally_first: HashMap<NodeIndex, NodeIndex>,
    /// The test of each `if`/`elif`/`while`/`assert`/`case` node as written (printed once
    /// however many steps drop it).
    texts: RefCell<HashMap<NodeIndex, String>>,
}

/// How a `finally` body was entered, matched against the join's way out.
fn pending_code(cfg: &Cfg, e: &EdgeInfo, items: &HashMap<StmtId, Item<'_>>) -> i64 {
    match e.kind {
        Edge::Return => 1,
        Edge::Break => 2,
        Edge::Continue => 3,
        Edge::Exception(_) => 4,
        Edge::Normal => match stmt_of(cfg, e.source, items).map(|s| &s.kind) {
            Some(StmtKind::Return(_)) => 1,
            Some(StmtKind::Break) => 2,
            Some(StmtKind::Continue) => 3,
            _ => 0,
        },
        Edge::True | Edge::False => 0,
    }
}

fn way_out_code(e: &Edge) -> i64 {
    match e {
        Edge::Return => 1,
        Edge::Break => 2,
        Edge::Continue => 3,
        Edge::Exception(_) => 4,
        _ => 0,
    }
}

fn stmt_of<'a>(cfg: &Cfg, n: NodeIndex, items: &HashMap<StmtId, Item<'a>>) -> Option<&'a Stmt> {
    match cfg.node(n).stmts.first().and_then(|s| items.get(&s.id)) {
        Some(Item::Stmt(s)) => Some(s),
        _ => None,
    }
}

/// The internal name of the pending way out of the `finally` whose join is `join`.
fn pending_name(join: NodeIndex) -> String {
    format!("@finally{}", join.index())
}

/// The params of `f` as names (the input variables), with the parameters left out and why.
/// With `infer`, a parameter without annotation gets the sort `symexec`'s inference gives it
/// (the same as `%set`'s), reported as `(name, "sort inferred from …")`. A sort in `given`
/// (`ARG:TYPE`, for parameters of `f`) takes the place of the annotation and of inference.
/// A parameter nothing in `f` types gets `%set`'s default guess too, listed in `guessed`.
pub fn inputs(f: &Function, infer: bool, given: &[(String, Sort)]) -> Inputs {
    let (mut env, mut skipped) = Env::from_params(&f.params);
    let mut given_notes = Vec::new();
    for (name, sort) in given {
        if let Err(e) = env.declare(name, sort) {
            skipped.retain(|(n, _)| n != name);
            skipped.push((name.clone(), format!("the type given, {sort}: {e}")));
            continue;
        }
        skipped.retain(|(n, _)| n != name);
        given_notes.push((name.clone(), sort.to_string()));
    }
    let mut inferred = Vec::new();
    let mut guessed = Vec::new();
    if infer {
        let unannotated: Vec<String> = skipped
            .iter()
            .filter(|(n, _)| f.param(n).is_some_and(|p| inferable(f, p)))
            .map(|(n, _)| n.clone())
            .collect();
        // A parameter the body uses as a dict is not given a sort (runs pass dicts).
        let (mappings, unannotated): (Vec<String>, Vec<String>) = unannotated
            .into_iter()
            .partition(|n| crate::symexec::infer_mapping(f, n).is_some());
        for name in mappings {
            if let Some((_, _, _, why)) = crate::symexec::infer_mapping(f, &name) {
                skipped.retain(|(n, _)| *n != name);
                skipped.push((
                    name,
                    format!("used as a dict ({why}), which the solver does not model"),
                ));
            }
        }
        for (name, sort, why) in crate::symexec::infer_parameter_sorts(f, &[], &unannotated) {
            if env.declare(&name, &sort).is_ok() {
                skipped.retain(|(n, _)| *n != name);
                if why == crate::symexec::DEFAULT_GUESS {
                    guessed.push(format!("{name}: {sort}"));
                }
                inferred.push((name, format!("{sort} inferred from {why}")));
            }
        }
    }
    let mut names: Names = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let mut optional = Vec::new();
    for p in &f.params {
        if names.contains_key(&p.name) && admits_none(f, p, given) {
            optional::declare(&mut names, &p.name);
            optional.push(p.name.clone());
        }
    }
    let mappings = if infer {
        declare_mappings(f, given, &mut names, &mut skipped)
    } else {
        Vec::new()
    };
    let sorts = f
        .params
        .iter()
        .filter(|p| !mappings.iter().any(|(n, _)| *n == p.name))
        .filter_map(|p| {
            names
                .get(&p.name)
                .map(|t| (p.name.clone(), t.sort().clone()))
        })
        .collect();
    Inputs {
        names,
        sorts,
        mappings,
        optional,
        skipped,
        inferred,
        guessed,
        given: given_notes,
    }
}

/// Declares in `names` the dict and set parameters of `f` as `%set` reads them (the
/// annotation, or inference from the body) whose keys the model takes, unless they may be
/// `None`; returns them with their types, removed from `skipped`.
fn declare_mappings(
    f: &Function,
    given: &[(String, Sort)],
    names: &mut Names,
    skipped: &mut Vec<(String, String)>,
) -> Vec<(String, String)> {
    let Ok((_, _, packed)) = crate::symexec::function_inputs(f, &[], given) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for p in &f.params {
        if names.contains_key(&p.name) || admits_none(f, p, given) {
            continue;
        }
        let Some(Shape::Map { kind, key, value }) =
            packed.iter().find(|q| q.name == p.name).map(|q| &q.shape)
        else {
            continue;
        };
        if dicts::escapes(f, &p.name) {
            skipped.retain(|(n, _)| *n != p.name);
            skipped.push((
                p.name.clone(),
                "a dict or set that other names may see (passed, stored, returned or bound \
                 to another name)"
                    .into(),
            ));
            continue;
        }
        let dict = *kind == MapKind::Dict;
        match SeqMapping::input(&p.name, key, dict.then_some(value)) {
            Ok(m) => {
                dicts::declare(names, &p.name, &m);
                skipped.retain(|(n, _)| *n != p.name);
                let ty = if dict {
                    format!("dict[{key}, {value}]")
                } else {
                    format!("set[{key}]")
                };
                out.push((p.name.clone(), ty));
            }
            Err(why) => {
                skipped.retain(|(n, _)| *n != p.name);
                skipped.push((p.name.clone(), format!("a {} with {}", kind.name(), why.0)));
            }
        }
    }
    out
}

/// Whether parameter `p` of `f` may be `None`: annotated `Optional[T]`/`T | None`, with a
/// `None` default, or (without annotation) compared with `None` in the body. A type given
/// as `ARG:TYPE` says it is not.
fn admits_none(f: &Function, p: &crate::python::ir::Param, given: &[(String, Sort)]) -> bool {
    if given.iter().any(|(n, _)| *n == p.name) {
        return false;
    }
    let none_default = p
        .default
        .as_ref()
        .is_some_and(|d| matches!(d.kind, ExprKind::Constant(Constant::None)));
    match &p.annotation {
        Some(a) => none_default || crate::symbolic::optional_inner(a).is_some(),
        None => none_default || compared_with_none(f, &p.name),
    }
}

/// Whether `%constraints` types parameter `p` of `f` by inference: a plain parameter without
/// annotation, not a method's `self`/`cls`, whose default (if any) is a literal or `None`
/// (a `None` default or test makes it a parameter that may be `None`: [`admits_none`]).
fn inferable(f: &Function, p: &crate::python::ir::Param) -> bool {
    let literal_default = p.default.as_ref().is_none_or(|d| {
        matches!(
            d.kind,
            ExprKind::Constant(
                Constant::Int(_)
                    | Constant::Float(_)
                    | Constant::Str(_)
                    | Constant::Bool(_)
                    | Constant::None
            )
        )
    });
    let receiver = f.qualname.contains('.')
        && f.params.first().is_some_and(|first| first.name == p.name)
        && (p.name == "self" || p.name == "cls");
    p.annotation.is_none()
        && !matches!(p.kind, ParamKind::VarArgs | ParamKind::KwArgs)
        && literal_default
        && !receiver
}

/// Whether `f`'s body compares the name `p` with `None`.
fn compared_with_none(f: &Function, p: &str) -> bool {
    let mut found = false;
    let is_none = |e: &Expr| matches!(e.kind, ExprKind::Constant(Constant::None));
    for s in &f.body {
        s.walk(&mut |s: &Stmt| {
            for e in s.exprs() {
                e.walk(&mut |e: &Expr| {
                    if let ExprKind::Compare {
                        left, comparators, ..
                    } = &e.kind
                    {
                        let operands: Vec<&Expr> =
                            std::iter::once(&**left).chain(comparators).collect();
                        let names_p = operands.iter().any(|o| o.as_name() == Some(p));
                        if names_p && operands.iter().any(|o| is_none(o)) {
                            found = true;
                        }
                    }
                });
            }
        });
    }
    found
}

/// A function's inputs as `%constraints` models them.
pub struct Inputs {
    pub names: Names,
    /// The modelled parameters' sorts, in order.
    pub sorts: Vec<(String, Sort)>,
    /// The dict and set parameters (modelled as [`SeqMapping`]s), with their types.
    pub mappings: Vec<(String, String)>,
    /// The parameters that may be `None` besides a value of their sort.
    pub optional: Vec<String>,
    /// The parameters left out, and why.
    pub skipped: Vec<(String, String)>,
    /// The parameters whose sort was inferred, and from what.
    pub inferred: Vec<(String, String)>,
    /// Of those, the ones nothing in the function types, as `name: sort` (the default guess).
    pub guessed: Vec<String>,
    /// The parameters whose sort was given as `ARG:TYPE`, with the sort.
    pub given: Vec<(String, String)>,
}

/// The translation environment for `names`.
pub fn env_of(names: &Names) -> Env {
    let mut env = Env::new();
    for (k, v) in names.iter().filter(|(_, v)| !none::is_marker(v)) {
        if !dicts::internal(k) && !dicts::holds(names, k) {
            env.bind(k.clone(), v.clone());
        }
    }
    dicts::bind(&mut env, names);
    env
}

const ASSERTION_ERROR: &str = "AssertionError";

/// Why an unnamed exception edge is not decided.
const UNROUTED: &str = "which exceptions take this edge is not known";

/// Why the exception edges of a statement not translated whole are not decided.
const UNKNOWN_RAISES: &str = "which exceptions it raises is not known";

fn constraint(term: Term, kind: Kind) -> Constraint {
    Constraint { term, kind }
}

/// "Evaluation raised nothing", unless nothing can be raised.
fn no_exception(fx: &Effects) -> Result<Option<Constraint>, SortError> {
    let any = fx.any()?;
    if any.bool_literal() == Some(false) {
        return Ok(None);
    }
    Ok(Some(constraint(negate(&any)?, Kind::NoException)))
}

fn effects_of(t: &Translated) -> Effects {
    let mut fx = Effects {
        raises: Vec::new(),
        complete: true,
        partial: None,
    };
    fx.then(t);
    fx
}

impl<'a> Semantics<'a> {
    pub fn new(cfg: &'a Cfg, f: &'a Function) -> Semantics<'a> {
        let items = index(&f.body);
        let mut subjects = HashMap::new();
        let mut finals: Vec<&[Stmt]> = Vec::new();
        for s in &f.body {
            s.walk(&mut |s| match &s.kind {
                StmtKind::Match { subject, cases } => {
                    for c in cases {
                        subjects.insert(c.id, subject);
                    }
                }
                StmtKind::Try { finalbody, .. } if !finalbody.is_empty() => finals.push(finalbody),
                _ => {}
            });
        }
        let mut sem = Semantics {
            cfg,
            items,
            subjects,
            versions: HashMap::new(),
            last_version: HashMap::new(),
            finally_first: HashMap::new(),
            texts: RefCell::default(),
        };
        sem.number_definitions();
        for body in finals {
            sem.register_finally(body);
        }
        sem
    }

    /// The φ-variable of `name` where paths meet at node `n`: a version after all of the
    /// name's definition sites (so `x_5` never clashes with a definition's `x_1`).
    pub fn phi_var(&self, name: &str, n: NodeIndex) -> Var {
        let defs = self.last_version.get(name).copied().unwrap_or(0);
        Var {
            name: name.to_string(),
            version: defs + 1 + n.index() as u32,
            path: Vec::new(),
        }
    }

    /// Numbers the definition sites of every name in node order.
    fn number_definitions(&mut self) {
        let mut next: HashMap<String, u32> = HashMap::new();
        for n in self.cfg.nodes() {
            for name in self.defined(n) {
                let v = next.entry(name.clone()).or_insert(0);
                *v += 1;
                self.versions.insert((n, name), *v);
            }
        }
        self.last_version = next;
    }

    /// A `finally` body's first node and its join: the node made right after everything
    /// the body's statements made.
    fn register_finally(&mut self, body: &[Stmt]) {
        let first = body.first().and_then(|s| self.cfg.node_of(s.id));
        let last = self.last_created(body);
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let join = NodeIndex::new(last + 1);
        if join.index() < self.cfg.graph.node_count() && self.cfg.node(join).kind == NodeKind::Join
        {
            self.finally_first.insert(first, join);
        }
    }

    /// The index of the last node the CFG builder made for `stmts` (it makes nodes in
    /// source pre-order, a `finally` join right after its body).
    fn last_created(&self, stmts: &[Stmt]) -> Option<usize> {
        let s = stmts.last()?;
        let nested = match &s.kind {
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                if finalbody.is_empty() {
                    self.last_created(orelse)
                        .or_else(|| handlers.last().and_then(|h| self.last_created(&h.body)))
                        .or_else(|| self.last_created(body))
                } else {
                    self.last_created(finalbody).map(|i| i + 1)
                }
            }
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => self
                .last_created(orelse)
                .or_else(|| self.last_created(body)),
            StmtKind::With { body, .. } => self.last_created(body),
            StmtKind::ClassDef { body, .. } => self.last_created(crate::cfg::scope_code(body)),
            StmtKind::Match { cases, .. } => cases.last().and_then(|c| self.last_created(&c.body)),
            _ => None,
        };
        nested.or_else(|| self.cfg.node_of(s.id).map(|n| n.index()))
    }

    fn item(&self, n: NodeIndex) -> Option<Item<'a>> {
        self.cfg
            .node(n)
            .stmts
            .first()
            .and_then(|s| self.items.get(&s.id).copied())
    }

    /// The names node `n` binds.
    fn defined(&self, n: NodeIndex) -> Vec<String> {
        match self.item(n) {
            Some(Item::Stmt(s)) => s.defined_names(),
            Some(Item::Handler(h)) => h.name.iter().cloned().collect(),
            Some(Item::Case(c)) => c.defined_names(),
            None => Vec::new(),
        }
    }

    /// The CFG whose edges this describes.
    pub fn cfg(&self) -> &'a Cfg {
        self.cfg
    }

    /// The names node `n` may change: those it binds, and lists it may change in place.
    pub fn assigned(&self, n: NodeIndex) -> Vec<String> {
        let mut names = self.defined(n);
        if let Some(Item::Stmt(s)) = self.item(n) {
            for m in mutated_names(s) {
                if !names.contains(&m) {
                    names.push(m);
                }
            }
        }
        names
    }

    /// The statement at node `n`, if it holds one.
    pub fn stmt(&self, n: NodeIndex) -> Option<&'a Stmt> {
        stmt_of(self.cfg, n, &self.items)
    }

    /// The version of `name` that node `n` defines.
    pub fn version(&self, n: NodeIndex, name: &str) -> u32 {
        self.versions
            .get(&(n, name.to_string()))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Taking `edge` from its source, where the names stand for `env`: the step, and the
    /// names after it.
    /// `test`, the test of node `n` (a node has one), as written.
    fn test_text(&self, n: NodeIndex, test: &Expr) -> String {
        self.texts
            .borrow_mut()
            .entry(n)
            .or_insert_with(|| test.to_string())
            .clone()
    }

    pub fn step(&self, edge: &EdgeInfo, env: &Names, visit: Visit) -> (Step, Names) {
        let n = edge.source;
        let mut env = std::borrow::Cow::Borrowed(env);
        let split = if optional::any(&env) {
            optional::to_split(env.to_mut(), &self.reads(n))
        } else {
            Vec::new()
        };
        let (step, mut out) = self.split_step(edge, &env, visit, &split);
        if !split.is_empty() || optional::any(&out) {
            for name in self.assigned(n) {
                optional::forget(&mut out, &name);
            }
        }
        (step, out)
    }

    /// The names node `n`'s statement reads (a `case` reads its subject).
    fn reads(&self, n: NodeIndex) -> Vec<String> {
        match self.item(n) {
            Some(Item::Stmt(s)) => s.names_used(),
            Some(Item::Case(c)) => {
                let mut out = Vec::new();
                if let Some(subject) = self.subjects.get(&c.id) {
                    subject.walk(&mut |e| {
                        if let ExprKind::Name(name) = &e.kind {
                            out.push(name.clone());
                        }
                    });
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// The step taken once with each of `names` holding `None` and once holding its
    /// value, joined (see `optional`).
    fn split_step(
        &self,
        edge: &EdgeInfo,
        env: &Names,
        visit: Visit,
        names: &[String],
    ) -> (Step, Names) {
        let Some((name, rest)) = names.split_first() else {
            return self.plain_step(edge, env, visit);
        };
        let Some(flag) = optional::may_be_none(env, name).cloned() else {
            return self.split_step(edge, env, visit, rest);
        };
        let (holds_none, holds_value) = optional::split(env, name);
        let with_none = self.split_step(edge, &holds_none, visit, rest);
        let with_value = self.split_step(edge, &holds_value, visit, rest);
        optional::join(edge.source, name, &flag, env, with_none, with_value)
    }

    fn plain_step(&self, edge: &EdgeInfo, env: &Names, visit: Visit) -> (Step, Names) {
        let mut out = env.clone();
        let mut step = Step::default();
        let n = edge.source;
        if self.cfg.node(n).kind == NodeKind::Join {
            self.join_guard(n, edge, env, &mut step);
        }
        match self.item(n) {
            Some(Item::Stmt(s)) => self.statement(s, n, edge, env, &mut out, &mut step, visit),
            Some(Item::Handler(h)) => {
                if let Some(name) = &h.name {
                    out.remove(name);
                }
            }
            Some(Item::Case(c)) => self.case(c, n, edge, env, &mut out, &mut step),
            None => {}
        }
        drop_float_rounding(&mut step, n);
        if let Some(&join) = self.finally_first.get(&edge.target) {
            let code = pending_code(self.cfg, edge, &self.items);
            out.insert(pending_name(join), Term::int(code));
        }
        (step, out)
    }

    /// Out of a `finally` join, the way taken must be the way the body was entered.
    fn join_guard(&self, n: NodeIndex, edge: &EdgeInfo, env: &Names, step: &mut Step) {
        let Some(pending) = env.get(&pending_name(n)) else {
            return;
        };
        let code = Term::int(way_out_code(&edge.kind));
        if let Ok(t) = Term::compare(CompareOp::Eq, pending.clone(), code) {
            step.guards.push(constraint(t, Kind::Internal));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn statement(
        &self,
        s: &Stmt,
        n: NodeIndex,
        edge: &EdgeInfo,
        env: &Names,
        out: &mut Names,
        step: &mut Step,
        visit: Visit,
    ) {
        let exceptional = edge.kind.is_exception();
        let mut defined: Vec<String> = Vec::new();
        let node = self.cfg.node(n);
        match &s.kind {
            StmtKind::If { test, .. } | StmtKind::While { test, .. }
                if node.kind == NodeKind::Condition =>
            {
                self.branch(test, n, edge, env, step);
            }
            StmtKind::For { target, iter, .. } => {
                defined = self.for_loop(target, iter, n, edge, env, out, step, visit);
            }
            StmtKind::Assign { targets, value } => {
                let refs: Vec<&Expr> = targets.iter().collect();
                defined = self.assign(&refs, value, n, edge, env, out, step, visit.copy);
            }
            StmtKind::AugAssign { target, .. } => match s.augmented_value() {
                Some(combined) => {
                    defined =
                        self.assign(&[target], &combined, n, edge, env, out, step, visit.copy);
                }
                None if exceptional => self.not_modelled(n, &s.text, UNKNOWN_RAISES, step),
                None => {}
            },
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } => {
                defined = self.assign(&[target], value, n, edge, env, out, step, visit.copy);
            }
            StmtKind::Assert { test, .. } => self.assertion(test, n, edge, env, step),
            StmtKind::Raise { .. } => {
                // Always raised; which handler takes it is told only by its names.
                let ways_out = self.cfg.successors(n);
                let ways_out = ways_out.iter().filter(|(_, e)| e.is_exception()).count();
                if edge.kind.exceptions().is_empty() && ways_out > 1 {
                    self.not_modelled(n, &s.text, UNROUTED, step);
                }
            }
            StmtKind::Return(Some(e)) | StmtKind::Expr(e) => {
                let e = none::resolve(e, env, false);
                let fx = Effects::of(&[&*e], &env_of(env));
                self.completion(&fx, n, &s.text, edge, step);
            }
            _ if exceptional => self.not_modelled(n, &s.text, UNKNOWN_RAISES, step),
            _ => {}
        }
        if !exceptional {
            for name in self.defined(n) {
                if !defined.contains(&name) {
                    out.remove(&name);
                }
            }
        }
        // Lists changed in place (strings and tuples cannot be).
        for name in mutated_names(s) {
            let is_list = out
                .get(&name)
                .and_then(|t| t.sort().seq_kind())
                .is_some_and(|k| k == crate::symbolic::SeqKind::List);
            if is_list {
                out.remove(&name);
            }
        }
    }

    /// Records that the edge taken at node `n` is not modelled, and why.
    fn not_modelled(&self, n: NodeIndex, text: &str, reason: &str, step: &mut Step) {
        step.dropped.push(Dropped {
            node: n,
            text: text.to_string(),
            reason: reason.into(),
        });
    }

    /// The exceptions of `raised` that take exception edge `edge` from `n`: its names, or,
    /// when the CFG could not name them, where Python sends each ([`routing`]).
    fn travelling(
        &self,
        n: NodeIndex,
        edge: &EdgeInfo,
        names: &[String],
        raised: &[&str],
    ) -> Option<Vec<String>> {
        if !names.is_empty() {
            return Some(names.to_vec());
        }
        let handler_at = |t: NodeIndex| match self.item(t) {
            Some(Item::Handler(h)) => Some(h),
            _ => None,
        };
        routing::travelling(self.cfg, n, edge.target, handler_at, raised)
    }

    /// The normal edges require that nothing is raised; exception edges that the named
    /// exceptions are (when every expression was translated).
    fn completion(&self, fx: &Effects, n: NodeIndex, text: &str, edge: &EdgeInfo, step: &mut Step) {
        if let Edge::Exception(names) = &edge.kind {
            if !fx.complete {
                self.not_modelled(n, text, UNKNOWN_RAISES, step);
                return;
            }
            let kinds: Vec<&str> = fx.raises.iter().map(|(k, _)| k.name()).collect();
            let Some(names) = self.travelling(n, edge, names, &kinds) else {
                self.not_modelled(n, text, UNROUTED, step);
                return;
            };
            let names = &names;
            match raised(fx, names) {
                Ok(t) => step.guards.push(constraint(t, Kind::Branch)),
                Err(e) => step.dropped.push(Dropped {
                    node: n,
                    text: text.to_string(),
                    reason: e.0,
                }),
            }
            return;
        }
        if let Some(what) = &fx.partial {
            step.dropped.push(Dropped {
                node: n,
                text: text.to_string(),
                reason: format!("whether {what} raises is not known"),
            });
        }
        match no_exception(fx) {
            Ok(Some(c)) => step.guards.push(c),
            Ok(None) => {}
            Err(e) => step.dropped.push(Dropped {
                node: n,
                text: text.to_string(),
                reason: e.0,
            }),
        }
    }

    /// `if`/`elif`/`while`: True when the test holds, False when it is false, both
    /// requiring that evaluating it raises nothing.
    fn branch(&self, test: &Expr, n: NodeIndex, edge: &EdgeInfo, env: &Names, step: &mut Step) {
        let resolved = none::resolve(test, env, true);
        let t = match translate_condition(&resolved, &env_of(env)) {
            Ok(t) => t,
            Err(e) => {
                step.dropped.push(Dropped {
                    node: n,
                    text: self.test_text(n, test),
                    reason: e.to_string(),
                });
                return;
            }
        };
        let fx = effects_of(&t);
        match &edge.kind {
            Edge::True | Edge::False => {
                let value = if edge.kind == Edge::True {
                    Ok(t.value.clone())
                } else {
                    Term::not(t.value.clone())
                };
                self.guarded(&fx, value, n, &|| self.test_text(n, test), step);
            }
            Edge::Exception(_) => self.completion(&fx, n, &self.test_text(n, test), edge, step),
            _ => {}
        }
    }

    /// Pushes "no exception" and then `value` as the edge's guards.
    fn guarded(
        &self,
        fx: &Effects,
        value: Result<Term, SortError>,
        n: NodeIndex,
        what: &dyn Fn() -> String,
        step: &mut Step,
    ) {
        match (no_exception(fx), value) {
            (Ok(safe), Ok(v)) => {
                step.guards.extend(safe);
                step.guards.push(constraint(v, Kind::Branch));
            }
            (Err(e), _) | (_, Err(e)) => step.dropped.push(Dropped {
                node: n,
                text: what(),
                reason: e.0,
            }),
        }
    }

    /// `assert test`: the normal edge when it holds, exception edges when it does not (or
    /// its evaluation raises the edge's exception).
    fn assertion(&self, test: &Expr, n: NodeIndex, edge: &EdgeInfo, env: &Names, step: &mut Step) {
        let resolved = none::resolve(test, env, true);
        let t = match translate_condition(&resolved, &env_of(env)) {
            Ok(t) => t,
            Err(e) => {
                step.dropped.push(Dropped {
                    node: n,
                    text: self.test_text(n, test),
                    reason: e.to_string(),
                });
                return;
            }
        };
        let fx = effects_of(&t);
        let Edge::Exception(names) = &edge.kind else {
            self.guarded(
                &fx,
                Ok(t.value.clone()),
                n,
                &|| self.test_text(n, test),
                step,
            );
            return;
        };
        // The assertion fails (AssertionError) or evaluating its test raises.
        let mut kinds: Vec<&str> = fx.raises.iter().map(|(k, _)| k.name()).collect();
        kinds.push(ASSERTION_ERROR);
        let Some(names) = self.travelling(n, edge, names, &kinds) else {
            self.not_modelled(n, &self.test_text(n, test), UNROUTED, step);
            return;
        };
        let failed = (|| {
            let mut parts = vec![raised(&fx, &names)?];
            if names.iter().any(|k| k == ASSERTION_ERROR) {
                parts.push(Term::and(vec![
                    Term::not(fx.any()?)?,
                    Term::not(t.value.clone())?,
                ])?);
            }
            Term::or(parts)
        })();
        match failed {
            Ok(g) => step.guards.push(constraint(g, Kind::Branch)),
            Err(e) => step.dropped.push(Dropped {
                node: n,
                text: self.test_text(n, test),
                reason: e.0,
            }),
        }
    }

    /// `x = value` (and `a = b = value`, `a, b = p, q`, `x += value`).
    #[allow(clippy::too_many_arguments)]
    fn assign(
        &self,
        targets: &[&Expr],
        value: &Expr,
        n: NodeIndex,
        edge: &EdgeInfo,
        env: &Names,
        out: &mut Names,
        step: &mut Step,
        copy: u32,
    ) -> Vec<String> {
        let text = self.cfg.node(n).label.clone();
        if none::is_none(value, env) && !edge.kind.is_exception() {
            let mut defined = Vec::new();
            for target in targets {
                if let ExprKind::Name(name) = &target.kind {
                    out.insert(name.clone(), none::marker());
                    defined.push(name.clone());
                }
            }
            return defined;
        }
        let value = none::resolve(value, env, false);
        let names = env_of(env);
        let t = match translate(&value, &names) {
            Ok(t) => t,
            Err(_) => {
                let mut fx = Effects::of(&[&*value], &names);
                fx.complete &= targets
                    .iter()
                    .all(|t| stores_untranslated_without_raising(t));
                self.completion(&fx, n, &text, edge, step);
                return Vec::new();
            }
        };
        let mut fx = effects_of(&t);
        // A store not modelled leaves the exceptions unknown; like an untranslated call, it
        // is taken not to raise on the normal edge.
        for target in targets {
            match store_raises(target, &t.value, &names) {
                Some(raises) => fx.raises.extend(raises),
                None => fx.complete = false,
            }
        }
        self.completion(&fx, n, &text, edge, step);
        if edge.kind.is_exception() {
            return Vec::new();
        }
        let mut defined = Vec::new();
        for target in targets {
            self.bind(target, &t.value, (n, copy), out, step, &mut defined);
        }
        defined
    }

    /// Binds a target to a value: a new version per name, items of a fixed-length value
    /// to the names of a tuple target.
    fn bind(
        &self,
        target: &Expr,
        value: &Term,
        (n, copy): (NodeIndex, u32),
        out: &mut Names,
        step: &mut Step,
        defined: &mut Vec<String>,
    ) {
        match &target.kind {
            ExprKind::Name(name) => {
                let base = if copy == 0 {
                    name.clone()
                } else {
                    format!("{name}@c{copy}")
                };
                let var = Var {
                    name: base,
                    version: self.version(n, name),
                    path: Vec::new(),
                };
                if float_rounding(value).is_some() {
                    // Python rounds it, the model's reals do not: the name is not modelled.
                    out.remove(name);
                    return;
                }
                let made = Term::input(var, value.sort())
                    .and_then(|v| Ok((Term::compare(CompareOp::Eq, v.clone(), value.clone())?, v)));
                if let Ok((eq, v)) = made {
                    step.defs.push(constraint(eq, Kind::Definition));
                    out.insert(name.clone(), v);
                    defined.push(name.clone());
                }
            }
            ExprKind::Tuple(parts) | ExprKind::List(parts) => {
                let Some(items) = unpacked_items(parts, value) else {
                    return;
                };
                for (p, item) in parts.iter().zip(&items) {
                    self.bind(p, item, (n, copy), out, step, defined);
                }
            }
            _ => {}
        }
    }

    /// `for target in iter:` — on the k-th arrival (k = 0 first), True takes item k of
    /// `range(...)` or a sequence and False means it has only k items. After any number of
    /// iterations (the over-approximation), True needs a non-empty iterable and binds an
    /// unknown item; both edges count as untranslated.
    #[allow(clippy::too_many_arguments)]
    fn for_loop(
        &self,
        target: &Expr,
        iter: &Expr,
        n: NodeIndex,
        edge: &EdgeInfo,
        env: &Names,
        out: &mut Names,
        step: &mut Step,
        visit: Visit,
    ) -> Vec<String> {
        let text = self.cfg.node(n).label.clone();
        let iter = none::resolve(iter, env, false);
        let iteration = match Iteration::of(&iter, &env_of(env)) {
            Ok(parts) => parts,
            Err(reason) => {
                if !edge.kind.is_exception() {
                    step.dropped.push(Dropped {
                        node: n,
                        text: iter.to_string(),
                        reason,
                    });
                }
                return Vec::new();
            }
        };
        let k = match (&edge.kind, visit.arrival) {
            (Edge::Exception(_), _) => {
                // Binding the item may raise too (unpacking of another length).
                let mut fx = iteration.fx.clone();
                fx.complete &= iteration
                    .item(0)
                    .and_then(|item| store_raises(target, &item, &env_of(env)))
                    .is_some_and(|raises| raises.is_empty());
                self.completion(&fx, n, &text, edge, step);
                return Vec::new();
            }
            (Edge::True | Edge::False, Arrival::Any) => {
                if edge.kind == Edge::True {
                    self.guarded(
                        &iteration.fx,
                        iteration.has_item(0),
                        n,
                        &|| iter.to_string(),
                        step,
                    );
                }
                step.dropped.push(Dropped {
                    node: n,
                    text: iter.to_string(),
                    reason: "an iteration after the first few is not modelled exactly".into(),
                });
                return Vec::new();
            }
            (_, Arrival::First) => 0,
            (_, Arrival::Iteration(k)) => k,
            (_, Arrival::Any) => return Vec::new(),
        };
        match &edge.kind {
            Edge::True => {
                // Item k exists, and binding it to the target raises nothing.
                let item = iteration.item(k);
                let binds = match &item {
                    Some(item) => store_raises(target, item, &env_of(env)),
                    None => Some(Vec::new()), // there is no item k: the edge is not taken
                };
                let Some(binds) = binds else {
                    let reason = format!("whether binding an item to {target} raises is not known");
                    self.not_modelled(n, &text, &reason, step);
                    return Vec::new();
                };
                let taken = (|| {
                    let raises = Term::or(binds.into_iter().map(|(_, c)| c).collect())?;
                    Term::and(vec![iteration.has_item(k)?, Term::not(raises)?])
                })();
                self.guarded(&iteration.fx, taken, n, &|| iter.to_string(), step);
                let mut defined = Vec::new();
                if let Some(item) = item {
                    self.bind(target, &item, (n, visit.copy), out, step, &mut defined);
                }
                defined
            }
            Edge::False => {
                let none_left = iteration.has_item(k).and_then(Term::not);
                self.guarded(&iteration.fx, none_left, n, &|| iter.to_string(), step);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// `case pattern:` for literal patterns: True when the subject equals the value.
    fn case(
        &self,
        c: &MatchCase,
        n: NodeIndex,
        edge: &EdgeInfo,
        env: &Names,
        out: &mut Names,
        step: &mut Step,
    ) {
        for name in c.defined_names() {
            out.remove(&name);
        }
        if !matches!(edge.kind, Edge::True | Edge::False) {
            return;
        }
        let value = match &c.pattern {
            Pattern::Value(v) if c.guard.is_none() => Some(v.clone()),
            Pattern::Singleton(k @ Constant::Bool(_)) if c.guard.is_none() => {
                Some(Expr::new(ExprKind::Constant(k.clone()), c.span))
            }
            _ => None,
        };
        let subject = self.subjects.get(&c.id);
        let (Some(value), Some(subject)) = (value, subject) else {
            step.dropped.push(Dropped {
                node: n,
                text: c.text.clone(),
                reason: "only literal patterns without a guard are translated".into(),
            });
            return;
        };
        let test = Expr::new(
            ExprKind::Compare {
                left: Box::new((*subject).clone()),
                ops: vec![crate::python::ir::CmpOp::Eq],
                comparators: vec![value],
            },
            c.span,
        );
        self.branch(&test, n, edge, env, step);
    }
}

/// The exception kinds we translate, by name.
fn kind_named(name: &str) -> Option<ExceptionKind> {
    [
        ExceptionKind::ZeroDivisionError,
        ExceptionKind::IndexError,
        ExceptionKind::ValueError,
        ExceptionKind::TypeError,
    ]
    .into_iter()
    .find(|k| k.name() == name)
}

/// "One of `names` is raised".
fn raised(fx: &Effects, names: &[String]) -> Result<Term, SortError> {
    let parts = names
        .iter()
        .filter_map(|n| kind_named(n))
        .map(|k| fx.kind(k))
        .collect::<Result<Vec<_>, _>>()?;
    Term::or(parts)
}

/// What a `for` loop iterates over (`range(...)` or a sequence, in the shared model of
/// [`Iterable`]), with the effects of evaluating it.
struct Iteration {
    /// The effects of evaluating the iterable, a zero `range` step included.
    fx: Effects,
    items: Iterable,
}

impl Iteration {
    fn of(iter: &Expr, env: &Env) -> Result<Iteration, String> {
        if let ExprKind::Call {
            func,
            args,
            keywords,
        } = &iter.kind
            && func.as_name() == Some("range")
            && keywords.is_empty()
            && (1..=3).contains(&args.len())
        {
            let mut fx = Effects {
                raises: Vec::new(),
                complete: true,
                partial: None,
            };
            let mut values = Vec::new();
            for a in args {
                let t = translate(a, env).map_err(|e| e.to_string())?;
                fx.then(&t);
                if !matches!(t.value.sort(), Sort::Int | Sort::Bool) {
                    return Err(format!("range() of a '{}'", t.value.sort()));
                }
                values.push(Term::to_int(t.value).map_err(|e| e.0)?);
            }
            let items = Iterable::range(&values).ok_or("range() with 1 to 3 arguments")?;
            let zero = items.zero_step().map_err(|e| e.0)?;
            if zero.bool_literal() != Some(false) {
                // Raised after the arguments are evaluated, when none of them raised.
                let earlier = fx.any().map_err(|e| e.0)?;
                let raised = Term::not(earlier)
                    .and_then(|none| Term::and(vec![none, zero]))
                    .map_err(|e| e.0)?;
                fx.raises.push((ExceptionKind::ValueError, raised));
            }
            return Ok(Iteration { fx, items });
        }
        if let Some((name, args)) = iterator_call(iter) {
            let all = Expr::new(ExprKind::Tuple(args.to_vec()), iter.span);
            let t = translate(&all, env).map_err(|e| e.to_string())?;
            let TermKind::Items(_, values) = t.value.kind() else {
                return Err(format!("the arguments of {name}()"));
            };
            let items = Iterable::builtin(name, values)
                .ok_or_else(|| format!("{name}()"))?
                .map_err(|e| e.0)?;
            return Ok(Iteration {
                fx: effects_of(&t),
                items,
            });
        }
        if let Some(keys) = crate::symbolic::seqmap_items(iter, env) {
            return Ok(Iteration {
                fx: Effects {
                    raises: Vec::new(),
                    complete: true,
                    partial: None,
                },
                items: Iterable::Seq(keys?),
            });
        }
        let t = translate(iter, env).map_err(|e| e.to_string())?;
        if !t.value.sort().is_sized() {
            return Err(format!("iterating over a '{}'", t.value.sort()));
        }
        Ok(Iteration {
            fx: effects_of(&t),
            items: Iterable::Seq(t.value),
        })
    }

    /// "There is an item number `k`" (numbered from 0).
    fn has_item(&self, k: u32) -> Result<Term, SortError> {
        self.items.has_item(u64::from(k))
    }

    /// Item number `k`.
    fn item(&self, k: u32) -> Option<Term> {
        self.items.item(u64::from(k)).ok().flatten()
    }
}
