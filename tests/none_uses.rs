//! A value that is `None` on a path, used as an operand (issue 15): `%set` says what CPython
//! raises there (type and message) where the use is surely reached, instead of a havoc.
//! Every function's tree is `%check`ed with every witness replayed in CPython reaching its
//! leaf, messages compared; `str(None)` (a value, not modelled) stays approximate.

#[path = "common/everyday.rs"]
mod everyday;

use expect_test::expect;

const EXACT: &[&str] = &[
    "add_one",
    "add_to",
    "power_of",
    "shout",
    "prefix",
    "repeat",
    "triple",
    "length",
    "total",
    "lowered",
    "first",
    "head",
    "negate",
    "below",
    "contains",
    "member",
    "magnitude",
    "parse",
    "doubled_length",
    "guarded",
    "late_check",
    "bigger",
    "fallback",
];

const APPROXIMATE: &[&str] = &["shown"];

fn fixture() -> std::path::PathBuf {
    everyday::sibling_fixture("none_uses/uses.py")
}

#[test]
fn uses_of_none_raise_what_cpython_raises() {
    let records = everyday::run_file(&fixture(), true);
    println!("{}", everyday::report(&records));
    everyday::assert_exact_and_rest(&records, EXACT, APPROXIMATE, everyday::Rest::Approximate);
}

#[test]
fn the_none_branch_of_an_operand_is_a_type_error_leaf() {
    expect![[r#"
        symbolic execution tree of shout(s: str | None), unroll 2: 3 nodes, 2 leaves (1 return, 1 exception)
        [0] L19: return s + "!"  |  {}  |  {s: s}
          [1] ⇒ TypeError: unsupported operand type(s) for +: 'NoneType' and 'str'  |  {s.is_none}  |  {s: None}
          [2] ⇒ return s + '!'  |  {not s.is_none}  |  {s: s}

        leaf  path condition  outcome                                                             final store  witness
        ----  --------------  ------------------------------------------------------------------  -----------  -------
        1     s.is_none       TypeError: unsupported operand type(s) for +: 'NoneType' and 'str'  {s: None}    s=None
        2     not s.is_none   return s + '!'                                                      {s: s}       s=''"#]]
    .assert_eq(&everyday::tree_text(&fixture(), "shout", 2));
}
