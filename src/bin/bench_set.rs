//! Times symbolic execution trees: the book's `find` with a symbolic haystack at unroll 2, 4
//! and 8, and ten sequential `if`s on independent inputs (2^10 leaves). Prints one JSON line
//! per case (nodes, leaves, solver calls of each kind, calls per node, best time of
//! `--repeat N` runs, default 3), then a table.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::python::lower_module;
use analysis_kernel::symexec::{Options, Program, Tree, execute, parse_specs};
use serde_json::json;

const FIND_BODY: &str = "i = 0\nwhile i < len(haystack):\n    if haystack[i] == needle:\n        break\n    i = i + 1\nelse:\n    return -1\n\nreturn i\n";

/// Ten independent `if`s: every combination of outcomes is a leaf.
fn ten_ifs() -> (String, String) {
    let mut src = String::from("y = 0\n");
    let mut inputs = Vec::new();
    for i in 0..10 {
        src.push_str(&format!("if x{i} > 0:\n    y = y + {}\n", 1 << i));
        inputs.push(format!("x{i}:int"));
    }
    (src, inputs.join(" "))
}

fn run(src: &str, inputs: &str, unroll: u64, repeat: usize) -> Result<(Tree, Duration), String> {
    let module = lower_module(src).map_err(|e| e.to_string())?;
    let words: Vec<String> = inputs.split_whitespace().map(str::to_string).collect();
    let given = parse_specs(&words).map_err(|e| e.to_string())?;
    let program = Program::snippet(&module, [], &given).map_err(|e| e.to_string())?;
    let options = Options {
        unroll,
        node_limit: 1_000_000,
        ..Options::default()
    };
    let mut best = Duration::MAX;
    let mut tree = None;
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let t = execute(&program, &options, &Cancel::new()).map_err(|e| e.to_string())?;
        best = best.min(start.elapsed());
        tree = Some(t);
    }
    tree.map(|t| (t, best)).ok_or_else(|| "no run".into())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let (ifs, if_inputs) = ten_ifs();
    let cases: Vec<(String, &str, &str, u64)> = vec![
        (
            "find, unroll 2".into(),
            FIND_BODY,
            "needle:int haystack:tuple",
            2,
        ),
        (
            "find, unroll 4".into(),
            FIND_BODY,
            "needle:int haystack:tuple",
            4,
        ),
        (
            "find, unroll 8".into(),
            FIND_BODY,
            "needle:int haystack:tuple",
            8,
        ),
        ("10 sequential ifs".into(), &ifs, &if_inputs, 4),
    ];
    let mut rows = Vec::new();
    for (name, src, inputs, unroll) in &cases {
        match run(src, inputs, *unroll, repeat) {
            Ok((tree, time)) => {
                let calls = tree.solver_calls();
                let per_node = calls as f64 / tree.nodes.len().max(1) as f64;
                println!(
                    "{}",
                    json!({
                        "case": name,
                        "nodes": tree.nodes.len(),
                        "leaves": tree.leaves.len(),
                        "bound_leaves": tree.cut_paths(),
                        "branch_checks": tree.stats.branch_checks,
                        "implication_checks": tree.stats.implication_checks,
                        "witness_checks": tree.stats.witness_checks,
                        "pruned": tree.stats.pruned,
                        "solver_calls_per_node": (per_node * 100.0).round() / 100.0,
                        "seconds": time.as_secs_f64(),
                    })
                );
                rows.push(format!(
                    "{name:<20} {:>6} nodes {:>6} leaves {:>7} solver calls ({:.2}/node) {:>9.3} s",
                    tree.nodes.len(),
                    tree.leaves.len(),
                    calls,
                    per_node,
                    time.as_secs_f64()
                ));
            }
            Err(e) => {
                eprintln!("{name}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    for r in rows {
        println!("{r}");
    }
    ExitCode::SUCCESS
}
