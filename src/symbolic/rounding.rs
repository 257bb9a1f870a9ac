//! Where the model's floats part from Python's: `float` is modelled as the exact reals, so
//! arithmetic with a float result, which Python rounds, may decide a condition otherwise
//! (`x / 3 * 3 != x` holds for `x = 0.1`, never over the reals; `1e20 + 1.0 == 1e20`).
//! Comparing floats, or ints with floats, as they are is exact. The analyses do not claim
//! what such a condition decides: `%set` marks the paths through it approximate, and
//! `%constraints` leaves it untranslated.

use super::sort::Sort;
use super::term::{Term, TermKind};

/// The first float arithmetic in `t` that Python may round: `+ - * / // %` or `**` with a
/// float result (`int / int` too).
pub fn float_rounding(t: &Term) -> Option<&Term> {
    let rounds = match t.kind() {
        TermKind::Arith(_, _, _) | TermKind::Pow(_, _) => *t.sort() == Sort::Real,
        _ => false,
    };
    if rounds {
        return Some(t);
    }
    t.children().into_iter().find_map(float_rounding)
}
