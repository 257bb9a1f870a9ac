//! `--step` on `%set`/`%%set`: the exploration in one output updated in place. The symbolic
//! executor explores depth first and numbers nodes as it adds them, so the tree after `k`
//! nodes is the first `k` nodes (parents come first); each such tree is drawn by `%set`'s own
//! view under one display id, `%config step_delay_ms` apart, and the last update is the plain
//! `%set` view. A second output keeps the steps as a static `<details>` strip for exported
//! HTML, as `--step` on `%dataflow` does.

use super::step::{MAX_STEPS, Stepper};
use crate::notebook::commands::OptionSpec;
use crate::notebook::output::{CellError, View};
use crate::notebook::session::{Ctx, Session};
use crate::symexec::Tree;

/// `--step` for `%set`.
pub const STEP: OptionSpec = OptionSpec {
    name: "--step",
    values: 0,
    help: "show the exploration node by node in one output updated in place (%config step_delay_ms), ending with the final tree; the HTML keeps every step's figure",
};

/// The tree as it stood when its first `k` nodes had been added.
pub fn prefix(tree: &Tree, k: usize) -> Tree {
    let mut t = tree.clone();
    t.nodes.truncate(k);
    t.leaves.retain(|l| l.node < k);
    t.havoc.retain(|(n, _)| *n < k);
    t.approximate.retain(|n| *n < k);
    t.truncated = false;
    t.unexplored = 0;
    t
}

/// The node counts of the steps: every count up to [`MAX_STEPS`] nodes, else evenly spaced
/// (a larger tree adds several nodes a step).
pub fn step_sizes(nodes: usize) -> Vec<usize> {
    if nodes <= MAX_STEPS {
        return (1..=nodes).collect();
    }
    let mut out: Vec<usize> = (1..=MAX_STEPS)
        .map(|i| (i * nodes).div_ceil(MAX_STEPS))
        .collect();
    out.dedup();
    out
}

/// Plays the exploration of `tree` (each step drawn by `draw`), then shows `last`.
pub fn play(
    tree: &Tree,
    last: &View,
    session: &Session,
    ctx: &mut Ctx<'_>,
    draw: &dyn Fn(&Tree, &Ctx<'_>) -> Result<View, CellError>,
) -> Result<(), CellError> {
    let sizes = step_sizes(tree.nodes.len());
    let mut stepper = Stepper::new(session);
    for (i, &k) in sizes.iter().enumerate() {
        ctx.check_cancel()?;
        let step = draw(&prefix(tree, k), &*ctx)?;
        let node = &tree.nodes[k - 1];
        let at = node.line.map(|l| format!(", line {l}")).unwrap_or_default();
        let caption = format!(
            "step {} of {}: {k} of {} nodes (node {}{at})",
            i + 1,
            sizes.len(),
            tree.nodes.len(),
            node.id
        );
        stepper.step(&step, &caption, ctx)?;
    }
    let summary = format!(
        "The exploration in {} steps ({} nodes)",
        sizes.len(),
        tree.nodes.len()
    );
    stepper.finish(last, &summary, ctx);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::step_sizes;

    #[test]
    fn steps_cover_the_tree_and_end_with_it() {
        assert_eq!(step_sizes(3), vec![1, 2, 3]);
        let big = step_sizes(1000);
        assert_eq!(big.len(), 60);
        assert_eq!(*big.last().unwrap(), 1000);
        assert!(big.windows(2).all(|w| w[0] < w[1]));
    }
}
