//! Grading one submission in this process: its cells run in a fresh session with the spec's
//! budgets pinned (no `%config` in a submission can raise them) and the CPython oracle off,
//! then each criterion is evaluated.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::feedback::CellRun;
use super::spec::{Criterion, Spec, Test};
use crate::cancel::Cancel;
use crate::interp::{Interpreter, Limits};
use crate::notebook::{CellError, Output, Session};
use crate::python::{PyValue, lower_module};

/// The settings a submission may not change.
const PINNED: &[&str] = &[
    "step_budget",
    "memory_mb",
    "time_limit_s",
    "cpython_oracle",
    "z3_timeout_ms",
    "solver_budget_ms",
];

/// Steps an `expect` expression may take (it runs over the payload, not the submission).
const EXPECT_STEPS: u64 = 10_000_000;

/// What one criterion gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriterionResult {
    pub name: String,
    pub score: f64,
    pub max_score: f64,
    pub passed: bool,
    /// What the student is told.
    pub output: String,
    pub visibility: super::spec::Visibility,
}

/// A graded submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubmissionReport {
    pub submission: String,
    pub criteria: Vec<CriterionResult>,
    /// Errors the submission's own cells raised: (cell number, `Name: message`).
    pub cell_errors: Vec<(usize, String)>,
    /// Why the submission could not be graded at all (unreadable, killed), if so.
    pub failure: Option<String>,
    pub seconds: f64,
}

impl SubmissionReport {
    pub fn score(&self) -> f64 {
        self.criteria.iter().map(|c| c.score).sum()
    }

    /// Every criterion failed with `why` (the submission could not be run).
    pub fn failed(submission: &str, spec: &Spec, why: &str, seconds: f64) -> SubmissionReport {
        SubmissionReport {
            submission: submission.to_string(),
            criteria: spec
                .criteria
                .iter()
                .map(|c| result(c, false, why.to_string()))
                .collect(),
            cell_errors: Vec::new(),
            failure: Some(why.to_string()),
            seconds,
        }
    }
}

fn result(c: &Criterion, passed: bool, output: String) -> CriterionResult {
    let output = match (&c.hint, passed) {
        (Some(hint), false) => format!("{output}\nHint: {hint}"),
        _ => output,
    };
    CriterionResult {
        name: c.name.clone(),
        score: if passed { c.points } else { 0.0 },
        max_score: c.points,
        passed,
        output,
        visibility: c.visibility,
    }
}

/// A session for a submission: no Graphviz (payloads suffice), the spec's budgets pinned.
fn session(spec: &Spec) -> Session {
    let mut s = Session::new(false);
    s.skip_layout = true;
    s.config.step_budget = spec.limits.step_budget;
    s.config.memory_mb = spec.limits.memory_mb;
    s.config.cpython_oracle = 0;
    // Batch settings: the long timeout and no solver time budget (see `Config`).
    s.config.z3_timeout_ms = crate::notebook::config::BATCH_Z3_TIMEOUT_MS;
    s.config.solver_budget_ms = 0;
    s.config.pinned = PINNED.to_vec();
    s
}

/// Runs `code` as a cell within what is left of `deadline`; its outputs.
fn execute(
    session: &mut Session,
    code: &str,
    deadline: Instant,
    cancel: &Cancel,
) -> (Result<(), CellError>, Vec<Output>) {
    let left = deadline.saturating_duration_since(Instant::now());
    session.config.time_limit_s = left.as_secs_f64().ceil().max(1.0) as u64;
    session.run_cell(code, cancel)
}

fn error_text(e: &CellError) -> String {
    format!("{}: {}", e.ename, e.evalue)
}

/// Grades the submission whose code cells are `cells`.
pub fn grade_cells(spec: &Spec, submission: &str, cells: &[String]) -> SubmissionReport {
    grade_cells_with_runs(spec, submission, cells).0
}

/// Grades the submission whose code cells are `cells`; also what each cell gave, for the
/// executed notebook (one entry per cell that ran).
pub fn grade_cells_with_runs(
    spec: &Spec,
    submission: &str,
    cells: &[String],
) -> (SubmissionReport, Vec<CellRun>) {
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(spec.limits.time_limit_s);
    let cancel = Cancel::new();
    let mut session = session(spec);
    let mut cell_errors = Vec::new();
    let mut timed_out = false;
    let mut runs = Vec::with_capacity(cells.len());
    for (i, cell) in cells.iter().enumerate() {
        if Instant::now() >= deadline {
            timed_out = true;
            break;
        }
        let (result, outputs) = execute(&mut session, cell, deadline, &cancel);
        if let Err(e) = &result {
            cell_errors.push((i + 1, error_text(e)));
        }
        runs.push(Some((super::feedback::trim(outputs), result.err())));
    }
    let over = format!(
        "not graded: the submission used up its {} s",
        spec.limits.time_limit_s
    );
    let criteria = spec
        .criteria
        .iter()
        .map(|c| {
            if timed_out || Instant::now() >= deadline {
                return result(c, false, over.clone());
            }
            let (passed, output) = evaluate(&mut session, c, deadline, &cancel);
            result(c, passed, output)
        })
        .collect();
    let report = SubmissionReport {
        submission: submission.to_string(),
        criteria,
        cell_errors,
        failure: None,
        seconds: start.elapsed().as_secs_f64(),
    };
    (report, runs)
}

/// Whether the criterion holds, and what to tell the student.
fn evaluate(
    session: &mut Session,
    c: &Criterion,
    deadline: Instant,
    cancel: &Cancel,
) -> (bool, String) {
    match &c.test {
        Test::Function { name, signature } => match session.function(name).cloned() {
            None => (false, format!("no function {name}() is defined")),
            // The cell with the `def` raised before reaching it (or the name was rebound).
            Some(_) if !bound_to_function(session, name, cancel) => (
                false,
                format!(
                    "{name}() is written but not defined: the cell that defines it raised an error first"
                ),
            ),
            Some(f) => {
                let found = f.signature();
                match signature {
                    Some(want) if squeeze(want) != squeeze(&found) => (
                        false,
                        format!("{name}() is defined as {found}, expected {want}"),
                    ),
                    _ => (true, format!("{found} is defined")),
                }
            }
        },
        Test::Tests { code } => match execute(session, code, deadline, cancel) {
            (Ok(()), _) => (true, "all tests passed".to_string()),
            (Err(e), _) => (false, format!("a test failed: {}", error_text(&e))),
        },
        Test::Equiv {
            function,
            reference,
            options,
        } => equiv(session, function, reference, options, deadline, cancel),
        Test::View { command, expect } => {
            let (result, out) = execute(session, command, deadline, cancel);
            if let Err(e) = result {
                return (false, format!("{command} failed: {}", error_text(&e)));
            }
            let Some(payload) = last_payload(&out) else {
                return (false, format!("{command} showed no view"));
            };
            match holds_over(expect, payload, &payloads(&out)) {
                Ok(true) => (true, format!("{command}: passed")),
                Ok(false) => (false, format!("{command}: expected {expect}")),
                Err(why) => (false, format!("{command}: cannot evaluate {expect}: {why}")),
            }
        }
    }
}

/// The `equiv` criterion: defines the reference, runs `%equiv`, passes on "equivalent" or
/// "equivalent up to bound"; the feedback is the verdict (with the distinguishing input).
fn equiv(
    session: &mut Session,
    function: &str,
    reference: &str,
    options: &str,
    deadline: Instant,
    cancel: &Cancel,
) -> (bool, String) {
    let name = match lower_module(reference).map(|m| {
        m.functions()
            .find(|f| !f.qualname.contains('.'))
            .map(|f| f.qualname.clone())
    }) {
        Ok(Some(name)) => name,
        Ok(None) => return (false, "the rubric's reference defines no function".into()),
        Err(e) => return (false, format!("the rubric's reference does not parse: {e}")),
    };
    if session.function(function).is_none() {
        return (false, format!("no function {function}() is defined"));
    }
    if let (Err(e), _) = execute(session, reference, deadline, cancel) {
        return (false, format!("the reference failed: {}", error_text(&e)));
    }
    let command = format!("%equiv {function} {name} --leaves {options}");
    let (result, out) = execute(session, command.trim(), deadline, cancel);
    if let Err(e) = result {
        return (false, format!("%equiv failed: {}", error_text(&e)));
    }
    let Some(payload) = last_payload(&out) else {
        return (false, "%equiv showed no view".into());
    };
    let verdict = payload["verdict"].as_str().unwrap_or("unknown");
    let passed = verdict == "equivalent" || verdict == "equivalent up to bound";
    let detail = match payload["counterexample"]["replay"].as_str() {
        Some(replay) => format!(": {replay}"),
        None => String::new(),
    };
    (
        passed,
        format!("{function}() against the reference: {verdict}{detail}"),
    )
}

/// Whether the interpreter's globals bind `name` to a function.
fn bound_to_function(session: &mut Session, name: &str, cancel: &Cancel) -> bool {
    session.interpreter.variables(cancel).is_ok_and(|vars| {
        vars.iter()
            .any(|v| v.name == name && v.type_name == "function")
    })
}

/// Text without whitespace, to compare signatures as written by hand.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The JSON payload of the last view among `out`.
fn last_payload(out: &[Output]) -> Option<&Json> {
    out.iter().rev().find_map(|o| match o {
        Output::Display(b) | Output::Result(b) => b.data.iter().find_map(|(k, v)| {
            (k.starts_with("application/vnd.analysis-kernel.") && k.ends_with("+json")).then_some(v)
        }),
        _ => None,
    })
}

/// The JSON payloads of every view among `out`, in order (a `run` of several commands).
fn payloads(out: &[Output]) -> Vec<&Json> {
    out.iter()
        .filter_map(|o| match o {
            Output::Display(b) | Output::Result(b) => b.data.iter().find_map(|(k, v)| {
                (k.starts_with("application/vnd.analysis-kernel.") && k.ends_with("+json"))
                    .then_some(v)
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
fn holds(expect: &str, payload: &Json) -> Result<bool, String> {
    holds_over(expect, payload, &[payload])
}

/// Evaluates the Python expression `expect` with `payload` (the last view's) and `payloads`
/// (every view's, in order) bound, in a fresh interpreter (never the submission's, whose
/// globals could shadow builtins).
fn holds_over(expect: &str, payload: &Json, all: &[&Json]) -> Result<bool, String> {
    let listed: Vec<String> = all.iter().map(|p| python_literal(p)).collect();
    let source = format!(
        "payload = {}\npayloads = [{}]\n({expect})\n",
        python_literal(payload),
        listed.join(", ")
    );
    let module = lower_module(&source).map_err(|e| e.to_string())?;
    let mut interp = Interpreter::new();
    let mut quiet = |_: crate::interp::Stream, _: &str| {};
    let value = interp
        .run_module(
            &module,
            &mut quiet,
            &Cancel::new(),
            Limits::new(EXPECT_STEPS, 200),
        )
        .map_err(|e| e.to_string())?;
    match value.and_then(|v| v.value) {
        Some(PyValue::Bool(b)) => Ok(b),
        None => Ok(false),
        Some(other) => Err(format!("it gave {}, not True or False", other.repr())),
    }
}

/// JSON as a Python literal (`null` → `None`, `true` → `True`, strings as JSON writes them,
/// which Python reads the same).
pub fn python_literal(v: &Json) -> String {
    match v {
        Json::Null => "None".into(),
        Json::Bool(true) => "True".into(),
        Json::Bool(false) => "False".into(),
        Json::Number(n) => n.to_string(),
        Json::String(s) => serde_json::to_string(s).unwrap_or_else(|_| "''".into()),
        Json::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(python_literal)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Json::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!(
                    "{}: {}",
                    serde_json::to_string(k).unwrap_or_else(|_| "''".into()),
                    python_literal(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_reads_back_as_the_same_python_value() {
        let v = json!({"a": [1, 2.5, null, true, false], "s": "it's \"q\" \\ é\n"});
        let literal = python_literal(&v);
        assert!(
            holds(
                "payload == {'a': [1, 2.5, None, True, False], 's': 'it\\'s \"q\" \\\\ é\\n'}",
                &v
            )
            .unwrap(),
            "{literal}"
        );
        assert_eq!(
            holds("len(payload['a'])", &v),
            Err("it gave 5, not True or False".into())
        );
        assert!(holds("payload[", &v).is_err());
    }
}
