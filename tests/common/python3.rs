//! Runs `python3`, the oracle of the differential tests, on a script with an input.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `python3 ARGS…` with `stdin` as its input; its stdout. Panics with the script's
/// stderr when it fails.
pub fn python3(args: &[&str], stdin: &str) -> String {
    let mut child = Command::new("python3")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python3 failed on\n{stdin}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
