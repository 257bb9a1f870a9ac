//! Depth limits checked before ruff parses: one linear, non-recursive scan of the source for
//! bracket nesting, indentation levels and how deep an expression can nest, so that every
//! recursive pass over the AST (the parser, lowering, the CFG, the renderers, the interpreter's
//! compiler, the AST's `Drop`) stays within the engine thread's stack ([`STACK_SIZE`]).
//!
//! The errors are CPython's: `SyntaxError: too many nested parentheses` past 200 brackets,
//! `IndentationError: too many levels of indentation` at 100 levels, and for an expression
//! nested past [`MAX_EXPR_DEPTH`] levels `MemoryError` (prefix operators, `**`, `lambda`,
//! conditional expressions: CPython's parser stack) or `RecursionError: maximum recursion
//! depth exceeded during compilation` (operator chains, attributes, calls).
//!
//! The expression depth is bounded from above without parsing: within one bracket, the
//! operators since the last `,` (or the start of the logical line) each may add a level, and
//! every open bracket adds one. `and`, `or`, comparisons and `=` build flat nodes and do not
//! count.

use super::source::SourceErrorKind;

/// CPython's tokenizer limit on open brackets (`MAXLEVEL`).
pub const MAX_BRACKETS: usize = 200;
/// CPython's limit on indentation levels (`MAXINDENT`).
pub const MAX_INDENT: usize = 100;
/// The deepest expression accepted (CPython's default recursion limit).
pub const MAX_EXPR_DEPTH: usize = 1000;
/// The stack a thread needs to parse, analyse and drop any source this module accepts: the
/// engine thread's, and `is_complete`'s.
pub const STACK_SIZE: usize = 256 << 20;

/// A source that nests past a limit: what CPython would raise, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthError {
    pub kind: SourceErrorKind,
    pub message: String,
    /// Byte offset of the token that went past the limit (a char boundary).
    pub offset: usize,
}

/// Checks `source` against the depth limits.
pub fn check(source: &str) -> Result<(), DepthError> {
    let mut scanner = Scanner {
        s: source.as_bytes(),
        i: 0,
        levels: vec![0],
        total: 0,
        operand: false,
        indents: vec![0],
        line_start: true,
    };
    scanner.code(None)
}

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
    /// Per open bracket (the first entry is the logical line): operators counted since its
    /// last `,`.
    levels: Vec<usize>,
    /// The sum of `levels`.
    total: usize,
    /// Whether the last token ends an operand (so `-` is binary and `(` a call).
    operand: bool,
    /// Indentation widths of the open blocks, 0 first.
    indents: Vec<usize>,
    /// At the start of a logical line.
    line_start: bool,
}

const PREFIX_WORDS: [&str; 6] = ["not", "lambda", "await", "yield", "if", "else"];
const OPERAND_WORDS: [&str; 3] = ["True", "False", "None"];

impl Scanner<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.s.get(self.i + ahead).copied().unwrap_or(0)
    }

    fn error(&self, kind: SourceErrorKind, message: String) -> DepthError {
        let mut offset = self.i.min(self.s.len());
        // Bytes 0b10xx_xxxx continue a character.
        while offset > 0 && offset < self.s.len() && self.s[offset] & 0xC0 == 0x80 {
            offset -= 1;
        }
        DepthError {
            kind,
            message,
            offset,
        }
    }

    /// One operator that may add a level of nesting.
    fn op(&mut self, prefix: bool) -> Result<(), DepthError> {
        if let Some(last) = self.levels.last_mut() {
            *last += 1;
        }
        self.total += 1;
        self.within_limit(prefix)
    }

    /// Fails past [`MAX_EXPR_DEPTH`]; `prefix` if the last token was a prefix operator.
    fn within_limit(&self, prefix: bool) -> Result<(), DepthError> {
        if self.levels.len() + self.total > MAX_EXPR_DEPTH {
            return Err(if prefix {
                self.error(
                    SourceErrorKind::MemoryError,
                    format!("expression nested too deeply (the limit is {MAX_EXPR_DEPTH} levels)"),
                )
            } else {
                self.error(
                    SourceErrorKind::RecursionError,
                    "maximum recursion depth exceeded during compilation".into(),
                )
            });
        }
        Ok(())
    }

    fn open(&mut self) -> Result<(), DepthError> {
        if self.levels.len() > MAX_BRACKETS {
            return Err(self.error(
                SourceErrorKind::SyntaxError,
                "too many nested parentheses".into(),
            ));
        }
        self.levels.push(0);
        self.within_limit(false)
    }

    /// Closes a bracket, never one opened outside `floor` levels.
    fn close(&mut self, floor: usize) {
        if self.levels.len() > floor.max(1) {
            self.total -= self.levels.pop().unwrap_or(0);
        }
    }

    fn reset_segment(&mut self) {
        if let Some(last) = self.levels.last_mut() {
            self.total -= *last;
            *last = 0;
        }
    }

    /// Measures the indentation of a logical line that starts at `self.i`.
    fn indentation(&mut self) -> Result<(), DepthError> {
        let mut width = 0;
        let mut j = self.i;
        while let Some(&b) = self.s.get(j) {
            match b {
                b' ' => width += 1,
                b'\t' => width = (width / 8 + 1) * 8,
                b'\x0c' => width = 0,
                _ => break,
            }
            j += 1;
        }
        self.i = j;
        if matches!(self.peek(0), b'\n' | b'\r' | b'#' | b'\\' | 0) {
            return Ok(());
        }
        self.line_start = false;
        while self.indents.last().is_some_and(|&w| w > width) {
            self.indents.pop();
        }
        if self.indents.last().is_some_and(|&w| w < width) {
            self.indents.push(width);
            if self.indents.len() > MAX_INDENT {
                return Err(self.error(
                    SourceErrorKind::IndentationError,
                    "too many levels of indentation".into(),
                ));
            }
        }
        Ok(())
    }

    /// Scans code up to the end, or inside an f-string replacement field opened at `field`
    /// levels up to its `}`, `!` or top-level `:` (left unconsumed).
    fn code(&mut self, field: Option<usize>) -> Result<(), DepthError> {
        let floor = field.unwrap_or(1);
        while self.i < self.s.len() {
            if self.line_start && field.is_none() && self.levels.len() == 1 {
                self.indentation()?;
                if self.i >= self.s.len() {
                    break;
                }
            }
            let at_field_top = field.is_some_and(|f| self.levels.len() == f);
            let b = self.s[self.i];
            match b {
                b'\n' | b'\r' => {
                    self.i += 1;
                    if field.is_none() && self.levels.len() == 1 {
                        self.reset_segment();
                        self.line_start = true;
                        self.operand = false;
                    }
                }
                b' ' | b'\t' | b'\x0c' => self.i += 1,
                b'#' => {
                    while self.i < self.s.len() && !matches!(self.s[self.i], b'\n' | b'\r') {
                        self.i += 1;
                    }
                }
                b'\\' => {
                    self.i += 1;
                    if self.peek(0) == b'\r' {
                        self.i += 1;
                    }
                    if self.peek(0) == b'\n' {
                        self.i += 1;
                    }
                }
                b'}' | b'!' | b':' if at_field_top && !(b == b'!' && self.peek(1) == b'=') => {
                    return Ok(());
                }
                b'(' | b'[' | b'{' => {
                    if self.operand {
                        self.op(false)?;
                    }
                    self.i += 1;
                    self.open()?;
                    self.operand = false;
                }
                b')' | b']' | b'}' => {
                    self.i += 1;
                    self.close(floor);
                    self.operand = true;
                }
                b',' | b';' => {
                    self.i += 1;
                    self.reset_segment();
                    self.operand = false;
                }
                b'"' | b'\'' => {
                    self.string(false, false)?;
                    self.operand = true;
                }
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                b'.' => {
                    if self.peek(1) == b'.' && self.peek(2) == b'.' {
                        self.i += 3;
                        self.operand = true;
                    } else {
                        self.i += 1;
                        self.op(false)?;
                        self.operand = false;
                    }
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' | 0x80.. => self.word()?,
                _ => self.operator()?,
            }
        }
        Ok(())
    }

    fn number(&mut self) {
        while let Some(&b) = self.s.get(self.i) {
            let exponent_sign =
                matches!(b, b'+' | b'-') && matches!(self.s.get(self.i - 1), Some(b'e' | b'E'));
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || exponent_sign {
                self.i += 1;
            } else {
                break;
            }
        }
        self.operand = true;
    }

    fn word(&mut self) -> Result<(), DepthError> {
        let start = self.i;
        while let Some(&b) = self.s.get(self.i) {
            if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 {
                self.i += 1;
            } else {
                break;
            }
        }
        let word = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        if matches!(self.peek(0), b'"' | b'\'') && word.len() <= 2 {
            let lower = word.to_ascii_lowercase();
            if lower
                .chars()
                .all(|c| matches!(c, 'r' | 'b' | 'u' | 'f' | 't'))
            {
                self.string(
                    lower.contains('r'),
                    lower.contains('f') || lower.contains('t'),
                )?;
                self.operand = true;
                return Ok(());
            }
        }
        if word == "not" && self.operand {
            // `not in`
            self.operand = false;
        } else if PREFIX_WORDS.contains(&word) {
            self.op(true)?;
            self.operand = false;
        } else {
            self.operand = OPERAND_WORDS.contains(&word) || !is_keyword(word);
        }
        Ok(())
    }

    /// An operator of punctuation, or a byte Python does not use.
    fn operator(&mut self) -> Result<(), DepthError> {
        let b = self.s[self.i];
        let next = self.peek(1);
        let len =
            match (b, next) {
                (b'*', b'*') | (b'/', b'/') | (b'<', b'<') | (b'>', b'>') => {
                    if self.peek(2) == b'=' { 3 } else { 2 }
                }
                (_, b'=') | (b'-', b'>') => 2,
                _ => 1,
            };
        let text = &self.s[self.i..self.i + len];
        self.i += len;
        let counts = match text {
            b"**" => Some(true),
            b"-" | b"+" | b"~" | b"*" => Some(!self.operand),
            b"/" | b"//" | b"%" | b"@" | b"&" | b"|" | b"^" | b"<<" | b">>" => Some(false),
            _ => None,
        };
        if let Some(prefix) = counts {
            self.op(prefix)?;
        }
        self.operand = false;
        Ok(())
    }

    /// A string literal starting at its quote; an f-string's replacement fields are scanned as
    /// code, each one bracket deeper.
    fn string(&mut self, raw: bool, formatted: bool) -> Result<(), DepthError> {
        let quote = self.s[self.i];
        let triple = self.peek(1) == quote && self.peek(2) == quote;
        self.i += if triple { 3 } else { 1 };
        while self.i < self.s.len() {
            let b = self.s[self.i];
            if b == b'\\' {
                self.i += 2;
            } else if b == quote && (!triple || (self.peek(1) == quote && self.peek(2) == quote)) {
                self.i += if triple { 3 } else { 1 };
                return Ok(());
            } else if matches!(b, b'\n' | b'\r') && !triple {
                return Ok(());
            } else if formatted && b == b'{' {
                if self.peek(1) == b'{' {
                    self.i += 2;
                } else {
                    self.field()?;
                }
            } else {
                self.i += 1;
            }
        }
        let _ = raw;
        Ok(())
    }

    /// An f-string replacement field from its `{` to its `}`.
    fn field(&mut self) -> Result<(), DepthError> {
        self.i += 1;
        self.open()?;
        let level = self.levels.len();
        let operand = std::mem::replace(&mut self.operand, false);
        self.code(Some(level))?;
        // A conversion (`!r`) and a format spec, which may hold fields of its own.
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'}' => {
                    self.i += 1;
                    break;
                }
                b'{' => self.field()?,
                b'\n' | b'\r' | b'"' | b'\'' => break,
                _ => self.i += 1,
            }
        }
        self.close(1);
        self.operand = operand;
        Ok(())
    }
}

fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "and"
            | "as"
            | "assert"
            | "async"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "import"
            | "in"
            | "is"
            | "nonlocal"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(source: &str) -> Option<SourceErrorKind> {
        check(source).err().map(|e| e.kind)
    }

    #[test]
    fn limits_match_cpython() {
        use SourceErrorKind::*;
        let nest = |n: usize| format!("x = {}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(kind(&nest(200)), None);
        assert_eq!(kind(&nest(201)), Some(SyntaxError));
        assert_eq!(kind(&"(".repeat(10_000_000)), Some(SyntaxError));
        assert_eq!(kind(&format!("{}1", "-".repeat(8202))), Some(MemoryError));
        assert_eq!(
            kind(&format!("{}True", "not ".repeat(8202))),
            Some(MemoryError)
        );
        assert_eq!(
            kind(&format!("1{}", " + 1".repeat(8202))),
            Some(RecursionError)
        );
        assert_eq!(
            kind(&format!("{}b", "a.".repeat(8202))),
            Some(RecursionError)
        );
        assert_eq!(
            kind(&format!("f{}", "()".repeat(8202))),
            Some(RecursionError)
        );
        assert_eq!(kind(&format!("1{}", " + 1".repeat(900))), None);
        assert_eq!(kind(&format!("x = [{}]", "1, ".repeat(100_000))), None);
        assert_eq!(kind(&format!("x = 1 {}", "and 1 ".repeat(100_000))), None);
        let field = format!("f\"{{{}1{}}}\"", "(".repeat(300), ")".repeat(300));
        assert_eq!(kind(&field), Some(SyntaxError));
        let ifs = |n: usize| {
            let mut s = "def f(x):\n".to_string();
            for i in 0..n {
                s += &format!("{}if x:\n", "    ".repeat(i + 1));
            }
            s + &"    ".repeat(n + 1) + "pass\n"
        };
        assert_eq!(kind(&ifs(98)), None);
        assert_eq!(kind(&ifs(99)), Some(IndentationError));
    }

    #[test]
    fn strings_and_comments_hide_brackets() {
        let deep = "(".repeat(300);
        assert_eq!(
            kind(&format!("x = '{deep}'  # {deep}\ny = r'''\\'{deep}'''")),
            None
        );
        assert_eq!(kind(&format!("x = f'{{{{{deep}}}}}'")), None);
        assert_eq!(kind(&format!("x = '''\n{deep}\n'''\n")), None);
    }

    #[test]
    fn error_offsets_are_char_boundaries() {
        let src = format!("λ = {}1", "-λ".repeat(2000));
        let err = check(&src).unwrap_err();
        assert!(src.is_char_boundary(err.offset));
    }
}
