//! `%dataflow ANALYSIS NAME` and `%%dataflow ANALYSIS`: an analysis of the registry run to its
//! fixpoint, shown by the shared view ([`super::flow`]).

use super::flow::{run_each, unknown};
use crate::cancel::Cancel;
use crate::dataflow::engine::Options;
use crate::dataflow::registry;
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::CellError;
use crate::notebook::session::{Ctx, Session};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--trace",
        values: 0,
        help: "also list the worklist steps: node, the edge whose facts changed it, facts added/removed",
    },
    super::step::STEP,
    super::interproc_dataflow::INTERPROCEDURAL,
];

pub const USAGE: &str = "%dataflow ANALYSIS NAME [--trace]\n%dataflow live|reaching NAME --interprocedural\n%%dataflow ANALYSIS [--trace]\n<Python code>";

pub const SUMMARY: &str = "dataflow facts IN/OUT per CFG node: {analyses}";

pub const HELP: &str = "Runs a dataflow analysis to its fixpoint (a worklist in reverse postorder, postorder for \
backward analyses) on the statement-level CFG of function NAME, or with %%dataflow on the rest of the \
cell (its top-level code; each function when it only defines functions). Shows a table of the facts \
before (IN) and after (OUT) each node, in program order whatever the direction, and the CFG (node \
ids as %cfg shows them) with IN above and OUT below each statement.\n\n\
ANALYSIS:\n{analysis-help}\n\n\
Expressions are the binary operations and comparisons over variables and constants that a \
statement always evaluates (x += 1 evaluates x + 1). A `for` binds its target on its True edge; \
an exception edge carries the facts from before and after its statement.\n\n\
With --interprocedural (live and reaching), the analysis runs from NAME across calls of the session's \
functions by name, one result per function (joined over its call sites): reaching definitions carry \
the globals' definitions (x@f:L3, x@module) into callees and back after each call, and bind the \
parameters per call site (a←g:L5); live variables make the globals a callee reads live before the call \
and the globals read after a call live at the callee's exit (x@after: after NAME returns). Calls of \
methods, builtins and other names are not followed (listed; assumed not to touch the globals).";

/// Runs `%dataflow` / `%%dataflow`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    if inv.flag("--interprocedural") {
        return super::interproc_dataflow::run(session, inv, ctx);
    }
    if super::user::is_user_analysis(session, inv.args.first()) {
        return super::user::dataflow(session, inv, ctx);
    }
    let pick = |which: &str| {
        registry::find_analysis(which)
            .map(|a| a.run)
            .map_err(|e| unknown(e, which, &registry::ANALYSIS_WORDS))
    };
    run_each(session, inv, ctx, "ANALYSIS", pick, options)
}

/// The engine options of the classic analyses (no widening needed: their lattices are finite).
fn options(trace: bool, cancel: Option<&Cancel>) -> Options<'_> {
    Options {
        trace,
        cancel,
        ..Options::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::analyses::Program;
    use crate::notebook::views::flow::text;
    use crate::python::lower_module;

    fn report(source: &str, kind: &str, trace: bool) -> String {
        let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
        let options = Options {
            trace,
            ..Options::default()
        };
        let analysis = registry::find_analysis(kind).unwrap_or_else(|e| panic!("{e}"));
        let r = (analysis.run)(&p, &options).unwrap_or_else(|e| panic!("{e}"));
        text(&p, &r, trace)
    }

    const FOO: &str = "\ndef f(x):\n    y = 0\n\n    while x >= 0:\n        tmp = x\n        if tmp % 2 == 0:\n            y = x\n        x -= 1\n\n\n    return y\n";

    #[test]
    fn reaching_definitions_table() {
        expect_test::expect![[r#"
            reaching definitions of f (forward, may; 14 node visits)
            x@L3 is the definition of x at line 3 (parameters: the def line); IN = definitions that may reach the statement.

            node  lines  statement         IN                                OUT
            ----  -----  ----------------  --------------------------------  --------------------------------
            0     L2     enter: f(x)       {}                                {x@L2}
            1     L3     y = 0             {x@L2}                            {x@L2, y@L3}
            2     L5     while x >= 0:     {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            3     L6     tmp = x           {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            4     L7     if tmp % 2 == 0:  {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            5     L8     y = x             {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L8}
            6     L9     x -= 1            {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L9, y@L3, y@L8}
            7     L12    return y          {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}
            8     L12    exit: f(x)        {tmp@L6, x@L2, x@L9, y@L3, y@L8}  {tmp@L6, x@L2, x@L9, y@L3, y@L8}"#]]
        .assert_eq(&report(FOO, "reaching", false));
    }

    #[test]
    fn liveness_table_with_trace() {
        expect_test::expect![[r#"
            live variables of f (backward, may; 6 node visits)
            x@L5 is the use of x at line 5; a use is live where some path reaches it before x is bound again, so x is live there. OUT is the course's LIVE-OUT.

            node  lines  statement       IN                        OUT
            ----  -----  --------------  ------------------------  ------------------------
            0     L1     enter: f(a, b)  {}                        {a@L2, a@L3, a@L4, b@L3}
            1     L2     while a > 0:    {a@L2, a@L3, a@L4, b@L3}  {a@L3, a@L4, b@L3}
            2     L3     a = a - b       {a@L3, b@L3}              {a@L2, a@L3, a@L4, b@L3}
            3     L4     return a        {a@L4}                    {}
            4     L4     exit: f(a, b)   {}                        {}

            Worklist trace
            step  node  lines  changed by     IN changes               OUT changes
            ----  ----  -----  -------------  -----------------------  -----------------------
            1     4     L4     start          ·                        ·
            2     3     L4     from 4         +a@L4                    ·
            3     2     L3     start          +a@L3 +b@L3              ·
            4     1     L2     from 2 (True)  +a@L2 +a@L3 +a@L4 +b@L3  +a@L3 +a@L4 +b@L3
            5     2     L3     from 1         ·                        +a@L2 +a@L3 +a@L4 +b@L3
            6     0     L1     from 1         ·                        +a@L2 +a@L3 +a@L4 +b@L3"#]].assert_eq(&report(
            "def f(a, b):\n    while a > 0:\n        a = a - b\n    return a\n",
            "live",
            true,
        ));
    }
}
