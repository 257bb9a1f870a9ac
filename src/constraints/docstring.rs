//! Preconditions and postconditions written in a function's docstring, in PythonTA's two
//! forms: a line `Preconditions:` followed by `- expr` lines, or one line `Precondition: expr`
//! (the same for `Postconditions:`, whose expressions may name `$return_value`). One parser
//! read by `%constraints`, `%set` and `%verify`.

use crate::python::ir::Expr;
use crate::python::lower_expression;

/// One precondition as written, parsed when it is a Python expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The text after `- ` (or after `Precondition:`), trimmed.
    pub text: String,
    /// The expression, or why the text is not one.
    pub expr: Result<Expr, String>,
}

/// The preconditions of a (PEP 257-trimmed) docstring, in order. Empty entries (`-` alone,
/// `Precondition:` with nothing after it) are kept, with the reason, so nothing is dropped
/// silently.
pub fn preconditions(docstring: &str) -> Vec<Written> {
    section(docstring, "precondition")
}

/// The postconditions of a docstring, in order, with `$return_value` read as
/// [`RETURN_VALUE`] (the texts keep `$return_value` as written).
pub fn postconditions(docstring: &str) -> Vec<Written> {
    section(docstring, "postcondition")
}

/// The loop invariants of a docstring (`Loop invariants:` / `Loop invariant:`), in order.
pub fn loop_invariants(docstring: &str) -> Vec<Written> {
    section(docstring, "loop invariant")
}

/// A recursive function's measure (`Decreases: EXPR`), as a one-entry list (empty: none).
pub fn decreases(docstring: &str) -> Vec<Written> {
    section(docstring, "decreases")
}

/// One condition written outside a docstring (a `# invariant:` comment).
pub fn condition(text: &str) -> Written {
    written(text)
}

/// The Python name `$return_value` stands for in a postcondition's expression.
pub const RETURN_VALUE: &str = "__return_value__";

/// The entries of the section `word` (`precondition`, `postcondition`).
fn section(docstring: &str, word: &str) -> Vec<Written> {
    let lines: Vec<&str> = docstring.lines().map(str::trim).collect();
    let Some(start) = lines.iter().position(|l| starts_with_ci(l, word)) else {
        return Vec::new();
    };
    let header = lines[start];
    let plural = format!("{word}s:");
    if starts_with_ci(header, &plural) {
        let mut out = Vec::new();
        for line in &lines[start + 1..] {
            if let Some(item) = line.strip_prefix('-') {
                out.push(written(item));
            } else if !line.is_empty() {
                break;
            }
        }
        return out;
    }
    match header.split_once(':') {
        Some((head, rest)) if head.trim().eq_ignore_ascii_case(word) => {
            vec![written(rest)]
        }
        _ => Vec::new(),
    }
}

fn starts_with_ci(line: &str, prefix: &str) -> bool {
    line.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

fn written(text: &str) -> Written {
    let text = text.trim().to_string();
    let expr = if text.is_empty() {
        Err("empty condition".to_string())
    } else {
        lower_expression(&text.replace("$return_value", RETURN_VALUE))
            .map_err(|e| format!("SyntaxError: {}", e.message))
    };
    Written { text, expr }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(doc: &str) -> Vec<(String, bool)> {
        preconditions(doc)
            .into_iter()
            .map(|w| (w.text, w.expr.is_ok()))
            .collect()
    }

    #[test]
    fn a_measure_is_one_line() {
        let doc = "Factorial.\n\nPrecondition: n >= 0\n\nDecreases: n - 1\n";
        let m = decreases(doc);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].text, "n - 1");
        assert!(m[0].expr.is_ok());
        assert!(decreases("Precondition: n >= 0").is_empty());
        assert!(decreases("Decreases:")[0].expr.is_err());
    }

    #[test]
    fn both_forms_and_bad_entries() {
        let doc = "Return x // y.\n\nPreconditions:\n   - y != 0\n   -\n   - bad precondition\n\n   - x > 0\nReturns the quotient.\n- not this";
        assert_eq!(
            texts(doc),
            [
                ("y != 0".into(), true),
                ("".into(), false),
                ("bad precondition".into(), false),
                ("x > 0".into(), true),
            ]
        );
        assert_eq!(
            texts("Precondition: len(s) > 2"),
            [("len(s) > 2".into(), true)]
        );
        assert_eq!(texts("Precondition:"), [("".into(), false)]);
        assert_eq!(texts("precondition: a < b"), [("a < b".into(), true)]);
        assert!(texts("No conditions here.").is_empty());
        let post = postconditions(
            "Return the larger.\n\nPreconditions:\n- x > 0\n\nPostconditions:\n  - $return_value >= x\n  - $return_value in (x, y)\n",
        );
        assert_eq!(post.len(), 2);
        assert_eq!(post[0].text, "$return_value >= x");
        assert!(post.iter().all(|w| w.expr.is_ok()));
        assert_eq!(
            texts("Preconditions:\n- x > 0\nPostcondition: y")[0].0,
            "x > 0"
        );
        assert_eq!(
            postconditions("Postcondition: $return_value == 1")[0].text,
            "$return_value == 1"
        );
        let bad = preconditions("Preconditions:\n- x >");
        assert!(
            bad[0]
                .expr
                .as_ref()
                .is_err_and(|e| e.starts_with("SyntaxError"))
        );
    }
}
