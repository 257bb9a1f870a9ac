//! Domains written in cells (`from analysis import Domain`): the built-in domains re-written
//! as user classes (`tests/fixtures/user_analyses/*.py`) give the built-ins' results; seeded
//! bugs are found by `%check-domain` with their counterexample; errors in user code name the
//! user's line and the engine step.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session};
use cells::{displays, run};
use serde_json::Value;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/user_analyses/{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn payload<'a>(out: &'a [Output], kind: &str) -> &'a Value {
    let mime = format!("application/vnd.analysis-kernel.{kind}+json");
    displays(out)
        .into_iter()
        .rev()
        .find_map(|d| d.get(&mime))
        .unwrap_or_else(|| panic!("no {mime}"))
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
