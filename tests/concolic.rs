//! `%concolic`: on the notebook's examples it covers every branch (each is feasible: the
//! `%constraints` listing has a witness for both sides of every condition), each input it
//! solves takes the path it was solved for, and replays in CPython along the same lines.

#[path = "common/cpython_trace.rs"]
mod cpython_trace;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use serde_json::Value;

const SOURCE: &str = "def classify(x: int, y: int) -> str:\n    \"\"\"Compare x with twice y.\n\n    Preconditions:\n        - y >= 0\n    \"\"\"\n    if x > 2 * y:\n        return \"big\"\n    elif x < 0:\n        return \"negative\"\n    return \"small\"\n\ndef average(n: int) -> int:\n    total = 0\n    i = 0\n    while i < n:\n        total = total + i\n        i = i + 1\n    return total // i\n\ndef grade(score: int, bonus: int) -> int:\n    total = score + bonus\n    if total > 100:\n        total = 100\n    if total >= 50:\n        if bonus == 0:\n            return 2\n        return 1\n    return 0\n\ndef triangle(a: int, b: int, c: int) -> str:\n    if a <= 0 or b <= 0 or c <= 0:\n        return \"invalid\"\n    if a + b <= c or a + c <= b or b + c <= a:\n        return \"invalid\"\n    if a == b and b == c:\n        return \"equilateral\"\n    if a == b or b == c or a == c:\n        return \"isosceles\"\n    return \"scalene\"\n";

fn payload(out: &[Output], kind: &str) -> Value {
    let mime = format!("application/vnd.analysis-kernel.{kind}+json");
    out.iter()
        .find_map(|o| match o {
            Output::Display(b) => b.data.get(&mime).cloned(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {kind} payload"))
}

#[test]
fn concolic_covers_every_branch_and_its_inputs_replay_in_cpython() {
    let mut session = Session::new(false);
    session.skip_layout = true;
    session.run_cell(SOURCE, &Cancel::new()).0.unwrap();
    let mut emitted = Vec::new();
    for (f, args) in [
        ("classify", "0 0"),
        ("average", "0"),
        ("grade", "0 0"),
        ("triangle", "1 1 1"),
    ] {
        let (r, out) = session.run_cell(&format!("%concolic {f} {args}"), &Cancel::new());
        r.unwrap_or_else(|e| panic!("%concolic {f}: {e}"));
        let p = payload(&out, "concolic");
        assert_eq!(
            p["branches_covered"], p["branches"],
            "%concolic {f}: not every branch covered: {p}"
        );
        let rounds = p["rounds"].as_array().unwrap();
        for pair in rounds.windows(2) {
            // The next round runs the input solved for the negated branch's path.
            let target = &pair[0]["negated"]["target_path"];
            assert_eq!(&pair[1]["input"], &pair[0]["next"]);
            assert_eq!(
                &pair[1]["path"], target,
                "%concolic {f}: {} strayed",
                pair[1]["input"]
            );
            emitted.push(pair[1]["input"].as_str().unwrap().to_string());
        }
    }
    assert!(emitted.len() >= 10, "only {} inputs emitted", emitted.len());
    // Each emitted input replays in CPython along the lines the kernel traced.
    let cpython = cpython_trace::trace(SOURCE, &emitted);
    for (call, want) in emitted.iter().zip(&cpython) {
        let (r, out) = session.run_cell(&format!("%run {call}"), &Cancel::new());
        r.unwrap();
        let got = payload(&out, "run");
        let acts: Vec<Value> = got["activations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| serde_json::json!({"function": a["function"], "lines": a["lines"], "raised": a["raised"]}))
            .collect();
        assert_eq!(Value::Array(acts), want["activations"], "{call}");
    }
}

#[test]
fn concolic_saves_pytest_cases_and_refuses_bad_use() {
    let mut session = Session::new(false);
    session.skip_layout = true;
    session.run_cell(SOURCE, &Cancel::new()).0.unwrap();
    let (r, out) = session.run_cell("%concolic grade 0 0 --rounds 2 --save t.py", &Cancel::new());
    r.unwrap();
    let p = payload(&out, "concolic");
    assert_eq!(p["rounds"].as_array().unwrap().len(), 2);
    assert!(p["stopped"].as_str().unwrap().contains("budget"));
    let file = out
        .iter()
        .find_map(|o| match o {
            Output::File { path, contents } if path == "t.py" => {
                Some(String::from_utf8(contents.clone()).unwrap())
            }
            _ => None,
        })
        .expect("t.py saved");
    assert!(file.contains("def grade(score: int, bonus: int) -> int:"));
    assert!(
        file.contains("def test_grade_0():\n    assert grade(0, 0) == 0\n"),
        "{file}"
    );
    // The saved file runs under CPython: its assertions hold there too.
    let dir = std::env::temp_dir().join(format!("concolic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.py");
    std::fs::write(&path, format!("{file}\n\nimport sys\nfor name, f in list(globals().items()):\n    if name.startswith('test_'):\n        f()\nprint('ok')\n").replace("import pytest\n", "")).unwrap();
    let ran = std::process::Command::new("python3")
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout).trim(),
        "ok",
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    for (cell, ename) in [
        ("%concolic", "UsageError"),
        ("%concolic nosuch 1", "NameError"),
        ("%concolic grade 0 0 --rounds 0", "UsageError"),
        ("%cfg grade --save g.py", "UsageError"),
    ] {
        let (r, _) = session.run_cell(cell, &Cancel::new());
        assert_eq!(r.unwrap_err().ename, ename, "{cell}");
    }
}
