//! f-strings: `f"{a} and {n}"` is the concatenation of its literal parts and `str()` of each
//! field, evaluated left to right (so a field's exceptions come after the earlier fields').
//! A field is exact where `str()` is ([`Translator::conversion`]: a str, an int, a bool);
//! `!s` is the same, `!r` only of an int or a bool (whose repr is their str). A format spec
//! (`{x:>5}`), `!r` of anything else, `!a` and `str()` of a float stay unsupported (the
//! symbolic interpreter makes them a havoc).

use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::{Conversion, Expr, FStringPart};
use crate::symbolic::sort::Sort;
use crate::symbolic::term::Term;

impl Translator<'_> {
    /// `f"…"` with `parts`.
    pub(super) fn fstring(&self, e: &Expr, parts: &[FStringPart]) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let mut fx = Effects::default();
        let mut pieces = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                FStringPart::Literal(s) => pieces.push(Term::str(s.clone()).map_err(fail)?),
                FStringPart::Expr {
                    format_spec: Some(_),
                    ..
                } => return Err(self.unsupported(e, "a format spec in an f-string")),
                FStringPart::Expr {
                    expr, conversion, ..
                } => {
                    let value = fx.then(self.expr(expr, false)?);
                    let plain = matches!(value.sort(), Sort::Int | Sort::Bool);
                    match conversion {
                        None | Some(Conversion::Str) => {}
                        Some(Conversion::Repr) if plain => {}
                        Some(Conversion::Repr) => {
                            return Err(self.unsupported(e, "!r of a str in an f-string"));
                        }
                        Some(Conversion::Ascii) => {
                            return Err(self.unsupported(e, "!a in an f-string"));
                        }
                    }
                    let text = self.conversion(expr, "str", Effects::default(), value)?;
                    pieces.push(fx.then(text));
                }
            }
        }
        let value = match pieces.len() {
            0 => Term::str(String::new()).map_err(fail)?,
            1 => pieces.remove(0),
            _ => Term::concat(pieces).map_err(fail)?,
        };
        Ok(fx.finish(value))
    }
}
