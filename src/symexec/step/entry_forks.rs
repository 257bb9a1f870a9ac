//! The entry of a function with packed parameters ([`Packed`]): before its first
//! statement the path forks on the shape of each, a dict's or set's number of entries up
//! to the unroll bound (with its keys pairwise unequal; more entries end in a `bound`
//! leaf), an optional parameter's being `None`, and binds the parameter accordingly
//! (`*args` and `**kwargs` to a havoc).

use super::{Branch, Machine, Result, compare, internal, sort_err};
use crate::symbolic::mapping::{MAX_ENTRIES, Mapping};
use crate::symbolic::simplify::simplify;
use crate::symbolic::{CompareOp, Term};
use crate::symexec::packed::{Packed, Shape};
use crate::symexec::state::State;
use crate::symexec::tree::Value;

impl<'p> Machine<'p> {
    /// `then` run after the forks on the shape of each of `packed`.
    pub(crate) fn with_packed_inputs(
        &self,
        s: State<'p>,
        packed: &[Packed],
        then: &dyn Fn(State<'p>) -> Result<Branch<'p>>,
    ) -> Result<Branch<'p>> {
        let Some((p, rest)) = packed.split_first() else {
            return then(s);
        };
        let input = |n: &str| {
            self.program
                .input_env
                .get(n)
                .cloned()
                .ok_or_else(|| internal("a packed parameter's input is not declared"))
        };
        if let Shape::Plain(_) = p.shape {
            return self.with_packed_inputs(s, rest, then);
        }
        if p.shape == Shape::Unmodelled {
            let note = format!("{} (*args and **kwargs are not modelled)", p.name);
            let mut s = s;
            s.assign(&p.name, Value::Havoc(note))?;
            return self.with_packed_inputs(s, rest, then);
        }
        let Shape::Map { kind, .. } = &p.shape else {
            let none = input(&p.none_name())?;
            let mut is_none = s.clone();
            is_none.assign(&p.name, Value::None)?;
            let not_none = Term::not(none.clone()).map_err(sort_err)?;
            return Ok(Branch::Split(vec![
                (none, self.with_packed_inputs(is_none, rest, then)?),
                (not_none, self.with_packed_inputs(s, rest, then)?),
            ]));
        };
        let keys = input(&p.keys_name())?;
        let values = match kind {
            crate::symbolic::mapping::MapKind::Dict => Some(input(&p.values_name())?),
            crate::symbolic::mapping::MapKind::Set => None,
        };
        let most = self.unroll.min(MAX_ENTRIES as u64);
        let len = |t: &Term| Term::len(t.clone()).map(|l| simplify(&l)).map_err(sort_err);
        let item = |t: &Term, i: u64| {
            Term::index(t.clone(), Term::int(i))
                .map(|x| simplify(&x))
                .map_err(sort_err)
        };
        let mut alts = Vec::new();
        let mut key_items: Vec<Term> = Vec::new();
        let mut distinct: Vec<Term> = Vec::new();
        for k in 0..=most {
            let mut conds = vec![compare(CompareOp::Eq, len(&keys)?, Term::int(k))?];
            if let Some(v) = &values {
                conds.push(compare(CompareOp::Eq, len(v)?, Term::int(k))?);
            }
            conds.extend(distinct.iter().cloned());
            let mut mapping = Mapping::new(*kind);
            for (i, key) in key_items.iter().enumerate() {
                let value = match &values {
                    Some(v) => item(v, i as u64)?,
                    None => Term::bool(true),
                };
                mapping.entries.push((key.clone(), value));
            }
            let mut known = s.clone();
            known.assign(&p.name, Value::Mapping(mapping))?;
            let cond = Term::and(conds).map_err(sort_err)?;
            alts.push((cond, self.with_packed_inputs(known, rest, then)?));
            let next = item(&keys, k)?;
            for earlier in &key_items {
                let eq = compare(CompareOp::Eq, next.clone(), earlier.clone())?;
                distinct.push(Term::not(eq).map_err(sort_err)?);
            }
            key_items.push(next);
        }
        let mut longer = s;
        longer.bound = Some(format!(
            "the {} {} has more than {most} entries (unroll bound)",
            kind.name(),
            p.name
        ));
        let mut more = vec![compare(CompareOp::Gt, len(&keys)?, Term::int(most))?];
        if let Some(v) = &values {
            // So that the bound leaf's witness is a dict of that many entries.
            more.push(compare(CompareOp::Eq, len(v)?, len(&keys)?)?);
        }
        let more = Term::and(more).map_err(sort_err)?;
        alts.push((more, Branch::Go(longer)));
        Ok(Branch::Split(alts))
    }
}
