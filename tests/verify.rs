//! `%verify` and `%equiv`: proofs and refutations on the book's examples
//! (`tests/fixtures/verify/contracts.py`), mutation tests (every seeded bug is refuted, never
//! verified), every counterexample checked again here in CPython against the clause it is
//! said to fail, equivalence verdicts, options, payloads and the `equiv` grading criterion.

#[path = "common/cells.rs"]
mod cells;
#[path = "common/python3.rs"]
mod python3;

use analysis_kernel::notebook::{Output, Session};
use python3::python3;
use serde_json::Value as Json;

fn fixture(name: &str) -> String {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/contracts.py"),
    )
    .unwrap();
    let start = text
        .find(&format!("#### {name}\n"))
        .unwrap_or_else(|| panic!("no fixture {name}"));
    let body = &text[start + name.len() + 6..];
    body[..body.find("\n#### ").unwrap_or(body.len())]
        .trim()
        .to_string()
        + "\n"
}

fn session() -> Session {
    let mut s = Session::default();
    s.skip_layout = true;
    s
}

/// Runs a cell: its outputs, or its error as `Name: message`.
fn run(s: &mut Session, code: &str) -> Result<Vec<Output>, String> {
    let (result, out) = cells::run(s, code);
    result
        .map(|()| out)
        .map_err(|e| format!("{}: {}", e.ename, e.evalue))
}

/// The payload of `command` (a `%verify` or `%equiv` line).
fn payload(s: &mut Session, command: &str) -> Json {
    let out = run(s, command).unwrap_or_else(|e| panic!("{command}: {e}"));
    for o in out.iter().rev() {
        if let Output::Display(b) = o {
            for kind in ["verify", "equiv"] {
                if let Some(p) = b
                    .data
                    .get(&format!("application/vnd.analysis-kernel.{kind}+json"))
                {
                    return p.clone();
                }
            }
        }
    }
    panic!("{command}: no payload in {out:?}")
}

/// Runs `script` in python3; its stdout, trimmed.
fn python(script: &str) -> String {
    python3(&["-"], script).trim().to_string()
}

/// The counterexample's arguments as Python source, in parameter order (the function's own:
/// not a havocked loop state `__i_1__`).
fn arguments(p: &Json) -> String {
    let input = &p["counterexample"]["input"];
    p["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| !n.as_str().unwrap().starts_with("__"))
        .map(|n| input[n.as_str().unwrap()].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks, in CPython and independently of the kernel, that the refuting input of `p`
/// fails the clause it names: a postcondition evaluates false (or raises), an assert raises
/// AssertionError.
fn assert_refutation_replays(source: &str, p: &Json) {
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    let name = p["function"].as_str().unwrap();
    let label = p["counterexample"]["obligation"].as_str().unwrap();
    let clause = p["counterexample"]["clause"].as_str().unwrap();
    let obligation = p["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["label"] == label)
        .unwrap();
    let args = arguments(p);
    let params: Vec<String> = p["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .filter(|n| !n.starts_with("__"))
        .collect();
    let script = if obligation["kind"] == "postcondition" {
        let expr = clause.replace("$return_value", "__r");
        format!(
            "{source}\n__args = ({args},)\n{} = __args\n__r = {name}(*__args)\ntry:\n    print(bool({expr}))\nexcept Exception as e:\n    print('raised', type(e).__name__)\n",
            params.join(", ") + ","
        )
    } else {
        format!(
            "{source}\ntry:\n    {name}({args})\n    print('returned')\nexcept AssertionError:\n    print('AssertionError')\n"
        )
    };
    let got = python(&script);
    assert!(
        got == "False" || got.starts_with("raised") || got == "AssertionError",
        "{name}({args}) does not fail {label} `{clause}` in CPython: {got}\n{p:#}"
    );
}

/// The verdict of `%verify` on the first function of `source`.
fn verify(source: &str, options: &str) -> Json {
    let name = source
        .split("def ")
        .nth(1)
        .and_then(|r| r.split('(').next())
        .unwrap();
    verify_in(source, name, options)
}

#[test]
fn the_book_examples_are_proved() {
    let p = verify(&fixture("clamp"), "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert_eq!(p["obligations"].as_array().unwrap().len(), 2);
    assert!(
        p["leaves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["status"] == "passed" && l["checks"]["P1"] == "proved")
    );
    assert_eq!(p["preconditions"][0], "lo <= hi");
    let p = verify(&fixture("absolute"), "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    // A loop: proved for every haystack up to the unroll bound, the rest are bound leaves.
    let p = verify(&fixture("find"), "--unroll 3");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
    assert_eq!(p["bound_leaves"], 1);
    assert_eq!(p["obligations"][1]["form"], "quantified all");
    let p = verify(&fixture("insertion_point"), "--unroll 3");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
    // Z3 cannot prove the third postcondition from adjacent-pair sortedness (induction):
    // the quantified run is unknown, so the verdict is that of the bounded forms, and the
    // notes say so; unsorted inputs are then excluded by the precondition's guard.
    assert!(
        p["notes"][0]
            .as_str()
            .unwrap()
            .contains("verdict was unknown"),
        "{p:#}"
    );
    assert!(
        p["leaves"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["status"] == "excluded")
    );
    // A body assert is an obligation too.
    let p = verify(&fixture("midpoint"), "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert_eq!(p["obligations"][0]["kind"], "assert");
    assert_eq!(p["obligations"][0]["function"], "midpoint");
}

/// Each seeded bug (one textual mutation of a fixture) is refuted with an input that fails
/// the named clause in CPython; none is ever verified.
#[test]
fn seeded_bugs_are_refuted() {
    let mutants: &[(&str, &str, &str, &str)] = &[
        ("clamp", "        return hi", "        return hi + 1", ""),
        ("clamp", "if x > hi:", "if x > lo:", ""),
        ("clamp", "    return x\n", "    return x + 1\n", ""),
        ("absolute", "if x < 0:", "if x > 0:", ""),
        ("absolute", "return -x", "return x - 1", ""),
        (
            "find",
            "        if haystack[i] == needle:",
            "        if haystack[i] != needle:",
            "--unroll 3",
        ),
        ("find", "    return i\n", "    return i + 1\n", "--unroll 3"),
        (
            "find",
            "        return -1",
            "        return 0",
            "--unroll 3",
        ),
        (
            "find",
            "        i = i + 1",
            "        i = i + 2",
            "--unroll 3",
        ),
        ("insertion_point", "t[i] < x", "t[i] <= x", "--unroll 3"),
        (
            "insertion_point",
            "    return i\n",
            "    return i + 1\n",
            "--unroll 3",
        ),
        (
            "midpoint",
            "m = (lo + hi) // 2",
            "m = (lo + hi) // 2 + 1",
            "",
        ),
        ("midpoint", "m = (lo + hi) // 2", "m = lo - hi", ""),
    ];
    for (name, from, to, options) in mutants {
        let source = fixture(name);
        assert!(source.contains(from), "{name}: no {from:?}");
        let mutant = source.replacen(from, to, 1);
        let p = verify(&mutant, options);
        assert_ne!(p["verdict"], "verified", "{name} with {to:?}: {p:#}");
        assert_refutation_replays(&mutant, &p);
        assert!(
            p["counterexample"]["replay"]
                .as_str()
                .unwrap()
                .starts_with("CPython:"),
            "{p:#}"
        );
    }
}

const PAIRS: &str = r#"
def clamp2(x: int, lo: int, hi: int) -> int:
    """Precondition: lo <= hi"""
    return max(lo, min(x, hi))

def clamp3(x: int, lo: int, hi: int) -> int:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x

def product(t: tuple[int, ...]) -> int:
    result = 1
    for elem in t:
        result = result * elem
    return result

def product_rec(t: tuple[int, ...]) -> int:
    if len(t) == 0:
        return 1
    return t[0] * product_rec(t[1:])

def product_bug(t: tuple[int, ...]) -> int:
    result = 1
    for elem in t:
        result = result + elem
    return result

def div(a: int, b: int) -> int:
    return a // b

def div_safe(a: int, b: int) -> int:
    if b == 0:
        return 0
    return a // b

def sign(x: int) -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0

def sign_bug(x: int) -> int:
    if x > 0:
        return 1
    if x < 1:
        return -1
    return 0
"#;

/// The distinguishing input of `p` tells `f` and `g` apart in CPython.
fn assert_distinguishes(p: &Json) {
    assert_eq!(p["verdict"], "different", "{p:#}");
    let (f, g) = (
        p["functions"][0].as_str().unwrap(),
        p["functions"][1].as_str().unwrap(),
    );
    let args = arguments(p);
    let script = format!(
        "{PAIRS}\ndef run(fn):\n    try:\n        return ('return', fn({args}))\n    except Exception as e:\n        return ('raise', type(e).__name__)\na, b = run({f}), run({g})\nprint(a != b)\n"
    );
    assert_eq!(
        python(&script),
        "True",
        "{f} and {g} agree on ({args}): {p:#}"
    );
}

#[test]
fn equivalence_verdicts() {
    let mut s = session();
    run(&mut s, PAIRS).unwrap();
    let p = payload(&mut s, "%equiv product product_rec --leaves --unroll 3");
    assert_eq!(p["verdict"], "equivalent up to bound", "{p:#}");
    assert!(p["bound_leaves"].as_u64().unwrap() >= 1);
    let p = payload(&mut s, "%equiv sign sign --leaves");
    assert_eq!(p["verdict"], "equivalent", "{p:#}");
    for (f, g, options) in [
        ("product", "product_bug", "--unroll 3"),
        ("sign", "sign_bug", ""),
        ("div", "div_safe", ""),
        ("clamp2", "clamp3", ""),
    ] {
        let p = payload(&mut s, &format!("%equiv {f} {g} --leaves {options}"));
        assert_distinguishes(&p);
        assert!(
            p["counterexample"]["replay"]
                .as_str()
                .unwrap()
                .contains(&format!("{f}(")),
            "{p:#}"
        );
    }
    // The exception is the difference: with --returns-only they agree.
    let p = payload(&mut s, "%equiv div div_safe --leaves");
    assert_eq!(p["counterexample"]["obligation"], "E1", "{p:#}");
    let p = payload(&mut s, "%equiv div div_safe --leaves --returns-only");
    assert_eq!(p["verdict"], "equivalent", "{p:#}");
    // clamp2 assumes lo <= hi: with --pre, clamp2 and clamp3 agree.
    let p = payload(&mut s, "%equiv clamp2 clamp3 --leaves --pre");
    assert_eq!(p["verdict"], "equivalent", "{p:#}");
}

#[test]
fn nothing_is_claimed_through_what_is_not_modelled() {
    let mut s = session();
    run(
        &mut s,
        "def smallest(t: list[int]) -> int:\n    \"\"\"Precondition: len(t) > 0\n\n    Postcondition: $return_value in t\n    \"\"\"\n    return sorted(t, key=abs)[-1]\n",
    )
    .unwrap();
    let p = payload(&mut s, "%verify smallest --leaves");
    assert_eq!(p["verdict"], "unknown", "{p:#}");
    assert!(
        p["unknown_reasons"][0]
            .as_str()
            .unwrap()
            .contains("approximate"),
        "{p:#}"
    );
}

#[test]
fn bad_input_gets_clear_errors() {
    let mut s = session();
    run(
        &mut s,
        "def f(x: int) -> int:\n    return x\n\ndef g(x: int, y: int) -> int:\n    return x\n",
    )
    .unwrap();
    let e = run(&mut s, "%verify f").unwrap_err();
    assert!(
        e.starts_with("UsageError") && e.contains("no contract"),
        "{e}"
    );
    assert!(
        run(&mut s, "%verify")
            .unwrap_err()
            .starts_with("UsageError")
    );
    assert!(
        run(&mut s, "%verify nosuch")
            .unwrap_err()
            .starts_with("NameError")
    );
    let e = run(&mut s, "%equiv f g").unwrap_err();
    assert!(e.contains("same signature"), "{e}");
    assert!(
        run(&mut s, "%equiv f")
            .unwrap_err()
            .starts_with("UsageError")
    );
    assert!(
        run(&mut s, "%verify f --unroll x")
            .unwrap_err()
            .starts_with("UsageError")
    );
}

#[test]
fn views_and_payloads() {
    let mut s = session();
    let bug = fixture("clamp").replacen("        return hi", "        return hi + 1", 1);
    run(&mut s, &bug).unwrap();
    let out = run(&mut s, "%verify clamp").unwrap();
    let Some(Output::Display(b)) = out.last() else {
        panic!("{out:?}")
    };
    let text = b.plain_text().unwrap();
    assert!(
        text.starts_with("%verify clamp: refuted — P1 postcondition"),
        "{text}"
    );
    assert!(text.contains("counterexample: "), "{text}");
    let p = &b.data["application/vnd.analysis-kernel.verify+json"];
    assert_eq!(p["kind"], "verify");
    assert_eq!(p["version"], 1);
    assert!(
        p["harness"]
            .as_str()
            .unwrap()
            .contains("assert lo <= __return_value__ <= hi")
    );
    assert_eq!(p["tree"]["kind"], "set");
    let statuses: Vec<&str> = p["leaves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"refuted") && statuses.contains(&"passed"),
        "{statuses:?}"
    );
    // The figure: the refuted leaf filled red, proved leaves marked.
    let out = run(&mut s, "%verify clamp --save clamp.dot").unwrap();
    let dot = out
        .iter()
        .find_map(|o| match o {
            Output::File { path, contents } if path == "clamp.dot" => {
                Some(String::from_utf8_lossy(contents).to_string())
            }
            _ => None,
        })
        .expect("the saved DOT");
    assert!(
        dot.contains("fillcolor=\"#e53935\"") && dot.contains("xlabel=\"✗ P1\""),
        "{dot}"
    );
    assert!(dot.contains("xlabel=\"✓"), "{dot}");
}

#[test]
fn the_interpreter_replays_when_cpython_is_off() {
    let mut s = session();
    run(&mut s, "%config cpython_oracle=0\n").unwrap();
    let bug = fixture("absolute").replacen("if x < 0:", "if x > 0:", 1);
    run(&mut s, &bug).unwrap();
    let p = payload(&mut s, "%verify absolute --leaves");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert!(
        p["replayed_in"]
            .as_str()
            .unwrap()
            .starts_with("the kernel's interpreter"),
        "{p:#}"
    );
    assert_refutation_replays(&bug, &p);
}

#[test]
fn equiv_is_a_grading_criterion() {
    use analysis_kernel::grade::{Spec, grade_cells};
    let spec = Spec::parse(
        r#"
[[criterion]]
name = "sign matches the reference"
equiv = "sign"
reference = """
def sign_reference(x: int) -> int:
    return (x > 0) - (x < 0)
"""
"#,
    )
    .unwrap();
    let good = "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    if x < 0:\n        return -1\n    return 0\n";
    let bad = good.replace("x < 0", "x < -1");
    let r = grade_cells(&spec, "good", &[good.to_string()]);
    assert!(r.criteria[0].passed, "{:?}", r.criteria[0]);
    let r = grade_cells(&spec, "bad", &[bad.to_string()]);
    assert!(!r.criteria[0].passed, "{:?}", r.criteria[0]);
    assert!(
        r.criteria[0].output.contains("different"),
        "{:?}",
        r.criteria[0]
    );
    assert!(
        r.criteria[0].output.contains("sign(-1)"),
        "{:?}",
        r.criteria[0]
    );
}

/// The status of obligation `label` in payload `p`.
fn obligation<'p>(p: &'p Json, label: &str) -> &'p Json {
    p["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["label"] == label)
        .unwrap_or_else(|| panic!("no obligation {label} in {p:#}"))
}

/// Loops with invariants run without unrolling: with invariants on every loop and
/// quantifier-free clauses, the verdict is "verified" (no bound leaf), whatever `--unroll`.
#[test]
fn invariants_verify_loops_without_a_bound() {
    for (name, unroll) in [
        ("count_up", "1"),
        ("find_inv", "0"),
        ("insertion_point_inv", "1"),
        ("total", "1"),
        ("skip_odd", "0"),
    ] {
        let p = verify(&fixture(name), &format!("--unroll {unroll}"));
        assert_eq!(p["verdict"], "verified", "{name}: {p:#}");
        assert_eq!(p["bound_leaves"], 0, "{name}: {p:#}");
        let o = obligation(&p, "I1.init");
        assert_eq!(o["kind"], "invariant initiation", "{name}");
        assert_eq!(o["status"], "proved", "{name}: {p:#}");
        assert_eq!(
            obligation(&p, "I1.pres")["status"],
            "proved",
            "{name}: {p:#}"
        );
        // The states the invariants exclude, and the checked iterations, are excluded.
        assert!(
            p["leaves"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l["status"] == "excluded"),
            "{name}: {p:#}"
        );
    }
    // The docstring form: both invariants are obligations.
    let p = verify(&fixture("total"), "");
    assert_eq!(obligation(&p, "I2.pres")["text"], "s == 2 * i");
    // Unrolled, the same loop is only verified up to the bound.
    let plain = fixture("count_up").replace("  # invariant: 0 <= i <= n", "");
    let p = verify(&plain, "--unroll 2");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
}

/// Runs `script` in CPython; it prints one line.
fn cpython_says(script: &str) -> String {
    python(script)
}

/// A wrong invariant is refuted where it breaks: at initiation (an input of the function,
/// replayed), or at preservation (a state of the loop, replayed from that state); a
/// too-weak one proves nothing about the result.
#[test]
fn wrong_invariants_are_refuted_and_weak_ones_prove_nothing() {
    let p = verify(&fixture("bad_initiation"), "");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_eq!(p["counterexample"]["obligation"], "I1.init", "{p:#}");
    let n = p["counterexample"]["input"]["n"]
        .as_str()
        .unwrap()
        .to_string();
    // Independently: on entry (i = 0) the invariant is false for this n.
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\ni = 0\nprint(n >= 0 and not (1 <= i <= n))"
        )),
        "True"
    );
    let p = verify(&fixture("bad_preservation"), "");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_eq!(p["counterexample"]["obligation"], "I1.pres", "{p:#}");
    assert_eq!(obligation(&p, "I1.init")["status"], "proved", "{p:#}");
    let input = &p["counterexample"]["input"];
    let (n, i) = (
        input["n"].as_str().unwrap().to_string(),
        input["__i_1__"].as_str().unwrap().to_string(),
    );
    // Independently: from this state, the invariant and guard hold, one iteration breaks it.
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\ni = {i}\nok = n >= 0 and 0 <= i <= 3 and i < n\ni = i + 1\nprint(ok and not (0 <= i <= 3))"
        )),
        "True"
    );
    assert!(
        p["counterexample"]["replay"]
            .as_str()
            .unwrap()
            .contains("AssertionError")
    );
    // Too weak: nothing refuted, nothing verified.
    let p = verify(&fixture("too_weak"), "");
    assert_eq!(p["verdict"], "unknown", "{p:#}");
    assert_eq!(obligation(&p, "I1.init")["status"], "proved", "{p:#}");
    assert_eq!(obligation(&p, "I1.pres")["status"], "proved", "{p:#}");
    assert_eq!(obligation(&p, "P1")["status"], "unknown", "{p:#}");
}

/// Seeded bugs in loops with invariants are refuted, never verified.
#[test]
fn seeded_bugs_under_invariants_are_refuted() {
    for (name, from, to) in [
        ("count_up", "i = i + 1", "i = i + 2"),
        ("find_inv", "return -1", "return 0"),
        ("total", "s = s + 2", "s = s + 3"),
    ] {
        let source = fixture(name).replace(from, to);
        let p = verify(&source, "");
        assert_eq!(p["verdict"], "refuted", "{name} with {to:?}: {p:#}");
    }
}

/// What the rewrite cannot give CPython's meaning is refused by name: a `for` over a
/// sequence or a stepped range, the index read after the loop, an invariant that is not an
/// expression.
#[test]
fn invariants_that_cannot_be_used_are_refused_by_name() {
    let head = "(n: int, t: list[int]) -> int:\n    \"\"\"Postcondition: $return_value >= 0\"\"\"\n    c = 0\n";
    for (name, body, refusal) in [
        (
            "over_seq",
            "    for x in t:  # invariant: c >= 0\n        c = c + 1\n    return c\n",
            "for loop",
        ),
        (
            "stepped",
            "    for i in range(0, n, 2):  # invariant: c >= 0\n        c = c + 1\n    return c\n",
            "range(a, b)",
        ),
        (
            "index_after",
            "    for i in range(n):  # invariant: c >= 0\n        c = c + 1\n    return c + i\n",
            "reading the index i",
        ),
        (
            "not_expression",
            "    while c < n:  # invariant: c >=\n        c = c + 1\n    return c\n",
            "not an expression",
        ),
    ] {
        let mut s = session();
        run(&mut s, &format!("def {name}{head}{body}")).unwrap();
        let e = run(&mut s, &format!("%verify {name}")).unwrap_err();
        assert!(e.contains(refusal), "{name}: {e}");
    }
}

/// `--summaries`: a caller verified only through its callee's contract (inlined, the
/// callee's loop leaves bound leaves), and a caller breaking the callee's precondition.
#[test]
fn summaries_run_calls_by_their_contracts() {
    let mut s = session();
    run(&mut s, &fixture("summaries")).unwrap();
    let p = payload(&mut s, "%verify twice --leaves --unroll 2");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
    let p = payload(&mut s, "%verify twice --leaves --unroll 2 --summaries");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert_eq!(obligation(&p, "count_to.pre1")["status"], "proved", "{p:#}");
    let p = payload(&mut s, "%verify below --leaves --summaries");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_eq!(p["counterexample"]["obligation"], "count_to.pre1", "{p:#}");
    let n: i64 = p["counterexample"]["input"]["n"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(n - 1 < 0, "{p:#}");
    assert!(
        p["counterexample"]["replay"]
            .as_str()
            .unwrap()
            .contains("precondition 1 of count_to"),
        "{p:#}"
    );
    // A summary needs the callee's return type.
    run(
        &mut s,
        "def h(x: int):\n    \"\"\"Postcondition: $return_value == x\"\"\"\n    return x\n\ndef k(x: int) -> int:\n    return h(x)\n",
    )
    .unwrap();
    let e = run(&mut s, "%verify k --summaries").unwrap_err();
    assert!(e.contains("return annotation"), "{e}");
}

/// `return None` (bare or explicit) and tests of None are exact, not approximate.
#[test]
fn returning_none_is_exact() {
    let p = verify(&fixture("returns_none"), "--unroll 2");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
    let bug = fixture("returns_none").replace("return t[i]", "return t[i] + 1");
    let p = verify(&bug, "--unroll 2");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_refutation_replays(&bug, &p);
}

/// A postcondition on a list the function mutates is refused by name (the value model
/// does not pass the mutation back); one that does not read it is judged.
#[test]
fn list_mutation_seen_by_a_postcondition_is_refused() {
    let mut s = session();
    run(
        &mut s,
        "def push(t: list[int], x: int) -> int:\n    \"\"\"Postcondition: len(t) > 0\"\"\"\n    t.append(x)\n    return x\n\ndef put(t: list[int], x: int) -> int:\n    \"\"\"Postcondition: $return_value == x\"\"\"\n    if len(t) > 0:\n        t[0] = x\n    return x\n",
    )
    .unwrap();
    let e = run(&mut s, "%verify push").unwrap_err();
    assert!(
        e.contains("UnsupportedError") && e.contains("t.append()"),
        "{e}"
    );
    let p = payload(&mut s, "%verify put --leaves");
    assert_ne!(p["verdict"], "refuted", "{p:#}");
}

/// `all`/`any` over ranges and sequences are quantifiers: `find` with an invariant over a
/// prefix is verified with no bound; every clause says "quantified"; seeded bugs are
/// refuted with inputs that fail the clause in CPython.
#[test]
fn quantified_clauses_are_proved_without_a_bound() {
    let p = verify(&fixture("find_all"), "--unroll 0");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert_eq!(p["bound_leaves"], 0, "{p:#}");
    assert_eq!(obligation(&p, "P2")["form"], "quantified all", "{p:#}");
    assert_eq!(obligation(&p, "P3")["form"], "quantified all", "{p:#}");
    assert_eq!(obligation(&p, "I2.pres")["form"], "quantified all", "{p:#}");
    assert_eq!(obligation(&p, "I2.pres")["status"], "proved", "{p:#}");
    // A for loop without invariant, its postcondition a quantifier: up to the bound.
    let p = verify(&fixture("all_positive"), "--unroll 3");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
    for (from, to) in [
        ("return i\n", "return i + 1\n"),
        ("return -1", "return 0"),
        ("haystack[i] == needle", "haystack[i] >= needle"),
    ] {
        let source = fixture("find_all").replace(from, to);
        let p = verify(&source, "");
        assert_eq!(p["verdict"], "refuted", "{to:?}: {p:#}");
        if p["counterexample"]["obligation"]
            .as_str()
            .unwrap()
            .starts_with('P')
        {
            assert_refutation_replays(&source, &p);
        }
    }
    let bug = fixture("all_positive").replace("x <= 0", "x < 0");
    let p = verify(&bug, "--unroll 3");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_refutation_replays(&bug, &p);
}

/// Recursion by contract (`--summaries`): the recursive calls of the function verified run
/// by its own contract, so the proof needs no recursion bound (partial correctness, said in
/// a note); inlined, the same functions are verified only up to the depth bound. A wrong
/// postcondition is refuted with an input CPython confirms.
#[test]
fn recursion_runs_by_its_own_contract() {
    let source = fixture("recursive");
    let mut s = session();
    run(&mut s, &source).unwrap();
    for f in ["factorial", "sum_to", "power"] {
        let p = payload(&mut s, &format!("%verify {f} --leaves --summaries"));
        assert_eq!(p["verdict"], "verified", "{f}: {p:#}");
        assert_eq!(p["bound_leaves"], 0, "{f}: {p:#}");
        assert!(
            p["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().contains("partial correctness")),
            "{f}: {p:#}"
        );
        assert_eq!(
            obligation(&p, &format!("{f}.pre1"))["status"],
            "proved",
            "{f}: {p:#}"
        );
        let inlined = payload(&mut s, &format!("%verify {f} --leaves"));
        assert_eq!(
            inlined["verdict"], "verified up to bound",
            "{f}: {inlined:#}"
        );
    }
    let p = payload(&mut s, "%verify sum_bad --leaves --summaries");
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_refutation_replays(&source, &p);
}

/// Asserts that `p` is refuted at obligation `label`, its replay failing an assert; the
/// counterexample's input (Python literals by name).
fn refuted_at<'p>(p: &'p Json, label: &str) -> &'p Json {
    assert_eq!(p["verdict"], "refuted", "{p:#}");
    assert_eq!(p["counterexample"]["obligation"], label, "{p:#}");
    assert!(
        p["counterexample"]["replay"]
            .as_str()
            .unwrap()
            .contains("AssertionError"),
        "{p:#}"
    );
    &p["counterexample"]["input"]
}

/// The verdict of `%verify name OPTIONS` with `source` defined.
fn verify_in(source: &str, name: &str, options: &str) -> Json {
    let mut s = session();
    run(&mut s, source).unwrap();
    payload(&mut s, &format!("%verify {name} --leaves {options}"))
}

fn has_note(p: &Json, text: &str) -> bool {
    p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains(text))
}

/// `for i in range(a, b)` with invariants runs without unrolling: `i` is the next
/// iteration's index (`a` on entry, `max(a, b)` at the exit), and correct invariants verify
/// the function with no bound, `continue` and `return` in the body included.
#[test]
fn for_range_invariants_verify_without_a_bound() {
    let source = fixture("for_range");
    for (name, unroll) in [
        ("count_range", "0"),
        ("first_negative", "1"),
        ("skip_even", "1"),
    ] {
        let p = verify_in(&source, name, &format!("--unroll {unroll}"));
        assert_eq!(p["verdict"], "verified", "{name}: {p:#}");
        assert_eq!(p["bound_leaves"], 0, "{name}: {p:#}");
        assert_eq!(obligation(&p, "I1.init")["status"], "proved", "{name}");
        assert_eq!(obligation(&p, "I1.pres")["status"], "proved", "{name}");
        // A for loop over a range terminates: no partial-correctness note for it.
        assert!(!has_note(&p, "partial correctness"), "{name}: {p:#}");
    }
    // Seeded bugs are refuted, and the inputs fail the postcondition in CPython.
    for (name, from, to) in [
        ("count_range", "c = c + 2", "c = c + 3"),
        ("first_negative", "t[k] < 0:", "t[k] <= 0:"),
        ("skip_even", "c = c + 1", "c = c + 2"),
    ] {
        let bad = source.replace(from, to);
        let p = verify_in(&bad, name, "");
        assert_eq!(p["verdict"], "refuted", "{name} with {to:?}: {p:#}");
    }
    // Unrolled (no invariant), the same loop is only verified up to the bound.
    let plain = source
        .replace("  # invariant: a <= i <= b", "")
        .replace("        # invariant: c == 2 * (i - a)\n", "");
    let p = verify_in(&plain, "count_range", "--unroll 2");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
}

/// Wrong invariants on a `for` loop are refuted at initiation (an input, replayed) and at
/// preservation (a loop state, replayed from that state), each checked again in CPython.
#[test]
fn wrong_for_invariants_are_refuted_with_states() {
    let source = fixture("for_range_bad");
    let p = verify_in(&source, "for_bad_initiation", "");
    let input = refuted_at(&p, "I1.init");
    let n = input["n"].as_str().unwrap();
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\nc = 0\ni = 0\nprint(n >= 0 and not (c == i + 1))"
        )),
        "True"
    );
    let p = verify_in(&source, "for_bad_preservation", "");
    let input = refuted_at(&p, "I1.pres");
    assert_eq!(obligation(&p, "I1.init")["status"], "proved", "{p:#}");
    let (n, i, c) = (
        input["n"].as_str().unwrap(),
        input["__i_1__"].as_str().unwrap(),
        input["__c_1__"].as_str().unwrap(),
    );
    // From this state the invariant holds and an iteration runs; after it, it is broken.
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\ni = {i}\nc = {c}\nok = n >= 0 and 0 <= i < n and c <= 3\nc = c + 1\ni = i + 1\nprint(ok and not (c <= 3))"
        )),
        "True"
    );
}

/// `# decreases: EXPR` on a `while`: a measure that is non-negative and decreasing is
/// proved (and the note says the loop terminates); one that grows is refuted at `D1.dec`,
/// one that goes negative at `D1.nonneg`, each from a loop state CPython confirms. Without
/// a measure a `while` with an invariant is partial correctness, and the note says so.
#[test]
fn loop_measures_are_proved_or_refuted() {
    let source = fixture("decreasing_loops");
    let p = verify_in(&source, "countdown", "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert_eq!(obligation(&p, "D1.nonneg")["status"], "proved", "{p:#}");
    assert_eq!(obligation(&p, "D1.dec")["status"], "proved", "{p:#}");
    assert_eq!(obligation(&p, "D1.dec")["kind"], "decreases smaller");
    assert!(has_note(&p, "terminates"), "{p:#}");
    assert!(!has_note(&p, "partial correctness"), "{p:#}");
    let without = source.replace("        # decreases: i\n", "");
    let p = verify_in(&without, "countdown", "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert!(has_note(&p, "partial correctness"), "{p:#}");

    let p = verify_in(&source, "countdown_up", "");
    let input = refuted_at(&p, "D1.dec");
    let (n, i) = (
        input["n"].as_str().unwrap(),
        input["__i_1__"].as_str().unwrap(),
    );
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\ni = {i}\nok = n >= 0 and i >= 0 and i > 0\nbefore = n - i\ni = i - 1\nprint(ok and not (n - i < before))"
        )),
        "True"
    );
    let p = verify_in(&source, "countdown_negative", "");
    let input = refuted_at(&p, "D1.nonneg");
    let (n, i) = (
        input["n"].as_str().unwrap(),
        input["__i_1__"].as_str().unwrap(),
    );
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\ni = {i}\nprint(n >= 0 and i >= 0 and i > 0 and i - 2 < 0)"
        )),
        "True"
    );
}

/// A recursive function's measure (`Decreases:` in the docstring, or `# decreases:` on the
/// `def` line) under recursion by contract: proved, the verdict is total correctness; a
/// measure that grows at the recursive call is refuted at `Dr.dec`, one negative on entry
/// at `Dr.nonneg`, with inputs CPython confirms.
#[test]
fn recursion_measures_give_total_correctness() {
    let source = fixture("decreasing_recursion");
    let mut s = session();
    run(&mut s, &source).unwrap();
    let p = payload(&mut s, "%verify factorial_total --leaves --summaries");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    assert_eq!(obligation(&p, "Dr.nonneg")["status"], "proved", "{p:#}");
    assert_eq!(obligation(&p, "Dr.dec")["status"], "proved", "{p:#}");
    assert!(has_note(&p, "total correctness"), "{p:#}");
    assert!(!has_note(&p, "partial correctness"), "{p:#}");
    // Without --summaries the measure is not used, and the note says so.
    let p = payload(&mut s, "%verify factorial_total --leaves");
    assert_eq!(p["verdict"], "verified up to bound", "{p:#}");
    assert!(has_note(&p, "measure is not used"), "{p:#}");

    let p = payload(&mut s, "%verify factorial_up --leaves --summaries");
    let input = refuted_at(&p, "Dr.dec");
    let n = input["n"].as_str().unwrap();
    // The call factorial_up(n - 1) happens (n != 0) and its measure is not smaller.
    assert_eq!(
        cpython_says(&format!(
            "n = {n}\nm = lambda n: 20 - n\nprint(0 <= n <= 20 and n != 0 and not (m(n - 1) < m(n)))"
        )),
        "True"
    );
    // A measure naming a local is refused by name.
    run(
        &mut s,
        "def local_measure(n: int) -> int:  # decreases: k\n    \"\"\"Postcondition: $return_value >= 0\"\"\"\n    k = n\n    if k <= 0:\n        return 0\n    return local_measure(n - 1)\n",
    )
    .unwrap();
    let e = run(&mut s, "%verify local_measure --summaries").unwrap_err();
    assert!(e.contains("not one of its parameters"), "{e}");
    let p = payload(&mut s, "%verify factorial_negative --leaves --summaries");
    let input = refuted_at(&p, "Dr.nonneg");
    let n = input["n"].as_str().unwrap();
    assert_eq!(
        cpython_says(&format!("n = {n}\nprint(0 <= n <= 20 and n - 1 < 0)")),
        "True"
    );
}

/// The edges of the `for` rewrite: a `break` leaves the loop with the index where it is, an
/// empty range (`a > b`) leaves the index at `a` (so `c == i - a` still holds), and a measure
/// with no invariant proves termination but nothing about the state after the loop.
#[test]
fn for_range_edges_keep_cpython_meaning() {
    let source = fixture("for_range_edges");
    let p = verify_in(&source, "find_for", "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    let p = verify_in(&source, "span", "");
    assert_eq!(p["verdict"], "verified", "{p:#}");
    let p = verify_in(&source, "span_bad", "");
    assert_refutation_replays(&source, &p);
    let input = &p["counterexample"]["input"];
    let (a, b) = (input["a"].as_str().unwrap(), input["b"].as_str().unwrap());
    assert_eq!(
        cpython_says(&format!("{source}\nprint(span_bad({a}, {b}) != {b} - {a})")),
        "True"
    );
    let p = verify_in(&source, "halve", "");
    assert_eq!(p["verdict"], "unknown", "{p:#}");
    assert_eq!(obligation(&p, "D1.nonneg")["status"], "proved", "{p:#}");
    assert_eq!(obligation(&p, "D1.dec")["status"], "proved", "{p:#}");
}

/// Every input a `%verify`/`%equiv` shows, leaves and counterexample, without timings.
fn inputs_shown(p: &Json) -> Vec<String> {
    let mut out: Vec<String> = p["leaves"]
        .as_array()
        .map(|ls| ls.iter().map(|l| l["input"].to_string()).collect())
        .unwrap_or_default();
    out.push(p["counterexample"]["input"].to_string());
    out
}

#[test]
fn witnesses_do_not_depend_on_earlier_cells() {
    let sources = [
        "clamp",
        "absolute",
        "find",
        "midpoint",
        "bad_preservation",
        "too_weak",
    ]
    .map(fixture)
    .join("\n");
    let commands = [
        "%verify bad_preservation --leaves",
        "%verify too_weak --leaves",
        "%verify clamp --leaves",
        "%verify absolute --leaves",
        "%equiv bad_preservation too_weak --leaves",
    ];
    let mut fresh = Vec::new();
    for command in commands {
        let mut s = session();
        run(&mut s, &sources).unwrap();
        fresh.push(inputs_shown(&payload(&mut s, command)));
    }
    // One session running everything first, then each command again, in reverse order.
    let mut s = session();
    run(&mut s, &sources).unwrap();
    run(&mut s, "%verify find --unroll 3").unwrap();
    run(&mut s, "%verify midpoint").unwrap();
    for command in commands {
        run(&mut s, command).unwrap();
    }
    for (command, expected) in commands.iter().zip(&fresh).rev() {
        assert_eq!(
            &inputs_shown(&payload(&mut s, command)),
            expected,
            "{command} after other cells"
        );
    }
}
