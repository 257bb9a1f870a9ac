//! `re`: Python's regular expressions on the `regex-automata` crate. Patterns are parsed
//! with CPython's syntax and errors (`syntax.rs`) and run by the crate (`engine.rs`); this
//! file holds the module's functions, `re.Pattern` and `re.Match` objects, replacement
//! templates and reprs. What the crate cannot run (backreferences, lookaround, ...) is an
//! `UnsupportedError` naming it.

mod engine;
mod syntax;

use std::cell::RefCell;
use std::rc::Rc;

use super::{StdFn, StdObj};
use crate::interp::call::Kwargs;
use crate::interp::dict::{Dict, key_of};
use crate::interp::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, UserClass, fail, type_error};
use crate::interp::machine::Machine;
use crate::interp::repr::str_repr;
use crate::interp::value::{Str, Value};

pub(crate) use engine::Pattern;
use engine::{Hay, Mode, Spans};
use syntax::*;

thread_local! {
    static ERROR: Rc<UserClass> = Rc::new(UserClass::plain("error".into(), ExcClass::Builtin(ExcKind::Exception)));
    /// Patterns compiled by the module functions, like CPython's `re._cache`.
    static CACHE: RefCell<Vec<(String, i64, Rc<StdObj>)>> = const { RefCell::new(Vec::new()) };
}

const CACHE_SIZE: usize = 512;

/// `re.error`.
pub(crate) fn error_class() -> Value {
    Value::UserExcType(ERROR.with(Rc::clone))
}

/// An `re.error` with CPython's message (`... at position N`).
pub(crate) fn re_error(msg: &str, pos: Option<usize>) -> Unwind {
    let text = match pos {
        Some(p) => format!("{msg} at position {p}"),
        None => msg.to_string(),
    };
    Unwind::from_object(ExcObject::new(
        ExcClass::User(ERROR.with(Rc::clone)),
        vec![Value::str(text)],
    ))
}

/// `re.NAME` for the flags and `re.error`.
pub(crate) fn constant(name: &str) -> Option<Value> {
    let f = match name {
        "I" | "IGNORECASE" => F_IGNORECASE,
        "L" | "LOCALE" => F_LOCALE,
        "M" | "MULTILINE" => F_MULTILINE,
        "S" | "DOTALL" => F_DOTALL,
        "U" | "UNICODE" => F_UNICODE,
        "X" | "VERBOSE" => F_VERBOSE,
        "A" | "ASCII" => F_ASCII,
        "T" | "TEMPLATE" => F_TEMPLATE,
        "DEBUG" => F_DEBUG,
        "NOFLAG" => 0,
        "error" => return Some(error_class()),
        _ => return None,
    };
    Some(Value::Int(f))
}

/// A match: the string it was found in and its groups' spans.
pub(crate) struct MatchObj {
    pattern: Rc<StdObj>,
    string: Rc<Str>,
    /// Byte spans (for slicing) and character spans (for Python) of each group.
    bytes: Spans,
    chars: Vec<Option<(usize, usize)>>,
    pos: usize,
    endpos: usize,
}

fn pattern_of(o: &StdObj) -> Option<&Pattern> {
    match o {
        StdObj::RePattern(p) => Some(p),
        _ => None,
    }
}

impl MatchObj {
    fn pattern(&self) -> &Pattern {
        pattern_of(&self.pattern).unwrap_or_else(|| unreachable!("a match holds its pattern"))
    }

    fn text(&self, g: usize) -> Option<&str> {
        self.bytes[g].map(|(s, e)| &self.string.as_str()[s..e])
    }

    fn group_value(&self, g: usize, default: &Value) -> Value {
        self.text(g).map_or_else(|| default.clone(), Value::str)
    }

    /// The group number of `g` (an int or a group name).
    fn index(&self, g: &Value) -> R<usize> {
        let n = match g {
            Value::Int(i) => usize::try_from(*i).ok(),
            Value::Bool(b) => Some(*b as usize),
            Value::Str(s) => self
                .pattern()
                .parsed
                .names
                .iter()
                .find(|(n, _)| n == s.as_str())
                .map(|(_, i)| *i),
            _ => None,
        };
        match n {
            Some(i) if i < self.bytes.len() => Ok(i),
            _ => fail(ExcKind::IndexError, "no such group"),
        }
    }

    /// The last group to close, as CPython's `lastindex`.
    fn lastindex(&self) -> Option<usize> {
        let parents = &self.pattern().parsed.parents;
        let mut best: Option<usize> = None;
        for g in 1..self.chars.len() {
            let Some((_, e)) = self.chars[g] else {
                continue;
            };
            best = match best {
                None => Some(g),
                Some(b) => {
                    let be = self.chars[b].map_or(0, |s| s.1);
                    if e > be || (e == be && !parents[g].contains(&b)) {
                        Some(g)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        // an enclosing group ending at the same place closes after its inner groups
        if let Some(b) = best {
            let be = self.chars[b].map(|s| s.1);
            if let Some(outer) = parents[b]
                .iter()
                .find(|p| self.chars[**p].map(|s| s.1) == be)
            {
                return Some(*outer);
            }
        }
        best
    }
}

/// `repr` of a pattern or match.
pub(crate) fn repr(o: &StdObj) -> Option<String> {
    match o {
        StdObj::RePattern(p) => {
            let mut src = str_repr(&p.source);
            if src.chars().count() > 200 {
                src = src.chars().take(200).collect();
            }
            let mut names = Vec::new();
            let mut flags = p.parsed.flags;
            if flags & F_ASCII == 0 {
                flags &= !F_UNICODE;
            }
            for (bit, name) in [
                (F_TEMPLATE, "re.TEMPLATE"),
                (F_IGNORECASE, "re.IGNORECASE"),
                (F_LOCALE, "re.LOCALE"),
                (F_MULTILINE, "re.MULTILINE"),
                (F_DOTALL, "re.DOTALL"),
                (F_UNICODE, "re.UNICODE"),
                (F_VERBOSE, "re.VERBOSE"),
                (F_DEBUG, "re.DEBUG"),
                (F_ASCII, "re.ASCII"),
            ] {
                if flags & bit != 0 {
                    names.push(name.to_string());
                    flags &= !bit;
                }
            }
            if flags != 0 {
                names.push(format!("{flags:#x}"));
            }
            Some(if names.is_empty() {
                format!("re.compile({src})")
            } else {
                format!("re.compile({src}, {})", names.join("|"))
            })
        }
        StdObj::ReMatch(m) => {
            let (s, e) = m.chars[0].unwrap_or((0, 0));
            let r: String = str_repr(m.text(0).unwrap_or("")).chars().take(50).collect();
            Some(format!("<re.Match object; span=({s}, {e}), match={r}>"))
        }
        _ => None,
    }
}

/// The methods of patterns and matches.
pub(crate) fn is_method(o: &StdObj, name: &str) -> bool {
    match o {
        StdObj::RePattern(_) => matches!(
            name,
            "search" | "match" | "fullmatch" | "findall" | "finditer" | "sub" | "subn" | "split"
        ),
        StdObj::ReMatch(_) => matches!(
            name,
            "group" | "groups" | "groupdict" | "start" | "end" | "span" | "expand"
        ),
        _ => false,
    }
}

/// The data attributes of patterns and matches.
pub(crate) fn attr(o: &Rc<StdObj>, name: &str) -> Option<Value> {
    match &**o {
        StdObj::RePattern(p) => Some(match name {
            "pattern" => Value::str(p.source.as_str()),
            "flags" => Value::Int(p.parsed.flags),
            "groups" => Value::Int(p.parsed.groups as i64),
            "groupindex" => {
                let mut d = Dict::default();
                for (n, i) in &p.parsed.names {
                    let k = Value::str(n.as_str());
                    if let Ok(key) = key_of(&k) {
                        d.insert(key, k, Value::Int(*i as i64));
                    }
                }
                Value::Dict(Rc::new(RefCell::new(d)))
            }
            _ => return None,
        }),
        StdObj::ReMatch(m) => Some(match name {
            "string" => Value::Str(m.string.clone()),
            "re" => Value::Std(m.pattern.clone()),
            "pos" => Value::Int(m.pos as i64),
            "endpos" => Value::Int(m.endpos as i64),
            "lastindex" => m.lastindex().map_or(Value::None, |i| Value::Int(i as i64)),
            "lastgroup" => m
                .lastindex()
                .and_then(|i| m.pattern().parsed.names.iter().find(|(_, g)| *g == i))
                .map_or(Value::None, |(n, _)| Value::str(n.as_str())),
            _ => return None,
        }),
        _ => None,
    }
}

/// `m[g]`.
pub(crate) fn getitem(o: &StdObj, g: &Value) -> Option<R<Value>> {
    match o {
        StdObj::ReMatch(m) => Some(m.index(g).map(|i| m.group_value(i, &Value::None))),
        _ => None,
    }
}

/// Positional-or-keyword parameters of a function: the values by name, `None` if absent.
fn params<const N: usize>(
    fname: &str,
    names: [&str; N],
    required: usize,
    args: Vec<Value>,
    kwargs: Kwargs,
) -> R<[Option<Value>; N]> {
    if args.len() > N {
        return type_error(format!(
            "{fname}() takes at most {N} arguments ({} given)",
            args.len()
        ));
    }
    let mut out: [Option<Value>; N] = std::array::from_fn(|_| None);
    for (i, a) in args.into_iter().enumerate() {
        out[i] = Some(a);
    }
    for (k, v) in kwargs {
        match names.iter().position(|n| **n == *k) {
            Some(i) if out[i].is_none() => out[i] = Some(v),
            Some(i) => {
                return type_error(format!(
                    "argument for {fname}() given by name ('{k}') and position ({})",
                    i + 1
                ));
            }
            None => {
                return type_error(format!(
                    "{fname}() got an unexpected keyword argument '{k}'"
                ));
            }
        }
    }
    for (i, n) in names.iter().enumerate().take(required) {
        if out[i].is_none() {
            return type_error(format!(
                "{fname}() missing required argument '{n}' (pos {})",
                i + 1
            ));
        }
    }
    Ok(out)
}

fn string_arg(v: &Option<Value>) -> R<Rc<Str>> {
    match v {
        Some(Value::Str(s)) => Ok(s.clone()),
        Some(other) => type_error(format!(
            "expected string or bytes-like object, got '{}'",
            other.type_name()
        )),
        None => type_error("expected string or bytes-like object, got 'NoneType'"),
    }
}

fn int_arg(v: &Option<Value>, default: i64) -> R<i64> {
    match v {
        None => Ok(default),
        Some(v) => crate::interp::builtins::index_arg(v),
    }
}

/// The compiled pattern of `pattern` (a str or a Pattern) with `flags`, through the cache.
fn compile(pattern: &Value, flags: i64) -> R<Rc<StdObj>> {
    match pattern {
        Value::Std(o) if matches!(&**o, StdObj::RePattern(_)) => {
            if flags != 0 {
                return fail(
                    ExcKind::ValueError,
                    "cannot process flags argument with a compiled pattern",
                );
            }
            Ok(o.clone())
        }
        Value::Str(s) => {
            let hit = CACHE.with_borrow(|c| {
                c.iter()
                    .find(|(p, f, _)| *f == flags && p == s.as_str())
                    .map(|(_, _, o)| o.clone())
            });
            if let Some(o) = hit {
                return Ok(o);
            }
            let o = Rc::new(StdObj::RePattern(Pattern::new(s.as_str(), flags)?));
            CACHE.with_borrow_mut(|c| {
                if c.len() >= CACHE_SIZE {
                    c.clear();
                }
                c.push((s.as_str().to_string(), flags, o.clone()));
            });
            Ok(o)
        }
        _ => type_error("first argument must be string or compiled pattern"),
    }
}

/// A piece of a replacement template.
enum Piece {
    Text(String),
    Group(usize),
}

/// Parses a replacement template as CPython's `sre_parse.parse_template`.
fn template(p: &Pattern, repl: &str) -> R<Vec<Piece>> {
    let cs: Vec<char> = repl.chars().collect();
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    let group_ref = |n: usize, pos: usize| -> R<usize> {
        if n > p.parsed.groups {
            Err(re_error(&format!("invalid group reference {n}"), Some(pos)))
        } else {
            Ok(n)
        }
    };
    while i < cs.len() {
        let c = cs[i];
        if c != '\\' {
            lit.push(c);
            i += 1;
            continue;
        }
        let Some(&d) = cs.get(i + 1) else {
            return Err(re_error("bad escape (end of pattern)", Some(i)));
        };
        let flush = |lit: &mut String, out: &mut Vec<Piece>, g: usize| {
            if !lit.is_empty() {
                out.push(Piece::Text(std::mem::take(lit)));
            }
            out.push(Piece::Group(g));
        };
        match d {
            'g' => {
                if cs.get(i + 2) != Some(&'<') {
                    return Err(re_error("missing <", Some(i + 2)));
                }
                let start = i + 3;
                let Some(len) = cs[start..].iter().position(|c| *c == '>') else {
                    return Err(re_error("missing >, unterminated name", Some(start)));
                };
                let name: String = cs[start..start + len].iter().collect();
                if name.is_empty() {
                    return Err(re_error("missing group name", Some(start)));
                }
                let g = if name.chars().all(|c| c.is_ascii_digit()) {
                    let n = name.parse::<usize>().unwrap_or(usize::MAX);
                    group_ref(n, start)?
                } else if name
                    .chars()
                    .next()
                    .is_some_and(|c| c == '_' || c.is_alphabetic())
                    && name.chars().all(|c| c == '_' || c.is_alphanumeric())
                {
                    match p.parsed.names.iter().find(|(n, _)| *n == name) {
                        Some((_, g)) => *g,
                        None => {
                            return fail(
                                ExcKind::IndexError,
                                format!("unknown group name '{name}'"),
                            );
                        }
                    }
                } else {
                    return Err(re_error(
                        &format!("bad character in group name '{name}'"),
                        Some(start),
                    ));
                };
                flush(&mut lit, &mut out, g);
                i = start + len + 1;
            }
            '0' => {
                let mut v = 0u32;
                let mut k = i + 2;
                while k < i + 4 && cs.get(k).is_some_and(|c| c.is_digit(8)) {
                    v = v * 8 + cs[k].to_digit(8).unwrap_or(0);
                    k += 1;
                }
                lit.push(char::from_u32(v).unwrap_or('\0'));
                i = k;
            }
            '1'..='9' => {
                let mut k = i + 2;
                let mut digits = String::from(d);
                if cs.get(k).is_some_and(|c| c.is_ascii_digit()) {
                    digits.push(cs[k]);
                    k += 1;
                    let octal = digits.chars().all(|c| c.is_digit(8));
                    if octal && cs.get(k).is_some_and(|c| c.is_digit(8)) {
                        digits.push(cs[k]);
                        k += 1;
                        let v = u32::from_str_radix(&digits, 8).unwrap_or(0);
                        if v > 0o377 {
                            return Err(re_error(
                                &format!("octal escape value \\{digits} outside of range 0-0o377"),
                                Some(i),
                            ));
                        }
                        lit.push(char::from_u32(v).unwrap_or('\0'));
                        i = k;
                        continue;
                    }
                }
                let g = group_ref(digits.parse().unwrap_or(usize::MAX), i + 1)?;
                flush(&mut lit, &mut out, g);
                i = k;
            }
            _ => {
                let esc = match d {
                    'a' => Some('\x07'),
                    'b' => Some('\x08'),
                    'f' => Some('\x0c'),
                    'n' => Some('\n'),
                    'r' => Some('\r'),
                    't' => Some('\t'),
                    'v' => Some('\x0b'),
                    '\\' => Some('\\'),
                    _ => None,
                };
                match esc {
                    Some(e) => lit.push(e),
                    None if d.is_ascii_alphabetic() => {
                        return Err(re_error(&format!("bad escape \\{d}"), Some(i)));
                    }
                    None => {
                        lit.push('\\');
                        lit.push(d);
                    }
                }
                i += 2;
            }
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Text(lit));
    }
    Ok(out)
}

impl Machine {
    /// Calls a function of `re`.
    pub(in crate::interp::stdlib) fn call_re(
        &mut self,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let name = f.name();
        match f {
            StdFn::ReCompile => {
                let [p, fl] = params(name, ["pattern", "flags"], 1, args, kwargs)?;
                Ok(Value::Std(compile(
                    p.as_ref().unwrap_or(&Value::None),
                    int_arg(&fl, 0)?,
                )?))
            }
            StdFn::ReEscape => {
                let [p] = params(name, ["pattern"], 1, args, kwargs)?;
                let s = string_arg(&p)?;
                Ok(Value::str(escape(s.as_str())))
            }
            StdFn::RePurge => {
                params(name, [], 0, args, kwargs)?;
                CACHE.with_borrow_mut(|c| c.clear());
                Ok(Value::None)
            }
            StdFn::ReSearch
            | StdFn::ReMatch
            | StdFn::ReFullMatch
            | StdFn::ReFindAll
            | StdFn::ReFindIter => {
                let [p, s, fl] = params(name, ["pattern", "string", "flags"], 2, args, kwargs)?;
                let pat = compile(p.as_ref().unwrap_or(&Value::None), int_arg(&fl, 0)?)?;
                let method = match f {
                    StdFn::ReSearch => "search",
                    StdFn::ReMatch => "match",
                    StdFn::ReFullMatch => "fullmatch",
                    StdFn::ReFindAll => "findall",
                    _ => "finditer",
                };
                self.pattern_method(&pat, method, s.into_iter().collect(), Vec::new())
            }
            StdFn::ReSub | StdFn::ReSubn => {
                let [p, r, s, c, fl] = params(
                    name,
                    ["pattern", "repl", "string", "count", "flags"],
                    3,
                    args,
                    kwargs,
                )?;
                let pat = compile(p.as_ref().unwrap_or(&Value::None), int_arg(&fl, 0)?)?;
                let mut a: Vec<Value> = vec![r.unwrap_or(Value::None), s.unwrap_or(Value::None)];
                a.extend(c);
                self.pattern_method(
                    &pat,
                    if f == StdFn::ReSub { "sub" } else { "subn" },
                    a,
                    Vec::new(),
                )
            }
            StdFn::ReSplit => {
                let [p, s, m, fl] = params(
                    name,
                    ["pattern", "string", "maxsplit", "flags"],
                    2,
                    args,
                    kwargs,
                )?;
                let pat = compile(p.as_ref().unwrap_or(&Value::None), int_arg(&fl, 0)?)?;
                let mut a: Vec<Value> = s.into_iter().collect();
                a.extend(m);
                self.pattern_method(&pat, "split", a, Vec::new())
            }
            _ => type_error(format!("'{name}' is not a function of re")),
        }
    }

    /// Calls `pattern.name(...)` or `match.name(...)`.
    pub(in crate::interp::stdlib) fn call_re_method(
        &mut self,
        o: &Rc<StdObj>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        match &**o {
            StdObj::RePattern(_) => self.pattern_method(o, name, args, kwargs),
            StdObj::ReMatch(m) => match_method(m, name, args, kwargs),
            _ => type_error(format!("'{name}' is not a method")),
        }
    }

    fn pattern_method(
        &mut self,
        o: &Rc<StdObj>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let Some(p) = pattern_of(o) else {
            return type_error("not a pattern");
        };
        match name {
            "search" | "match" | "fullmatch" | "findall" | "finditer" => {
                let [s, pos, endpos] = params(name, ["string", "pos", "endpos"], 1, args, kwargs)?;
                let string = string_arg(&s)?;
                let full = string.as_str();
                let hay0 = Hay::new(full, None, false);
                let n = hay0.chars() as i64;
                let pos = int_arg(&pos, 0)?.clamp(0, n) as usize;
                let endpos = int_arg(&endpos, n)?.clamp(0, n) as usize;
                let hay = Hay::new(full, Some(endpos), p.parsed.has_dollar);
                let start = hay.to_byte(pos);
                let make = |spans: Spans| {
                    let chars = spans
                        .iter()
                        .map(|s| s.map(|(a, b)| (hay.to_char(a), hay.to_char(b))))
                        .collect();
                    MatchObj {
                        pattern: o.clone(),
                        string: string.clone(),
                        bytes: spans,
                        chars,
                        pos,
                        endpos,
                    }
                };
                if pos > endpos {
                    return Ok(match name {
                        "findall" => Value::list(Vec::new()),
                        "finditer" => iter_of(Vec::new()),
                        _ => Value::None,
                    });
                }
                let mode = match name {
                    "match" => Mode::Match,
                    "fullmatch" => Mode::Full,
                    _ => Mode::Search,
                };
                if matches!(name, "search" | "match" | "fullmatch") {
                    return Ok(match p.find(&hay, start, mode)? {
                        Some(spans) => StdObj::ReMatch(make(spans)).into_value(),
                        None => Value::None,
                    });
                }
                let mut found = Vec::new();
                let groups = p.parsed.groups;
                p.each_match(&hay, start, 0, &mut |spans| {
                    crate::interp::budget::charge(1)?;
                    if name == "finditer" {
                        found.push(StdObj::ReMatch(make(spans)).into_value());
                        return Ok(true);
                    }
                    let text = |g: usize| Value::str(spans[g].map_or("", |(a, b)| &full[a..b]));
                    found.push(match groups {
                        0 => text(0),
                        1 => text(1),
                        _ => Value::tuple((1..=groups).map(text).collect()),
                    });
                    Ok(true)
                })?;
                Ok(if name == "finditer" {
                    iter_of(found)
                } else {
                    Value::list(found)
                })
            }
            "sub" | "subn" => {
                let [r, s, c] = params(name, ["repl", "string", "count"], 2, args, kwargs)?;
                let string = string_arg(&s)?;
                let count = int_arg(&c, 0)?;
                let repl = r.unwrap_or(Value::None);
                let (text, n) = self.sub(o, p, &repl, &string, count.max(0) as usize)?;
                Ok(if name == "sub" {
                    Value::str(text)
                } else {
                    Value::tuple(vec![Value::str(text), Value::Int(n as i64)])
                })
            }
            "split" => {
                let [s, m] = params(name, ["string", "maxsplit"], 1, args, kwargs)?;
                let string = string_arg(&s)?;
                let maxsplit = int_arg(&m, 0)?;
                if maxsplit < 0 {
                    return Ok(Value::list(vec![Value::Str(string)]));
                }
                let full = string.as_str();
                let hay = Hay::new(full, None, p.parsed.has_dollar);
                let mut out = Vec::new();
                let mut last = 0;
                p.each_match(&hay, 0, maxsplit as usize, &mut |spans| {
                    let (b, e) = spans[0].unwrap_or((last, last));
                    out.push(Value::str(&full[last..b]));
                    for g in spans.iter().skip(1) {
                        out.push(g.map_or(Value::None, |(a, b)| Value::str(&full[a..b])));
                    }
                    last = e;
                    Ok(true)
                })?;
                out.push(Value::str(&full[last..]));
                Ok(Value::list(out))
            }
            _ => Err(Unwind::new(
                ExcKind::AttributeError,
                format!("'re.Pattern' object has no attribute '{name}'"),
            )),
        }
    }

    /// `pattern.subn(repl, string, count)`: the new string and the number of replacements.
    fn sub(
        &mut self,
        o: &Rc<StdObj>,
        p: &Pattern,
        repl: &Value,
        string: &Rc<Str>,
        count: usize,
    ) -> R<(String, usize)> {
        let full = string.as_str();
        let pieces = match repl {
            Value::Str(r) => Some(template(p, r.as_str())?),
            _ => None,
        };
        let hay = Hay::new(full, None, p.parsed.has_dollar);
        let mut matches = Vec::new();
        p.each_match(&hay, 0, count, &mut |spans| {
            matches.push(spans);
            Ok(true)
        })?;
        // CPython builds a list of pieces and joins it at the end: a function's result
        // that is not a str fails there, naming its index; `None` adds nothing
        let mut out = String::with_capacity(full.len());
        let mut items = 0usize;
        let mut bad: Option<(usize, String)> = None;
        let mut last = 0;
        let n = matches.len();
        for spans in matches {
            self.tick()?;
            let before = out.len();
            let (b, e) = spans[0].unwrap_or((last, last));
            if last < b {
                out.push_str(&full[last..b]);
                items += 1;
            }
            match &pieces {
                Some(pieces) => {
                    for piece in pieces {
                        match piece {
                            Piece::Text(t) => out.push_str(t),
                            Piece::Group(g) => {
                                if let Some((a, z)) = spans[*g] {
                                    out.push_str(&full[a..z]);
                                }
                            }
                        }
                    }
                    items += 1;
                }
                None => {
                    let chars = spans
                        .iter()
                        .map(|s| s.map(|(a, z)| (hay.to_char(a), hay.to_char(z))))
                        .collect();
                    let m = StdObj::ReMatch(MatchObj {
                        pattern: o.clone(),
                        string: string.clone(),
                        bytes: spans,
                        chars,
                        pos: 0,
                        endpos: hay.chars(),
                    })
                    .into_value();
                    match self.call(repl, vec![m], Vec::new())? {
                        Value::None => {}
                        Value::Str(s) => {
                            out.push_str(s.as_str());
                            items += 1;
                        }
                        other => {
                            if bad.is_none() {
                                bad = Some((items, other.type_name()));
                            }
                            items += 1;
                        }
                    }
                }
            }
            crate::interp::budget::produce(out.len() - before, 1)?;
            last = e;
        }
        if let Some((i, t)) = bad {
            return type_error(format!(
                "sequence item {i}: expected str instance, {t} found"
            ));
        }
        out.push_str(&full[last..]);
        Ok((out, n))
    }
}

fn iter_of(items: Vec<Value>) -> Value {
    Value::Iter(Rc::new(RefCell::new(
        crate::interp::iter::IterState::Items {
            items,
            index: 0,
            kind: crate::interp::value::TypeKind::ListIterator,
        },
    )))
}

fn match_method(m: &MatchObj, name: &str, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
    match name {
        "group" => {
            crate::interp::call::no_kwargs("group", &kwargs)?;
            match args.len() {
                0 => Ok(m.group_value(0, &Value::None)),
                1 => Ok(m.group_value(m.index(&args[0])?, &Value::None)),
                _ => Ok(Value::tuple(
                    args.iter()
                        .map(|a| m.index(a).map(|i| m.group_value(i, &Value::None)))
                        .collect::<R<Vec<_>>>()?,
                )),
            }
        }
        "groups" | "groupdict" => {
            let [d] = params(name, ["default"], 0, args, kwargs)?;
            let default = d.unwrap_or(Value::None);
            if name == "groups" {
                return Ok(Value::tuple(
                    (1..m.bytes.len())
                        .map(|g| m.group_value(g, &default))
                        .collect(),
                ));
            }
            let mut dict = Dict::default();
            for (n, g) in &m.pattern().parsed.names {
                let k = Value::str(n.as_str());
                dict.insert(key_of(&k)?, k, m.group_value(*g, &default));
            }
            Ok(Value::Dict(Rc::new(RefCell::new(dict))))
        }
        "start" | "end" | "span" => {
            crate::interp::call::no_kwargs(name, &kwargs)?;
            crate::interp::call::arity(name, &args, 0, 1)?;
            let g = match args.first() {
                Some(a) => m.index(a)?,
                None => 0,
            };
            let (s, e) = match m.chars[g] {
                Some((s, e)) => (s as i64, e as i64),
                None => (-1, -1),
            };
            Ok(match name {
                "start" => Value::Int(s),
                "end" => Value::Int(e),
                _ => Value::tuple(vec![Value::Int(s), Value::Int(e)]),
            })
        }
        "expand" => {
            let [t] = params(name, ["template"], 1, args, kwargs)?;
            let t = string_arg(&t)?;
            let mut out = String::new();
            for piece in template(m.pattern(), t.as_str())? {
                match piece {
                    Piece::Text(s) => out.push_str(&s),
                    Piece::Group(g) => out.push_str(m.text(g).unwrap_or("")),
                }
            }
            Ok(Value::str(out))
        }
        _ => Err(Unwind::new(
            ExcKind::AttributeError,
            format!("'re.Match' object has no attribute '{name}'"),
        )),
    }
}
