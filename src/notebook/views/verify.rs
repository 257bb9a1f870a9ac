//! `%verify NAME` and `%equiv F G`: command logic (arguments, the harness run, laying the
//! figure out); the checking is `symexec::verify`'s, the drawing `render::verify`'s.

use std::time::Duration;

use super::set::{DEPTH, UNROLL, error, session_functions};
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::render::graphviz::GraphvizError;
use crate::render::html::escape;
use crate::render::verify::{dot, html, json, legend_html, text};
use crate::symbolic::in_fresh_context;
use crate::symexec::verify::replay::Replayer;
use crate::symexec::verify::{Report, Setup, equiv, verify};
use crate::symexec::{Options, SymexecError, parse_specs};

/// `--leaves`, as `%verify` and `%equiv` word it.
const LEAVES: OptionSpec = OptionSpec {
    name: "--leaves",
    values: 0,
    help: "only the tables (no figure): for large trees",
};

pub const VERIFY_OPTIONS: &[OptionSpec] = &[
    UNROLL,
    DEPTH,
    LEAVES,
    OptionSpec {
        name: "--summaries",
        values: 0,
        help: "run calls of other functions that have postconditions by their contracts (preconditions checked at the call, result assumed to satisfy the postconditions) instead of inlining them",
    },
];

pub const EQUIV_OPTIONS: &[OptionSpec] = &[
    UNROLL,
    DEPTH,
    LEAVES,
    OptionSpec {
        name: "--returns-only",
        values: 0,
        help: "compare only inputs where both return (exceptions are not compared)",
    },
    OptionSpec {
        name: "--pre",
        values: 0,
        help: "only inputs satisfying the first function's docstring preconditions",
    },
];

pub const VERIFY_USAGE: &str =
    "%verify NAME [--unroll N] [--depth N] [--leaves] [--summaries] [ARG:TYPE ...]";
pub const EQUIV_USAGE: &str =
    "%equiv F G [--returns-only] [--pre] [--unroll N] [--depth N] [--leaves] [ARG:TYPE ...]";

pub const VERIFY_SUMMARY: &str =
    "prove or refute a function's contract (docstring postconditions, asserts) on every path";
pub const EQUIV_SUMMARY: &str =
    "bounded equivalence of two functions: a distinguishing input, or equivalent (up to a bound)";

pub const VERIFY_HELP: &str = "Proves or refutes the contract of a defined function on every path of its symbolic \
execution tree (%set's, with the same bounds). The contract is PythonTA's docstring form: `Preconditions:` / \
`Precondition:` (assumed) and `Postconditions:` / `Postcondition:` with `$return_value` (checked on every return), \
plus every `assert` reached in the body. all(...) / any(...) over a generator (ranges, lists, tuples, str) are \
checked in bounded form: a loop over the generator, unrolled like any loop (longer inputs end in bound leaves). \
The checks are asserts of a generated harness (shown in the payload), so each is proved on a path when its \
failing branch is infeasible, and refuted by a feasible one, whose input is replayed in CPython (in the kernel's \
interpreter when %config cpython_oracle=0) and shown only if the run fails the same clause.\n\n\
The verdict says exactly what was shown: verified (no bound reached), verified up to bound (the number of bound \
leaves), refuted (the input, the failing clause and the replayed run), or unknown (approximate paths through \
what is not modelled, undecided solver queries, the node limit, a replay that disagreed). Leaves where the \
function raises are listed, not judged (postconditions speak of returns). The table has a row per leaf and a \
column per obligation (✓ proved, ✓* holds on this leaf, ✗ refuted); the tree marks refuted leaves red and \
proved ones with a green border.\n\n\
Loop invariants: `# invariant: EXPR` on a while loop's header line (or on comment lines right after it), or a \
`Loop invariants:` list in the docstring of a function with one while loop. Such a loop is not unrolled: the \
invariants must hold on entry (obligation In.init), be preserved by one iteration from any state where they and \
the guard hold (In.pres: what the loop assigns is havocked, as extra inputs of the harness, so a broken \
obligation comes with the state that breaks it, replayed in CPython), and are assumed with the guard false after \
the loop. With invariants on every loop the verdict can be verified with no bound. A postcondition that fails \
only from a state the invariants allow is refuted only if the function itself fails it on the same arguments; \
otherwise it is unknown (the invariants may be too weak). `for i in range(a, b)` takes invariants too, with i \
the next iteration's index (a on entry, max(a, b) at the exit).\n\n\
Termination: a while loop proved by its invariants is partial correctness; `# decreases: EXPR` on its header \
adds the obligations Dn.nonneg (the measure is >= 0 when an iteration starts) and Dn.dec (smaller when it ends). \
A recursive function's measure (`Decreases: EXPR` in its docstring, or `# decreases: EXPR` on its def line) is \
checked under --summaries: Dr.nonneg on entry, Dr.dec at each recursive call; proved, the verdict is total \
correctness.\n\n\
--summaries: calls of other functions that have docstring postconditions run by their contracts: each \
precondition is an obligation at the call (g.pre1), the result is any value of the return annotation's type \
satisfying the postconditions. The replay runs the real function behind a wrapper that checks the preconditions. \
A recursive function's own calls run by its contract too (its body runs once).";

pub const EQUIV_HELP: &str = "Bounded equivalence of two functions with the same number of parameters (G is \
called with F's parameters, F's annotations give the types): a generated harness calls both, compares the \
outcome's class (returned, or which exception: ZeroDivisionError, IndexError, ValueError, TypeError, ... or \
another) and, when both return, the results with ==. A distinguishing input is replayed in CPython (both \
outcomes shown) before it is shown. Verdicts: different (the input), equivalent (no bound reached), equivalent \
up to bound (the number of bound leaves), unknown.\n\n\
--returns-only compares only inputs where both return; --pre restricts the inputs by F's docstring \
preconditions. It is the `equiv` criterion of a grading rubric.";

fn bounds(session: &Session, inv: &Invocation) -> Result<Options, CellError> {
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
    Ok(super::set::session_options(session, unroll, depth))
}

fn replayer(session: &Session) -> Replayer {
    if crate::symexec::check::cpython_forbidden() {
        Replayer::Interpreter("CPython forbidden by ANALYSIS_KERNEL_NO_CPYTHON".into())
    } else if session.config.cpython_oracle == 0 {
        Replayer::Interpreter("CPython turned off by %config cpython_oracle=0".into())
    } else {
        Replayer::CPython
    }
}

/// The sources of the session's top-level functions.
fn definitions(session: &Session) -> Vec<String> {
    session_functions(session)
        .iter()
        .filter(|f| !f.qualname.contains('.'))
        .filter_map(|f| session.function(&f.qualname).map(|s| s.source.clone()))
        .collect()
}

/// `%verify NAME`.
pub fn run_verify(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    let Some((name, specs)) = inv.args.split_first() else {
        return Err(CellError::usage(format!(
            "%verify needs a function name: {VERIFY_USAGE}"
        )));
    };
    session.require_lowered(name)?;
    let functions = session_functions(session);
    let setup = Setup {
        functions: functions.iter().map(|f| f.as_ref()).collect(),
        definitions: definitions(session),
        given: parse_specs(specs).map_err(|e| error(e, inv))?,
        options: bounds(session, inv)?,
        replayer: replayer(session),
        summaries: inv.flag("--summaries"),
    };
    let cancel = ctx.cancel;
    let report = in_fresh_context("verify", || verify(&setup, name, cancel))
        .map_err(|e| error(SymexecError::Solver(e), inv))?
        .map_err(|e| error(e, inv))?;
    show(session, inv, ctx, &report, "verify")
}

/// `%equiv F G`.
pub fn run_equiv(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    let [f, g, specs @ ..] = inv.args.as_slice() else {
        return Err(CellError::usage(format!(
            "%equiv needs two function names: {EQUIV_USAGE}"
        )));
    };
    session.require_lowered(f)?;
    session.require_lowered(g)?;
    let functions = session_functions(session);
    let setup = Setup {
        functions: functions.iter().map(|f| f.as_ref()).collect(),
        definitions: definitions(session),
        given: parse_specs(specs).map_err(|e| error(e, inv))?,
        options: bounds(session, inv)?,
        replayer: replayer(session),
        summaries: false,
    };
    let (returns_only, pre, cancel) = (inv.flag("--returns-only"), inv.flag("--pre"), ctx.cancel);
    let report = in_fresh_context("equiv", || equiv(&setup, f, g, returns_only, pre, cancel))
        .map_err(|e| error(SymexecError::Solver(e), inv))?
        .map_err(|e| error(e, inv))?;
    show(session, inv, ctx, &report, "equiv")
}

fn show(
    session: &Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    report: &Report,
    kind: &'static str,
) -> Result<(), CellError> {
    ctx.check_cancel()?;
    let (svg, source, figure_note) = if inv.flag("--leaves") {
        (None, None, String::new())
    } else {
        let source = dot(report);
        let limit = Duration::from_secs(session.config.dot_timeout_s);
        match session.layout(&source, ctx.cancel, limit) {
            Ok(svg) => (Some(svg), Some(source), String::new()),
            Err(GraphvizError::Stopped(s)) => return Err(s.into()),
            Err(e @ (GraphvizError::NotInstalled | GraphvizError::Timeout(_))) => (
                None,
                Some(source),
                format!(
                    "<div class=\"analysis-kernel-note\">No figure: {}.</div>",
                    escape(&e.to_string())
                ),
            ),
            Err(e) => return Err(CellError::new("DotError", e.to_string())),
        }
    };
    let view = View {
        kind,
        text: text(report),
        html: format!(
            "{figure_note}{}{}",
            if svg.is_some() {
                legend_html()
            } else {
                String::new()
            },
            html(report)
        ),
        svg,
        dot: source,
        json: json(report),
    };
    if let Some(file) = view.save_file(inv)? {
        ctx.sink.save(file)?;
    }
    ctx.sink
        .emit(crate::notebook::Output::Display(view.bundle()));
    Ok(())
}
