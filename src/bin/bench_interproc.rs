//! Times interprocedural abstract interpretation (`%absint DOMAIN f0 --context K`, and
//! `--summaries`) on a generated program of N functions (default 100): each function has a
//! counted loop and a branch and calls two or three later functions (the last few call
//! themselves, bounded), so call strings multiply along the chain.
//!
//! `bench_interproc [--functions N] [--domain D] [--mode context2|context1|context0|summaries]`
//! (default interval, context2). Prints one JSON line: seconds, contexts, context runs, peak
//! resident memory (`VmHWM`). Run one mode per process for its own peak.
//!
//! `--mode live|reaching` times `%dataflow live|reaching f0 --interprocedural` instead, on the
//! same program with module globals: every third function declares `global g0` and updates it,
//! the others read `g0` and `g1`.

use std::process::ExitCode;
use std::time::Instant;

use analysis_kernel::dataflow::absint;
use analysis_kernel::dataflow::engine::Options;
use analysis_kernel::dataflow::interproc::bitvec::{Which, analyze};
use analysis_kernel::dataflow::interproc::{Sensitivity, run_named};
use analysis_kernel::python::ir::Function;
use analysis_kernel::python::lower_module;
use analysis_kernel::splitmix::SplitMix64;
use serde_json::json;

/// `f0` … `f{n-1}`, each calling later ones.
fn program(n: usize, globals: bool) -> String {
    let mut rng = SplitMix64::new(21);
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            "def f{i}(a, b):\n    x = a\n    y = b + {}\n",
            i % 7
        ));
        if globals && i % 3 == 0 {
            out.push_str("    global g0\n    g0 = g0 + a\n");
        } else if globals {
            out.push_str("    x = x + g0 - g1\n");
        }
        out.push_str("    for k in range(4):\n        x = x + k\n");
        out.push_str("    if x > y:\n        y = x - y\n    else:\n        y = y * 2\n");
        if i + 5 >= n {
            out.push_str(&format!(
                "    if 0 < a < 10:\n        y = y + f{i}(a - 1, y)\n"
            ));
        }
        let later = n - i - 1;
        for _ in 0..(2 + rng.below(2) as usize).min(later) {
            let j = i + 1 + rng.below(later.min(6) as u64) as usize;
            out.push_str(&format!("    x = x + f{j}(y, {})\n", rng.below(9)));
        }
        out.push_str("    return x + y\n\n");
    }
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let n: usize = arg("--functions")
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let domain = arg("--domain").unwrap_or_else(|| "interval".into());
    let mode = arg("--mode").unwrap_or_else(|| "context2".into());
    if let Some(which) = Which::named(&mode) {
        return bitvec(n, which);
    }
    let sensitivity = match mode.as_str() {
        "summaries" => Sensitivity::Summaries,
        m => match m.strip_prefix("context").and_then(|k| k.parse().ok()) {
            Some(k) => Sensitivity::CallStrings(k),
            None => {
                eprintln!("--mode: context0, context1, context2 or summaries");
                return ExitCode::FAILURE;
            }
        },
    };
    let source = program(n, false);
    let module = match lower_module(&source) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let functions: Vec<&Function> = module.functions().collect();
    let t = Instant::now();
    let r = run_named(
        &domain,
        &functions,
        "f0",
        sensitivity,
        &absint::options(false, None),
    );
    let took = t.elapsed();
    match r {
        Some(Ok(shown)) => {
            println!(
                "{}",
                json!({"functions": n, "statements": source.lines().count(), "domain": domain, "mode": mode,
                       "seconds": took.as_secs_f64(), "contexts": shown.contexts.len(),
                       "context_runs": shown.runs, "calls_between_contexts": shown.calls.len(),
                       "entry_returns": shown.contexts[0].returns,
                       "peak_rss_mib": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024)})
            );
            ExitCode::SUCCESS
        }
        Some(Err(e)) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        None => {
            eprintln!("unknown domain {domain}");
            ExitCode::FAILURE
        }
    }
}

/// `--mode live|reaching`: the interprocedural bit-vector analysis from `f0`.
fn bitvec(n: usize, which: Which) -> ExitCode {
    let source = format!("g0 = 0\ng1 = 1\n\n{}", program(n, true));
    let module = match lower_module(&source) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let functions: Vec<&Function> = module.functions().collect();
    let t = Instant::now();
    match analyze(which, &functions, "f0", &Options::default()) {
        Ok(r) => {
            let took = t.elapsed();
            let facts_at_nodes: usize = r
                .functions
                .iter()
                .map(|f| f.before.iter().map(|s| s.count()).sum::<usize>())
                .sum();
            println!(
                "{}",
                json!({"functions": n, "statements": source.lines().count(), "mode": which.name(),
                       "seconds": took.as_secs_f64(), "functions_analysed": r.functions.len(),
                       "facts": r.facts.universe.len(), "facts_at_nodes": facts_at_nodes,
                       "intraprocedural_runs": r.runs, "calls": r.calls.len(),
                       "peak_rss_mib": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024)})
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
