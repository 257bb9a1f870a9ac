//! A slice as Python: the function's source restricted to the slice's lines, with the
//! headers that enclose them (`if`, `else:`, `try:` and all its clauses, loops), `pass` in
//! blocks left empty, and optionally a statement recording the criterion's values.

use std::collections::BTreeSet;

/// The name of the list the recording statement appends to.
pub const RECORD: &str = "__slice_record";

/// The source of function `source` (dedented, its `def` on line `first`) keeping the
/// lines `keep`; with `record`, a statement before line `record.0` appends the values of
/// `record.1` there (`'<unbound>'` when one is not bound) to [`RECORD`].
pub fn program_text(
    source: &str,
    first: u32,
    keep: &BTreeSet<u32>,
    record: Option<(u32, &[String])>,
) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let indent = |i: usize| lines[i].len() - lines[i].trim_start().len();
    let code = |i: usize| {
        let t = lines[i].trim();
        !t.is_empty() && !t.starts_with('#')
    };
    let clause = |i: usize| {
        let t = lines[i].trim_start();
        ["else:", "elif ", "except", "finally:"].iter().any(|k| {
            t.starts_with(k)
                || (k.ends_with(':')
                    && t.starts_with(&k[..k.len() - 1])
                    && t[k.len() - 1..].trim_start().starts_with(':'))
        })
    };
    let mut kept = vec![false; lines.len()];
    kept[0] = true;
    for &l in keep {
        if let Some(i) = l.checked_sub(first).map(|i| i as usize)
            && i < lines.len()
        {
            kept[i] = true;
        }
    }
    if let Some((l, _)) = record
        && let Some(i) = l.checked_sub(first).map(|i| i as usize)
        && i < lines.len()
    {
        kept[i] = true;
    }
    // Enclosing headers, and each kept clause's opener; until nothing changes.
    let mut changed = true;
    while changed {
        changed = false;
        for i in (1..lines.len()).rev() {
            if !kept[i] || !code(i) {
                continue;
            }
            let mut mark = |j: usize, kept: &mut Vec<bool>| {
                if !kept[j] {
                    kept[j] = true;
                    changed = true;
                }
            };
            // The nearest line above with less indent encloses this one.
            if let Some(j) = (0..i).rev().find(|&j| code(j) && indent(j) < indent(i)) {
                mark(j, &mut kept);
            }
            // A clause needs the clauses before it up to its opener.
            if clause(i) {
                for j in (0..i).rev() {
                    if !code(j) || indent(j) > indent(i) {
                        continue;
                    }
                    if indent(j) < indent(i) {
                        break;
                    }
                    mark(j, &mut kept);
                    if !clause(j) {
                        break;
                    }
                }
            }
            // A kept `try:` keeps its `except` and `finally` clauses (catching stays as it was).
            if lines[i].trim_start().starts_with("try") && lines[i].trim_end().ends_with(':') {
                for j in i + 1..lines.len() {
                    if !code(j) || indent(j) > indent(i) {
                        continue;
                    }
                    if indent(j) < indent(i) || !clause(j) {
                        break;
                    }
                    let t = lines[j].trim_start();
                    if t.starts_with("except") || t.starts_with("finally") {
                        mark(j, &mut kept);
                    }
                }
            }
        }
    }
    // Continuation lines of a kept statement (an open bracket) stay with it.
    let mut out: Vec<String> = Vec::new();
    let mut depth: i32 = 0;
    for i in 0..lines.len() {
        let continuing = depth > 0;
        if continuing || kept[i] {
            if !continuing
                && let Some((l, vars)) = record
                && l.checked_sub(first) == Some(i as u32)
            {
                let pad = " ".repeat(indent(i));
                let tuple = match vars {
                    [one] => format!("({one},)"),
                    _ => format!("({})", vars.join(", ")),
                };
                out.push(format!("{pad}try:"));
                out.push(format!("{pad}    __slice_seen = {tuple}"));
                out.push(format!("{pad}except NameError:"));
                out.push(format!("{pad}    __slice_seen = '<unbound>'"));
                out.push(format!("{pad}{RECORD}.append(__slice_seen)"));
            }
            out.push(lines[i].to_string());
            depth += bracket_balance(lines[i]);
        }
    }
    fill_empty_blocks(out)
}

/// `(`, `[`, `{` opened minus closed, outside strings (roughly: quotes toggle).
fn bracket_balance(line: &str) -> i32 {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') => break,
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// `pass` under each header whose block kept nothing.
fn fill_empty_blocks(lines: Vec<String>) -> String {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let opens = |l: &str| {
        let t = l.split('#').next().unwrap_or("").trim_end();
        t.ends_with(':') && !t.trim_start().starts_with("lambda")
    };
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        out.push(l.clone());
        if opens(l) {
            let next = lines[i + 1..]
                .iter()
                .find(|n| !n.trim().is_empty() && !n.trim_start().starts_with('#'));
            if next.is_none_or(|n| indent(n) <= indent(l)) {
                out.push(format!("{}    pass", " ".repeat(indent(l))));
            }
        }
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_clauses_and_empty_blocks() {
        let src = "def f(a):\n    x = 0\n    y = 0\n    if a > 0:\n        y = 1\n    else:\n        x = 2\n    try:\n        x = 10 // a\n    except ZeroDivisionError:\n        y = 5\n    return x\n";
        // Keep x's statements only (lines relative: def on line 1).
        let keep: BTreeSet<u32> = [2, 4, 7, 9, 12].into_iter().collect();
        let vars = ["x".to_string()];
        let text = program_text(src, 1, &keep, Some((12, &vars)));
        expect_test::expect![[r#"
            def f(a):
                x = 0
                if a > 0:
                    pass
                else:
                    x = 2
                try:
                    x = 10 // a
                except ZeroDivisionError:
                    pass
                try:
                    __slice_seen = (x,)
                except NameError:
                    __slice_seen = '<unbound>'
                __slice_record.append(__slice_seen)
                return x
        "#]]
        .assert_eq(&text);
    }
}
