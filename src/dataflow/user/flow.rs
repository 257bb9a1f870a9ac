//! A dataflow analysis written in a cell (`analysis.Analysis`) on the fixpoint engine: facts
//! are strs, a state is a set of them (`may`: joined by union; `must`: by intersection, with
//! "every fact" as the start of unvisited nodes), and a node's effect is the user's
//! `transfer(stmt, facts)` (by default `(facts - kill(stmt, facts)) | gen(stmt)`), given the
//! node as plain data: `{"node", "kind", "text", "line", "targets", "uses", "deletes",
//! "branch_targets", "locals", "exprs"}` (`locals`: the function's local variables as a tuple,
//! `None` for top-level code; `exprs`: the candidate expressions the node evaluates, as
//! available and very busy expressions see them, `{"text", "names"}` each). A must-analysis
//! may name every fact with `universe(function)` (`function["exprs"]`: every candidate of the
//! program); unvisited nodes then start from it, as the built-ins' do. Edges have effects as for the built-ins: the user's
//! `edge(stmt, kind, facts)` (by default, a `for` target or `case` pattern, `branch_targets`,
//! is bound on the "true" edge by `transfer(binding(stmt), facts)`); it is called only on
//! the edges that can have one (every edge when the class defines `edge`, else the "true"
//! edges of nodes with `branch_targets`).

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::UserError;
pub use super::served_flow::edge_kind;
use super::served_flow::{self, FactSource};
use crate::dataflow::analyses::expressions::Candidate;
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::engine::{Direction, Options};
use crate::dataflow::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::report::Source;
use crate::interp::RunError;
use crate::interp::host::{self, HostValue};

/// A set of facts; `None` is every fact (a must-analysis' unvisited state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    pub must: bool,
    pub set: Option<BTreeSet<String>>,
}

impl JoinSemiLattice for Facts {
    fn join(&mut self, other: &Self) -> bool {
        let new = match (&self.set, &other.set) {
            (None, None) => return false,
            (Some(a), Some(b)) if self.must => a.intersection(b).cloned().collect(),
            (Some(a), Some(b)) => a.union(b).cloned().collect(),
            (None, Some(b)) if self.must => b.clone(),
            (Some(_), None) if self.must => return false,
            _ => {
                let changed = self.set.is_some();
                self.set = None;
                return changed;
            }
        };
        let changed = self.set.as_ref() != Some(&new);
        self.set = Some(new);
        changed
    }
}

impl MeetSemiLattice for Facts {
    fn meet(&mut self, other: &Self) -> bool {
        let mut flipped = Facts {
            must: !self.must,
            set: self.set.clone(),
        };
        let changed = flipped.join(&Facts {
            must: !other.must,
            set: other.set.clone(),
        });
        self.set = flipped.set;
        changed
    }
}

impl Widening for Facts {}

/// The analysis on one program.
pub struct UserFlow<'p> {
    program: std::marker::PhantomData<&'p Program<'p>>,
    instance: HostValue,
    direction: Direction,
    must: bool,
    stmts: Vec<HostValue>,
    /// Per node: whether it binds names on its "true" edge.
    binds: Vec<bool>,
    /// Whether the class defines its own `edge`.
    edges: bool,
    boundary: BTreeSet<String>,
    /// `universe(function)`: every fact, when the class names them (a must-analysis'
    /// unvisited state); `None`: "every fact" stays symbolic.
    universe: Option<BTreeSet<String>>,
    pub error: RefCell<Option<UserError>>,
}

/// The order the built-ins list facts in: `NAME@REST` by the name as text, then the rest with
/// digit runs as numbers (`n@L9`, `n@L10`, `n1@L2`); other facts (expressions) as text.
pub fn natural(a: &str, b: &str) -> Ordering {
    if let (Some((va, ra)), Some((vb, rb))) = (a.split_once('@'), b.split_once('@')) {
        return va
            .cmp(vb)
            .then_with(|| digits_as_numbers(ra, rb))
            .then_with(|| a.cmp(b));
    }
    a.cmp(b)
}

/// `L9` before `L10`: digit runs compare as numbers.
fn digits_as_numbers(a: &str, b: &str) -> Ordering {
    let key = |s: &str| -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let mut text = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                let mut n = c.to_digit(10).map_or(0, u64::from);
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n.saturating_mul(10).saturating_add(u64::from(d));
                    chars.next();
                }
                out.push((std::mem::take(&mut text), n));
            } else {
                text.push(c);
            }
        }
        out.push((text, 0));
        out
    };
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

fn strs(v: &HostValue) -> Result<BTreeSet<String>, RunError> {
    host::items(v)?
        .iter()
        .map(|x| x.as_str().map_or_else(|| host::str_of(x), Ok))
        .collect()
}

/// A node's candidate expressions as `[{"text": "a + b", "names": ["a", "b"]}, …]`.
fn exprs_value(exprs: &[Candidate]) -> Result<HostValue, RunError> {
    let items = exprs
        .iter()
        .map(|c| {
            host::str_dict(vec![
                ("text", HostValue::str(&c.text)),
                ("names", strs_value(&c.names)?),
            ])
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HostValue::list(items))
}

/// The user's `universe(function)` with `function = {"exprs": [...], "locals": ...}` (every
/// distinct candidate expression of the program, first occurrence first), when the class
/// defines it and it returns a set.
fn universe_of(
    program: &Program<'_>,
    instance: &HostValue,
    locals: &HostValue,
) -> Result<Option<BTreeSet<String>>, RunError> {
    let overridden = host::module()
        .and_then(|m| {
            host::call_method(
                &m,
                "overrides",
                vec![instance.clone(), HostValue::str("universe")],
            )
        })
        .and_then(|v| host::truthy(&v))?;
    if !overridden {
        return Ok(None);
    }
    let mut all: Vec<Candidate> = Vec::new();
    for info in &program.nodes {
        for c in &info.exprs {
            if all.iter().all(|seen| seen.text != c.text) {
                all.push(c.clone());
            }
        }
    }
    let function = host::str_dict(vec![
        ("exprs", exprs_value(&all)?),
        ("locals", locals.clone()),
    ])?;
    let v = host::call_method(instance, "universe", vec![function])?;
    if v.is_none() {
        return Ok(None);
    }
    strs(&v).map(Some)
}

fn strs_value(items: &[String]) -> Result<HostValue, RunError> {
    Ok(HostValue::list(
        items.iter().map(|s| HostValue::str(s)).collect(),
    ))
}

impl<'p> UserFlow<'p> {
    /// The user's analysis (an instance of its class) on `program`.
    pub fn new(program: &'p Program<'p>, instance: HostValue) -> Result<Self, UserError> {
        let fail = |method: &str, error: RunError| UserError {
            error,
            method: method.to_string(),
            args: Vec::new(),
            node: None,
        };
        let direction = host::attr(&instance, "direction")
            .map_err(|e| fail("direction", e))?
            .as_str()
            .unwrap_or_default();
        let direction = match direction.as_str() {
            "forward" => Direction::Forward,
            "backward" => Direction::Backward,
            other => {
                return Err(fail(
                    "direction",
                    RunError::Crashed(format!(
                        "direction must be \"forward\" or \"backward\", not {other:?}"
                    )),
                ));
            }
        };
        let may = host::attr(&instance, "may")
            .and_then(|v| host::truthy(&v))
            .map_err(|e| fail("may", e))?;
        // One immutable tuple shared by every node; None for top-level code (every name is
        // global there, so an analysis of variables tracks them all).
        let locals = if program.is_function {
            HostValue::tuple(program.locals().iter().map(|v| HostValue::str(v)).collect())
        } else {
            HostValue::none()
        };
        let mut stmts = Vec::new();
        let mut binds = Vec::new();
        for n in program.cfg.nodes() {
            let node = program.cfg.node(n);
            let info = program.info(n);
            let text = node.label.lines().next().unwrap_or("").to_string();
            let d = host::str_dict(vec![
                ("node", HostValue::int(&n.index().into())),
                (
                    "kind",
                    HostValue::str(&format!("{:?}", node.kind).to_lowercase()),
                ),
                ("text", HostValue::str(&text)),
                ("line", HostValue::int(&program.line(n).into())),
                (
                    "targets",
                    strs_value(&info.defs).map_err(|e| fail("stmt", e))?,
                ),
                ("uses", strs_value(&info.uses).map_err(|e| fail("stmt", e))?),
                (
                    "deletes",
                    strs_value(&info.deletes).map_err(|e| fail("stmt", e))?,
                ),
                (
                    "branch_targets",
                    strs_value(&info.branch_defs).map_err(|e| fail("stmt", e))?,
                ),
                ("locals", locals.clone()),
                (
                    "exprs",
                    exprs_value(&info.exprs).map_err(|e| fail("stmt", e))?,
                ),
            ])
            .map_err(|e| fail("stmt", e))?;
            stmts.push(d);
            binds.push(!info.branch_defs.is_empty());
        }
        let edges = host::module()
            .and_then(|m| {
                host::call_method(
                    &m,
                    "overrides",
                    vec![instance.clone(), HostValue::str("edge")],
                )
            })
            .and_then(|v| host::truthy(&v))
            .map_err(|e| fail("edge", e))?;
        let boundary = host::call_method(&instance, "boundary", Vec::new())
            .and_then(|v| strs(&v))
            .map_err(|e| fail("boundary", e))?;
        let universe = universe_of(program, &instance, &locals).map_err(|e| fail("universe", e))?;
        Ok(UserFlow {
            program: std::marker::PhantomData,
            instance,
            direction,
            must: !may,
            stmts,
            binds,
            edges,
            boundary,
            universe,
            error: RefCell::new(None),
        })
    }

    /// `transfer(stmt, facts)` of `node`; `None` after an error.
    fn call_transfer(&self, node: NodeIndex, facts: &BTreeSet<String>) -> Option<BTreeSet<String>> {
        let stmt = self.stmts.get(node.index())?.clone();
        self.call(node, "transfer", vec![stmt], None, facts)
            .map(Option::unwrap_or_default)
    }

    /// `edge(stmt, kind, facts)` of an edge out of `node`: `Some(None)` leaves the facts.
    fn call_edge(
        &self,
        node: NodeIndex,
        kind: &'static str,
        facts: &BTreeSet<String>,
    ) -> Option<Option<BTreeSet<String>>> {
        let stmt = self.stmts.get(node.index())?.clone();
        self.call(
            node,
            "edge",
            vec![stmt, HostValue::str(kind)],
            Some(kind),
            facts,
        )
    }

    /// `instance.method(*lead, facts)` as a set of facts (`None` when it returned None);
    /// the first error is recorded with the node and the facts.
    fn call(
        &self,
        node: NodeIndex,
        method: &str,
        lead: Vec<HostValue>,
        kind: Option<&str>,
        facts: &BTreeSet<String>,
    ) -> Option<Option<BTreeSet<String>>> {
        if self.error.borrow().is_some() {
            return None;
        }
        let result = host::str_set(facts.iter().map(String::as_str))
            .and_then(|set| {
                let mut args = lead;
                args.push(set);
                host::call_method(&self.instance, method, args)
            })
            .and_then(|v| {
                if v.is_none() && kind.is_some() {
                    Ok(None)
                } else {
                    strs(&v).map(Some)
                }
            });
        match result {
            Ok(s) => Some(s),
            Err(error) => {
                let mut args = vec![format!("<node {}>", node.index())];
                if let Some(k) = kind {
                    args.push(format!("{k:?}"));
                }
                args.push(show_facts(facts));
                *self.error.borrow_mut() = Some(UserError {
                    error,
                    method: method.into(),
                    args,
                    node: Some(node.index()),
                });
                None
            }
        }
    }

    /// Whether the edge of `kind` out of `node` can change the facts (its `edge` is called).
    pub fn has_edge_effect(&self, node: NodeIndex, kind: &str) -> bool {
        self.edges || (kind == "true" && self.binds.get(node.index()).copied().unwrap_or(false))
    }

    /// The user's `transfer` at `node` (`None` after an error, kept in `error`).
    pub fn transfer_of(
        &self,
        node: NodeIndex,
        facts: &BTreeSet<String>,
    ) -> Option<BTreeSet<String>> {
        self.call_transfer(node, facts)
    }

    /// The user's `edge` out of `node` (`Some(None)`: the facts are left as they are).
    pub fn edge_of(
        &self,
        node: NodeIndex,
        kind: &'static str,
        facts: &BTreeSet<String>,
    ) -> Option<Option<BTreeSet<String>>> {
        self.call_edge(node, kind, facts)
    }

    /// The facts at the boundary (`boundary()`).
    pub fn boundary_facts(&self) -> &BTreeSet<String> {
        &self.boundary
    }
}

/// `{a@L2, b@L3}`, in natural order.
pub fn show_facts(facts: &BTreeSet<String>) -> String {
    let mut shown: Vec<&String> = facts.iter().collect();
    shown.sort_by(|a, b| natural(a, b));
    format!(
        "{{{}}}",
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

impl FactSource for UserFlow<'_> {
    type Error = UserError;

    fn must(&self) -> bool {
        self.must
    }

    fn direction(&self) -> Direction {
        self.direction
    }

    fn boundary_facts(&self) -> BTreeSet<String> {
        self.boundary.clone()
    }

    fn universe(&self) -> Option<BTreeSet<String>> {
        self.universe.clone()
    }

    fn transfer(&self, node: NodeIndex, facts: &BTreeSet<String>) -> Option<BTreeSet<String>> {
        self.call_transfer(node, facts)
    }

    fn edge(
        &self,
        node: NodeIndex,
        kind: &'static str,
        facts: &BTreeSet<String>,
    ) -> Option<BTreeSet<String>> {
        if !self.has_edge_effect(node, kind) {
            return None;
        }
        self.call_edge(node, kind, facts)?
    }

    fn take_error(&self) -> Option<UserError> {
        self.error.borrow_mut().take()
    }
}

/// Runs the user's analysis `name` on `program` (through [`served_flow::run`]).
pub fn run(
    name: &'static str,
    title: &'static str,
    legend: &'static str,
    program: &Program<'_>,
    instance: HostValue,
    options: &Options<'_>,
) -> Result<FactReport, super::Failure> {
    let flow = UserFlow::new(program, instance)
        .map_err(|error| super::Failure::User { error, step: None })?;
    let source = Source::Dataflow {
        title,
        legend,
        quantifier: if flow.must { "must" } else { "may" },
    };
    match served_flow::run(name, source, program, flow, options) {
        Ok(Ok(report)) => Ok(report),
        Ok(Err(e)) => Err(super::Failure::Fixpoint(e)),
        Err(error) => {
            let step = error.node.map(|n| super::describe_node(program, n));
            Err(super::Failure::User { error, step })
        }
    }
}
