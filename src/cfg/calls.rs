//! Call tracking: which functions a statement calls at its own node.

use crate::python::ir::{Expr, ExprKind, MatchCase, Stmt};

use super::exceptions::dotted_name;

/// The callees of the expressions `s` evaluates itself (nested blocks and lambda bodies
/// excluded), first call first, each once: `f`, `obj.method`, or the callee's source text.
pub fn stmt_calls(s: &Stmt) -> Vec<String> {
    let mut out = Vec::new();
    for e in s.exprs() {
        expr_calls(e, &mut out);
    }
    out
}

/// The callees in a case's guard.
pub fn case_calls(c: &MatchCase) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(g) = &c.guard {
        expr_calls(g, &mut out);
    }
    out
}

fn expr_calls(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Lambda { params, .. } => {
            for d in params.iter().filter_map(|p| p.default.as_ref()) {
                expr_calls(d, out);
            }
            return;
        }
        ExprKind::Call { func, .. } => {
            // Arguments are evaluated after the callee, but the call happens last; listing
            // the callee first reads as the statement does.
            let name = dotted_name(func).unwrap_or_else(|| func.to_string());
            if !out.contains(&name) {
                out.push(name);
            }
        }
        _ => {}
    }
    for c in e.children() {
        expr_calls(c, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    #[test]
    fn callees_in_order_without_lambda_bodies() {
        let m =
            lower_module("x = f(g(1), obj.m(2)) + (lambda: h())() + [k(i) for i in r]\n").unwrap();
        assert_eq!(
            stmt_calls(&m.body[0]),
            ["f", "g", "obj.m", "lambda: h()", "k"]
        );
    }
}
