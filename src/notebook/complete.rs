//! Completion and inspection for the front end (Tab and Shift-Tab).

use serde_json::json;

use super::commands::{self, Form};
use super::output::Bundle;
use super::session::Session;
use crate::cancel::Cancel;
use crate::interp;
use crate::python::builtins;
use crate::render::html::escape;

const KEYWORDS: &[&str] = &[
    "and", "assert", "break", "class", "continue", "def", "elif", "else", "except", "False",
    "finally", "for", "if", "in", "is", "lambda", "match", "None", "not", "or", "pass", "raise",
    "return", "True", "try", "while", "with",
];

/// Completion matches and the range (in characters) of the text they replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub matches: Vec<String>,
    pub cursor_start: usize,
    pub cursor_end: usize,
}

/// Completes at `cursor` (a character offset): commands and their options after `%`, defined
/// functions, parameters, builtins and keywords in Python.
pub fn complete(session: &Session, code: &str, cursor: usize) -> Completion {
    let before: String = code.chars().take(cursor).collect();
    let line = before.rsplit('\n').next().unwrap_or("");
    let word_len = line
        .chars()
        .rev()
        .take_while(|c| is_word_char(*c) || *c == '-' || *c == '%')
        .count();
    let word: String = line.chars().skip(line.chars().count() - word_len).collect();
    let mut matches: Vec<String> = Vec::new();

    if line.starts_with('%') && word_len == line.chars().count() {
        let cell = line.starts_with("%%");
        let prefix = word.trim_start_matches('%');
        for c in commands::COMMANDS {
            let usable = if cell {
                c.form != Form::Line
            } else {
                c.form != Form::Cell
            };
            if usable && c.name.starts_with(prefix) {
                matches.push(format!("{}{}", if cell { "%%" } else { "%" }, c.name));
            }
        }
    } else if line.starts_with('%') {
        let name = line
            .trim_start_matches('%')
            .split_whitespace()
            .next()
            .unwrap_or("");
        if let Some(cmd) = commands::find(name, false) {
            if word.starts_with('-') {
                matches.extend(
                    cmd.all_options()
                        .filter(|o| o.name.starts_with(&word))
                        .map(|o| o.name.to_string()),
                );
            } else {
                matches.extend(
                    cmd.words
                        .iter()
                        .filter(|w| w.starts_with(&word))
                        .map(|w| w.to_string()),
                );
                matches.extend(
                    super::views::user::words(session, name)
                        .into_iter()
                        .filter(|w| w.starts_with(&word))
                        .map(str::to_string),
                );
                if cmd.takes_function || name == "help" {
                    let names: Vec<String> = if name == "help" {
                        commands::COMMANDS
                            .iter()
                            .map(|c| c.name.to_string())
                            .collect()
                    } else {
                        session.functions().map(|f| f.name.clone()).collect()
                    };
                    matches.extend(names.into_iter().filter(|n| n.starts_with(&word)));
                }
            }
        }
    } else {
        let word_len = line
            .chars()
            .rev()
            .take_while(|c| is_word_char(*c) || *c == '.')
            .count();
        let prefix: String = line.chars().skip(line.chars().count() - word_len).collect();
        if !prefix.is_empty() {
            let mut names: Vec<String> = session
                .functions()
                .map(|f| short_name(&f.name).to_string())
                .collect();
            names.extend(
                session
                    .functions()
                    .filter(|f| f.name.contains('.'))
                    .map(|f| f.name.clone()),
            );
            names.extend(
                session
                    .functions()
                    .flat_map(|f| f.params.iter().map(|p| p.name.clone())),
            );
            names.extend(
                builtins::BUILTINS
                    .iter()
                    .filter(|b| interp::builtin_support(b.name) == Some(true))
                    .map(|b| b.name.to_string()),
            );
            names.extend(KEYWORDS.iter().map(|k| k.to_string()));
            matches.extend(
                names
                    .into_iter()
                    .filter(|n| n.starts_with(&prefix) && *n != prefix),
            );
        }
        matches.sort();
        matches.dedup();
        return Completion {
            matches,
            cursor_start: cursor - word_len,
            cursor_end: cursor,
        };
    }
    matches.sort();
    matches.dedup();
    Completion {
        matches,
        cursor_start: cursor - word_len,
        cursor_end: cursor,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn short_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Documentation of the name under `cursor`: a command's help, a function's signature,
/// docstring and summary (its source too at `detail_level` 1), a class or variable the cells
/// bound (see `value_inspection`), or a builtin's description.
pub fn inspect(
    session: &mut Session,
    code: &str,
    cursor: usize,
    detail_level: u8,
) -> Option<Bundle> {
    let chars: Vec<char> = code.chars().collect();
    let cursor = cursor.min(chars.len());
    let is_name = |c: char| is_word_char(c) || c == '.' || c == '%';
    let mut start = cursor;
    while start > 0 && is_name(chars[start - 1]) {
        start -= 1;
    }
    let mut end = cursor;
    while end < chars.len() && is_name(chars[end]) {
        end += 1;
    }
    let word: String = chars[start..end].iter().collect();
    let word = word.trim_end_matches('.');
    if word.is_empty() {
        return None;
    }
    let text = if let Some(name) = word.strip_prefix('%') {
        commands::find(name.trim_start_matches('%'), false)?.help_text()
    } else if let Some(f) = session.function(word).or_else(|| {
        let mut matching = session.functions().filter(|f| short_name(&f.name) == word);
        matching.next()
    }) {
        let mut text = format!("Signature: {}\n", f.signature());
        if let Some(doc) = &f.docstring {
            text.push_str(&format!("Docstring:\n{doc}\n"));
        }
        let params = f.params.len();
        text.push_str(&format!(
            "Summary: {}, {} parameter{}, defined at cell lines {}–{}\n",
            f.name,
            params,
            if params == 1 { "" } else { "s" },
            f.lines.0,
            f.lines.1
        ));
        if detail_level > 0 {
            text.push_str(&format!("Source:\n{}\n", f.source));
        }
        text
    } else if let Some(text) = value_inspection(session, word, detail_level) {
        text
    } else {
        let b = builtins::get(word).filter(|b| b.kind != builtins::Kind::Constant)?;
        let support = match interp::builtin_support(b.name) {
            Some(true) => "",
            _ => " (not available in cells)",
        };
        format!(
            "Builtin {}{support}: {}\n{}\n",
            kind_word(b.kind),
            b.name,
            b.doc
        )
    };
    let html = format!("<pre>{}</pre>", escape(&text));
    Some(Bundle::text(text).with("text/html", json!(html)))
}

/// IPython's inspection of a global the cells bound: a class (its init signature, docstring,
/// source at `detail_level` 1) or any other value (its type, string form and the docstring
/// of its class). `None` when no global has that name.
fn value_inspection(session: &mut Session, name: &str, detail_level: u8) -> Option<String> {
    let variables = session.interpreter.variables(&Cancel::new()).ok()?;
    let v = variables.into_iter().find(|v| v.name == name)?;
    let doc = v.doc.clone().or_else(|| {
        builtins::get(&v.type_name)
            .filter(|b| b.kind == builtins::Kind::Type)
            .map(|b| b.doc.to_string())
    });
    let mut rows: Vec<(&str, String)> = Vec::new();
    match session.class(name).filter(|_| v.type_name == "type") {
        Some(class) => {
            if let Some(init) = session.function(&format!("{name}.__init__")) {
                let params: Vec<String> = init.signature_params().into_iter().skip(1).collect();
                rows.push(("Init signature", format!("{name}({})", params.join(", "))));
            }
            if detail_level > 0 {
                rows.push(("Source", format!("\n{}", class.source)));
            } else if let Some(doc) = &class.docstring {
                rows.push(("Docstring", doc.clone()));
            }
            rows.push(("Type", v.type_name));
        }
        None => {
            rows.push(("Type", v.type_name));
            rows.push(("String form", v.repr));
            if let Some(doc) = doc {
                rows.push(("Docstring", doc));
            }
        }
    }
    let width = rows.iter().map(|(l, _)| l.len() + 1).max().unwrap_or(0);
    let lines: Vec<String> = rows
        .iter()
        .map(|(label, value)| format!("{:<width$} {value}", format!("{label}:")))
        .collect();
    Some(lines.join("\n") + "\n")
}

/// How the inspect reply names a builtin's kind.
fn kind_word(kind: builtins::Kind) -> &'static str {
    match kind {
        builtins::Kind::Function | builtins::Kind::Site => "function",
        builtins::Kind::Type => "class",
        builtins::Kind::Constant => "constant",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::notebook::{Ctx, Output};

    fn session_with(code: &str) -> Session {
        let mut s = Session::default();
        let mut out: Vec<Output> = Vec::new();
        let cancel = Cancel::new();
        s.execute(
            code,
            &mut Ctx {
                sink: &mut out,
                cancel: &cancel,
            },
        )
        .unwrap();
        s
    }

    #[test]
    fn completes_commands_options_and_names() {
        let s = session_with("def absolute(value: int):\n    '''Abs.'''\n    return value\n");
        let c = complete(&s, "%lsm", 4);
        assert_eq!(c.matches, ["%lsmagic"]);
        assert_eq!((c.cursor_start, c.cursor_end), (0, 4));
        assert_eq!(complete(&s, "%%do", 4).matches, ["%%dot"]);
        assert_eq!(complete(&s, "%who --s", 8).matches, ["--save"]);
        assert_eq!(complete(&s, "%help lsm", 9).matches, ["lsmagic"]);
        assert_eq!(complete(&s, "x = ab", 6).matches, ["abs", "absolute"]);
        assert_eq!(complete(&s, "va", 2).matches, ["value", "vars"]);
        // Builtins a cell refuses are not offered.
        assert_eq!(complete(&s, "ope", 3).matches, Vec::<String>::new());
        assert_eq!(complete(&s, "y = 1 + ", 8).matches, Vec::<String>::new());
    }

    #[test]
    fn inspects_functions_commands_builtins() {
        let mut s = session_with("def absolute(value: int):\n    '''Abs.'''\n    return value\n");
        let b = inspect(&mut s, "absolute(3)", 3, 0).unwrap();
        let t = b.plain_text().unwrap();
        assert!(
            t.contains("Signature: absolute(value: int)")
                && t.contains("Abs.")
                && t.contains("lines 1–3"),
            "{t}"
        );
        assert!(
            inspect(&mut s, "absolute", 3, 1)
                .unwrap()
                .plain_text()
                .unwrap()
                .contains("Source:")
        );
        assert!(
            inspect(&mut s, "%config", 2, 0)
                .unwrap()
                .plain_text()
                .unwrap()
                .starts_with("%config")
        );
        let len = inspect(&mut s, "len", 1, 0).unwrap();
        assert_eq!(
            len.plain_text().unwrap(),
            "Builtin function: len\nReturn the number of items in a container.\n"
        );
        let open = inspect(&mut s, "open", 1, 0).unwrap();
        assert!(
            open.plain_text()
                .unwrap()
                .starts_with("Builtin function (not available in cells): open"),
            "{open:?}"
        );
        assert!(inspect(&mut s, "nothing_here", 3, 0).is_none());
    }

    #[test]
    fn inspects_classes_and_variables() {
        let mut s = session_with(
            "class Point:\n    \"A point.\"\n    def __init__(self, x, y=0):\n        self.x = x\n\np = Point(1)\nn = 3\n",
        );
        let text = |s: &mut Session, name: &str, detail: u8| {
            inspect(s, name, 1, detail)
                .and_then(|b| b.plain_text().map(str::to_string))
                .unwrap_or_default()
        };
        assert_eq!(
            text(&mut s, "Point", 0),
            "Init signature: Point(x, y=0)\nDocstring:      A point.\nType:           type\n"
        );
        let source = text(&mut s, "Point", 1);
        assert!(
            source.contains("Source:         \nclass Point:\n    \"A point.\""),
            "{source}"
        );
        assert_eq!(
            text(&mut s, "p", 0),
            "Type:        Point\nString form: <Point object>\nDocstring:   A point.\n"
        );
        assert!(text(&mut s, "n", 0).starts_with("Type:        int\nString form: 3\nDocstring:"));
    }
}
