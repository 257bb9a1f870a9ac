//! `%constraints NAME`: the CFG whose edges carry Z3 path constraints, the table of paths
//! with feasibility and witness inputs, edge verdicts and redundant or impossible
//! conditions; as text, SVG (the `%cfg` drawing, annotated) and the `constraints` JSON.

use std::time::Duration;

use crate::constraints::{ConstraintsError, Mode, Options, analyze};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::render::constraints::{dot, html, json, text};
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--pyta",
        values: 0,
        help: "PythonTA's rule: drop every constraint that mentions a reassigned parameter",
    },
    OptionSpec {
        name: "--paths",
        values: 1,
        help: "list at most N paths (default: %config path_limit)",
    },
    OptionSpec {
        name: "--path",
        values: 1,
        help: "draw path K with the constraints on each of its edges",
    },
];

pub const USAGE: &str = "%constraints NAME [--pyta] [--paths N] [--path K] [ARG:TYPE ...]";

/// The types `ARG:TYPE` accepts, for the error on a bad one.
pub const ACCEPTED_TYPES: &str = "int, float, bool, str, list (of int), tuple (of int), list[T], \
tuple[T, ...], tuple[A, B] (typing's List/Tuple too), with T, A, B among these";

pub const SUMMARY: &str =
    "Z3 path constraints on the CFG's edges, path feasibility and witness inputs";

pub const HELP: &str = "Path constraints of a function, as PythonTA computes them, with Z3.\n\n\
Preconditions come from the docstring (`Preconditions:` followed by `- expr` lines, or one line \
`Precondition: expr`) over the parameters annotated int, float, bool, str, list[T], tuple[...]. \
Preconditions that cannot be translated are listed with the reason.\n\n\
A path runs from the entry to the exit, taking each loop at most once (it ends with the edge back \
to the loop head), so the paths are PythonTA's. On each edge: the preconditions, every branch \
condition so far (negated on False edges), the SSA definitions of assignments (`x_1 == x - 5`), and \
what must not raise (`y != 0`). Each path is checked with Z3; a feasible path gets a witness input \
that takes it. Every edge is decided with one query over a formula for all paths at once (no path \
listing), so this scales where listing 2**k paths cannot: infeasible edges and the nodes only they \
reach are grey. Edges reached only after more loop iterations than one are \"unknown\". Conditions \
that are always true (R9900) or always false (R9901) where reached are flagged. Z3 gets at most \
twice the query timeout (%config z3_timeout_ms) per analysis: what it has not decided by then is \
\"unknown\" (stopped: solver time budget spent).\n\n\
--pyta applies PythonTA's rule instead of SSA: constraints that mention a reassigned parameter are \
dropped from the rest of the path. Statements the translation does not cover are assumed to \
complete; conditions it does not cover make their paths \"unknown\" (with --pyta they are ignored, \
as PythonTA does).\n\n\
ARG:TYPE words after the name (`%constraints f n:int xs:list[int] s:str`) give a parameter's type: it \
takes the place of the annotation or of the type inferred, and the output lists it as given. The types: \
int, float, bool, str, list[T], tuple[T, ...], tuple[A, B]. A parameter without annotation gets the \
type %set infers for it from its uses, default or name; when nothing tells, %set's default guess (int), \
and a note says the verdicts hold for that guess.\n\n\
Strings: .isdigit()/.isalpha()/.isalnum()/.isspace()/.isupper()/.islower() and .lower()/.upper()/\
.swapcase() are modelled exactly over ASCII; the strings they read are taken to be ASCII (Python's are \
Unicode-wide), and a path through them is claimed for ASCII inputs only.\n\n\
Runs: an edge the solver leaves unknown (a condition it cannot translate) is decided where a run \
takes it. The function runs in a fresh interpreter with the session's functions, on the witnesses \
of %set's leaves (explored with the same parameter types) and on random inputs within the \
preconditions; an edge a run took is \"yes (run)\", listed with the inputs under \"edges a run \
took\", and a listed path a run followed gets its inputs as witness. A run only shows that an edge \
can be taken: an edge no run took stays unknown. A function that reads a global other than a \
session function, a generator or a method is not run.";

/// Runs `%constraints`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    let Some((name, specs)) = inv.args.split_first() else {
        return Err(CellError::usage(
            "%constraints takes one function name (see %help constraints)",
        ));
    };
    let f = session.require_lowered(name)?.clone();
    let given = given_types(&f, specs)?;
    let path_limit = match inv.option("--paths") {
        Some(n) => parse_count("--paths", n)?,
        None => usize::try_from(session.config.path_limit).unwrap_or(usize::MAX),
    };
    let selected = inv
        .option("--path")
        .map(|k| parse_count("--path", k))
        .transpose()?;
    let options = Options {
        mode: if inv.flag("--pyta") {
            Mode::Pyta
        } else {
            Mode::Precise
        },
        path_limit,
        timeout_ms: u32::try_from(session.config.z3_timeout_ms).unwrap_or(u32::MAX),
        given,
    };
    let mut analysis = analyze(&f, &options, ctx.cancel).map_err(|e| match e {
        ConstraintsError::Stopped(s) => s.into(),
        ConstraintsError::Cfg(e) => CellError::new("SyntaxError", format!("in {name}: {e}")),
        ConstraintsError::Mapping(e) => CellError::new("InternalError", format!("in {name}: {e}")),
    })?;
    super::constraints_runs::decide_by_runs(session, &f, &mut analysis, ctx.cancel)?;
    if let Some(k) = selected
        && k >= analysis.paths.len()
    {
        return Err(CellError::usage(format!(
            "--path {k}: {name} has {} listed paths (numbered from 0)",
            analysis.paths.len()
        )));
    }
    ctx.check_cancel()?;
    let source = dot(&analysis, selected);
    let limit = Duration::from_secs(session.config.dot_timeout_s);
    let (svg, note) = match session.layout(&source, ctx.cancel, limit) {
        Ok(svg) => (Some(svg), String::new()),
        Err(GraphvizError::Stopped(s)) => return Err(s.into()),
        Err(e) => (
            None,
            format!(
                "<div class=\"analysis-kernel-note\">No figure: {}.</div>",
                escape(&e.to_string())
            ),
        ),
    };
    let view = View {
        kind: "constraints",
        text: text(&analysis, selected),
        html: format!(
            "{note}{}{}",
            crate::render::cfg_summary::notes_html(&[&analysis.cfg]),
            html(&analysis, selected)
        ),
        svg,
        dot: Some(source),
        json: json(&analysis),
    };
    ctx.show(&view, inv)
}

/// The `ARG:TYPE` words, each naming a parameter of `f`.
fn given_types(
    f: &crate::python::ir::Function,
    specs: &[String],
) -> Result<Vec<(String, crate::symbolic::Sort)>, CellError> {
    let given = crate::symexec::parse_specs(specs).map_err(|e| {
        CellError::usage(format!(
            "%constraints: {e} (after the name: ARG:TYPE words, the types {ACCEPTED_TYPES})"
        ))
    })?;
    for (name, _) in &given {
        if f.param(name).is_none() {
            let params: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
            return Err(CellError::usage(format!(
                "%constraints: {} has no parameter {name} (its parameters: {})",
                f.qualname,
                params.join(", ")
            )));
        }
    }
    Ok(given)
}

fn parse_count(option: &str, value: &str) -> Result<usize, CellError> {
    value
        .parse()
        .map_err(|_| CellError::usage(format!("{option} takes a whole number, got {value:?}")))
}
