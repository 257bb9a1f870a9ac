//! Lists in `%set` (issue 15): in-place updates of owned lists, comprehensions run as
//! loops, `sum` of known lengths. Every function's tree is `%check`ed (witnesses replayed
//! in CPython: no miss); the exact ones must have no approximate leaf, and the aliasing
//! cases (a second name, two list parameters, a call, a container, a `for` over the list
//! being mutated) must stay approximate, since modelling the update on one name there
//! would claim CPython's result falsely. Snapshots show the trees of the new constructs.

#[path = "common/everyday.rs"]
mod everyday;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::python::lower_module;
use analysis_kernel::render::set::{leaf_table_text, text};
use analysis_kernel::symexec::{Options, Program, execute};
use expect_test::expect;

const EXACT: &[&str] = &[
    "squares_upto",
    "evens_of",
    "total_of_positives",
    "count_big",
    "pairs_below",
    "stack_ops",
    "pop_at",
    "set_at",
    "insert_at",
    "pop_param",
    "insert_param",
    "swap_first",
    "helper",
];

const ALIASED: &[&str] = &[
    "alias_append",
    "alias_two_params",
    "alias_through_call",
    "alias_in_container",
    "mutate_while_iterating",
];

fn fixture() -> std::path::PathBuf {
    everyday::fixture_dir()
        .parent()
        .expect("fixtures")
        .join("set_lists/lists.py")
}

#[test]
fn list_updates_are_exact_only_without_aliases_and_checked_in_cpython() {
    let records = everyday::run_file(&fixture(), true);
    println!("{}", everyday::report(&records));
    assert_eq!(records.len(), EXACT.len() + ALIASED.len());
    for r in &records {
        let name = r.function.as_str();
        let set = r
            .set
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: no tree: {e:?}"));
        let check = r.check.as_ref().expect("checked");
        let verdict = check
            .verdict
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(verdict.precise, "{name}: %check is not precise");
        assert_eq!(verdict.witness_misses, 0, "{name}: a witness misses its leaf");
        assert!(verdict.witnesses > 0, "{name}: no witness replayed");
        if EXACT.contains(&name) {
            assert_eq!(set.approximate, 0, "{name}: approximate leaves {:?}", r.havocs);
        } else {
            assert!(ALIASED.contains(&name), "{name} is in neither list");
            assert!(set.approximate > 0, "{name}: an aliased update was modelled");
        }
    }
}

fn tree_text(name: &str, unroll: u64) -> String {
    let source = std::fs::read_to_string(fixture()).expect("fixture");
    let module = lower_module(&source).expect("parses");
    let program = Program::function(name, module.functions(), &[]).expect("program");
    let options = Options {
        unroll,
        ..Options::default()
    };
    let tree = execute(&program, &options, &Cancel::new()).expect("tree");
    format!("{}\n{}", text(&tree), leaf_table_text(&tree))
}

#[test]
fn pop_with_an_index_raises_cpythons_index_error() {
    expect![[r#""#]].assert_eq(&tree_text("pop_at", 2));
}

#[test]
fn item_assignment_out_of_range() {
    expect![[r#""#]].assert_eq(&tree_text("set_at", 2));
}

#[test]
fn a_comprehension_runs_as_its_loop() {
    expect![[r#""#]].assert_eq(&tree_text("evens_of", 2));
}

#[test]
fn sum_of_a_generator() {
    expect![[r#""#]].assert_eq(&tree_text("total_of_positives", 2));
}
