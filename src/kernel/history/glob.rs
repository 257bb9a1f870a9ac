//! SQLite's `GLOB`, which IPython's history search runs: `*` any run, `?` one character,
//! `[...]` a set with ranges (`[^...]` its complement, `]` first is literal, `-` first or last is
//! literal), everything else literal and case-sensitive, matched against the whole text. A set
//! without its closing `]` matches nothing, as in SQLite.

/// One element of a compiled pattern.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Literal(char),
    /// `?`
    One,
    /// `*`
    Any,
    /// `[...]`: inclusive ranges (a single character is a range of one), maybe complemented.
    Set {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    /// `[` with no closing `]`.
    Unclosed,
}

impl Token {
    /// Whether this single-character token matches `c`.
    fn matches(&self, c: char) -> bool {
        match self {
            Token::Literal(l) => *l == c,
            Token::One => true,
            Token::Set { negated, ranges } => {
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
            }
            Token::Any | Token::Unclosed => false,
        }
    }
}

/// A compiled `GLOB` pattern.
#[derive(Clone, Debug)]
pub struct Glob(Vec<Token>);

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        let mut tokens = Vec::new();
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            tokens.push(match c {
                '*' => Token::Any,
                '?' => Token::One,
                '[' => set(&mut chars),
                c => Token::Literal(c),
            });
        }
        Glob(tokens)
    }

    /// Whether the whole of `text` matches, by the classic greedy walk that backtracks to the
    /// last `*` (every other token takes exactly one character).
    pub fn matches(&self, text: &str) -> bool {
        let p = &self.0;
        let t: Vec<char> = text.chars().collect();
        let (mut pi, mut ti) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            match p.get(pi) {
                Some(Token::Any) => {
                    star = Some((pi, ti));
                    pi += 1;
                }
                Some(token) if token.matches(t[ti]) => {
                    pi += 1;
                    ti += 1;
                }
                _ => match star {
                    Some((s, mark)) => {
                        pi = s + 1;
                        ti = mark + 1;
                        star = Some((s, mark + 1));
                    }
                    None => return false,
                },
            }
        }
        p[pi..].iter().all(|token| *token == Token::Any)
    }
}

/// The set after a `[`, up to its `]`, as SQLite's `patternCompare` reads it.
fn set(chars: &mut std::iter::Peekable<std::str::Chars>) -> Token {
    let negated = chars.next_if_eq(&'^').is_some();
    let mut ranges = Vec::new();
    if chars.next_if_eq(&']').is_some() {
        ranges.push((']', ']'));
    }
    // The previous character, when it can start a range.
    let mut prior: Option<char> = None;
    loop {
        match chars.next() {
            None => return Token::Unclosed,
            Some(']') => return Token::Set { negated, ranges },
            Some('-') if prior.is_some() && chars.peek().is_some_and(|&n| n != ']') => {
                if let (Some(lo), Some(hi)) = (prior.take(), chars.next()) {
                    // The single character pushed for `lo` becomes the range.
                    ranges.pop();
                    ranges.push((lo, hi));
                }
            }
            Some(c) => {
                ranges.push((c, c));
                prior = Some(c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (pattern, text, SQLite's answer), each checked with `SELECT text GLOB pattern`.
    const CASES: &[(&str, &str, bool)] = &[
        ("6 *", "6 * 7", true),
        ("6*", "6 * 7", true),
        ("6*?", "6*7", true),
        ("6*?", "6", false),
        ("a*c", "abbbc", true),
        ("?b*", "ab", true),
        ("a*d", "abc", false),
        ("[abc]x", "bx", true),
        ("[^abc]x", "bx", false),
        ("[^abc]x", "dx", true),
        ("[a-c]", "b", true),
        ("[a-c]", "d", false),
        ("[c-a]", "b", false),
        ("[]]", "]", true),
        ("[^]]", "]", false),
        ("[^]]", "a", true),
        ("[]", "]", false),
        ("[", "[", false),
        ("a[", "a[", false),
        ("*[", "a[", false),
        ("[-a]", "-", true),
        ("[a-]", "-", true),
        ("[a-c-e]", "-", true),
        ("[a-c-e]", "d", false),
        ("[a-c-e]", "e", true),
        ("A*", "abc", false),
        ("*", "", true),
        ("?", "", false),
        ("", "", true),
        ("", "a", false),
        ("*?*", "a", true),
        ("*?*", "", false),
        ("[*]", "*", true),
        ("[?]", "?", true),
        ("[?]", "a", false),
        ("\\*", "\\x", true),
        ("é?", "éa", true),
        ("?", "é", true),
        ("*x*", "a\nxb", true),
        ("a?c", "a\nc", true),
        ("[^a]", "", false),
        ("*a*b", "xaxxbxb", true),
        ("*a*b", "xaxxbx", false),
    ];

    #[test]
    fn agrees_with_sqlite() {
        for &(pattern, text, expected) in CASES {
            assert_eq!(
                Glob::new(pattern).matches(text),
                expected,
                "{pattern:?} GLOB {text:?}"
            );
        }
    }
}
