//! Lists of unknown length made known where an operation is exact only at a known length:
//! `sorted(xs)`, `min(xs)`, `max(xs)`, `list(reversed(xs))`, `sep.join(xs)`, `s = set(xs)`, `xs.count(x)`,
//! `xs.index(x)`, and on an owned list (see [`crate::symexec::lists`]) `xs.remove(x)` and
//! `xs[i] = v`. Before such a statement runs, the path forks on `len(xs) == k` for `k` up
//! to the unroll bound, `xs` rebound to its items `[xs[0], …, xs[k-1]]` in each (the same
//! value: the path condition says so), and longer lists end in a `bound` leaf, as a loop
//! over `xs` would. Every item term stays one input's item, so no term grows with `k`.

use super::{Branch, Machine, Result, compare, sort_err};
use crate::python::ir::{Expr, ExprKind, Stmt, StmtKind};
use crate::symbolic::simplify::simplify;
use crate::symbolic::translate::{sort_in_place, sorted_reverse};
use crate::symbolic::{CompareOp, Sort, Term};
use crate::symexec::lists;
use crate::symexec::state::{State, get};
use crate::symexec::tree::Value;

/// Builtins exact on a list or tuple of known length (one argument).
const WHOLE: &[&str] = &["sorted", "min", "max"];
/// Methods exact on a list or tuple of known length.
const SEARCHES: &[&str] = &["count", "index"];

impl<'p> Machine<'p> {
    /// `stmt` run on `s`, after a fork on the length of a list it needs at a known length
    /// (`None` when it needs none).
    pub(super) fn at_known_length(
        &self,
        s: &State<'p>,
        stmt: &'p Stmt,
    ) -> Result<Option<Branch<'p>>> {
        let Some((name, xs)) = self.needs_length(s, stmt) else {
            return Ok(None);
        };
        let Sort::Seq(kind, _) = xs.sort().clone() else {
            return Ok(None);
        };
        let len = simplify(&Term::len(xs.clone()).map_err(sort_err)?);
        let mut alts = Vec::new();
        let mut items = Vec::new();
        for k in 0..=self.unroll {
            let mut known = s.clone();
            let fixed = Term::items(kind, items.clone()).map_err(sort_err)?;
            known.assign(&name, Value::Term(fixed))?;
            let exactly = compare(CompareOp::Eq, len.clone(), Term::int(k))?;
            alts.push((exactly, self.stmt(known, stmt)?));
            let item = Term::index(xs.clone(), Term::int(k)).map_err(sort_err)?;
            items.push(simplify(&item));
        }
        let mut longer = s.clone();
        longer.bound = Some(format!(
            "the list {name} at line {} has more than {} items (unroll bound)",
            stmt.span.line, self.unroll
        ));
        let more = compare(CompareOp::Gt, len, Term::int(self.unroll))?;
        alts.push((more, Branch::Go(longer)));
        Ok(Some(Branch::Split(alts)))
    }

    /// The first name `stmt` reads (not in nested blocks) that holds a list or tuple of
    /// unknown length and that it needs at a known length.
    fn needs_length(&self, s: &State<'p>, stmt: &Stmt) -> Option<(String, Term)> {
        let frame = s.frames.last()?;
        let unknown = |n: &str| match get(&frame.store, n) {
            Some(Value::Term(t)) if matches!(t.sort(), Sort::Seq(..)) => Some(t.clone()),
            _ => None,
        };
        let owned = |n: &str| lists::owned(s, self.program, n);
        let mut set_of: Option<String> = None;
        // `s = set(xs)`: a set of known structure needs its items.
        if let StmtKind::Assign { value, .. } = &stmt.kind
            && let ExprKind::Call {
                func,
                args,
                keywords,
            } = &value.kind
            && func.as_name() == Some("set")
            && keywords.is_empty()
            && let [arg] = args.as_slice()
        {
            set_of = arg
                .as_name()
                .filter(|n| unknown(n).is_some())
                .map(str::to_string);
        }
        let mut found: Option<String> = set_of;
        let mut visit = |x: &Expr| {
            if found.is_some() {
                return;
            }
            if let Some((receiver, _)) = sort_in_place(x)
                && let Some(n) = receiver
                    .as_name()
                    .filter(|n| owned(n) && unknown(n).is_some())
            {
                found = Some(n.to_string());
                return;
            }
            let name = match &x.kind {
                ExprKind::Call {
                    func,
                    args,
                    keywords,
                } if keywords.is_empty() || sorted_reverse(x).is_some() => {
                    match (&func.kind, args.as_slice()) {
                        (ExprKind::Name(f), [arg]) if WHOLE.contains(&f.as_str()) => arg.as_name(),
                        (ExprKind::Name(f), [arg]) if matches!(f.as_str(), "list" | "tuple") => {
                            reversed_name(arg)
                        }
                        (ExprKind::Attribute { attr, .. }, [arg]) if attr == "join" => {
                            arg.as_name().or_else(|| reversed_name(arg))
                        }
                        (ExprKind::Attribute { value, attr }, _)
                            if SEARCHES.contains(&attr.as_str()) =>
                        {
                            value.as_name()
                        }
                        (ExprKind::Attribute { value, attr }, _) if attr == "remove" => {
                            value.as_name().filter(|n| owned(n))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            found = name.filter(|n| unknown(n).is_some()).map(str::to_string);
        };
        for e in stmt.exprs() {
            e.walk(&mut visit);
        }
        if found.is_none()
            && let StmtKind::Assign { targets, .. } = &stmt.kind
        {
            // `xs[i] = v`, also as a part of a tuple target (`xs[i], xs[j] = …`).
            for t in targets {
                t.walk(&mut |x: &Expr| {
                    if let ExprKind::Subscript { value, index } = &x.kind
                        && !matches!(index.kind, ExprKind::Slice { .. })
                        && let Some(n) = value.as_name()
                        && found.is_none()
                        && unknown(n).is_some()
                        && owned(n)
                    {
                        found = Some(n.to_string());
                    }
                });
            }
        }
        let name = found?;
        let xs = unknown(&name)?;
        Some((name, xs))
    }
}

/// `n` of `reversed(n)`.
fn reversed_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { func, args, .. } if func.as_name() == Some("reversed") => {
            match args.as_slice() {
                [arg] => arg.as_name(),
                _ => None,
            }
        }
        _ => None,
    }
}
