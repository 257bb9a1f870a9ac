//! `%concolic F [ARGS]`: concolic testing in rounds (the symbolic-execution book's concolic
//! chapter, fuzzingbook's ConcolicFuzzer). Each round runs F on its input twice over: in
//! the kernel's interpreter with line tracing (the path CPython takes, drawn on the CFG)
//! and in `%set`'s symbolic interpreter following that input ([`concolic::follow`]), which
//! gives the path condition as a sequence of forks over the symbolic inputs. The two must
//! agree line for line; forks past a disagreement, a havoc or an undecided condition are not
//! negated. Then one fork of a run so far is negated, in a stated order — the newest run
//! first, its deepest fork first, only towards a branch no run has covered yet — and Z3
//! solves preconditions ∧ the run's prefix ∧ the other alternative for the next input.
//! Unsat attempts are recorded (a branch whose every attempt is unsat is infeasible),
//! unknown ones too. It stops when no uncovered branch is left to try, or at the budget
//! (`--rounds`, `%config solver_budget_ms`).

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::run::{activations, constraints_path, traced_call};
use super::{Figure, figure};
use crate::cfg::{Cfg, NodeKind, Walk, function_cfg};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, Output, SaveFile, SavePath, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::python::PyValue;
use crate::render::html::{escape, table, text_table};
use crate::render::run::{legend_html, run_dot};
use crate::symbolic::Term;
use crate::symexec::concolic::{self, Followed, Solved, Stop};
use crate::symexec::{Program, SymexecError};

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "--rounds",
    values: 1,
    help: "the budget: runs at most (default 20)",
}];

pub const USAGE: &str = "%concolic F [ARGS...] [--rounds N] [--save tests.py]";

pub const SUMMARY: &str =
    "concolic testing: run, collect the path condition, negate a branch, solve, repeat";

pub const HELP: &str = "Starts from F(ARGS) (the arguments as Python expressions separated by \
spaces, or one call `F(a, b)`; none: zeros, False, empty strings and sequences) and runs in \
rounds. Each round runs its input concretely (the kernel's interpreter, line traced: the path \
CPython takes) and follows the same input in %set's symbolic interpreter, collecting the path \
condition as a sequence of branches over the symbolic inputs. Then it negates one branch: \
of the newest run first, its deepest branch first, and only towards a branch no run has \
covered yet; Z3 solves the preconditions, the run's prefix before that branch and the \
branch's other side for the next input. Unsat attempts are recorded (a branch whose every \
attempt is unsat is infeasible), unknown ones too. Where a run leaves what %set models \
(havoc), its branches from there on are not negated. Stops when no uncovered branch is left \
to try, when --rounds runs are done (default 20), or when `%config solver_budget_ms` is \
spent. Shows each round (input, path as branch ids, negated branch, new input or unsat / \
unknown), the branch coverage on the CFG, the branches' status and the inputs as a table. \
`--save FILE.py` writes the inputs as pytest cases.";

/// The negation order, as the output and the README state it.
const ORDER: &str = "Order: the newest run first, its deepest branch first, only towards a \
branch no run has covered yet (each prefix and branch tried once); each new input is Z3's \
model of the preconditions, the run's prefix and the negated branch.";

/// Rounds run when `--rounds` is not given.
const DEFAULT_ROUNDS: usize = 20;

/// Statements one symbolic following may run.
const MAX_STEPS: usize = 20_000;

/// Branches of one run that become candidates for negation (the first ones).
const MAX_FORKS: usize = 2_000;

/// One negation to try: a prefix of a run's forks, then another alternative of the next.
#[derive(Clone)]
struct Candidate {
    /// The round whose run it comes from, and the fork's depth in that run: the prefix is
    /// that run's first `depth` branches.
    round: usize,
    depth: usize,
    condition: Term,
    /// The negated alternative's branch id.
    branch: String,
}

impl Candidate {
    fn branch(&self) -> &str {
        &self.branch
    }

    /// Branch ids of the prefix, then of the negated alternative.
    fn target(&self, runs: &[Vec<String>]) -> Vec<String> {
        let mut t = runs[self.round][..self.depth].to_vec();
        t.push(self.branch.clone());
        t
    }
}

/// One attempt at a negation and Z3's answer.
struct Attempt {
    from_round: usize,
    depth: usize,
    branch: String,
    target: Vec<String>,
    answer: Answer,
}

enum Answer {
    Sat(String),
    Unsat,
    Unknown(String),
}

/// One round.
struct Round {
    call: String,
    outcome: String,
    expected: Expected,
    /// `%constraints` path id of the run.
    path: Option<usize>,
    /// Branch ids of the run's forks that are claimed (before any stop).
    branches: Vec<String>,
    /// Lines of F's first activation, as the interpreter traced them.
    lines: Vec<u32>,
    /// Whether the symbolic following took the interpreter's lines.
    agrees: bool,
    /// Why the following stopped early, or diverged.
    note: Option<String>,
    /// What this round's input was solved for: the round it came from and the branch ids.
    solved_for: Option<(usize, Vec<String>)>,
    /// Whether the run took the branch ids it was solved for.
    as_solved: Option<bool>,
    /// The attempts made after this round, the last of them the one taken (if sat).
    attempts: Vec<Attempt>,
    next: Option<String>,
}

enum Expected {
    Returns(String),
    Raises(String),
}

/// The status of a branch (an alternative of a fork) at the end.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Covered(usize),
    /// Unsat on every prefix tried, and the search tried every path.
    Infeasible(usize),
    /// Unsat on every prefix tried, but the search stopped before trying every path.
    Unsat(usize),
    Unknown(String),
    Untried,
}

impl Status {
    fn text(&self) -> String {
        match self {
            Status::Covered(r) => format!("covered (round {r})"),
            Status::Infeasible(n) => format!(
                "infeasible (unsat on each of the {n} prefix(es) reaching it; every path tried)"
            ),
            Status::Unsat(n) => format!(
                "uncovered: unsat on {n} prefix(es), not every path tried (not proven infeasible)"
            ),
            Status::Unknown(why) => format!("unknown ({why})"),
            Status::Untried => "not tried (budget)".into(),
        }
    }
    fn key(&self) -> &'static str {
        match self {
            Status::Covered(_) => "covered",
            Status::Infeasible(_) => "infeasible",
            Status::Unsat(_) => "unsat_so_far",
            Status::Unknown(_) => "unknown",
            Status::Untried => "untried",
        }
    }
}

fn symexec_error(name: &str, e: SymexecError) -> CellError {
    match e {
        SymexecError::Stopped(s) => s.into(),
        other => CellError::new("UnsupportedError", format!("%concolic {name}: {other}")),
    }
}

/// Runs `%concolic`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let Some((name, rest)) = inv.args.split_first() else {
        return Err(CellError::usage(
            "%concolic needs a function and optionally its first arguments, such as %concolic f 3 4",
        ));
    };
    let (name, given) = match name.split_once('(') {
        Some((n, _)) => (n.to_string(), Some(inv.args.join(" "))),
        None if rest.is_empty() => (name.clone(), None),
        None => (name.clone(), Some(format!("{name}({})", rest.join(", ")))),
    };
    let budget =
        match inv.option("--rounds") {
            Some(n) => n.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                CellError::usage(format!("--rounds {n:?}: give a positive count"))
            })?,
            None => DEFAULT_ROUNDS,
        };
    let f = session.require_lowered(&name)?.clone();
    let cfg = function_cfg(&f).map_err(|e| CellError::new("CfgError", e.to_string()))?;
    let functions = super::set::session_functions(session);
    let build = |given: &[(String, crate::symbolic::Sort)]| {
        Program::function(&name, functions.iter().map(|f| f.as_ref()), given)
            .map_err(|e| symexec_error(&name, e))
    };
    // Concolic rounds pass each parameter one value: an `Optional[T]` one is followed as
    // `T`, a dict or set one is not taken.
    let mut program = build(&[])?;
    // Rounds pass none for `*args` and `**kwargs`.
    let as_plain = crate::symexec::packed::positional_sorts(&program.packed, true).map_err(|what| {
        CellError::usage(format!(
            "%concolic: {what} is not followed (rounds pass one value per parameter, by position); %set explores it"
        ))
    })?;
    if !as_plain.is_empty() {
        program = build(&as_plain)?;
    }
    let timeout_ms = u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX);
    let deadline = (session.config.solver_budget_ms > 0)
        .then(|| Instant::now() + Duration::from_millis(session.config.solver_budget_ms));
    let first = match given {
        Some(call) => call,
        None => call_of(&name, &concolic::zero_inputs(&program)),
    };

    let handler_lines = handler_lines(f.code());
    // Whether every fork of every run was claimed (so an exhausted search proves unsat
    // branches infeasible).
    let mut exhaustive = true;
    let mut total = Walk {
        nodes: vec![0; cfg.graph.node_count()],
        edges: vec![0; cfg.edges().len()],
        ..Walk::default()
    };
    let mut rounds: Vec<Round> = Vec::new();
    // Every branch id seen at a claimed fork, in the order first seen.
    let mut seen: Vec<String> = Vec::new();
    let mut covered: BTreeMap<String, usize> = BTreeMap::new();
    let mut runs: Vec<Vec<String>> = Vec::new();
    // The taken conditions of each run's claimed branches: the prefixes.
    let mut conds: Vec<Vec<Term>> = Vec::new();
    // How often runs took each branch (for the order of the search for new paths).
    let mut hits: BTreeMap<String, usize> = BTreeMap::new();
    let mut pending: Vec<Candidate> = Vec::new();
    let mut tried: HashSet<Vec<String>> = HashSet::new();
    let mut unsat: BTreeMap<String, usize> = BTreeMap::new();
    let mut unknown: BTreeMap<String, String> = BTreeMap::new();
    let mut next: Option<(String, Option<(usize, Vec<String>)>)> = Some((first, None));
    let mut stop = "no uncovered branch is left to try".to_string();
    while let Some((call, solved_for)) = next.take() {
        if rounds.len() >= budget {
            stop = format!("the budget of {budget} rounds is spent");
            break;
        }
        ctx.check_cancel()?;
        let index = rounds.len();
        let traced = traced_call(session, &call, ctx)?;
        if traced.function != name {
            return Err(CellError::usage(format!(
                "%concolic {name}: the call {call:?} calls {}, not {name}",
                traced.function
            )));
        }
        let acts = activations(&traced.trace);
        let mine = acts.iter().find(|a| a.function == name);
        let lines: Vec<u32> = mine.map(|a| a.lines.clone()).unwrap_or_default();
        let returned = vec![mine.is_some_and(|a| a.raised == Some(false))];
        let walk = Walk::of(&cfg, std::slice::from_ref(&lines), &returned);
        for (t, w) in total.nodes.iter_mut().zip(&walk.nodes) {
            *t += w;
        }
        for (t, w) in total.edges.iter_mut().zip(&walk.edges) {
            *t += w;
        }
        let route = walk.routes.first().cloned().unwrap_or_default();
        let path = constraints_path(&cfg, &route);
        // The same input, followed symbolically.
        let inputs = super::run_on::argument_values(session, ctx, &call, &name)?;
        let followed = concolic::follow(&program, &inputs, MAX_STEPS, timeout_ms, ctx.cancel)
            .map_err(|e| symexec_error(&name, e))?;
        let compared: Vec<u32> = lines
            .iter()
            .copied()
            .filter(|l| !handler_lines.contains(l))
            .collect();
        let (claimed, agrees, mut note) = claim(&followed, &compared);
        if claimed > MAX_FORKS {
            note = Some(format!(
                "{claimed} branches: only the first {MAX_FORKS} are negated{}",
                note.map(|n| format!("; {n}")).unwrap_or_default()
            ));
        }
        exhaustive &= note.is_none();
        let branches: Vec<String> = followed.forks[..claimed]
            .iter()
            .map(|f| f.taken_id())
            .collect();
        for fork in &followed.forks[..claimed] {
            for k in 0..fork.alternatives.len() {
                let id = fork.id(k);
                if !seen.contains(&id) {
                    seen.push(id);
                }
            }
        }
        for id in branches.iter().chain(&traced_ids(&cfg, &route)) {
            covered.entry(id.clone()).or_insert(index);
        }
        let as_solved = solved_for.as_ref().map(|(_, target)| {
            branches.len() >= target.len() && branches[..target.len()] == target[..]
        });
        // New candidates: each fork of this run, each alternative not taken.
        for (depth, fork) in followed.forks[..claimed.min(MAX_FORKS)].iter().enumerate() {
            for (k, (_, condition)) in fork.alternatives.iter().enumerate() {
                if k != fork.taken {
                    pending.push(Candidate {
                        round: index,
                        depth,
                        condition: condition.clone(),
                        branch: fork.id(k),
                    });
                }
            }
        }
        runs.push(branches.clone());
        conds.push(
            followed.forks[..claimed]
                .iter()
                .map(|f| f.alternatives[f.taken].1.clone())
                .collect(),
        );
        let expected = match &traced.exception {
            Some((ty, _)) => Expected::Raises(ty.clone()),
            None => Expected::Returns(traced.result.clone().unwrap_or_else(|| "None".into())),
        };
        let mut round = Round {
            call: call.clone(),
            outcome: super::run::outcome_line(&traced),
            expected,
            path,
            branches,
            lines,
            agrees,
            note,
            solved_for,
            as_solved,
            attempts: Vec::new(),
            next: None,
        };
        // Negate: the newest run first, its deepest fork first, towards uncovered branches;
        // when none is left but a branch is still uncovered, towards new paths.
        pending.sort_by_key(|c| (c.round, c.depth));
        for id in &round.branches {
            *hits.entry(id.clone()).or_default() += 1;
        }
        if seen.iter().all(|id| covered.contains_key(id)) && cfg_all_covered(&cfg, &total) {
            stop = "every branch is covered".into();
            pending.clear();
        }
        loop {
            let pick = pending
                .iter()
                .rposition(|c| !covered.contains_key(c.branch()))
                .or_else(|| least_taken(&pending, &hits));
            let Some(c) = pick.map(|i| pending.remove(i)) else {
                break;
            };
            let target = c.target(&runs);
            if runs.iter().any(|r| r.starts_with(&target)) || !tried.insert(target.clone()) {
                continue;
            }
            ctx.check_cancel()?;
            let prefix = &conds[c.round][..c.depth];
            // A fresh solver in a fresh Z3 context per query (`concolic::solve`): nothing
            // of an earlier query or cell can show in its model.
            let solved = concolic::solve(
                &program,
                timeout_ms,
                ctx.cancel,
                prefix,
                &c.condition,
                deadline,
            )
            .map_err(|e| symexec_error(&name, e))?;
            let answer = match solved {
                Solved::Sat(values) => Answer::Sat(call_of(&name, &values)),
                Solved::Unsat => {
                    *unsat.entry(c.branch().to_string()).or_default() += 1;
                    Answer::Unsat
                }
                Solved::Unknown(why) => {
                    unknown.insert(c.branch().to_string(), why.clone());
                    Answer::Unknown(why)
                }
            };
            let found = match &answer {
                Answer::Sat(call) => Some(call.clone()),
                _ => None,
            };
            round.attempts.push(Attempt {
                from_round: c.round,
                depth: c.depth,
                branch: c.branch().to_string(),
                target: target.clone(),
                answer,
            });
            if let Some(call) = found {
                round.next = Some(call.clone());
                next = Some((call, Some((c.round, target))));
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                stop = "the solver budget (%config solver_budget_ms) is spent".into();
                exhaustive = false;
                pending.clear();
                break;
            }
        }
        rounds.push(round);
    }
    // Proven: the search ran out of paths to try, every fork claimed, no answer unknown.
    let proven = exhaustive
        && next.is_none()
        && pending.is_empty()
        && unknown.is_empty()
        && stop == "no uncovered branch is left to try";
    if stop == "no uncovered branch is left to try"
        && (seen.iter().any(|id| !covered.contains_key(id)) || !cfg_all_covered(&cfg, &total))
    {
        stop = "no path is left to try".into();
    }
    let status: Vec<(String, Status)> = seen
        .iter()
        .map(|id| {
            let s = if let Some(&r) = covered.get(id) {
                Status::Covered(r)
            } else if let Some(why) = unknown.get(id) {
                Status::Unknown(why.clone())
            } else if let Some(&n) = unsat.get(id) {
                if proven {
                    Status::Infeasible(n)
                } else {
                    Status::Unsat(n)
                }
            } else {
                Status::Untried
            };
            (id.clone(), s)
        })
        .collect();
    let view = view(session, ctx, &name, &cfg, &total, &rounds, &status, &stop)?;
    match inv.option("--save") {
        Some(typed) if typed.to_ascii_lowercase().ends_with(".py") => {
            let path = SavePath::parse(typed)
                .map_err(|e| CellError::usage(format!("--save {typed:?}: {e}")))?;
            let source = session.require_function(&name)?.source.clone();
            ctx.sink.save(SaveFile {
                path,
                contents: pytest(&name, &source, &rounds).into_bytes(),
                overwrite: inv.flag("--force"),
            })?;
            ctx.sink.emit(Output::Display(view.bundle()));
            Ok(())
        }
        _ => ctx.show(&view, inv),
    }
}

/// Branch ids the concrete run covered in F itself, read from its route on the CFG: the
/// condition edges taken (`L7:True`), and `L9:no exception` for each line left by an edge
/// that is not an exception's. (A fork whose condition is constant on a run has no symbolic
/// fork to read it from.)
fn traced_ids(cfg: &Cfg, route: &[usize]) -> Vec<String> {
    use crate::cfg::Edge;
    let edges = cfg.edges();
    let mut ids = Vec::new();
    for &k in route {
        let Some((source, _, kind)) = edges.get(k) else {
            continue;
        };
        let node = cfg.node(*source);
        let line = node.lines.0;
        if line == 0 {
            continue;
        }
        if node.kind == NodeKind::Condition
            && let Edge::True | Edge::False = kind
        {
            ids.push(format!("L{line}:{}", kind.label().unwrap_or("")));
        }
        if !matches!(kind, Edge::Exception(_)) {
            ids.push(format!("L{line}:no exception"));
        }
    }
    ids
}

/// Lines of `except` headers: CPython traces them, `%set`'s interpreter has no statement
/// there, so they are left out when the two paths are compared.
fn handler_lines(body: &[crate::python::ir::Stmt]) -> Vec<u32> {
    let mut out = Vec::new();
    for st in body {
        if let crate::python::ir::StmtKind::Try { handlers, .. } = &st.kind {
            out.extend(handlers.iter().map(|h| h.header.line));
        }
        if !matches!(
            st.kind,
            crate::python::ir::StmtKind::FunctionDef(_)
                | crate::python::ir::StmtKind::ClassDef { .. }
        ) {
            for block in st.blocks() {
                out.extend(handler_lines(block));
            }
        }
    }
    out
}

/// The candidate towards the branch runs took least often (the newest run's deepest fork
/// among equals): where no uncovered branch is left to aim at, this steers the search for
/// new paths away from repeating one loop exit.
fn least_taken(pending: &[Candidate], hits: &BTreeMap<String, usize>) -> Option<usize> {
    (0..pending.len())
        .rev()
        .min_by_key(|&i| hits.get(pending[i].branch()).copied().unwrap_or(0))
}

/// Whether every True/False edge of F's CFG was taken.
fn cfg_all_covered(cfg: &Cfg, walk: &Walk) -> bool {
    let (covered, all) = branch_coverage(cfg, walk);
    covered == all
}

/// The line and label of a branch id `[g@]L7:True`.
fn split_id(id: &str) -> (Option<u32>, &str) {
    let own = id.rsplit_once('@').map_or(id, |(_, rest)| rest);
    match own.strip_prefix('L').and_then(|r| r.split_once(':')) {
        Some((line, label)) => (line.parse().ok(), label),
        None => (None, own),
    }
}

/// `f(1, 'a')`: a call of `name` with `values` as positional arguments.
fn call_of(name: &str, values: &[(String, PyValue)]) -> String {
    let args: Vec<String> = values.iter().map(|(_, v)| v.repr()).collect();
    format!("{name}({})", args.join(", "))
}

/// How many of the followed forks are claimed, whether the following took the traced lines,
/// and why it stopped short. A fork is claimed when the path up to it agrees with the trace
/// (the statement after it included) and no havoc or undecided condition came before it.
fn claim(followed: &Followed, traced: &[u32]) -> (usize, bool, Option<String>) {
    let mismatch = followed
        .lines
        .iter()
        .zip(traced)
        .position(|(a, b)| a != b)
        .or_else(|| {
            let finished = matches!(followed.stop, Stop::Finished(_));
            (finished && followed.lines.len() != traced.len())
                .then(|| followed.lines.len().min(traced.len()))
        });
    let agrees = mismatch.is_none() && matches!(followed.stop, Stop::Finished(_));
    let claimed = match mismatch {
        Some(k) => followed.forks.iter().take_while(|f| f.position < k).count(),
        None => followed.forks.len(),
    };
    let note = match (&followed.stop, mismatch) {
        (_, Some(k)) => Some(format!(
            "the symbolic run left the traced path at statement {} (line {}): its branches \
             from there on are not negated",
            k + 1,
            traced.get(k).map_or("end".into(), |l| l.to_string())
        )),
        (Stop::Havoc(h), None) => Some(format!(
            "left the modelled subset ({h}): branches from there on are not negated"
        )),
        (Stop::Undecided(why), None) => Some(format!(
            "the model could not decide a branch ({why}): branches from there on are not negated"
        )),
        (Stop::Cut(n), None) => Some(format!(
            "the symbolic run was cut after {n} statements: later branches are not negated"
        )),
        (Stop::Finished(_), None) => None,
    };
    (claimed, agrees, note)
}

/// Branch edges (True/False out of conditions) and how many the rounds took.
fn branch_coverage(cfg: &Cfg, walk: &Walk) -> (usize, usize) {
    let edges = cfg.edges();
    let branches: Vec<usize> = (0..edges.len())
        .filter(|&k| {
            cfg.node(edges[k].0).kind == NodeKind::Condition
                && matches!(edges[k].2, crate::cfg::Edge::True | crate::cfg::Edge::False)
        })
        .collect();
    let covered = branches.iter().filter(|&&k| walk.edges[k] > 0).count();
    (covered, branches.len())
}

/// The CFG's branch edges no round took, with the status of the matching branch id.
fn cfg_uncovered(
    cfg: &Cfg,
    walk: &Walk,
    status: &[(String, Status)],
) -> Vec<(u32, String, String)> {
    let edges = cfg.edges();
    (0..edges.len())
        .filter(|&k| {
            cfg.node(edges[k].0).kind == NodeKind::Condition
                && matches!(edges[k].2, crate::cfg::Edge::True | crate::cfg::Edge::False)
                && walk.edges[k] == 0
        })
        .map(|k| {
            let line = cfg.node(edges[k].0).lines.0;
            let label = edges[k].2.label().unwrap_or("").to_string();
            let id = format!("L{line}:{label}");
            let s = status
                .iter()
                .find(|(i, _)| *i == id)
                .map_or("never reached by a run".to_string(), |(_, s)| s.text());
            (line, label, s)
        })
        .collect()
}

fn answer_text(a: &Attempt) -> String {
    match &a.answer {
        Answer::Sat(call) => call.clone(),
        Answer::Unsat => "unsat".into(),
        Answer::Unknown(why) => format!("unknown ({why})"),
    }
}

#[allow(clippy::too_many_arguments)]
fn view(
    session: &Session,
    ctx: &Ctx<'_>,
    name: &str,
    cfg: &Cfg,
    total: &Walk,
    rounds: &[Round],
    status: &[(String, Status)],
    stop: &str,
) -> Result<View, CellError> {
    let (covered, branches) = branch_coverage(cfg, total);
    let count = |key: &str| status.iter().filter(|(_, s)| s.key() == key).count();
    let summary = format!(
        "{} rounds; CFG: {covered} of {branches} branches covered; symbolic branches: {} \
         covered, {} infeasible, {} unknown, {} not tried; stopped: {stop}",
        rounds.len(),
        count("covered"),
        count("infeasible"),
        count("unknown"),
        count("untried"),
    );
    let headers = ["round", "input", "path (branches)", "negated", "new input"];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (i, r) in rounds.iter().enumerate() {
        let mut path = r.branches.join(" ");
        if let Some(note) = &r.note {
            path.push_str(&format!(" [{note}]"));
        }
        if r.as_solved == Some(false) {
            path.push_str(" [did NOT take the branches it was solved for]");
        }
        if r.attempts.is_empty() {
            rows.push(vec![
                i.to_string(),
                r.call.clone(),
                path.clone(),
                "-".into(),
                "-".into(),
            ]);
        }
        for (k, a) in r.attempts.iter().enumerate() {
            let (round, input, path) = if k == 0 {
                (i.to_string(), r.call.clone(), path.clone())
            } else {
                (String::new(), String::new(), String::new())
            };
            let negated = format!(
                "{} (round {}, depth {}{})",
                a.branch,
                a.from_round,
                a.depth,
                if a.depth > 0 {
                    format!(", after {} branch(es)", a.depth)
                } else {
                    String::new()
                }
            );
            rows.push(vec![round, input, path, negated, answer_text(a)]);
        }
    }
    let in_headers = ["input", "outcome"];
    let in_rows: Vec<Vec<String>> = rounds
        .iter()
        .map(|r| vec![r.call.clone(), r.outcome.clone()])
        .collect();
    let st_headers = ["branch", "status"];
    let st_rows: Vec<Vec<String>> = status
        .iter()
        .map(|(id, s)| vec![id.clone(), s.text()])
        .collect();
    let uncovered = cfg_uncovered(cfg, total, status);
    let un_rows: Vec<Vec<String>> = uncovered
        .iter()
        .map(|(line, label, s)| vec![format!("line {line} → {label}"), s.clone()])
        .collect();
    let un_text = if un_rows.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nCFG branches not covered\n{}",
            text_table(&["CFG branch", "why"], &un_rows)
        )
    };
    let text = format!(
        "%concolic {name}: {summary}\n{ORDER}\n{}\n\nBranches\n{}{un_text}\n\nInputs found\n{}",
        text_table(&headers, &rows),
        text_table(&st_headers, &st_rows),
        text_table(&in_headers, &in_rows)
    );
    let title = format!("%concolic {name}: {covered} of {branches} branches covered");
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(run_dot(cfg, total, &title), None, session, ctx)?;
    let un_html = if un_rows.is_empty() {
        String::new()
    } else {
        format!(
            "<p><b>CFG branches not covered</b></p>{}",
            table(&["CFG branch", "why"], &un_rows)
        )
    };
    let html = format!(
        "{note}{}<p>{}<br><small>{}</small></p>{}<p><b>Branches</b></p>{}{un_html}<p><b>Inputs found</b></p>{}",
        legend_html("Counts are rounds that took the edge."),
        escape(&summary),
        escape(ORDER),
        table(&headers, &rows),
        table(&st_headers, &st_rows),
        table(&in_headers, &in_rows)
    );
    let rounds_json: Vec<Value> = rounds
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let taken = r.attempts.last().filter(|a| matches!(a.answer, Answer::Sat(_)));
            let target_path = rounds.get(i + 1).and_then(|n| n.path);
            json!({
                "input": r.call,
                "outcome": r.outcome,
                "path": r.path,
                "branches": r.branches,
                "lines": r.lines,
                "agrees": r.agrees,
                "note": r.note,
                "solved_for": r.solved_for.as_ref().map(|(from, target)| json!({"round": from, "branches": target})),
                "as_solved": r.as_solved,
                "negated": taken.map(|a| {
                    let (line, label) = split_id(&a.branch);
                    json!({"branch": a.branch, "line": line, "label": label, "round": a.from_round, "depth": a.depth, "target": a.target, "target_path": target_path})
                }),
                "attempts": r.attempts.iter().map(|a| json!({
                    "branch": a.branch,
                    "round": a.from_round,
                    "depth": a.depth,
                    "target": a.target,
                    "result": match &a.answer { Answer::Sat(_) => "sat", Answer::Unsat => "unsat", Answer::Unknown(_) => "unknown" },
                    "input": match &a.answer { Answer::Sat(c) => Some(c.clone()), _ => None },
                    "reason": match &a.answer { Answer::Unknown(w) => Some(w.clone()), _ => None },
                })).collect::<Vec<_>>(),
                "next": r.next,
            })
        })
        .collect();
    let status_json: Vec<Value> = status
        .iter()
        .map(|(id, s)| {
            json!({
                "branch": id,
                "status": s.key(),
                "round": match s { Status::Covered(r) => Some(*r), _ => None },
                "unsat_prefixes": match s { Status::Infeasible(n) => Some(*n), _ => None },
            })
        })
        .collect();
    let json = payload(
        "concolic",
        json!({
            "function": name,
            "order": ORDER,
            "rounds": rounds_json,
            "branches": branches,
            "branches_covered": covered,
            "branch_status": status_json,
            "cfg_uncovered": uncovered.iter().map(|(line, label, s)| json!({"line": line, "label": label, "why": s})).collect::<Vec<_>>(),
            "infeasible_negations": rounds.iter().flat_map(|r| &r.attempts).filter(|a| matches!(a.answer, Answer::Unsat)).count(),
            "edges": total.edges,
            "stopped": stop,
        }),
    );
    Ok(View {
        kind: "concolic",
        text,
        html,
        svg,
        dot: Some(dot),
        json,
    })
}

/// pytest cases: F's source, then one test per input asserting what the kernel's run gave.
fn pytest(name: &str, source: &str, rounds: &[Round]) -> String {
    let mut out = format!(
        "# pytest cases found by %concolic {name}: each asserts what the kernel's run gave.\n\
         import pytest\n\n\n{}\n",
        source.trim_end()
    );
    for (i, r) in rounds.iter().enumerate() {
        out.push_str(&format!("\n\ndef test_{name}_{i}():\n"));
        match &r.expected {
            Expected::Returns(repr) => out.push_str(&format!("    assert {} == {repr}\n", r.call)),
            Expected::Raises(ty) => out.push_str(&format!(
                "    with pytest.raises({ty}):\n        {}\n",
                r.call
            )),
        }
    }
    out
}
