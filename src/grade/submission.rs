//! A submission's code cells: from a notebook (`.ipynb`, nbformat 4) or a Python file
//! (`.py`, split into cells at `# %%` lines, as editors do).

use serde_json::Value as Json;

/// Why a submission cannot be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SubmissionError {
    #[error("cannot read the submission: {0}")]
    Io(String),
    #[error("the notebook is not valid JSON: {0}")]
    NotJson(String),
    #[error("the notebook is not in nbformat 4: {0}")]
    NotNotebook(String),
}

/// The code cells of a notebook's text, in order (markdown and raw cells are skipped).
pub fn notebook_cells(text: &str) -> Result<Vec<String>, SubmissionError> {
    let nb: Json =
        serde_json::from_str(text).map_err(|e| SubmissionError::NotJson(e.to_string()))?;
    let cells = nb
        .get("cells")
        .and_then(Json::as_array)
        .ok_or_else(|| SubmissionError::NotNotebook("no \"cells\" list".into()))?;
    let mut code = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        if cell.get("cell_type").and_then(Json::as_str) != Some("code") {
            continue;
        }
        let source = match cell.get("source") {
            Some(Json::String(s)) => s.clone(),
            Some(Json::Array(lines)) => lines.iter().filter_map(Json::as_str).collect(),
            _ => {
                return Err(SubmissionError::NotNotebook(format!(
                    "cell {} has no source",
                    i + 1
                )));
            }
        };
        code.push(source);
    }
    Ok(code)
}

/// The cells of a Python file: split at lines starting with `# %%`, or one cell.
pub fn script_cells(text: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.starts_with("# %%") {
            cells.push(String::new());
        } else if let Some(last) = cells.last_mut() {
            last.push_str(line);
        }
    }
    cells.retain(|c| !c.trim().is_empty());
    cells
}

/// The cells of the submission at `path`, by its extension.
pub fn load(path: &std::path::Path) -> Result<Vec<String>, SubmissionError> {
    let text = std::fs::read(path).map_err(|e| SubmissionError::Io(e.to_string()))?;
    let text = String::from_utf8_lossy(&text);
    if path.extension().is_some_and(|e| e == "py") {
        Ok(script_cells(&text))
    } else {
        notebook_cells(&text)
    }
}

/// The submitted notebook's JSON, for its executed copy; `None` for a `.py` file or a file
/// that is not a JSON object.
pub fn original_notebook(path: &std::path::Path) -> Option<Json> {
    if path.extension().is_some_and(|e| e == "py") {
        return None;
    }
    let text = std::fs::read(path).ok()?;
    serde_json::from_slice::<Json>(&text)
        .ok()
        .filter(Json::is_object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_cells_of_a_notebook() {
        let nb = r##"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": ["def f(x):\n", "    return x\n"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": "%cfg f"}]}"##;
        assert_eq!(
            notebook_cells(nb).unwrap(),
            vec![
                "def f(x):\n    return x\n".to_string(),
                "%cfg f".to_string()
            ]
        );
    }

    #[test]
    fn broken_notebooks_are_named() {
        assert!(matches!(
            notebook_cells("{not json"),
            Err(SubmissionError::NotJson(_))
        ));
        assert_eq!(
            notebook_cells("{\"nbformat\": 4}"),
            Err(SubmissionError::NotNotebook("no \"cells\" list".into()))
        );
    }

    #[test]
    fn python_files_split_at_cell_markers() {
        assert_eq!(
            script_cells("x = 1\n# %% next\ny = 2\n# %%\n\n"),
            vec!["x = 1\n".to_string(), "y = 2\n".to_string()]
        );
        assert_eq!(script_cells("def f():\n    pass\n").len(), 1);
    }
}
