//! The line protocol between the kernel and a registered domain or analysis (one request
//! line, one reply line; fields separated by tabs, each field escaped).

/// Escapes `\`, tab and newline so a field fits on one tab-separated line.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// The inverse of [`escape`].
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// One line of escaped fields.
pub fn line<S: AsRef<str>>(fields: &[S]) -> String {
    let out: Vec<String> = fields.iter().map(|f| escape(f.as_ref())).collect();
    let mut s = out.join("\t");
    s.push('\n');
    s
}

/// The fields of one line (without its newline).
pub fn fields(line: &str) -> Vec<String> {
    line.trim_end_matches(['\n', '\r'])
        .split('\t')
        .map(unescape)
        .collect()
}

/// The environment variable holding the kernel's socket path (set by the kernel for its
/// evcxr child process).
pub const SOCKET_ENV: &str = "ANALYSIS_KERNEL_RUST_SOCKET";

/// The environment variable holding the file of the session's functions.
pub const FUNCTIONS_ENV: &str = "ANALYSIS_KERNEL_RUST_FUNCTIONS";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let l = line(&["a\tb", "c\\n", "x\ny", ""]);
        assert_eq!(fields(&l), ["a\tb", "c\\n", "x\ny", ""]);
    }
}
