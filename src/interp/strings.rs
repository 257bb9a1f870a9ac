//! Methods of `str`: searching with optional start/end as CPython adjusts them, splitting,
//! stripping, padding, case changes and classification (exact for ASCII; Unicode case and
//! categories follow Rust's tables).

use super::builtins::{index_arg, is_space};
use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::exc::{R, Unwind, type_error, value_error};
use super::machine::Machine;
use super::ops::check_len;
use super::value::{Str, Value};

pub(crate) const METHODS: &[&str] = &[
    "capitalize",
    "casefold",
    "center",
    "count",
    "encode",
    "endswith",
    "expandtabs",
    "find",
    "format",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isidentifier",
    "islower",
    "isnumeric",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];

fn s_arg<'a>(v: &'a Value, what: impl FnOnce(&Value) -> String) -> R<&'a Str> {
    match v {
        Value::Str(s) => Ok(s),
        other => type_error(what(other)),
    }
}

/// Byte offset of character `ci` in `s`.
fn byte_of(s: &Str, ci: usize) -> usize {
    if s.is_ascii() {
        return ci.min(s.as_str().len());
    }
    s.as_str()
        .char_indices()
        .nth(ci)
        .map_or(s.as_str().len(), |(b, _)| b)
}

fn char_count(text: &str) -> usize {
    text.chars().count()
}

/// CPython's ADJUST_INDICES: `end` clamped to the length, `start` only from below.
fn bounds(s: &Str, start: Option<&Value>, end: Option<&Value>) -> R<(usize, usize)> {
    let len = s.len() as i128;
    let get = |v: Option<&Value>, default: i128| -> R<i128> {
        match v {
            None | Some(Value::None) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b as i128),
            Some(Value::Int(i)) => Ok(*i as i128),
            Some(Value::Big(b)) => Ok(if b.sign() == num_bigint::Sign::Minus {
                i128::MIN / 2
            } else {
                i128::MAX / 2
            }),
            Some(_) => {
                type_error("slice indices must be integers or None or have an __index__ method")
            }
        }
    };
    let mut end = get(end, len)?;
    let mut start = get(start, 0)?;
    if end > len {
        end = len;
    } else if end < 0 {
        end = (end + len).max(0);
    }
    if start < 0 {
        start = (start + len).max(0);
    }
    Ok((start.min(usize::MAX as i128 / 2) as usize, end as usize))
}

/// The part of `s` between character positions, if `start <= end`.
fn window(s: &Str, start: usize, end: usize) -> Option<(&str, usize)> {
    if start > end {
        return None;
    }
    let (a, b) = (byte_of(s, start), byte_of(s, end));
    Some((&s.as_str()[a..b], start))
}

fn find(s: &Str, args: &[Value], name: &str, right: bool) -> R<Option<usize>> {
    arity(name, args, 1, 3)?;
    let sub = s_arg(&args[0], |o| format!("must be str, not {}", o.type_name()))?;
    let (start, end) = bounds(s, args.get(1), args.get(2))?;
    let Some((hay, offset)) = window(s, start, end) else {
        return Ok(None);
    };
    let found = if right {
        hay.rfind(sub.as_str())
    } else {
        hay.find(sub.as_str())
    };
    Ok(found.map(|b| offset + char_count(&hay[..b])))
}

fn affix(s: &Str, args: &[Value], name: &str, suffix: bool) -> R<bool> {
    arity(name, args, 1, 3)?;
    let (start, end) = bounds(s, args.get(1), args.get(2))?;
    let candidates: Vec<&Str> = match &args[0] {
        Value::Str(p) => vec![p],
        Value::Tuple(items) => items
            .iter()
            .map(|i| {
                s_arg(i, |o| {
                    format!(
                        "tuple for {name} must only contain str, not {}",
                        o.type_name()
                    )
                })
            })
            .collect::<R<_>>()?,
        other => {
            return type_error(format!(
                "{name} first arg must be str or a tuple of str, not {}",
                other.type_name()
            ));
        }
    };
    let Some((hay, _)) = window(s, start, end) else {
        return Ok(false);
    };
    Ok(candidates.iter().any(|p| {
        if suffix {
            hay.ends_with(p.as_str())
        } else {
            hay.starts_with(p.as_str())
        }
    }))
}

fn strip_chars<'a>(name: &str, args: &'a [Value]) -> R<Option<&'a str>> {
    arity(name, args, 0, 1)?;
    match args.first() {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(c)) => Ok(Some(c.as_str())),
        Some(_) => type_error(format!("{name} arg must be None or str")),
    }
}

fn fill_char(v: Option<&Value>) -> R<char> {
    match v {
        None => Ok(' '),
        Some(Value::Str(s)) if s.len() == 1 => Ok(s.char_at(0).unwrap_or(' ')),
        Some(Value::Str(_)) => type_error("The fill character must be exactly one character long"),
        Some(other) => type_error(format!(
            "The fill character must be a unicode character, not {}",
            other.type_name()
        )),
    }
}

fn pad(s: &Str, width: i64, left: usize, fill: char) -> String {
    let total = (width.max(0) as usize).saturating_sub(s.len());
    let mut out = String::with_capacity(s.as_str().len() + total);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(s.as_str());
    out.extend(std::iter::repeat_n(fill, total - left));
    out
}

fn split_whitespace(text: &str, maxsplit: i64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(is_space);
        if rest.is_empty() {
            break;
        }
        if maxsplit >= 0 && out.len() as i64 == maxsplit {
            out.push(Value::str(rest));
            break;
        }
        let end = rest.find(is_space).unwrap_or(rest.len());
        out.push(Value::str(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

fn rsplit_whitespace(text: &str, maxsplit: i64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_end_matches(is_space);
        if rest.is_empty() {
            break;
        }
        if maxsplit >= 0 && out.len() as i64 == maxsplit {
            out.push(Value::str(rest));
            break;
        }
        let start = rest.rfind(is_space).map_or(0, |i| {
            i + rest[i..].chars().next().map_or(1, char::len_utf8)
        });
        out.push(Value::str(&rest[start..]));
        rest = &rest[..start];
    }
    out.reverse();
    out
}

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

fn splitlines(text: &str, keepends: bool) -> Vec<Value> {
    let mut out = Vec::new();
    let mut line_start = 0;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if is_line_break(c) {
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some((_, '\n')) = iter.peek() {
                    iter.next();
                    end += 1;
                }
            }
            out.push(Value::str(if keepends {
                &text[line_start..end]
            } else {
                &text[line_start..i]
            }));
            line_start = end;
        }
    }
    if line_start < text.len() {
        out.push(Value::str(&text[line_start..]));
    }
    out
}

fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase()
}

fn title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev_cased = false;
    for c in text.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        prev_cased = is_cased(c);
    }
    out
}

fn classify(text: &str, name: &str) -> bool {
    let chars = || text.chars();
    match name {
        "isascii" => text.is_ascii(),
        _ if text.is_empty() => false,
        "isalnum" => chars().all(char::is_alphanumeric),
        "isalpha" => chars().all(char::is_alphabetic),
        "isdecimal" => {
            chars().all(|c| c.is_ascii_digit() || (!c.is_ascii() && c.to_digit(10).is_some()))
        }
        "isdigit" => chars().all(|c| c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())),
        "isnumeric" => chars().all(char::is_numeric),
        "isspace" => chars().all(is_space),
        "islower" => chars().any(is_cased) && !chars().any(char::is_uppercase),
        "isupper" => chars().any(is_cased) && !chars().any(char::is_lowercase),
        "istitle" => {
            let mut prev_cased = false;
            let mut any = false;
            for c in chars() {
                if c.is_uppercase() {
                    if prev_cased {
                        return false;
                    }
                    prev_cased = true;
                    any = true;
                } else if c.is_lowercase() {
                    if !prev_cased {
                        return false;
                    }
                    prev_cased = true;
                    any = true;
                } else {
                    prev_cased = false;
                }
            }
            any
        }
        "isidentifier" => {
            let mut cs = chars();
            cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
                && cs.all(|c| c == '_' || c.is_alphanumeric())
        }
        _ => false,
    }
}

impl Machine {
    pub fn str_method(
        &mut self,
        s: &Str,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let text = s.as_str();
        let no_args = |args: &[Value]| -> R<()> {
            if args.is_empty() {
                Ok(())
            } else {
                type_error(format!(
                    "str.{name}() takes no arguments ({} given)",
                    args.len()
                ))
            }
        };
        if !matches!(
            name,
            "split" | "rsplit" | "splitlines" | "format" | "encode"
        ) {
            no_kwargs(name, &kwargs)?;
        }
        Ok(match name {
            "upper" | "lower" | "casefold" | "swapcase" | "title" | "capitalize" => {
                no_args(&args)?;
                Value::str(match name {
                    "upper" => text.to_uppercase(),
                    "lower" | "casefold" => text.to_lowercase(),
                    "swapcase" => text
                        .chars()
                        .flat_map(|c| -> Vec<char> {
                            if c.is_uppercase() {
                                c.to_lowercase().collect()
                            } else if c.is_lowercase() {
                                c.to_uppercase().collect()
                            } else {
                                vec![c]
                            }
                        })
                        .collect(),
                    "title" => title(text),
                    _ => {
                        let mut cs = text.chars();
                        match cs.next() {
                            Some(first) => first
                                .to_uppercase()
                                .chain(cs.flat_map(char::to_lowercase))
                                .collect(),
                            None => String::new(),
                        }
                    }
                })
            }
            "isalnum" | "isalpha" | "isascii" | "isdecimal" | "isdigit" | "isidentifier"
            | "islower" | "isnumeric" | "isspace" | "istitle" | "isupper" => {
                no_args(&args)?;
                Value::Bool(classify(text, name))
            }
            "strip" | "lstrip" | "rstrip" => {
                let chars = strip_chars(name, &args)?;
                let matches = |c: char| match chars {
                    Some(set) => set.contains(c),
                    None => is_space(c),
                };
                Value::str(match name {
                    "strip" => text.trim_matches(matches),
                    "lstrip" => text.trim_start_matches(matches),
                    _ => text.trim_end_matches(matches),
                })
            }
            "split" | "rsplit" => {
                let [sep_kw, max_kw] = take_kwargs(name, kwargs, ["sep", "maxsplit"])?;
                arity(name, &args, 0, 2)?;
                let mut it = args.into_iter();
                let sep = it.next().or(sep_kw).unwrap_or(Value::None);
                let maxsplit = match it.next().or(max_kw) {
                    Some(v) => index_arg(&v)?,
                    None => -1,
                };
                match &sep {
                    Value::None if name == "split" => Value::list(split_whitespace(text, maxsplit)),
                    Value::None => Value::list(rsplit_whitespace(text, maxsplit)),
                    Value::Str(p) if p.as_str().is_empty() => {
                        return value_error("empty separator");
                    }
                    Value::Str(p) => {
                        let n = if maxsplit < 0 {
                            usize::MAX
                        } else {
                            maxsplit as usize + 1
                        };
                        let mut parts: Vec<Value> = if name == "split" {
                            text.splitn(n, p.as_str()).map(Value::str).collect()
                        } else {
                            text.rsplitn(n, p.as_str()).map(Value::str).collect()
                        };
                        if name == "rsplit" {
                            parts.reverse();
                        }
                        Value::list(parts)
                    }
                    other => {
                        return type_error(format!(
                            "must be str or None, not {}",
                            other.type_name()
                        ));
                    }
                }
            }
            "splitlines" => {
                let [keep_kw] = take_kwargs(name, kwargs, ["keepends"])?;
                arity(name, &args, 0, 1)?;
                let keep = args
                    .into_iter()
                    .next()
                    .or(keep_kw)
                    .is_some_and(|v| super::ops::truthy(&v));
                Value::list(splitlines(text, keep))
            }
            "join" => {
                arity("str.join", &args, 1, 1)?;
                let items = self.collect(args.into_iter().next().unwrap_or(Value::None))?;
                let mut out = String::new();
                let mut total = 0usize;
                for (i, item) in items.iter().enumerate() {
                    // A `StrEnum` member joins as its str.
                    let item = &match super::int_enum::unwrap(item) {
                        v @ Value::Str(_) => v,
                        _ => item.clone(),
                    };
                    let Value::Str(piece) = item else {
                        return type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            item.type_name()
                        ));
                    };
                    if i > 0 {
                        out.push_str(text);
                        total += s.len();
                    }
                    total += piece.len();
                    check_len(total)?;
                    out.push_str(piece.as_str());
                }
                Value::str(out)
            }
            "find" | "rfind" | "index" | "rindex" => {
                let right = name.starts_with('r');
                match find(s, &args, name, right)? {
                    Some(i) => Value::Int(i as i64),
                    None if name.ends_with("find") => Value::Int(-1),
                    None => return value_error("substring not found"),
                }
            }
            "count" => {
                if args.is_empty() {
                    return type_error("count() takes at least 1 argument (0 given)");
                }
                arity("count", &args, 1, 3)?;
                let sub = s_arg(&args[0], |o| format!("must be str, not {}", o.type_name()))?;
                let (start, end) = bounds(s, args.get(1), args.get(2))?;
                match window(s, start, end) {
                    None => Value::Int(0),
                    Some((hay, _)) if sub.as_str().is_empty() => {
                        Value::Int(char_count(hay) as i64 + 1)
                    }
                    Some((hay, _)) => Value::Int(hay.matches(sub.as_str()).count() as i64),
                }
            }
            "startswith" | "endswith" => Value::Bool(affix(s, &args, name, name == "endswith")?),
            "replace" => {
                arity("replace", &args, 2, 3)?;
                let old = s_arg(&args[0], |o| {
                    format!("replace() argument 1 must be str, not {}", o.type_name())
                })?;
                let new = s_arg(&args[1], |o| {
                    format!("replace() argument 2 must be str, not {}", o.type_name())
                })?;
                let count = match args.get(2) {
                    Some(v) => index_arg(v)?,
                    None => -1,
                };
                let occurrences = if old.as_str().is_empty() {
                    s.len() + 1
                } else {
                    text.matches(old.as_str()).count()
                };
                let n = if count < 0 {
                    occurrences
                } else {
                    occurrences.min(count as usize)
                };
                check_len((s.len() + n * new.len()).saturating_sub(n * old.len()))?;
                Value::str(text.replacen(old.as_str(), new.as_str(), n))
            }
            "center" | "ljust" | "rjust" => {
                arity(name, &args, 1, 2)?;
                let width = index_arg(&args[0])?;
                let fill = fill_char(args.get(1))?;
                check_len(width.max(0) as usize)?;
                let marg = (width.max(0) as usize).saturating_sub(s.len());
                let left = match name {
                    "ljust" => 0,
                    "rjust" => marg,
                    _ => marg / 2 + (marg & width as usize & 1),
                };
                Value::str(pad(s, width, left, fill))
            }
            "encode" => {
                arity("encode", &args, 0, 2)?;
                let [enc, err] = take_kwargs("encode", kwargs, ["encoding", "errors"])?;
                let (codec, errors) = super::bytes::codec_args(
                    "encode",
                    args.first().or(enc.as_ref()),
                    args.get(1).or(err.as_ref()),
                )?;
                super::budget::produce(text.len(), 1)?;
                super::bytes::new(super::codec::encode(text, codec, &errors)?)
            }
            "zfill" => {
                arity("zfill", &args, 1, 1)?;
                let width = index_arg(&args[0])?;
                check_len(width.max(0) as usize)?;
                let fill = (width.max(0) as usize).saturating_sub(s.len());
                let (sign, rest) = match text.chars().next() {
                    Some(c @ ('+' | '-')) => (Some(c), &text[1..]),
                    _ => (None, text),
                };
                let mut out = String::new();
                out.extend(sign);
                out.extend(std::iter::repeat_n('0', fill));
                out.push_str(rest);
                Value::str(out)
            }
            "partition" | "rpartition" => {
                arity(name, &args, 1, 1)?;
                let sep = s_arg(&args[0], |o| format!("must be str, not {}", o.type_name()))?;
                if sep.as_str().is_empty() {
                    return value_error("empty separator");
                }
                let found = if name == "partition" {
                    text.find(sep.as_str())
                } else {
                    text.rfind(sep.as_str())
                };
                let parts = match found {
                    Some(i) => [&text[..i], sep.as_str(), &text[i + sep.as_str().len()..]],
                    None if name == "partition" => [text, "", ""],
                    None => ["", "", text],
                };
                Value::tuple(parts.iter().map(|p| Value::str(*p)).collect())
            }
            "removeprefix" | "removesuffix" => {
                arity(name, &args, 1, 1)?;
                let affix = s_arg(&args[0], |o| {
                    format!("{name}() argument must be str, not {}", o.type_name())
                })?;
                Value::str(if name == "removeprefix" {
                    text.strip_prefix(affix.as_str()).unwrap_or(text)
                } else {
                    text.strip_suffix(affix.as_str()).unwrap_or(text)
                })
            }
            "expandtabs" => {
                arity(name, &args, 0, 1)?;
                let size = match args.first() {
                    Some(v) => index_arg(v)?,
                    None => 8,
                };
                let mut out = String::new();
                let mut column = 0usize;
                for c in text.chars() {
                    match c {
                        '\t' if size > 0 => {
                            let n = size as usize - column % size as usize;
                            check_len(out.len() + n)?;
                            out.extend(std::iter::repeat_n(' ', n));
                            column += n;
                        }
                        '\t' => {}
                        '\n' | '\r' => {
                            out.push(c);
                            column = 0;
                        }
                        c => {
                            out.push(c);
                            column += 1;
                        }
                    }
                }
                Value::str(out)
            }
            "maketrans" => super::translate::maketrans(&args)?,
            "translate" => {
                arity(name, &args, 1, 1)?;
                self.translate(text, &args[0])?
            }
            "format" => {
                let mut render = |v: &Value, conversion: Option<char>, spec: &str| {
                    let v = match conversion {
                        None => v.clone(),
                        Some('r') => Value::str(self.repr_of(v)?),
                        Some('s') => Value::str(self.str_of(v)?),
                        Some(_) => Value::str(super::format::ascii(&self.repr_of(v)?)),
                    };
                    self.format_of(&v, spec)
                };
                Value::str(super::format::str_format_with(
                    text,
                    &args,
                    &kwargs,
                    &mut render,
                )?)
            }
            _ => return Err(Unwind::unsupported(format!("str.{name}()"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(vs: Vec<Value>) -> Vec<String> {
        vs.iter()
            .map(|v| match v {
                Value::Str(s) => s.as_str().to_string(),
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn whitespace_splitting_matches_python() {
        // ' a  b c '.split(None, 1) == ['a', 'b c '], .rsplit(None, 1) == [' a  b', 'c']
        assert_eq!(texts(split_whitespace(" a  b c ", 1)), ["a", "b c "]);
        assert_eq!(texts(rsplit_whitespace(" a  b c ", 1)), [" a  b", "c"]);
        assert_eq!(texts(split_whitespace("  ", -1)), Vec::<String>::new());
        assert_eq!(texts(splitlines("a\r\nb\n\nc", false)), ["a", "b", "", "c"]);
        assert_eq!(texts(splitlines("a\nb\n", true)), ["a\n", "b\n"]);
    }

    #[test]
    fn case_and_classes() {
        assert_eq!(title("they're bill's"), "They'Re Bill'S");
        assert!(classify("Hello World", "istitle"));
        assert!(!classify("", "isdigit"));
        assert!(classify("123", "isdigit"));
        assert!(classify("ABC1", "isupper"));
        assert!(!classify("123", "isupper"));
    }
}
