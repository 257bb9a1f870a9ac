//! A user's finite order, as the body of a `%%lattice` cell. Two forms:
//!
//! ```text
//! # order lines: chains of `<` (or `>`); a comma lists several elements at once
//! ⊥ < a, b < ⊤
//! a < c
//! ```
//!
//! ```text
//! # a join table: a header row of elements, then one row per element
//! ⊔ | ⊥ a ⊤
//! ⊥ | ⊥ a ⊤
//! a | a a ⊤
//! ⊤ | ⊤ ⊤ ⊤
//! ```
//!
//! Names are words; `{x, y}`, `(a, b)`, `[0, 1]` and quoted text count as one name. Lines
//! starting with `#` are comments. `<=`, `≤`, `>=`, `≥` mean the same as `<` and `>`.

use super::{FiniteOrder, OrderError};

/// A token of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Name(String),
    Below,
    Above,
    Comma,
    Bar,
}

/// The order a `%%lattice` body describes.
pub fn parse_order(name: &str, body: &str) -> Result<FiniteOrder, OrderError> {
    let lines: Vec<(usize, Vec<Token>)> = body
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#') && !is_rule(l))
        .map(|(i, l)| {
            lex(l)
                .map(|t| (i + 1, t))
                .map_err(|message| OrderError::Syntax {
                    line: i + 1,
                    message,
                })
        })
        .collect::<Result<_, _>>()?;
    if lines.is_empty() {
        return Err(OrderError::Usage(
            "%%lattice needs a body: lines like `a < b < c`, or a join table".into(),
        ));
    }
    if lines.iter().any(|(_, t)| t.contains(&Token::Bar)) {
        join_table(name, &lines)
    } else {
        order_lines(name, &lines)
    }
}

/// A table rule such as `--+----` or `|---|---|`.
fn is_rule(line: &str) -> bool {
    let t = line.trim();
    t.contains('-')
        && t.chars()
            .all(|c| matches!(c, '-' | '+' | '|' | ':' | '=' | ' '))
}

fn order_lines(name: &str, lines: &[(usize, Vec<Token>)]) -> Result<FiniteOrder, OrderError> {
    let mut elements: Vec<String> = Vec::new();
    let mut pairs = Vec::new();
    for (line, tokens) in lines {
        let syntax = |message: String| OrderError::Syntax {
            line: *line,
            message,
        };
        // Groups of names between the `<`/`>` operators.
        let mut groups: Vec<Vec<usize>> = vec![Vec::new()];
        let mut operators = Vec::new();
        let mut expect_name = true;
        for token in tokens {
            match token {
                Token::Name(n) if expect_name => {
                    let index = elements.iter().position(|e| e == n).unwrap_or_else(|| {
                        elements.push(n.clone());
                        elements.len() - 1
                    });
                    if let Some(group) = groups.last_mut() {
                        group.push(index);
                    }
                    expect_name = false;
                }
                Token::Name(n) => {
                    return Err(syntax(format!("expected `<`, `>` or `,` before {n:?}")));
                }
                Token::Comma if !expect_name => expect_name = true,
                Token::Below | Token::Above if !expect_name => {
                    operators.push(token.clone());
                    groups.push(Vec::new());
                    expect_name = true;
                }
                Token::Bar => return Err(syntax("`|` belongs in a join table".into())),
                other => return Err(syntax(format!("expected a name before {}", symbol(other)))),
            }
        }
        if expect_name {
            return Err(syntax("the line ends where a name is expected".into()));
        }
        for (k, op) in operators.iter().enumerate() {
            for &a in &groups[k] {
                for &b in &groups[k + 1] {
                    pairs.push(if *op == Token::Below { (a, b) } else { (b, a) });
                }
            }
        }
    }
    FiniteOrder::from_pairs(name, elements, &pairs)
}

fn join_table(name: &str, lines: &[(usize, Vec<Token>)]) -> Result<FiniteOrder, OrderError> {
    let names_of = |tokens: &[Token], line: usize| -> Result<Vec<String>, OrderError> {
        tokens
            .iter()
            .filter(|t| !matches!(t, Token::Bar | Token::Comma))
            .map(|t| match t {
                Token::Name(n) => Ok(n.clone()),
                other => Err(OrderError::Syntax {
                    line,
                    message: format!("unexpected {} in a join table", symbol(other)),
                }),
            })
            .collect()
    };
    let Some(((header_line, header), rows)) = lines.split_first() else {
        return Err(OrderError::Usage("the join table is empty".into()));
    };
    let mut header = names_of(header, *header_line)?;
    // The header may start with a corner label (`⊔`, `join`) above the row labels.
    if header.len() == rows.len() + 1 {
        header.remove(0);
    }
    if header.len() != rows.len() {
        return Err(OrderError::Syntax {
            line: *header_line,
            message: format!(
                "the header names {} elements but the table has {} rows",
                header.len(),
                rows.len()
            ),
        });
    }
    super::check_unique(&header)?;
    let n = header.len();
    let index = |name: &str, line: usize| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| OrderError::Syntax {
                line,
                message: format!("{name:?} is not an element of the header"),
            })
    };
    let mut table = vec![Vec::new(); n];
    for (line, tokens) in rows {
        let cells = names_of(tokens, *line)?;
        let Some((label, entries)) = cells.split_first() else {
            continue;
        };
        let row = index(label, *line)?;
        if !table[row].is_empty() {
            return Err(OrderError::Syntax {
                line: *line,
                message: format!("a second row for {label:?}"),
            });
        }
        if entries.len() != n {
            return Err(OrderError::Syntax {
                line: *line,
                message: format!(
                    "the row of {label:?} has {} entries, the header {n}",
                    entries.len()
                ),
            });
        }
        table[row] = entries
            .iter()
            .map(|e| index(e, *line))
            .collect::<Result<_, _>>()?;
    }
    // a ≤ b iff a ⊔ b = b.
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|&(a, b)| a != b && table[a][b] == b)
        .collect();
    Ok(FiniteOrder::from_pairs(name, header, &pairs)?.with_join_table(table))
}

fn symbol(t: &Token) -> &'static str {
    match t {
        Token::Name(_) => "a name",
        Token::Below => "`<`",
        Token::Above => "`>`",
        Token::Comma => "`,`",
        Token::Bar => "`|`",
    }
}

/// Splits a line into tokens. `<` and `>` (with an optional `=`) are operators when spaced
/// or glued to a preceding name (`a<b`); at the start of a word they begin a name (`<0`).
fn lex(line: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next_is_space = |k: usize| chars.get(k).is_none_or(|c| c.is_whitespace());
        if c.is_whitespace() {
            i += 1;
        } else if c == ',' {
            tokens.push(Token::Comma);
            i += 1;
        } else if c == '|' {
            tokens.push(Token::Bar);
            i += 1;
        } else if let Some(op) = operator(c) {
            let len = if chars.get(i + 1) == Some(&'=') && matches!(c, '<' | '>') {
                2
            } else {
                1
            };
            let glued = i > 0 && !chars[i - 1].is_whitespace();
            if glued || next_is_space(i + len) {
                tokens.push(op);
                i += len;
            } else {
                i = name(&chars, i, &mut tokens)?;
            }
        } else if c == '"' || c == '\'' {
            let end = chars[i + 1..]
                .iter()
                .position(|&d| d == c)
                .ok_or_else(|| format!("unclosed quote {c}"))?;
            tokens.push(Token::Name(chars[i + 1..i + 1 + end].iter().collect()));
            i += end + 2;
        } else {
            i = name(&chars, i, &mut tokens)?;
        }
    }
    Ok(tokens)
}

fn operator(c: char) -> Option<Token> {
    match c {
        '<' | '≤' => Some(Token::Below),
        '>' | '≥' => Some(Token::Above),
        _ => None,
    }
}

/// Reads a name from `start` (always taking its first character); brackets group their
/// content, spaces and commas included. Returns the position after it.
fn name(chars: &[char], start: usize, tokens: &mut Vec<Token>) -> Result<usize, String> {
    let mut depth: Vec<char> = Vec::new();
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' | '(' | '[' => depth.push(c),
            '}' | ')' | ']' => {
                let open = match c {
                    '}' => '{',
                    ')' => '(',
                    _ => '[',
                };
                if depth.pop() != Some(open) {
                    return Err(format!("unbalanced {c}"));
                }
            }
            _ if !depth.is_empty() || i == start => {}
            ',' | '|' | '<' | '>' => break,
            _ if c.is_whitespace() => break,
            _ => {}
        }
        i += 1;
    }
    if let Some(open) = depth.last() {
        return Err(format!("unclosed {open}"));
    }
    tokens.push(Token::Name(chars[start..i].iter().collect()));
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::super::laws::check;
    use super::*;

    fn covers(o: &FiniteOrder) -> Vec<String> {
        o.covers()
            .iter()
            .map(|&(a, b)| format!("{} < {}", o.element(a), o.element(b)))
            .collect()
    }

    #[test]
    fn chains_and_lists() {
        let o = parse_order("d", "# a diamond\n⊥ < a, b < ⊤\n").unwrap();
        assert_eq!(o.elements(), ["⊥", "a", "b", "⊤"]);
        assert_eq!(covers(&o), ["⊥ < a", "⊥ < b", "a < ⊤", "b < ⊤"]);
        assert!(check(&o).is_lattice);
        let g = parse_order("g", "top > mid>bottom\nlonely").unwrap();
        assert_eq!(g.elements(), ["top", "mid", "bottom", "lonely"]);
        assert_eq!(covers(&g), ["mid < top", "bottom < mid"]);
    }

    #[test]
    fn names_with_brackets_quotes_and_signs() {
        let o = parse_order("z", "set() < {ZERO}, {NONZERO} < {NONZERO, ZERO}").unwrap();
        assert_eq!(
            o.elements(),
            ["set()", "{ZERO}", "{NONZERO}", "{NONZERO, ZERO}"]
        );
        let s = parse_order("s", "⊥ < <0 < ≤0 <= ⊤\n'a b' ≤ ⊤").unwrap();
        assert_eq!(s.elements(), ["⊥", "<0", "≤0", "⊤", "a b"]);
        assert_eq!(covers(&s), ["⊥ < <0", "<0 < ≤0", "≤0 < ⊤", "a b < ⊤"]);
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = |body: &str| parse_order("x", body).unwrap_err().to_string();
        assert_eq!(
            err("a < b\n\na < < c"),
            "line 3: expected a name before `<`"
        );
        assert_eq!(
            err("a < b <"),
            "line 1: the line ends where a name is expected"
        );
        assert_eq!(
            err("a b < c"),
            "line 1: expected `<`, `>` or `,` before \"b\""
        );
        assert_eq!(err("{a < b"), "line 1: unclosed {");
        assert!(err("# nothing\n").contains("needs a body"));
    }

    #[test]
    fn join_tables() {
        let body = "⊔ | ⊥ a b ⊤\n--+--------\n⊥ | ⊥ a b ⊤\na | a a ⊤ ⊤\nb | b ⊤ b ⊤\n⊤ | ⊤ ⊤ ⊤ ⊤\n";
        let o = parse_order("t", body).unwrap();
        assert_eq!(covers(&o), ["⊥ < a", "⊥ < b", "a < ⊤", "b < ⊤"]);
        let r = check(&o);
        assert!(r.is_lattice, "{r:?}");
        // Markdown style without a corner label.
        let md = "| | x | y |\n|---|---|---|\n| x | x | y |\n| y | y | y |\n";
        let m = parse_order("m", md).unwrap();
        assert_eq!(covers(&m), ["x < y"]);
    }

    #[test]
    fn broken_join_tables_are_reported() {
        // Not commutative: a ⊔ b = b but b ⊔ a = ⊤.
        let body = "j | ⊥ a b ⊤\n⊥ | ⊥ a b ⊤\na | a a b ⊤\nb | b ⊤ b ⊤\n⊤ | ⊤ ⊤ ⊤ ⊤\n";
        let r = check(&parse_order("t", body).unwrap());
        assert!(!r.is_lattice);
        assert!(
            r.violations
                .iter()
                .any(|v| v.message == "join table: a ⊔ b = b but b ⊔ a = ⊤ (not commutative)"),
            "{r:?}"
        );
        let err = |body: &str| parse_order("x", body).unwrap_err().to_string();
        assert_eq!(
            err("| a b\na | a b\nb | b\n"),
            "line 3: the row of \"b\" has 1 entries, the header 2"
        );
        assert_eq!(
            err("| a b\na | a c\nb | b b\n"),
            "line 2: \"c\" is not an element of the header"
        );
        assert_eq!(
            err("| a b c\na | a b c\n"),
            "line 1: the header names 3 elements but the table has 1 rows"
        );
    }
}
