//! Times the fixpoint engine on one generated function whose CFG has about 10^5 nodes:
//! reaching definitions (bit sets over every definition) and interval analysis (one interval
//! per variable and point, widening and narrowing), plus liveness for comparison. Each
//! phase's time includes building the analysis.
//!
//! The generated program is deterministic (a fixed seed): straight-line runs, `if`/`else`
//! diamonds and counted `while` loops over `v0..v{V-1}`. Like real code, the loops reuse their
//! counters, drawn from a pool of [`COUNTERS`] names (`k0..k7`), so a program has `V + 8`
//! variables (and its parameter `p`) whatever its size.
//!
//! `bench_dataflow [--nodes N] [--vars V] [--repeat R]`: N defaults to 100000, V to 64; each
//! time is the best of R runs (default 3). Prints one JSON line per phase with the peak
//! resident memory so far, then a summary with the peak of the whole run (`VmHWM`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use analysis_kernel::dataflow::absint::{self, AbsInt};
use analysis_kernel::dataflow::analyses::{LiveVariables, Program, ReachingDefinitions};
use analysis_kernel::dataflow::domains::Interval;
use analysis_kernel::dataflow::engine::{Options, Results, iterate_to_fixpoint};
use analysis_kernel::python::lower_module;
use analysis_kernel::splitmix::SplitMix64;
use serde_json::json;

/// The crate's generator, for a reproducible program.
type Rng = SplitMix64;

/// How many loop counters the generated loops share (`k0..k7`).
const COUNTERS: u64 = 8;

/// A function of straight-line runs, `if`/`else` diamonds and counted `while` loops over
/// `vars` variables and [`COUNTERS`] loop counters, with at least `nodes` statements.
fn program(nodes: usize, vars: u64) -> String {
    let mut rng = Rng::new(42);
    let mut out = String::from("def big(p):\n");
    for v in 0..vars {
        out.push_str(&format!("    v{v} = {}\n", v % 7));
    }
    let mut count = vars as usize + 2;
    let mut loops = 0;
    // Divisions by positive constants only, so that no division certainly raises and the
    // whole program stays reachable for the interval analysis; products are taken modulo
    // 97, since chains of products would make the bounds (like Python's ints) grow
    // exponentially in size.
    let assign = |rng: &mut Rng, indent: &str, out: &mut String| {
        let (a, b, c) = (rng.below(vars), rng.below(vars), rng.below(vars));
        let k = rng.below(5) + 1;
        let rhs = match rng.below(5) {
            0 => format!("v{b} + v{c}"),
            1 => format!("v{b} - {k}"),
            2 => format!("v{b} * v{c} % 97"),
            3 => format!("v{b} // {k}"),
            _ => format!("(v{b} + v{c}) % {}", k + 1),
        };
        out.push_str(&format!("{indent}v{a} = {rhs}\n"));
    };
    while count < nodes {
        for _ in 0..3 {
            assign(&mut rng, "    ", &mut out);
        }
        count += 3;
        match rng.below(3) {
            0 => {
                let v = rng.below(vars);
                out.push_str(&format!("    if v{v} > {}:\n", rng.below(10)));
                assign(&mut rng, "        ", &mut out);
                assign(&mut rng, "        ", &mut out);
                out.push_str("    else:\n");
                assign(&mut rng, "        ", &mut out);
                count += 4;
            }
            1 => {
                let k = loops % COUNTERS;
                loops += 1;
                out.push_str(&format!("    k{k} = 0\n    while k{k} < 10:\n"));
                assign(&mut rng, "        ", &mut out);
                out.push_str(&format!("        k{k} = k{k} + 1\n"));
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

/// The best time of `repeat` runs of `f` (at least one), with the last run's value: each run
/// drops the value before it, so that only one is alive at a time.
fn best<T>(repeat: u32, mut f: impl FnMut() -> T) -> (Duration, T) {
    let start = Instant::now();
    let mut value = f();
    let mut fastest = start.elapsed();
    for _ in 1..repeat {
        drop(value);
        let start = Instant::now();
        value = f();
        fastest = fastest.min(start.elapsed());
    }
    (fastest, value)
}

fn report<A: analysis_kernel::dataflow::engine::Analysis>(
    phase: &str,
    took: Duration,
    r: &Results<'_, A>,
    facts: usize,
) {
    println!(
        "{}",
        json!({
            "phase": phase,
            "seconds": took.as_secs_f64(),
            "facts": facts,
            "node_visits": r.stats.iterations,
            "chains": r.layout.chains.len(),
            "chain_visits": r.stats.chain_visits,
            "widenings": r.stats.widenings,
            "narrowing_rounds": r.stats.narrowing_rounds,
            "peak_rss_mib_so_far": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024),
        })
    );
}

fn arg(args: &[String], name: &str) -> Result<Option<u64>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .map(Some)
            .ok_or_else(|| format!("{name} needs a number")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = (|| -> Result<(u64, u64, u64), String> {
        Ok((
            arg(&args, "--nodes")?.unwrap_or(100_000),
            arg(&args, "--vars")?.unwrap_or(64),
            arg(&args, "--repeat")?.unwrap_or(3),
        ))
    })();
    let (nodes, vars, repeat) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("bench_dataflow: {e}");
            return ExitCode::FAILURE;
        }
    };
    let repeat = u32::try_from(repeat).unwrap_or(3);
    let source = program(nodes as usize, vars);
    let start = Instant::now();
    let module = match lower_module(&source) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("bench_dataflow: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(f) = module.function("big") else {
        eprintln!("bench_dataflow: no function");
        return ExitCode::FAILURE;
    };
    let parse = start.elapsed();
    let start = Instant::now();
    let program = match Program::function(f) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bench_dataflow: {e}");
            return ExitCode::FAILURE;
        }
    };
    let build = start.elapsed();
    println!(
        "{}",
        json!({
            "phase": "setup",
            "cfg_nodes": program.cfg.graph.node_count(),
            "cfg_edges": program.cfg.graph.edge_count(),
            "lines": source.lines().count(),
            "parse_seconds": parse.as_secs_f64(),
            "cfg_and_facts_seconds": build.as_secs_f64(),
            "peak_rss_mib_so_far": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024),
        })
    );
    let options = Options::default();
    let mut total = Duration::ZERO;
    let (took, rd) = best(repeat, || {
        iterate_to_fixpoint(&program.cfg, ReachingDefinitions::new(&program), &options)
    });
    match &rd {
        Ok(r) => report("reaching-definitions", took, r, r.analysis.sites.len()),
        Err(e) => {
            eprintln!("bench_dataflow: {e}");
            return ExitCode::FAILURE;
        }
    }
    drop(rd);
    total += took;
    let (took, live) = best(repeat, || {
        iterate_to_fixpoint(&program.cfg, LiveVariables::new(&program), &options)
    });
    if let Ok(r) = &live {
        report("live-variables", took, r, r.analysis.sites.len());
    }
    drop(live);
    let absint_options = absint::options(false, None);
    let (took, iv) = best(repeat, || {
        iterate_to_fixpoint(
            &program.cfg,
            AbsInt::<Interval>::new(&program),
            &absint_options,
        )
    });
    match &iv {
        Ok(r) => report("interval", took, r, vars as usize),
        Err(e) => {
            eprintln!("bench_dataflow: {e}");
            return ExitCode::FAILURE;
        }
    }
    total += took;
    println!(
        "{}",
        json!({
            "phase": "total",
            "reaching_plus_interval_seconds": total.as_secs_f64(),
            "target_seconds": 1.0,
            "peak_rss_mib": analysis_kernel::memory::peak_rss_kib().map(|k| k / 1024),
        })
    );
    ExitCode::SUCCESS
}
