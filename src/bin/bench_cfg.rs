//! Times parsing and CFG construction on the 25 stdlib modules of the benchmark corpus
//! (`../shared/bench/gen_corpus.py`), for comparison with PythonTA (about 8.5 s there: 8.3 s
//! astroid parsing plus 0.17 s CFGs).
//!
//! `bench_cfg [STDLIB_DIR] [--repeat N]`: the directory defaults to this machine's python3
//! stdlib. Prints one JSON line per file in the keys of `../shared/bench/summarize.py`
//! (`tool, file, lines, functions, blocks, edges, seconds{parse,cfg}, status`), then a total
//! line; with `--repeat N` each phase's time is the best of N runs.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use analysis_kernel::cfg::{basic_blocks, function_cfg, module_cfg};
use analysis_kernel::python::lower_module;
use serde_json::json;

#[path = "../../tests/common/stdlib_corpus.rs"]
mod stdlib_corpus;
use stdlib_corpus::{MODULES, stdlib_dir};

/// What one file gives.
struct Measure {
    functions: usize,
    blocks: usize,
    edges: usize,
    parse: Duration,
    cfg: Duration,
}

/// Parses `source` and builds the module's and every function's CFG and basic blocks.
fn measure(source: &str) -> Result<Measure, String> {
    let start = Instant::now();
    let module = lower_module(source).map_err(|e| e.to_string())?;
    let parse = start.elapsed();
    let start = Instant::now();
    let mut graphs = vec![module_cfg(&module).map_err(|e| e.to_string())?];
    for f in module.functions() {
        graphs.push(function_cfg(f).map_err(|e| format!("{}: {e}", f.qualname))?);
    }
    let mut blocks = 0;
    let mut edges = 0;
    for g in &graphs {
        let b = basic_blocks(g);
        blocks += b.cfg.graph.node_count();
        edges += b.cfg.graph.edge_count();
    }
    Ok(Measure {
        functions: graphs.len() - 1,
        blocks,
        edges,
        parse,
        cfg: start.elapsed(),
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 1usize;
    let mut dir = None;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--repeat" {
            repeat = args
                .get(i + 1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(1)
                .max(1);
            i += 1;
        } else {
            dir = Some(PathBuf::from(&args[i]));
        }
        i += 1;
    }
    let Some(dir) = dir.or_else(stdlib_dir) else {
        eprintln!("bench_cfg: no stdlib directory (python3 not found); pass one");
        return ExitCode::FAILURE;
    };
    let wall = Instant::now();
    let (mut parse, mut cfg, mut lines, mut functions, mut ok) =
        (Duration::ZERO, Duration::ZERO, 0, 0, 0);
    for name in MODULES {
        let path = dir.join(name);
        let source = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                println!(
                    "{}",
                    json!({"tool": "analysis-kernel", "file": format!("real/{name}"), "status": format!("missing: {e}")})
                );
                continue;
            }
        };
        let mut best: Option<Measure> = None;
        let mut failure = None;
        for _ in 0..repeat {
            match measure(&source) {
                Ok(m) => {
                    best = Some(match best {
                        Some(b) => Measure {
                            parse: b.parse.min(m.parse),
                            cfg: b.cfg.min(m.cfg),
                            ..m
                        },
                        None => m,
                    });
                }
                Err(e) => failure = Some(e),
            }
        }
        let file_lines = source.lines().count();
        match (best, failure) {
            (Some(m), None) => {
                ok += 1;
                parse += m.parse;
                cfg += m.cfg;
                lines += file_lines;
                functions += m.functions;
                println!(
                    "{}",
                    json!({
                        "tool": "analysis-kernel", "file": format!("real/{name}"), "family": "real",
                        "lines": file_lines, "functions": m.functions, "blocks": m.blocks,
                        "edges": m.edges,
                        "seconds": {"parse": m.parse.as_secs_f64(), "cfg": m.cfg.as_secs_f64()},
                        "status": "ok",
                    })
                );
            }
            (_, failure) => println!(
                "{}",
                json!({"tool": "analysis-kernel", "file": format!("real/{name}"), "status": failure.unwrap_or_default()})
            ),
        }
    }
    println!(
        "{}",
        json!({
            "tool": "analysis-kernel", "file": "total", "files_ok": ok, "files": MODULES.len(),
            "status": if ok == MODULES.len() { "ok" } else { "failed" },
            "lines": lines, "functions": functions, "repeat": repeat,
            "seconds": {"parse": parse.as_secs_f64(), "cfg": cfg.as_secs_f64(),
                        "parse_plus_cfg": (parse + cfg).as_secs_f64(),
                        "wall": wall.elapsed().as_secs_f64()},
        })
    );
    eprintln!(
        "{ok}/{} files, {lines} lines, {functions} functions: parse {:.3} s + CFG {:.3} s = {:.3} s (PythonTA: 8.314 + 0.170 = 8.5 s)",
        MODULES.len(),
        parse.as_secs_f64(),
        cfg.as_secs_f64(),
        (parse + cfg).as_secs_f64()
    );
    if ok == MODULES.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
