//! Times symbolic execution trees: the book's `find` with a symbolic haystack at unroll 2, 4
//! and 8, `is_pal` (two-index palindrome loop on a `str`) at unroll 8, and N sequential `if`s
//! on independent inputs (2^N leaves), the cells of issue 16's table. Prints one JSON line
//! per case (nodes, leaves, solver calls of each kind, calls per leaf, leaves per second,
//! heap bytes per node of the finished tree, peak heap during the run, best time of
//! `--repeat N` runs, default 3), then a table.
//!
//! `--case NAME` runs one case (for peak RSS under `/usr/bin/time -v`); `--cells` adds the
//! whole cells (`%config`, `%%set`, the view, Graphviz skipped) with default settings;
//! `--list` names the cases.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::memory;
use analysis_kernel::notebook::Session;
use analysis_kernel::python::lower_module;
use analysis_kernel::symexec::{Options, Program, Tree, execute, parse_specs};
use serde_json::json;

const FIND_BODY: &str = "i = 0\nwhile i < len(haystack):\n    if haystack[i] == needle:\n        break\n    i = i + 1\nelse:\n    return -1\n\nreturn i\n";

const IS_PAL: &str = "def is_pal(s: str) -> bool:\n    i = 0\n    j = len(s) - 1\n    while i < j:\n        if s[i] != s[j]:\n            return False\n        i = i + 1\n        j = j - 1\n    return True\n";

/// `n` independent `if`s: every combination of outcomes is a leaf.
fn ifs(n: u32) -> (String, String) {
    let mut src = String::from("y = 0\n");
    let mut inputs = Vec::new();
    for i in 0..n {
        src.push_str(&format!("if x{i} > 0:\n    y = y + {}\n", 1u64 << i));
        inputs.push(format!("x{i}:int"));
    }
    (src, inputs.join(" "))
}

/// What a case runs.
enum Kind {
    /// A snippet with inputs, explored with `node_limit` (no view).
    Snippet {
        src: String,
        inputs: String,
        unroll: u64,
        node_limit: usize,
    },
    /// A function of a module, explored with `node_limit` (no view).
    Function {
        src: &'static str,
        name: &'static str,
        unroll: u64,
        node_limit: usize,
    },
    /// Whole cells through the session (first the setup, timed: the second).
    Cell { setup: String, cell: String },
}

struct Case {
    name: String,
    kind: Kind,
}

fn cases(cells: bool) -> Vec<Case> {
    let mut out = Vec::new();
    for unroll in [2, 4, 8] {
        out.push(Case {
            name: format!("find u{unroll}"),
            kind: Kind::Snippet {
                src: FIND_BODY.into(),
                inputs: "needle:int haystack:tuple".into(),
                unroll,
                node_limit: 1_000_000,
            },
        });
    }
    out.push(Case {
        name: "is_pal u8".into(),
        kind: Kind::Function {
            src: IS_PAL,
            name: "is_pal",
            unroll: 8,
            node_limit: 400,
        },
    });
    for (n, limit) in [(10, 1_000_000), (16, 1_000_000), (20, 1_000_000)] {
        let (src, inputs) = ifs(n);
        out.push(Case {
            name: format!("{n} ifs"),
            kind: Kind::Snippet {
                src,
                inputs,
                unroll: 4,
                node_limit: limit,
            },
        });
    }
    let (src, inputs) = ifs(30);
    out.push(Case {
        name: "30 ifs nl1e5".into(),
        kind: Kind::Snippet {
            src,
            inputs,
            unroll: 2,
            node_limit: 100_000,
        },
    });
    if cells {
        for (n, setup) in [
            (10, ""),
            (16, ""),
            (20, "%config node_limit=1000000\n"),
            (30, "%config node_limit=100000\n"),
        ] {
            let (src, inputs) = ifs(n);
            out.push(Case {
                name: format!("cell {n} ifs"),
                kind: Kind::Cell {
                    setup: setup.into(),
                    cell: format!("%%set --unroll 2 {inputs}\n{src}"),
                },
            });
        }
        out.push(Case {
            name: "cell is_pal u8".into(),
            kind: Kind::Cell {
                setup: IS_PAL.into(),
                cell: "%set is_pal --unroll 8".into(),
            },
        });
    }
    out
}

/// Samples the heap in use every millisecond until dropped; keeps the peak.
struct PeakHeap {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PeakHeap {
    fn start() -> PeakHeap {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(memory::in_use()));
        let (s, p) = (stop.clone(), peak.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(memory::in_use(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        PeakHeap {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peak.load(Ordering::Relaxed).max(memory::in_use())
    }
}

/// Figures of one run.
struct Figures {
    seconds: f64,
    nodes: usize,
    leaves: usize,
    calls: u64,
    tree_bytes: usize,
    peak_heap: usize,
    detail: serde_json::Value,
}

fn explore(program: &Program, options: &Options) -> Result<Figures, String> {
    let base = memory::in_use();
    let peak = PeakHeap::start();
    let start = Instant::now();
    let tree: Tree = execute(program, options, &Cancel::new()).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let peak_heap = peak.finish().saturating_sub(base);
    let tree_bytes = memory::in_use().saturating_sub(base);
    let detail = json!({
        "branch_checks": tree.stats.branch_checks,
        "implication_checks": tree.stats.implication_checks,
        "witness_checks": tree.stats.witness_checks,
        "pruned": tree.stats.pruned,
        "syntactic": tree.stats.syntactic,
        "cache_hits": tree.stats.cache_hits,
        "check_ms": tree.stats.check_us / 1000,
        "implication_ms": tree.stats.implication_us / 1000,
        "bound_leaves": tree.cut_paths(),
        "truncated": tree.truncated,
    });
    Ok(Figures {
        seconds,
        nodes: tree.nodes.len(),
        leaves: tree.leaves.len(),
        calls: tree.solver_calls(),
        tree_bytes,
        peak_heap,
        detail,
    })
}

fn cell(setup: &str, code: &str) -> Result<Figures, String> {
    let mut session = Session::new(false);
    session.skip_layout = true;
    if !setup.is_empty() {
        let (r, _) = session.run_cell(setup, &Cancel::new());
        r.map_err(|e| format!("{e:?}"))?;
    }
    let base = memory::in_use();
    let peak = PeakHeap::start();
    let start = Instant::now();
    let (r, out) = session.run_cell(code, &Cancel::new());
    let seconds = start.elapsed().as_secs_f64();
    let peak_heap = peak.finish().saturating_sub(base);
    let error = r.err().map(|e| format!("{}: {}", e.ename, e.evalue));
    let bytes: usize = out.iter().map(|o| format!("{o:?}").len()).sum();
    Ok(Figures {
        seconds,
        nodes: 0,
        leaves: 0,
        calls: 0,
        tree_bytes: 0,
        peak_heap,
        detail: json!({"error": error, "output_bytes": bytes}),
    })
}

fn run(case: &Case) -> Result<Figures, String> {
    match &case.kind {
        Kind::Snippet {
            src,
            inputs,
            unroll,
            node_limit,
        } => {
            let module = lower_module(src).map_err(|e| e.to_string())?;
            let words: Vec<String> = inputs.split_whitespace().map(str::to_string).collect();
            let given = parse_specs(&words).map_err(|e| e.to_string())?;
            let program = Program::snippet(&module, [], &given).map_err(|e| e.to_string())?;
            explore(&program, &options(*unroll, *node_limit))
        }
        Kind::Function {
            src,
            name,
            unroll,
            node_limit,
        } => {
            let module = lower_module(src).map_err(|e| e.to_string())?;
            let program =
                Program::function(name, module.functions(), &[]).map_err(|e| e.to_string())?;
            explore(&program, &options(*unroll, *node_limit))
        }
        Kind::Cell { setup, cell: code } => cell(setup, code),
    }
}

fn options(unroll: u64, node_limit: usize) -> Options {
    Options {
        unroll,
        node_limit,
        ..Options::default()
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let repeat: usize = value("--repeat").and_then(|v| v.parse().ok()).unwrap_or(3);
    let only = value("--case");
    let all = cases(args.iter().any(|a| a == "--cells") || only.is_some());
    if args.iter().any(|a| a == "--list") {
        for c in &all {
            println!("{}", c.name);
        }
        return ExitCode::SUCCESS;
    }
    let mut rows = Vec::new();
    for case in all
        .iter()
        .filter(|c| only.as_ref().is_none_or(|o| *o == c.name))
    {
        let mut best: Option<Figures> = None;
        for _ in 0..repeat.max(1) {
            match run(case) {
                Ok(f) => {
                    if best.as_ref().is_none_or(|b| f.seconds < b.seconds) {
                        best = Some(f);
                    }
                }
                Err(e) => {
                    eprintln!("{}: {e}", case.name);
                    return ExitCode::FAILURE;
                }
            }
        }
        let Some(f) = best else { continue };
        let per = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
        let leaves_per_s = if f.seconds > 0.0 {
            f.leaves as f64 / f.seconds
        } else {
            0.0
        };
        println!(
            "{}",
            json!({
                "case": case.name,
                "seconds": f.seconds,
                "nodes": f.nodes,
                "leaves": f.leaves,
                "solver_calls": f.calls,
                "solver_calls_per_leaf": (per(f.calls as f64, f.leaves) * 100.0).round() / 100.0,
                "leaves_per_second": leaves_per_s.round(),
                "tree_bytes_per_node": per(f.tree_bytes as f64, f.nodes).round(),
                "peak_heap_bytes_per_node": per(f.peak_heap as f64, f.nodes).round(),
                "peak_heap_mb": f.peak_heap >> 20,
                "detail": f.detail,
            })
        );
        rows.push(format!(
            "{:<16} {:>9.3} s {:>8} nodes {:>8} leaves {:>9.0} leaves/s {:>6.2} calls/leaf {:>6.0} B/node (tree) {:>6.0} B/node (peak) {:>6} MB peak heap",
            case.name,
            f.seconds,
            f.nodes,
            f.leaves,
            leaves_per_s,
            per(f.calls as f64, f.leaves),
            per(f.tree_bytes as f64, f.nodes),
            per(f.peak_heap as f64, f.nodes),
            f.peak_heap >> 20,
        ));
    }
    for r in rows {
        println!("{r}");
    }
    ExitCode::SUCCESS
}
