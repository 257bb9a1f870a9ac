//! The command registry: every `%name` and `%%name`, its options, help and implementation.

use serde_json::json;

use super::invocation::Invocation;
use super::output::{Bundle, CellError, Output, View, payload};
use super::session::{Ctx, Session};
use crate::render::graphviz::{GraphvizError, refuse_file_attributes};
use crate::render::html::{escape, table, text_table};

/// Whether a command is used as `%name` (line), `%%name` (cell), or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Line,
    Cell,
    Both,
}

/// An option a command accepts.
pub struct OptionSpec {
    pub name: &'static str,
    /// How many words follow the option as its value.
    pub values: usize,
    pub help: &'static str,
}

/// A command: its name, form, documentation, options and implementation.
pub struct CommandSpec {
    pub name: &'static str,
    pub form: Form,
    pub usage: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    pub options: &'static [OptionSpec],
    /// Words the positional arguments may take (analysis names, lattice kinds …).
    pub words: &'static [&'static str],
    /// Whether the command's first argument names a defined function.
    pub takes_function: bool,
    pub run: fn(&mut Session, &Invocation, &mut Ctx<'_>) -> Result<(), CellError>,
}

impl CommandSpec {
    pub fn option(&self, name: &str) -> Option<&OptionSpec> {
        self.options
            .iter()
            .chain([&SAVE, &FORCE])
            .find(|o| o.name == name)
    }

    /// The options shown to users: the command's own, then `--save` and `--force` for views.
    pub fn all_options(&self) -> impl Iterator<Item = &OptionSpec> {
        let save = self.is_view().then_some([&SAVE, &FORCE]);
        self.options.iter().chain(save.into_iter().flatten())
    }

    fn is_view(&self) -> bool {
        !matches!(
            self.name,
            "help"
                | "lsmagic"
                | "reset"
                | "config"
                | "time"
                | "timeit"
                | "clear"
                | "rust"
                | "rust-reset"
        )
    }

    /// Full help: usage, description, options.
    pub fn help_text(&self) -> String {
        let help = crate::dataflow::registry::fill(self.help);
        let mut text = format!("{}\n\n{help}\n", self.usage);
        let opts: Vec<_> = self.all_options().collect();
        if !opts.is_empty() {
            text.push_str("\nOptions:\n");
            for o in opts {
                text.push_str(&format!("  {:<16} {}\n", o.name, o.help));
            }
        }
        text
    }
}

/// `--save FILE`, accepted by every view command.
pub const SAVE: OptionSpec = OptionSpec {
    name: "--save",
    values: 1,
    help: "also write the view to FILE (.svg, .html, .dot, .json or .txt), a new file in the notebook's folder or below it",
};

/// `--force`, with `--save`: replace an existing file.
pub const FORCE: OptionSpec = OptionSpec {
    name: "--force",
    values: 0,
    help: "with --save: replace FILE if it exists (without it, an existing FILE is an error)",
};

/// Every command, in the order `%help` lists them.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "help",
        form: Form::Line,
        usage: "%help [COMMAND]",
        summary: "this overview, or the help of one command",
        help: "Without an argument: the cell language, every command and the supported Python subset. With a command name: its usage and options.",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_help,
    },
    CommandSpec {
        name: "lsmagic",
        form: Form::Line,
        usage: "%lsmagic",
        summary: "list the line (%) and cell (%%) commands",
        help: "Lists every command by form.",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_lsmagic,
    },
    CommandSpec {
        name: "who",
        form: Form::Line,
        usage: "%who",
        summary: "list the functions and variables defined in this session",
        help: "Lists every function the session holds (methods as Class.method) with its signature and the lines of the cell that defined it, then the names of the variables the cells have bound (%whos shows their types and values).",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_who,
    },
    CommandSpec {
        name: "whos",
        form: Form::Line,
        usage: "%whos",
        summary: "list the functions, and the variables with their type and value",
        help: "As %who, with a table of the variables: name, type and repr (cut to 60 characters; an instance shows as <Class object>, its __repr__ is not run).",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_whos,
    },
    CommandSpec {
        name: "time",
        form: Form::Both,
        usage: "%time STATEMENT  |  %%time",
        summary: "run Python and print its wall time",
        help: "Runs the statement (or the cell body) in the interpreter like a plain cell, then prints `Wall time: …` in IPython's format (CPU times are not shown). `name?` and `name??` on a line of their own show a name's documentation (and source), as IPython does.",
        options: &[],
        words: &[],
        takes_function: false,
        run: super::habits::run_time,
    },
    CommandSpec {
        name: "timeit",
        form: Form::Line,
        usage: "%timeit [-n N] [-r R] STATEMENT",
        summary: "time a statement over many runs",
        help: "Runs the statement in loops of 1, 10, 100, … runs until a loop takes 0.2 s (`-n N`: N runs per loop), then up to 7 loops (`-r R`: R loops), staying within half the cell's time limit (10 s without one); prints `mean ± std. dev. per loop` as IPython does. Each run is a full interpreter run (its output is discarded), so small statements include that overhead.",
        options: &[],
        words: &[],
        takes_function: false,
        run: super::habits::run_timeit,
    },
    CommandSpec {
        name: "reset",
        form: Form::Line,
        usage: "%reset",
        summary: "forget every definition (settings are kept)",
        help: "Removes every function, class and variable from the session. %config settings are kept.",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_reset,
    },
    CommandSpec {
        name: "config",
        form: Form::Line,
        usage: "%config [KEY=VALUE ...]",
        summary: "show or change session settings (bounds, timeouts)",
        help: "Without arguments: the settings and their values. With KEY=VALUE pairs: changes them for the rest of the session.",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_config,
    },
    CommandSpec {
        name: "dot",
        form: Form::Cell,
        usage: "%%dot\n<Graphviz DOT source>",
        summary: "render Graphviz DOT source as a figure",
        help: "Lays the cell body out with Graphviz's dot and shows it as inline SVG. Graphviz runs in its safe mode and reads no files: attributes that name files (image, shapefile, imagepath, stylesheet, fontpath, fontnames) and <IMG> in HTML labels are refused; links other than http(s), mailto and relative ones are removed from the SVG.",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_dot,
    },
    CommandSpec {
        name: "cfg",
        form: Form::Both,
        usage: super::views::cfg::USAGE,
        summary: super::views::cfg::SUMMARY,
        help: super::views::cfg::HELP,
        options: super::views::cfg::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::cfg::run,
    },
    CommandSpec {
        name: "constraints",
        form: Form::Line,
        usage: super::views::constraints::USAGE,
        summary: super::views::constraints::SUMMARY,
        help: super::views::constraints::HELP,
        options: super::views::constraints::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::constraints::run,
    },
    CommandSpec {
        name: "set",
        form: Form::Both,
        usage: super::views::set::USAGE,
        summary: super::views::set::SUMMARY,
        help: super::views::set::HELP,
        options: super::views::set::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::set::run,
    },
    CommandSpec {
        name: "check",
        form: Form::Both,
        usage: super::views::check::USAGE,
        summary: super::views::check::SUMMARY,
        help: super::views::check::HELP,
        options: super::views::check::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::check::run,
    },
    CommandSpec {
        name: "lattice",
        form: Form::Both,
        usage: super::views::lattice::LATTICE_USAGE,
        summary: "Hasse diagram of a lattice (top at the top) and the lattice-law check",
        help: super::views::lattice::LATTICE_HELP,
        options: super::views::lattice::LATTICE_OPTIONS,
        words: crate::dataflow::finite::builtin::KINDS,
        takes_function: false,
        run: super::views::lattice::run_lattice,
    },
    CommandSpec {
        name: "check-domain",
        form: Form::Line,
        usage: "%check-domain DOMAIN [--samples N] [--seed S]",
        summary: "check an abstract domain's operators for soundness on sampled ints",
        help: super::views::lattice::CHECK_DOMAIN_HELP,
        options: super::views::lattice::CHECK_DOMAIN_OPTIONS,
        words: &crate::dataflow::registry::DOMAIN_NAMES,
        takes_function: false,
        run: super::views::lattice::run_check_domain,
    },
    CommandSpec {
        name: "dataflow",
        form: Form::Both,
        usage: super::views::dataflow::USAGE,
        summary: super::views::dataflow::SUMMARY,
        help: super::views::dataflow::HELP,
        options: super::views::dataflow::OPTIONS,
        words: &crate::dataflow::registry::ANALYSIS_WORDS,
        takes_function: true,
        run: super::views::dataflow::run,
    },
    CommandSpec {
        name: "absint",
        form: Form::Both,
        usage: super::views::absint::USAGE,
        summary: super::views::absint::SUMMARY,
        help: super::views::absint::HELP,
        options: super::views::absint::OPTIONS,
        words: &crate::dataflow::registry::DOMAIN_NAMES,
        takes_function: true,
        run: super::views::absint::run,
    },
    CommandSpec {
        name: "domain",
        form: Form::Line,
        usage: "%domain NAME CLASS",
        summary: "register a domain class written in a cell (analysis.Domain) as NAME",
        help: super::views::user::DOMAIN_HELP,
        options: &[],
        words: &[],
        takes_function: false,
        run: super::views::user::run_domain,
    },
    CommandSpec {
        name: "analysis",
        form: Form::Line,
        usage: "%analysis NAME CLASS",
        summary: "register a dataflow analysis class written in a cell (analysis.Analysis) as NAME",
        help: super::views::user::ANALYSIS_HELP,
        options: &[],
        words: &[],
        takes_function: false,
        run: super::views::user::run_analysis,
    },
    CommandSpec {
        name: "verify",
        form: Form::Line,
        usage: super::views::verify::VERIFY_USAGE,
        summary: super::views::verify::VERIFY_SUMMARY,
        help: super::views::verify::VERIFY_HELP,
        options: super::views::verify::VERIFY_OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::verify::run_verify,
    },
    CommandSpec {
        name: "equiv",
        form: Form::Line,
        usage: super::views::verify::EQUIV_USAGE,
        summary: super::views::verify::EQUIV_SUMMARY,
        help: super::views::verify::EQUIV_HELP,
        options: super::views::verify::EQUIV_OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::verify::run_equiv,
    },
    CommandSpec {
        name: "dom",
        form: Form::Line,
        usage: super::views::dependence::DOM_USAGE,
        summary: super::views::dependence::DOM_SUMMARY,
        help: super::views::dependence::DOM_HELP,
        options: &[],
        words: &[],
        takes_function: true,
        run: super::views::dependence::run_dom,
    },
    CommandSpec {
        name: "pdom",
        form: Form::Line,
        usage: super::views::dependence::PDOM_USAGE,
        summary: super::views::dependence::PDOM_SUMMARY,
        help: super::views::dependence::PDOM_HELP,
        options: &[],
        words: &[],
        takes_function: true,
        run: super::views::dependence::run_pdom,
    },
    CommandSpec {
        name: "cdg",
        form: Form::Line,
        usage: super::views::dependence::CDG_USAGE,
        summary: super::views::dependence::CDG_SUMMARY,
        help: super::views::dependence::CDG_HELP,
        options: &[],
        words: &[],
        takes_function: true,
        run: super::views::dependence::run_cdg,
    },
    CommandSpec {
        name: "ddg",
        form: Form::Line,
        usage: super::views::dependence::DDG_USAGE,
        summary: super::views::dependence::DDG_SUMMARY,
        help: super::views::dependence::DDG_HELP,
        options: &[],
        words: &[],
        takes_function: true,
        run: super::views::dependence::run_ddg,
    },
    CommandSpec {
        name: "pdg",
        form: Form::Line,
        usage: super::views::dependence::PDG_USAGE,
        summary: super::views::dependence::PDG_SUMMARY,
        help: super::views::dependence::PDG_HELP,
        options: &[],
        words: &[],
        takes_function: true,
        run: super::views::dependence::run_pdg,
    },
    CommandSpec {
        name: "slice",
        form: Form::Line,
        usage: super::views::slice::USAGE,
        summary: super::views::slice::SUMMARY,
        help: super::views::slice::HELP,
        options: super::views::slice::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::slice::run,
    },
    CommandSpec {
        name: "clear",
        form: Form::Line,
        usage: "%clear [--wait]",
        summary: "clear this cell's outputs so far (Jupyter's clear_output)",
        help: "Sends clear_output: the front end removes the outputs the cell has shown so far. With --wait it removes them only when the next output arrives, so a cell that redraws does not flicker.",
        options: &[OptionSpec {
            name: "--wait",
            values: 0,
            help: "clear when the next output arrives",
        }],
        words: &[],
        takes_function: false,
        run: run_clear,
    },
    CommandSpec {
        name: "run",
        form: Form::Line,
        usage: super::views::run::USAGE,
        summary: super::views::run::SUMMARY,
        help: super::views::run::HELP,
        options: super::views::run::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::run::run,
    },
    CommandSpec {
        name: "concolic",
        form: Form::Line,
        usage: super::views::concolic::USAGE,
        summary: super::views::concolic::SUMMARY,
        help: super::views::concolic::HELP,
        options: super::views::concolic::OPTIONS,
        words: &[],
        takes_function: true,
        run: super::views::concolic::run,
    },
    CommandSpec {
        name: "rust",
        form: Form::Cell,
        usage: "%%rust\n<Rust code>",
        summary: "run Rust with evcxr against the kernel's analysis_prelude (domains and analyses in Rust)",
        help: crate::rustcell::views::HELP,
        options: &[],
        words: &[],
        takes_function: false,
        run: crate::rustcell::views::run,
    },
    CommandSpec {
        name: "rust-reset",
        form: Form::Line,
        usage: "%rust-reset",
        summary: "drop the Rust context of %%rust cells and what they registered",
        help: crate::rustcell::views::RESET_HELP,
        options: &[],
        words: &[],
        takes_function: false,
        run: crate::rustcell::views::reset,
    },
    CommandSpec {
        name: "callgraph",
        form: Form::Line,
        usage: super::views::callgraph::USAGE,
        summary: super::views::callgraph::SUMMARY,
        help: super::views::callgraph::HELP,
        options: &[],
        words: &[],
        takes_function: false,
        run: super::views::callgraph::run,
    },
];

/// Commands for the kernel's own tests, enabled by the kernel only under test.
pub static TEST_COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "__panic__",
        form: Form::Line,
        usage: "%__panic__",
        summary: "panic (tests the kernel's panic guard)",
        help: "",
        options: &[],
        words: &[],
        takes_function: false,
        run: |_, _, _| panic!("deliberate panic requested by %__panic__"),
    },
    CommandSpec {
        name: "__sleep__",
        form: Form::Line,
        usage: "%__sleep__ SECONDS",
        summary: "wait, polling for interrupts (tests interrupts)",
        help: "",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_sleep,
    },
    CommandSpec {
        name: "__slow__",
        form: Form::Line,
        usage: "%__slow__ SECONDS",
        summary: "wait, then show a line (tests the progress line)",
        help: "",
        options: &[],
        words: &[],
        takes_function: false,
        run: run_slow,
    },
];

/// The command called `name`, among the test commands too when `test_hooks` is on.
pub fn find(name: &str, test_hooks: bool) -> Option<&'static CommandSpec> {
    let tests = if test_hooks { TEST_COMMANDS } else { &[] };
    COMMANDS.iter().chain(tests).find(|c| c.name == name)
}

fn run_help(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let text = match inv.args.first() {
        Some(name) => {
            let name = name.trim_start_matches('%');
            let cmd = find(name, false).ok_or_else(|| super::unknown_command(name))?;
            cmd.help_text() + &super::views::user::help_lines(session, Some(name))
        }
        None => overview(session),
    };
    let html = format!(
        "<pre class=\"analysis-kernel-help\">{}</pre>",
        escape(&text)
    );
    ctx.sink.emit(Output::Display(
        Bundle::text(text).with("text/html", json!(html)),
    ));
    Ok(())
}

/// The text of `%help`.
pub fn overview(session: &Session) -> String {
    let mut text = String::from(
        "analysis-kernel: program-analysis views of small Python programs.\n\n\
         Cells\n\
         - Plain Python defines functions (a later definition replaces an earlier one) and runs\n\
         \x20 top-level statements in the kernel's interpreter of the supported subset.\n\
         - `%name args` lines run commands on what the session holds; a cell starting with\n\
         \x20 `%%name args` applies the command to the rest of the cell.\n\n\
         Commands\n",
    );
    const USAGE_WIDTH: usize = 28;
    for c in COMMANDS {
        let usage = c.usage.lines().next().unwrap_or(c.usage);
        if usage.chars().count() <= USAGE_WIDTH {
            text.push_str(&format!(
                "  {usage:<USAGE_WIDTH$} {}\n",
                crate::dataflow::registry::fill(c.summary)
            ));
        } else {
            // A long usage line gets the summary on its own line, indented under it.
            text.push_str(&format!(
                "  {usage}\n  {:<USAGE_WIDTH$} {}\n",
                "",
                crate::dataflow::registry::fill(c.summary)
            ));
        }
    }
    text.push_str(
        "\nEvery view also accepts --save FILE (a path relative to the notebook's folder; an existing\n\
         FILE is an error unless --force is given). `%help COMMAND` shows a command's options.\n",
    );
    text.push_str(&super::views::user::help_lines(session, None));
    text.push('\n');
    text.push_str(SUBSET);
    text
}

/// The supported Python subset, as `%help` and the README state it.
pub const SUBSET: &str = "Supported Python\n\
  Parsing and control-flow graphs: all of Python 3.12 syntax.\n\
  Analyses (%constraints, %set, %check, %absint): unbounded int, bool, float, str, None,\n\
  tuples and lists; + - * / // % ** with Python's rules, comparisons (chained too),\n\
  and/or/not with short-circuit, conditional expressions, subscripts and slices (negative\n\
  indices, clamping, steps), in / not in, calls of user functions and of len abs min max\n\
  range int bool str print sum sorted isinstance.\n\
  Plain cells run in the kernel's interpreter, which also has dicts, lambdas and closures,\n\
  comprehensions and generator expressions, enumerate zip map filter reversed, string and\n\
  list methods, f-strings, exception classes (class E(Exception): pass), try/except/finally,\n\
  import sys and math. It refuses, naming the construct and line: other classes, sets,\n\
  bytes, yield, with, match, async.\n";

fn run_lsmagic(_: &mut Session, _: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let line: Vec<String> = COMMANDS
        .iter()
        .filter(|c| c.form != Form::Cell)
        .map(|c| format!("%{}", c.name))
        .collect();
    let cell: Vec<String> = COMMANDS
        .iter()
        .filter(|c| c.form != Form::Line)
        .map(|c| format!("%%{}", c.name))
        .collect();
    let text = format!(
        "Line commands: {}\nCell commands: {}",
        line.join(" "),
        cell.join(" ")
    );
    ctx.sink.emit(Output::Display(Bundle::text(text)));
    Ok(())
}

fn run_who(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    who_view(session, inv, ctx, false)
}

fn run_whos(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    who_view(session, inv, ctx, true)
}

/// `%who` (functions, and the names of variables) and `%whos` (variables with their type
/// and a short repr too).
fn who_view(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    detailed: bool,
) -> Result<(), CellError> {
    let rows: Vec<Vec<String>> = session
        .functions()
        .map(|f| {
            vec![
                f.name.clone(),
                f.signature(),
                format!("{}–{}", f.lines.0, f.lines.1),
            ]
        })
        .collect();
    let headers = ["function", "signature", "lines"];
    // Functions the table lists already are not repeated among the variables.
    let variables: Vec<crate::interp::Variable> = session
        .interpreter
        .variables(ctx.cancel)
        .map_err(|e| CellError::new("InterpreterError", e.to_string()))?
        .into_iter()
        .filter(|v| session.function(&v.name).is_none())
        .collect();
    let var_headers = ["variable", "type", "value"];
    let var_rows: Vec<Vec<String>> = variables
        .iter()
        .map(|v| vec![v.name.clone(), v.type_name.clone(), v.repr.clone()])
        .collect();
    let mut text = if rows.is_empty() {
        "No functions defined.".to_string()
    } else {
        text_table(&headers, &rows)
    };
    let mut html = table(&headers, &rows);
    if variables.is_empty() {
        text.push_str("\nNo variables defined.");
    } else if detailed {
        text.push_str("\n\n");
        text.push_str(&text_table(&var_headers, &var_rows));
        html.push_str(&table(&var_headers, &var_rows));
    } else {
        let names: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
        text.push_str(&format!("\nVariables: {}", names.join(" ")));
        html.push_str(&format!("<p>Variables: {}</p>", escape(&names.join(" "))));
    }
    let functions: Vec<_> = session
        .functions()
        .map(|f| json!({"name": f.name, "signature": f.signature(), "lines": [f.lines.0, f.lines.1]}))
        .collect();
    let vars: Vec<_> = variables
        .iter()
        .map(|v| json!({"name": v.name, "type": v.type_name, "value": v.repr}))
        .collect();
    let view = View {
        kind: "who",
        text,
        html,
        svg: None,
        dot: None,
        json: payload("who", json!({"functions": functions, "variables": vars})),
    };
    ctx.show(&view, inv)
}

fn run_reset(session: &mut Session, _: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let n = session.reset();
    ctx.sink.emit(Output::Display(Bundle::text(format!(
        "Forgot {n} definitions."
    ))));
    Ok(())
}

fn run_config(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    for assignment in &inv.args {
        session.config.assign(assignment)?;
    }
    let rows: Vec<Vec<String>> = session
        .config
        .describe()
        .into_iter()
        .map(|(k, v, h)| vec![k.to_string(), v.to_string(), h.to_string()])
        .collect();
    let headers = ["setting", "value", "meaning"];
    ctx.sink.emit(Output::Display(
        Bundle::text(text_table(&headers, &rows)).with("text/html", json!(table(&headers, &rows))),
    ));
    Ok(())
}

fn run_dot(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let source = inv.body.trim_start_matches('\n');
    if source.trim().is_empty() {
        return Err(CellError::usage(
            "%%dot needs DOT source in the rest of the cell",
        ));
    }
    refuse_file_attributes(source).map_err(|e| {
        let (cell_line, text, column) = body_line(inv, e.line);
        CellError::new("DotError", format!("{e} (cell line {cell_line})"))
            .at_cell_line(cell_line, text, column)
    })?;
    let limit = std::time::Duration::from_secs(session.config.dot_timeout_s);
    let svg = session
        .layout(source, ctx.cancel, limit)
        .map_err(|e| graphviz_error(e, inv))?;
    let view = View {
        kind: "dot",
        text: source.trim_end().to_string(),
        html: String::new(),
        svg: Some(svg),
        dot: Some(source.to_string()),
        json: payload("dot", json!({"source": source, "engine": "dot"})),
    };
    ctx.show(&view, inv)
}

/// A Graphviz failure as a cell error; syntax errors point at the cell line.
pub fn graphviz_error(e: GraphvizError, inv: &Invocation) -> CellError {
    match e {
        GraphvizError::Stopped(s) => s.into(),
        GraphvizError::Syntax {
            message,
            line: Some(line),
        } => {
            let (cell_line, text, column) = body_line(inv, line);
            CellError::new("DotError", format!("{message} (cell line {cell_line})"))
                .at_cell_line(cell_line, text, column)
        }
        other => CellError::new("DotError", other.to_string()),
    }
}

/// Line `line` of a `%%` cell's body: its cell line, text and first column of text.
fn body_line(inv: &Invocation, line: u32) -> (u32, &str, u32) {
    // The body starts on the line after the `%%` line.
    let text = inv
        .body
        .trim_start_matches('\n')
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    let column = text.len() - text.trim_start().len() + 1;
    (inv.line + line, text, column as u32)
}

fn run_sleep(_: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let secs: f64 = inv.args.first().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs.max(0.0));
    while std::time::Instant::now() < end {
        if ctx.cancel.is_cancelled() {
            return Err(CellError::interrupted());
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    Ok(())
}

fn run_clear(_: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    if !inv.args.is_empty() {
        return Err(CellError::usage("%clear takes no arguments (only --wait)"));
    }
    ctx.sink.emit(Output::Clear {
        wait: inv.flag("--wait"),
    });
    Ok(())
}

fn run_slow(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    run_sleep(session, inv, ctx)?;
    ctx.sink
        .emit(Output::Display(Bundle::text("slow command done")));
    Ok(())
}
