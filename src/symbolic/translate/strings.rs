//! String methods beyond `startswith`/`endswith` that the solver models exactly:
//! `s.find(sub)` (an index in characters, -1 when absent). Other methods stay unsupported
//! here (the symbolic interpreter makes them a havoc).

use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::Expr;
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
        (attr == "find").then(|| self.find(e, receiver, args))
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
