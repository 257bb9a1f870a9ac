//! Reading dicts and sets: of known structure (names the environment binds to a
//! [`Mapping`]) or of symbolic size (a [`SeqMapping`], see `seqmaps.rs`), through one
//! dispatch: `d[k]` (raising `KeyError`), `d.get(k, default)`, `k in d` (and in
//! `d.keys()`/`d.values()`/`d.items()`), `len(d)`, the truth value of `d`, `list(d)` and
//! the views in order for a dict, and the order-free `sorted`/`min`/`max`/`sum` of a set
//! or a view, and `<=`/`<`/`>=`/`>`/`==`/`!=` between two sets of known structure. A dict
//! or set as a value of its own (passed, returned, compared otherwise) is not a term: it
//! stays unsupported.

use super::expr::{Effects, Partial, Result, Translator};
use super::{Env, ExceptionKind};
use crate::python::ir::{CmpOp, Expr, ExprKind};
use crate::symbolic::mapping::{MapKind, Mapping, View};
use crate::symbolic::seqmap::SeqMapping;
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::term::{SortError, Term, TermKind};

/// Builtins whose result does not depend on the order of their argument's items (for
/// `sum`, only when the items are ints: float sums round in order).
pub(super) const ORDER_FREE: &[&str] = &["len", "sorted", "min", "max", "sum"];

/// A dict or set a name is bound to: of known structure, or of symbolic size.
#[derive(Clone, Copy)]
pub(super) enum Bound<'m> {
    Known(&'m Mapping),
    Sized(&'m SeqMapping),
}

impl Bound<'_> {
    fn kind(self) -> MapKind {
        match self {
            Bound::Known(m) => m.kind,
            Bound::Sized(m) => m.kind,
        }
    }
}

impl Translator<'_> {
    /// The dict or set `e` names, if it names one.
    fn mapping_named(&self, e: &Expr) -> Option<Bound<'_>> {
        let name = e.as_name()?;
        match self.env.mapping(name) {
            Some(m) => Some(Bound::Known(m)),
            None => self.env.seqmap(name).map(Bound::Sized),
        }
    }

    /// `d`, `d.keys()`, `d.values()` or `d.items()` of a dict (a set has only `s`).
    pub(super) fn view(&self, e: &Expr) -> Option<(Bound<'_>, View)> {
        if let Some(m) = self.mapping_named(e) {
            return Some((m, View::Keys));
        }
        let (value, attr, args) = e.as_method_call()?;
        let m = self
            .mapping_named(value)
            .filter(|m| m.kind() == MapKind::Dict && args.is_empty())?;
        let view = match attr {
            "keys" => View::Keys,
            "values" => View::Values,
            "items" => View::Items,
            _ => return None,
        };
        Some((m, view))
    }

    /// The items of a view as a sequence, in the mapping's order.
    fn view_items(&self, e: &Expr, m: Bound, view: View) -> Result<Term> {
        match m {
            Bound::Known(m) => m.view(view).map_err(|err| self.sort_error(e, err)),
            Bound::Sized(m) => self.seqmap_items_of(e, m, view),
        }
    }

    /// The right operand of `in` when it is a mapping or a view: its items (membership
    /// does not depend on their order).
    pub(super) fn mapping_collection(&self, e: &Expr) -> Option<Result<Partial>> {
        let (m, view) = self.view(e)?;
        Some(self.view_items(e, m, view).map(plain))
    }

    /// `needle in container`: a container that hashes its items (a mapping, its keys)
    /// raises `TypeError` for an unhashable needle.
    pub(super) fn hashable_needle(&self, container: &Expr, needle: &Term) -> Result<()> {
        let hashed = matches!(self.view(container), Some((_, View::Keys)));
        match crate::symbolic::mapping::unhashable(needle.sort()).filter(|_| hashed) {
            Some(msg) => Err(self.sort_error(container, SortError(msg))),
            None => Ok(()),
        }
    }

    /// `e` when it reads a mapping; `None` when it does not involve one at the top.
    pub(super) fn mapping_expr(&self, e: &Expr, condition: bool) -> Option<Result<Partial>> {
        match &e.kind {
            ExprKind::Name(_) => {
                let m = self.mapping_named(e)?;
                Some(match m {
                    _ if !condition => {
                        Err(self.unsupported(e, format!("a {} used as a value", m.kind().name())))
                    }
                    Bound::Known(m) => Ok(plain(Term::bool(!m.entries.is_empty()))),
                    Bound::Sized(m) => m.truthy().map(plain).map_err(|err| self.sort_error(e, err)),
                })
            }
            ExprKind::Subscript { value, index } => {
                let m = self.mapping_named(value)?;
                Some(self.lookup(e, m, index, None))
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => match &func.kind {
                ExprKind::Attribute { value, attr } => {
                    let m = self.mapping_named(value)?;
                    Some(match (attr.as_str(), args.as_slice()) {
                        ("get", [k, default]) if m.kind() == MapKind::Dict => {
                            self.lookup(e, m, k, Some(default))
                        }
                        _ => Err(self.unsupported(
                            e,
                            format!("the method .{attr}() of a {}", m.kind().name()),
                        )),
                    })
                }
                ExprKind::Name(name) => {
                    let [arg] = args.as_slice() else {
                        return None;
                    };
                    let (m, view) = self.view(arg)?;
                    Some(match m {
                        Bound::Known(m) => self.builtin_of_view(e, name, m, view),
                        Bound::Sized(m) => self.seqmap_builtin(e, name, m, view),
                    })
                }
                _ => None,
            },
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let ([op], [right]) = (ops.as_slice(), comparators.as_slice()) else {
                    return None;
                };
                let (Bound::Known(a), Bound::Known(b)) =
                    (self.mapping_named(left)?, self.mapping_named(right)?)
                else {
                    return None;
                };
                Some(self.set_compare(e, *op, a, b))
            }
            _ => None,
        }
    }

    /// `d[k]` (no default: `KeyError` when missing) or `d.get(k, default)`.
    fn lookup(&self, e: &Expr, m: Bound, key: &Expr, default: Option<&Expr>) -> Result<Partial> {
        if m.kind() == MapKind::Set {
            return Err(self.sort_error(e, SortError("'set' object is not subscriptable".into())));
        }
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
        let (value, missing) = match m {
            Bound::Sized(m) => m.lookup(&k, d).map_err(|why| self.unsupported(e, why.0))?,
            Bound::Known(m) => match m.lookup(&k, d).map_err(|err| self.sort_error(e, err))? {
                Some(found) => found,
                None if m.entries.is_empty() && !with_default => {
                    if k.literal().is_some() {
                        // `str()` of a `KeyError` is the key's repr, as a literal prints.
                        return Err(self.always_raises(e, ExceptionKind::KeyError, &k.to_string()));
                    }
                    // Any key misses an empty dict: the value is never used.
                    fx.push(ExceptionKind::KeyError, Term::bool(true));
                    return Ok(fx.finish(Term::int(0)));
                }
                None => return Err(self.unsupported(e, "a dict whose values have different types")),
            },
        };
        if !with_default {
            fx.push(ExceptionKind::KeyError, missing);
        }
        Ok(fx.finish(value))
    }

    /// `len`, `sorted`, `min`, `max`, `sum` of a mapping or view; `list`/`tuple` of a dict's.
    fn builtin_of_view(&self, e: &Expr, name: &str, m: &Mapping, view: View) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let items = m.view(view).map_err(fail)?;
        let ordered = m.kind == MapKind::Dict;
        let int_items = m.entries.iter().all(|(k, v)| {
            let t = if view == View::Values { v } else { k };
            matches!(t.sort(), Sort::Int | Sort::Bool)
        });
        let value = match name {
            "len" => Term::int(m.entries.len()),
            "list" | "tuple" if ordered => {
                let kind = if name == "list" {
                    SeqKind::List
                } else {
                    SeqKind::Tuple
                };
                let TermKind::Items(_, parts) = items.kind() else {
                    return Err(self.unsupported(e, format!("{name}() of a view")));
                };
                Term::items(kind, parts.clone()).map_err(fail)?
            }
            "sum" if !ordered && !int_items => {
                return Err(self.unsupported(e, "sum() of a set of floats (the order rounds)"));
            }
            _ if ORDER_FREE.contains(&name) => return self.builtin_of_items(e, name, items),
            _ if ordered => {
                return Err(self.unsupported(e, format!("{name}() of a dict or its view")));
            }
            _ => {
                return Err(self.unsupported(
                    e,
                    format!("{name}() of a set (its iteration order is not Python's to promise)"),
                ));
            }
        };
        Ok(plain(value))
    }

    /// The builtin `name` of `items` (a view's items as a sequence term).
    pub(super) fn builtin_of_items(&self, e: &Expr, name: &str, items: Term) -> Result<Partial> {
        let call = Expr::new(
            ExprKind::Call {
                func: Box::new(Expr::new(ExprKind::Name(name.to_string()), e.span)),
                args: vec![Expr::new(ExprKind::Name(VIEW.to_string()), e.span)],
                keywords: Vec::new(),
            },
            e.span,
        );
        let mut env = self.env.clone();
        env.bind(VIEW, items);
        Translator { env: &env }.expr(&call, false)
    }

    /// `a <= b`, `a < b`, `a >= b`, `a > b`, `a == b`, `a != b` of two sets.
    fn set_compare(&self, e: &Expr, op: CmpOp, a: &Mapping, b: &Mapping) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        if a.kind != MapKind::Set || b.kind != MapKind::Set {
            return Err(self.unsupported(e, "comparing dicts"));
        }
        let subset = |x: &Mapping, y: &Mapping| -> std::result::Result<Term, SortError> {
            Term::and(
                x.keys()
                    .map(|k| y.contains(k))
                    .collect::<std::result::Result<Vec<_>, _>>()?,
            )
        };
        let (la, lb) = (a.entries.len(), b.entries.len());
        let value = match op {
            CmpOp::LtE => subset(a, b),
            CmpOp::GtE => subset(b, a),
            CmpOp::Lt if la < lb => subset(a, b),
            CmpOp::Gt if la > lb => subset(b, a),
            CmpOp::Lt | CmpOp::Gt => Ok(Term::bool(false)),
            CmpOp::Eq if la == lb => subset(a, b),
            CmpOp::NotEq if la == lb => subset(a, b).and_then(Term::not),
            CmpOp::Eq => Ok(Term::bool(false)),
            CmpOp::NotEq => Ok(Term::bool(true)),
            _ => return Err(self.unsupported(e, format!("the operator '{}' of sets", op.symbol()))),
        }
        .map_err(fail)?;
        Ok(plain(value))
    }
}

/// The items a `for` over `e` visits when `e` is a dict of `env` or one of its views
/// (`d`, `d.keys()`, `d.values()`, `d.items()`), in insertion order, as a list display.
/// `None` for anything else (a set included: its order is not Python's to promise).
pub fn dict_items(e: &Expr, env: &Env) -> Option<std::result::Result<Term, SortError>> {
    let t = Translator { env };
    match t.view(e)? {
        (Bound::Known(m), view) if m.kind == MapKind::Dict => Some(m.view(view)),
        _ => None,
    }
}

/// The name a view's items are bound to while a builtin of them is translated (not a
/// Python name, so nothing clashes with it).
const VIEW: &str = "$view";

pub(super) fn plain(value: Term) -> Partial {
    Partial {
        value,
        raises: Vec::new(),
    }
}
