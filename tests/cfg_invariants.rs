//! The CFG invariants (`cfg::verify`) and dominator sanity on every fixture, on the PythonTA
//! and fuzzingbook corpus programs, and on the 25 stdlib modules of the benchmark corpus
//! (`tests/fixtures/corpus/bench/gen_corpus.py`), read from this machine's `python3` stdlib.

use std::path::{Path, PathBuf};

use analysis_kernel::cfg::{
    Cfg, basic_blocks, dominators, function_cfg, module_cfg, post_dominators, verify,
};
use analysis_kernel::python::ir::Stmt;
use analysis_kernel::python::lower_module;

#[path = "common/stdlib_corpus.rs"]
mod stdlib_corpus;
use stdlib_corpus::{MODULES as STDLIB_MODULES, stdlib_dir};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Checks the invariants of one CFG at both granularities, and its dominator trees.
fn check_cfg(cfg: &Cfg, body: &[Stmt]) -> Result<(), String> {
    verify(cfg, body).map_err(|e| e.to_string())?;
    let blocks = basic_blocks(cfg);
    verify(&blocks.cfg, body).map_err(|e| format!("blocks: {e}"))?;
    // Every statement node sits in exactly the block that lists it.
    for (b, members) in blocks.members.iter().enumerate() {
        for m in members {
            if blocks.block_of[m.index()].index() != b {
                return Err(format!("{}: node {} misfiled", cfg.name, m.index()));
            }
        }
    }
    let doms = dominators(cfg);
    let reachable = cfg.reachable();
    for n in cfg.nodes() {
        if reachable[n.index()] != doms.contains(n) {
            return Err(format!(
                "{}: dominator tree and reachability differ at {}",
                cfg.name,
                n.index()
            ));
        }
        if reachable[n.index()] && !doms.dominates(cfg.entry, n) {
            return Err(format!(
                "{}: entry does not dominate {}",
                cfg.name,
                n.index()
            ));
        }
    }
    let post = post_dominators(cfg);
    for n in cfg.nodes().filter(|&n| post.contains(n)) {
        if !post.dominates(cfg.exit, n) {
            return Err(format!(
                "{}: exit does not post-dominate {}",
                cfg.name,
                n.index()
            ));
        }
    }
    Ok(())
}

/// Builds and checks the module's CFG and every function's; returns how many were checked.
fn check_source(source: &str) -> Result<usize, String> {
    let module = lower_module(source).map_err(|e| format!("parse: {e}"))?;
    let cfg = module_cfg(&module).map_err(|e| e.to_string())?;
    check_cfg(&cfg, &module.body)?;
    let mut count = 1;
    for f in module.functions() {
        let cfg = function_cfg(f).map_err(|e| format!("{}: {e}", f.qualname))?;
        check_cfg(&cfg, &f.body)?;
        count += 1;
    }
    Ok(count)
}

fn python_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    files
}

#[test]
fn fixtures_hold_the_invariants() {
    let files = python_files(&manifest().join("tests/fixtures/cfg"));
    assert!(files.len() >= 20, "fixtures found: {}", files.len());
    for file in files {
        let source = std::fs::read_to_string(&file).expect("readable");
        check_source(&source).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

#[test]
fn corpus_programs_hold_the_invariants() {
    let root = manifest().join("tests/fixtures/corpus");
    let mut checked = 0;
    for (path, key) in [
        ("pyta/cfg_structure_cases.json", "src"),
        ("fuzzingbook/controlflow_cases.json", "src"),
    ] {
        let text = std::fs::read_to_string(root.join(path)).expect("corpus present");
        let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
        for case in cases.as_array().into_iter().flatten() {
            let src = case[key].as_str().or(case["source"].as_str()).unwrap_or("");
            check_source(src).unwrap_or_else(|e| panic!("{path} {}: {e}", case["test"]));
            checked += 1;
        }
    }
    assert_eq!(checked, 109 + 8);
}

#[test]
fn module_list_matches_gen_corpus() {
    let script = manifest().join("tests/fixtures/corpus/bench/gen_corpus.py");
    let Ok(text) = std::fs::read_to_string(&script) else {
        return; // the list above is the reference when the bench directory is absent
    };
    let start = text
        .find("REAL_MODULES = [")
        .expect("REAL_MODULES in gen_corpus.py");
    let end = start + text[start..].find(']').expect("end of the list");
    let listed: Vec<&str> = text[start..end].split('"').skip(1).step_by(2).collect();
    assert_eq!(listed, STDLIB_MODULES);
}

#[test]
fn stdlib_modules_hold_the_invariants() {
    let dir = stdlib_dir().expect("python3 runs");
    let mut ok = 0;
    let mut cfgs = 0;
    let mut failures = Vec::new();
    for name in STDLIB_MODULES {
        let path = dir.join(name);
        let source = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        match check_source(&source) {
            Ok(n) => {
                ok += 1;
                cfgs += n;
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(ok, 25);
    assert!(cfgs > 1800, "only {cfgs} CFGs checked");
}
