//! Running cells through the cell language in tests: a session, a cell, its outputs.

#![allow(dead_code)]

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{CellError, Output, Session};
use serde_json::{Map, Value};

/// Executes `code` in `session`; the result and every output, in order.
pub fn run(session: &mut Session, code: &str) -> (Result<(), CellError>, Vec<Output>) {
    session.run_cell(code, &Cancel::new())
}

/// The data of every display, in order.
pub fn displays(out: &[Output]) -> Vec<&Map<String, Value>> {
    out.iter()
        .filter_map(|o| match o {
            Output::Display(b) => Some(&b.data),
            _ => None,
        })
        .collect()
}

/// The last display's data.
pub fn display(out: &[Output]) -> &Map<String, Value> {
    displays(out).pop().expect("a display_data")
}

/// The JSON payload of kind `kind` (`application/vnd.analysis-kernel.KIND+json`) of the last
/// display that has one.
pub fn payload<'a>(out: &'a [Output], kind: &str) -> &'a Value {
    let mime = format!("application/vnd.analysis-kernel.{kind}+json");
    displays(out)
        .into_iter()
        .rev()
        .find_map(|d| d.get(&mime))
        .unwrap_or_else(|| panic!("no {mime} in {out:?}"))
}
