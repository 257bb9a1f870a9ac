//! The in-memory input history served by `history_request`.

use serde_json::{Value, json};

/// This kernel keeps one history session per process, numbered 1.
pub const SESSION_NUMBER: u64 = 1;

/// One executed cell: its execution count, input and the text of its result, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub line: u64,
    pub input: String,
    pub output: Option<String>,
}

#[derive(Default)]
pub struct History {
    entries: Vec<Entry>,
}

impl History {
    pub fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// Answers a `history_request` content: `tail`, `range` or `search`.
    pub fn query(&self, request: &Value) -> Vec<Value> {
        let output = request
            .get("output")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let n = request.get("n").and_then(Value::as_u64).map(|n| n as usize);
        let selected: Vec<&Entry> = match request.get("hist_access_type").and_then(Value::as_str) {
            Some("tail") => {
                let n = n.unwrap_or(10);
                self.entries
                    .iter()
                    .skip(self.entries.len().saturating_sub(n))
                    .collect()
            }
            Some("range") => {
                let session = request.get("session").and_then(Value::as_i64).unwrap_or(0);
                let start = request.get("start").and_then(Value::as_u64).unwrap_or(0);
                let stop = request.get("stop").and_then(Value::as_u64);
                // 0 and negative session numbers mean the current session.
                if session > 0 && session as u64 != SESSION_NUMBER {
                    Vec::new()
                } else {
                    self.entries
                        .iter()
                        .filter(|e| e.line >= start && stop.is_none_or(|s| e.line < s))
                        .collect()
                }
            }
            Some("search") => {
                let pattern = request
                    .get("pattern")
                    .and_then(Value::as_str)
                    .unwrap_or("*");
                let unique = request
                    .get("unique")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let mut found: Vec<&Entry> = self
                    .entries
                    .iter()
                    .filter(|e| glob(pattern, &e.input))
                    .collect();
                if unique {
                    let mut seen = std::collections::HashSet::new();
                    let mut kept: Vec<&Entry> = found
                        .iter()
                        .rev()
                        .filter(|e| seen.insert(e.input.as_str()))
                        .copied()
                        .collect();
                    kept.reverse();
                    found = kept;
                }
                match n {
                    Some(n) => found.split_off(found.len().saturating_sub(n)),
                    None => found,
                }
            }
            _ => Vec::new(),
        };
        selected
            .into_iter()
            .map(|e| {
                if output {
                    json!([SESSION_NUMBER, e.line, [e.input, e.output]])
                } else {
                    json!([SESSION_NUMBER, e.line, e.input])
                }
            })
            .collect()
    }
}

/// Shell-style glob with `*` and `?`, matched against the whole text.
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> History {
        let mut h = History::default();
        for (i, code) in ["a = 1", "%who", "a = 1", "%help"].iter().enumerate() {
            h.push(Entry {
                line: i as u64 + 1,
                input: code.to_string(),
                output: None,
            });
        }
        h
    }

    #[test]
    fn tail_range_search() {
        let h = history();
        assert_eq!(
            h.query(&json!({"hist_access_type": "tail", "n": 2})),
            [json!([1, 3, "a = 1"]), json!([1, 4, "%help"])]
        );
        assert_eq!(
            h.query(&json!({"hist_access_type": "range", "session": 0, "start": 2, "stop": 3})),
            [json!([1, 2, "%who"])]
        );
        assert_eq!(
            h.query(&json!({"hist_access_type": "search", "pattern": "%*"}))
                .len(),
            2
        );
        assert_eq!(
            h.query(&json!({"hist_access_type": "search", "pattern": "a*", "unique": true})),
            [json!([1, 3, "a = 1"])]
        );
        assert_eq!(
            h.query(&json!({"hist_access_type": "tail", "n": 1, "output": true})),
            [json!([1, 4, ["%help", null]])]
        );
    }

    #[test]
    fn globs() {
        assert!(glob("a*c", "abbbc"));
        assert!(glob("?b*", "ab"));
        assert!(!glob("a*d", "abc"));
    }
}
