//! `all(...)` / `any(...)` of one generator over `range(...)` or a sequence, as quantifiers
//! over the positions: `all(P(x) for x in s)` is `∀k. 0 ≤ k < len(s) → P(s[k])`.
//!
//! Exact, short-circuit included: with `ok(k)` meaning "element `k` evaluates without
//! raising and is true" (`all`; "…and is false" for `any`), the value is `∀k. ok(k)`
//! (`∃k. not raising and true`), and the call raises the first element's exception when
//! `∃k. raises(k) ∧ ∀j < k. ok(j)` (a list comprehension evaluates every element first:
//! `∀j < k. not raises(j)`).

use super::ExceptionKind;
use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::{ComprehensionKind, Expr, ExprKind};
use crate::symbolic::sort::Sort;
use crate::symbolic::term::{SortError, Term, Var};

/// What one element does, for the bound variable of one quantifier.
struct Element {
    /// Raise conditions (first one wins, not yet exclusive).
    raises: Vec<(ExceptionKind, Term)>,
    /// The filters hold (the element is not skipped).
    kept: Term,
    /// The element's truth value.
    value: Term,
}

impl Translator<'_> {
    /// `all(arg)` (`forall`) or `any(arg)` when `arg` is one comprehension; `None` when it
    /// is not one (the caller treats the call as any other).
    pub(super) fn quantifier(&self, e: &Expr, forall: bool, arg: &Expr) -> Option<Result<Partial>> {
        let ExprKind::Comprehension {
            kind: kind @ (ComprehensionKind::Generator | ComprehensionKind::List),
            elt,
            value: None,
            generators,
        } = &arg.kind
        else {
            return None;
        };
        let name = if forall { "all" } else { "any" };
        let [g] = generators.as_slice() else {
            return Some(Err(self.unsupported(
                e,
                format!("{name}() over a comprehension with several for clauses"),
            )));
        };
        let ExprKind::Name(target) = &g.target.kind else {
            return Some(Err(self.unsupported(
                e,
                format!("{name}() over a comprehension whose target is not one name"),
            )));
        };
        let lazy = *kind == ComprehensionKind::Generator;
        Some(self.quantified(e, forall, lazy, target, &g.iter, &g.ifs, elt))
    }

    #[allow(clippy::too_many_arguments)]
    fn quantified(
        &self,
        e: &Expr,
        forall: bool,
        lazy: bool,
        target: &str,
        iter: &Expr,
        ifs: &[Expr],
        elt: &Expr,
    ) -> Result<Partial> {
        let fail = |err: SortError| self.sort_error(e, err);
        let mut fx = Effects::default();
        // The positions and, for a sequence, what the target is at position k.
        let (lo, hi, seq) = match &iter.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } if func.as_name() == Some("range") && keywords.is_empty() => {
                let mut bounds = Vec::new();
                for a in args {
                    bounds.push(fx.then(self.expr(a, false)?));
                }
                match <[Term; 2]>::try_from(bounds) {
                    Ok([lo, hi]) => (lo, hi, None),
                    Err(mut b) if b.len() == 1 => (Term::int(0), b.remove(0), None),
                    Err(_) => {
                        return Err(self.unsupported(
                            iter,
                            "a quantifier over range() with a step or no arguments",
                        ));
                    }
                }
            }
            _ => {
                let s = fx.then(self.expr(iter, false)?);
                if !matches!(s.sort(), Sort::Seq(..) | Sort::Str) {
                    return Err(
                        self.unsupported(iter, format!("a quantifier over a '{}'", s.sort()))
                    );
                }
                let len = Term::len(s.clone()).map_err(fail)?;
                (Term::int(0), len, Some(s))
            }
        };
        for b in [&lo, &hi] {
            if !matches!(b.sort(), Sort::Int | Sort::Bool) {
                return Err(self.sort_error(
                    e,
                    SortError(format!(
                        "'{}' object cannot be interpreted as an integer",
                        b.sort()
                    )),
                ));
            }
        }
        let element = |depth: u32| -> Result<(Var, Element)> {
            let var = Var::bound(target, depth + self.bound_depth());
            let k = Term::var(var.clone(), Sort::Int).map_err(fail)?;
            let bound = match &seq {
                Some(s) => Term::index(s.clone(), k).map_err(fail)?,
                None => k,
            };
            let mut env = self.env.clone();
            env.bind(target, bound);
            let inner = Translator { env: &env };
            let mut raises = Vec::new();
            let mut kept = Vec::new();
            for c in ifs {
                let p = inner.expr(c, true)?;
                let guard = Term::and(kept.clone()).map_err(fail)?;
                for (kind, cond) in p.raises {
                    raises.push((kind, Term::and(vec![guard.clone(), cond]).map_err(fail)?));
                }
                kept.push(p.value);
            }
            let kept = Term::and(kept).map_err(fail)?;
            let p = inner.expr(elt, true)?;
            for (kind, cond) in p.raises {
                raises.push((kind, Term::and(vec![kept.clone(), cond]).map_err(fail)?));
            }
            Ok((
                var,
                Element {
                    raises,
                    kept,
                    value: p.value,
                },
            ))
        };
        let (k, at_k) = element(0)?;
        // Element k decides nothing (skipped, or true for `all` / false for `any`) and does
        // not raise.
        let passes = |el: &Element| -> std::result::Result<Term, SortError> {
            let raised = Term::or(el.raises.iter().map(|(_, c)| c.clone()).collect())?;
            let neutral = if forall {
                Term::or(vec![Term::not(el.kept.clone())?, el.value.clone()])?
            } else {
                Term::or(vec![
                    Term::not(el.kept.clone())?,
                    Term::not(el.value.clone())?,
                ])?
            };
            Term::and(vec![Term::not(raised)?, neutral])
        };
        let value = if forall {
            Term::quantified(
                true,
                k.clone(),
                lo.clone(),
                hi.clone(),
                passes(&at_k).map_err(fail)?,
            )
        } else {
            let raised =
                Term::or(at_k.raises.iter().map(|(_, c)| c.clone()).collect()).map_err(fail)?;
            let found = Term::and(vec![
                Term::not(raised).map_err(fail)?,
                at_k.kept.clone(),
                at_k.value.clone(),
            ])
            .map_err(fail)?;
            Term::quantified(false, k.clone(), lo.clone(), hi.clone(), found)
        }
        .map_err(fail)?;
        if !at_k.raises.is_empty() {
            let (j, at_j) = element(1)?;
            let before = if lazy {
                passes(&at_j).map_err(fail)?
            } else {
                Term::not(
                    Term::or(at_j.raises.iter().map(|(_, c)| c.clone()).collect()).map_err(fail)?,
                )
                .map_err(fail)?
            };
            let kv = Term::var(k.clone(), Sort::Int).map_err(fail)?;
            let prefix = Term::quantified(true, j, lo.clone(), kv, before).map_err(fail)?;
            let mut earlier = Vec::new();
            for (kind, cond) in &at_k.raises {
                let first = Term::and(vec![
                    cond.clone(),
                    Term::not(Term::or(earlier.clone()).map_err(fail)?).map_err(fail)?,
                    prefix.clone(),
                ])
                .map_err(fail)?;
                earlier.push(cond.clone());
                let some = Term::quantified(false, k.clone(), lo.clone(), hi.clone(), first)
                    .map_err(fail)?;
                fx.push(*kind, some);
            }
        }
        Ok(fx.finish(value))
    }

    /// How many quantifiers enclose the expression being translated (bound variables in
    /// scope), times two (each quantifier may use two variables).
    fn bound_depth(&self) -> u32 {
        self.env.iter().filter(|(_, t)| has_bound(t)).count() as u32 * 2
    }
}

/// Whether `t` mentions a quantifier's bound variable.
fn has_bound(t: &Term) -> bool {
    match t.kind() {
        crate::symbolic::term::TermKind::Var(v) => v.is_bound(),
        _ => t.children().into_iter().any(has_bound),
    }
}
