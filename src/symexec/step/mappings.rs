//! `%set`'s dicts and sets of known structure ([`Mapping`]): built by displays, `{}`,
//! `dict()`, `set()` and `set(xs)` of a sequence of known length, copied by `dict(d)`,
//! `set(s)` and `m.copy()`, changed by `d[k] = v`,
//! `d[k] op= v`, `del d[k]`, `d.pop(k[, default])`, `d.setdefault(k, v)`, `d.clear()`,
//! `s.add(x)`, `s.discard(x)`, `s.remove(x)`, and iterated in insertion order (a dict, its
//! keys, values or items). Every insertion forks on which key (if any) the new key equals,
//! so on each path the keys are distinct and lookups are exact; a missing key raises
//! `KeyError`. Only names the aliasing rule of [`crate::symexec::lists`] owns hold a
//! mapping: any other dict or set stays havoc, as does a set that a loop iterates (Python
//! promises no order) and anything past [`MAX_ENTRIES`].

use super::list_effects::{Maybe, deliver};
use super::{Branch, Machine, Result, internal, sort_err};
use crate::python::ir::{BinOp, Expr, ExprKind, Stmt, StmtKind};
use crate::symbolic::iteration::Iterable;
use crate::symbolic::mapping::{MAX_ENTRIES, MapKind, Mapping, Slot, unhashable};
use crate::symbolic::simplify::simplify;
use crate::symbolic::{Term, TermKind, dict_items};
use crate::symexec::SymexecError;
use crate::symexec::havoc::note;
use crate::symexec::lists;
use crate::symexec::state::{CallTarget, Completion, Kont, Source, State, exc, get};
use crate::symexec::tree::{Exc, Message, Value};

/// How a mapping is built from evaluated operands.
enum Build {
    /// A dict display: keys and values alternate.
    Dict,
    /// A set display: its items.
    Set,
    /// `set(xs)`: the items of one sequence of known length.
    SetOf,
}

/// What an insertion stores and delivers.
enum Insert {
    /// `d[k] = v`, `s.add(x)`: stores the value, delivers `None`.
    Store(Term),
    /// `d.setdefault(k, v)`: stores `v` only when `k` is missing; delivers the value.
    Default(Term),
}

/// What a lookup does with the entry it finds.
enum Take {
    /// `d.pop(k[, default])`, `del d[k]`, `s.remove(x)`, `s.discard(x)`: removes it;
    /// without a default a missing key raises `KeyError`.
    Remove(Option<Value>),
    /// `d.get(k)`: keeps it (`d.get(k, default)` is an expression of the translation).
    Get(Value),
}

/// The constructor `e` is, with the operands to evaluate (in Python's order).
fn constructor(e: &Expr) -> Option<(Build, Vec<Expr>)> {
    match &e.kind {
        ExprKind::Dict { keys, values } => {
            let mut operands = Vec::with_capacity(2 * keys.len());
            for (k, v) in keys.iter().zip(values) {
                operands.push(k.clone()?);
                operands.push(v.clone());
            }
            Some((Build::Dict, operands))
        }
        ExprKind::Set(items) => Some((Build::Set, items.clone())),
        ExprKind::Call {
            func,
            args,
            keywords,
        } if keywords.is_empty() => match (func.as_name()?, args.as_slice()) {
            ("dict", []) => Some((Build::Dict, Vec::new())),
            ("set", []) => Some((Build::Set, Vec::new())),
            ("set", [xs]) if !matches!(xs.kind, ExprKind::Starred(_)) => {
                Some((Build::SetOf, vec![xs.clone()]))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The `KeyError` for `key`: its message is the key's repr.
fn key_error(key: &Term) -> Exc {
    Exc {
        type_name: "KeyError".into(),
        message: Message::of_key(key),
    }
}

/// A fork over alternatives, without those that cannot hold.
fn fork<'p>(alts: Vec<(Term, Branch<'p>)>) -> Branch<'p> {
    let mut alts: Vec<(Term, Branch<'p>)> = alts
        .into_iter()
        .map(|(c, b)| (simplify(&c), b))
        .filter(|(c, _)| c.bool_literal() != Some(false))
        .collect();
    if alts.len() == 1 && alts[0].0.bool_literal() == Some(true) {
        return alts.remove(0).1;
    }
    Branch::Split(alts)
}

impl<'p> Machine<'p> {
    /// The owned mapping `name` holds in the current frame.
    fn owned_mapping(&self, s: &State<'_>, name: &str) -> Option<Mapping> {
        let frame = s.frames.last()?;
        let Value::Mapping(m) = get(&frame.store, name)? else {
            return None;
        };
        lists::owned(s, self.program, name).then(|| m.clone())
    }

    /// The mapping `dict(d)`, `set(s)` or `m.copy()` makes: a copy of the
    /// mapping of known structure a name holds, of the same kind.
    fn copied_mapping(&self, s: &State<'_>, e: &Expr) -> Option<Mapping> {
        let (source, kind) = match &e.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => match (&func.kind, args.as_slice()) {
                (ExprKind::Name(f), [arg]) => match f.as_str() {
                    "dict" => (arg.as_name()?, MapKind::Dict),
                    "set" => (arg.as_name()?, MapKind::Set),
                    _ => return None,
                },
                (ExprKind::Attribute { value, attr }, []) if attr == "copy" => {
                    let name = value.as_name()?;
                    let Value::Mapping(m) = get(&s.frames.last()?.store, name)? else {
                        return None;
                    };
                    (name, m.kind)
                }
                _ => return None,
            },
            _ => return None,
        };
        match get(&s.frames.last()?.store, source)? {
            Value::Mapping(m) if m.kind == kind => Some(m.clone()),
            _ => None,
        }
    }

    /// Where `key` may land in `m`, with the state to go on from; `Err` with where the path
    /// goes instead: a `TypeError` for an unhashable key, a havoc when the slots cannot be
    /// told.
    #[allow(clippy::type_complexity)]
    fn key_slots(
        &self,
        s: State<'p>,
        name: &str,
        m: &Mapping,
        key: &Term,
        target: &CallTarget,
        line: u32,
    ) -> Result<std::result::Result<(State<'p>, Vec<(Term, Slot)>), Branch<'p>>> {
        if let Some(msg) = unhashable(key.sort()) {
            return Ok(Err(Branch::Go(s.raise(exc("TypeError", msg)))));
        }
        match m.slots(key) {
            Ok(slots) => Ok(Ok((s, slots))),
            Err(e) => {
                let why = format!("a key of the {} ({})", m.kind.name(), e.0);
                let s = self.havoc_mapping(s, name, &why, line)?;
                Ok(Err(Branch::Go(deliver(s, target, Value::Havoc(why))?)))
            }
        }
    }

    /// Gives up on modelling `name`: it becomes havoc with a note.
    fn havoc_mapping(
        &self,
        mut s: State<'p>,
        name: &str,
        why: &str,
        line: u32,
    ) -> Result<State<'p>> {
        let n = note(why, line);
        s.havoc.mark(n.clone());
        // Temporaries too (`$1 = set(xs)`): the statement after it reads the name.
        s.assign(name, Value::Havoc(n))?;
        Ok(s)
    }

    /// Evaluates `operands` left to right and continues with their terms (havoc: `name`
    /// becomes havoc and the path goes on).
    fn with_operands(
        &self,
        s: State<'p>,
        at: &Expr,
        name: &str,
        target: &CallTarget,
        operands: Vec<Expr>,
        f: impl FnOnce(State<'p>, Vec<Term>) -> Result<Branch<'p>>,
    ) -> Result<Branch<'p>> {
        let all = Expr::new(ExprKind::Tuple(operands), at.span);
        self.with_any(s, &all, |s, v| match v {
            Value::Term(t) => match t.kind() {
                TermKind::Items(_, items) => f(s, items.clone()),
                _ => Err(internal("operands are not a display")),
            },
            Value::Havoc(n) => {
                let s = self.havoc_mapping(s, name, "an operand of a dict or set", at.span.line)?;
                Ok(Branch::Go(deliver(s, target, Value::Havoc(n))?))
            }
            _ => Err(internal("operands are not a value")),
        })
    }

    /// The statements on dicts and sets this module models; the state back otherwise.
    pub(super) fn mapping_stmt(&self, s: State<'p>, stmt: &'p Stmt) -> Result<Maybe<'p>> {
        match &stmt.kind {
            StmtKind::Assign { targets, value } => match targets.as_slice() {
                [t] => self.mapping_assign(s, t, value, stmt),
                _ => Ok(Err(s)),
            },
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } => self.mapping_assign(s, target, value, stmt),
            StmtKind::AugAssign { target, .. } => {
                let (Some(combined), ExprKind::Subscript { value: d, index }) =
                    (stmt.augmented_value(), &target.kind)
                else {
                    return Ok(Err(s));
                };
                let Some(name) = d.as_name() else {
                    return Ok(Err(s));
                };
                match self.owned_mapping(&s, name) {
                    Some(m) if m.kind == MapKind::Dict => {
                        let operands = vec![(**index).clone(), combined];
                        self.store(s, stmt.span.line, name, operands).map(Ok)
                    }
                    _ => Ok(Err(s)),
                }
            }
            StmtKind::Delete(targets) => {
                let [t] = targets.as_slice() else {
                    return Ok(Err(s));
                };
                let ExprKind::Subscript { value: d, index } = &t.kind else {
                    return Ok(Err(s));
                };
                let Some(name) = d.as_name() else {
                    return Ok(Err(s));
                };
                let Some(m) = self
                    .owned_mapping(&s, name)
                    .filter(|m| m.kind == MapKind::Dict)
                else {
                    return Ok(Err(s));
                };
                let name = name.to_string();
                let discard = CallTarget::Discard;
                let b =
                    self.with_operands(s, t, &name, &discard, vec![(**index).clone()], |s, v| {
                        self.take(s, &name, &m, &v[0], Take::Remove(None), &discard)
                    })?;
                Ok(Ok(b))
            }
            StmtKind::Expr(e) => self.mapping_method(s, e, CallTarget::Discard),
            StmtKind::Return(Some(e)) => {
                match e.as_name().and_then(|n| self.owned_mapping(&s, n)) {
                    // The frame ends: no alias can see the mapping afterwards.
                    Some(m) => {
                        let mut s = s;
                        s.completion = Some(Completion::Return(Value::Mapping(m)));
                        Ok(Ok(Branch::Go(s)))
                    }
                    None => self.mapping_method(s, e, CallTarget::Return),
                }
            }
            _ => Ok(Err(s)),
        }
    }

    /// `name = constructor`, `d[k] = v`, or `t = d.method(…)`.
    fn mapping_assign(
        &self,
        s: State<'p>,
        target: &Expr,
        value: &Expr,
        stmt: &Stmt,
    ) -> Result<Maybe<'p>> {
        match &target.kind {
            ExprKind::Name(name) => {
                if let Some(m) = self.copied_mapping(&s, value)
                    && lists::owned(&s, self.program, name)
                {
                    let mut s = s;
                    s.assign(name, Value::Mapping(m))?;
                    return Ok(Ok(Branch::Go(s)));
                }
                if let Some((build, operands)) = constructor(value) {
                    if !lists::owned(&s, self.program, name) {
                        return Ok(Err(s));
                    }
                    let name = name.clone();
                    let discard = CallTarget::Discard;
                    let b = self.with_operands(s, value, &name, &discard, operands, |s, v| {
                        self.build(s, stmt.span.line, &name, build, v)
                    })?;
                    return Ok(Ok(b));
                }
                if let ExprKind::BinOp { op, left, right } = &value.kind
                    && let (Some(a), Some(b)) = (left.as_name(), right.as_name())
                    && let (Some(a), Some(b)) =
                        (self.owned_mapping(&s, a), self.owned_mapping(&s, b))
                    && a.kind == MapKind::Set
                    && b.kind == MapKind::Set
                    && lists::owned(&s, self.program, name)
                {
                    return self.set_operation(s, stmt.span.line, name, *op, &a, &b);
                }
                if let Some(acc) = value.as_name().filter(|n| n.starts_with("$c"))
                    && let Some(m) = self.owned_mapping(&s, acc)
                    && lists::owned(&s, self.program, name)
                {
                    // A comprehension's accumulator, complete and never read again.
                    let mut s = s;
                    s.assign(name, Value::Mapping(m))?;
                    return Ok(Ok(Branch::Go(s)));
                }
                self.mapping_method(s, value, CallTarget::Name(name.clone()))
            }
            ExprKind::Subscript { value: d, index } => {
                let Some(name) = d.as_name() else {
                    return Ok(Err(s));
                };
                match self.owned_mapping(&s, name) {
                    Some(m) if m.kind == MapKind::Dict => {
                        // Python evaluates the value before the key.
                        let operands = vec![value.clone(), (**index).clone()];
                        let name = name.to_string();
                        let discard = CallTarget::Discard;
                        let line = stmt.span.line;
                        let b =
                            self.with_operands(s, value, &name, &discard, operands, |s, v| {
                                let put = Insert::Store(v[0].clone());
                                self.insert(s, line, &name, &m, &v[1], put, &discard)
                            })?;
                        Ok(Ok(b))
                    }
                    _ => Ok(Err(s)),
                }
            }
            _ => Ok(Err(s)),
        }
    }

    /// `d[k] op= v` as `d[k] = d[k] op v` (operands: the key, then the combined value).
    fn store(
        &self,
        s: State<'p>,
        line: u32,
        name: &str,
        operands: Vec<Expr>,
    ) -> Result<Branch<'p>> {
        let name = name.to_string();
        let at = operands[1].clone();
        let discard = CallTarget::Discard;
        self.with_operands(s, &at, &name, &discard, operands, |s, v| {
            let Some(m) = self.owned_mapping(&s, &name) else {
                return Err(internal("the dict is gone"));
            };
            self.insert(
                s,
                line,
                &name,
                &m,
                &v[0],
                Insert::Store(v[1].clone()),
                &discard,
            )
        })
    }

    /// A new mapping from evaluated operands, inserted one by one.
    fn build(
        &self,
        s: State<'p>,
        line: u32,
        name: &str,
        build: Build,
        operands: Vec<Term>,
    ) -> Result<Branch<'p>> {
        let (kind, pairs): (MapKind, Vec<(Term, Term)>) = match build {
            Build::Dict => (
                MapKind::Dict,
                operands
                    .chunks(2)
                    .map(|c| (c[0].clone(), c[1].clone()))
                    .collect(),
            ),
            Build::Set => (
                MapKind::Set,
                operands
                    .into_iter()
                    .map(|k| (k, Term::bool(true)))
                    .collect(),
            ),
            Build::SetOf => {
                let xs = &operands[0];
                let items = match xs.sort() {
                    crate::symbolic::Sort::Fixed(_, sorts) => (0..sorts.len())
                        .map(|i| Term::index(xs.clone(), Term::int(i)).map(|t| simplify(&t)))
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map_err(sort_err)?,
                    _ => {
                        let why = "set() of a value of unknown length";
                        let s = self.havoc_mapping(s, name, why, line)?;
                        return Ok(Branch::Go(s));
                    }
                };
                (
                    MapKind::Set,
                    items.into_iter().map(|k| (k, Term::bool(true))).collect(),
                )
            }
        };
        let mut s = s;
        s.assign(name, Value::Mapping(Mapping::new(kind)))?;
        let mut branch = Branch::Go(s);
        for (k, v) in pairs {
            branch = branch.and_then(&mut |s| {
                let Some(m) = self.owned_mapping(&s, name) else {
                    return Ok(Branch::Go(s)); // made havoc by an earlier insertion
                };
                let put = Insert::Store(v.clone());
                self.insert(s, line, name, &m, &k, put, &CallTarget::Discard)
            })?;
        }
        Ok(branch)
    }

    /// Stores `key` in `m` (the mapping `name` holds), forking on which key it equals,
    /// and delivers what `put` says to `target`.
    #[allow(clippy::too_many_arguments)]
    fn insert(
        &self,
        s: State<'p>,
        line: u32,
        name: &str,
        m: &Mapping,
        key: &Term,
        put: Insert,
        target: &CallTarget,
    ) -> Result<Branch<'p>> {
        let (s, slots) = match self.key_slots(s, name, m, key, target, line)? {
            Ok(found) => found,
            Err(done) => return Ok(done),
        };
        let mut alts = Vec::with_capacity(slots.len());
        for (cond, slot) in slots {
            let mut here = s.clone();
            let (value, delivered) = match (&put, &slot) {
                (Insert::Store(v), _) => (Some(v.clone()), Value::None),
                (Insert::Default(_), Slot::Entry(i)) => {
                    (None, Value::Term(m.entries[*i].1.clone()))
                }
                (Insert::Default(v), Slot::Missing) => (Some(v.clone()), Value::Term(v.clone())),
            };
            if let Some(v) = value {
                if matches!(slot, Slot::Missing) && m.entries.len() >= MAX_ENTRIES {
                    let why = format!("a {} of more than {MAX_ENTRIES} entries", m.kind.name());
                    here = self.havoc_mapping(here, name, &why, line)?;
                } else {
                    here.assign(name, Value::Mapping(m.stored(&slot, key.clone(), v)))?;
                }
            }
            alts.push((cond, Branch::Go(deliver(here, target, delivered)?)));
        }
        Ok(fork(alts))
    }

    /// Reads or removes `key` from `m` (as `take` says), delivering the value found (`None`
    /// for a set) to `target`; when missing, delivers the default or raises `KeyError`.
    fn take(
        &self,
        s: State<'p>,
        name: &str,
        m: &Mapping,
        key: &Term,
        take: Take,
        target: &CallTarget,
    ) -> Result<Branch<'p>> {
        let (remove, default) = match take {
            Take::Remove(d) => (true, d),
            Take::Get(d) => (false, Some(d)),
        };
        let (s, slots) = match self.key_slots(s, name, m, key, target, 0)? {
            Ok(found) => found,
            Err(done) => return Ok(done),
        };
        let mut alts = Vec::with_capacity(slots.len());
        for (cond, slot) in slots {
            let mut here = s.clone();
            let b = match slot {
                Slot::Entry(i) => {
                    if remove {
                        here.assign(name, Value::Mapping(m.removed(i)))?;
                    }
                    let v = match m.kind {
                        MapKind::Dict => Value::Term(m.entries[i].1.clone()),
                        MapKind::Set => Value::None,
                    };
                    Branch::Go(deliver(here, target, v)?)
                }
                Slot::Missing => match &default {
                    Some(d) => Branch::Go(deliver(here, target, d.clone())?),
                    None => Branch::Go(here.raise(key_error(key))),
                },
            };
            alts.push((cond, b));
        }
        Ok(fork(alts))
    }

    /// `d.pop(k[, default])`, `d.get(k)`, `d.setdefault(k, v)`, `d.clear()`, `s.add(x)`,
    /// `s.discard(x)`, `s.remove(x)`, `s.clear()` on an owned mapping.
    fn mapping_method(&self, s: State<'p>, e: &Expr, target: CallTarget) -> Result<Maybe<'p>> {
        let Some((value, attr, args)) = e.as_method_call() else {
            return Ok(Err(s));
        };
        let Some(name) = value.as_name() else {
            return Ok(Err(s));
        };
        let Some(m) = self.owned_mapping(&s, name) else {
            return Ok(Err(s));
        };
        let modelled = matches!(
            (m.kind, attr, args.len()),
            (MapKind::Dict, "pop", 1 | 2)
                | (MapKind::Dict, "get", 1)
                | (MapKind::Dict, "setdefault", 2)
                | (_, "clear", 0)
                | (MapKind::Set, "add" | "discard" | "remove", 1)
        );
        if !modelled {
            return Ok(Err(s));
        }
        let name = name.to_string();
        let line = e.span.line;
        let b = self.with_operands(s, e, &name, &target, args.to_vec(), |mut s, v| {
            match (attr, v.as_slice()) {
                ("clear", []) => {
                    s.assign(&name, Value::Mapping(Mapping::new(m.kind)))?;
                    Ok(Branch::Go(deliver(s, &target, Value::None)?))
                }
                ("pop", [k]) | ("remove", [k]) => {
                    self.take(s, &name, &m, k, Take::Remove(None), &target)
                }
                ("pop", [k, d]) => {
                    let d = Value::Term(d.clone());
                    self.take(s, &name, &m, k, Take::Remove(Some(d)), &target)
                }
                ("discard", [k]) => {
                    self.take(s, &name, &m, k, Take::Remove(Some(Value::None)), &target)
                }
                ("get", [k]) => self.take(s, &name, &m, k, Take::Get(Value::None), &target),
                ("add", [k]) => {
                    let put = Insert::Store(Term::bool(true));
                    self.insert(s, line, &name, &m, k, put, &target)
                }
                ("setdefault", [k, d]) => {
                    self.insert(s, line, &name, &m, k, Insert::Default(d.clone()), &target)
                }
                _ => Err(internal("a mapping method without a model")),
            }
        })?;
        Ok(Ok(b))
    }

    /// `name = a op b` of two sets (`&`, `|`, `-`, `^`): each item that may belong to the
    /// result is added on the paths where it does (the items are distinct already, so
    /// no insertion forks on equal keys).
    fn set_operation(
        &self,
        s: State<'p>,
        line: u32,
        name: &str,
        op: BinOp,
        a: &Mapping,
        b: &Mapping,
    ) -> Result<Maybe<'p>> {
        let in_other = |x: &Term, other: &Mapping, wanted: bool| -> Result<Term> {
            let c = other.contains(x).map_err(sort_err)?;
            if wanted {
                Ok(c)
            } else {
                Term::not(c).map_err(sort_err)
            }
        };
        let mut candidates: Vec<(Term, Term)> = Vec::new();
        let only = |from: &Mapping, other: &Mapping, wanted: bool, out: &mut Vec<(Term, Term)>| {
            for x in from.keys() {
                out.push((x.clone(), in_other(x, other, wanted)?));
            }
            Ok::<(), SymexecError>(())
        };
        match op {
            BinOp::BitAnd => only(a, b, true, &mut candidates)?,
            BinOp::Sub => only(a, b, false, &mut candidates)?,
            BinOp::BitOr => {
                candidates.extend(a.keys().map(|x| (x.clone(), Term::bool(true))));
                only(b, a, false, &mut candidates)?;
            }
            BinOp::BitXor => {
                only(a, b, false, &mut candidates)?;
                only(b, a, false, &mut candidates)?;
            }
            _ => return Ok(Err(s)),
        }
        if candidates.len() > MAX_ENTRIES {
            let why = format!("a set of more than {MAX_ENTRIES} items");
            return Ok(Ok(Branch::Go(self.havoc_mapping(s, name, &why, line)?)));
        }
        let mut s = s;
        s.assign(name, Value::Mapping(Mapping::new(MapKind::Set)))?;
        let mut branch = Branch::Go(s);
        for (x, cond) in candidates {
            branch = branch.and_then(&mut |s| {
                let Some(m) = self.owned_mapping(&s, name) else {
                    return Err(internal("the set is gone"));
                };
                let mut with = s.clone();
                with.assign(
                    name,
                    Value::Mapping(m.stored(&Slot::Missing, x.clone(), Term::bool(true))),
                )?;
                Ok(fork(vec![
                    (cond.clone(), Branch::Go(with)),
                    (Term::not(cond.clone()).map_err(sort_err)?, Branch::Go(s)),
                ]))
            })?;
        }
        Ok(Ok(branch))
    }

    /// `for x in d` (or `d.keys()`, `d.values()`, `d.items()`) of an owned dict: its items
    /// in insertion order. The state back otherwise (a set keeps its havoc).
    pub(super) fn mapping_loop(&self, mut s: State<'p>, stmt: &'p Stmt) -> Result<Maybe<'p>> {
        let StmtKind::For { iter, .. } = &stmt.kind else {
            return Ok(Err(s));
        };
        let env = s.env(self.program)?;
        let Some(items) = dict_items(iter, &env) else {
            return Ok(Err(s));
        };
        let items = items.map_err(sort_err)?;
        s.push(Kont::Loop {
            stmt,
            count: 0,
            iter: Some((Source::Modelled(Iterable::Seq(items)), 0)),
        })?;
        Ok(Ok(self.loop_test(s)?))
    }
}
