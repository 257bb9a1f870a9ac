//! Backward slices checked by execution: for random functions (the generator of
//! `dependence_naive.rs` with bounded loops) and random criterion lines, `%slice` runs the
//! slice and the whole function in the kernel's interpreter on 20 random inputs and every
//! record of the criterion's values must agree.
//!
//! `SLICE_CASES=N` sets the number of functions (default 60), `SLICE_SEED=S` the seed.

#[path = "common/cells.rs"]
mod cells;
#[path = "common/random_functions.rs"]
mod random_functions;
#[path = "common/rng.rs"]
mod rng;
use analysis_kernel::notebook::Session;
use cells::{displays, run};
use random_functions::Gen;
use rng::{Rng, env};

// Seed 7 once caught a dropped unconditional `break` before dead code holding a `continue`;
// Agrawal's rule for jumps (`src/dataflow/slice_jumps.rs`) and leaving unreachable statements
// out fixed it.
#[test]
fn slices_compute_the_criterion_values_of_the_whole_function() {
    let mut g = Gen {
        rng: Rng::new(env("SLICE_SEED", 7)),
        runnable: true,
        lines: Vec::new(),
        loops: 0,
    };
    let (mut checked, mut smaller) = (0, 0);
    for _ in 0..env("SLICE_CASES", 60) {
        let source = g.function();
        let mut s = Session::default();
        run(&mut s, &source)
            .0
            .unwrap_or_else(|e| panic!("{e:?}\n{source}"));
        let lines: Vec<usize> = source
            .lines()
            .enumerate()
            .filter(|(i, l)| {
                let t = l.trim_start();
                *i > 0
                    && !t.ends_with(':')
                    && !["return", "raise", "break", "continue"]
                        .iter()
                        .any(|k| t.starts_with(k))
            })
            .map(|(i, _)| i + 1)
            .collect();
        for _ in 0..2 {
            let line = *g.rng.pick(&lines);
            let var = *g.rng.pick(&["", "x", "y"]);
            let cell = format!("%slice f {line} {var}");
            let (r, out) = run(&mut s, &cell);
            r.unwrap_or_else(|e| panic!("{cell}: {e:?}\n{source}"));
            let mime = "application/vnd.analysis-kernel.slice+json";
            let p = displays(&out)
                .into_iter()
                .find_map(|d| d.get(mime))
                .expect("payload");
            let check = &p["check"];
            assert!(check.get("skipped").is_none(), "{cell}: {check}\n{source}");
            assert_eq!(
                check["agree"], check["inputs"],
                "{cell}: {check}\n{}\n{source}",
                p["python"]
            );
            checked += 1;
            let kept = p["python"].as_str().map_or(0, |t| t.lines().count());
            smaller += usize::from(kept < source.lines().count());
        }
    }
    assert!(checked >= 100, "{checked} slices checked");
    assert!(
        smaller * 4 >= checked,
        "most slices leave something out ({smaller} of {checked})"
    );
}
