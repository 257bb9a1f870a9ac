//! Reading dicts and sets of symbolic size (names the environment binds to a
//! [`SeqMapping`], such as a dict or set parameter): `k in d` (and in `d.keys()`,
//! `d.values()`), `d[k]` (raising `KeyError`), `d.get(k, default)`, `len(d)`, the truth
//! value of `d`, and the builtins of a view: any of them of a dict (its order is the
//! insertion order), the order-free ones of a set. `d.items()`, other methods and a dict
//! or set as a value of its own are unsupported.

use super::expr::{Effects, Partial, Result, Translator};
use super::mappings::{ORDER_FREE, plain};
use super::{Env, ExceptionKind};
use crate::python::ir::{Expr, ExprKind};
use crate::symbolic::mapping::{MapKind, View};
use crate::symbolic::seqmap::SeqMapping;
use crate::symbolic::sort::Sort;
use crate::symbolic::term::{SortError, Term};

/// Builtins of a dict's view translated over its items in order.
const ORDERED: &[&str] = &["list", "any", "all"];

impl Translator<'_> {
    /// The dict or set of symbolic size `e` names, if it names one.
    fn seqmap_named(&self, e: &Expr) -> Option<&SeqMapping> {
        self.env.seqmap(e.as_name()?)
    }

    /// `d`, `d.keys()`, `d.values()` or `d.items()` of a dict (a set has only `s`).
    pub(super) fn seqmap_view(&self, e: &Expr) -> Option<(&SeqMapping, View)> {
        if let Some(m) = self.seqmap_named(e) {
            return Some((m, View::Keys));
        }
        let (value, attr, args) = e.as_method_call()?;
        let m = self
            .seqmap_named(value)
            .filter(|m| m.kind == MapKind::Dict && args.is_empty())?;
        let view = match attr {
            "keys" => View::Keys,
            "values" => View::Values,
            "items" => View::Items,
            _ => return None,
        };
        Some((m, view))
    }

    /// The items of a view as a sequence.
    fn seqmap_items_of(&self, e: &Expr, m: &SeqMapping, view: View) -> Result<Term> {
        m.view(view)
            .cloned()
            .ok_or_else(|| self.unsupported(e, "the pairs of .items() of a dict of any size"))
    }

    /// The right operand of `in` when it is such a mapping or a view.
    pub(super) fn seqmap_collection(&self, e: &Expr) -> Option<Result<Partial>> {
        let (m, view) = self.seqmap_view(e)?;
        Some(self.seqmap_items_of(e, m, view).map(plain))
    }

    /// `e` when it reads such a mapping; `None` when it does not involve one at the top.
    pub(super) fn seqmap_expr(&self, e: &Expr, condition: bool) -> Option<Result<Partial>> {
        let fail = |err: SortError| self.sort_error(e, err);
        match &e.kind {
            ExprKind::Name(_) => {
                let m = self.seqmap_named(e)?;
                Some(if condition {
                    m.truthy().map(plain).map_err(fail)
                } else {
                    Err(self.unsupported(e, format!("a {} used as a value", m.kind.name())))
                })
            }
            ExprKind::Subscript { value, index } => {
                let m = self.seqmap_named(value)?;
                Some(self.seqmap_lookup(e, m, index, None))
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => match &func.kind {
                ExprKind::Attribute { value, attr } => {
                    let m = self.seqmap_named(value)?;
                    Some(match (attr.as_str(), args.as_slice()) {
                        ("get", [k, default]) if m.kind == MapKind::Dict => {
                            self.seqmap_lookup(e, m, k, Some(default))
                        }
                        _ => Err(self.unsupported(
                            e,
                            format!("the method .{attr}() of a {}", m.kind.name()),
                        )),
                    })
                }
                ExprKind::Name(name) => {
                    let [arg] = args.as_slice() else {
                        return None;
                    };
                    let (m, view) = self.seqmap_view(arg)?;
                    Some(self.seqmap_builtin(e, name, m, view))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `d[k]` (`KeyError` when missing) or `d.get(k, default)`.
    fn seqmap_lookup(
        &self,
        e: &Expr,
        m: &SeqMapping,
        key: &Expr,
        default: Option<&Expr>,
    ) -> Result<Partial> {
        if matches!(key.kind, ExprKind::Slice { .. }) {
            return Err(self.unsupported(e, "a slice of a dict"));
        }
        let mut fx = Effects::default();
        let k = fx.then(self.expr(key, false)?);
        if let Some(msg) = crate::symbolic::mapping::unhashable(k.sort()) {
            return Err(self.sort_error(e, SortError(msg)));
        }
        let d = match default {
            Some(d) => Some(fx.then(self.expr(d, false)?)),
            None => None,
        };
        let with_default = d.is_some();
        let (value, missing) = m.lookup(&k, d).map_err(|why| self.unsupported(e, why.0))?;
        if !with_default {
            fx.push(ExceptionKind::KeyError, missing);
        }
        Ok(fx.finish(value))
    }

    /// `len` of a mapping or a view; the order-free builtins of a set or view, and
    /// `list`/`any`/`all` of a dict's view in order.
    fn seqmap_builtin(&self, e: &Expr, name: &str, m: &SeqMapping, view: View) -> Result<Partial> {
        let items = self.seqmap_items_of(e, m, view)?;
        let ordered = m.kind == MapKind::Dict;
        if name == "len" {
            return m.len().map(plain).map_err(|err| self.sort_error(e, err));
        }
        let int_items = matches!(items.sort().item_sort(), Some(Sort::Int | Sort::Bool));
        if name == "sum" && !ordered && !int_items {
            return Err(self.unsupported(e, "sum() of a set of floats (the order rounds)"));
        }
        if ORDER_FREE.contains(&name) || (ordered && ORDERED.contains(&name)) {
            return self.builtin_of_items(e, name, items);
        }
        Err(self.unsupported(e, format!("{name}() of a {} or its view", m.kind.name())))
    }
}

/// The items a `for` over `e` visits when `e` is a dict of symbolic size of `env` or its
/// keys or values view, in insertion order. `None` for anything else (a set included: its
/// order is not Python's to promise); an error for `d.items()`.
pub fn seqmap_items(e: &Expr, env: &Env) -> Option<std::result::Result<Term, String>> {
    let t = Translator { env };
    let (m, view) = t.seqmap_view(e).filter(|(m, _)| m.kind == MapKind::Dict)?;
    Some(t.seqmap_items_of(e, m, view).map_err(|err| err.to_string()))
}
