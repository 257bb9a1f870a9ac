//! The expressions of available and very busy expressions: binary operations and comparisons
//! built from variables and constants only, identified by their text (the IR's `Display`).

use crate::python::ir::{Expr, ExprKind, Stmt, StmtKind};

/// One expression fact: its text and the variables it reads.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Candidate {
    pub text: String,
    pub names: Vec<String>,
}

/// The candidate expressions statement `s` evaluates whenever it runs (its own expressions;
/// nested blocks excluded), children before parents, without repeats. `x += e` evaluates
/// `x + e`. Parts that short-circuiting may skip (`and`/`or` operands after the first, the
/// branches of `a if c else b`, later links of a chained comparison) and the bodies of
/// lambdas and comprehensions are left out.
pub fn candidates(s: &Stmt) -> Vec<Candidate> {
    let mut out = Vec::new();
    match &s.kind {
        StmtKind::AugAssign { target, value, .. } => {
            walk(value, &mut out);
            if let (Some(_), Some(whole)) = (target.as_name(), s.augmented_value()) {
                push(&whole, &mut out);
            } else {
                walk(target, &mut out);
            }
        }
        _ => {
            for e in s.exprs() {
                walk(e, &mut out);
            }
        }
    }
    out
}

fn walk(e: &Expr, out: &mut Vec<Candidate>) {
    match &e.kind {
        ExprKind::BoolOp { values, .. } => {
            if let Some(first) = values.first() {
                walk(first, out);
            }
        }
        ExprKind::IfExp { test, .. } => walk(test, out),
        ExprKind::Lambda { params, .. } => {
            for d in params.iter().filter_map(|p| p.default.as_ref()) {
                walk(d, out);
            }
        }
        ExprKind::Comprehension { generators, .. } => {
            if let Some(g) = generators.first() {
                walk(&g.iter, out);
            }
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            walk(left, out);
            if let Some(first) = comparators.first() {
                walk(first, out);
            }
            push(e, out);
        }
        ExprKind::BinOp { left, right, .. } => {
            walk(left, out);
            walk(right, out);
            push(e, out);
        }
        _ => {
            for c in e.children() {
                walk(c, out);
            }
        }
    }
}

/// Adds `e` when it is a candidate not seen yet.
fn push(e: &Expr, out: &mut Vec<Candidate>) {
    if !is_pure(e) {
        return;
    }
    let names = e.names_used();
    if names.is_empty() {
        return;
    }
    let text = e.to_string();
    if out.iter().all(|c| c.text != text) {
        out.push(Candidate { text, names });
    }
}

/// Built from names, constants, and unary, binary and comparison operators only.
fn is_pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Constant(_) => true,
        ExprKind::UnaryOp { operand, .. } => is_pure(operand),
        ExprKind::BinOp { left, right, .. } => is_pure(left) && is_pure(right),
        ExprKind::Compare {
            left, comparators, ..
        } => is_pure(left) && comparators.iter().all(is_pure),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn texts(source: &str) -> Vec<String> {
        let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        m.body.iter().flat_map(candidates).map(|c| c.text).collect()
    }

    #[test]
    fn candidates_in_evaluation_order() {
        assert_eq!(
            texts("if tmp % 2 == 0:\n    pass\n"),
            ["tmp % 2", "tmp % 2 == 0"]
        );
        assert_eq!(texts("x -= 1\n"), ["x - 1"]);
        assert_eq!(texts("y = f(a * b) + c\n"), ["a * b"]);
        assert_eq!(texts("y = a < b and c + d > 0\n"), ["a < b"]);
        assert_eq!(texts("y = (a + 1 if p > q else b - 1)\n"), ["p > q"]);
        assert_eq!(
            texts("y = 1 + 2\nz = a + a + (a + a)\n"),
            ["a + a", "a + a + (a + a)"]
        );
        assert_eq!(texts("a[i + 1] = [k * 2 for k in r if k > i]\n"), ["i + 1"]);
        assert!(texts("y = x.y + 1\n").is_empty(), "attributes are not pure");
    }
}
