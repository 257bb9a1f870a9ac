//! `%set`'s in-place list updates: `xs.append(v)`, `xs.extend(ys)`, `xs.insert(i, v)`,
//! `xs.pop()`, `xs.pop(i)` (as a statement, `t = xs.pop(…)` or `return xs.pop(…)`),
//! `xs.remove(x)` and `xs[i] = v` (on a list of known length: `list_lengths` forks on it
//! first) give `xs` its new value, with CPython's `IndexError`s and `ValueError`s, when `xs` is an owned
//! list (the aliasing rule is in [`crate::symexec::lists`]). Anything else keeps the havoc.

use super::{Branch, Machine, Result, compare, internal, not, sort_err};
use crate::python::ir::{Constant, Expr, ExprKind};
use crate::python::messages;
use crate::symbolic::simplify::simplify;
use crate::symbolic::sort::SeqKind;
use crate::symbolic::translate::sort_in_place;
use crate::symbolic::{CompareOp, Sort, Term, TermKind};
use crate::symexec::eval::{Eval, evaluate};
use crate::symexec::havoc::{havoc_names, note};
use crate::symexec::lists;
use crate::symexec::state::{CallTarget, Completion, State, exc, get};
use crate::symexec::tree::Value;

/// The largest list value kept, in nodes written out (`Term::written_size`): updates
/// whose value grows past it (swaps in a sorting loop nest every item in the previous
/// ones) become havoc rather than terms too large to print or solve (a 2,000-node cap let `bubble_sort` of the everyday corpus
/// exhaust the kernel's memory).
const MAX_LIST_NODES: usize = 300;

/// `t` simplified, unless it is too large to keep.
fn kept(t: Term) -> Option<Term> {
    (t.written_size(MAX_LIST_NODES) <= MAX_LIST_NODES).then(|| simplify(&t))
}

/// What a step that may not apply gives back: its branch, or the state untouched.
pub(super) type Maybe<'p> = std::result::Result<Branch<'p>, State<'p>>;

/// The owned list `name` holds in the current frame.
fn owned_list(s: &State<'_>, m: &Machine<'_>, name: &str) -> Option<Term> {
    let frame = s.frames.last()?;
    let Value::Term(t) = get(&frame.store, name)? else {
        return None;
    };
    let list = t.sort().seq_kind() == Some(SeqKind::List);
    (list && lists::owned(s, m.program, name)).then(|| t.clone())
}

fn is_int(t: &Term) -> bool {
    matches!(t.sort(), Sort::Int | Sort::Bool)
}

/// Delivers a method's result to where the call's value goes.
pub(super) fn deliver<'p>(mut s: State<'p>, target: &CallTarget, v: Value) -> Result<State<'p>> {
    match target {
        CallTarget::Name(n) => s.assign(n, v)?,
        CallTarget::Return => s.completion = Some(Completion::Return(v)),
        CallTarget::Discard | CallTarget::Top => {}
    }
    Ok(s)
}

impl<'p> Machine<'p> {
    /// `xs.method(args)` on an owned list, its result going to `target`.
    pub(super) fn list_method(
        &self,
        s: State<'p>,
        e: &Expr,
        target: CallTarget,
    ) -> Result<Maybe<'p>> {
        if let Some((receiver, reverse)) = sort_in_place(e) {
            return self.sort(s, e, receiver, reverse, target);
        }
        let Some((value, attr, args)) = e.as_method_call() else {
            return Ok(Err(s));
        };
        let modelled = matches!(attr, "append" | "extend" | "insert" | "pop" | "remove");
        let Some(name) = value.as_name().filter(|_| modelled) else {
            return Ok(Err(s));
        };
        let Some(xs) = owned_list(&s, self, name) else {
            return Ok(Err(s));
        };
        let line = e.span.line;
        let all = Expr::new(ExprKind::Tuple(args.to_vec()), e.span);
        let attr = attr.to_string();
        let name = name.to_string();
        let branch = self.with_any(s, &all, |mut s, v| {
            let havoc = |mut s: State<'p>, why: String| -> Result<Branch<'p>> {
                let n = note(&why, line);
                s.havoc.mark(n.clone());
                havoc_names(&mut s, [name.clone()], &n)?;
                Ok(Branch::Go(deliver(s, &target, Value::Havoc(n))?))
            };
            let argv = match &v {
                Value::Term(v) => match v.kind() {
                    TermKind::Items(_, items) => items.clone(),
                    _ => return Err(internal("method arguments are not a display")),
                },
                _ => return havoc(s, format!("an argument of .{attr}()")),
            };
            let update = |s: &mut State<'p>, new: Result<Term>| -> Result<bool> {
                match new.ok().and_then(kept) {
                    Some(t) => {
                        s.assign(&name, Value::Term(t))?;
                        Ok(true)
                    }
                    None => Ok(false),
                }
            };
            let new = match (attr.as_str(), argv.as_slice()) {
                ("append", [v]) => lists::append(&xs, v.clone()).map_err(sort_err),
                ("extend", [ys]) => lists::extend(&xs, ys).map_err(sort_err),
                ("insert", [i, v]) if is_int(i) => {
                    lists::insert(&xs, i, v.clone()).map_err(sort_err)
                }
                ("pop", []) => return self.pop(s, &name, &xs, None, &target),
                ("pop", [i]) if is_int(i) => return self.pop(s, &name, &xs, Some(i), &target),
                ("remove", [x]) => match self.remove(s, &name, &xs, x, &target)? {
                    Ok(done) => return Ok(done),
                    Err(s) => return havoc(s, ".remove() of a list of unknown length".into()),
                },
                _ => return havoc(s, format!(".{attr}() with these arguments")),
            };
            if !update(&mut s, new)? {
                return havoc(
                    s,
                    format!(".{attr}() (items of another type, or too large)"),
                );
            }
            Ok(Branch::Go(deliver(s, &target, Value::None)?))
        })?;
        Ok(Ok(branch))
    }

    /// `xs.sort()` / `xs.sort(reverse=True)` of an owned list: `xs` becomes the value of
    /// `sorted(xs, reverse=…)` (the state back where that is not modelled: the havoc).
    fn sort(
        &self,
        mut s: State<'p>,
        e: &Expr,
        receiver: &Expr,
        reverse: bool,
        target: CallTarget,
    ) -> Result<Maybe<'p>> {
        let Some(name) = receiver.as_name() else {
            return Ok(Err(s));
        };
        if owned_list(&s, self, name).is_none() {
            return Ok(Err(s));
        }
        let keywords = vec![(
            Some("reverse".to_string()),
            Expr::new(ExprKind::Constant(Constant::Bool(reverse)), e.span),
        )];
        let sorted = Expr::new(
            ExprKind::Call {
                func: Box::new(Expr::new(ExprKind::Name("sorted".to_string()), e.span)),
                args: vec![receiver.clone()],
                keywords,
            },
            e.span,
        );
        let Eval::Value { value, raises } = evaluate(&s, self.program, &sorted, false)? else {
            return Ok(Err(s));
        };
        if !raises.is_empty() {
            return Ok(Err(s));
        }
        let Some(value) = kept(value) else {
            return Ok(Err(s));
        };
        s.assign(name, Value::Term(value))?;
        Ok(Ok(Branch::Go(deliver(s, &target, Value::None)?)))
    }

    /// `xs.pop()` / `xs.pop(i)`: the item, or `IndexError`.
    fn pop(
        &self,
        mut s: State<'p>,
        name: &str,
        xs: &Term,
        i: Option<&Term>,
        target: &CallTarget,
    ) -> Result<Branch<'p>> {
        let len = simplify(&Term::len(xs.clone()).map_err(sort_err)?);
        let empty = compare(CompareOp::Eq, len.clone(), Term::int(0))?;
        let index = i.cloned().unwrap_or_else(|| Term::int(-1));
        let bad = match i {
            None => empty.clone(),
            Some(i) => simplify(&lists::out_of_range(i, &len).map_err(sort_err)?),
        };
        let item = simplify(&Term::index(xs.clone(), index.clone()).map_err(sort_err)?);
        let Some(rest) = kept(lists::without(xs, &index).map_err(sort_err)?) else {
            let n = note(".pop() (a list too large to model)", 0);
            s.havoc.mark(n.clone());
            havoc_names(&mut s, [name.to_string()], &n)?;
            return Ok(Branch::Go(deliver(s, target, Value::Havoc(n))?));
        };
        let raised = {
            // CPython checks emptiness first: `[].pop(5)` says "pop from empty list".
            let fail = s.clone();
            if i.is_none() {
                Branch::Go(fail.raise(exc("IndexError", messages::POP_FROM_EMPTY_LIST)))
            } else {
                let range = not(&empty)?;
                Branch::Split(vec![
                    (
                        empty.clone(),
                        Branch::Go(
                            fail.clone()
                                .raise(exc("IndexError", messages::POP_FROM_EMPTY_LIST)),
                        ),
                    ),
                    (
                        range,
                        Branch::Go(fail.raise(exc("IndexError", messages::POP_INDEX_OUT_OF_RANGE))),
                    ),
                ])
            }
        };
        s.assign(name, Value::Term(rest))?;
        let ok = deliver(s, target, Value::Term(item))?;
        Ok(Branch::Split(vec![
            (not(&bad)?, Branch::Go(ok)),
            (bad, raised),
        ]))
    }

    /// `xs.remove(x)` of a fixed-length list: a fork on the position of the first item
    /// equal to `x` (that item removed), or `ValueError` when there is none. The state back
    /// for a list of unknown length or items `==` does not model against `x`.
    fn remove(
        &self,
        s: State<'p>,
        name: &str,
        xs: &Term,
        x: &Term,
        target: &CallTarget,
    ) -> Result<Maybe<'p>> {
        let Sort::Fixed(_, sorts) = xs.sort() else {
            return Ok(Err(s));
        };
        let mut items = Vec::with_capacity(sorts.len());
        let mut equal = Vec::with_capacity(sorts.len());
        for k in 0..sorts.len() {
            let item = simplify(&Term::index(xs.clone(), Term::int(k)).map_err(sort_err)?);
            match Term::compare(CompareOp::Eq, item.clone(), x.clone()) {
                Ok(eq) => equal.push(simplify(&eq)),
                Err(_) => return Ok(Err(s)),
            }
            items.push(item);
        }
        let mut alts = Vec::with_capacity(items.len() + 1);
        let mut earlier = Vec::new();
        for (k, eq) in equal.iter().enumerate() {
            let mut first = earlier.clone();
            first.push(eq.clone());
            let here = simplify(&Term::and(first).map_err(sort_err)?);
            let mut rest = items.clone();
            rest.remove(k);
            let mut found = s.clone();
            found.assign(
                name,
                Value::Term(Term::items(SeqKind::List, rest).map_err(sort_err)?),
            )?;
            alts.push((here, Branch::Go(deliver(found, target, Value::None)?)));
            earlier.push(not(eq)?);
        }
        let missing = simplify(&Term::and(earlier).map_err(sort_err)?);
        let fail = s.raise(exc("ValueError", messages::LIST_REMOVE_MISSING));
        alts.push((missing, Branch::Go(fail)));
        Ok(Ok(Branch::Split(alts)))
    }

    /// `xs[i] = v` where `xs` names an owned list (else the state back).
    pub(super) fn list_store(
        &self,
        s: State<'p>,
        target: &Expr,
        value: &Value,
    ) -> Result<Maybe<'p>> {
        let ExprKind::Subscript { value: base, index } = &target.kind else {
            return Ok(Err(s));
        };
        if matches!(index.kind, ExprKind::Slice { .. }) {
            return Ok(Err(s));
        }
        let Some(name) = base.as_name() else {
            return Ok(Err(s));
        };
        let (Some(xs), Value::Term(v)) = (owned_list(&s, self, name), value) else {
            return Ok(Err(s));
        };
        if !matches!(xs.sort(), Sort::Fixed(..)) {
            // A list of unknown length is forked on its length first (`list_lengths`); an
            // update by slices would nest them past what Z3's sequence theory decides within
            // the kernel's memory (the everyday corpus's `bubble_sort` used 2 GB).
            return Ok(Err(s));
        }
        let name = name.to_string();
        let v = v.clone();
        let line = target.span.line;
        let branch = self.with_any(s, index, |mut s, i| {
            let Value::Term(i) = i.clone() else {
                let n = note(&format!("assignment to {target}"), line);
                s.havoc.mark(n.clone());
                havoc_names(&mut s, [name.clone()], &n)?;
                return Ok(Branch::Go(s));
            };
            if !is_int(&i) {
                let msg = format!(
                    "list indices must be integers or slices, not {}",
                    crate::symexec::state::sort_type_name(i.sort())
                );
                return Ok(Branch::Go(s.raise(exc("TypeError", msg))));
            }
            let len = simplify(&Term::len(xs.clone()).map_err(sort_err)?);
            let bad = simplify(&lists::out_of_range(&i, &len).map_err(sort_err)?);
            let fail = s.clone().raise(exc(
                "IndexError",
                messages::LIST_ASSIGNMENT_INDEX_OUT_OF_RANGE,
            ));
            match lists::set_item(&xs, &i, v.clone()).ok().and_then(kept) {
                Some(new) => s.assign(&name, Value::Term(new))?,
                None => {
                    let n = note(
                        &format!("assignment to {target} (an item of another type, or too large)"),
                        line,
                    );
                    s.havoc.mark(n.clone());
                    havoc_names(&mut s, [name.clone()], &n)?;
                    return Ok(Branch::Go(s));
                }
            }
            Ok(Branch::Split(vec![
                (not(&bad)?, Branch::Go(s)),
                (bad, Branch::Go(fail)),
            ]))
        })?;
        Ok(Ok(branch))
    }
}
