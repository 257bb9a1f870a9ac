//! Lowering of the string methods the safe `z3` API does not wrap: `s.find(sub)` as
//! `str.indexof(s, sub, 0)` (Python's -1 when absent and 0 for an empty `sub` are
//! SMT-LIB's; both count characters); the character tests and case maps of
//! [`crate::symbolic::chars`] as regular-expression membership and `seq.map` over ASCII.

use z3::ast::{self, Ast, Regexp};
use z3_sys::{
    Z3_ast, Z3_mk_char, Z3_mk_char_from_bv, Z3_mk_char_le, Z3_mk_char_to_bv, Z3_mk_int_to_str,
    Z3_mk_re_range, Z3_mk_seq_foldl, Z3_mk_seq_index, Z3_mk_seq_map, Z3_mk_seq_mapi, Z3_mk_seq_nth,
    Z3_mk_seq_replace_all, Z3_mk_seq_to_re, Z3_mk_seq_unit, Z3_mk_str_to_int,
    Z3_mk_string_from_code, Z3_mk_string_to_code,
};

use crate::symbolic::chars::{ASCII_SPACE, CaseMap, CharTest, INT_SPACE, LOWER_MOVES, UPPER_MOVES};
use crate::symbolic::strfn::{MAX_STR_DIGITS, Side};
use crate::symbolic::term::MAX_CHAR;

use super::SolverError;
use super::lower::str_const;

fn built(raw: Option<Z3_ast>, what: &str) -> Result<Z3_ast, SolverError> {
    raw.ok_or_else(|| SolverError::Internal(format!("Z3 refused to build {what}")))
}

/// `seq.indexof(s, sub, 0)` of any sequences: the first index of `sub` (a unit sequence
/// for an item) in `s`, or -1.
pub(super) fn seq_index(s: &ast::Seq, sub: &ast::Seq) -> Result<ast::Int, SolverError> {
    indexof(s, sub, &ast::Int::from_i64(0), "seq.indexof")
}

/// `s.find(sub)`.
pub(super) fn find(s: &ast::String, sub: &ast::String) -> Result<ast::Int, SolverError> {
    index_from(s, sub, &ast::Int::from_i64(0))
}

/// `str.indexof(s, sub, start)`: the first `sub` at or after `start` (-1 when none).
pub(super) fn index_from(
    s: &ast::String,
    sub: &ast::String,
    start: &ast::Int,
) -> Result<ast::Int, SolverError> {
    indexof(s, sub, start, "str.indexof")
}

/// Z3's `indexof` of two sequences of one sort (strings included).
fn indexof<S: Ast>(s: &S, sub: &S, start: &ast::Int, what: &str) -> Result<ast::Int, SolverError> {
    let ctx = s.get_ctx();
    // SAFETY: the operands are live ASTs of `ctx`; `wrap` takes a reference to the result
    // before any other Z3 call.
    unsafe {
        let raw = Z3_mk_seq_index(
            ctx.get_z3_context(),
            s.get_z3_ast(),
            sub.get_z3_ast(),
            start.get_z3_ast(),
        );
        Ok(ast::Int::wrap(ctx, built(raw, what)?))
    }
}

/// `s.rfind(sub)`: a fresh `r`, `len(s)` for an empty `sub`, -1 where `sub` is not in `s`,
/// else a position of `sub` with none in `s[r + 1:]`. The definitions go to `defs`.
/// (Saying "none after" as `str.indexof(s, sub, r + 1) == -1` is exact too, but 4 to 8 times
/// slower on a fixed `s`; neither decides `s.rfind(t) < s.find(t)` within 5 s.)
pub(super) fn rfind(
    s: &ast::String,
    sub: &ast::String,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::Int, SolverError> {
    let r = ast::Int::fresh_const("rfind");
    let one = ast::Int::from_i64(1);
    let last = ast::Bool::and(&[
        &r.ge(ast::Int::from_i64(0)),
        &(&r + sub.length()).le(s.length()),
        &s.substr(&r, &sub.length()).eq(sub),
        &s.substr(&(&r + &one), &s.length()).contains(sub).not(),
    ]);
    let present = s.contains(sub).ite(&last, &r.eq(ast::Int::from_i64(-1)));
    let empty = sub.length().eq(ast::Int::from_i64(0));
    defs.push(empty.ite(&r.eq(s.length()), &present));
    Ok(r)
}

/// Item `i` of `s.partition(sep)` (`s.rpartition(sep)` when `right`) for a non-empty `sep`:
/// around the first (last) `sep`, else `(s, "", "")` (`("", "", s)`).
pub(super) fn partition(
    right: bool,
    i: usize,
    s: &ast::String,
    sep: &ast::String,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::String, SolverError> {
    let at = if right {
        rfind(s, sep, defs)?
    } else {
        find(s, sep)?
    };
    let found = at.ge(ast::Int::from_i64(0));
    let empty = str_const("")?;
    let (then, other) = match (i, right) {
        (0, _) => (
            s.substr(&ast::Int::from_i64(0), &at),
            if right { empty } else { s.clone() },
        ),
        (1, _) => (sep.clone(), empty),
        (_, _) => {
            let start = &at + sep.length();
            (
                s.substr(&start, &(s.length() - &start)),
                if right { s.clone() } else { empty },
            )
        }
    };
    Ok(found.ite(&then, &other))
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
/// moves the letters of the changed case by 32 code points. `s.capitalize()` and
/// `s.title()`: `seq.mapi` of a function of the position that upper-cases the first
/// character (for `title`, also each one after a non-letter of `s`) and lower-cases the rest.
pub(super) fn case_map(map: CaseMap, s: &ast::String) -> Result<ast::String, SolverError> {
    let ctx = s.get_ctx();
    let z = ctx.get_z3_context();
    let c = ast::Dynamic::fresh_const("ch", &z3::Sort::char());
    if let Some(moves) = map.moves() {
        let f = ast::lambda_const(&[&c], &moved(&c, moves)?);
        // SAFETY: live operands; the result is wrapped before the next Z3 call.
        return unsafe {
            let raw = Z3_mk_seq_map(z, f.get_z3_ast(), s.get_z3_ast());
            Ok(ast::String::wrap(ctx, built(raw, "seq.map")?))
        };
    }
    let i = ast::Int::fresh_const("i");
    let mut upper = i.eq(ast::Int::from_i64(0));
    if map == CaseMap::Title {
        // SAFETY: live operands; the result is wrapped before the next Z3 call.
        let before = unsafe {
            let at = ast::Int::sub(&[&i, &ast::Int::from_i64(1)]);
            ast::Dynamic::wrap(
                ctx,
                built(Z3_mk_seq_nth(z, s.get_z3_ast(), at.get_z3_ast()), "seq.nth")?,
            )
        };
        let letter = ast::Bool::or(&[
            char_between(&before, 'A', 'Z')?,
            char_between(&before, 'a', 'z')?,
        ]);
        upper = ast::Bool::or(&[upper, letter.not()]);
    }
    let body = upper.ite(&moved(&c, UPPER_MOVES)?, &moved(&c, LOWER_MOVES)?);
    let f = ast::lambda_const(&[&i, &c], &body);
    let start = ast::Int::from_i64(0);
    // SAFETY: live operands; the result is wrapped before the next Z3 call.
    unsafe {
        let raw = Z3_mk_seq_mapi(z, f.get_z3_ast(), start.get_z3_ast(), s.get_z3_ast());
        Ok(ast::String::wrap(ctx, built(raw, "seq.mapi")?))
    }
}

/// Whether the character `c` lies in `lo..=hi`.
fn char_between(c: &ast::Dynamic, lo: char, hi: char) -> Result<ast::Bool, SolverError> {
    let ctx = c.get_ctx();
    let le = |a: &ast::Dynamic, b: &ast::Dynamic| -> Result<ast::Bool, SolverError> {
        // SAFETY: live operands; the result is wrapped before the next Z3 call.
        unsafe {
            Ok(ast::Bool::wrap(
                ctx,
                built(
                    Z3_mk_char_le(ctx.get_z3_context(), a.get_z3_ast(), b.get_z3_ast()),
                    "char.<=",
                )?,
            ))
        }
    };
    Ok(ast::Bool::and(&[
        le(&char_const(ctx, lo)?, c)?,
        le(c, &char_const(ctx, hi)?)?,
    ]))
}

/// The character `c` with each range of `moves` shifted by its offset.
fn moved(c: &ast::Dynamic, moves: &[(char, char, i32)]) -> Result<ast::Dynamic, SolverError> {
    let ctx = c.get_ctx();
    let z = ctx.get_z3_context();
    // SAFETY: every operand is a live AST of `ctx`; each result is wrapped (reference taken)
    // before the next Z3 call.
    unsafe {
        let code = ast::BV::wrap(
            ctx,
            built(Z3_mk_char_to_bv(z, c.get_z3_ast()), "char.to_bv")?,
        );
        let mut body = c.clone();
        for &(lo, hi, shift) in moves {
            let inside = char_between(c, lo, hi)?;
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
        Ok(body)
    }
}

/// A raw string operation of one operand.
fn raw1(
    a: &impl Ast,
    what: &str,
    op: unsafe extern "C" fn(z3_sys::Z3_context, Z3_ast) -> Option<Z3_ast>,
) -> Result<Z3_ast, SolverError> {
    // SAFETY: the operand is a live AST of its context; the caller wraps the result before
    // any other Z3 call.
    unsafe { built(op(a.get_ctx().get_z3_context(), a.get_z3_ast()), what) }
}

/// `str.replace_all(s, old, new)`: every non-overlapping `old`, left to right (`s` itself
/// for an empty `old`).
fn replace_all(
    s: &ast::String,
    old: &ast::String,
    new: &ast::String,
) -> Result<ast::String, SolverError> {
    let ctx = s.get_ctx();
    // SAFETY: live operands; the result is wrapped before the next Z3 call.
    unsafe {
        let raw = Z3_mk_seq_replace_all(
            ctx.get_z3_context(),
            s.get_z3_ast(),
            old.get_z3_ast(),
            new.get_z3_ast(),
        );
        Ok(ast::String::wrap(ctx, built(raw, "str.replace_all")?))
    }
}

/// The regular expression matching exactly the string `s`.
fn literal(s: &ast::String) -> Result<Regexp, SolverError> {
    let raw = raw1(s, "str.to_re", Z3_mk_seq_to_re)?;
    // SAFETY: wrapped right after it was built.
    Ok(unsafe { Regexp::wrap(s.get_ctx(), raw) })
}

/// One character of `chars` (the empty language for none).
pub(super) fn one_of(ctx: &z3::Context, chars: &[char]) -> Result<Regexp, SolverError> {
    let mut sorted = chars.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut spans: Vec<(char, char)> = Vec::new();
    for c in sorted {
        match spans.last_mut() {
            Some((_, hi)) if *hi as u32 + 1 == c as u32 => *hi = c,
            _ => spans.push((c, c)),
        }
    }
    let parts = spans
        .into_iter()
        .map(|(lo, hi)| range(ctx, lo, hi))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match parts.len() {
        0 => Regexp::empty(),
        1 => parts.into_iter().next().unwrap_or_else(Regexp::empty),
        _ => Regexp::union(&parts),
    })
}

/// A fresh string constant.
pub(super) fn fresh(prefix: &str) -> ast::String {
    ast::String::fresh_const(prefix)
}

/// `s.strip(chars)` and kin: `s == p + r + q` with `p` and `q` made of `chars` (empty on
/// the side not stripped) and `r` neither starting nor ending (on the stripped sides) with
/// one of them. The definitions go to `defs`.
pub(super) fn strip(
    side: Side,
    chars: &[char],
    s: &ast::String,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::String, SolverError> {
    let ctx = s.get_ctx();
    let set = one_of(ctx, chars)?;
    let other = Regexp::diff(&Regexp::allchar(), &set);
    let (p, r, q) = (fresh("lead"), fresh("stripped"), fresh("trail"));
    defs.push(s.eq(ast::String::concat(&[&p, &r, &q])));
    let empty = str_const("")?;
    for (stripped, part) in [(side.left(), &p), (side.right(), &q)] {
        defs.push(if stripped {
            part.regex_matches(&set.star())
        } else {
            part.eq(&empty)
        });
    }
    let any = Regexp::full();
    let nonempty = match side {
        Side::Both => Regexp::union(&[other.clone(), Regexp::concat(&[other.clone(), any, other])]),
        Side::Left => Regexp::concat(&[other, any]),
        Side::Right => Regexp::concat(&[any, other]),
    };
    defs.push(r.regex_matches(&Regexp::union(&[Regexp::empty().star(), nonempty])));
    Ok(r)
}

/// A character constant.
fn char_const(ctx: &z3::Context, c: char) -> Result<ast::Dynamic, SolverError> {
    // SAFETY: wrapped right after it was built.
    unsafe {
        let raw = Z3_mk_char(ctx.get_z3_context(), c as u32);
        Ok(ast::Dynamic::wrap(ctx, built(raw, "a char")?))
    }
}

/// `seq.foldl(f, init, s)` for `f` a lambda of the accumulator and one character.
fn foldl(
    acc: &ast::Dynamic,
    ch: &ast::Dynamic,
    body: &ast::Dynamic,
    init: &ast::Dynamic,
    s: &ast::String,
) -> Result<ast::Dynamic, SolverError> {
    let ctx = s.get_ctx();
    let f = ast::lambda_const(&[acc, ch], body);
    // SAFETY: live operands; the result is wrapped before the next Z3 call.
    unsafe {
        let raw = Z3_mk_seq_foldl(
            ctx.get_z3_context(),
            f.get_z3_ast(),
            init.get_z3_ast(),
            s.get_z3_ast(),
        );
        Ok(ast::Dynamic::wrap(ctx, built(raw, "seq.foldl")?))
    }
}

/// `s` with each character `old` replaced by `new`, as a left fold appending to a string
/// (Z3 5.4 answers `unknown` for almost any question about `str.replace_all`; the fold
/// finds models at once, though facts for every `s` may time out).
fn replace_char(s: &ast::String, old: char, new: &ast::String) -> Result<ast::String, SolverError> {
    let ctx = s.get_ctx();
    let acc = ast::String::fresh_const("acc");
    let ch = ast::Dynamic::fresh_const("ch", &z3::Sort::char());
    // SAFETY: wrapped right after it was built.
    let unit = unsafe {
        let raw = Z3_mk_seq_unit(ctx.get_z3_context(), ch.get_z3_ast());
        ast::String::wrap(ctx, built(raw, "seq.unit")?)
    };
    let body = ch.eq(char_const(ctx, old)?).ite(
        &ast::String::concat(&[&acc, new]),
        &ast::String::concat(&[&acc, &unit]),
    );
    let init = ast::Dynamic::from_ast(&str_const("")?);
    foldl(
        &ast::Dynamic::from_ast(&acc),
        &ch,
        &ast::Dynamic::from_ast(&body),
        &init,
        s,
    )?
    .as_string()
    .ok_or_else(|| SolverError::Internal("seq.foldl of strings".into()))
}

/// `s.count(sub)`: for a constant `sub`, a left fold (one character: counting it; more: see
/// [`count_text`]); otherwise the characters `str.replace_all` removes, over `len(sub)`
/// (`len(s) + 1` for an empty `sub`).
/// `sub_text` is `sub`'s text when it is a constant.
pub(super) fn count(
    s: &ast::String,
    sub: &ast::String,
    sub_text: Option<&str>,
) -> Result<ast::Int, SolverError> {
    let ctx = s.get_ctx();
    let mut chars = sub_text.unwrap_or_default().chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        let acc = ast::Int::fresh_const("acc");
        let ch = ast::Dynamic::fresh_const("ch", &z3::Sort::char());
        let body = ch
            .eq(char_const(ctx, c)?)
            .ite(&(&acc + ast::Int::from_i64(1)), &acc);
        let init = ast::Dynamic::from_ast(&ast::Int::from_i64(0));
        return foldl(
            &ast::Dynamic::from_ast(&acc),
            &ch,
            &ast::Dynamic::from_ast(&body),
            &init,
            s,
        )?
        .as_int()
        .ok_or_else(|| SolverError::Internal("seq.foldl of ints".into()));
    }
    if let Some(text) = sub_text.filter(|t| t.chars().count() > 1) {
        return count_text(s, text);
    }
    let removed = replace_all(s, sub, &str_const("")?)?;
    let gone = s.length() - removed.length();
    if let Some(text) = sub_text.filter(|t| !t.is_empty()) {
        return Ok(gone.div(ast::Int::from_i64(text.chars().count() as i64)));
    }
    Ok(sub.length().eq(ast::Int::from_i64(0)).ite(
        &(s.length() + ast::Int::from_i64(1)),
        &gone.div(&sub.length()),
    ))
}

/// `s.replace(old, new)` for a non-empty `old`: a fold for one character, else
/// `str.replace_all`.
pub(super) fn replace(
    s: &ast::String,
    old: &str,
    new: &ast::String,
) -> Result<ast::String, SolverError> {
    let mut chars = old.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return replace_char(s, c, new);
    }
    replace_all(s, &str_const(old)?, new)
}

/// `s.count(pat)` for a constant `pat` of `m >= 2` characters, as a left fold of one int
/// `count * m + state` through the matching automaton of `pat` (`state`: how many of
/// `pat`'s first characters end what was read since the last match). A full match counts
/// and restarts from state 0, which is Python's left-to-right, non-overlapping count (the
/// match ending first is the one starting first). `str.replace_all` answers `unknown` on
/// most questions; the fold decides them.
fn count_text(s: &ast::String, pat: &str) -> Result<ast::Int, SolverError> {
    let ctx = s.get_ctx();
    let chars: Vec<char> = pat.chars().collect();
    let m = chars.len() as i64;
    let mut distinct = chars.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let acc = ast::Int::fresh_const("acc");
    let ch = ast::Dynamic::fresh_const("ch", &z3::Sort::char());
    let state = acc.modulo(ast::Int::from_i64(m));
    let base = &acc - &state;
    let mut body = base.clone();
    for j in (0..chars.len()).rev() {
        let mut row = base.clone();
        for c in &distinct {
            let next = automaton_step(&chars, j, *c) as i64;
            let value = &base + ast::Int::from_i64(next);
            row = ch.eq(char_const(ctx, *c)?).ite(&value, &row);
        }
        body = state.eq(ast::Int::from_i64(j as i64)).ite(&row, &body);
    }
    let init = ast::Dynamic::from_ast(&ast::Int::from_i64(0));
    let folded = foldl(
        &ast::Dynamic::from_ast(&acc),
        &ch,
        &ast::Dynamic::from_ast(&body),
        &init,
        s,
    )?
    .as_int()
    .ok_or_else(|| SolverError::Internal("seq.foldl of ints".into()))?;
    Ok(folded.div(ast::Int::from_i64(m)))
}

/// The automaton's next state from `j` on `c`: the longest prefix of `pat` ending
/// `pat[..j] + c`; `pat.len()` (a match) is returned as itself.
fn automaton_step(pat: &[char], j: usize, c: char) -> usize {
    let mut read: Vec<char> = pat[..j].to_vec();
    read.push(c);
    (0..=read.len().min(pat.len()))
        .rev()
        .find(|k| read.ends_with(&pat[..*k]))
        .unwrap_or(0)
}

/// `str(n)`, taking `|n| < 10**4300` (Python's digit limit) as a definition.
pub(super) fn from_int(
    n: &ast::Int,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::String, SolverError> {
    let limit: ast::Int = format!("1{}", "0".repeat(MAX_STR_DIGITS))
        .parse()
        .map_err(|_| SolverError::Internal("the digit limit".into()))?;
    defs.push(n.lt(&limit));
    defs.push(n.gt(limit.unary_minus()));
    let digits = |x: &ast::Int| -> Result<ast::String, SolverError> {
        let raw = raw1(x, "str.from_int", Z3_mk_int_to_str)?;
        // SAFETY: wrapped right after it was built.
        Ok(unsafe { ast::String::wrap(x.get_ctx(), raw) })
    };
    let negative = ast::String::concat(&[&str_const("-")?, &digits(&n.unary_minus())?]);
    Ok(n.ge(ast::Int::from_i64(0)).ite(&digits(n)?, &negative))
}

/// Whether `int(s)` accepts an ASCII `s`: `\s* [+-]? \d (_? \d)* \s*`.
pub(super) fn is_int(s: &ast::String) -> Result<ast::Bool, SolverError> {
    let ctx = s.get_ctx();
    let space = one_of(ctx, INT_SPACE)?.star();
    let digit = range(ctx, '0', '9')?;
    let sign = one_of(ctx, &['+', '-'])?;
    let underscore = one_of(ctx, &['_'])?;
    let more = Regexp::concat(&[underscore.option(), digit.clone()]).star();
    Ok(s.regex_matches(&Regexp::concat(&[
        space.clone(),
        sign.option(),
        digit,
        more,
        space,
    ])))
}

/// `int(s)` where [`is_int`] holds: the stripped text without its sign and underscores, read
/// by `str.to_int`, negated after a `-`; `len(s) <= 4300` is taken as a definition.
pub(super) fn to_int(s: &ast::String, defs: &mut Vec<ast::Bool>) -> Result<ast::Int, SolverError> {
    defs.push(s.length().le(ast::Int::from_i64(MAX_STR_DIGITS as i64)));
    let core = strip(Side::Both, INT_SPACE, s, defs)?;
    let (minus, plus) = (str_const("-")?, str_const("+")?);
    let negative = minus.prefix(&core);
    let signed = ast::Bool::or(&[&negative, &plus.prefix(&core)]);
    let one = ast::Int::from_i64(1);
    let body = signed.ite(&core.substr(&one, core.length() - &one), &core);
    let digits = replace_char(&body, '_', &str_const("")?)?;
    let raw = raw1(&digits, "str.to_int", Z3_mk_str_to_int)?;
    // SAFETY: wrapped right after it was built.
    let value = unsafe { ast::Int::wrap(digits.get_ctx(), raw) };
    Ok(negative.ite(&value.unary_minus(), &value))
}

/// `chr(i)` for `0 <= i <= 0x10FFFF`, taking `i` outside `0x30000..=0x10FFFF` (the solver's
/// strings stop at U+2FFFF) as a definition.
pub(super) fn chr(i: &ast::Int, defs: &mut Vec<ast::Bool>) -> Result<ast::String, SolverError> {
    defs.push(ast::Bool::or(&[
        i.le(ast::Int::from_i64(i64::from(MAX_CHAR))),
        i.gt(ast::Int::from_i64(0x10FFFF)),
    ]));
    let raw = raw1(i, "str.from_code", Z3_mk_string_from_code)?;
    // SAFETY: wrapped right after it was built.
    Ok(unsafe { ast::String::wrap(i.get_ctx(), raw) })
}

/// `ord(c)` for `len(c) == 1`.
pub(super) fn ord(c: &ast::String) -> Result<ast::Int, SolverError> {
    let raw = raw1(c, "str.to_code", Z3_mk_string_to_code)?;
    // SAFETY: wrapped right after it was built.
    Ok(unsafe { ast::Int::wrap(c.get_ctx(), raw) })
}

/// `s * k`: a fresh `r` of length `len(s) * max(k, 0)`; for a constant `s`, in `s*` (which
/// fixes it), else with `r[i] == s[i % len(s)]` for every index (a quantifier). `s_text` is
/// `s`'s text when it is a constant.
pub(super) fn repeat(
    s: &ast::String,
    s_text: Option<&str>,
    k: &ast::Int,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::String, SolverError> {
    let zero = ast::Int::from_i64(0);
    let times = k.gt(&zero).ite(k, &zero);
    let r = fresh("repeated");
    if let Some(text) = s_text {
        if text.is_empty() {
            return str_const("");
        }
        let n = ast::Int::from_i64(text.chars().count() as i64);
        defs.push(r.length().eq(&n * &times));
        defs.push(r.regex_matches(&literal(s)?.star()));
        return Ok(r);
    }
    defs.push(r.length().eq(s.length() * &times));
    let i = ast::Int::fresh_const("i");
    let inside = ast::Bool::and(&[&zero.le(&i), &i.lt(r.length())]);
    let same = r.at(&i).eq(s.at(i.modulo(s.length())));
    defs.push(ast::forall_const(&[&i], &[], &inside.implies(&same)));
    Ok(r)
}
