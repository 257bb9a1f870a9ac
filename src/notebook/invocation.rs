//! Parsing a command line: `%name args` or `%%name args` followed by a body.

use std::collections::BTreeMap;

use super::output::SavePath;

/// One parsed command: its name, positional arguments, options and (for `%%`) its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    pub name: String,
    /// `true` for `%%name`: the rest of the cell is the body.
    pub cell: bool,
    pub args: Vec<String>,
    /// `--flag` maps to "", `--key value` and `--key=value` to the value.
    pub options: BTreeMap<String, String>,
    pub body: String,
    /// The cell line the command is on (1-based).
    pub line: u32,
    /// The command line as typed.
    pub source_line: String,
}

impl Invocation {
    pub fn flag(&self, name: &str) -> bool {
        self.options.contains_key(name)
    }

    pub fn option(&self, name: &str) -> Option<&str> {
        self.options.get(name).map(String::as_str)
    }
}

/// Splits a command line into words, honouring single and double quotes.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("unclosed quote {q}"));
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

/// Parses the words after the command name. `takes_value(option)` says which options consume
/// the next word; unknown options are left for the caller to refuse with a suggestion.
pub fn parse_arguments(
    words: &[String],
    takes_value: impl Fn(&str) -> Option<usize>,
) -> Result<(Vec<String>, BTreeMap<String, String>), String> {
    let mut args = Vec::new();
    let mut options = BTreeMap::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if let Some(stripped) = w.strip_prefix("--").filter(|s| !s.is_empty()) {
            let (name, inline) = match stripped.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_string())),
                None => (format!("--{stripped}"), None),
            };
            let arity = takes_value(&name).unwrap_or(0);
            let value = match (inline, arity) {
                (Some(v), _) => v,
                (None, 0) => String::new(),
                (None, n) => {
                    let vals = words.get(i + 1..i + 1 + n).ok_or_else(|| {
                        format!("{name} needs {n} value{}", if n == 1 { "" } else { "s" })
                    })?;
                    i += n;
                    vals.join(" ")
                }
            };
            options.insert(name, value);
        } else {
            args.push(w.clone());
        }
        i += 1;
    }
    check_save(&options)?;
    Ok((args, options))
}

/// `--save PATH` is checked before the command does any work; `--force` needs `--save`.
fn check_save(options: &BTreeMap<String, String>) -> Result<(), String> {
    match options.get("--save") {
        Some(path) => SavePath::parse(path)
            .map(|_| ())
            .map_err(|e| format!("--save {path:?}: {e}")),
        None if options.contains_key("--force") => Err("--force only applies with --save".into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_quotes() {
        assert_eq!(
            split_words(" a  'b c' \"d\"e ").unwrap(),
            ["a", "b c", "de"]
        );
        assert_eq!(split_words("x ''").unwrap(), ["x", ""]);
        assert!(split_words("a 'b").is_err());
    }

    #[test]
    fn options_with_values() {
        let words =
            split_words("f --blocks --unroll 3 --save=out.svg --window -2 2 y:int").unwrap();
        let (args, opts) = parse_arguments(&words, |o| match o {
            "--unroll" | "--save" => Some(1),
            "--window" => Some(2),
            _ => None,
        })
        .unwrap();
        assert_eq!(args, ["f", "y:int"]);
        assert_eq!(opts["--blocks"], "");
        assert_eq!(opts["--unroll"], "3");
        assert_eq!(opts["--save"], "out.svg");
        assert_eq!(opts["--window"], "-2 2");
        assert!(parse_arguments(&split_words("--unroll").unwrap(), |_| Some(1)).is_err());
    }

    #[test]
    fn save_targets_are_checked_while_parsing() {
        let parse = |line: &str| parse_arguments(&split_words(line).unwrap(), |_| None);
        let takes_path = |line: &str| {
            parse_arguments(&split_words(line).unwrap(), |o| {
                (o == "--save").then_some(1)
            })
        };
        assert!(takes_path("f --save out/g.svg --force").is_ok());
        let err = takes_path("f --save ../../../../etc/x.txt").unwrap_err();
        assert!(err.contains("`..`"), "{err}");
        let err = takes_path("f --save /etc/x.txt").unwrap_err();
        assert!(err.contains("absolute"), "{err}");
        assert_eq!(
            parse("f --force").unwrap_err(),
            "--force only applies with --save"
        );
    }
}
