//! Loop invariants: `# invariant: EXPR` on a `while` header (one per comment, on the header
//! line or on comment lines right after it), or `Loop invariants:` in the docstring of a
//! function with one `while`. Such a loop is executed without unrolling.
//!
//! The function is rewritten, as Python (so CPython replays it too), into `__inv_f__`, whose
//! extra parameters are the values of what the loop assigns at an arbitrary iteration:
//!
//! ```text
//! assert I, "invariant 1 initiation"       # I holds on entry
//! i = __i_1__                               # havoc what the loop assigns
//! if not (I): raise AssertionError(..)      # assume I (other states are excluded)
//! if G:                                     # one arbitrary iteration
//!     while True:
//!         BODY                              # `continue` becomes the two lines below
//!         assert I, "invariant 1 preservation"
//!         raise AssertionError(..)          # the iteration is done (excluded)
//! else:
//!     ORELSE                                # use: I and not G hold
//! REST
//! ```
//!
//! A `break` leaves the `while True` and so skips `ORELSE`, as it skips a `while`'s `else`.

use std::collections::BTreeMap;

use super::contract::{Fail, Form, Obligation, check_block};
use crate::constraints::docstring;
use crate::python::ir::{Constant, Expr, ExprKind, Function, Stmt, StmtKind};
use crate::symbolic::Sort;
use crate::symexec::SymexecError;
use crate::symexec::havoc::{base_name, bound_names};

/// The message of the `raise` that ends an excluded path (not a state of the loop, or an
/// iteration that was checked).
pub const EXCLUDED: &str = "excluded by the loop invariant";

/// `f` rewritten so that its loops with invariants run without unrolling.
#[derive(Clone, Debug)]
pub struct Rewritten {
    /// `__inv_f__`.
    pub name: String,
    /// Its definition (Python).
    pub source: String,
    /// Its extra parameters (havoc), with their sorts.
    pub state: Vec<(String, Sort)>,
    /// Line of `source` → index into `obligations`.
    pub lines: BTreeMap<u32, usize>,
    /// Lines of `source` whose `raise` ends an excluded path.
    pub excluded: Vec<u32>,
    /// Line of `source` → `f`'s own line (for asserts of the body).
    pub original: BTreeMap<u32, u32>,
    /// The first line after each loop's havoc: a path through one runs from an arbitrary
    /// state satisfying the invariants (not necessarily a reachable one).
    pub assumed: Vec<u32>,
    /// A loop with a `break` runs its iteration inside `while True:` (which `--unroll 0`
    /// would cut).
    pub wrapped: bool,
    /// Initiation and preservation of each invariant.
    pub obligations: Vec<Obligation>,
    pub notes: Vec<String>,
}

/// The name of the rewritten `f`.
pub fn inner_name(f: &str) -> String {
    format!("__inv_{f}__")
}

/// A `while` and its invariants (text, expression).
struct Annotated<'f> {
    stmt: &'f Stmt,
    invariants: Vec<(String, Expr)>,
}

/// The source line index of `f`'s cell line `line`, given the `def` line's index.
fn index(f: &Function, def: usize, line: u32) -> usize {
    def + line.saturating_sub(f.span.line) as usize
}

/// The text of a `# invariant:` comment on `line`, if any.
fn comment(line: &str) -> Option<&str> {
    let mut rest = line;
    while let Some(at) = rest.find('#') {
        let after = rest[at + 1..].trim_start();
        if after
            .get(..10)
            .is_some_and(|h| h.eq_ignore_ascii_case("invariant:"))
        {
            return Some(after[10..].trim());
        }
        rest = &rest[at + 1..];
    }
    None
}

fn parse(text: &str, line: u32) -> Result<(String, Expr), SymexecError> {
    let written = docstring::condition(text);
    match written.expr {
        Ok(e) => Ok((written.text, e)),
        Err(why) => Err(SymexecError::Input(format!(
            "the loop invariant {text:?} (line {line}) is not an expression: {why}"
        ))),
    }
}

/// Every loop of `f` with its invariants (none: not annotated).
fn annotated<'f>(
    f: &'f Function,
    lines: &[&str],
    def: usize,
) -> Result<Vec<Annotated<'f>>, SymexecError> {
    let mut loops: Vec<(&'f Stmt, Vec<(String, Expr)>)> = Vec::new();
    let mut error = None;
    for s in &f.body {
        s.walk(&mut |s: &'f Stmt| {
            if !matches!(s.kind, StmtKind::While { .. } | StmtKind::For { .. }) {
                return;
            }
            let mut found = Vec::new();
            let mut at = index(f, def, s.header.end_line);
            let first_body = s
                .blocks()
                .first()
                .and_then(|b| b.first())
                .map(|b| b.span.line);
            loop {
                let Some(text) = lines.get(at) else { break };
                let own_line = at == index(f, def, s.header.end_line);
                if !own_line
                    && (!text.trim_start().starts_with('#')
                        || first_body.is_some_and(|b| index(f, def, b) <= at))
                {
                    break;
                }
                if let Some(c) = comment(text) {
                    match parse(c, s.header.end_line) {
                        Ok(p) => found.push(p),
                        Err(e) => error = error.take().or(Some(e)),
                    }
                }
                at += 1;
            }
            loops.push((s, found));
        });
    }
    if let Some(e) = error {
        return Err(e);
    }
    let written = docstring::loop_invariants(f.docstring.as_deref().unwrap_or(""));
    if !written.is_empty() {
        let whiles: Vec<usize> = loops
            .iter()
            .enumerate()
            .filter(|(_, (s, _))| matches!(s.kind, StmtKind::While { .. }))
            .map(|(i, _)| i)
            .collect();
        let [only] = whiles.as_slice() else {
            return Err(SymexecError::Input(format!(
                "the docstring's Loop invariants: need {}() to have exactly one while loop (it has {}); write `# invariant: EXPR` on the loop's header instead",
                f.name,
                whiles.len()
            )));
        };
        for w in written {
            match w.expr {
                Ok(e) => loops[*only].1.push((w.text, e)),
                Err(why) => {
                    return Err(SymexecError::Input(format!(
                        "the loop invariant {:?} in {}()'s docstring is not an expression: {why}",
                        w.text, f.name
                    )));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (s, invariants) in loops {
        if invariants.is_empty() {
            continue;
        }
        if matches!(s.kind, StmtKind::For { .. }) {
            return Err(SymexecError::Unsupported {
                construct: "a loop invariant on a for loop (write the loop as a while loop)".into(),
                line: s.span.line,
            });
        }
        out.push(Annotated {
            stmt: s,
            invariants,
        });
    }
    // An annotated loop inside another is not rewritten twice.
    for a in &out {
        for b in &out {
            if a.stmt.id != b.stmt.id
                && b.stmt.span.line > a.stmt.span.line
                && b.stmt.span.end_line <= a.stmt.span.end_line
            {
                return Err(SymexecError::Unsupported {
                    construct: "a loop invariant on a loop nested in a loop that has one".into(),
                    line: b.stmt.span.line,
                });
            }
        }
    }
    Ok(out)
}

/// What `block` assigns (names, and the bases of subscript and attribute targets).
fn assigned(block: &[Stmt]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let add = |n: String, out: &mut Vec<String>| {
        if !out.contains(&n) {
            out.push(n);
        }
    };
    for s in block {
        for n in bound_names(s) {
            add(n, &mut out);
        }
        s.walk(&mut |s: &Stmt| {
            let targets: Vec<&Expr> = match &s.kind {
                StmtKind::Assign { targets, .. } => targets.iter().collect(),
                StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
                    vec![target]
                }
                _ => Vec::new(),
            };
            for t in targets {
                if !matches!(t.kind, ExprKind::Name(_))
                    && let Some(b) = base_name(t)
                {
                    add(b.to_string(), &mut out);
                }
            }
        });
    }
    out
}

/// The `continue`s (`want_break`: the `break`s) of a loop's own body (not of loops nested
/// in it).
fn jumps<'f>(block: &'f [Stmt], want_break: bool, out: &mut Vec<&'f Stmt>) {
    for s in block {
        match &s.kind {
            StmtKind::Continue if !want_break => out.push(s),
            StmtKind::Break if want_break => out.push(s),
            StmtKind::While { .. } | StmtKind::For { .. } => {}
            StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. } => {}
            _ => {
                for b in s.blocks() {
                    jumps(b, want_break, out);
                }
            }
        }
    }
}

/// The sort of `e`, when it is plain (a constant, `len(..)`, a known name, arithmetic).
fn guess(e: &Expr, known: &[(String, Sort)]) -> Option<Sort> {
    match &e.kind {
        ExprKind::Constant(Constant::Bool(_)) => Some(Sort::Bool),
        ExprKind::Constant(Constant::Int(_)) => Some(Sort::Int),
        ExprKind::Constant(Constant::Float(_)) => Some(Sort::Real),
        ExprKind::Constant(Constant::Str(_)) => Some(Sort::Str),
        ExprKind::Name(n) => known.iter().find(|(k, _)| k == n).map(|(_, s)| s.clone()),
        ExprKind::Call { func, .. } if func.as_name() == Some("len") => Some(Sort::Int),
        ExprKind::Compare { .. } => Some(Sort::Bool),
        ExprKind::UnaryOp { operand, .. } => guess(operand, known),
        ExprKind::BinOp { left, right, .. } => match (guess(left, known), guess(right, known)) {
            (Some(Sort::Real), _) | (_, Some(Sort::Real)) => Some(Sort::Real),
            (Some(Sort::Int), Some(Sort::Int)) => Some(Sort::Int),
            (Some(Sort::Str), Some(Sort::Str)) => Some(Sort::Str),
            (Some(s @ Sort::Seq(..)), Some(Sort::Seq(..))) => Some(s),
            (Some(Sort::Int), None) | (None, Some(Sort::Int)) => Some(Sort::Int),
            _ => None,
        },
        _ => None,
    }
}

/// The sort of variable `v` of `f`: a parameter's, an annotation's, or one its assignments
/// make plain.
fn sort_of(f: &Function, v: &str, inputs: &[(String, Sort)]) -> Option<Sort> {
    if let Some((_, s)) = inputs.iter().find(|(n, _)| n == v) {
        return Some(s.clone());
    }
    let mut annotated = None;
    let mut values: Vec<&Expr> = Vec::new();
    for s in &f.body {
        s.walk(&mut |s: &Stmt| match &s.kind {
            StmtKind::AnnAssign {
                target, annotation, ..
            } if target.as_name() == Some(v) => {
                annotated = annotated.take().or(Some(annotation.to_string()));
            }
            StmtKind::Assign { targets, value }
                if targets.iter().any(|t| t.as_name() == Some(v)) =>
            {
                values.push(value);
            }
            StmtKind::AugAssign { target, value, .. } if target.as_name() == Some(v) => {
                values.push(value);
            }
            _ => {}
        });
    }
    if let Some(a) = annotated {
        return crate::symexec::parse_specs(&[format!("{v}:{a}")])
            .ok()
            .and_then(|mut s| s.pop())
            .map(|(_, s)| s);
    }
    values.iter().find_map(|e| guess(e, inputs))
}

/// Writes lines, remembering obligations and excluded lines (1-based line numbers).
struct Out {
    lines: Vec<String>,
    owner: BTreeMap<u32, usize>,
    excluded: Vec<u32>,
    original: BTreeMap<u32, u32>,
}

impl Out {
    fn push(&mut self, text: String) {
        self.lines.push(text);
    }

    fn line(&self) -> u32 {
        self.lines.len() as u32
    }

    /// The check of invariant `e` at `indent`: an obligation (`Some(index)`) or an assumption.
    fn check(
        &mut self,
        indent: &str,
        e: &Expr,
        fail: &Fail<'_>,
        obligation: Option<usize>,
        names: &[&str],
        flag: &str,
    ) -> Form {
        let (lines, form) = check_block(e, fail, names, flag);
        for l in lines {
            self.push(format!("{indent}{l}"));
            match obligation {
                Some(o) => {
                    self.owner.insert(self.line(), o);
                }
                None => self.excluded.push(self.line()),
            }
        }
        form
    }

    fn exclude(&mut self, indent: &str) {
        self.push(format!("{indent}raise AssertionError({EXCLUDED:?})"));
        self.excluded.push(self.line());
    }
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// `f` rewritten so that each loop with invariants runs without unrolling, or `None` when
/// no loop has one and not `copy` (with `copy`, a copy under the new name even then: its
/// calls of `f` are then calls of whatever `f` is, e.g. its contract's stub). `source` is
/// `f`'s definition; `inputs` the sorts of its parameters.
pub fn rewrite(
    f: &Function,
    source: &str,
    inputs: &[(String, Sort)],
    copy: bool,
) -> Result<Option<Rewritten>, SymexecError> {
    let lines: Vec<&str> = source.lines().collect();
    let def = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("def {}(", f.name)))
        .ok_or_else(|| {
            SymexecError::Internal(format!("the source of {}() has no def line", f.name))
        })?;
    let loops = annotated(f, &lines, def)?;
    if loops.is_empty() && !copy {
        return Ok(None);
    }
    let name = inner_name(&f.name);
    let params: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let mut state: Vec<(String, Sort)> = Vec::new();
    let mut obligations: Vec<Obligation> = Vec::new();
    let mut notes = Vec::new();
    let mut havocs: Vec<Vec<(String, String)>> = Vec::new();
    for (n, l) in loops.iter().enumerate() {
        let StmtKind::While { body, .. } = &l.stmt.kind else {
            continue;
        };
        let mut pairs = Vec::new();
        for v in assigned(body) {
            let sort = sort_of(f, &v, inputs).ok_or_else(|| SymexecError::Unsupported {
                construct: format!(
                    "the type of {v}, assigned in the loop with an invariant (annotate it where it is first assigned: `{v}: int = ...`)"
                ),
                line: l.stmt.span.line,
            })?;
            let input = format!("__{v}_{}__", n + 1);
            state.push((input.clone(), sort));
            pairs.push((v, input));
        }
        notes.push(format!(
            "the loop at line {} runs by its invariant{} (no unrolling): {} havocked at an arbitrary iteration (the inputs {})",
            l.stmt.span.line,
            if l.invariants.len() > 1 { "s" } else { "" },
            if pairs.is_empty() {
                "nothing".to_string()
            } else {
                pairs.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>().join(", ")
            },
            if pairs.is_empty() {
                "none".to_string()
            } else {
                pairs.iter().map(|(_, i)| i.as_str()).collect::<Vec<_>>().join(", ")
            },
        ));
        havocs.push(pairs);
    }
    let names: Vec<String> = params
        .iter()
        .cloned()
        .chain(state.iter().map(|(n, _)| n.clone()))
        .collect();
    let mut scope: Vec<&str> = names.iter().map(String::as_str).collect();
    let havocked: Vec<String> = havocs.iter().flatten().map(|(v, _)| v.clone()).collect();
    scope.extend(havocked.iter().map(String::as_str));
    let mut out = Out {
        lines: vec![format!("def {name}({}):", names.join(", "))],
        owner: BTreeMap::new(),
        excluded: Vec::new(),
        original: BTreeMap::new(),
    };
    let first = f
        .body
        .first()
        .map_or(def + 1, |s| index(f, def, s.span.line));
    for _ in def + 1..first {
        out.push(String::new());
    }
    let end = index(f, def, f.span.end_line);
    let mut at = first;
    let mut counter = 0usize;
    let mut assumed = Vec::new();
    let mut wrapped = false;
    while at <= end && at < lines.len() {
        let Some((n, l)) = loops
            .iter()
            .enumerate()
            .find(|(_, l)| index(f, def, l.stmt.span.line) == at)
        else {
            out.push(lines[at].to_string());
            out.original
                .insert(out.line(), f.span.line + (at - def) as u32);
            at += 1;
            continue;
        };
        let StmtKind::While { test, body, orelse } = &l.stmt.kind else {
            return Err(SymexecError::Internal(
                "an annotated loop is not a while".into(),
            ));
        };
        let indent = indentation(lines[at]).to_string();
        let header = l.stmt.span.line;
        // Obligations of this loop's invariants.
        let numbers: Vec<usize> = (0..l.invariants.len())
            .map(|_| {
                counter += 1;
                counter
            })
            .collect();
        let mut init = Vec::new();
        let mut pres = Vec::new();
        for (k, (text, _)) in numbers.iter().zip(&l.invariants) {
            for (kind, list) in [("initiation", &mut init), ("preservation", &mut pres)] {
                list.push(obligations.len());
                obligations.push(Obligation {
                    label: format!(
                        "I{k}.{}",
                        if kind == "initiation" { "init" } else { "pres" }
                    ),
                    kind: if kind == "initiation" {
                        "invariant initiation"
                    } else {
                        "invariant preservation"
                    },
                    text: text.clone(),
                    place: Some((f.name.clone(), header)),
                    form: Form::Plain,
                });
            }
        }
        // Initiation.
        for ((k, (_, e)), &o) in numbers.iter().zip(&l.invariants).zip(&init) {
            let message = format!("\"invariant {k} initiation\"");
            let form = out.check(
                &indent,
                e,
                &Fail::Assert(&message),
                Some(o),
                &scope,
                &format!("__inv_{k}_init__"),
            );
            obligations[o].form = form.clone();
            obligations[o + 1].form = form;
        }
        // Havoc, then assume the invariants.
        for (v, input) in &havocs[n] {
            out.push(format!("{indent}{v} = {input}"));
        }
        assumed.push(out.line() + 1);
        for (k, (_, e)) in numbers.iter().zip(&l.invariants) {
            out.check(
                &indent,
                e,
                &Fail::Exclude(EXCLUDED),
                None,
                &scope,
                &format!("__inv_{k}_assume__"),
            );
        }
        // One arbitrary iteration; a `break` needs a loop to leave (run once).
        let mut breaks = Vec::new();
        jumps(body, true, &mut breaks);
        out.push(format!("{indent}if {test}:"));
        let shift = if breaks.is_empty() {
            "    "
        } else {
            wrapped = true;
            out.push(format!("{indent}    while True:"));
            "        "
        };
        let mut skipped = Vec::new();
        jumps(body, false, &mut skipped);
        let continue_lines: Vec<usize> =
            skipped.iter().map(|s| index(f, def, s.span.line)).collect();
        for s in &skipped {
            if lines
                .get(index(f, def, s.span.line))
                .is_none_or(|t| t.trim() != "continue")
            {
                return Err(SymexecError::Unsupported {
                    construct:
                        "a continue sharing its line with other code, in a loop with an invariant"
                            .into(),
                    line: s.span.line,
                });
            }
        }
        let body_start = body.first().map_or(at + 1, |s| index(f, def, s.span.line));
        let body_end = body.last().map_or(at, |s| index(f, def, s.span.end_line));
        let body_indent = format!(
            "{shift}{}",
            indentation(lines[body_start.min(lines.len() - 1)])
        );
        let preservation = |out: &mut Out, indent: &str| {
            for ((k, (_, e)), &o) in numbers.iter().zip(&l.invariants).zip(&pres) {
                let message = format!("\"invariant {k} preservation\"");
                out.check(
                    indent,
                    e,
                    &Fail::Assert(&message),
                    Some(o),
                    &scope,
                    &format!("__inv_{k}_pres__"),
                );
            }
            out.exclude(indent);
        };
        for i in body_start..=body_end.min(lines.len() - 1) {
            if continue_lines.contains(&i) {
                let ind = format!("{shift}{}", indentation(lines[i]));
                preservation(&mut out, &ind);
            } else if lines[i].trim().is_empty() {
                out.push(String::new());
            } else {
                out.push(format!("{shift}{}", lines[i]));
                out.original
                    .insert(out.line(), f.span.line + (i - def) as u32);
            }
        }
        preservation(&mut out, &body_indent);
        // Use: the invariants and the negated guard hold.
        if let (Some(o0), Some(o1)) = (orelse.first(), orelse.last()) {
            out.push(format!("{indent}else:"));
            for i in index(f, def, o0.span.line)..=index(f, def, o1.span.end_line) {
                if let Some(t) = lines.get(i) {
                    out.push(t.to_string());
                    out.original
                        .insert(out.line(), f.span.line + (i - def) as u32);
                }
            }
        }
        at = index(f, def, l.stmt.span.end_line) + 1;
    }
    Ok(Some(Rewritten {
        name,
        source: out.lines.join("\n") + "\n",
        state,
        lines: out.owner,
        excluded: out.excluded,
        original: out.original,
        assumed,
        wrapped,
        obligations,
        notes,
    }))
}
