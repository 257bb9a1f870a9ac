//! Python semantics, case by case: each expression is translated, evaluated by Z3 under
//! each input set, and compared with CPython evaluating the same text (one `python3` run).

use super::harness::{self, Ours};
use super::oracle::{self, Case};
use super::{env_of, inputs, lower_expression};
use crate::symbolic::solver::{self, Solver};
use crate::symbolic::{ExceptionKind, TranslateError, translate, translate_condition};

/// `(expression, parameters, input sets)`.
type Row = (&'static str, &'static str, &'static [&'static str]);

const INTS: &str = "x: int, y: int";
const SIGNS: &[&str] = &[
    "{'x': 7, 'y': 3}",
    "{'x': 7, 'y': -3}",
    "{'x': -7, 'y': 3}",
    "{'x': -7, 'y': -3}",
    "{'x': 6, 'y': -3}",
    "{'x': -6, 'y': 3}",
    "{'x': 0, 'y': -3}",
    "{'x': 7, 'y': 0}",
];
const STRS: &str = "s: str, t: str, x: int, y: int";
const WORDS: &[&str] = &[
    "{'s': 'abcdefg', 't': 'cd', 'x': 2, 'y': -2}",
    "{'s': 'ab', 't': 'b', 'x': -3, 'y': 5}",
    "{'s': '', 't': '', 'x': 0, 'y': 0}",
    "{'s': 'a\\\\é\\n', 't': 'é', 'x': -1, 'y': 9}",
    "{'s': 'xyz', 't': 'xyzw', 'x': 3, 'y': -9}",
];

const ROWS: &[Row] = &[
    // floor division and modulo, every sign combination (Z3's div/mod are Euclidean)
    ("x // y", INTS, SIGNS),
    ("x % y", INTS, SIGNS),
    ("x / y", INTS, SIGNS),
    (
        "x % -3",
        "x: int",
        &["{'x': 7}", "{'x': -7}", "{'x': 0}", "{'x': 6}"],
    ),
    ("-x // 2", "x: int", &["{'x': 7}", "{'x': -7}"]),
    (
        "f // g",
        "f: float, g: float",
        &[
            "{'f': 7.5, 'g': 2.0}",
            "{'f': -7.5, 'g': 2.0}",
            "{'f': 7.5, 'g': -2.0}",
            "{'f': 1.0, 'g': 0.0}",
        ],
    ),
    (
        "f % g",
        "f: float, g: float",
        &[
            "{'f': 7.5, 'g': 2.0}",
            "{'f': -7.5, 'g': 2.0}",
            "{'f': 7.5, 'g': -2.0}",
            "{'f': -0.5, 'g': -0.25}",
        ],
    ),
    ("x // 2.5", "x: int", &["{'x': 7}", "{'x': -7}"]),
    ("x ** 2 + x ** 0", "x: int", &["{'x': -3}", "{'x': 0}"]),
    ("x ** -1", "x: int", &["{'x': 2}", "{'x': -4}", "{'x': 0}"]),
    ("f ** -2", "f: float", &["{'f': 0.5}", "{'f': 0.0}"]),
    ("(-x) ** 3 - ~x", "x: int", &["{'x': 2}", "{'x': -5}"]),
    ("True + True * x", "x: int", &["{'x': 3}"]),
    ("+True", "", &["{}"]),
    // comparisons, chains, short-circuit
    (
        "0 < x < 10",
        "x: int",
        &["{'x': 5}", "{'x': 0}", "{'x': 10}"],
    ),
    (
        "1 < x // y < 5",
        INTS,
        &["{'x': 7, 'y': 3}", "{'x': 7, 'y': 0}", "{'x': 0, 'y': 0}"],
    ),
    (
        "x < 0 < x // y",
        INTS,
        &[
            "{'x': 1, 'y': 0}",
            "{'x': -1, 'y': 0}",
            "{'x': -7, 'y': -3}",
        ],
    ),
    (
        "y != 0 and x // y > 1",
        INTS,
        &["{'x': 7, 'y': 0}", "{'x': 7, 'y': 3}"],
    ),
    (
        "y == 0 or x % y == 1",
        INTS,
        &["{'x': 7, 'y': 0}", "{'x': 7, 'y': -3}", "{'x': 7, 'y': 3}"],
    ),
    (
        "x // y if y else -1",
        INTS,
        &["{'x': 7, 'y': 0}", "{'x': -7, 'y': 2}"],
    ),
    ("x and y", INTS, &["{'x': 0, 'y': 5}", "{'x': 3, 'y': 5}"]),
    (
        "x or y // x",
        INTS,
        &["{'x': 0, 'y': 5}", "{'x': 3, 'y': 5}"],
    ),
    ("x == 1.0", "x: int", &["{'x': 1}", "{'x': 2}"]),
    ("x / 2 > 1", "x: int", &["{'x': 3}", "{'x': 2}"]),
    ("1 if x > 0 else 2.5", "x: int", &["{'x': 1}", "{'x': 0}"]),
    ("not x", "x: int", &["{'x': 0}", "{'x': 3}"]),
    // builtins
    (
        "min(x, y, 0)",
        INTS,
        &["{'x': 3, 'y': -2}", "{'x': 3, 'y': 4}"],
    ),
    ("max(x, 2.5)", "x: int", &["{'x': 3}", "{'x': -1}"]),
    ("abs(x - y)", INTS, &["{'x': 3, 'y': 5}"]),
    (
        "abs(f) + int(f)",
        "f: float",
        &["{'f': -2.5}", "{'f': 2.75}"],
    ),
    ("float(x) / 4", "x: int", &["{'x': 3}"]),
    ("bool(s)", "s: str", &["{'s': ''}", "{'s': 'a'}"]),
    ("x in [1, 2, 3]", "x: int", &["{'x': 2}", "{'x': 4}"]),
    ("x in {1, 2}", "x: int", &["{'x': 1}", "{'x': 3}"]),
    ("x not in set()", "x: int", &["{'x': 1}"]),
    ("f in [1, 2]", "f: float", &["{'f': 2.0}", "{'f': 2.5}"]),
    ("x in set([1, 2])", "x: int", &["{'x': 2}"]),
    ("x in list((3, 4))", "x: int", &["{'x': 4}"]),
    // strings: negative indices, clamped slices, steps (constant and open bounds)
    ("s[0]", STRS, WORDS),
    ("s[-1]", STRS, WORDS),
    ("s[x]", STRS, WORDS),
    ("s[-4:]", STRS, WORDS),
    ("s[:-3]", STRS, WORDS),
    ("s[-4:-1]", STRS, WORDS),
    ("s[1:5:2]", STRS, WORDS),
    ("s[:5:4]", STRS, WORDS),
    ("s[6:3:-2]", STRS, WORDS),
    ("s[::2]", STRS, WORDS),
    ("s[1::3]", STRS, WORDS),
    ("s[::-1]", STRS, WORDS),
    ("s[::-2]", STRS, WORDS),
    ("s[x:y]", STRS, WORDS),
    ("s[x:y:2]", STRS, WORDS),
    ("s[y:x:-1]", STRS, WORDS),
    ("s[x::-3]", STRS, WORDS),
    ("s[::0]", STRS, WORDS),
    ("len(s) > 2", STRS, WORDS),
    ("t in s", STRS, WORDS),
    ("'b' not in s", STRS, WORDS),
    ("s + t * 2", STRS, WORDS),
    ("s * -1 + t", STRS, WORDS),
    ("s < t", STRS, WORDS),
    ("min(s, t)", STRS, WORDS),
    ("s.startswith(t) or s.endswith('c')", STRS, WORDS),
    ("s == 1", STRS, WORDS),
    ("s or t", STRS, WORDS),
    ("s[x] if len(s) > x >= -len(s) else t", STRS, WORDS),
    // sequences and tuples
    (
        "xs[0] + xs[-1]",
        "xs: list[int]",
        &["{'xs': [1, 2, 3]}", "{'xs': []}", "{'xs': [-4]}"],
    ),
    (
        "xs[1:]",
        "xs: list[int]",
        &["{'xs': [1, 2, 3]}", "{'xs': []}"],
    ),
    (
        "xs[::-1]",
        "xs: list[int]",
        &["{'xs': [1, 2, 3]}", "{'xs': []}"],
    ),
    ("xs[::2]", "xs: list[int]", &["{'xs': [1, 2, 3, 4, 5]}"]),
    (
        "xs[-2:]",
        "xs: list[int]",
        &["{'xs': [1, 2, 3]}", "{'xs': [7]}"],
    ),
    (
        "x in xs",
        "x: int, xs: list[int]",
        &["{'x': 2, 'xs': [1, 2]}", "{'x': 3, 'xs': [1, 2]}"],
    ),
    (
        "xs + [x]",
        "x: int, xs: list[int]",
        &["{'x': 2, 'xs': [1]}"],
    ),
    (
        "xs == [1, 2]",
        "xs: list[int]",
        &["{'xs': [1, 2]}", "{'xs': [1]}"],
    ),
    ("xs == (1, 2)", "xs: list[int]", &["{'xs': [1, 2]}"]),
    ("len(xs) * 2", "xs: list[int]", &["{'xs': [1, 2, 3]}"]),
    (
        "ts[-1]",
        "ts: tuple[str, ...]",
        &["{'ts': ('a', 'b')}", "{'ts': ()}"],
    ),
    ("t[0] + 1", "t: tuple[int, str]", &["{'t': (4, 'a')}"]),
    ("t[-1] * 2", "t: tuple[int, str]", &["{'t': (4, 'ab')}"]),
    (
        "t == (4, 'a')",
        "t: tuple[int, str]",
        &["{'t': (4, 'a')}", "{'t': (4, 'b')}"],
    ),
    ("t[::-1]", "t: tuple[int, str]", &["{'t': (4, 'a')}"]),
    (
        "len(t) + x",
        "t: tuple[int, str], x: int",
        &["{'t': (4, 'a'), 'x': 1}"],
    ),
    ("min(p)", "p: tuple[int, int]", &["{'p': (4, -1)}"]),
    (
        "p[x]",
        "p: tuple[int, int], x: int",
        &["{'p': (4, -1), 'x': -1}", "{'p': (4, -1), 'x': 2}"],
    ),
];

#[test]
fn translations_agree_with_cpython() {
    let mut cases = Vec::new();
    let mut ours = Vec::new();
    let mut solver = Solver::new(20_000);
    for (source, params, input_sets) in ROWS {
        let env = env_of(params);
        let expr = lower_expression(source).expect("parses");
        let t = translate(&expr, &env).unwrap_or_else(|e| panic!("{source}: {e}"));
        for text in *input_sets {
            let values = inputs(text);
            let outcome = harness::evaluate(&mut solver, &t, &env, &values)
                .unwrap_or_else(|e| panic!("{source} at {text}: {e}"));
            cases.push(Case {
                source: source.to_string(),
                inputs: values
                    .iter()
                    .map(|(n, v)| (n.clone(), harness::encode(v)))
                    .collect(),
            });
            ours.push((*source, *text, outcome));
        }
    }
    let python = oracle::evaluate(&cases).expect("the CPython oracle runs");
    let mismatches: Vec<String> = ours
        .iter()
        .zip(&python)
        .filter(|((_, _, o), p)| !harness::agrees(o, p).unwrap_or(false))
        .map(|((s, i, o), p)| format!("{s} at {i}: ours {o:?}, CPython {p:?}"))
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} of {} disagree:\n{}",
        mismatches.len(),
        ours.len(),
        mismatches.join("\n")
    );
    assert!(ours.len() > 250, "{} cases", ours.len());
}

#[test]
fn modulo_takes_the_divisors_sign() {
    // Python: 7 % -3 == -2 and 7 // -3 == -3; Z3's Euclidean mod would say 1 (div -2).
    let env = env_of("x: int");
    for (source, expected) in [("x % -3", -2), ("x // -3", -3)] {
        let t = translate(&lower_expression(source).unwrap(), &env).unwrap();
        let v = harness::evaluate(&mut Solver::default(), &t, &env, &inputs("{'x': 7}")).unwrap();
        assert_eq!(
            v,
            Ours::Value(crate::python::PyValue::Int(expected.into())),
            "{source}"
        );
    }
}

fn raises(source: &str, params: &str) -> Vec<(ExceptionKind, String)> {
    let t = translate(&lower_expression(source).unwrap(), &env_of(params)).unwrap();
    t.raises.iter().map(|(k, c)| (*k, c.to_string())).collect()
}

#[test]
fn raise_conditions_are_exact_and_short_circuit() {
    use ExceptionKind::*;
    assert_eq!(
        raises("x // y", "x: int, y: int"),
        [(ZeroDivisionError, "y == 0".to_string())]
    );
    assert_eq!(raises("x // 2 + x % -2", "x: int"), []);
    assert_eq!(
        raises("s[-1]", "s: str"),
        [(IndexError, "-1 >= len(s) or -1 < -len(s)".to_string())]
    );
    // `y != 0 and x // y > 1` cannot raise: the division runs only when y != 0.
    let env = env_of("x: int, y: int");
    let t = translate_condition(&lower_expression("y != 0 and x // y > 1").unwrap(), &env).unwrap();
    assert_eq!(t.raises.len(), 1);
    assert!(!solver::is_satisfiable(&t.raises_any().unwrap()).unwrap());
    // In a chain, `x // y` is evaluated once and `10 // x` only when the first test holds.
    let t = translate(&lower_expression("0 < x // y < 10 // x").unwrap(), &env).unwrap();
    let kinds: Vec<_> = t.raises.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, [ZeroDivisionError, ZeroDivisionError]);
    assert_eq!(t.value.to_string(), "0 < x // y < 10 // x");
    // The second division cannot fail: it runs only when 0 < x // y, which needs x != 0.
    assert!(!solver::is_satisfiable(&t.raises[1].1).unwrap());
}

#[test]
fn conditions_use_truthiness() {
    let env = env_of("x: int, s: str, xs: list[int]");
    let cond = |src: &str| {
        translate_condition(&lower_expression(src).unwrap(), &env)
            .unwrap()
            .value
            .to_string()
    };
    assert_eq!(cond("x"), "x != 0");
    assert_eq!(cond("s and not xs"), "s != '' and not (len(xs) > 0)");
    assert_eq!(cond("x if s else xs"), "x != 0 if s != '' else len(xs) > 0");
}

#[test]
fn unsupported_constructs_are_named_with_positions() {
    let env = env_of("x: int, s: str, t: tuple[int, str], xs: list[int]");
    let err = |src: &str| translate(&lower_expression(src).unwrap(), &env).unwrap_err();
    let construct = |src: &str| match err(src) {
        TranslateError::Unsupported {
            construct,
            line,
            column,
        } => (construct, line, column),
        other => panic!("{src}: {other}"),
    };
    assert_eq!(construct("x << x").0, "a shift by a non-constant count");
    assert_eq!(construct("x @ x").0, "the operator @");
    assert_eq!(
        construct("1 + s.expandtabs()"),
        ("the method .expandtabs()".to_string(), 1, 5)
    );
    assert_eq!(
        construct("x ** x").0,
        "** with an exponent that is not an integer constant"
    );
    assert_eq!(
        construct("s[::x]").0,
        "a slice step that is not an integer constant"
    );
    assert_eq!(construct("[i for i in xs]").0, "a comprehension");
    assert_eq!(construct("x is None").0, "the operator 'is'");
    assert_eq!(construct("xs * x").0, "repetition by a non-constant count");
    assert_eq!(construct("g(x)").0, "the call g()");
    assert!(matches!(err("y > 0"), TranslateError::UnknownName { ref name, .. } if name == "y"));
    assert!(matches!(err("x + s"), TranslateError::Type { .. }));
    assert!(matches!(err("x[1]"), TranslateError::Type { .. }));
    assert!(matches!(err("x < s"), TranslateError::Type { .. }));
    assert!(matches!(
        err("t[2]"),
        TranslateError::AlwaysRaises {
            exception: ExceptionKind::IndexError,
            ..
        }
    ));
}
