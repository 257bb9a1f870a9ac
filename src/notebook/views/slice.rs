//! `%slice NAME LINE [VAR …] [--forward]`: a static slice over the program-dependence graph,
//! highlighted on the source listing and the CFG; the backward slice as runnable Python
//! (`--save FILE.py`), checked by running it and the whole function in the kernel's
//! interpreter on random inputs and comparing the criterion's values.

use serde_json::{Value, json};

use super::dependence::pdg;
use super::{Figure, figure};
use crate::cfg::Role;
use crate::dataflow::analyses::Program;
use crate::dataflow::slice::{Criterion, Slice, slice};
use crate::dataflow::slice_program::program_text;
use crate::interp::{Interpreter, Limits, RunError, Stream};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, Output, SaveFile, SavePath, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::python::lower_module;
use crate::render::dependence::{listing_html, slice_dot, slice_legend_html};
use crate::render::html::escape;
use crate::splitmix::SplitMix64;

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--forward",
        values: 0,
        help: "the forward slice: the statements that depend on LINE (on VARs' values there)",
    },
    OptionSpec {
        name: "--inputs",
        values: 1,
        help: "how many random inputs the check runs (default 20; 0 skips the check)",
    },
    OptionSpec {
        name: "--seed",
        values: 1,
        help: "the seed of the check's random inputs (default 0)",
    },
];

pub const USAGE: &str = "%slice NAME LINE [VAR ...] [--forward] [--inputs N] [--seed S]";

pub const SUMMARY: &str =
    "static backward/forward slice, as highlighted source, CFG and runnable Python";

pub const HELP: &str = "The static slice of function NAME for the statement on LINE (a line of the cell that \
defined NAME, as %cfg numbers them), over the program-dependence graph (%pdg). The backward slice holds the \
statement and every statement the values of VARs there depend on (all the names it reads, without VARs), \
through data dependences (reaching definitions) and control dependences (post-dominators; exception edges \
count), plus the jumps (break, continue, return, raise) that decide whether LINE runs. --forward gives the \
statements that depend on LINE instead.\n\n\
The slice is highlighted on the source listing and on the CFG (the criterion orange). A backward slice is \
also shown as Python (the kept lines, their enclosing headers, every clause of a kept try, pass in emptied \
blocks), which --save FILE.py writes; then the slice and the whole function both run in the kernel's \
interpreter on random int arguments, recording the values of VARs each time LINE is about to run, and the \
output says on how many inputs the two records agree. The check needs int parameters and a simple statement \
or an `if` on LINE; it is skipped (and says why) otherwise.";

/// Starts each printed record of a run, so that what the function prints itself is not taken
/// for one.
const RECORD_MARK: &str = "<<slice-record>> ";
const RECORD_NOTE: &str = "recorded before the line runs, each time it runs";

/// Runs `%slice`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let (name, line, vars) = match inv.args.as_slice() {
        [name, line, vars @ ..] => {
            let line: u32 = line.parse().map_err(|_| {
                CellError::usage(format!("%slice: LINE must be a line number, not {line:?}"))
            })?;
            (name.clone(), line, vars.to_vec())
        }
        _ => {
            return Err(CellError::usage(
                "%slice takes a function name and a line number (see %help slice)",
            ));
        }
    };
    let forward = inv.flag("--forward");
    let inputs = number(inv, "--inputs", 20)?;
    let seed = number(inv, "--seed", 0)?;
    let criterion = Criterion {
        line,
        vars: vars.clone(),
        forward,
    };
    let f = session.require_lowered(&name)?.clone();
    let source = session.require_function(&name)?.source.clone();
    let program = Program::function(&f)
        .map_err(|e| CellError::new("SyntaxError", format!("in {name}: {e}")))?;
    let known = program.locals();
    if let Some(v) = vars.iter().find(|v| !known.contains(*v)) {
        return Err(CellError::new(
            "NameError",
            format!("{v:?} is not a variable of {name}"),
        ));
    }
    let graph = pdg(&program, ctx)?;
    let s = slice(&f, &program, &graph, &criterion)
        .map_err(|e| CellError::new("ValueError", e.to_string()))?;
    ctx.check_cancel()?;
    let first = f.span.line;
    let cfg = &program.cfg;
    let record_vars: Vec<String> = if vars.is_empty() {
        let mut used: Vec<String> = s
            .criterion
            .iter()
            .flat_map(|&c| program.info(c).uses.clone())
            .filter(|v| known.contains(v))
            .collect();
        used.dedup();
        used
    } else {
        vars.clone()
    };
    let python = (!forward).then(|| program_text(&source, first, &s.lines, None));
    let check = if forward {
        json!({"skipped": "forward slices are not run"})
    } else {
        check(
            session,
            ctx,
            &program,
            &s,
            &source,
            first,
            line,
            &record_vars,
            inputs,
            seed,
        )?
    };
    let direction = if forward { "forward" } else { "backward" };
    let about = if vars.is_empty() {
        String::new()
    } else {
        format!(" ({})", vars.join(", "))
    };
    let heading = format!("{direction} slice of {name} for line {line}{about}");
    let dot = slice_dot(cfg, &s.nodes, &s.criterion, &heading);
    let Figure {
        dot,
        svg,
        note_html: note,
    } = figure(dot, None, session, ctx)?;
    let listing: Vec<(u32, String)> = source
        .lines()
        .enumerate()
        .map(|(i, l)| (first + i as u32, l.to_string()))
        .collect();
    let strong = s
        .criterion
        .iter()
        .flat_map(|&c| {
            cfg.node(c)
                .stmts
                .iter()
                .flat_map(|st| st.lines.0..=st.lines.1)
        })
        .collect();
    let statements = cfg
        .nodes()
        .filter(|&n| n != cfg.entry && n != cfg.exit)
        .count();
    let in_slice = s
        .nodes
        .iter()
        .filter(|&&n| n != cfg.entry && n != cfg.exit)
        .count();
    let lines: Vec<String> = s.lines.iter().map(u32::to_string).collect();
    let check_line = check_text(&check);
    let mut text = format!(
        "{heading}: {in_slice} of {statements} statements\nlines: {}\n{check_line}",
        lines.join(", ")
    );
    if let Some(py) = &python {
        text.push_str(&format!("\n\nThe slice as Python:\n{}", py.trim_end()));
    }
    let mut html = format!(
        "{note}{}{}<p>{}</p>",
        listing_html(&listing, &s.lines, &strong),
        slice_legend_html(forward),
        escape(&check_line)
    );
    if let Some(py) = &python {
        html.push_str(&format!(
            "<details><summary>The slice as Python</summary><pre>{}</pre></details>",
            escape(py)
        ));
    }
    let view = View {
        kind: "slice",
        text,
        html,
        svg,
        dot: Some(dot),
        json: payload(
            "slice",
            json!({
                "function": name,
                "criterion": {"line": line, "vars": vars, "forward": forward, "nodes": s.criterion.iter().map(|&c| cfg.node_id(c)).collect::<Vec<_>>()},
                "nodes": s.nodes.iter().map(|&n| cfg.node_id(n)).collect::<Vec<_>>(),
                "lines": s.lines.iter().collect::<Vec<_>>(),
                "python": python,
                "check": check,
            }),
        ),
    };
    save_python(ctx, inv, python.as_deref())?;
    if inv
        .option("--save")
        .is_some_and(|p| p.to_ascii_lowercase().ends_with(".py"))
    {
        ctx.sink.emit(Output::Display(view.bundle()));
        Ok(())
    } else {
        ctx.show(&view, inv)
    }
}

fn number(inv: &Invocation, option: &str, default: u64) -> Result<u64, CellError> {
    inv.option(option).map_or(Ok(default), |v| {
        v.parse()
            .map_err(|_| CellError::usage(format!("{option} takes a number, not {v:?}")))
    })
}

/// `--save FILE.py`: the backward slice's Python.
fn save_python(ctx: &mut Ctx<'_>, inv: &Invocation, python: Option<&str>) -> Result<(), CellError> {
    let Some(typed) = inv.option("--save") else {
        return Ok(());
    };
    let path =
        SavePath::parse(typed).map_err(|e| CellError::usage(format!("--save {typed:?}: {e}")))?;
    if path.extension() != "py" {
        return Ok(());
    }
    let Some(python) = python else {
        return Err(CellError::usage(
            "a forward slice is not a program: --save .py needs a backward slice",
        ));
    };
    ctx.sink.save(SaveFile {
        path,
        contents: python.as_bytes().to_vec(),
        overwrite: inv.flag("--force"),
    })
}

fn check_text(check: &Value) -> String {
    if let Some(reason) = check["skipped"].as_str() {
        return format!("check: not run ({reason})");
    }
    format!(
        "check: {} random inputs (seed {}); the line ran in {} of the runs of the function; slice and function recorded the same values ({}) on {} of {} inputs",
        check["inputs"],
        check["seed"],
        check["reached"],
        RECORD_NOTE,
        check["agree"],
        check["inputs"]
    )
}

/// Runs the whole function and the slice on random inputs; the criterion's records compared.
#[allow(clippy::too_many_arguments)]
fn check(
    session: &Session,
    ctx: &Ctx<'_>,
    program: &Program<'_>,
    s: &Slice,
    source: &str,
    first: u32,
    line: u32,
    vars: &[String],
    inputs: u64,
    seed: u64,
) -> Result<Value, CellError> {
    let cfg = &program.cfg;
    let skip = |why: &str| Ok(json!({"skipped": why}));
    if inputs == 0 {
        return skip("--inputs 0");
    }
    if cfg.name.contains('.') {
        return skip("methods and nested functions are not run");
    }
    let simple = s.criterion.iter().all(|&c| {
        cfg.node(c).stmts.first().is_some_and(|st| {
            st.lines.0 == line
                && (st.role == Role::Simple
                    && !st.text.starts_with("def ")
                    && !st.text.starts_with("class ")
                    || st.role == Role::Test && st.text.starts_with("if "))
        })
    });
    if !simple {
        return skip("the check records before a simple statement or an `if` that starts on LINE");
    }
    if program.params.iter().any(|p| {
        p.default.is_some()
            || !matches!(
                p.kind,
                crate::python::ir::ParamKind::Positional
                    | crate::python::ir::ParamKind::PositionalOnly
            )
    }) {
        return skip("the check passes positional int arguments only");
    }
    let all: std::collections::BTreeSet<u32> =
        (first..first + source.lines().count() as u32).collect();
    let whole = program_text(source, first, &all, Some((line, vars)));
    let sliced = program_text(source, first, &s.lines, Some((line, vars)));
    let others: Vec<String> = session
        .functions()
        .filter(|g| g.name != cfg.name && !g.name.contains('.'))
        .map(|g| g.source.clone())
        .collect();
    let mut rng = SplitMix64::new(seed);
    let args: Vec<Vec<i64>> = (0..inputs)
        .map(|_| {
            program
                .params
                .iter()
                .map(|_| rng.below(13) as i64 - 3)
                .collect()
        })
        .collect();
    let driver = |def: &str| {
        let mut text = others.join("\n");
        text.push('\n');
        text.push_str(def);
        text.push_str("__slice_record = []\n");
        for a in &args {
            let a: Vec<String> = a.iter().map(i64::to_string).collect();
            text.push_str(&format!(
                "__slice_record.clear()\ntry:\n    {}({})\nexcept Exception:\n    pass\nprint({RECORD_MARK:?} + repr(__slice_record))\n",
                cfg.name,
                a.join(", ")
            ));
        }
        text
    };
    let limits = Limits::new(
        session.config.step_budget,
        u32::try_from(session.config.recursion_limit).unwrap_or(u32::MAX),
    );
    let run = |text: String| -> Result<Result<Vec<String>, String>, CellError> {
        let module = match lower_module(&text) {
            Ok(m) => m,
            Err(e) => return Ok(Err(format!("not valid Python: {e}"))),
        };
        let mut interp = Interpreter::new();
        let mut printed = String::new();
        let result = interp.run_module(
            &module,
            &mut |stream, t| {
                if stream == Stream::Stdout {
                    printed.push_str(t);
                }
            },
            ctx.cancel,
            limits,
        );
        match result {
            // The function's own output is interleaved: only the marked records count.
            Ok(_) => Ok(Ok(printed
                .lines()
                .filter_map(|l| l.split_once(RECORD_MARK).map(|(_, r)| r.to_string()))
                .collect())),
            Err(RunError::Stopped(s)) => Err(s.into()),
            Err(e) => Ok(Err(e.to_string())),
        }
    };
    let whole_records = match run(driver(&whole))? {
        Ok(r) => r,
        Err(e) => return skip(&format!("the function did not run: {e}")),
    };
    let slice_records = match run(driver(&sliced))? {
        Ok(r) => r,
        Err(e) => return skip(&format!("the slice did not run: {e}")),
    };
    let agree = whole_records
        .iter()
        .zip(&slice_records)
        .filter(|(a, b)| a == b)
        .count();
    let reached = whole_records.iter().filter(|r| r.as_str() != "[]").count();
    let disagreements: Vec<Value> = args
        .iter()
        .zip(whole_records.iter().zip(&slice_records))
        .filter(|(_, (a, b))| a != b)
        .take(5)
        .map(|(args, (a, b))| json!({"args": args, "function": a, "slice": b}))
        .collect();
    Ok(json!({
        "inputs": inputs,
        "seed": seed,
        "vars": vars,
        "reached": reached,
        "agree": agree,
        "disagreements": disagreements,
    }))
}
