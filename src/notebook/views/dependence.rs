//! `%dom`, `%pdom`, `%cdg`, `%ddg` and `%pdg`: dominator and post-dominator trees (with
//! immediate dominators and dominance frontiers), and the control, data and program
//! dependences of a function's statements, as figure, table and JSON.

use petgraph::graph::NodeIndex;
use serde_json::{Value, json};

use super::flow::fixpoint_error;
use super::{Figure, figure};
use crate::cfg::{Cfg, Orientation, children, dominators, frontiers, post_dominators};
use crate::dataflow::analyses::Program;
use crate::dataflow::dependence::{
    ControlDep, DataDep, Pdg, control_dependences, data_dependences,
};
use crate::dataflow::engine::Options;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::render::dependence::{dependence_dot, legend_html, tree_dot, tree_legend_html};
use crate::render::html::{table, text_table};

pub const DOM_USAGE: &str = "%dom NAME";
pub const PDOM_USAGE: &str = "%pdom NAME";
pub const CDG_USAGE: &str = "%cdg NAME";
pub const DDG_USAGE: &str = "%ddg NAME";
pub const PDG_USAGE: &str = "%pdg NAME";

pub const DOM_HELP: &str = "The dominator tree of function NAME's statement-level CFG (node ids as %cfg shows them): \
a dominates b when every path from the entry to b passes a. The figure draws the tree (each node under its \
immediate dominator) with the CFG's exception edges dashed, since they count as paths; the table lists each \
node's immediate dominator, children and dominance frontier (the nodes where a's dominance ends: b is in DF(a) \
when a dominates a predecessor of b but not b strictly, the places phi functions go). Nodes the entry cannot \
reach are not in the tree (dotted).";

pub const PDOM_HELP: &str = "The post-dominator tree of function NAME's statement-level CFG: a post-dominates b when \
every path from b to the exit passes a (exception edges to the exit count). The table lists each node's \
immediate post-dominator, children and post-dominance frontier (the branches a is control dependent on). Nodes \
that cannot reach the exit (an endless loop) are not in the tree (dotted).";

pub const CDG_HELP: &str = "The control-dependence graph of function NAME (Ferrante, Ottenstein and Warren, from \
post-dominators): b depends on a when one edge out of a leads to b for sure while another may avoid it. Edges \
are labelled with the deciding edge (True, False, exception, break …); statements that run whenever the \
function runs depend on the entry. Exception edges count: inside try, what follows a statement that may raise \
depends on it.";

pub const DDG_HELP: &str = "The data-dependence graph of function NAME: an edge from each definition to each use it \
reaches (def-use chains from reaching definitions; parameters are defined at the entry), labelled with the \
variable.";

pub const PDG_HELP: &str = "The program-dependence graph of function NAME: its control dependences (solid, as %cdg) \
and data dependences (dashed green, as %ddg) over the CFG's statements. %slice follows its edges.";

pub const DOM_SUMMARY: &str = "dominator tree, immediate dominators and dominance frontiers";
pub const PDOM_SUMMARY: &str = "post-dominator tree, immediate post-dominators and frontiers";
pub const CDG_SUMMARY: &str = "control-dependence graph (from post-dominators)";
pub const DDG_SUMMARY: &str = "data-dependence graph (def-use chains)";
pub const PDG_SUMMARY: &str = "program-dependence graph: control and data dependences";

/// The function a dependence command names, ready for analysis.
fn program<'s>(
    session: &'s Session,
    inv: &Invocation,
    cmd: &str,
) -> Result<Program<'s>, CellError> {
    let [name] = inv.args.as_slice() else {
        return Err(CellError::usage(format!(
            "%{cmd} takes one function name (see %help {cmd})"
        )));
    };
    let f = session.require_lowered(name)?;
    Program::function(f).map_err(|e| CellError::new("SyntaxError", format!("in {name}: {e}")))
}

/// `3`, `L3: x = 1` style description of a node.
pub fn statement(cfg: &Cfg, n: NodeIndex) -> String {
    let node = cfg.node(n);
    match node.stmts.first() {
        Some(s) => s.text.clone(),
        None => node.label.replace('\n', " "),
    }
}

fn lines(cfg: &Cfg, n: NodeIndex) -> String {
    let (a, b) = cfg.node(n).lines;
    if a == b {
        format!("L{a}")
    } else {
        format!("L{a}-{b}")
    }
}

fn ids(ns: &[NodeIndex]) -> String {
    let v: Vec<String> = ns.iter().map(|n| n.index().to_string()).collect();
    format!("{{{}}}", v.join(", "))
}

fn node_json(cfg: &Cfg, n: NodeIndex) -> Value {
    let node = cfg.node(n);
    json!({
        "id": cfg.node_id(n),
        "kind": node.kind.name(),
        "lines": [node.lines.0, node.lines.1],
        "label": statement(cfg, n),
    })
}

/// `%dom NAME`.
pub fn run_dom(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    tree_view(session, inv, ctx, Orientation::Forward)
}

/// `%pdom NAME`.
pub fn run_pdom(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    tree_view(session, inv, ctx, Orientation::Backward)
}

fn tree_view(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    orientation: Orientation,
) -> Result<(), CellError> {
    let (kind, what, frontier_name) = match orientation {
        Orientation::Forward => ("dom", "dominator tree", "dominance frontier"),
        Orientation::Backward => ("pdom", "post-dominator tree", "post-dominance frontier"),
    };
    let view = {
        let p = program(session, inv, kind)?;
        let cfg = &p.cfg;
        let tree = match orientation {
            Orientation::Forward => dominators(cfg),
            Orientation::Backward => post_dominators(cfg),
        };
        ctx.check_cancel()?;
        let df = frontiers(cfg, &tree, orientation);
        let kids = children(cfg, &tree);
        let heading = format!("{what} of {}", cfg.name);
        let dot = tree_dot(cfg, &tree, &heading);
        let Figure {
            dot,
            svg,
            note_html: note,
        } = figure(dot, None, session, ctx)?;
        let idom_header = match orientation {
            Orientation::Forward => "idom",
            Orientation::Backward => "ipdom",
        };
        let headers = [
            "node",
            "lines",
            "statement",
            idom_header,
            "children",
            frontier_name,
        ];
        let rows: Vec<Vec<String>> = cfg
            .nodes()
            .map(|n| {
                let i = n.index();
                vec![
                    i.to_string(),
                    lines(cfg, n),
                    statement(cfg, n),
                    if !tree.contains(n) {
                        "not in tree".into()
                    } else {
                        tree.idom(n).map_or("-".into(), |d| d.index().to_string())
                    },
                    ids(&kids[i]),
                    ids(&df[i]),
                ]
            })
            .collect();
        let nodes: Vec<Value> = cfg
            .nodes()
            .map(|n| {
                let i = n.index();
                let mut v = node_json(cfg, n);
                v["in_tree"] = json!(tree.contains(n));
                v["idom"] = json!(tree.idom(n).map(|d| cfg.node_id(d)));
                v["children"] = json!(kids[i].iter().map(|c| cfg.node_id(*c)).collect::<Vec<_>>());
                v["frontier"] = json!(df[i].iter().map(|c| cfg.node_id(*c)).collect::<Vec<_>>());
                v
            })
            .collect();
        let exception_edges: Vec<Value> = cfg
            .edges()
            .into_iter()
            .filter(|e| e.2.is_exception())
            .map(|(s, t, e)| json!({"from": cfg.node_id(s), "to": cfg.node_id(t), "exceptions": e.exceptions()}))
            .collect();
        let text = format!(
            "{heading} (root {}; exception edges count as paths)\n\n{}",
            tree.root.index(),
            text_table(&headers, &rows)
        );
        View {
            kind,
            text: text.trim_end().to_string(),
            html: format!(
                "{note}{}{}",
                table(&headers, &rows),
                tree_legend_html(orientation == Orientation::Backward)
            ),
            svg,
            dot: Some(dot),
            json: payload(
                kind,
                json!({
                    "function": cfg.name,
                    "root": cfg.node_id(tree.root),
                    "nodes": nodes,
                    "exception_edges": exception_edges,
                }),
            ),
        }
    };
    ctx.show(&view, inv)
}

fn control_json(cfg: &Cfg, deps: &[ControlDep]) -> Vec<Value> {
    deps.iter()
        .map(|d| json!({"from": cfg.node_id(d.from), "to": cfg.node_id(d.to), "label": d.label}))
        .collect()
}

fn data_json(cfg: &Cfg, deps: &[DataDep]) -> Vec<Value> {
    deps.iter()
        .map(|d| json!({"from": cfg.node_id(d.from), "to": cfg.node_id(d.to), "var": d.var}))
        .collect()
}

/// Which dependences a view shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Control,
    Data,
    Both,
}

pub fn run_cdg(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    graph_view(session, inv, ctx, Which::Control)
}

pub fn run_ddg(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    graph_view(session, inv, ctx, Which::Data)
}

pub fn run_pdg(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    graph_view(session, inv, ctx, Which::Both)
}

fn graph_view(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    which: Which,
) -> Result<(), CellError> {
    let (kind, what) = match which {
        Which::Control => ("cdg", "control dependences"),
        Which::Data => ("ddg", "data dependences"),
        Which::Both => ("pdg", "program dependences"),
    };
    let view = {
        let p = program(session, inv, kind)?;
        let cfg = &p.cfg;
        let options = Options {
            cancel: Some(ctx.cancel),
            ..Options::default()
        };
        let control = if which == Which::Data {
            Vec::new()
        } else {
            control_dependences(cfg, &post_dominators(cfg))
        };
        ctx.check_cancel()?;
        let data = if which == Which::Control {
            Vec::new()
        } else {
            data_dependences(&p, &options).map_err(fixpoint_error)?.0
        };
        let heading = format!("{what} of {}", cfg.name);
        let dot = dependence_dot(cfg, &control, &data, &heading);
        let Figure {
            dot,
            svg,
            note_html: note,
        } = figure(dot, None, session, ctx)?;
        let headers = ["node", "lines", "statement", "depends on", "depended on by"];
        let rows: Vec<Vec<String>> = cfg
            .nodes()
            .map(|n| {
                let on: Vec<String> = control
                    .iter()
                    .filter(|d| d.to == n)
                    .map(|d| format!("{} ({})", d.from.index(), d.label))
                    .chain(
                        data.iter()
                            .filter(|d| d.to == n)
                            .map(|d| format!("{} ({})", d.from.index(), d.var)),
                    )
                    .collect();
                let by: Vec<String> = control
                    .iter()
                    .filter(|d| d.from == n)
                    .map(|d| format!("{} ({})", d.to.index(), d.label))
                    .chain(
                        data.iter()
                            .filter(|d| d.from == n)
                            .map(|d| format!("{} ({})", d.to.index(), d.var)),
                    )
                    .collect();
                vec![
                    n.index().to_string(),
                    lines(cfg, n),
                    statement(cfg, n),
                    on.join(", "),
                    by.join(", "),
                ]
            })
            .collect();
        let mut fields = json!({
            "function": cfg.name,
            "nodes": cfg.nodes().map(|n| node_json(cfg, n)).collect::<Vec<_>>(),
        });
        if which != Which::Data {
            fields["control"] = json!(control_json(cfg, &control));
        }
        if which != Which::Control {
            fields["data"] = json!(data_json(cfg, &data));
        }
        let text = format!(
            "{heading}: {} control, {} data (a (label) after a node id: the deciding edge or the variable)\n\n{}",
            control.len(),
            data.len(),
            text_table(&headers, &rows)
        );
        View {
            kind,
            text: text.trim_end().to_string(),
            html: format!("{note}{}{}", table(&headers, &rows), legend_html()),
            svg,
            dot: Some(dot),
            json: payload(kind, fields),
        }
    };
    ctx.show(&view, inv)
}

/// The PDG of `p` (for `%slice`).
pub fn pdg(p: &Program<'_>, ctx: &Ctx<'_>) -> Result<Pdg, CellError> {
    let options = Options {
        cancel: Some(ctx.cancel),
        ..Options::default()
    };
    Pdg::new(p, &options).map_err(fixpoint_error)
}
