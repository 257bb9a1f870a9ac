//! `%constraints` over parameters beyond plain annotated ones: `Optional[T]`, `T | None` and
//! `x=None` (an input of sort `T` and the flag `x.is_none`). Every listed path the solver
//! calls feasible is taken by CPython on its witness, every edge a run decided is taken by
//! CPython on the run's inputs, and no edge called infeasible is taken by any of many
//! random CPython calls. One table per kind is a snapshot
//! (`UPDATE_EXPECT=1 cargo test --release --test constraints_params` rewrites them).

#[path = "common/cells.rs"]
mod cells;
#[path = "common/cpython_trace.rs"]
mod cpython_trace;
#[path = "common/rng.rs"]
mod rng;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::cfg::{Cfg, Walk, function_cfg};
use analysis_kernel::constraints::{Mode, Options, analyze};
use analysis_kernel::notebook::Session;
use analysis_kernel::python::lower_module;
use analysis_kernel::render::constraints::text;
use expect_test::{Expect, expect};
use serde_json::Value;

/// Functions whose parameters may be `None`, and the values to try for each parameter
/// in random calls.
const OPTIONAL: &str = r#"from typing import Optional, Union

def greet(name: Optional[str]) -> str:
    if name is None:
        return "Hello, stranger"
    return "Hello, " + name

def display_name(first: str, nickname: Optional[str]) -> str:
    if nickname is not None and nickname != "":
        return nickname
    return first

def normalize_name(name: Optional[str]) -> str:
    if name is None:
        return "anonymous"
    return name.strip().title()

def label(tag: str | None, n: int) -> str:
    if tag:
        if len(tag) > n:
            return "long"
        return "short"
    if tag is None and n > 0:
        return "none"
    return "empty"

def pad(s: str, width=None) -> str:
    if width is None:
        width = 8
    if len(s) >= width:
        return s
    return s + " " * (width - len(s))

def clamp(x: int, low: Union[int, None] = None, high: int = None) -> int:
    if low is not None and x < low:
        return low
    if high is not None and x > high:
        return high
    if low is not None and high is not None and low > high:
        return 0
    return x

def first_or(default: Optional[int], nums: list[int]) -> int:
    for n in nums:
        if n > 0:
            return n
    if default is None:
        return -1
    return default

def both_none(a: Optional[int], b: Optional[int]) -> int:
    if a is None:
        if b is None:
            return 0
        return 1
    if a is not None and b is None:
        return 2
    return 3

def strict(x: Optional[int]) -> int:
    if x > 0:
        return 1
    return 0
"#;

/// The `%constraints` payload of `function`, in a session that ran `source`.
fn payload(session: &mut Session, function: &str) -> Value {
    let (result, out) = cells::run(session, &format!("%constraints {function}"));
    result.unwrap_or_else(|e| panic!("%constraints {function}: {e:?}"));
    cells::payload(&out, "constraints").clone()
}

/// The call of `function` with keyword arguments from a JSON object, as Python.
fn call(function: &str, args: &Value) -> String {
    format!(
        "{function}(**__import__('json').loads({:?}))",
        args.to_string()
    )
}

/// The CFG edges (as `(source, target, label)`) CPython's traced call took.
fn taken(cfg: &Cfg, function: &str, traced: &Value) -> Vec<(String, String, Option<String>)> {
    let first = traced["activations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["function"] == function);
    let lines: Vec<u32> = first
        .and_then(|a| a["lines"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_u64().map(|l| l as u32))
        .collect();
    let returned = first.is_some_and(|a| a["raised"] == false);
    let walk = Walk::of(cfg, &[lines], &[returned]);
    cfg.edges()
        .iter()
        .enumerate()
        .filter(|(k, _)| walk.edges[*k] > 0)
        .map(|(_, (s, t, e))| {
            (
                s.index().to_string(),
                t.index().to_string(),
                e.label().map(str::to_string),
            )
        })
        .collect()
}

fn edge_key(e: &Value) -> (String, String, Option<String>) {
    (
        e["source"].as_str().unwrap_or_default().to_string(),
        e["target"].as_str().unwrap_or_default().to_string(),
        e["label"].as_str().map(str::to_string),
    )
}

/// A random value for a parameter that may be `None`, of the sort `%constraints` shows.
fn random_value(r: &mut rng::Rng, sort: &str) -> Value {
    if sort.ends_with("| None") && r.below(4) == 0 {
        return Value::Null;
    }
    match sort.trim_end_matches(" | None") {
        "int" => Value::from(r.below(9) as i64 - 4),
        "str" => {
            Value::from(["", "a", " b", "ab", "abc", "longer one", "x y"][r.below(7) as usize])
        }
        "list[int]" => Value::from(
            (0..r.below(4))
                .map(|_| r.below(7) as i64 - 3)
                .collect::<Vec<_>>(),
        ),
        other => panic!("no random values of {other}"),
    }
}

/// Checks every verdict of every function of `source` against CPython.
fn verdicts_agree_with_cpython(source: &str) {
    let module = lower_module(source).expect("parses");
    let mut session = Session::new(false);
    let (result, _) = cells::run(&mut session, source);
    result.expect("defines");
    let mut failures = Vec::new();
    let mut r = rng::Rng::new(15);
    for f in module.functions() {
        let name = f.qualname.clone();
        let cfg = function_cfg(f).expect("cfg");
        let j = payload(&mut session, &name);
        let params = j["parameters"].as_object().expect("parameters").clone();
        // Witnesses of feasible paths, and the inputs of runs that decided an edge: each
        // call and the edges it must take.
        let mut claims: Vec<(String, Vec<(String, String, Option<String>)>)> = Vec::new();
        let edges = j["edges"].as_array().expect("edges");
        for p in j["paths"].as_array().expect("paths") {
            if p["feasible"] != true || p["witness"].is_null() {
                continue;
            }
            let id = p["id"].as_u64();
            let through: Vec<_> = edges
                .iter()
                .filter(|e| {
                    e["paths"]
                        .as_array()
                        .is_some_and(|ps| ps.iter().any(|x| x.as_u64() == id))
                })
                .map(edge_key)
                .collect();
            claims.push((call(&name, &p["witness"]), through));
        }
        for e in edges {
            if let Some(inputs) = e["run"].as_str() {
                assert_eq!(e["feasible"], true, "{name}: {e}");
                claims.push((format!("{name}({inputs})"), vec![edge_key(e)]));
            }
        }
        let calls: Vec<String> = claims.iter().map(|(c, _)| c.clone()).collect();
        for ((c, through), traced) in claims.iter().zip(cpython_trace::trace(source, &calls)) {
            let took = taken(&cfg, &name, &traced);
            for e in through {
                if !took.contains(e) {
                    failures.push(format!("{c}: CPython did not take {e:?}"));
                }
            }
        }
        // No edge called infeasible is taken by random calls.
        let never: Vec<_> = edges
            .iter()
            .filter(|e| e["feasible"] == false)
            .map(edge_key)
            .collect();
        let randoms: Vec<Value> = (0..300)
            .map(|_| {
                Value::Object(
                    params
                        .iter()
                        .map(|(k, s)| (k.clone(), random_value(&mut r, s.as_str().unwrap())))
                        .collect(),
                )
            })
            .collect();
        let calls: Vec<String> = randoms.iter().map(|w| call(&name, w)).collect();
        for (w, traced) in randoms.iter().zip(cpython_trace::trace(source, &calls)) {
            for e in taken(&cfg, &name, &traced) {
                if never.contains(&e) {
                    failures.push(format!(
                        "{name}({w}): CPython took {e:?}, called infeasible"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn optional_parameters_agree_with_cpython() {
    verdicts_agree_with_cpython(OPTIONAL);
}

fn table(source: &str, function: &str, expected: Expect) {
    let module = lower_module(source).expect("parses");
    let f = module.function(function).expect("defined");
    let options = Options {
        mode: Mode::Precise,
        path_limit: 64,
        timeout_ms: 10_000,
        given: Vec::new(),
    };
    let a = analyze(f, &options, &Cancel::new()).expect("analysis");
    expected.assert_eq(&text(&a, None));
}

#[test]
fn an_optional_parameter_table() {
    table(OPTIONAL, "display_name", expect![[""]]);
}

#[test]
fn tables_explore() {
    let module = lower_module(OPTIONAL).expect("parses");
    for f in module.functions() {
        let options = Options {
            mode: Mode::Precise,
            path_limit: 64,
            timeout_ms: 10_000,
            given: Vec::new(),
        };
        let a = analyze(f, &options, &Cancel::new()).expect("analysis");
        println!("{}", text(&a, None));
    }
}
