//! `%check-domain ANALYSIS` for a user's dataflow analysis: its transfer function and its
//! edge effects must be monotone (`S ⊆ S'` implies `transfer(S) ⊆ transfer(S')`; for a must
//! analysis the order is reversed on both sides, which is the same condition). Checked on
//! every node (and every edge with an effect) of the given programs, on pairs of fact sets
//! drawn from the facts the analysis itself produces there (`{} ⊆ U`, `{} ⊆ {f}` and
//! `U - {f} ⊆ U` for each fact `f` of `U`, then random pairs); a failing pair is shrunk (facts
//! removed while it still fails) so the counterexample is small.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::UserError;
use super::flow::{UserFlow, edge_kind, show_facts};
use crate::cancel::Cancel;
use crate::dataflow::analyses::Program;
use crate::dataflow::domains::soundness::CheckError;
use crate::interp::host::HostValue;
use crate::splitmix::SplitMix64;

/// Counterexamples reported at most.
const MAX_FAILURES: usize = 8;

/// The program checked when the command names no function: one node of each kind a
/// student's analysis must handle (assignments, `for` targets, `del`, a handler's name).
pub const SAMPLE: &str = "def sample(a, b, items):
    x = a + b
    y = x * 2
    for i in items:
        if i > y:
            x = i - a
        else:
            del y
            y = i
    while x > 0:
        x = x - 1
    try:
        z = a // b
    except ZeroDivisionError as e:
        z = 0
    return x + z
";

/// What the check found on the analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowCheck {
    /// The functions checked.
    pub functions: Vec<String>,
    /// The facts the pairs were drawn from.
    pub facts: usize,
    /// Pairs of fact sets tried (transfer and edges).
    pub pairs: u64,
    /// Calls into the user's code.
    pub calls: u64,
    /// Non-monotone steps, each naming its node and its pair.
    pub monotonicity: Vec<String>,
}

impl FlowCheck {
    pub fn passed(&self) -> bool {
        self.monotonicity.is_empty()
    }
}

/// One step of the analysis on a node: its transfer, or the effect of one of its edges.
#[derive(Clone, Copy)]
enum Step {
    Transfer,
    Edge(&'static str),
}

/// Applies `step` at `node` to `facts` (the facts unchanged when an edge leaves them).
fn apply(
    flow: &UserFlow<'_>,
    node: NodeIndex,
    step: Step,
    facts: &BTreeSet<String>,
    calls: &mut u64,
) -> Option<BTreeSet<String>> {
    *calls += 1;
    match step {
        Step::Transfer => flow.transfer_of(node, facts),
        Step::Edge(kind) => flow
            .edge_of(node, kind, facts)
            .map(|r| r.unwrap_or_else(|| facts.clone())),
    }
}

/// Checks the user's analysis (`instance`) on `programs` (name, program), `samples` pairs per
/// step, seeded with `seed`.
pub fn check(
    programs: &[(String, Program<'_>)],
    instance: &HostValue,
    samples: usize,
    seed: u64,
    cancel: &Cancel,
) -> Result<Result<FlowCheck, (UserError, Option<String>)>, CheckError> {
    let failed = |program: &Program<'_>, e: UserError| {
        let step = e.node.map(|n| super::describe_node(program, n));
        (e, step)
    };
    let mut out = FlowCheck::default();
    let mut rng = SplitMix64::new(seed);
    for (name, program) in programs {
        out.functions.push(name.clone());
        let flow = match UserFlow::new(program, instance.clone()) {
            Ok(f) => f,
            Err(e) => return Ok(Err(failed(program, e))),
        };
        let steps = steps(program, &flow);
        let universe = universe(&flow, &steps, &mut out.calls);
        if let Some(e) = flow.error.borrow_mut().take() {
            return Ok(Err(failed(program, e)));
        }
        out.facts = out.facts.max(universe.len());
        let facts: Vec<&String> = universe.iter().collect();
        for &(node, step) in &steps {
            cancel.check()?;
            if out.monotonicity.len() >= MAX_FAILURES {
                break;
            }
            // Nothing below everything, nothing below each single fact, everything but one
            // fact below everything, then random pairs.
            let mut pairs = vec![(BTreeSet::new(), universe.clone())];
            for f in &facts {
                pairs.push((BTreeSet::new(), BTreeSet::from([f.to_string()])));
                let mut all_but = universe.clone();
                all_but.remove(*f);
                pairs.push((all_but, universe.clone()));
            }
            for _ in 0..samples {
                let big: BTreeSet<String> = facts
                    .iter()
                    .filter(|_| rng.below(2) == 0)
                    .map(|f| f.to_string())
                    .collect();
                let small: BTreeSet<String> =
                    big.iter().filter(|_| rng.below(2) == 0).cloned().collect();
                pairs.push((small, big));
            }
            for (small, big) in pairs {
                out.pairs += 1;
                let (Some(r), Some(r2)) = (
                    apply(&flow, node, step, &small, &mut out.calls),
                    apply(&flow, node, step, &big, &mut out.calls),
                ) else {
                    break;
                };
                if r.is_subset(&r2) {
                    continue;
                }
                let (small, big) = shrink(&flow, node, step, small, big, &mut out.calls);
                out.monotonicity.push(describe(
                    program,
                    &flow,
                    node,
                    step,
                    &small,
                    &big,
                    &mut out.calls,
                ));
                break;
            }
            if let Some(e) = flow.error.borrow_mut().take() {
                return Ok(Err(failed(program, e)));
            }
        }
    }
    Ok(Ok(out))
}

/// Every node's transfer, and the edges that have an effect, in node order.
fn steps(program: &Program<'_>, flow: &UserFlow<'_>) -> Vec<(NodeIndex, Step)> {
    let mut out = Vec::new();
    for n in program.cfg.nodes() {
        out.push((n, Step::Transfer));
        let mut kinds: Vec<&'static str> = program
            .cfg
            .successors(n)
            .into_iter()
            .map(|(_, e)| edge_kind(e))
            .filter(|k| flow.has_edge_effect(n, k))
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        out.extend(kinds.into_iter().map(|k| (n, Step::Edge(k))));
    }
    out
}

/// The facts the analysis produces: its boundary, and each step applied to nothing, then to
/// all the facts found so far.
fn universe(flow: &UserFlow<'_>, steps: &[(NodeIndex, Step)], calls: &mut u64) -> BTreeSet<String> {
    let mut all = flow.boundary_facts().clone();
    for round in 0..2 {
        let start = if round == 0 {
            BTreeSet::new()
        } else {
            all.clone()
        };
        for &(node, step) in steps {
            if let Some(r) = apply(flow, node, step, &start, calls) {
                all.extend(r);
            }
        }
    }
    all
}

/// Removes facts from a failing pair while it still fails: first from `big` alone (facts not
/// in `small`), then from both.
fn shrink(
    flow: &UserFlow<'_>,
    node: NodeIndex,
    step: Step,
    mut small: BTreeSet<String>,
    mut big: BTreeSet<String>,
    calls: &mut u64,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut fails = |s: &BTreeSet<String>, b: &BTreeSet<String>| match (
        apply(flow, node, step, s, calls),
        apply(flow, node, step, b, calls),
    ) {
        (Some(r), Some(r2)) => !r.is_subset(&r2),
        _ => false,
    };
    let extra: Vec<String> = big.difference(&small).cloned().collect();
    for f in extra {
        big.remove(&f);
        if !fails(&small, &big) {
            big.insert(f);
        }
    }
    let shared: Vec<String> = small.iter().cloned().collect();
    for f in shared {
        small.remove(&f);
        big.remove(&f);
        if !fails(&small, &big) {
            small.insert(f.clone());
            big.insert(f);
        }
    }
    (small, big)
}

/// `transfer is not monotone at node 3 (line 5: x = a + b): {} ⊆ {x@L2} but
/// transfer({}) = {y@L5} ⊄ transfer({x@L2}) = {}`.
fn describe(
    program: &Program<'_>,
    flow: &UserFlow<'_>,
    node: NodeIndex,
    step: Step,
    small: &BTreeSet<String>,
    big: &BTreeSet<String>,
    calls: &mut u64,
) -> String {
    let r = apply(flow, node, step, small, calls).unwrap_or_default();
    let r2 = apply(flow, node, step, big, calls).unwrap_or_default();
    let at = super::describe_node(program, node.index());
    let (s, b) = (show_facts(small), show_facts(big));
    match step {
        Step::Transfer => format!(
            "transfer is not monotone at {at}: {s} ⊆ {b} but transfer(stmt, {s}) = {} ⊄ transfer(stmt, {b}) = {}",
            show_facts(&r),
            show_facts(&r2)
        ),
        Step::Edge(kind) => format!(
            "edge is not monotone on the {kind:?} edge out of {at}: {s} ⊆ {b} but edge(stmt, {kind:?}, {s}) = {} ⊄ edge(stmt, {kind:?}, {b}) = {}",
            show_facts(&r),
            show_facts(&r2)
        ),
    }
}
