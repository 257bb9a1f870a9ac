//! A dataflow analysis registered by a Rust cell, run by the kernel's engine: the engine
//! keeps the facts (sets of strings, joined by union or intersection) and asks the cell's
//! `transfer` for each node over the registration's connection.

use std::cell::RefCell;
use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::registry::{CallError, RustEntry};
use crate::cancel::Cancel;
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::engine::{Analysis, Direction, FixpointError, Options, iterate_to_fixpoint};
use crate::dataflow::report::{Report, Source};
use crate::dataflow::user::flow::{Facts, natural};
use crate::dataflow::user::intern;

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

    fn bottom_facts(&self) -> Facts {
        Facts {
            must: self.entry.must,
            set: if self.entry.must {
                None
            } else {
                Some(BTreeSet::new())
            },
        }
    }

    fn apply(&self, node: NodeIndex, state: &mut Facts) {
        let Some(facts) = &state.set else { return };
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
        if let Some(out) = self.call(fields) {
            state.set = Some(out.into_iter().collect());
        }
    }
}

impl Analysis for RustFlow<'_> {
    type Domain = Facts;
    const DIRECTION: Direction = Direction::Forward;

    fn bottom(&self) -> Facts {
        self.bottom_facts()
    }

    fn boundary(&self) -> Facts {
        Facts {
            must: self.entry.must,
            set: Some(self.boundary.clone()),
        }
    }

    fn transfer(&self, node: NodeIndex, state: &mut Facts) {
        self.apply(node, state)
    }
}

/// A backward Rust analysis (the engine's direction is a constant of the trait).
pub struct Backward<'p>(pub RustFlow<'p>);

impl Analysis for Backward<'_> {
    type Domain = Facts;
    const DIRECTION: Direction = Direction::Backward;

    fn bottom(&self) -> Facts {
        self.0.bottom_facts()
    }

    fn boundary(&self) -> Facts {
        self.0.boundary()
    }

    fn transfer(&self, node: NodeIndex, state: &mut Facts) {
        self.0.apply(node, state)
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
    let show = |f: &Facts| -> Vec<String> {
        let mut v: Vec<String> = f.set.clone().unwrap_or_default().into_iter().collect();
        v.sort_by(|a, b| natural(a, b));
        v
    };
    if entry.backward {
        let r = match iterate_to_fixpoint(&program.cfg, Backward(flow), &options) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(e) = r.analysis.0.error.borrow_mut().take() {
            return Err(e);
        }
        Ok(Ok(Report::new(
            name,
            source,
            program,
            &r,
            &r.node_states(),
            show,
        )))
    } else {
        let r = match iterate_to_fixpoint(&program.cfg, flow, &options) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(e) = r.analysis.error.borrow_mut().take() {
            return Err(e);
        }
        Ok(Ok(Report::new(
            name,
            source,
            program,
            &r,
            &r.node_states(),
            show,
        )))
    }
}
