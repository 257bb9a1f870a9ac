//! Interprocedural abstract interpretation over the session's functions (`%absint DOMAIN f
//! --context k` and `--summaries`).
//!
//! Each function is analysed per context by the intraprocedural interpreter
//! ([`crate::dataflow::absint`]), its parameters bound to the join of the arguments of the
//! calls that reach the context, and each call of a session function by name evaluating to
//! the callee context's return value ([`table::Oracle`]). Contexts are
//! - call strings ([`Sensitivity::CallStrings`]): the last `k` call sites (`k = 0`: one
//!   context per function), so recursion ends in finitely many contexts;
//! - tabulated inputs ([`Sensitivity::Summaries`], the functional approach): one context per
//!   distinct abstract input, up to [`table::SUMMARY_LIMIT`] per function, then one shared
//!   context that later inputs are joined (and widened) into.
//!
//! The outer loop runs contexts until none is marked: a context is marked when its input
//! grows or a callee's return value grows; inputs and return values are widened after
//! [`table::WIDEN_AFTER`] updates, so the loop ends in every domain. A return value is the
//! join of the values `return` statements return; falling off the end, `return` without a
//! value and generators make it `⊤` (None and generators are not ints). Calls of methods,
//! builtins and anything else not a session function keep the intraprocedural meaning: `⊤`
//! (`len` ≥ 0); they cannot change the ints a context tracks (its locals).

pub mod bitvec;
pub mod facts;
pub mod scene;
pub mod table;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::rc::Rc;

use petgraph::Direction as Dir;
use petgraph::visit::EdgeRef;

use super::absint::calls::CallOracle;
use super::absint::{AbsInt, AbsReport, Frame, finish};
use super::analyses::Program;
use super::domains::{AbstractDomain, Constant, Interval, Parity, Sign, Zero};
use super::engine::{FixpointError, NodeStates, Options, Results, iterate_to_fixpoint};
use super::lattice::MaybeReachable;
use crate::cfg::{CfgError, Edge, Item};
use crate::python::builtins;
use crate::python::ir::{Function, StmtKind};
use table::{Oracle, Table};

/// Context runs allowed per context before the analysis gives up (it cannot loop for ever:
/// widening bounds every chain; this bounds the time).
pub const RUNS_PER_CONTEXT: usize = 64;

/// How calls of one function are told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sensitivity {
    /// Call strings of at most this many call sites (0: one context per function).
    CallStrings(usize),
    /// One context per abstract input, tabulated (the functional approach).
    Summaries,
}

impl fmt::Display for Sensitivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sensitivity::CallStrings(k) => write!(f, "call strings of length ≤ {k}"),
            Sensitivity::Summaries => write!(f, "summaries (one context per abstract input)"),
        }
    }
}

/// A call site: the calling function and where the call starts.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    pub caller: String,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@L{}:{}", self.caller, self.line, self.column)
    }
}

/// Why no result.
#[derive(Debug, thiserror::Error)]
pub enum InterError {
    #[error("in {0}: {1}")]
    Cfg(String, CfgError),
    #[error(transparent)]
    Fixpoint(#[from] FixpointError),
    #[error("the interprocedural analysis did not settle after {0} context runs")]
    TooManyRuns(usize),
    #[error("no function {0} in the session")]
    Unknown(String),
}

/// One context's results.
pub struct Context<D> {
    pub function: String,
    /// Call strings: the call sites, most recent first.
    pub call_string: Vec<Site>,
    /// Summaries: the input the context was made for (`None`: the entry's or the shared one).
    pub input: Option<Vec<D>>,
    pub shared: bool,
    /// The parameters' names and values.
    pub params: Vec<(String, D)>,
    pub returns: D,
    /// The state before each CFG node, by node index.
    pub before: Vec<MaybeReachable<Frame<D>>>,
    pub report: AbsReport,
}

impl<D: AbstractDomain> Context<D> {
    /// `[]` for the entry, `[g@L3:5 ← f@L9:9]`, `input (a: 0)`, `shared (widened)`.
    pub fn label(&self) -> String {
        if self.shared {
            return "shared (later inputs, widened)".to_string();
        }
        if let Some(input) = &self.input {
            let parts: Vec<String> = self
                .params
                .iter()
                .zip(input)
                .map(|((n, _), v)| format!("{n}: {v}"))
                .collect();
            return format!("input ({})", parts.join(", "));
        }
        let sites: Vec<String> = self.call_string.iter().map(Site::to_string).collect();
        format!("[{}]", sites.join(" ← "))
    }
}

/// A call between contexts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallEdge {
    pub from: usize,
    pub site: Site,
    pub to: usize,
}

/// A call the analysis does not follow (its value is `⊤`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unfollowed {
    pub caller: String,
    pub line: u32,
    pub callee: String,
    pub why: &'static str,
}

/// The whole result.
pub struct Interprocedural<D> {
    pub entry: String,
    pub sensitivity: Sensitivity,
    /// Entry function's context first.
    pub contexts: Vec<Context<D>>,
    pub calls: Vec<CallEdge>,
    pub unfollowed: Vec<Unfollowed>,
    /// Intraprocedural runs, the final reporting runs included.
    pub runs: usize,
}

/// Analyses `entry` among `functions` (the session's functions, methods included: those are
/// never called by a plain name and stay unfollowed).
pub fn analyze<D: AbstractDomain>(
    functions: &[&Function],
    entry: &str,
    sensitivity: Sensitivity,
    options: &Options<'_>,
) -> Result<Interprocedural<D>, InterError> {
    let callable: Vec<&Function> = functions
        .iter()
        .copied()
        .filter(|f| !f.qualname.contains('.'))
        .collect();
    let root = callable
        .iter()
        .position(|f| f.name == entry)
        .ok_or_else(|| InterError::Unknown(entry.to_string()))?;
    let mut programs: Vec<Option<Program<'_>>> = callable.iter().map(|_| None).collect();
    let table = Rc::new(RefCell::new(Table::<D>::new(
        sensitivity,
        callable.iter().map(|f| f.name.clone()).collect(),
        callable.iter().map(|f| f.params.clone()).collect(),
        root,
    )));
    let oracle: Rc<dyn CallOracle<D>> = Rc::new(Oracle {
        table: table.clone(),
    });
    let mut runs = 0;
    loop {
        let next = table.borrow().entries.iter().position(|e| e.dirty);
        let Some(i) = next else { break };
        runs += 1;
        if runs > RUNS_PER_CONTEXT * table.borrow().entries.len().max(1) {
            return Err(InterError::TooManyRuns(runs - 1));
        }
        let func = {
            let mut t = table.borrow_mut();
            t.current = i;
            t.entries[i].dirty = false;
            t.entries[i].func
        };
        let program = program(&mut programs, &callable, func)?;
        let analysis = context_analysis(program, &table, &oracle, i);
        let results = iterate_to_fixpoint(&program.cfg, analysis, options)?;
        let states = results.node_states();
        let value = return_value(callable[func], program, &results, &states);
        table.borrow_mut().returned(i, &value);
    }
    // One more run per context, in its final input, for the report (nothing changes now).
    let count = table.borrow().entries.len();
    let mut contexts = Vec::with_capacity(count);
    for i in 0..count {
        runs += 1;
        let func = {
            let mut t = table.borrow_mut();
            t.current = i;
            t.entries[i].func
        };
        let program = program(&mut programs, &callable, func)?;
        let analysis = context_analysis(program, &table, &oracle, i);
        let results = iterate_to_fixpoint(&program.cfg, analysis, options)?;
        let states = results.node_states();
        let report = finish(program, &results, &states);
        let t = table.borrow();
        let e = &t.entries[i];
        contexts.push(Context {
            function: callable[func].name.clone(),
            call_string: e.call_string.clone(),
            input: e.input.clone(),
            shared: e.shared,
            params: callable[func]
                .params
                .iter()
                .map(|p| p.name.clone())
                .zip(e.args.iter().cloned())
                .collect(),
            returns: e.ret.clone(),
            before: states.into_iter().map(|s| s.before).collect(),
            report,
        });
    }
    let calls = table
        .borrow()
        .calls
        .iter()
        .map(|(from, site, to)| CallEdge {
            from: *from,
            site: site.clone(),
            to: *to,
        })
        .collect();
    let analysed: BTreeSet<usize> = table.borrow().entries.iter().map(|e| e.func).collect();
    let names: BTreeSet<&str> = callable.iter().map(|f| f.name.as_str()).collect();
    let mut unfollowed = BTreeSet::new();
    for &func in &analysed {
        if let Some(Some(p)) = programs.get(func) {
            unfollowed.extend(unfollowed_calls(&callable[func].name, p, &names));
        }
    }
    Ok(Interprocedural {
        entry: entry.to_string(),
        sensitivity,
        contexts,
        calls,
        unfollowed: unfollowed.into_iter().collect(),
        runs,
    })
}

/// The CFG of function `func`, built on first use.
fn program<'p, 'f>(
    programs: &'p mut [Option<Program<'f>>],
    functions: &[&'f Function],
    func: usize,
) -> Result<&'p Program<'f>, InterError> {
    if programs[func].is_none() {
        let f = functions[func];
        programs[func] =
            Some(Program::function(f).map_err(|e| InterError::Cfg(f.name.clone(), e))?);
    }
    Ok(programs[func].as_ref().expect("built above"))
}

/// The intraprocedural analysis of context `i`: its parameters bound, calls answered.
fn context_analysis<'p, D: AbstractDomain>(
    program: &'p Program<'p>,
    table: &Rc<RefCell<Table<D>>>,
    oracle: &Rc<dyn CallOracle<D>>,
    i: usize,
) -> AbsInt<'p, D> {
    let mut a = AbsInt::<D>::new(program);
    a.calls = Some(oracle.clone());
    // The entry's own context keeps the intraprocedural start (`⊤`, 0..1 for `bool`) unless
    // recursion joined more into it, which `⊤` covers anyway.
    if i != 0 {
        a.params_in = Some(table.borrow().entries[i].args.clone());
    }
    a
}

/// What a run of the function returns: the join of its `return` values, `⊤` when it may
/// fall off the end, return without a value, or is a generator; `⊥` when it never returns.
fn return_value<D: AbstractDomain>(
    f: &Function,
    program: &Program<'_>,
    results: &Results<'_, AbsInt<'_, D>>,
    states: &[NodeStates<MaybeReachable<Frame<D>>>],
) -> D {
    if f.is_generator() {
        return D::TOP;
    }
    let cfg = &program.cfg;
    let mut value = D::BOTTOM;
    for n in cfg.nodes() {
        let before = &states[n.index()].before;
        if !before.is_reachable() {
            continue;
        }
        if let Some(Item::Stmt(s)) = program.item(n) {
            match &s.kind {
                StmtKind::Return(Some(e)) => {
                    if let Some(v) = results.analysis.value_of(e, before) {
                        value.join(&v);
                    }
                }
                StmtKind::Return(None) => {
                    value.join(&D::TOP);
                }
                _ => {}
            }
        }
    }
    for e in cfg.graph.edges_directed(cfg.exit, Dir::Incoming) {
        let from = e.source();
        let is_return = matches!(
            program.item(from),
            Some(Item::Stmt(s)) if matches!(s.kind, StmtKind::Return(_))
        );
        if e.weight().is_exception() || *e.weight() == Edge::Return || is_return {
            continue;
        }
        if states[from.index()].after.is_reachable() {
            value.join(&D::TOP);
        }
    }
    value
}

/// The calls in `program` the analysis gives `⊤`: methods, builtins, other names.
pub(super) fn unfollowed_calls(
    caller: &str,
    program: &Program<'_>,
    session: &BTreeSet<&str>,
) -> Vec<Unfollowed> {
    let cfg = &program.cfg;
    let mut out = Vec::new();
    for n in cfg.nodes() {
        for callee in &cfg.node(n).calls {
            if session.contains(callee.as_str()) {
                continue;
            }
            let why = if callee.contains('.') {
                "method or attribute call: result ⊤, not followed"
            } else if builtins::is_builtin(callee) {
                "builtin: result ⊤ (len: ≥ 0)"
            } else {
                "not a session function: result ⊤"
            };
            out.push(Unfollowed {
                caller: caller.to_string(),
                line: cfg.node(n).lines.0,
                callee: callee.clone(),
                why,
            });
        }
    }
    out
}

/// A run in domain `name` (a built-in one), in the domain-independent form views show.
pub struct Shown {
    pub domain: &'static str,
    pub entry: String,
    pub sensitivity: Sensitivity,
    pub contexts: Vec<ShownContext>,
    pub calls: Vec<CallEdge>,
    pub unfollowed: Vec<Unfollowed>,
    pub runs: usize,
}

/// One context as text.
pub struct ShownContext {
    pub function: String,
    pub label: String,
    pub call_string: Vec<String>,
    pub params: Vec<(String, String)>,
    pub returns: String,
    pub report: AbsReport,
}

impl<D: AbstractDomain> Interprocedural<D> {
    pub fn shown(self) -> Shown {
        Shown {
            domain: D::NAME,
            entry: self.entry,
            sensitivity: self.sensitivity,
            contexts: self
                .contexts
                .into_iter()
                .map(|c| ShownContext {
                    function: c.function.clone(),
                    label: c.label(),
                    call_string: c.call_string.iter().map(Site::to_string).collect(),
                    params: c
                        .params
                        .iter()
                        .map(|(n, v)| (n.clone(), v.to_string()))
                        .collect(),
                    returns: c.returns.to_string(),
                    report: c.report,
                })
                .collect(),
            calls: self.calls,
            unfollowed: self.unfollowed,
            runs: self.runs,
        }
    }
}

/// The built-in domains this runs in.
pub const DOMAINS: &[&str] = &["zero", "sign", "constant", "interval", "parity"];

/// Runs the analysis in the built-in domain `domain` (`None` for another name).
pub fn run_named(
    domain: &str,
    functions: &[&Function],
    entry: &str,
    sensitivity: Sensitivity,
    options: &Options<'_>,
) -> Option<Result<Shown, InterError>> {
    fn go<D: AbstractDomain>(
        functions: &[&Function],
        entry: &str,
        sensitivity: Sensitivity,
        options: &Options<'_>,
    ) -> Result<Shown, InterError> {
        analyze::<D>(functions, entry, sensitivity, options).map(Interprocedural::shown)
    }
    Some(match domain {
        "zero" => go::<Zero>(functions, entry, sensitivity, options),
        "sign" => go::<Sign>(functions, entry, sensitivity, options),
        "constant" => go::<Constant>(functions, entry, sensitivity, options),
        "interval" => go::<Interval>(functions, entry, sensitivity, options),
        "parity" => go::<Parity>(functions, entry, sensitivity, options),
        _ => return None,
    })
}
