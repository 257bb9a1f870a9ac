//! String methods and conversions beyond the character classes of [`crate::symbolic::chars`]:
//! `s.strip()`/`lstrip`/`rstrip` (Python whitespace or a constant character set),
//! `s.count(sub)`, `s.replace(old, new)` with a constant non-empty `old`, `str(n)`,
//! `int(s)`, `chr(i)`, `ord(c)`, `s * k` with a non-constant `k`, `s.rfind(sub)`, and the
//! pieces of `s.split(sep)` and `s.split(sep, k)` (a constant non-empty `sep`, or none: runs
//! of Python whitespace; a constant `k`).
//!
//! This module says what each one computes in Python ([`StrFn::eval`], used to fold
//! constants and to evaluate terms in a model); `solver::strings` lowers them to Z3. What is
//! not exact (see [`CONVERSION_NOTE`]): `int(s)` is modelled over ASCII (the lowering
//! constrains the string variables it reads, as for the character tests) and for `s` of at
//! most 4300 characters, `str(n)` for `|n| < 10**4300` (Python's digit limit, beyond which
//! both raise `ValueError`), and `chr(i)` for `i` outside `0x30000..=0x10FFFF` (the solver's
//! strings stop at U+2FFFF).

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use super::term::Literal;
use crate::python::ir::{Constant, Expr, ExprKind, Function};

/// What the outputs say when a function converts with `int()`, `str()` or `chr()`.
pub const CONVERSION_NOTE: &str = "int(s) is taken to read an ASCII s of at most 4300 characters, str(n) an n under 4300 digits, chr(i) an i outside 0x30000..0x10FFFF";

/// Python's limit on the digits of an `int` converted from or to a `str`
/// (`sys.get_int_max_str_digits()`, 3.11's default).
pub const MAX_STR_DIGITS: usize = 4300;

/// Python's whitespace (`str.isspace`, what `strip()` removes), from CPython 3.11:
/// `[hex(c) for c in range(0x110000) if chr(c).isspace()]`.
pub const PY_SPACE: &[char] = &[
    '\t', '\n', '\x0b', '\x0c', '\r', '\x1c', '\x1d', '\x1e', '\x1f', ' ', '\u{85}', '\u{a0}',
    '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}',
    '\u{2007}', '\u{2008}', '\u{2009}', '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}',
    '\u{3000}',
];

/// Which ends `strip` works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Both,
    Left,
    Right,
}

/// A string method or conversion; its operands are the term's arguments, in the order
/// listed per variant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StrFn {
    /// `s.strip(chars)` and kin (`[s]`); `None` strips Python whitespace.
    Strip(Side, Option<String>),
    /// `s.count(sub)` (`[s, sub]`): non-overlapping, left to right; `len(s) + 1` for `""`.
    Count,
    /// `s.replace(old, new)` (`[s, new]`) with this non-empty `old`.
    Replace(String),
    /// `str(n)` of an int (`[n]`).
    FromInt,
    /// `int(s)` (`[s]`): its value where [`StrFn::IsInt`] holds.
    ToInt,
    /// Whether `int(s)` accepts `s` (`[s]`): whitespace, a sign, digits with single
    /// underscores between them, whitespace (ASCII). Otherwise it raises `ValueError`.
    IsInt,
    /// `chr(i)` (`[i]`), for `0 <= i <= 0x10FFFF` (else `ValueError`).
    Chr,
    /// `ord(c)` (`[c]`), for `len(c) == 1` (else `TypeError`).
    Ord,
    /// `s * k` (`[s, k]`) with a non-constant `k`: `""` when `k <= 0`.
    Repeat,
    /// `s.rfind(sub)` (`[s, sub]`): the index in characters of the last `sub`, -1 when
    /// absent, `len(s)` for `""`.
    RFind,
    /// Item `i` (0, 1 or 2) of `s.partition(sep)` (`[s, sep]`), or of `s.rpartition(sep)`
    /// when the flag is set; `sep` non-empty (else `ValueError`).
    Partition(bool, usize),
    /// Item `i` of `s.split(sep)` (`[s]`), `""` when there are at most `i` items.
    SplitItem(Split, usize),
    /// Whether `s.split(sep)` has at least `k` items (`[s]`).
    SplitAtLeast(Split, usize),
    /// The last item of `s.split(sep, k)` (`[s]`) when it has `k + 1` items (what follows
    /// the `k`-th separator; without `sep`, the rest after `k` words with its leading
    /// whitespace removed), `""` otherwise. Its first `k` items are those of `s.split(sep)`.
    SplitRest(Split, usize),
}

/// The separator of `s.split(sep)`: a constant non-empty string, or `None` for runs of
/// Python whitespace ([`PY_SPACE`]; empty items dropped).
pub type Split = Option<String>;

/// The names a symbolic execution binds for the `s.split(sep)` at `span` once it knows
/// how many items it has: the list of its items, and the `s` they are items of.
pub fn split_names(span: crate::python::Span) -> (String, String) {
    let at = format!("$split@{}:{}", span.line, span.column);
    (at.clone(), format!("{at}:of"))
}

/// A `s.split(…)` this model splits: its separator and its constant `maxsplit` (`None`
/// for no limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitCall {
    pub sep: Split,
    pub max: Option<usize>,
}

/// The separator of `s.split(…)` with this argument: `Some(None)` for none (or `None`),
/// `Some(Some(sep))` for a constant non-empty `sep`; `None` for anything else.
fn split_sep(arg: Option<&Expr>) -> Option<Split> {
    match arg.map(|a| &a.kind) {
        None | Some(ExprKind::Constant(Constant::None)) => Some(None),
        Some(ExprKind::Constant(Constant::Str(sep))) if !sep.is_empty() => Some(Some(sep.clone())),
        _ => None,
    }
}

/// A constant `maxsplit`: `None` for a negative one (no limit), `Some(None)` for anything
/// but a constant int.
fn split_max(arg: &Expr) -> Option<Option<usize>> {
    use num_traits::Signed;
    let value = match &arg.kind {
        ExprKind::Constant(Constant::Int(k)) => k.clone(),
        ExprKind::UnaryOp {
            op: crate::python::ir::UnaryOp::USub,
            operand,
        } => match &operand.kind {
            ExprKind::Constant(Constant::Int(k)) => -k.clone(),
            _ => return Some(None),
        },
        _ => return Some(None),
    };
    if value.is_negative() {
        return None;
    }
    Some(Some(value.to_usize()?))
}

/// Whether `sep` has no proper prefix that is also a suffix: then `rsplit(sep)` finds the
/// separators `split(sep)` finds.
fn borderless(sep: &str) -> bool {
    let chars: Vec<char> = sep.chars().collect();
    (1..chars.len()).all(|l| chars[..l] != chars[chars.len() - l..])
}

/// `receiver.split(…)` (or an `rsplit` that splits the same) as a receiver and
/// [`SplitCall`], when `e` is a call this model splits: a separator as [`split_sep`] takes,
/// and a constant `maxsplit` (positional or keyword) for `split` only.
pub fn as_split(e: &Expr) -> Option<(&Expr, SplitCall)> {
    let (value, attr, args, keywords) = e.as_method_call_with_keywords()?;
    if !matches!(attr, "split" | "rsplit")
        || args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)))
    {
        return None;
    }
    let (mut sep_arg, mut max_arg) = (args.first(), args.get(1));
    if args.len() > 2 {
        return None;
    }
    for (name, v) in keywords {
        let slot = match name.as_deref() {
            Some("sep") if args.is_empty() => &mut sep_arg,
            Some("maxsplit") if args.len() < 2 => &mut max_arg,
            _ => return None,
        };
        if slot.replace(v).is_some() {
            return None;
        }
    }
    let sep = split_sep(sep_arg)?;
    let max = match max_arg {
        None => None,
        Some(k) => split_max(k)?,
    };
    let same_as_split = max.is_none() && sep.as_deref().is_none_or(borderless);
    if attr == "rsplit" && !same_as_split {
        return None;
    }
    Some((value, SplitCall { sep, max }))
}

/// The items of `s.split(sep)`, as Python computes them (`sep` non-empty).
pub fn split<'s>(s: &'s str, sep: Option<&str>) -> Vec<&'s str> {
    split_at_most(s, sep, usize::MAX)
}

/// The items of `s.split(sep, max)`, as Python computes them (`sep` non-empty).
pub fn split_at_most<'s>(s: &'s str, sep: Option<&str>, max: usize) -> Vec<&'s str> {
    let Some(sep) = sep else {
        let space = |c: char| PY_SPACE.contains(&c);
        let mut items = Vec::new();
        let mut rest = s.trim_start_matches(space);
        while !rest.is_empty() {
            if items.len() == max {
                items.push(rest);
                break;
            }
            let end = rest.find(space).unwrap_or(rest.len());
            items.push(&rest[..end]);
            rest = rest[end..].trim_start_matches(space);
        }
        return items;
    };
    s.splitn(max.saturating_add(1), sep).collect()
}

/// Longest string [`StrFn::eval`] builds for `s * k`.
const MAX_EVAL_LEN: usize = 1 << 20;

impl Side {
    pub fn from_method(name: &str) -> Option<Side> {
        Some(match name {
            "strip" => Side::Both,
            "lstrip" => Side::Left,
            "rstrip" => Side::Right,
            _ => return None,
        })
    }

    pub fn method(self) -> &'static str {
        match self {
            Side::Both => "strip",
            Side::Left => "lstrip",
            Side::Right => "rstrip",
        }
    }

    pub fn left(self) -> bool {
        self != Side::Right
    }

    pub fn right(self) -> bool {
        self != Side::Left
    }
}

impl StrFn {
    /// How many operands the term takes.
    pub fn arity(&self) -> usize {
        match self {
            StrFn::Count
            | StrFn::Replace(_)
            | StrFn::Repeat
            | StrFn::RFind
            | StrFn::Partition(..) => 2,
            _ => 1,
        }
    }

    /// The characters `strip` removes.
    pub fn strip_set(chars: Option<&str>) -> Vec<char> {
        match chars {
            Some(set) => set.chars().collect(),
            None => PY_SPACE.to_vec(),
        }
    }

    /// Python's result on constant operands; `None` where Python raises or the result is
    /// outside the model (see the module doc).
    pub fn eval(&self, args: &[&Literal]) -> Option<Literal> {
        use Literal::{Int, Str};
        Some(match (self, args) {
            (StrFn::Strip(side, chars), [Str(s)]) => {
                let set = StrFn::strip_set(chars.as_deref());
                let mut out = s.as_str();
                if side.left() {
                    out = out.trim_start_matches(|c| set.contains(&c));
                }
                if side.right() {
                    out = out.trim_end_matches(|c| set.contains(&c));
                }
                Str(out.to_string())
            }
            (StrFn::Count, [Str(s), Str(sub)]) if sub.is_empty() => {
                Int(BigInt::from(s.chars().count() + 1))
            }
            (StrFn::Count, [Str(s), Str(sub)]) => {
                Int(BigInt::from(s.matches(sub.as_str()).count()))
            }
            (StrFn::RFind, [Str(s), Str(sub)]) => Int(BigInt::from(
                s.rfind(sub.as_str())
                    .map_or(-1, |byte| s[..byte].chars().count() as i64),
            )),
            (StrFn::Partition(right, i), [Str(s), Str(sep)]) if !sep.is_empty() => {
                let found = if *right {
                    s.rsplit_once(sep.as_str())
                } else {
                    s.split_once(sep.as_str())
                };
                let parts = match (found, right) {
                    (Some((head, tail)), _) => [head, sep.as_str(), tail],
                    (None, false) => [s.as_str(), "", ""],
                    (None, true) => ["", "", s.as_str()],
                };
                Str(parts.get(*i)?.to_string())
            }
            (StrFn::Replace(old), [Str(s), Str(new)]) if !old.is_empty() => {
                Str(s.replace(old.as_str(), new))
            }
            (StrFn::FromInt, [Int(n)]) => {
                let text = n.to_string();
                if text.trim_start_matches('-').len() > MAX_STR_DIGITS {
                    return None;
                }
                Str(text)
            }
            (StrFn::IsInt, [Str(s)]) => Literal::Bool(parse_int(s).ok()?.is_some()),
            (StrFn::ToInt, [Str(s)]) => Int(parse_int(s).ok()??),
            (StrFn::Chr, [Int(i)]) => {
                let c =
                    char::from_u32(i.to_u32()?).filter(|c| *c as u32 <= super::term::MAX_CHAR)?;
                Str(c.to_string())
            }
            (StrFn::Ord, [Str(c)]) => {
                let mut chars = c.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Int(BigInt::from(c as u32)),
                    _ => return None,
                }
            }
            (StrFn::Repeat, [Str(s), Int(k)]) => {
                let k = if k.is_positive() { k.to_usize()? } else { 0 };
                if s.len().checked_mul(k)? > MAX_EVAL_LEN {
                    return None;
                }
                Str(s.repeat(k))
            }
            (StrFn::SplitItem(sep, i), [Str(s)]) if sep.as_deref() != Some("") => {
                Str(split(s, sep.as_deref())
                    .get(*i)
                    .copied()
                    .unwrap_or("")
                    .to_string())
            }
            (StrFn::SplitAtLeast(sep, k), [Str(s)]) if sep.as_deref() != Some("") => {
                Literal::Bool(split(s, sep.as_deref()).len() >= *k)
            }
            (StrFn::SplitRest(sep, k), [Str(s)]) if sep.as_deref() != Some("") => {
                let items = split_at_most(s, sep.as_deref(), *k);
                Str(if items.len() == k + 1 { items[*k] } else { "" }.to_string())
            }
            _ => return None,
        })
    }
}

/// `int(s)` for an ASCII `s` of at most [`MAX_STR_DIGITS`] characters: `Ok(None)` where
/// Python raises `ValueError`; `Err(())` outside the model.
fn parse_int(s: &str) -> Result<Option<BigInt>, ()> {
    if !s.is_ascii() || s.len() > MAX_STR_DIGITS {
        return Err(());
    }
    let core = s.trim_matches(|c| crate::symbolic::chars::INT_SPACE.contains(&c));
    let (negative, body) = match core.as_bytes().first() {
        Some(b'-') => (true, &core[1..]),
        Some(b'+') => (false, &core[1..]),
        _ => (false, core),
    };
    let well_formed = !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        && !body.starts_with('_')
        && !body.ends_with('_')
        && !body.contains("__");
    if !well_formed {
        return Ok(None);
    }
    let digits: String = body.chars().filter(|c| *c != '_').collect();
    let value: BigInt = digits.parse().map_err(|_| ())?;
    Ok(Some(if negative && !value.is_zero() {
        -value
    } else {
        value
    }))
}

/// Whether `f` calls `int()`, `str()` or `chr()` (its outputs then say so with
/// [`CONVERSION_NOTE`]).
pub fn uses_conversions(f: &Function) -> bool {
    super::chars::calls_any(f, |func| {
        matches!(func.as_name(), Some("int" | "str" | "chr"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_whitespace_is_cpythons() {
        // From CPython 3.11: all(chr(c).isspace() == (chr(c).strip() == '') for c in ...).
        assert_eq!(PY_SPACE.len(), 29);
        assert!(PY_SPACE.windows(2).all(|w| w[0] < w[1]));
    }
}
