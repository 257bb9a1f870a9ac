//! Soundness of the analyses against concrete runs, with CPython as the oracle: a seeded
//! generator writes random int functions (assignments, `if`, bounded `while` and `for`,
//! `// %` that may divide by zero, tuple indices that may be out of range), and one `python3`
//! process runs each on random inputs under `sys.settrace` with opcode events. Then:
//!
//! - every value a local holds when a line starts lies in the abstract value before that
//!   line's node, in every domain of the registry (and the node is reachable);
//! - every definition observed to reach a use (the line of the last `STORE_FAST` of the name
//!   before its `LOAD_FAST`; parameters at the `def` line) is in the reaching definitions
//!   before the use's node;
//! - a `ZeroDivisionError` (`IndexError`) raised on a line has a warning of that kind on
//!   that line (index warnings: interval and constant domains), and a line with a certain
//!   warning raises whenever it runs.
//!
//! `DATAFLOW_CASES=N` sets the number of programs (default 150), `DATAFLOW_SEED=S` the seed,
//! `DATAFLOW_DUMP=path` writes the programs as JSON.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use analysis_kernel::dataflow::absint::{self, AbsInt, WarningKind};
use analysis_kernel::dataflow::analyses::Program;
use analysis_kernel::dataflow::domains::{AbstractDomain, Constant, Interval, Parity, Sign, Zero};
use analysis_kernel::dataflow::engine::{Options, iterate_to_fixpoint};
use analysis_kernel::dataflow::registry;
use analysis_kernel::python::lower_module;
use num_bigint::BigInt;
use serde_json::{Value, json};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// Runs every program on its inputs; reports line states, def-use observations, exceptions.
const DRIVER: &str = r#"
import dis, json, sys
class Cut(BaseException):
    pass
LIMIT = 20000
cases = json.load(open(sys.argv[1]))
out = []
for case in cases:
    g = {}
    exec(compile(case["src"], "<cell>", "exec"), g)
    code = g["f"].__code__
    ops = {i.offset: i for i in dis.get_instructions(code)}
    runs = []
    for args in case["inputs"]:
        lines, uses, exc, steps = [], set(), [None], [0]
        last = {n: code.co_firstlineno for n in code.co_varnames[:code.co_argcount]}
        def local(frame, event, arg):
            steps[0] += 1
            if steps[0] > LIMIT:
                raise Cut()
            if event == "line":
                vals = {k: str(int(v)) for k, v in frame.f_locals.items() if type(v) in (int, bool)}
                lines.append([frame.f_lineno, vals])
            elif event == "opcode":
                ins = ops.get(frame.f_lasti)
                if ins is not None:
                    if ins.opname in ("LOAD_FAST", "LOAD_FAST_CHECK") and ins.argval in last:
                        uses.add((frame.f_lineno, ins.argval, last[ins.argval]))
                    elif ins.opname == "STORE_FAST":
                        last[ins.argval] = frame.f_lineno
                    elif ins.opname == "DELETE_FAST":
                        last.pop(ins.argval, None)
            elif event == "exception":
                exc[0] = [arg[0].__name__, frame.f_lineno]
            return local
        def calls(frame, event, arg):
            if event == "call" and frame.f_code is code:
                frame.f_trace_opcodes = True
                return local
            return None
        cut, raised = False, False
        sys.settrace(calls)
        try:
            g["f"](*args)
        except Cut:
            cut = True
        except Exception:
            raised = True
        finally:
            sys.settrace(None)
        runs.append({"lines": lines, "uses": sorted(uses), "exc": exc[0] if raised else None, "cut": cut})
    out.append(runs)
json.dump(out, open(sys.argv[2], "w"))
"#;

/// Writes one random function `f(a, b)` over ints.
struct Gen {
    rng: Rng,
    lines: Vec<String>,
    loops: usize,
}

const VARS: &[&str] = &["x", "y", "z", "a", "b"];
const OPS: &[&str] = &["+", "-", "*", "//", "%"];
const CMPS: &[&str] = &["<", "<=", ">", ">=", "==", "!="];

impl Gen {
    fn emit(&mut self, indent: usize, line: String) {
        self.lines.push(format!("{}{line}", "    ".repeat(indent)));
    }

    fn expr(&mut self, depth: usize, readable: &[String]) -> String {
        let leaf = depth == 0 || self.rng.below(3) == 0;
        if leaf {
            return if self.rng.below(2) == 0 {
                let i = self.rng.below(readable.len());
                readable[i].clone()
            } else {
                self.rng.range(-3, 5).to_string()
            };
        }
        match self.rng.below(6) {
            0 => format!("-{}", self.expr(0, readable)),
            1 => format!(
                "({} if {} else {})",
                self.expr(depth - 1, readable),
                self.cond(depth - 1, readable),
                self.expr(depth - 1, readable)
            ),
            _ => {
                let op = self.rng.pick(OPS);
                format!(
                    "({} {op} {})",
                    self.expr(depth - 1, readable),
                    self.expr(depth - 1, readable)
                )
            }
        }
    }

    fn cond(&mut self, depth: usize, readable: &[String]) -> String {
        match self.rng.below(if depth == 0 { 2 } else { 6 }) {
            0 => {
                let i = self.rng.below(readable.len());
                readable[i].clone()
            }
            1 | 2 => {
                let cmp = self.rng.pick(CMPS);
                format!(
                    "{} {cmp} {}",
                    self.expr(1, readable),
                    self.expr(1, readable)
                )
            }
            3 => format!("not ({})", self.cond(depth - 1, readable)),
            4 => format!(
                "({}) and ({})",
                self.cond(depth - 1, readable),
                self.cond(depth - 1, readable)
            ),
            _ => format!(
                "({}) or ({})",
                self.cond(depth - 1, readable),
                self.cond(depth - 1, readable)
            ),
        }
    }

    fn block(&mut self, indent: usize, depth: usize, readable: &mut Vec<String>) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            self.stmt(indent, depth, readable);
        }
    }

    fn stmt(&mut self, indent: usize, depth: usize, readable: &mut Vec<String>) {
        let choice = self.rng.below(if depth >= 2 { 5 } else { 8 });
        match choice {
            0 | 1 => {
                let v = self.rng.pick(VARS);
                let e = self.expr(2, readable);
                self.emit(indent, format!("{v} = {e}"));
            }
            2 => {
                let v = self.rng.pick(VARS);
                let op = self.rng.pick(OPS);
                let e = self.expr(1, readable);
                self.emit(indent, format!("{v} {op}= {e}"));
            }
            3 => {
                let v = self.rng.pick(VARS);
                let e = self.expr(1, readable);
                self.emit(indent, format!("{v} = t[{e} % 5 - 1]"));
            }
            4 => {
                let e = self.expr(1, readable);
                self.emit(indent, format!("c = 'abcd'[{e}]"));
            }
            5 => {
                let c = self.cond(2, readable);
                self.emit(indent, format!("if {c}:"));
                self.block(indent + 1, depth + 1, readable);
                if self.rng.below(2) == 0 {
                    self.emit(indent, "else:".into());
                    self.block(indent + 1, depth + 1, readable);
                }
            }
            6 if self.loops < 4 => {
                self.loops += 1;
                let k = format!("k{}", self.loops);
                let bound = self.rng.range(0, 3);
                self.emit(indent, format!("{k} = 0"));
                let extra = if self.rng.below(2) == 0 {
                    format!(" and {}", self.cond(1, readable))
                } else {
                    String::new()
                };
                self.emit(indent, format!("while {k} < {bound}{extra}:"));
                readable.push(k.clone());
                self.block(indent + 1, depth + 1, readable);
                self.emit(indent + 1, format!("{k} = {k} + 1"));
            }
            _ if self.loops < 4 => {
                self.loops += 1;
                let i = format!("i{}", self.loops);
                let e = self.expr(1, readable);
                let iter = match self.rng.below(3) {
                    0 => format!("range({})", self.rng.range(0, 3)),
                    1 => format!("range({e} % 4)"),
                    _ => format!("range({e} % 3, 3)"),
                };
                self.emit(indent, format!("for {i} in {iter}:"));
                readable.push(i);
                self.block(indent + 1, depth + 1, readable);
            }
            _ => self.emit(indent, "pass".into()),
        }
    }

    fn program(&mut self) -> String {
        self.lines = vec!["def f(a, b):".into()];
        self.loops = 0;
        for init in ["x = 1", "y = 2", "z = 0", "t = (1, 2, 3)", "c = ''"] {
            self.emit(1, init.into());
        }
        for k in 1..=4 {
            self.emit(1, format!("k{k} = 0"));
            self.emit(1, format!("i{k} = 0"));
        }
        let mut readable: Vec<String> = VARS.iter().map(|v| v.to_string()).collect();
        let n = 3 + self.rng.below(6);
        for _ in 0..n {
            self.stmt(1, 0, &mut readable);
        }
        let e = self.expr(1, &readable);
        self.emit(1, format!("return {e}"));
        self.lines.join("\n") + "\n"
    }
}

/// One concrete run.
struct ConcreteRun {
    /// (line, local → value) when the line starts.
    lines: Vec<(u32, BTreeMap<String, BigInt>)>,
    /// (use line, variable, line of the definition that reached it).
    uses: Vec<(u32, String, u32)>,
    /// (exception type, line).
    exc: Option<(String, u32)>,
}

fn parse_runs(v: &Value) -> Vec<ConcreteRun> {
    let num = |v: &Value| v.as_u64().unwrap_or(0) as u32;
    v.as_array()
        .map(|runs| runs.iter().collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|r| ConcreteRun {
            lines: r["lines"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| {
                    let vals = l[1]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.parse().ok()?)))
                        .collect();
                    (num(&l[0]), vals)
                })
                .collect(),
            uses: r["uses"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|u| {
                    (
                        num(&u[0]),
                        u[1].as_str().unwrap_or("").to_string(),
                        num(&u[2]),
                    )
                })
                .collect(),
            exc: r["exc"]
                .as_array()
                .map(|e| (e[0].as_str().unwrap_or("").to_string(), num(&e[1]))),
        })
        .collect()
}

/// The statement node on each line (the generated code has one statement per line).
fn nodes_by_line(p: &Program<'_>) -> BTreeMap<u32, usize> {
    p.cfg
        .nodes()
        .filter(|&n| !p.cfg.node(n).stmts.is_empty())
        .map(|n| (p.line(n), n.index()))
        .collect()
}

/// Every concrete value seen at a line lies in the abstract value before its node.
fn check_values<D: AbstractDomain>(
    src: &str,
    p: &Program<'_>,
    runs: &[ConcreteRun],
) -> Result<usize, String> {
    let r = iterate_to_fixpoint(&p.cfg, AbsInt::<D>::new(p), &absint::options(false, None))
        .map_err(|e| e.to_string())?;
    let states = r.node_states();
    let by_line = nodes_by_line(p);
    let mut checked = 0;
    for run in runs {
        for (line, vals) in &run.lines {
            let Some(&n) = by_line.get(line) else {
                return Err(format!("no node at line {line}"));
            };
            let Some(env) = states[n].before.as_reachable() else {
                return Err(format!(
                    "{}: line {line} ran but is unreachable\n{src}",
                    D::NAME
                ));
            };
            for (var, value) in vals {
                let abs = env.get(var);
                if !abs.contains(value) {
                    return Err(format!(
                        "{}: {var} = {value} before line {line}, abstract {abs}\n{src}",
                        D::NAME
                    ));
                }
                checked += 1;
            }
        }
    }
    Ok(checked)
}

/// Observed exceptions are warned about; certain warnings raise whenever their line runs.
fn check_warnings(src: &str, p: &Program<'_>, runs: &[ConcreteRun]) -> Result<usize, String> {
    let mut checked = 0;
    for kind in registry::DOMAINS {
        let report = (kind.analyze)(p, &absint::options(false, None)).map_err(|e| e.to_string())?;
        let warned: BTreeSet<(u32, WarningKind)> =
            report.warnings.iter().map(|w| (w.line, w.kind)).collect();
        let certain: BTreeSet<u32> = report
            .warnings
            .iter()
            .filter(|w| w.certain)
            .map(|w| w.line)
            .collect();
        let exact = matches!(kind.name, "interval" | "constant");
        for run in runs {
            if let Some((ty, line)) = &run.exc {
                let want = match ty.as_str() {
                    "ZeroDivisionError" => Some(WarningKind::DivisionByZero),
                    "IndexError" if exact => Some(WarningKind::IndexOutOfRange),
                    _ => None,
                };
                if let Some(want) = want {
                    if !warned.contains(&(*line, want)) {
                        return Err(format!(
                            "{}: {ty} at line {line} without a warning {:?}\n{src}",
                            kind.name, report.warnings
                        ));
                    }
                    checked += 1;
                }
            }
            for (line, _) in &run.lines {
                if certain.contains(line) {
                    if run.exc.as_ref().map(|e| e.1) != Some(*line) {
                        return Err(format!(
                            "{}: certain warning at line {line}, but the run went on ({:?})\n{src}",
                            kind.name, run.exc
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    Ok(checked)
}

/// Every observed def-use pair is predicted by reaching definitions.
fn check_reaching(src: &str, p: &Program<'_>, runs: &[ConcreteRun]) -> Result<usize, String> {
    let report = (registry::find_analysis("reaching")
        .map_err(|e| e.to_string())?
        .run)(p, &Options::default())
    .map_err(|e| e.to_string())?;
    let by_line = nodes_by_line(p);
    let mut checked = 0;
    for run in runs {
        for (line, var, def) in &run.uses {
            let Some(&n) = by_line.get(line) else {
                return Err(format!("no node at line {line}"));
            };
            let fact = format!("{var}@L{def}");
            if !report.nodes[n].before.contains(&fact) {
                return Err(format!(
                    "{fact} reaches the use at line {line}, predicted {:?}\n{src}",
                    report.nodes[n].before
                ));
            }
            checked += 1;
        }
    }
    Ok(checked)
}

fn python(cases: &Value) -> Value {
    let dir = std::env::temp_dir().join(format!("dataflow_soundness_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let (input, output, driver) = (
        dir.join("in.json"),
        dir.join("out.json"),
        dir.join("driver.py"),
    );
    std::fs::write(&input, cases.to_string()).expect("write cases");
    std::fs::write(&driver, DRIVER).expect("write driver");
    let status = Command::new("python3")
        .arg(&driver)
        .arg(&input)
        .arg(&output)
        .status()
        .expect("python3 runs (CPython 3.11 is the oracle)");
    assert!(status.success(), "the driver failed");
    let text = std::fs::read_to_string(&output).expect("the driver's output");
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_str(&text).expect("JSON from the driver")
}

#[test]
fn analyses_are_sound_on_concrete_runs() {
    let count: usize = std::env::var("DATAFLOW_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let seed: u64 = std::env::var("DATAFLOW_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let mut generator = Gen {
        rng: Rng::new(seed),
        lines: Vec::new(),
        loops: 0,
    };
    let mut cases = Vec::new();
    for _ in 0..count {
        let src = generator.program();
        let inputs: Vec<Value> = (0..8)
            .map(|_| json!([generator.rng.range(-6, 6), generator.rng.range(-6, 6)]))
            .collect();
        cases.push(json!({"src": src, "inputs": inputs}));
    }
    let cases = Value::Array(cases);
    if let Ok(path) = std::env::var("DATAFLOW_DUMP") {
        let _ = std::fs::write(
            path,
            serde_json::to_string_pretty(&cases).unwrap_or_default(),
        );
    }
    let results = python(&cases);
    let (mut values, mut defs, mut warnings, mut raised) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (case, runs) in cases
        .as_array()
        .into_iter()
        .flatten()
        .zip(results.as_array().into_iter().flatten())
    {
        let src = case["src"].as_str().unwrap_or("");
        let runs = parse_runs(runs);
        raised += runs.iter().filter(|r| r.exc.is_some()).count();
        let m = lower_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f\n{src}"));
        let p = Program::function(f).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let checks = [
            check_values::<Zero>(src, &p, &runs),
            check_values::<Sign>(src, &p, &runs),
            check_values::<Constant>(src, &p, &runs),
            check_values::<Interval>(src, &p, &runs),
            check_values::<Parity>(src, &p, &runs),
        ];
        for c in checks {
            match c {
                Ok(n) => values += n,
                Err(e) => failures.push(e),
            }
        }
        match check_reaching(src, &p, &runs) {
            Ok(n) => defs += n,
            Err(e) => failures.push(e),
        }
        match check_warnings(src, &p, &runs) {
            Ok(n) => warnings += n,
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "{count} programs: {values} values, {defs} def-use pairs, {warnings} warning checks, {raised} runs raised"
    );
    assert!(
        failures.is_empty(),
        "{} failures, first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(values > count * 50, "enough observations ({values})");
    assert!(defs > count * 20, "enough def-use pairs ({defs})");
    assert!(
        raised > 0 && warnings > 0,
        "some runs raise and are checked"
    );
}
