//! `s.split(sep)` and `s.split(sep, k)` (a constant non-empty `sep`, or none; a constant
//! `k`, whose last item is [`crate::symbolic::strfn::StrFn::SplitRest`]) made a list of
//! known length: before
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
use crate::symbolic::strfn::{SplitCall, StrFn, as_split, split_names};
use crate::symbolic::{Sort, Term};
use crate::symexec::eval::{Eval, evaluate};
use crate::symexec::state::State;

impl<'p> Machine<'p> {
    /// `stmt` run on `s` after a fork on the number of items of a `split` it calls (`None`
    /// when every such call is known already, or none can be modelled).
    pub(super) fn at_split(&self, s: &State<'p>, stmt: &'p Stmt) -> Result<Option<Branch<'p>>> {
        let mut calls: Vec<(&Expr, &Expr, SplitCall)> = Vec::new();
        for e in stmt.exprs() {
            e.walk(&mut |x: &Expr| {
                if let Some((receiver, split)) = as_split(x) {
                    calls.push((x, receiver, split));
                }
            });
        }
        for (call, receiver, split) in calls {
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
                .fork_split(s, stmt, &value, split, (items_name, of_name))
                .map(Some);
        }
        Ok(None)
    }

    fn fork_split(
        &self,
        s: &State<'p>,
        stmt: &'p Stmt,
        value: &Term,
        SplitCall { sep, max }: SplitCall,
        (items_name, of_name): (String, String),
    ) -> Result<Branch<'p>> {
        let at_least = |k: usize| {
            Term::str_fn(StrFn::SplitAtLeast(sep.clone(), k), vec![value.clone()]).map_err(sort_err)
        };
        let unroll = usize::try_from(self.unroll).unwrap_or(usize::MAX);
        // With a `maxsplit` the last of its `max + 1` items is the rest of `s`.
        let bound = max.map_or(unroll, |m| unroll.min(m.saturating_add(1)));
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
                // A split with a separator has at least one item; one with a `maxsplit`
                // at most `max + 1`.
                let exactly = match (k <= first, Some(k) == max.map(|m| m + 1)) {
                    (_, true) => at_least(k)?,
                    (true, false) => fewer,
                    (false, false) => Term::and(vec![at_least(k)?, fewer]).map_err(sort_err)?,
                };
                alts.push((simplify(&exactly), self.stmt(known, stmt)?));
            }
            let f = if Some(k) == max {
                StrFn::SplitRest(sep.clone(), k)
            } else {
                StrFn::SplitItem(sep.clone(), k)
            };
            items.push(Term::str_fn(f, vec![value.clone()]).map_err(sort_err)?);
        }
        if max.is_some_and(|m| m < unroll) {
            return Ok(Branch::Split(alts));
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
