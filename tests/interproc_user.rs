//! `%absint DOMAIN NAME --context K` / `--summaries` with domains written in cells
//! (`from analysis import Domain`): the user versions of the built-in domains
//! (`tests/fixtures/user_analyses/*.py`) give exactly the built-ins' contexts, parameters,
//! return values and facts (the built-ins' results are checked against CPython runs by
//! `tests/interproc_runs.rs`), on fixed and random multi-function programs; errors in user
//! code and Rust-cell domains are reported by name.
//!
//! `INTERPROC_USER_CASES=N` sets the number of random programs (default 12).

#[path = "common/cells.rs"]
mod cells;
#[path = "common/rng.rs"]
mod rng;

use analysis_kernel::notebook::{Output, Session};
use cells::{displays, run};
use rng::Rng;
use serde_json::Value;

const KIND: &str = "absint-contexts";
const DOMAINS: [&str; 5] = ["zero", "sign", "constant", "interval", "parity"];
const MODES: [&str; 4] = ["--context 0", "--context 1", "--context 2", "--summaries"];

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/user_analyses/{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn session(code: &str) -> Session {
    let mut s = Session::default();
    s.skip_layout = true;
    for d in DOMAINS {
        run(&mut s, &fixture(d))
            .0
            .unwrap_or_else(|e| panic!("{d}: {e:?}"));
    }
    run(&mut s, code)
        .0
        .unwrap_or_else(|e| panic!("{e:?}\n{code}"));
    s
}

fn payload(out: &[Output]) -> Value {
    cells::payload(out, KIND).clone()
}

/// The text view.
fn text(out: &[Output]) -> String {
    displays(out)
        .iter()
        .filter_map(|d| d.get("text/plain").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

fn compare(s: &mut Session, code: &str, entry: &str) -> usize {
    let mut n = 0;
    for d in DOMAINS {
        for mode in MODES {
            let (r, out) = run(s, &format!("%absint {d} {entry} {mode}"));
            r.unwrap_or_else(|e| panic!("{d} {mode}: {e:?}\n{code}"));
            let builtin = text(&out);
            let (r, out) = run(s, &format!("%absint u{d} {entry} {mode}"));
            r.unwrap_or_else(|e| panic!("u{d} {mode}: {e:?}\n{code}"));
            let p = payload(&out);
            assert!(
                p["user_calls"].as_u64().unwrap_or(0) > 0,
                "the user's methods ran"
            );
            assert_eq!(p["domain"], format!("u{d}"));
            assert_eq!(
                text(&out).replace(&format!("u{d}"), d),
                builtin,
                "u{d} {mode} differs from {d} on\n{code}"
            );
            n += 1;
        }
    }
    n
}

const FACT: &str = "def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n\ndef use_fact(m):\n    return fact(m) + fact(3)\n";

const CHAIN: &str = "def inc(a):\n    return a + 1\n\ndef twice(b):\n    return inc(inc(b))\n\ndef main(x):\n    y = twice(4)\n    if x > 0:\n        y = y + inc(x)\n    return y\n";

#[test]
fn user_domains_give_the_builtins_contexts_on_fixed_programs() {
    let mut total = 0;
    for (code, entry) in [(FACT, "use_fact"), (CHAIN, "main")] {
        let mut s = session(code);
        total += compare(&mut s, code, entry);
    }
    assert_eq!(total, 2 * DOMAINS.len() * MODES.len());
}

/// Small random programs: f0..f2 calling later functions, some recursion.
fn program(rng: &mut Rng) -> String {
    let mut lines = Vec::new();
    for me in 0..3 {
        lines.push(format!("def f{me}(a, b):"));
        lines.push("    x = a".to_string());
        if rng.chance(40) {
            lines.push("    if 0 < a < 3:".to_string());
            lines.push(format!("        x = f{me}(a - 1, b + 1)"));
        }
        for _ in 0..1 + rng.below(3) {
            let k = rng.range(-2, 4);
            let line = match rng.below(5) {
                0 if me < 2 => format!("    x = f{}(x + {k}, b) - 1", me + 1 + rng.below(2 - me)),
                1 => format!("    if x < {k}:\n        x = x + b\n    else:\n        x = {k}"),
                2 => format!("    while x < {k}:\n        x = x + 2"),
                3 => format!("    b = b * {k}"),
                _ => format!("    x = x % 3 + {k}"),
            };
            lines.push(line);
        }
        lines.push("    return x + b".to_string());
        lines.push(String::new());
    }
    lines.join("\n")
}

#[test]
fn user_domains_give_the_builtins_contexts_on_random_programs() {
    let cases: u64 = std::env::var("INTERPROC_USER_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let mut rng = Rng::new(2107);
    let mut total = 0;
    for _ in 0..cases {
        let code = program(&mut rng);
        let mut s = session(&code);
        total += compare(&mut s, &code, "f0");
    }
    eprintln!("{total} user-domain interprocedural runs equal to the built-ins'");
}

#[test]
fn errors_in_user_code_are_reported_with_the_method() {
    let mut s = session(CHAIN);
    // The sign domain whose `add` raises.
    let broken = fixture("sign")
        .replace("@domain(\"usign\")", "@domain(\"broken\")")
        .replace("class Sign(Domain):", "class Broken(Domain):")
        .replace(
            "    def add(self, a, b):\n",
            "    def add(self, a, b):\n        raise ValueError(\"no add\")\n",
        );
    run(&mut s, &broken).0.unwrap_or_else(|e| panic!("{e:?}"));
    let (r, _) = run(&mut s, "%absint broken main --context 1");
    let e = format!("{:?}", r.expect_err("the user's binary raises"));
    assert!(e.contains("ValueError") && e.contains("add"), "{e}");
    let (r, _) = run(&mut s, "%absint nosuch main --context 1");
    let e = format!("{:?}", r.unwrap_err());
    assert!(
        e.contains("UnsupportedError") && e.contains("nosuch"),
        "{e}"
    );
}
