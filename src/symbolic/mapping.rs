//! Dicts and sets of known structure: a `dict` is its entries in insertion order (a new key
//! goes last, an overwrite keeps the key's place and the first key object, a delete removes
//! the entry), a `set` is its items (in the order they were added, which is **not** an
//! order Python promises: only order-free questions are answered about a set). Keys and
//! values are terms, so they may be symbolic; the structure (how many entries) is concrete.
//!
//! Invariant, kept by whoever builds one (`symexec` forks on which key an insertion hits):
//! on the path where a mapping is used, its keys are pairwise unequal in Python's sense
//! (`1 == 1.0 == True`). Then a lookup of `k` finds entry `i` exactly when `k == key_i`,
//! at most one entry matches, and the length is the number of entries.

use super::sort::{SeqKind, Sort};
use super::term::{CompareOp, SortError, Term};

/// Whether a mapping is a `dict` or a `set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    Dict,
    Set,
}

/// The largest number of entries kept: an insertion beyond it is not modelled.
pub const MAX_ENTRIES: usize = 16;

/// A dict (entries with values) or a set (entries whose value is `True`).
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    pub kind: MapKind,
    pub entries: Vec<(Term, Term)>,
}

/// Which items of a mapping an expression stands for: `d`/`d.keys()`, `d.values()`,
/// `d.items()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Keys,
    Values,
    Items,
}

/// Where an insertion or a lookup of a key lands, with the condition under which it does.
#[derive(Clone, Debug)]
pub enum Slot {
    /// The key equals the entry's key.
    Entry(usize),
    /// The key equals no entry's key.
    Missing,
}

impl MapKind {
    /// The Python type name.
    pub fn name(self) -> &'static str {
        match self {
            MapKind::Dict => "dict",
            MapKind::Set => "set",
        }
    }
}

/// Python's `TypeError` for a key that cannot be hashed (a list, or a tuple holding one).
pub fn unhashable(key: &Sort) -> Option<String> {
    key.may_hold_list()
        .then(|| "unhashable type: 'list'".to_string())
}

impl Mapping {
    pub fn new(kind: MapKind) -> Mapping {
        Mapping {
            kind,
            entries: Vec::new(),
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &Term> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Where `key` lands: one alternative per entry it may equal and one for "none", each
    /// with its condition; alternatives whose condition is literally false are left out.
    /// The conditions partition the path under the invariant (distinct keys).
    pub fn slots(&self, key: &Term) -> Result<Vec<(Term, Slot)>, SortError> {
        let mut out = Vec::new();
        let mut differs = Vec::with_capacity(self.entries.len());
        for (i, k) in self.keys().enumerate() {
            let eq = Term::compare(CompareOp::Eq, key.clone(), k.clone())?;
            differs.push(Term::not(eq.clone())?);
            if eq.bool_literal() != Some(false) {
                out.push((eq, Slot::Entry(i)));
            }
        }
        let none = Term::and(differs)?;
        if none.bool_literal() != Some(false) {
            out.push((none, Slot::Missing));
        }
        Ok(out)
    }

    /// Whether `key` is a key: `key == k0 or key == k1 or …`.
    pub fn contains(&self, key: &Term) -> Result<Term, SortError> {
        let eqs = self
            .keys()
            .map(|k| Term::compare(CompareOp::Eq, key.clone(), k.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        Term::or(eqs)
    }

    /// The value stored under `key`, with the condition under which there is none
    /// (`KeyError`, or the default of `.get`). `None` when the values do not share one sort
    /// (a conditional of them would change some value's type).
    pub fn lookup(
        &self,
        key: &Term,
        default: Option<Term>,
    ) -> Result<Option<(Term, Term)>, SortError> {
        let missing = Term::not(self.contains(key)?)?;
        let mut acc = default;
        for (k, v) in self.entries.iter().rev() {
            acc = Some(match acc {
                None => v.clone(),
                Some(other) if other.sort() == v.sort() => {
                    let eq = Term::compare(CompareOp::Eq, key.clone(), k.clone())?;
                    Term::ite(eq, v.clone(), other)?
                }
                Some(_) => return Ok(None),
            });
        }
        Ok(acc.map(|v| (v, missing)))
    }

    /// The keys in order, as a list display (`list(d)`, a `for` over `d`).
    pub fn keys_list(&self) -> Result<Term, SortError> {
        Term::items(SeqKind::List, self.keys().cloned().collect())
    }

    /// The values in order, as a list display.
    pub fn values_list(&self) -> Result<Term, SortError> {
        Term::items(
            SeqKind::List,
            self.entries.iter().map(|(_, v)| v.clone()).collect(),
        )
    }

    /// The `(key, value)` pairs in order, as a list display of tuples.
    pub fn items_list(&self) -> Result<Term, SortError> {
        let pairs = self
            .entries
            .iter()
            .map(|(k, v)| Term::items(SeqKind::Tuple, vec![k.clone(), v.clone()]))
            .collect::<Result<Vec<_>, _>>()?;
        Term::items(SeqKind::List, pairs)
    }

    /// The items of a view in order, as a list display.
    pub fn view(&self, view: View) -> Result<Term, SortError> {
        match view {
            View::Keys => self.keys_list(),
            View::Values => self.values_list(),
            View::Items => self.items_list(),
        }
    }

    /// The mapping with `key` stored at `slot` (an overwrite keeps the entry's key object).
    pub fn stored(&self, slot: &Slot, key: Term, value: Term) -> Mapping {
        let mut out = self.clone();
        match slot {
            Slot::Entry(i) => {
                if let Some(e) = out.entries.get_mut(*i) {
                    e.1 = value;
                }
            }
            Slot::Missing => out.entries.push((key, value)),
        }
        out
    }

    /// The mapping without entry `i`.
    pub fn removed(&self, i: usize) -> Mapping {
        let mut out = self.clone();
        if i < out.entries.len() {
            out.entries.remove(i);
        }
        out
    }
}

impl std::fmt::Display for Mapping {
    /// Python's display: `{'a': x, k: 2}`, `{x, 1}`, `set()`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = match self.kind {
            MapKind::Dict => self
                .entries
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect(),
            MapKind::Set if self.entries.is_empty() => return f.write_str("set()"),
            MapKind::Set => self.keys().map(Term::to_string).collect(),
        };
        write!(f, "{{{}}}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::term::Var;

    #[test]
    fn slots_fold_literal_keys_and_fork_on_symbolic_ones() {
        let a = Term::str("a").unwrap();
        let m = Mapping::new(MapKind::Dict).stored(&Slot::Missing, a.clone(), Term::int(1));
        let slots = m.slots(&a).unwrap();
        assert!(
            matches!(slots.as_slice(), [(c, Slot::Entry(0))] if c.bool_literal() == Some(true))
        );
        let b = Term::str("b").unwrap();
        assert!(matches!(
            m.slots(&b).unwrap().as_slice(),
            [(_, Slot::Missing)]
        ));
        let x = Term::var(Var::input("x"), Sort::Str).unwrap();
        assert_eq!(m.slots(&x).unwrap().len(), 2);
        let (v, missing) = m.lookup(&x, None).unwrap().unwrap();
        assert_eq!(v.to_string(), "1");
        assert_eq!(missing.to_string(), "not (x == 'a')");
        let mixed = m.stored(&Slot::Missing, b, Term::str("s").unwrap());
        assert!(mixed.lookup(&x, None).unwrap().is_none());
        assert_eq!(
            unhashable(&Sort::list(Sort::Int)).as_deref(),
            Some("unhashable type: 'list'")
        );
        assert_eq!(unhashable(&Sort::Str), None);
    }
}
