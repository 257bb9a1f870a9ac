//! Python's facts (`src/python/`) against CPython (`python3`): the builtin exception
//! hierarchy (`issubclass` for every pair of classes), the other builtin names with their kinds
//! and docs, `//` and `%` on ints and floats, and the error messages several engines raise.

use std::process::Command;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

use analysis_kernel::interp;
use analysis_kernel::python::{arith, builtins, exceptions, messages, repr};
use num_bigint::BigInt;

fn python(script: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", script])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn exception_bases_are_cpythons() {
    let mut names: Vec<&str> = exceptions::HIERARCHY.iter().map(|(n, _)| *n).collect();
    names.push("BaseException");
    let script = format!(
        "import builtins\nns = {names:?}\nfor a in ns:\n    print(' '.join(b for b in ns if issubclass(getattr(builtins, a), getattr(builtins, b))))\n"
    );
    let got: Vec<String> = names
        .iter()
        .map(|a| {
            names
                .iter()
                .filter(|b| exceptions::is_subclass(a, b))
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(python(&script).lines().collect::<Vec<_>>(), got);
    for alias in ["IOError", "EnvironmentError"] {
        let same = python(&format!("print({alias} is OSError)"));
        assert_eq!(same.trim(), "True");
        assert!(exceptions::is_subclass(alias, "OSError") && exceptions::is_builtin(alias));
    }
    let all = python(
        "import builtins\nfor n in dir(builtins):\n    v = getattr(builtins, n)\n    if isinstance(v, type) and issubclass(v, BaseException):\n        print(n)\n",
    );
    let missing: Vec<&str> = all.lines().filter(|n| !exceptions::is_builtin(n)).collect();
    assert!(missing.is_empty(), "not in the hierarchy: {missing:?}");
}

/// Each builtin that is not an exception class, as `name kind doc`, the way CPython lists them.
const LIST_BUILTINS: &str = r#"
import builtins
SITE = {"copyright", "credits", "license", "exit", "quit", "help"}
CONSTANTS = {"True", "False", "None", "Ellipsis", "NotImplemented"}
for name in dir(builtins):
    value = getattr(builtins, name)
    if name.startswith("_") or isinstance(value, type) and issubclass(value, BaseException):
        continue
    if name in SITE:
        kind, doc = "Site", ""
    elif name in CONSTANTS:
        kind, doc = "Constant", ""
    else:
        kind = "Type" if isinstance(value, type) else "Function"
        doc = (value.__doc__ or "").strip().split("\n")[0]
    print(name, kind, doc)
"#;

#[test]
fn builtin_names_kinds_and_docs_are_cpythons() {
    let ours: Vec<String> = builtins::BUILTINS
        .iter()
        .map(|b| format!("{} {:?} {}", b.name, b.kind, b.doc))
        .collect();
    assert_eq!(python(LIST_BUILTINS).lines().collect::<Vec<_>>(), ours);
}

/// Each shared message, with an expression CPython raises it for.
const MESSAGES: &[(&str, &str)] = &[
    (messages::DIVISION_BY_ZERO, "1 / 0"),
    (messages::FLOAT_DIVISION_BY_ZERO, "1.0 / 0"),
    (messages::INT_DIVISION_BY_ZERO, "1 // 0"),
    (messages::INT_DIVISION_BY_ZERO, "divmod(1, 0)"),
    (messages::INT_MODULO_BY_ZERO, "1 % 0"),
    (messages::FLOAT_FLOOR_DIVISION_BY_ZERO, "1.0 // 0"),
    (messages::FLOAT_MODULO_BY_ZERO, "1.0 % 0"),
    (messages::RANGE_STEP_ZERO, "range(1, 2, 0)"),
    (messages::LIST_INDEX_OUT_OF_RANGE, "[][0]"),
    (messages::TUPLE_INDEX_OUT_OF_RANGE, "()[0]"),
    (messages::STR_INDEX_OUT_OF_RANGE, "''[0]"),
];

#[test]
fn shared_error_messages_are_cpythons() {
    let exprs: Vec<String> = MESSAGES.iter().map(|(_, e)| format!("{e:?}")).collect();
    let script = format!(
        "for e in [{}]:\n    try:\n        eval(e)\n    except Exception as x:\n        print(x)",
        exprs.join(", ")
    );
    let printed = python(&script);
    let ours: Vec<&str> = MESSAGES.iter().map(|(m, _)| *m).collect();
    assert_eq!(printed.lines().collect::<Vec<_>>(), ours);
}

#[test]
fn floor_division_and_modulo_are_cpythons() {
    let ints: Vec<i64> = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        7,
        -7,
        10,
        -10,
        i64::MAX,
        i64::MIN,
        1 << 40,
    ];
    let mut pairs = Vec::new();
    for &a in &ints {
        for &b in &ints {
            if b != 0 {
                pairs.push((a, b));
            }
        }
    }
    let expected = python(&format!(
        "for a, b in [{}]:\n    print(a // b, a % b)\n",
        pairs
            .iter()
            .map(|(a, b)| format!("({a}, {b})"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let got: Vec<String> = pairs
        .iter()
        .map(|&(a, b)| {
            let (x, y) = (BigInt::from(a), BigInt::from(b));
            let q = arith::floor_div(&x, &y).expect("b != 0");
            let r = arith::modulo(&x, &y).expect("b != 0");
            if let (Some(sq), Some(sr)) = (arith::floor_div_i64(a, b), arith::mod_i64(a, b)) {
                assert_eq!((BigInt::from(sq), BigInt::from(sr)), (q.clone(), r.clone()));
            }
            format!("{q} {r}")
        })
        .collect();
    assert_eq!(expected.lines().collect::<Vec<_>>(), got);
    let floats = [
        0.0,
        -0.0,
        1.5,
        -1.5,
        7.0,
        -7.0,
        0.1,
        1e300,
        -1e-300,
        f64::INFINITY,
    ];
    let mut fpairs = Vec::new();
    for &a in &floats {
        for &b in &floats {
            if b != 0.0 && a.is_finite() {
                fpairs.push((a, b));
            }
        }
    }
    let expected = python(&format!(
        "for a, b in [{}]:\n    q, r = divmod(a, b)\n    print(repr(q), repr(r))\n",
        fpairs
            .iter()
            .map(|(a, b)| format!("(float('{a:?}'), float('{b:?}'))"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let got: Vec<String> = fpairs
        .iter()
        .map(|&(a, b)| {
            let (q, r) = arith::float_divmod(a, b);
            format!("{} {}", py_float(q), py_float(r))
        })
        .collect();
    assert_eq!(expected.lines().collect::<Vec<_>>(), got);
}

/// A float as Python's `repr` writes these values.
fn py_float(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x.is_nan() {
        return "nan".into();
    }
    let s = format!("{x:?}");
    if s.contains('e') {
        // Rust writes 1e300 where Python writes 1e+300.
        let (m, e) = s.split_once('e').expect("an exponent");
        let e = if e.starts_with('-') {
            e.to_string()
        } else {
            format!("+{e}")
        };
        let m = m.strip_suffix(".0").unwrap_or(m);
        format!("{m}e{e}")
    } else {
        s
    }
}

#[test]
fn every_builtin_name_is_implemented_or_refused_by_name_in_cells() {
    // `True`, `False` and `None` are keywords, never looked up.
    let unknown: Vec<&str> = builtins::BUILTINS
        .iter()
        .map(|b| b.name)
        .chain(exceptions::HIERARCHY.iter().map(|(n, _)| *n))
        .chain(["BaseException", "IOError", "EnvironmentError"])
        .filter(|n| !matches!(*n, "True" | "False" | "None"))
        .filter(|n| interp::builtin_support(n).is_none())
        .collect();
    assert!(unknown.is_empty(), "NameError for builtins: {unknown:?}");
}

/// `repr` of random floats (any bit pattern, and short decimals) and of strings mixing quotes,
/// escapes, Latin-1, other scripts, separators and private-use characters, against `python3`.
#[test]
fn float_str_and_bytes_reprs_are_cpythons() {
    let mut rng = Rng::new(14);
    let mut floats: Vec<f64> = (0..400).map(|_| f64::from_bits(rng.next())).collect();
    floats.extend((0..200).map(|_| rng.range(-100_000, 100_000) as f64 / 1000.0));
    floats.extend([0.1, 1e16, 1e-4, 9.999e-5, 1e22, 5e-324, f64::MAX, -0.0]);
    let floats: Vec<f64> = floats.into_iter().filter(|f| f.is_finite()).collect();
    let alphabet: Vec<char> = "ab'\"\\\n\r\t\0\x07\x7f é\u{a0}\u{ad}ÿĀλЖ中\u{200b}\u{2028}\u{3000}\u{e000}\u{feff}😀\u{10ffff}"
        .chars()
        .collect();
    let strings: Vec<String> = (0..300)
        .map(|_| (0..rng.below(6)).map(|_| *rng.pick(&alphabet)).collect())
        .collect();
    let bytes: Vec<Vec<u8>> = (0..200)
        .map(|_| (0..rng.below(6)).map(|_| rng.next() as u8).collect())
        .collect();
    let floats_py: Vec<String> = floats
        .iter()
        .map(|f| format!("float.fromhex('{}')", hex(*f)))
        .collect();
    let strings_py: Vec<Vec<u32>> = strings
        .iter()
        .map(|s| s.chars().map(|c| c as u32).collect())
        .collect();
    let script = format!(
        "import sys\nsys.stdout.reconfigure(encoding='utf-8')\n\
         for x in [{}]:\n    print(repr(x))\n\
         for c in {strings_py:?}:\n    print(repr(''.join(map(chr, c))))\n\
         for b in {bytes:?}:\n    print(repr(bytes(b)))\n",
        floats_py.join(", "),
    );
    let ours: Vec<String> = floats
        .iter()
        .map(|f| repr::float_repr(*f))
        .chain(strings.iter().map(|s| repr::str_repr(s)))
        .chain(bytes.iter().map(|b| repr::bytes_repr(b)))
        .collect();
    let theirs = python(&script);
    let theirs: Vec<&str> = theirs.lines().collect();
    assert_eq!(theirs.len(), ours.len());
    for (t, o) in theirs.iter().zip(&ours) {
        assert_eq!(t, o);
    }
}

/// `f` as `float.hex` writes it, so that `python3` reads the exact same bits.
fn hex(f: f64) -> String {
    let bits = f.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = bits & ((1 << 52) - 1);
    if exp == 0 {
        format!("{sign}0x0.{mantissa:013x}p-1022")
    } else {
        format!("{sign}0x1.{mantissa:013x}p{}", exp - 1023)
    }
}
