//! `%cfg` and `%%cfg`: the control-flow graph of a defined function or method, of every
//! function of the session, or of a cell's code, as text, SVG (via DOT) and JSON.

use std::time::Duration;

use crate::cfg::{
    Cfg, CfgError, Options, basic_blocks, function_cfg_with, module_cfg_with, scope_code,
};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::python::ir::{Module, StmtKind};
use crate::python::lower_module;
use crate::render::cfg::{dot, json, json_many, legend_html, text_many};
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;

/// The options of `%cfg` and `%%cfg` (`--save` is added for every view).
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--blocks",
        values: 0,
        help: "one node per basic block (maximal straight-line run) instead of per statement",
    },
    OptionSpec {
        name: "--calls",
        values: 0,
        help: "list the functions each node calls",
    },
    OptionSpec {
        name: "--exceptions",
        values: 0,
        help: "exception edges from every statement that may raise, outside try too",
    },
];

pub const USAGE: &str =
    "%cfg [NAME] [--blocks] [--calls]\n%%cfg [--blocks] [--calls]\n<Python code>";

pub const SUMMARY: &str = "control-flow graph of a function, of every function, or of a cell";

pub const HELP: &str = "Draws control-flow graphs: an entry and an exit node, one node per statement (compound \
statements by their header line, `except` clauses and `case`s too), diamond conditions with a blue \
True and a red False edge, dashed exception edges from statements that may raise to the handlers that \
may catch them (or to the exit; named where known: ZeroDivisionError for / // %, IndexError/KeyError \
for subscripts, AssertionError, the class of `raise X(...)`), and one `end finally` join per `finally` \
body from which pending returns, breaks, continues and exceptions resume. Unreachable statements are \
kept, in grey.\n\n\
%cfg NAME        the function NAME: `f`, a method `Class.method`, a nested function `f.g`;\n\
                 a class name draws all of its methods\n\
%cfg             every function defined in the session, one cluster each\n\
%%cfg            the rest of the cell, which need not be a function (top-level code, plus\n\
                 each function it defines)\n\n\
Implicit exceptions (calls, operators, subscripts) are drawn inside `try` only (everywhere with \
--exceptions); `raise` and `assert` always. The text output lists `id [kind] Lline: text` per node, then its successors.";

/// Runs `%cfg` / `%%cfg`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let options = Options {
        all_exceptions: inv.flag("--exceptions"),
    };
    let graphs = if inv.cell {
        if !inv.args.is_empty() {
            return Err(CellError::usage(
                "%%cfg takes no name: it draws the rest of the cell (use %cfg NAME on a line)",
            ));
        }
        cell_graphs(inv, options)?
    } else {
        match inv.args.as_slice() {
            [] => session_graphs(session, options, ctx)?,
            [name] => named_graphs(session, name, options)?,
            _ => {
                return Err(CellError::usage(
                    "%cfg takes at most one function name (see %help cfg)",
                ));
            }
        }
    };
    let graphs: Vec<Cfg> = if inv.flag("--blocks") {
        graphs.iter().map(|g| basic_blocks(g).cfg).collect()
    } else {
        graphs
    };
    ctx.check_cancel()?;
    let view = view(&graphs, inv.flag("--calls"), session, ctx)?;
    ctx.show(&view, inv)
}

/// The view of `graphs`: text, DOT, SVG and JSON, with the colour legend under the figure.
fn view(graphs: &[Cfg], calls: bool, session: &Session, ctx: &Ctx<'_>) -> Result<View, CellError> {
    let refs: Vec<&Cfg> = graphs.iter().collect();
    let source = dot(&refs, calls);
    let limit = Duration::from_secs(session.config.dot_timeout_s);
    let (svg, note) = match session.layout(&source, ctx.cancel, limit) {
        Ok(svg) => (Some(svg), String::new()),
        Err(GraphvizError::Stopped(s)) => return Err(s.into()),
        Err(e @ (GraphvizError::NotInstalled | GraphvizError::Timeout(_))) => (
            None,
            format!(
                "<div class=\"analysis-kernel-note\">No figure: {}. The text form follows.</div><pre>{}</pre>",
                escape(&e.to_string()),
                escape(&text_many(&refs, calls))
            ),
        ),
        Err(e) => return Err(CellError::new("DotError", e.to_string())),
    };
    let json = match refs.as_slice() {
        [one] => json(one, calls),
        _ => json_many(&refs, calls),
    };
    Ok(View {
        kind: "cfg",
        text: text_many(&refs, calls).trim_end().to_string(),
        html: format!(
            "{note}{}{}",
            crate::render::cfg_summary::notes_html(&refs),
            legend_html()
        ),
        svg,
        dot: Some(source),
        json,
    })
}

/// `%%cfg`: the cell's top-level code (unless it only defines functions), then each function.
fn cell_graphs(inv: &Invocation, options: Options) -> Result<Vec<Cfg>, CellError> {
    if inv.body.trim().is_empty() {
        return Err(CellError::usage(
            "%%cfg needs Python code in the rest of the cell",
        ));
    }
    let module = lower_module(&inv.body)?;
    let source_line = |line: u32| {
        inv.body
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .unwrap_or("")
            .to_string()
    };
    let cell_error = |e: CfgError| {
        let text = source_line(e.line());
        let column = (text.len() - text.trim_start().len() + 1) as u32;
        CellError::new("SyntaxError", e.to_string()).at_cell_line(e.line(), &text, column)
    };
    let mut graphs = Vec::new();
    if has_top_level_code(&module) {
        graphs.push(module_cfg_with(&module, options).map_err(cell_error)?);
    }
    for f in module.functions() {
        graphs.push(function_cfg_with(f, options).map_err(cell_error)?);
    }
    Ok(graphs)
}

/// Whether the module does more than define functions.
fn has_top_level_code(module: &Module) -> bool {
    let code = scope_code(&module.body);
    code.is_empty()
        || code
            .iter()
            .any(|s| !matches!(s.kind, StmtKind::FunctionDef(_)))
}

fn cfg_error(name: &str, e: CfgError) -> CellError {
    CellError::new("SyntaxError", format!("in {name}: {e}"))
}

/// `%cfg NAME`: the function, or every method of a class `NAME`.
fn named_graphs(session: &Session, name: &str, options: Options) -> Result<Vec<Cfg>, CellError> {
    if let Some(f) = session.lowered(name) {
        return Ok(vec![
            function_cfg_with(f, options).map_err(|e| cfg_error(name, e))?,
        ]);
    }
    let prefix = format!("{name}.");
    let methods: Vec<String> = session
        .functions()
        .filter(|f| f.name.starts_with(&prefix))
        .map(|f| f.name.clone())
        .collect();
    if methods.is_empty() {
        return Err(session.require_lowered(name).err().unwrap_or_else(|| {
            CellError::new("NameError", format!("no function named {name:?}"))
        }));
    }
    methods
        .iter()
        .map(|m| {
            let f = session.require_lowered(m)?;
            function_cfg_with(f, options).map_err(|e| cfg_error(m, e))
        })
        .collect()
}

/// `%cfg`: every function of the session, sorted by name.
fn session_graphs(
    session: &Session,
    options: Options,
    ctx: &Ctx<'_>,
) -> Result<Vec<Cfg>, CellError> {
    let names: Vec<String> = session.functions().map(|f| f.name.clone()).collect();
    if names.is_empty() {
        return Err(CellError::usage(
            "no functions defined yet: define one in a cell, or draw code with %%cfg",
        ));
    }
    let mut graphs = Vec::new();
    for name in names {
        ctx.check_cancel()?;
        let f = session.require_lowered(&name)?;
        graphs.push(function_cfg_with(f, options).map_err(|e| cfg_error(&name, e))?);
    }
    Ok(graphs)
}
