//! The 25 stdlib modules of the benchmark corpus (`tests/fixtures/corpus/bench/gen_corpus.py`), shared by
//! `bench_cfg`, `bench_constraints` and `tests/cfg_invariants.rs` (each includes this file
//! with `#[path]`), read from this machine's `python3` stdlib.

use std::path::PathBuf;
use std::process::Command;

/// `gen_corpus.py`'s `REAL_MODULES`, in its order.
pub const MODULES: [&str; 25] = [
    "keyword.py",
    "colorsys.py",
    "bisect.py",
    "fnmatch.py",
    "glob.py",
    "heapq.py",
    "copy.py",
    "string.py",
    "shlex.py",
    "textwrap.py",
    "functools.py",
    "random.py",
    "tokenize.py",
    "calendar.py",
    "ast.py",
    "configparser.py",
    "pickle.py",
    "subprocess.py",
    "tarfile.py",
    "datetime.py",
    "_pydecimal.py",
    "typing.py",
    "argparse.py",
    "difflib.py",
    "inspect.py",
];

/// This machine's `python3` stdlib directory, if `python3` runs.
pub fn stdlib_dir() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}
