//! Source positions and the error every front-end failure becomes.

use ruff_source_file::{LineIndex, OneIndexed};
use ruff_text_size::{TextRange, TextSize};
use serde::Serialize;

/// A region of a cell's source: 1-based lines, 1-based columns in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// What kind of front-end failure: the Jupyter `ename` of the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SourceErrorKind {
    SyntaxError,
    UnsupportedError,
    /// Past CPython's indentation limit (`depth`).
    IndentationError,
    /// An expression nested past the depth limit by operator chains (`depth`).
    RecursionError,
    /// An expression nested past the depth limit by prefix operators (`depth`).
    MemoryError,
}

impl SourceErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            SourceErrorKind::SyntaxError => "SyntaxError",
            SourceErrorKind::UnsupportedError => "UnsupportedError",
            SourceErrorKind::IndentationError => "IndentationError",
            SourceErrorKind::RecursionError => "RecursionError",
            SourceErrorKind::MemoryError => "MemoryError",
        }
    }
}

/// A syntax error or an unsupported construct, with where it is and the source line it is on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {line}, column {column})")]
pub struct SourceError {
    pub kind: SourceErrorKind,
    pub message: String,
    pub line: u32,
    pub column: u32,
    /// The text of line `line`, without its newline.
    pub source_line: String,
}

impl SourceError {
    /// The traceback lines Jupyter shows: the location, the source line, a caret under the column.
    pub fn traceback(&self) -> Vec<String> {
        let caret_pad: String = self
            .source_line
            .chars()
            .take(self.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        vec![
            format!("  Cell line {}, column {}", self.line, self.column),
            format!("    {}", self.source_line),
            format!("    {caret_pad}^"),
            format!("{}: {}", self.kind.name(), self.message),
        ]
    }
}

/// Converts byte offsets of one source text into lines and columns.
pub struct SourceMap<'src> {
    text: &'src str,
    index: LineIndex,
}

impl<'src> SourceMap<'src> {
    pub fn new(text: &'src str) -> Self {
        SourceMap {
            text,
            index: LineIndex::from_source_text(text),
        }
    }

    pub fn text(&self) -> &'src str {
        self.text
    }

    /// `offset`, or the start of the character it falls inside (and at most the text's end).
    pub fn floor_char_boundary(&self, offset: TextSize) -> TextSize {
        let at = self.text.floor_char_boundary(offset.to_usize());
        TextSize::try_from(at).unwrap_or_default()
    }

    /// 1-based (line, column) of a byte offset; columns count characters. An offset inside a
    /// character counts as that character's start.
    pub fn line_column(&self, offset: TextSize) -> (u32, u32) {
        let offset = self.floor_char_boundary(offset);
        let lc = self.index.line_column(offset, self.text);
        (lc.line.get() as u32, lc.column.get() as u32)
    }

    pub fn span(&self, range: TextRange) -> Span {
        let (line, column) = self.line_column(range.start());
        let (end_line, end_column) = self.line_column(range.end());
        Span {
            line,
            column,
            end_line,
            end_column,
        }
    }

    /// The text of a 1-based line, without its line terminator ("" past the end).
    pub fn line_text(&self, line: u32) -> &'src str {
        let Some(line) =
            OneIndexed::new(line as usize).filter(|l| l.get() <= self.index.line_count())
        else {
            return "";
        };
        let range = self.index.line_range(line, self.text);
        let text = self.slice(range);
        text.strip_suffix('\n')
            .map(|t| t.strip_suffix('\r').unwrap_or(t))
            .or_else(|| text.strip_suffix('\r'))
            .unwrap_or(text)
    }

    /// The text of `range`, its ends moved back to character boundaries.
    pub fn slice(&self, range: TextRange) -> &'src str {
        let start = self.floor_char_boundary(range.start()).to_usize();
        let end = self.floor_char_boundary(range.end()).to_usize();
        self.text.get(start..end).unwrap_or("")
    }

    /// An error of `kind` at the start of `range`.
    pub fn error(
        &self,
        kind: SourceErrorKind,
        message: impl Into<String>,
        range: TextRange,
    ) -> SourceError {
        let (line, column) = self.line_column(range.start());
        SourceError {
            kind,
            message: message.into(),
            line,
            column,
            source_line: self.line_text(line).to_string(),
        }
    }
}
