//! `%run CALL --on set` and `%run CALL --on absint DOMAIN`: a concrete run drawn on the
//! symbolic tree (the leaf whose path condition the input satisfies, with the tree's outcome
//! there beside the run's) and on abstract interpretation (the int values each local held as
//! each node started, beside the node's abstract state; a value outside it is a soundness bug).

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use petgraph::graph::NodeIndex;
use serde_json::{Value, json};

use super::run::{
    Activation, Traced, activations, call_parts, outcome_line, run_json, traced_call,
    traced_call_with,
};
use super::{Figure, figure};
use crate::cancel::Cancel;
use crate::cfg::Walk;
use crate::dataflow::absint::{self, AbsInt, AbsReport};
use crate::dataflow::analyses::Program as FlowProgram;
use crate::dataflow::domains::{AbstractDomain, Constant, Interval, Parity, Sign, Zero};
use crate::dataflow::engine::{FixpointError, iterate_to_fixpoint};
use crate::dataflow::lattice::MaybeReachable;
use crate::interp::Limits;
use crate::interp::trace::Snapshot;
use crate::notebook::invocation::{Invocation, split_words};
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session, run_error};
use crate::python::{PyValue, lower_module};
use crate::render::html::{escape, text_table};
use crate::render::run::{TAKEN as PATH, legend_html, run_dot_flagged, tree_path_dot};
use crate::render::set as set_render;
use crate::symexec::check::{Prediction, Predictor};
use crate::symexec::{Inputs, NodeId, Program, Tree, execute};

/// What a run is drawn on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum On {
    /// The CFG (edges taken), with the `%constraints` path id: the default.
    Cfg,
    /// The symbolic execution tree of `%set`.
    Set,
    /// Abstract interpretation in a domain (built-in or a user's).
    Absint(String),
}

impl On {
    /// Reads `--on WHAT [DOMAIN]` from the words after the call.
    pub fn parse(inv: &Invocation) -> Result<On, CellError> {
        let Some(what) = inv.option("--on") else {
            return Ok(On::Cfg);
        };
        match what {
            "cfg" | "constraints" => Ok(On::Cfg),
            "set" => Ok(On::Set),
            "absint" => {
                let tail = super::run::options_text(inv);
                let words = split_words(&tail).map_err(CellError::usage)?;
                let domain = words
                    .iter()
                    .skip_while(|w| !w.starts_with("--on"))
                    .skip(if words.iter().any(|w| w == "--on") {
                        2
                    } else {
                        1
                    })
                    .find(|w| !w.starts_with("--"))
                    .cloned();
                domain.map(On::Absint).ok_or_else(|| {
                    CellError::usage(
                        "--on absint needs a domain, such as %run f(3) --on absint interval",
                    )
                })
            }
            other => Err(CellError::usage(format!(
                "--on takes cfg, constraints, set or absint DOMAIN, got {other:?}"
            ))),
        }
    }
}

/// Runs `%run CALL --on set|absint DOMAIN`.
pub fn run(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    call: &str,
    on: On,
) -> Result<(), CellError> {
    let view = match on {
        On::Cfg => unreachable_cfg()?,
        On::Set => on_set(session, inv, ctx, call)?,
        On::Absint(domain) => on_absint(session, ctx, call, &domain)?,
    };
    ctx.show(&view, inv)
}

fn unreachable_cfg() -> Result<View, CellError> {
    Err(CellError::new(
        "InternalError",
        "%run --on cfg is drawn by %run itself",
    ))
}

// ---------------------------------------------------------------------------------------
// On the symbolic tree.

/// The values of the call's arguments, by parameter name, evaluated in the session (once
/// more than the run itself evaluates them, with their output discarded).
pub(super) fn argument_values(
    session: &mut Session,
    ctx: &mut Ctx<'_>,
    call: &str,
    function: &str,
) -> Result<Vec<(String, PyValue)>, CellError> {
    let parts = call_parts(call)?;
    if parts.keywords.iter().any(|(k, _)| k.is_none()) {
        return Err(CellError::usage(
            "%run --on set takes positional and keyword arguments, not **mapping",
        ));
    }
    let f = session.require_lowered(function)?.clone();
    if f.params.iter().any(|p| {
        matches!(
            p.kind,
            crate::python::ir::ParamKind::VarArgs | crate::python::ir::ParamKind::KwArgs
        )
    }) {
        return Err(CellError::new(
            "UnsupportedError",
            format!("%run --on set: {function} has *args or **kwargs, which %set does not take"),
        ));
    }
    let text = format!(
        "(({}), ({}))",
        parts
            .args
            .iter()
            .map(|a| format!("{a},"))
            .collect::<String>(),
        parts
            .keywords
            .iter()
            .map(|(_, v)| format!("{v},"))
            .collect::<String>()
    );
    let module = lower_module(&text)?;
    let limits = Limits::new(
        session.config.step_budget,
        u32::try_from(session.config.recursion_limit).unwrap_or(u32::MAX),
    );
    let mut quiet = |_: crate::interp::Stream, _: &str| {};
    let value = session
        .interpreter
        .run_module(&module, &mut quiet, ctx.cancel, limits)
        .map_err(|e| run_error(e, call))?
        .and_then(|v| v.value);
    let not_data = || {
        CellError::usage(format!(
            "%run --on set: the arguments of {call} must be plain data (int, bool, float, str, \
             tuples and lists of them) to be substituted into the tree's path conditions"
        ))
    };
    let (args, kwargs) = match value {
        Some(PyValue::Tuple(pair)) => match <[PyValue; 2]>::try_from(pair) {
            Ok([PyValue::Tuple(a), PyValue::Tuple(k)]) => (a, k),
            _ => return Err(not_data()),
        },
        _ => return Err(not_data()),
    };
    let mut bound: Vec<(String, PyValue)> = Vec::new();
    for (p, v) in f.params.iter().zip(args) {
        bound.push((p.name.clone(), v));
    }
    if parts.args.len() > f.params.len() {
        return Err(CellError::new(
            "TypeError",
            format!(
                "{function}() takes {} positional arguments but {} were given",
                f.params.len(),
                parts.args.len()
            ),
        ));
    }
    for ((name, _), v) in parts.keywords.iter().zip(kwargs) {
        let name = name.clone().unwrap_or_default();
        if bound.iter().any(|(n, _)| *n == name) {
            return Err(CellError::new(
                "TypeError",
                format!("{function}() got multiple values for argument '{name}'"),
            ));
        }
        bound.push((name, v));
    }
    Ok(bound)
}

/// Builds `%set F`'s tree with the session's settings.
fn tree_of(session: &Session, ctx: &Ctx<'_>, function: &str) -> Result<Tree, CellError> {
    let functions = super::set::session_functions(session);
    let program = Program::function(function, functions.iter().map(|f| f.as_ref()), &[])
        .map_err(|e| CellError::new("UnsupportedError", e.to_string()))?;
    let options = super::set::session_options(session, session.config.unroll, session.config.depth);
    execute(&program, &options, ctx.cancel).map_err(|e| match e {
        crate::symexec::SymexecError::Stopped(s) => s.into(),
        other => CellError::new("UnsupportedError", other.to_string()),
    })
}

/// Whether the tree's prediction is what the run did (`None`: nothing to compare).
fn agrees(p: &Prediction, t: &Traced) -> Option<bool> {
    match p {
        Prediction::Return(v) => {
            Some(t.exception.is_none() && t.result.as_deref() == Some(&*v.repr()))
        }
        Prediction::Raised { type_name, message } => Some(match &t.exception {
            Some((ty, msg)) => ty == type_name && message.as_ref().is_none_or(|m| m == msg),
            None => false,
        }),
        _ => None,
    }
}

fn prediction_text(p: &Prediction) -> String {
    match p {
        Prediction::Return(v) => format!("returns {}", v.repr()),
        Prediction::Raised {
            type_name,
            message: Some(m),
        } => format!("raises {type_name}: {m}"),
        Prediction::Raised { type_name, .. } => format!("raises {type_name}"),
        Prediction::Normal(_) => "ends normally".into(),
        Prediction::Bound(reason) => format!("is cut by a bound ({reason})"),
        Prediction::NoLeaf => "has no leaf for this input".into(),
        Prediction::Unknown(why) => format!("cannot be evaluated ({why})"),
    }
}

fn prediction_json(p: &Prediction) -> Value {
    match p {
        Prediction::Return(v) => json!({"kind": "return", "value": v.repr()}),
        Prediction::Raised { type_name, message } => {
            json!({"kind": "exception", "type": type_name, "message": message})
        }
        Prediction::Normal(_) => json!({"kind": "normal"}),
        Prediction::Bound(reason) => json!({"kind": "bound", "reason": reason}),
        Prediction::NoLeaf => json!({"kind": "no_leaf"}),
        Prediction::Unknown(why) => json!({"kind": "unknown", "reason": why}),
    }
}

/// The nodes from the root to `leaf`.
fn path_to(tree: &Tree, leaf: NodeId) -> Vec<NodeId> {
    let mut path = vec![leaf];
    let mut n = leaf;
    while let Some(p) = tree.nodes.get(n).and_then(|x| x.parent) {
        path.push(p);
        n = p;
    }
    path.reverse();
    path
}

fn on_set(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    call: &str,
) -> Result<View, CellError> {
    let _ = inv;
    let parts = call_parts(call)?;
    let Some(function) = parts.name.clone() else {
        return Err(CellError::usage(
            "%run --on set takes a call of a function by name (the tree of a method is not built)",
        ));
    };
    let inputs = argument_values(session, ctx, call, &function)?;
    let tree = tree_of(session, ctx, &function)?;
    let traced = traced_call(session, call, ctx)?;
    let mut ordered: Vec<(String, PyValue)> = Vec::new();
    for (name, _) in &tree.inputs {
        match inputs.iter().find(|(n, _)| n == name) {
            Some((_, v)) => ordered.push((name.clone(), v.clone())),
            None => {
                return Err(CellError::usage(format!(
                    "%run --on set: give {name} a value in the call (the tree has it as an \
                     input; a default value is not substituted)"
                )));
            }
        }
    }
    let env = Inputs(tree.inputs.clone())
        .env()
        .map_err(|e| CellError::new("UnsupportedError", e.to_string()))?;
    let timeout = u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX);
    let solver_error = |e: crate::symexec::check::CheckError| -> CellError {
        match e {
            crate::symexec::check::CheckError::Stopped(s) => s.into(),
            other => CellError::new("SolverError", other.to_string()),
        }
    };
    let mut predictor = Predictor::new(&tree, &env, timeout, ctx.cancel);
    let (leaf, prediction) = predictor.predict(&ordered).map_err(solver_error)?;
    // With no leaf, the docstring preconditions the tree assumes at its root that fail.
    let mut failed_pre = Vec::new();
    if leaf.is_none() {
        for (text, condition) in &tree.preconditions {
            let one = [(text.clone(), condition.clone())];
            if predictor.satisfies(&ordered, &one).map_err(solver_error)? == Some(false) {
                failed_pre.push(text.clone());
            }
        }
    }
    let headline = outcome_line(&traced);
    let agree = agrees(&prediction, &traced);
    let approximate = leaf.is_some_and(|l| tree.is_approximate(l));
    let input_text: Vec<String> = ordered
        .iter()
        .map(|(n, v)| format!("{n}={}", v.repr()))
        .collect();
    let mut lines = vec![headline.clone()];
    let (summary, pc) = match leaf {
        Some(l) => {
            let pc = set_render::path_condition(&tree.nodes[l]);
            let verdict = match agree {
                Some(true) => "the run agrees",
                Some(false) => "the run DISAGREES",
                None => "nothing to compare",
            };
            (
                format!(
                    "The input ({}) reaches leaf {l} of %set {function}{}: the tree {} there; {verdict}.",
                    input_text.join(", "),
                    if approximate {
                        " (≈ approximate)"
                    } else {
                        ""
                    },
                    prediction_text(&prediction)
                ),
                Some(pc),
            )
        }
        None if !failed_pre.is_empty() => (
            format!(
                "The input ({}) reaches no leaf of %set {function}: it fails the docstring \
                 precondition {}, which the tree assumes.",
                input_text.join(", "),
                failed_pre.join(", ")
            ),
            None,
        ),
        None => (
            format!(
                "The input ({}) reaches no leaf of %set {function}: the tree {}.",
                input_text.join(", "),
                prediction_text(&prediction)
            ),
            None,
        ),
    };
    lines.push(summary.clone());
    if let Some(pc) = &pc {
        lines.push(format!("path condition: {pc}"));
    }
    let path = leaf.map(|l| path_to(&tree, l)).unwrap_or_default();
    if let Some(&l) = path.last()
        && l >= tree
            .nodes
            .len()
            .min(crate::render::set_summary::FIGURE_NODES)
    {
        lines.push(format!(
            "Leaf {l} is past the nodes the figure draws; the leaf table lists it."
        ));
    }
    let title = format!(
        "{headline} — leaf {}",
        leaf.map_or("none".into(), |l| l.to_string())
    );
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(tree_path_dot(&tree, &path, &title), None, session, ctx)?;
    let html = format!(
        "{note}<div class=\"analysis-kernel-legend\" style=\"font-size:smaller;color:#555;margin:4px 0\">\
         <span style=\"color:{PATH}\">The thick path</span> is the run's, down to the leaf whose \
         path condition the input satisfies.</div><p><b>{}</b><br>{}{}</p>{}",
        escape(&headline),
        escape(&summary),
        pc.as_ref()
            .map(|p| format!("<br>path condition: <code>{}</code>", escape(p)))
            .unwrap_or_default(),
        set_render::leaf_table_html(&tree)
    );
    let mut fields = run_fields(session, &traced)?;
    fields["on"] = json!("set");
    fields["set"] = json!({
        "function": function,
        "inputs": ordered.iter().map(|(n, v)| (n.clone(), json!(v.repr()))).collect::<serde_json::Map<String, Value>>(),
        "leaf": leaf,
        "path": path,
        "path_condition": pc,
        "approximate": approximate,
        "tree_outcome": prediction_json(&prediction),
        "failed_preconditions": failed_pre,
        "agrees": agree,
    });
    Ok(View {
        kind: "run",
        text: lines.join("\n"),
        html,
        svg,
        dot: Some(dot),
        json: payload("run", fields),
    })
}

/// The fields of the plain `%run` payload for `traced` (on the function's CFG).
fn run_fields(session: &Session, traced: &Traced) -> Result<Value, CellError> {
    let f = session.require_lowered(&traced.function)?.clone();
    let cfg =
        crate::cfg::function_cfg(&f).map_err(|e| CellError::new("CfgError", e.to_string()))?;
    let acts = activations(&traced.trace);
    let (lines, returned) = own_lines(&acts, &traced.function);
    let walk = Walk::of(&cfg, &lines, &returned);
    Ok(run_json(traced, &cfg, &walk, &acts))
}

fn own_lines(acts: &[Activation], function: &str) -> (Vec<Vec<u32>>, Vec<bool>) {
    acts.iter()
        .filter(|a| a.function == function)
        .map(|a| (a.lines.clone(), a.raised == Some(false)))
        .unzip()
}

// ---------------------------------------------------------------------------------------
// On abstract interpretation.

/// The int locals of the run at one node: a line event of F that stepped to `node`.
#[derive(Clone, Debug)]
pub struct Observation {
    pub node: NodeIndex,
    pub line: u32,
    pub values: Snapshot,
}

/// A concrete value outside the abstract state before its node: a soundness bug.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub node: NodeIndex,
    pub line: u32,
    pub variable: String,
    pub value: BigInt,
    /// The abstract value (`unreachable` when the node's state is).
    pub abstract_value: String,
}

/// Abstract interpretation of `program` in `D`, and the observations outside their node's
/// state (only variables the analysis shows are judged).
pub fn judge<D: AbstractDomain>(
    program: &FlowProgram<'_>,
    observations: &[Observation],
    cancel: &Cancel,
) -> Result<(AbsReport, Vec<Finding>), FixpointError> {
    let options = absint::options(false, Some(cancel));
    let report = absint::analyze::<D>(program, &options)?;
    let results = iterate_to_fixpoint(&program.cfg, AbsInt::<D>::new(program), &options)?;
    let states = results.node_states();
    let shown: BTreeSet<&str> = report.variables.iter().map(String::as_str).collect();
    let mut findings = Vec::new();
    for o in observations {
        let Some(state) = states.get(o.node.index()) else {
            continue;
        };
        for (var, value) in &o.values {
            if !shown.contains(var.as_str()) {
                continue;
            }
            let abstract_value = match &state.before {
                MaybeReachable::Unreachable => Some("unreachable".to_string()),
                MaybeReachable::Reachable(env) => {
                    use crate::dataflow::absint::Bindings;
                    match env.value(var) {
                        Some(d) if d.contains(value) => None,
                        Some(d) => Some(d.to_string()),
                        None => Some(D::BOTTOM.to_string()),
                    }
                }
            };
            if let Some(abstract_value) = abstract_value {
                let f = Finding {
                    node: o.node,
                    line: o.line,
                    variable: var.clone(),
                    value: value.clone(),
                    abstract_value,
                };
                if !findings.contains(&f) {
                    findings.push(f);
                }
            }
        }
    }
    Ok((report, findings))
}

type Judge = fn(
    &FlowProgram<'_>,
    &[Observation],
    &Cancel,
) -> Result<(AbsReport, Vec<Finding>), FixpointError>;

/// The built-in domains' judges (the rows of `registry::DOMAINS`).
const BUILTIN: &[(&str, Judge)] = &[
    (Zero::NAME, judge::<Zero>),
    (Sign::NAME, judge::<Sign>),
    (Constant::NAME, judge::<Constant>),
    (Interval::NAME, judge::<Interval>),
    (Parity::NAME, judge::<Parity>),
];

/// The observations of F's activations: each line event that stepped to a node, with the
/// int locals as the line started.
fn observations(traced: &Traced, acts: &[Activation], walk: &Walk) -> Vec<Observation> {
    let Some(snaps) = traced.trace.snapshots.as_ref() else {
        return Vec::new();
    };
    let mine = acts.iter().filter(|a| a.function == traced.function);
    let mut out = Vec::new();
    for (a, at) in mine.zip(&walk.at) {
        for ((&event, &line), node) in a.events.iter().zip(&a.lines).zip(at) {
            let Some(node) = *node else { continue };
            if let Ok(k) = snaps.binary_search_by_key(&event, |(e, _)| *e) {
                out.push(Observation {
                    node,
                    line,
                    values: snaps[k].1.clone(),
                });
            }
        }
    }
    out
}

fn on_absint(
    session: &mut Session,
    ctx: &mut Ctx<'_>,
    call: &str,
    domain: &str,
) -> Result<View, CellError> {
    let builtin = BUILTIN.iter().find(|(n, _)| *n == domain).map(|(_, j)| *j);
    let user = builtin.is_none() && super::user::is_user_domain(session, Some(&domain.to_string()));
    if builtin.is_none() && !user {
        return Err(CellError::usage(format!(
            "unknown domain {domain:?}: choose one of {} or a domain registered with %domain",
            crate::dataflow::registry::DOMAIN_NAMES.join(", ")
        )));
    }
    let traced = traced_call_with(session, call, ctx, true)?;
    let f = session.require_lowered(&traced.function)?.clone();
    let program =
        FlowProgram::function(&f).map_err(|e| CellError::new("CfgError", e.to_string()))?;
    let acts = activations(&traced.trace);
    let (lines, returned) = own_lines(&acts, &traced.function);
    let walk = Walk::of(&program.cfg, &lines, &returned);
    let obs = observations(&traced, &acts, &walk);
    let (report, findings) = match builtin {
        Some(j) => j(&program, &obs, ctx.cancel)
            .map_err(|e| CellError::new("FixpointError", e.to_string()))?,
        None => {
            let name = domain.to_string();
            let cancel = ctx.cancel.clone();
            let f2 = f.clone();
            let obs2 = obs.clone();
            super::user::on_worker(session, ctx, move || user_judge(&name, &f2, &obs2, &cancel))?
                .map_err(|f| super::user::failure(f, "domain"))?
        }
    };
    view(
        session, ctx, &traced, &program, &walk, &acts, &obs, &report, &findings, domain,
    )
}

/// [`judge`] in a user domain, on the interpreter's thread.
fn user_judge(
    name: &str,
    f: &crate::python::ir::Function,
    obs: &[Observation],
    cancel: &Cancel,
) -> Result<(AbsReport, Vec<Finding>), crate::dataflow::user::Failure> {
    use crate::dataflow::user::{self, Failure, Kind, UserElem, domain};
    let class = user::class_of(Kind::Domain, name)
        .map_err(Failure::Host)?
        .ok_or_else(|| Failure::Unknown(name.to_string()))?;
    let _entered = domain::Context::enter(user::intern(name), &class)
        .map_err(|error| Failure::User { error, step: None })?;
    let program = FlowProgram::function(f)
        .map_err(|e| Failure::Host(crate::interp::RunError::Crashed(e.to_string())))?;
    let result = judge::<UserElem>(&program, obs, cancel);
    if let Some(error) = domain::take_error() {
        let step = error.node.map(|n| user::describe_node(&program, n));
        return Err(Failure::User { error, step });
    }
    let (mut report, findings) = result.map_err(Failure::Fixpoint)?;
    report.name = user::intern(name);
    Ok((report, findings))
}

const BUG: &str = "#c62828";

#[allow(clippy::too_many_arguments)]
fn view(
    session: &Session,
    ctx: &Ctx<'_>,
    traced: &Traced,
    program: &FlowProgram<'_>,
    walk: &Walk,
    acts: &[Activation],
    obs: &[Observation],
    report: &AbsReport,
    findings: &[Finding],
    domain: &str,
) -> Result<View, CellError> {
    let cfg = &program.cfg;
    let headline = outcome_line(traced);
    // Concrete values per node and variable, in first-seen order of nodes.
    let mut seen: BTreeMap<usize, BTreeMap<String, BTreeSet<BigInt>>> = BTreeMap::new();
    for o in obs {
        let at = seen.entry(o.node.index()).or_default();
        for (v, x) in &o.values {
            at.entry(v.clone()).or_default().insert(x.clone());
        }
    }
    let flagged: BTreeSet<usize> = findings.iter().map(|f| f.node.index()).collect();
    let is_bug = |n: usize, var: &str, x: &BigInt| {
        findings
            .iter()
            .any(|f| f.node.index() == n && f.variable == var && &f.value == x)
    };
    let headers = [
        "node",
        "line",
        "statement",
        "abstract IN",
        "concrete (the run)",
    ];
    let mut text_rows = Vec::new();
    let mut html_rows = Vec::new();
    for (&n, vars) in &seen {
        let node = NodeIndex::new(n);
        let statement = cfg
            .node(node)
            .label
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        let state = report
            .nodes
            .get(n)
            .map(|s| s.before.text())
            .unwrap_or_default();
        let concrete_text = |mark: &dyn Fn(&str, &BigInt, String) -> String| {
            vars.iter()
                .map(|(v, xs)| {
                    let items: Vec<String> = xs
                        .iter()
                        .take(8)
                        .map(|x| mark(v.as_str(), x, x.to_string()))
                        .collect();
                    let more = if xs.len() > 8 {
                        format!(", … ({} values)", xs.len())
                    } else {
                        String::new()
                    };
                    format!("{v} ∈ {{{}{more}}}", items.join(", "))
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let plain = concrete_text(&|v, x, s| if is_bug(n, v, x) { format!("{s}!") } else { s });
        let marked = concrete_text(&|v, x, s| {
            if is_bug(n, v, x) {
                format!(
                    "<span style=\"color:{BUG};font-weight:bold\">{}</span>",
                    escape(&s)
                )
            } else {
                escape(&s)
            }
        });
        let line = program.line(node).to_string();
        text_rows.push(vec![
            n.to_string(),
            line.clone(),
            statement.clone(),
            state.clone(),
            plain,
        ]);
        html_rows.push(vec![
            escape(&n.to_string()),
            escape(&line),
            escape(&statement),
            escape(&state),
            marked,
        ]);
    }
    let verdict = if findings.is_empty() {
        format!(
            "Every int value the run held is inside its node's abstract state in {domain} ({} observations at {} nodes).",
            obs.len(),
            seen.len()
        )
    } else {
        format!(
            "SOUNDNESS BUG: {} concrete value{} outside the abstract state of {domain}.",
            findings.len(),
            if findings.len() == 1 { " is" } else { "s are" }
        )
    };
    let finding_lines: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "line {} (node {}): {} = {} but {domain} says {}",
                f.line,
                f.node.index(),
                f.variable,
                f.value,
                f.abstract_value
            )
        })
        .collect();
    let mut text = format!("{headline}\n{verdict}\n");
    for l in &finding_lines {
        text.push_str(&format!("- {l}\n"));
    }
    text.push_str(&text_table(&headers, &text_rows));
    if traced.trace.cut {
        text.push_str("\nThe trace was cut: later steps are not judged.");
    }
    if traced
        .trace
        .snapshots
        .as_ref()
        .is_some_and(|s| s.len() >= crate::interp::trace::MAX_SNAPSHOTS)
    {
        text.push_str(&format!(
            "\nLocals were kept for the first {} line events of the run (all functions); later steps are not judged.",
            crate::interp::trace::MAX_SNAPSHOTS
        ));
    }
    let title = format!("{headline} — {domain}");
    let flagged_nodes: Vec<NodeIndex> = flagged.iter().map(|&n| NodeIndex::new(n)).collect();
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(
        run_dot_flagged(cfg, walk, &title, &flagged_nodes),
        None,
        session,
        ctx,
    )?;
    let bug_html: String = finding_lines
        .iter()
        .map(|l| format!("<li style=\"color:{BUG}\">{}</li>", escape(l)))
        .collect();
    let html = format!(
        "{note}{}<p><b>{}</b><br><span style=\"color:{}\">{}</span></p>{}{}",
        legend_html(
            "Red nodes hold a concrete value outside their abstract state (a soundness bug); \
             the table shows each visited node's abstract IN state beside the int values the run held there."
        ),
        escape(&headline),
        if findings.is_empty() { "#2e7d32" } else { BUG },
        escape(&verdict),
        if bug_html.is_empty() {
            String::new()
        } else {
            format!("<ul>{bug_html}</ul>")
        },
        table_raw(&headers, &html_rows)
    );
    let mut fields = run_json(traced, cfg, walk, acts);
    fields["on"] = json!("absint");
    let nodes: Vec<Value> = seen
        .iter()
        .map(|(&n, vars)| {
            json!({
                "id": cfg.node_id(NodeIndex::new(n)),
                "line": program.line(NodeIndex::new(n)),
                "abstract": report.nodes.get(n).map(|s| s.before.json()),
                "reachable": report.nodes.get(n).map(|s| s.before.reachable),
                "concrete": vars.iter().map(|(v, xs)| (v.clone(), json!(xs.iter().map(|x| x.to_string()).collect::<Vec<_>>()))).collect::<serde_json::Map<String, Value>>(),
            })
        })
        .collect();
    fields["absint"] = json!({
        "domain": domain,
        "observations": obs.len(),
        "nodes": nodes,
        "soundness_bugs": findings.iter().map(|f| json!({
            "node": cfg.node_id(f.node),
            "line": f.line,
            "variable": f.variable,
            "value": f.value.to_string(),
            "abstract": f.abstract_value,
        })).collect::<Vec<_>>(),
        "sound": findings.is_empty(),
    });
    Ok(View {
        kind: "run",
        text: text.trim_end().to_string(),
        html,
        svg,
        dot: Some(dot),
        json: payload("run", fields),
    })
}

/// An HTML table whose cells are already HTML.
fn table_raw(headers: &[&str], rows: &[Vec<String>]) -> String {
    let head: String = headers
        .iter()
        .map(|h| format!("<th>{}</th>", escape(h)))
        .collect();
    let body: String = rows
        .iter()
        .map(|r| {
            format!(
                "<tr>{}</tr>",
                r.iter()
                    .map(|c| format!("<td>{c}</td>"))
                    .collect::<String>()
            )
        })
        .collect();
    format!("<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
}
