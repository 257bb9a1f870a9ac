//! A function's contract (docstring postconditions, PythonTA's forms) and the harnesses
//! `%verify` and `%equiv` execute: generated Python functions that call the function(s)
//! under test and `assert` each obligation, so the symbolic interpreter's own forks on
//! `assert` decide them (an infeasible failing branch is a proof on that path).

use std::collections::BTreeMap;

use super::super::SymexecError;
use super::invariant::Rewritten;
use crate::constraints::docstring::{RETURN_VALUE, postconditions};
use crate::python::ir::{ComprehensionKind, Expr, ExprKind, Function, ParamKind};

/// The harness function of `%verify f`.
pub fn verify_name(f: &str) -> String {
    format!("__verify_{f}__")
}

/// The harness function of `%equiv f g`.
pub const EQUIV_NAME: &str = "__equiv__";

/// How a postcondition is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// One `assert`.
    Plain,
    /// `all(...)` / `any(...)` over a range or sequence: unrolled as a `for` loop, so it is
    /// checked for every length up to the unroll bound (longer inputs end in bound leaves).
    Bounded(&'static str),
    /// `all(...)` / `any(...)` over a range or sequence, checked as one `assert` the solver
    /// decides as a quantifier over the positions (no bound; Z3 may answer unknown).
    Quantified(&'static str),
    /// Not a Python expression (the reason): not checked.
    Unreadable(String),
}

/// One obligation: a postcondition of the docstring, an `assert` met in the body, or one of
/// `%equiv`'s two comparisons.
#[derive(Clone, Debug, PartialEq)]
pub struct Obligation {
    /// `P1`, `A2`, `E1`.
    pub label: String,
    /// `postcondition`, `assert`, `same outcome`, `same result`.
    pub kind: &'static str,
    pub text: String,
    /// The function the assert is in, with its line (cell-relative).
    pub place: Option<(String, u32)>,
    pub form: Form,
}

/// The generated harness: its source, and which obligation each of its lines checks.
#[derive(Clone, Debug)]
pub struct Harness {
    pub name: String,
    pub source: String,
    pub lines: BTreeMap<u32, usize>,
    pub obligations: Vec<Obligation>,
    /// Lines of the guards of preconditions the solver cannot take (a return there is an
    /// input excluded by a precondition).
    pub pre_lines: Vec<u32>,
    /// The harness's parameters: the function's, then the loop state of `inner`.
    pub parameters: Vec<String>,
    /// The loop state's inputs and their sorts (havocked by loop invariants).
    pub state: Vec<(String, crate::symbolic::Sort)>,
    /// The function rewritten by its loop invariants, called instead of it.
    pub inner: Option<Inner>,
    /// Callees replaced by their contracts' stubs (`--summaries`).
    pub stubs: Stubs,
}

/// The stubs of `--summaries` inside a harness (see [`super::summary`]).
#[derive(Clone, Debug, Default)]
pub struct Stubs {
    pub replaced: Vec<String>,
    /// Harness line → index into the obligations (the callees' preconditions).
    pub lines: BTreeMap<u32, usize>,
    /// Harness lines whose `raise` ends a path the callee's postconditions exclude.
    pub excluded: Vec<u32>,
    /// Definitions the replay adds (the real callees renamed, and checking wrappers).
    pub replay: Vec<String>,
    /// The harness's own lines (the stubs come after them).
    pub offset: u32,
}

impl Harness {
    /// Adds the stubs of `s` after the harness.
    pub fn add_stubs(&mut self, s: &super::summary::Summaries) {
        if s.replaced.is_empty() {
            return;
        }
        let offset = self.source.lines().count() as u32;
        let shift = self.obligations.len();
        self.source.push_str(&s.source);
        self.obligations.extend(s.obligations.iter().cloned());
        self.stubs = Stubs {
            replaced: s.replaced.clone(),
            lines: s
                .lines
                .iter()
                .map(|(l, o)| (l + offset, o + shift))
                .collect(),
            excluded: s.excluded.iter().map(|l| l + offset).collect(),
            replay: s.replay.clone(),
            offset,
        };
    }
}

/// The rewritten function a harness calls (see [`super::invariant`]), its lines read back.
#[derive(Clone, Debug)]
pub struct Inner {
    pub name: String,
    /// The function it stands for.
    pub function: String,
    /// Its line → index into the harness's obligations.
    pub lines: BTreeMap<u32, usize>,
    /// Lines whose `raise` ends an excluded path.
    pub excluded: Vec<u32>,
    /// Its line → the function's own line.
    pub original: BTreeMap<u32, u32>,
    /// Lines where a path starts running from a havocked loop state.
    pub assumed: Vec<u32>,
}

/// Builds lines of Python, remembering which obligation each line serves.
struct Writer {
    lines: Vec<String>,
    owner: BTreeMap<u32, usize>,
}

impl Writer {
    fn line(&mut self, depth: usize, text: &str, obligation: Option<usize>) {
        self.lines.push(format!("{}{text}", "    ".repeat(depth)));
        if let Some(o) = obligation {
            self.owner.insert(self.lines.len() as u32, o);
        }
    }
}

/// The call `f(a, b, k=k)` with the parameters as arguments; `*args`/`**kwargs` refused.
fn call(f: &Function, callee: &str) -> Result<String, SymexecError> {
    let mut args = Vec::new();
    for p in &f.params {
        match p.kind {
            ParamKind::PositionalOnly | ParamKind::Positional => args.push(p.name.clone()),
            ParamKind::KeywordOnly => args.push(format!("{0}={0}", p.name)),
            ParamKind::VarArgs | ParamKind::KwArgs => {
                return Err(SymexecError::Unsupported {
                    construct: format!("a contract of {}() with *args or **kwargs", f.name),
                    line: 0,
                });
            }
        }
    }
    Ok(format!("{callee}({})", args.join(", ")))
}

fn header(name: &str, f: &Function) -> String {
    let params: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
    format!("def {name}({}):", params.join(", "))
}

/// The harness of `%verify f`: calls `f`, binds `$return_value`, asserts each
/// postcondition (one `assert`, or a loop for `all`/`any` over a generator).
///
/// With `inner` (`f` rewritten by its loop invariants), the harness calls it instead, with
/// the loop state as extra inputs, and its obligations come after the postconditions.
pub fn verify(f: &Function, inner: Option<&Rewritten>) -> Result<Harness, SymexecError> {
    let name = verify_name(&f.name);
    let mut w = Writer {
        lines: Vec::new(),
        owner: BTreeMap::new(),
    };
    let state: Vec<(String, crate::symbolic::Sort)> =
        inner.map(|r| r.state.clone()).unwrap_or_default();
    if let Some(r) = inner {
        w.lines.extend(r.source.lines().map(str::to_string));
    }
    let mut parameters: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    parameters.extend(state.iter().map(|(n, _)| n.clone()));
    w.line(0, &format!("def {name}({}):", parameters.join(", ")), None);
    let params: Vec<&str> = parameters.iter().map(String::as_str).collect();
    let mut pre_lines = Vec::new();
    guards(&mut w, f, &params, &mut pre_lines);
    let called = match inner {
        Some(r) => format!("{}({})", r.name, parameters.join(", ")),
        None => call(f, &f.name)?,
    };
    w.line(1, &format!("{RETURN_VALUE} = {called}"), None);
    let mut obligations = Vec::new();
    for (i, written) in postconditions(f.docstring.as_deref().unwrap_or(""))
        .into_iter()
        .enumerate()
    {
        let label = format!("P{}", i + 1);
        let message = format!("\"postcondition {}\"", i + 1);
        let form = match &written.expr {
            Err(why) => Form::Unreadable(why.clone()),
            Ok(e) => check(
                &mut w,
                e,
                &Fail::Assert(&message),
                Some(i),
                &params,
                &format!("__any_{}__", i + 1),
            ),
        };
        obligations.push(Obligation {
            label,
            kind: "postcondition",
            text: written.text,
            place: None,
            form,
        });
    }
    w.line(1, &format!("return {RETURN_VALUE}"), None);
    let inner = inner.map(|r| {
        let shift = obligations.len();
        obligations.extend(r.obligations.iter().cloned());
        Inner {
            name: r.name.clone(),
            function: f.name.clone(),
            lines: r.lines.iter().map(|(l, o)| (*l, o + shift)).collect(),
            excluded: r.excluded.clone(),
            original: r.original.clone(),
            assumed: r.assumed.clone(),
        }
    });
    Ok(Harness {
        name,
        source: w.lines.join("\n") + "\n",
        lines: w.owner,
        obligations,
        pre_lines,
        parameters,
        state,
        inner,
        stubs: Stubs::default(),
    })
}

/// What a failed check does: an `assert` with this message (an obligation), or `return`
/// (an assumed precondition: the input is excluded).
pub(super) enum Fail<'m> {
    Assert(&'m str),
    Assume,
    /// `raise AssertionError(message)`: the path is excluded (see [`super::invariant`]).
    Exclude(&'m str),
}

impl Writer {
    fn fail(&mut self, depth: usize, test: &str, fail: &Fail<'_>, owner: Option<usize>) {
        match fail {
            Fail::Assert(message) => self.line(depth, &format!("assert {test}, {message}"), owner),
            Fail::Assume => {
                self.line(depth, &format!("if not ({test}):"), owner);
                self.line(depth + 1, "return", owner);
            }
            Fail::Exclude(message) => {
                self.line(depth, &format!("if not ({test}):"), owner);
                self.line(
                    depth + 1,
                    &format!("raise AssertionError({message:?})"),
                    owner,
                );
            }
        }
    }
}

/// `all(...)`/`any(...)` over one comprehension whose targets are fresh names.
fn quantifier<'e>(
    e: &'e Expr,
    params: &[&str],
) -> Option<(&'static str, &'e Expr, &'e [crate::python::ir::Generator])> {
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &e.kind
    else {
        return None;
    };
    let ExprKind::Name(callee) = &func.kind else {
        return None;
    };
    let q = match callee.as_str() {
        "all" => "all",
        "any" => "any",
        _ => return None,
    };
    let [arg] = args.as_slice() else { return None };
    let ExprKind::Comprehension {
        kind: ComprehensionKind::Generator | ComprehensionKind::List,
        elt,
        value: None,
        generators,
    } = &arg.kind
    else {
        return None;
    };
    let fresh = !generators.is_empty()
        && keywords.is_empty()
        && generators.iter().all(|g| {
            let mut names = Vec::new();
            target_names(&g.target, &mut names);
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| !n.is_empty() && !params.contains(&n.as_str()) && n != RETURN_VALUE)
        });
    fresh.then_some((q, &**elt, generators.as_slice()))
}

/// Writes the check of `e` (owned by `owner`, a line-map key); its form. `all`/`any` over
/// a generator, alone or as the last operand of an `or`, become loops.
fn check(
    w: &mut Writer,
    e: &Expr,
    fail: &Fail<'_>,
    owner: Option<usize>,
    params: &[&str],
    flag: &str,
) -> Form {
    let (guard, last) = match &e.kind {
        ExprKind::BoolOp {
            op: crate::python::ir::BoolOp::Or,
            values,
        } if values.len() >= 2 => (Some(&values[..values.len() - 1]), &values[values.len() - 1]),
        _ => (None, e),
    };
    let Some((q, elt, generators)) = quantifier(last, params) else {
        w.fail(1, &e.to_string(), fail, owner);
        return Form::Plain;
    };
    if quantifiable(elt, generators) && !bounded_only() {
        w.fail(1, &e.to_string(), fail, owner);
        return Form::Quantified(q);
    }
    let mut depth = 1;
    if let Some(others) = guard {
        let text: Vec<String> = others.iter().map(|o| format!("({o})")).collect();
        w.line(depth, &format!("if not ({}):", text.join(" or ")), owner);
        depth += 1;
    }
    let base = depth;
    if q == "any" {
        w.line(base, &format!("{flag} = False"), owner);
    }
    for g in generators {
        w.line(depth, &format!("for {} in {}:", g.target, g.iter), owner);
        depth += 1;
        for c in &g.ifs {
            w.line(depth, &format!("if {c}:"), owner);
            depth += 1;
        }
    }
    if q == "any" {
        w.line(depth, &format!("if {elt}:"), owner);
        w.line(depth + 1, &format!("{flag} = True"), owner);
        if generators.len() == 1 {
            w.line(depth + 1, "break", owner);
        }
        w.fail(base, flag, fail, owner);
        return Form::Bounded("any");
    }
    w.fail(depth, &elt.to_string(), fail, owner);
    Form::Bounded("all")
}

thread_local! {
    /// Set while a harness is written with every `all`/`any` in bounded form (the fallback
    /// of `%verify` when quantifiers leave it unknown).
    static BOUNDED_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub fn bounded_only() -> bool {
    BOUNDED_ONLY.with(std::cell::Cell::get)
}

/// Runs `f` with every `all`/`any` written in bounded form.
pub fn with_bounded_forms<T>(f: impl FnOnce() -> T) -> T {
    BOUNDED_ONLY.with(|b| b.set(true));
    let out = f();
    BOUNDED_ONLY.with(|b| b.set(false));
    out
}

/// Calls the solver's translation takes inside a quantifier's body.
const MODELLED_CALLS: &[&str] = &["len", "abs", "min", "max", "int", "float", "bool"];

/// Whether `all`/`any` of `elt` over `generators` is within the translation's quantifiers
/// (`symbolic::translate::quantifier`): one `for` over `range(a)`/`range(a, b)` or a
/// sequence, and a body and filters made of modelled operations (no other calls, no
/// comprehensions). Anything else is checked in bounded form.
fn quantifiable(elt: &Expr, generators: &[crate::python::ir::Generator]) -> bool {
    let [g] = generators else { return false };
    if g.target.as_name().is_none() {
        return false;
    }
    let iter_ok = match &g.iter.kind {
        ExprKind::Call { func, args, .. } => {
            func.as_name() == Some("range") && (1..=2).contains(&args.len())
        }
        _ => true,
    };
    let mut ok = iter_ok;
    for e in std::iter::once(elt)
        .chain(&g.ifs)
        .chain(std::iter::once(&g.iter))
    {
        e.walk(&mut |x: &Expr| match &x.kind {
            ExprKind::Call { func, keywords, .. } => {
                let named = func.as_name().is_some_and(|n| {
                    MODELLED_CALLS.contains(&n) || (n == "range" && std::ptr::eq(x, &g.iter))
                });
                let method = matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "startswith" || attr == "endswith");
                if !(named || method) || !keywords.is_empty() {
                    ok = false;
                }
            }
            ExprKind::Comprehension { .. } | ExprKind::Lambda { .. } => ok = false,
            _ => {}
        });
    }
    ok
}

/// The lines checking `e` (without the harness's indentation) and its form.
pub(super) fn check_block(
    e: &Expr,
    fail: &Fail<'_>,
    params: &[&str],
    flag: &str,
) -> (Vec<String>, Form) {
    let mut w = Writer {
        lines: Vec::new(),
        owner: BTreeMap::new(),
    };
    let form = check(&mut w, e, fail, None, params, flag);
    let lines = w
        .lines
        .into_iter()
        .map(|l| l.strip_prefix("    ").map_or(l.clone(), str::to_string))
        .collect();
    (lines, form)
}

/// Preconditions the solver cannot take (`all`/`any` over generators) become guards of
/// the harness: an input failing one returns at once (excluded, not judged).
fn guards(w: &mut Writer, f: &Function, params: &[&str], pre_lines: &mut Vec<u32>) {
    let doc = f.docstring.as_deref().unwrap_or("");
    for (i, written) in crate::constraints::docstring::preconditions(doc)
        .into_iter()
        .enumerate()
    {
        let Ok(e) = &written.expr else { continue };
        let last = match &e.kind {
            ExprKind::BoolOp {
                op: crate::python::ir::BoolOp::Or,
                values,
            } => values.last().unwrap_or(e),
            _ => e,
        };
        // A quantifier the solver takes is assumed with the other preconditions.
        match quantifier(last, params) {
            None => continue,
            Some((_, elt, generators)) if quantifiable(elt, generators) && !bounded_only() => {
                continue;
            }
            Some(_) => {}
        }
        let before = w.lines.len() as u32;
        check(
            w,
            e,
            &Fail::Assume,
            None,
            params,
            &format!("__pre_{}__", i + 1),
        );
        pre_lines.extend(before + 1..=w.lines.len() as u32);
    }
}

fn target_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => out.push(n.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                target_names(i, out);
            }
        }
        _ => out.push(String::new()),
    }
}

/// Exceptions told apart by `%equiv`, most specific first (each before its bases); others
/// are one class, "another exception".
pub const EXCEPTIONS: &[&str] = &[
    "ZeroDivisionError",
    "ArithmeticError",
    "IndexError",
    "KeyError",
    "LookupError",
    "UnboundLocalError",
    "NameError",
    "RecursionError",
    "RuntimeError",
    "AssertionError",
    "ValueError",
    "TypeError",
];

/// The code of "another exception" in the harness.
pub const OTHER_EXCEPTION: usize = 99;

/// The harness of `%equiv f g`: runs both, records the outcome's class (0: returned, or
/// the exception's), asserts the classes equal (unless `returns_only`) and, when both
/// returned, the results equal.
pub fn equiv(
    f: &Function,
    g: &Function,
    returns_only: bool,
    pre: bool,
) -> Result<Harness, SymexecError> {
    let fp: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
    let gp: Vec<&str> = g.params.iter().map(|p| p.name.as_str()).collect();
    if fp.len() != gp.len() {
        return Err(SymexecError::Input(format!(
            "%equiv needs the same signature: {}() takes {} parameters, {}() takes {}",
            f.name,
            fp.len(),
            g.name,
            gp.len()
        )));
    }
    let mut w = Writer {
        lines: Vec::new(),
        owner: BTreeMap::new(),
    };
    w.line(0, &header(EQUIV_NAME, f), None);
    let mut pre_lines = Vec::new();
    if pre {
        guards(&mut w, f, &fp, &mut pre_lines);
    }
    // g is called positionally with f's parameters.
    let g_call = format!("{}({})", g.name, fp.join(", "));
    for (tag, call_text) in [("f", call(f, &f.name)?), ("g", g_call)] {
        w.line(1, "try:", None);
        w.line(2, &format!("__r{tag}__ = {call_text}"), None);
        w.line(2, &format!("__k{tag}__ = 0"), None);
        for (i, e) in EXCEPTIONS.iter().enumerate() {
            w.line(1, &format!("except {e}:"), None);
            w.line(2, &format!("__k{tag}__ = {}", i + 1), None);
        }
        w.line(1, "except Exception:", None);
        w.line(2, &format!("__k{tag}__ = {OTHER_EXCEPTION}"), None);
    }
    let mut obligations = Vec::new();
    if !returns_only {
        obligations.push(Obligation {
            label: "E1".into(),
            kind: "same outcome",
            text: "both return, or both raise the same exception".into(),
            place: None,
            form: Form::Plain,
        });
        w.line(
            1,
            "assert __kf__ == __kg__, \"outcomes differ\"",
            Some(obligations.len() - 1),
        );
    }
    obligations.push(Obligation {
        label: format!("E{}", obligations.len() + 1),
        kind: "same result",
        text: format!("{}(...) == {}(...) when both return", f.name, g.name),
        place: None,
        form: Form::Plain,
    });
    let o = obligations.len() - 1;
    w.line(1, "if __kf__ == 0 and __kg__ == 0:", Some(o));
    w.line(2, "assert __rf__ == __rg__, \"results differ\"", Some(o));
    Ok(Harness {
        name: EQUIV_NAME.into(),
        source: w.lines.join("\n") + "\n",
        lines: w.owner,
        obligations,
        pre_lines,
        parameters: fp.iter().map(|p| p.to_string()).collect(),
        state: Vec::new(),
        inner: None,
        stubs: Stubs::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn function(source: &str) -> Function {
        let module = lower_module(source).unwrap();
        module.functions().next().unwrap().clone()
    }

    #[test]
    fn postconditions_become_asserts_and_loops() {
        let f = function(
            "def f(t: list[int], n: int) -> int:\n    \"\"\"Preconditions:\n      - all(t[k] <= t[k + 1] for k in range(len(t) - 1))\n      - n > 0\n\n    Postconditions:\n      - $return_value >= n\n      - $return_value == -1 or any(v == n for v in t)\n      - all(t bad\n    \"\"\"\n    return n\n",
        );
        // Quantified: one assert each, the precondition left to the solver.
        let q = verify(&f, None).unwrap();
        assert!(q.pre_lines.is_empty(), "{}", q.source);
        assert_eq!(q.obligations[1].form, Form::Quantified("any"));
        assert!(q.source.contains("or any(("), "{}", q.source);
        // Bounded (the fallback): loops and guards.
        let h = with_bounded_forms(|| verify(&f, None)).unwrap();
        let expected = "def __verify_f__(t, n):\n    for k in range(len(t) - 1):\n        if not (t[k] <= t[k + 1]):\n            return\n    __return_value__ = f(t, n)\n    assert __return_value__ >= n, \"postcondition 1\"\n    if not ((__return_value__ == -1)):\n        __any_2__ = False\n        for v in t:\n            if v == n:\n                __any_2__ = True\n                break\n        assert __any_2__, \"postcondition 2\"\n    return __return_value__\n";
        assert_eq!(h.source, expected);
        // The guard's lines, and which obligation each checking line serves.
        assert_eq!(h.pre_lines, vec![2, 3, 4]);
        assert_eq!(h.lines.get(&6), Some(&0));
        assert_eq!(h.lines.get(&13), Some(&1));
        assert_eq!(h.obligations[1].form, Form::Bounded("any"));
        assert!(matches!(h.obligations[2].form, Form::Unreadable(_)));
        // The harness is Python: it parses.
        assert!(lower_module(&h.source).is_ok());
    }

    #[test]
    fn a_generator_reusing_a_parameter_name_stays_a_plain_assert() {
        let f = function(
            "def f(k: int) -> int:\n    \"\"\"Postcondition: all(k >= 0 for k in range($return_value))\"\"\"\n    return k\n",
        );
        let h = verify(&f, None).unwrap();
        assert_eq!(h.obligations[0].form, Form::Plain);
        assert!(
            h.source.contains("assert all(")
                && h.source.contains("for k in range(__return_value__)"),
            "{}",
            h.source
        );
        assert!(!h.source.contains("for k in range(__return_value__):"));
    }

    #[test]
    fn equiv_needs_the_same_number_of_parameters_and_refuses_varargs() {
        let f = function("def f(a: int, b: int) -> int:\n    return a\n");
        let g = function("def g(x: int) -> int:\n    return x\n");
        assert!(matches!(
            equiv(&f, &g, false, false),
            Err(SymexecError::Input(_))
        ));
        let v = function("def v(*a: int) -> int:\n    return 0\n");
        assert!(matches!(
            equiv(&v, &v, false, false),
            Err(SymexecError::Unsupported { .. })
        ));
        let h = equiv(&f, &f, true, false).unwrap();
        assert_eq!(h.obligations.len(), 1, "--returns-only: results only");
        assert!(h.source.contains("except ZeroDivisionError:"));
    }
}
