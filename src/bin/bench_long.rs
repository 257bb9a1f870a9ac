//! Times the analysis commands on long functions, as the kernel runs them (a `Session`, one
//! cell per command): `%cfg`, `%constraints`, `%absint interval` and `%dataflow available`
//! on generated functions of thousands of statements (issue 13: no input may take minutes or
//! gigabytes).
//!
//! Each (workload, command) runs in a child process of its own, so that its peak resident
//! memory (`VmHWM`) is its own; the child is killed after `--timeout` seconds. Graphviz is
//! left out unless `--dot` is given (the child runs with no `dot` on its `PATH`, and the
//! views fall back to their text form): the analysis and our rendering are what is timed.
//!
//! `bench_long [--only WORKLOAD] [--command CMD] [--n SIZE] [--timeout S] [--dot]` (`--n`
//! sets the size of every workload: ifs, statements). Prints one JSON
//! line per measurement: workload, command, statements, seconds, peak RSS in MB, and the
//! outcome (`ok`, the error's name, or `timeout`).

use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Ctx, Output, Session};
use serde_json::{Value, json};

/// The commands timed, each on the function `f`.
const COMMANDS: [&str; 4] = [
    "%cfg f",
    "%constraints f",
    "%absint interval f",
    "%dataflow available f",
];

/// A generated function `f` and its number of statements.
struct Workload {
    name: &'static str,
    source: String,
    statements: usize,
}

/// `n` sequential `if x == i: x += 1`, then `return x`.
fn if_eq(n: usize) -> Workload {
    let mut s = String::from("def f(x):\n");
    for i in 0..n {
        s.push_str(&format!("    if x == {i}:\n        x += 1\n"));
    }
    s.push_str("    return x\n");
    Workload {
        name: "if_eq",
        source: s,
        statements: 2 * n + 1,
    }
}

/// `n` sequential `if x > i: y = y + i`, then `return y`.
fn if_gt(n: usize) -> Workload {
    let mut s = String::from("def f(x):\n    y = 0\n");
    for i in 0..n {
        s.push_str(&format!("    if x > {i}:\n        y = y + {i}\n"));
    }
    s.push_str("    return y\n");
    Workload {
        name: "if_gt",
        source: s,
        statements: 2 * n + 2,
    }
}

/// Nests of five `while` loops (counter, test, body, increment at each level) until about
/// `n` statements.
fn nested_loops(n: usize) -> Workload {
    const DEPTH: usize = 5;
    let mut s = String::from("def f(n):\n    s = 0\n");
    let mut statements = 2;
    let mut nest = 0;
    while statements < n {
        for d in 0..DEPTH {
            let pad = "    ".repeat(d + 1);
            s.push_str(&format!("{pad}i{d} = 0\n{pad}while i{d} < n:\n"));
            s.push_str(&format!("{pad}    s = s + i{d} * {nest}\n"));
        }
        for d in (0..DEPTH).rev() {
            let pad = "    ".repeat(d + 2);
            s.push_str(&format!("{pad}i{d} = i{d} + 1\n"));
        }
        statements += 4 * DEPTH;
        nest += 1;
    }
    s.push_str("    return s\n");
    Workload {
        name: "nested_loops",
        source: s,
        statements,
    }
}

/// `n` straight-line statements of nonlinear arithmetic in the style of a BMI formula.
fn nonlinear(n: usize) -> Workload {
    let mut s = String::from("def f(weight: int, height: int):\n");
    for i in 0..n {
        let line = match i % 3 {
            0 => "    bmi = weight * 10000 // (height * height)\n".to_string(),
            1 => format!("    weight = weight + bmi % {}\n", i % 7 + 2),
            _ => format!("    height = height * {} - bmi\n", i % 5 + 1),
        };
        s.push_str(&line);
    }
    s.push_str("    return bmi\n");
    Workload {
        name: "nonlinear",
        source: s,
        statements: n + 1,
    }
}

/// `n` straight-line assignments.
fn straight(n: usize) -> Workload {
    let mut s = String::from("def f(x):\n    y = 0\n");
    for i in 0..n {
        s.push_str(&format!("    y = y + x * {}\n", i % 9 + 1));
    }
    s.push_str("    return y\n");
    Workload {
        name: "straight",
        source: s,
        statements: n + 2,
    }
}

/// The workloads, at their default sizes or all at size `n`.
fn workloads(n: Option<usize>) -> Vec<Workload> {
    let mut big_if = if_eq(n.unwrap_or(5_000));
    big_if.name = "if_eq_5000";
    vec![
        if_eq(n.unwrap_or(2_000)),
        if_gt(n.unwrap_or(2_000)),
        nested_loops(n.unwrap_or(200)),
        nonlinear(n.unwrap_or(200)),
        straight(n.unwrap_or(10_000)),
        big_if,
    ]
}

/// Child: defines the workload, runs the command once and prints its measurement.
fn child(workload: &str, n: Option<usize>, command: &str) -> Result<(), String> {
    let w = workloads(n)
        .into_iter()
        .find(|w| w.name == workload)
        .ok_or(format!("no workload {workload}"))?;
    let cancel = Cancel::new();
    let mut session = Session::new(false);
    let mut sink: Vec<Output> = Vec::new();
    let mut ctx = Ctx {
        sink: &mut sink,
        cancel: &cancel,
    };
    session
        .execute(&w.source, &mut ctx)
        .map_err(|e| format!("definition: {}", e.evalue))?;
    let start = Instant::now();
    let result = session.execute(command, &mut ctx);
    let seconds = start.elapsed().as_secs_f64();
    let outcome = match &result {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("{}: {}", e.ename, e.evalue),
    };
    let bytes: usize = sink
        .iter()
        .map(|o| match o {
            Output::Display(b) => b.data.values().map(|v| v.to_string().len()).sum(),
            _ => 0,
        })
        .sum();
    println!(
        "{}",
        json!({
            "seconds": seconds,
            "peak_rss_mb": analysis_kernel::memory::peak_rss_kib().map(|k| k as f64 / 1024.0),
            "outcome": outcome,
            "output_bytes": bytes,
        })
    );
    Ok(())
}

/// Parent: runs one child, with the time limit.
fn measure(w: &Workload, n: Option<usize>, command: &str, timeout: Duration, dot: bool) -> Value {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return json!({"error": e.to_string()}),
    };
    let mut cmd = Command::new(exe);
    let size = n.map_or("default".to_string(), |n| n.to_string());
    cmd.args(["--child", w.name, &size, command])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if !dot {
        cmd.env("PATH", "");
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return json!({"error": e.to_string()}),
    };
    let start = Instant::now();
    let finished = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return json!({"outcome": "timeout", "seconds": start.elapsed().as_secs_f64()});
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return json!({"error": e.to_string()}),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    match serde_json::from_str::<Value>(out.trim()) {
        Ok(v) if finished => v,
        _ => json!({"outcome": "crashed", "stdout": out}),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, workload, size, command] = args.as_slice()
        && flag == "--child"
    {
        return match child(workload, size.parse().ok(), command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench_long: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let mut only: Option<String> = None;
    let mut commands: Vec<String> = COMMANDS.iter().map(|c| c.to_string()).collect();
    let mut timeout = Duration::from_secs(120);
    let mut dot = false;
    let mut n: Option<usize> = None;
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.clone().next()) {
            ("--only", Some(w)) => {
                only = Some(w);
                it.next();
            }
            ("--command", Some(c)) => {
                commands = vec![c];
                it.next();
            }
            ("--timeout", Some(s)) => match s.parse() {
                Ok(s) => {
                    timeout = Duration::from_secs(s);
                    it.next();
                }
                Err(_) => {
                    eprintln!("bench_long: --timeout needs seconds");
                    return ExitCode::FAILURE;
                }
            },
            ("--n", Some(s)) => match s.parse() {
                Ok(s) => {
                    n = Some(s);
                    it.next();
                }
                Err(_) => {
                    eprintln!("bench_long: --n needs a size");
                    return ExitCode::FAILURE;
                }
            },
            ("--dot", _) => dot = true,
            _ => {
                eprintln!(
                    "usage: bench_long [--only WORKLOAD] [--command CMD] [--n SIZE] [--timeout S] [--dot]"
                );
                return ExitCode::FAILURE;
            }
        }
    }
    for w in workloads(n) {
        if only.as_ref().is_some_and(|o| o != w.name) {
            continue;
        }
        for command in &commands {
            let mut m = measure(&w, n, command, timeout, dot);
            if let Value::Object(fields) = &mut m {
                fields.insert("workload".into(), json!(w.name));
                fields.insert("statements".into(), json!(w.statements));
                fields.insert("command".into(), json!(command));
            }
            println!("{m}");
        }
    }
    ExitCode::SUCCESS
}
