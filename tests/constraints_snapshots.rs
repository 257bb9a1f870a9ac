//! Snapshots of `%constraints`' renderings: the text table and the annotated DOT figure
//! (`UPDATE_EXPECT=1 cargo test --release --test constraints_snapshots` rewrites them).

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::cancel::Cancel;
use analysis_kernel::constraints::{Analysis, Mode, Options, analyze};
use analysis_kernel::python::lower_module;
use analysis_kernel::render::constraints::{dot, json, text};
use expect_test::expect;

fn analysis(source: &str, mode: Mode) -> Analysis {
    let module = lower_module(source).expect("parses");
    let f = module.functions().next().expect("a function");
    let options = Options {
        mode,
        path_limit: 64,
        timeout_ms: 10_000,
        given: Vec::new(),
    };
    analyze(f, &options, &Cancel::new()).expect("analysis")
}

const REASSIGN: &str = "def func(x: int, y: bool):\n    \"\"\"\n    Preconditions:\n        - x > 10\n        - a > 5\n    \"\"\"\n    if not y:\n        x = -1\n    if x < 0:\n        print(x)\n";

#[test]
fn text_of_a_reassignment() {
    expect![[r#"
        constraints of func(x, y) (SSA versions for reassigned variables)
        parameters: x: int; y: bool
        preconditions: x > 10
          ignored: a > 5 (name 'a' has no known type (line 1, column 1))

        paths: 4 in all, 4 listed
        id  nodes        feasible  witness        constraints
        --  -----------  --------  -------------  ---------------------------------------
        0   0 1 2 3 4 5  yes       x=11, y=False  x > 10; not y; x_1 == -1; x_1 < 0
        1   0 1 2 3 5    no        -              x > 10; not y; x_1 == -1; not (x_1 < 0)
        2   0 1 3 4 5    no        -              x > 10; y; x < 0
        3   0 1 3 5      yes       x=11, y=True   x > 10; y; not (x < 0)

        edges:
        edge    label  feasible  paths    adds
        ------  -----  --------  -------  -------------
        0 -> 1         yes       0,1,2,3
        1 -> 2  True   yes       0,1      not y
        1 -> 3  False  yes       2,3      y
        2 -> 3         yes       0,1      x_1 == -1
        3 -> 4  True   yes       0,2      x_5 < 0
        3 -> 5  False  yes       1,3      not (x_5 < 0)
        4 -> 5         yes       0,2

        merges (SSA φ: the value of the way in taken):
          x_5 = x from 1, x_1 from 2 (node 3)

        conditions:
          L7 not y: can be True and False
          L9 x < 0: can be True and False"#]]
    .assert_eq(&text(&analysis(REASSIGN, Mode::Precise), None));
}

#[test]
fn text_with_pythonta_rule_and_a_selected_path() {
    expect![[r#"
        constraints of func(x, y) (PythonTA's rule: constraints on reassigned parameters dropped)
        parameters: x: int; y: bool
        preconditions: x > 10
          ignored: a > 5 (name 'a' has no known type (line 1, column 1))

        paths: 4 in all, 4 listed
        id  nodes        feasible  witness        constraints
        --  -----------  --------  -------------  ----------------------
        0   0 1 2 3 4 5  yes       x=11, y=False  x > 10; not y
        1   0 1 2 3 5    yes       x=11, y=False  x > 10; not y
        2   0 1 3 4 5    no        -              x > 10; y; x < 0
        3   0 1 3 5      yes       x=11, y=True   x > 10; y; not (x < 0)

        edges:
        edge    label  feasible  paths    adds
        ------  -----  --------  -------  -----------
        0 -> 1         yes       0,1,2,3
        1 -> 2  True   yes       0,1      not y
        1 -> 3  False  yes       2,3      y
        2 -> 3         yes       0,1
        3 -> 4  True   yes       0,2      x < 0
        3 -> 5  False  yes       1,3      not (x < 0)
        4 -> 5         yes       0,2

        conditions:
          L7 not y: can be True and False
          L9 x < 0: can be True and False

        path 1, edge by edge:
          0 -> 1: x > 10
          1 -> 2 [True]: x > 10; not y
          2 -> 3: not y
          3 -> 5 [False]: not y"#]]
    .assert_eq(&text(&analysis(REASSIGN, Mode::Pyta), Some(1)));
}

#[test]
fn figure_of_a_loop() {
    let src = "def func(x: int, y: int) -> None:\n    \"\"\"\n    Preconditions:\n        - x > 5\n        - y > 10\n    \"\"\"\n    while x + y > 15:\n        x -= 1\n    if y < 3:\n        print(y)\n";
    let a = analysis(src, Mode::Precise);
    expect![[r##"
        digraph cfg {
          graph [fontname="Helvetica,Arial,sans-serif" fontsize=12 nodesep=0.3 ranksep=0.35];
          node [fontname="Menlo,Consolas,DejaVu Sans Mono,monospace" fontsize=11 style=filled fillcolor=white margin="0.12,0.06"];
          edge [fontname="Helvetica,Arial,sans-serif" fontsize=10];
          c0_0 [label="1: enter: func(x, y)" shape=oval peripheries=2];
          c0_1 [label="7: while x + y > 15:" shape=diamond];
          c0_2 [label="8: x -= 1" shape=box];
          c0_3 [label="9: if y < 3:" shape=diamond];
          c0_4 [label="10: print(y)" shape=box];
          c0_5 [label="10: exit: func(x, y)" shape=oval peripheries=2];
          c0_0 -> c0_1 [tooltip="0 -> 1: feasible yes\npath 0: x > 5; y > 10\npath 1: x > 5; y > 10\npath 2: x > 5; y > 10" labeltooltip="0 -> 1: feasible yes\npath 0: x > 5; y > 10\npath 1: x > 5; y > 10\npath 2: x > 5; y > 10"];
          c0_1 -> c0_2 [label="True\nx + y > 15" color="#1f5fbf" fontcolor="#1f5fbf" tooltip="1 -> 2: feasible yes\npath 0: x > 5; y > 10; x + y > 15" labeltooltip="1 -> 2: feasible yes\npath 0: x > 5; y > 10; x + y > 15"];
          c0_1 -> c0_3 [label="False\nnot (x + y > 15)" color="#c62828" fontcolor="#c62828" tooltip="1 -> 3: feasible yes\npath 1: x > 5; y > 10; not (x + y > 15)\npath 2: x > 5; y > 10; not (x + y > 15)" labeltooltip="1 -> 3: feasible yes\npath 1: x > 5; y > 10; not (x + y > 15)\npath 2: x > 5; y > 10; not (x + y > 15)"];
          c0_2 -> c0_1 [label="x_1 == x - 1" tooltip="2 -> 1: feasible yes\npath 0: x > 5; y > 10; x + y > 15; x_1 == x - 1" labeltooltip="2 -> 1: feasible yes\npath 0: x > 5; y > 10; x + y > 15; x_1 == x - 1"];
          c0_3 -> c0_4 [label="True\ny < 3" color="#bdbdbd" fontcolor="#9e9e9e" style=dashed tooltip="3 -> 4: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3" labeltooltip="3 -> 4: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3"];
          c0_3 -> c0_5 [label="False\nnot (y < 3)" color="#c62828" fontcolor="#c62828" tooltip="3 -> 5: feasible yes\npath 2: x > 5; y > 10; not (x + y > 15); not (y < 3)" labeltooltip="3 -> 5: feasible yes\npath 2: x > 5; y > 10; not (x + y > 15); not (y < 3)"];
          c0_4 -> c0_5 [color="#bdbdbd" fontcolor="#9e9e9e" style=dashed tooltip="4 -> 5: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3" labeltooltip="4 -> 5: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3"];
          c0_4 [fillcolor="#eeeeee" fontcolor="#9e9e9e" color="#bdbdbd"];
        }
    "##]].assert_eq(&dot(&a, None));
    expect![[r##"
        digraph cfg {
          graph [fontname="Helvetica,Arial,sans-serif" fontsize=12 nodesep=0.3 ranksep=0.35];
          node [fontname="Menlo,Consolas,DejaVu Sans Mono,monospace" fontsize=11 style=filled fillcolor=white margin="0.12,0.06"];
          edge [fontname="Helvetica,Arial,sans-serif" fontsize=10];
          c0_0 [label="1: enter: func(x, y)" shape=oval peripheries=2];
          c0_1 [label="7: while x + y > 15:" shape=diamond];
          c0_2 [label="8: x -= 1" shape=box];
          c0_3 [label="9: if y < 3:" shape=diamond];
          c0_4 [label="10: print(y)" shape=box];
          c0_5 [label="10: exit: func(x, y)" shape=oval peripheries=2];
          c0_0 -> c0_1 [label="x > 5\ny > 10" penwidth=2.5 color="#2e7d32" fontcolor="#2e7d32" tooltip="0 -> 1: feasible yes\npath 0: x > 5; y > 10\npath 1: x > 5; y > 10\npath 2: x > 5; y > 10" labeltooltip="0 -> 1: feasible yes\npath 0: x > 5; y > 10\npath 1: x > 5; y > 10\npath 2: x > 5; y > 10"];
          c0_1 -> c0_2 [label="True\nx + y > 15" penwidth=2.5 color="#2e7d32" fontcolor="#2e7d32" tooltip="1 -> 2: feasible yes\npath 0: x > 5; y > 10; x + y > 15" labeltooltip="1 -> 2: feasible yes\npath 0: x > 5; y > 10; x + y > 15"];
          c0_1 -> c0_3 [label="False" color="#bdbdbd" fontcolor="#9e9e9e" tooltip="1 -> 3: feasible yes\npath 1: x > 5; y > 10; not (x + y > 15)\npath 2: x > 5; y > 10; not (x + y > 15)" labeltooltip="1 -> 3: feasible yes\npath 1: x > 5; y > 10; not (x + y > 15)\npath 2: x > 5; y > 10; not (x + y > 15)"];
          c0_2 -> c0_1 [label="x_1 == x - 1" penwidth=2.5 color="#2e7d32" fontcolor="#2e7d32" tooltip="2 -> 1: feasible yes\npath 0: x > 5; y > 10; x + y > 15; x_1 == x - 1" labeltooltip="2 -> 1: feasible yes\npath 0: x > 5; y > 10; x + y > 15; x_1 == x - 1"];
          c0_3 -> c0_4 [label="True" color="#bdbdbd" fontcolor="#9e9e9e" tooltip="3 -> 4: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3" labeltooltip="3 -> 4: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3"];
          c0_3 -> c0_5 [label="False" color="#bdbdbd" fontcolor="#9e9e9e" tooltip="3 -> 5: feasible yes\npath 2: x > 5; y > 10; not (x + y > 15); not (y < 3)" labeltooltip="3 -> 5: feasible yes\npath 2: x > 5; y > 10; not (x + y > 15); not (y < 3)"];
          c0_4 -> c0_5 [color="#bdbdbd" fontcolor="#9e9e9e" tooltip="4 -> 5: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3" labeltooltip="4 -> 5: feasible no\npath 1: x > 5; y > 10; not (x + y > 15); y < 3"];
          c0_0 [penwidth=2 color="#2e7d32"];
          c0_1 [penwidth=2 color="#2e7d32"];
          c0_2 [penwidth=2 color="#2e7d32"];
          c0_4 [fillcolor="#eeeeee" fontcolor="#9e9e9e" color="#bdbdbd"];
        }
    "##]].assert_eq(&dot(&a, Some(0)));
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
    expect![[r#"
        {
          "id": 0,
          "nodes": [
            "0",
            "1",
            "2",
            "3",
            "4",
            "5"
          ],
          "constraints": [
            "x > 10",
            "not y",
            "x_1 == -1",
            "x_1 < 0"
          ],
          "smtlib": "(declare-const x Int)\n(declare-const x@1 Int)\n(declare-const y Bool)\n(assert (> x 10))\n(assert (not y))\n(assert (= x@1 (- 1)))\n(assert (< x@1 0))",
          "feasible": true,
          "witness": {
            "x": 11,
            "y": false
          },
          "end": "exit",
          "edge_constraints": [
            [
              "x > 10"
            ],
            [
              "x > 10",
              "not y"
            ],
            [
              "x > 10",
              "not y",
              "x_1 == -1"
            ],
            [
              "x > 10",
              "not y",
              "x_1 == -1",
              "x_1 < 0"
            ],
            [
              "x > 10",
              "not y",
              "x_1 == -1",
              "x_1 < 0"
            ]
          ]
        }"#]].assert_eq(&serde_json::to_string_pretty(&v["paths"][0]).unwrap());
}

mod notebook {
    use super::cells::{display, run};
    use analysis_kernel::notebook::Session;

    const MIME: &str = "application/vnd.analysis-kernel.constraints+json";

    fn session() -> Session {
        let mut s = Session::default();
        let (r, _) = run(&mut s, super::REASSIGN);
        r.expect("definition");
        s
    }

    #[test]
    fn the_command_shows_every_format() {
        let mut s = session();
        let (r, out) = run(&mut s, "%constraints func --path 0");
        r.expect("runs");
        let data = display(&out);
        for mime in ["text/plain", "text/html", MIME] {
            assert!(data.contains_key(mime), "{mime} missing");
        }
        let svg = data["image/svg+xml"].as_str().expect("a figure");
        // Graphviz writes `-` as `&#45;` in SVG text.
        assert!(
            svg.contains("x_1 == &#45;1"),
            "the figure shows the constraints: {svg}"
        );
        let text = data["text/plain"].as_str().unwrap_or_default();
        assert!(text.contains("path 0, edge by edge:"), "{text}");
        assert_eq!(data[MIME]["mode"], "precise");
        assert_eq!(data[MIME]["paths"][0]["witness"]["x"], 11);
    }

    #[test]
    fn options_limit_and_switch_rules() {
        let mut s = session();
        let (r, out) = run(&mut s, "%constraints func --pyta --paths 1");
        r.expect("runs");
        let v = &display(&out)[MIME];
        assert_eq!(v["mode"], "pyta");
        assert_eq!(v["truncated"], true);
        assert_eq!(v["paths"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["path_count"], 4);
    }

    #[test]
    fn misuse_is_reported() {
        let mut s = session();
        let errors: Vec<(String, String)> = [
            "%constraints",
            "%constraints nosuch",
            "%constraints func --path 9",
            "%constraints func --paths many",
        ]
        .iter()
        .map(|cmd| {
            let (r, _) = run(&mut s, cmd);
            let e = r.expect_err(cmd);
            (e.ename, e.evalue)
        })
        .collect();
        let names: Vec<&str> = errors.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["UsageError", "NameError", "UsageError", "UsageError"]
        );
        assert!(errors[2].1.contains("4 listed paths"), "{:?}", errors[2]);
    }
}

const CHAR_CLASSES: &str = "def kind(s: str) -> str:\n    if s.isdigit():\n        return 'number'\n    if s.lower() == 'yes':\n        return 'yes'\n    return 'other'\n";

#[test]
fn text_of_ascii_string_methods() {
    expect![[r#"
        constraints of kind(s) (SSA versions for reassigned variables)
        parameters: s: str
        note: strings read by .isdigit()/.isalpha()/.isalnum()/.isspace()/.isupper()/.islower()/.lower()/.upper()/.swapcase()/.capitalize()/.title() are taken to be ASCII
        preconditions: (none)

        paths: 3 in all, 3 listed
        id  nodes      feasible  witness  constraints
        --  ---------  --------  -------  -----------------------------------------
        0   0 1 2 6    yes       s='0'    s.isdigit()
        1   0 1 3 4 6  yes       s='yES'  not s.isdigit(); s.lower() == 'yes'
        2   0 1 3 5 6  yes       s=''     not s.isdigit(); not (s.lower() == 'yes')

        edges:
        edge    label  feasible  paths  adds
        ------  -----  --------  -----  ------------------------
        0 -> 1         yes       0,1,2
        1 -> 2  True   yes       0      s.isdigit()
        1 -> 3  False  yes       1,2    not s.isdigit()
        2 -> 6         yes       0
        3 -> 4  True   yes       1      s.lower() == 'yes'
        3 -> 5  False  yes       2      not (s.lower() == 'yes')
        4 -> 6         yes       1
        5 -> 6         yes       2

        conditions:
          L2 s.isdigit(): can be True and False
          L4 s.lower() == 'yes': can be True and False"#]].assert_eq(&text(&analysis(CHAR_CLASSES, Mode::Precise), None));
}

const STR_METHODS: &str = "def qty(text: str) -> int:\n    t = text.strip()\n    if t.count(',') > 0:\n        return -1\n    return int(t)\n";

#[test]
fn text_of_str_methods_and_int() {
    expect![[r#"
        constraints of qty(text) (SSA versions for reassigned variables)
        parameters: text: str
        note: int(s) is taken to read an ASCII s of at most 4300 characters, str(n) an n under 4300 digits, chr(i) an i outside 0x30000..0x10FFFF
        preconditions: (none)

        paths: 2 in all, 2 listed
        id  nodes      feasible  witness   constraints
        --  ---------  --------  --------  ---------------------------------------------------------------
        0   0 1 2 3 5  yes       text=','  t_1 == text.strip(); t_1.count(',') > 0
        1   0 1 2 4 5  yes       text='0'  t_1 == text.strip(); not (t_1.count(',') > 0); int_accepts(t_1)

        edges:
        edge    label  feasible  paths  adds
        ------  -----  --------  -----  ------------------------
        0 -> 1         yes       0,1
        1 -> 2         yes       0,1    t_1 == text.strip()
        2 -> 3  True   yes       0      t_1.count(',') > 0
        2 -> 4  False  yes       1      not (t_1.count(',') > 0)
        3 -> 5         yes       0
        4 -> 5         yes       1      int_accepts(t_1)

        conditions:
          L3 t.count(',') > 0: can be True and False"#]].assert_eq(&text(&analysis(STR_METHODS, Mode::Precise), None));
}
