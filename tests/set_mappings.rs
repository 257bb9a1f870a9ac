//! Dicts and sets in `%set` (issue 15): displays, `{}`/`dict()`/`set()`/`set(xs)`, lookups
//! with their `KeyError`, stores, `in`, `len`, `.get`, `.pop`, `.setdefault`, `del`,
//! `add`/`discard`/`remove`, insertion order, set comparisons and order-free builtins of
//! sets. Every function's tree is `%check`ed (witnesses replayed in CPython: no miss); the
//! exact ones must have no approximate leaf, and the aliasing and order-dependent cases (a
//! second name, a call, a loop over a set, a dict mutated while iterated) must stay
//! approximate, since modelling them would claim CPython's result falsely.

#[path = "common/everyday.rs"]
mod everyday;

use expect_test::expect;

const EXACT: &[&str] = &[
    "word_counts",
    "lookup_grade",
    "get_default",
    "get_none",
    "distinct_count",
    "set_add_discard",
    "remove_item",
    "pop_with_default",
    "pop_missing",
    "delete_key",
    "set_default",
    "insertion_order",
    "values_in_order",
    "sum_items",
    "count_up",
    "subset_of",
    "sorted_set",
    "set_of_list",
    "numeric_keys",
    "unhashable_key",
    "mutate",
    "squares_dict",
    "distinct_mods",
];

const APPROXIMATE: &[&str] = &[
    "alias_dict",
    "dict_through_call",
    "loop_over_set",
    "mutate_while_iterating",
];

fn fixture() -> std::path::PathBuf {
    everyday::fixture_dir()
        .parent()
        .expect("fixtures")
        .join("set_mappings/mappings.py")
}

#[test]
fn dicts_and_sets_are_exact_only_without_aliases_and_checked_in_cpython() {
    let records = everyday::run_file(&fixture(), true);
    println!("{}", everyday::report(&records));
    assert_eq!(records.len(), EXACT.len() + APPROXIMATE.len());
    for r in &records {
        let name = r.function.as_str();
        let set = everyday::assert_checked(r, EXACT.contains(&name));
        if EXACT.contains(&name) {
            assert_eq!(
                set.approximate, 0,
                "{name}: approximate leaves {:?}",
                r.havocs
            );
        } else {
            assert!(APPROXIMATE.contains(&name), "{name} is in neither list");
            assert!(set.approximate > 0, "{name}: an unsound case was modelled");
        }
    }
}

fn tree_text(name: &str) -> String {
    everyday::tree_text(&fixture(), name, 2)
}

#[test]
fn a_lookup_forks_on_the_key_error() {
    expect![[r#""#]].assert_eq(&tree_text("lookup_grade"));
}

#[test]
fn a_set_display_forks_on_equal_items() {
    expect![[r#""#]].assert_eq(&tree_text("distinct_count"));
}

#[test]
fn an_overwrite_keeps_the_insertion_order() {
    expect![[r#""#]].assert_eq(&tree_text("insertion_order"));
}
