//! `--summaries`: calls of a function that has a contract are executed by the contract
//! (the book's compositional chapter) instead of inlining its body.
//!
//! Each such function `g` is replaced, in the harness program, by a stub of the same name:
//!
//! ```text
//! def g(a, b):
//!     assert PRE, "precondition 1 of g"       # an obligation of the caller, at the call
//!     __return_value__ = __fresh__("int")      # any value of g's return type
//!     if not (POST): raise AssertionError(..)  # assume the postconditions
//!     return __return_value__
//! ```
//!
//! `__fresh__` is the symbolic interpreter's fresh value (not Python), so the replay runs
//! the real `g` (renamed `__real_g__`) behind a wrapper that checks the same preconditions:
//! a refutation it confirms is one of the real code.

use std::collections::BTreeMap;

use super::contract::{Fail, Form, Obligation, check_block};
use super::invariant::EXCLUDED;
use crate::constraints::docstring::{RETURN_VALUE, postconditions, preconditions};
use crate::python::ir::Function;
use crate::symexec::SymexecError;

/// The call the symbolic interpreter answers with a fresh value of the named type.
pub const FRESH: &str = "__fresh__";

/// The stubs of the summarized functions and what the replay runs instead.
#[derive(Clone, Debug, Default)]
pub struct Summaries {
    /// Names of the functions replaced by their stubs.
    pub replaced: Vec<String>,
    /// The stubs (Python, with `__fresh__`).
    pub source: String,
    /// Line of `source` → index into `obligations`.
    pub lines: BTreeMap<u32, usize>,
    /// Lines of `source` whose `raise` ends a path the postconditions exclude.
    pub excluded: Vec<u32>,
    /// The callees' preconditions, checked at each call.
    pub obligations: Vec<Obligation>,
    /// For the replay: the real functions renamed, and wrappers checking preconditions.
    pub replay: Vec<String>,
    pub notes: Vec<String>,
}

/// Whether `f`'s definition `source` calls `f` in its body (a word `f(` after the `def`
/// line; a mention in a string or comment counts too, which only adds an unused stub).
pub fn recursive(f: &Function, source: &str) -> bool {
    let def = format!("def {}(", f.name);
    source
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(&def))
        .skip(1)
        .any(|l| !call_sites(l, &f.name).is_empty())
}

/// Where `line` has a word `name(` (not an attribute `x.name(`): the offsets of `name`.
pub fn call_sites(line: &str, name: &str) -> Vec<usize> {
    let call = format!("{name}(");
    line.match_indices(&call)
        .map(|(i, _)| i)
        .filter(|&i| {
            line[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'))
        })
        .collect()
}

/// Stubs for every function of `functions` (but `entry`) with postconditions; `sources`
/// are the session's definitions (for the replay's renamed copies).
pub fn summarize(
    functions: &[&Function],
    sources: &[String],
    entry: &str,
) -> Result<Summaries, SymexecError> {
    let mut out = Summaries::default();
    let mut lines: Vec<String> = Vec::new();
    for g in functions {
        if g.name == entry || g.qualname.contains('.') {
            continue;
        }
        let doc = g.docstring.as_deref().unwrap_or("");
        let posts = postconditions(doc);
        if posts.is_empty() {
            continue;
        }
        let Some(returns) = g.returns_text.as_deref() else {
            return Err(SymexecError::Unsupported {
                construct: format!(
                    "a summary of {}() without a return annotation (--summaries needs its type)",
                    g.name
                ),
                line: g.span.line,
            });
        };
        crate::symexec::parse_specs(&[format!("r:{returns}")]).map_err(|e| {
            SymexecError::Unsupported {
                construct: format!("a summary of {}() returning {returns} ({e})", g.name),
                line: g.span.line,
            }
        })?;
        let params: Vec<&str> = g.params.iter().map(|p| p.name.as_str()).collect();
        if g.params.iter().any(|p| {
            p.default.is_some()
                || !matches!(
                    p.kind,
                    crate::python::ir::ParamKind::Positional
                        | crate::python::ir::ParamKind::PositionalOnly
                )
        }) {
            return Err(SymexecError::Unsupported {
                construct: format!(
                    "a summary of {}() with defaults, keyword-only or variadic parameters",
                    g.name
                ),
                line: g.span.line,
            });
        }
        let Some(source) = sources.iter().find(|s| {
            s.lines()
                .any(|l| l.trim_start().starts_with(&format!("def {}(", g.name)))
        }) else {
            continue;
        };
        let mut scope = params.clone();
        scope.push(RETURN_VALUE);
        let header = format!("def {}({}):", g.name, params.join(", "));
        lines.push(header.clone());
        let mut wrapper = vec![header];
        let mut checks = Vec::new();
        for (j, w) in preconditions(doc).into_iter().enumerate() {
            let Ok(e) = &w.expr else {
                out.notes.push(format!(
                    "the precondition {:?} of {}() is not checked at calls: it is not an expression",
                    w.text, g.name
                ));
                continue;
            };
            let o = out.obligations.len();
            let message = format!("\"precondition {} of {}\"", j + 1, g.name);
            let (block, form) = check_block(
                e,
                &Fail::Assert(&message),
                &scope,
                &format!("__pre_{}_{}__", g.name, j + 1),
            );
            for l in &block {
                lines.push(format!("    {l}"));
                out.lines.insert(lines.len() as u32, o);
                wrapper.push(format!("    {l}"));
            }
            checks.push(());
            out.obligations.push(Obligation {
                label: format!("{}.pre{}", g.name, j + 1),
                kind: "callee precondition",
                text: w.text.clone(),
                place: Some((g.name.clone(), g.span.line)),
                form,
            });
        }
        lines.push(format!("    {RETURN_VALUE} = {FRESH}({returns:?})"));
        for (j, w) in posts.iter().enumerate() {
            let Ok(e) = &w.expr else {
                return Err(SymexecError::Input(format!(
                    "the postcondition {:?} of {}() is not an expression, so it cannot summarize calls",
                    w.text, g.name
                )));
            };
            let (block, form) = check_block(
                e,
                &Fail::Exclude(EXCLUDED),
                &scope,
                &format!("__post_{}_{}__", g.name, j + 1),
            );
            if let Form::Unreadable(why) = form {
                return Err(SymexecError::Input(why));
            }
            for l in block {
                lines.push(format!("    {l}"));
                out.excluded.push(lines.len() as u32);
            }
        }
        lines.push(format!("    return {RETURN_VALUE}"));
        wrapper.push(format!(
            "    return __real_{}__({})",
            g.name,
            params.join(", ")
        ));
        let real = source
            .lines()
            .map(|l| {
                if l.trim_start().starts_with(&format!("def {}(", g.name)) {
                    l.replacen(
                        &format!("def {}(", g.name),
                        &format!("def __real_{}__(", g.name),
                        1,
                    )
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        out.replay.push(real + "\n");
        out.replay.push(wrapper.join("\n") + "\n");
        out.replaced.push(g.name.clone());
        out.notes.push(format!(
            "calls of {}() are executed by its contract (--summaries): its preconditions are checked at each call ({}), its result is any {returns} satisfying its postconditions",
            g.name,
            if checks.is_empty() {
                "it has none".to_string()
            } else {
                format!("{} of them", checks.len())
            }
        ));
    }
    out.source = if lines.is_empty() {
        String::new()
    } else {
        lines.join("\n") + "\n"
    };
    Ok(out)
}
