//! Dict and set parameters in `%set` (issue 15): forked on their number of entries (keys
//! pairwise distinct), lookups, membership, `len`, `.get`, `.items()` in the witness's
//! order, stores, and returned dicts and sets compared with CPython's as `==` does. Every
//! function's tree is `%check`ed with every witness (a dict or set display) replayed in
//! CPython reaching its leaf; a loop over a set parameter must stay approximate. Optional
//! parameters fork on `None`, keyword-only ones are passed by keyword, and `*args` /
//! `**kwargs` (no input: runs pass none) are a havoc where read.

#[path = "common/everyday.rs"]
mod everyday;

use expect_test::expect;

const EXACT: &[&str] = &[
    "stock_total",
    "price_or_zero",
    "lookup",
    "get_or_default",
    "first_key",
    "is_member",
    "size_of",
    "max_in_set",
    "add_and_count",
    "copy_counts",
    "grade_of",
    "tagged",
    "or_default",
    "label",
    "scaled",
    "merge_counts",
    "with_extra",
    "common_keys",
];

/// `changed_pair` changes one of two dict parameters that may be one dict: neither is read
/// as its value.
const APPROXIMATE: &[&str] = &["sum_set", "count_args", "changed_pair"];

fn fixture() -> std::path::PathBuf {
    everyday::sibling_fixture("set_mappings/params.py")
}

#[test]
fn dict_and_set_parameters_are_explored_and_replayed_in_cpython() {
    let records = everyday::run_file(&fixture(), true);
    println!("{}", everyday::report(&records));
    everyday::assert_exact_and_rest(&records, EXACT, APPROXIMATE, everyday::Rest::Approximate);
}

fn tree_text(name: &str) -> String {
    everyday::tree_text(&fixture(), name, 2)
}

#[test]
fn a_dict_parameter_forks_on_its_size() {
    expect![[r#"
        symbolic execution tree of price_or_zero(prices: dict[str, int], item: str), unroll 2: 12 nodes, 6 leaves (5 return, 1 bound)
        [0] L15: if item in prices:  |  {}  |  {item: item}
          [1] L17: return 0  |  {len(prices.keys) == 0 and len(prices.values) == 0}  |  {item: item, prices: {}}
            [2] ⇒ return 0  |  {len(prices.keys) == 0 and len(prices.values) == 0}  |  {item: item, prices: {}}
          [3] L16: return prices[item]  |  {len(prices.keys) == 1 and len(prices.values) == 1, item in [prices.keys[0]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0]}}
            [4] ⇒ return prices.values[0]  |  {len(prices.keys) == 1 and len(prices.values) == 1, item in [prices.keys[0]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0]}}
          [5] L17: return 0  |  {len(prices.keys) == 1 and len(prices.values) == 1, item not in [prices.keys[0]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0]}}
            [6] ⇒ return 0  |  {len(prices.keys) == 1 and len(prices.values) == 1, item not in [prices.keys[0]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0]}}
          [7] L16: return prices[item]  |  {len(prices.keys) == 2 and len(prices.values) == 2 and not (prices.keys[1] == prices.keys[0]), item in [prices.keys[0], prices.keys[1]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0], prices.keys[1]: prices.values[1]}}
            [8] ⇒ return prices.values[0] if item == prices.keys[0] else prices.values[1]  |  {len(prices.keys) == 2 and len(prices.values) == 2 and not (prices.keys[1] == prices.keys[0]), item in [prices.keys[0], prices.keys[1]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0], prices.keys[1]: prices.values[1]}}
          [9] L17: return 0  |  {len(prices.keys) == 2 and len(prices.values) == 2 and not (prices.keys[1] == prices.keys[0]), item not in [prices.keys[0], prices.keys[1]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0], prices.keys[1]: prices.values[1]}}
            [10] ⇒ return 0  |  {len(prices.keys) == 2 and len(prices.values) == 2 and not (prices.keys[1] == prices.keys[0]), item not in [prices.keys[0], prices.keys[1]]}  |  {item: item, prices: {prices.keys[0]: prices.values[0], prices.keys[1]: prices.values[1]}}
          [11] ⇒ bound reached: the dict prices has more than 2 entries (unroll bound)  |  {len(prices.keys) > 2 and len(prices.values) == len(prices.keys)}  |  {item: item}
        1 path was cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further.

        leaf  path condition                                                                                                                                 outcome                                                                  final store                                                                                 witness
        ----  ---------------------------------------------------------------------------------------------------------------------------------------------  -----------------------------------------------------------------------  ------------------------------------------------------------------------------------------  --------------------------------
        2     len(prices.keys) == 0 and len(prices.values) == 0                                                                                              return 0                                                                 {item: item, prices: {}}                                                                    item='', prices={}
        4     len(prices.keys) == 1 and len(prices.values) == 1 and item in [prices.keys[0]]                                                                 return prices.values[0]                                                  {item: item, prices: {prices.keys[0]: prices.values[0]}}                                    item='!0!', prices={'!0!': 0}
        6     len(prices.keys) == 1 and len(prices.values) == 1 and item not in [prices.keys[0]]                                                             return 0                                                                 {item: item, prices: {prices.keys[0]: prices.values[0]}}                                    item='A', prices={'': 0}
        8     len(prices.keys) == 2 and len(prices.values) == 2 and not (prices.keys[1] == prices.keys[0]) and item in [prices.keys[0], prices.keys[1]]      return prices.values[0] if item == prices.keys[0] else prices.values[1]  {item: item, prices: {prices.keys[0]: prices.values[0], prices.keys[1]: prices.values[1]}}  item='A', prices={'A': 0, '': 0}
        10    len(prices.keys) == 2 and len(prices.values) == 2 and not (prices.keys[1] == prices.keys[0]) and item not in [prices.keys[0], prices.keys[1]]  return 0                                                                 {item: item, prices: {prices.keys[0]: prices.values[0], prices.keys[1]: prices.values[1]}}  item='B', prices={'': 0, 'A': 0}
        11    len(prices.keys) > 2 and len(prices.values) == len(prices.keys)                                                                                bound reached: the dict prices has more than 2 entries (unroll bound)    {item: item}                                                                                item='', prices={'': 0}"#]].assert_eq(&tree_text("price_or_zero"));
}

#[test]
fn an_optional_parameter_forks_on_none() {
    expect![[r#"
        symbolic execution tree of or_default(x: int | None), unroll 2: 5 nodes, 2 leaves (2 return)
        [0] L88: if x is None:  |  {}  |  {x: x}
          [1] L89: return 0  |  {x.is_none}  |  {x: None}
            [2] ⇒ return 0  |  {x.is_none}  |  {x: None}
          [3] L90: return x + 1  |  {not x.is_none}  |  {x: x}
            [4] ⇒ return x + 1  |  {not x.is_none}  |  {x: x}

        leaf  path condition  outcome       final store  witness
        ----  --------------  ------------  -----------  -------
        2     x.is_none       return 0      {x: None}    x=None
        4     not x.is_none   return x + 1  {x: x}       x=0"#]]
    .assert_eq(&tree_text("or_default"));
}
