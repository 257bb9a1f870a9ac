//! The DOT attributes that make Graphviz read local files, found by name before layout so
//! that `%%dot` refuses them with the attribute and line (safe mode would only warn).

/// Attributes whose value names a file Graphviz opens or searches (`stylesheet` is a
/// reference the SVG's reader would load).
const FILE_ATTRIBUTES: &[&str] = &[
    "image",
    "shapefile",
    "imagepath",
    "stylesheet",
    "fontpath",
    "fontnames",
];

/// A construct of the DOT source that reads a file, and its line (1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} (line {line}) makes Graphviz read a file, which is not allowed here")]
pub struct FileAttribute {
    /// `attribute image` or `<IMG> in an HTML label`.
    pub what: String,
    pub line: u32,
}

/// One DOT token: an ID (bare, quoted with `+` concatenations, or HTML) or a punctuation mark.
#[derive(Debug, PartialEq)]
enum Token {
    Id { text: String, html: bool, line: u32 },
    Punct(char),
}

/// Refuses `source` if it sets a file-reading attribute (by any spelling of the name: bare,
/// quoted, concatenated, HTML, any case) or has an `<IMG>` in an HTML string.
pub fn refuse_file_attributes(source: &str) -> Result<(), FileAttribute> {
    let tokens = tokens(source);
    for (i, token) in tokens.iter().enumerate() {
        let Token::Id { text, html, line } = token else {
            continue;
        };
        let named = FILE_ATTRIBUTES
            .iter()
            .find(|a| a.eq_ignore_ascii_case(text.trim()));
        if let (Some(name), Some(Token::Punct('='))) = (named, tokens.get(i + 1)) {
            return Err(FileAttribute {
                what: format!("attribute {name}"),
                line: *line,
            });
        }
        if *html {
            if let Some(offset) = img_tag(text) {
                let line = line + text[..offset].matches('\n').count() as u32;
                return Err(FileAttribute {
                    what: "<IMG> in an HTML label".into(),
                    line,
                });
            }
        }
    }
    Ok(())
}

/// The byte offset of the first `<img` element in HTML label text, in any case.
fn img_tag(html: &str) -> Option<usize> {
    html.match_indices('<').map(|(i, _)| i).find(|&i| {
        let rest = html[i + 1..].trim_start();
        rest.get(..3).is_some_and(|n| n.eq_ignore_ascii_case("img"))
            && !rest[3..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Splits DOT into IDs and punctuation as Graphviz's scanner does: comments (`//`, `/* */`,
/// `#` lines) dropped, `\"` and backslash-newline inside quotes, nested `<>` in HTML strings.
fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut line = 1;
    let mut at_line_start = true;
    let mut i = 0;
    // Whether the last token was a quoted string and a `+` followed it.
    let mut concat = false;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            at_line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' && at_line_start {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        at_line_start = false;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                line += u32::from(chars[i] == '\n');
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '"' {
            let start_line = line;
            let mut text = String::new();
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                match (chars[i], chars.get(i + 1)) {
                    ('\\', Some('"')) => {
                        text.push('"');
                        i += 2;
                    }
                    ('\\', Some('\\')) => {
                        text.push_str("\\\\");
                        i += 2;
                    }
                    ('\\', Some('\n')) => {
                        line += 1;
                        i += 2;
                    }
                    (ch, _) => {
                        line += u32::from(ch == '\n');
                        text.push(ch);
                        i += 1;
                    }
                }
            }
            i += 1;
            if concat {
                if let Some(Token::Id { text: prev, .. }) = out.last_mut() {
                    prev.push_str(&text);
                }
            } else {
                out.push(Token::Id {
                    text,
                    html: false,
                    line: start_line,
                });
            }
            concat = false;
            continue;
        }
        if c == '+' && matches!(out.last(), Some(Token::Id { html: false, .. })) {
            concat = true;
            i += 1;
            continue;
        }
        concat = false;
        if c == '<' {
            let start_line = line;
            let mut depth = 0usize;
            let mut text = String::new();
            while i < chars.len() {
                let ch = chars[i];
                line += u32::from(ch == '\n');
                i += 1;
                match ch {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                text.push(ch);
            }
            // `text` holds the string without its outer `<` and `>`.
            text.remove(0);
            out.push(Token::Id {
                text,
                html: true,
                line: start_line,
            });
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '.' || !c.is_ascii() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '.'
                    || !chars[i].is_ascii())
            {
                i += 1;
            }
            out.push(Token::Id {
                text: chars[start..i].iter().collect(),
                html: false,
                line,
            });
            continue;
        }
        out.push(Token::Punct(c));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(source: &str) -> Option<(String, u32)> {
        refuse_file_attributes(source)
            .err()
            .map(|e| (e.what, e.line))
    }

    #[test]
    fn every_spelling_of_a_file_attribute_is_refused() {
        let cases = [
            ("digraph { a [image=\"/etc/x.png\"] }", "attribute image", 1),
            (
                "digraph {\n a [label=\"\",\n  \"image\" = \"x\"] }",
                "attribute image",
                3,
            ),
            (
                "digraph { a [\"ima\" + \"ge\"=\"x\"] }",
                "attribute image",
                1,
            ),
            (
                "digraph { a [<shapefile>=x shape=epsf] }",
                "attribute shapefile",
                1,
            ),
            ("digraph { node [IMAGE=x] }", "attribute image", 1),
            ("digraph { imagepath=\"/etc\" }", "attribute imagepath", 1),
            (
                "digraph { graph [stylesheet=\"file:///etc/passwd\"] }",
                "attribute stylesheet",
                1,
            ),
            (
                "digraph { fontpath=\"/usr\" fontnames=svg }",
                "attribute fontpath",
                1,
            ),
            (
                "digraph {\na [label=<<TABLE><TR><TD>\n<img src=\"/etc/x.png\"/></TD></TR></TABLE>>]\n}",
                "<IMG> in an HTML label",
                3,
            ),
            (
                "digraph { a [xlabel=< <B>x</B>< IMG SRC='y'/> >] }",
                "<IMG> in an HTML label",
                1,
            ),
        ];
        for (source, what, line) in cases {
            assert_eq!(refused(source), Some((what.to_string(), line)), "{source}");
        }
    }

    #[test]
    fn names_in_values_comments_and_strings_are_fine() {
        for source in [
            "digraph { image -> shapefile; a [label=\"image=x\"] }",
            "digraph { a [label=image] }",
            "digraph {\n// image=x\n/* shapefile = y */\n# image=z\na }",
            "digraph { a [label=\"say \\\"image=x\\\"\"] }",
            "digraph { a [label=<<B>image=x</B> <IMGX/>>] }",
            "digraph { a [label=\"<img src=x>\"] }",
        ] {
            assert_eq!(refused(source), None, "{source}");
        }
    }
}
