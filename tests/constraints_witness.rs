//! Witness replay: every witness input `%constraints` gives (precise mode) takes exactly the
//! path it was produced for, run two ways:
//!
//! * through the kernel's concrete interpreter, with the function instrumented so that each
//!   CFG node prints its id when it runs (statements get a `__m(N)` call before them,
//!   `if`/`while` tests become `__m(N) or (test)`, handlers mark their body);
//! * through CPython (one `python3` process for the whole batch), with `sys.settrace`
//!   recording the lines the function runs, mapped to CFG nodes.
//!
//! A path to the exit must be the whole run; a path that ends with a loop's back edge must
//! be the start of the run (the loop then goes on), followed by the loop head where the
//! head is re-evaluated. Programs: every function of PythonTA's 69 edge-constraint cases,
//! and programs of our own with loops over sequences, tuples, strings, floor division,
//! chained comparisons, `finally`, `assert`, `None`, handlers that an unnamed exception
//! edge reaches, and stores that raise (unpacking, list items).

#[path = "common/everyday.rs"]
mod everyday;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::cfg::{Cfg, NodeKind, scope_code};
use analysis_kernel::constraints::{Analysis, End, Feasible, Mode, Options, analyze};
use analysis_kernel::interp::{Interpreter, Limits, Stream};
use analysis_kernel::python::ir::{
    BoolOp, Constant, Expr, ExprKind, Function, Module, Stmt, StmtId, StmtKind,
};
use analysis_kernel::python::{PyValue, lower_module};
use num_bigint::BigInt;
use petgraph::graph::NodeIndex;
use serde_json::{Value, json};

/// Programs of our own, each a module of one or more functions.
const OWN: &[&str] = &[
    "def classify(n: int, s: str) -> str:\n    \"\"\"Precondition: n >= 0\"\"\"\n    if n // 3 == 2 and s[-1] == 'x':\n        return 'a'\n    elif len(s) > 3 and s[1:3] == 'bc':\n        return 'b'\n    return 'c'\n",
    "def loops(xs: list[int], t: tuple[int, str]) -> int:\n    total = 0\n    for x in xs:\n        if x > t[0]:\n            total += x\n    if t[1] == 'go' and total > 10:\n        return total\n    return -1\n",
    "def reassign(x: int, y: int) -> int:\n    x = x * 2\n    if x > y:\n        y = y + x\n    if y % 7 == 3:\n        return y\n    return x\n",
    "def div(a: int, b: int) -> float:\n    if a / 2 > 3.5 and b != 0:\n        return a / b\n    return 0.0\n",
    "def chained(a: int, b: float) -> int:\n    if 0 < a < 10 and -b > 2.5:\n        return 1\n    return 0\n",
    "def fin(x: int) -> int:\n    try:\n        if x > 3:\n            return 1\n        x = x + 1\n    finally:\n        x = x - 1\n    return x\n",
    "def asserts(x: int) -> int:\n    assert x != 4\n    if abs(x) > 100:\n        return 1\n    return 2\n",
    "def none_check(x: int) -> int:\n    y = None\n    if x > 0:\n        y = x\n    if y is None:\n        return 0\n    return 1\n",
    "def count(n: int) -> int:\n    i = 0\n    while i < n:\n        if i == 2:\n            return -1\n        i += 1\n    return i\n",
    "def routed(s: str, t: str) -> int:\n    try:\n        x = int(s) + int(t)\n        assert x > 2\n    except ValueError:\n        return 1\n    except AssertionError:\n        return 2\n    return x\n",
    "def stores(xs: list[int], i: int, s: str) -> int:\n    try:\n        a, b = s\n        xs[i] = len(a + b)\n    except IndexError:\n        return 1\n    except ValueError:\n        return 2\n    return xs[i]\n",
    "def pairs(s: str) -> int:\n    n = 0\n    for a, b in [s, s + s]:\n        if a == b:\n            n += 1\n    return n\n",
    "def words(s: str, k: int) -> int:\n    \"\"\"Preconditions:\n        - 0 <= k < 5\n    \"\"\"\n    for c in s:\n        if c == 'z':\n            break\n        k = k + 1\n    else:\n        k = -k\n    if s.startswith('ab') and k > 3:\n        return k\n    return 0\n",
];

struct Program {
    label: String,
    source: String,
    module: Module,
}

fn programs() -> Vec<Program> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus/pyta/z3_edge_constraint_cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases: Vec<Value> = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .expect("cases");
    let mut out = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let source = case["src"].as_str().expect("src").to_string();
        let module = lower_module(&source).expect("parses");
        out.push(Program {
            label: format!("case {i} {}", case["test"].as_str().unwrap_or_default()),
            source,
            module,
        });
    }
    for (i, source) in OWN.iter().enumerate() {
        out.push(Program {
            label: format!("own {i}"),
            source: source.to_string(),
            module: lower_module(source).expect("parses"),
        });
    }
    out
}

/// One run to check: a path with its witness.
struct Run {
    label: String,
    program: usize,
    function: String,
    args: Vec<PyValue>,
    expected: Vec<NodeIndex>,
    /// The loop head the run goes back to after `expected` (paths ending at a back edge).
    loops_to: Option<NodeIndex>,
}

fn analysis(f: &Function) -> Analysis {
    let options = Options {
        mode: Mode::Precise,
        path_limit: 200,
        timeout_ms: 10_000,
        given: Vec::new(),
    };
    analyze(f, &options, &Cancel::new()).unwrap_or_else(|e| panic!("{}: {e}", f.qualname))
}

/// Nodes a run shows: statements (entry, exit and `finally` joins run nothing).
fn shown(cfg: &Cfg, n: NodeIndex) -> bool {
    !matches!(
        cfg.node(n).kind,
        NodeKind::Entry | NodeKind::Exit | NodeKind::Join
    )
}

fn runs(programs: &[Program]) -> (Vec<Run>, Vec<(String, Analysis, usize)>) {
    let mut runs = Vec::new();
    let mut analyses = Vec::new();
    for (pi, p) in programs.iter().enumerate() {
        for f in p.module.functions() {
            let a = analysis(f);
            for path in &a.paths {
                let Some(witness) = &path.witness else {
                    continue;
                };
                assert_eq!(path.feasible, Feasible::Yes);
                if witness.len() != f.params.len() {
                    continue;
                }
                let mut nodes = a.dag.nodes(&path.edges);
                let loops_to = (path.end == End::Loop).then(|| nodes.pop()).flatten();
                runs.push(Run {
                    label: format!("{} {} path {}", p.label, f.qualname, path.id),
                    program: pi,
                    function: f.qualname.clone(),
                    args: witness.iter().map(|(_, v)| v.clone()).collect(),
                    expected: nodes.into_iter().filter(|&n| shown(&a.cfg, n)).collect(),
                    loops_to,
                });
            }
            analyses.push((format!("{} {}", p.label, f.qualname), a, pi));
        }
    }
    (runs, analyses)
}

/// Checks a run's node trace against the path.
fn check(run: &Run, trace: &[NodeIndex], head_marked: bool) -> Result<(), String> {
    let want = &run.expected;
    // Long (looping) runs are shown by their start.
    let trace_shown: Vec<usize> = trace
        .iter()
        .take(want.len() + 8)
        .map(|n| n.index())
        .collect();
    let trace = &trace[..trace.len().min(want.len() + 8)];
    match run.loops_to {
        None if trace == want.as_slice() => Ok(()),
        None => Err(format!("ran {trace_shown:?}, path {want:?}")),
        Some(head) => {
            if trace.len() < want.len() || &trace[..want.len()] != want.as_slice() {
                return Err(format!(
                    "ran {trace:?}, path {want:?} then back to {head:?}"
                ));
            }
            match trace.get(want.len()) {
                Some(&next) if head_marked && next != head => Err(format!(
                    "ran {trace_shown:?}: after the path, {next:?} instead of the loop head {head:?}"
                )),
                _ => Ok(()),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The concrete interpreter, with markers

fn mark(n: usize, like: &Expr) -> Expr {
    Expr::new(
        ExprKind::Call {
            func: Box::new(Expr::new(ExprKind::Name("__m".into()), like.span)),
            args: vec![Expr::new(
                ExprKind::Constant(Constant::Int(BigInt::from(n))),
                like.span,
            )],
            keywords: Vec::new(),
        },
        like.span,
    )
}

fn mark_stmt(n: usize, s: &Stmt) -> Stmt {
    let call = mark(n, &Expr::new(ExprKind::Name(String::new()), s.span));
    Stmt {
        id: StmtId(u32::MAX),
        span: s.span,
        header: s.span,
        text: format!("__m({n})"),
        kind: StmtKind::Expr(call),
    }
}

/// `__m(n) or (test)`: marks each evaluation, same truth value.
fn marked_test(n: usize, test: &Expr) -> Expr {
    Expr::new(
        ExprKind::BoolOp {
            op: BoolOp::Or,
            values: vec![mark(n, test), test.clone()],
        },
        test.span,
    )
}

fn instrument(stmts: &[Stmt], cfg: &Cfg) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        let Some(n) = cfg.node_of(s.id).map(|n| n.index()) else {
            out.push(s.clone());
            continue;
        };
        let mut s = s.clone();
        match &mut s.kind {
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse }
                if cfg.node(NodeIndex::new(n)).kind == NodeKind::Condition =>
            {
                *test = marked_test(n, test);
                *body = instrument(body, cfg);
                *orelse = instrument(orelse, cfg);
                out.push(s);
                continue;
            }
            StmtKind::While { body, orelse, .. } | StmtKind::For { body, orelse, .. } => {
                *body = instrument(body, cfg);
                *orelse = instrument(orelse, cfg);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                *body = instrument(body, cfg);
                for h in handlers.iter_mut() {
                    let mut inner = instrument(&h.body, cfg);
                    if let Some(hn) = cfg.node_of(h.id) {
                        inner.insert(0, mark_stmt(hn.index(), &s_like(&h.body)));
                    }
                    h.body = inner;
                }
                *orelse = instrument(orelse, cfg);
                *finalbody = instrument(finalbody, cfg);
            }
            _ => {}
        }
        if matches!(s.kind, StmtKind::While { .. }) {
            // `while True:` is a statement node: marked on each arrival at the top of its body.
            if let StmtKind::While { body, .. } = &mut s.kind {
                let first = s_like(body);
                body.insert(0, mark_stmt(n, &first));
            }
            out.push(s);
            continue;
        }
        out.push(mark_stmt(n, &s));
        out.push(s);
    }
    out
}

fn s_like(body: &[Stmt]) -> Stmt {
    body.first().cloned().unwrap_or(Stmt {
        id: StmtId(u32::MAX),
        span: analysis_kernel::python::Span {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
        },
        header: analysis_kernel::python::Span {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
        },
        text: "pass".into(),
        kind: StmtKind::Pass,
    })
}

/// The instrumented module: `__m` and the function with markers.
fn instrumented_source(module: &Module, name: &str, cfg: &Cfg) -> String {
    let def = module
        .body
        .iter()
        .find(|s| matches!(&s.kind, StmtKind::FunctionDef(f) if f.qualname == name))
        .expect("a top-level def");
    let mut def = def.clone();
    if let StmtKind::FunctionDef(f) = &mut def.kind {
        let code = scope_code(&f.body).to_vec();
        let doc: Vec<Stmt> = f.body[..f.body.len() - code.len()].to_vec();
        f.body = doc.into_iter().chain(instrument(&code, cfg)).collect();
        f.decorators.clear();
    }
    format!("def __m(n):\n    print('@@' + str(n))\n\n{def}\n")
}

fn interp_trace(program: &Program, run: &Run, cfg: &Cfg) -> Result<Vec<NodeIndex>, String> {
    let source = instrumented_source(&program.module, &run.function, cfg);
    let module = lower_module(&source).map_err(|e| format!("{e}\n{source}"))?;
    let mut interp = Interpreter::new();
    let cancel = Cancel::new();
    let limits = Limits::new(50_000, 200);
    let mut printed = String::new();
    interp
        .run_module(&module, &mut |_, _| {}, &cancel, limits)
        .map_err(|e| format!("{e}\n{source}"))?;
    let _ = interp.call(
        &run.function,
        run.args.clone(),
        &mut |stream, text| {
            if stream == Stream::Stdout {
                printed.push_str(text);
            }
        },
        &cancel,
        limits,
    );
    Ok(printed
        .lines()
        .filter_map(|l| {
            l.strip_prefix("@@")
                .and_then(|n| n.trim().parse::<usize>().ok())
        })
        .map(NodeIndex::new)
        .collect())
}

// ---------------------------------------------------------------------------------------
// CPython, with sys.settrace

const TRACER: &str = r#"
import sys, json, io, contextlib

class Stop(Exception):
    pass

results = []
for job in json.load(sys.stdin):
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(job["src"], "<case>", "exec"), ns)
    code = ns[job["name"]].__code__
    lines = []
    top = []
    def tracer(frame, event, arg):
        # The outermost call's lines only (recursive calls run the same code).
        if frame.f_code is code and (not top or top[0] is frame):
            if not top:
                top.append(frame)
            if event == "line":
                lines.append(frame.f_lineno)
                if len(lines) > 2000:
                    raise Stop()
            return tracer
        return None
    args = [eval(a) for a in job["args"]]
    outcome = "return"
    sys.settrace(tracer)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ns[job["name"]](*args)
    except Stop:
        outcome = "limit"
    except Exception as e:
        outcome = "exception:" + type(e).__name__
    finally:
        sys.settrace(None)
    results.append({"key": job["key"], "lines": lines, "outcome": outcome})
print(json.dumps(results))
"#;

fn cpython_traces(programs: &[Program], runs: &[Run]) -> Vec<(Vec<u32>, String)> {
    let jobs: Vec<Value> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "key": i,
                "src": programs[r.program].source,
                "name": r.function,
                "args": r.args.iter().map(PyValue::repr).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(TRACER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input = serde_json::to_string(&jobs).expect("json");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write jobs");
    let out = child.wait_with_output().expect("python3 finishes");
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).expect("tracer output");
    results
        .iter()
        .map(|r| {
            let lines = r["lines"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_u64().map(|l| l as u32))
                .collect();
            (lines, r["outcome"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// The nodes CPython's line events show: each line mapped to the statement node whose
/// header spans it, repeats from multi-line statements collapsed. CPython also reports the
/// line of an `except` clause it tests and finds not matching: a handler node counts only
/// when its body runs next.
fn nodes_of_lines(cfg: &Cfg, lines: &[u32]) -> Vec<NodeIndex> {
    let mut out: Vec<NodeIndex> = Vec::new();
    for &line in lines {
        let node = cfg
            .nodes()
            .filter(|&n| shown(cfg, n))
            .find(|&n| (cfg.node(n).lines.0..=cfg.node(n).lines.1).contains(&line));
        if let Some(n) = node
            && out.last() != Some(&n)
        {
            out.push(n);
        }
    }
    let entered = |i: usize| {
        out.get(i + 1)
            .is_some_and(|&next| cfg.successors(out[i]).iter().any(|(t, _)| *t == next))
    };
    (0..out.len())
        .filter(|&i| cfg.node(out[i]).kind != NodeKind::Handler || entered(i))
        .map(|i| out[i])
        .collect()
}

#[test]
fn every_witness_takes_its_path_in_the_interpreter_and_in_cpython() {
    replay(&programs(), true, 120);
}

/// The everyday corpus (issue 15), parameters without annotation typed by inference: each
/// file is one program, so the functions it calls are there; replayed in CPython only (the
/// interpreter's instrumented copy holds the one function).
#[test]
fn every_witness_of_the_everyday_corpus_takes_its_path_in_cpython() {
    replay(&everyday_programs(), false, 280);
}

fn everyday_programs() -> Vec<Program> {
    everyday::files()
        .into_iter()
        .map(|path| {
            let source = std::fs::read_to_string(&path).expect("fixture");
            let module = lower_module(&source).expect("parses");
            Program {
                label: path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into(),
                source,
                module,
            }
        })
        .collect()
}

/// Replays every witness of `programs` in CPython (and in the interpreter with `interp`),
/// at least `min_runs` of them.
fn replay(programs: &[Program], interp: bool, min_runs: usize) {
    let (runs, analyses) = runs(programs);
    let cfg_of = |r: &Run| {
        &analyses
            .iter()
            .find(|(_, a, pi)| *pi == r.program && a.cfg.name == r.function)
            .expect("analysis")
            .1
            .cfg
    };
    let traces = cpython_traces(programs, &runs);
    assert_eq!(traces.len(), runs.len());
    let mut failures = Vec::new();
    let mut interp_checked = 0;
    for (run, (lines, outcome)) in runs.iter().zip(&traces) {
        let cfg = cfg_of(run);
        let nodes = nodes_of_lines(cfg, lines);
        if let Err(e) = check(run, &nodes, true) {
            failures.push(format!("{} (CPython, {outcome}): {e}", run.label));
        }
        if !interp {
            continue;
        }
        match interp_trace(&programs[run.program], run, cfg) {
            Ok(trace) => {
                let head_marked = run.loops_to.is_some_and(|h| {
                    cfg.node(h).kind == NodeKind::Condition
                        && !cfg.node(h).label.trim_start().starts_with("for ")
                });
                if let Err(e) = check(run, &trace, head_marked) {
                    failures.push(format!("{} (interpreter): {e}", run.label));
                }
                interp_checked += 1;
            }
            Err(e) => failures.push(format!("{} (interpreter could not run it): {e}", run.label)),
        }
    }
    let total_paths: usize = analyses.iter().map(|(_, a, _)| a.paths.len()).sum();
    println!(
        "{} witnesses replayed ({} in the interpreter) of {} paths in {} functions",
        runs.len(),
        interp_checked,
        total_paths,
        analyses.len()
    );
    assert!(runs.len() >= min_runs, "too few witnesses: {}", runs.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
