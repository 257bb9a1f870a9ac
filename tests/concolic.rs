//! `%concolic`: genuinely concolic. On the notebooks' examples it covers every branch (each
//! is feasible); each input after the first is solved from an earlier run's own path
//! condition (a prefix of that run's branches, then another side of the next branch) and
//! the run it starts takes exactly that prefix and branch; each input replays in CPython
//! along the lines the kernel traced; an infeasible branch ends marked infeasible; a havoc
//! stops the claims of a run.

#[path = "common/cells.rs"]
mod cells;
#[path = "common/cpython_trace.rs"]
mod cpython_trace;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use serde_json::Value;

const SOURCE: &str = "def classify(x: int, y: int) -> str:\n    \"\"\"Compare x with twice y.\n\n    Preconditions:\n        - y >= 0\n    \"\"\"\n    if x > 2 * y:\n        return \"big\"\n    elif x < 0:\n        return \"negative\"\n    return \"small\"\n\ndef average(n: int) -> int:\n    total = 0\n    i = 0\n    while i < n:\n        total = total + i\n        i = i + 1\n    return total // i\n\ndef grade(score: int, bonus: int) -> int:\n    total = score + bonus\n    if total > 100:\n        total = 100\n    if total >= 50:\n        if bonus == 0:\n            return 2\n        return 1\n    return 0\n\ndef triangle(a: int, b: int, c: int) -> str:\n    if a <= 0 or b <= 0 or c <= 0:\n        return \"invalid\"\n    if a + b <= c or a + c <= b or b + c <= a:\n        return \"invalid\"\n    if a == b and b == c:\n        return \"equilateral\"\n    if a == b or b == c or a == c:\n        return \"isosceles\"\n    return \"scalene\"\n";

fn payload(out: &[Output], kind: &str) -> Value {
    cells::payload(out, kind).clone()
}

/// More functions beside the notebook's: a loop over a string whose last branch needs
/// three iterations (past the first back edge, where `%constraints` cuts its paths), a for
/// loop over a list, an exception caught, a branch inside a called function, an infeasible
/// branch, a havoc, and parameters not in alphabetical order.
const MORE: &str = "\ndef count_a(s: str) -> int:\n    n = 0\n    for c in s:\n        if c == \"a\":\n            n += 1\n    if n > 2:\n        return n\n    return 0\n\ndef first_big(xs: list[int]) -> int:\n    for x in xs:\n        if x > 10:\n            return x\n    return -1\n\ndef safe_div(a: int, b: int) -> int:\n    try:\n        q = a // b\n    except ZeroDivisionError:\n        return 0\n    if q > 3:\n        return q\n    return -q\n\ndef helper(v: int) -> int:\n    if v % 2 == 0:\n        return v // 2\n    return 3 * v + 1\n\ndef caller(n: int) -> int:\n    m = helper(n)\n    if m > 10:\n        return 1\n    return 0\n\ndef nested(x: int) -> int:\n    if x > 5:\n        if x < 3:\n            return 1\n        return 2\n    return 3\n\ndef hv(x: int) -> int:\n    import math\n    if x > 3:\n        return 1\n    return 3\n\ndef pair(z: int, a: int) -> int:\n    if z == 7:\n        if a == 3:\n            return 1\n        return 2\n    return 0\n";

fn session() -> Session {
    let mut session = Session::new(false);
    session.skip_layout = true;
    session
        .run_cell(&format!("{SOURCE}{MORE}"), &Cancel::new())
        .0
        .unwrap();
    session
}

fn concolic(session: &mut Session, cell: &str) -> Value {
    let (r, out) = session.run_cell(cell, &Cancel::new());
    r.unwrap_or_else(|e| panic!("{cell}: {e}"));
    payload(&out, "concolic")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Each round after the first runs the input solved after the round before it, from an
/// earlier run's own branches: the target is that run's prefix and then another side of
/// its next branch, and the new run takes exactly the target. (Inputs read from a static
/// listing's witnesses have no such earlier run to come from.)
fn check_solved_from_runs(f: &str, p: &Value) {
    let rounds = p["rounds"].as_array().unwrap();
    for (i, r) in rounds.iter().enumerate() {
        assert_eq!(
            r["agrees"], true,
            "%concolic {f}: round {i} left the traced path: {r}"
        );
        if i == 0 {
            assert!(r["solved_for"].is_null());
            continue;
        }
        let prev = &rounds[i - 1];
        assert_eq!(prev["next"], r["input"], "%concolic {f}: round {i}");
        let negated = &prev["negated"];
        let from = negated["round"].as_u64().unwrap() as usize;
        let depth = negated["depth"].as_u64().unwrap() as usize;
        assert!(from < i);
        let target = strings(&negated["target"]);
        assert_eq!(r["solved_for"]["branches"], negated["target"]);
        assert_eq!(target.len(), depth + 1);
        let earlier = strings(&rounds[from]["branches"]);
        assert_eq!(
            target[..depth],
            earlier[..depth],
            "%concolic {f}: prefix of round {from}"
        );
        assert_ne!(
            target[depth], earlier[depth],
            "%concolic {f}: the branch is negated"
        );
        assert_eq!(negated["branch"].as_str().unwrap(), target[depth]);
        let taken = strings(&r["branches"]);
        assert!(
            taken.starts_with(&target),
            "%concolic {f}: round {i} ({}) took {taken:?}, solved for {target:?}",
            r["input"]
        );
        assert_eq!(r["as_solved"], true);
        // The answer that gave it is Z3's model of that prefix and branch: sat.
        let last = prev["attempts"].as_array().unwrap().last().unwrap();
        assert_eq!(last["result"], "sat");
        assert_eq!(last["input"], r["input"]);
    }
}

#[test]
fn concolic_covers_every_branch_and_its_inputs_replay_in_cpython() {
    let mut session = session();
    let mut emitted: Vec<(String, Vec<u64>)> = Vec::new();
    for (f, args) in [
        ("classify", "0 0"),
        ("average", "0"),
        ("grade", "0 0"),
        ("triangle", "1 1 1"),
        ("triangle", ""),
        ("count_a", ""),
        ("first_big", "[]"),
        ("safe_div", "0 0"),
        ("caller", "0"),
        ("pair", "0 0"),
    ] {
        let p = concolic(&mut session, &format!("%concolic {f} {args}"));
        assert_eq!(
            p["branches_covered"], p["branches"],
            "%concolic {f}: not every branch covered: {p}"
        );
        assert_eq!(p["stopped"], "every branch is covered", "{f}");
        for b in p["branch_status"].as_array().unwrap() {
            assert!(
                b["status"] == "covered" || b["status"] == "infeasible",
                "%concolic {f}: {b}"
            );
        }
        check_solved_from_runs(f, &p);
        for r in p["rounds"].as_array().unwrap() {
            let lines = r["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_u64().unwrap())
                .collect();
            emitted.push((r["input"].as_str().unwrap().to_string(), lines));
        }
    }
    assert!(emitted.len() >= 25, "only {} inputs emitted", emitted.len());
    // Each input replays in CPython along the lines the kernel's run took (and the symbolic
    // run, by `agrees`, took too).
    let calls: Vec<String> = emitted.iter().map(|(c, _)| c.clone()).collect();
    let cpython = cpython_trace::trace(&format!("{SOURCE}{MORE}"), &calls);
    for ((call, lines), want) in emitted.iter().zip(&cpython) {
        let name = call.split('(').next().unwrap();
        let first = want["activations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["function"] == name)
            .unwrap_or_else(|| panic!("{call}: no activation in CPython"));
        let want: Vec<u64> = first["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_u64().unwrap())
            .collect();
        assert_eq!(lines, &want, "{call}: the kernel's lines against CPython's");
    }
}

#[test]
fn concolic_reaches_a_branch_behind_three_loop_iterations() {
    let mut session = session();
    let p = concolic(&mut session, "%concolic count_a");
    let rounds = p["rounds"].as_array().unwrap();
    assert_eq!(rounds[0]["input"], "count_a('')", "the default seed");
    let last = rounds.last().unwrap();
    let taken = strings(&last["branches"]);
    assert_eq!(taken.last().unwrap(), "L47:True", "{p}");
    assert_eq!(
        taken.iter().filter(|b| *b == "L45:True").count(),
        3,
        "three 'a's: {}",
        last["input"]
    );
    // Before, the branch was unsat on each shorter run's prefix: recorded, not claimed.
    let unsat = rounds
        .iter()
        .flat_map(|r| r["attempts"].as_array().unwrap())
        .filter(|a| a["branch"] == "L47:True" && a["result"] == "unsat")
        .count();
    assert!(unsat >= 3, "{p}");
}

#[test]
fn an_infeasible_branch_ends_infeasible_and_a_havoc_is_not_claimed() {
    let mut session = session();
    let p = concolic(&mut session, "%concolic nested 0");
    assert_eq!(p["stopped"], "no path is left to try", "{p}");
    let status: Vec<(String, String)> = p["branch_status"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["branch"].as_str().unwrap().into(),
                b["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        status.contains(&("L79:True".into(), "infeasible".into())),
        "{status:?}"
    );
    assert_eq!(
        status.iter().filter(|(_, s)| s == "covered").count(),
        3,
        "{status:?}"
    );
    let uncovered = p["cfg_uncovered"].as_array().unwrap();
    assert_eq!(uncovered.len(), 1);
    assert_eq!(uncovered[0]["line"], 79);
    assert!(
        uncovered[0]["why"]
            .as_str()
            .unwrap()
            .starts_with("infeasible")
    );
    check_solved_from_runs("nested", &p);
    // Cut short by the budget, the same branch is unsat so far, not proven infeasible.
    let p = concolic(&mut session, "%concolic nested 6 --rounds 1");
    let b = p["branch_status"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["branch"] == "L79:True")
        .cloned()
        .unwrap();
    assert_eq!(b["status"], "unsat_so_far", "{p}");
    // A havoc (an import the symbolic interpreter does not model) ends the claims: no branch
    // of the run is negated, and the round says why.
    let p = concolic(&mut session, "%concolic hv 5");
    let r = &p["rounds"][0];
    assert!(r["note"].as_str().unwrap().contains("havoc"), "{p}");
    assert_eq!(r["branches"].as_array().unwrap().len(), 0);
    assert_eq!(p["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(p["stopped"], "no path is left to try");
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

/// A solved input is passed in the order of the parameters, not of their names: `pair(z, a)`
/// solved for `z == 7` must run with `z` = 7 (read by name, 7 went to `a`).
#[test]
fn solved_inputs_are_passed_in_parameter_order() {
    let mut session = session();
    let p = concolic(&mut session, "%concolic pair 0 0");
    check_solved_from_runs("pair", &p);
    let second = p["rounds"][1]["input"].as_str().unwrap();
    assert!(second.starts_with("pair(7, "), "{p}");
    assert_eq!(p["stopped"], "every branch is covered", "{p}");
}

/// The whole output (text and payload) of `%concolic` on each function is the same in fresh
/// sessions, each on a new thread, and whatever cells ran before it in the session (the
/// cells run in reverse order): no hash order, address or earlier query shows in it.
#[test]
fn concolic_output_is_identical_across_sessions() {
    let cells = [
        "%concolic classify 0 0",
        "%concolic average 0",
        "%concolic grade 0 0",
        "%concolic triangle",
        "%concolic count_a",
        "%concolic first_big []",
        "%concolic safe_div 0 0",
        "%concolic caller 0",
        "%concolic nested 0",
        "%concolic pair 0 0",
    ];
    let outputs = |reverse: bool| {
        std::thread::spawn(move || {
            let mut session = session();
            let mut order: Vec<usize> = (0..cells.len()).collect();
            if reverse {
                order.reverse();
            }
            let mut out = vec![String::new(); cells.len()];
            for k in order {
                let (r, shown) = session.run_cell(cells[k], &Cancel::new());
                r.unwrap_or_else(|e| panic!("{}: {e}", cells[k]));
                out[k] = shown
                    .iter()
                    .filter_map(|o| match o {
                        Output::Display(b) => Some(format!("{:?}", b.data)),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            out
        })
        .join()
        .unwrap()
    };
    let first = outputs(false);
    for reverse in [false, true] {
        let again = outputs(reverse);
        for ((cell, a), b) in cells.iter().zip(&first).zip(&again) {
            assert!(
                a == b,
                "{cell} (after the cells {}): the output changed:\n{}\n----\n{}",
                if reverse { "below it" } else { "above it" },
                payload_text(a),
                payload_text(b)
            );
        }
    }
}

/// The start of a shown output's plain text, for a failure message.
fn payload_text(s: &str) -> String {
    s.split("text/plain")
        .nth(1)
        .unwrap_or(s)
        .chars()
        .take(3000)
        .collect()
}
