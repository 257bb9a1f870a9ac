//! `%dom`, `%pdom`, `%cdg`, `%ddg`, `%pdg` and `%slice` through the cell language: the JSON
//! payloads, node ids shared with `%cfg`, exception edges, and errors.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::Session;
use cells::{displays, payload, run};
use serde_json::{Value, json};

const DEFS: &str = "def f(a, b):\n    x = 0\n    if a > b:\n        x = a\n    else:\n        x = b\n    y = 1\n    while x > 0:\n        y = y * 2\n        x = x - 1\n    return y\n\ndef g(a):\n    r = 1\n    try:\n        r = 10 // a\n        r = r + 1\n    except ZeroDivisionError:\n        r = -1\n    return r\n";

fn session() -> Session {
    let mut s = Session::default();
    let (r, _) = run(&mut s, DEFS);
    r.expect("definitions");
    s
}

/// The id of the node on `line` (its first statement).
fn at(p: &Value, line: u64) -> String {
    p["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["lines"][0] == line && n["kind"] != "entry" && n["kind"] != "exit")
        .unwrap_or_else(|| panic!("no node on line {line}"))["id"]
        .as_str()
        .expect("id")
        .to_string()
}

fn node<'a>(p: &'a Value, id: &str) -> &'a Value {
    p["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["id"] == id)
        .expect("node")
}

#[test]
fn dominator_payload() {
    let mut s = session();
    let (r, out) = run(&mut s, "%dom f");
    r.expect("runs");
    let data = displays(&out)[0];
    for mime in [
        "text/plain",
        "text/html",
        "image/svg+xml",
        "application/vnd.analysis-kernel.dom+json",
    ] {
        assert!(data.contains_key(mime), "{mime} missing");
    }
    let p = payload(&out, "dom");
    assert_eq!(p["version"], 1);
    assert_eq!(p["function"], "f");
    let (test, then, other, y1, head, ret) =
        (at(p, 3), at(p, 4), at(p, 6), at(p, 7), at(p, 8), at(p, 11));
    assert_eq!(node(p, &then)["idom"], json!(test));
    assert_eq!(node(p, &other)["idom"], json!(test));
    assert_eq!(node(p, &y1)["idom"], json!(test));
    assert_eq!(node(p, &ret)["idom"], json!(head));
    assert_eq!(node(p, &then)["frontier"], json!([y1]));
    let body = at(p, 9);
    let mut df = node(p, &body)["frontier"].as_array().expect("df").clone();
    df.sort_by_key(|v| v.to_string());
    assert_eq!(
        df,
        vec![json!(head)],
        "the loop body's frontier is its head"
    );
    let text = data["text/plain"].as_str().expect("text");
    assert!(text.starts_with("dominator tree of f"), "{text}");
}

#[test]
fn post_dominators_and_exception_edges() {
    let mut s = session();
    let (r, out) = run(&mut s, "%pdom g");
    r.expect("runs");
    let p = payload(&out, "pdom");
    let (div, inc, handler, ret) = (at(p, 16), at(p, 17), at(p, 18), at(p, 20));
    assert!(
        p["exception_edges"]
            .as_array()
            .expect("edges")
            .iter()
            .any(|e| e["from"] == div && e["to"] == handler),
        "the division's exception edge is listed: {p}"
    );
    // Inside try, `10 // a` and `r + 1` may also raise what the handler does not catch
    // (a TypeError), straight to the exit: only the exit post-dominates them.
    let exit = p["root"].as_str().expect("root").to_string();
    assert_eq!(node(p, &exit)["kind"], "exit");
    assert_eq!(node(p, &div)["idom"], json!(exit));
    assert_eq!(node(p, &inc)["idom"], json!(exit));
    assert_eq!(node(p, &handler)["idom"], json!(at(p, 19)));
    assert_eq!(node(p, &inc)["frontier"], json!([div]));
    assert_eq!(node(p, &ret)["frontier"], json!([div, inc]));
    let dot = displays(&out)[0]["text/plain"].as_str().expect("text");
    assert!(dot.contains("post-dominator tree of g"));
}

#[test]
fn control_data_and_program_dependences() {
    let mut s = session();
    let (r, out) = run(&mut s, "%cdg g");
    r.expect("runs");
    let p = payload(&out, "cdg");
    let (div, inc, handler) = (at(p, 16), at(p, 17), at(p, 18));
    let control = p["control"].as_array().expect("control");
    assert!(
        control.contains(&json!({"from": div, "to": inc, "label": null}))
            || control.iter().any(|c| c["from"] == div && c["to"] == inc)
    );
    assert!(
        control
            .iter()
            .any(|c| c["from"] == div && c["to"] == handler && c["label"] == "exception")
    );
    assert!(p.get("data").is_none());

    let (r, out) = run(&mut s, "%ddg f");
    r.expect("runs");
    let p = payload(&out, "ddg");
    let data = p["data"].as_array().expect("data");
    let (then, head, ret, double) = (at(p, 4), at(p, 8), at(p, 11), at(p, 9));
    assert!(data.contains(&json!({"from": then, "to": head, "var": "x"})));
    assert!(data.contains(&json!({"from": double, "to": ret, "var": "y"})));
    assert!(data.contains(&json!({"from": double, "to": double, "var": "y"})));
    assert!(p.get("control").is_none());

    let (r, out) = run(&mut s, "%pdg f");
    r.expect("runs");
    let p = payload(&out, "pdg");
    let control = p["control"].as_array().expect("control");
    assert!(
        control
            .iter()
            .any(|c| c["from"] == head && c["to"] == double && c["label"] == "True")
    );
    assert!(
        control
            .iter()
            .any(|c| c["from"] == head && c["to"] == head && c["label"] == "True"),
        "the loop head depends on itself"
    );
    assert!(!p["data"].as_array().expect("data").is_empty());
}

#[test]
fn errors_name_the_problem() {
    let mut s = session();
    for (cell, ename) in [
        ("%dom", "UsageError"),
        ("%pdg nosuch", "NameError"),
        ("%cdg f g", "UsageError"),
    ] {
        let (r, _) = run(&mut s, cell);
        let e = r.expect_err(cell);
        assert_eq!(e.ename, ename, "{cell}: {e:?}");
    }
}

const SLICED: &str = "def h(n, k):\n    total = 0\n    count = 0\n    i = 0\n    while i < n:\n        if i % 2 == 0:\n            total = total + i\n        else:\n            count = count + 1\n        if total > k:\n            break\n        i = i + 1\n    s = total * 2\n    return count\n";

#[test]
fn backward_slice_runs_and_agrees() {
    let mut s = Session::default();
    run(&mut s, SLICED).0.expect("defs");
    let (r, out) = run(&mut s, "%slice h 13 total");
    r.expect("runs");
    let p = payload(&out, "slice");
    let lines: Vec<u64> = p["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    // total's value at line 13 depends on the loop, its break, the even branch; not count.
    for l in [2, 4, 5, 6, 7, 10, 11, 12, 13] {
        assert!(lines.contains(&l), "line {l} in {lines:?}");
    }
    for l in [3, 9, 14] {
        assert!(!lines.contains(&l), "line {l} not in {lines:?}");
    }
    let py = p["python"].as_str().expect("python");
    assert!(
        py.contains("else:\n            pass") || !py.contains("else:"),
        "{py}"
    );
    let check = &p["check"];
    assert_eq!(check["inputs"], 20, "{check}");
    assert_eq!(check["agree"], 20, "{check}");
    assert!(check["reached"].as_u64().expect("reached") > 0);
    let text = displays(&out)[0]["text/plain"].as_str().expect("text");
    assert!(text.contains("on 20 of 20 inputs"), "{text}");
}

/// Weiser's example prints both results: what the function prints is not taken for the
/// criterion's records, so slice and function agree on every input.
#[test]
fn a_slice_of_a_printing_function_agrees() {
    let mut s = Session::default();
    let defs = r#"
def sum_and_product(n):
    i = 1
    s = 0
    p = 1
    while i <= n:
        s = s + i
        p = p * i
        i = i + 1
    print(s)
    print(p)
"#;
    run(&mut s, defs.trim_start()).0.expect("defs");
    let (r, out) = run(&mut s, "%slice sum_and_product 10 p");
    r.expect("runs");
    let p = payload(&out, "slice");
    assert_eq!(p["lines"], json!([2, 4, 5, 7, 8, 10]), "{p}");
    let check = &p["check"];
    assert_eq!(
        (check["inputs"].as_u64(), check["agree"].as_u64()),
        (Some(20), Some(20)),
        "{check}"
    );
    assert_eq!(check["reached"], 20, "{check}");
}

#[test]
fn forward_slice_and_errors() {
    let mut s = Session::default();
    run(&mut s, SLICED).0.expect("defs");
    let (r, out) = run(&mut s, "%slice h 3 --forward");
    r.expect("runs");
    let p = payload(&out, "slice");
    let lines: Vec<u64> = p["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(
        lines,
        vec![3, 9, 14],
        "count's definition reaches its update and the return"
    );
    assert!(p["python"].is_null());
    for (cell, ename) in [
        ("%slice h", "UsageError"),
        ("%slice h x", "UsageError"),
        ("%slice h 1", "ValueError"),
        ("%slice h 13 nosuch", "NameError"),
        ("%slice h 13 --forward --save out.py", "UsageError"),
    ] {
        let e = run(&mut s, cell).0.expect_err(cell);
        assert_eq!(e.ename, ename, "{cell}: {e:?}");
    }
}

#[test]
fn call_graph_marks_recursion() {
    let mut s = Session::default();
    let defs = "def even(n):\n    if n == 0:\n        return True\n    return odd(n - 1)\n\ndef odd(n):\n    if n == 0:\n        return False\n    return even(n - 1)\n\ndef fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n\ndef main(x):\n    print(fact(x), even(x))\n    return abs(x)\n";
    run(&mut s, defs).0.expect("defs");
    let (r, out) = run(&mut s, "%callgraph");
    r.expect("runs");
    let p = payload(&out, "callgraph");
    let f = |name: &str| {
        p["functions"]
            .as_array()
            .expect("functions")
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    assert_eq!(f("even")["calls"], json!(["odd"]));
    assert_eq!(f("even")["recursive"], true);
    assert_eq!(f("odd")["recursive"], true);
    assert_eq!(f("fact")["calls"], json!(["fact"]));
    assert_eq!(f("fact")["recursive"], true);
    assert_eq!(f("main")["calls"], json!(["even", "fact"]));
    assert_eq!(f("main")["recursive"], false);
    assert_eq!(f("main")["external"], json!(["abs", "print"]));
    let e = run(&mut s, "%callgraph f").0.expect_err("args");
    assert_eq!(e.ename, "UsageError");
}
