//! The course's lattices (se2p/sa2022, copied to tests/fixtures/corpus/fraser): top, bottom and the
//! Hasse edges of the zero lattice and the powerset of {x, y, z}, compared with ours; and the
//! time to build and lay out a 64-element powerset.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use analysis_kernel::cancel::Cancel;
use analysis_kernel::dataflow::domains::{AbstractDomain, BinOp, Zero};
use analysis_kernel::dataflow::finite::FiniteOrder;
use analysis_kernel::dataflow::finite::builtin::{BuiltinOptions, build};
use analysis_kernel::dataflow::finite::laws::check;
use analysis_kernel::dataflow::finite::parse::parse_order;
use analysis_kernel::render::graphviz::dot_to_svg;
use analysis_kernel::render::lattice::hasse_dot;
use num_bigint::BigInt;
use serde_json::Value;

fn cases() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus/fraser/fraser_dataflow_cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let all: Value = serde_json::from_str(&text).expect("the corpus is JSON");
    all.as_array()
        .and_then(|cases| cases.iter().find(|c| c["id"] == "lattices"))
        .cloned()
        .expect("a case with id \"lattices\"")
}

/// The course prints zero-lattice elements as Python sets of {ZERO, NONZERO}, in any order.
fn course_zero_name(set: &str) -> &'static str {
    let has = |atom: &str| {
        set.split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w == atom)
    };
    match (has("ZERO"), has("NONZERO")) {
        (false, false) => "⊥",
        (true, false) => "0",
        (false, true) => "≠0",
        (true, true) => "⊤",
    }
}

fn named_covers(order: &FiniteOrder) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = order
        .covers()
        .iter()
        .map(|&(a, b)| (order.element(a).to_string(), order.element(b).to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn zero_lattice_matches_the_course() {
    let case = &cases()["zero_lattice"];
    let order = build(&["zero".to_string()], &BuiltinOptions::default()).unwrap();
    let report = check(&order);
    assert!(report.is_lattice);
    let elements: Vec<&str> = case["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| course_zero_name(e.as_str().unwrap()))
        .collect();
    let mut ours: Vec<&str> = order.elements().iter().map(String::as_str).collect();
    let mut theirs = elements.clone();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
    let top = course_zero_name(case["expected_top"].as_str().unwrap());
    let bottom = course_zero_name(case["expected_bottom"].as_str().unwrap());
    assert_eq!(report.top.map(|t| order.element(t)), Some(top));
    assert_eq!(report.bottom.map(|b| order.element(b)), Some(bottom));
    let mut expected: Vec<(String, String)> = case["hasse_edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let lower = course_zero_name(e[0].as_str().unwrap()).to_string();
            let upper = course_zero_name(e[1].as_str().unwrap()).to_string();
            (lower, upper)
        })
        .collect();
    expected.sort();
    assert_eq!(named_covers(&order), expected);
}

/// The same lattice typed by a user with the course's own names, as a `%%lattice` body.
#[test]
fn zero_lattice_in_the_course_notation() {
    let case = &cases()["zero_lattice"];
    let body: String = case["hasse_edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} < {}\n", e[0].as_str().unwrap(), e[1].as_str().unwrap()))
        .collect();
    let order = parse_order("course zero", &body).unwrap();
    let report = check(&order);
    assert!(report.is_lattice, "{report:?}");
    assert_eq!(
        report.top.map(|t| order.element(t)),
        case["expected_top"].as_str()
    );
    assert_eq!(
        report.bottom.map(|b| order.element(b)),
        case["expected_bottom"].as_str()
    );
}

#[test]
fn powerset_xyz_matches_the_course() {
    let case = &cases()["powerset_xyz"];
    assert_eq!(case["join"], "union");
    let args: Vec<String> = ["powerset", "x", "y", "z"].map(String::from).to_vec();
    let order = build(&args, &BuiltinOptions::default()).unwrap();
    let report = check(&order);
    assert!(report.is_lattice);
    assert_eq!(order.len(), 8, "{}", case["elements"]);
    // The course writes {'x','y','z'} and set().
    let course_set = |s: &str| -> String {
        let atoms: Vec<String> = s
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| w.len() == 1)
            .map(String::from)
            .collect();
        if atoms.is_empty() {
            "∅".into()
        } else {
            format!("{{{}}}", atoms.join(", "))
        }
    };
    assert_eq!(
        report.top.map(|t| order.element(t).to_string()),
        Some(course_set(case["expected_top"].as_str().unwrap()))
    );
    assert_eq!(
        report.bottom.map(|b| order.element(b).to_string()),
        Some(course_set(case["expected_bottom"].as_str().unwrap()))
    );
    // Union is the join: a ⋖ b exactly when b adds one atom to a.
    for (a, b) in named_covers(&order) {
        let size = |s: &str| if s == "∅" { 0 } else { s.split(',').count() };
        assert_eq!(size(&a) + 1, size(&b), "{a} ⋖ {b}");
    }
    assert_eq!(order.covers().len(), 12);
}

/// The README's soundness warning: the course's NONZERO // NONZERO = NONZERO is wrong.
#[test]
fn zero_domain_is_sound_where_the_course_is_not() {
    let soundness = &cases();
    assert!(
        soundness["figure_style"]
            .as_str()
            .unwrap_or("")
            .contains("rankdir=BT")
    );
    let q = Zero::binary(
        BinOp::FloorDiv,
        &Zero::alpha(&BigInt::from(1)),
        &Zero::alpha(&BigInt::from(6)),
    );
    assert!(q.contains(&BigInt::from(0)), "1 // 6 == 0 must be in {q}");
}

/// Builds, checks and lays out (with Graphviz's dot) the Hasse diagram of the powerset of six
/// atoms: 64 elements, 192 covers. Prints the times (`--nocapture` shows them).
#[test]
fn powerset_of_64_elements_is_built_and_laid_out_quickly() {
    let args: Vec<String> = ["powerset", "a", "b", "c", "d", "e", "f"]
        .map(String::from)
        .to_vec();
    let start = Instant::now();
    let order = build(&args, &BuiltinOptions::default()).unwrap();
    let report = check(&order);
    let dot = hasse_dot(&order, &report);
    let built = start.elapsed();
    let svg = dot_to_svg(&dot, &Cancel::new(), Duration::from_secs(60)).unwrap();
    let total = start.elapsed();
    assert_eq!((order.len(), order.covers().len()), (64, 192));
    assert!(report.is_lattice);
    assert_eq!(svg.matches("class=\"node\"").count(), 64);
    assert_eq!(svg.matches("class=\"edge\"").count(), 192);
    println!(
        "powerset of 6 atoms (64 elements, 192 covers): build + law check + DOT {:.2} ms, with dot layout {:.0} ms",
        built.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
    assert!(total < Duration::from_secs(20), "took {total:?}");
}
