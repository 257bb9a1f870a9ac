//! Compiled patterns and the search loops of `re`: one crate regex per haystack shape
//! (see [`Dollar`]) and per `fullmatch`, compiled on first use; CPython's rules for the
//! matches after an empty match; character positions for Python, byte offsets for the crate.

use std::cell::RefCell;
use std::rc::Rc;

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use super::syntax::{Dollar, Parsed, SyntaxError};
use crate::interp::budget;
use crate::interp::exc::{R, Unwind};

/// A compiled `re.Pattern`.
pub(crate) struct Pattern {
    pub source: String,
    pub parsed: Parsed,
    compiled: RefCell<Vec<(Dollar, bool, Rc<Compiled>)>>,
}

struct Compiled {
    re: Regex,
    map: Vec<usize>,
    dollar_groups: Vec<usize>,
}

/// Byte spans of the Python groups of one match (index 0: the whole match).
pub(crate) type Spans = Vec<Option<(usize, usize)>>;

/// A haystack: the string cut at `endpos`, with its character offsets.
pub(crate) struct Hay<'a> {
    pub text: &'a str,
    /// Byte offset of each character, then the length (empty for ASCII text).
    starts: Vec<usize>,
    dollar: Dollar,
}

impl<'a> Hay<'a> {
    /// `full` cut at character `endpos` (clamped).
    pub fn new(full: &'a str, endpos: Option<usize>, has_dollar: bool) -> Hay<'a> {
        let starts: Vec<usize> = if full.is_ascii() {
            Vec::new()
        } else {
            full.char_indices()
                .map(|(b, _)| b)
                .chain(std::iter::once(full.len()))
                .collect()
        };
        let mut hay = Hay {
            text: full,
            starts,
            dollar: Dollar::End,
        };
        if let Some(e) = endpos {
            let b = hay.to_byte(e);
            hay.text = &full[..b];
        }
        if has_dollar && hay.text.ends_with('\n') {
            hay.dollar = if hay.text.bytes().filter(|b| *b == b'\n').count() == 1 {
                Dollar::OneNewline
            } else {
                Dollar::Group
            };
        }
        hay
    }

    /// The length in characters.
    pub fn chars(&self) -> usize {
        self.to_char(self.text.len())
    }

    pub fn to_char(&self, b: usize) -> usize {
        if self.starts.is_empty() {
            b
        } else {
            self.starts.partition_point(|s| *s < b)
        }
    }

    /// The byte offset of character `c`, clamped to the haystack.
    pub fn to_byte(&self, c: usize) -> usize {
        let b = if self.starts.is_empty() {
            c
        } else {
            self.starts.get(c).copied().unwrap_or(usize::MAX)
        };
        b.min(self.text.len())
    }

    /// The byte offset of the character after the one at `b`.
    fn next_char(&self, b: usize) -> usize {
        self.text[b..]
            .chars()
            .next()
            .map_or(b + 1, |c| b + c.len_utf8())
    }
}

/// How a search is anchored.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Search,
    Match,
    Full,
}

fn syntax_unwind(e: SyntaxError) -> Unwind {
    match e {
        SyntaxError::Refused(what) => Unwind::unsupported(what),
        SyntaxError::Error(msg, pos) => super::re_error(&msg, Some(pos)),
    }
}

impl Pattern {
    pub fn new(source: &str, flags: i64) -> R<Pattern> {
        let parsed = super::syntax::parse(source, flags).map_err(syntax_unwind)?;
        let p = Pattern {
            source: source.to_string(),
            parsed,
            compiled: RefCell::new(Vec::new()),
        };
        // compile the common shape now so errors surface at `compile`
        p.compiled(Dollar::End, false)?;
        Ok(p)
    }

    fn compiled(&self, dollar: Dollar, full: bool) -> R<Rc<Compiled>> {
        if let Some((_, _, c)) = self
            .compiled
            .borrow()
            .iter()
            .find(|(d, f, _)| *d == dollar && *f == full)
        {
            return Ok(c.clone());
        }
        let emitted = self.parsed.emit(dollar, full).map_err(syntax_unwind)?;
        let re = Regex::builder()
            .configure(Regex::config().nfa_size_limit(Some(64 << 20)))
            .build(&emitted.text)
            .map_err(|e| {
                Unwind::unsupported(format!(
                    "re: pattern {:?} (the regex engine refused it: {e})",
                    self.source
                ))
            })?;
        let c = Rc::new(Compiled {
            re,
            map: emitted.map,
            dollar_groups: emitted.dollar_groups,
        });
        self.compiled.borrow_mut().push((dollar, full, c.clone()));
        Ok(c)
    }

    /// The first match at or after byte `start` (at `start` for `Match`/`Full`).
    pub fn find(&self, hay: &Hay, start: usize, mode: Mode) -> R<Option<Spans>> {
        if start > hay.text.len() {
            return Ok(None);
        }
        let c = self.compiled(hay.dollar, mode == Mode::Full)?;
        let mut input = Input::new(hay.text).span(start..hay.text.len());
        if mode != Mode::Search {
            input = input.anchored(Anchored::Yes);
        }
        let mut caps: Captures = c.re.create_captures();
        c.re.search_captures(&input, &mut caps);
        // the work is about the text scanned: up to the match's end, or all of it
        let scanned = caps.get_match().map_or(hay.text.len(), |m| m.end()) - start;
        budget::charge_items(scanned)?;
        if !caps.is_match() {
            return Ok(None);
        }
        let span = |g: usize| caps.get_group(g).map(|s| (s.start, s.end));
        let trim = c.dollar_groups.iter().any(|g| span(*g).is_some());
        let last = hay.text.len().saturating_sub(1);
        let spans = c
            .map
            .iter()
            .map(|g| {
                span(*g).map(|(s, e)| {
                    if trim {
                        (s.min(last), e.min(last))
                    } else {
                        (s, e)
                    }
                })
            })
            .collect();
        Ok(Some(spans))
    }

    /// Every match from byte `start` on, as `finditer`, `sub` and `split` see them (an
    /// empty match may not follow at the position where the previous match ended empty),
    /// at most `limit` of them (0: all). `each` returns false to stop.
    pub fn each_match(
        &self,
        hay: &Hay,
        start: usize,
        limit: usize,
        each: &mut dyn FnMut(Spans) -> R<bool>,
    ) -> R<()> {
        let mut pos = start;
        let mut must_advance = false;
        let mut n = 0;
        while (limit == 0 || n < limit) && pos <= hay.text.len() {
            budget::charge(1)?;
            let Some(spans) = self.find(hay, pos, Mode::Search)? else {
                break;
            };
            let (b, e) = spans[0].unwrap_or((pos, pos));
            if must_advance && b == e && b == pos {
                if self.parsed.prefers_empty {
                    return Err(Unwind::unsupported(
                        "re: a pattern that prefers an empty match (a lazy repeat or an empty \
                         alternative first) met again where an empty match just ended",
                    ));
                }
                if pos >= hay.text.len() {
                    break;
                }
                pos = hay.next_char(pos);
                must_advance = false;
                continue;
            }
            n += 1;
            must_advance = b == e;
            pos = e;
            if !each(spans)? {
                break;
            }
        }
        Ok(())
    }
}
