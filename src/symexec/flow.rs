//! Moving a path to its next statement without branching: finished blocks, the `else` and
//! `finally` parts of `try`, loops coming back to their test, returns to the caller, and
//! abrupt completions unwinding to the loop, handler, `finally` or frame that takes them.

use super::SymexecError;
use super::exceptions::Classes;
use super::program::Program;
use super::state::{CallTarget, Completion, Kont, State, set};
use super::tree::{Exc, Outcome, Value};
use crate::python::ir::{ExceptHandler, Expr, ExprKind, Stmt, StmtKind};

/// What a path does next.
pub enum Next<'p> {
    Stmt(&'p Stmt),
    /// The test of the loop on top of the current frame.
    LoopTest(&'p Stmt),
    Finished(Outcome),
}

fn internal(what: &str) -> SymexecError {
    SymexecError::Internal(what.to_string())
}

/// Advances `s` to its next statement or to its end.
pub fn advance<'p>(s: &mut State<'p>, program: &'p Program) -> Result<Next<'p>, SymexecError> {
    if let Some(reason) = &s.bound {
        return Ok(Next::Finished(Outcome::Bound(reason.clone())));
    }
    loop {
        if let Some(c) = s.completion.take() {
            if let Some(done) = unwind(s, c, program)? {
                return Ok(Next::Finished(done));
            }
            continue;
        }
        let frame = s.frame_mut()?;
        let Some(top) = frame.konts.last_mut() else {
            if let Some(done) = return_from_frame(s, None)? {
                return Ok(Next::Finished(done));
            }
            continue;
        };
        match top {
            Kont::Block { stmts, next } => {
                let stmts: &'p [Stmt] = *stmts;
                if *next < stmts.len() {
                    let stmt = &stmts[*next];
                    *next += 1;
                    return Ok(Next::Stmt(stmt));
                }
                frame.konts.pop();
            }
            Kont::Loop { stmt, .. } => return Ok(Next::LoopTest(*stmt)),
            Kont::TryBody { stmt } => {
                let stmt: &'p Stmt = *stmt;
                let StmtKind::Try {
                    orelse, finalbody, ..
                } = &stmt.kind
                else {
                    return Err(internal("a try marker on another statement"));
                };
                frame.konts.pop();
                frame.konts.push(Kont::TryTail {
                    finalbody,
                    handling: None,
                });
                if !orelse.is_empty() {
                    frame.konts.push(Kont::Block {
                        stmts: orelse,
                        next: 0,
                    });
                }
            }
            Kont::TryTail { finalbody, .. } => {
                let finalbody: &'p [Stmt] = *finalbody;
                frame.konts.pop();
                if !finalbody.is_empty() {
                    frame.konts.push(Kont::Finally { pending: None });
                    frame.konts.push(Kont::Block {
                        stmts: finalbody,
                        next: 0,
                    });
                }
            }
            Kont::Finally { pending } => {
                let pending = pending.take();
                frame.konts.pop();
                s.completion = pending;
            }
        }
    }
}

/// Leaves the current frame with `value` (`None`: it ran off its end). At the entry frame
/// this ends the path.
fn return_from_frame(
    s: &mut State<'_>,
    value: Option<Value>,
) -> Result<Option<Outcome>, SymexecError> {
    let explicit = value.is_some();
    let value = value.unwrap_or(Value::None);
    if s.frames.len() <= 1 {
        let snippet = s.frames.first().is_some_and(|f| f.function.is_none());
        return Ok(Some(if snippet && !explicit {
            Outcome::Normal
        } else {
            Outcome::Return(value)
        }));
    }
    let frame = s
        .frames
        .pop()
        .ok_or_else(|| internal("no frame to return from"))?;
    match frame.target {
        CallTarget::Name(name) => set(&mut s.frame_mut()?.store, &name, value),
        CallTarget::Return => s.completion = Some(Completion::Return(value)),
        CallTarget::Discard | CallTarget::Top => {}
    }
    Ok(None)
}

/// Unwinds `c` to the construct that takes it.
fn unwind<'p>(
    s: &mut State<'p>,
    c: Completion,
    program: &'p Program,
) -> Result<Option<Outcome>, SymexecError> {
    loop {
        let frame = s.frame_mut()?;
        let Some(k) = frame.konts.pop() else {
            return match c {
                Completion::Return(v) => return_from_frame(s, Some(v)),
                Completion::Raise(exc) if s.frames.len() <= 1 => Ok(Some(Outcome::Exception(exc))),
                Completion::Raise(_) => {
                    s.frames.pop();
                    continue;
                }
                Completion::Break | Completion::Continue => Err(SymexecError::Syntax {
                    message: "'break' or 'continue' outside loop".into(),
                    line: 0,
                }),
            };
        };
        match k {
            Kont::Block { .. } | Kont::Finally { .. } => {}
            Kont::Loop { .. } => match c {
                Completion::Break => return Ok(None),
                Completion::Continue => {
                    frame.konts.push(k);
                    return Ok(None);
                }
                _ => {}
            },
            Kont::TryBody { stmt } => {
                let StmtKind::Try {
                    handlers,
                    finalbody,
                    ..
                } = &stmt.kind
                else {
                    return Err(internal("a try marker on another statement"));
                };
                if let Completion::Raise(exc) = &c
                    && let Some(h) = matching_handler(handlers, exc, &program.classes)?
                {
                    frame.konts.push(Kont::TryTail {
                        finalbody,
                        handling: Some(exc.clone()),
                    });
                    frame.konts.push(Kont::Block {
                        stmts: &h.body,
                        next: 0,
                    });
                    if let Some(name) = &h.name {
                        set(&mut frame.store, name, Value::Exception(exc.clone()));
                    }
                    return Ok(None);
                }
                if !finalbody.is_empty() {
                    frame.konts.push(Kont::Finally { pending: Some(c) });
                    frame.konts.push(Kont::Block {
                        stmts: finalbody,
                        next: 0,
                    });
                    return Ok(None);
                }
            }
            Kont::TryTail { finalbody, .. } => {
                if !finalbody.is_empty() {
                    frame.konts.push(Kont::Finally { pending: Some(c) });
                    frame.konts.push(Kont::Block {
                        stmts: finalbody,
                        next: 0,
                    });
                    return Ok(None);
                }
            }
        }
    }
}

/// The first handler whose class `exc` is an instance of.
fn matching_handler<'h>(
    handlers: &'h [ExceptHandler],
    exc: &Exc,
    classes: &Classes,
) -> Result<Option<&'h ExceptHandler>, SymexecError> {
    for h in handlers {
        let names = match &h.type_ {
            None => return Ok(Some(h)),
            Some(t) => class_names(t).ok_or_else(|| SymexecError::Unsupported {
                construct: format!("the except clause {}", h.text),
                line: h.span.line,
            })?,
        };
        if names.iter().any(|n| classes.is_subclass(&exc.type_name, n)) {
            return Ok(Some(h));
        }
    }
    Ok(None)
}

/// `E` or `(E1, E2)`.
fn class_names(e: &Expr) -> Option<Vec<String>> {
    match &e.kind {
        ExprKind::Name(n) => Some(vec![n.clone()]),
        ExprKind::Tuple(items) => items
            .iter()
            .map(|i| i.as_name().map(str::to_string))
            .collect(),
        _ => None,
    }
}
