//! Runs the cell fuzzer (`analysis_kernel::fuzz`) for a number of cases and reports cases, time
//! and panics: `cargo run --release --bin fuzz_cells -- --cases 1000000 --seed 1`.
//! The corpus is the example notebooks' code cells and `tests/fixtures/reliability/`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use analysis_kernel::fuzz::{self, Generator};

/// Cases between progress lines.
const CHUNK: usize = 50_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str, default: u64| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cases = value("--cases", 100_000) as usize;
    let seed = value("--seed", 1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut corpus = Vec::new();
    if let Ok(dir) = std::fs::read_dir(root.join("notebooks")) {
        let mut paths: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            corpus.extend(fuzz::notebook_cells(
                &std::fs::read_to_string(p).unwrap_or_default(),
            ));
        }
    }
    let fixtures = root.join("tests/fixtures/reliability");
    let mut seeds = Vec::new();
    if let Ok(dir) = std::fs::read_dir(&fixtures) {
        let mut paths: Vec<_> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "py"))
            .collect();
        paths.sort();
        for p in paths {
            seeds.push(fuzz::expand(
                &std::fs::read_to_string(p).unwrap_or_default(),
            ));
        }
    }
    // Panics are counted, not printed one by one.
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let current = watchdog();
    let starting = |code: &str| {
        if let Ok(mut c) = current.lock() {
            *c = (Instant::now(), code.to_string(), false);
        }
    };
    let mut generator = Generator::new(seed, corpus);
    // In chunks, with progress on stderr.
    let mut summary = fuzz::Summary::default();
    while summary.cases < cases {
        let chunk = (cases - summary.cases).min(CHUNK);
        let first = if summary.cases == 0 { &seeds[..] } else { &[] };
        let part = fuzz::on_big_stack(|| fuzz::run(&mut generator, first, chunk, &starting));
        summary.cases += part.cases;
        summary.errors += part.errors;
        summary.panics.extend(part.panics);
        summary.slow.extend(part.slow);
        eprintln!(
            "{} cases, {} panics, {} slow, {:.1} s",
            summary.cases,
            summary.panics.len(),
            summary.slow.len(),
            start.elapsed().as_secs_f64()
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "cases {}  errors {}  panics {}  slow (> {} s) {}  time {:.1} s  ({:.0} cells/s)  seed {seed}",
        summary.cases,
        summary.errors,
        summary.panics.len(),
        fuzz::SLOW_SECONDS,
        summary.slow.len(),
        secs,
        summary.cases as f64 / secs
    );
    for (code, message) in summary.panics.iter().take(10) {
        let shown: String = code.chars().take(300).collect();
        println!("--- panic: {message}\n{shown}");
    }
    for (code, secs) in summary.slow.iter().take(10) {
        let shown: String = code.chars().take(300).collect();
        println!("--- slow: {secs:.1} s\n{shown}");
    }
    if !summary.panics.is_empty() {
        std::process::exit(1);
    }
}

/// The cell running now: when it started, its text, whether the watchdog has named it.
type Current = Arc<Mutex<(Instant, String, bool)>>;

/// Starts a thread that prints, once, any cell still running after twice
/// [`fuzz::SLOW_SECONDS`], so a cell that never ends is named while it hangs.
fn watchdog() -> Current {
    let current: Current = Arc::new(Mutex::new((Instant::now(), String::new(), false)));
    let watched = Arc::clone(&current);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let Ok(mut c) = watched.lock() else { return };
            let secs = c.0.elapsed().as_secs_f64();
            if !c.2 && secs > 2.0 * fuzz::SLOW_SECONDS {
                c.2 = true;
                let shown: String = c.1.chars().take(2_000).collect();
                eprintln!("--- still running after {secs:.0} s:\n{shown}\n---");
            }
        }
    });
    current
}
