//! A function's contract (docstring postconditions, PythonTA's forms) and the harnesses
//! `%verify` and `%equiv` execute: generated Python functions that call the function(s)
//! under test and `assert` each obligation, so the symbolic interpreter's own forks on
//! `assert` decide them (an infeasible failing branch is a proof on that path).

use std::collections::BTreeMap;

use super::super::SymexecError;
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
pub fn verify(f: &Function) -> Result<Harness, SymexecError> {
    let name = verify_name(&f.name);
    let mut w = Writer {
        lines: Vec::new(),
        owner: BTreeMap::new(),
    };
    w.line(0, &header(&name, f), None);
    w.line(1, &format!("{RETURN_VALUE} = {}", call(f, &f.name)?), None);
    let params: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
    let mut obligations = Vec::new();
    for (i, written) in postconditions(f.docstring.as_deref().unwrap_or(""))
        .into_iter()
        .enumerate()
    {
        let label = format!("P{}", i + 1);
        let message = format!("\"postcondition {}\"", i + 1);
        let form = match &written.expr {
            Err(why) => Form::Unreadable(why.clone()),
            Ok(e) => assertion(&mut w, e, &message, i, &params),
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
    Ok(Harness {
        name,
        source: w.lines.join("\n") + "\n",
        lines: w.owner,
        obligations,
    })
}

/// Writes the check of `e` for obligation `index`; its form.
fn assertion(w: &mut Writer, e: &Expr, message: &str, index: usize, params: &[&str]) -> Form {
    if let ExprKind::Call {
        func,
        args,
        keywords,
    } = &e.kind
        && let ExprKind::Name(callee) = &func.kind
        && (callee == "all" || callee == "any")
        && keywords.is_empty()
        && let [arg] = args.as_slice()
        && let ExprKind::Comprehension {
            kind: ComprehensionKind::Generator | ComprehensionKind::List,
            elt,
            value: None,
            generators,
        } = &arg.kind
        && !generators.is_empty()
        && generators.iter().all(|g| {
            let mut names = Vec::new();
            target_names(&g.target, &mut names);
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| !params.contains(&n.as_str()) && n != RETURN_VALUE)
        })
    {
        let flag = format!("__any_{}__", index + 1);
        let any = callee == "any";
        if any {
            w.line(1, &format!("{flag} = False"), Some(index));
        }
        let mut depth = 1;
        for g in generators {
            w.line(
                depth,
                &format!("for {} in {}:", g.target, g.iter),
                Some(index),
            );
            depth += 1;
            for c in &g.ifs {
                w.line(depth, &format!("if {c}:"), Some(index));
                depth += 1;
            }
        }
        if any {
            w.line(depth, &format!("if {elt}:"), Some(index));
            w.line(depth + 1, &format!("{flag} = True"), Some(index));
            if generators.len() == 1 {
                w.line(depth + 1, "break", Some(index));
            }
            w.line(1, &format!("assert {flag}, {message}"), Some(index));
            return Form::Bounded("any");
        }
        w.line(depth, &format!("assert {elt}, {message}"), Some(index));
        return Form::Bounded("all");
    }
    w.line(1, &format!("assert {e}, {message}"), Some(index));
    Form::Plain
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
pub fn equiv(f: &Function, g: &Function, returns_only: bool) -> Result<Harness, SymexecError> {
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
    })
}
