//! Large symbolic execution trees, summarised: the figure and the text show the first nodes
//! in depth-first order (a prefix of the pre-order is a subtree holding the root), each
//! subtree left out is one grey box with its counts; the leaf table shows the first leaves,
//! paginated in HTML; the JSON payload keeps the same prefix and says what it left out
//! (`--save FILE.json` writes the whole tree). Everything depends only on the tree, so the
//! summary is deterministic.

use crate::symexec::{Outcome, Tree};

/// Nodes the figure draws (beyond this, subtrees are collapsed).
pub const FIGURE_NODES: usize = 300;
/// Lines of the text form.
pub const TEXT_NODES: usize = 2_000;
/// Rows of the leaf table.
pub const TABLE_LEAVES: usize = 1_000;
/// Rows per page of the HTML leaf table.
pub const PAGE: usize = 100;
/// Nodes and leaves in the JSON payload.
pub const JSON_NODES: usize = 5_000;

/// Counts of a subtree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub nodes: usize,
    pub leaves: usize,
    pub exceptions: usize,
    pub bounds: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.nodes += o.nodes;
        self.leaves += o.leaves;
        self.exceptions += o.exceptions;
        self.bounds += o.bounds;
    }

    /// `1,234 nodes, 400 leaves (3 exceptions, 2 bound)`
    pub fn describe(&self) -> String {
        let mut kinds = Vec::new();
        if self.exceptions > 0 {
            kinds.push(format!("{} exception", self.exceptions));
        }
        if self.bounds > 0 {
            kinds.push(format!("{} bound", self.bounds));
        }
        let kinds = if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        };
        format!("{} nodes, {} leaves{kinds}", self.nodes, self.leaves)
    }
}

/// For each node, its leaf's position in `tree.leaves`, if it is a leaf.
pub fn leaf_index(tree: &Tree) -> Vec<Option<usize>> {
    let mut out = vec![None; tree.nodes.len()];
    for (i, l) in tree.leaves.iter().enumerate() {
        if let Some(slot) = out.get_mut(l.node) {
            *slot = Some(i);
        }
    }
    out
}

/// The counts of every node's subtree (parents come before their children).
pub fn subtree_counts(tree: &Tree) -> Vec<Counts> {
    let index = leaf_index(tree);
    let mut counts = vec![Counts::default(); tree.nodes.len()];
    for (id, node) in tree.nodes.iter().enumerate().rev() {
        let mut own = counts[id];
        own.nodes += 1;
        if let Some(l) = index[id] {
            own.leaves += 1;
            match tree.leaves[l].outcome {
                Outcome::Exception(_) => own.exceptions += 1,
                Outcome::Bound(_) => own.bounds += 1,
                _ => {}
            }
        }
        counts[id] = own;
        if let Some(p) = node.parent
            && p < id
        {
            counts[p].add(own);
        }
    }
    counts
}

/// The subtrees left out when only nodes `0..shown` are kept: for each kept node with
/// children left out, their counts together (in node order).
pub fn collapsed(tree: &Tree, shown: usize) -> Vec<(usize, Counts)> {
    if shown >= tree.nodes.len() {
        return Vec::new();
    }
    let counts = subtree_counts(tree);
    let mut hidden: Vec<Counts> = vec![Counts::default(); shown];
    for (id, node) in tree.nodes.iter().enumerate().skip(shown) {
        if let Some(p) = node.parent
            && p < shown
        {
            hidden[p].add(counts[id]);
        }
    }
    hidden
        .into_iter()
        .enumerate()
        .filter(|(_, c)| c.nodes > 0)
        .collect()
}

/// The note under a summarised view.
pub fn note(tree: &Tree, shown: usize, what: &str) -> Option<String> {
    (tree.nodes.len() > shown).then(|| {
        format!(
            "The {what} shows the first {shown} of {} nodes (depth-first); each subtree left out is one grey box with its counts. --save FILE.json writes the whole tree.",
            tree.nodes.len()
        )
    })
}

/// The note under a leaf table cut at [`TABLE_LEAVES`].
pub fn table_note(tree: &Tree) -> Option<String> {
    (tree.leaves.len() > TABLE_LEAVES).then(|| {
        format!(
            "The table lists the first {TABLE_LEAVES} of {} leaves; --save FILE.json writes them all.",
            tree.leaves.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::python::lower_module;
    use crate::symexec::{Options, Program, execute, parse_specs};

    fn ifs(n: usize) -> Tree {
        let mut src = String::from("y = 0\n");
        let mut inputs = Vec::new();
        for i in 0..n {
            src.push_str(&format!("if x{i} > 0:\n    y = y + 1\n"));
            inputs.push(format!("x{i}:int"));
        }
        let module = lower_module(&src).unwrap();
        let program = Program::snippet(&module, [], &parse_specs(&inputs).unwrap()).unwrap();
        let options = Options {
            node_limit: 100_000,
            ..Options::default()
        };
        execute(&program, &options, &Cancel::new()).unwrap()
    }

    #[test]
    fn collapsed_subtrees_account_for_every_node_left_out() {
        let tree = ifs(8);
        let counts = subtree_counts(&tree);
        assert_eq!(counts[0].nodes, tree.nodes.len());
        assert_eq!(counts[0].leaves, tree.leaves.len());
        for shown in [1, 10, 57, 300] {
            let hidden = collapsed(&tree, shown);
            let total: usize = hidden.iter().map(|(_, c)| c.nodes).sum();
            let leaves: usize = hidden.iter().map(|(_, c)| c.leaves).sum();
            assert_eq!(total, tree.nodes.len() - shown, "shown {shown}");
            let shown_leaves = tree.leaves.iter().filter(|l| l.node < shown).count();
            assert_eq!(leaves + shown_leaves, tree.leaves.len());
            assert_eq!(hidden, collapsed(&tree, shown), "deterministic");
        }
        assert!(collapsed(&tree, tree.nodes.len()).is_empty());
    }
}
