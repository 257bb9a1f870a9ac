//! Parsing a cell: syntax errors, completeness for the console, and summaries of what it defines.

use ruff_python_ast::{self as ast, ModModule, Stmt};
use ruff_python_parser::{
    LexicalErrorType, Mode, ParseErrorType, ParseOptions, Parsed, parse_module, parse_unchecked,
};
use ruff_text_size::{Ranged, TextRange, TextSize};
use serde::Serialize;

use super::depth;
use super::source::{SourceError, SourceErrorKind, SourceMap};

/// One parameter of a function, as written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamSummary {
    pub name: String,
    pub annotation: Option<String>,
    pub default: Option<String>,
    /// `""`, `"*"` or `"**"`.
    pub star: &'static str,
}

/// What a `def` in a cell defines: enough for `%who`, completion, inspection and lookup.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionSummary {
    /// `f`, or `Class.method` for methods.
    pub name: String,
    pub params: Vec<ParamSummary>,
    pub returns: Option<String>,
    pub docstring: Option<String>,
    /// First and last line in the cell (1-based, the `def` line first; decorators excluded).
    pub lines: (u32, u32),
    /// The definition's source text, dedented to column 0.
    pub source: String,
}

impl FunctionSummary {
    /// `name(a: int, b=1) -> bool`
    pub fn signature(&self) -> String {
        let params = self.signature_params();
        let short = self.name.rsplit('.').next().unwrap_or(&self.name);
        let mut sig = format!("{short}({})", params.join(", "));
        if let Some(r) = &self.returns {
            sig.push_str(" -> ");
            sig.push_str(r);
        }
        sig
    }

    /// The parameters as the signature shows them: `a: int`, `b=1`, `*args`.
    pub fn signature_params(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|p| {
                let mut s = format!("{}{}", p.star, p.name);
                if let Some(a) = &p.annotation {
                    s.push_str(": ");
                    s.push_str(a);
                }
                if let Some(d) = &p.default {
                    s.push_str(if p.annotation.is_some() { " = " } else { "=" });
                    s.push_str(d);
                }
                s
            })
            .collect()
    }
}

/// What a top-level `class` in a cell defines: enough for inspection (`C?`, `C??`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    pub name: String,
    pub docstring: Option<String>,
    /// First and last line in the cell (1-based, the `class` line first).
    pub lines: (u32, u32),
    /// The definition's source text, dedented to column 0.
    pub source: String,
}

/// A parsed cell: its source, its definitions and whether it has statements to run.
#[derive(Clone, Debug)]
pub struct ParsedCell {
    pub source: String,
    pub functions: Vec<FunctionSummary>,
    /// Top-level classes.
    pub classes: Vec<ClassSummary>,
    /// Number of top-level statements that are neither definitions nor docstrings.
    pub executable_statements: usize,
}

/// Parses a module within the depth limits (`depth`); the first error with its position.
pub(super) fn parse(map: &SourceMap<'_>) -> Result<Parsed<ModModule>, SourceError> {
    check_depth(map)?;
    parse_module(map.text()).map_err(|e| {
        map.error(
            SourceErrorKind::SyntaxError,
            e.error.to_string(),
            e.location,
        )
    })
}

/// The depth limits of `depth`, as a source error.
pub(super) fn check_depth(map: &SourceMap<'_>) -> Result<(), SourceError> {
    depth::check(map.text()).map_err(|e| {
        let at = TextSize::try_from(e.offset).unwrap_or_default();
        map.error(e.kind, e.message, TextRange::empty(at))
    })
}

/// Parses a cell of Python; the first syntax error is returned with its position.
pub fn parse_cell(source: &str) -> Result<ParsedCell, SourceError> {
    let map = SourceMap::new(source);
    let parsed = parse(&map)?;
    let module = parsed.syntax();
    let mut functions = Vec::new();
    let mut classes = Vec::new();
    let mut executable_statements = 0;
    for stmt in &module.body {
        match stmt {
            Stmt::FunctionDef(def) => functions.push(summarize(&map, def, None)),
            Stmt::ClassDef(class) => {
                let (lines, source) = definition_source(&map, &class.decorator_list, class.range);
                classes.push(ClassSummary {
                    name: class.name.to_string(),
                    docstring: docstring_of(&class.body),
                    lines,
                    source,
                });
                for inner in &class.body {
                    if let Stmt::FunctionDef(def) = inner {
                        functions.push(summarize(&map, def, Some(class.name.as_str())));
                    }
                }
            }
            Stmt::Expr(e) if e.value.is_string_literal_expr() => {}
            Stmt::Import(_) | Stmt::ImportFrom(_) => {}
            _ => executable_statements += 1,
        }
    }
    Ok(ParsedCell {
        source: source.to_string(),
        functions,
        classes,
        executable_statements,
    })
}

fn summarize(
    map: &SourceMap<'_>,
    def: &ast::StmtFunctionDef,
    class: Option<&str>,
) -> FunctionSummary {
    let text = |e: &ast::Expr| map.slice(e.range()).to_string();
    let mut params = Vec::new();
    let p = &def.parameters;
    for pd in p.posonlyargs.iter().chain(p.args.iter()) {
        params.push(ParamSummary {
            name: pd.parameter.name.to_string(),
            annotation: pd.parameter.annotation.as_deref().map(text),
            default: pd.default.as_deref().map(text),
            star: "",
        });
    }
    if let Some(v) = &p.vararg {
        params.push(ParamSummary {
            name: v.name.to_string(),
            annotation: v.annotation.as_deref().map(text),
            default: None,
            star: "*",
        });
    }
    for pd in &p.kwonlyargs {
        params.push(ParamSummary {
            name: pd.parameter.name.to_string(),
            annotation: pd.parameter.annotation.as_deref().map(text),
            default: pd.default.as_deref().map(text),
            star: "",
        });
    }
    if let Some(k) = &p.kwarg {
        params.push(ParamSummary {
            name: k.name.to_string(),
            annotation: k.annotation.as_deref().map(text),
            default: None,
            star: "**",
        });
    }
    let (lines, source) = definition_source(map, &def.decorator_list, def.range);
    FunctionSummary {
        name: match class {
            Some(c) => format!("{c}.{}", def.name),
            None => def.name.to_string(),
        },
        params,
        returns: def.returns.as_deref().map(text),
        docstring: docstring_of(&def.body),
        lines,
        source,
    }
}

/// The PEP 257-trimmed docstring of a body: its first statement when it is a string.
fn docstring_of(body: &[Stmt]) -> Option<String> {
    body.first().and_then(|s| match s {
        Stmt::Expr(e) => e
            .value
            .as_string_literal_expr()
            .map(|s| dedent_docstring(&s.value.to_str())),
        _ => None,
    })
}

/// The lines of a `def` or `class` (from its keyword, after the decorators) and its
/// source, dedented to column 0.
fn definition_source(
    map: &SourceMap<'_>,
    decorators: &[ast::Decorator],
    range: TextRange,
) -> ((u32, u32), String) {
    let start = decorators.last().map_or(range.start(), |d| {
        let after = d.range().end();
        let rest = &map.text()[after.to_usize()..];
        let skip = rest.find(|c: char| !c.is_whitespace()).unwrap_or(0);
        after + TextSize::try_from(skip).unwrap_or_default()
    });
    let (first, _) = map.line_column(start);
    let (last, _) = map.line_column(last_char(map, range));
    let source = dedent(
        &(first..=last)
            .map(|l| map.line_text(l))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    ((first, last), source)
}

/// The start of the last character of `range` (its start if empty).
fn last_char(map: &SourceMap<'_>, range: TextRange) -> TextSize {
    if range.is_empty() {
        range.start()
    } else {
        map.floor_char_boundary(range.end() - TextSize::from(1))
    }
}

/// Removes the common leading white space of all non-blank lines.
pub(crate) fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| {
            if l.len() >= indent {
                &l[indent..]
            } else {
                l.trim_start()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// PEP 257 trimming: first line as is, the rest dedented, blank edges removed.
pub(super) fn dedent_docstring(doc: &str) -> String {
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or("").trim().to_string();
    let rest = dedent(&lines.collect::<Vec<_>>().join("\n"));
    let joined = if rest.is_empty() {
        first
    } else {
        format!("{first}\n{rest}")
    };
    joined.trim_matches('\n').trim_end().to_string()
}

/// The answer to `is_complete_request`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Completeness {
    Complete,
    /// More input is needed; the indent for the next line.
    Incomplete(String),
    Invalid,
}

/// Decides whether a console could run `code` now, as IPython does: open brackets, open
/// strings and unfinished blocks are incomplete; an indented block is finished by a newline
/// after it. Code past the depth limits is invalid. Needs a stack of [`depth::STACK_SIZE`].
pub fn completeness(code: &str) -> Completeness {
    if depth::check(code).is_err() {
        return Completeness::Invalid;
    }
    let trimmed_len = code.trim_end().len();
    let last_line = code.trim_end().lines().last().unwrap_or("");
    let last_indent: String = last_line
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let block_opened = last_line.trim_end().ends_with(':');
    match parse_module(code) {
        Ok(_) => {
            let in_block = !last_indent.is_empty() || block_opened;
            if in_block && !code.ends_with('\n') && !code.trim().starts_with('%') {
                Completeness::Incomplete(if block_opened {
                    format!("{last_indent}    ")
                } else {
                    last_indent
                })
            } else {
                Completeness::Complete
            }
        }
        Err(_) => {
            let parsed = parse_unchecked(code, ParseOptions::from(Mode::Module));
            let open_string = parsed.errors().iter().any(|e| {
                matches!(
                    &e.error,
                    ParseErrorType::Lexical(
                        LexicalErrorType::UnclosedStringError | LexicalErrorType::Eof
                    )
                )
            });
            let all_at_end = parsed
                .errors()
                .iter()
                .all(|e| e.location.start().to_usize() >= trimmed_len);
            if code.trim_start().starts_with('%') {
                Completeness::Complete
            } else if open_string || all_at_end {
                Completeness::Incomplete(if block_opened {
                    format!("{last_indent}    ")
                } else {
                    last_indent
                })
            } else {
                Completeness::Invalid
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completeness_matches_ipython_kinds() {
        assert_eq!(completeness("1"), Completeness::Complete);
        assert_eq!(
            completeness("print('hello, world')"),
            Completeness::Complete
        );
        assert_eq!(
            completeness("def f(x):\n  return x*2\n\n\n"),
            Completeness::Complete
        );
        assert_eq!(
            completeness("print('''hello"),
            Completeness::Incomplete(String::new())
        );
        assert_eq!(
            completeness("def f(x):\n  x*2"),
            Completeness::Incomplete("  ".into())
        );
        assert_eq!(
            completeness("def f(x):"),
            Completeness::Incomplete("    ".into())
        );
        assert_eq!(
            completeness("x = (1,"),
            Completeness::Incomplete(String::new())
        );
        assert_eq!(completeness("import = 7q"), Completeness::Invalid);
        assert_eq!(completeness("%cfg f"), Completeness::Complete);
        assert_eq!(
            completeness("def f(x: int) -> int:\n    return x\n"),
            Completeness::Complete
        );
        assert_eq!(completeness(&"(".repeat(10_000)), Completeness::Invalid);
    }

    #[test]
    fn syntax_error_has_line_column_and_caret() {
        let err = parse_cell("x = 1\ny = = 2\n").unwrap_err();
        assert_eq!(err.kind, SourceErrorKind::SyntaxError);
        assert_eq!((err.line, err.column), (2, 5));
        assert_eq!(err.source_line, "y = = 2");
        let tb = err.traceback();
        assert_eq!(tb[2], "        ^");
    }

    #[test]
    fn summaries_of_functions_and_methods() {
        let cell = parse_cell(
            "class C:\n    def m(self, k: int = 3) -> int:\n        '''Doc.\n\n        More.'''\n        return k\n\n@dec\ndef f(a, *rest, b: str, **kw):\n    pass\nx = f(1)\n",
        )
        .unwrap();
        let names: Vec<_> = cell.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["C.m", "f"]);
        assert_eq!(cell.functions[0].signature(), "m(self, k: int = 3) -> int");
        assert_eq!(
            cell.functions[0].docstring.as_deref(),
            Some("Doc.\n\nMore.")
        );
        assert_eq!(cell.functions[0].lines, (2, 6));
        assert!(cell.functions[0].source.starts_with("def m(self"));
        assert_eq!(cell.functions[1].signature(), "f(a, *rest, b: str, **kw)");
        assert_eq!(cell.functions[1].lines, (9, 10));
        assert_eq!(cell.executable_statements, 1);
        assert_eq!(
            cell.classes.iter().map(|c| &c.name).collect::<Vec<_>>(),
            ["C"]
        );
    }
}
