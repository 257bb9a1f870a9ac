//! Character-class tests (`s.isdigit()`, `isalpha`, `isalnum`, `isspace`, `isupper`,
//! `islower`) and case maps (`s.lower()`, `upper`, `swapcase`, `capitalize`, `title`),
//! modelled over ASCII.
//!
//! Python's versions are Unicode-wide (`"٣".isdigit()`, `"ß".upper() == "SS"`); this model
//! is exact only for ASCII strings. So the translation takes them only on strings built from
//! ASCII literals and input variables (`ascii_only`), and the lowering constrains each string
//! variable they read to ASCII: a path through one of them is claimed for ASCII inputs (the
//! outputs say so, see [`ASCII_NOTE`]).

use super::Sort;
use super::term::{Literal, Term, TermKind};
use crate::python::ir::{Expr, ExprKind, Function};

/// What the outputs say when a function uses these methods.
pub const ASCII_NOTE: &str = "strings read by .isdigit()/.isalpha()/.isalnum()/.isspace()/.isupper()/.islower()/.lower()/.upper()/.swapcase()/.capitalize()/.title() are taken to be ASCII";

/// `s.isdigit()` and its kin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CharTest {
    Digit,
    Alpha,
    Alnum,
    Space,
    Upper,
    Lower,
}

/// `s.lower()`, `s.upper()`, `s.swapcase()`, `s.capitalize()`, `s.title()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CaseMap {
    Lower,
    Upper,
    Swap,
    /// The first character upper-cased, the others lower-cased.
    Capitalize,
    /// Each letter upper-cased after a non-letter (or at the start), lower-cased after a
    /// letter: over ASCII the cased characters are the letters.
    Title,
}

/// What `lower()` moves: `A`–`Z` up 32 code points.
pub const LOWER_MOVES: &[(char, char, i32)] = &[('A', 'Z', 32)];
/// What `upper()` moves: `a`–`z` down 32 code points.
pub const UPPER_MOVES: &[(char, char, i32)] = &[('a', 'z', -32)];

/// Python's ASCII whitespace (`str.isspace`): `\t\n\x0b\x0c\r`, `\x1c`–`\x1f` and space.
pub const ASCII_SPACE: &[char] = &[
    '\t', '\n', '\x0b', '\x0c', '\r', '\x1c', '\x1d', '\x1e', '\x1f', ' ',
];

/// The ASCII whitespace `int(s)` strips: C's `isspace`, without the separators `\x1c`–`\x1f`
/// that `str.isspace` counts (`int('\x1c9')` is a `ValueError`).
pub const INT_SPACE: &[char] = &['\t', '\n', '\x0b', '\x0c', '\r', ' '];

impl CharTest {
    pub fn from_method(name: &str) -> Option<CharTest> {
        Some(match name {
            "isdigit" => CharTest::Digit,
            "isalpha" => CharTest::Alpha,
            "isalnum" => CharTest::Alnum,
            "isspace" => CharTest::Space,
            "isupper" => CharTest::Upper,
            "islower" => CharTest::Lower,
            _ => return None,
        })
    }

    pub fn method(self) -> &'static str {
        match self {
            CharTest::Digit => "isdigit",
            CharTest::Alpha => "isalpha",
            CharTest::Alnum => "isalnum",
            CharTest::Space => "isspace",
            CharTest::Upper => "isupper",
            CharTest::Lower => "islower",
        }
    }

    /// Whether one ASCII character is in the class (for `isupper`/`islower`: is an upper/lower
    /// case letter).
    pub fn holds_for(self, c: char) -> bool {
        match self {
            CharTest::Digit => c.is_ascii_digit(),
            CharTest::Alpha => c.is_ascii_alphabetic(),
            CharTest::Alnum => c.is_ascii_alphanumeric(),
            CharTest::Space => ASCII_SPACE.contains(&c),
            CharTest::Upper => c.is_ascii_uppercase(),
            CharTest::Lower => c.is_ascii_lowercase(),
        }
    }

    /// Python's result on an ASCII string; `None` when `s` is not ASCII.
    pub fn eval(self, s: &str) -> Option<bool> {
        if !s.is_ascii() {
            return None;
        }
        Some(match self {
            // At least one cased character, and none of the other case.
            CharTest::Upper => {
                s.chars().any(|c| c.is_ascii_uppercase())
                    && !s.chars().any(|c| c.is_ascii_lowercase())
            }
            CharTest::Lower => {
                s.chars().any(|c| c.is_ascii_lowercase())
                    && !s.chars().any(|c| c.is_ascii_uppercase())
            }
            _ => !s.is_empty() && s.chars().all(|c| self.holds_for(c)),
        })
    }
}

impl CaseMap {
    pub fn from_method(name: &str) -> Option<CaseMap> {
        Some(match name {
            "lower" => CaseMap::Lower,
            "upper" => CaseMap::Upper,
            "swapcase" => CaseMap::Swap,
            "capitalize" => CaseMap::Capitalize,
            "title" => CaseMap::Title,
            _ => return None,
        })
    }

    pub fn method(self) -> &'static str {
        match self {
            CaseMap::Lower => "lower",
            CaseMap::Upper => "upper",
            CaseMap::Swap => "swapcase",
            CaseMap::Capitalize => "capitalize",
            CaseMap::Title => "title",
        }
    }

    /// The letters this map changes, and by how much their code point moves, when it maps
    /// each character on its own; `None` for `capitalize` and `title`, which upper-case
    /// ([`UPPER_MOVES`]) or lower-case ([`LOWER_MOVES`]) a character by its position.
    pub fn moves(self) -> Option<&'static [(char, char, i32)]> {
        match self {
            CaseMap::Lower => Some(LOWER_MOVES),
            CaseMap::Upper => Some(UPPER_MOVES),
            CaseMap::Swap => Some(&[('A', 'Z', 32), ('a', 'z', -32)]),
            CaseMap::Capitalize | CaseMap::Title => None,
        }
    }

    /// Python's result on an ASCII string; `None` when `s` is not ASCII.
    pub fn eval(self, s: &str) -> Option<String> {
        if !s.is_ascii() {
            return None;
        }
        Some(match self {
            CaseMap::Lower => s.to_ascii_lowercase(),
            CaseMap::Upper => s.to_ascii_uppercase(),
            CaseMap::Swap => s
                .chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect(),
            CaseMap::Capitalize => s
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect(),
            CaseMap::Title => {
                let mut after_letter = false;
                s.chars()
                    .map(|c| {
                        let out = if after_letter {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        };
                        after_letter = c.is_ascii_alphabetic();
                        out
                    })
                    .collect()
            }
        })
    }
}

/// Whether `f` calls one of the methods modelled over ASCII (its outputs then say so with
/// [`ASCII_NOTE`]).
pub fn uses_ascii_model(f: &Function) -> bool {
    calls_any(f, |func| {
        matches!(&func.kind, ExprKind::Attribute { attr, .. }
            if CharTest::from_method(attr).is_some() || CaseMap::from_method(attr).is_some())
    })
}

/// Whether some call in `f`'s body has a callee `hit` accepts.
pub fn calls_any(f: &Function, hit: impl Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    for stmt in &f.body {
        stmt.walk(&mut |s| {
            for e in s.exprs() {
                e.walk(&mut |x| {
                    if let ExprKind::Call { func, .. } = &x.kind {
                        found |= hit(func);
                    }
                });
            }
        });
    }
    found
}

/// What the outputs say about `f`'s strings: [`ASCII_NOTE`] and
/// [`crate::symbolic::strfn::CONVERSION_NOTE`] when they apply.
pub fn model_notes(f: &Function) -> Vec<String> {
    let mut notes = Vec::new();
    if uses_ascii_model(f) {
        notes.push(ASCII_NOTE.to_string());
    }
    if super::strfn::uses_conversions(f) {
        notes.push(super::strfn::CONVERSION_NOTE.to_string());
    }
    notes
}

/// Why `s` may hold a character outside ASCII that the model cannot class: a non-ASCII
/// string literal, `chr(i)`, or a variable of a sequence of strings (whose items the lowering does not
/// constrain). `None` when `s` is built only from ASCII literals and string variables.
pub fn not_ascii_only(s: &Term) -> Option<String> {
    match s.kind() {
        TermKind::Literal(Literal::Str(text)) if !text.is_ascii() => {
            Some(format!("the literal {text:?} is not ASCII"))
        }
        TermKind::StrFn(super::strfn::StrFn::Chr, _) => {
            Some("chr() may give a character outside ASCII".to_string())
        }
        TermKind::Var(v)
            if !v.is_bound() && !matches!(s.sort(), Sort::Str) && holds_str(s.sort()) =>
        {
            Some(format!(
                "the items of {} are not taken to be ASCII",
                v.display_name()
            ))
        }
        _ => s.children().into_iter().find_map(not_ascii_only),
    }
}

fn holds_str(sort: &Sort) -> bool {
    match sort {
        Sort::Str => true,
        Sort::Seq(_, item) => holds_str(item),
        Sort::Fixed(_, items) => items.iter().any(holds_str),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_classes_are_pythons() {
        // From CPython 3.11 over chr(0)..chr(127).
        let expected = [
            (CharTest::Digit, "0123456789"),
            (
                CharTest::Alpha,
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            ),
            (
                CharTest::Alnum,
                "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            ),
            (CharTest::Space, "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "),
            (CharTest::Upper, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
            (CharTest::Lower, "abcdefghijklmnopqrstuvwxyz"),
        ];
        for (test, chars) in expected {
            let got: String = (0u8..128)
                .map(char::from)
                .filter(|&c| test.eval(&c.to_string()) == Some(true))
                .collect();
            assert_eq!(got, chars, "{}", test.method());
        }
    }
}
