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
//!
//! `for i in range(a, b)` (or `range(b)`) with invariants runs the same way, with `i` the
//! index of the next iteration: `a` on entry, one more after each iteration, `max(a, b)` at
//! the exit. The range is evaluated once (`__for1_lo__`, `__for1_hi__`), `i` is havocked
//! within `[a, max(a, b)]`, the guard is `i < __for1_hi__`, and `i = i + 1` comes before the
//! preservation checks. The body must not assign `i`, nor the code after the loop read it.
//!
//! `# decreases: EXPR` on a loop's header adds two obligations checked in the iteration: the
//! measure is non-negative when the iteration starts (`D1.nonneg`) and smaller when it ends
//! (`D1.dec`), so the loop terminates. A recursive function's measure (`Decreases: EXPR` in
//! its docstring, or `# decreases: EXPR` on its `def` line) is checked in its copy (recursion
//! by contract): non-negative on entry, and smaller at each recursive call, which goes through
//! `__dec_f__(measure on entry, args)` (see [`decreases_helper`]).

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
    /// Initiation and preservation of each invariant (and the measures' obligations).
    pub obligations: Vec<Obligation>,
    /// The recursion's measure (recursion by contract), when given.
    pub measure: Option<String>,
    pub notes: Vec<String>,
}

/// The name of the rewritten `f`.
pub fn inner_name(f: &str) -> String {
    format!("__inv_{f}__")
}

/// A `while` (or `for` over a range) and its invariants and measure (text, expression).
struct Annotated<'f> {
    stmt: &'f Stmt,
    invariants: Vec<(String, Expr)>,
    decreases: Option<(String, Expr)>,
    /// A `for` loop's index and its range's bounds (Python source).
    range: Option<(String, String, String)>,
}

/// The helper a recursive call goes through when its function has a measure: it checks
/// that the measure of the call's arguments is below the caller's.
pub fn decreases_helper(f: &str) -> String {
    format!("__dec_{f}__")
}

/// The source line index of `f`'s cell line `line`, given the `def` line's index.
fn index(f: &Function, def: usize, line: u32) -> usize {
    def + line.saturating_sub(f.span.line) as usize
}

/// The text of a `# KEY` comment on `line` (`key` is `invariant:` or `decreases:`), if any.
fn comment<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    let mut rest = line;
    while let Some(at) = rest.find('#') {
        let after = rest[at + 1..].trim_start();
        if after
            .get(..key.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(key))
        {
            return Some(after[key.len()..].trim());
        }
        rest = &rest[at + 1..];
    }
    None
}

/// `for NAME in range(b)` / `range(a, b)`: the index and the bounds (Python source).
fn for_range(s: &Stmt) -> Option<(String, String, String)> {
    let StmtKind::For { target, iter, .. } = &s.kind else {
        return None;
    };
    let var = target.as_name()?;
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &iter.kind
    else {
        return None;
    };
    if func.as_name() != Some("range") || !keywords.is_empty() {
        return None;
    }
    let (lo, hi) = match args.as_slice() {
        [hi] => ("0".to_string(), hi.to_string()),
        [lo, hi] => (lo.to_string(), hi.to_string()),
        _ => return None,
    };
    Some((var.to_string(), lo, hi))
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
    type Found = (Vec<(String, Expr)>, Option<(String, Expr)>);
    let mut loops: Vec<(&'f Stmt, Found)> = Vec::new();
    let mut error = None;
    for s in &f.body {
        s.walk(&mut |s: &'f Stmt| {
            if !matches!(s.kind, StmtKind::While { .. } | StmtKind::For { .. }) {
                return;
            }
            let mut found = Vec::new();
            let mut measure: Option<(String, Expr)> = None;
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
                if let Some(c) = comment(text, "invariant:") {
                    match parse(c, s.header.end_line) {
                        Ok(p) => found.push(p),
                        Err(e) => error = error.take().or(Some(e)),
                    }
                }
                if let Some(c) = comment(text, "decreases:") {
                    match parse(c, s.header.end_line) {
                        Ok(_) if measure.is_some() => {
                            error = error.take().or(Some(SymexecError::Input(format!(
                                "the loop at line {} has two # decreases: measures (give one)",
                                s.span.line
                            ))));
                        }
                        Ok(p) => measure = Some(p),
                        Err(e) => error = error.take().or(Some(e)),
                    }
                }
                at += 1;
            }
            loops.push((s, (found, measure)));
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
                Ok(e) => loops[*only].1.0.push((w.text, e)),
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
    for (s, (invariants, decreases)) in loops {
        if invariants.is_empty() && decreases.is_none() {
            continue;
        }
        let range = for_range(s);
        if matches!(s.kind, StmtKind::For { .. }) {
            let Some((var, _, _)) = &range else {
                return Err(SymexecError::Unsupported {
                    construct: "a loop invariant on a for loop over anything but range(b) or range(a, b) with a name as its target (write the loop as a while loop)".into(),
                    line: s.span.line,
                });
            };
            for_index_unused(f, s, var)?;
        }
        out.push(Annotated {
            stmt: s,
            invariants,
            decreases,
            range,
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

/// Refuses a `for` loop (with invariants) whose body assigns its index, or whose `else` or
/// following code reads it: the rewrite gives the index its invariant meaning (the next
/// iteration's), not CPython's value after the loop.
fn for_index_unused(f: &Function, s: &Stmt, var: &str) -> Result<(), SymexecError> {
    let StmtKind::For { body, orelse, .. } = &s.kind else {
        return Ok(());
    };
    if assigned(body).iter().any(|v| v == var) {
        return Err(SymexecError::Unsupported {
            construct: format!(
                "assigning the index {var} in the body of a for loop with an invariant"
            ),
            line: s.span.line,
        });
    }
    let mut read_at = None;
    let mut look = |t: &Stmt| {
        if read_at.is_none() && t.names_used().iter().any(|n| n == var) {
            read_at = Some(t.span.line);
        }
    };
    for t in orelse {
        t.walk(&mut look);
    }
    for t in &f.body {
        t.walk(&mut |t: &Stmt| {
            if t.span.line > s.span.end_line {
                look(t);
            }
        });
    }
    match read_at {
        Some(line) => Err(SymexecError::Unsupported {
            construct: format!(
                "reading the index {var} of a for loop with an invariant after the loop (line {line})"
            ),
            line: s.span.line,
        }),
        None => Ok(()),
    }
}

/// A recursive function's measure: `Decreases: EXPR` in its docstring, or a
/// `# decreases: EXPR` comment on its `def` line.
fn recursion_measure(f: &Function, def_line: &str) -> Result<Option<(String, Expr)>, SymexecError> {
    let written = docstring::decreases(f.docstring.as_deref().unwrap_or(""));
    let measure = match written.into_iter().next() {
        Some(w) => match w.expr {
            Ok(e) => Some((w.text, e)),
            Err(why) => {
                return Err(SymexecError::Input(format!(
                    "the measure {:?} in {}()'s docstring is not an expression: {why}",
                    w.text, f.name
                )));
            }
        },
        None => comment(def_line, "decreases:")
            .map(|c| parse(c, f.span.line))
            .transpose()?,
    };
    // It is evaluated on the arguments of each recursive call: parameters only.
    if let Some((text, e)) = &measure
        && let Some(other) = e.names_used().into_iter().find(|n| {
            !f.params.iter().any(|p| p.name == *n) && !crate::python::builtins::is_builtin(n)
        })
    {
        return Err(SymexecError::Input(format!(
            "the measure {text:?} of {}() names {other}, which is not one of its parameters (a recursion's measure is read on each call's arguments)",
            f.name
        )));
    }
    Ok(measure)
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

/// A loop's guard (`None` for a `for`), body and `else`.
fn parts(s: &Stmt) -> Option<(Option<&Expr>, &[Stmt], &[Stmt])> {
    match &s.kind {
        StmtKind::While { test, body, orelse } => Some((Some(test), body, orelse)),
        StmtKind::For { body, orelse, .. } => Some((None, body, orelse)),
        _ => None,
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
    let recursion = if copy {
        recursion_measure(f, lines[def])?
    } else {
        None
    };
    let name = inner_name(&f.name);
    let params: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let mut state: Vec<(String, Sort)> = Vec::new();
    let mut obligations: Vec<Obligation> = Vec::new();
    let mut notes = Vec::new();
    let mut havocs: Vec<Vec<(String, String)>> = Vec::new();
    for (n, l) in loops.iter().enumerate() {
        let Some((_, body, _)) = parts(l.stmt) else {
            continue;
        };
        let mut pairs = Vec::new();
        if let Some((var, _, _)) = &l.range {
            let input = format!("__{var}_{}__", n + 1);
            state.push((input.clone(), Sort::Int));
            pairs.push((var.clone(), input));
        }
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
            "the loop at line {} runs by its {} (no unrolling): {} havocked at an arbitrary iteration (the inputs {})",
            l.stmt.span.line,
            match l.invariants.len() {
                0 => "measure, with no invariant",
                1 => "invariant",
                _ => "invariants",
            },
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
        match (&l.decreases, &l.range) {
            (Some((m, _)), _) => notes.push(format!(
                "the loop at line {} terminates if D{}.nonneg and D{}.dec hold: its measure {m} is non-negative when an iteration starts and smaller when it ends",
                l.stmt.span.line,
                loops[..=n].iter().filter(|a| a.decreases.is_some()).count(),
                loops[..=n].iter().filter(|a| a.decreases.is_some()).count(),
            )),
            (None, Some(_)) => {}
            (None, None) => notes.push(format!(
                "partial correctness: the loop at line {} is not shown to terminate (a \"verified\" holds for the runs that leave it; `# decreases: EXPR` on its header adds the proof)",
                l.stmt.span.line
            )),
        }
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
    // The recursion's measure on entry, and the obligations of every recursive call.
    let helper = decreases_helper(&f.name);
    let measured = recursion.as_ref().map(|(text, _)| {
        let o = obligations.len();
        for (label, kind) in [
            ("Dr.nonneg", "decreases non-negative"),
            ("Dr.dec", "decreases smaller"),
        ] {
            obligations.push(Obligation {
                label: label.into(),
                kind,
                text: text.clone(),
                place: Some((f.name.clone(), f.span.line)),
                form: Form::Plain,
            });
        }
        (text.clone(), o)
    });
    if let Some((text, o)) = &measured {
        let ind = indentation(lines[first.min(lines.len() - 1)]).to_string();
        out.push(format!("{ind}__dec0__ = {text}"));
        out.check(
            &ind,
            &parse("__dec0__ >= 0", f.span.line)?.1,
            &Fail::Assert("\"decreases non-negative\""),
            Some(*o),
            &scope,
            "__dec_0_nonneg__",
        );
    }
    let calls = |line: &str| -> String {
        if measured.is_none() {
            return line.to_string();
        }
        let mut text = String::new();
        let mut last = 0;
        for i in super::summary::call_sites(line, &f.name) {
            text.push_str(&line[last..i]);
            text.push_str(&format!("{helper}(__dec0__, "));
            last = i + f.name.len() + 1;
        }
        text.push_str(&line[last..]);
        text
    };
    let end = index(f, def, f.span.end_line);
    let mut at = first;
    let mut counter = 0usize;
    let mut measures = 0usize;
    let mut assumed = Vec::new();
    let mut wrapped = false;
    while at <= end && at < lines.len() {
        let Some((n, l)) = loops
            .iter()
            .enumerate()
            .find(|(_, l)| index(f, def, l.stmt.span.line) == at)
        else {
            out.push(calls(lines[at]));
            out.original
                .insert(out.line(), f.span.line + (at - def) as u32);
            at += 1;
            continue;
        };
        let Some((test, body, orelse)) = parts(l.stmt) else {
            return Err(SymexecError::Internal(
                "an annotated loop is not a while or a for".into(),
            ));
        };
        let indent = indentation(lines[at]).to_string();
        let header = l.stmt.span.line;
        // A for loop's range, evaluated once; its index starts at the range's start.
        let (test, step) = match &l.range {
            Some((var, lo, hi)) => {
                let k = n + 1;
                out.push(format!("{indent}__for{k}_lo__ = {lo}"));
                out.push(format!("{indent}__for{k}_hi__ = {hi}"));
                out.push(format!("{indent}{var} = __for{k}_lo__"));
                (
                    format!("{var} < __for{k}_hi__"),
                    Some(format!("{var} = {var} + 1")),
                )
            }
            None => (test.map(|t| t.to_string()).unwrap_or_default(), None),
        };
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
        // The measure's two obligations, and the expressions checking them.
        let measure = match &l.decreases {
            Some((text, _)) => {
                measures += 1;
                let d = measures;
                let place = Some((f.name.clone(), header));
                let nonneg = obligations.len();
                for (label, kind) in [
                    ("nonneg", "decreases non-negative"),
                    ("dec", "decreases smaller"),
                ] {
                    obligations.push(Obligation {
                        label: format!("D{d}.{label}"),
                        kind,
                        text: text.clone(),
                        place: place.clone(),
                        form: Form::Plain,
                    });
                }
                let at_start = parse(&format!("__dec{d}__ >= 0"), header)?.1;
                let smaller = parse(&format!("({text}) < __dec{d}__"), header)?.1;
                Some((d, text.clone(), nonneg, at_start, smaller))
            }
            None => None,
        };
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
        if let Some((var, _, _)) = &l.range {
            let k = n + 1;
            out.push(format!(
                "{indent}if not (__for{k}_lo__ <= {var} and ({var} <= __for{k}_hi__ or {var} == __for{k}_lo__)):"
            ));
            out.exclude(&format!("{indent}    "));
        }
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
        if let Some((d, text, o, at_start, _)) = &measure {
            out.push(format!("{body_indent}__dec{d}__ = {text}"));
            out.check(
                &body_indent,
                at_start,
                &Fail::Assert(&format!("\"decreases {d} non-negative\"")),
                Some(*o),
                &scope,
                &format!("__dec_{d}_nonneg__"),
            );
        }
        let preservation = |out: &mut Out, indent: &str| {
            if let Some(step) = &step {
                out.push(format!("{indent}{step}"));
            }
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
            if let Some((d, _, o, _, smaller)) = &measure {
                out.check(
                    indent,
                    smaller,
                    &Fail::Assert(&format!("\"decreases {d} smaller\"")),
                    Some(o + 1),
                    &scope,
                    &format!("__dec_{d}_smaller__"),
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
                out.push(format!("{shift}{}", calls(lines[i])));
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
                    out.push(calls(t));
                    out.original
                        .insert(out.line(), f.span.line + (i - def) as u32);
                }
            }
        }
        at = index(f, def, l.stmt.span.end_line) + 1;
    }
    if let Some((text, o)) = &measured {
        out.push(String::new());
        let args = params.join(", ");
        let sep = if params.is_empty() { "" } else { ", " };
        out.push(format!("def {helper}(__dec_caller__{sep}{args}):"));
        out.check(
            "    ",
            &parse(&format!("({text}) < __dec_caller__"), f.span.line)?.1,
            &Fail::Assert("\"decreases smaller\""),
            Some(o + 1),
            &scope,
            "__dec_0_smaller__",
        );
        out.push(format!("    return {}({args})", f.name));
    }
    Ok(Some(Rewritten {
        measure: measured.map(|(t, _)| t),
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
