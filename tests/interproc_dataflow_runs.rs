//! `%dataflow live|reaching --interprocedural` checked against CPython runs.
//!
//! Random programs of four functions `f0`..`f3` over module globals `g` and `h` (some
//! functions declare them `global` and assign them, all may read them), with locals, `if`,
//! bounded loops, calls of later functions and bounded self-recursion, run in CPython 3.11 on
//! random inputs under `sys.settrace` (the module re-run before each input). The tracer knows
//! each line's reads and writes (from `ast`) and records
//! - for each read, the definition that reached it: a line of some function, the call that
//!   bound the parameter, the entry's caller, or the module;
//! - for each line, the variables read later before being written again: the frame's locals
//!   in that frame's future, the globals in the whole run's future.
//!
//! Every recorded definition must be in the reaching set before a node of that line, and
//! every recorded live variable in the live set before it.
//!
//! `INTERPROC_DF_CASES=N` sets the number of programs (default 40), `INTERPROC_DF_SEED=S`.

#[path = "common/call_programs.rs"]
mod call_programs;
#[path = "common/python3.rs"]
mod python3;
#[path = "common/rng.rs"]
mod rng;

use std::collections::BTreeSet;

use analysis_kernel::dataflow::engine::Options;
use analysis_kernel::dataflow::interproc::bitvec::{BitvecResult, Which, analyze};
use analysis_kernel::dataflow::interproc::facts::{At, Scope};
use analysis_kernel::python::ir::Function;
use analysis_kernel::python::lower_module;
use call_programs::{FUNCTIONS, Gen};
use python3::python3;
use rng::env;
use serde_json::Value;

const TRACER: &str = r#"
import ast, json, sys
source = sys.stdin.read()
inputs = json.loads(sys.argv[1])
TRACKED = {"g", "h"}
tree = ast.parse(source)
# (function, line) -> (reads, writes) of the statement's own expressions (headers only).
effects = {}
for fn in tree.body:
    if not isinstance(fn, ast.FunctionDef):
        continue
    for st in ast.walk(fn):
        if not isinstance(st, ast.stmt) or st is fn or isinstance(st, ast.Global):
            continue
        if isinstance(st, (ast.If, ast.While)):
            parts = [st.test]
        elif isinstance(st, ast.For):
            parts = [st.iter]  # the target i is never read
        else:
            parts = [st]
        reads, writes = [], []
        for part in parts:
            for node in ast.walk(part):
                if isinstance(node, ast.Name):
                    if isinstance(node.ctx, ast.Load):
                        reads.append(node.id)
                    else:
                        writes.append(node.id)
            if isinstance(part, ast.AugAssign) and isinstance(part.target, ast.Name):
                reads.append(part.target.id)
        effects[(fn.name, st.lineno)] = (reads, writes)

reaching, live = set(), set()
class Budget(Exception):
    pass

def run_one(name, a, b):
    g = {"__name__": "__main__"}
    exec(compile(source, "<cell>", "exec"), g)
    frames = {}     # id(frame) -> [serial, function, last defs, pending line]
    gdefs = {}      # global -> site
    timeline = []   # ("use", serial, func, line, local reads, global reads) | ("def", serial, locals, globals)
    counter = [0]
    def finish(frame):
        rec = frames.get(id(frame))
        if rec is None or rec[3] is None:
            return
        func, line = rec[1], rec[3]
        rec[3] = None
        _, writes = effects.get((func, line), ([], []))
        loc, glo = [], []
        for v in writes:
            if v in frame.f_code.co_varnames:
                rec[2][v] = ["stmt", func, line]
                loc.append(v)
            elif v in TRACKED:
                gdefs[v] = ["stmt", func, line]
                glo.append(v)
        timeline.append(("def", rec[0], loc, glo))
    def tracer(frame, event, arg):
        if frame.f_code.co_filename != "<cell>":
            return None
        counter[0] += 1
        if counter[0] > 100000:
            raise Budget()
        func = frame.f_code.co_name
        if event == "call":
            back = frame.f_back
            code = frame.f_code
            params = code.co_varnames[:code.co_argcount]
            if back is not None and back.f_code.co_filename == "<cell>":
                site = ["call", back.f_code.co_name, back.f_lineno]
            else:
                site = ["entry"]
            frames[id(frame)] = [counter[0], func, {p: site for p in params}, None]
        elif event == "line":
            finish(frame)
            rec = frames[id(frame)]
            line = frame.f_lineno
            reads, _ = effects.get((func, line), ([], []))
            loc, glo = [], []
            for v in reads:
                if v in frame.f_code.co_varnames:
                    site = rec[2].get(v)
                    if site is not None:
                        reaching.add(json.dumps([func, line, v, "local", site]))
                        loc.append(v)
                elif v in TRACKED:
                    site = gdefs.get(v, ["module"])
                    reaching.add(json.dumps([func, line, v, "global", site]))
                    glo.append(v)
            timeline.append(("use", rec[0], func, line, loc, glo))
            rec[3] = line
        elif event == "return":
            finish(frame)
        return tracer
    sys.settrace(tracer)
    try:
        g[name](a, b)
    except (RecursionError, Budget):
        pass
    finally:
        sys.settrace(None)
    # Backward over the run: what is read before being written again.
    glive, llive = set(), {}
    for item in reversed(timeline):
        if item[0] == "def":
            _, serial, loc, glo = item
            llive.setdefault(serial, set()).difference_update(loc)
            glive.difference_update(glo)
        else:
            _, serial, func, line, loc, glo = item
            mine = llive.setdefault(serial, set())
            mine.update(loc)
            glive.update(glo)
            live.add(json.dumps([func, line, sorted(mine), sorted(glive)]))

for name, a, b in inputs:
    run_one(name, a, b)
print(json.dumps({"reaching": sorted(reaching), "live": sorted(live)}))
"#;

struct Observed {
    /// (function, line, variable, global?, site)
    reaching: Vec<(String, u32, String, bool, Value)>,
    /// (function, line, live locals, live globals)
    live: Vec<(String, u32, Vec<String>, Vec<String>)>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn observe(source: &str, inputs: &[(&str, i64, i64)]) -> Observed {
    let arg = serde_json::to_string(inputs).unwrap();
    let v: Value = serde_json::from_str(&python3(&["-c", TRACER, &arg], source)).unwrap();
    let parse = |s: &Value| -> Value { serde_json::from_str(s.as_str().unwrap()).unwrap() };
    let reaching = v["reaching"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let r = parse(s);
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_u64().unwrap() as u32,
                r[2].as_str().unwrap().to_string(),
                r[3] == "global",
                r[4].clone(),
            )
        })
        .collect();
    let live = v["live"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let r = parse(s);
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_u64().unwrap() as u32,
                strings(&r[2]),
                strings(&r[3]),
            )
        })
        .collect();
    Observed { reaching, live }
}

/// The nodes of `func` whose first statement starts on `line`.
fn nodes_on(r: &BitvecResult<'_>, func: &str, line: u32) -> (usize, Vec<usize>) {
    let f = r
        .function(func)
        .unwrap_or_else(|| panic!("{func} was not analysed"));
    let p = &r.programs[f];
    let nodes = p
        .cfg
        .nodes()
        .filter(|&n| {
            p.cfg
                .node(n)
                .stmts
                .first()
                .is_some_and(|s| s.lines.0 == line)
        })
        .map(|n| n.index())
        .collect();
    (f, nodes)
}

fn check_reaching(source: &str, r: &BitvecResult<'_>, observed: &Observed) -> usize {
    for (func, line, var, global, site) in &observed.reaching {
        let (f, nodes) = nodes_on(r, func, *line);
        assert!(!nodes.is_empty(), "no node on line {line} of {func}");
        let scope = if *global {
            Scope::Global
        } else {
            Scope::Local(func.clone())
        };
        let matches = |at: &At| match (site[0].as_str().unwrap(), at) {
            ("module", At::Module) => true,
            ("entry", At::Entry { .. }) => true,
            (
                "stmt",
                At::Stmt {
                    func: df, line: dl, ..
                },
            ) => site[1] == df.as_str() && site[2].as_u64() == Some(*dl as u64),
            (
                "call",
                At::Call {
                    caller, line: cl, ..
                },
            ) => site[1] == caller.as_str() && site[2].as_u64() == Some(*cl as u64),
            _ => false,
        };
        let found = nodes.iter().any(|&n| {
            r.members(&r.functions[f].before[n])
                .any(|fact| fact.scope == scope && &fact.var == var && matches(&fact.at))
        });
        if !found {
            let shown: Vec<String> = nodes
                .iter()
                .map(|&n| r.facts.labels_of(&r.functions[f].before[n]).join(", "))
                .collect();
            panic!(
                "reaching: the definition {site} of {var} read on line {line} of {func} is not in {shown:?}\n{source}"
            );
        }
    }
    observed.reaching.len()
}

fn check_live(source: &str, r: &BitvecResult<'_>, observed: &Observed) -> usize {
    let mut checked = 0;
    for (func, line, locals, globals) in &observed.live {
        let (f, nodes) = nodes_on(r, func, *line);
        assert!(!nodes.is_empty(), "no node on line {line} of {func}");
        let covered = nodes.iter().any(|&n| {
            let names: BTreeSet<(bool, &str)> = r
                .members(&r.functions[f].before[n])
                .map(|fact| (fact.scope == Scope::Global, fact.var.as_str()))
                .collect();
            locals.iter().all(|v| names.contains(&(false, v.as_str())))
                && globals.iter().all(|v| names.contains(&(true, v.as_str())))
        });
        if !covered {
            let shown: Vec<String> = nodes
                .iter()
                .map(|&n| r.facts.labels_of(&r.functions[f].before[n]).join(", "))
                .collect();
            panic!(
                "live: before line {line} of {func}, locals {locals:?} and globals {globals:?} are read later, but the live set is {shown:?}\n{source}"
            );
        }
        checked += locals.len() + globals.len();
    }
    checked
}

#[test]
fn every_definition_and_use_seen_at_run_time_is_in_the_analysis() {
    let mut g = Gen::new(env("INTERPROC_DF_SEED", 2121), &["g", "h"], 3);
    let cases = env("INTERPROC_DF_CASES", 40) as usize;
    let (mut defs, mut lives, mut global_defs_across, mut params_by_call) = (0, 0, 0, 0);
    for _ in 0..cases {
        let source = g.program();
        let inputs: Vec<(&str, i64, i64)> = (0..6)
            .map(|_| ("f0", g.rng.range(-5, 6), g.rng.range(-5, 6)))
            .collect();
        let observed = observe(&source, &inputs);
        let m = lower_module(&source).unwrap_or_else(|e| panic!("{e}\n{source}"));
        let fns: Vec<&Function> = (0..FUNCTIONS)
            .map(|i| m.function(&format!("f{i}")).unwrap())
            .collect();
        let options = Options::default();
        let reaching = analyze(Which::Reaching, &fns, "f0", &options)
            .unwrap_or_else(|e| panic!("{e}\n{source}"));
        defs += check_reaching(&source, &reaching, &observed);
        let live =
            analyze(Which::Live, &fns, "f0", &options).unwrap_or_else(|e| panic!("{e}\n{source}"));
        lives += check_live(&source, &live, &observed);
        for (func, _, _, global, site) in &observed.reaching {
            if *global && site[0] == "stmt" && site[1] != func.as_str() {
                global_defs_across += 1;
            }
            if site[0] == "call" {
                params_by_call += 1;
            }
        }
    }
    eprintln!(
        "{cases} programs: {defs} reaching definitions observed ({global_defs_across} globals defined in another function, {params_by_call} parameters bound by calls), {lives} live variables observed"
    );
    assert!(
        global_defs_across >= cases / 4 && params_by_call >= cases,
        "the programs exercise definitions across calls: {global_defs_across} globals, {params_by_call} parameters"
    );
}

/// The analysis is not trivially everything: a global defined only in a callee that is
/// always overwritten before the read does not reach it, and a local of one function is never
/// live in another.
#[test]
fn precision_on_a_small_program() {
    let source = "g = 0\n\ndef set_g(v):\n    global g\n    g = v\n\ndef main(a):\n    set_g(a)\n    t = g\n    global g\n    g = 5\n    return g + t\n";
    // `global g` after a use is a SyntaxError in CPython: use a clean version.
    let source = source.replace("    t = g\n    global g\n", "    global g\n    t = g\n");
    let m = lower_module(&source).unwrap();
    let fns: Vec<&Function> = vec![m.function("set_g").unwrap(), m.function("main").unwrap()];
    let r = analyze(Which::Reaching, &fns, "main", &Options::default()).unwrap();
    let (f, nodes) = nodes_on(&r, "main", 10);
    let at_t: Vec<String> = r.facts.labels_of(&r.functions[f].before[nodes[0]]);
    assert!(at_t.contains(&"g@set_g:L5".to_string()), "{at_t:?}");
    assert!(
        !at_t.contains(&"g@module".to_string()),
        "set_g always assigns g: {at_t:?}"
    );
    let (_, nodes) = nodes_on(&r, "main", 12);
    let at_return = r.facts.labels_of(&r.functions[f].before[nodes[0]]);
    assert!(at_return.contains(&"g@main:L11".to_string()));
    assert!(
        !at_return.contains(&"g@set_g:L5".to_string()),
        "{at_return:?}"
    );
    let (s, nodes) = nodes_on(&r, "set_g", 5);
    let in_callee = r.facts.labels_of(&r.functions[s].before[nodes[0]]);
    assert!(
        in_callee.contains(&"v←main:L8".to_string()),
        "{in_callee:?}"
    );
    let live = analyze(Which::Live, &fns, "main", &Options::default()).unwrap();
    let (f, nodes) = nodes_on(&live, "main", 8);
    let before_call = live.facts.labels_of(&live.functions[f].before[nodes[0]]);
    // set_g overwrites g, so g is not live before the call; a is (the argument).
    assert!(
        !before_call.iter().any(|l| l.starts_with("g@")),
        "{before_call:?}"
    );
    assert!(before_call.iter().any(|l| l.starts_with("a@")));
    let s = live.function("set_g").unwrap();
    let exit = live.facts.labels_of(&live.functions[s].boundary);
    assert!(exit.contains(&"g@main:L10".to_string()), "{exit:?}");
}
