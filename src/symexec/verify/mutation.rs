//! List mutation seen by a postcondition: the value model passes sequences by value (a
//! callee's `t.append(x)` or `t[i] = v` is not seen by its caller), so a postcondition on
//! a parameter the function mutates could not be judged. It is refused by name.

use crate::constraints::docstring::postconditions;
use crate::python::ir::{Expr, ExprKind, Function, Stmt, StmtKind};
use crate::symexec::SymexecError;

/// Methods that mutate a list in place.
const MUTATING: &[&str] = &[
    "append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear",
];

/// The first mutation of a parameter of `f` in its body: (parameter, what, line).
fn mutation(f: &Function) -> Option<(String, String, u32)> {
    let params: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
    let mut found = None;
    let target = |e: &Expr| -> Option<String> {
        match &e.kind {
            ExprKind::Subscript { value, .. } => value
                .as_name()
                .filter(|n| params.contains(n))
                .map(str::to_string),
            _ => None,
        }
    };
    for s in &f.body {
        s.walk(&mut |s: &Stmt| {
            if found.is_some() {
                return;
            }
            let line = s.span.line;
            match &s.kind {
                StmtKind::Assign { targets, .. } => {
                    if let Some(n) = targets.iter().find_map(|t| target(t)) {
                        found = Some((n.clone(), format!("{n}[...] = ..."), line));
                    }
                }
                StmtKind::AugAssign { target: t, .. } => {
                    if let Some(n) = target(t) {
                        found = Some((n.clone(), format!("{n}[...] op= ..."), line));
                    }
                }
                StmtKind::Delete(targets) => {
                    if let Some(n) = targets.iter().find_map(|t| target(t)) {
                        found = Some((n.clone(), format!("del {n}[...]"), line));
                    }
                }
                _ => {}
            }
            for e in s.exprs() {
                e.walk(&mut |c: &Expr| {
                    if found.is_some() {
                        return;
                    }
                    if let ExprKind::Call { func, .. } = &c.kind
                        && let ExprKind::Attribute { value, attr } = &func.kind
                        && MUTATING.contains(&attr.as_str())
                        && let Some(n) = value.as_name().filter(|n| params.contains(n))
                    {
                        found = Some((n.to_string(), format!("{n}.{attr}()"), line));
                    }
                });
            }
        });
    }
    found
}

/// Refuses a postcondition of `f` that reads a parameter `f` mutates.
pub fn refuse(f: &Function) -> Result<(), SymexecError> {
    let Some((param, what, line)) = mutation(f) else {
        return Ok(());
    };
    for w in postconditions(f.docstring.as_deref().unwrap_or("")) {
        let Ok(e) = &w.expr else { continue };
        let mut reads = false;
        e.walk(&mut |c: &Expr| reads |= c.as_name() == Some(param.as_str()));
        if reads {
            return Err(SymexecError::Unsupported {
                construct: format!(
                    "the postcondition {:?} on {param}, which {}() mutates ({what}): list mutation seen by a postcondition",
                    w.text, f.name
                ),
                line,
            });
        }
    }
    Ok(())
}
