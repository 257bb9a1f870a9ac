//! `%dataflow live|reaching NAME --interprocedural` in a session: the payload's functions,
//! boundaries and calls, the facts across calls, and the errors.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::Session;
use cells::{displays, run};
use serde_json::Value;

const KIND: &str = "dataflow-interprocedural";

const COUNTER: &str = "count = 0\n\ndef bump(k):\n    global count\n    count = count + k\n    return count\n\ndef main(n):\n    bump(n)\n    t = count\n    r = bump(1) + t\n    print(r)\n    return r\n";

fn session() -> Session {
    let mut s = Session::default();
    run(&mut s, COUNTER).0.unwrap_or_else(|e| panic!("{e:?}"));
    s
}

fn payload(s: &mut Session, cell: &str) -> Value {
    let (r, out) = run(s, cell);
    r.unwrap_or_else(|e| panic!("{cell}: {e:?}"));
    cells::payload(&out, KIND).clone()
}

/// The IN facts of the node of `function` on `line`.
fn facts_in(p: &Value, function: &str, line: u64) -> Vec<String> {
    let f = p["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == function)
        .unwrap_or_else(|| panic!("no {function}"));
    let node = f["analysis"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["lines"][0].as_u64() == Some(line) || n["line"].as_u64() == Some(line))
        .unwrap_or_else(|| panic!("no node on line {line}: {}", f["analysis"]["nodes"]));
    node["in"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn reaching_definitions_cross_calls() {
    let mut s = session();
    let p = payload(&mut s, "%dataflow reaching main --interprocedural");
    assert_eq!(p["analysis"], "reaching");
    assert_eq!(p["globals"], serde_json::json!(["count"]));
    let names: Vec<&str> = p["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["main", "bump"]);
    // After bump(n), count is bump's definition only (the call surely runs).
    let at_t = facts_in(&p, "main", 10);
    assert!(at_t.contains(&"count@bump:L5".to_string()), "{at_t:?}");
    assert!(!at_t.contains(&"count@module".to_string()), "{at_t:?}");
    assert!(at_t.contains(&"n@L8".to_string()), "{at_t:?}");
    // In bump, k is bound by both call sites; count comes from the module or the first call.
    let in_bump = facts_in(&p, "bump", 5);
    for f in ["k←main:L9", "k←main:L11", "count@module", "count@bump:L5"] {
        assert!(in_bump.contains(&f.to_string()), "{f} in {in_bump:?}");
    }
    let calls: Vec<(String, u64)> = p["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["callee"].as_str().unwrap().to_string(),
                c["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(calls, [("bump".to_string(), 9), ("bump".to_string(), 11)]);
    assert_eq!(p["unfollowed"][0]["callee"], "print");
}

#[test]
fn live_globals_cross_calls() {
    let mut s = session();
    let p = payload(&mut s, "%dataflow live main --interprocedural");
    assert_eq!(p["direction"], "backward");
    // bump reads count: it is live before each call of bump.
    let before_first = facts_in(&p, "main", 9);
    assert!(
        before_first.iter().any(|f| f == "count@bump:L5"),
        "{before_first:?}"
    );
    // count is read after bump returns (t = count), so it is live at bump's exit.
    let bump = p["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "bump")
        .unwrap();
    let exit: Vec<&str> = bump["boundary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(exit.contains(&"count@main:L10"), "{exit:?}");
    assert!(exit.contains(&"count@after"), "{exit:?}");
    // main's locals never leak into bump.
    assert!(
        !exit
            .iter()
            .any(|f| f.starts_with("t@") || f.starts_with("r@"))
    );
}

#[test]
fn errors_are_named() {
    let mut s = session();
    let (r, _) = run(&mut s, "%dataflow available main --interprocedural");
    let e = format!("{:?}", r.unwrap_err());
    assert!(
        e.contains("UnsupportedError") && e.contains("available"),
        "{e}"
    );
    let (r, _) = run(&mut s, "%dataflow live nothing --interprocedural");
    assert!(r.is_err());
    let (r, _) = run(&mut s, "%dataflow live main --interprocedural --trace");
    let e = format!("{:?}", r.unwrap_err());
    assert!(e.contains("--trace"), "{e}");
}

#[test]
fn the_text_view_lists_functions_calls_and_tables() {
    let mut s = session();
    let (r, out) = run(&mut s, "%dataflow reaching main --interprocedural");
    r.unwrap();
    let text: String = displays(&out)
        .into_iter()
        .filter_map(|d| {
            d.get("text/plain")
                .and_then(|v| v.as_str())
                .map(String::from)
        })
        .collect();
    for needle in [
        "interprocedural reaching definitions from main",
        "Calls not followed",
        "print",
        "k←main:L9",
    ] {
        assert!(text.contains(needle), "{needle} missing in\n{text}");
    }
}

#[test]
fn the_figure_notes_each_call_site_and_the_calls_not_followed() {
    let mut s = session();
    let (r, out) = run(&mut s, "%dataflow live main --interprocedural");
    r.unwrap();
    let html: String = displays(&out)
        .into_iter()
        .filter_map(|d| {
            d.get("text/html")
                .and_then(|v| v.as_str())
                .map(String::from)
        })
        .collect();
    // Lines 9 and 11 call `bump`; `print` on line 12 is a builtin, not followed.
    assert_eq!(html.matches("call → bump").count(), 2, "{html}");
    assert!(
        html.contains("<b>Calls not followed</b></div><ul><li>main line 12: print"),
        "{html}"
    );
}
