//! Headless grading of course assignments (`analysis-kernel grade`): submissions (`.ipynb`
//! or `.py`) run through the cell language in process, in the sandboxed interpreter, under the
//! spec's budgets, then the instructor's criteria (`spec`) are evaluated. Each submission is
//! graded in its own child process (`batch`), so a crash or runaway takes only itself down.
//! Outputs: Gradescope's `results.json`, CSV and JSON-lines summaries (`report`).

pub mod batch;
pub mod cli;
pub mod evaluate;
pub mod report;
pub mod spec;
pub mod submission;

pub use batch::{Shard, grade_all};
pub use evaluate::{CriterionResult, SubmissionReport, grade_cells};
pub use spec::{Spec, SpecError};

/// Grades the submission at `path` in this process (what `grade --one` does), with one
/// thread watching every Z3 check of the submission (not one per check).
pub fn grade_file(spec: &Spec, path: &std::path::Path) -> SubmissionReport {
    let name = path.display().to_string();
    match submission::load(path) {
        Ok(cells) => crate::symbolic::solver::with_watcher(|| grade_cells(spec, &name, &cells)),
        Err(e) => SubmissionReport::failed(&name, spec, &format!("not graded: {e}"), 0.0),
    }
}
