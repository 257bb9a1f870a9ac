//! Lists mutated in place (`xs.append(v)`, `xs.extend(ys)`, `xs.insert(i, v)`, `xs.pop()`,
//! `xs.pop(i)`, `xs[i] = v`), modelled exactly as a new value of the name, with CPython's
//! `IndexError`s, **only where no alias can see the change**.
//!
//! The rule (syntactic, per function body after hoisting): a name is *owned* when
//! 1. every binding of it is `name = E` (or `name: T = E`, `name += E`) with `E` a fresh
//!    list: a display, `list(…)`, `sorted(…)`, `a + b`, `a * k`, a slice, or a comprehension's
//!    accumulator (`$c…`, see `comprehension`); no `for`/`with`/`except`/`import`/`global`/
//!    tuple target binds it;
//! 2. every read of it is one that cannot keep a reference: the receiver of a method call,
//!    the object of a subscript, an operand of an operator or comparison, an argument of a
//!    builtin that consumes it (`len`, `sum`, `min`, `sorted`, `print`, …) or of a method that
//!    does (`sep.join(xs)`, `ys.extend(xs)`), a `for`'s
//!    iterable (directly or through `enumerate`/`reversed`/`zip`), a test, a `return`
//!    (the frame ends; not under a `try … finally`), an f-string field. Anything else (`m =
//!    xs`, `f(xs)`, `[xs]`, `ys.append(xs)`, `xs or ys`, a lambda, `g = (x for x in xs)`)
//!    may alias it;
//! 3. it is not mutated inside a `for` whose iterable mentions it (Python's iterator would
//!    see the change, the unrolled loop would not).
//!
//! A parameter is bound to the caller's object, so it is owned only in the entry frame of
//! `%set`, only if it satisfies 2 and 3 and rebinding it satisfies 1, and only when no other
//! parameter's type can hold a list (two parameters may be one list). Everything else keeps
//! the havoc of `havoc`: the mutation is not modelled and the path is approximate.

use std::collections::BTreeSet;

use num_bigint::BigInt;
use num_traits::ToPrimitive;

use super::program::{Entry, Program};
use super::state::State;
use crate::python::ir::{ComprehensionKind, Expr};
use crate::python::ir::{ExprKind, Stmt, StmtKind};
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::term::{CompareOp, SortError, Term};

/// The list methods that change the receiver.
pub const MUTATING: &[&str] = &[
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
];

/// The dict and set methods that change the receiver (besides those lists share).
const MAPPING_MUTATING: &[&str] = &[
    "add",
    "discard",
    "setdefault",
    "update",
    "popitem",
    "difference_update",
    "intersection_update",
    "symmetric_difference_update",
];

/// Builtins that read an argument without keeping a reference to it.
const CONSUMERS: &[&str] = &[
    "len",
    "sum",
    "min",
    "max",
    "sorted",
    "any",
    "all",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "str",
    "repr",
    "print",
    "bool",
    "int",
    "float",
    "abs",
];

/// Methods that read their arguments without keeping a reference to them (`sep.join(xs)`,
/// `ys.extend(xs)` copies the items, not the list).
const CONSUMING_METHODS: &[&str] = &["join", "extend", "count", "index", "startswith", "endswith"];

/// Builtins whose iterator keeps a reference: safe only as a `for`'s iterable.
const ITERATORS: &[&str] = &["enumerate", "reversed", "zip", "iter"];

/// Whether `name`, in the current frame of `s`, may be mutated in place exactly.
pub fn owned(s: &State<'_>, program: &Program, name: &str) -> bool {
    if name.starts_with("$c") {
        return true; // a comprehension's accumulator, read only after it is complete
    }
    let Some(frame) = s.frames.last() else {
        return false;
    };
    let Some(f) = frame.function else {
        return false;
    };
    let is_param = f.params.iter().any(|p| p.name == name);
    if is_param {
        let entry = s.frames.len() == 1 && matches!(program.entry, Entry::Function(_));
        let others_hold_lists = f.params.iter().any(|p| {
            p.name != name
                && program
                    .input_env
                    .get(&p.name)
                    .is_none_or(|t| t.sort().may_hold_list())
        });
        if !entry || others_hold_lists {
            return false;
        }
    }
    let (fresh, bad) = classify(&f.body);
    (fresh.contains(name) || is_param) && !bad.contains(name)
}

/// Whether the list or mapping `name` holds in the current frame of `s` may be read as that
/// value: it is owned, or it is a parameter of `%set`'s entry frame that the body, like every
/// parameter that may share its object, never changes in place, binds otherwise than to a
/// fresh value, or lets escape (two parameters may be one object — `merge(d, d)` — which no
/// read can tell while neither changes).
pub fn readable(s: &State<'_>, program: &Program, name: &str) -> bool {
    if owned(s, program, name) {
        return true;
    }
    let Some(f) = s.frames.last().and_then(|frame| frame.function) else {
        return false;
    };
    let entry = s.frames.len() == 1 && matches!(program.entry, Entry::Function(_));
    if !entry || !f.params.iter().any(|p| p.name == name) {
        return false;
    }
    let (_, bad) = classify(&f.body);
    let changed = changed_in_place(&f.body);
    f.params
        .iter()
        .filter(|p| {
            p.name == name
                || program
                    .input_env
                    .get(&p.name)
                    .is_none_or(|t| t.sort().may_hold_list())
        })
        .all(|p| !bad.contains(&p.name) && !changed.contains(&p.name))
}

/// Names `body` changes in place: receivers of mutating methods, bases of subscript
/// assignments, augmented assignments and `del`.
fn changed_in_place(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in body {
        s.walk(&mut |s: &Stmt| {
            for e in s.exprs() {
                e.walk(&mut |x: &Expr| {
                    if let ExprKind::Call { func, .. } = &x.kind
                        && let ExprKind::Attribute { value, attr } = &func.kind
                        && (MUTATING.contains(&attr.as_str())
                            || MAPPING_MUTATING.contains(&attr.as_str()))
                    {
                        out.extend(super::havoc::base_name(value).map(str::to_string));
                    }
                });
            }
            let targets: Vec<&Expr> = match &s.kind {
                StmtKind::Assign { targets, .. } => targets.iter().collect(),
                StmtKind::Delete(targets) => targets.iter().collect(),
                StmtKind::AugAssign { target, .. } => {
                    // `xs += ys` and `d |= e` change a list or dict in place.
                    out.extend(super::havoc::base_name(target).map(str::to_string));
                    Vec::new()
                }
                _ => Vec::new(),
            };
            for t in targets {
                t.walk(&mut |x: &Expr| {
                    if let ExprKind::Subscript { value, .. } | ExprKind::Attribute { value, .. } =
                        &x.kind
                    {
                        out.extend(super::havoc::base_name(value).map(str::to_string));
                    }
                });
            }
        });
    }
    out
}

/// The names of `body` bound only to fresh lists (rule 1), and the names rules 1–3
/// exclude (bound otherwise, read where a reference may be kept, mutated while iterated).
fn classify(body: &[Stmt]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut fresh = BTreeSet::new();
    let mut bad = aliased_names(body);
    bindings(body, &mut fresh, &mut bad);
    (fresh, bad)
}

/// Names that rules 2 and 3 exclude.
fn aliased_names(body: &[Stmt]) -> BTreeSet<String> {
    let mut v = Visitor {
        escaped: BTreeSet::new(),
        returns_safe: !has_finally(body),
    };
    v.block(body);
    for_mutations(body, &mut BTreeSet::new(), &mut v.escaped);
    v.escaped
}

fn has_finally(body: &[Stmt]) -> bool {
    let mut found = false;
    for s in body {
        s.walk(&mut |s: &Stmt| {
            found |= matches!(&s.kind, StmtKind::Try { finalbody, .. } if !finalbody.is_empty());
        });
    }
    found
}

/// Whether `e` evaluates to a new list no other name refers to.
fn fresh_list(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::List(_) | ExprKind::Set(_) => true,
        ExprKind::Dict { keys, .. } => keys.iter().all(Option::is_some),
        ExprKind::Comprehension {
            kind: ComprehensionKind::List | ComprehensionKind::Set | ComprehensionKind::Dict,
            ..
        } => true,
        ExprKind::Name(n) => n.starts_with("$c"),
        ExprKind::Call { func, .. } => {
            matches!(func.as_name(), Some("list" | "sorted" | "dict" | "set"))
                || matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "copy")
        }
        ExprKind::BinOp { .. } => true,
        ExprKind::Subscript { index, .. } => matches!(index.kind, ExprKind::Slice { .. }),
        _ => false,
    }
}

/// Rule 1: which names are bound (`fresh` if freshly, else into `bad`).
fn bindings(body: &[Stmt], fresh: &mut BTreeSet<String>, bad: &mut BTreeSet<String>) {
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    match (&t.kind, fresh_list(value)) {
                        (ExprKind::Name(n), true) => {
                            fresh.insert(n.clone());
                        }
                        _ => bad.extend(t.target_names()),
                    }
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } if fresh_list(value) => fresh.extend(target.as_name().map(str::to_string)),
            StmtKind::AugAssign { .. } => {}
            StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. } => {
                bad.extend(s.defined_names());
                continue;
            }
            StmtKind::Global(names) | StmtKind::Nonlocal(names) => {
                bad.extend(names.iter().cloned());
            }
            _ => {
                if !s.blocks().is_empty() {
                    // Compound statements bind their own targets (`for x`, `with … as x`,
                    // `except E as x`); their blocks are visited below.
                    let own: BTreeSet<String> = s.defined_names().into_iter().collect();
                    let inner: BTreeSet<String> = s
                        .blocks()
                        .iter()
                        .flat_map(|b| b.iter().flat_map(|s| s.defined_names()))
                        .collect();
                    bad.extend(own.difference(&inner).cloned());
                } else {
                    bad.extend(s.defined_names());
                }
            }
        }
        for b in s.blocks() {
            bindings(b, fresh, bad);
        }
    }
}

/// Rule 3: names mutated inside a `for` whose iterable mentions them.
fn for_mutations(body: &[Stmt], iterated: &mut BTreeSet<String>, bad: &mut BTreeSet<String>) {
    for s in body {
        for e in s.exprs() {
            e.walk(&mut |x: &Expr| {
                if let ExprKind::Call { func, .. } = &x.kind
                    && let ExprKind::Attribute { value, attr } = &func.kind
                    && let Some(n) = value.as_name()
                    && (MUTATING.contains(&attr.as_str())
                        || MAPPING_MUTATING.contains(&attr.as_str()))
                    && iterated.contains(n)
                {
                    bad.insert(n.to_string());
                }
            });
        }
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    t.walk(&mut |x: &Expr| {
                        if let ExprKind::Subscript { value, .. } = &x.kind
                            && let Some(n) = value.as_name()
                            && iterated.contains(n)
                        {
                            bad.insert(n.to_string());
                        }
                    });
                }
            }
            StmtKind::AugAssign { target, .. } => {
                if let Some(n) = super::havoc::base_name(target).filter(|n| iterated.contains(*n)) {
                    bad.insert(n.to_string());
                }
            }
            StmtKind::Delete(targets) => {
                for t in targets {
                    if let Some(n) = super::havoc::base_name(t).filter(|n| iterated.contains(*n)) {
                        bad.insert(n.to_string());
                    }
                }
            }
            _ => {}
        }
        if let StmtKind::For {
            iter, body, orelse, ..
        } = &s.kind
        {
            let added: Vec<String> = iter
                .names_used()
                .into_iter()
                .filter(|n| !iterated.contains(n))
                .collect();
            iterated.extend(added.iter().cloned());
            for_mutations(body, iterated, bad);
            for n in &added {
                iterated.remove(n);
            }
            for_mutations(orelse, iterated, bad);
        } else {
            for b in s.blocks() {
                for_mutations(b, iterated, bad);
            }
        }
    }
}

/// Rule 2: finds the names read where a reference may be kept.
struct Visitor {
    escaped: BTreeSet<String>,
    returns_safe: bool,
}

/// How a subexpression's value is used.
#[derive(Clone, Copy, PartialEq)]
enum Use {
    /// Kept (bound, stored, passed on): a bare name escapes.
    Kept,
    /// Only read (or its truth value taken).
    Read,
    /// Returned from the frame: displays of it are safe too.
    Returned,
}

impl Visitor {
    fn block(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e, Use::Read),
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    self.target(t);
                }
                self.expr(value, Use::Kept);
            }
            StmtKind::AnnAssign { target, value, .. } => {
                self.target(target);
                if let Some(v) = value {
                    self.expr(v, Use::Kept);
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.target(target);
                self.expr(value, Use::Read);
            }
            StmtKind::If { test, .. } | StmtKind::While { test, .. } => self.expr(test, Use::Read),
            StmtKind::Assert { test, msg } => {
                self.expr(test, Use::Read);
                if let Some(m) = msg {
                    self.expr(m, Use::Read);
                }
            }
            StmtKind::For { target, iter, .. } => {
                self.target(target);
                match &iter.kind {
                    ExprKind::Call { func, args, .. }
                        if func.as_name().is_some_and(|f| ITERATORS.contains(&f)) =>
                    {
                        args.iter().for_each(|a| self.expr(a, Use::Read));
                    }
                    _ => self.expr(iter, Use::Read),
                }
            }
            StmtKind::Return(Some(e)) if self.returns_safe => self.expr(e, Use::Returned),
            StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. } => {
                // A closure may read anything it names, at any later time.
                for e in s.exprs() {
                    self.escaped.extend(e.names_used());
                }
                let mut inner = Vec::new();
                s.walk(&mut |x: &Stmt| inner.extend(x.exprs().into_iter().cloned()));
                for e in inner {
                    self.escaped.extend(e.names_used());
                }
                return;
            }
            _ => {
                for e in s.exprs() {
                    self.expr(e, Use::Kept);
                }
            }
        }
        for b in s.blocks() {
            self.block(b);
        }
    }

    /// An assignment target: `xs[i] = …` reads `xs` and `i`; a name is bound, not read.
    fn target(&mut self, t: &Expr) {
        match &t.kind {
            ExprKind::Name(_) => {}
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|e| self.target(e)),
            ExprKind::Starred(e) => self.target(e),
            ExprKind::Subscript { value, index } => {
                self.expr(value, Use::Read);
                self.expr(index, Use::Read);
            }
            _ => self.expr(t, Use::Kept),
        }
    }

    fn expr(&mut self, e: &Expr, how: Use) {
        let read = |v: &mut Visitor, x: &Expr| v.expr(x, Use::Read);
        match &e.kind {
            ExprKind::Name(n) => {
                if how == Use::Kept {
                    self.escaped.insert(n.clone());
                }
            }
            ExprKind::Constant(_) | ExprKind::Unsupported { .. } => {}
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                let consumer = match &func.kind {
                    ExprKind::Attribute { value, attr } => {
                        read(self, value);
                        CONSUMING_METHODS.contains(&attr.as_str())
                    }
                    ExprKind::Name(f) => CONSUMERS.contains(&f.as_str()),
                    _ => {
                        self.expr(func, Use::Kept);
                        false
                    }
                };
                for a in args {
                    match &a.kind {
                        // A generator fully consumed by the builtin.
                        ExprKind::Comprehension {
                            kind: ComprehensionKind::Generator,
                            ..
                        } if consumer => read(self, a),
                        _ if consumer => read(self, a),
                        _ => self.expr(a, Use::Kept),
                    }
                }
                for (_, v) in keywords {
                    self.expr(v, Use::Kept);
                }
            }
            ExprKind::Subscript { value, index } => {
                read(self, value);
                read(self, index);
            }
            ExprKind::Slice { lower, upper, step } => {
                for p in [lower, upper, step].into_iter().flatten() {
                    read(self, p);
                }
            }
            ExprKind::BinOp { left, right, .. } => {
                read(self, left);
                read(self, right);
            }
            ExprKind::UnaryOp { operand, .. } => read(self, operand),
            ExprKind::Compare {
                left, comparators, ..
            } => {
                read(self, left);
                comparators.iter().for_each(|c| read(self, c));
            }
            // `xs or ys` is one of its operands: kept where the result is kept.
            ExprKind::BoolOp { values, .. } => values.iter().for_each(|v| self.expr(v, how)),
            ExprKind::IfExp { test, body, orelse } => {
                read(self, test);
                self.expr(body, how);
                self.expr(orelse, how);
            }
            ExprKind::Tuple(es) | ExprKind::List(es) | ExprKind::Set(es) => {
                let inner = if how == Use::Returned {
                    Use::Returned
                } else {
                    Use::Kept
                };
                es.iter().for_each(|x| self.expr(x, inner));
            }
            ExprKind::Comprehension {
                kind,
                elt,
                value,
                generators,
            } => {
                // A list comprehension is consumed at once; a generator kept elsewhere is
                // not (its iterable stays referenced).
                let iter_use = if *kind == ComprehensionKind::Generator && how == Use::Kept {
                    Use::Kept
                } else {
                    Use::Read
                };
                for g in generators {
                    self.expr(&g.iter, iter_use);
                    g.ifs.iter().for_each(|c| read(self, c));
                }
                self.expr(elt, Use::Kept);
                if let Some(v) = value {
                    self.expr(v, Use::Kept);
                }
            }
            ExprKind::FString(_) => {
                for c in e.children() {
                    read(self, c);
                }
            }
            _ => {
                for c in e.children() {
                    self.expr(c, Use::Kept);
                }
            }
        }
    }
}

/// The value of a list after `xs.append(v)`.
pub fn append(xs: &Term, v: Term) -> Result<Term, SortError> {
    Term::concat(vec![xs.clone(), Term::items(SeqKind::List, vec![v])?])
}

/// The value of a list after `xs.extend(ys)` (`ys` a list or tuple).
pub fn extend(xs: &Term, ys: &Term) -> Result<Term, SortError> {
    let items = match ys.sort() {
        Sort::Fixed(_, items) => (0..items.len())
            .map(|i| Term::index(ys.clone(), Term::int(i)))
            .collect::<Result<Vec<_>, _>>()?,
        Sort::Seq(SeqKind::List, _) => return Term::concat(vec![xs.clone(), ys.clone()]),
        other => return Err(SortError(format!("extend by a '{other}'"))),
    };
    Term::concat(vec![xs.clone(), Term::items(SeqKind::List, items)?])
}

/// `i` as a position in `0..len` when `-len <= i < len`.
fn normalized(i: &Term, len: &Term) -> Result<Term, SortError> {
    let negative = Term::compare(CompareOp::Lt, i.clone(), Term::int(0))?;
    let shifted = Term::arith(crate::symbolic::term::ArithOp::Add, i.clone(), len.clone())?;
    Term::ite(negative, shifted, i.clone())
}

/// When index `i` is out of range for a sequence of length `len`.
pub fn out_of_range(i: &Term, len: &Term) -> Result<Term, SortError> {
    let below = Term::compare(CompareOp::Lt, i.clone(), Term::neg(len.clone())?)?;
    let above = Term::compare(CompareOp::GtE, i.clone(), len.clone())?;
    Term::or(vec![below, above])
}

/// The items of a fixed-length list.
fn fixed_items(xs: &Term) -> Result<Option<Vec<Term>>, SortError> {
    match xs.sort() {
        Sort::Fixed(_, items) => Ok(Some(
            (0..items.len())
                .map(|k| Term::index(xs.clone(), Term::int(k)))
                .collect::<Result<_, _>>()?,
        )),
        _ => Ok(None),
    }
}

fn eq(a: Term, b: Term) -> Result<Term, SortError> {
    Term::compare(CompareOp::Eq, a, b)
}

/// The list after `xs[i] = v`, where `i` is in range.
pub fn set_item(xs: &Term, i: &Term, v: Term) -> Result<Term, SortError> {
    let len = Term::len(xs.clone())?;
    let j = normalized(i, &len)?;
    if let Some(items) = fixed_items(xs)? {
        let new = items
            .into_iter()
            .enumerate()
            .map(|(k, old)| Term::ite(eq(j.clone(), Term::int(k))?, v.clone(), old))
            .collect::<Result<Vec<_>, _>>()?;
        return Term::items(SeqKind::List, new);
    }
    let after = Term::arith(crate::symbolic::term::ArithOp::Add, j.clone(), Term::int(1))?;
    Term::concat(vec![
        Term::slice(xs.clone(), None, Some(j), None)?,
        Term::items(SeqKind::List, vec![v])?,
        Term::slice(xs.clone(), Some(after), None, None)?,
    ])
}

/// The list after `xs.pop(i)`, where `i` is in range (`xs.pop()` is `i = -1`).
pub fn without(xs: &Term, i: &Term) -> Result<Term, SortError> {
    let len = Term::len(xs.clone())?;
    let j = normalized(i, &len)?;
    if let Some(items) = fixed_items(xs)? {
        let n = items.len();
        let new = (0..n.saturating_sub(1))
            .map(|k| {
                let before = Term::compare(CompareOp::Lt, Term::int(k), j.clone())?;
                Term::ite(before, items[k].clone(), items[k + 1].clone())
            })
            .collect::<Result<Vec<_>, _>>()?;
        return Term::items(SeqKind::List, new);
    }
    let after = Term::arith(crate::symbolic::term::ArithOp::Add, j.clone(), Term::int(1))?;
    Term::concat(vec![
        Term::slice(xs.clone(), None, Some(j), None)?,
        Term::slice(xs.clone(), Some(after), None, None)?,
    ])
}

/// The list after `xs.insert(i, v)` (any `i`: Python clamps it, as `xs[i:i] = [v]`).
pub fn insert(xs: &Term, i: &Term, v: Term) -> Result<Term, SortError> {
    if let (Some(items), Some(k)) = (fixed_items(xs)?, i.int_literal()) {
        let n = BigInt::from(items.len());
        let at = if k < BigInt::from(0) {
            (k + &n).max(BigInt::from(0))
        } else {
            k.min(n)
        };
        let at = at.to_usize().unwrap_or(0);
        let mut new = items;
        new.insert(at, v);
        return Term::items(SeqKind::List, new);
    }
    Term::concat(vec![
        Term::slice(xs.clone(), None, Some(i.clone()), None)?,
        Term::items(SeqKind::List, vec![v])?,
        Term::slice(xs.clone(), Some(i.clone()), None, None)?,
    ])
}
