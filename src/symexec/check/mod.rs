//! Exhaustiveness and precision (placeholder while the tree is built).
