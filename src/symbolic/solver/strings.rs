//! Lowering of the string methods the safe `z3` API does not wrap: `s.find(sub)` as
//! `str.indexof(s, sub, 0)` (Python's -1 when absent and 0 for an empty `sub` are
//! SMT-LIB's; both count characters).

use z3::ast::{self, Ast};
use z3_sys::{Z3_ast, Z3_mk_seq_index};

use super::SolverError;

fn built(raw: Option<Z3_ast>, what: &str) -> Result<Z3_ast, SolverError> {
    raw.ok_or_else(|| SolverError::Internal(format!("Z3 refused to build {what}")))
}

/// `s.find(sub)`.
pub(super) fn find(s: &ast::String, sub: &ast::String) -> Result<ast::Int, SolverError> {
    let ctx = s.get_ctx();
    let zero = ast::Int::from_i64(0);
    // SAFETY: the operands are live ASTs of `ctx`; `wrap` takes a reference to the result
    // before any other Z3 call.
    unsafe {
        let raw = Z3_mk_seq_index(
            ctx.get_z3_context(),
            s.get_z3_ast(),
            sub.get_z3_ast(),
            zero.get_z3_ast(),
        );
        Ok(ast::Int::wrap(ctx, built(raw, "str.indexof")?))
    }
}
