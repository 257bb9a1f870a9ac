//! Headless grading of course assignments (`analysis-kernel grade`): submissions (`.ipynb`
//! or `.py`) run through the cell language in process, in the sandboxed interpreter, under the
//! spec's budgets, then the instructor's criteria (`spec`) are evaluated. Each submission is
//! graded in its own child process (`batch`), so a crash or runaway takes only itself down.
//! Outputs: Gradescope's `results.json`, CSV and JSON-lines summaries (`report`), and the
//! executed notebook with the feedback appended (`feedback`).

pub mod batch;
pub mod cli;
pub mod evaluate;
pub mod feedback;
pub mod report;
pub mod spec;
pub mod submission;

use std::path::Path;

pub use batch::{Shard, grade_all};
pub use evaluate::{CriterionResult, SubmissionReport, grade_cells, grade_cells_with_runs};
pub use spec::{Spec, SpecError};

/// Grades the submission at `path` in this process (what `grade --one` does), with one
/// thread watching every Z3 check of the submission (not one per check). With `notebook`,
/// the executed notebook with the feedback is written there; a failure to write it is added
/// to the report's `failure`.
pub fn grade_file(spec: &Spec, path: &Path, notebook: Option<&Path>) -> SubmissionReport {
    let name = path.display().to_string();
    let (mut report, cells, runs) = match submission::load(path) {
        Ok(cells) => {
            let (report, runs) = crate::symbolic::solver::with_watcher(|| {
                grade_cells_with_runs(spec, &name, &cells)
            });
            (report, cells, runs)
        }
        Err(e) => (
            SubmissionReport::failed(&name, spec, &format!("not graded: {e}"), 0.0),
            Vec::new(),
            Vec::new(),
        ),
    };
    if let Some(out) = notebook
        && let Err(e) = write_notebook(out, path, &cells, &runs, &report)
    {
        report.failure = Some(format!("the executed notebook was not written: {e}"));
    }
    report
}

/// Writes the executed notebook of the submission at `path` to `out`: `cells` and `runs` as
/// [`feedback::executed_notebook`] takes them.
pub fn write_notebook(
    out: &Path,
    path: &Path,
    cells: &[String],
    runs: &[feedback::CellRun],
    report: &SubmissionReport,
) -> Result<(), String> {
    let original = submission::original_notebook(path);
    let nb = feedback::executed_notebook(original.as_ref(), cells, runs, report);
    let text = serde_json::to_string_pretty(&nb).map_err(|e| e.to_string())? + "\n";
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
}

/// The executed notebook of a submission whose grading process gave no result (killed,
/// crashed): its cells without outputs, and the feedback.
pub fn write_unrun_notebook(
    out: &Path,
    path: &Path,
    report: &SubmissionReport,
) -> Result<(), String> {
    let cells = submission::load(path).unwrap_or_default();
    write_notebook(out, path, &cells, &[], report)
}
