//! Dicts and sets of unknown size: a `dict` is two sequences of equal length, its keys in
//! insertion order and the values under them (`d.keys`, `d.values`), a `set` the
//! sequence of its items (`s.items`, in an order Python does not promise: only order-free
//! questions are answered about a set). Keys are pairwise distinct, which
//! [`SeqMapping::axioms`] states for the solver. Where [`super::mapping`] knows how many
//! entries there are, this model does not: it is how a dict or set parameter is an input.
//!
//! Keys are `int`, `bool` or `str` (floats are left out: `nan` is not equal to itself, so
//! distinct-by-`==` keys would not be the dict's); a lookup needs a key of the key sort.

use super::mapping::{MapKind, View};
use super::sort::Sort;
use super::term::{CompareOp, SortError, Term, TermKind, Var};

/// A dict (keys and values) or a set (keys only) of symbolic size.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqMapping {
    pub kind: MapKind,
    /// The keys (a set's items) as a `list[K]`.
    pub keys: Term,
    /// A dict's values as a `list[V]`, as long as `keys`.
    pub values: Option<Term>,
}

/// Why a dict or set cannot be modelled this way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmodelled(pub String);

impl SeqMapping {
    /// The input dict (`value: Some`) or set `name`: the input sequences `name.keys` and
    /// `name.values` (`name.items` for a set).
    pub fn input(name: &str, key: &Sort, value: Option<&Sort>) -> Result<SeqMapping, Unmodelled> {
        if !matches!(key, Sort::Int | Sort::Bool | Sort::Str) {
            return Err(Unmodelled(format!("keys of type {key}")));
        }
        let seq = |suffix: &str, item: &Sort| {
            Term::input(
                Var::input(format!("{name}.{suffix}")),
                &Sort::list(item.clone()),
            )
            .map_err(|e| Unmodelled(e.0))
        };
        Ok(match value {
            Some(v) => SeqMapping {
                kind: MapKind::Dict,
                keys: seq("keys", key)?,
                values: Some(seq("values", v)?),
            },
            None => SeqMapping {
                kind: MapKind::Set,
                keys: seq("items", key)?,
                values: None,
            },
        })
    }

    /// What holds of every such dict or set: as many values as keys, keys pairwise
    /// distinct, stated as "each key is found first where it is"
    /// (`∀0<=i<len: keys.find(keys[i]) == i`): one quantifier, which Z3 decided at once
    /// where the nested `∀i<j: keys[i] != keys[j]` took it seconds (5.4).
    pub fn axioms(&self) -> Result<Vec<Term>, SortError> {
        let len = self.len()?;
        let i = Term::var(Var::bound("i", 0), Sort::Int)?;
        let first = Term::find(
            self.keys.clone(),
            Term::index(self.keys.clone(), i.clone())?,
        )?;
        let at_i = Term::compare(CompareOp::Eq, first, i)?;
        let mut out = vec![Term::quantified(
            true,
            Var::bound("i", 0),
            Term::int(0),
            len.clone(),
            at_i,
        )?];
        if let Some(values) = &self.values {
            out.push(Term::compare(
                CompareOp::Eq,
                Term::len(values.clone())?,
                len,
            )?);
        }
        Ok(out)
    }

    /// `len(d)`.
    pub fn len(&self) -> Result<Term, SortError> {
        Term::len(self.keys.clone())
    }

    /// The truth value of `d`: it is not empty.
    pub fn truthy(&self) -> Result<Term, SortError> {
        Term::compare(CompareOp::Gt, self.len()?, Term::int(0))
    }

    /// The items a view stands for, as a sequence in iteration order (a set's order is
    /// not Python's). `None` for `d.items()` (pairs are not modelled) and a set's values.
    pub fn view(&self, view: View) -> Option<&Term> {
        match view {
            View::Keys => Some(&self.keys),
            View::Values => self.values.as_ref(),
            View::Items => None,
        }
    }

    /// The value under `key`, with the condition under which there is none (`KeyError`,
    /// or the default of `.get` when one is given). A key read from the keys (`keys[i]`,
    /// as a `for` over the dict binds it) finds value `i`; any other key of the key sort is
    /// looked up by its first index in the keys.
    pub fn lookup(&self, key: &Term, default: Option<Term>) -> Result<(Term, Term), Unmodelled> {
        let err = |e: SortError| Unmodelled(e.0);
        let Some(values) = &self.values else {
            return Err(Unmodelled("'set' object is not subscriptable".into()));
        };
        if let TermKind::Index(seq, i) = key.kind()
            && *seq == self.keys
        {
            // In range wherever the key was read: the lengths are equal.
            let v = Term::index(values.clone(), i.clone()).map_err(err)?;
            return Ok((v, Term::bool(false)));
        }
        if self.keys.sort().item_sort().as_ref() != Some(key.sort()) {
            return Err(Unmodelled(format!(
                "a lookup with a '{}' key in a dict with '{}' keys",
                key.sort(),
                self.keys.sort().item_sort().unwrap_or(Sort::Int)
            )));
        }
        let present = Term::contains(key.clone(), self.keys.clone()).map_err(err)?;
        let at = Term::find(self.keys.clone(), key.clone()).map_err(err)?;
        let found = Term::index(values.clone(), at).map_err(err)?;
        let missing = Term::not(present.clone()).map_err(err)?;
        Ok(match default {
            None => (found, missing),
            Some(d) if d.sort() == found.sort() => {
                (Term::ite(present, found, d).map_err(err)?, missing)
            }
            Some(d) => {
                return Err(Unmodelled(format!(
                    "a default of type '{}' for values of type '{}'",
                    d.sort(),
                    found.sort()
                )));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dict_input_is_two_sequences_with_distinct_keys() {
        let d = SeqMapping::input("d", &Sort::Str, Some(&Sort::Int)).unwrap();
        assert_eq!(d.keys.to_string(), "d.keys");
        let axioms: Vec<String> = d.axioms().unwrap().iter().map(|t| t.to_string()).collect();
        assert_eq!(axioms.len(), 2);
        assert!(
            axioms[0].contains("d.keys.find(d.keys[i]) == i"),
            "{axioms:?}"
        );
        let k = Term::var(Var::input("k"), Sort::Str).unwrap();
        let (v, missing) = d.lookup(&k, None).unwrap();
        assert_eq!(v.to_string(), "d.values[d.keys.find(k)]");
        assert_eq!(missing.to_string(), "k not in d.keys");
        let first = Term::index(d.keys.clone(), Term::int(0)).unwrap();
        let (v, missing) = d.lookup(&first, None).unwrap();
        assert_eq!(v.to_string(), "d.values[0]");
        assert_eq!(missing.bool_literal(), Some(false));
        assert!(d.lookup(&Term::int(1), None).is_err());
        assert!(SeqMapping::input("f", &Sort::Real, Some(&Sort::Int)).is_err());
        let s = SeqMapping::input("s", &Sort::Int, None).unwrap();
        assert!(s.lookup(&Term::int(1), None).is_err());
        assert_eq!(s.axioms().unwrap().len(), 1);
    }
}
