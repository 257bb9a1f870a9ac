//! The everyday-functions harness (issue 15): every top-level `def` of
//! `tests/fixtures/everyday/*.py` through `%set` and `%check` in a session, with what
//! happened to it (tree or refusal and its construct, `%check`'s verdicts, witnesses that
//! miss their leaf, time). Shared by `tests/set_everyday.rs` and `bench_everyday --report`.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use serde_json::Value as Json;

/// What `%set` and `%check` did with one function.
#[derive(Clone, Debug)]
pub struct Record {
    pub file: String,
    pub function: String,
    /// The tree's leaves (exact, approximate), or the refusal's construct.
    pub set: Result<SetFacts, Refusal>,
    pub check: Option<CheckFacts>,
    pub set_time: Duration,
    pub panicked: bool,
    /// The havoc constructs on the tree's nodes (line numbers dropped), distinct, sorted.
    pub havocs: Vec<String>,
    /// What `%constraints` decided (when it ran).
    pub constraints: Option<ConstraintFacts>,
}

/// `%constraints NAME`'s edges and time.
#[derive(Clone, Debug)]
pub struct ConstraintFacts {
    /// Edges, and those whose feasibility is decided (not `"unknown"`); `Err` is the
    /// cell error.
    pub edges: Result<(usize, usize), String>,
    /// Of the decided edges, those a run decided (`yes (run)`), not the solver.
    pub by_runs: usize,
    pub time: Duration,
    /// For each undecided edge, why: the first condition left untranslated on a listed path
    /// through it (`reason: text`), else the edge's own reason.
    pub undecided: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct SetFacts {
    pub leaves: usize,
    /// Leaves the payload marks approximate (`"approximate": true`).
    pub approximate: usize,
    pub truncated: bool,
}

#[derive(Clone, Debug)]
pub struct Refusal {
    pub ename: String,
    /// The construct refused, normalised for counting.
    pub construct: String,
    pub message: String,
}

#[derive(Clone, Debug)]
pub struct CheckFacts {
    /// `Err` holds the cell error (`CheckError: ...`).
    pub verdict: Result<Verdict, String>,
}

#[derive(Clone, Debug)]
pub struct Verdict {
    pub precise: bool,
    pub exhaustive: bool,
    /// Witnesses replayed in CPython that did not reproduce their (exact) leaf.
    pub witness_misses: usize,
    pub witnesses: usize,
}

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/everyday")
}

/// A fixture file beside the everyday corpus: `set_mappings/params.py`.
pub fn sibling_fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// Asserts that `%set` built `r`'s tree and `%check` judged it precise with no witness
/// missing its leaf (and, when `replayed`, with at least one witness replayed in CPython);
/// the tree's facts.
pub fn assert_checked(r: &Record, replayed: bool) -> &SetFacts {
    let name = r.function.as_str();
    let set = r
        .set
        .as_ref()
        .unwrap_or_else(|e| panic!("{name}: no tree: {e:?}"));
    let check = r.check.as_ref().expect("checked");
    let verdict = check
        .verdict
        .as_ref()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(verdict.precise, "{name}: %check is not precise");
    assert_eq!(
        verdict.witness_misses, 0,
        "{name}: a witness misses its leaf"
    );
    assert!(
        !replayed || verdict.witnesses > 0,
        "{name}: no witness replayed"
    );
    set
}

/// What a fixture's functions outside its exact list must be.
#[allow(dead_code)]
pub enum Rest {
    /// Approximate (a havoc keeps an unsound case out of the model): at least one
    /// approximate leaf.
    Approximate,
    /// Checked like the exact ones, witnesses replayed, approximate leaves allowed.
    Checked,
}

/// Asserts every record is of a function in `exact` (checked, a witness replayed in CPython,
/// no approximate leaf) or in `rest` (as `kind` says), and that there is one per name.
#[allow(dead_code)]
pub fn assert_exact_and_rest(records: &[Record], exact: &[&str], rest: &[&str], kind: Rest) {
    assert_eq!(records.len(), exact.len() + rest.len());
    for r in records {
        let name = r.function.as_str();
        let is_exact = exact.contains(&name);
        assert!(
            is_exact || rest.contains(&name),
            "{name} is in neither list"
        );
        let set = assert_checked(r, is_exact || matches!(kind, Rest::Checked));
        if is_exact {
            assert_eq!(
                set.approximate, 0,
                "{name}: approximate leaves {:?}",
                r.havocs
            );
        } else if matches!(kind, Rest::Approximate) {
            assert!(
                set.approximate > 0,
                "{name}: a case that must stay approximate was modelled"
            );
        }
    }
}

/// The fixture files, sorted.
pub fn files() -> Vec<PathBuf> {
    files_in(&fixture_dir())
}

/// The `.py` files of `dir`, sorted.
pub fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    out.sort();
    out
}

/// Top-level `def NAME(` of a source, in order.
pub fn functions(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix("def "))
        .filter_map(|rest| rest.split('(').next())
        .map(|n| n.trim().to_string())
        .collect()
}

fn payload<'o>(out: &'o [Output], kind: &str) -> Option<&'o Json> {
    let mime = format!("application/vnd.analysis-kernel.{kind}+json");
    out.iter().rev().find_map(|o| match o {
        Output::Display(b) | Output::Result(b) => b.data.get(&mime),
        _ => None,
    })
}

/// The construct of a refusal, for counting: the message without line numbers and the
/// list of what is modelled.
pub fn construct(ename: &str, message: &str) -> String {
    if message.contains("has no type") {
        return "parameter without annotation".into();
    }
    let m = message
        .split(" is not supported by symbolic execution")
        .next()
        .unwrap_or(message);
    let m = m.split(" (modelled:").next().unwrap_or(m);
    let m = m.split(" (line ").next().unwrap_or(m);
    let m = m.split(" (values of").next().unwrap_or(m);
    let words: String = m.chars().take(70).collect();
    format!("{ename}: {words}")
}

/// The construct of a havoc note: `havoc: the method .append(), line 4` -> `the method
/// .append()`; every `using NAME, which holds an unmodelled value` is one construct.
pub fn havoc_construct(note: &str) -> String {
    let m = note.strip_prefix("havoc: ").unwrap_or(note);
    if m.starts_with("using ") && m.contains(", which holds an unmodelled value") {
        // A consequence of an earlier havoc on the same path, counted once.
        return "using a name that holds an unmodelled value".into();
    }
    match m.rfind(", line ") {
        Some(i) if m[i + 7..].chars().all(|c| c.is_ascii_digit()) => m[..i].to_string(),
        _ => m.to_string(),
    }
}

/// The distinct havoc constructs on a `set` payload's nodes.
fn havocs(j: &Json) -> Vec<String> {
    let mut out: Vec<String> = j["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|n| n["havoc"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h.as_str().map(havoc_construct))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Runs `%constraints NAME` and counts its decided edges.
fn run_constraints(session: &mut Session, cancel: &Cancel, name: &str) -> ConstraintFacts {
    let start = Instant::now();
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        session.run_cell(&format!("%constraints {name}"), cancel)
    }));
    let time = start.elapsed();
    let mut undecided = Vec::new();
    let mut by_runs = 0;
    let edges = match ran {
        Err(_) => Err("panic".to_string()),
        Ok((Err(e), _)) => Err(format!("{}: {}", e.ename, e.evalue)),
        Ok((Ok(()), out)) => match payload(&out, "constraints") {
            None => Err("no constraints payload".into()),
            Some(j) => {
                let edges = j["edges"].as_array().cloned().unwrap_or_default();
                let decided = edges.iter().filter(|e| e["feasible"] != "unknown").count();
                by_runs = edges.iter().filter(|e| !e["run"].is_null()).count();
                let paths = j["paths"].as_array().cloned().unwrap_or_default();
                undecided = edges
                    .iter()
                    .filter(|e| e["feasible"] == "unknown")
                    .map(|e| undecided_reason(e, &paths))
                    .collect();
                Ok((edges.len(), decided))
            }
        },
    };
    ConstraintFacts {
        edges,
        by_runs,
        time,
        undecided,
    }
}

/// A reason without its place and text, and with `name 'x'` as `a name`, for counting.
fn reason_kind(reason: &str) -> String {
    let kind = reason.split(" (line ").next().unwrap_or(reason);
    match (kind.find("name '"), kind.rfind("' has no known type")) {
        (Some(0), Some(_)) => "a name with no known type".to_string(),
        _ => kind.to_string(),
    }
}

/// Why the undecided `edge` is: the first untranslated condition of a listed path that
/// takes it, else the edge's reason.
fn undecided_reason(edge: &Json, paths: &[Json]) -> String {
    let (source, target) = (&edge["source"], &edge["target"]);
    let takes = |p: &&Json| {
        p["nodes"]
            .as_array()
            .is_some_and(|n| n.windows(2).any(|w| &w[0] == source && &w[1] == target))
    };
    paths
        .iter()
        .filter(takes)
        .find_map(|p| p["untranslated"].as_array()?.first().cloned())
        .map(|d| {
            format!(
                "{}: {}",
                d["reason"].as_str().unwrap_or("?"),
                d["text"].as_str().unwrap_or("?")
            )
        })
        .unwrap_or_else(|| edge["reason"].as_str().unwrap_or("?").to_string())
}

/// Runs one fixture file: the file as a cell, then `%set NAME --leaves` and (when a tree
/// was built and `check` is on) `%check NAME` for each function.
pub fn run_file(path: &Path, check: bool) -> Vec<Record> {
    run_file_with(path, check, false)
}

/// [`run_file`], with `%constraints NAME` for each function too when `constraints` is on.
pub fn run_file_with(path: &Path, check: bool, constraints: bool) -> Vec<Record> {
    let source = std::fs::read_to_string(path).expect("fixture");
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut session = Session::default();
    let cancel = Cancel::new();
    // Fewer random runs than the default and a 1 s solver timeout keep the suite's time
    // down; every witness is still replayed.
    for setting in ["%config check_runs=40", "%config z3_timeout_ms=1000"] {
        let (done, _) = session.run_cell(setting, &cancel);
        done.expect(setting);
    }
    let (loaded, out) = session.run_cell(&source, &cancel);
    if let Err(e) = loaded {
        panic!("{file} does not run in the kernel: {e:?} {out:?}");
    }
    let mut records = Vec::new();
    let progress = std::env::var_os("EVERYDAY_PROGRESS").is_some();
    for name in functions(&source) {
        if progress {
            eprintln!("{file}:{name}");
        }
        let start = Instant::now();
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            session.run_cell(&format!("%set {name} --leaves"), &cancel)
        }));
        let set_time = start.elapsed();
        let (result, out) = match ran {
            Ok(r) => r,
            Err(_) => {
                records.push(Record {
                    file: file.clone(),
                    function: name,
                    set: Err(Refusal {
                        ename: "panic".into(),
                        construct: "panic".into(),
                        message: "panic".into(),
                    }),
                    check: None,
                    set_time,
                    panicked: true,
                    havocs: Vec::new(),
                    constraints: None,
                });
                continue;
            }
        };
        let mut found = Vec::new();
        let set = match result {
            Ok(()) => match payload(&out, "set") {
                Some(j) => {
                    found = havocs(j);
                    let leaves = j["leaves"].as_array().map_or(0, Vec::len);
                    let approximate = j["leaves"].as_array().map_or(0, |ls| {
                        ls.iter()
                            .filter(|l| l["approximate"] == Json::Bool(true))
                            .count()
                    });
                    Ok(SetFacts {
                        leaves,
                        approximate,
                        truncated: j["truncated"] == Json::Bool(true),
                    })
                }
                None => Err(Refusal {
                    ename: "NoPayload".into(),
                    construct: "no set payload".into(),
                    message: String::new(),
                }),
            },
            Err(e) => Err(Refusal {
                construct: construct(&e.ename, &e.evalue),
                ename: e.ename,
                message: e.evalue,
            }),
        };
        let mut panicked = false;
        let check_facts = if check && set.is_ok() {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                session.run_cell(&format!("%check {name}"), &cancel)
            }));
            match ran {
                Err(_) => {
                    panicked = true;
                    None
                }
                Ok((Err(e), _)) => Some(CheckFacts {
                    verdict: Err(format!("{}: {}", e.ename, e.evalue)),
                }),
                Ok((Ok(()), out)) => Some(CheckFacts {
                    verdict: match payload(&out, "check") {
                        None => Err("no check payload".into()),
                        Some(j) => {
                            let misses = j["counterexamples"].as_array().map_or(0, |cs| {
                                cs.iter().filter(|c| c["property"] == "precise").count()
                            });
                            Ok(Verdict {
                                precise: j["precise"] == Json::Bool(true),
                                exhaustive: j["exhaustive"] == Json::Bool(true),
                                witness_misses: misses,
                                witnesses: j["witnesses"].as_u64().unwrap_or(0) as usize,
                            })
                        }
                    },
                }),
            }
        } else {
            None
        };
        let constraints_facts = constraints.then(|| run_constraints(&mut session, &cancel, &name));
        records.push(Record {
            file: file.clone(),
            function: name,
            set,
            check: check_facts,
            set_time,
            panicked: panicked
                || constraints_facts
                    .as_ref()
                    .is_some_and(|c| matches!(&c.edges, Err(e) if e == "panic")),
            havocs: found,
            constraints: constraints_facts,
        });
    }
    records
}

/// Every fixture's records.
pub fn run_all(check: bool) -> Vec<Record> {
    run_all_with(check, false)
}

/// Every fixture's records, with `%constraints` when `constraints` is on.
pub fn run_all_with(check: bool, constraints: bool) -> Vec<Record> {
    run_dir_with(&fixture_dir(), check, constraints)
}

/// The records of every `.py` file of `dir` (a corpus other than the fixtures).
pub fn run_dir_with(dir: &std::path::Path, check: bool, constraints: bool) -> Vec<Record> {
    files_in(dir)
        .iter()
        .flat_map(|p| run_file_with(p, check, constraints))
        .collect()
}

/// Figures over the records.
#[derive(Debug)]
pub struct Summary {
    pub functions: usize,
    pub trees: usize,
    /// Trees none of whose leaves is approximate.
    pub exact_trees: usize,
    pub checked: usize,
    pub precise: usize,
    pub check_errors: usize,
    pub witness_misses: usize,
    pub panics: usize,
    pub refusals: BTreeMap<String, usize>,
    pub median: Duration,
    pub worst: Duration,
    pub worst_name: String,
    /// Havoc construct -> functions whose tree it makes approximate.
    pub havocs: BTreeMap<String, usize>,
    /// `%constraints` over the functions it ran on: edges, decided edges, cell errors,
    /// median and worst time (and whose).
    pub edges: usize,
    pub decided: usize,
    /// Of those, the edges runs decided.
    pub decided_by_runs: usize,
    pub constraints_errors: usize,
    pub constraints_median: Duration,
    pub constraints_worst: Duration,
    pub constraints_worst_name: String,
    /// Why undecided edges are undecided -> edges.
    pub undecided: BTreeMap<String, usize>,
}

/// The median and the worst of named times.
fn median_worst(mut times: Vec<(Duration, String)>) -> (Duration, Duration, String) {
    times.sort();
    (
        times.get(times.len() / 2).map_or(Duration::ZERO, |t| t.0),
        times.last().map_or(Duration::ZERO, |t| t.0),
        times.last().map_or(String::new(), |t| t.1.clone()),
    )
}

pub fn summarize(records: &[Record]) -> Summary {
    let mut refusals = BTreeMap::new();
    for r in records {
        if let Err(x) = &r.set {
            *refusals.entry(x.construct.clone()).or_insert(0) += 1;
        }
    }
    let mut havocs = BTreeMap::new();
    for r in records {
        for h in &r.havocs {
            *havocs.entry(h.clone()).or_insert(0) += 1;
        }
    }
    let (median, worst, worst_name) = median_worst(
        records
            .iter()
            .map(|r| (r.set_time, format!("{}:{}", r.file, r.function)))
            .collect(),
    );
    let ran: Vec<(&Record, &ConstraintFacts)> = records
        .iter()
        .filter_map(|r| r.constraints.as_ref().map(|c| (r, c)))
        .collect();
    let (c_median, c_worst, c_worst_name) = median_worst(
        ran.iter()
            .map(|(r, c)| (c.time, format!("{}:{}", r.file, r.function)))
            .collect(),
    );
    let counted: Vec<(usize, usize)> = ran
        .iter()
        .filter_map(|(_, c)| c.edges.clone().ok())
        .collect();
    let mut undecided = BTreeMap::new();
    for (_, c) in &ran {
        for reason in &c.undecided {
            *undecided.entry(reason_kind(reason)).or_insert(0) += 1;
        }
    }
    let verdicts: Vec<&Verdict> = records
        .iter()
        .filter_map(|r| r.check.as_ref())
        .filter_map(|c| c.verdict.as_ref().ok())
        .collect();
    Summary {
        functions: records.len(),
        trees: records.iter().filter(|r| r.set.is_ok()).count(),
        exact_trees: records
            .iter()
            .filter(|r| matches!(&r.set, Ok(f) if f.approximate == 0))
            .count(),
        checked: records.iter().filter(|r| r.check.is_some()).count(),
        precise: verdicts.iter().filter(|v| v.precise).count(),
        check_errors: records
            .iter()
            .filter(|r| matches!(&r.check, Some(c) if c.verdict.is_err()))
            .count(),
        witness_misses: verdicts.iter().map(|v| v.witness_misses).sum(),
        panics: records.iter().filter(|r| r.panicked).count(),
        refusals,
        median,
        worst,
        worst_name,
        havocs,
        edges: counted.iter().map(|c| c.0).sum(),
        decided: counted.iter().map(|c| c.1).sum(),
        decided_by_runs: ran.iter().map(|(_, c)| c.by_runs).sum(),
        constraints_errors: ran.len() - counted.len(),
        constraints_median: c_median,
        constraints_worst: c_worst,
        constraints_worst_name: c_worst_name,
        undecided,
    }
}

/// The report: one line per function, then the figures and refusals by construct.
pub fn report(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        let set = match &r.set {
            Ok(f) => format!(
                "tree {} leaves ({} approximate){}",
                f.leaves,
                f.approximate,
                if f.truncated { " truncated" } else { "" }
            ),
            Err(x) => format!("REFUSED {}", x.construct),
        };
        let check = match &r.check {
            None => String::new(),
            Some(CheckFacts { verdict: Err(e) }) => format!(" | check error: {e}"),
            Some(CheckFacts { verdict: Ok(v) }) => format!(
                " | precise {} exhaustive {} witness misses {}",
                v.precise, v.exhaustive, v.witness_misses
            ),
        };
        let constraints = match &r.constraints {
            None => String::new(),
            Some(ConstraintFacts {
                edges: Ok((n, d)),
                by_runs,
                time,
                ..
            }) => {
                let runs = if *by_runs > 0 {
                    format!(" ({by_runs} by runs)")
                } else {
                    String::new()
                };
                format!(" | constraints {d}/{n} edges decided{runs} {time:.0?}")
            }
            Some(ConstraintFacts { edges: Err(e), .. }) => format!(" | constraints error: {e}"),
        };
        out.push_str(&format!(
            "{}:{} {:.0?} {set}{check}{constraints}\n",
            r.file, r.function, r.set_time
        ));
    }
    let s = summarize(records);
    let pct = |n: usize| 100.0 * n as f64 / s.functions.max(1) as f64;
    out.push_str(&format!(
        "\nfunctions {}  trees {} ({:.1} %)  exact trees {} ({:.1} %)\n%check: {} checked, {} precise, {} check errors, {} witness misses; panics {}\n%set time: median {:.1?}, worst {:.1?} ({})\n",
        s.functions,
        s.trees,
        pct(s.trees),
        s.exact_trees,
        pct(s.exact_trees),
        s.checked,
        s.precise,
        s.check_errors,
        s.witness_misses,
        s.panics,
        s.median,
        s.worst,
        s.worst_name,
    ));
    if s.edges > 0 || s.constraints_errors > 0 {
        out.push_str(&format!(
            "%constraints: {} of {} edges decided ({:.1} %; {} by runs), {} errors; time: median {:.1?}, worst {:.1?} ({})\n",
            s.decided,
            s.edges,
            100.0 * s.decided as f64 / s.edges.max(1) as f64,
            s.decided_by_runs,
            s.constraints_errors,
            s.constraints_median,
            s.constraints_worst,
            s.constraints_worst_name,
        ));
    }
    out.push_str("\nrefusals by construct:\n");
    push_by_count(&mut out, &s.refusals);
    out.push_str("\nhavoc by construct (functions whose tree it makes approximate):\n");
    push_by_count(&mut out, &s.havocs);
    out.push_str("\n%constraints' undecided edges by reason (edges):\n");
    push_by_count(&mut out, &s.undecided);
    out
}

/// `count  name` lines, most frequent first.
fn push_by_count(out: &mut String, counts: &BTreeMap<String, usize>) {
    let mut by_count: Vec<(&String, &usize)> = counts.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (c, n) in by_count {
        out.push_str(&format!("{n:4}  {c}\n"));
    }
}

/// The `%set` tree of function `name` in the file `path`, unrolled `unroll` times, as text
/// with its leaf table (for snapshots).
pub fn tree_text(path: &Path, name: &str, unroll: u64) -> String {
    use analysis_kernel::python::lower_module;
    use analysis_kernel::render::set::{leaf_table_text, text};
    use analysis_kernel::symexec::{Options, Program, execute};
    let source = std::fs::read_to_string(path).expect("fixture");
    let module = lower_module(&source).expect("parses");
    let program = Program::function(name, module.functions(), &[]).expect("program");
    let options = Options {
        unroll,
        ..Options::default()
    };
    let tree = execute(&program, &options, &Cancel::new()).expect("tree");
    format!("{}\n{}", text(&tree), leaf_table_text(&tree))
}
