//! One statement on one path: what it does to the state, and where the path forks. A fork
//! is a [`Branch::Split`] of alternatives whose conditions partition the path (for an
//! expression: "raises E1", …, "raises nothing"; for an `if`: the test and its negation);
//! the explorer asks the solver which alternatives are feasible.

use super::SymexecError;
use super::comprehension;
use super::eval::{Eval, evaluate};
use super::flow::Next;
use super::havoc::{base_name, bound_names, havoc_names, mutated, note};
use super::hoist::user_call;
use super::program::{Prepared, Program};
use super::state::{
    CallTarget, Callee, Completion, Frame, Kont, Source, State, Store, exc, set, sort_type_name,
};
use super::tree::{Exc, Message, Value};
use crate::python::ir::{Constant, Expr, ExprKind, ParamKind, Stmt, StmtKind};
use crate::python::messages;
use crate::symbolic::iteration::{Iterable, iterator_call};
use crate::symbolic::none;
use crate::symbolic::simplify::simplify;
use crate::symbolic::{CompareOp, Env, Sort, Term, TermKind, translate};

type Result<T> = std::result::Result<T, SymexecError>;

mod entry_forks;
mod list_effects;
mod list_lengths;
mod mappings;
mod split_items;

/// Where one step leads.
pub enum Branch<'p> {
    Go(State<'p>),
    /// Alternatives with conditions that partition the path, in display order.
    Split(Vec<(Term, Branch<'p>)>),
}

/// The rules a step follows.
pub struct Machine<'p> {
    pub program: &'p Program,
    pub unroll: u64,
    pub recursion_limit: u64,
    /// Activations of one function on the stack before a call of it is cut.
    pub depth: u64,
}

fn internal(what: &str) -> SymexecError {
    SymexecError::Internal(what.to_string())
}

fn unsupported(construct: impl Into<String>, line: u32) -> SymexecError {
    SymexecError::Unsupported {
        construct: construct.into(),
        line,
    }
}

fn sort_err(e: crate::symbolic::SortError) -> SymexecError {
    SymexecError::Internal(e.0)
}

fn not(t: &Term) -> Result<Term> {
    Ok(simplify(&Term::not(t.clone()).map_err(sort_err)?))
}

fn compare(op: CompareOp, a: Term, b: Term) -> Result<Term> {
    Ok(simplify(&Term::compare(op, a, b).map_err(sort_err)?))
}

impl<'p> Branch<'p> {
    /// Continues every state that is still running with `f`.
    fn and_then(self, f: &mut dyn FnMut(State<'p>) -> Result<Branch<'p>>) -> Result<Branch<'p>> {
        match self {
            Branch::Go(s) if s.completion.is_some() || s.bound.is_some() => Ok(Branch::Go(s)),
            Branch::Go(s) => f(s),
            Branch::Split(alts) => {
                let mut out = Vec::with_capacity(alts.len());
                for (c, b) in alts {
                    out.push((c, b.and_then(f)?));
                }
                Ok(Branch::Split(out))
            }
        }
    }
}

/// Continues with `f(state, value)` where evaluation raises nothing; the raising paths end
/// in their exceptions.
fn raising<'p>(
    s: State<'p>,
    ev: Eval,
    f: impl FnOnce(State<'p>, Term) -> Result<Branch<'p>>,
) -> Result<Branch<'p>> {
    match ev {
        Eval::Havoc(_) => Err(internal("a havoc value where a term is needed")),
        Eval::Raise(e) => Ok(Branch::Go(s.raise(e))),
        Eval::Value { value, raises } if raises.is_empty() => f(s, value),
        Eval::Value { value, raises } => {
            let any =
                Term::or(raises.iter().map(|(_, c)| c.clone()).collect()).map_err(sort_err)?;
            let mut alts = vec![(not(&any)?, f(s.clone(), value)?)];
            for (e, cond) in raises {
                alts.push((cond, Branch::Go(s.clone().raise(e))));
            }
            Ok(Branch::Split(alts))
        }
    }
}

/// The message of an exception built from a value that may be havoc.
fn value_message(v: &Value) -> Message {
    match v {
        Value::Term(t) => message_of(t),
        _ => Message::Unknown,
    }
}

/// The message of an exception built from a value: `str(value)`.
fn message_of(v: &Term) -> Message {
    match v.literal() {
        Some(crate::symbolic::Literal::Str(s)) => Message::Known(s.clone()),
        Some(_) => Message::Known(v.to_string()),
        None => Message::Of(v.clone()),
    }
}

impl<'p> Machine<'p> {
    /// Runs `next` (a statement or a loop test) on `s`.
    pub fn step(&self, s: State<'p>, next: &Next<'p>) -> Result<Branch<'p>> {
        match next {
            Next::Stmt(stmt) => self.stmt(s, stmt),
            Next::LoopTest(_) => self.loop_test(s),
            Next::Finished(_) => Err(internal("stepping a finished path")),
        }
    }

    /// Continues with `e`'s value (as a condition when `condition`; a condition that is not
    /// modelled is a fresh boolean).
    fn with_value(
        &self,
        s: State<'p>,
        e: &Expr,
        condition: bool,
        f: impl FnOnce(State<'p>, Term) -> Result<Branch<'p>>,
    ) -> Result<Branch<'p>> {
        match evaluate(&s, self.program, e, condition)? {
            Eval::Havoc(note) if condition => {
                let mut s = s;
                havoc_names(&mut s, mutated(e), &note)?;
                let t = s.havoc.fresh_bool(note);
                f(s, t)
            }
            ev => raising(s, ev, f),
        }
    }

    /// Continues with `e`'s value, which is [`Value::Havoc`] when it is not modelled (and
    /// then what it may have mutated is havoc too).
    fn with_any(
        &self,
        s: State<'p>,
        e: &Expr,
        f: impl FnOnce(State<'p>, Value) -> Result<Branch<'p>>,
    ) -> Result<Branch<'p>> {
        // `None` (after folding: a name holding it, `None and y`, …) is a value, not a term.
        let folded = none::fold(e, &|n| s.holds_none(self.program, n), false);
        let e = folded.as_ref().unwrap_or(e);
        if matches!(e.kind, ExprKind::Constant(Constant::None)) {
            return f(s, Value::None);
        }
        match evaluate(&s, self.program, e, false)? {
            Eval::Havoc(note) => {
                let mut s = s;
                s.havoc.mark(note.clone());
                havoc_names(&mut s, mutated(e), &note)?;
                f(s, Value::Havoc(note))
            }
            ev => raising(s, ev, |s, t| f(s, Value::Term(t))),
        }
    }

    /// A statement that is not modelled: what it may bind becomes havoc, and the path goes on
    /// (with `body` run when given, as a `with`'s).
    fn havoc_stmt(
        &self,
        mut s: State<'p>,
        stmt: &'p Stmt,
        construct: &str,
        body: Option<&'p [Stmt]>,
    ) -> Result<Branch<'p>> {
        let note = note(construct, stmt.span.line);
        s.havoc.mark(note.clone());
        let mut names = bound_names(stmt);
        for e in stmt.exprs() {
            names.extend(mutated(e));
        }
        havoc_names(&mut s, names, &note)?;
        if let Some(body) = body {
            s.push_block(body)?;
        }
        Ok(Branch::Go(s))
    }

    fn stmt(&self, mut s: State<'p>, stmt: &'p Stmt) -> Result<Branch<'p>> {
        if let Some(forked) = self.at_known_length(&s, stmt)? {
            return Ok(forked);
        }
        if let Some(forked) = self.at_split(&s, stmt)? {
            return Ok(forked);
        }
        s = match self.mapping_stmt(s, stmt)? {
            Ok(done) => return Ok(done),
            Err(s) => s,
        };
        let line = stmt.span.line;
        match &stmt.kind {
            StmtKind::Expr(e) => {
                let s = match self.list_method(s, e, CallTarget::Discard)? {
                    Ok(done) => return Ok(done),
                    Err(s) => s,
                };
                if user_call(e).is_some() {
                    return self.call(s, e, CallTarget::Discard);
                }
                match &e.kind {
                    ExprKind::Constant(_) => Ok(Branch::Go(s)),
                    ExprKind::Call {
                        func,
                        args,
                        keywords,
                    } if func.as_name() == Some("print") => {
                        let mut operands = args.clone();
                        operands.extend(keywords.iter().map(|(_, v)| v.clone()));
                        let all = Expr::new(ExprKind::Tuple(operands), e.span);
                        self.with_any(s, &all, |s, _| Ok(Branch::Go(s)))
                    }
                    _ => self.with_any(s, e, |s, _| Ok(Branch::Go(s))),
                }
            }
            StmtKind::Assign { targets, value } => {
                if let [t] = targets.as_slice()
                    && let Some(name) = t.as_name()
                {
                    s = match self.list_method(s, value, CallTarget::Name(name.to_string()))? {
                        Ok(done) => return Ok(done),
                        Err(s) => s,
                    };
                }
                if let ([t], Some(_)) = (targets.as_slice(), user_call(value))
                    && let Some(name) = t.as_name()
                {
                    return self.call(s, value, CallTarget::Name(name.to_string()));
                }
                self.with_any(s, value, |s, v| self.assign_all(s, targets, v))
            }
            StmtKind::AnnAssign { target, value, .. } => match value {
                Some(value) => {
                    if let (Some(name), Some(_)) = (target.as_name(), user_call(value)) {
                        return self.call(s, value, CallTarget::Name(name.to_string()));
                    }
                    self.with_any(s, value, |s, v| self.assign(s, target, v))
                }
                None => Ok(Branch::Go(s)),
            },
            StmtKind::AugAssign { target, .. } => {
                let Some(combined) = stmt
                    .augmented_value()
                    .filter(|_| target.as_name().is_some())
                else {
                    return self.havoc_stmt(
                        s,
                        stmt,
                        &format!("the augmented assignment {}", stmt.text),
                        None,
                    );
                };
                self.with_any(s, &combined, |s, v| self.assign(s, target, v))
            }
            StmtKind::If { test, body, orelse } => self.with_value(s, test, true, |s, v| {
                let mut then = s.clone();
                then.push_block(body)?;
                let mut other = s;
                other.push_block(orelse)?;
                Ok(Branch::Split(vec![
                    (v.clone(), Branch::Go(then)),
                    (not(&v)?, Branch::Go(other)),
                ]))
            }),
            StmtKind::While { .. } => {
                s.push(Kont::Loop {
                    stmt,
                    count: 0,
                    iter: None,
                })?;
                self.loop_test(s)
            }
            StmtKind::For { .. } => self.for_loop(s, stmt),
            StmtKind::Break => {
                s.completion = Some(Completion::Break);
                Ok(Branch::Go(s))
            }
            StmtKind::Continue => {
                s.completion = Some(Completion::Continue);
                Ok(Branch::Go(s))
            }
            StmtKind::Pass => Ok(Branch::Go(s)),
            StmtKind::Return(None) => {
                s.completion = Some(Completion::Return(Value::None));
                Ok(Branch::Go(s))
            }
            StmtKind::Return(Some(e)) => {
                s = match self.list_method(s, e, CallTarget::Return)? {
                    Ok(done) => return Ok(done),
                    Err(s) => s,
                };
                if user_call(e).is_some() {
                    return self.call(s, e, CallTarget::Return);
                }
                self.with_any(s, e, |mut s, v| {
                    s.completion = Some(Completion::Return(v));
                    Ok(Branch::Go(s))
                })
            }
            StmtKind::Raise { exc: None, .. } => {
                let e = s
                    .handling()
                    .unwrap_or_else(|| exc("RuntimeError", "No active exception to reraise"));
                Ok(Branch::Go(s.raise(e)))
            }
            StmtKind::Raise { exc: Some(e), .. } => self.raise(s, e, line),
            StmtKind::Assert { test, msg } => self.with_value(s, test, true, |s, v| {
                let failing = self.assertion_failure(s.clone(), msg.as_ref())?;
                Ok(Branch::Split(vec![
                    (v.clone(), Branch::Go(s)),
                    (not(&v)?, failing),
                ]))
            }),
            StmtKind::Try { is_star: true, .. } => self.havoc_stmt(s, stmt, "except*", None),
            StmtKind::Try { body, .. } => {
                s.push(Kont::TryBody { stmt })?;
                s.push_block(body)?;
                Ok(Branch::Go(s))
            }
            StmtKind::FunctionDef(f) => {
                let top = s.frames.len() == 1 && self.program.is_snippet();
                match self.program.defs.get(&stmt.id) {
                    Some(key) if top => {
                        s.assign(
                            &f.name,
                            Value::Function {
                                key: key.clone(),
                                name: f.name.clone(),
                            },
                        )?;
                        Ok(Branch::Go(s))
                    }
                    _ => self.havoc_stmt(
                        s,
                        stmt,
                        "a function defined inside a function (closures)",
                        None,
                    ),
                }
            }
            StmtKind::ClassDef { name, .. } if self.program.classes.is_class(name) => {
                Ok(Branch::Go(s))
            }
            StmtKind::ClassDef { .. } => self.havoc_stmt(
                s,
                stmt,
                "classes other than `class E(Exception): pass`",
                None,
            ),
            StmtKind::With { body, .. } => self.havoc_stmt(s, stmt, "with", Some(body)),
            StmtKind::Match { .. } => self.havoc_stmt(s, stmt, "match", None),
            StmtKind::Import(_) | StmtKind::ImportFrom { .. } => {
                self.havoc_stmt(s, stmt, "import", None)
            }
            StmtKind::Global(_) | StmtKind::Nonlocal(_) => {
                self.havoc_stmt(s, stmt, "global and nonlocal", None)
            }
            StmtKind::Delete(_) => self.havoc_stmt(s, stmt, "del", None),
            StmtKind::Unsupported { construct } => self.havoc_stmt(s, stmt, construct, None),
        }
    }

    fn assign_all(&self, s: State<'p>, targets: &[Expr], value: Value) -> Result<Branch<'p>> {
        let mut branch = Branch::Go(s);
        for t in targets {
            branch = branch.and_then(&mut |s| self.assign(s, t, value.clone()))?;
        }
        Ok(branch)
    }

    /// Binds `target` to `value` (names, and tuples/lists of targets by unpacking).
    fn assign(&self, mut s: State<'p>, target: &Expr, value: Value) -> Result<Branch<'p>> {
        let line = target.span.line;
        match &target.kind {
            ExprKind::Name(n) => {
                s.assign(n, value)?;
                Ok(Branch::Go(s))
            }
            ExprKind::Tuple(targets) | ExprKind::List(targets) => {
                if targets
                    .iter()
                    .any(|t| matches!(t.kind, ExprKind::Starred(_)))
                {
                    let note = note("starred assignment targets", line);
                    s.havoc.mark(note.clone());
                    let names = targets.iter().flat_map(|t| t.target_names());
                    havoc_names(&mut s, names.collect::<Vec<_>>(), &note)?;
                    return Ok(Branch::Go(s));
                }
                let n = targets.len();
                let v = match value {
                    Value::Term(v) => v,
                    Value::Havoc(note) => {
                        let names = targets.iter().flat_map(|t| t.target_names());
                        havoc_names(&mut s, names.collect::<Vec<_>>(), &note)?;
                        return Ok(Branch::Go(s));
                    }
                    other => {
                        let t = super::state::type_name(&other);
                        return Ok(Branch::Go(s.raise(exc(
                            "TypeError",
                            format!("cannot unpack non-iterable {t} object"),
                        ))));
                    }
                };
                match v.sort() {
                    Sort::Fixed(_, items) if items.len() == n => self.assign_items(s, targets, &v),
                    Sort::Fixed(_, items) => {
                        let msg = if items.len() > n {
                            format!("too many values to unpack (expected {n})")
                        } else {
                            format!(
                                "not enough values to unpack (expected {n}, got {})",
                                items.len()
                            )
                        };
                        Ok(Branch::Go(s.raise(exc("ValueError", msg))))
                    }
                    Sort::Seq(..) | Sort::Str => {
                        let len = simplify(&Term::len(v.clone()).map_err(sort_err)?);
                        let k = Term::int(n);
                        let exact = self.assign_items(s.clone(), targets, &v)?;
                        let many = s.clone().raise(exc(
                            "ValueError",
                            format!("too many values to unpack (expected {n})"),
                        ));
                        let few = s.raise(Exc {
                            type_name: "ValueError".into(),
                            message: Message::Unknown,
                        });
                        Ok(Branch::Split(vec![
                            (compare(CompareOp::Eq, len.clone(), k.clone())?, exact),
                            (
                                compare(CompareOp::Gt, len.clone(), k.clone())?,
                                Branch::Go(many),
                            ),
                            (compare(CompareOp::Lt, len, k)?, Branch::Go(few)),
                        ]))
                    }
                    other => {
                        let msg = format!(
                            "cannot unpack non-iterable {} object",
                            sort_type_name(other)
                        );
                        Ok(Branch::Go(s.raise(exc("TypeError", msg))))
                    }
                }
            }
            _ => {
                let mut s = match self.list_store(s, target, &value)? {
                    Ok(done) => return Ok(done),
                    Err(s) => s,
                };
                let note = note(&format!("assignment to {target}"), line);
                s.havoc.mark(note.clone());
                havoc_names(&mut s, base_name(target).map(str::to_string), &note)?;
                Ok(Branch::Go(s))
            }
        }
    }

    fn assign_items(&self, s: State<'p>, targets: &[Expr], v: &Term) -> Result<Branch<'p>> {
        let mut branch = Branch::Go(s);
        for (i, t) in targets.iter().enumerate() {
            let item = simplify(&Term::index(v.clone(), Term::int(i)).map_err(sort_err)?);
            branch = branch.and_then(&mut |s| self.assign(s, t, Value::Term(item.clone())))?;
        }
        Ok(branch)
    }

    fn assertion_failure(&self, s: State<'p>, msg: Option<&Expr>) -> Result<Branch<'p>> {
        match msg {
            None => Ok(Branch::Go(s.raise(exc("AssertionError", "")))),
            Some(m) => self.with_any(s, m, |s, v| {
                Ok(Branch::Go(s.raise(Exc {
                    type_name: "AssertionError".into(),
                    message: value_message(&v),
                })))
            }),
        }
    }

    /// `raise E`, `raise E(message)`, `raise e` (a caught exception).
    fn raise(&self, s: State<'p>, e: &Expr, line: u32) -> Result<Branch<'p>> {
        let (class, args) = match &e.kind {
            ExprKind::Name(n) => (n.as_str(), &[][..]),
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => match func.as_name() {
                Some(n) => (n, args.as_slice()),
                None => return Err(unsupported(format!("raise {e}"), line)),
            },
            _ => return Err(unsupported(format!("raise {e}"), line)),
        };
        if let Some(v) = super::state::get(&s.frame()?.store, class) {
            let thrown = match v {
                Value::Exception(x) if args.is_empty() => x.clone(),
                _ => exc("TypeError", "exceptions must derive from BaseException"),
            };
            return Ok(Branch::Go(s.raise(thrown)));
        }
        if !self.program.classes.is_class(class) {
            let thrown = if self.program.functions.contains_key(class) {
                exc("TypeError", "exceptions must derive from BaseException")
            } else {
                exc("NameError", format!("name '{class}' is not defined"))
            };
            return Ok(Branch::Go(s.raise(thrown)));
        }
        let class = class.to_string();
        match args {
            [] => Ok(Branch::Go(s.raise(Exc {
                type_name: class,
                message: Message::Known(String::new()),
            }))),
            [arg] => {
                let keyed = self.program.classes.is_subclass(&class, "KeyError");
                self.with_any(s, arg, |s, v| {
                    let message = match &v {
                        Value::Term(t) if keyed => Message::of_key(t),
                        _ => value_message(&v),
                    };
                    Ok(Branch::Go(s.raise(Exc {
                        type_name: class.clone(),
                        message,
                    })))
                })
            }
            _ => {
                let all = Expr::new(ExprKind::Tuple(args.to_vec()), e.span);
                self.with_any(s, &all, |s, v| {
                    Ok(Branch::Go(s.raise(Exc {
                        type_name: class,
                        message: value_message(&v),
                    })))
                })
            }
        }
    }

    fn for_loop(&self, s: State<'p>, stmt: &'p Stmt) -> Result<Branch<'p>> {
        let s = match self.mapping_loop(s, stmt)? {
            Ok(done) => return Ok(done),
            Err(s) => s,
        };
        let StmtKind::For { iter, target, .. } = &stmt.kind else {
            return Err(internal("for_loop on another statement"));
        };
        // The loop a repetition `[c] * n` runs as (see `comprehension`).
        let repeats = target
            .as_name()
            .is_some_and(|n| n.starts_with(comprehension::REPEAT_PREFIX));
        if let ExprKind::Call {
            func,
            args,
            keywords,
        } = &iter.kind
            && func.as_name() == Some("range")
        {
            let bad = if !keywords.is_empty() {
                Some("range() takes no keyword arguments".to_string())
            } else if args.is_empty() {
                Some("range expected at least 1 argument, got 0".to_string())
            } else if args.len() > 3 {
                Some(format!(
                    "range expected at most 3 arguments, got {}",
                    args.len()
                ))
            } else {
                None
            };
            if let Some(msg) = bad {
                return Ok(Branch::Go(s.raise(exc("TypeError", msg))));
            }
            let all = Expr::new(ExprKind::Tuple(args.clone()), iter.span);
            return self.with_any(s, &all, |s, v| {
                let v = match v {
                    Value::Term(v) => v,
                    Value::Havoc(note) => return self.havoc_loop(s, stmt, note),
                    _ => return Err(internal("range arguments are not a value")),
                };
                let TermKind::Items(_, items) = v.kind() else {
                    return Err(internal("range arguments are not a display"));
                };
                if let Some(bad) = items
                    .iter()
                    .find(|t| !matches!(t.sort(), Sort::Int | Sort::Bool))
                {
                    let type_name = sort_type_name(bad.sort());
                    let msg = if repeats {
                        format!("can't multiply sequence by non-int of type '{type_name}'")
                    } else {
                        format!("'{type_name}' object cannot be interpreted as an integer")
                    };
                    return Ok(Branch::Go(s.raise(exc("TypeError", msg))));
                }
                let range = Iterable::range(&items).ok_or_else(|| internal("range arity"))?;
                let zero = range.zero_step().map_err(sort_err)?;
                let mut entered = s.clone();
                entered.push(Kont::Loop {
                    stmt,
                    count: 0,
                    iter: Some((Source::Modelled(range), 0)),
                })?;
                let go = self.loop_test(entered)?;
                if zero.bool_literal() == Some(false) {
                    return Ok(go);
                }
                let fail = s.raise(exc("ValueError", messages::RANGE_STEP_ZERO));
                Ok(Branch::Split(vec![
                    (not(&zero)?, go),
                    (zero, Branch::Go(fail)),
                ]))
            });
        }
        if let Some((name, args)) = iterator_call(iter) {
            let all = Expr::new(ExprKind::Tuple(args.to_vec()), iter.span);
            return self.with_any(s, &all, |mut s, v| {
                let v = match v {
                    Value::Term(v) => v,
                    Value::Havoc(note) => return self.havoc_loop(s, stmt, note),
                    _ => return Err(internal("iterator arguments are not a value")),
                };
                let TermKind::Items(_, items) = v.kind() else {
                    return Err(internal("iterator arguments are not a display"));
                };
                match Iterable::builtin(name, items) {
                    Some(Ok(items)) => {
                        s.push(Kont::Loop {
                            stmt,
                            count: 0,
                            iter: Some((Source::Modelled(items), 0)),
                        })?;
                        self.loop_test(s)
                    }
                    Some(Err(why)) => {
                        let n = note(&why.0, iter.span.line);
                        s.havoc.mark(n.clone());
                        self.havoc_loop(s, stmt, n)
                    }
                    None => Err(internal("an iterator builtin without a model")),
                }
            });
        }
        self.with_any(s, iter, |mut s, v| {
            let v = match v {
                Value::Term(v) => v,
                Value::Havoc(note) => return self.havoc_loop(s, stmt, note),
                other => {
                    let t = super::state::type_name(&other);
                    let msg = format!("'{t}' object is not iterable");
                    return Ok(Branch::Go(s.raise(exc("TypeError", msg))));
                }
            };
            if !v.sort().is_sized() {
                let msg = format!("'{}' object is not iterable", sort_type_name(v.sort()));
                return Ok(Branch::Go(s.raise(exc("TypeError", msg))));
            }
            s.push(Kont::Loop {
                stmt,
                count: 0,
                iter: Some((Source::Modelled(Iterable::Seq(v)), 0)),
            })?;
            self.loop_test(s)
        })
    }

    /// The test of the loop on top of the frame: into the body (or the bound), or out.
    /// A `for` over a value that is not modelled: the loop runs over a havoc source.
    fn havoc_loop(&self, mut s: State<'p>, stmt: &'p Stmt, note: String) -> Result<Branch<'p>> {
        s.push(Kont::Loop {
            stmt,
            count: 0,
            iter: Some((Source::Havoc(note), 0)),
        })?;
        self.loop_test(s)
    }

    fn loop_test(&self, s: State<'p>) -> Result<Branch<'p>> {
        let (stmt, iter) = match s.frame()?.konts.last() {
            Some(Kont::Loop { stmt, iter, .. }) => (*stmt, iter.clone()),
            _ => return Err(internal("no loop to test")),
        };
        match (&stmt.kind, iter) {
            (StmtKind::While { test, body, .. }, _) => self.with_value(s, test, true, |s, v| {
                let go = self.enter_body(s.clone(), stmt, body)?;
                Ok(Branch::Split(vec![
                    (v.clone(), go),
                    (not(&v)?, self.exit_loop(s)?),
                ]))
            }),
            (StmtKind::For { target, body, .. }, Some((Source::Havoc(note), _))) => {
                let mut s = s;
                let more = s.havoc.fresh_bool(note.clone());
                let item = Value::Havoc(note);
                let go = self
                    .enter_body(s.clone(), stmt, body)?
                    .and_then(&mut |s| self.assign(s, target, item.clone()))?;
                Ok(Branch::Split(vec![
                    (more.clone(), go),
                    (not(&more)?, self.exit_loop(s)?),
                ]))
            }
            (StmtKind::For { target, body, .. }, Some((Source::Modelled(items), k))) => {
                let more = items.has_item(k).map_err(sort_err)?;
                let Some(item) = items.item(k).map_err(sort_err)? else {
                    return self.exit_loop(s);
                };
                let go = self
                    .enter_body(s.clone(), stmt, body)?
                    .and_then(&mut |s| self.assign(s, target, Value::Term(item.clone())))?;
                Ok(Branch::Split(vec![
                    (more.clone(), go),
                    (not(&more)?, self.exit_loop(s)?),
                ]))
            }
            _ => Err(internal("a loop marker on another statement")),
        }
    }

    fn enter_body(&self, mut s: State<'p>, stmt: &'p Stmt, body: &'p [Stmt]) -> Result<Branch<'p>> {
        let frame = s.frame_mut()?;
        let Some(Kont::Loop { count, iter, .. }) = frame.konts.last_mut() else {
            return Err(internal("no loop to enter"));
        };
        if *count >= self.unroll {
            s.bound = Some(format!(
                "the loop at line {} ran {} times (unroll bound)",
                stmt.span.line, self.unroll
            ));
            return Ok(Branch::Go(s));
        }
        *count += 1;
        if let Some((_, k)) = iter {
            *k += 1;
        }
        s.push_block(body)?;
        Ok(Branch::Go(s))
    }

    fn exit_loop(&self, mut s: State<'p>) -> Result<Branch<'p>> {
        let frame = s.frame_mut()?;
        let Some(Kont::Loop { stmt, .. }) = frame.konts.pop() else {
            return Err(internal("no loop to leave"));
        };
        let (StmtKind::While { orelse, .. } | StmtKind::For { orelse, .. }) = &stmt.kind else {
            return Err(internal("a loop marker on another statement"));
        };
        s.push_block(orelse)?;
        Ok(Branch::Go(s))
    }

    /// A call that is not run: its result (where the call's target is) and the names it may
    /// mutate become havoc.
    fn havoc_call(
        &self,
        mut s: State<'p>,
        e: &Expr,
        construct: &str,
        target: CallTarget,
    ) -> Result<Branch<'p>> {
        let note = note(construct, e.span.line);
        s.havoc.mark(note.clone());
        let mut names = mutated(e);
        if let ExprKind::Call { args, .. } = &e.kind {
            names.extend(args.iter().filter_map(|a| a.as_name().map(str::to_string)));
        }
        let user_function = user_call(e)
            .is_some_and(|c| matches!(s.callee(self.program, c.name), Ok(Callee::Function(_))));
        if user_function {
            havoc_names(&mut s, names, &note)?;
        } else {
            // Builtins do not mutate their arguments; only receivers may change.
            havoc_names(&mut s, mutated(e), &note)?;
        }
        match target {
            CallTarget::Name(n) => s.assign(&n, Value::Havoc(note))?,
            CallTarget::Return => s.completion = Some(Completion::Return(Value::Havoc(note))),
            CallTarget::Discard | CallTarget::Top => {}
        }
        Ok(Branch::Go(s))
    }

    /// `f(args)`: the arguments, then the callee's body in a new frame.
    fn call(&self, s: State<'p>, e: &Expr, target: CallTarget) -> Result<Branch<'p>> {
        let line = e.span.line;
        let call = user_call(e).ok_or_else(|| internal("not a call"))?;
        if call.name == super::verify::summary::FRESH {
            return fresh(s, &call, target, line);
        }
        let f: &'p Prepared = match s.callee(self.program, call.name)? {
            Callee::Function(f) => f,
            Callee::NotCallable(t) => {
                return Ok(Branch::Go(
                    s.raise(exc("TypeError", format!("'{t}' object is not callable"))),
                ));
            }
            Callee::Builtin => {
                let construct = format!("the builtin {}()", call.name);
                return self.havoc_call(s, e, &construct, target);
            }
            Callee::Missing(x) => return Ok(Branch::Go(s.raise(x))),
        };
        if call
            .args
            .iter()
            .any(|a| matches!(a.kind, ExprKind::Starred(_)))
            || call.keywords.iter().any(|(k, _)| k.is_none())
        {
            return self.havoc_call(s, e, "*args and **kwargs in calls", target);
        }
        let mut operands = call.args.to_vec();
        operands.extend(call.keywords.iter().map(|(_, v)| v.clone()));
        let positional = call.args.len();
        let names: Vec<String> = call
            .keywords
            .iter()
            .filter_map(|(k, _)| k.clone())
            .collect();
        let all = Expr::new(ExprKind::Tuple(operands), e.span);
        let construct = format!("an argument of {}()", call.name);
        self.with_any(s, &all, |mut s, v| {
            let v = match v {
                Value::Term(v) => v,
                _ => return self.havoc_call(s, e, &construct, target),
            };
            let TermKind::Items(_, items) = v.kind() else {
                return Err(internal("call arguments are not a display"));
            };
            let (pos, kw) = items.split_at(positional.min(items.len()));
            let store = match bind(f, pos, &names, kw, line)? {
                Ok((store, notes)) => {
                    for n in notes {
                        s.havoc.mark(n);
                    }
                    store
                }
                Err(message) => return Ok(Branch::Go(s.raise(exc("TypeError", message)))),
            };
            let active = s
                .frames
                .iter()
                .filter(|fr| fr.function.is_some_and(|g| g.key == f.key))
                .count() as u64;
            if active > self.depth {
                s.bound = Some(format!(
                    "calling {}() at recursion depth {} (--depth)",
                    f.name, self.depth
                ));
                return Ok(Branch::Go(s));
            }
            if s.frames.len() as u64 >= self.recursion_limit {
                s.bound = Some(format!(
                    "calling {}() at depth {} (recursion_limit)",
                    f.name, self.recursion_limit
                ));
                return Ok(Branch::Go(s));
            }
            s.frames.push(Frame {
                function: Some(f),
                store,
                konts: vec![Kont::Block {
                    stmts: &f.body,
                    next: 0,
                }],
                target,
                hidden: Vec::new(),
            });
            Ok(Branch::Go(s))
        })
    }
}

/// Binds a call's arguments to `f`'s parameters: the frame's store, or CPython's
/// `TypeError` message.
fn bind(
    f: &Prepared,
    positional: &[Term],
    names: &[String],
    keyword: &[Term],
    line: u32,
) -> Result<std::result::Result<(Store, Vec<String>), String>> {
    let short = f.name.rsplit('.').next().unwrap_or(&f.name);
    let params = &f.params;
    if let Some(p) = params
        .iter()
        .find(|p| !matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly))
    {
        return Err(unsupported(
            format!(
                "calling {short}(), whose parameter {} is *args, **kwargs or keyword-only",
                p.name
            ),
            line,
        ));
    }
    if positional.len() > params.len() {
        let n = params.len();
        let plural = if n == 1 { "" } else { "s" };
        let verb = if positional.len() == 1 { "was" } else { "were" };
        return Ok(Err(format!(
            "{short}() takes {n} positional argument{plural} but {} {verb} given",
            positional.len()
        )));
    }
    let mut values: Vec<Option<Term>> = params.iter().map(|_| None).collect();
    for (slot, v) in values.iter_mut().zip(positional) {
        *slot = Some(v.clone());
    }
    for (name, v) in names.iter().zip(keyword) {
        let Some(i) = params.iter().position(|p| p.name == *name) else {
            return Ok(Err(format!(
                "{short}() got an unexpected keyword argument '{name}'"
            )));
        };
        if params[i].kind == ParamKind::PositionalOnly {
            return Ok(Err(format!(
                "{short}() got some positional-only arguments passed as keyword arguments: '{name}'"
            )));
        }
        if values[i].is_some() {
            return Ok(Err(format!(
                "{short}() got multiple values for argument '{name}'"
            )));
        }
        values[i] = Some(v.clone());
    }
    let mut missing = Vec::new();
    let mut store = Store::default();
    let mut notes = Vec::new();
    for (p, v) in params.iter().zip(values) {
        let v = match (v, &p.default) {
            (Some(v), _) => Value::Term(v),
            (None, Some(d)) if matches!(d.kind, ExprKind::Constant(Constant::None)) => Value::None,
            (None, Some(d)) => match translate(d, &Env::new()) {
                Ok(t) => Value::Term(simplify(&t.value)),
                Err(_) => {
                    let n = note(&format!("the default value {d} of {short}()"), line);
                    notes.push(n.clone());
                    Value::Havoc(n)
                }
            },
            (None, None) => {
                missing.push(format!("'{}'", p.name));
                continue;
            }
        };
        set(&mut store, &p.name, v);
    }
    if !missing.is_empty() {
        let n = missing.len();
        let list = match missing.as_slice() {
            [one] => one.clone(),
            [a, b] => format!("{a} and {b}"),
            [init @ .., last] => format!("{}, and {last}", init.join(", ")),
            [] => String::new(),
        };
        let plural = if n == 1 { "" } else { "s" };
        return Ok(Err(format!(
            "{short}() missing {n} required positional argument{plural}: {list}"
        )));
    }
    Ok(Ok((store, notes)))
}

/// `__fresh__("T")` (only in `%verify`'s generated stubs): a fresh value of type `T`, with
/// no note and no approximation (the stub constrains it by a contract).
fn fresh<'p>(
    mut s: State<'p>,
    call: &super::hoist::UserCall<'_>,
    target: CallTarget,
    line: u32,
) -> Result<Branch<'p>> {
    let sort = match call.args {
        [a] => match &a.kind {
            ExprKind::Constant(crate::python::ir::Constant::Str(t)) => {
                super::parse_specs(&[format!("r:{t}")])?
                    .pop()
                    .map(|(_, s)| s)
            }
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| unsupported("__fresh__ without a type name", line))?;
    s.havoc.fresh += 1;
    let var = crate::symbolic::Var {
        name: "$fresh".to_string(),
        version: s.havoc.fresh,
        path: Vec::new(),
    };
    let value = Value::Term(crate::symbolic::Term::var(var, sort).map_err(sort_err)?);
    match target {
        CallTarget::Name(n) => s.assign(&n, value)?,
        CallTarget::Return => s.completion = Some(Completion::Return(value)),
        CallTarget::Discard | CallTarget::Top => {}
    }
    Ok(Branch::Go(s))
}
