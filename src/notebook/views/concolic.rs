//! `%concolic F ARGS`: concolic testing in rounds. Each round runs an input concretely with
//! line tracing (`%run`'s machinery), reads the path it took on F's CFG (up to the first back
//! edge, as `%constraints` cuts paths), then negates one branch of a path run so far and asks
//! for an input taking the prefix before that branch and its other side. The input is the Z3
//! witness of the first feasible path `%constraints F` lists with that prefix and negated
//! branch. Order: the newest run first, its branches from the last to the first (depth-first,
//! as in the concolic chapter of the symbolic-execution book); a (prefix, negated branch) pair
//! is tried once, and not at all when a run so far already took it. It stops when the budget of rounds is spent or nothing is left to negate.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::run::{activations, constraints_path, traced_call};
use super::{Figure, figure};
use crate::cfg::{Cfg, NodeKind, Walk};
use crate::constraints::{Analysis, ConstraintsError, Feasible, Mode, Options, analyze};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, Output, SaveFile, SavePath, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::render::html::{escape, table, text_table};
use crate::render::run::{legend_html, run_dot};

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "--rounds",
    values: 1,
    help: "the budget: runs at most (default 20)",
}];

pub const USAGE: &str = "%concolic F ARGS... [--rounds N] [--save tests.py]";

pub const SUMMARY: &str =
    "concolic testing: run, negate a branch, solve, repeat; coverage on the CFG";

pub const HELP: &str = "Starts from F(ARGS) (the arguments as Python expressions, separated by \
spaces, or one call `F(a, b)`) and runs in rounds within the budget (--rounds, default 20). Each \
round runs its input concretely with line tracing and reads the path taken on F's CFG, up to the \
first back edge (as %constraints cuts paths). Then one branch is negated: of the newest run \
first, its branches from the last to the first (depth-first, as the book's concolic chapter), \
each (prefix, negated branch) pair once and only when no run took it yet; the new input is the Z3 witness of the first feasible \
path %constraints F lists that starts with the prefix and the negated branch. Branches whose \
negation is infeasible are counted. Shows each round (input, path id, negated branch, new input), \
the branch coverage of all rounds on the CFG, and the inputs found as a table. `--save FILE.py` \
writes the inputs as pytest cases (F's source, then one test per input asserting what the \
kernel's run gave). Loops: only branches before a run's first back edge are negated.";

/// Where new inputs come from, as the output says it.
const SOURCE_OF_INPUTS: &str = "New inputs are not solved from the run's own symbolic path \
condition: each is the Z3 witness %constraints found for the first path it lists (paths cut at \
their first back edge) that starts with the run's prefix and the negated branch.";

/// Rounds run when `--rounds` is not given.
const DEFAULT_ROUNDS: usize = 20;

/// One round: the input, where it went, what was negated, and the input solved for next.
struct Round {
    call: String,
    outcome: String,
    /// `repr` of the result, or the exception's type.
    expected: Expected,
    path: Option<usize>,
    /// The branch negated after this run: (line, label), and the path the new input targets.
    negated: Option<(u32, String, usize)>,
    next: Option<String>,
}

enum Expected {
    Returns(String),
    Raises(String),
}

/// Runs `%concolic`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let Some((name, rest)) = inv.args.split_first() else {
        return Err(CellError::usage(
            "%concolic needs a function and its first arguments, such as %concolic f 3 4",
        ));
    };
    let (name, first_call) = match name.split_once('(') {
        Some((n, _)) => (n.to_string(), inv.args.join(" ")),
        None => (name.clone(), format!("{name}({})", rest.join(", "))),
    };
    let budget =
        match inv.option("--rounds") {
            Some(n) => n.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                CellError::usage(format!("--rounds {n:?}: give a positive count"))
            })?,
            None => DEFAULT_ROUNDS,
        };
    let f = session.require_lowered(&name)?.clone();
    let options = Options {
        mode: Mode::Precise,
        path_limit: usize::try_from(session.config.path_limit).unwrap_or(usize::MAX),
        timeout_ms: u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX),
    };
    let analysis = analyze(&f, &options, ctx.cancel).map_err(|e| match e {
        ConstraintsError::Stopped(s) => s.into(),
        ConstraintsError::Cfg(e) => CellError::new("SyntaxError", format!("in {name}: {e}")),
    })?;
    let cfg = &analysis.cfg;
    let mut total = Walk {
        nodes: vec![0; cfg.graph.node_count()],
        edges: vec![0; cfg.edges().len()],
        ..Walk::default()
    };
    let mut rounds: Vec<Round> = Vec::new();
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut tried: HashSet<(Vec<usize>, usize)> = HashSet::new();
    let mut infeasible = 0usize;
    let mut next = Some(first_call);
    while let Some(call) = next.take() {
        if rounds.len() >= budget {
            break;
        }
        ctx.check_cancel()?;
        let traced = traced_call(session, &call, ctx)?;
        if traced.function != name {
            return Err(CellError::usage(format!(
                "%concolic {name}: the call {call:?} calls {}, not {name}",
                traced.function
            )));
        }
        let acts = activations(&traced.trace);
        let mine: Vec<_> = acts.iter().filter(|a| a.function == name).collect();
        let lines: Vec<Vec<u32>> = mine.iter().take(1).map(|a| a.lines.clone()).collect();
        let returned: Vec<bool> = mine
            .iter()
            .take(1)
            .map(|a| a.raised == Some(false))
            .collect();
        let walk = Walk::of(cfg, &lines, &returned);
        for (t, w) in total.nodes.iter_mut().zip(&walk.nodes) {
            *t += w;
        }
        for (t, w) in total.edges.iter_mut().zip(&walk.edges) {
            *t += w;
        }
        let route = walk.routes.first().cloned().unwrap_or_default();
        let path = constraints_path(cfg, &route);
        runs.push(cut_at_back_edge(&analysis, &route));
        let expected = match &traced.exception {
            Some((ty, _)) => Expected::Raises(ty.clone()),
            None => Expected::Returns(traced.result.clone().unwrap_or_else(|| "None".into())),
        };
        let mut round = Round {
            call: call.clone(),
            outcome: super::run::outcome_line(&traced),
            expected,
            path,
            negated: None,
            next: None,
        };
        'search: for run in runs.iter().rev() {
            for i in (0..run.len()).rev() {
                let Some(flipped) = other_branch(&analysis, run[i]) else {
                    continue;
                };
                let prefix = run[..i].to_vec();
                if !tried.insert((prefix.clone(), flipped)) || covered(&runs, &prefix, flipped) {
                    continue;
                }
                match solve(&analysis, &prefix, flipped) {
                    Some((id, input)) => {
                        let source = analysis.dag.edges[flipped].source;
                        let label = analysis.dag.edges[flipped]
                            .kind
                            .label()
                            .unwrap_or("")
                            .to_string();
                        round.negated = Some((cfg.node(source).lines.0, label, id));
                        let call = format!("{name}({input})");
                        round.next = Some(call.clone());
                        next = Some(call);
                        break 'search;
                    }
                    None => infeasible += 1,
                }
            }
        }
        rounds.push(round);
    }
    let view = view(
        session, ctx, &name, &analysis, &total, &rounds, infeasible, budget,
    )?;
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

/// The route up to and including its first back edge (where `%constraints` ends a path).
fn cut_at_back_edge(a: &Analysis, route: &[usize]) -> Vec<usize> {
    match route.iter().position(|&e| a.dag.edges[e].back) {
        Some(i) => route[..=i].to_vec(),
        None => route.to_vec(),
    }
}

/// Whether a run so far already took `prefix` then `flipped`.
fn covered(runs: &[Vec<usize>], prefix: &[usize], flipped: usize) -> bool {
    runs.iter().any(|r| {
        r.len() > prefix.len() && r[..prefix.len()] == *prefix && r[prefix.len()] == flipped
    })
}

/// The other branch of a True/False edge `e`.
fn other_branch(a: &Analysis, e: usize) -> Option<usize> {
    let info = &a.dag.edges[e];
    if a.cfg.node(info.source).kind != NodeKind::Condition {
        return None;
    }
    let want = match info.kind {
        crate::cfg::Edge::True => crate::cfg::Edge::False,
        crate::cfg::Edge::False => crate::cfg::Edge::True,
        _ => return None,
    };
    a.dag
        .edges
        .iter()
        .position(|o| o.source == info.source && o.kind == want)
}

/// The first feasible listed path that starts with `prefix` then `flipped`, and its witness
/// as keyword arguments.
fn solve(a: &Analysis, prefix: &[usize], flipped: usize) -> Option<(usize, String)> {
    a.paths.iter().find_map(|p| {
        let starts = p.edges.len() > prefix.len()
            && p.edges[..prefix.len()] == *prefix
            && p.edges[prefix.len()] == flipped;
        let witness = p.witness.as_ref()?;
        (starts && p.feasible == Feasible::Yes).then(|| {
            let args: Vec<String> = witness
                .iter()
                .map(|(n, v)| format!("{n}={}", v.repr()))
                .collect();
            (p.id, args.join(", "))
        })
    })
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

#[allow(clippy::too_many_arguments)]
fn view(
    session: &Session,
    ctx: &Ctx<'_>,
    name: &str,
    analysis: &Analysis,
    total: &Walk,
    rounds: &[Round],
    infeasible: usize,
    budget: usize,
) -> Result<View, CellError> {
    let cfg = &analysis.cfg;
    let (covered, branches) = branch_coverage(cfg, total);
    let stop = if rounds.len() >= budget && rounds.last().is_some_and(|r| r.next.is_some()) {
        format!("the budget of {budget} rounds is spent")
    } else {
        "no branch is left to negate".to_string()
    };
    let summary = format!(
        "{} rounds; {covered} of {branches} branches covered; {infeasible} negations infeasible; stopped: {stop}",
        rounds.len()
    );
    let headers = ["round", "input", "path", "negated branch", "new input"];
    let rows: Vec<Vec<String>> = rounds
        .iter()
        .enumerate()
        .map(|(i, r)| {
            vec![
                i.to_string(),
                r.call.clone(),
                r.path.map_or("-".into(), |p| p.to_string()),
                r.negated.as_ref().map_or("-".into(), |(line, label, id)| {
                    format!("line {line} → {label} (path {id})")
                }),
                r.next.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let in_headers = ["input", "outcome"];
    let in_rows: Vec<Vec<String>> = rounds
        .iter()
        .map(|r| vec![r.call.clone(), r.outcome.clone()])
        .collect();
    let text = format!(
        "%concolic {name}: {summary}\n{SOURCE_OF_INPUTS}\n{}\n\nInputs found\n{}",
        text_table(&headers, &rows),
        text_table(&in_headers, &in_rows)
    );
    let title = format!("%concolic {name}: {covered} of {branches} branches covered");
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(run_dot(cfg, total, &title), None, session, ctx)?;
    let html = format!(
        "{note}{}<p>{}<br><small>{}</small></p>{}<p><b>Inputs found</b></p>{}",
        legend_html("Counts are rounds that took the edge."),
        escape(&summary),
        escape(SOURCE_OF_INPUTS),
        table(&headers, &rows),
        table(&in_headers, &in_rows)
    );
    let rounds_json: Vec<Value> = rounds
        .iter()
        .map(|r| {
            json!({
                "input": r.call,
                "outcome": r.outcome,
                "path": r.path,
                "negated": r.negated.as_ref().map(|(line, label, id)| json!({"line": line, "label": label, "target_path": id})),
                "next": r.next,
            })
        })
        .collect();
    let json = payload(
        "concolic",
        json!({
            "function": name,
            "rounds": rounds_json,
            "branches": branches,
            "branches_covered": covered,
            "infeasible_negations": infeasible,
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
