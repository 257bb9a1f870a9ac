//! Times the dependence views' analyses (without Graphviz): dominator and post-dominator
//! trees with frontiers, control dependences, data dependences (the PDG) and a backward
//! slice from the last statement, on one generated function of about 10^4 statements and on
//! every function of the stdlib corpus (`tests/common/stdlib_corpus.rs`).
//!
//! `bench_dependence [--nodes N]` (default 10000). Prints one JSON line per phase (the
//! generated function) and one for the corpus (totals and the slowest function), each with
//! the peak resident memory so far (`VmHWM`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use analysis_kernel::cfg::{Orientation, dominators, frontiers, post_dominators};
use analysis_kernel::dataflow::analyses::Program;
use analysis_kernel::dataflow::dependence::{Pdg, control_dependences};
use analysis_kernel::dataflow::engine::Options;
use analysis_kernel::dataflow::slice::{Criterion, slice};
use analysis_kernel::python::ir::Function;
use analysis_kernel::python::lower_module;
use analysis_kernel::splitmix::SplitMix64;
use serde_json::json;

#[path = "../../tests/common/stdlib_corpus.rs"]
mod stdlib_corpus;
use stdlib_corpus::{MODULES, stdlib_dir};

/// Straight-line runs, `if`/`else` diamonds, counted loops and `try` blocks over 32 variables.
fn program(nodes: usize) -> String {
    let mut rng = SplitMix64::new(21);
    let mut out = String::from("def big(p):\n");
    for v in 0..32 {
        out.push_str(&format!("    v{v} = {v}\n"));
    }
    let mut count = 34;
    let assign = |rng: &mut SplitMix64, indent: &str, out: &mut String| {
        let (a, b, c) = (rng.below(32), rng.below(32), rng.below(32));
        out.push_str(&format!("{indent}v{a} = v{b} + v{c}\n"));
    };
    while count < nodes {
        match rng.below(4) {
            0 => {
                out.push_str(&format!("    if v{} > 3:\n", rng.below(32)));
                assign(&mut rng, "        ", &mut out);
                out.push_str("    else:\n");
                assign(&mut rng, "        ", &mut out);
                count += 3;
            }
            1 => {
                out.push_str("    k = 0\n    while k < 3:\n");
                assign(&mut rng, "        ", &mut out);
                out.push_str("        k = k + 1\n");
                count += 4;
            }
            2 => {
                out.push_str("    try:\n");
                out.push_str(&format!(
                    "        v{} = v{} // p\n",
                    rng.below(32),
                    rng.below(32)
                ));
                out.push_str("    except ZeroDivisionError:\n");
                assign(&mut rng, "        ", &mut out);
                count += 4;
            }
            _ => {
                assign(&mut rng, "    ", &mut out);
                count += 1;
            }
        }
    }
    out.push_str("    return v0\n");
    out
}

/// Times of each phase on `f`: dom, pdom, cdg, pdg (data included), slice.
fn phases(f: &Function) -> Result<[(&'static str, Duration); 5], String> {
    let p = Program::function(f).map_err(|e| e.to_string())?;
    let cfg = &p.cfg;
    let t = Instant::now();
    let d = dominators(cfg);
    let _ = frontiers(cfg, &d, Orientation::Forward);
    let dom = t.elapsed();
    let t = Instant::now();
    let pd = post_dominators(cfg);
    let _ = frontiers(cfg, &pd, Orientation::Backward);
    let pdom = t.elapsed();
    let t = Instant::now();
    let _ = control_dependences(cfg, &pd);
    let cdg = t.elapsed();
    let t = Instant::now();
    let pdg = Pdg::new(&p, &Options::default()).map_err(|e| e.to_string())?;
    let pdg_t = t.elapsed();
    let last = cfg
        .nodes()
        .filter_map(|n| cfg.node(n).stmts.first().map(|s| s.lines.0))
        .max()
        .unwrap_or(0);
    let t = Instant::now();
    let _ = slice(
        f,
        &p,
        &pdg,
        &Criterion {
            line: last,
            vars: Vec::new(),
            forward: false,
        },
    );
    let slice_t = t.elapsed();
    Ok([
        ("dom", dom),
        ("pdom", pdom),
        ("cdg", cdg),
        ("pdg", pdg_t),
        ("slice", slice_t),
    ])
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let nodes = args
        .iter()
        .position(|a| a == "--nodes")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(10_000);
    let source = program(nodes);
    let module = match lower_module(&source) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(f) = module.function("big") else {
        return ExitCode::FAILURE;
    };
    let statements = Program::function(f)
        .map(|p| p.cfg.graph.node_count())
        .unwrap_or(0);
    match phases(f) {
        Ok(ph) => {
            for (name, took) in ph {
                println!(
                    "{}",
                    json!({"input": "generated", "cfg_nodes": statements, "phase": name, "seconds": took.as_secs_f64(), "peak_rss_mib_so_far": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024)})
                );
            }
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    }
    let Some(dir) = stdlib_dir() else {
        eprintln!("no python3 stdlib: corpus skipped");
        return ExitCode::SUCCESS;
    };
    let mut totals = [0f64; 5];
    let (mut functions, mut failed) = (0, 0);
    let mut slowest = (0f64, String::new());
    for m in MODULES {
        let Ok(text) = std::fs::read_to_string(dir.join(m)) else {
            continue;
        };
        let Ok(module) = lower_module(&text) else {
            continue;
        };
        for f in module.functions() {
            match phases(f) {
                Ok(ph) => {
                    functions += 1;
                    let sum: f64 = ph.iter().map(|p| p.1.as_secs_f64()).sum();
                    for (i, p) in ph.iter().enumerate() {
                        totals[i] += p.1.as_secs_f64();
                    }
                    if sum > slowest.0 {
                        slowest = (sum, format!("{m}:{}", f.qualname));
                    }
                }
                Err(_) => failed += 1,
            }
        }
    }
    println!(
        "{}",
        json!({"input": "stdlib corpus", "functions": functions, "not_analysed": failed,
               "seconds": {"dom": totals[0], "pdom": totals[1], "cdg": totals[2], "pdg": totals[3], "slice": totals[4]},
               "slowest_function": slowest.1, "slowest_seconds": slowest.0,
               "peak_rss_mib_so_far": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024)})
    );
    ExitCode::SUCCESS
}
