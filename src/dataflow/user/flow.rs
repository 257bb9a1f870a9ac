//! A dataflow analysis written in a cell (`analysis.Analysis`) on the fixpoint engine: facts
//! are strs, a state is a set of them (`may`: joined by union; `must`: by intersection, with
//! "every fact" as the start of unvisited nodes), and a node's effect is the user's
//! `transfer(stmt, facts)` (by default `(facts - kill(stmt, facts)) | gen(stmt)`), given the
//! node as plain data: `{"node", "kind", "text", "line", "targets", "uses", "deletes",
//! "branch_targets"}`. Unlike the built-ins, a user analysis has no edge effects: a `for`
//! target (`branch_targets`) is the user's to treat in the node's own transfer.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::UserError;
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::engine::{Analysis, Direction, Options, iterate_to_fixpoint};
use crate::dataflow::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::report::{Report, Source};
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
    boundary: BTreeSet<String>,
    pub error: RefCell<Option<UserError>>,
}

/// `x@L9` before `x@L10`: digit runs compare as numbers.
pub fn natural(a: &str, b: &str) -> Ordering {
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
        let mut stmts = Vec::new();
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
            ])
            .map_err(|e| fail("stmt", e))?;
            stmts.push(d);
        }
        let boundary = host::call_method(&instance, "boundary", Vec::new())
            .and_then(|v| strs(&v))
            .map_err(|e| fail("boundary", e))?;
        Ok(UserFlow {
            program: std::marker::PhantomData,
            instance,
            direction,
            must: !may,
            stmts,
            boundary,
            error: RefCell::new(None),
        })
    }

    fn call_transfer(&self, node: NodeIndex, facts: &BTreeSet<String>) -> Option<BTreeSet<String>> {
        if self.error.borrow().is_some() {
            return None;
        }
        let stmt = self.stmts.get(node.index())?.clone();
        let result = host::str_set(facts.iter().map(String::as_str))
            .and_then(|set| host::call_method(&self.instance, "transfer", vec![stmt, set]))
            .and_then(|v| strs(&v));
        match result {
            Ok(s) => Some(s),
            Err(error) => {
                let mut shown: Vec<&String> = facts.iter().collect();
                shown.sort_by(|a, b| natural(a, b));
                *self.error.borrow_mut() = Some(UserError {
                    error,
                    method: "transfer".into(),
                    args: vec![
                        format!("<node {}>", node.index()),
                        format!(
                            "{{{}}}",
                            shown
                                .iter()
                                .map(|s| s.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ],
                    node: Some(node.index()),
                });
                None
            }
        }
    }
}

impl Analysis for UserFlow<'_> {
    type Domain = Facts;
    const DIRECTION: Direction = Direction::Forward;

    fn bottom(&self) -> Facts {
        Facts {
            must: self.must,
            set: if self.must {
                None
            } else {
                Some(BTreeSet::new())
            },
        }
    }

    fn boundary(&self) -> Facts {
        Facts {
            must: self.must,
            set: Some(self.boundary.clone()),
        }
    }

    fn transfer(&self, node: NodeIndex, state: &mut Facts) {
        let Some(facts) = &state.set else { return };
        if let Some(new) = self.call_transfer(node, facts) {
            state.set = Some(new);
        }
    }
}

/// Runs the user's analysis `name` on `program`. The engine's direction is a constant of the
/// `Analysis` trait, so a backward analysis runs on [`Backward`].
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
    let must = flow.must;
    let source = Source::Dataflow {
        title,
        legend,
        quantifier: if must { "must" } else { "may" },
    };
    let show = |f: &Facts| -> Vec<String> {
        let mut v: Vec<String> = f.set.clone().unwrap_or_default().into_iter().collect();
        v.sort_by(|a, b| natural(a, b));
        v
    };
    let finish = |error: Option<UserError>| match error {
        Some(error) => {
            let step = error.node.map(|n| super::describe_node(program, n));
            Err(super::Failure::User { error, step })
        }
        None => Ok(()),
    };
    match flow.direction {
        Direction::Forward => {
            let r = iterate_to_fixpoint(&program.cfg, flow, options);
            let r = match r {
                Ok(r) => r,
                Err(e) => return Err(super::Failure::Fixpoint(e)),
            };
            finish(r.analysis.error.borrow_mut().take())?;
            Ok(Report::new(
                name,
                source,
                program,
                &r,
                &r.node_states(),
                show,
            ))
        }
        Direction::Backward => {
            let r = iterate_to_fixpoint(&program.cfg, Backward(flow), options);
            let r = match r {
                Ok(r) => r,
                Err(e) => return Err(super::Failure::Fixpoint(e)),
            };
            finish(r.analysis.0.error.borrow_mut().take())?;
            Ok(Report::new(
                name,
                source,
                program,
                &r,
                &r.node_states(),
                show,
            ))
        }
    }
}

/// A backward user analysis.
pub struct Backward<'p>(pub UserFlow<'p>);

impl Analysis for Backward<'_> {
    type Domain = Facts;
    const DIRECTION: Direction = Direction::Backward;

    fn bottom(&self) -> Facts {
        self.0.bottom()
    }

    fn boundary(&self) -> Facts {
        self.0.boundary()
    }

    fn transfer(&self, node: NodeIndex, state: &mut Facts) {
        self.0.transfer(node, state)
    }
}
