//! A dataflow analysis registered by a Rust cell, run by the kernel's engine: the engine
//! keeps the facts (sets of strings, joined by union or intersection) and asks the cell's
//! `transfer` for each node over the registration's connection. The engine's side is
//! [`served_flow`], shared with analyses written in Python.

use std::cell::RefCell;
use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::registry::{CallError, RustEntry};
use crate::cancel::Cancel;
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::engine::{Direction, FixpointError, Options};
use crate::dataflow::report::Source;
use crate::dataflow::user::intern;
use crate::dataflow::user::served_flow::{self, FactSource};

/// The engine's view of a Rust analysis.
pub struct RustFlow<'p> {
    program: &'p Program<'p>,
    entry: &'p RustEntry,
    cancel: &'p Cancel,
    boundary: BTreeSet<String>,
    /// The first failure (later transfers keep their input).
    pub error: RefCell<Option<(String, CallError)>>,
}

impl RustFlow<'_> {
    fn call(&self, fields: Vec<String>) -> Option<Vec<String>> {
        if self.error.borrow().is_some() {
            return None;
        }
        let result = self
            .entry
            .conn
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .call(&fields, self.cancel);
        match result {
            Ok(r) => Some(r),
            Err(e) => {
                let op = fields
                    .iter()
                    .take(2)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" node ");
                *self.error.borrow_mut() = Some((op, e));
                None
            }
        }
    }

    /// `transfer` of `node` on `facts`, asked over the connection.
    fn apply(&self, node: NodeIndex, facts: &BTreeSet<String>) -> Option<BTreeSet<String>> {
        let n = self.program.cfg.node(node);
        let info = self.program.info(node);
        let mut fields = vec![
            "transfer".to_string(),
            node.index().to_string(),
            format!("{:?}", n.kind).to_lowercase(),
            self.program.line(node).to_string(),
            n.label.lines().next().unwrap_or("").to_string(),
            info.defs.join(","),
            info.uses.join(","),
            info.deletes.join(","),
        ];
        fields.extend(facts.iter().cloned());
        self.call(fields).map(|out| out.into_iter().collect())
    }
}

impl FactSource for RustFlow<'_> {
    type Error = Failed;

    fn must(&self) -> bool {
        self.entry.must
    }

    fn direction(&self) -> Direction {
        if self.entry.backward {
            Direction::Backward
        } else {
            Direction::Forward
        }
    }

    fn boundary_facts(&self) -> BTreeSet<String> {
        self.boundary.clone()
    }

    fn transfer(&self, node: NodeIndex, facts: &BTreeSet<String>) -> Option<BTreeSet<String>> {
        self.apply(node, facts)
    }

    fn take_error(&self) -> Option<Failed> {
        self.error.borrow_mut().take()
    }
}

type Failed = (String, CallError);

/// Runs the registered analysis `entry` on `program`.
pub fn run(
    entry: &RustEntry,
    program: &Program<'_>,
    trace: bool,
    cancel: &Cancel,
) -> Result<Result<FactReport, FixpointError>, Failed> {
    let mut flow = RustFlow {
        program,
        entry,
        cancel,
        boundary: BTreeSet::new(),
        error: RefCell::new(None),
    };
    flow.boundary = flow
        .call(vec!["boundary".into()])
        .map(|b| b.into_iter().collect())
        .unwrap_or_default();
    if let Some(e) = flow.error.borrow_mut().take() {
        return Err(e);
    }
    let options = Options {
        trace,
        cancel: Some(cancel),
        ..Options::default()
    };
    let name = intern(&entry.name);
    let title = intern(if entry.title.is_empty() {
        &entry.name
    } else {
        &entry.title
    });
    let source = Source::Dataflow {
        title,
        legend: intern(&entry.legend),
        quantifier: if entry.must { "must" } else { "may" },
    };
    served_flow::run(name, source, program, flow, &options)
}
