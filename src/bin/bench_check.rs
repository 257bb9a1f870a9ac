//! Times `%check` through the cell language on functions whose random inputs do not
//! terminate or explode: Collatz (no end for `n <= 0`), naive Fibonacci and Ackermann (time
//! exponential in the input). Graphviz is skipped, so the figure is the check itself: the
//! tree, the interpreter's runs, CPython's runs and the predictions. Prints one JSON line per
//! function (seconds, the verdict line), then a table.

use std::process::ExitCode;
use std::time::Instant;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use serde_json::json;

/// (name, definition) of each function checked.
const CASES: &[(&str, &str)] = &[
    (
        "collatz",
        r#"
def collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
"#,
    ),
    (
        "fib",
        r#"
def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
"#,
    ),
    (
        "ack",
        r#"
def ack(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if n == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, n - 1))
"#,
    ),
];

/// Runs one cell; its text outputs, or the error.
fn run(session: &mut Session, code: &str) -> Result<String, String> {
    let (result, out) = session.run_cell(code, &Cancel::new());
    result.map_err(|e| format!("{e:?}"))?;
    let mut text = String::new();
    for o in &out {
        if let Output::Display(b) = o
            && let Some(t) = b.data.get("text/plain").and_then(|t| t.as_str())
        {
            text.push_str(t);
        }
    }
    Ok(text)
}

fn main() -> ExitCode {
    let mut rows = Vec::new();
    for (name, source) in CASES {
        let mut session = Session::new(false);
        session.skip_layout = true;
        if let Err(e) = run(&mut session, source) {
            eprintln!("{name}: defining failed: {e}");
            return ExitCode::FAILURE;
        }
        let start = Instant::now();
        let result = run(&mut session, &format!("%check {name}"));
        let seconds = start.elapsed().as_secs_f64();
        let verdict = match &result {
            Ok(text) if std::env::var_os("BENCH_CHECK_FULL").is_some() => text.clone(),
            Ok(text) => text.lines().next().unwrap_or("").to_string(),
            Err(e) => e.clone(),
        };
        println!(
            "{}",
            json!({"function": name, "seconds": seconds, "verdict": verdict})
        );
        rows.push((name, seconds, verdict));
    }
    println!("\n{:<8} {:>8}  verdict", "function", "seconds");
    for (name, seconds, verdict) in rows {
        println!("{name:<8} {seconds:>8.2}  {verdict}");
    }
    ExitCode::SUCCESS
}
