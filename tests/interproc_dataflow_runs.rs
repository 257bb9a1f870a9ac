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
use python3::python3;
use rng::Rng;
use serde_json::Value;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

const FUNCTIONS: usize = 4;

struct Gen {
    rng: Rng,
    lines: Vec<String>,
    calls: usize,
    /// The globals the function being generated declares.
    declared: Vec<&'static str>,
}

impl Gen {
    fn atom(&mut self) -> String {
        match self.rng.below(8) {
            0 => "a".into(),
            1 => "b".into(),
            2 => "x".into(),
            3 => "y".into(),
            4 => "z".into(),
            5 => "g".into(),
            6 => "h".into(),
            _ => self.rng.range(-3, 5).to_string(),
        }
    }

    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(40) {
            return self.atom();
        }
        let l = self.expr(depth - 1);
        match self.rng.below(4) {
            0 => format!("{l} + {}", self.expr(depth - 1)),
            1 => format!("{l} - {}", self.expr(depth - 1)),
            2 => format!("({l}) % 4"),
            _ => format!("-({l})"),
        }
    }

    fn cond(&mut self) -> String {
        let l = self.expr(1);
        match self.rng.below(3) {
            0 => format!("{l} < {}", self.expr(1)),
            1 => format!("{l} == {}", self.atom()),
            _ => format!("({l}) % 2 == 0"),
        }
    }

    fn call(&mut self, me: usize) -> String {
        let (e1, e2) = (self.expr(1), self.expr(1));
        self.calls += 1;
        let later = me + 1 + self.rng.below(FUNCTIONS - me - 1);
        if self.rng.chance(20) {
            format!("f{later}({e1}, b={e2})")
        } else {
            format!("f{later}({e1}, {e2})")
        }
    }

    fn target(&mut self) -> &'static str {
        if !self.declared.is_empty() && self.rng.chance(35) {
            let i = self.rng.below(self.declared.len());
            return self.declared[i];
        }
        *self.rng.pick(&["x", "y", "z"])
    }

    fn block(&mut self, me: usize, indent: usize, depth: u32, in_loop: bool) {
        let pad = " ".repeat(indent);
        for _ in 0..1 + self.rng.below(3) {
            let var = self.target();
            match self.rng.below(if depth == 0 { 3 } else { 6 }) {
                0 | 1 => {
                    let e = self.expr(2);
                    self.lines.push(format!("{pad}{var} = {e}"));
                }
                2 if me + 1 < FUNCTIONS && !in_loop && self.calls < 3 => {
                    let c = self.call(me);
                    let k = self.atom();
                    self.lines.push(format!("{pad}{var} = {c} + {k}"));
                }
                2 => {
                    let e = self.expr(1);
                    self.lines.push(format!("{pad}{var} += {e}"));
                }
                3 => {
                    let c = self.cond();
                    self.lines.push(format!("{pad}if {c}:"));
                    self.block(me, indent + 4, depth - 1, in_loop);
                    if self.rng.chance(50) {
                        self.lines.push(format!("{pad}else:"));
                        self.block(me, indent + 4, depth - 1, in_loop);
                    }
                }
                4 => {
                    let n = self.rng.below(4);
                    self.lines.push(format!("{pad}for i in range({n}):"));
                    self.block(me, indent + 4, depth - 1, true);
                }
                _ => {
                    let n = self.rng.below(4);
                    self.lines.push(format!("{pad}w = 0"));
                    self.lines.push(format!("{pad}while w < {n}:"));
                    self.block(me, indent + 4, depth - 1, true);
                    self.lines.push(format!("{pad}    w = w + 1"));
                }
            }
        }
    }

    fn program(&mut self) -> String {
        self.lines.clear();
        self.lines.push("g = 1".into());
        self.lines.push("h = 2".into());
        self.lines.push(String::new());
        for me in 0..FUNCTIONS {
            self.calls = 0;
            self.declared = match self.rng.below(4) {
                0 => vec!["g"],
                1 => vec!["h"],
                2 => vec!["g", "h"],
                _ => vec![],
            };
            self.lines.push(format!("def f{me}(a, b):"));
            if !self.declared.is_empty() {
                self.lines
                    .push(format!("    global {}", self.declared.join(", ")));
            }
            self.lines.push("    x = a".into());
            self.lines.push("    y = b".into());
            self.lines.push("    z = 0".into());
            if self.rng.chance(40) {
                let e = self.expr(1);
                self.lines.push("    if 0 < a < 4:".into());
                self.lines.push(format!("        z = f{me}(a - 1, {e})"));
            }
            if me + 1 < FUNCTIONS {
                let c = self.call(me);
                self.lines.push(format!("    y = {c}"));
            }
            self.block(me, 4, 2, false);
            if self.rng.chance(30) {
                let (c, e) = (self.cond(), self.expr(1));
                self.lines.push(format!("    if {c}:"));
                self.lines.push(format!("        return {e}"));
            }
            let e = self.expr(2);
            self.lines.push(format!("    return {e}"));
            self.lines.push(String::new());
        }
        self.lines.join("\n")
    }
}

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
    let mut g = Gen {
        rng: Rng::new(env("INTERPROC_DF_SEED", 2121)),
        lines: Vec::new(),
        calls: 0,
        declared: Vec::new(),
    };
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
