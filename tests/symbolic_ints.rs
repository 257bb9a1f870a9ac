//! Integer operators in the one value model (issue 15): `& | ^` of bools and with a constant
//! operand, `>>`/`<<` by a constant count, `round()` of an int and `divmod()` of ints.
//! - each expression, evaluated by Z3 (solved, see the shared harness) at a grid of ints
//!   (negative ones, zero, past 64 bits) and bools, agrees with `python3`, exceptions
//!   included;
//! - what is not modelled (two non-constant ints under `&`, a non-constant shift count) is
//!   refused, never guessed; a negative constant shift count always raises;
//! - `%set` on functions using them builds exact trees, and `%check` finds them precise with
//!   every witness reaching its leaf in CPython.

use analysis_kernel::python::{PyValue, lower_expression, lower_module};
use analysis_kernel::symbolic::{TranslateError, translate};

#[path = "common/everyday.rs"]
mod everyday;
mod symbolic {
    pub use analysis_kernel::symbolic::*;
}
mod python {
    pub use analysis_kernel::python::*;
}
#[path = "common/agree.rs"]
mod agree;
#[path = "../src/symbolic/tests/harness.rs"]
mod harness;
#[path = "../src/symbolic/tests/oracle.rs"]
mod oracle;
use agree::{agree_on, env_of};

const EXPRESSIONS: &[&str] = &[
    "x & 1",
    "x & 7",
    "x & 0b11011000",
    "6 & x",
    "x & -8",
    "-3 & x",
    "x & 0",
    "x & -1",
    "x | 5",
    "x | -6",
    "x ^ 12",
    "x ^ -1",
    "(x | 0b1000) & ~1",
    "x & 1180591620717411303427",
    "x & (255 - 16)",
    "x >> 0",
    "x >> 3",
    "x >> 70",
    "x << 2",
    "x << 65",
    "(x & 15) == (x % 16)",
    "a & b",
    "a | b",
    "a ^ b",
    "a & x",
    "x ^ a",
    "a << 3",
    "round(x)",
    "round(a)",
    "divmod(x, y)",
    "divmod(x, y)[1] + 1",
    "divmod(a, y)",
];

fn ints() -> Vec<i128> {
    let mut v: Vec<i128> = (-20..=20).collect();
    v.extend([-257, -256, -255, -129, 100, 127, 128, 255, 256, 1000, -1000]);
    v.extend([1 << 70, (1 << 70) + 5, -(1 << 70) - 3, (1 << 64) - 1]);
    v
}

#[test]
fn bit_operators_round_and_divmod_agree_with_cpython() {
    let ys: [i128; 6] = [-7, -2, 0, 1, 3, 16];
    let inputs: Vec<Vec<(String, PyValue)>> = ints()
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            vec![
                ("x".to_string(), PyValue::Int(x.into())),
                ("y".to_string(), PyValue::Int(ys[i % ys.len()].into())),
                ("a".to_string(), PyValue::Bool(i % 2 == 0)),
                ("b".to_string(), PyValue::Bool(i % 3 == 0)),
            ]
        })
        .collect();
    let n = agree_on("x: int, y: int, a: bool, b: bool", EXPRESSIONS, &inputs);
    assert!(n > 1_500, "{n} cases");
}

#[test]
fn unmodelled_bit_operations_are_refused() {
    let env = env_of("x: int, y: int, f: float");
    for source in ["x & y", "x | y", "x ^ y", "x << y", "x >> y", "round(f)"] {
        let e = translate(&lower_expression(source).unwrap(), &env);
        assert!(
            matches!(e, Err(TranslateError::Unsupported { .. })),
            "{source}: {e:?}"
        );
    }
    for source in ["f & 1", "x >> 1.0"] {
        let e = translate(&lower_expression(source).unwrap(), &env);
        assert!(
            matches!(e, Err(TranslateError::Type { .. })),
            "{source}: {e:?}"
        );
    }
    let e = translate(&lower_expression("x << -1").unwrap(), &env);
    assert!(
        matches!(&e, Err(TranslateError::AlwaysRaises { message, .. }) if message == "negative shift count"),
        "{e:?}"
    );
}

#[test]
fn trees_over_bit_operators_are_exact_and_precise() {
    let path = everyday::sibling_fixture("symbolic_ints").join("bits.py");
    let records = everyday::run_file_with(&path, true, true);
    println!("{}", everyday::report(&records));
    assert_eq!(records.len(), 8);
    for r in &records {
        let facts = everyday::assert_checked(r, true);
        assert_eq!(facts.approximate, 0, "{}: approximate leaves", r.function);
        assert!(facts.leaves >= 2, "{}: {} leaves", r.function, facts.leaves);
        let edges = r
            .constraints
            .as_ref()
            .expect("constraints ran")
            .edges
            .clone();
        let (all, decided) = edges.unwrap_or_else(|e| panic!("{}: {e}", r.function));
        assert_eq!(all, decided, "{}: an undecided edge", r.function);
    }
}

#[test]
fn bit_operators_in_a_tree_and_a_constraints_table() {
    use analysis_kernel::cancel::Cancel;
    use analysis_kernel::constraints::{Mode, Options, analyze};
    let path = everyday::sibling_fixture("symbolic_ints").join("bits.py");
    expect_test::expect![[r#"
        symbolic execution tree of halve_or_quadruple(x: int), unroll 2: 5 nodes, 2 leaves (2 return)
        [0] L11: if x & 1 == 0:  |  {}  |  {x: x}
          [1] L12: return x >> 1  |  {x % 2 == 0}  |  {x: x}
            [2] ⇒ return x // 2  |  {x % 2 == 0}  |  {x: x}
          [3] L13: return x << 2  |  {x % 2 != 0}  |  {x: x}
            [4] ⇒ return x * 4  |  {x % 2 != 0}  |  {x: x}

        leaf  path condition  outcome        final store  witness
        ----  --------------  -------------  -----------  -------
        2     x % 2 == 0      return x // 2  {x: x}       x=0
        4     x % 2 != 0      return x * 4   {x: x}       x=1"#]].assert_eq(&everyday::tree_text(&path, "halve_or_quadruple", 2));
    let source = std::fs::read_to_string(&path).expect("fixture");
    let module = lower_module(&source).expect("parses");
    let f = module
        .functions()
        .find(|f| f.name == "split_minutes")
        .expect("split_minutes");
    let options = Options {
        mode: Mode::Precise,
        path_limit: 64,
        timeout_ms: 10_000,
        given: Vec::new(),
    };
    let analysis = analyze(f, &options, &Cancel::new()).expect("analysis");
    expect_test::expect![[r#"
        constraints of split_minutes(total, per) (SSA versions for reassigned variables)
        parameters: total: int; per: int
        preconditions: (none)

        paths: 3 in all, 3 listed
        id  nodes        feasible  witness          constraints
        --  -----------  --------  ---------------  ----------------------------------------------------------------------------------------------------
        0   0 1 2 3 7    yes       total=0, per=1   hours_1 == total // per; minutes_1 == total % per; per != 0; minutes_1 == 0
        1   0 1 2 4 5 7  yes       total=-1, per=2  hours_1 == total // per; minutes_1 == total % per; per != 0; not (minutes_1 == 0); hours_1 < 0
        2   0 1 2 4 6 7  yes       total=1, per=2   hours_1 == total // per; minutes_1 == total % per; per != 0; not (minutes_1 == 0); not (hours_1 < 0)

        edges:
        edge    label  feasible  paths  adds
        ------  -----  --------  -----  -----------------------------------------------------------
        0 -> 1         yes       0,1,2
        1 -> 2         yes       0,1,2  hours_1 == total // per; minutes_1 == total % per; per != 0
        2 -> 3  True   yes       0      minutes_1 == 0
        2 -> 4  False  yes       1,2    not (minutes_1 == 0)
        3 -> 7         yes       0
        4 -> 5  True   yes       1      hours_1 < 0
        4 -> 6  False  yes       2      not (hours_1 < 0)
        5 -> 7         yes       1
        6 -> 7         yes       2

        conditions:
          L43 minutes == 0: can be True and False
          L45 hours < 0: can be True and False"#]]
        .assert_eq(&analysis_kernel::render::constraints::text(&analysis, None));
}
