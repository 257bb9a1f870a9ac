//! `%cfg` and `%%cfg` through the cell language: outputs, JSON payload, options, errors,
//! completion.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session, complete};
use cells::{display, run};
use serde_json::Value;

fn payload(out: &[Output]) -> &Value {
    &display(out)["application/vnd.analysis-kernel.cfg+json"]
}

const DEFS: &str = "def collatz(n):\n    steps = 0\n    while n != 1:\n        if n % 2 == 0:\n            n = n // 2\n        else:\n            n = 3 * n + 1\n        steps += 1\n    return steps\n\nclass Stack:\n    def push(self, x):\n        self.items.append(x)\n    def pop(self):\n        if not self.items:\n            raise IndexError('empty')\n        return self.items.pop()\n\ndef outer(x):\n    def inner(y):\n        return y * 2\n    return inner(x)\n";

fn session() -> Session {
    let mut s = Session::default();
    let (r, _) = run(&mut s, DEFS);
    r.expect("definitions");
    s
}

#[test]
fn cfg_of_a_function_has_every_format() {
    let mut s = session();
    let (r, out) = run(&mut s, "%cfg collatz");
    r.expect("runs");
    let data = display(&out);
    for mime in [
        "text/plain",
        "text/html",
        "image/svg+xml",
        "application/vnd.analysis-kernel.cfg+json",
    ] {
        assert!(data.contains_key(mime), "{mime} missing");
    }
    let text = data["text/plain"].as_str().unwrap_or("");
    assert!(
        text.starts_with("cfg collatz (statements)\n0 [entry] L1: enter: collatz(n)"),
        "{text}"
    );
    assert!(
        text.contains("2 [condition] L3: while n != 1:\n  -> 3 [True]\n  -> 7 [False]"),
        "{text}"
    );
    let html = data["text/html"].as_str().unwrap_or("");
    assert!(
        html.contains("<svg")
            && html.contains("blue = True")
            && html.contains("grey = unreachable"),
        "{html}"
    );

    let json = payload(&out);
    assert_eq!(json["version"], 1);
    assert_eq!(json["kind"], "cfg");
    assert_eq!(json["function"], "collatz");
    assert_eq!(json["granularity"], "statement");
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "version",
            "kind",
            "function",
            "granularity",
            "nodes",
            "edges"
        ]
    );
    let node = &json["nodes"][2];
    assert_eq!(node["id"], "2");
    assert_eq!(node["kind"], "condition");
    assert_eq!(node["label"], "while n != 1:");
    assert_eq!(node["lines"], serde_json::json!([3, 3]));
    assert_eq!(node["unreachable"], false);
    assert!(node.get("calls").is_none(), "calls only with --calls");
    let node_keys: Vec<&str> = node
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(node_keys, ["id", "kind", "label", "lines", "unreachable"]);
    let edges = json["edges"].as_array().unwrap();
    assert!(edges.contains(&serde_json::json!({"source": "2", "target": "3", "label": "True"})));
    assert!(edges.contains(&serde_json::json!({"source": "0", "target": "1", "label": null})));
}

#[test]
fn same_source_gives_the_same_output() {
    let (mut a, mut b) = (session(), session());
    let (_, out_a) = run(&mut a, "%cfg collatz --blocks");
    let (_, out_b) = run(&mut b, "%cfg collatz --blocks");
    assert_eq!(display(&out_a), display(&out_b));
}

#[test]
fn blocks_and_calls_options() {
    let mut s = session();
    let (r, out) = run(&mut s, "%cfg Stack.pop --blocks --calls");
    r.expect("runs");
    let json = payload(&out);
    assert_eq!(json["granularity"], "block");
    assert_eq!(json["function"], "Stack.pop");
    let nodes = json["nodes"].as_array().unwrap();
    assert!(nodes.iter().all(|n| n.get("calls").is_some()));
    assert!(
        nodes
            .iter()
            .any(|n| n["calls"] == serde_json::json!(["IndexError"]))
    );
    let edges = json["edges"].as_array().unwrap();
    let raise = edges
        .iter()
        .find(|e| e["label"] == "exception")
        .expect("an exception edge");
    assert_eq!(raise["exceptions"], serde_json::json!(["IndexError"]));
    let text = display(&out)["text/plain"].as_str().unwrap_or("");
    assert!(text.contains("calls: self.items.pop"), "{text}");
}

#[test]
fn nested_functions_classes_and_all() {
    let mut s = session();
    let (r, out) = run(&mut s, "%cfg outer.inner");
    r.expect("nested function");
    assert_eq!(payload(&out)["function"], "outer.inner");

    let (r, out) = run(&mut s, "%cfg Stack");
    r.expect("a class draws its methods");
    let names: Vec<&Value> = payload(&out)["cfgs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["function"])
        .collect();
    assert_eq!(names, ["Stack.pop", "Stack.push"]);

    let (r, out) = run(&mut s, "%cfg");
    r.expect("every function");
    let json = payload(&out);
    assert_eq!(json["cfgs"].as_array().map(Vec::len), Some(4));
    let dot = display(&out)["text/html"].as_str().unwrap_or("");
    assert!(dot.contains("cluster"), "one cluster per function");
}

#[test]
fn cell_form_draws_a_snippet_with_cell_lines() {
    let mut s = Session::default();
    let (r, out) = run(&mut s, "%%cfg\nx = 1\nwhile x < 10:\n    x = x * 2\n");
    r.expect("runs");
    let json = payload(&out);
    assert_eq!(json["function"], "<module>");
    let while_node = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["label"] == "while x < 10:")
        .expect("the loop");
    assert_eq!(while_node["lines"], serde_json::json!([3, 3]));
    assert!(s.function("x").is_none(), "%%cfg defines nothing");
}

#[test]
fn errors_name_the_problem() {
    let mut s = session();
    let e = run(&mut s, "%cfg colatz").0.unwrap_err();
    assert_eq!(e.ename, "NameError");
    assert!(e.evalue.contains("did you mean collatz"), "{}", e.evalue);
    let e = run(&mut s, "%%cfg\nx = 1\nbreak\n").0.unwrap_err();
    assert_eq!(e.ename, "SyntaxError");
    assert!(
        e.evalue.contains("'break' outside loop (line 3)"),
        "{}",
        e.evalue
    );
    assert!(e.traceback[0].contains("Cell line 3"), "{:?}", e.traceback);
    let e = run(&mut s, "%%cfg\nif x\n").0.unwrap_err();
    assert_eq!(e.ename, "SyntaxError");
    let e = run(&mut s, "%cfg --block collatz").0.unwrap_err();
    assert!(e.evalue.contains("did you mean --blocks"), "{}", e.evalue);
    let e = run(&mut Session::default(), "%cfg").0.unwrap_err();
    assert_eq!(e.ename, "UsageError");
}

#[test]
fn save_writes_the_chosen_format() {
    let mut s = session();
    let (r, out) = run(&mut s, "%cfg collatz --save g.dot");
    r.expect("runs");
    let Output::File { path, contents } = &out[0] else {
        panic!("{out:?}")
    };
    assert_eq!(path, "g.dot");
    let dot = String::from_utf8_lossy(contents);
    assert!(dot.starts_with("digraph cfg {"), "{dot}");
    assert!(
        dot.contains("shape=diamond") && dot.contains("peripheries=2"),
        "{dot}"
    );
    assert!(dot.contains("c0_2 -> c0_3 [label=\"True\" color="), "{dot}");
    assert!(
        dot.contains("c0_2 -> c0_7 [label=\"False\" color="),
        "{dot}"
    );
}

#[test]
fn completion_knows_the_command_and_options() {
    let s = session();
    let c = complete(&s, "%cf", 3);
    assert!(c.matches.contains(&"%cfg".to_string()), "{:?}", c.matches);
    let c = complete(&s, "%%cf", 4);
    assert!(c.matches.contains(&"%%cfg".to_string()), "{:?}", c.matches);
    let c = complete(&s, "%cfg --b", 8);
    assert_eq!(c.matches, ["--blocks"]);
    let c = complete(&s, "%cfg col", 8);
    assert_eq!(c.matches, ["collatz"]);
}

#[test]
fn exceptions_option_draws_implicit_exceptions_everywhere() {
    let mut s = session();
    let count = |out: &[Output]| {
        payload(out)["edges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["label"] == "exception")
            .count()
    };
    let (_, plain) = run(&mut s, "%cfg collatz");
    assert_eq!(count(&plain), 0, "no try, no raise: no exception edges");
    let (r, all) = run(&mut s, "%cfg collatz --exceptions");
    r.expect("runs");
    let edges = payload(&all)["edges"].as_array().unwrap().clone();
    assert!(
        edges.contains(&serde_json::json!({
            "source": "3", "target": "8", "label": "exception",
            "exceptions": ["TypeError", "ZeroDivisionError"]
        })),
        "{edges:?}"
    );
    assert!(count(&all) >= 4);
}
