//! The whole analysis of one function: preconditions, the feasibility of every edge (at
//! most one query each over the path encoding), the paths listed up to a limit with their
//! constraints and witnesses, and the redundant or impossible conditions; where the time
//! went (`Stats`).

use num_bigint::BigUint;
use petgraph::graph::NodeIndex;

use super::dag::{Dag, EdgeId};
use super::docstring;
use super::encode::Merge;
use super::feasibility::Feasible;
use super::fresh_solver;
use super::listing::Listing;
use super::paths::{self, PathReport};
use super::precise::Precise;
use super::pyta::Pyta;
use super::semantics::{self, Constraint, Dropped, Kind, Names, Semantics, env_of};
use super::smt::Scripts;
use super::stats::{Stats, timed};
use crate::cancel::{Cancel, Stopped};
use crate::cfg::{Cfg, CfgError, Edge, NodeKind, function_cfg};
use crate::python::PyValue;
use crate::python::ir::{Function, StmtKind};
use crate::symbolic::negate::negate;
use crate::symbolic::{Solver, Sort, translate_condition};
use std::collections::HashMap;
use std::time::Instant;

/// How constraints are kept when a variable is reassigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// SSA versions (`x_1 == x - 5`): nothing is lost.
    Precise,
    /// PythonTA's rule: drop every constraint that mentions a reassigned parameter.
    Pyta,
}

/// What to compute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// Paths listed at most.
    pub path_limit: usize,
    /// Z3 timeout per query.
    pub timeout_ms: u32,
    /// Parameter types given as `ARG:TYPE`: they take the place of annotations and inference.
    pub given: Vec<(String, Sort)>,
}

/// Why there is no analysis.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintsError {
    #[error("{0}")]
    Cfg(#[from] CfgError),
    #[error("interrupted by the user")]
    Stopped(#[from] Stopped),
    /// A dict or set parameter's model could not be stated (a bug, not the user's input).
    #[error("the model of a dict or set parameter: {0}")]
    Mapping(String),
}

/// A precondition that could not be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignored {
    pub text: String,
    pub reason: String,
}

/// A precondition as written and as constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct Precondition {
    pub text: String,
    pub constraints: Vec<Constraint>,
}

/// One CFG edge's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeReport {
    pub id: EdgeId,
    pub source: NodeIndex,
    pub target: NodeIndex,
    pub kind: Edge,
    pub back: bool,
    pub feasible: Feasible,
    /// The listed paths that take this edge.
    pub paths: Vec<usize>,
    /// What the edge itself adds: SSA definitions of its source, its branch condition,
    /// "no exception".
    pub adds: Vec<Constraint>,
    /// The edge's conditions that have no translation.
    pub dropped: Vec<Dropped>,
    /// The inputs of the run that showed the edge feasible where the solver could not
    /// (see [`super::observed`]).
    pub run: Option<Vec<(String, crate::python::PyValue)>>,
}

/// PythonTA's R9900/R9901 for an `if`/`elif`/`while` test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Always true where it is reached (R9900, redundant-condition).
    Redundant,
    /// Always false where it is reached (R9901, impossible-condition).
    Impossible,
    /// Never reached.
    Unreachable,
    /// Its evaluation always raises.
    AlwaysRaises,
    /// Can be true and can be false.
    Neither,
    /// Not decided, and why.
    Unknown(String),
    /// The test has no translation, and why.
    Untranslated(String),
}

/// A condition and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionReport {
    pub node: NodeIndex,
    pub line: u32,
    /// The test, as written.
    pub test: String,
    pub verdict: Verdict,
}

/// The analysis of one function.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub cfg: Cfg,
    pub dag: Dag,
    pub mode: Mode,
    /// The parameters with a modelled type, in order.
    pub parameters: Vec<(String, Sort)>,
    /// Of those, the ones that may be `None` too (`Optional[T]`, `x=None`).
    pub optional_parameters: Vec<String>,
    /// The dict and set parameters (sequences of keys and values), with their types.
    pub mapping_parameters: Vec<(String, String)>,
    /// The other parameters, with the reason.
    pub unsupported_parameters: Vec<(String, String)>,
    /// The parameters without annotation whose sort was inferred (precise mode), and from
    /// what.
    pub inferred_parameters: Vec<(String, String)>,
    /// The parameters whose type was given as `ARG:TYPE`, with the type as given.
    pub given_parameters: Vec<(String, String)>,
    /// What the model assumes of this function's inputs (strings taken to be ASCII, types
    /// guessed).
    pub notes: Vec<String>,
    pub preconditions: Vec<Precondition>,
    pub ignored_preconditions: Vec<Ignored>,
    pub paths: Vec<PathReport>,
    /// How many paths there are in all.
    pub path_count: BigUint,
    /// The path limit stopped the listing.
    pub truncated: bool,
    pub edges: Vec<EdgeReport>,
    /// For each node: can it be reached (from its incoming edges' verdicts).
    pub nodes: Vec<Feasible>,
    pub conditions: Vec<ConditionReport>,
    /// The φ-variables where paths meet (precise mode).
    pub merges: Vec<Merge>,
    /// Where the time went.
    pub stats: Stats,
}

impl Analysis {
    /// The SMT-LIB script of each listed path, in order: declarations, then one
    /// `(assert …)` per constraint. Printed when asked for (Z3 prints each term, once
    /// however many paths share it), so that only the views showing it pay for it.
    pub fn smtlib_scripts(&self) -> Vec<String> {
        let mut scripts = Scripts::default();
        self.paths
            .iter()
            .map(|p| paths::smtlib(&mut scripts, &p.constraints))
            .collect()
    }
}

/// What the solver decides for a function: edge verdicts with each edge's own constraints,
/// the φ-variables, the listed paths, and PythonTA's condition verdicts (`--pyta`).
struct Decided {
    verdicts: Vec<Feasible>,
    adds: Vec<(Vec<Constraint>, Vec<Dropped>)>,
    merges: Vec<Merge>,
    paths: Vec<PathReport>,
    truncated: bool,
    pyta_conditions: HashMap<NodeIndex, Verdict>,
}

/// Analyses function `f`.
pub fn analyze(
    f: &Function,
    options: &Options,
    cancel: &Cancel,
) -> Result<Analysis, ConstraintsError> {
    let started = Instant::now();
    let mut stats = Stats::default();
    let (cfg, dag) = timed(&mut stats.cfg, || {
        let cfg = function_cfg(f)?;
        let dag = Dag::new(&cfg);
        Ok::<_, CfgError>((cfg, dag))
    })?;
    let semantics_started = Instant::now();
    let sem = Semantics::new(&cfg, f);
    let semantics::Inputs {
        names: inputs,
        sorts: parameters,
        mappings: mapping_parameters,
        optional: optional_parameters,
        skipped: unsupported_parameters,
        inferred: inferred_parameters,
        guessed,
        given: given_parameters,
    } = semantics::inputs(f, options.mode == Mode::Precise, &options.given);
    let (preconditions, ignored_preconditions) = read_preconditions(f, &inputs);
    // What every dict and set parameter is (distinct keys), then the docstring's.
    let mut pre: Vec<Constraint> = match super::dicts::axioms(&inputs) {
        Ok(axioms) => axioms
            .into_iter()
            .map(|term| Constraint {
                term,
                kind: semantics::Kind::Internal,
            })
            .collect(),
        Err(e) => return Err(ConstraintsError::Mapping(e.0)),
    };
    pre.extend(preconditions.iter().flat_map(|p| p.constraints.clone()));
    stats.semantics = semantics_started.elapsed();
    let work = Work {
        dag: &dag,
        sem: &sem,
        inputs: &inputs,
        parameters: &parameters,
        pre: &pre,
        options,
        cancel,
    };
    let mut decided = match options.mode {
        Mode::Precise => work.precise(&mut stats),
        Mode::Pyta => fresh_solver::with_solver_counted(
            options.timeout_ms,
            cancel,
            &mut stats,
            |solver, stats| work.pyta(solver, stats),
        ),
    }?;
    for p in &mut decided.paths {
        if let Some(w) = &mut p.witness {
            in_parameter_order(w, f);
        }
    }
    let mut paths_of: Vec<Vec<usize>> = vec![Vec::new(); dag.edges.len()];
    for p in &decided.paths {
        for &e in &p.edges {
            if let Some(ids) = paths_of.get_mut(e)
                && ids.last() != Some(&p.id)
            {
                ids.push(p.id);
            }
        }
    }
    let edges: Vec<EdgeReport> = dag
        .edges
        .iter()
        .enumerate()
        .zip(paths_of)
        .map(|((id, e), paths)| EdgeReport {
            id,
            source: e.source,
            target: e.target,
            kind: e.kind.clone(),
            back: e.back,
            feasible: decided.verdicts[id].clone(),
            paths,
            adds: decided.adds[id].0.clone(),
            dropped: decided.adds[id].1.clone(),
            run: None,
        })
        .collect();
    let nodes = node_verdicts(&dag, &edges);
    let mut conditions = condition_verdicts(&cfg, &sem, &dag, &edges, &nodes);
    for c in &mut conditions {
        if let Some(v) = decided.pyta_conditions.get(&c.node) {
            c.verdict = v.clone();
        }
    }
    Ok(Analysis {
        path_count: dag.count_paths(),
        cfg,
        dag,
        mode: options.mode,
        parameters,
        optional_parameters,
        mapping_parameters,
        unsupported_parameters,
        inferred_parameters,
        given_parameters,
        notes: input_notes(f, &guessed),
        preconditions,
        ignored_preconditions,
        paths: decided.paths,
        truncated: decided.truncated,
        edges,
        nodes,
        conditions,
        merges: decided.merges,
        stats: Stats {
            total: started.elapsed(),
            ..stats
        },
    })
}

/// Orders a witness as `f`'s parameters are (scalars are read before dicts and sets).
fn in_parameter_order(witness: &mut [(String, PyValue)], f: &Function) {
    witness.sort_by_key(|(name, _)| f.params.iter().position(|p| &p.name == name));
}

/// The parts of one analysis the solver work reads.
struct Work<'a> {
    dag: &'a Dag,
    sem: &'a Semantics<'a>,
    inputs: &'a Names,
    parameters: &'a [(String, Sort)],
    pre: &'a [Constraint],
    options: &'a Options,
    cancel: &'a Cancel,
}

impl Work<'_> {
    /// SSA semantics (see `precise`).
    fn precise(&self, stats: &mut Stats) -> Result<Decided, ConstraintsError> {
        let precise = Precise {
            dag: self.dag,
            sem: self.sem,
            inputs: self.inputs,
            pre: self.pre,
            options: self.options,
            cancel: self.cancel,
        };
        let enc = precise.encoding(stats);
        let listing = self.listing(false);
        let mut steps = paths::Precise::new(self.dag, self.sem, self.inputs, self.pre, &enc);
        let (pending, truncated) = listing.gather(
            self.options.path_limit,
            |path| steps.constraints(path),
            stats,
        )?;
        let d = precise.decide(enc, &listing, pending, stats)?;
        Ok(Decided {
            verdicts: d.verdicts,
            adds: d.adds,
            merges: d.merges,
            paths: d.paths,
            truncated,
            pyta_conditions: HashMap::new(),
        })
    }

    /// How paths are listed and decided.
    fn listing(&self, lenient: bool) -> Listing<'_> {
        Listing {
            dag: self.dag,
            params: self.parameters,
            inputs: self.inputs,
            lenient,
            pre_len: (!lenient).then_some(self.pre.len()),
            assertable: Default::default(),
            cancel: self.cancel,
        }
    }

    /// PythonTA's rules: nothing in the base scope (its constraints come and go).
    fn pyta(&self, solver: &mut Solver, stats: &mut Stats) -> Result<Decided, ConstraintsError> {
        let dag = self.dag;
        let checks = solver.usage().checks;
        let pyta = timed(&mut stats.encoding, || {
            Pyta::new(self.sem.cfg(), dag, self.sem, self.inputs, self.pre)
        });
        solver.push();
        // Encoding time without the lowering it asks of the solver (counted there).
        let (started, lowering) = (Instant::now(), solver.usage().lowering);
        let encoded = pyta.encode(dag, solver);
        stats.encoding += started
            .elapsed()
            .saturating_sub(solver.usage().lowering - lowering);
        let verdicts = pyta.edges(dag, &encoded, solver, self.cancel)?;
        let mut pyta_conditions = HashMap::new();
        for n in dag.order.iter().copied() {
            let test = match self.sem.stmt(n).map(|s| &s.kind) {
                Some(StmtKind::If { test, .. } | StmtKind::While { test, .. })
                    if self.sem.cfg().node(n).kind == NodeKind::Condition =>
                {
                    test
                }
                _ => continue,
            };
            let v = pyta.condition(dag, &encoded, solver, n, test, self.inputs, self.cancel)?;
            pyta_conditions.insert(n, v);
        }
        let _ = solver.pop();
        stats.edge_checks += solver.usage().checks - checks;
        let adds = pyta
            .adds
            .iter()
            .zip(&pyta.dropped)
            .map(|(ids, dropped)| {
                let own = ids
                    .iter()
                    .map(|&c| pyta.pool[c].constraint.clone())
                    .collect();
                (own, dropped.clone())
            })
            .collect();
        let listing = self.listing(true);
        let (pending, truncated) = listing.gather(
            self.options.path_limit,
            |path| paths::pyta(dag, &pyta, path),
            stats,
        )?;
        let paths = listing.decide(Some(solver), pending, &[], stats)?;
        Ok(Decided {
            verdicts,
            adds,
            merges: Vec::new(),
            paths,
            truncated,
            pyta_conditions,
        })
    }
}

/// What the verdicts assume of `f`'s inputs beyond their annotations: the string model's
/// limits (`chars::model_notes`), and the types guessed for parameters nothing in `f` types.
fn input_notes(f: &Function, guessed: &[String]) -> Vec<String> {
    let mut notes = crate::symbolic::chars::model_notes(f);
    if !guessed.is_empty() {
        notes.push(format!(
            "the verdicts hold for {}, the default guess (nothing in the function tells the type; give ARG:TYPE to override)",
            guessed.join(", ")
        ));
    }
    notes
}

/// The docstring's preconditions, translated over the parameters; the others with reasons.
fn read_preconditions(f: &Function, inputs: &Names) -> (Vec<Precondition>, Vec<Ignored>) {
    let mut used = Vec::new();
    let mut ignored = Vec::new();
    let env = env_of(inputs);
    for w in docstring::preconditions(f.docstring.as_deref().unwrap_or("")) {
        let built = w.expr.and_then(|e| {
            let t = translate_condition(&e, &env).map_err(|e| e.to_string())?;
            let any = t.raises_any().map_err(|e| e.0)?;
            let mut constraints = Vec::new();
            if any.bool_literal() != Some(false) {
                let safe = negate(&any).map_err(|e| e.0)?;
                constraints.push(Constraint {
                    term: safe,
                    kind: Kind::NoException,
                });
            }
            constraints.push(Constraint {
                term: t.value,
                kind: Kind::Precondition,
            });
            Ok(constraints)
        });
        match built {
            Ok(constraints) => used.push(Precondition {
                text: w.text,
                constraints,
            }),
            Err(reason) => ignored.push(Ignored {
                text: w.text,
                reason,
            }),
        }
    }
    (used, ignored)
}

/// A node can be reached when one of its incoming edges can be taken.
pub(super) fn node_verdicts(dag: &Dag, edges: &[EdgeReport]) -> Vec<Feasible> {
    let mut out = vec![Feasible::No; dag.out.len()];
    if dag.reachable[dag.entry.index()] {
        out[dag.entry.index()] = Feasible::Yes;
    }
    for e in edges {
        let slot = &mut out[e.target.index()];
        *slot = match (&*slot, &e.feasible) {
            (Feasible::Yes, _) | (_, Feasible::Yes) => Feasible::Yes,
            (Feasible::Unknown(r), _) | (_, Feasible::Unknown(r)) => Feasible::Unknown(r.clone()),
            _ => Feasible::No,
        };
    }
    out
}

/// The verdict of every `if`/`elif`/`while` test, from its True and False edges.
fn condition_verdicts(
    cfg: &Cfg,
    sem: &Semantics<'_>,
    dag: &Dag,
    edges: &[EdgeReport],
    nodes: &[Feasible],
) -> Vec<ConditionReport> {
    let mut out = Vec::new();
    for n in cfg.nodes() {
        let Some(s) = sem.stmt(n) else { continue };
        let (StmtKind::If { test, .. } | StmtKind::While { test, .. }) = &s.kind else {
            continue;
        };
        if cfg.node(n).kind != NodeKind::Condition {
            continue;
        }
        let branch = |want: Edge| {
            dag.out[n.index()]
                .iter()
                .find(|&&e| dag.edges[e].kind == want)
                .map(|&e| &edges[e])
        };
        let (Some(yes), Some(no)) = (branch(Edge::True), branch(Edge::False)) else {
            continue;
        };
        let untranslated = yes.dropped.first().map(|d| d.reason.clone());
        let verdict = match (&nodes[n.index()], &yes.feasible, &no.feasible) {
            (Feasible::No, _, _) => Verdict::Unreachable,
            _ if let Some(reason) = untranslated => Verdict::Untranslated(reason),
            (_, Feasible::No, Feasible::No) => Verdict::AlwaysRaises,
            (_, Feasible::No, _) => Verdict::Impossible,
            (_, _, Feasible::No) => Verdict::Redundant,
            (_, Feasible::Yes, Feasible::Yes) => Verdict::Neither,
            (_, Feasible::Unknown(r), _) | (_, _, Feasible::Unknown(r)) => {
                Verdict::Unknown(r.clone())
            }
        };
        out.push(ConditionReport {
            node: n,
            line: s.span.line,
            test: test.to_string(),
            verdict,
        });
    }
    out
}
