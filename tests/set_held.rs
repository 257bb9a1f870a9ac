//! Sets built inside an expression (issue 15): `len(set(xs))`, `sorted(set(xs))`,
//! `sorted(set(a) & set(b))` are computed into a temporary first, so `%set` models them as
//! sets of known structure (forking on which items are equal) instead of a havoc. Every
//! function's tree is `%check`ed with every witness replayed in CPython.

#[path = "common/everyday.rs"]
mod everyday;

const EXACT: &[&str] = &[
    "distinct_count",
    "all_distinct",
    "unique_sorted",
    "second_largest",
    "common",
    "only_left",
    "has_duplicates",
    "largest_distinct",
    "member_of_both",
];

#[test]
fn sets_built_in_expressions_are_modelled_and_replayed_in_cpython() {
    let fixture = everyday::sibling_fixture("set_mappings/held.py");
    let records = everyday::run_file(&fixture, true);
    println!("{}", everyday::report(&records));
    everyday::assert_exact_and_rest(&records, EXACT, &[], everyday::Rest::Approximate);
}
