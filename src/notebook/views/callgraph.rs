//! `%callgraph`: which of the session's functions and methods call which, from the calls
//! each CFG node makes; functions on a cycle (recursion, direct or mutual) are marked.
//! Calls are resolved by name: `f` to the session's `f`, `self.m` inside class `C` to `C.m`,
//! `C(...)` of a session class to `C.__init__`, and `obj.m` on any other object to every
//! session method named m (the receiver's class is not known: an over-approximation); other
//! calls (builtins, modules, functions passed as values) are listed as external.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use serde_json::json;

use super::{Figure, figure};
use crate::cfg::function_cfg;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::render::cfg::quote;
use crate::render::html::{legend, table, text_table};

pub const USAGE: &str = "%callgraph";
pub const SUMMARY: &str = "call graph of the session's functions and methods, recursion marked";
pub const HELP: &str = "Draws which of the session's functions and methods call which (from the calls each \
statement makes, as %cfg --calls lists them). `f(...)` resolves to the session's function f, `self.m(...)` \
inside class C to C.m, `C(...)` of a session class to C.__init__, and `obj.m(...)` to every session method \
named m (the receiver's class is not known); other calls, and functions called through a variable, are \
external (listed, not drawn). Functions on a cycle of calls \
(recursion, direct or mutual) are drawn red, and a function calling itself has a loop edge.";

/// The session functions a call of `call` (as `%cfg --calls` names it) may run, inside a
/// method of `class` when given: `f` is the session's `f`; `C(...)` of a session class is
/// `C.__init__`; `self.m` is `C.m` when class C has one; `obj.m` otherwise is every session
/// method called m (by name: the receiver's class is not known).
fn resolve(call: &str, class: Option<&str>, known: &BTreeSet<&str>) -> Vec<String> {
    if known.contains(call) && !call.contains('.') {
        return vec![call.to_string()];
    }
    if !call.contains('.') {
        let init = format!("{call}.__init__");
        return if known.contains(init.as_str()) {
            vec![init]
        } else {
            Vec::new()
        };
    }
    if let (Some(m), Some(c)) = (call.strip_prefix("self."), class) {
        let own = format!("{c}.{m}");
        if known.contains(own.as_str()) {
            return vec![own];
        }
    }
    if known.contains(call) {
        return vec![call.to_string()];
    }
    let Some((_, method)) = call.rsplit_once('.') else {
        return Vec::new();
    };
    known
        .iter()
        .filter(|k| {
            k.rsplit_once('.')
                .is_some_and(|(owner, m)| m == method && !owner.contains('.'))
        })
        .map(|k| k.to_string())
        .collect()
}

/// Runs `%callgraph`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    if !inv.args.is_empty() {
        return Err(CellError::usage(
            "%callgraph takes no arguments: it covers every function of the session",
        ));
    }
    let names: Vec<String> = session.functions().map(|f| f.name.clone()).collect();
    if names.is_empty() {
        return Err(CellError::usage(
            "no functions defined yet: define some in a cell first",
        ));
    }
    let known: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let mut calls: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut external: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in &names {
        ctx.check_cancel()?;
        let f = session.require_lowered(name)?;
        let cfg = function_cfg(f)
            .map_err(|e| CellError::new("SyntaxError", format!("in {name}: {e}")))?;
        let class = name.rsplit_once('.').map(|(c, _)| c);
        let entry = calls.entry(name.clone()).or_default();
        for n in cfg.nodes() {
            for call in &cfg.node(n).calls {
                let targets = resolve(call, class, &known);
                if !targets.is_empty() {
                    entry.extend(targets);
                } else {
                    external
                        .entry(name.clone())
                        .or_default()
                        .insert(call.clone());
                }
            }
        }
    }
    let mut graph: DiGraph<&str, ()> = DiGraph::new();
    let index: BTreeMap<&str, NodeIndex> = names
        .iter()
        .map(|n| (n.as_str(), graph.add_node(n.as_str())))
        .collect();
    for (from, tos) in &calls {
        for to in tos {
            graph.add_edge(index[from.as_str()], index[to.as_str()], ());
        }
    }
    let mut recursive: BTreeSet<&str> = BTreeSet::new();
    for scc in tarjan_scc(&graph) {
        let cyclic = scc.len() > 1 || scc.iter().any(|&n| graph.contains_edge(n, n));
        if cyclic {
            recursive.extend(scc.iter().map(|&n| graph[n]));
        }
    }
    let mut dot = String::from(
        "digraph callgraph {\n  node [shape=box fontname=\"Menlo,Consolas,DejaVu Sans Mono,monospace\" fontsize=11];\n",
    );
    for name in &names {
        let colour = if recursive.contains(name.as_str()) {
            " color=\"#c62828\" fontcolor=\"#c62828\" penwidth=2"
        } else {
            ""
        };
        dot.push_str(&format!(
            "  {} [label={}{colour}];\n",
            quote(name),
            quote(name)
        ));
    }
    for (from, tos) in &calls {
        for to in tos {
            dot.push_str(&format!("  {} -> {};\n", quote(from), quote(to)));
        }
    }
    dot.push_str("}\n");
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(dot, None, session, ctx)?;
    let headers = ["function", "calls", "external calls", "recursive"];
    let rows: Vec<Vec<String>> = names
        .iter()
        .map(|n| {
            let join = |m: &BTreeMap<String, BTreeSet<String>>| {
                m.get(n)
                    .map(|s| s.iter().cloned().collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            };
            vec![
                n.clone(),
                join(&calls),
                join(&external),
                if recursive.contains(n.as_str()) {
                    "yes".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    let json_fns: Vec<_> = names
        .iter()
        .map(|n| {
            json!({
                "name": n,
                "calls": calls.get(n).cloned().unwrap_or_default(),
                "external": external.get(n).cloned().unwrap_or_default(),
                "recursive": recursive.contains(n.as_str()),
            })
        })
        .collect();
    let view = View {
        kind: "callgraph",
        text: format!(
            "call graph of {} functions\n\n{}",
            names.len(),
            text_table(&headers, &rows)
        )
        .trim_end()
        .to_string(),
        html: format!(
            "{note}{}{}",
            table(&headers, &rows),
            legend(
                "An arrow from a function to each session function it calls (calls of anything else \
                 are listed as external); <span style=\"color:#c62828\">red, bold: on a call \
                 cycle (recursion, direct or mutual)</span>."
            )
        ),
        svg,
        dot: Some(dot),
        json: payload("callgraph", json!({"functions": json_fns})),
    };
    ctx.show(&view, inv)
}
