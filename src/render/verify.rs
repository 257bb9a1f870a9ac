//! `%verify` and `%equiv` reports: the verdict, the obligations, the verdict table (one row
//! per leaf, one column per obligation), the tree in `%set`'s style with failing leaves red
//! and proved ones marked, and the JSON payloads.

use serde_json::{Map, Value as Json, json};

use crate::render::cfg::Attrs;
use crate::render::html::{chip, escape, legend, table, text_table};
use crate::render::set::TreeStyle;
use crate::symexec::NodeId;
use crate::symexec::verify::contract::Form;
use crate::symexec::verify::judge::{Check, LeafStatus, Row};
use crate::symexec::verify::{Kind, Report, Verdict, mark};

/// Red fill of a leaf that fails an obligation (replayed).
pub const REFUTED_FILL: &str = "#e53935";
/// Green border of a leaf whose obligations are all proved.
pub const PROVED_BORDER: &str = "#2e7d32";

/// The one-paragraph verdict.
pub fn summary(r: &Report) -> String {
    let what = match r.kind {
        Kind::Verify => format!("%verify {}", r.functions[0]),
        Kind::Equiv => format!("%equiv {} {}", r.functions[0], r.functions[1]),
    };
    let leaves = r.rows.len();
    let unroll = r.tree.unroll;
    let body = match &r.verdict {
        Verdict::Proved => match r.kind {
            Kind::Verify => {
                format!("every obligation proved on all {leaves} leaf(s); no bound was reached")
            }
            Kind::Equiv => format!(
                "the same outcome on every input: all {leaves} leaf(s) proved; no bound was reached"
            ),
        },
        Verdict::UpToBound { bound_leaves } => format!(
            "proved on every leaf not cut by a bound; {bound_leaves} bound leaf(s) (--unroll {unroll}, --depth {}) are not covered",
            r.depth
        ),
        Verdict::Refuted { row } => {
            let row = &r.rows[*row];
            let clause = match &row.status {
                LeafStatus::Refuted(o) => {
                    let o = &r.obligations[*o];
                    format!("{} {} `{}`", o.label, o.kind, o.text)
                }
                _ => String::new(),
            };
            format!(
                "{clause} fails for {} (leaf {}); replayed in {}",
                row.witness
                    .as_deref()
                    .map(Report::input_text)
                    .unwrap_or_default(),
                row.node,
                row.replay.as_deref().unwrap_or("")
            )
        }
        Verdict::Unknown { reasons } => format!(
            "nothing is claimed: {}",
            reasons
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
                + if reasons.len() > 3 {
                    format!("; and {} more", reasons.len() - 3)
                } else {
                    String::new()
                }
                .as_str()
        ),
    };
    format!("{what}: {} — {body}", r.verdict_name())
}

/// The obligations' rows: label, kind, text, where.
fn obligation_rows(r: &Report) -> Vec<Vec<String>> {
    r.obligations
        .iter()
        .enumerate()
        .map(|(i, o)| {
            vec![
                o.label.clone(),
                o.kind.to_string(),
                o.text.clone(),
                {
                    let form = match &o.form {
                        Form::Bounded(q) => format!("{q}: bounded (loop, --unroll)"),
                        Form::Quantified(q) => format!("{q}: quantified (Z3, no bound)"),
                        Form::Unreadable(why) => format!("not checked: {why}"),
                        Form::Plain => String::new(),
                    };
                    match (&o.place, form.is_empty()) {
                        (Some((f, line)), true) => format!("in {f}(), line {line}"),
                        (Some((f, line)), false) => format!("in {f}(), line {line}; {form}"),
                        (None, _) => form,
                    }
                },
                obligation_status(r, i).to_string(),
            ]
        })
        .collect()
}

/// What the leaves showed of obligation `i`: `refuted` (a leaf fails it, confirmed by the
/// replay), `unknown` (a leaf that checks it says nothing), `not reached`, or `proved`.
pub fn obligation_status(r: &Report, i: usize) -> &'static str {
    if r.rows
        .iter()
        .any(|row| row.status == LeafStatus::Refuted(i))
    {
        return "refuted";
    }
    let on = |row: &Row| row.checks.contains_key(&i);
    // Unknown: a leaf failing it that the replay did not confirm, or an inexact leaf on
    // which it was checked.
    if r.rows.iter().any(|row| match &row.status {
        LeafStatus::Unknown(why) => {
            row.checks.get(&i) == Some(&Check::Refuted)
                || (on(row) && (why.starts_with("approximate") || why.starts_with("the solver")))
        }
        _ => false,
    }) {
        return "unknown";
    }
    if !r.rows.iter().any(on) {
        return "not reached";
    }
    if r.rows
        .iter()
        .any(|row| matches!(row.status, LeafStatus::Bound(_)))
    {
        "proved up to bound"
    } else {
        "proved"
    }
}

fn status_text(r: &Report, s: &LeafStatus) -> String {
    match s {
        LeafStatus::Passed => "passed".into(),
        LeafStatus::Refuted(o) => format!("refuted {}", r.obligations[*o].label),
        LeafStatus::Raises(e) => format!("raises {e}"),
        LeafStatus::Bound(_) => "bound".into(),
        LeafStatus::Excluded => {
            "excluded (a precondition, or a state the invariants exclude)".into()
        }
        LeafStatus::Unknown(why) => format!("unknown: {why}"),
    }
}

fn status_name(s: &LeafStatus) -> &'static str {
    match s {
        LeafStatus::Passed => "passed",
        LeafStatus::Refuted(_) => "refuted",
        LeafStatus::Raises(_) => "raises",
        LeafStatus::Bound(_) => "bound",
        LeafStatus::Excluded => "excluded",
        LeafStatus::Unknown(_) => "unknown",
    }
}

fn headers(r: &Report) -> Vec<String> {
    let mut h: Vec<String> = ["leaf", "path condition", "outcome", "verdict"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    h.extend(r.obligations.iter().map(|o| o.label.clone()));
    h.push("input".into());
    h
}

fn leaf_rows(r: &Report) -> Vec<Vec<String>> {
    r.rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                row.node.to_string(),
                row.path_condition.clone(),
                row.outcome.clone(),
                status_text(r, &row.status),
            ];
            cells.extend((0..r.obligations.len()).map(|i| mark(row.checks.get(&i)).to_string()));
            cells.push(
                row.witness
                    .as_deref()
                    .map(Report::input_text)
                    .unwrap_or_default(),
            );
            cells
        })
        .collect()
}

const MARKS: &str = "✓ proved on the path (the failing branch is infeasible), ✓* holds on this leaf (the inputs failing it are on another leaf), ✗ refuted (replayed)";

/// The report as text: verdict, notes, obligations, verdict table, counterexample.
pub fn text(r: &Report) -> String {
    let mut out = summary(r);
    out.push('\n');
    for n in &r.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if !r.preconditions.is_empty() {
        out.push_str(&format!("assumed: {}\n", r.preconditions.join("; ")));
    }
    out.push('\n');
    out.push_str(&text_table(
        &["", "obligation", "clause", "where", "shown"],
        &obligation_rows(r),
    ));
    out.push_str("\n\n");
    let h = headers(r);
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    out.push_str(&text_table(&h, &leaf_rows(r)));
    out.push_str(&format!("\n{MARKS}\n"));
    if let Some(c) = counterexample_text(r) {
        out.push_str(&format!("\n{c}\n"));
    }
    out
}

fn counterexample_text(r: &Report) -> Option<String> {
    let Verdict::Refuted { row } = &r.verdict else {
        return None;
    };
    let row = &r.rows[*row];
    Some(format!(
        "counterexample: {}\nreplayed in {}",
        row.witness
            .as_deref()
            .map(Report::input_text)
            .unwrap_or_default(),
        row.replay.as_deref().unwrap_or("")
    ))
}

/// The line under the figure explaining its marks (after `%set`'s colours).
pub fn legend_html() -> String {
    legend(&format!(
        "The symbolic execution tree of the generated harness. Leaves: {} {} {} {}.",
        chip(
            &format!("background:{REFUTED_FILL};color:white"),
            "✗ refuted (input replayed)"
        ),
        chip(
            &format!("border:3px solid {PROVED_BORDER}"),
            "✓ every obligation proved"
        ),
        chip(
            &format!("border:2px solid {PROVED_BORDER}"),
            "✓* holds here, fails on another leaf"
        ),
        chip("border-style:dashed", "? unknown"),
    )) + &crate::render::set::legend_html()
}

/// The report as HTML (the figure is inlined before it by the view).
pub fn html(r: &Report) -> String {
    let colour = match r.verdict {
        Verdict::Proved | Verdict::UpToBound { .. } => PROVED_BORDER,
        Verdict::Refuted { .. } => REFUTED_FILL,
        Verdict::Unknown { .. } => "#666666",
    };
    let mut out = format!(
        "<div class=\"analysis-kernel-summary\" style=\"border-left:4px solid {colour};padding-left:6px\">{}</div>",
        escape(&summary(r))
    );
    for n in &r.notes {
        out.push_str(&format!(
            "<div class=\"analysis-kernel-note\">{}</div>",
            escape(n)
        ));
    }
    if let Some(c) = counterexample_text(r) {
        out.push_str(&format!("<pre>{}</pre>", escape(&c)));
    }
    out.push_str(&table(
        &["", "obligation", "clause", "where", "shown"],
        &obligation_rows(r),
    ));
    let h = headers(r);
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    out.push_str(&table(&h, &leaf_rows(r)));
    out.push_str(&format!(
        "<div class=\"analysis-kernel-note\">{}</div>",
        escape(MARKS)
    ));
    out
}

/// The tree in `%set`'s style, restyled from the report: refuted leaves filled red with the
/// obligation they fail, leaves whose obligations are all proved with a green border and ✓,
/// unknown leaves marked `?`.
pub fn dot(r: &Report) -> String {
    crate::render::set::styled_dot(&r.tree, &Verdicts(r))
}

/// The verdicts as a [`TreeStyle`] of `%set`'s tree.
struct Verdicts<'r>(&'r Report);

impl TreeStyle for Verdicts<'_> {
    fn restyle(&self) -> Vec<(NodeId, Attrs)> {
        let r = self.0;
        let mut out = Vec::new();
        for row in &r.rows {
            let mut attrs = Attrs::default();
            match &row.status {
                LeafStatus::Refuted(o) => attrs
                    .text("style", "filled, bold")
                    .text("fillcolor", REFUTED_FILL)
                    .text("fontcolor", "white")
                    .raw("penwidth", "2")
                    .text("xlabel", &format!("✗ {}", r.obligations[*o].label)),
                LeafStatus::Passed
                    if !row.checks.is_empty()
                        && row.checks.values().all(|c| *c == Check::Proved) =>
                {
                    attrs
                        .text("color", PROVED_BORDER)
                        .raw("penwidth", "3")
                        .text("xlabel", &format!("✓ {}", labels(r, row)))
                }
                LeafStatus::Passed if !row.checks.is_empty() => attrs
                    .text("color", PROVED_BORDER)
                    .raw("penwidth", "2")
                    .text("xlabel", &format!("✓* {}", labels(r, row))),
                LeafStatus::Unknown(_) => attrs.text("xlabel", "?").text("style", "filled, dashed"),
                _ => continue,
            };
            out.push((row.node, attrs));
        }
        out
    }
}

fn labels(r: &Report, row: &Row) -> String {
    row.checks
        .keys()
        .map(|&i| r.obligations[i].label.clone())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `verify` / `equiv` payload (version 1).
pub fn json(r: &Report) -> Json {
    let obligations: Vec<Json> = r
        .obligations
        .iter()
        .enumerate()
        .map(|(i, o)| {
            json!({
                "status": obligation_status(r, i),
                "label": o.label,
                "kind": o.kind,
                "text": o.text,
                "function": o.place.as_ref().map(|p| p.0.clone()),
                "line": o.place.as_ref().map(|p| p.1),
                "form": match &o.form {
                    Form::Plain => "plain".to_string(),
                    Form::Bounded(q) => format!("bounded {q}"),
                    Form::Quantified(q) => format!("quantified {q}"),
                    Form::Unreadable(_) => "unreadable".to_string(),
                },
            })
        })
        .collect();
    let input = |row: &Row| {
        row.witness.as_ref().map(|w| {
            let mut m = Map::new();
            for (k, v) in w {
                m.insert(k.clone(), json!(v.repr()));
            }
            Json::Object(m)
        })
    };
    let leaves: Vec<Json> = r
        .rows
        .iter()
        .map(|row| {
            let mut checks = Map::new();
            for (i, c) in &row.checks {
                checks.insert(
                    r.obligations[*i].label.clone(),
                    json!(match c {
                        Check::Proved => "proved",
                        Check::Holds { .. } => "holds",
                        Check::Refuted => "refuted",
                    }),
                );
            }
            json!({
                "node": row.node.to_string(),
                "path_condition": row.path_condition,
                "outcome": row.outcome,
                "status": status_name(&row.status),
                "obligation": match &row.status {
                    LeafStatus::Refuted(o) => Some(r.obligations[*o].label.clone()),
                    _ => None,
                },
                "reason": match &row.status {
                    LeafStatus::Unknown(w) | LeafStatus::Bound(w) | LeafStatus::Raises(w) => Some(w.clone()),
                    _ => None,
                },
                "checks": checks,
                "input": input(row),
                "replay": row.replay,
            })
        })
        .collect();
    let counterexample = match &r.verdict {
        Verdict::Refuted { row } => {
            let row = &r.rows[*row];
            let clause = match &row.status {
                LeafStatus::Refuted(o) => Some(&r.obligations[*o]),
                _ => None,
            };
            json!({
                "leaf": row.node.to_string(),
                "obligation": clause.map(|o| o.label.clone()),
                "clause": clause.map(|o| o.text.clone()),
                "input": input(row),
                "replay": row.replay,
            })
        }
        _ => Json::Null,
    };
    json!({
        "version": 1,
        "kind": match r.kind { Kind::Verify => "verify", Kind::Equiv => "equiv" },
        "function": r.functions[0],
        "functions": r.functions,
        "parameters": r.parameters,
        "verdict": r.verdict_name(),
        "bound_leaves": match r.verdict { Verdict::UpToBound { bound_leaves } => bound_leaves, _ => 0 },
        "unknown_reasons": match &r.verdict { Verdict::Unknown { reasons } => reasons.clone(), _ => Vec::new() },
        "obligations": obligations,
        "leaves": leaves,
        "counterexample": counterexample,
        "preconditions": r.preconditions,
        "notes": r.notes,
        "replayed_in": r.replayer.name(),
        "returns_only": r.returns_only,
        "unroll": r.tree.unroll,
        "depth": r.depth,
        "harness": r.harness.source,
        "tree": crate::render::set::json(&r.tree),
    })
}
