//! `%set` and `%%set`: the symbolic execution tree of a defined function or of a cell's code,
//! as a figure in the book's style (SVG via DOT), text, the leaf table and JSON.

use std::sync::Arc;
use std::time::Duration;

use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::python::ir::{Function, Module};
use crate::python::lower_module;
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;
use crate::render::set::{
    dot, figure_note, json, json_full, leaf_table_html, leaf_table_text, legend_html, legend_text,
    notes, summary, text,
};
use crate::symexec::{Options, Program, SymexecError, Tree, execute, parse_specs};

/// `--unroll N` (shared with `%verify`/`%equiv`).
pub const UNROLL: OptionSpec = OptionSpec {
    name: "--unroll",
    values: 1,
    help: "iterations of each loop before the path is cut (default: %config unroll)",
};

/// `--depth N` (shared with `%verify`/`%equiv`).
pub const DEPTH: OptionSpec = OptionSpec {
    name: "--depth",
    values: 1,
    help: "calls of a function inside itself before the path is cut (default: %config depth)",
};

pub const OPTIONS: &[OptionSpec] = &[
    UNROLL,
    DEPTH,
    OptionSpec {
        name: "--no-pre",
        values: 0,
        help: "ignore the function's docstring preconditions (by default the tree assumes them)",
    },
    OptionSpec {
        name: "--leaves",
        values: 0,
        help: "only the leaf table (no figure): for large trees",
    },
    OptionSpec {
        name: "--unsat",
        values: 0,
        help: "keep infeasible branches as lightgreen unsat leaves instead of pruning them",
    },
    super::set_step::STEP,
];

pub const USAGE: &str = "%set NAME [--unroll N] [--depth N] [--leaves] [--unsat] [--step] [ARG:TYPE ...]\n%%set [--unroll N] [--depth N] [--leaves] [--unsat] [--step] ARG:TYPE ...\n<Python code>";

pub const SUMMARY: &str =
    "symbolic execution tree: path conditions, stores, outcomes, a witness per leaf";

pub const HELP: &str = "Executes a function (its annotated parameters are the symbolic inputs: int, bool, float, str, \
tuple/list of int, list[T], tuple[T, ...], tuple[A, B], dict[K, V], set[K], Optional[T]) or the rest of the cell (inputs given as ARG:TYPE, e.g. \
`%%set y:int`; the code may `return` at top level) symbolically, and draws the tree in the style of the \
symbolic-execution book: each box holds the path condition, the store and the next statement. Every expression \
that can raise (ZeroDivisionError, IndexError, ValueError, TypeError, AssertionError, raise) forks into its own \
path; if/while/for/assert fork on their tests; try/except/else/finally, break, continue and return are followed; \
calls of user functions are executed under the call (their statements shown `in f()`), len/abs/min/max are \
summaries. Infeasible branches are pruned with Z3; a constraint the path already implies is not added.\n\n\
Leaves: paleturquoise = return or normal end, lightpink = exception, grey stripes = a bound cut the path \
(--unroll for loops, %config recursion_limit for calls; the book drops these paths silently), lightgreen = \
unsatisfiable (only with --unsat). The table lists each leaf's path condition in Python syntax, its outcome, \
final store and a witness input from the solver's model. %config node_limit caps the tree's size.\n\n\
What is not modelled (a method, a builtin, a statement) does not stop the tree: it is a havoc, a fresh value \
with a note on the node (\"havoc: the builtin sorted(), line 3\"), and every leaf below it is approximate (marked \
≈; its path condition, outcome and witness are not exact, and %check does not judge it). Parameters without \
annotation get a type inferred from how the function uses them (n % 2: int, s.lower(): str, lst.append(x): \
list[int]), a default value, the annotated function they are passed to, or their name; the inference is said \
under the tree. Optional[T] (T | None) forks on None (witness x=None); on the None branch a use such as x + 1, \
len(x), x.lower(), x[0] or x < y raises CPython's TypeError/AttributeError with its message. A dict or set parameter (dict[K, V], \
set[K], or one used with .items()/.get()/d['key']) forks on its number of entries up to the unroll bound, keys \
distinct, its witness a dict or set display; *args and **kwargs are no input (a havoc where read). Floats are exact reals (no rounding). \
.isdigit()/.isalpha()/.isalnum()/.isspace()/.isupper()/.islower() and .lower()/.upper()/.swapcase()/.capitalize()/.title() are exact \
over ASCII: the strings they read are taken to be ASCII (said under the tree), and on a string that may hold a \
non-ASCII literal they stay a havoc. f-strings are exact for str, int and bool fields (a format spec \
is a havoc); [0] * n of constants by a symbolic count runs as a loop; a KeyError's message is repr(key).\n\n\
Recursion is cut at --depth N nested calls of a function in itself (%config depth, default 4) with bound \
leaves. The docstring preconditions (PythonTA's forms, read as %constraints reads them) are assumed at the \
root; --no-pre ignores them.\n\n\
%set NAME x:int      types for parameters (overriding an annotation or an inferred type)\n\
%%set y:int          the cell's code with symbolic y; a cell that only defines one function runs that function";

/// A tree and what it was built from.
pub struct Built {
    pub program: Program,
    pub tree: Tree,
    /// The cell's code, for `%%set`/`%%check`.
    pub module: Option<Module>,
}

/// The session's functions (top level, nested and methods).
pub fn session_functions(session: &Session) -> Vec<Arc<Function>> {
    session
        .functions()
        .filter_map(|f| session.lowered(&f.name).cloned())
        .collect()
}

/// Builds the tree that `%set`/`%check` (line or cell form) asks for.
pub fn build(session: &Session, inv: &Invocation, ctx: &Ctx<'_>) -> Result<Built, CellError> {
    let unroll = match inv.option("--unroll") {
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| CellError::usage(format!("--unroll takes a whole number, got {v:?}")))?,
        None => session.config.unroll,
    };
    let depth = match inv.option("--depth") {
        Some(v) => v.parse::<u64>().ok().filter(|&d| d >= 1).ok_or_else(|| {
            CellError::usage(format!("--depth takes a whole number from 1, got {v:?}"))
        })?,
        None => session.config.depth,
    };
    let functions = session_functions(session);
    let (program, module) = if inv.cell {
        if inv.body.trim().is_empty() {
            return Err(CellError::usage(format!(
                "%%{} needs Python code in the rest of the cell",
                inv.name
            )));
        }
        let module = lower_module(&inv.body)?;
        let given = parse_specs(&inv.args).map_err(|e| error(e, inv))?;
        let program = Program::snippet(&module, functions.iter().map(|f| f.as_ref()), &given)
            .map_err(|e| error(e, inv))?;
        (program, Some(module))
    } else {
        let Some((name, specs)) = inv.args.split_first() else {
            return Err(CellError::usage(format!(
                "%{} needs a function name (or use %%{} ARG:TYPE on a cell of code)",
                inv.name, inv.name
            )));
        };
        session.require_lowered(name)?;
        let given = parse_specs(specs).map_err(|e| error(e, inv))?;
        let program = Program::function(name, functions.iter().map(|f| f.as_ref()), &given)
            .map_err(|e| error(e, inv))?;
        (program, None)
    };
    let program = if inv.flag("--no-pre") {
        Program {
            preconditions: Vec::new(),
            ..program
        }
    } else {
        program
    };
    let options = Options {
        keep_unsat: inv.flag("--unsat"),
        ..session_options(session, unroll, depth)
    };
    let tree = execute(&program, &options, ctx.cancel).map_err(|e| error(e, inv))?;
    Ok(Built {
        program,
        tree,
        module,
    })
}

/// The exploration options of `%set` and the views built on its tree: the session's
/// settings with the command's `unroll` and `depth`.
pub fn session_options(session: &Session, unroll: u64, depth: u64) -> Options {
    Options {
        unroll,
        node_limit: usize::try_from(session.config.node_limit).unwrap_or(usize::MAX),
        recursion_limit: session.config.recursion_limit,
        timeout_ms: u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX),
        keep_unsat: false,
        shortcuts: true,
        depth,
        solver_budget_ms: session.config.solver_budget_ms,
        resource_limit: None,
    }
}

/// A symbolic-execution failure as a cell error (pointing at the cell line for `%%`).
pub fn error(e: SymexecError, inv: &Invocation) -> CellError {
    let ename = match &e {
        SymexecError::Stopped(s) => return (*s).into(),
        SymexecError::Unsupported { .. } => "UnsupportedError",
        SymexecError::Input(_) => "UsageError",
        SymexecError::Syntax { .. } => "SyntaxError",
        SymexecError::Solver(_) => "SolverError",
        SymexecError::Internal(_) => "InternalError",
    };
    let err = CellError::new(ename, e.to_string());
    match e.line() {
        Some(line) if inv.cell => {
            let text = inv
                .body
                .lines()
                .nth(line.saturating_sub(1) as usize)
                .unwrap_or("");
            let column = (text.len() - text.trim_start().len() + 1) as u32;
            err.at_cell_line(line, text, column)
        }
        _ => err,
    }
}

/// Runs `%set` / `%%set`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let built = build(session, inv, ctx)?;
    ctx.check_cancel()?;
    let leaves = inv.flag("--leaves");
    let view = view(&built.tree, leaves, session, ctx)?;
    if inv.flag("--step") {
        if let Some(file) = view.save_file(inv)? {
            ctx.sink.save(file)?;
        }
        return super::set_step::play(&built.tree, &view, session, ctx, &|t, ctx| {
            view_of(t, leaves, session, ctx)
        });
    }
    show(&view, &built.tree, inv, ctx)
}

/// `%set`'s view of `tree` (for `--step`'s partial trees).
fn view_of(tree: &Tree, leaves: bool, session: &Session, ctx: &Ctx<'_>) -> Result<View, CellError> {
    view(tree, leaves, session, ctx)
}

/// Shows `view`; `--save FILE.json` writes the whole tree (the view's payload of a large
/// tree is summarised).
pub fn show(
    view: &View,
    tree: &Tree,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    if let Some(mut file) = view.save_file(inv)? {
        if file.path.extension() == "json" {
            file.contents = (serde_json::to_string_pretty(&json_full(tree)).unwrap_or_default()
                + "\n")
                .into_bytes();
        }
        ctx.sink.save(file)?;
    }
    ctx.sink
        .emit(crate::notebook::Output::Display(view.bundle()));
    Ok(())
}

fn notes_html(tree: &Tree) -> String {
    notes(tree)
        .iter()
        .map(|n| format!("<div class=\"analysis-kernel-note\">{}</div>", escape(n)))
        .collect()
}

fn view(
    tree: &Tree,
    leaves_only: bool,
    session: &Session,
    ctx: &Ctx<'_>,
) -> Result<View, CellError> {
    let table_text = leaf_table_text(tree);
    let head = format!(
        "<div class=\"analysis-kernel-summary\">{}</div>{}",
        escape(&summary(tree)),
        notes_html(tree)
    );
    if leaves_only {
        let mut text = summary(tree);
        for n in notes(tree) {
            text.push('\n');
            text.push_str(&n);
        }
        return Ok(View {
            kind: "set",
            text: format!("{text}\n{table_text}"),
            html: format!("{head}{}", leaf_table_html(tree)),
            svg: None,
            dot: None,
            json: json(tree),
        });
    }
    let source = dot(tree);
    let summarised = figure_note(tree)
        .map(|n| format!("<div class=\"analysis-kernel-note\">{}</div>", escape(&n)))
        .unwrap_or_default();
    let limit = Duration::from_secs(session.config.dot_timeout_s);
    let (svg, figure_note) = match session.layout(&source, ctx.cancel, limit) {
        Ok(svg) => (Some(svg), String::new()),
        Err(GraphvizError::Stopped(s)) => return Err(s.into()),
        Err(e @ (GraphvizError::NotInstalled | GraphvizError::Timeout(_))) => (
            None,
            format!(
                "<div class=\"analysis-kernel-note\">No figure: {}. The text form follows.</div><pre>{}</pre>",
                escape(&e.to_string()),
                escape(&text(tree))
            ),
        ),
        Err(e) => return Err(CellError::new("DotError", e.to_string())),
    };
    Ok(View {
        kind: "set",
        text: format!("{}\n{table_text}\n{}", text(tree), legend_text()),
        html: format!(
            "{figure_note}{summarised}{}{head}{}",
            legend_html(),
            leaf_table_html(tree)
        ),
        svg,
        dot: Some(source),
        json: json(tree),
    })
}

#[cfg(test)]
mod tests {
    use crate::cancel::Cancel;
    use crate::notebook::output::{CellError, Output};
    use crate::notebook::session::{Ctx, Session};

    fn run(s: &mut Session, code: &str) -> Result<Vec<Output>, CellError> {
        let mut out: Vec<Output> = Vec::new();
        let cancel = Cancel::new();
        s.execute(
            code,
            &mut Ctx {
                sink: &mut out,
                cancel: &cancel,
            },
        )
        .map(|()| out)
    }

    /// `%%set` on `n` independent ifs, with `options` before the code.
    fn ifs_cell(n: usize, options: &str) -> String {
        let mut head = String::from("%%set");
        let mut body = String::from("y = 0\n");
        for i in 0..n {
            head.push_str(&format!(" x{i}:int"));
            body.push_str(&format!("if x{i} > 0:\n    y = y + 1\n"));
        }
        format!("{head} {options}\n{body}")
    }

    #[test]
    fn large_trees_are_summarised_and_saved_whole() {
        let mut s = Session::default();
        s.skip_layout = true;
        run(&mut s, "%config node_limit=100000\n").unwrap();
        // 12 independent ifs: 4,096 leaves, 12,287 nodes.
        let out = run(&mut s, &ifs_cell(12, "--save big.json")).unwrap();
        let mut saved = None;
        let mut bundle = None;
        for o in &out {
            match o {
                Output::File { path, contents } if path == "big.json" => {
                    saved = Some(serde_json::from_slice::<serde_json::Value>(contents).unwrap())
                }
                Output::Display(b) => bundle = Some(b.clone()),
                _ => {}
            }
        }
        let saved = saved.expect("the saved file");
        assert_eq!(saved["nodes"].as_array().unwrap().len(), 12_287);
        assert_eq!(saved["leaves"].as_array().unwrap().len(), 4_096);
        assert!(saved.get("omitted").is_none());
        let bundle = bundle.expect("the view");
        let text = bundle.data["text/plain"].as_str().unwrap();
        assert!(text.contains("more nodes not listed"), "{}", &text[..200]);
        assert!(text.contains("The table lists the first 1000 of 4096 leaves"));
        let html = bundle.data["text/html"].as_str().unwrap();
        assert!(html.contains("The figure shows the first 300 of 12287 nodes"));
        assert!(html.contains(
            "<details class=\"analysis-kernel-page\" open><summary>leaves 1\u{2013}100 of 4096"
        ));
        let payload = &bundle.data["application/vnd.analysis-kernel.set+json"];
        assert_eq!(payload["nodes"].as_array().unwrap().len(), 5_000);
        assert_eq!(payload["omitted"]["nodes"], 12_287 - 5_000);
        // The same cell gives the same summary.
        let again = run(&mut s, &ifs_cell(12, "")).unwrap();
        let Some(Output::Display(b2)) = again.last() else {
            panic!("{again:?}")
        };
        assert_eq!(b2.data["text/html"], bundle.data["text/html"]);
    }

    #[test]
    fn the_memory_budget_stops_a_large_tree_cleanly() {
        let mut s = Session::default();
        s.skip_layout = true;
        run(&mut s, "%config node_limit=1000000 memory_mb=96\n").unwrap();
        let e = run(&mut s, &ifs_cell(20, "--leaves")).unwrap_err();
        assert_eq!(e.ename, "MemoryError", "{e:?}");
        assert_eq!(
            e.evalue,
            "%set stopped: the kernel used more than 96 MB (%config memory_mb)"
        );
        run(&mut s, "%config memory_mb=2048 node_limit=400\n").unwrap();
        assert!(run(&mut s, &ifs_cell(3, "")).is_ok());
    }

    #[test]
    fn bad_input_gets_clear_errors() {
        let mut s = Session::default();
        assert_eq!(run(&mut s, "%set").unwrap_err().ename, "UsageError");
        assert_eq!(run(&mut s, "%set nosuch").unwrap_err().ename, "NameError");
        run(&mut s, "def g(a, b: int) -> int:\n    return a + b\n").unwrap();
        // `a` has no annotation: its type is inferred from `a + b` (b: int) and said.
        let out = run(&mut s, "%set g --leaves").unwrap();
        let Some(Output::Display(b)) = out.last() else {
            panic!("{out:?}")
        };
        let text = b.plain_text().unwrap_or("");
        assert!(
            text.contains("a: int inferred from") && text.contains("a:TYPE to override"),
            "{text}"
        );
        assert!(run(&mut s, "%set g a:int").is_ok());
        assert_eq!(run(&mut s, "%set g c:int").unwrap_err().ename, "UsageError");
        assert_eq!(
            run(&mut s, "%%set y:complex\nx = y\n").unwrap_err().ename,
            "UsageError"
        );
        assert_eq!(
            run(&mut s, "%set g a:int --unroll x").unwrap_err().ename,
            "UsageError"
        );
        // `with` is not modelled: a havoc, shown as such, not a refusal.
        let out = run(
            &mut s,
            "%%set --leaves y:int\nx = 1\nwith open('f') as h:\n    pass\n",
        )
        .unwrap();
        let Some(Output::Display(b)) = out.last() else {
            panic!("{out:?}")
        };
        let text = b.plain_text().unwrap_or("");
        assert!(
            text.contains("≈ normal end") && text.contains("havoc: with, line 3"),
            "{text}"
        );
    }

    #[test]
    fn leaves_only_has_no_figure() {
        let mut s = Session::default();
        run(
            &mut s,
            "def f(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n",
        )
        .unwrap();
        let out = run(&mut s, "%set f --leaves").unwrap();
        let Some(Output::Display(b)) = out.last() else {
            panic!("{out:?}")
        };
        assert!(!b.data.contains_key("image/svg+xml"));
        let text = b.plain_text().unwrap_or("");
        assert!(
            text.contains("leaf  path condition") && text.contains("x > 0"),
            "{text}"
        );
    }
}
