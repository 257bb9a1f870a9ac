//! `%check` and `%%check`: the book's exhaustiveness and precision of a symbolic execution
//! tree, tested against concrete runs (random inputs and every leaf's witness) in the
//! kernel's interpreter and in CPython.

use serde_json::{Map, Value as Json, json};

use super::set::{Built, build, session_functions};
use crate::interp::Limits;
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::python::PyValue;
use crate::render::html::{escape, table, text_table};
use crate::render::set::outcome_json;
use crate::symexec::check::{
    CheckError, CheckOptions, Concrete, Oracle, Prediction, Report, Runnable, SEED, check,
    snippet_variables,
};
use crate::symexec::{Entry, Tree};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--runs",
        values: 1,
        help: "random concrete runs (default: %config check_runs)",
    },
    OptionSpec {
        name: "--unroll",
        values: 1,
        help: "loop unrolling bound of the tree checked (default: %config unroll)",
    },
    OptionSpec {
        name: "--depth",
        values: 1,
        help: "recursion depth of the tree checked (default: %config depth)",
    },
    OptionSpec {
        name: "--no-pre",
        values: 0,
        help: "ignore the docstring preconditions (by default runs that break them are not judged)",
    },
    OptionSpec {
        name: "--seed",
        values: 1,
        help: "seed of the random inputs (the default gives the same runs every time)",
    },
];

pub const USAGE: &str = "%check NAME [--runs N] [--unroll N] [--seed S] [ARG:TYPE ...]\n%%check [--runs N] [--unroll N] [--seed S] ARG:TYPE ...\n<Python code>";

pub const SUMMARY: &str = "exhaustiveness and precision of the symbolic tree against concrete runs";

pub const HELP: &str = "Builds the symbolic execution tree (as %set) and tests the symbolic-execution book's two \
properties on concrete runs in the kernel's interpreter and in CPython (one python3 child process running your \
code with the kernel's rights; CPython's result counts; %config cpython_oracle=0 turns it off, and then the \
interpreter's result counts):\n\
exhaustive  every random run lands in a leaf whose path condition it satisfies, with that leaf's outcome \
(return value, exception type and message, or final variables). A run that goes beyond the unroll bound lands \
in a bound leaf and is a counterexample: bounded unrolling is not exhaustive.\n\
precise     every leaf's witness input, run concretely, reproduces the leaf's outcome.\n\n\
Random inputs are deterministic: ints in [-100, 100] with 0, ±1, ±2, ±100 and small values favoured, floats in \
quarters, strings of up to 3 characters over abc, tuples and lists of length 0 to 6. Counterexamples list the \
inputs, what the tree expected and what was observed. Runs where the interpreter and CPython differ are listed \
apart.";

/// The most random runs one `%check` makes (as `%config check_runs` allows).
const MAX_RUNS: usize = 1_000_000;

/// Runs `%check` / `%%check`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let runs = match inv.option("--runs") {
        Some(v) => v
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= MAX_RUNS)
            .ok_or_else(|| {
                CellError::usage(format!(
                    "--runs takes a whole number from 0 to {MAX_RUNS}, got {v:?}"
                ))
            })?,
        None => usize::try_from(session.config.check_runs).unwrap_or(MAX_RUNS),
    };
    let seed = match inv.option("--seed") {
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| CellError::usage(format!("--seed takes a whole number, got {v:?}")))?,
        None => SEED,
    };
    let built = build(session, inv, ctx)?;
    let runnable = runnable(session, inv, &built);
    let options = CheckOptions {
        runs,
        seed,
        limits: Limits::new(
            session.config.step_budget.min(1_000_000),
            u32::try_from(session.config.recursion_limit).unwrap_or(u32::MAX),
        ),
        timeout_ms: u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX),
        cpython: session.config.cpython_oracle != 0,
    };
    let report = check(
        &built.tree,
        &built.program.input_env,
        &runnable,
        &options,
        ctx.cancel,
    )
    .map_err(|e| match e {
        CheckError::Stopped(s) => s.into(),
        other => CellError::new("CheckError", other.to_string()),
    })?;
    let view = view(&report, &built.tree);
    ctx.show(&view, inv)
}

/// The program to run concretely: the session's functions, and the cell's code.
fn runnable(session: &Session, inv: &Invocation, built: &Built) -> Runnable {
    let own: Vec<String> = built
        .module
        .as_ref()
        .map(|m| {
            m.functions()
                .filter(|f| !f.qualname.contains('.'))
                .map(|f| f.qualname.clone())
                .collect()
        })
        .unwrap_or_default();
    let mut definitions: Vec<String> = session_functions(session)
        .iter()
        .filter(|f| !f.qualname.contains('.') && !own.contains(&f.qualname))
        .filter_map(|f| session.function(&f.qualname).map(|s| s.source.clone()))
        .collect();
    match (&built.program.entry, &built.module) {
        (Entry::Function(name), module) => {
            if module.is_some() {
                definitions.push(inv.body.clone());
            }
            Runnable::function(&definitions, name)
        }
        (Entry::Snippet(_), module) => {
            let inputs: Vec<String> = built.tree.inputs.iter().map(|(n, _)| n.clone()).collect();
            let mut captured = inputs.clone();
            if let Some(m) = module {
                for v in snippet_variables(m) {
                    if !captured.contains(&v) {
                        captured.push(v);
                    }
                }
            }
            Runnable::snippet(&definitions, &inv.body, &inputs, &captured)
        }
    }
}

fn inputs_text(inputs: &[(String, PyValue)]) -> String {
    inputs
        .iter()
        .map(|(n, v)| format!("{n}={}", v.repr()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn store_text(store: &[(String, PyValue)]) -> String {
    let parts: Vec<String> = store
        .iter()
        .map(|(n, v)| format!("{n}: {}", v.repr()))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn prediction_text(p: &Prediction) -> String {
    match p {
        Prediction::Return(v) => format!("return {}", v.repr()),
        Prediction::Raised {
            type_name,
            message: Some(m),
        } if !m.is_empty() => format!("{type_name}: {m}"),
        Prediction::Raised { type_name, .. } => type_name.clone(),
        Prediction::Normal(store) => format!("normal end {}", store_text(store)),
        Prediction::Bound(_) => "bound reached".into(),
        Prediction::NoLeaf => "no leaf".into(),
        Prediction::Unknown(why) => format!("unknown ({why})"),
    }
}

fn concrete_text(c: &Concrete) -> String {
    match c {
        Concrete::Return(v) => format!("return {}", v.repr()),
        Concrete::Raised { type_name, message } if message.is_empty() => type_name.clone(),
        Concrete::Raised { type_name, message } => format!("{type_name}: {message}"),
        Concrete::Normal(store) => format!("normal end {}", store_text(store)),
        Concrete::NoResult(why) => format!("no result ({why})"),
        Concrete::Unfinished(why) => why.clone(),
    }
}

fn store_json(store: &[(String, PyValue)]) -> Json {
    let mut m = Map::new();
    for (n, v) in store {
        m.insert(n.clone(), json!(v.repr()));
    }
    Json::Object(m)
}

fn prediction_json(p: &Prediction) -> Json {
    match p {
        Prediction::Return(v) => json!({"kind": "return", "value": v.repr()}),
        Prediction::Raised { type_name, message } => {
            json!({"kind": "exception", "type": type_name, "message": message})
        }
        Prediction::Normal(store) => json!({"kind": "normal", "store": store_json(store)}),
        Prediction::Bound(why) => json!({"kind": "bound", "reason": why}),
        Prediction::NoLeaf => json!({"kind": "no leaf"}),
        Prediction::Unknown(why) => json!({"kind": "unknown", "reason": why}),
    }
}

fn concrete_json(c: &Concrete) -> Json {
    match c {
        Concrete::Return(v) => json!({"kind": "return", "value": v.repr()}),
        Concrete::Raised { type_name, message } => {
            json!({"kind": "exception", "type": type_name, "message": message})
        }
        Concrete::Normal(store) => json!({"kind": "normal", "store": store_json(store)}),
        Concrete::NoResult(why) => json!({"kind": "no result", "reason": why}),
        Concrete::Unfinished(why) => json!({"kind": "unfinished", "reason": why}),
    }
}

fn inputs_json(inputs: &[(String, PyValue)]) -> Json {
    let mut m = Map::new();
    for (n, v) in inputs {
        m.insert(n.clone(), v.to_json());
    }
    Json::Object(m)
}

/// The `check` payload (version 1).
pub fn report_json(r: &Report, tree: &Tree) -> Json {
    let counterexamples: Vec<Json> = r
        .counterexamples
        .iter()
        .map(|c| {
            json!({
                "property": c.property.name(),
                "inputs": inputs_json(&c.inputs),
                "expected": prediction_json(&c.expected),
                "observed": concrete_json(&c.observed),
                "leaf": c.leaf.map(|l| l.to_string()),
                "reason": c.reason,
            })
        })
        .collect();
    let mismatches: Vec<Json> = r
        .mismatches
        .iter()
        .map(|m| {
            json!({
                "inputs": inputs_json(&m.inputs),
                "interpreter": concrete_json(&m.interpreter),
                "cpython": concrete_json(&m.cpython),
            })
        })
        .collect();
    let mut hits = Map::new();
    for leaf in &tree.leaves {
        hits.insert(
            leaf.node.to_string(),
            json!(r.hits.get(&leaf.node).copied().unwrap_or(0)),
        );
    }
    let leaves: Vec<Json> = tree
        .leaves
        .iter()
        .map(|l| json!({"node": l.node.to_string(), "path_condition": l.path_condition.to_string(), "outcome": outcome_json(&l.outcome)}))
        .collect();
    payload(
        "check",
        json!({
            "function": r.function,
            "runs": r.runs,
            "exhaustive": r.exhaustive,
            "precise": r.precise,
            "counterexamples": counterexamples,
            "witnesses": r.witnesses,
            "unroll": tree.unroll,
            "oracle": if r.oracle == Oracle::CPython { "cpython" } else { "interpreter" },
            "oracle_note": r.oracle.reason(),
            "interpreter_mismatches": mismatches,
            "leaf_hits": hits,
            "leaves": leaves,
            "unresolved": r.unresolved,
            "unfinished": r.unfinished.iter().map(|u| json!({"inputs": inputs_json(&u.inputs), "reason": u.why})).collect::<Vec<Json>>(),
            "run_step_budget": r.run_steps,
            "approximate_leaves": tree.approximate.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            "approximate_runs": r.approximate,
            "outside_preconditions": r.outside_preconditions,
        }),
    )
}

/// At most this many counterexamples are listed in the text and HTML (all are in the JSON).
const SHOWN: usize = 10;

fn verdict(ok: bool, what: &str, n: usize) -> String {
    if ok {
        format!("{what}: yes (probably: no counterexample found)")
    } else {
        let s = if n == 1 { "" } else { "s" };
        format!("{what}: NO ({n} counterexample{s})")
    }
}

fn view(r: &Report, tree: &Tree) -> View {
    let count = |p| r.counterexamples.iter().filter(|c| c.property == p).count();
    let oracle = match r.oracle.reason() {
        None => "CPython".to_string(),
        Some(why) => format!("the kernel's interpreter ({why})"),
    };
    let subject = if r.function == "<cell>" {
        "the cell".to_string()
    } else {
        format!("{}()", r.function)
    };
    let mut lines = vec![
        format!(
            "%check of {subject} (unroll {}, {} leaves): {} random runs and {} leaf witnesses, judged by {oracle}",
            tree.unroll,
            tree.leaves.len(),
            r.runs,
            r.witnesses
        ),
        verdict(
            r.exhaustive,
            "exhaustive",
            count(crate::symexec::check::Property::Exhaustive),
        ),
        verdict(
            r.precise,
            "precise",
            count(crate::symexec::check::Property::Precise),
        ),
    ];
    if !tree.preconditions.is_empty() {
        lines.push(format!(
            "The tree assumes the docstring preconditions; {} random runs that break them are not judged (--no-pre checks without them).",
            r.outside_preconditions
        ));
    }
    if !tree.approximate.is_empty() {
        lines.push(format!(
            "{} of the {} leaves are approximate (their paths go through what is not modelled): their witnesses are not replayed and the {} random runs that land in them are not judged.",
            tree.approximate.len(),
            tree.leaves.len(),
            r.approximate
        ));
    }
    if r.unresolved > 0 {
        lines.push(format!(
            "{} runs could not be placed in the tree by the solver.",
            r.unresolved
        ));
    }
    if !r.unfinished.is_empty() {
        let shown: Vec<String> = r
            .unfinished
            .iter()
            .take(3)
            .map(|u| format!("{} ({})", inputs_text(&u.inputs), u.why))
            .collect();
        let more = if r.unfinished.len() > shown.len() {
            ", …"
        } else {
            ""
        };
        lines.push(format!(
            "{} runs did not finish within their budget and are not judged (a random run may take {} interpreter steps, scaled from the witnesses): {}{more}",
            r.unfinished.len(),
            r.run_steps,
            shown.join("; ")
        ));
    }
    if tree.truncated {
        lines.push(format!("The tree was cut at {} nodes (node_limit): runs in the unexplored part count as counterexamples.", tree.node_limit));
    }
    if !r.mismatches.is_empty() {
        lines.push(format!(
            "The kernel's interpreter differs from CPython on {} runs (listed in the JSON payload).",
            r.mismatches.len()
        ));
    }
    let headers = [
        "property",
        "inputs",
        "leaf",
        "expected (tree)",
        "observed",
        "why",
    ];
    let rows: Vec<Vec<String>> = r
        .counterexamples
        .iter()
        .take(SHOWN)
        .map(|c| {
            vec![
                c.property.name().to_string(),
                inputs_text(&c.inputs),
                c.leaf.map(|l| l.to_string()).unwrap_or_else(|| "-".into()),
                prediction_text(&c.expected),
                concrete_text(&c.observed),
                c.reason.clone(),
            ]
        })
        .collect();
    let more = r.counterexamples.len().saturating_sub(SHOWN);
    let mut text = lines.join("\n");
    let mut html: String = lines
        .iter()
        .map(|l| format!("<div>{}</div>", escape(l)))
        .collect();
    if !rows.is_empty() {
        text.push_str("\n\nCounterexamples:\n");
        text.push_str(&text_table(&headers, &rows));
        html.push_str(&table(&headers, &rows));
        if more > 0 {
            let note = format!("... and {more} more (all are in the JSON payload).");
            text.push('\n');
            text.push_str(&note);
            html.push_str(&format!("<div>{}</div>", escape(&note)));
        }
    }
    View {
        kind: "check",
        text,
        html: format!("<div class=\"analysis-kernel-check\">{html}</div>"),
        svg: None,
        dot: None,
        json: report_json(r, tree),
    }
}
