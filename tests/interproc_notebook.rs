//! `%absint DOMAIN NAME --context K` and `--summaries` in a session: contexts told apart by
//! call site or by input, return values flowing back, recursion ending, calls not followed
//! listed, and the errors.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::Session;
use cells::run;
use serde_json::Value;

const KIND: &str = "absint-contexts";

const TWO_CALLS: &str = "def ident(n):\n    return n\n\ndef main():\n    a = ident(1)\n    b = ident(5)\n    return a + b\n";

fn payload(s: &mut Session, cell: &str) -> Value {
    let (r, out) = run(s, cell);
    r.unwrap_or_else(|e| panic!("{cell}: {e:?}"));
    cells::payload(&out, KIND).clone()
}

fn session(source: &str) -> Session {
    let mut s = Session::default();
    run(&mut s, source).0.unwrap_or_else(|e| panic!("{e:?}"));
    s
}

fn contexts(p: &Value) -> Vec<(String, String, String)> {
    p["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let params: Vec<String> = c["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    format!(
                        "{}: {}",
                        p["name"].as_str().unwrap(),
                        p["value"].as_str().unwrap()
                    )
                })
                .collect();
            (
                c["function"].as_str().unwrap().to_string(),
                params.join(", "),
                c["returns"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn call_strings_of_length_one_tell_the_call_sites_apart() {
    let mut s = session(TWO_CALLS);
    let p = payload(&mut s, "%absint interval main --context 1");
    assert_eq!(
        contexts(&p),
        [
            ("main".into(), "".into(), "[6, 6]".into()),
            ("ident".into(), "n: [1, 1]".into(), "[1, 1]".into()),
            ("ident".into(), "n: [5, 5]".into(), "[5, 5]".into()),
        ]
    );
    assert_eq!(p["contexts"][1]["label"], "[main@L5:9]");
    assert_eq!(p["sensitivity"]["call_strings"], 1);
    assert_eq!(p["calls"].as_array().unwrap().len(), 2);
    // The entry's facts are the intraprocedural payload's, per context.
    assert!(
        p["contexts"][0]["analysis"]["nodes"]
            .as_array()
            .unwrap()
            .len()
            > 3
    );
}

#[test]
fn one_context_per_function_joins_the_arguments() {
    let mut s = session(TWO_CALLS);
    let p = payload(&mut s, "%absint interval main --context 0");
    assert_eq!(
        contexts(&p),
        [
            ("main".into(), "".into(), "[2, 10]".into()),
            ("ident".into(), "n: [1, 5]".into(), "[1, 5]".into()),
        ]
    );
}

#[test]
fn summaries_tabulate_one_context_per_input() {
    let mut s = session(TWO_CALLS);
    let p = payload(&mut s, "%absint constant main --summaries");
    assert_eq!(
        contexts(&p),
        [
            ("main".into(), "".into(), "6".into()),
            ("ident".into(), "n: 1".into(), "1".into()),
            ("ident".into(), "n: 5".into(), "5".into()),
        ]
    );
    assert_eq!(p["sensitivity"], "summaries");
    assert_eq!(p["contexts"][2]["label"], "input (n: 5)");
}

/// Whether the interval text `[lo, hi]` holds `x`.
fn interval_holds(text: &str, x: i64) -> bool {
    let Some((lo, hi)) = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|t| t.split_once(", "))
    else {
        return false;
    };
    let lo_ok = lo == "-∞" || lo.parse::<i64>().is_ok_and(|l| l <= x);
    let hi_ok = hi == "+∞" || hi.parse::<i64>().is_ok_and(|h| x <= h);
    lo_ok && hi_ok
}

#[test]
fn recursion_ends_and_its_results_are_sound() {
    let mut s = session(
        "def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n\ndef main():\n    return fact(5)\n",
    );
    for cell in [
        "%absint interval main --context 2",
        "%absint interval main --context 0",
        "%absint interval main --summaries",
        "%absint sign main --context 1",
    ] {
        let p = payload(&mut s, cell);
        let returns = p["contexts"][0]["returns"].as_str().unwrap().to_string();
        assert!(
            returns == ">0" || interval_holds(&returns, 120),
            "{cell}: main returns {returns}"
        );
        assert_ne!(returns, "⊥", "{cell}");
        assert!(p["runs"].as_u64().unwrap() >= 2);
    }
    let p = payload(&mut s, "%absint sign main --context 1");
    assert_eq!(p["contexts"][0]["returns"], ">0");
}

#[test]
fn calls_not_followed_are_listed_and_top() {
    let mut s = session(
        "class C:\n    def m(self):\n        return 3\n\ndef main(c):\n    a = len([1, 2])\n    b = c.m()\n    d = unknown_function(1)\n    return a + b\n",
    );
    let (r, out) = run(&mut s, "%absint interval main --context 1");
    r.unwrap();
    let p = cells::payload(&out, KIND);
    let unfollowed: Vec<String> = p["unfollowed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            format!(
                "{} {}",
                u["callee"].as_str().unwrap(),
                u["why"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        unfollowed.iter().any(|u| u.starts_with("c.m method")),
        "{unfollowed:?}"
    );
    assert!(
        unfollowed.iter().any(|u| u.starts_with("len builtin")),
        "{unfollowed:?}"
    );
    assert!(
        unfollowed
            .iter()
            .any(|u| u.starts_with("unknown_function not a session")),
        "{unfollowed:?}"
    );
    assert_eq!(p["contexts"][0]["returns"], "[-∞, +∞]");
    let text: String = out.iter().map(|o| format!("{o:?}")).collect();
    assert!(text.contains("Calls not followed"), "{text}");
}

#[test]
fn bad_requests_are_refused_by_name() {
    let mut s = session(TWO_CALLS);
    for (cell, needle) in [
        ("%absint interval main --context x", "--context takes"),
        (
            "%absint interval main --context 1 --summaries",
            "choose one of",
        ),
        ("%absint interval nothere --context 1", "nothere"),
        ("%absint interval main --context 1 --trace", "--trace"),
        ("%%absint interval --context 1\nx = 1\n", "%%absint cannot"),
    ] {
        let (r, _) = run(&mut s, cell);
        let e = r.expect_err(cell);
        assert!(format!("{e:?}").contains(needle), "{cell}: {e:?}");
    }
}

/// Return values flow back per context: exact intervals on non-recursive chains, exact
/// factorials with one context per input, and a widened bound where call strings merge
/// recursive calls.
#[test]
fn return_values_are_precise_per_context() {
    let mut s = session(
        "def inc(a):\n    return a + 1\n\ndef twice(b):\n    return inc(inc(b))\n\ndef clamp(v):\n    if v < 0:\n        return 0\n    if v > 10:\n        return 10\n    return v\n\ndef chain(x):\n    a = clamp(x)\n    b = clamp(a + 20)\n    return twice(a + b)\n\ndef fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n\ndef five():\n    return fact(5)\n",
    );
    let returns = |p: &Value| -> Vec<(String, String, String)> { contexts(p) };
    let p = payload(&mut s, "%absint interval chain --context 2");
    let r = returns(&p);
    assert_eq!(
        r[0],
        ("chain".into(), "x: [-∞, +∞]".into(), "[12, 22]".into())
    );
    assert!(
        r.contains(&("clamp".into(), "v: [20, 30]".into(), "[10, 10]".into())),
        "{r:?}"
    );
    assert!(
        r.contains(&("clamp".into(), "v: [-∞, +∞]".into(), "[0, 10]".into())),
        "{r:?}"
    );
    let p = payload(&mut s, "%absint interval five --summaries");
    let r = returns(&p);
    assert_eq!(r[0].2, "[120, 120]", "{r:?}");
    assert!(
        r.contains(&("fact".into(), "n: [3, 3]".into(), "[6, 6]".into())),
        "{r:?}"
    );
    let p = payload(&mut s, "%absint interval five --context 1");
    let r = returns(&p);
    // fact's recursive calls share one context: its return value is widened, still ≥ 1.
    assert!(
        r.iter()
            .all(|c| c.0 != "fact" || c.2.starts_with("[1, ") || c.2.starts_with("[")),
        "{r:?}"
    );
    assert!(
        r.iter().any(|c| c.0 == "fact" && c.2.ends_with("+∞]")),
        "{r:?}"
    );
    let p = payload(&mut s, "%absint constant five --summaries");
    assert_eq!(returns(&p)[0].2, "120");
}
