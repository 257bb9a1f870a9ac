//! String methods beyond `startswith`/`endswith` that the solver models exactly:
//! `s.find(sub)` (an index in characters, -1 when absent), and over ASCII strings (see
//! [`crate::symbolic::chars`]) the character tests `isdigit`/`isalpha`/`isalnum`/`isspace`/
//! `isupper`/`islower` and the case maps `lower`/`upper`/`swapcase`. Other methods stay
//! unsupported here (the symbolic interpreter makes them a havoc).

use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::Expr;
use crate::symbolic::chars::{CaseMap, CharTest, not_ascii_only};
use crate::symbolic::sort::Sort;
use crate::symbolic::term::Term;

impl Translator<'_> {
    /// `Some` when `attr` is one of this module's methods.
    pub(super) fn str_method(
        &self,
        e: &Expr,
        receiver: &Expr,
        attr: &str,
        args: &[Expr],
    ) -> Option<Result<Partial>> {
        if attr == "find" {
            return Some(self.find(e, receiver, args));
        }
        if let Some(test) = CharTest::from_method(attr) {
            return Some(self.ascii_method(e, receiver, attr, args, |s| Term::char_test(test, s)));
        }
        let map = CaseMap::from_method(attr)?;
        Some(self.ascii_method(e, receiver, attr, args, |s| Term::case_map(map, s)))
    }

    /// A method without arguments modelled over ASCII: refused on a receiver that may hold
    /// characters the model does not class.
    fn ascii_method(
        &self,
        e: &Expr,
        receiver: &Expr,
        attr: &str,
        args: &[Expr],
        build: impl FnOnce(Term) -> std::result::Result<Term, crate::symbolic::term::SortError>,
    ) -> Result<Partial> {
        if !args.is_empty() {
            return Err(self.unsupported(e, format!(".{attr}() with {} argument(s)", args.len())));
        }
        let mut fx = Effects::default();
        let s = fx.then(self.expr(receiver, false)?);
        if *s.sort() != Sort::Str {
            return Err(self.unsupported(e, format!("the method .{attr}() of a '{}'", s.sort())));
        }
        if let Some(why) = not_ascii_only(&s) {
            return Err(self.unsupported(e, format!("the method .{attr}() here ({why})")));
        }
        let value = build(s).map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }

    fn find(&self, e: &Expr, receiver: &Expr, args: &[Expr]) -> Result<Partial> {
        let [sub] = args else {
            return Err(self.unsupported(e, format!(".find() with {} argument(s)", args.len())));
        };
        let mut fx = Effects::default();
        let s = fx.then(self.expr(receiver, false)?);
        if *s.sort() != Sort::Str {
            return Err(self.unsupported(e, format!("the method .find() of a '{}'", s.sort())));
        }
        let sub = fx.then(self.expr(sub, false)?);
        let value = Term::find(s, sub).map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }
}
