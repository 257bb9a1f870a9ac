//! What differs for dicts and sets of symbolic size (names the environment binds to a
//! [`SeqMapping`], such as a dict or set parameter; the reads they share with mappings of
//! known structure are dispatched in `mappings.rs`): the items of a view (`d.items()` is
//! unsupported: pairs are not modelled), the builtins of a view (any of them of a dict, in
//! insertion order; the order-free ones of a set), and the keys a `for` visits.

use super::Env;
use super::expr::{Partial, Result, Translator};
use super::mappings::{Bound, ORDER_FREE, plain};
use crate::python::ir::Expr;
use crate::symbolic::mapping::{MapKind, View};
use crate::symbolic::seqmap::SeqMapping;
use crate::symbolic::sort::Sort;
use crate::symbolic::term::Term;

/// Builtins of a dict's view translated over its items in order.
const ORDERED: &[&str] = &["list", "any", "all"];

impl Translator<'_> {
    /// The items of a view as a sequence.
    pub(super) fn seqmap_items_of(&self, e: &Expr, m: &SeqMapping, view: View) -> Result<Term> {
        m.view(view)
            .cloned()
            .ok_or_else(|| self.unsupported(e, "the pairs of .items() of a dict of any size"))
    }

    /// `len` of a mapping or a view; the order-free builtins of a set or view, and
    /// `list`/`any`/`all` of a dict's view in order.
    pub(super) fn seqmap_builtin(
        &self,
        e: &Expr,
        name: &str,
        m: &SeqMapping,
        view: View,
    ) -> Result<Partial> {
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
    match t.view(e)? {
        (Bound::Sized(m), view) if m.kind == MapKind::Dict => {
            Some(t.seqmap_items_of(e, m, view).map_err(|err| err.to_string()))
        }
        _ => None,
    }
}
