//! The cell language: definitions and `%` commands in, MIME bundles out. Knows nothing of
//! sockets or files: outputs go to an [`OutputSink`], and so do files to save ([`SaveFile`]).

pub mod commands;
mod complete;
pub mod config;
mod habits;
pub mod invocation;
pub mod output;
pub mod session;
pub mod views;

pub use complete::{Completion, complete, inspect};
pub use config::Config;
pub use output::{Bundle, CellError, Output, OutputSink, SaveFile, SavePath, View};
pub use session::{Ctx, Session};

/// The candidate closest to `name` by edit distance, if it is close enough to be a typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= (c.chars().count() / 3).max(2))
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The error for `%name` when no such command exists.
pub fn unknown_command(name: &str) -> CellError {
    let hint = suggest(name, commands::COMMANDS.iter().map(|c| c.name))
        .map(|n| format!("; did you mean %{n}?"))
        .unwrap_or_default();
    CellError::usage(format!(
        "unknown command %{name}{hint} (%lsmagic lists them)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(suggest("hlep", ["help", "who"]), Some("help"));
        assert_eq!(suggest("zzzzzz", ["help", "who"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
