//! List builtins in `%set` and `%constraints` (issue 15): `enumerate`, `zip` and
//! `reversed` as loop iterables, `sum` of any length (unrolled like a loop), `sorted` (also
//! `reverse=True`),
//! `min`/`max`, `count`, `index`, `remove`, `list(reversed(xs))`, `sep.join(reversed(xs))`,
//! `''.join(reversed(s))`, `xs.sort()` (also `reverse=True`) and `xs[i] = v` on a list
//! of unknown length (forked on its length up to the unroll bound). Every function's tree
//! is `%check`ed (witnesses replayed in CPython: no miss); the exact ones must have no
//! approximate leaf. Snapshots show a tree and a constraints table of the new constructs.

#[path = "common/everyday.rs"]
mod everyday;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::constraints::{Mode, analyze};
use analysis_kernel::python::lower_module;
use expect_test::expect;

/// Functions whose trees must be exact (no approximate leaf).
const EXACT: &[&str] = &[
    "first_zero_at",
    "dot",
    "pair_sums",
    "last_even",
    "backwards",
    "total",
    "sum_range",
    "occurrences",
    "position",
    "where_is_three",
    "tuple_position",
    "middle",
    "smallest",
    "without_first",
    "zero_first",
    "bubble_sort",
    "top_two",
    "last_alphabetically",
    "median_in_place",
    "largest_first",
    "reverse_words",
    "is_palindrome",
];

/// Checked only (float division is approximate: floats are exact reals).
const CHECKED: &[&str] = &["mean"];

fn fixture() -> std::path::PathBuf {
    everyday::sibling_fixture("set_list_builtins/builtins.py")
}

#[test]
fn list_builtins_are_exact_and_checked_in_cpython() {
    let records = everyday::run_file_with(&fixture(), true, true);
    println!("{}", everyday::report(&records));
    everyday::assert_exact_and_rest(&records, EXACT, CHECKED, everyday::Rest::Checked);
}

fn tree_text(name: &str, unroll: u64) -> String {
    everyday::tree_text(&fixture(), name, unroll)
}

#[test]
fn remove_forks_on_the_first_equal_item() {
    expect![[r#"
        symbolic execution tree of without_first(xs: list[int], x: int), unroll 2: 12 nodes, 7 leaves (3 return, 3 exception, 1 bound)
        [0] L75: ys = list(xs)  |  {}  |  {xs: xs, x: x}
          [1] L76: ys.remove(x)  |  {}  |  {xs: xs, x: x, ys: xs}
            [2] ⇒ ValueError: list.remove(x): x not in list  |  {len(xs) == 0}  |  {xs: xs, x: x, ys: []}
            [3] L77: return ys  |  {len(xs) == 1, xs[0] == x}  |  {xs: xs, x: x, ys: []}
              [4] ⇒ return []  |  {len(xs) == 1, xs[0] == x}  |  {xs: xs, x: x, ys: []}
            [5] ⇒ ValueError: list.remove(x): x not in list  |  {len(xs) == 1, xs[0] != x}  |  {xs: xs, x: x, ys: [xs[0]]}
            [6] L77: return ys  |  {len(xs) == 2, xs[0] == x}  |  {xs: xs, x: x, ys: [xs[1]]}
              [7] ⇒ return [xs[1]]  |  {len(xs) == 2, xs[0] == x}  |  {xs: xs, x: x, ys: [xs[1]]}
            [8] L77: return ys  |  {len(xs) == 2, xs[0] != x and xs[1] == x}  |  {xs: xs, x: x, ys: [xs[0]]}
              [9] ⇒ return [xs[0]]  |  {len(xs) == 2, xs[0] != x and xs[1] == x}  |  {xs: xs, x: x, ys: [xs[0]]}
            [10] ⇒ ValueError: list.remove(x): x not in list  |  {len(xs) == 2, xs[0] != x and xs[1] != x}  |  {xs: xs, x: x, ys: [xs[0], xs[1]]}
            [11] ⇒ bound reached: the list ys at line 76 has more than 2 items (unroll bound)  |  {len(xs) > 2}  |  {xs: xs, x: x, ys: xs}
        1 path was cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further.

        leaf  path condition                              outcome                                                                     final store                         witness
        ----  ------------------------------------------  --------------------------------------------------------------------------  ----------------------------------  -----------------
        2     len(xs) == 0                                ValueError: list.remove(x): x not in list                                   {xs: xs, x: x, ys: []}              x=0, xs=[]
        4     len(xs) == 1 and xs[0] == x                 return []                                                                   {xs: xs, x: x, ys: []}              x=2, xs=[2]
        5     len(xs) == 1 and xs[0] != x                 ValueError: list.remove(x): x not in list                                   {xs: xs, x: x, ys: [xs[0]]}         x=3, xs=[2]
        7     len(xs) == 2 and xs[0] == x                 return [xs[1]]                                                              {xs: xs, x: x, ys: [xs[1]]}         x=4, xs=[4, 3]
        9     len(xs) == 2 and xs[0] != x and xs[1] == x  return [xs[0]]                                                              {xs: xs, x: x, ys: [xs[0]]}         x=3, xs=[4, 3]
        10    len(xs) == 2 and xs[0] != x and xs[1] != x  ValueError: list.remove(x): x not in list                                   {xs: xs, x: x, ys: [xs[0], xs[1]]}  x=3, xs=[4, 5]
        11    len(xs) > 2                                 bound reached: the list ys at line 76 has more than 2 items (unroll bound)  {xs: xs, x: x, ys: xs}              x=0, xs=[0, 0, 0]"#]].assert_eq(&tree_text("without_first", 2));
}

#[test]
fn index_of_a_constant_raises_cpythons_value_error() {
    expect![[r#"
        symbolic execution tree of where_is_three(xs: list[int]), unroll 2: 7 nodes, 6 leaves (2 return, 3 exception, 1 bound)
        [0] L58: return xs.index(3)  |  {}  |  {xs: xs}
          [1] ⇒ ValueError: 3 is not in list  |  {len(xs) == 0}  |  {xs: []}
          [2] ⇒ return 0 if xs[0] == 3 else 0  |  {len(xs) == 1, xs[0] == 3}  |  {xs: [xs[0]]}
          [3] ⇒ ValueError: 3 is not in list  |  {len(xs) == 1, xs[0] != 3}  |  {xs: [xs[0]]}
          [4] ⇒ return 0 if xs[0] == 3 else 1 if xs[1] == 3 else 0  |  {len(xs) == 2, not (xs[0] != 3 and xs[1] != 3)}  |  {xs: [xs[0], xs[1]]}
          [5] ⇒ ValueError: 3 is not in list  |  {len(xs) == 2, xs[0] != 3 and xs[1] != 3}  |  {xs: [xs[0], xs[1]]}
          [6] ⇒ bound reached: the list xs at line 58 has more than 2 items (unroll bound)  |  {len(xs) > 2}  |  {xs: xs}
        1 path was cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further.

        leaf  path condition                                    outcome                                                                     final store           witness
        ----  ------------------------------------------------  --------------------------------------------------------------------------  --------------------  ------------
        1     len(xs) == 0                                      ValueError: 3 is not in list                                                {xs: []}              xs=[]
        2     len(xs) == 1 and xs[0] == 3                       return 0 if xs[0] == 3 else 0                                               {xs: [xs[0]]}         xs=[3]
        3     len(xs) == 1 and xs[0] != 3                       ValueError: 3 is not in list                                                {xs: [xs[0]]}         xs=[0]
        4     len(xs) == 2 and not (xs[0] != 3 and xs[1] != 3)  return 0 if xs[0] == 3 else 1 if xs[1] == 3 else 0                          {xs: [xs[0], xs[1]]}  xs=[4, 3]
        5     len(xs) == 2 and xs[0] != 3 and xs[1] != 3        ValueError: 3 is not in list                                                {xs: [xs[0], xs[1]]}  xs=[0, 0]
        6     len(xs) > 2                                       bound reached: the list xs at line 58 has more than 2 items (unroll bound)  {xs: xs}              xs=[0, 0, 0]"#]].assert_eq(&tree_text("where_is_three", 2));
}

#[test]
fn enumerate_in_a_constraints_table() {
    let source = std::fs::read_to_string(fixture()).expect("fixture");
    let module = lower_module(&source).expect("parses");
    let f = module
        .functions()
        .find(|f| f.name == "first_zero_at")
        .expect("first_zero_at");
    let options = analysis_kernel::constraints::Options {
        mode: Mode::Precise,
        path_limit: 64,
        timeout_ms: 10_000,
        given: Vec::new(),
    };
    let analysis = analyze(f, &options, &Cancel::new()).expect("analysis");
    expect![[r#"
        constraints of first_zero_at(xs) (SSA versions for reassigned variables)
        parameters: xs: list[int]
        preconditions: (none)

        paths: 3 in all, 3 listed
        id  nodes      feasible  witness  constraints
        --  ---------  --------  -------  ---------------------------------------------------
        0   0 1 2 3 5  yes       xs=[0]   i_1 == 1; x_1 == xs[0]; 0 < len(xs); x_1 == 0
        1   0 1 2 1    yes       xs=[2]   i_1 == 1; x_1 == xs[0]; 0 < len(xs); not (x_1 == 0)
        2   0 1 4 5    yes       xs=[]    not (0 < len(xs))

        edges:
        edge    label  feasible  paths  adds
        ------  -----  --------  -----  -----------------------------------
        0 -> 1         yes       0,1,2
        1 -> 2  True   yes       0,1    i_1 == 1; x_1 == xs[0]; 0 < len(xs)
        1 -> 4  False  yes       2      not (0 < len(xs))
        2 -> 3  True   yes       0      x_1 == 0
        2 -> 1  False  yes       1      not (x_1 == 0)
        3 -> 5         yes       0
        4 -> 5         yes       2

        conditions:
          L6 x == 0: can be True and False"#]]
    .assert_eq(&analysis_kernel::render::constraints::text(&analysis, None));
}

#[test]
fn sort_in_place_gives_the_list_its_sorted_value() {
    expect![[r#"
        symbolic execution tree of largest_first(xs: list[int]), unroll 2: 13 nodes, 5 leaves (4 return, 1 bound)
        [0] L114: xs.sort(reverse=True)  |  {}  |  {xs: xs}
          [1] L115: if len(xs) >= 2 and xs[0] == xs[1]:  |  {len(xs) == 0}  |  {xs: []}
            [2] L117: return len(xs)  |  {len(xs) == 0}  |  {xs: []}
              [3] ⇒ return 0  |  {len(xs) == 0}  |  {xs: []}
          [4] L115: if len(xs) >= 2 and xs[0] == xs[1]:  |  {len(xs) == 1}  |  {xs: [xs[0]]}
            [5] L117: return len(xs)  |  {len(xs) == 1}  |  {xs: [xs[0]]}
              [6] ⇒ return 1  |  {len(xs) == 1}  |  {xs: [xs[0]]}
          [7] L115: if len(xs) >= 2 and xs[0] == xs[1]:  |  {len(xs) == 2}  |  {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}
            [8] L116: return -1  |  {len(xs) == 2, max(xs[0], xs[1]) == min(xs[0], xs[1])}  |  {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}
              [9] ⇒ return -1  |  {len(xs) == 2, max(xs[0], xs[1]) == min(xs[0], xs[1])}  |  {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}
            [10] L117: return len(xs)  |  {len(xs) == 2, max(xs[0], xs[1]) != min(xs[0], xs[1])}  |  {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}
              [11] ⇒ return 2  |  {len(xs) == 2, max(xs[0], xs[1]) != min(xs[0], xs[1])}  |  {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}
          [12] ⇒ bound reached: the list xs at line 114 has more than 2 items (unroll bound)  |  {len(xs) > 2}  |  {xs: xs}
        1 path was cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further.

        leaf  path condition                                           outcome                                                                      final store                                   witness
        ----  -------------------------------------------------------  ---------------------------------------------------------------------------  --------------------------------------------  -----------------
        3     len(xs) == 0                                             return 0                                                                     {xs: []}                                      xs=[]
        6     len(xs) == 1                                             return 1                                                                     {xs: [xs[0]]}                                 xs=[0]
        9     len(xs) == 2 and max(xs[0], xs[1]) == min(xs[0], xs[1])  return -1                                                                    {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}  xs=[0, 0]
        11    len(xs) == 2 and max(xs[0], xs[1]) != min(xs[0], xs[1])  return 2                                                                     {xs: [max(xs[0], xs[1]), min(xs[0], xs[1])]}  xs=[41062, 41063]
        12    len(xs) > 2                                              bound reached: the list xs at line 114 has more than 2 items (unroll bound)  {xs: xs}                                      xs=[0, 0, 0]"#]].assert_eq(&tree_text("largest_first", 2));
}
