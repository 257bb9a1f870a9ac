//! The in-memory input history served by `history_request`.

use serde_json::{Value, json};

use glob::Glob;

mod glob;

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
                let glob = Glob::new(pattern);
                let mut found: Vec<&Entry> = self
                    .entries
                    .iter()
                    .filter(|e| glob.matches(&e.input))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> History {
        let mut h = History::default();
        let cells = ["a = 1", "%who", "6 * 7", "a = 1", "%help"];
        for (i, code) in cells.iter().enumerate() {
            h.push(Entry {
                line: i as u64 + 1,
                input: code.to_string(),
                output: (*code == "6 * 7").then(|| "42".to_string()),
            });
        }
        h
    }

    #[test]
    fn queries() {
        // (request, expected history)
        let cases = [
            (
                json!({"hist_access_type": "tail", "n": 2}),
                json!([[1, 4, "a = 1"], [1, 5, "%help"]]),
            ),
            (
                json!({"hist_access_type": "tail", "n": 1, "output": true}),
                json!([[1, 5, ["%help", null]]]),
            ),
            (
                json!({"hist_access_type": "range", "session": 0, "start": 2, "stop": 3}),
                json!([[1, 2, "%who"]]),
            ),
            (
                json!({"hist_access_type": "range", "session": 2, "start": 1}),
                json!([]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "%*"}),
                json!([[1, 2, "%who"], [1, 5, "%help"]]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "6 *", "output": true}),
                json!([[1, 3, ["6 * 7", "42"]]]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "[a6]*"}),
                json!([[1, 1, "a = 1"], [1, 3, "6 * 7"], [1, 4, "a = 1"]]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "a*", "unique": true}),
                json!([[1, 4, "a = 1"]]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "*", "n": 2}),
                json!([[1, 4, "a = 1"], [1, 5, "%help"]]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "*", "n": 2, "unique": true}),
                json!([[1, 4, "a = 1"], [1, 5, "%help"]]),
            ),
            (
                json!({"hist_access_type": "search", "pattern": "A*"}),
                json!([]),
            ),
            (json!({"hist_access_type": "nonsense"}), json!([])),
            (json!({}), json!([])),
        ];
        let h = history();
        for (request, expected) in cases {
            assert_eq!(Value::from(h.query(&request)), expected, "{request}");
        }
    }
}
