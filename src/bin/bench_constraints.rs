//! Times `%constraints` against PythonTA's figures (`../shared/bench/results/REPORT_TABLES.md`):
//!
//! * the synthetic `seq_if` series of `../shared/bench/gen_corpus.py` (k sequential ifs,
//!   2**k paths; PythonTA needs 166 s at k = 12 and does not finish k = 13 in 20 s): the
//!   feasibility of every edge (no path listed), then the whole analysis with the default
//!   64 paths listed;
//! * every function of the 25 stdlib modules of the benchmark corpus (PythonTA: 51 s of z3
//!   phase, 29 functions crashing): functions, crashes (panics caught), errors, time (wall
//!   and this thread's CPU), and where it went: time per kind of work and Z3 checks
//!   (`constraints::Stats`).
//!
//! `bench_constraints [--seq K,K,...] [--stdlib DIR] [--no-stdlib] [--pyta] [--timeout MS]
//! [--dump] [--runs N] [--against PYTA.jsonl]`. Prints one JSON line per measurement, then a
//! summary; `--dump` adds one line per stdlib function with everything it decided (to
//! compare two builds). `--runs N` times the stdlib corpus N times (the machine may be
//! shared: the best and the median are reported). `--against` reads the JSON lines
//! `../shared/bench/measure_pyta.py --phases z3` wrote for the same files, just before, and
//! prints the ratio per file and in all (PythonTA's "z3" time is `z3_transform +
//! z3_cfg_total`, as in its `summarize.py`; parsing is left out on both sides).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::constraints::{Analysis, Feasible, Mode, Options, Stats, analyze};
use analysis_kernel::python::lower_module;
use analysis_kernel::symbolic::solver::with_watcher;
use serde_json::json;

#[path = "../../tests/common/stdlib_corpus.rs"]
mod stdlib_corpus;
use stdlib_corpus::{MODULES, stdlib_dir};

/// `gen_corpus.py`'s preconditions and signature of the synthetic functions.
const PRECONDITIONS: &str = "    Preconditions:\n        - a >= 0\n        - b > a\n        - x < 100.0\n        - not flag or a > 1\n        - s != ''\n";
const SIG: &str = "(a: int, b: int, x: float, flag: bool, s: str) -> int";

/// `gen_corpus.py`'s `_cond`: the i-th branch condition (every 7th one contradicts the
/// precondition `a >= 0`).
fn cond(i: usize) -> String {
    match i % 8 {
        0 => format!("a > {i}"),
        1 => format!("b - a < {}", i + 1),
        2 => format!("x >= {i}.5"),
        3 => {
            if i % 2 == 0 {
                "flag".into()
            } else {
                "not flag".into()
            }
        }
        4 => format!("s == 'k{i}'"),
        5 => format!("a + b > {}", 2 * i),
        6 => format!("a + {} <= 0", i + 1),
        _ => format!("x * 2 < b + {i}"),
    }
}

/// `gen_corpus.py`'s `seq_if(k)`.
fn seq_if(k: usize) -> String {
    let mut body = vec!["    y = 0".to_string()];
    for i in 0..k {
        body.push(format!("    if {}:", cond(i)));
        body.push(format!("        y = y + {}", i + 1));
        if i % 3 == 1 {
            body.push("    else:".into());
            body.push(format!("        y = y - {}", i + 1));
        }
    }
    body.push("    return y".into());
    format!(
        "def seq_if_{k}{SIG}:\n    \"\"\"{k} sequential if statements.\n\n{PRECONDITIONS}    \"\"\"\n{}\n",
        body.join("\n")
    )
}

struct Args {
    seq: Vec<usize>,
    stdlib: Option<PathBuf>,
    mode: Mode,
    timeout_ms: u32,
    /// Print every stdlib function's results (to compare two builds).
    dump: bool,
    /// Times the stdlib corpus is analysed.
    runs: usize,
    /// PythonTA's measurements of the same corpus (JSON lines of `measure_pyta.py`).
    against: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seq: vec![4, 8, 12, 16, 20, 24, 32, 64],
        stdlib: stdlib_dir(),
        mode: Mode::Precise,
        timeout_ms: 5_000,
        dump: false,
        runs: 1,
        against: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seq" => {
                let v = it.next().ok_or("--seq needs K,K,...")?;
                args.seq = v
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().map_err(|_| format!("bad k {s:?}")))
                    .collect::<Result<_, _>>()?;
            }
            "--stdlib" => args.stdlib = Some(PathBuf::from(it.next().ok_or("--stdlib needs DIR")?)),
            "--no-stdlib" => args.stdlib = None,
            "--pyta" => args.mode = Mode::Pyta,
            "--dump" => args.dump = true,
            "--runs" => {
                args.runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a count")?;
            }
            "--against" => {
                args.against = Some(PathBuf::from(it.next().ok_or("--against needs a file")?));
            }
            "--timeout" => {
                args.timeout_ms = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--timeout needs milliseconds")?;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn count(a: &Analysis, want: fn(&Feasible) -> bool) -> usize {
    a.edges.iter().filter(|e| want(&e.feasible)).count()
}

fn timed(source: &str, options: &Options) -> Result<(Analysis, Duration), String> {
    let module = lower_module(source).map_err(|e| e.to_string())?;
    let f = module.functions().next().ok_or("no function")?;
    let start = Instant::now();
    let a = analyze(f, options, &Cancel::new()).map_err(|e| e.to_string())?;
    Ok((a, start.elapsed()))
}

fn synthetic(args: &Args) {
    for &k in &args.seq {
        let source = seq_if(k);
        let edges_only = Options {
            mode: args.mode,
            path_limit: 0,
            timeout_ms: args.timeout_ms,
            given: Vec::new(),
        };
        let listed = Options {
            path_limit: 64,
            ..edges_only.clone()
        };
        match (timed(&source, &edges_only), timed(&source, &listed)) {
            (Ok((a, edges_time)), Ok((b, all_time))) => println!(
                "{}",
                json!({
                    "tool": "analysis-kernel",
                    "family": "seq_if",
                    "k": k,
                    "edges": a.edges.len(),
                    "paths": a.path_count.to_string(),
                    "infeasible_edges": count(&a, |f| *f == Feasible::No),
                    "unknown_edges": count(&a, |f| matches!(f, Feasible::Unknown(_))),
                    "seconds_edge_feasibility": edges_time.as_secs_f64(),
                    "seconds_with_64_paths": all_time.as_secs_f64(),
                    "feasible_listed_paths": b.paths.iter().filter(|p| p.feasible == Feasible::Yes).count(),
                })
            ),
            (Err(e), _) | (_, Err(e)) => {
                println!("{}", json!({"family": "seq_if", "k": k, "error": e}))
            }
        }
    }
}

/// Everything an analysis decides, as text: edge and node verdicts, paths with their
/// constraints, verdicts, witnesses and SMT-LIB, conditions, φ-variables.
fn results(a: &Analysis) -> String {
    let edges: Vec<_> = a
        .edges
        .iter()
        .map(|e| (&e.feasible, &e.paths, &e.adds, &e.dropped))
        .collect();
    let paths: Vec<_> = a
        .paths
        .iter()
        .map(|p| {
            (
                &p.edges,
                p.end,
                &p.constraints,
                p.at_edge.iter().collect::<Vec<_>>(),
                &p.dropped,
                &p.feasible,
                &p.witness,
            )
        })
        .collect();
    format!(
        "{:?}",
        (
            a.smtlib_scripts(),
            &a.preconditions,
            &a.ignored_preconditions,
            edges,
            &a.nodes,
            paths,
            a.truncated,
            &a.conditions,
            &a.merges
        )
    )
}

/// Totals over the stdlib corpus.
#[derive(Default)]
struct Totals {
    functions: usize,
    ok: usize,
    errors: usize,
    crashes: usize,
    edges: usize,
    infeasible: usize,
    unknown: usize,
    paths_listed: usize,
    truncated: usize,
    seconds: f64,
    /// CPU time of this thread over the corpus (the machine may be shared).
    cpu: Option<Duration>,
    slowest: (f64, String),
    stats: Stats,
    /// Seconds per file.
    files: Vec<(String, f64)>,
}

/// The CPU time this thread has run (Linux), to tell the analyses' cost from waiting for a
/// busy machine.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Analyses every function of the corpus; `quiet` prints no line per file.
fn stdlib(dir: &PathBuf, args: &Args, quiet: bool) -> Totals {
    let options = Options {
        mode: args.mode,
        path_limit: 64,
        timeout_ms: args.timeout_ms,
        given: Vec::new(),
    };
    let mut totals = Totals::default();
    for name in MODULES {
        let path = dir.join(name);
        let Ok(source) = std::fs::read_to_string(&path) else {
            println!("{}", json!({"file": name, "status": "missing"}));
            continue;
        };
        let module = match lower_module(&source) {
            Ok(m) => m,
            Err(e) => {
                println!("{}", json!({"file": name, "status": format!("parse: {e}")}));
                continue;
            }
        };
        let start = Instant::now();
        let cpu_start = thread_cpu();
        let (mut functions, mut errors, mut crashes, mut edges, mut infeasible) = (0, 0, 0, 0, 0);
        for f in module.functions() {
            functions += 1;
            let one = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| analyze(f, &options, &Cancel::new())));
            let took = one.elapsed().as_secs_f64();
            if took > totals.slowest.0 {
                totals.slowest = (took, format!("{name}:{}", f.qualname));
            }
            match result {
                Ok(Ok(a)) => {
                    if args.dump {
                        println!(
                            "{}",
                            json!({"function": format!("{name}:{}", f.qualname), "results": results(&a), "seconds": took, "checks": [a.stats.edge_checks, a.stats.path_checks], "later": a.stats.later_iterations.as_secs_f64()})
                        );
                    }
                    totals.ok += 1;
                    edges += a.edges.len();
                    infeasible += count(&a, |f| *f == Feasible::No);
                    totals.unknown += count(&a, |f| matches!(f, Feasible::Unknown(_)));
                    totals.paths_listed += a.paths.len();
                    totals.stats += a.stats;
                    totals.truncated += usize::from(a.truncated);
                }
                Ok(Err(_)) => errors += 1,
                Err(_) => crashes += 1,
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        let cpu = thread_cpu()
            .zip(cpu_start)
            .map(|(end, start)| end.saturating_sub(start));
        totals.cpu = totals.cpu.zip(cpu).map(|(a, b)| a + b).or(cpu);
        totals.files.push((name.to_string(), seconds));
        totals.functions += functions;
        totals.errors += errors;
        totals.crashes += crashes;
        totals.edges += edges;
        totals.infeasible += infeasible;
        totals.seconds += seconds;
        if quiet {
            continue;
        }
        println!(
            "{}",
            json!({
                "tool": "analysis-kernel",
                "file": name,
                "functions": functions,
                "edges": edges,
                "infeasible_edges": infeasible,
                "errors": errors,
                "crashes": crashes,
                "seconds": {"z3": seconds},
                "status": if crashes == 0 { "ok" } else { "crash" },
            })
        );
    }
    totals
}

/// Where the analyses' time went, and the solver checks they made.
fn breakdown(s: &Stats) -> String {
    let ms = |d: Duration| format!("{:.0}", d.as_secs_f64() * 1e3);
    format!(
        "stdlib phases (ms): cfg {}, semantics {}, encoding {}, solver setup {}, lowering to Z3 {}, Z3 checks {}, push/pop {}, models {}, path constraints {}, other {} (analyses {}; later loop iterations {} of it); Z3 checks: {} for edges ({} in later loop iterations), {} for paths ({} fell back on a fresh solver); a solver taken by {} analyses",
        ms(s.cfg),
        ms(s.semantics),
        ms(s.encoding),
        ms(s.solver_setup),
        ms(s.lowering),
        ms(s.checking),
        ms(s.scoping),
        ms(s.models),
        ms(s.path_constraints),
        ms(s.other()),
        ms(s.total),
        ms(s.later_iterations),
        s.edge_checks,
        s.later_iteration_checks,
        s.path_checks,
        s.fallbacks,
        s.solver_uses,
    )
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_constraints: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Panics are caught and counted; keep their messages off the terminal.
    std::panic::set_hook(Box::new(|_| {}));
    // One Z3 watcher thread for the whole run, as a caller analysing many functions in a
    // row should have (instead of one per analysis that makes a query).
    with_watcher(|| run(&args));
    ExitCode::SUCCESS
}

fn run(args: &Args) {
    synthetic(args);
    if let Some(dir) = &args.stdlib {
        let mut runs: Vec<Totals> = (0..args.runs).map(|i| stdlib(dir, args, i > 0)).collect();
        runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let median = runs[runs.len() / 2].seconds;
        if runs.len() > 1 {
            let all: Vec<String> = runs.iter().map(|t| format!("{:.2}", t.seconds)).collect();
            println!("stdlib runs (s, sorted): {}", all.join(" "));
        }
        if let Some(file) = &args.against {
            side_by_side(file, &runs[0], median);
        }
        let t = runs.swap_remove(0);
        println!(
            "stdlib: {} functions, {} analysed, {} errors, {} crashes, {} edges ({} infeasible, {} unknown), {} paths listed ({} functions truncated at 64), {:.1} s ({} s of CPU); slowest {:.2} s ({})",
            t.functions,
            t.ok,
            t.errors,
            t.crashes,
            t.edges,
            t.infeasible,
            t.unknown,
            t.paths_listed,
            t.truncated,
            t.seconds,
            t.cpu
                .map_or("?".into(), |c| format!("{:.1}", c.as_secs_f64())),
            t.slowest.0,
            t.slowest.1
        );
        println!("{}", breakdown(&t.stats));
    }
}

/// PythonTA's "z3" seconds and crashed functions per file, from `measure_pyta.py`'s lines.
fn pyta_figures(file: &PathBuf) -> Result<Vec<(String, f64, u32)>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["tool"] != "pyta" {
            continue;
        }
        let name = v["file"]
            .as_str()
            .unwrap_or("")
            .rsplit('/')
            .next()
            .unwrap_or("");
        let seconds = &v["seconds"];
        let Some(total) = seconds["z3_cfg_total"].as_f64() else {
            continue;
        };
        let z3 = total + seconds["z3_transform"].as_f64().unwrap_or(0.0);
        // "3 fn AttributeError/timeout", or "ok".
        let status = v["status"]["z3"].as_str().unwrap_or("");
        let crashed = status
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        out.push((name.to_string(), z3, crashed));
    }
    Ok(out)
}

/// The ratio of PythonTA's time to ours, per file and in all (`best` is our fastest run).
fn side_by_side(file: &PathBuf, best: &Totals, median: f64) {
    let pyta = match pyta_figures(file) {
        Ok(p) => p,
        Err(e) => {
            println!("{}", json!({"against": e}));
            return;
        }
    };
    let (mut theirs, mut ours, mut crashed) = (0.0, 0.0, 0);
    for (name, z3, crashes) in &pyta {
        let Some((_, mine)) = best.files.iter().find(|(n, _)| n == name) else {
            continue;
        };
        theirs += z3;
        ours += mine;
        crashed += crashes;
        println!(
            "{}",
            json!({"file": name, "pyta_z3_seconds": z3, "pyta_crashed_functions": crashes, "seconds": mine, "ratio": z3 / mine.max(1e-9)})
        );
    }
    let scale = if best.seconds > 0.0 {
        median / best.seconds
    } else {
        1.0
    };
    println!(
        "side by side ({} files): PythonTA {theirs:.1} s, {crashed} functions crashed or timed out; analysis-kernel {ours:.2} s best, {:.2} s median, 0 crashes: {:.0}x faster (median {:.0}x)",
        pyta.len(),
        ours * scale,
        theirs / ours.max(1e-9),
        theirs / (ours * scale).max(1e-9),
    );
}
