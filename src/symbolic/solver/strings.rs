//! Lowering of the string methods the safe `z3` API does not wrap: `s.find(sub)` as
//! `str.indexof(s, sub, 0)` (Python's -1 when absent and 0 for an empty `sub` are
//! SMT-LIB's; both count characters); the character tests and case maps of
//! [`crate::symbolic::chars`] as regular-expression membership and `seq.map` over ASCII.

use z3::ast::{self, Ast, Regexp};
use z3_sys::{
    Z3_ast, Z3_mk_char, Z3_mk_char_from_bv, Z3_mk_char_le, Z3_mk_char_to_bv, Z3_mk_re_range,
    Z3_mk_seq_index, Z3_mk_seq_map, Z3_mk_seq_unit,
};

use crate::symbolic::chars::{ASCII_SPACE, CaseMap, CharTest};

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

/// The characters `lo..=hi` (`Regexp::range` cannot take NUL: it passes a C string).
fn range(ctx: &z3::Context, lo: char, hi: char) -> Result<Regexp, SolverError> {
    let z = ctx.get_z3_context();
    // SAFETY: each result is wrapped (reference taken) before the next Z3 call.
    unsafe {
        let unit = |c: char| -> Result<ast::String, SolverError> {
            let ch = ast::Dynamic::wrap(ctx, built(Z3_mk_char(z, c as u32), "a char")?);
            let raw = Z3_mk_seq_unit(z, ch.get_z3_ast());
            Ok(ast::String::wrap(ctx, built(raw, "seq.unit")?))
        };
        let (lo, hi) = (unit(lo)?, unit(hi)?);
        let raw = Z3_mk_re_range(z, lo.get_z3_ast(), hi.get_z3_ast());
        Ok(Regexp::wrap(ctx, built(raw, "re.range")?))
    }
}

/// Every string of ASCII characters (the domain the character tests are exact on).
pub(super) fn ascii(s: &ast::String) -> Result<ast::Bool, SolverError> {
    Ok(s.regex_matches(&range(s.get_ctx(), '\0', '\x7f')?.star()))
}

fn class(ctx: &z3::Context, test: CharTest) -> Result<Regexp, SolverError> {
    let r = |lo: char, hi: char| range(ctx, lo, hi);
    let parts: Vec<Regexp> = match test {
        CharTest::Digit => vec![r('0', '9')?],
        CharTest::Alpha => vec![r('A', 'Z')?, r('a', 'z')?],
        CharTest::Alnum => vec![r('0', '9')?, r('A', 'Z')?, r('a', 'z')?],
        CharTest::Space => ASCII_SPACE
            .iter()
            .map(|&c| r(c, c))
            .collect::<Result<_, _>>()?,
        CharTest::Upper => vec![r('A', 'Z')?],
        CharTest::Lower => vec![r('a', 'z')?],
    };
    // Z3 refuses `re.union` of one operand.
    Ok(match <[Regexp; 1]>::try_from(parts) {
        Ok([one]) => one,
        Err(parts) => Regexp::union(&parts),
    })
}

/// `s.isdigit()` and its kin, for an ASCII `s`: `s` matches `[class]+`; `isupper` (`islower`)
/// matches `[^a-z]* [A-Z] [^a-z]*` (at least one cased character, none of the other case).
pub(super) fn char_test(test: CharTest, s: &ast::String) -> Result<ast::Bool, SolverError> {
    let ctx = s.get_ctx();
    let re = match test {
        CharTest::Upper | CharTest::Lower => {
            let (this, other) = if test == CharTest::Upper {
                (CharTest::Upper, CharTest::Lower)
            } else {
                (CharTest::Lower, CharTest::Upper)
            };
            let rest = Regexp::diff(&range(ctx, '\0', '\x7f')?, &class(ctx, other)?).star();
            Regexp::concat(&[rest.clone(), class(ctx, this)?, rest])
        }
        _ => class(ctx, test)?.plus(),
    };
    Ok(s.regex_matches(&re))
}
/// `s.lower()`, `s.upper()`, `s.swapcase()` for an ASCII `s`: `seq.map` of a function that
/// moves the letters of the changed case by 32 code points.
pub(super) fn case_map(map: CaseMap, s: &ast::String) -> Result<ast::String, SolverError> {
    let ctx = s.get_ctx();
    let z = ctx.get_z3_context();
    let c = ast::Dynamic::fresh_const("ch", &z3::Sort::char());
    // SAFETY: every operand is a live AST of `ctx`; each result is wrapped (reference taken)
    // before the next Z3 call.
    unsafe {
        let code = ast::BV::wrap(
            ctx,
            built(Z3_mk_char_to_bv(z, c.get_z3_ast()), "char.to_bv")?,
        );
        let mut body = c.clone();
        for &(lo, hi, shift) in map.moves() {
            let letter = |x: char| -> Result<ast::Dynamic, SolverError> {
                Ok(ast::Dynamic::wrap(
                    ctx,
                    built(Z3_mk_char(z, x as u32), "a char")?,
                ))
            };
            let (lo, hi) = (letter(lo)?, letter(hi)?);
            let le = |a: &ast::Dynamic, b: &ast::Dynamic| -> Result<ast::Bool, SolverError> {
                Ok(ast::Bool::wrap(
                    ctx,
                    built(Z3_mk_char_le(z, a.get_z3_ast(), b.get_z3_ast()), "char.<=")?,
                ))
            };
            let inside = ast::Bool::and(&[le(&lo, &c)?, le(&c, &hi)?]);
            let moved_code = code.bvadd(&ast::BV::from_i64(i64::from(shift), code.get_size()));
            let moved = ast::Dynamic::wrap(
                ctx,
                built(
                    Z3_mk_char_from_bv(z, moved_code.get_z3_ast()),
                    "char.from_bv",
                )?,
            );
            body = inside.ite(&moved, &body);
        }
        let f = ast::lambda_const(&[&c], &body);
        let raw = Z3_mk_seq_map(z, f.get_z3_ast(), s.get_z3_ast());
        Ok(ast::String::wrap(ctx, built(raw, "seq.map")?))
    }
}
