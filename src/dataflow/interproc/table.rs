//! The contexts of an interprocedural run and the call oracle that feeds them: a call of a
//! session function binds its abstract arguments to the callee's parameters, picks the
//! callee's context (a call string, or a tabulated input), joins the arguments into that
//! context's input and answers with the context's return value so far.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use super::{Sensitivity, Site};
use crate::dataflow::absint::calls::{Args, CallOracle};
use crate::dataflow::domains::AbstractDomain;
use crate::python::ir::{Expr, Param, ParamKind};

/// Updates of a context's input or return value joined before widening starts.
pub const WIDEN_AFTER: u32 = 3;

/// Inputs tabulated per function (`--summaries`) before further inputs share one widened
/// context.
pub const SUMMARY_LIMIT: usize = 8;

/// One context of one function.
pub struct Entry<D> {
    pub func: usize,
    /// Call strings: the call sites, most recent first.
    pub call_string: Vec<Site>,
    /// Summaries: the input this context was made for (`None`: the entry function's own
    /// context, or the shared widened one).
    pub input: Option<Vec<D>>,
    /// Summaries: the context later inputs share once [`SUMMARY_LIMIT`] is reached.
    pub shared: bool,
    /// The parameters' values: the join of every call's arguments.
    pub args: Vec<D>,
    pub ret: D,
    arg_updates: u32,
    ret_updates: u32,
    pub dirty: bool,
    /// The contexts whose analysis asked for this one's return value.
    pub callers: BTreeSet<usize>,
}

/// Every context so far.
pub struct Table<D> {
    pub sensitivity: Sensitivity,
    /// The session's functions callable by name, and their parameters.
    pub names: Vec<String>,
    pub params: Vec<Vec<Param>>,
    pub entries: Vec<Entry<D>>,
    /// The context being analysed.
    pub current: usize,
    /// (calling context, call site, called context).
    pub calls: BTreeSet<(usize, Site, usize)>,
    /// Call strings: the context of each (function, call string).
    by_string: HashMap<(usize, Vec<Site>), usize>,
    /// Each function's contexts.
    by_func: Vec<Vec<usize>>,
}

impl<D: AbstractDomain> Table<D> {
    /// A table holding the entry function's context (index 0), its parameters `⊤`.
    pub fn new(
        sensitivity: Sensitivity,
        names: Vec<String>,
        params: Vec<Vec<Param>>,
        root: usize,
    ) -> Table<D> {
        let n = params[root].len();
        let mut t = Table {
            sensitivity,
            names,
            params,
            entries: Vec::new(),
            current: 0,
            calls: BTreeSet::new(),
            by_string: HashMap::new(),
            by_func: Vec::new(),
        };
        t.by_func = vec![Vec::new(); t.params.len()];
        t.by_func[root].push(0);
        t.by_string.insert((root, Vec::new()), 0);
        t.entries.push(Entry {
            func: root,
            call_string: Vec::new(),
            input: None,
            shared: false,
            args: vec![D::TOP; n],
            ret: D::BOTTOM,
            arg_updates: 0,
            ret_updates: 0,
            dirty: true,
            callers: BTreeSet::new(),
        });
        t
    }

    fn new_entry(&mut self, func: usize, call_string: Vec<Site>, input: Option<Vec<D>>) -> usize {
        let n = self.params[func].len();
        let shared = matches!(self.sensitivity, Sensitivity::Summaries) && input.is_none();
        self.entries.push(Entry {
            func,
            call_string,
            input,
            shared,
            args: vec![D::BOTTOM; n],
            ret: D::BOTTOM,
            arg_updates: 0,
            ret_updates: 0,
            dirty: true,
            callers: BTreeSet::new(),
        });
        let i = self.entries.len() - 1;
        self.by_func[func].push(i);
        if !shared && self.entries[i].input.is_none() {
            let cs = self.entries[i].call_string.clone();
            self.by_string.insert((func, cs), i);
        }
        i
    }

    /// The context a call of `func` at `site` with parameter values `bound` goes to.
    fn target(&mut self, func: usize, site: &Site, bound: &[D]) -> usize {
        match self.sensitivity {
            Sensitivity::CallStrings(k) => {
                let mut cs = vec![site.clone()];
                cs.extend(self.entries[self.current].call_string.iter().cloned());
                cs.truncate(k);
                match self.by_string.get(&(func, cs.clone())) {
                    Some(&i) => i,
                    None => self.new_entry(func, cs, None),
                }
            }
            Sensitivity::Summaries => {
                let mine: Vec<usize> = self.by_func[func].clone();
                let covers = |e: &Entry<D>, exact: bool| {
                    e.input.as_ref().is_some_and(|input| {
                        input
                            .iter()
                            .zip(bound)
                            .all(|(i, b)| if exact { i == b } else { b.leq(i) })
                    })
                };
                if let Some(&i) = mine.iter().find(|&&i| covers(&self.entries[i], true)) {
                    return i;
                }
                if let Some(&i) = mine.iter().find(|&&i| covers(&self.entries[i], false)) {
                    return i;
                }
                let tabulated = mine
                    .iter()
                    .filter(|&&i| self.entries[i].input.is_some())
                    .count();
                if tabulated < SUMMARY_LIMIT {
                    return self.new_entry(func, Vec::new(), Some(bound.to_vec()));
                }
                match mine.iter().find(|&&i| self.entries[i].shared) {
                    Some(&i) => i,
                    None => self.new_entry(func, Vec::new(), None),
                }
            }
        }
    }

    /// Joins `bound` into context `i`'s parameters (widening after [`WIDEN_AFTER`] updates).
    fn feed(&mut self, i: usize, bound: Vec<D>) {
        let e = &mut self.entries[i];
        let mut joined = e.args.clone();
        let mut changed = false;
        for (a, b) in joined.iter_mut().zip(&bound) {
            changed |= a.join(b);
        }
        if !changed {
            return;
        }
        e.arg_updates += 1;
        if e.arg_updates > WIDEN_AFTER {
            for (a, j) in e.args.iter_mut().zip(&joined) {
                a.widen(j);
            }
        } else {
            e.args = joined;
        }
        e.dirty = true;
    }

    /// Joins a new return value into context `i`'s; true when it changed (its callers are
    /// then marked for another run).
    pub fn returned(&mut self, i: usize, value: &D) -> bool {
        let e = &mut self.entries[i];
        let mut joined = e.ret.clone();
        if !joined.join(value) {
            return false;
        }
        e.ret_updates += 1;
        if e.ret_updates > WIDEN_AFTER {
            e.ret.widen(&joined);
        } else {
            e.ret = joined;
        }
        let callers: Vec<usize> = e.callers.iter().copied().collect();
        for c in callers {
            self.entries[c].dirty = true;
        }
        true
    }
}

/// Binds a call's arguments to `params`: each parameter's value, `⊤` for defaults, `*args`,
/// `**kwargs`, and for every parameter when the binding is not known (unpacked arguments) or
/// fails (the call raises `TypeError` then; `⊤` stays sound).
pub fn bind<D: AbstractDomain>(params: &[Param], args: Args<D>) -> Vec<D> {
    let top = || vec![D::TOP; params.len()];
    if args.unpacked {
        return top();
    }
    let mut out: Vec<Option<D>> = vec![None; params.len()];
    let positional: Vec<usize> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::Positional))
        .map(|(i, _)| i)
        .collect();
    let varargs = params.iter().position(|p| p.kind == ParamKind::VarArgs);
    let varkw = params.iter().position(|p| p.kind == ParamKind::KwArgs);
    for (j, v) in args.positional.into_iter().enumerate() {
        match (positional.get(j), varargs) {
            (Some(&i), _) => out[i] = Some(v),
            (None, Some(i)) => out[i] = Some(D::TOP),
            (None, None) => return top(),
        }
    }
    for (name, v) in args.keywords {
        let named = params
            .iter()
            .position(|p| p.name == name && p.kind != ParamKind::PositionalOnly);
        match (named, varkw) {
            (Some(i), _)
                if matches!(
                    params[i].kind,
                    ParamKind::Positional | ParamKind::KeywordOnly
                ) =>
            {
                if out[i].is_some() {
                    return top();
                }
                out[i] = Some(v);
            }
            (_, Some(i)) => out[i] = Some(D::TOP),
            _ => return top(),
        }
    }
    let mut values = Vec::with_capacity(params.len());
    for (p, v) in params.iter().zip(out) {
        match v {
            Some(v) => values.push(v),
            None if p.default.is_some()
                || matches!(p.kind, ParamKind::VarArgs | ParamKind::KwArgs) =>
            {
                values.push(D::TOP)
            }
            None => return top(),
        }
    }
    values
}

/// The oracle one context's analysis asks.
pub struct Oracle<D> {
    pub table: Rc<RefCell<Table<D>>>,
}

impl<D: AbstractDomain> CallOracle<D> for Oracle<D> {
    fn call(&self, call: &Expr, callee: &str, args: Args<D>) -> Option<D> {
        let mut t = self.table.borrow_mut();
        let func = t.names.iter().position(|n| n == callee)?;
        let bound = bind(&t.params[func], args);
        let current = t.current;
        let site = Site {
            caller: t.names[t.entries[current].func].clone(),
            line: call.span.line,
            column: call.span.column,
        };
        let target = t.target(func, &site, &bound);
        t.feed(target, bound);
        t.entries[target].callers.insert(current);
        t.calls.insert((current, site, target));
        Some(t.entries[target].ret.clone())
    }
}
