//! Times `%absint` with a domain written in a cell (the interval domain of
//! `tests/fixtures/user_analyses/interval.py`, run through the interpreter) against the
//! built-in interval domain on one 50-statement function, end to end through the cell
//! language, and the cost of one call into the user's methods.
//!
//! `bench_user_domain [--repeat R]`: each time is the best of R runs (default 5). Prints one
//! JSON line per measurement.

use std::sync::Arc;
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::dataflow::user::{self, Code};
use analysis_kernel::interp::Limits;
use analysis_kernel::notebook::Session;
use analysis_kernel::python::lower_module;
use serde_json::json;

const INTERVAL: &str = include_str!("../../tests/fixtures/user_analyses/interval.py");

/// A function of 50 statements: straight-line arithmetic, branches and two loops.
fn function() -> String {
    let mut body = vec![
        "a = 0".to_string(),
        "b = 10".to_string(),
        "c = n % 7".to_string(),
    ];
    for i in 0..8 {
        body.push(format!("a = a + {i} * b"));
        body.push(format!("b = b - {}", i + 1));
        body.push(format!(
            "if c > {i}:\n        c = c - 1\n    else:\n        c = c + 2"
        ));
    }
    body.push("i = 0".into());
    body.push("while i < 100:\n        i = i + 1\n        a = a + i\n        if a > 1000:\n            a = a // 2".into());
    body.push("j = 50".into());
    body.push("while j > 0:\n        j = j - 3\n        b = b * 2 % 97".into());
    body.push("d = a - b + c * j".into());
    body.push("return d // (c + 1)".into());
    format!("def work(n):\n    {}\n", body.join("\n    "))
}

fn statements(src: &str) -> usize {
    src.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("else"))
        .count()
}

fn best(repeat: usize, mut f: impl FnMut()) -> Duration {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let src = function();
    let mut s = Session::default();
    s.skip_layout = true;
    let cancel = Cancel::new();
    for cell in [INTERVAL, src.as_str()] {
        let (r, _) = s.run_cell(cell, &cancel);
        if let Err(e) = r {
            eprintln!("setup failed: {e}");
            std::process::exit(1);
        }
    }
    let mut time_of = |cmd: &str| {
        best(repeat, || {
            let (r, _) = s.run_cell(cmd, &cancel);
            assert!(r.is_ok(), "{cmd}: {r:?}");
        })
    };
    let user_time = time_of("%absint uinterval work");
    let builtin_time = time_of("%absint interval work");
    let mut profile = serde_json::Value::Null;
    let check_user = best(1, || {
        let (r, out) = s.run_cell("%check-domain uinterval", &cancel);
        assert!(r.is_ok(), "{r:?}");
        profile = check_profile(&out);
    });
    let check_builtin = best(1, || {
        let (r, _) = s.run_cell("%check-domain interval", &cancel);
        assert!(r.is_ok(), "{r:?}");
    });
    // The engine alone on the interpreter's thread, counting the calls into user code.
    let module = lower_module(&src).expect("parses");
    let f = Arc::new(module.function("work").expect("work").clone());
    let mut calls = 0;
    let engine_time = best(repeat, || {
        let code = vec![Code::Function(f.clone())];
        let task_cancel = cancel.clone();
        let out = s
            .interpreter
            .host(
                Box::new(move || {
                    Box::new(
                        user::absint("uinterval", &code, false, &task_cancel)
                            .map(|(_, c)| c)
                            .ok(),
                    ) as Box<dyn std::any::Any + Send>
                }),
                &mut |_, _| {},
                &cancel,
                Limits::default(),
            )
            .expect("host task");
        calls = out
            .downcast::<Option<u64>>()
            .ok()
            .and_then(|b| *b)
            .unwrap_or(0);
    });
    let ms = |d: Duration| (d.as_secs_f64() * 1e5).round() / 100.0;
    println!(
        "{}",
        json!({"function_statements": statements(&src), "repeat": repeat})
    );
    println!(
        "{}",
        json!({"measure": "%absint end to end", "user_interval_ms": ms(user_time), "builtin_interval_ms": ms(builtin_time), "ratio": (user_time.as_secs_f64() / builtin_time.as_secs_f64().max(1e-9) * 10.0).round() / 10.0})
    );
    println!(
        "{}",
        json!({"measure": "%check-domain (default samples)", "user_interval_ms": ms(check_user), "builtin_interval_ms": ms(check_builtin)})
    );
    println!(
        "{}",
        json!({"measure": "%check-domain uinterval calls", "profile": profile})
    );
    println!(
        "{}",
        json!({"measure": "engine with the user domain", "ms": ms(engine_time), "user_calls": calls, "us_per_call": if calls > 0 { (engine_time.as_secs_f64() * 1e6 / calls as f64 * 100.0).round() / 100.0 } else { 0.0 }})
    );
}

/// The user calls of a `%check-domain` payload: total, from memory, per method.
fn check_profile(out: &[analysis_kernel::notebook::Output]) -> serde_json::Value {
    let mime = "application/vnd.analysis-kernel.check-domain+json";
    let found = out.iter().rev().find_map(|o| match o {
        analysis_kernel::notebook::Output::Display(b) => b.data.get(mime),
        _ => None,
    });
    let Some(user) = found.map(|f| &f["user"]) else {
        return serde_json::Value::Null;
    };
    json!({"user_calls": user["user_calls"], "memo_hits": user["memo_hits"], "by_method": user["user_calls_by_method"]})
}
