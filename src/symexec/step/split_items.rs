//! `s.split(sep)` (a constant non-empty `sep`, or none) made a list of known length: before
//! a statement that calls it runs, the path forks on how many items it has, `k` up to the
//! unroll bound (from 1 with a separator, from 0 without), and binds the call's items
//! `[s.split(sep)[0], …, s.split(sep)[k-1]]` under the names of
//! [`crate::symbolic::strfn::split_names`], where the translation finds them. More items end
//! in a `bound` leaf, as a loop over them would. The items are functions of `s` (see
//! [`crate::symbolic::strfn::StrFn::SplitItem`]): no fresh input, so witnesses replay.

use super::{Branch, Machine, Result, internal, sort_err};
use crate::python::ir::{Expr, Stmt};
use crate::symbolic::simplify::simplify;
use crate::symbolic::sort::SeqKind;
use crate::symbolic::strfn::{Split, StrFn, as_split, split_names};
use crate::symbolic::{Sort, Term};
use crate::symexec::eval::{Eval, evaluate};
use crate::symexec::state::State;

impl<'p> Machine<'p> {
    /// `stmt` run on `s` after a fork on the number of items of a `split` it calls (`None`
    /// when every such call is known already, or none can be modelled).
    pub(super) fn at_split(&self, s: &State<'p>, stmt: &'p Stmt) -> Result<Option<Branch<'p>>> {
        let mut calls: Vec<(&Expr, &Expr, Split)> = Vec::new();
        for e in stmt.exprs() {
            e.walk(&mut |x: &Expr| {
                if let Some((receiver, sep)) = as_split(x) {
                    calls.push((x, receiver, sep));
                }
            });
        }
        for (call, receiver, sep) in calls {
            let Eval::Value { value, raises } = evaluate(s, self.program, receiver, false)? else {
                continue;
            };
            if !raises.is_empty() || *value.sort() != Sort::Str {
                continue;
            }
            let (items_name, of_name) = split_names(call.span);
            let known = s
                .frames
                .last()
                .is_some_and(|f| f.hidden.iter().any(|(n, t)| *n == of_name && *t == value));
            if known {
                continue;
            }
            return self
                .fork_split(s, stmt, &value, sep, (items_name, of_name))
                .map(Some);
        }
        Ok(None)
    }

    fn fork_split(
        &self,
        s: &State<'p>,
        stmt: &'p Stmt,
        value: &Term,
        sep: Split,
        (items_name, of_name): (String, String),
    ) -> Result<Branch<'p>> {
        let at_least = |k: usize| {
            Term::str_fn(StrFn::SplitAtLeast(sep.clone(), k), vec![value.clone()]).map_err(sort_err)
        };
        let bound = usize::try_from(self.unroll).unwrap_or(usize::MAX);
        let first = usize::from(sep.is_some());
        let mut alts = Vec::new();
        let mut items = Vec::new();
        for k in 0..=bound {
            if k >= first {
                let mut known = s.clone();
                let list = Term::items(SeqKind::List, items.clone()).map_err(sort_err)?;
                let frame = known
                    .frames
                    .last_mut()
                    .ok_or_else(|| internal("no frame"))?;
                frame
                    .hidden
                    .retain(|(n, _)| *n != items_name && *n != of_name);
                frame.hidden.push((items_name.clone(), list));
                frame.hidden.push((of_name.clone(), value.clone()));
                let fewer = Term::not(at_least(k + 1)?).map_err(sort_err)?;
                // A split with a separator has at least one item.
                let exactly = if k <= first {
                    fewer
                } else {
                    Term::and(vec![at_least(k)?, fewer]).map_err(sort_err)?
                };
                alts.push((simplify(&exactly), self.stmt(known, stmt)?));
            }
            let item = Term::str_fn(StrFn::SplitItem(sep.clone(), k), vec![value.clone()]);
            items.push(item.map_err(sort_err)?);
        }
        let mut longer = s.clone();
        let sep_text = sep.as_deref().map(|s| Term::str(s).map(|t| t.to_string()));
        longer.bound = Some(format!(
            "{value}.split({}) at line {} has more than {bound} items (unroll bound)",
            sep_text.transpose().map_err(sort_err)?.unwrap_or_default(),
            stmt.span.line
        ));
        alts.push((simplify(&at_least(bound + 1)?), Branch::Go(longer)));
        Ok(Branch::Split(alts))
    }
}
