//! Finding the IR behind a node: statement ids to statements, `except` clauses and `case`s.

use std::collections::HashMap;

use crate::python::ir::{ExceptHandler, MatchCase, Stmt, StmtId, StmtKind};

/// What a [`StmtId`] names.
#[derive(Clone, Copy, Debug)]
pub enum Item<'a> {
    Stmt(&'a Stmt),
    Handler(&'a ExceptHandler),
    Case(&'a MatchCase),
}

/// Every statement, `except` clause and `case` under `body` (nested functions included), by id.
pub fn index(body: &[Stmt]) -> HashMap<StmtId, Item<'_>> {
    let mut out = HashMap::new();
    add_block(body, &mut out);
    out
}

fn add_block<'a>(stmts: &'a [Stmt], out: &mut HashMap<StmtId, Item<'a>>) {
    for s in stmts {
        out.insert(s.id, Item::Stmt(s));
        match &s.kind {
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                add_block(body, out);
                for h in handlers {
                    out.insert(h.id, Item::Handler(h));
                    add_block(&h.body, out);
                }
                add_block(orelse, out);
                add_block(finalbody, out);
            }
            StmtKind::Match { cases, .. } => {
                for c in cases {
                    out.insert(c.id, Item::Case(c));
                    add_block(&c.body, out);
                }
            }
            _ => {
                for b in s.blocks() {
                    add_block(b, out);
                }
            }
        }
    }
}
