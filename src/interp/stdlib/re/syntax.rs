//! Python's regular-expression syntax (as CPython 3.11's `sre_parse` reads it) parsed into
//! a small tree, with CPython's `re.error` messages and positions, and emitted as the
//! syntax of the `regex-automata` crate.
//!
//! What the crate cannot do is refused by name (`Refused`): backreferences, lookaround,
//! atomic groups and possessive repeats, conditionals, the `LOCALE` flag. Where the two
//! syntaxes mean different things, the emitted text says what Python means: `$`
//! (see [`Dollar`]), `\Z`, `\w`/`\s`/`\d` (Unicode as `str.isalnum`/`isspace` define them,
//! or ASCII), classes (`[`, `&&`, `--`, `~~` are literal in Python), `{` that is not a
//! repeat, `VERBOSE` (whitespace inside a class is kept), escapes.

use std::fmt::Write;

pub(crate) const F_TEMPLATE: i64 = 1;
pub(crate) const F_IGNORECASE: i64 = 2;
pub(crate) const F_LOCALE: i64 = 4;
pub(crate) const F_MULTILINE: i64 = 8;
pub(crate) const F_DOTALL: i64 = 16;
pub(crate) const F_UNICODE: i64 = 32;
pub(crate) const F_VERBOSE: i64 = 64;
pub(crate) const F_DEBUG: i64 = 128;
pub(crate) const F_ASCII: i64 = 256;

/// Why a pattern does not compile.
#[derive(Debug)]
pub(crate) enum SyntaxError {
    /// `re.error` with CPython's message and position (in characters).
    Error(String, usize),
    /// A construct of Python's `re` the crate cannot run, named.
    Refused(String),
}

type P<T> = Result<T, SyntaxError>;

/// A perl class `\d \w \s` (and negations) as Python means it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Perl {
    Digit,
    Word,
    Space,
}

#[derive(Clone, Debug)]
enum ClassItem {
    Range(char, char),
    Perl(Perl, bool /* negated */, bool /* ascii */),
}

/// A node of a parsed pattern. Flags that change meaning are resolved at parse time.
#[derive(Clone, Debug)]
enum Node {
    Empty,
    Literal(char, bool /* ignore case */, bool /* ascii */),
    Any(bool /* dotall */),
    Class {
        items: Vec<ClassItem>,
        negated: bool,
        icase: bool,
        ascii: bool,
    },
    /// `^` (multiline or not).
    Caret(bool),
    /// `$` (multiline or not).
    Dollar(bool),
    StartText,
    EndText,
    WordBoundary(bool /* negated */, bool /* ascii */),
    Group(Option<usize>, Box<Node>),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        greedy: bool,
    },
}

/// A parsed pattern.
#[derive(Debug)]
pub(crate) struct Parsed {
    root: Node,
    /// Number of capturing groups.
    pub groups: usize,
    /// Group names and their numbers, in the order of definition.
    pub names: Vec<(String, usize)>,
    /// The flags, with the global inline flags and `UNICODE` (unless `ASCII`) added.
    pub flags: i64,
    /// The enclosing groups of each group (index 0 unused), innermost last.
    pub parents: Vec<Vec<usize>>,
    /// Whether the pattern has a `$` that is not `MULTILINE`.
    pub has_dollar: bool,
    /// Whether it may prefer an empty match where a non-empty one exists at the same
    /// position (a lazy repeat, or a non-last alternative that can match empty).
    pub prefers_empty: bool,
}

/// How `$` (not `MULTILINE`: end of string or before a final newline) is emitted for one
/// haystack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dollar {
    /// The haystack does not end with `\n`: `$` is `\z`.
    End,
    /// Its only `\n` is the last character: `$` is the crate's multi-line `$`.
    OneNewline,
    /// It ends with `\n` and has others: a `$` at the end of the pattern becomes a hidden
    /// group consuming the final `\n` (the match is trimmed back); any other is refused.
    Group,
}

/// The emitted pattern for one haystack shape.
pub(crate) struct Emitted {
    pub text: String,
    /// The crate's group index of each Python group (index 0 is the whole match).
    pub map: Vec<usize>,
    /// The crate's indices of the hidden `$` groups.
    pub dollar_groups: Vec<usize>,
}

const WHITESPACE: &[char] = &[' ', '\t', '\n', '\r', '\x0b', '\x0c'];

struct Parser<'a> {
    chars: Vec<char>,
    i: usize,
    flags: i64,
    groups: usize,
    names: Vec<(String, usize)>,
    parents: Vec<Vec<usize>>,
    open: Vec<usize>,
    has_dollar: bool,
    prefers_empty: bool,
    _src: &'a str,
}

/// Parses `pattern` with `flags` (the `re` module's integer flags).
pub(crate) fn parse(pattern: &str, flags: i64) -> P<Parsed> {
    if flags & F_LOCALE != 0 {
        return Err(SyntaxError::Refused(
            "re.LOCALE (CPython: cannot use LOCALE flag with a str pattern)".into(),
        ));
    }
    let mut p = Parser {
        chars: pattern.chars().collect(),
        i: 0,
        flags,
        groups: 0,
        names: Vec::new(),
        parents: vec![Vec::new()],
        open: Vec::new(),
        has_dollar: false,
        prefers_empty: false,
        _src: pattern,
    };
    p.global_flags()?;
    if p.flags & F_ASCII != 0 && p.flags & F_UNICODE != 0 {
        return Err(SyntaxError::Error(
            "ASCII and UNICODE flags are incompatible".into(),
            0,
        ));
    }
    let root = p.alternation()?;
    if p.i < p.chars.len() {
        // only a `)` stops the top level
        return Err(SyntaxError::Error("unbalanced parenthesis".into(), p.i));
    }
    let mut flags = p.flags;
    if flags & F_ASCII == 0 {
        flags |= F_UNICODE;
    }
    Ok(Parsed {
        root,
        groups: p.groups,
        names: p.names,
        flags,
        parents: p.parents,
        has_dollar: p.has_dollar,
        prefers_empty: p.prefers_empty,
    })
}

fn err<T>(msg: impl Into<String>, pos: usize) -> P<T> {
    Err(SyntaxError::Error(msg.into(), pos))
}

fn refuse<T>(what: &str) -> P<T> {
    Err(SyntaxError::Refused(format!(
        "re: {what} (the regex engine has no backtracking)"
    )))
}

fn flag_of(c: char) -> Option<i64> {
    Some(match c {
        'a' => F_ASCII,
        'i' => F_IGNORECASE,
        'L' => F_LOCALE,
        'm' => F_MULTILINE,
        's' => F_DOTALL,
        'u' => F_UNICODE,
        'x' => F_VERBOSE,
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn verbose(&self) -> bool {
        self.flags & F_VERBOSE != 0
    }

    fn ascii(&self) -> bool {
        self.flags & F_ASCII != 0
    }

    fn icase(&self) -> bool {
        self.flags & F_IGNORECASE != 0
    }

    /// `(?aimsux)` groups at the very start set flags for the whole pattern.
    fn global_flags(&mut self) -> P<()> {
        loop {
            if self.peek() != Some('(') || self.peek_at(1) != Some('?') {
                return Ok(());
            }
            let mut k = self.i + 2;
            let mut add = 0;
            while let Some(f) = self.chars.get(k).and_then(|c| flag_of(*c)) {
                add |= f;
                k += 1;
            }
            if k == self.i + 2 || self.chars.get(k) != Some(&')') {
                return Ok(());
            }
            if add & F_LOCALE != 0 {
                return Err(SyntaxError::Refused(
                    "re.LOCALE (CPython: bad inline flags: cannot use 'L' flag with a str pattern)"
                        .into(),
                ));
            }
            self.flags |= add;
            self.i = k + 1;
            self.skip_verbose();
        }
    }

    /// Skips whitespace and `#` comments in `VERBOSE` mode.
    fn skip_verbose(&mut self) {
        if !self.verbose() {
            return;
        }
        while let Some(c) = self.peek() {
            if WHITESPACE.contains(&c) {
                self.i += 1;
            } else if c == '#' {
                while let Some(c) = self.peek() {
                    self.i += 1;
                    if c == '\n' {
                        break;
                    }
                }
            } else {
                break;
            }
        }
    }

    fn alternation(&mut self) -> P<Node> {
        let mut branches = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.i += 1;
            branches.push(self.sequence()?);
        }
        if branches.len() == 1 {
            return Ok(branches.pop().unwrap_or(Node::Empty));
        }
        if branches[..branches.len() - 1].iter().any(nullable) {
            self.prefers_empty = true;
        }
        Ok(Node::Alt(branches))
    }

    fn sequence(&mut self) -> P<Node> {
        let mut items: Vec<Node> = Vec::new();
        // whether the last item came from a repeat (for "multiple repeat")
        let mut last_repeat = false;
        loop {
            self.skip_verbose();
            let Some(c) = self.peek() else { break };
            if c == '|' || c == ')' {
                break;
            }
            let start = self.i;
            if matches!(c, '*' | '+' | '?') || (c == '{' && self.repeat_braces().is_some()) {
                let (min, max) = if c == '{' {
                    let (min, max, end) = self.repeat_braces().unwrap_or((0, None, self.i + 1));
                    if let Some(m) = max {
                        if min > m {
                            return err("min repeat greater than max repeat", self.i + 1);
                        }
                    }
                    self.i = end;
                    (min, max)
                } else {
                    self.i += 1;
                    match c {
                        '*' => (0, None),
                        '+' => (1, None),
                        _ => (0, Some(1)),
                    }
                };
                let Some(item) = items.pop() else {
                    return err("nothing to repeat", start);
                };
                if matches!(
                    item,
                    Node::Caret(_)
                        | Node::Dollar(_)
                        | Node::StartText
                        | Node::EndText
                        | Node::WordBoundary(..)
                ) {
                    return err("nothing to repeat", start);
                }
                if last_repeat {
                    return err("multiple repeat", start);
                }
                let mut greedy = true;
                match self.peek() {
                    Some('?') => {
                        self.i += 1;
                        greedy = false;
                        if min == 0 {
                            self.prefers_empty = true;
                        }
                    }
                    Some('+') => return refuse("possessive repeat (*+, ++, ?+, {m,n}+)"),
                    _ => {}
                }
                items.push(Node::Repeat {
                    node: Box::new(item),
                    min,
                    max,
                    greedy,
                });
                last_repeat = true;
                continue;
            }
            last_repeat = false;
            match self.atom()? {
                Some(node) => items.push(node),
                None => {}
            }
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    /// `{m}`, `{m,}`, `{,n}`, `{m,n}`, `{,}` at the cursor: `(min, max, index after)`.
    fn repeat_braces(&self) -> Option<(u32, Option<u32>, usize)> {
        let mut k = self.i + 1;
        let digits = |k: &mut usize| {
            let s = *k;
            while self.chars.get(*k).is_some_and(|c| c.is_ascii_digit()) {
                *k += 1;
            }
            (s < *k).then(|| self.chars[s..*k].iter().collect::<String>())
        };
        let lo = digits(&mut k);
        let hi;
        if self.chars.get(k) == Some(&',') {
            k += 1;
            hi = digits(&mut k);
        } else {
            if lo.is_none() {
                return None;
            }
            hi = lo.clone();
        }
        if self.chars.get(k) != Some(&'}') {
            return None;
        }
        let min = match lo {
            Some(s) => s.parse().ok()?,
            None => 0,
        };
        let max = match hi {
            Some(s) => Some(s.parse().ok()?),
            None => None,
        };
        Some((min, max, k + 1))
    }

    /// One atom; `None` for things that produce nothing (comments).
    fn atom(&mut self) -> P<Option<Node>> {
        let start = self.i;
        let c = self.chars[self.i];
        self.i += 1;
        Ok(Some(match c {
            '.' => Node::Any(self.flags & F_DOTALL != 0),
            '^' => Node::Caret(self.flags & F_MULTILINE != 0),
            '$' => {
                let multi = self.flags & F_MULTILINE != 0;
                if !multi {
                    self.has_dollar = true;
                }
                Node::Dollar(multi)
            }
            '[' => self.class(start)?,
            '(' => return self.group(start),
            '\\' => self.escape(start, false)?,
            c => Node::Literal(c, self.icase(), self.ascii()),
        }))
    }

    fn group(&mut self, start: usize) -> P<Option<Node>> {
        let mut capture = true;
        let mut name = None;
        let saved_flags = self.flags;
        if self.peek() == Some('?') {
            self.i += 1;
            let Some(c) = self.peek() else {
                return err("unexpected end of pattern", self.i);
            };
            self.i += 1;
            match c {
                ':' => capture = false,
                'P' => match self.peek() {
                    Some('<') => {
                        self.i += 1;
                        let nstart = self.i;
                        let mut n = String::new();
                        loop {
                            match self.peek() {
                                None => return err("missing >, unterminated name", nstart),
                                Some('>') => {
                                    self.i += 1;
                                    break;
                                }
                                Some(ch) => {
                                    n.push(ch);
                                    self.i += 1;
                                }
                            }
                        }
                        if n.is_empty() {
                            return err("missing group name", nstart);
                        }
                        if !is_identifier(&n) {
                            return err(format!("bad character in group name '{n}'"), nstart);
                        }
                        name = Some((n, nstart));
                    }
                    Some('=') => return refuse("named backreference (?P=name)"),
                    Some(ch) => {
                        return err(format!("unknown extension ?P{ch}"), start + 1);
                    }
                    None => return err("unexpected end of pattern", self.i),
                },
                '#' => {
                    loop {
                        match self.peek() {
                            None => return err("missing ), unterminated comment", start),
                            Some(')') => {
                                self.i += 1;
                                break;
                            }
                            Some(_) => self.i += 1,
                        }
                    }
                    return Ok(None);
                }
                '=' => return refuse("lookahead assertion (?=...)"),
                '!' => return refuse("negative lookahead assertion (?!...)"),
                '<' => match self.peek() {
                    Some('=') => return refuse("lookbehind assertion (?<=...)"),
                    Some('!') => return refuse("negative lookbehind assertion (?<!...)"),
                    Some(ch) => return err(format!("unknown extension ?<{ch}"), start + 1),
                    None => return err("unexpected end of pattern", self.i),
                },
                '>' => return refuse("atomic group (?>...)"),
                '(' => return refuse("conditional group (?(id)yes|no)"),
                c if flag_of(c).is_some() || c == '-' => {
                    // scoped flags (?aimsx-imsx:...)
                    self.i -= 1;
                    let (add, del) = self.scoped_flags(start)?;
                    self.flags = (self.flags | add) & !del;
                    capture = false;
                }
                c => return err(format!("unknown extension ?{c}"), start + 1),
            }
        }
        let index = if capture {
            self.groups += 1;
            let g = self.groups;
            self.parents.push(self.open.clone());
            if let Some((n, pos)) = name {
                if let Some((_, was)) = self.names.iter().find(|(m, _)| *m == n) {
                    return err(
                        format!("redefinition of group name '{n}' as group {g}; was group {was}"),
                        pos,
                    );
                }
                self.names.push((n, g));
            }
            self.open.push(g);
            Some(g)
        } else {
            None
        };
        let inner = self.alternation()?;
        if self.peek() != Some(')') {
            return err("missing ), unterminated subpattern", start);
        }
        self.i += 1;
        if index.is_some() {
            self.open.pop();
        }
        self.flags = saved_flags;
        Ok(Some(Node::Group(index, Box::new(inner))))
    }

    /// The flags of `(?flags-flags:` at the cursor, up to and past the `:`.
    fn scoped_flags(&mut self, start: usize) -> P<(i64, i64)> {
        let mut add = 0;
        let mut del = 0;
        while let Some(f) = self.peek().and_then(flag_of) {
            if f == F_LOCALE {
                return refuse("re.LOCALE flag (?L)");
            }
            add |= f;
            self.i += 1;
        }
        if self.peek() == Some('-') {
            self.i += 1;
            while let Some(f) = self.peek().and_then(flag_of) {
                if matches!(f, F_ASCII | F_UNICODE | F_LOCALE) {
                    return err(
                        "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                        self.i,
                    );
                }
                del |= f;
                self.i += 1;
            }
            if del == 0 {
                return err("missing flag", self.i);
            }
        }
        match self.peek() {
            Some(':') => {
                self.i += 1;
                Ok((add, del))
            }
            Some(')') => err("global flags not at the start of the expression", start),
            Some(_) => err("missing :", self.i),
            None => err("missing -, : or )", self.i),
        }
    }

    /// An escape after `\` (at `start`), inside a class (`in_class`) or not.
    fn escape(&mut self, start: usize, in_class: bool) -> P<Node> {
        let Some(c) = self.peek() else {
            return err("bad escape (end of pattern)", start);
        };
        self.i += 1;
        let (icase, ascii) = (self.icase(), self.ascii());
        let lit = |ch: char| Node::Literal(ch, icase, ascii);
        let perl = |p: Perl, neg: bool| Node::Class {
            items: vec![ClassItem::Perl(p, neg, ascii)],
            negated: false,
            icase: false,
            ascii,
        };
        Ok(match c {
            'd' => perl(Perl::Digit, false),
            'D' => perl(Perl::Digit, true),
            'w' => perl(Perl::Word, false),
            'W' => perl(Perl::Word, true),
            's' => perl(Perl::Space, false),
            'S' => perl(Perl::Space, true),
            'b' if in_class => lit('\x08'),
            'b' => Node::WordBoundary(false, ascii),
            'B' if !in_class => Node::WordBoundary(true, ascii),
            'A' if !in_class => Node::StartText,
            'Z' if !in_class => Node::EndText,
            'n' => lit('\n'),
            't' => lit('\t'),
            'r' => lit('\r'),
            'f' => lit('\x0c'),
            'v' => lit('\x0b'),
            'a' => lit('\x07'),
            'x' => lit(self.hex_escape(start, 2)?),
            'u' => lit(self.hex_escape(start, 4)?),
            'U' => lit(self.hex_escape(start, 8)?),
            'N' => return refuse("named Unicode escape \\N{...} in a pattern"),
            '0' => lit(self.octal(0)),
            '1'..='9' if in_class => {
                // octal only (\1 in a class is an error in CPython unless octal)
                let d = c.to_digit(8);
                match d {
                    Some(d)
                        if self.peek().is_some_and(|c| c.is_digit(8))
                            && self.peek_at(1).is_some_and(|c| c.is_digit(8)) =>
                    {
                        lit(self.octal(d))
                    }
                    _ => return err(format!("bad escape \\{c}"), start),
                }
            }
            '1'..='9' => {
                // three octal digits make a character; otherwise a backreference
                let d = c.to_digit(8);
                if let Some(d) = d {
                    if self.peek().is_some_and(|c| c.is_digit(8))
                        && self.peek_at(1).is_some_and(|c| c.is_digit(8))
                    {
                        return Ok(lit(self.octal(d)));
                    }
                }
                return refuse("backreference \\N in a pattern");
            }
            c if c.is_ascii_alphanumeric() => return err(format!("bad escape \\{c}"), start),
            c => lit(c),
        })
    }

    /// Up to two more octal digits after the first digit `d`.
    fn octal(&mut self, mut v: u32) -> char {
        for _ in 0..2 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    v = v * 8 + d;
                    self.i += 1;
                }
                None => break,
            }
        }
        char::from_u32(v).unwrap_or('\u{FFFD}')
    }

    fn hex_escape(&mut self, start: usize, n: usize) -> P<char> {
        let digits: String = self.chars[self.i..].iter().take(n).collect();
        if digits.chars().count() < n || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            let kind = self.chars[self.i - 1];
            let shown: String = self.chars[start..(self.i + n).min(self.chars.len())]
                .iter()
                .take_while(|c| **c == '\\' || **c == kind || c.is_ascii_hexdigit())
                .collect();
            return err(format!("incomplete escape {shown}"), start);
        }
        self.i += n;
        let v = u32::from_str_radix(&digits, 16).unwrap_or(0);
        match char::from_u32(v) {
            Some(c) => Ok(c),
            None => {
                let shown: String = self.chars[start..self.i].iter().collect();
                err(format!("bad escape {shown}"), start)
            }
        }
    }

    fn class(&mut self, start: usize) -> P<Node> {
        let mut negated = false;
        if self.peek() == Some('^') {
            negated = true;
            self.i += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let here = self.i;
            let Some(c) = self.peek() else {
                return err("unterminated character set", start);
            };
            self.i += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '\\' {
                match self.escape(here, true)? {
                    Node::Literal(ch, ..) => ch,
                    Node::Class { items: mut it, .. } => {
                        items.append(&mut it);
                        continue;
                    }
                    _ => return err("bad escape", here),
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.i += 1;
                let hi_pos = self.i;
                let Some(h) = self.peek() else {
                    return err("unterminated character set", start);
                };
                self.i += 1;
                let hi = if h == '\\' {
                    match self.escape(hi_pos, true)? {
                        Node::Literal(ch, ..) => ch,
                        _ => {
                            let shown: String = self.chars[here..self.i].iter().collect();
                            return err(format!("bad character range {shown}"), here);
                        }
                    }
                } else {
                    h
                };
                if hi < lo {
                    let shown: String = self.chars[here..self.i].iter().collect();
                    return err(format!("bad character range {shown}"), here);
                }
                items.push(ClassItem::Range(lo, hi));
            } else {
                items.push(ClassItem::Range(lo, lo));
            }
        }
        Ok(Node::Class {
            items,
            negated,
            icase: self.icase(),
            ascii: self.ascii(),
        })
    }
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && cs.all(|c| c == '_' || c.is_alphanumeric())
}

/// Whether a node can match the empty string.
fn nullable(n: &Node) -> bool {
    match n {
        Node::Empty
        | Node::Caret(_)
        | Node::Dollar(_)
        | Node::StartText
        | Node::EndText
        | Node::WordBoundary(..) => true,
        Node::Literal(..) | Node::Any(_) | Node::Class { .. } => false,
        Node::Group(_, inner) => nullable(inner),
        Node::Concat(items) => items.iter().all(nullable),
        Node::Alt(items) => items.iter().any(nullable),
        Node::Repeat { node, min, .. } => *min == 0 || nullable(node),
    }
}

/// The crate's text for one literal character (escaped unless alphanumeric).
fn push_char(out: &mut String, c: char) {
    if c.is_alphanumeric() && !c.is_whitespace() {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    }
}

fn push_perl(out: &mut String, p: Perl, neg: bool, ascii: bool) {
    let body = match (p, ascii) {
        (Perl::Digit, false) => r"\p{Nd}",
        (Perl::Digit, true) => "0-9",
        (Perl::Word, false) => r"\p{L}\p{N}_",
        (Perl::Word, true) => "0-9A-Za-z_",
        (Perl::Space, false) => r"\s\x{1C}-\x{1F}",
        (Perl::Space, true) => r"\x{20}\x{9}-\x{D}",
    };
    if neg {
        let _ = write!(out, "[^{body}]");
    } else {
        out.push_str(body);
    }
}

struct Emitter {
    out: String,
    dollar: Dollar,
    full: bool,
    next_group: usize,
    map: Vec<usize>,
    dollar_groups: Vec<usize>,
}

impl Parsed {
    /// The crate's pattern for a haystack of shape `dollar`, for `fullmatch` (`full`) or not.
    pub(crate) fn emit(&self, dollar: Dollar, full: bool) -> P<Emitted> {
        let mut e = Emitter {
            out: String::new(),
            dollar,
            full,
            next_group: 1,
            map: vec![0; self.groups + 1],
            dollar_groups: Vec::new(),
        };
        if full {
            e.out.push_str("(?:");
        }
        e.node(&self.root, true)?;
        if full {
            e.out.push_str(r")\z");
        }
        Ok(Emitted {
            text: e.out,
            map: e.map,
            dollar_groups: e.dollar_groups,
        })
    }
}

impl Emitter {
    fn node(&mut self, n: &Node, trailing: bool) -> P<()> {
        match n {
            Node::Empty => {}
            Node::Literal(c, icase, ascii) => {
                if *icase && *ascii {
                    if c.is_ascii_alphabetic() {
                        let _ = write!(
                            self.out,
                            "[{}{}]",
                            c.to_ascii_lowercase(),
                            c.to_ascii_uppercase()
                        );
                    } else {
                        push_char(&mut self.out, *c);
                    }
                } else if *icase {
                    self.out.push_str("(?i:");
                    push_char(&mut self.out, *c);
                    self.out.push(')');
                } else {
                    push_char(&mut self.out, *c);
                }
            }
            Node::Any(dotall) => self.out.push_str(if *dotall { "(?s:.)" } else { "." }),
            Node::Class {
                items,
                negated,
                icase,
                ascii,
            } => {
                let unicode_icase = *icase && !*ascii;
                if unicode_icase {
                    self.out.push_str("(?i:");
                }
                self.out.push('[');
                if *negated {
                    self.out.push('^');
                }
                for item in items {
                    match item {
                        ClassItem::Range(lo, hi) => {
                            self.range(*lo, *hi);
                            if *icase && *ascii {
                                // ASCII case folding, by hand
                                for (a, b, d) in [('a', 'z', -32i32), ('A', 'Z', 32)] {
                                    let l = (*lo).max(a);
                                    let h = (*hi).min(b);
                                    if l <= h {
                                        let f = |c: char| {
                                            char::from_u32((c as i32 + d) as u32).unwrap_or(c)
                                        };
                                        self.range(f(l), f(h));
                                    }
                                }
                            }
                        }
                        ClassItem::Perl(p, neg, ascii) => {
                            push_perl(&mut self.out, *p, *neg, *ascii)
                        }
                    }
                }
                if items.is_empty() {
                    // CPython: `[]` cannot occur (']' first is literal); an empty class
                    // only arises from nothing, keep the crate valid
                    self.out.push_str(r"\x{0}&&\x{1}");
                }
                self.out.push(']');
                if unicode_icase {
                    self.out.push(')');
                }
            }
            Node::Caret(multi) => self.out.push_str(if *multi { "(?m:^)" } else { r"\A" }),
            Node::Dollar(true) => self.out.push_str("(?m:$)"),
            Node::Dollar(false) => match (self.dollar, trailing, self.full) {
                (Dollar::End, ..) => self.out.push_str(r"\z"),
                (Dollar::OneNewline, ..) => self.out.push_str("(?m:$)"),
                (Dollar::Group, true, true) => self.out.push_str(r"\z"),
                (Dollar::Group, true, false) => {
                    let g = self.next_group;
                    self.next_group += 1;
                    self.dollar_groups.push(g);
                    self.out.push_str(r"(?:\z|(\n)\z)");
                }
                (Dollar::Group, false, _) => {
                    return refuse(
                        "'$' before the end of the pattern, on a string with several newlines \
                         ending in a newline",
                    );
                }
            },
            Node::StartText => self.out.push_str(r"\A"),
            Node::EndText => self.out.push_str(r"\z"),
            Node::WordBoundary(neg, ascii) => self.out.push_str(match (neg, ascii) {
                (false, false) => r"\b",
                (true, false) => r"\B",
                (false, true) => r"(?-u:\b)",
                (true, true) => r"(?-u:\B)",
            }),
            Node::Group(index, inner) => {
                match index {
                    Some(i) => {
                        self.map[*i] = self.next_group;
                        self.next_group += 1;
                        self.out.push('(');
                    }
                    None => self.out.push_str("(?:"),
                }
                self.node(inner, trailing)?;
                self.out.push(')');
            }
            Node::Concat(items) => {
                let last = items.len().saturating_sub(1);
                for (k, item) in items.iter().enumerate() {
                    self.node(item, trailing && k == last)?;
                }
            }
            Node::Alt(branches) => {
                self.out.push_str("(?:");
                for (k, b) in branches.iter().enumerate() {
                    if k > 0 {
                        self.out.push('|');
                    }
                    self.node(b, trailing)?;
                }
                self.out.push(')');
            }
            Node::Repeat {
                node,
                min,
                max,
                greedy,
            } => {
                self.out.push_str("(?:");
                self.node(node, trailing && *max == Some(1))?;
                self.out.push(')');
                let _ = match max {
                    Some(m) => write!(self.out, "{{{min},{m}}}"),
                    None => write!(self.out, "{{{min},}}"),
                };
                if !*greedy {
                    self.out.push('?');
                }
            }
        }
        Ok(())
    }

    fn range(&mut self, lo: char, hi: char) {
        push_char(&mut self.out, lo);
        if hi != lo {
            self.out.push('-');
            push_char(&mut self.out, hi);
        }
    }
}

/// `re.escape(s)`: CPython 3.7+ escapes the ASCII characters special in patterns.
pub(crate) fn escape(s: &str) -> String {
    const SPECIAL: &str = "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c";
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn em(p: &str) -> String {
        parse(p, 0).unwrap().emit(Dollar::End, false).unwrap().text
    }

    #[test]
    fn translates_python_meanings() {
        assert_eq!(em("a{"), r"a\x{7B}");
        assert_eq!(em("[[&-]"), r"[\x{5B}\x{26}\x{2D}]");
        assert_eq!(em(r"a\Z"), r"a\z");
    }

    #[test]
    fn refuses_by_name() {
        for p in [
            r"(a)\1",
            "(?=a)",
            "(?<=a)b",
            "(?>a)",
            "a*+",
            "(?P<x>a)(?P=x)",
        ] {
            assert!(matches!(parse(p, 0), Err(SyntaxError::Refused(_))), "{p}");
        }
    }
}
