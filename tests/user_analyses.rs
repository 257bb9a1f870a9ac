//! Domains written in cells (`from analysis import Domain`): the built-in domains re-written
//! as user classes (`tests/fixtures/user_analyses/*.py`) give the built-ins' results; seeded
//! bugs are found by `%check-domain` with their counterexample; errors in user code name the
//! user's line and the engine step.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session};
use cells::{displays, payload, run};
use serde_json::Value;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/user_analyses/{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(out: &[Output]) -> String {
    displays(out)
        .iter()
        .filter_map(|d| d.get("text/plain").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

fn session_with(fixtures: &[&str]) -> Session {
    let mut s = Session::default();
    s.skip_layout = true;
    for f in fixtures {
        let (r, _) = run(&mut s, &fixture(f));
        r.unwrap_or_else(|e| panic!("{f}: {e:?}"));
    }
    s
}

#[test]
fn parity_smoke() {
    let mut s = session_with(&["parity"]);
    let (r, _) = run(
        &mut s,
        "def f(n):\n    x = 2\n    while n > 0:\n        x = x + 2\n        n = n - 1\n    return x\n",
    );
    r.unwrap();
    let (r, out) = run(&mut s, "%absint uparity f");
    r.unwrap_or_else(|e| panic!("{e:?}"));
    let (r2, out2) = run(&mut s, "%absint parity f");
    r2.unwrap();
    let user = text(&out).replace("uparity", "parity");
    assert_eq!(user, text(&out2));
    println!("{user}");
}

const DOMAINS: [&str; 5] = ["zero", "sign", "constant", "interval", "parity"];

/// `%%absint DOMAIN` of `code` in the built-in domain and in its user version, as text with
/// the user name replaced.
fn both(s: &mut Session, domain: &str, code: &str) -> (String, String) {
    let (r, out) = run(s, &format!("%%absint {domain}\n{code}"));
    r.unwrap_or_else(|e| panic!("{domain} on {code}: {e:?}"));
    let (r, user_out) = run(s, &format!("%%absint u{domain}\n{code}"));
    r.unwrap_or_else(|e| panic!("u{domain} on {code}: {e:?}"));
    (
        text(&out),
        text(&user_out).replace(&format!("u{domain}"), domain),
    )
}

const FUNCTIONS: &[&str] = &[
    "def foo(x):\n    y = 0\n    while x >= 0:\n        tmp = x\n        if tmp % 2 == 0:\n            y = x\n        x -= 1\n    return y\n",
    "def loop():\n    x = 8\n    y = x\n    z = 0\n    while y > -1:\n        x = x // y\n        y = y - 2\n        z = 5\n",
    "def count(n: int):\n    i = 0\n    while i < 10:\n        i = i + 1\n    return n // i\n",
    "def g(a, b):\n    if a < b:\n        c = b - a\n    else:\n        c = a - b\n    d = -c * 3 % 7\n    if c == 0:\n        return 1\n    return d // c\n",
    "def h(n):\n    s = 0\n    for i in range(1, n):\n        s = s + i * i\n        if s > 100:\n            break\n    t = s % -4\n    return t != 0 and n // t\n",
];

#[test]
fn user_versions_of_the_builtin_domains_agree_with_them() {
    let mut s = session_with(&["zero", "sign", "constant", "interval", "parity"]);
    for f in FUNCTIONS {
        for d in DOMAINS {
            let (builtin, user) = both(&mut s, d, f);
            assert_eq!(user, builtin, "{d} on\n{f}");
        }
    }
}

/// Every top-level function of the 25 modules of the stdlib corpus
/// (`tests/common/stdlib_corpus.rs`), and every function the notebooks define, their source cut
/// by CPython's `ast` (cells that are commands are skipped).
fn corpus_functions() -> Vec<String> {
    let Some(dir) = stdlib_corpus::stdlib_dir() else {
        return Vec::new();
    };
    let script = "import ast, json, sys, glob\nout = []\ndef take(src):\n    try:\n        tree = ast.parse(src)\n    except SyntaxError:\n        return\n    for node in tree.body:\n        if isinstance(node, ast.FunctionDef) and not node.decorator_list:\n            out.append(ast.get_source_segment(src, node))\nfor path in sys.argv[2:]:\n    take(open(path).read())\nfor path in sorted(glob.glob(sys.argv[1] + '/*.ipynb')):\n    for cell in json.load(open(path))['cells']:\n        src = ''.join(cell['source'])\n        if cell['cell_type'] == 'code' and not src.lstrip().startswith('%'):\n            take(src)\nprint(json.dumps(out))\n";
    let files: Vec<String> = stdlib_corpus::MODULES
        .iter()
        .map(|m| dir.join(m).display().to_string())
        .collect();
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(format!("{}/notebooks", env!("CARGO_MANIFEST_DIR")))
        .args(&files)
        .output()
        .expect("python3 runs");
    serde_json::from_slice(&out.stdout).expect("a JSON list")
}

#[path = "common/stdlib_corpus.rs"]
#[allow(dead_code)]
mod stdlib_corpus;

#[test]
fn user_domains_agree_with_builtins_on_the_corpus() {
    let functions = corpus_functions();
    assert!(functions.len() >= 380, "only {} functions", functions.len());
    let mut s = session_with(&["zero", "sign", "constant", "interval", "parity"]);
    let (mut compared, mut with_for) = (0, 0);
    for f in &functions {
        for d in DOMAINS {
            let (r, out) = run(&mut s, &format!("%%absint {d}\n{f}"));
            if r.is_err() {
                // The built-in refuses it (e.g. a CFG error): the user domain must too.
                let (r2, _) = run(&mut s, &format!("%%absint u{d}\n{f}"));
                assert!(r2.is_err(), "u{d} accepted what {d} refused:\n{f}");
                continue;
            }
            let (r2, out2) = run(&mut s, &format!("%%absint u{d}\n{f}"));
            r2.unwrap_or_else(|e| panic!("u{d}: {e:?}\n{f}"));
            assert_eq!(
                text(&out2).replace(&format!("u{d}"), d),
                text(&out),
                "{d} on\n{f}"
            );
            compared += 1;
            with_for += usize::from(f.contains("for "));
        }
    }
    assert!(compared >= 1500, "only {compared} comparisons");
    assert!(
        with_for >= 300,
        "only {with_for} comparisons with for loops"
    );
}

fn check(s: &mut Session, domain: &str) -> (String, Value) {
    let (r, out) = run(s, &format!("%check-domain {domain} --samples 8"));
    r.unwrap_or_else(|e| panic!("{domain}: {e:?}"));
    (text(&out), payload(&out, "check-domain").clone())
}

#[test]
fn correct_user_domains_pass_the_check() {
    let mut s = session_with(&["zero", "sign", "constant", "interval", "parity"]);
    for d in DOMAINS {
        let (t, p) = check(&mut s, &format!("u{d}"));
        assert_eq!(p["sound"], true, "u{d}: {t}");
        let user = &p["user"];
        assert_eq!(user["passed"], true, "u{d}: {t}");
        assert_eq!(user["laws"], serde_json::json!([]), "u{d}");
        assert_eq!(user["monotonicity"], serde_json::json!([]), "u{d}");
        // Only the interval domain has infinite chains, and it widens.
        assert_eq!(user["termination"], serde_json::json!([]), "u{d}");
    }
}

fn register(s: &mut Session, name: &str, class: &str) {
    let (r, out) = run(s, &format!("%domain {name} {class}"));
    r.unwrap_or_else(|e| panic!("{name}: {e:?}"));
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Stdout(t) if t.contains("registered domain"))),
        "{out:?}"
    );
}

#[test]
fn seeded_bugs_are_found_with_their_counterexample() {
    let mut s = session_with(&["parity", "interval", "buggy"]);
    register(&mut s, "unsound", "UnsoundParity");
    let (t, p) = check(&mut s, "unsound");
    assert_eq!(p["sound"], false, "{t}");
    let soundness: Vec<String> = serde_json::from_value(p["user"]["soundness"].clone()).unwrap();
    assert!(
        soundness
            .iter()
            .any(|m| m.starts_with("your add(even, odd) returned even, but ")
                && m.contains(" + ")
                && m.contains(" == ")),
        "{soundness:?}"
    );
    // The concrete witness is right: an even plus an odd number.
    let m = soundness
        .iter()
        .find(|m| m.starts_with("your add(even, odd)"))
        .unwrap();
    let eq = m.split("but ").nth(1).unwrap();
    let nums: Vec<i128> = eq
        .split(|c: char| c == '+' || c == '=')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    assert_eq!(nums.len(), 3, "{eq}");
    assert_eq!(nums[0] + nums[1], nums[2]);
    assert!(
        nums[0] % 2 == 0 && nums[1] % 2 != 0 && nums[2] % 2 != 0,
        "{eq}"
    );

    register(&mut s, "notlub", "NotLubParity");
    let (t, p) = check(&mut s, "notlub");
    assert_eq!(p["user"]["passed"], false, "{t}");
    let laws: Vec<String> = serde_json::from_value(p["user"]["laws"].clone()).unwrap();
    assert!(
        laws.iter().any(|m| m == "join is not the least upper bound: join(even, even) = ⊤, but even is an upper bound of both and ⊤ ⋢ even"),
        "{laws:?}"
    );

    register(&mut s, "nonmono", "NonMonotoneInterval");
    let (t, p) = check(&mut s, "nonmono");
    assert_eq!(p["user"]["passed"], false, "{t}");
    let mono: Vec<String> = serde_json::from_value(p["user"]["monotonicity"].clone()).unwrap();
    assert!(
        mono.iter().any(|m| m.starts_with("neg is not monotone: [")
            && m.contains("neg([")
            && m.contains("= [-∞, +∞] ⋢")),
        "{mono:?}"
    );

    register(&mut s, "nowiden", "NoWidenInterval");
    let (t, p) = check(&mut s, "nowiden");
    let term: Vec<String> = serde_json::from_value(p["user"]["termination"].clone()).unwrap();
    assert!(
        term.iter().any(|m| m.starts_with("an infinite ascending chain and no widen: joining abstract(0), abstract(1), …, abstract(40) grows at every step ([0, 0] ⊏ … ⊏ [0, 40])")),
        "{t}"
    );
}

#[test]
fn an_exception_in_user_code_names_the_line_and_the_engine_step() {
    let mut s = session_with(&["parity", "interval", "buggy"]);
    register(&mut s, "failing", "FailingParity");
    let (r, _) = run(
        &mut s,
        "%%absint failing\ndef f(a):\n    b = 1\n    c = a + b\n    return c\n",
    );
    let e = r.expect_err("the user's add raises");
    assert_eq!(e.ename, "ZeroDivisionError");
    // The cell's line 1 is the %%absint line; the user's add is on line 37 of buggy.py.
    assert_eq!(
        e.evalue,
        "integer division or modulo by zero (in your add(⊤, odd) at line 37, called by the engine at node 2 (line 4: c = a + b))"
    );
    let tb = e.traceback.join("\n");
    assert!(tb.contains("return 1 // 0"), "{tb}");
}

#[test]
fn lattice_help_completion_and_redefinition() {
    let mut s = session_with(&["parity"]);
    let (r, out) = run(&mut s, "%lattice uparity");
    r.unwrap_or_else(|e| panic!("{e:?}"));
    let user = payload(&out, "lattice").clone();
    let (_, out) = run(&mut s, "%lattice parity");
    let builtin = payload(&out, "lattice").clone();
    for key in [
        "elements",
        "covers",
        "top",
        "bottom",
        "is_lattice",
        "levels",
    ] {
        assert_eq!(user[key], builtin[key], "{key}");
    }
    let (_, out) = run(&mut s, "%help absint");
    let help = text(&out) + &out.iter().map(|o| format!("{o:?}")).collect::<String>();
    assert!(help.contains("uparity"), "{help}");
    let c = analysis_kernel::notebook::complete(&s, "%absint up", 10);
    assert!(c.matches.iter().any(|m| m == "uparity"), "{:?}", c.matches);
    // Redefining the class under the same name replaces the entry.
    let (r, _) = run(
        &mut s,
        "from analysis import domain\n@domain('uparity')\nclass P2(Parity):\n    description = 'second'\n    def add(self, a, b):\n        return self.top\n",
    );
    r.unwrap();
    let (_, out) = run(
        &mut s,
        "%%absint uparity\ndef f():\n    x = 1 + 1\n    return x\n",
    );
    assert!(text(&out).contains("x: ⊤"), "{}", text(&out));
    assert!(
        s.user
            .entries
            .iter()
            .any(|e| e.name == "uparity" && e.class_name == "P2")
    );
    // A name that is a built-in cannot be taken.
    let (r, _) = run(&mut s, "%domain parity P2");
    assert!(r.unwrap_err().evalue.contains("built-in"));
}

/// `notebooks/your_own_analysis.ipynb`: every cell runs (only the cells tagged
/// `raises-exception` fail), the bug in `Const.sub` is found and then fixed, the parity
/// domain written in a cell draws and analyses like the built-in one.
#[test]
fn the_notebook_runs_and_finds_its_bug() {
    let path = format!(
        "{}/notebooks/your_own_analysis.ipynb",
        env!("CARGO_MANIFEST_DIR")
    );
    let nb: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut s = Session::default();
    s.skip_layout = true;
    let mut checks = Vec::new();
    for cell in nb["cells"].as_array().unwrap() {
        if cell["cell_type"] != "code" {
            continue;
        }
        let source: String = cell["source"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let expect_error = cell["metadata"]["tags"]
            .as_array()
            .is_some_and(|t| t.iter().any(|x| x == "raises-exception"));
        let (r, out) = run(&mut s, &source);
        assert_eq!(r.is_err(), expect_error, "{source}: {r:?}");
        if let Err(e) = r {
            assert_eq!(e.ename, "NameError");
            assert!(
                e.evalue.contains("in your add(")
                    && e.evalue.contains("called by the engine at node"),
                "{}",
                e.evalue
            );
        }
        if source.contains("%check-domain") {
            checks.push(payload(&out, "check-domain").clone());
        }
    }
    // Domains' checks carry `domain` and `user.passed`; analyses' `analysis` and `passed`.
    let verdicts: Vec<(String, bool)> = checks
        .iter()
        .map(|p| match p["domain"].as_str() {
            Some(d) => (d.to_string(), p["user"]["passed"] == true),
            None => (
                p["analysis"].as_str().unwrap().to_string(),
                p["passed"] == true,
            ),
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("myparity".to_string(), true),
            ("myconst".to_string(), false),
            ("myconst".to_string(), true),
            ("myavail".to_string(), true),
            ("student_sign".to_string(), true),
        ]
    );
    let found: Vec<String> =
        serde_json::from_value(checks[1]["user"]["soundness"].clone()).unwrap();
    assert!(
        found
            .iter()
            .any(|m| m.starts_with("your sub(") && m.contains(" - ") && m.contains(" == ")),
        "{found:?}"
    );
    let (_, a) = run(&mut s, "%absint myparity steps");
    let (_, b) = run(&mut s, "%absint parity steps");
    assert_eq!(text(&a).replace("myparity", "parity"), text(&b));
    let (_, a) = run(&mut s, "%dataflow myavail prices");
    let (_, b) = run(&mut s, "%dataflow available prices");
    assert_eq!(facts(&a), facts(&b));
    assert!(
        facts(&b)
            .iter()
            .any(|(_, i, _)| i.to_string().contains("base // 4"))
    );
}

/// The facts of every node of a `%%dataflow` payload: (id, IN, OUT). Where one line has
/// several nodes the built-ins tell their sites apart (`x@L23#14`, `x@L23#15`); the user
/// versions name a site by its line only, so that suffix is dropped (and the repeat with it).
fn facts(out: &[Output]) -> Vec<(Value, Value, Value)> {
    let by_line = |v: &Value| -> Value {
        let mut seen: Vec<Value> = Vec::new();
        for f in v.as_array().into_iter().flatten() {
            let f = f.as_str().unwrap_or_default();
            let site = match f.rsplit_once('#') {
                Some((site, node)) if node.chars().all(|c| c.is_ascii_digit()) => site,
                _ => f,
            };
            let site = Value::String(site.to_string());
            if !seen.contains(&site) {
                seen.push(site);
            }
        }
        Value::Array(seen)
    };
    payload(out, "dataflow")["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].clone(), by_line(&n["in"]), by_line(&n["out"])))
        .collect()
}

/// Each built-in dataflow analysis and its user version in `flows.py`.
const FLOWS: [(&str, &str); 4] = [
    ("reaching", "ureaching"),
    ("live", "ulive"),
    ("available", "uavailable"),
    ("very-busy", "uverybusy"),
];

#[test]
fn user_dataflow_analyses_agree_with_the_builtins() {
    let mut s = session_with(&["flows"]);
    let mut compared = 0;
    // Nodes no path reaches (after a return; before an endless loop, backward) keep a
    // must-analysis' "every fact": the user versions name it with `universe`.
    let unvisited = [
        "def dead(a, b):\n    x = a + b\n    return x\n    y = a * b\n    return y - x\n",
        "def spin(a, b):\n    c = a - b\n    while True:\n        a = a + c\n",
    ];
    for f in FUNCTIONS.iter().chain(&unvisited) {
        for (a, u) in FLOWS {
            let (r, out) = run(&mut s, &format!("%%dataflow {a}\n{f}"));
            r.unwrap();
            let (r, user_out) = run(&mut s, &format!("%%dataflow {u} --trace\n{f}"));
            r.unwrap_or_else(|e| panic!("{u}: {e:?}"));
            assert_eq!(facts(&user_out), facts(&out), "{a} on\n{f}");
            assert!(payload(&user_out, "dataflow")["trace"].is_array());
            compared += 1;
        }
    }
    assert!(compared >= 24);
    // Registration by command, and an error in transfer names the node.
    let (r, _) = run(
        &mut s,
        "class Bad(Live):\n    def gen(self, stmt):\n        return {stmt['nope']}\n",
    );
    r.unwrap();
    let (r, _) = run(&mut s, "%analysis bad Bad");
    r.unwrap();
    let (r, _) = run(&mut s, "%%dataflow bad\ndef f(a):\n    return a\n");
    let e = r.unwrap_err();
    assert_eq!(e.ename, "KeyError");
    assert!(
        e.evalue.contains("in your transfer(<node ")
            && e.evalue.contains("called by the engine at node"),
        "{}",
        e.evalue
    );
}

/// Reaching definitions, live variables, available and very busy expressions written as user
/// analyses give the built-ins' facts at every node on the whole corpus, `for` loops (bound on
/// the loop's edge) and unreachable nodes (a must-analysis' universe) included.
#[test]
fn user_dataflow_analyses_agree_with_the_builtins_on_the_corpus() {
    let functions = corpus_functions();
    assert!(functions.len() >= 380, "only {} functions", functions.len());
    let mut s = session_with(&["flows"]);
    let (mut compared, mut with_for, mut with_exprs) = (0, 0, 0);
    for f in &functions {
        for (a, u) in FLOWS {
            let (r, out) = run(&mut s, &format!("%%dataflow {a}\n{f}"));
            if r.is_err() {
                let (r2, _) = run(&mut s, &format!("%%dataflow {u}\n{f}"));
                assert!(r2.is_err(), "{u} accepted what {a} refused:\n{f}");
                continue;
            }
            let (r, user_out) = run(&mut s, &format!("%%dataflow {u}\n{f}"));
            r.unwrap_or_else(|e| panic!("{u}: {e:?}\n{f}"));
            let expected = facts(&out);
            assert_eq!(facts(&user_out), expected, "{a} on\n{f}");
            compared += 1;
            with_for += usize::from(f.contains("for "));
            let some_fact = expected
                .iter()
                .any(|(_, i, o)| i != &serde_json::json!([]) || o != &serde_json::json!([]));
            with_exprs += usize::from(some_fact && matches!(a, "available" | "very-busy"));
        }
    }
    assert!(compared >= 1400, "only {compared} comparisons");
    assert!(
        with_for >= 300,
        "only {with_for} comparisons with for loops"
    );
    assert!(
        with_exprs >= 300,
        "only {with_exprs} expression comparisons with an expression fact"
    );
}

/// `%check-domain` on a user analysis: the correct ones pass; a transfer that is not
/// monotone is found, with the node and a pair of fact sets that shows it.
#[test]
fn transfer_functions_are_checked_for_monotonicity() {
    let mut s = session_with(&["flows"]);
    for a in ["ureaching", "ulive", "uavailable", "uverybusy"] {
        let (r, out) = run(&mut s, &format!("%check-domain {a}"));
        r.unwrap_or_else(|e| panic!("{a}: {e:?}"));
        let p = payload(&out, "check-domain");
        assert_eq!(p["passed"], true, "{a}: {}", text(&out));
        assert_eq!(p["functions"], serde_json::json!(["sample"]));
        assert!(p["facts"].as_u64().unwrap() >= 7, "{p}");
        assert!(p["pairs"].as_u64().unwrap() >= 200, "{p}");
    }
    // On a function of the session too, with a for loop's edge.
    let (r, _) = run(
        &mut s,
        "def total(xs):\n    t = 0\n    for x in xs:\n        t = t + x\n    return t\n",
    );
    r.unwrap();
    let (r, out) = run(&mut s, "%check-domain ureaching total --samples 40");
    r.unwrap();
    assert_eq!(payload(&out, "check-domain")["passed"], true);

    let (r, _) = run(&mut s, "%analysis nonmono NonMonotoneLive");
    r.unwrap();
    let (r, out) = run(&mut s, "%check-domain nonmono");
    r.unwrap();
    let p = payload(&out, "check-domain");
    assert_eq!(p["passed"], false, "{}", text(&out));
    let found: Vec<String> = serde_json::from_value(p["monotonicity"].clone()).unwrap();
    assert_eq!(
        found.first().map(String::as_str),
        Some(NONMONO_FIRST),
        "{found:?}"
    );
    // The counterexample is real: the class's own transfer, called on the two sets.
    let (r, out) = run(
        &mut s,
        "stmt = {'node': 1, 'kind': 'statement', 'text': 'x = a + b', 'line': 2, 'targets': ['x'], 'uses': ['a', 'b'], 'deletes': [], 'branch_targets': [], 'locals': ('a', 'b', 'x')}\nprint(sorted(NonMonotoneLive().transfer(stmt, set())), sorted(NonMonotoneLive().transfer(stmt, {'a@L13'})))\n",
    );
    r.unwrap();
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Stdout(t) if t.trim() == "['a@L2', 'b@L2'] ['a@L13']")),
        "{out:?}"
    );

    // A non-monotone edge effect is found on its edge.
    let (r, _) = run(&mut s, "%analysis nonmonoedge NonMonotoneEdge");
    r.unwrap();
    let (r, out) = run(&mut s, "%check-domain nonmonoedge");
    r.unwrap();
    let found: Vec<String> =
        serde_json::from_value(payload(&out, "check-domain")["monotonicity"].clone()).unwrap();
    assert_eq!(
        found,
        [
            "edge is not monotone on the \"true\" edge out of node 3 (line 4: for i in items:): {} ⊆ {a@L1} but edge(stmt, \"true\", {}) = {i@L4} ⊄ edge(stmt, \"true\", {a@L1}) = {a@L1}"
        ]
    );
}

const NONMONO_FIRST: &str = "transfer is not monotone at node 1 (line 2: x = a + b): {} ⊆ {a@L13} but transfer(stmt, {}) = {a@L2, b@L2} ⊄ transfer(stmt, {a@L13}) = {a@L13}";

/// The elements of a user domain are JSON values in the payloads when they are plain data,
/// with the domain's text beside them.
#[test]
fn user_elements_are_json_values_in_payloads() {
    let mut s = session_with(&["interval", "parity"]);
    let code = "def f(n):\n    x = 3\n    y = x + 4\n    return y\n";
    let (r, out) = run(&mut s, &format!("%%absint uinterval\n{code}"));
    r.unwrap();
    let p = payload(&out, "absint");
    let ret = p["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["lines"] == serde_json::json!([5, 5]))
        .unwrap();
    assert_eq!(
        ret["in"]["y"],
        serde_json::json!({"value": [7, 7], "text": "[7, 7]"})
    );
    assert_eq!(
        ret["in"]["n"],
        serde_json::json!({"value": ["-inf", "+inf"], "text": "[-∞, +∞]"})
    );
    let (r, out) = run(&mut s, &format!("%%absint uparity\n{code}"));
    r.unwrap();
    let p = payload(&out, "absint");
    let ret = p["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["lines"] == serde_json::json!([5, 5]))
        .unwrap();
    assert_eq!(ret["in"]["y"]["text"], "odd");
    assert!(ret["in"]["y"]["value"].is_string() || ret["in"]["y"]["value"].is_array());
}
