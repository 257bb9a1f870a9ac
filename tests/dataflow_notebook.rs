//! `%dataflow`/`%%dataflow` and `%absint`/`%%absint` through the cell language: every output
//! format, the JSON contract of the spec (`dataflow` and `absint` payloads), node ids shared
//! with `%cfg`, options and errors.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session, complete};
use cells::{displays, payload, run};
use serde_json::{Value, json};

const DEFS: &str = "def foo(x):\n    y = 0\n\n    while x >= 0:\n        tmp = x\n        if tmp % 2 == 0:\n            y = x\n        x -= 1\n\n\n    return y\n\ndef loop():\n    x = 8\n    y = x\n    z = 0\n    while y > -1:\n        x = x // y\n        y = y - 2\n        z = 5\n\ndef count(n: int):\n    i = 0\n    while i < 10:\n        i = i + 1\n    return n // i\n";

fn session() -> Session {
    let mut s = Session::default();
    let (r, _) = run(&mut s, DEFS);
    r.expect("definitions");
    s
}

#[test]
fn dataflow_payload_follows_the_spec() {
    let mut s = session();
    let (r, out) = run(&mut s, "%dataflow reaching foo");
    r.expect("runs");
    let data = displays(&out)[0];
    for mime in [
        "text/plain",
        "text/html",
        "image/svg+xml",
        "application/vnd.analysis-kernel.dataflow+json",
    ] {
        assert!(data.contains_key(mime), "{mime} missing");
    }
    let p = payload(&out, "dataflow");
    assert_eq!(p["version"], 1);
    assert_eq!(p["kind"], "dataflow");
    assert_eq!(p["analysis"], "reaching");
    assert_eq!(p["function"], "foo");
    assert_eq!(p["direction"], "forward");
    assert!(p["iterations"].as_u64().is_some_and(|n| n >= 9));
    assert!(p.get("trace").is_none(), "no trace unless asked");
    let nodes = p["nodes"].as_array().expect("nodes");
    let ret = nodes
        .iter()
        .find(|n| n["lines"] == json!([11, 11]))
        .expect("the return on line 11");
    assert_eq!(ret["in"], json!(["tmp@L5", "x@L1", "x@L8", "y@L2", "y@L7"]));
    for n in nodes {
        assert!(n["id"].is_string() && n["in"].is_array() && n["out"].is_array());
        assert_eq!(n["lines"].as_array().map(Vec::len), Some(2));
    }
    // The same node ids as %cfg.
    let (_, cfg_out) = run(&mut s, "%cfg foo");
    let cfg_ids: Vec<&Value> = payload(&cfg_out, "cfg")["nodes"]
        .as_array()
        .expect("cfg nodes")
        .iter()
        .map(|n| &n["id"])
        .collect();
    let ids: Vec<&Value> = nodes.iter().map(|n| &n["id"]).collect();
    assert_eq!(ids, cfg_ids);
    let svg = data["image/svg+xml"].as_str().unwrap_or("");
    assert!(svg.contains("y@L7"), "facts are drawn in the figure");
    let text = data["text/plain"].as_str().unwrap_or("");
    assert!(
        text.starts_with("reaching definitions of foo (forward, may;"),
        "{text}"
    );
}

#[test]
fn every_analysis_and_the_trace() {
    let mut s = session();
    for (word, name, direction) in [
        ("reaching-definitions", "reaching", "forward"),
        ("liveness", "live", "backward"),
        ("available", "available", "forward"),
        ("very-busy", "very-busy", "backward"),
        ("def-use", "def-use", "forward"),
    ] {
        let (r, out) = run(&mut s, &format!("%dataflow {word} foo --trace"));
        r.unwrap_or_else(|e| panic!("{word}: {e}"));
        let p = payload(&out, "dataflow");
        assert_eq!(p["analysis"], name);
        assert_eq!(p["direction"], direction);
        let trace = p["trace"].as_array().expect("a trace");
        assert_eq!(trace.len() as u64, p["iterations"].as_u64().unwrap_or(0));
        assert_eq!(trace[0]["step"], 1);
        assert!(
            trace
                .iter()
                .any(|t| t["edge"] == "True" || t["from"].is_string())
        );
        let text = displays(&out)[0]["text/plain"].as_str().unwrap_or("");
        assert!(text.contains("Worklist trace"), "{word}");
    }
    let (_, out) = run(&mut s, "%dataflow def-use foo");
    let chains = payload(&out, "dataflow")["chains"]
        .as_array()
        .expect("chains")
        .clone();
    assert!(
        chains
            .iter()
            .any(|c| c["def"] == "x@L8" && c["use_line"] == 8)
    );
}

#[test]
fn cell_forms_analyse_the_snippet() {
    let mut s = Session::default();
    let (r, out) = run(
        &mut s,
        "%%dataflow available\na = 1\nb = a + 2\nif b > a:\n    c = a + 2\nprint(c)\n",
    );
    r.expect("runs");
    let p = payload(&out, "dataflow");
    assert_eq!(p["function"], "<module>");
    let nodes = p["nodes"].as_array().expect("nodes");
    let print = nodes
        .iter()
        .find(|n| n["lines"] == json!([6, 6]))
        .expect("print on line 6 (the %% line is line 1)");
    assert_eq!(print["in"], json!(["a + 2", "b > a"]));
    let (r, out) = run(
        &mut s,
        "%%absint interval\nx = 0\nwhile x < 5:\n    x += 1\ny = 10 // (x - 5)\n",
    );
    r.expect("runs");
    let p = payload(&out, "absint");
    assert_eq!(
        p["warnings"],
        json!([{"line": 5, "kind": "division-by-zero", "certain": true, "message": "Division by zero in line 5"}])
    );
    // A cell that only defines functions analyses each of them.
    let (r, out) = run(
        &mut s,
        "%%dataflow live\ndef g(a):\n    return a\ndef h(b):\n    return b\n",
    );
    r.expect("runs");
    let functions: Vec<&Value> = displays(&out)
        .iter()
        .map(|d| &d["application/vnd.analysis-kernel.dataflow+json"]["function"])
        .collect();
    assert_eq!(functions, [&json!("g"), &json!("h")]);
    assert!(s.functions().next().is_none(), "%% cells define nothing");
}

#[test]
fn absint_payload_follows_the_spec() {
    let mut s = session();
    let (r, out) = run(&mut s, "%absint zero loop");
    r.expect("runs");
    let p = payload(&out, "absint");
    assert_eq!(p["version"], 1);
    assert_eq!(p["kind"], "absint");
    assert_eq!(p["domain"], "zero");
    assert_eq!(p["function"], "loop");
    assert_eq!(
        p["warnings"],
        json!([{"line": 18, "kind": "division-by-zero", "certain": false, "message": "Possible division by zero in line 18"}])
    );
    let nodes = p["nodes"].as_array().expect("nodes");
    let z0 = nodes
        .iter()
        .find(|n| n["lines"] == json!([16, 16]))
        .expect("z = 0");
    assert_eq!(
        z0["out"],
        json!({"x": ["NONZERO"], "y": ["NONZERO"], "z": ["ZERO"]})
    );
    assert_eq!(z0["in"]["z"], json!([]), "unbound is ⊥, the empty set");
    let text = displays(&out)[0]["text/plain"].as_str().unwrap_or("");
    assert!(
        text.contains("- Possible division by zero in line 18"),
        "{text}"
    );

    let (r, out) = run(&mut s, "%absint interval count");
    r.expect("runs");
    let p = payload(&out, "absint");
    let ret = p["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["lines"] == json!([26, 26]))
        .cloned()
        .expect("the return");
    assert_eq!(ret["in"]["i"], json!({"lo": 10, "hi": 10}), "narrowed");
    assert_eq!(ret["in"]["n"], json!({"lo": null, "hi": null}));
    assert_eq!(p["warnings"], json!([]));

    let (_, out) = run(&mut s, "%absint constant count --trace");
    let p = payload(&out, "absint");
    let ret = p["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["lines"] == json!([23, 23]))
        .cloned()
        .expect("i = 0");
    assert_eq!(ret["out"]["i"], json!(0));
    assert_eq!(ret["in"]["i"], json!("bottom"));
    assert!(p["trace"].as_array().is_some_and(|t| !t.is_empty()));

    let (_, out) = run(&mut s, "%absint sign loop");
    let p = payload(&out, "absint");
    assert!(
        p["nodes"][1]["out"]["x"] == json!(["POS"]),
        "{}",
        p["nodes"][1]
    );
}

#[test]
fn errors_and_completion() {
    let mut s = session();
    let e = run(&mut s, "%dataflow reach foo").0.unwrap_err();
    assert_eq!(e.ename, "UsageError");
    assert!(e.evalue.contains("did you mean reaching?"), "{}", e.evalue);
    let e = run(&mut s, "%absint octagon foo").0.unwrap_err();
    assert!(
        e.evalue.contains("zero, sign, constant, interval"),
        "{}",
        e.evalue
    );
    let e = run(&mut s, "%dataflow reaching").0.unwrap_err();
    assert_eq!(e.ename, "UsageError");
    let e = run(&mut s, "%dataflow reaching fooo").0.unwrap_err();
    assert_eq!(e.ename, "NameError");
    assert!(e.evalue.contains("did you mean foo?"), "{}", e.evalue);
    let e = run(&mut s, "%%dataflow live\nbreak\n").0.unwrap_err();
    assert_eq!(e.ename, "SyntaxError");
    let (r, out) = run(&mut s, "%dataflow live foo --save live.json");
    r.expect("saves");
    let Some(Output::File { path, contents }) = out.first() else {
        panic!("{out:?}")
    };
    assert_eq!(path, "live.json");
    assert!(String::from_utf8_lossy(contents).contains("\"kind\": \"dataflow\""));
    let c = complete(&s, "%dataflow re", 12);
    assert_eq!(c.matches, ["reaching", "reaching-definitions"]);
    let c = complete(&s, "%absint in", 10);
    assert_eq!(c.matches, ["interval"]);
    let c = complete(&s, "%absint zero lo", 15);
    assert_eq!(c.matches, ["loop"]);
}
