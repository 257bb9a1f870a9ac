//! Lowering of the pieces of `s.split(sep)` ([`crate::symbolic::strfn::StrFn::SplitItem`],
//! [`StrFn::SplitAtLeast`](crate::symbolic::strfn::StrFn::SplitAtLeast)). With a constant
//! `sep`: a chain of `str.indexof` from the end of the previous separator, as Python scans
//! (exact for any `sep`, also one that overlaps itself). Without: "fewer than `k` words" is
//! a regular expression over Python's whitespace, and word `i` comes from a decomposition
//! `s == r0 w0 r1 w1 … ri wi rest` (fresh constants, defined only where there are `i + 1`
//! words, where it is unique). The last item of `s.split(sep, k)` ([`StrFn::SplitRest`](
//! crate::symbolic::strfn::StrFn::SplitRest)) is what follows the `k`-th separator (word).

use z3::ast::{self, Ast, Regexp};

use super::SolverError;
use super::lower::str_const;
use super::strings::{fresh, index_from, one_of};
use crate::symbolic::strfn::{PY_SPACE, Side};

/// The first `n` separators Python finds: their positions (each `-1` once one is missing).
fn separators(s: &ast::String, sep: &str, n: usize) -> Result<Vec<ast::Int>, SolverError> {
    let z_sep = str_const(sep)?;
    let width = ast::Int::from_i64(sep.chars().count() as i64);
    let mut found = Vec::with_capacity(n);
    let mut start = ast::Int::from_i64(0);
    for _ in 0..n {
        let at = index_from(s, &z_sep, &start)?;
        start = &at + &width;
        found.push(at);
    }
    Ok(found)
}

/// Python's whitespace, one character.
fn space(ctx: &z3::Context) -> Result<Regexp, SolverError> {
    one_of(ctx, PY_SPACE)
}

/// A word: one or more characters that are not whitespace.
fn word(ctx: &z3::Context) -> Result<Regexp, SolverError> {
    Ok(Regexp::diff(&Regexp::allchar(), &space(ctx)?).plus())
}

/// Whether `s.split(sep)` has at least `k` items.
pub(super) fn at_least(
    s: &ast::String,
    sep: Option<&str>,
    k: usize,
) -> Result<ast::Bool, SolverError> {
    match sep {
        Some(sep) => {
            if k <= 1 {
                return Ok(ast::Bool::from_bool(true));
            }
            let zero = ast::Int::from_i64(0);
            let found: Vec<ast::Bool> = separators(s, sep, k - 1)?
                .iter()
                .map(|at| at.ge(&zero))
                .collect();
            Ok(ast::Bool::and(&found))
        }
        None => {
            if k == 0 {
                return Ok(ast::Bool::from_bool(true));
            }
            Ok(s.regex_matches(&at_most_words(s.get_ctx(), k - 1)?).not())
        }
    }
}

/// Strings of at most `m` words: `\s*` or `\s* W (\s+ W){0,j-1} \s*` for `1 <= j <= m`.
fn at_most_words(ctx: &z3::Context, m: usize) -> Result<Regexp, SolverError> {
    let spaces = space(ctx)?.star();
    let gap = space(ctx)?.plus();
    let w = word(ctx)?;
    let mut options = vec![spaces.clone()];
    let mut words = w.clone();
    for _ in 0..m {
        options.push(Regexp::concat(&[
            spaces.clone(),
            words.clone(),
            spaces.clone(),
        ]));
        words = Regexp::concat(&[words, gap.clone(), w.clone()]);
    }
    // Z3 refuses `re.union` of one operand.
    Ok(match options.len() {
        1 => spaces,
        _ => Regexp::union(&options),
    })
}

/// Item `i` of `s.split(sep)`, `""` when there are at most `i` items; definitions go to
/// `defs`.
pub(super) fn item(
    s: &ast::String,
    sep: Option<&str>,
    i: usize,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::String, SolverError> {
    let empty = str_const("")?;
    let present = at_least(s, sep, i + 1)?;
    let value = match sep {
        Some(sep) => {
            let found = separators(s, sep, i + 1)?;
            let width = ast::Int::from_i64(sep.chars().count() as i64);
            let start = match i {
                0 => ast::Int::from_i64(0),
                _ => &found[i - 1] + &width,
            };
            let zero = ast::Int::from_i64(0);
            let end = found[i].ge(&zero).ite(&found[i], &s.length());
            s.substr(&start, &end - &start)
        }
        None => {
            let (mut found, _) = words(s, i + 1, &present, defs)?;
            found
                .pop()
                .ok_or_else(|| SolverError::Internal("a word".into()))?
        }
    };
    Ok(present.ite(&value, &empty))
}

/// The decomposition `s == r0 w0 r1 w1 … r(n-1) w(n-1) rest` (fresh constants; gaps of
/// whitespace, words without, `rest` empty or starting with whitespace), defined where
/// `present` (there are at least `n` words): the words and `rest`.
fn words(
    s: &ast::String,
    n: usize,
    present: &ast::Bool,
    defs: &mut Vec<ast::Bool>,
) -> Result<(Vec<ast::String>, ast::String), SolverError> {
    let ctx = s.get_ctx();
    let (sp, w) = (space(ctx)?, word(ctx)?);
    let mut parts = Vec::with_capacity(2 * n + 1);
    let mut facts = Vec::new();
    let mut found = Vec::with_capacity(n);
    for j in 0..n {
        let (gap, this) = (fresh("gap"), fresh("word"));
        facts.push(gap.regex_matches(&if j == 0 { sp.star() } else { sp.plus() }));
        facts.push(this.regex_matches(&w));
        parts.push(gap);
        parts.push(this.clone());
        found.push(this);
    }
    let rest = fresh("rest");
    let tail = Regexp::union(&[
        Regexp::concat(&[sp.clone(), Regexp::full()]),
        Regexp::empty().star(),
    ]);
    facts.push(rest.regex_matches(&tail));
    parts.push(rest.clone());
    let refs: Vec<&ast::String> = parts.iter().collect();
    facts.push(s.eq(ast::String::concat(&refs)));
    defs.push(present.implies(ast::Bool::and(&facts)));
    Ok((found, rest))
}

/// The last item of `s.split(sep, k)` when it has `k + 1` items, else `""`: what follows
/// the `k`-th separator (`s` for `k == 0`); without `sep`, what follows word `k - 1`
/// without its leading whitespace (`s.lstrip()` for `k == 0`). Definitions go to `defs`.
pub(super) fn rest(
    s: &ast::String,
    sep: Option<&str>,
    k: usize,
    defs: &mut Vec<ast::Bool>,
) -> Result<ast::String, SolverError> {
    let empty = str_const("")?;
    let present = at_least(s, sep, k + 1)?;
    let value = match (sep, k) {
        (Some(_), 0) => s.clone(),
        (Some(sep), _) => {
            let found = separators(s, sep, k)?;
            let width = ast::Int::from_i64(sep.chars().count() as i64);
            let start = &found[k - 1] + &width;
            s.substr(&start, &(s.length() - &start))
        }
        (None, _) => {
            let tail = match k {
                0 => s.clone(),
                _ => words(s, k, &present, defs)?.1,
            };
            super::strings::strip(Side::Left, PY_SPACE, &tail, defs)?
        }
    };
    Ok(present.ite(&value, &empty))
}
