//! What a cell produces: streams, MIME bundles, files to save, and errors.

use serde_json::{Map, Value, json};

use super::invocation::Invocation;
use crate::python::SourceError;
use crate::render::graphviz::inline_svg;
use crate::render::html::escape;

/// A MIME bundle: `data` keyed by MIME type, with its `metadata`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bundle {
    pub data: Map<String, Value>,
    pub metadata: Map<String, Value>,
}

impl Bundle {
    pub fn text(text: impl Into<String>) -> Bundle {
        let mut b = Bundle::default();
        b.data
            .insert("text/plain".into(), Value::String(text.into()));
        b
    }

    pub fn with(mut self, mime: &str, value: Value) -> Bundle {
        self.data.insert(mime.to_string(), value);
        self
    }

    pub fn plain_text(&self) -> Option<&str> {
        self.data.get("text/plain").and_then(Value::as_str)
    }
}

/// One output of a cell, in the order produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Stdout(String),
    Stderr(String),
    /// A `display_data`.
    Display(Bundle),
    /// The `execute_result` of a cell ending in an expression.
    Result(Bundle),
    /// A file saved by `--save`, as a sink that keeps outputs records it (the kernel writes
    /// files through [`OutputSink::save`]).
    File {
        path: String,
        contents: Vec<u8>,
    },
    /// A `display_data` that later outputs may replace (`transient.display_id`).
    DisplayId {
        id: String,
        bundle: Bundle,
    },
    /// `update_display_data`: replaces what the output shown under `id` shows.
    Update {
        id: String,
        bundle: Bundle,
    },
    /// `clear_output`: clears the cell's outputs (with `wait`, when the next one arrives).
    Clear {
        wait: bool,
    },
}

/// Where a running cell sends its outputs.
pub trait OutputSink {
    fn emit(&mut self, output: Output);
    /// Writes a `--save` file; a failed write fails the cell.
    fn save(&mut self, file: SaveFile) -> Result<(), CellError>;
    /// A `%` command labelled `label` starts: a sink may show progress while it runs (the
    /// kernel does after a second, `kernel::progress`). Calls may nest; only the outermost counts.
    fn command_started(&mut self, _label: &str) {}
    /// The command started last has finished (`ok`: without an error).
    fn command_finished(&mut self, _ok: bool) {}
}

impl OutputSink for Vec<Output> {
    fn emit(&mut self, output: Output) {
        self.push(output);
    }

    fn save(&mut self, file: SaveFile) -> Result<(), CellError> {
        self.push(Output::File {
            path: file.path.to_string(),
            contents: file.contents,
        });
        Ok(())
    }
}

/// Extensions `--save` knows, and what each writes.
const SAVE_EXTENSIONS: &[&str] = &[
    "svg", "html", "htm", "dot", "gv", "json", "txt", "text", "py",
];

/// A `--save` target: a relative path with no `..`, resolved by the kernel inside the
/// notebook's folder (its working directory). Checked when the command line is parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavePath {
    /// The path's parts, without empty and `.` parts; the last is the file name.
    parts: Vec<String>,
}

impl SavePath {
    /// Checks `path` as typed; the error says what is wrong with it.
    pub fn parse(path: &str) -> Result<SavePath, String> {
        if path.is_empty() {
            return Err("needs a file name".into());
        }
        if path.contains('\0') {
            return Err("a file name cannot contain a NUL character".into());
        }
        if path.starts_with('/') {
            return Err(
                "absolute paths are not allowed; give a path relative to the notebook's folder"
                    .into(),
            );
        }
        let parts: Vec<String> = path
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .map(str::to_string)
            .collect();
        if parts.iter().any(|p| p == "..") {
            return Err("`..` is not allowed: files are saved inside the notebook's folder".into());
        }
        if parts.is_empty() || path.ends_with('/') {
            return Err("names a folder, not a file".into());
        }
        let saved = SavePath { parts };
        if !SAVE_EXTENSIONS.contains(&saved.extension().as_str()) {
            return Err(format!(
                "unknown extension {:?}; use .svg, .html, .dot, .json or .txt",
                saved.extension()
            ));
        }
        Ok(saved)
    }

    /// The folders leading to the file, relative to the notebook's folder.
    pub fn folders(&self) -> &[String] {
        &self.parts[..self.parts.len() - 1]
    }

    pub fn file_name(&self) -> &str {
        &self.parts[self.parts.len() - 1]
    }

    /// The file name's extension, in lower case ("" if none).
    pub fn extension(&self) -> String {
        self.file_name()
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default()
    }
}

impl std::fmt::Display for SavePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.parts.join("/"))
    }
}

/// A file for the kernel to write: where, what, and whether an existing file may be replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveFile {
    pub path: SavePath,
    pub contents: Vec<u8>,
    /// `--force`: replace an existing file (never through a symbolic link).
    pub overwrite: bool,
}

/// A cell's failure as Jupyter shows it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{ename}: {evalue}")]
pub struct CellError {
    pub ename: String,
    pub evalue: String,
    pub traceback: Vec<String>,
}

impl CellError {
    pub fn new(ename: impl Into<String>, evalue: impl Into<String>) -> CellError {
        let (ename, evalue) = (ename.into(), evalue.into());
        let traceback = vec![format!("{ename}: {evalue}")];
        CellError {
            ename,
            evalue,
            traceback,
        }
    }

    /// A misuse of a command.
    pub fn usage(evalue: impl Into<String>) -> CellError {
        CellError::new("UsageError", evalue)
    }

    pub fn interrupted() -> CellError {
        CellError::new("KeyboardInterrupt", "interrupted by the user")
    }

    /// Shifts the reported line by `offset` lines (for errors in a part of a cell).
    pub fn at_cell_line(mut self, line: u32, source_line: &str, column: u32) -> CellError {
        let pad: String = source_line
            .chars()
            .take(column.saturating_sub(1) as usize)
            .map(|_| ' ')
            .collect();
        self.traceback = vec![
            format!("  Cell line {line}, column {column}"),
            format!("    {source_line}"),
            format!("    {pad}^"),
            format!("{}: {}", self.ename, self.evalue),
        ];
        self
    }
}

impl From<SourceError> for CellError {
    fn from(e: SourceError) -> CellError {
        CellError {
            ename: e.kind.name().to_string(),
            evalue: format!("{} (line {}, column {})", e.message, e.line, e.column),
            traceback: e.traceback(),
        }
    }
}

/// A rendered view: the text, HTML, optional SVG figure and JSON payload of one command.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// The JSON payload's `kind` (`dot`, `cfg`, …), also naming its MIME type.
    pub kind: &'static str,
    pub text: String,
    /// HTML for everything but the figure (tables, legends); the figure is inlined before it.
    pub html: String,
    pub svg: Option<String>,
    pub dot: Option<String>,
    pub json: Value,
}

impl View {
    pub fn mime_type(kind: &str) -> String {
        format!("application/vnd.analysis-kernel.{kind}+json")
    }

    /// The complete HTML: the inline figure, then the rest.
    pub fn full_html(&self) -> String {
        let mut html = String::from("<div class=\"analysis-kernel-view\">");
        if let Some(svg) = &self.svg {
            html.push_str("<div class=\"analysis-kernel-figure\">");
            html.push_str(inline_svg(svg));
            html.push_str("</div>");
        }
        html.push_str(&self.html);
        html.push_str("</div>");
        html
    }

    pub fn bundle(&self) -> Bundle {
        let mut b = Bundle::text(self.text.clone())
            .with("text/html", Value::String(self.full_html()))
            .with(&View::mime_type(self.kind), self.json.clone());
        if let Some(svg) = &self.svg {
            b = b.with("image/svg+xml", Value::String(svg.clone()));
        }
        b
    }

    /// The file `--save PATH [--force]` asks for, if any, chosen by the path's extension.
    pub fn save_file(&self, inv: &Invocation) -> Result<Option<SaveFile>, CellError> {
        let Some(typed) = inv.option("--save") else {
            return Ok(None);
        };
        let path = SavePath::parse(typed)
            .map_err(|e| CellError::usage(format!("--save {typed:?}: {e}")))?;
        let contents = match path.extension().as_str() {
            "svg" => self.svg.clone().ok_or_else(|| {
                CellError::usage(format!(
                    "this {} view has no figure to save as SVG",
                    self.kind
                ))
            })?,
            "html" | "htm" => format!(
                "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head><body>\n{}\n</body></html>\n",
                escape(self.kind),
                self.full_html()
            ),
            "dot" | "gv" => self.dot.clone().ok_or_else(|| {
                CellError::usage(format!("this {} view has no DOT source", self.kind))
            })?,
            "json" => serde_json::to_string_pretty(&self.json).unwrap_or_default() + "\n",
            "py" => {
                return Err(CellError::usage(format!(
                    "this {} view has no Python to save as .py (%slice saves its slice, %concolic its pytest cases)",
                    self.kind
                )));
            }
            _ => self.text.clone() + "\n",
        };
        Ok(Some(SaveFile {
            path,
            contents: contents.into_bytes(),
            overwrite: inv.flag("--force"),
        }))
    }
}

/// `{"version": 1, "kind": kind, ...fields}`
pub fn payload(kind: &str, fields: Value) -> Value {
    let mut map = Map::new();
    map.insert("version".into(), json!(1));
    map.insert("kind".into(), json!(kind));
    if let Value::Object(f) = fields {
        map.extend(f);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_paths_stay_relative_and_known() {
        let p = SavePath::parse("./figs//cfg.SVG").unwrap();
        assert_eq!(
            (p.to_string(), p.extension()),
            ("figs/cfg.SVG".into(), "svg".into())
        );
        assert_eq!(p.folders(), ["figs"]);
        for (bad, why) in [
            ("", "needs a file name"),
            ("/etc/x.txt", "absolute"),
            ("../../../../etc/x.txt", "`..`"),
            ("a/../b.txt", "`..`"),
            ("figs/", "folder"),
            (".", "folder"),
            ("x.exe", "unknown extension"),
            ("noext", "unknown extension"),
            ("a\0.txt", "NUL"),
        ] {
            let err = SavePath::parse(bad).unwrap_err();
            assert!(err.contains(why), "{bad:?}: {err}");
        }
    }
}

/// Stopped work fails its cell as an interrupt; the session then names a spent time or memory
/// budget from the stop signal's reason (`Session::run_cell`). The one place a stop becomes
/// a cell's error.
impl From<crate::cancel::Stopped> for CellError {
    fn from(_: crate::cancel::Stopped) -> Self {
        CellError::interrupted()
    }
}
