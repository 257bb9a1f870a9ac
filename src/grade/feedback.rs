//! The executed notebook a grading run writes per submission (`--out DIR`): the student's
//! cells with the outputs they gave under the grader, then one markdown cell per criterion
//! with its points and message. nbformat 4.5; a `.py` submission becomes code cells.
//! Streams are cut at [`STREAM_LIMIT`] bytes a cell, so a submission that prints megabytes
//! gives a notebook of a readable size.

use serde_json::{Map, Value as Json, json};

use super::evaluate::SubmissionReport;
use super::spec::Visibility;
use crate::notebook::{CellError, Output};

/// Bytes of stdout and stderr kept per cell.
pub const STREAM_LIMIT: usize = 64 * 1024;

/// What one of the submission's code cells gave: its outputs and error, or `None` when it
/// never ran (the submission's time ran out before it, or the grading process was lost).
pub type CellRun = Option<(Vec<Output>, Option<CellError>)>;

/// The executed notebook: `original` is the submitted notebook's JSON (`None` for a `.py`
/// file or an unreadable notebook), `cells` its code cells' sources in order, `runs` what
/// each gave (shorter than `cells` when the run stopped early).
pub fn executed_notebook(
    original: Option<&Json>,
    cells: &[String],
    runs: &[CellRun],
    report: &SubmissionReport,
) -> Json {
    let mut ids = Ids::default();
    let mut out = Vec::new();
    let mut code = 0usize;
    let mut code_cell = |ids: &mut Ids, id: Option<&Json>, metadata: Option<&Json>| {
        let i = code;
        code += 1;
        let source = cells.get(i).cloned().unwrap_or_default();
        let (outputs, count) = match runs.get(i) {
            Some(Some((outputs, error))) => {
                (nb_outputs(outputs, error.as_ref(), i + 1), json!(i + 1))
            }
            _ => (Vec::new(), Json::Null),
        };
        json!({
            "cell_type": "code",
            "id": ids.keep_or_make(id, "cell"),
            "metadata": object(metadata),
            "source": source,
            "outputs": outputs,
            "execution_count": count,
        })
    };
    let original_cells = original
        .and_then(|nb| nb.get("cells"))
        .and_then(Json::as_array);
    match original_cells {
        Some(list) => {
            for cell in list {
                match cell.get("cell_type").and_then(Json::as_str) {
                    Some("code") => {
                        out.push(code_cell(&mut ids, cell.get("id"), cell.get("metadata")))
                    }
                    Some(kind @ ("markdown" | "raw")) => {
                        let mut c = json!({
                            "cell_type": kind,
                            "id": ids.keep_or_make(cell.get("id"), "cell"),
                            "metadata": object(cell.get("metadata")),
                            "source": source_text(cell.get("source")),
                        });
                        if let Some(a) = cell.get("attachments").filter(|a| a.is_object()) {
                            c["attachments"] = a.clone();
                        }
                        out.push(c);
                    }
                    _ => {}
                }
            }
        }
        None => {
            for _ in cells {
                out.push(code_cell(&mut ids, None, None));
            }
        }
    }
    out.extend(feedback_cells(report, &mut ids));
    let mut metadata = object(original.and_then(|nb| nb.get("metadata")));
    if !metadata.contains_key("kernelspec") {
        metadata.insert(
            "kernelspec".into(),
            json!({"name": "analysis", "display_name": "Program Analysis (Python)", "language": "python"}),
        );
    }
    json!({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": out})
}

/// The feedback: a cell with the total and the submission-level message, then one per
/// criterion (its metadata names the criterion, score and visibility for tools; a `hidden`
/// criterion shows its points but not its message).
fn feedback_cells(r: &SubmissionReport, ids: &mut Ids) -> Vec<Json> {
    let max: f64 = r.criteria.iter().map(|c| c.max_score).sum();
    let mut head = format!("## Grade: {} / {max}\n", r.score());
    if let Some(why) = &r.failure {
        head.push_str(&format!("\n{why}\n"));
    }
    for (cell, error) in r.cell_errors.iter().take(10) {
        head.push_str(&format!("\n- code cell {cell} raised `{error}`"));
    }
    let mut cells = vec![json!({
        "cell_type": "markdown",
        "id": ids.make("feedback"),
        "metadata": {"analysis_kernel_grade": {"total": r.score(), "max_score": max}},
        "source": head,
    })];
    for c in &r.criteria {
        let mark = if c.passed { "passed" } else { "failed" };
        // A notebook is handed back: a `hidden` criterion's message stays in the summaries.
        let text = if c.visibility == Visibility::Hidden {
            "(the message of a hidden criterion is not shown)"
        } else {
            c.output.as_str()
        };
        let message = text
            .lines()
            .map(|l| format!("> {l}"))
            .collect::<Vec<_>>()
            .join("\n");
        cells.push(json!({
            "cell_type": "markdown",
            "id": ids.make("feedback"),
            "metadata": {"analysis_kernel_grade": {
                "criterion": c.name, "score": c.score, "max_score": c.max_score,
                "passed": c.passed, "visibility": c.visibility.name(),
            }},
            "source": format!("### {}: {} / {} ({mark})\n\n{message}\n", c.name, c.score, c.max_score),
        }));
    }
    cells
}

/// A cell's outputs with stdout and stderr cut to [`STREAM_LIMIT`] bytes together, and a
/// note on stderr of how much was cut (done as outputs are captured, so a cell's megabytes
/// are not kept).
pub fn trim(outputs: Vec<Output>) -> Vec<Output> {
    let mut kept = 0usize;
    let mut cut = 0usize;
    let mut out = Vec::with_capacity(outputs.len());
    for o in outputs {
        let (text, stdout) = match o {
            Output::Stdout(text) => (text, true),
            Output::Stderr(text) => (text, false),
            other => {
                out.push(other);
                continue;
            }
        };
        let part = prefix(&text, STREAM_LIMIT.saturating_sub(kept)).len();
        kept += part;
        cut += text.len() - part;
        if part == 0 {
            continue;
        }
        let text = if part == text.len() {
            text
        } else {
            text[..part].to_string()
        };
        out.push(if stdout {
            Output::Stdout(text)
        } else {
            Output::Stderr(text)
        });
    }
    if cut > 0 {
        out.push(Output::Stderr(format!(
            "[the grader cut {cut} more bytes of output from this cell]\n"
        )));
    }
    out
}

/// A cell's outputs in nbformat: neighbouring streams of one name merged, bundles as
/// `display_data` or `execute_result`, the error last.
fn nb_outputs(outputs: &[Output], error: Option<&CellError>, count: usize) -> Vec<Json> {
    let mut out: Vec<Json> = Vec::new();
    // Display ids and where their outputs are in `out`.
    let mut shown: Vec<(String, usize)> = Vec::new();
    for o in outputs {
        match o {
            Output::Stdout(text) | Output::Stderr(text) => {
                let name = if matches!(o, Output::Stdout(_)) {
                    "stdout"
                } else {
                    "stderr"
                };
                match out.last_mut() {
                    Some(last) if last["output_type"] == "stream" && last["name"] == name => {
                        let joined = format!("{}{text}", last["text"].as_str().unwrap_or(""));
                        last["text"] = Json::String(joined);
                    }
                    _ => out.push(json!({"output_type": "stream", "name": name, "text": text})),
                }
            }
            Output::Display(b) => out.push(json!({
                "output_type": "display_data", "data": b.data, "metadata": b.metadata,
            })),
            Output::Result(b) => out.push(json!({
                "output_type": "execute_result", "data": b.data, "metadata": b.metadata,
                "execution_count": count,
            })),
            Output::File { .. } => {}
            Output::DisplayId { id, bundle } => {
                shown.push((id.clone(), out.len()));
                out.push(json!({
                    "output_type": "display_data", "data": bundle.data, "metadata": bundle.metadata,
                }));
            }
            // As a front end does: every output shown under `id` now shows `bundle`.
            Output::Update { id, bundle } => {
                for (_, at) in shown.iter().filter(|(i, _)| i == id) {
                    if let Some(o) = out.get_mut(*at) {
                        o["data"] = json!(bundle.data);
                        o["metadata"] = json!(bundle.metadata);
                    }
                }
            }
            Output::Clear { .. } => {
                out.clear();
                shown.clear();
            }
        }
    }
    if let Some(e) = error {
        out.push(
            json!({"output_type": "error", "ename": e.ename, "evalue": e.evalue,
            "traceback": e.traceback}),
        );
    }
    out
}

/// The longest prefix of `text` of at most `bytes` bytes that ends on a character boundary.
fn prefix(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn object(v: Option<&Json>) -> Map<String, Json> {
    v.and_then(Json::as_object).cloned().unwrap_or_default()
}

fn source_text(v: Option<&Json>) -> String {
    match v {
        Some(Json::String(s)) => s.clone(),
        Some(Json::Array(lines)) => lines.iter().filter_map(Json::as_str).collect(),
        _ => String::new(),
    }
}

/// Cell ids, unique and as nbformat 4.5 wants them (1–64 of `[A-Za-z0-9_-]`).
#[derive(Default)]
struct Ids {
    seen: std::collections::HashSet<String>,
    next: usize,
}

impl Ids {
    fn keep_or_make(&mut self, id: Option<&Json>, prefix: &str) -> String {
        match id.and_then(Json::as_str) {
            Some(id)
                if (1..=64).contains(&id.len())
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                    && self.seen.insert(id.to_string()) =>
            {
                id.to_string()
            }
            _ => self.make(prefix),
        }
    }

    fn make(&mut self, prefix: &str) -> String {
        loop {
            self.next += 1;
            let id = format!("{prefix}-{}", self.next);
            if self.seen.insert(id.clone()) {
                return id;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::evaluate::CriterionResult;

    #[test]
    fn streams_are_cut_merged_and_followed_by_the_error() {
        let big = "é".repeat(STREAM_LIMIT);
        let outputs = trim(vec![
            Output::Stdout("a\n".into()),
            Output::Stdout(big.clone()),
            Output::Stderr("late\n".into()),
        ]);
        let error = CellError::new("ValueError", "bad");
        let nb = nb_outputs(&outputs, Some(&error), 3);
        assert_eq!(nb.len(), 3, "{nb:?}");
        assert_eq!(nb[0]["name"], "stdout");
        let text = nb[0]["text"].as_str().unwrap();
        assert!(text.starts_with("a\né") && text.len() <= STREAM_LIMIT);
        let cut = 2 + big.len() + 5 - text.len();
        assert_eq!(
            nb[1]["text"],
            format!("[the grader cut {cut} more bytes of output from this cell]\n")
        );
        assert_eq!(nb[2]["ename"], "ValueError");
    }

    #[test]
    fn notebook_keeps_markdown_and_appends_feedback() {
        let original = json!({"nbformat": 4, "nbformat_minor": 4, "metadata": {"x": 1},
            "cells": [
                {"cell_type": "markdown", "id": "same", "metadata": {}, "source": ["# T"]},
                {"cell_type": "code", "id": "same", "metadata": {}, "source": "old",
                 "outputs": [{"output_type": "stream", "name": "stdout", "text": "stale"}]},
                {"cell_type": "code", "metadata": {}, "source": "never ran", "outputs": []}]});
        let report = SubmissionReport {
            submission: "s.ipynb".into(),
            criteria: vec![
                CriterionResult {
                    name: "c".into(),
                    score: 0.0,
                    max_score: 2.0,
                    passed: false,
                    output: "no\nHint: h".into(),
                    visibility: Visibility::Visible,
                },
                CriterionResult {
                    name: "secret".into(),
                    score: 1.0,
                    max_score: 1.0,
                    passed: true,
                    output: "assert f(3) == 4 passed".into(),
                    visibility: Visibility::Hidden,
                },
            ],
            cell_errors: vec![],
            failure: None,
            seconds: 0.0,
        };
        let runs = vec![Some((vec![Output::Stdout("1\n".into())], None))];
        let cells = vec!["print(1)".to_string(), "never ran".to_string()];
        let nb = executed_notebook(Some(&original), &cells, &runs, &report);
        let c = nb["cells"].as_array().unwrap();
        assert_eq!(c.len(), 6);
        assert_eq!(c[0]["id"], "same");
        assert_ne!(c[1]["id"], "same");
        assert_eq!(c[1]["outputs"][0]["text"], "1\n");
        assert_eq!(c[1]["execution_count"], 1);
        assert_eq!(c[2]["execution_count"], Json::Null);
        assert_eq!(c[3]["source"], "## Grade: 1 / 3\n");
        assert_eq!(c[4]["source"], "### c: 0 / 2 (failed)\n\n> no\n> Hint: h\n");
        assert_eq!(
            c[5]["source"],
            "### secret: 1 / 1 (passed)\n\n> (the message of a hidden criterion is not shown)\n"
        );
        assert_eq!(nb["metadata"]["x"], 1);
        assert_eq!(nb["metadata"]["kernelspec"]["name"], "analysis");
    }
}
