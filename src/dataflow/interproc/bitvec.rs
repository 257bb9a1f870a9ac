//! `%dataflow live|reaching NAME --interprocedural`: live variables and reaching definitions
//! across calls of the session's functions (by name), context-insensitive (one result per
//! function, the join over its call sites), with the parameters bound per call site.
//!
//! The model, for Python's scopes (a callee cannot touch its caller's locals; it reads and,
//! with `global x`, writes module globals):
//! - **Reaching definitions.** Facts are definitions: `x@L3` (a local of the function shown),
//!   `x@f:L3` (global `x` defined in `f`), `x@module` (the global's value from before NAME is
//!   called), `a@L1` (a parameter of NAME from its outside caller) and `a←g:L5` (parameter `a`
//!   bound by the call on line 5 of `g`). A function's entry receives the global definitions
//!   reaching each of its call sites and its parameters' call-site definitions; after a call
//!   node, the global definitions reaching the callee's exit replace those before it when the
//!   call surely runs ([`super::scene::surely_calls`]), else join them (`a and f()`), then
//!   the node's own definitions kill.
//! - **Live variables.** Facts are uses: `x@L5` (a local), `x@f:L5` (global `x` read in `f`),
//!   `x@after` (every global may be read after NAME returns). Before a call node, the globals
//!   live at the callee's entry are live (replacing those live after it when the call surely
//!   runs); at a callee's exit, the globals live just after each of its call sites (and
//!   `x@after` for NAME).
//!
//! Each function is analysed by the intraprocedural engine; an outer worklist reruns a
//! function when its entry (exit, backward) facts or a callee's summary grow, until nothing
//! changes (the sets are finite, the steps monotone). Calls of methods, builtins and other
//! names are not followed and assumed not to touch the tracked globals; they are listed.

use std::ops::Range;

use petgraph::graph::NodeIndex;

use super::facts::{At, Fact, Facts, Scope};
use super::scene::Scene;
use super::{InterError, RUNS_PER_CONTEXT, Unfollowed};
use crate::cfg::{Edge, NodeKind};
use crate::dataflow::analyses::{FactReport, Program};
use crate::dataflow::bitset::BitSet;
use crate::dataflow::engine::{Analysis, Direction, Options, iterate_to_fixpoint};
use crate::dataflow::report::{Report, Source};

/// Which analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Live,
    Reaching,
}

impl Which {
    /// `live`/`liveness`/`live-variables`, `reaching`/`reaching-definitions`.
    pub fn named(name: &str) -> Option<Which> {
        match name {
            "live" | "liveness" | "live-variables" => Some(Which::Live),
            "reaching" | "reaching-definitions" => Some(Which::Reaching),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Which::Live => "live",
            Which::Reaching => "reaching",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Which::Live => "interprocedural live variables",
            Which::Reaching => "interprocedural reaching definitions",
        }
    }

    pub fn legend(self) -> &'static str {
        match self {
            Which::Live => {
                "x@L5: use of local x at line 5; x@f:L5: use of global x in f; x@after: global x may be read after the entry function returns. A call makes the globals live at the callee's entry live before it."
            }
            Which::Reaching => {
                "x@L3: definition of local x at line 3; x@f:L3: global x defined in f; x@module: the global's value before the entry function is called; a@L1: the entry's parameter; a←g:L5: parameter a bound by the call on line 5 of g. After a call, the globals defined in the callee reach."
            }
        }
    }
}

/// One function's result.
pub struct FunctionFacts {
    pub name: String,
    /// Per node, by index: the facts before and after its statement (program order).
    pub before: Vec<BitSet>,
    pub after: Vec<BitSet>,
    /// At the boundary: the entry's IN (reaching) or the exit's OUT (live).
    pub boundary: BitSet,
    pub report: FactReport,
}

/// A call between functions, by line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Call {
    pub caller: String,
    pub line: u32,
    pub callee: String,
}

/// The whole result.
pub struct BitvecResult<'f> {
    pub which: Which,
    pub entry: String,
    pub globals: Vec<String>,
    pub facts: Facts,
    /// The entry first, then in the order calls reach them.
    pub functions: Vec<FunctionFacts>,
    pub programs: Vec<Program<'f>>,
    pub calls: Vec<Call>,
    pub unfollowed: Vec<Unfollowed>,
    /// Intraprocedural runs, the final ones included.
    pub runs: usize,
}

impl BitvecResult<'_> {
    /// The function's index by name.
    pub fn function(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }

    /// The facts of `set` (for tests and views).
    pub fn members<'s>(&'s self, set: &'s BitSet) -> impl Iterator<Item = &'s Fact> + 's {
        self.facts.universe.members(set)
    }
}

/// Per node: what it does to the facts.
#[derive(Clone, Default)]
struct NodeEffect {
    gens: Vec<usize>,
    kills: Vec<Range<usize>>,
    branch_gens: Vec<usize>,
    branch_kills: Vec<Range<usize>>,
}

/// Function `f`'s analysis with the summaries of its callees fixed.
struct Local<'a> {
    facts: &'a Facts,
    effects: &'a [NodeEffect],
    /// Per node: the callees' summaries joined (global facts only), for call nodes, and
    /// whether the calls surely run (then the summary replaces the globals' facts).
    calls: Vec<Option<(BitSet, bool)>>,
    boundary: BitSet,
}

impl Local<'_> {
    fn apply(&self, n: usize, state: &mut BitSet, forward: bool) {
        let e = &self.effects[n];
        let call = |state: &mut BitSet| {
            if let Some((c, sure)) = &self.calls[n] {
                if *sure {
                    state.subtract(&self.facts.globals);
                }
                state.union(c);
            }
        };
        if forward {
            call(state);
        }
        for r in &e.kills {
            state.remove_range(r.clone());
        }
        if !forward {
            call(state);
        }
        for &i in &e.gens {
            state.insert(i);
        }
    }

    fn branch(&self, source: NodeIndex, edge: &Edge, state: &BitSet) -> Option<BitSet> {
        let e = &self.effects[source.index()];
        if *edge != Edge::True || (e.branch_gens.is_empty() && e.branch_kills.is_empty()) {
            return None;
        }
        let mut out = state.clone();
        for r in &e.branch_kills {
            out.remove_range(r.clone());
        }
        for &i in &e.branch_gens {
            out.insert(i);
        }
        Some(out)
    }
}

struct Forward<'a>(Local<'a>);
struct Backward<'a>(Local<'a>);

impl Analysis for Forward<'_> {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Forward;
    fn bottom(&self) -> BitSet {
        self.0.facts.empty()
    }
    fn boundary(&self) -> BitSet {
        self.0.boundary.clone()
    }
    fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
        self.0.apply(node.index(), state, true);
    }
    fn edge_effect(&self, s: NodeIndex, e: &Edge, _: NodeIndex, st: &BitSet) -> Option<BitSet> {
        self.0.branch(s, e, st)
    }
}

impl Analysis for Backward<'_> {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Backward;
    fn bottom(&self) -> BitSet {
        self.0.facts.empty()
    }
    fn boundary(&self) -> BitSet {
        self.0.boundary.clone()
    }
    fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
        self.0.apply(node.index(), state, false);
    }
    fn edge_effect(&self, s: NodeIndex, e: &Edge, _: NodeIndex, st: &BitSet) -> Option<BitSet> {
        // Backward, a `for` target bound on the True edge kills its uses; nothing is generated.
        let effect = &self.0.effects[s.index()];
        if *e != Edge::True || effect.branch_kills.is_empty() {
            return None;
        }
        let mut out = st.clone();
        for r in &effect.branch_kills {
            out.remove_range(r.clone());
        }
        Some(out)
    }
}

/// The facts of `which` over `scene`, and each node's effect per function.
fn build(which: Which, scene: &Scene<'_>) -> (Facts, Vec<Vec<NodeEffect>>) {
    let mut all: Vec<Fact> = Vec::new();
    let fact = |scope: Scope, var: &str, at: At| Fact {
        scope,
        var: var.to_string(),
        at,
    };
    for g in &scene.globals {
        all.push(fact(
            Scope::Global,
            g,
            if which == Which::Reaching {
                At::Module
            } else {
                At::After
            },
        ));
    }
    let stmt = |f: usize, p: &Program<'_>, n: NodeIndex| At::Stmt {
        func: scene.names[f].clone(),
        line: p.line(n),
        node: n.index() as u32,
    };
    // Per function and node: (gens, kills, branch gens, branch kills) as facts and scopes.
    type Raw = (
        Vec<Fact>,
        Vec<(Scope, String)>,
        Vec<Fact>,
        Vec<(Scope, String)>,
    );
    let mut raw: Vec<Vec<Raw>> = Vec::new();
    for (f, p) in scene.programs.iter().enumerate() {
        let mut per = Vec::new();
        for n in p.cfg.nodes() {
            let info = p.info(n);
            let scoped = |vars: &[String]| -> Vec<(Scope, String)> {
                vars.iter()
                    .filter_map(|v| Some((scene.scope(f, v)?, v.clone())))
                    .collect()
            };
            let mut r: Raw = Default::default();
            if p.cfg.node(n).kind == NodeKind::Entry {
                if which == Which::Reaching && f == 0 {
                    for param in p.params {
                        let scope = Scope::Local(scene.names[f].clone());
                        r.0.push(fact(scope, &param.name, At::Entry { line: p.def_line }));
                    }
                }
                per.push(r);
                continue;
            }
            r.1 = scoped(&info.defs);
            r.1.extend(scoped(&info.deletes));
            r.3 = scoped(&info.branch_defs);
            match which {
                Which::Reaching => {
                    r.0 = r.1[..scoped(&info.defs).len()]
                        .iter()
                        .map(|(s, v)| fact(s.clone(), v, stmt(f, p, n)))
                        .collect();
                    r.2 =
                        r.3.iter()
                            .map(|(s, v)| fact(s.clone(), v, stmt(f, p, n)))
                            .collect();
                }
                Which::Live => {
                    r.0 = scoped(&info.uses)
                        .into_iter()
                        .map(|(s, v)| fact(s, &v, stmt(f, p, n)))
                        .collect();
                }
            }
            per.push(r);
        }
        raw.push(per);
    }
    if which == Which::Reaching {
        // The parameters bound at each call site.
        for (g, nodes) in scene.call_nodes.iter().enumerate() {
            let p = &scene.programs[g];
            for (n, callees, _) in nodes {
                for &c in callees {
                    for param in scene.programs[c].params {
                        all.push(fact(
                            Scope::Local(scene.names[c].clone()),
                            &param.name,
                            At::Call {
                                caller: scene.names[g].clone(),
                                line: p.line(*n),
                                node: n.index() as u32,
                            },
                        ));
                    }
                }
            }
        }
    }
    for per in &raw {
        for r in per {
            all.extend(r.0.iter().cloned());
            all.extend(r.2.iter().cloned());
        }
    }
    let facts = Facts::new(all);
    let index = |f: &Fact| facts.index(f).expect("every fact is numbered");
    let ranges = |vars: &[(Scope, String)]| -> Vec<Range<usize>> {
        vars.iter()
            .map(|(s, v)| facts.range(s, v))
            .filter(|r| !r.is_empty())
            .collect()
    };
    let effects = raw
        .iter()
        .map(|per| {
            per.iter()
                .map(|r| NodeEffect {
                    gens: r.0.iter().map(index).collect(),
                    kills: ranges(&r.1),
                    branch_gens: r.2.iter().map(index).collect(),
                    branch_kills: ranges(&r.3),
                })
                .collect()
        })
        .collect();
    (facts, effects)
}

/// Runs `which` from `entry` over the session's `functions`.
pub fn analyze<'f>(
    which: Which,
    functions: &[&'f crate::python::ir::Function],
    entry: &str,
    options: &Options<'_>,
) -> Result<BitvecResult<'f>, InterError> {
    let scene = Scene::new(functions, entry)?;
    let (facts, effects) = build(which, &scene);
    let count = scene.programs.len();
    // Reaching: each function's entry IN and exit summary (globals reaching its exit).
    // Live: each function's exit OUT and entry summary (globals live at its entry).
    let mut boundary: Vec<BitSet> = vec![facts.empty(); count];
    let mut summary: Vec<BitSet> = vec![facts.empty(); count];
    for g in &scene.globals {
        let at = match which {
            Which::Reaching => At::Module,
            Which::Live => At::After,
        };
        let f = Fact {
            scope: Scope::Global,
            var: g.clone(),
            at,
        };
        if let Some(i) = facts.index(&f) {
            boundary[0].insert(i);
        }
    }
    let mut dirty = vec![true; count];
    let mut runs = 0;
    // Round robin in call order (callers mostly first), so that a caller waits for a sweep
    // over its callees before it runs again.
    let mut cursor = 0;
    let next = |dirty: &[bool], cursor: usize| {
        (0..count).map(|i| (cursor + i) % count).find(|&f| dirty[f])
    };
    while let Some(f) = next(&dirty, cursor) {
        cursor = f + 1;
        dirty[f] = false;
        runs += 1;
        if runs > RUNS_PER_CONTEXT * count {
            return Err(InterError::TooManyRuns(runs - 1));
        }
        let (states, _) = run_one(
            which, &scene, &facts, &effects, f, &boundary, &summary, options,
        )?;
        let p = &scene.programs[f];
        // This function's summary.
        let new_summary = match which {
            Which::Reaching => facts.global_part(&states[p.cfg.exit.index()].0),
            Which::Live => facts.global_part(&states[p.cfg.entry.index()].0),
        };
        if new_summary != summary[f] {
            summary[f] = new_summary;
            for (caller, _) in scene.callers(f) {
                dirty[caller] = true;
            }
        }
        // What flows into each callee's boundary from this function's call nodes.
        for (n, callees, _) in &scene.call_nodes[f] {
            let (before, after) = &states[n.index()];
            for (k, &c) in callees.iter().enumerate() {
                let mut flow = match which {
                    Which::Reaching => before.clone(),
                    Which::Live => {
                        // Just after the call returns: what is live after the node, less
                        // what it binds, plus its own uses (some may follow the call).
                        let mut s = after.clone();
                        let e = &effects[f][n.index()];
                        for r in &e.kills {
                            s.remove_range(r.clone());
                        }
                        for &i in &e.gens {
                            s.insert(i);
                        }
                        s
                    }
                };
                for (j, &other) in callees.iter().enumerate() {
                    if j != k {
                        flow.union(&summary[other]);
                    }
                }
                let mut flow = facts.global_part(&flow);
                if which == Which::Reaching {
                    for param in scene.programs[c].params {
                        let fact = Fact {
                            scope: Scope::Local(scene.names[c].clone()),
                            var: param.name.clone(),
                            at: At::Call {
                                caller: scene.names[f].clone(),
                                line: p.line(*n),
                                node: n.index() as u32,
                            },
                        };
                        if let Some(i) = facts.index(&fact) {
                            flow.insert(i);
                        }
                    }
                }
                if boundary[c].union(&flow) {
                    dirty[c] = true;
                }
            }
        }
    }
    // The final runs, for the report.
    let mut out = Vec::with_capacity(count);
    for f in 0..count {
        runs += 1;
        let (states, report) = run_one(
            which, &scene, &facts, &effects, f, &boundary, &summary, options,
        )?;
        let (before, after) = states.into_iter().unzip();
        out.push(FunctionFacts {
            name: scene.names[f].clone(),
            before,
            after,
            boundary: boundary[f].clone(),
            report,
        });
    }
    let mut calls = Vec::new();
    for (f, nodes) in scene.call_nodes.iter().enumerate() {
        for (n, callees, _) in nodes {
            for &c in callees {
                calls.push(Call {
                    caller: scene.names[f].clone(),
                    line: scene.programs[f].line(*n),
                    callee: scene.names[c].clone(),
                });
            }
        }
    }
    calls.sort();
    calls.dedup();
    Ok(BitvecResult {
        which,
        entry: entry.to_string(),
        globals: scene.globals.iter().cloned().collect(),
        facts,
        functions: out,
        programs: scene.programs,
        calls,
        unfollowed: scene.unfollowed,
        runs,
    })
}

type States = Vec<(BitSet, BitSet)>;

/// One intraprocedural run of function `f` with the current boundaries and summaries.
#[allow(clippy::too_many_arguments)]
fn run_one(
    which: Which,
    scene: &Scene<'_>,
    facts: &Facts,
    effects: &[Vec<NodeEffect>],
    f: usize,
    boundary: &[BitSet],
    summary: &[BitSet],
    options: &Options<'_>,
) -> Result<(States, FactReport), InterError> {
    let p = &scene.programs[f];
    let mut calls: Vec<Option<(BitSet, bool)>> = vec![None; p.cfg.graph.node_count()];
    for (n, callees, sure) in &scene.call_nodes[f] {
        let mut s = facts.empty();
        for &c in callees {
            s.union(&summary[c]);
        }
        calls[n.index()] = Some((s, *sure));
    }
    let local = Local {
        facts,
        effects: &effects[f],
        calls,
        boundary: boundary[f].clone(),
    };
    let source = Source::Dataflow {
        title: which.title(),
        legend: which.legend(),
        quantifier: "may",
    };
    let show = |s: &BitSet| facts.labels_of(s);
    Ok(match which {
        Which::Reaching => {
            let r = iterate_to_fixpoint(&p.cfg, Forward(local), options)?;
            let states = r.node_states();
            let report = Report::new(which.name(), source, p, &r, &states, show);
            (
                states.into_iter().map(|s| (s.before, s.after)).collect(),
                report,
            )
        }
        Which::Live => {
            let r = iterate_to_fixpoint(&p.cfg, Backward(local), options)?;
            let states = r.node_states();
            let report = Report::new(which.name(), source, p, &r, &states, show);
            // Program order: `before` is IN (live before the statement), as intraprocedurally.
            (
                states.into_iter().map(|s| (s.before, s.after)).collect(),
                report,
            )
        }
    })
}
