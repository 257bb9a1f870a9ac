//! Snapshots of `%constraints`' renderings: the text table and the annotated DOT figure
//! (`UPDATE_EXPECT=1 cargo test --release --test constraints_snapshots` rewrites them).

use analysis_kernel::cancel::Cancel;
use analysis_kernel::constraints::{Analysis, Mode, Options, analyze};
use analysis_kernel::notebook::views::constraints::{dot, json, text};
use analysis_kernel::python::lower_module;
use expect_test::expect;

fn analysis(source: &str, mode: Mode) -> Analysis {
    let module = lower_module(source).expect("parses");
    let f = module.functions().next().expect("a function");
    let options = Options {
        mode,
        path_limit: 64,
        timeout_ms: 10_000,
    };
    analyze(f, &options, &Cancel::new()).expect("analysis")
}

const REASSIGN: &str = "def func(x: int, y: bool):\n    \"\"\"\n    Preconditions:\n        - x > 10\n        - a > 5\n    \"\"\"\n    if not y:\n        x = -1\n    if x < 0:\n        print(x)\n";

#[test]
fn text_of_a_reassignment() {
    expect![[r#""#]].assert_eq(&text(&analysis(REASSIGN, Mode::Precise), None));
}

#[test]
fn text_with_pythonta_rule_and_a_selected_path() {
    expect![[r#""#]].assert_eq(&text(&analysis(REASSIGN, Mode::Pyta), Some(1)));
}

#[test]
fn figure_of_a_loop() {
    let src = "def func(x: int, y: int) -> None:\n    \"\"\"\n    Preconditions:\n        - x > 5\n        - y > 10\n    \"\"\"\n    while x + y > 15:\n        x -= 1\n    if y < 3:\n        print(y)\n";
    let a = analysis(src, Mode::Precise);
    expect![[r#""#]].assert_eq(&dot(&a, None));
    expect![[r#""#]].assert_eq(&dot(&a, Some(0)));
}

#[test]
fn json_has_the_spec_fields() {
    let a = analysis(REASSIGN, Mode::Precise);
    let v = json(&a);
    for key in [
        "version",
        "kind",
        "function",
        "parameters",
        "preconditions",
        "ignored_preconditions",
        "paths",
        "edges",
        "truncated",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["kind"], "constraints");
    assert_eq!(v["parameters"]["x"], "int");
    assert_eq!(v["ignored_preconditions"][0]["text"], "a > 5");
    for p in v["paths"].as_array().unwrap() {
        for key in [
            "id",
            "nodes",
            "constraints",
            "smtlib",
            "feasible",
            "witness",
        ] {
            assert!(p.get(key).is_some(), "path lacks {key}");
        }
    }
    for e in v["edges"].as_array().unwrap() {
        for key in ["source", "target", "feasible", "paths"] {
            assert!(e.get(key).is_some(), "edge lacks {key}");
        }
    }
    expect![[r#""#]].assert_eq(&serde_json::to_string_pretty(&v["paths"][0]).unwrap());
}
