//! `%constraints` returns within its budget on code that once made Z3 loop where no
//! interrupt reached it: `_pydecimal._insert_thousands_sep` (a dict parameter, whose keys
//! are distinct by a quantified axiom) never returned, as Z3's `push` propagated its
//! sequence theory's equations forever. Every function of CPython's `_pydecimal.py` is
//! analysed on a worker thread; the test fails if they are not done long after their
//! budgets (the worker would still be looping).

use std::sync::mpsc;
use std::time::Duration;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::constraints::{Mode, Options, analyze};
use analysis_kernel::python::lower_module;

#[path = "common/stdlib_corpus.rs"]
#[allow(dead_code)]
mod stdlib_corpus;
use stdlib_corpus::stdlib_dir;

/// Far beyond what the analyses may take: 237 functions, each stopped by its solver budget
/// (two 5-second timeouts); about 3 seconds in all on an idle machine.
const DEADLINE: Duration = Duration::from_secs(600);

#[test]
fn every_function_of_pydecimal_is_analysed_within_its_budget() {
    let dir = stdlib_dir().expect("python3 runs");
    let source = std::fs::read_to_string(dir.join("_pydecimal.py")).expect("_pydecimal.py");
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let module = lower_module(&source).expect("parses");
        let options = Options {
            mode: Mode::Precise,
            path_limit: 64,
            timeout_ms: 5_000,
            given: Vec::new(),
        };
        let mut analysed = Vec::new();
        for f in module.functions() {
            if analyze(f, &options, &Cancel::new()).is_ok() {
                analysed.push(f.qualname.clone());
            }
        }
        let _ = done.send(analysed);
    });
    let analysed = finished
        .recv_timeout(DEADLINE)
        .expect("the analyses of _pydecimal.py did not return (Z3 is looping)");
    assert!(
        analysed.iter().any(|n| n == "_insert_thousands_sep"),
        "{analysed:?}"
    );
    assert!(analysed.len() > 200, "{} analysed", analysed.len());
}
