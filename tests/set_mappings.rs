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
    "unhashable_member",
    "set_algebra",
];

const APPROXIMATE: &[&str] = &[
    "alias_dict",
    "dict_through_call",
    "loop_over_set",
    "mutate_while_iterating",
];

fn fixture() -> std::path::PathBuf {
    everyday::sibling_fixture("set_mappings/mappings.py")
}

#[test]
fn dicts_and_sets_are_exact_only_without_aliases_and_checked_in_cpython() {
    let records = everyday::run_file(&fixture(), true);
    println!("{}", everyday::report(&records));
    everyday::assert_exact_and_rest(&records, EXACT, APPROXIMATE, everyday::Rest::Approximate);
}

/// `str(KeyError(k))` is `repr(k)`: raised by `raise KeyError(k)` (or a subclass) and by a
/// lookup of a missing key; every witness's message is compared with CPython's.
#[test]
fn key_errors_carry_the_repr_of_the_key() {
    let fixture = everyday::sibling_fixture("set_mappings/key_errors.py");
    let records = everyday::run_file(&fixture, true);
    println!("{}", everyday::report(&records));
    let exact = [
        "lookup_price",
        "by_number",
        "missing_word",
        "literal_key",
        "known_table",
        "number_table",
    ];
    everyday::assert_exact_and_rest(&records, &exact, &[], everyday::Rest::Approximate);
    let tree = everyday::tree_text(&fixture, "lookup_price", 1);
    assert!(tree.contains("KeyError: repr(item)"), "{tree}");
}

fn tree_text(name: &str) -> String {
    everyday::tree_text(&fixture(), name, 2)
}

#[test]
fn a_lookup_forks_on_the_key_error() {
    expect![[r#"
        symbolic execution tree of lookup_grade(key: str), unroll 2: 4 nodes, 2 leaves (1 return, 1 exception)
        [0] L13: grades = {"a": 4, "b": 3, "c": 2}  |  {}  |  {key: key}
          [1] L14: return grades[key]  |  {}  |  {key: key, grades: {'a': 4, 'b': 3, 'c': 2}}
            [2] ⇒ return 4 if key == 'a' else 3 if key == 'b' else 2  |  {key == 'a' or key == 'b' or key == 'c'}  |  {key: key, grades: {'a': 4, 'b': 3, 'c': 2}}
            [3] ⇒ KeyError: repr(key)  |  {not (key == 'a' or key == 'b' or key == 'c')}  |  {key: key, grades: {'a': 4, 'b': 3, 'c': 2}}

        leaf  path condition                                outcome                                             final store                                   witness
        ----  --------------------------------------------  --------------------------------------------------  --------------------------------------------  -------
        2     key == 'a' or key == 'b' or key == 'c'        return 4 if key == 'a' else 3 if key == 'b' else 2  {key: key, grades: {'a': 4, 'b': 3, 'c': 2}}  key='a'
        3     not (key == 'a' or key == 'b' or key == 'c')  KeyError: repr(key)                                 {key: key, grades: {'a': 4, 'b': 3, 'c': 2}}  key=''"#]].assert_eq(&tree_text("lookup_grade"));
}

#[test]
fn a_set_display_forks_on_equal_items() {
    expect![[r#"
        symbolic execution tree of distinct_count(x: int, y: int, z: int), unroll 2: 11 nodes, 5 leaves (5 return)
        [0] L31: s = {x, y, z}  |  {}  |  {x: x, y: y, z: z}
          [1] L32: return len(s)  |  {y == x, z == x}  |  {x: x, y: y, z: z, s: {x}}
            [2] ⇒ return 1  |  {y == x, z == x}  |  {x: x, y: y, z: z, s: {x}}
          [3] L32: return len(s)  |  {y == x, z != x}  |  {x: x, y: y, z: z, s: {x, z}}
            [4] ⇒ return 2  |  {y == x, z != x}  |  {x: x, y: y, z: z, s: {x, z}}
          [5] L32: return len(s)  |  {y != x, z == x}  |  {x: x, y: y, z: z, s: {x, y}}
            [6] ⇒ return 2  |  {y != x, z == x}  |  {x: x, y: y, z: z, s: {x, y}}
          [7] L32: return len(s)  |  {y != x, z == y}  |  {x: x, y: y, z: z, s: {x, y}}
            [8] ⇒ return 2  |  {y != x, z == y}  |  {x: x, y: y, z: z, s: {x, y}}
          [9] L32: return len(s)  |  {y != x, z != x and z != y}  |  {x: x, y: y, z: z, s: {x, y, z}}
            [10] ⇒ return 3  |  {y != x, z != x and z != y}  |  {x: x, y: y, z: z, s: {x, y, z}}

        leaf  path condition                outcome   final store                       witness
        ----  ----------------------------  --------  --------------------------------  -------------
        2     y == x and z == x             return 1  {x: x, y: y, z: z, s: {x}}        x=2, y=2, z=2
        4     y == x and z != x             return 2  {x: x, y: y, z: z, s: {x, z}}     x=2, y=2, z=3
        6     y != x and z == x             return 2  {x: x, y: y, z: z, s: {x, y}}     x=3, y=2, z=3
        8     y != x and z == y             return 2  {x: x, y: y, z: z, s: {x, y}}     x=3, y=2, z=2
        10    y != x and z != x and z != y  return 3  {x: x, y: y, z: z, s: {x, y, z}}  x=3, y=2, z=4"#]].assert_eq(&tree_text("distinct_count"));
}

#[test]
fn an_overwrite_keeps_the_insertion_order() {
    expect![[r#"
        symbolic execution tree of insertion_order(a: str, b: str), unroll 2: 9 nodes, 2 leaves (2 return)
        [0] L76: d = {}  |  {}  |  {a: a, b: b}
          [1] L77: d[a] = 1  |  {}  |  {a: a, b: b, d: {}}
            [2] L78: d[b] = 2  |  {}  |  {a: a, b: b, d: {a: 1}}
              [3] L79: d[a] = 3  |  {b == a}  |  {a: a, b: b, d: {a: 2}}
                [4] L80: return list(d)  |  {b == a}  |  {a: a, b: b, d: {a: 3}}
                  [5] ⇒ return [a]  |  {b == a}  |  {a: a, b: b, d: {a: 3}}
              [6] L79: d[a] = 3  |  {b != a}  |  {a: a, b: b, d: {a: 1, b: 2}}
                [7] L80: return list(d)  |  {b != a}  |  {a: a, b: b, d: {a: 3, b: 2}}
                  [8] ⇒ return [a, b]  |  {b != a}  |  {a: a, b: b, d: {a: 3, b: 2}}

        leaf  path condition  outcome        final store                    witness
        ----  --------------  -------------  -----------------------------  -----------
        5     b == a          return [a]     {a: a, b: b, d: {a: 3}}        a='', b=''
        8     b != a          return [a, b]  {a: a, b: b, d: {a: 3, b: 2}}  a='', b='A'"#]].assert_eq(&tree_text("insertion_order"));
}
