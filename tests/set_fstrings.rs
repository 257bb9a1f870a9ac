//! f-strings in `%set`, `%check` and `%constraints` (issue 15): literal parts and `str()` of
//! str, int and bool fields (`!s`, and `!r` of an int or a bool) are exact, evaluated left
//! to right (a field's `IndexError` included); a format spec, `!r` of a str and a float
//! field stay havocs. A user function called in a field runs first, in the fields' order,
//! with its own tree under the call. Every witness is replayed in CPython.

#[path = "common/everyday.rs"]
mod everyday;

const EXACT: &[&str] = &[
    "letter_grade",
    "greet",
    "flagged",
    "labelled",
    "nested",
    "empty_and_constant",
    "raises_in_field",
    "double",
    "report",
];

const APPROXIMATE: &[&str] = &["padded", "quoted", "float_field"];

#[test]
fn fstrings_are_exact_where_str_is_and_replayed_in_cpython() {
    let fixture = everyday::sibling_fixture("fstrings/fstrings.py");
    let records = everyday::run_file(&fixture, true);
    println!("{}", everyday::report(&records));
    everyday::assert_exact_and_rest(&records, EXACT, APPROXIMATE, everyday::Rest::Approximate);
    let tree = everyday::tree_text(&fixture, "letter_grade", 2);
    assert!(
        tree.contains("ValueError: str('bad score ' + str(score))"),
        "{tree}"
    );
}
