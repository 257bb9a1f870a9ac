//! `%absint DOMAIN NAME` and `%%absint DOMAIN`: abstract values before (IN) and after (OUT)
//! every CFG node in a domain of the registry, the warnings (division by zero, index out of
//! range), and with `--trace` the worklist, shown by the shared view ([`super::flow`]).

use super::flow::{run_each, unknown};
use crate::dataflow::absint;
use crate::dataflow::registry;
use crate::notebook::commands::OptionSpec;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::CellError;
use crate::notebook::session::{Ctx, Session};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--trace",
        values: 0,
        help: "also list the worklist steps: node, the edge whose facts changed it, values that changed",
    },
    super::step::STEP,
    super::interproc::CONTEXT,
    super::interproc::SUMMARIES,
];

pub const USAGE: &str = "%absint DOMAIN NAME [--trace]\n%absint DOMAIN NAME --context K | --summaries\n%%absint DOMAIN [--trace]\n<Python code>";

pub const SUMMARY: &str = "abstract interpretation ({domains}) with division-by-zero warnings";

pub const HELP: &str = "Abstract interpretation of function NAME (or with %%absint of the rest of the cell) in \
DOMAIN: {domain-choices}. Each CFG node gets the abstract value of every variable before (IN) and after (OUT) it; \
`unreachable` means no execution gets there. Parameters start at ⊤ (0..1 for `bool`); assignments \
evaluate + - * // % and unary minus in the domain (anything else is ⊤); True/False edges refine the \
state with their condition (x < c, x == y, x != 0, not, and, or; x % 2 == 0 in parity), so infeasible branches become \
unreachable; a `for` over range(...) binds its bounds; loops are widened at their heads after 3 \
visits, then narrowed.\n\n\
Warnings: \"Possible division by zero in line N\" when a divisor may be 0 in a reachable state, \
\"Division by zero in line N\" when it must be; likewise for indexing a tuple or string of known \
length outside [-len, len-1] (constant and interval domains). Values are analysed as ints; names \
that may hold floats, strings or call results are ⊤ and are not refined.\n\n\
Interprocedural (built-in domains and Python-written ones): with --context K, calls of the session's functions (by name) are \
analysed per call string of the last K call sites (K = 0: one context per function): arguments bind to \
the callee's parameters, its return value flows back; with --summaries, one context per abstract input \
of each callee is tabulated (up to 8, then one shared widened context). Inputs and return values are \
widened after 3 updates, so recursion terminates. Calls of methods, builtins and other names stay ⊤ \
and are listed. Shows a table per function and context, the calls between contexts, and NAME's CFG \
with each call site annotated.";

/// Runs `%absint` / `%%absint`.
pub fn run(session: &mut Session, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
    if let Some(sensitivity) = super::interproc::requested(inv)? {
        return super::interproc::run(session, inv, ctx, sensitivity);
    }
    if super::user::is_user_domain(session, inv.args.first()) {
        return super::user::absint(session, inv, ctx);
    }
    let pick = |which: &str| {
        registry::find_domain(which)
            .map(|d| d.analyze)
            .map_err(|e| unknown(e, which, &registry::DOMAIN_NAMES))
    };
    run_each(session, inv, ctx, "DOMAIN", pick, absint::options)
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
        let domain = registry::find_domain(kind).unwrap_or_else(|e| panic!("{e}"));
        let r =
            (domain.analyze)(&p, &absint::options(trace, None)).unwrap_or_else(|e| panic!("{e}"));
        text(&p, &r, trace)
    }

    #[test]
    fn zero_analysis_table() {
        expect_test::expect![[r#"
            zero analysis of f (13 node visits, widenings: 0, narrowing rounds: 1)

            node  lines  statement      IN                  OUT
            ----  -----  -------------  ------------------  ------------------
            0     L2     enter: f()     x: ⊥, y: ⊥, z: ⊥    x: ⊥, y: ⊥, z: ⊥
            1     L3     x = 8          x: ⊥, y: ⊥, z: ⊥    x: ≠0, y: ⊥, z: ⊥
            2     L4     y = x          x: ≠0, y: ⊥, z: ⊥   x: ≠0, y: ≠0, z: ⊥
            3     L5     z = 0          x: ≠0, y: ≠0, z: ⊥  x: ≠0, y: ≠0, z: 0
            4     L6     while y > -1:  x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤
            5     L7     x = x // y     x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤
            6     L8     y = y - 2      x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤
            7     L9     z = 5          x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ≠0
            8     L9     exit: f()      x: ⊤, y: ⊤, z: ⊤    x: ⊤, y: ⊤, z: ⊤

            Warnings:
            - Possible division by zero in line 7"#]].assert_eq(&report(
            "\ndef f():\n    x = 8\n    y = x\n    z = 0\n    while y > -1:\n        x = x // y\n        y = y - 2\n        z = 5\n",
            "zero",
            false,
        ));
    }

    #[test]
    fn interval_table_with_trace() {
        expect_test::expect![[r#"
            interval analysis of f (12 node visits, widenings: 1, narrowing rounds: 1)

            node  lines  statement       IN                       OUT
            ----  -----  --------------  -----------------------  -----------------------
            0     L1     enter: f(n)     i: ⊥, n: [-∞, +∞]        i: ⊥, n: [-∞, +∞]
            1     L2     i = 0           i: ⊥, n: [-∞, +∞]        i: [0, 0], n: [-∞, +∞]
            2     L3     while i < n:    i: [0, +∞], n: [-∞, +∞]  i: [0, +∞], n: [-∞, +∞]
            3     L4     i = i + 1       i: [0, +∞], n: [1, +∞]   i: [1, +∞], n: [1, +∞]
            4     L5     return 10 // i  i: [0, +∞], n: [-∞, +∞]  i: [0, +∞], n: [-∞, +∞]
            5     L5     exit: f(n)      i: [0, +∞], n: [-∞, +∞]  i: [0, +∞], n: [-∞, +∞]

            Warnings:
            - Possible division by zero in line 5

            Worklist trace
            step  node  lines  changed by       IN changes                                                OUT changes
            ----  ----  -----  ---------------  --------------------------------------------------------  --------------------------------------------------------
            1     0     L1     start            unreachable → reachable; n: ⊥ → [-∞, +∞]                  unreachable → reachable; n: ⊥ → [-∞, +∞]
            2     1     L2     from 0           unreachable → reachable; n: ⊥ → [-∞, +∞]                  unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [-∞, +∞]
            3     2     L3     from 1           unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [-∞, +∞]   unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [-∞, +∞]
            4     3     L4     from 2 (True)    unreachable → reachable; i: ⊥ → [0, 0]; n: ⊥ → [1, +∞]    unreachable → reachable; i: ⊥ → [1, 1]; n: ⊥ → [1, +∞]
            5     2     L3     from 3           i: [0, 0] → [0, 1]                                        i: [0, 0] → [0, 1]
            6     3     L4     from 2 (True)    i: [0, 0] → [0, 1]                                        i: [1, 1] → [1, 2]
            7     2     L3     from 3           i: [0, 1] → [0, 2]                                        i: [0, 1] → [0, 2]
            8     3     L4     from 2 (True)    i: [0, 1] → [0, 2]                                        i: [1, 2] → [1, 3]
            9     2     L3     from 3, widened  i: [0, 2] → [0, +∞]                                       i: [0, 2] → [0, +∞]
            10    3     L4     from 2 (True)    i: [0, 2] → [0, +∞]                                       i: [1, 3] → [1, +∞]
            11    4     L5     from 2 (False)   unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]  unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]
            12    5     L5     from 4           unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]  unreachable → reachable; i: ⊥ → [0, +∞]; n: ⊥ → [-∞, +∞]"#]].assert_eq(&report(
            "def f(n: int):\n    i = 0\n    while i < n:\n        i = i + 1\n    return 10 // i\n",
            "interval",
            true,
        ));
    }
}
