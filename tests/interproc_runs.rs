//! Interprocedural analysis and the call graph checked against CPython runs.
//!
//! Random programs of four functions `f0`..`f3` (ints, `if`, bounded `for`/`while`, calls of
//! later functions and bounded self-recursion, keyword arguments) run in CPython 3.11 on
//! random inputs under `sys.settrace`, which records the int locals at every `line` event of
//! every function and every call between them. Then:
//! - `%absint DOMAIN f0 --context K` / `--summaries` (every built-in domain, K = 0, 1, 2):
//!   each recorded state must lie in the state before a node of that line in some context of
//!   its function (all its variables at once);
//! - `%callgraph`: every call observed is an edge.
//!
//! `INTERPROC_CASES=N` sets the number of programs (default 40), `INTERPROC_SEED=S` the seed.

#[path = "common/call_programs.rs"]
mod call_programs;
#[path = "common/cells.rs"]
mod cells;
#[path = "common/python3.rs"]
mod python3;
#[path = "common/rng.rs"]
mod rng;

use std::collections::{BTreeMap, BTreeSet};

use analysis_kernel::dataflow::absint;
use analysis_kernel::dataflow::analyses::Program;
use analysis_kernel::dataflow::domains::{AbstractDomain, Constant, Interval, Parity, Sign, Zero};
use analysis_kernel::dataflow::interproc::{Sensitivity, analyze};
use analysis_kernel::notebook::Session;
use analysis_kernel::python::ir::Function;
use analysis_kernel::python::lower_module;
use call_programs::{FUNCTIONS, Gen};
use cells::{displays, run};
use num_bigint::BigInt;
use python3::python3;
use rng::env;
use serde_json::Value;

const TRACER: &str = r#"
import json, sys
source = sys.stdin.read()
inputs = json.loads(sys.argv[1])
g = {"__name__": "__main__"}
exec(compile(source, "<cell>", "exec"), g)
states, calls, returns = set(), set(), set()
events = [0]
class Budget(Exception):
    pass
def tracer(frame, event, arg):
    if frame.f_code.co_filename != "<cell>":
        return None
    events[0] += 1
    if events[0] > 200000:
        raise Budget()
    name = frame.f_code.co_qualname
    if event == "call":
        back = frame.f_back
        if back is not None and back.f_code.co_filename == "<cell>":
            calls.add((back.f_code.co_qualname, name))
    elif event == "return":
        # arg is None when the frame ends by an exception.
        if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) < 10**15:
            returns.add((name, int(arg)))
    elif event == "line":
        ints = tuple(sorted((k, int(v)) for k, v in frame.f_locals.items()
                            if isinstance(v, int) and abs(v) < 10**30))
        states.add((name, frame.f_lineno, ints))
    return tracer
for name, a, b in inputs:
    sys.settrace(tracer)
    try:
        g[name](a, b)
    except (RecursionError, Budget):
        pass
    finally:
        sys.settrace(None)
print(json.dumps({"states": sorted(states), "calls": sorted(calls), "returns": sorted(returns)}))
"#;

/// The recorded states `(function, line, [(var, value)])`, calls `(caller, callee)` and
/// int return values `(function, value)`.
type Observed = (
    Vec<(String, u32, Vec<(String, i64)>)>,
    Vec<(String, String)>,
    Vec<(String, i64)>,
);

fn observe(source: &str, inputs: &[(&str, i64, i64)]) -> Observed {
    let arg = serde_json::to_string(inputs).unwrap();
    let v: Value = serde_json::from_str(&python3(&["-c", TRACER, &arg], source)).unwrap();
    let states = v["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let vars = s[2]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|p| Some((p[0].as_str()?.to_string(), p[1].as_i64()?)))
                .collect();
            (
                s[0].as_str().unwrap().to_string(),
                s[1].as_u64().unwrap() as u32,
                vars,
            )
        })
        .collect();
    let calls = v["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c[0].as_str().unwrap().to_string(),
                c[1].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let returns = v["returns"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| Some((r[0].as_str()?.to_string(), r[1].as_i64()?)))
        .collect();
    (states, calls, returns)
}

/// Checks every observed state against the contexts of `D`, and every observed return value
/// against the return value of some context of its function; returns the number of contexts.
fn check<D: AbstractDomain>(
    source: &str,
    fns: &[&Function],
    sensitivity: Sensitivity,
    (states, _, returns): &Observed,
) -> usize {
    let r = analyze::<D>(fns, "f0", sensitivity, &absint::options(false, None))
        .unwrap_or_else(|e| panic!("{e}\n{source}"));
    for (func, value) in returns {
        let covered = r
            .contexts
            .iter()
            .any(|c| &c.function == func && c.returns.contains(&BigInt::from(*value)));
        if !covered {
            let shown: Vec<String> = r
                .contexts
                .iter()
                .filter(|c| &c.function == func)
                .map(|c| format!("{}: {}", c.label(), c.returns))
                .collect();
            panic!(
                "{} {sensitivity:?}: {func} returned {value}, in no context's return value {shown:?}\n{source}",
                D::NAME
            );
        }
    }
    let programs: BTreeMap<&str, Program<'_>> = fns
        .iter()
        .map(|f| (f.name.as_str(), Program::function(f).unwrap()))
        .collect();
    for (func, line, vars) in states {
        let p = &programs[func.as_str()];
        let nodes: Vec<usize> = p
            .cfg
            .nodes()
            .filter(|&n| {
                p.cfg
                    .node(n)
                    .stmts
                    .first()
                    .is_some_and(|s| s.lines.0 == *line)
            })
            .map(|n| n.index())
            .collect();
        assert!(!nodes.is_empty(), "no node on line {line} of {func}");
        let covered = r.contexts.iter().filter(|c| &c.function == func).any(|c| {
            nodes.iter().any(|&n| {
                c.before[n].as_reachable().is_some_and(|frame| {
                    vars.iter()
                        .all(|(v, x)| frame.get(v).contains(&BigInt::from(*x)))
                })
            })
        });
        if !covered {
            let mut shown = String::new();
            for c in r.contexts.iter().filter(|c| &c.function == func) {
                for &n in &nodes {
                    shown.push_str(&format!("  {} node {n}: {:?}\n", c.label(), c.before[n]));
                }
            }
            panic!(
                "{} {sensitivity:?}: {func} line {line} state {vars:?} lies in no context\n{shown}\n{source}",
                D::NAME
            );
        }
    }
    r.contexts.len()
}

#[test]
fn every_concrete_state_lies_in_some_context() {
    let mut g = Gen::new(env("INTERPROC_SEED", 21), &[], 2);
    let (mut checked, mut states, mut contexts, mut calls_seen) = (0, 0, 0, 0);
    let mut returns_seen = 0;
    for _ in 0..env("INTERPROC_CASES", 40) {
        let source = g.program();
        let inputs: Vec<(&str, i64, i64)> = (0..8)
            .map(|_| ("f0", g.rng.range(-6, 7), g.rng.range(-6, 7)))
            .collect();
        let observed = observe(&source, &inputs);
        let (states_seen, calls, returns) = &observed;
        returns_seen += returns.len();
        calls_seen += calls.len();
        states += states_seen.len();
        let m = lower_module(&source).unwrap_or_else(|e| panic!("{e}\n{source}"));
        let fns: Vec<&Function> = (0..FUNCTIONS)
            .map(|i| m.function(&format!("f{i}")).unwrap())
            .collect();
        for s in [
            Sensitivity::CallStrings(0),
            Sensitivity::CallStrings(1),
            Sensitivity::CallStrings(2),
            Sensitivity::Summaries,
        ] {
            contexts += check::<Interval>(&source, &fns, s, &observed);
            check::<Sign>(&source, &fns, s, &observed);
            check::<Constant>(&source, &fns, s, &observed);
            check::<Parity>(&source, &fns, s, &observed);
            check::<Zero>(&source, &fns, s, &observed);
            checked += 5;
        }
    }
    eprintln!(
        "{checked} analyses, {states} observed states, {calls_seen} observed call pairs, {returns_seen} observed return values, {contexts} interval contexts"
    );
    let cases = env("INTERPROC_CASES", 40) as usize;
    assert!(
        states > 10 * cases && calls_seen >= 2 * cases,
        "the programs exercise calls: {states} states, {calls_seen} call pairs"
    );
    assert!(
        returns_seen >= 4 * cases,
        "{returns_seen} return values observed"
    );
}

#[test]
fn the_call_graph_has_every_call_observed() {
    let mut g = Gen::new(env("INTERPROC_SEED", 21) + 1, &[], 2);
    let mut observed_edges = 0;
    for _ in 0..env("INTERPROC_CASES", 40) / 2 {
        let mut source = g.program();
        // Methods too: a class whose method calls another through self and a function.
        source.push_str(
            "class C:\n    def __init__(self, n):\n        self.n = n\n    def m(self, k):\n        return self.h(k) + f3(k, 1)\n    def h(self, k):\n        return k + self.n\n\ndef f4(a, b):\n    c = C(a)\n    return c.m(b)\n",
        );
        let inputs: Vec<(&str, i64, i64)> = (0..6)
            .map(|i| {
                let entry = if i % 2 == 0 { "f0" } else { "f4" };
                (entry, g.rng.range(-6, 7), g.rng.range(-6, 7))
            })
            .collect();
        let (_, calls, _) = observe(&source, &inputs);
        let mut s = Session::default();
        run(&mut s, &source)
            .0
            .unwrap_or_else(|e| panic!("{e:?}\n{source}"));
        let (r, out) = run(&mut s, "%callgraph");
        r.unwrap_or_else(|e| panic!("{e:?}"));
        let mime = "application/vnd.analysis-kernel.callgraph+json";
        let p = displays(&out)
            .into_iter()
            .find_map(|d| d.get(mime))
            .expect("payload");
        let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
        for f in p["functions"].as_array().unwrap() {
            for c in f["calls"].as_array().unwrap() {
                edges.insert((
                    f["name"].as_str().unwrap().into(),
                    c.as_str().unwrap().into(),
                ));
            }
        }
        for (from, to) in calls {
            if from == "<module>" || to == "<module>" {
                continue;
            }
            observed_edges += 1;
            assert!(
                edges.contains(&(from.clone(), to.clone())),
                "observed call {from} → {to} is not an edge of %callgraph {edges:?}\n{source}"
            );
        }
    }
    assert!(observed_edges > 40, "{observed_edges} observed calls");
}
