//! What a cell produces: streams, MIME bundles, files to save, and errors.

use serde_json::{Map, Value, json};

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
    /// A file to write (for `--save`); the kernel does the writing.
    File {
        path: String,
        contents: Vec<u8>,
    },
}

/// Where a running cell sends its outputs.
pub trait OutputSink {
    fn emit(&mut self, output: Output);
}

impl OutputSink for Vec<Output> {
    fn emit(&mut self, output: Output) {
        self.push(output);
    }
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

    /// The file `--save PATH` writes, chosen by the path's extension.
    pub fn save_as(&self, path: &str) -> Result<Output, CellError> {
        let ext = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let contents = match ext.as_str() {
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
            "txt" | "text" => self.text.clone() + "\n",
            _ => {
                return Err(CellError::usage(format!(
                    "--save {path}: unknown extension {ext:?}; use .svg, .html, .dot, .json or .txt"
                )));
            }
        };
        Ok(Output::File {
            path: path.to_string(),
            contents: contents.into_bytes(),
        })
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
