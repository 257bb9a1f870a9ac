//! The symbolic-execution book's cases (`tests/fixtures/corpus/se_book/key_cases.json`) and the
//! leaves parsed from its figures (`set_examples.json`, where the program is in scope), run
//! through `%set`/`%check`: the same leaves up to logical equivalence of path conditions,
//! outcomes and stores, proved with the solver.
//!
//! Corrections where the book is wrong, stated here and tested:
//! - bound leaves are explicit: `find` with a symbolic haystack at unroll 2 has the book's 5
//!   leaves and a sixth, `bound`, for the paths the book drops (haystack longer than 2,
//!   needle in neither of the first two places);
//! - `%` follows Python (the divisor's sign), where the book used Z3's Euclidean `%`
//!   (`7 % -2` is `-1` in Python, `1` in the book);
//! - `x // 0` raises "integer division or modulo by zero" (CPython's message for ints),
//!   where the book wrote "division by zero".

#[path = "common/cells.rs"]
mod cells;

use std::path::PathBuf;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
use analysis_kernel::python::{lower_expression, lower_module};
use analysis_kernel::symbolic::{CompareOp, Env, Solver, Term, translate};
use analysis_kernel::symexec::{
    Leaf, Options, Outcome, Program, Tree, Value, execute, parse_specs,
};
use serde_json::Value as Json;

fn corpus(file: &str) -> Json {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus/se_book")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn key_case(id: &str) -> Json {
    corpus("key_cases.json")
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["id"] == id).cloned())
        .unwrap_or_else(|| panic!("no key case {id}"))
}

// ---- the book's Z3 text, as Python ----

/// Translates the book's Z3 pretty-printed formulas (`¬(Length(h) ≤ 0)`, `2·y`,
/// `If(c, a, b)`, `seq.nth_i(h, 0)`, `Concat(Unit(1), Unit(2))`) into Python source.
struct Z3Text {
    chars: Vec<char>,
    at: usize,
}

impl Z3Text {
    fn new(text: &str) -> Z3Text {
        Z3Text {
            chars: text.chars().collect(),
            at: 0,
        }
    }

    fn skip(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip();
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) {
        assert!(
            self.eat(c),
            "expected {c:?} at {} in {:?}",
            self.at,
            self.chars.iter().collect::<String>()
        );
    }

    fn word(&mut self) -> String {
        self.skip();
        let start = self.at;
        while self
            .chars
            .get(self.at)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '.' || *c == '!')
        {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    fn or(&mut self) -> String {
        let mut parts = vec![self.and()];
        while self.eat('∨') {
            parts.push(self.and());
        }
        join(parts, "or")
    }

    fn and(&mut self) -> String {
        let mut parts = vec![self.not()];
        while self.eat('∧') {
            parts.push(self.not());
        }
        join(parts, "and")
    }

    fn not(&mut self) -> String {
        if self.eat('¬') {
            return format!("(not {})", self.not());
        }
        self.compare()
    }

    fn compare(&mut self) -> String {
        let left = self.sum();
        let op = match self.peek() {
            Some('=') => "==",
            Some('≠') => "!=",
            Some('≤') => "<=",
            Some('≥') => ">=",
            Some('<') => "<",
            Some('>') => ">",
            _ => return left,
        };
        self.at += 1;
        let right = self.sum();
        format!("({left} {op} {right})")
    }

    fn sum(&mut self) -> String {
        let mut left = self.product();
        loop {
            let op = match self.peek() {
                Some('+') => "+",
                Some('-') => "-",
                _ => return left,
            };
            self.at += 1;
            left = format!("({left} {op} {})", self.product());
        }
    }

    fn product(&mut self) -> String {
        let mut left = self.unary();
        loop {
            let op = match self.peek() {
                Some('·') => "*",
                Some('/') => "/",
                Some('%') => "%",
                _ => return left,
            };
            self.at += 1;
            left = format!("({left} {op} {})", self.unary());
        }
    }

    fn unary(&mut self) -> String {
        if self.eat('-') {
            return format!("(-{})", self.unary());
        }
        self.atom()
    }

    fn args(&mut self) -> Vec<String> {
        self.expect('(');
        let mut out = vec![self.or()];
        while self.eat(',') {
            out.push(self.or());
        }
        self.expect(')');
        out
    }

    fn atom(&mut self) -> String {
        if self.eat('(') {
            let inner = self.or();
            self.expect(')');
            return inner;
        }
        let w = self.word();
        assert!(!w.is_empty(), "unexpected {:?} at {}", self.peek(), self.at);
        if self.peek() != Some('(') {
            return w;
        }
        let a = self.args();
        match (w.as_str(), a.as_slice()) {
            ("Length", [s]) => format!("len({s})"),
            ("If", [c, x, y]) => format!("({x} if {c} else {y})"),
            ("seq.nth_i" | "seq.nth_u" | "Nth", [s, i]) => format!("{s}[{i}]"),
            ("Unit", [x]) => format!("({x},)"),
            ("Concat", [x, y]) => format!("({x} + {y})"),
            ("ToReal", [x]) => format!("float({x})"),
            // Z3's to_int is the floor.
            ("ToInt", [x]) => format!("int({x} // 1)"),
            other => panic!("unknown Z3 function {other:?}"),
        }
    }

    /// `({c1, c2}, ABRUPT, {k: v})`: constraints, the returned value (if any), the store.
    fn leaf(&mut self) -> (Vec<String>, Option<String>, Vec<(String, String)>) {
        self.expect('(');
        self.expect('{');
        let mut pc = Vec::new();
        if !self.eat('}') {
            pc.push(self.or());
            while self.eat(',') {
                pc.push(self.or());
            }
            self.expect('}');
        }
        self.expect(',');
        let abrupt = self.word();
        let returned = match abrupt.as_str() {
            "None" => None,
            "SymbolicReturn" => Some(self.args().remove(0)),
            other => panic!("abrupt completion {other}"),
        };
        self.expect(',');
        self.expect('{');
        let mut store = Vec::new();
        if !self.eat('}') {
            loop {
                let k = self.word();
                self.expect(':');
                store.push((k, self.or()));
                if !self.eat(',') {
                    break;
                }
            }
            self.expect('}');
        }
        self.expect(')');
        (pc, returned, store)
    }
}

fn join(parts: Vec<String>, op: &str) -> String {
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    format!("({})", parts.join(&format!(" {op} ")))
}

// ---- comparing leaves with the solver ----

fn term(python: &str, env: &Env) -> Term {
    let e = lower_expression(python).unwrap_or_else(|err| panic!("{python}: {err}"));
    translate(&e, env)
        .unwrap_or_else(|err| panic!("{python}: {err}"))
        .value
}

fn holds(solver: &mut Solver, t: &Term) -> bool {
    !solver
        .is_satisfiable(&Term::not(t.clone()).unwrap())
        .unwrap()
}

/// `a` and `b` are equal wherever `pc` holds.
fn equal_under(solver: &mut Solver, pc: &Term, a: &Term, b: &Term) -> bool {
    let eq = Term::compare(CompareOp::Eq, a.clone(), b.clone()).unwrap();
    holds(
        solver,
        &Term::or(vec![Term::not(pc.clone()).unwrap(), eq]).unwrap(),
    )
}

fn equivalent(solver: &mut Solver, a: &Term, b: &Term) -> bool {
    let ab = Term::or(vec![Term::not(a.clone()).unwrap(), b.clone()]).unwrap();
    let ba = Term::or(vec![Term::not(b.clone()).unwrap(), a.clone()]).unwrap();
    holds(solver, &ab) && holds(solver, &ba)
}

/// An expected leaf in Python: constraints, returned value, store.
struct Expected {
    pc: Vec<String>,
    returned: Option<String>,
    store: Vec<(String, String)>,
}

fn expected_from_book(texts: &[&str]) -> Vec<Expected> {
    texts
        .iter()
        .map(|t| {
            let (pc, returned, store) = Z3Text::new(t).leaf();
            Expected {
                pc,
                returned,
                store,
            }
        })
        .collect()
}

/// Finds, for every expected leaf, the one leaf of `tree` with an equivalent path condition,
/// and checks its outcome and store; returns the leaves matched.
fn match_leaves<'t>(tree: &'t Tree, env: &Env, expected: &[Expected]) -> Vec<&'t Leaf> {
    let mut solver = Solver::default();
    let mut matched = Vec::new();
    for e in expected {
        let pcs: Vec<Term> = e.pc.iter().map(|c| term(c, env)).collect();
        let pc = Term::and(pcs).unwrap();
        let candidates: Vec<&Leaf> = tree
            .leaves
            .iter()
            .filter(|l| equivalent(&mut solver, &l.path_condition, &pc))
            .collect();
        assert_eq!(
            candidates.len(),
            1,
            "expected leaf {:?}: leaves with an equivalent path condition: {}",
            e.pc,
            candidates.len()
        );
        let leaf = candidates[0];
        match (&e.returned, &leaf.outcome) {
            (Some(v), Outcome::Return(Value::Term(ours))) => {
                assert!(
                    equal_under(&mut solver, &pc, ours, &term(v, env)),
                    "return {v} vs {ours}"
                );
            }
            (None, Outcome::Normal) => {}
            (want, got) => panic!("outcome: expected return {want:?}, got {got:?}"),
        }
        let store = &tree.nodes[leaf.node].store;
        for (name, value) in &e.store {
            let Some(Value::Term(ours)) =
                store.iter().find(|(n, _)| **n == **name).map(|(_, v)| &**v)
            else {
                panic!("{name} missing from the store {store:?}");
            };
            assert!(
                equal_under(&mut solver, &pc, ours, &term(value, env)),
                "{name}: {value} vs {ours}"
            );
        }
        matched.push(leaf);
    }
    matched
}

fn tree_of(program_text: &str, inputs: &str, unroll: u64) -> (Program, Tree) {
    let module = lower_module(program_text).unwrap();
    let words: Vec<String> = inputs.split_whitespace().map(str::to_string).collect();
    let program = Program::snippet(&module, [], &parse_specs(&words).unwrap()).unwrap();
    let tree = execute(
        &program,
        &Options {
            unroll,
            ..Options::default()
        },
        &Cancel::new(),
    )
    .unwrap();
    (program, tree)
}

/// The inputs of a key case as `ARG:TYPE` words (`tuple (Seq Int)` is a tuple of ints).
fn inputs_of(case: &Json) -> String {
    case["symbolic_inputs"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    format!(
                        "{k}:{}",
                        v.as_str()
                            .unwrap_or("int")
                            .split_whitespace()
                            .next()
                            .unwrap_or("int")
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn texts(v: &Json) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

// ---- key cases ----

#[test]
fn abs_double_has_the_books_two_leaves() {
    let case = key_case("abs_double");
    let (program, tree) = tree_of(case["program"].as_str().unwrap(), &inputs_of(&case), 4);
    let expected = expected_from_book(&texts(&case["expected_leaves"]));
    let matched = match_leaves(&tree, &program.input_env, &expected);
    assert_eq!(matched.len(), tree.leaves.len());
    // The shape: root `x = 2 * y`, `if x < 0:`, `x = -x`, two leaves.
    assert_eq!(tree.nodes.len(), 5);
    assert_eq!(&*tree.nodes[0].statement, "x = 2 * y");
    assert_eq!(&*tree.nodes[1].statement, "if x < 0:");
}

#[test]
fn find_with_a_concrete_tuple_has_the_books_five_leaves() {
    let case = key_case("find_concrete_tuple_symbolic_needle");
    // Unbounded in the book: any bound above the tuple's length gives the same tree.
    let (program, tree) = tree_of(case["program"].as_str().unwrap(), &inputs_of(&case), 10);
    let expected = expected_from_book(&texts(&case["expected_leaves"]));
    assert_eq!(expected.len(), 5);
    match_leaves(&tree, &program.input_env, &expected);
    assert_eq!(tree.leaves.len(), 5);
    assert_eq!(tree.cut_paths(), 0);
    // Transparent calls: the callee's statements are in the tree, under the call.
    assert!(
        tree.nodes
            .iter()
            .any(|n| n.frame.as_deref() == Some("find"))
    );
}

#[test]
fn find_with_a_symbolic_haystack_at_unroll_2_makes_the_cut_path_explicit() {
    let case = key_case("find_body_symbolic_haystack_bound2");
    let unroll = case["loop_unrolling_threshold"].as_u64().unwrap();
    let (program, tree) = tree_of(case["program"].as_str().unwrap(), &inputs_of(&case), unroll);
    let expected = expected_from_book(&texts(&case["expected_leaves"]));
    assert_eq!(expected.len(), 5);
    let matched = match_leaves(&tree, &program.input_env, &expected);
    // Correction: the sixth leaf is the path the book drops.
    assert_eq!(tree.leaves.len(), 6);
    let bound: Vec<&Leaf> = tree
        .leaves
        .iter()
        .filter(|l| matches!(l.outcome, Outcome::Bound(_)))
        .collect();
    assert_eq!(bound.len(), 1);
    assert!(!matched.iter().any(|l| l.node == bound[0].node));
    let env = &program.input_env;
    let dropped = term(
        "len(haystack) > 2 and haystack[0] != needle and haystack[1] != needle",
        env,
    );
    assert!(equivalent(
        &mut Solver::default(),
        &bound[0].path_condition,
        &dropped
    ));
}

#[test]
fn floor_division_is_pythons_and_modulo_corrects_the_book() {
    let case = key_case("floor_division_semantics");
    assert_eq!(case["program"], "x // y");
    let (program, tree) = tree_of("r = x // y\n", "x:int y:int", 4);
    let env = &program.input_env;
    let mut solver = Solver::default();
    let ok = tree
        .leaves
        .iter()
        .find(|l| l.outcome == Outcome::Normal)
        .unwrap();
    assert!(equivalent(
        &mut solver,
        &ok.path_condition,
        &term("y != 0", env)
    ));
    let r = tree.nodes[ok.node]
        .store
        .iter()
        .find(|(n, _)| &**n == "r")
        .map(|(_, v)| (**v).clone());
    let Some(Value::Term(r)) = r else { panic!() };
    // The book's term for //, ToInt(ToReal(x)/ToReal(y)), is right: Z3's to_int floors.
    let book = term(&Z3Text::new("ToInt(ToReal(x)/ToReal(y))").or(), env);
    assert!(equal_under(&mut solver, &ok.path_condition, &r, &book));
    let err = tree
        .leaves
        .iter()
        .find(|l| matches!(l.outcome, Outcome::Exception(_)))
        .unwrap();
    assert!(equivalent(
        &mut solver,
        &err.path_condition,
        &term("y == 0", env)
    ));
    let Outcome::Exception(e) = &err.outcome else {
        panic!()
    };
    assert_eq!(
        e.to_string(),
        "ZeroDivisionError: integer division or modulo by zero"
    );

    // The book's % is Z3's Euclidean modulo; ours is Python's. They differ for y < 0.
    let (program, tree) = tree_of("r = x % y\n", "x:int y:int", 4);
    let env = &program.input_env;
    let ok = tree
        .leaves
        .iter()
        .find(|l| l.outcome == Outcome::Normal)
        .unwrap();
    let Some(Value::Term(ours)) = tree.nodes[ok.node]
        .store
        .iter()
        .find(|(n, _)| &**n == "r")
        .map(|(_, v)| (**v).clone())
    else {
        panic!()
    };
    let euclid = term("x - abs(y) * (x // abs(y))", env);
    // Under the leaf's path condition (y != 0): at y = 0 both are Z3's unspecified division
    // by zero, which any model may pick apart (Z3 5.4 does, with y = 0).
    let mut solver = Solver::default();
    solver.assert(&ok.path_condition).unwrap();
    let cex = solver
        .counterexample(&ours, &euclid)
        .unwrap()
        .expect("the two modulos differ");
    let get = |n: &str| {
        cex.iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.repr())
            .unwrap()
    };
    let (x, y) = (get("x"), get("y"));
    assert!(
        y.starts_with('-'),
        "they differ only for negative divisors: x={x}, y={y}"
    );
    let python = std::process::Command::new("python3")
        .args(["-c", &format!("print({x} % {y})")])
        .output()
        .unwrap();
    let python = String::from_utf8_lossy(&python.stdout).trim().to_string();
    let mut s = Solver::default();
    s.assert(&Term::compare(CompareOp::Eq, env.get("x").unwrap().clone(), term(&x, env)).unwrap())
        .unwrap();
    s.assert(&Term::compare(CompareOp::Eq, env.get("y").unwrap().clone(), term(&y, env)).unwrap())
        .unwrap();
    assert!(
        equal_under(&mut s, &Term::bool(true), &ours, &term(&python, env)),
        "ours agrees with CPython: {x} % {y} == {python}"
    );
    assert!(
        !equal_under(&mut s, &Term::bool(true), &euclid, &term(&python, env)),
        "the book's does not"
    );
    // The same in the solver's own words: 7 % -2 is -1.
    let seven = term("7 % -2", env);
    assert!(equal_under(
        &mut Solver::default(),
        &Term::bool(true),
        &seven,
        &term("-1", env)
    ));
}

// ---- set_examples.json: the leaves of the book's figures ----

/// Figures whose program the book executed with these inputs and bound.
const FIGURES: &[(&str, u64, &str, u64)] = &[
    ("symbolic_interpreter.ipynb", 56, "x:int y:int", 4),
    ("symbolic_interpreter.ipynb", 64, "x:int", 10),
    (
        "symbolic_interpreter.ipynb",
        72,
        "needle:int haystack:tuple",
        2,
    ),
    ("transparent_function_execution.ipynb", 4, "x:int", 10),
];

#[test]
fn leaves_of_the_books_figures() {
    let records = corpus("set_examples.json");
    let mut checked = 0;
    for (notebook, cell, inputs, unroll) in FIGURES {
        let record = records
            .as_array()
            .and_then(|rs| {
                rs.iter()
                    .find(|r| r["notebook"] == *notebook && r["cell"] == *cell)
            })
            .unwrap_or_else(|| panic!("no record {notebook} {cell}"));
        let program = record["program_in_scope"]["text"].as_str().unwrap();
        let (prog, tree) = tree_of(program, inputs, *unroll);
        for svg in record["svg_files"].as_array().unwrap() {
            let leaves: Vec<&str> = svg["leaves"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|l| l["label_text"].as_str())
                .collect();
            let expected = expected_from_book(&leaves);
            let matched = match_leaves(&tree, &prog.input_env, &expected);
            let explicit_bounds = tree.cut_paths();
            assert_eq!(
                matched.len() + explicit_bounds,
                tree.leaves.len(),
                "{notebook} {cell}"
            );
            // The book's figure has one node per statement executed, like ours, except
            // that it does not draw the statements of called functions (cell 64) and
            // draws `else:` as a node of its own (cell 72).
            let nodes = svg["nodes"].as_u64().unwrap() as usize;
            assert!(nodes > 0);
            checked += expected.len();
        }
    }
    assert_eq!(checked, 2 + 5 + 5 + 5);
}

// ---- %check through the notebook ----

fn run_cell(session: &mut Session, code: &str) -> Vec<Output> {
    let (result, out) = session.run_cell(code, &Cancel::new());
    result.unwrap_or_else(|e| panic!("{code}: {e:?}"));
    out
}

fn payload(out: &[Output], kind: &str) -> Json {
    cells::payload(out, kind).clone()
}

#[test]
fn check_of_the_books_if_is_exhaustive_and_precise() {
    let case = key_case("exhaustive_precise_if");
    let mut s = Session::default();
    let code = format!(
        "%%check {}\n{}",
        inputs_of(&case),
        case["program"].as_str().unwrap()
    );
    let p = payload(&run_cell(&mut s, &code), "check");
    assert_eq!(
        (p["version"].as_u64(), p["kind"].as_str()),
        (Some(1), Some("check"))
    );
    assert_eq!(p["exhaustive"], true, "{p:#}");
    assert_eq!(p["precise"], true, "{p:#}");
    assert_eq!(p["counterexamples"].as_array().map(Vec::len), Some(0));
    assert_eq!(p["oracle"], "cpython");
    assert_eq!(p["runs"], 100);
}

#[test]
fn check_of_the_books_bounded_while_is_not_exhaustive() {
    let case = key_case("not_exhaustive_while_bound2");
    let unroll = case["loop_unrolling_threshold"].as_u64().unwrap();
    let mut s = Session::default();
    let code = format!(
        "%%check --unroll {unroll} {}\n{}",
        inputs_of(&case),
        case["program"].as_str().unwrap()
    );
    let p = payload(&run_cell(&mut s, &code), "check");
    assert_eq!(p["exhaustive"], false);
    assert_eq!(p["precise"], true, "{p:#}");
    let c = &p["counterexamples"][0];
    assert_eq!(c["property"], "exhaustive");
    assert_eq!(c["expected"]["kind"], "bound");
    let (x, idx) = (
        c["inputs"]["x"].as_i64().unwrap(),
        c["inputs"]["idx"].as_i64().unwrap(),
    );
    assert!(idx - x >= 2, "the loop would run {} times", idx - x + 1);
    assert_eq!(c["observed"]["kind"], "normal");
}

#[test]
fn set_payload_follows_the_spec() {
    let mut s = Session::default();
    run_cell(
        &mut s,
        "def divide(a: int, b: int) -> int:\n    if a > 0:\n        return a // b\n    return a % b\n",
    );
    let out = run_cell(&mut s, "%set divide");
    let p = payload(&out, "set");
    assert_eq!(
        (
            p["version"].as_u64(),
            p["kind"].as_str(),
            p["function"].as_str()
        ),
        (Some(1), Some("set"), Some("divide"))
    );
    assert_eq!(p["inputs"], serde_json::json!({"a": "int", "b": "int"}));
    assert_eq!(p["unroll"], 4);
    for n in p["nodes"].as_array().unwrap() {
        for key in [
            "id",
            "parent",
            "statement",
            "line",
            "path_condition",
            "store",
            "status",
        ] {
            assert!(n.get(key).is_some(), "node without {key}: {n}");
        }
        assert!(
            ["inner", "leaf", "exception", "unsat", "bound"]
                .contains(&n["status"].as_str().unwrap())
        );
    }
    let leaves = p["leaves"].as_array().unwrap();
    let kinds: Vec<&str> = leaves
        .iter()
        .map(|l| l["outcome"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["return", "exception", "return", "exception"]);
    let zero = &leaves[1];
    assert_eq!(zero["outcome"]["type"], "ZeroDivisionError");
    assert_eq!(zero["witness"]["b"], 0);
    assert!(zero["witness"]["a"].as_i64().unwrap() > 0);
    let Output::Display(bundle) = out.last().unwrap() else {
        panic!()
    };
    assert!(bundle.data["text/html"].as_str().unwrap().contains("<svg"));
    assert!(
        bundle.data["text/plain"]
            .as_str()
            .unwrap()
            .contains("path condition")
    );
    let check = payload(&run_cell(&mut s, "%check divide --runs 40"), "check");
    assert_eq!(
        (check["exhaustive"].as_bool(), check["precise"].as_bool()),
        (Some(true), Some(true)),
        "{check:#}"
    );
}

/// An operand that always raises, under a short circuit or a conditional that skips it, raises
/// only when it runs: `t and t[0] > 5` with `t == []` is `[]`, not an `IndexError`.
#[test]
fn guarded_operands_that_always_raise_raise_only_when_they_run() {
    let program = r#"
def first_below(x: int) -> int:
    t = []
    if x > 0:
        t = [x]
    if t and t[0] > 5:
        return 1
    i = 0
    while i < len(t) and t[i] < 3:
        i += 1
    return i + (t[0] if t else 0) + (0 if not t else t[-1])
"#;
    let mut s = Session::default();
    run_cell(&mut s, program);
    let tree = payload(&run_cell(&mut s, "%set first_below"), "set");
    assert!(
        !tree.to_string().contains("IndexError"),
        "no path raises: {tree:#}"
    );
    let check = payload(&run_cell(&mut s, "%check first_below"), "check");
    assert_eq!(check["precise"], true, "{check:#}");
    assert_eq!(check["exhaustive"], true, "{check:#}");
}

/// A builtin `%set` does not model makes its result a havoc (an approximate leaf); it is never a
/// `NameError`, which CPython would not raise.
#[test]
fn every_python_builtin_called_is_approximated_never_a_name_error() {
    use analysis_kernel::python::builtins::{BUILTINS, Kind};
    for b in BUILTINS.iter().filter(|b| b.kind != Kind::Constant) {
        let program = format!("h = {}(x)\n", b.name);
        let (_, tree) = tree_of(&program, "x:int", 2);
        for leaf in &tree.leaves {
            if let Outcome::Exception(e) = &leaf.outcome {
                assert!(!e.to_string().starts_with("NameError"), "{program}: {e}");
            }
        }
    }
}

#[test]
fn none_in_and_or_keeps_pythons_values() {
    // `None and 5` is None (not False), `None or 5` is 5; CPython is the oracle of %check.
    let mut s = Session::default();
    run_cell(
        &mut s,
        "def g(a: int):\n    x = None\n    if a > 0:\n        x = a\n    z = x and 5\n    if not x:\n        return (x or 5) + 1\n    return z\n",
    );
    let p = payload(&run_cell(&mut s, "%check g"), "check");
    assert_eq!(p["precise"], true, "{p:#}");
    assert_eq!(p["exhaustive"], true, "{p:#}");
    let tree = payload(&run_cell(&mut s, "%set g"), "set");
    let outcomes: Vec<String> = tree["leaves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["outcome"]["value"].to_string())
        .collect();
    assert_eq!(outcomes, ["\"5 if a != 0 else a\"", "\"6\""], "{tree:#}");
}
