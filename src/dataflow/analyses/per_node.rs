//! [`PerNode`]: one short list per CFG node, stored back to back in one vector.

/// Lists indexed by node, pushed in node order.
#[derive(Clone, Debug)]
pub struct PerNode<T> {
    /// Where each node's list starts in `items`; one more entry than there are nodes.
    starts: Vec<usize>,
    items: Vec<T>,
}

impl<T> Default for PerNode<T> {
    fn default() -> Self {
        PerNode {
            starts: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T> PerNode<T> {
    /// Appends the list of the next node.
    pub fn push(&mut self, items: impl IntoIterator<Item = T>) {
        self.items.extend(items);
        self.starts.push(self.items.len());
    }

    /// The list of node `n` (empty past the last node pushed).
    pub fn get(&self, n: usize) -> &[T] {
        match (self.starts.get(n), self.starts.get(n + 1)) {
            (Some(&a), Some(&b)) => &self.items[a..b],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_by_node() {
        let mut p = PerNode::default();
        p.push([1, 2]);
        p.push([]);
        p.push([3]);
        assert_eq!(p.get(0), [1, 2]);
        assert!(p.get(1).is_empty());
        assert_eq!(p.get(2), [3]);
        assert!(p.get(3).is_empty());
    }
}
