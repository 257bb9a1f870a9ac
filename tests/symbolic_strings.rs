//! String methods modelled exactly in the one value model (issue 15): `s.find(sub)`, and over
//! ASCII the character tests (`isdigit` …) and case maps (`lower`, `upper`, `swapcase`,
//! `capitalize`, `title`).
//! - string pairs over an alphabet with non-ASCII characters and a backslash, evaluated by
//!   Z3 (the lowering) and by the constant folder, agree with `python3`;
//! - the ASCII methods over an ASCII alphabet with every class (Python's `\x1c` whitespace
//!   included) agree with `python3`, solved and evaluated; on a non-ASCII literal they are
//!   refused, never guessed;
//! - `%set` on functions using it builds exact trees, and `%check` finds them precise with
//!   every witness reaching its leaf in CPython.

use analysis_kernel::python::{PyValue, lower_expression, lower_module};
use analysis_kernel::symbolic::simplify::simplify;
use analysis_kernel::symbolic::solver::Solver;
use analysis_kernel::symbolic::translate;

#[path = "common/everyday.rs"]
mod everyday;
#[path = "common/python3.rs"]
mod python3;
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

/// All strings over `alphabet` up to `max` characters.
fn words(alphabet: &[char], max: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..max {
        let next: Vec<String> = last
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        out.extend(next.iter().cloned());
        last = next;
    }
    out
}

#[test]
fn find_agrees_with_cpython() {
    let expressions = ["s.find(t)", "t.find(s) + s.find('1')", "s.find(t) == -1"];
    let strings = words(&['a', '1', '\u{663}', '\u{b2}', '\\'], 3);
    let subs = words(&['a', '1', '\u{663}'], 2);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 300, "{n} cases");
}

/// Each expression (over constants) prints as CPython's `repr` of it, and folds to that text.
fn assert_folds_like_cpython(cases: &[(&str, &str)]) {
    let env = env_of("s: str");
    let script: String = cases
        .iter()
        .map(|(source, _)| format!("print(repr({source}))\n"))
        .collect();
    let python = python3::python3(&["-"], &script);
    for ((source, expected), line) in cases.iter().zip(python.lines()) {
        assert_eq!(&line, expected, "CPython on {source}");
        let t = translate(&lower_expression(source).expect("parses"), &env).expect("translates");
        assert_eq!(simplify(&t.value).to_string(), *expected, "folded {source}");
    }
}

#[test]
fn constant_folding_agrees_with_cpython() {
    let cases = [
        ("'a\u{663}1'.find('\u{663}1')", "1"),
        ("''.find('')", "0"),
        ("'abc'.find('')", "0"),
        ("'abc'.find('d')", "-1"),
        ("'\\\\x'.find('x')", "1"),
    ];
    assert_folds_like_cpython(&cases);
}

/// The function's tree has at least two leaves and none approximate, and `%check` finds it
/// precise with every leaf witness (at least two) replayed to its leaf.
fn assert_exact_and_precise(r: &everyday::Record) {
    let facts = r
        .set
        .as_ref()
        .unwrap_or_else(|e| panic!("{}: {e:?}", r.function));
    assert_eq!(facts.approximate, 0, "{}: approximate leaves", r.function);
    assert!(facts.leaves >= 2, "{}: {} leaves", r.function, facts.leaves);
    let verdict = r
        .check
        .as_ref()
        .and_then(|c| c.verdict.as_ref().ok())
        .unwrap_or_else(|| panic!("{}: no %check verdict: {:?}", r.function, r.check));
    assert!(verdict.precise, "{}: not precise", r.function);
    assert_eq!(verdict.witness_misses, 0, "{}: witness misses", r.function);
    assert!(
        verdict.witnesses >= 2,
        "{}: {} witnesses",
        r.function,
        verdict.witnesses
    );
}

/// The records of `tests/fixtures/everyday_strings/FILE` (with `%constraints` when
/// `constraints`): `count` functions, each with an exact tree `%check` finds precise.
fn everyday_strings_fixture(file: &str, count: usize, constraints: bool) -> Vec<everyday::Record> {
    let path = everyday::sibling_fixture("everyday_strings").join(file);
    let records = everyday::run_file_with(&path, true, constraints);
    println!("{}", everyday::report(&records));
    assert_eq!(records.len(), count);
    for r in &records {
        assert_exact_and_precise(r);
    }
    records
}

/// `%set`'s tree and leaf table of `function`, the one function of `source`.
fn tree_and_leaves(source: &str, function: &str) -> String {
    use analysis_kernel::cancel::Cancel;
    use analysis_kernel::render::set::{leaf_table_text, text};
    use analysis_kernel::symexec::{Options, Program, execute};
    let module = lower_module(source).expect("parses");
    let program = Program::function(function, module.functions(), &[]).expect("program");
    let tree = execute(&program, &Options::default(), &Cancel::new()).expect("tree");
    format!("{}\n{}", text(&tree), leaf_table_text(&tree))
}

#[test]
fn trees_over_find_are_exact_and_precise() {
    everyday_strings_fixture("find.py", 4, false);
}

/// Differential cases of `expressions` over `s` in `strings` and `t` in a third of `subs`
/// (every string with the first few, a stride through the rest), against CPython: solved and
/// evaluated by Z3 alike. The number of cases.
fn agree_with_cpython(expressions: &[&str], strings: &[String], subs: &[String]) -> usize {
    let mut inputs = Vec::new();
    for (i, s) in strings.iter().enumerate() {
        for t_value in subs.iter().skip(i % 3).step_by(3) {
            inputs.push(vec![
                ("s".to_string(), PyValue::Str(s.clone())),
                ("t".to_string(), PyValue::Str(t_value.clone())),
            ]);
        }
    }
    agree_on("s: str, t: str", expressions, &inputs)
}

#[test]
fn strip_count_replace_agree_with_cpython() {
    let expressions = [
        "s.strip()",
        "s.lstrip()",
        "s.rstrip()",
        "s.strip('ab')",
        "s.rstrip('a\\\\')",
        "s.lstrip('') + t",
        "s.count(t)",
        "s.count('aa')",
        "s.count('')",
        "s.replace('a', t)",
        "s.replace('aa', 'a')",
        "s.replace(' ', '')",
        "(s + t).strip() == t.strip() + s",
    ];
    // Python's whitespace beyond ASCII (U+00A0, U+2000, U+3000) and U+2FFFF included.
    let strings = words(&['a', ' ', '\u{a0}', '\u{3000}', '\\', '\u{2ffff}'], 3);
    let subs = words(&['a', ' ', '\u{2000}'], 2);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 2_000, "{n} cases");
}

/// `s.count(pat)` of a constant of several characters (self-overlapping ones too: Python
/// counts left to right without overlap) is a fold through `pat`'s automaton;
/// `''.join(reversed(s))` is `s[::-1]`.
#[test]
fn multi_character_count_and_reversal_agree_with_cpython() {
    let expressions = [
        "s.count('ab')",
        "s.count('aa')",
        "s.count('aba')",
        "s.count('abab')",
        "s.count('a\\\\')",
        "s.count('bab') + s.count('ab')",
    ];
    let strings = words(&['a', 'b', '\\'], 5);
    let subs = words(&['a', 'b'], 1);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 1_500, "{n} cases");
    let reversals = [
        "''.join(reversed(s))",
        "''.join(reversed(s)) == s",
        "''.join(reversed(s + t))",
    ];
    let strings = words(&['a', 'b', '\\'], 3);
    let n = agree_with_cpython(&reversals, &strings, &subs);
    assert!(n > 30, "{n} cases");
}

#[test]
fn conversions_agree_with_cpython() {
    let ints: Vec<i64> = vec![
        -1_114_112, -1000, -10, -1, 0, 1, 7, 10, 65, 97, 127, 128, 0x663, 0x2ffff, 0x110000,
    ];
    let strs = [
        "",
        "0",
        "-7",
        "+12",
        " 42 ",
        "1__0",
        "_1",
        "1_",
        "-",
        "+-1",
        "\t-3\n",
        "007",
        "12a",
        "a",
        "\\",
        "\x1c9\x1f",
        "-0",
    ];
    let mut inputs = Vec::new();
    for (i, n) in ints.iter().enumerate() {
        for s in strs.iter().skip(i % 2).step_by(2) {
            inputs.push(vec![
                ("n".to_string(), PyValue::Int((*n).into())),
                ("s".to_string(), PyValue::Str((*s).to_string())),
            ]);
        }
    }
    let expressions = [
        "str(n)",
        "str(n) + s",
        "len(str(n)) == 2",
        "str(n < 0)",
        "int(s)",
        "int(s) + n",
        "int(s + '0')",
        "chr(n)",
        "ord(s)",
        "ord(chr(n)) == n",
    ];
    let n = agree_on("n: int, s: str", &expressions, &inputs);
    assert!(n > 1_000, "{n} cases");
}

#[test]
fn repetition_by_a_variable_agrees_with_cpython() {
    let mut inputs = Vec::new();
    for n in -2..5i64 {
        for s in words(&['a', '\u{663}'], 2) {
            inputs.push(vec![
                ("n".to_string(), PyValue::Int(n.into())),
                ("s".to_string(), PyValue::Str(s)),
            ]);
        }
    }
    let expressions = [
        "s * n",
        "'ab' * n",
        "n * 'x'",
        "(s * n).count('a')",
        "len(s * n)",
    ];
    let n = agree_on("n: int, s: str", &expressions, &inputs);
    assert!(n > 200, "{n} cases");
}

#[test]
fn str_methods_fold_like_cpython() {
    let cases = [
        ("' \\xa0a b\\u3000'.strip()", "'a b'"),
        ("'xxaxx'.lstrip('x')", "'axx'"),
        ("'xxaxx'.rstrip('x')", "'xxa'"),
        ("'aaaa'.count('aa')", "2"),
        ("'abc'.count('')", "4"),
        ("'aaa'.replace('aa', 'b')", "'ba'"),
        ("str(-120)", "'-120'"),
        ("int(' -1_2 ')", "-12"),
        ("chr(97) + str(ord('b'))", "'a98'"),
    ];
    assert_folds_like_cpython(&cases);
}

#[test]
fn str_methods_outside_the_model_are_refused() {
    // Python's `replace('', x)` inserts `x` between characters; Z3's `str.replace_all` of an
    // empty pattern changes nothing: refused. `int()` reads ASCII only.
    let env = env_of("s: str");
    for (source, why) in [
        ("s.replace('', '-')", "empty old"),
        ("s.replace(s, '-')", "non-constant"),
        ("int(s + '\u{663}')", "not ASCII"),
        ("int(chr(len(s)))", "outside ASCII"),
    ] {
        let err = translate(&lower_expression(source).expect("parses"), &env).expect_err("refused");
        assert!(err.to_string().contains(why), "{source}: {err}");
    }
}

#[test]
fn ascii_char_tests_and_case_maps_agree_with_cpython() {
    let expressions = [
        "s.isdigit()",
        "s.isalpha()",
        "s.isalnum()",
        "s.isspace()",
        "s.isupper()",
        "s.islower()",
        "s.lower()",
        "s.upper()",
        "s.swapcase()",
        "(s + t).isupper() or t.lower() == s",
        "s.upper().isupper() and not s.lower().islower()",
    ];
    let strings = words(&['a', 'Z', '7', ' ', '\x1c', '_'], 3);
    let subs = words(&['b', 'Q', '0'], 2);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 2_000, "{n} cases");
}

#[test]
fn capitalize_and_title_agree_with_cpython() {
    let expressions = [
        "s.capitalize()",
        "s.title()",
        "(s + t).title()",
        "s.title() == t",
        "t.capitalize() == s",
        "s.capitalize() == s.title()",
    ];
    let strings = words(&['a', 'Z', '7', ' ', '\'', 'q'], 3);
    let subs = words(&['b', 'Q', '0', ' '], 2);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 4_000, "{n} cases");
}

#[test]
fn ascii_methods_fold_like_cpython_and_refuse_non_ascii() {
    let cases = [
        ("'Ab1'.isalnum()", "True"),
        ("'AB 1'.isupper()", "True"),
        ("'1 2'.isupper()", "False"),
        ("'\\x1c '.isspace()", "True"),
        ("''.isdigit()", "False"),
        ("'aB_1'.swapcase()", "'Ab_1'"),
        ("'Hi There'.lower()", "'hi there'"),
        ("'hELLO wORLD'.capitalize()", "'Hello world'"),
        ("\"they're 1st a1b\".title()", "\"They'Re 1St A1B\""),
        ("''.title()", "''"),
    ];
    assert_folds_like_cpython(&cases);
    // Python's classes are Unicode-wide ("\u0663".isdigit() is True): a receiver that may hold
    // a character outside ASCII is refused, not answered from the ASCII model.
    let env = env_of("s: str");
    for source in ["(s + '\u{663}').isdigit()", "'\u{df}'.upper()"] {
        let err = translate(&lower_expression(source).expect("parses"), &env).expect_err("refused");
        assert!(err.to_string().contains("not ASCII"), "{source}: {err}");
    }
}

#[test]
fn trees_over_char_classes_are_exact_and_precise() {
    let records = everyday_strings_fixture("char_classes.py", 4, true);
    for r in &records {
        let edges = r.constraints.as_ref().map(|c| c.edges.clone());
        match edges {
            Some(Ok((all, decided))) => assert_eq!(all, decided, "{}: undecided edges", r.function),
            other => panic!("{}: %constraints gave {other:?}", r.function),
        }
    }
}

#[test]
fn trees_over_str_methods_are_exact_and_precise() {
    everyday_strings_fixture("str_methods.py", 6, true);
}

#[test]
fn tree_of_str_methods() {
    let shown = tree_and_leaves(
        "def shout(word: str, times: int) -> str:\n    w = word.strip()\n    if w == '':\n        return ''\n    return w.upper() + '!' * times\n",
        "shout",
    );
    expect_test::expect![[r#"
        symbolic execution tree of shout(word: str, times: int), unroll 4: 6 nodes, 2 leaves (2 return)
        [0] L2: w = word.strip()  |  {}  |  {word: word, times: times}
          [1] L3: if w == '':  |  {}  |  {word: word, times: times, w: word.strip()}
            [2] L4: return ''  |  {word.strip() == ''}  |  {word: word, times: times, w: word.strip()}
              [3] ⇒ return ''  |  {word.strip() == ''}  |  {word: word, times: times, w: word.strip()}
            [4] L5: return w.upper() + '!' * times  |  {word.strip() != ''}  |  {word: word, times: times, w: word.strip()}
              [5] ⇒ return word.strip().upper() + '!' * times  |  {word.strip() != ''}  |  {word: word, times: times, w: word.strip()}
        Input types: strings read by .isdigit()/.isalpha()/.isalnum()/.isspace()/.isupper()/.islower()/.lower()/.upper()/.swapcase()/.capitalize()/.title() are taken to be ASCII.

        leaf  path condition      outcome                                    final store                                  witness
        ----  ------------------  -----------------------------------------  -------------------------------------------  --------------------
        3     word.strip() == ''  return ''                                  {word: word, times: times, w: word.strip()}  times=0, word=''
        5     word.strip() != ''  return word.strip().upper() + '!' * times  {word: word, times: times, w: word.strip()}  times=0, word='\x00'"#]].assert_eq(&shown);
}

#[test]
fn tree_of_title_and_capitalize() {
    let shown = tree_and_leaves(
        "def greet(name: str) -> str:\n    t = name.title()\n    if t == name:\n        return 'already ' + t\n    if name.capitalize() == 'Ab':\n        return 'ab'\n    return t\n",
        "greet",
    );
    expect_test::expect![[r#"
        symbolic execution tree of greet(name: str), unroll 4: 9 nodes, 3 leaves (3 return)
        [0] L2: t = name.title()  |  {}  |  {name: name}
          [1] L3: if t == name:  |  {}  |  {name: name, t: name.title()}
            [2] L4: return 'already ' + t  |  {name.title() == name}  |  {name: name, t: name.title()}
              [3] ⇒ [unknown] return 'already ' + name.title()  |  {name.title() == name}  |  {name: name, t: name.title()}
            [4] L5: if name.capitalize() == 'Ab':  |  {name.title() != name}  |  {name: name, t: name.title()}
              [5] L6: return 'ab'  |  {name.title() != name, name.capitalize() == 'Ab'}  |  {name: name, t: name.title()}
                [6] ⇒ return 'ab'  |  {name.title() != name, name.capitalize() == 'Ab'}  |  {name: name, t: name.title()}
              [7] L7: return t  |  {name.title() != name, name.capitalize() != 'Ab'}  |  {name: name, t: name.title()}
                [8] ⇒ return name.title()  |  {name.title() != name, name.capitalize() != 'Ab'}  |  {name: name, t: name.title()}
        Input types: strings read by .isdigit()/.isalpha()/.isalnum()/.isspace()/.isupper()/.islower()/.lower()/.upper()/.swapcase()/.capitalize()/.title() are taken to be ASCII.
        The solver could not decide some branches (a timeout: %config z3_timeout_ms; the solver time budget; or nonlinear arithmetic): they are kept, with a dashed border, and the 1 leaves below them without a witness are marked [unknown] (feasibility unknown).

        leaf  path condition                                      outcome                                     final store                    witness
        ----  --------------------------------------------------  ------------------------------------------  -----------------------------  ---------
        3     name.title() == name                                [unknown] return 'already ' + name.title()  {name: name, t: name.title()}  -
        6     name.title() != name and name.capitalize() == 'Ab'  return 'ab'                                 {name: name, t: name.title()}  name='aB'
        8     name.title() != name and name.capitalize() != 'Ab'  return name.title()                         {name: name, t: name.title()}  name='h'"#]].assert_eq(&shown);
}

#[test]
fn split_and_join_agree_with_cpython() {
    // Items and counts of split with a separator that overlaps itself and of the
    // whitespace split (Python's whitespace beyond ASCII included); join of displays.
    let expressions = [
        "len(s.split('a')) >= 2",
        "len(s.split('aa'))",
        "len(s.split('a ')) + len(s.split(' '))",
        "'-'.join([s, t, s])",
        "t.join([s])",
        "''.join(())",
    ];
    let strings = words(&['a', ' ', '\u{a0}', '\u{3000}', 'b', '\u{2ffff}'], 3);
    let subs = words(&['a', ' '], 2);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 2_000, "{n} cases");
}

#[test]
fn split_items_agree_with_cpython() {
    use analysis_kernel::symbolic::strfn::StrFn;
    use analysis_kernel::symbolic::{Sort, Term, Var};
    // Each item of s.split(sep) and each "at least k items", solved and evaluated by Z3 at
    // each input, is CPython's: separators that overlap themselves, and whitespace beyond
    // ASCII.
    let strings = words(&['a', ' ', '\u{a0}', 'b', '\u{2029}'], 3);
    let seps: [Option<&str>; 4] = [None, Some("a"), Some("aa"), Some(" b")];
    let s = Term::var(Var::input("s"), Sort::Str).expect("a str");
    let mut terms = Vec::new();
    for sep in seps {
        let owned = sep.map(str::to_string);
        let call = match sep {
            Some(sep) => format!("s.split({sep:?})"),
            None => "s.split()".to_string(),
        };
        for i in 0..4 {
            let item = Term::str_fn(StrFn::SplitItem(owned.clone(), i), vec![s.clone()]);
            let at_least = Term::str_fn(StrFn::SplitAtLeast(owned.clone(), i), vec![s.clone()]);
            terms.push((item.expect("a term"), format!("({call} + [''] * 5)[{i}]")));
            terms.push((at_least.expect("a term"), format!("len({call}) >= {i}")));
        }
    }
    let n = str_terms_agree_with_cpython(terms, &strings);
    assert!(n > 3_000, "{n} cases");
}

/// Evaluates each term over `s: str` (with the Python expression it stands for) at every
/// string, by Z3, and checks each value against CPython's; the number of cases.
fn str_terms_agree_with_cpython(
    terms: Vec<(analysis_kernel::symbolic::Term, String)>,
    strings: &[String],
) -> usize {
    use analysis_kernel::symbolic::Translated;
    let env = env_of("s: str");
    let mut solver = Solver::new(10_000);
    let mut cases = Vec::new();
    let mut ours = Vec::new();
    for (value, source) in terms {
        let t = Translated {
            value,
            raises: Vec::new(),
        };
        for text in strings {
            let inputs = vec![("s".to_string(), PyValue::Str(text.clone()))];
            let outcome = harness::evaluate(&mut solver, &t, &env, &inputs)
                .unwrap_or_else(|e| panic!("{source} at {text:?}: {e}"));
            cases.push(oracle::Case {
                source: source.clone(),
                inputs: vec![("s".to_string(), harness::encode(&inputs[0].1))],
            });
            ours.push((source.clone(), text.clone(), outcome));
        }
    }
    let python = oracle::evaluate(&cases).expect("the CPython oracle runs");
    let mut mismatches = Vec::new();
    for ((source, text, outcome), expected) in ours.iter().zip(&python) {
        if !harness::agrees(outcome, expected).unwrap_or(false) {
            mismatches.push(format!(
                "{source} at {text:?}: ours {outcome:?}, CPython {expected:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    ours.len()
}

#[test]
fn trees_over_split_and_join_are_exact_and_precise() {
    everyday_strings_fixture("split_join.py", 7, true);
}

#[test]
fn tree_of_split_and_join() {
    let shown = tree_and_leaves(
        "def word_count(text: str) -> int:\n    return len(text.split())\n",
        "word_count",
    );
    expect_test::expect![[r#"
        symbolic execution tree of word_count(text: str), unroll 4: 7 nodes, 6 leaves (5 return, 1 bound)
        [0] L2: return len(text.split())  |  {}  |  {text: text}
          [1] ⇒ return 0  |  {not (len(text.split()) >= 1)}  |  {text: text}
          [2] ⇒ return 1  |  {len(text.split()) >= 1 and not (len(text.split()) >= 2)}  |  {text: text}
          [3] ⇒ return 2  |  {len(text.split()) >= 2 and not (len(text.split()) >= 3)}  |  {text: text}
          [4] ⇒ return 3  |  {len(text.split()) >= 3 and not (len(text.split()) >= 4)}  |  {text: text}
          [5] ⇒ return 4  |  {len(text.split()) >= 4 and not (len(text.split()) >= 5)}  |  {text: text}
          [6] ⇒ bound reached: text.split() at line 2 has more than 4 items (unroll bound)  |  {len(text.split()) >= 5}  |  {text: text}
        1 path was cut by a bound (the grey leaves): runs taking them are not covered; raise --unroll or %config recursion_limit to see further.

        leaf  path condition                                           outcome                                                                     final store   witness
        ----  -------------------------------------------------------  --------------------------------------------------------------------------  ------------  -----------------------------------
        1     not (len(text.split()) >= 1)                             return 0                                                                    {text: text}  text=''
        2     len(text.split()) >= 1 and not (len(text.split()) >= 2)  return 1                                                                    {text: text}  text='\x00'
        3     len(text.split()) >= 2 and not (len(text.split()) >= 3)  return 2                                                                    {text: text}  text='\x00\t\x00'
        4     len(text.split()) >= 3 and not (len(text.split()) >= 4)  return 3                                                                    {text: text}  text='\x00\t\x00\t\x00'
        5     len(text.split()) >= 4 and not (len(text.split()) >= 5)  return 4                                                                    {text: text}  text='\x00\t\x00\t\x00\t\x00'
        6     len(text.split()) >= 5                                   bound reached: text.split() at line 2 has more than 4 items (unroll bound)  {text: text}  text='\x00\t\x00\t\x00\t\x00\t\x00'"#]].assert_eq(&shown);
}

/// `%constraints`' text for the one function of `source` (precise mode).
fn constraints_text(source: &str) -> String {
    use analysis_kernel::cancel::Cancel;
    use analysis_kernel::constraints::{Mode, Options, analyze};
    use analysis_kernel::render::constraints::text;
    let module = lower_module(source).expect("parses");
    let f = module.functions().next().expect("a function");
    let options = Options {
        mode: Mode::Precise,
        path_limit: 64,
        timeout_ms: 10_000,
        given: Vec::new(),
    };
    text(
        &analyze(f, &options, &Cancel::new()).expect("analysis"),
        None,
    )
}

#[test]
fn constraints_of_split_and_join() {
    let shown = constraints_text(
        "def row(line: str) -> str:\n    if len(line.split(',')) == 3:\n        return 'three'\n    if '-'.join([line, 'x']) == 'a-x':\n        return 'a'\n    return line\n",
    );
    expect_test::expect![[r#"
        constraints of row(line) (SSA versions for reassigned variables)
        parameters: line: str
        preconditions: (none)

        paths: 3 in all, 3 listed
        id  nodes      feasible  witness     constraints
        --  ---------  --------  ----------  ---------------------------------------------------------------
        0   0 1 2 6    yes       line='A,,'  line.count(',') + 1 == 3
        1   0 1 3 4 6  yes       line='a'    not (line.count(',') + 1 == 3); line + '-' + 'x' == 'a-x'
        2   0 1 3 5 6  yes       line=''     not (line.count(',') + 1 == 3); not (line + '-' + 'x' == 'a-x')

        edges:
        edge    label  feasible  paths  adds
        ------  -----  --------  -----  -------------------------------
        0 -> 1         yes       0,1,2
        1 -> 2  True   yes       0      line.count(',') + 1 == 3
        1 -> 3  False  yes       1,2    not (line.count(',') + 1 == 3)
        2 -> 6         yes       0
        3 -> 4  True   yes       1      line + '-' + 'x' == 'a-x'
        3 -> 5  False  yes       2      not (line + '-' + 'x' == 'a-x')
        4 -> 6         yes       1
        5 -> 6         yes       2

        conditions:
          L2 len(line.split(',')) == 3: can be True and False
          L4 '-'.join([line, 'x']) == 'a-x': can be True and False"#]].assert_eq(&shown);
}

#[test]
fn rfind_index_and_partition_agree_with_cpython() {
    // The last occurrence (of a separator that overlaps itself, of an empty or variable
    // one), the ValueError of index/rindex and of an empty separator, and the 3-tuples.
    let expressions = [
        "s.rfind(t)",
        "s.rfind('aa')",
        "s.rfind('')",
        "s.index(t)",
        "s.rindex('a ')",
        "s.partition(t)",
        "s.rpartition(t)",
        "s.partition('aa')",
        "s.rpartition('aa')[0] + '|' + s.rpartition('aa')[2]",
        "s.rpartition(' ')[1] == ''",
    ];
    let strings = words(&['a', ' ', '\u{a0}', 'b', '\u{2ffff}'], 4);
    let subs = words(&['a', ' '], 2);
    let n = agree_with_cpython(&expressions, &strings, &subs);
    assert!(n > 2_000, "{n} cases");
}

#[test]
fn split_rest_agrees_with_cpython() {
    use analysis_kernel::symbolic::strfn::StrFn;
    use analysis_kernel::symbolic::{Sort, Term, Var};
    // The last item of s.split(sep, k), solved and evaluated by Z3 at each input, is
    // CPython's (`''` where the split has fewer than k + 1 items): separators that overlap
    // themselves, and whitespace beyond ASCII kept at the end of the rest.
    let strings = words(&['a', ' ', '\u{a0}', 'b', '\u{2029}'], 4);
    let seps: [Option<&str>; 4] = [None, Some("a"), Some("aa"), Some(" b")];
    let s = Term::var(Var::input("s"), Sort::Str).expect("a str");
    let mut terms = Vec::new();
    for sep in seps {
        let owned = sep.map(str::to_string);
        let sep_text = sep.map_or("None".to_string(), |s| format!("{s:?}"));
        for k in 0..3 {
            let term = Term::str_fn(StrFn::SplitRest(owned.clone(), k), vec![s.clone()]);
            terms.push((
                term.expect("a term"),
                format!("(s.split({sep_text}, {k}) + [''] * 5)[{k}]"),
            ));
        }
    }
    let n = str_terms_agree_with_cpython(terms, &strings);
    assert!(n > 3_000, "{n} cases");
}

#[test]
fn split_at_most_folds_like_cpython() {
    use analysis_kernel::symbolic::strfn::split_at_most;
    // Rust's fold of s.split(sep, k), item for item, against CPython's; strings travel as
    // code points.
    let codes = |s: &str| {
        let c: Vec<String> = s.chars().map(|c| (c as u32).to_string()).collect();
        format!("[{}]", c.join(","))
    };
    let strings = words(&['a', ' ', '\u{a0}', 'b'], 4);
    let mut cases = Vec::new();
    for s in &strings {
        for sep in [None, Some("a"), Some("aa"), Some(" b")] {
            for k in 0..3 {
                cases.push((s.clone(), sep, k));
            }
        }
    }
    let input: String = cases
        .iter()
        .map(|(s, sep, k)| {
            let sep = sep.map_or("None".to_string(), codes);
            format!("{} {sep} {k}\n", codes(s))
        })
        .collect();
    let script = "import sys\nfrom ast import literal_eval as ev\nt = lambda c: ''.join(map(chr, c))\nfor line in sys.stdin:\n    s, sep, k = line.split(' ')\n    sep = None if sep == 'None' else t(ev(sep))\n    print('|'.join(str([ord(c) for c in w]).replace(' ', '') for w in t(ev(s)).split(sep, int(k))))\n";
    let python = python3::python3(&["-c", script], &input);
    for ((s, sep, k), line) in cases.iter().zip(python.lines()) {
        let ours: Vec<String> = split_at_most(s, *sep, *k)
            .iter()
            .map(|w| codes(w))
            .collect();
        assert_eq!(ours.join("|"), line, "{s:?}.split({sep:?}, {k})");
    }
    assert_eq!(python.lines().count(), cases.len());
}

#[test]
fn trees_over_partition_rfind_and_maxsplit_are_exact_and_precise() {
    everyday_strings_fixture("partition.py", 7, true);
}

#[test]
fn tree_of_partition_and_maxsplit() {
    let shown = tree_and_leaves(
        "def pair(line: str) -> str:\n    head, sep, tail = line.partition('=')\n    if sep:\n        return head\n    parts = line.split(',', 1)\n    return parts[-1]\n",
        "pair",
    );
    expect_test::expect![[r#"
        symbolic execution tree of pair(line: str), unroll 4: 9 nodes, 3 leaves (3 return)
        [0] L2: head, sep, tail = line.partition('=')  |  {}  |  {line: line}
          [1] L3: if sep:  |  {}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2]}
            [2] L4: return head  |  {line.partition('=')[1] != ''}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2]}
              [3] ⇒ return line.partition('=')[0]  |  {line.partition('=')[1] != ''}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2]}
            [4] L5: parts = line.split(',', 1)  |  {line.partition('=')[1] == ''}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2]}
              [5] L6: return parts[-1]  |  {line.partition('=')[1] == '', not (len(line.split(',')) >= 2)}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2], parts: [line.split(',')[0]]}
                [6] ⇒ return line.split(',')[0]  |  {line.partition('=')[1] == '', not (len(line.split(',')) >= 2)}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2], parts: [line.split(',')[0]]}
              [7] L6: return parts[-1]  |  {line.partition('=')[1] == '', len(line.split(',')) >= 2}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2], parts: [line.split(',')[0], line.split(',', 1)[1]]}
                [8] ⇒ return line.split(',', 1)[1]  |  {line.partition('=')[1] == '', len(line.split(',')) >= 2}  |  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2], parts: [line.split(',')[0], line.split(',', 1)[1]]}

        leaf  path condition                                                    outcome                        final store                                                                                                                                                witness
        ----  ----------------------------------------------------------------  -----------------------------  ---------------------------------------------------------------------------------------------------------------------------------------------------------  --------
        3     line.partition('=')[1] != ''                                      return line.partition('=')[0]  {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2]}                                                      line='='
        6     line.partition('=')[1] == '' and not (len(line.split(',')) >= 2)  return line.split(',')[0]      {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2], parts: [line.split(',')[0]]}                         line=''
        8     line.partition('=')[1] == '' and len(line.split(',')) >= 2        return line.split(',', 1)[1]   {line: line, head: line.partition('=')[0], sep: line.partition('=')[1], tail: line.partition('=')[2], parts: [line.split(',')[0], line.split(',', 1)[1]]}  line=','"#]].assert_eq(&shown);
}

#[test]
fn constraints_of_rfind_and_partition() {
    let shown = constraints_text(
        "def ext(name: str) -> str:\n    if name.rfind('.') > 0:\n        return name.rpartition('.')[2]\n    return ''\n",
    );
    expect_test::expect![[r#"
        constraints of ext(name) (SSA versions for reassigned variables)
        parameters: name: str
        preconditions: (none)

        paths: 2 in all, 2 listed
        id  nodes    feasible  witness    constraints
        --  -------  --------  ---------  ---------------------------------------------------------------------------------------------------------
        0   0 1 2 4  yes       name='..'  name.rfind('.') > 0; 2 < len((name.rpartition('.')[0], name.rpartition('.')[1], name.rpartition('.')[2]))
        1   0 1 3 4  yes       name=''    not (name.rfind('.') > 0)

        edges:
        edge    label  feasible  paths  adds
        ------  -----  --------  -----  ------------------------------------------------------------------------------------
        0 -> 1         yes       0,1
        1 -> 2  True   yes       0      name.rfind('.') > 0
        1 -> 3  False  yes       1      not (name.rfind('.') > 0)
        2 -> 4         yes       0      2 < len((name.rpartition('.')[0], name.rpartition('.')[1], name.rpartition('.')[2]))
        3 -> 4         yes       1

        conditions:
          L2 name.rfind('.') > 0: can be True and False"#]].assert_eq(&shown);
}
