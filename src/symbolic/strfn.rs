//! String methods and conversions beyond the character classes of [`crate::symbolic::chars`]:
//! `s.strip()`/`lstrip`/`rstrip` (Python whitespace or a constant character set),
//! `s.count(sub)`, `s.replace(old, new)` with a constant non-empty `old`, `str(n)`,
//! `int(s)`, `chr(i)`, `ord(c)`, `s * k` with a non-constant `k`, and the pieces of
//! `s.split(sep)` (a constant non-empty `sep`, or none: runs of Python whitespace).
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
    /// Item `i` of `s.split(sep)` (`[s]`), `""` when there are at most `i` items.
    SplitItem(Split, usize),
    /// Whether `s.split(sep)` has at least `k` items (`[s]`).
    SplitAtLeast(Split, usize),
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

/// The separator of `s.split(…)` with these arguments: `Some(None)` for no argument (or
/// `None`), `Some(Some(sep))` for a constant non-empty `sep`; `None` for anything else
/// (`maxsplit`, a variable or empty separator).
pub fn split_sep(args: &[Expr]) -> Option<Split> {
    match args {
        [] => Some(None),
        [a] => match &a.kind {
            ExprKind::Constant(Constant::None) => Some(None),
            ExprKind::Constant(Constant::Str(sep)) if !sep.is_empty() => Some(Some(sep.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// `receiver.split(…)` as a receiver and separator, when `e` is a call this model splits.
pub fn as_split(e: &Expr) -> Option<(&Expr, Split)> {
    match e.as_method_call()? {
        (receiver, "split", args) => Some((receiver, split_sep(args)?)),
        _ => None,
    }
}

/// The items of `s.split(sep)`, as Python computes them (`sep` non-empty).
pub fn split<'s>(s: &'s str, sep: Option<&str>) -> Vec<&'s str> {
    match sep {
        Some(sep) => s.split(sep).collect(),
        None => s
            .split(|c| PY_SPACE.contains(&c))
            .filter(|w| !w.is_empty())
            .collect(),
    }
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
            StrFn::Count | StrFn::Replace(_) | StrFn::Repeat => 2,
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
