//! String methods beyond `startswith`/`endswith` that the solver models exactly:
//! `s.find(sub)` and `s.rfind(sub)` (an index in characters, -1 when absent; `index`/`rindex`
//! raise `ValueError` there), `s.partition(sep)`/`s.rpartition(sep)` (a 3-tuple), and over ASCII strings (see
//! [`crate::symbolic::chars`]) the character tests `isdigit`/`isalpha`/`isalnum`/`isspace`/
//! `isupper`/`islower` and the case maps `lower`/`upper`/`swapcase`; `strip`/`lstrip`/
//! `rstrip` (no argument or a constant one), `count(sub)` and `replace(old, new)` with a
//! constant non-empty `old`, and the conversions `str(n)`, `int(s)`, `chr(i)`, `ord(c)` (see
//! [`crate::symbolic::strfn`]). Other methods stay unsupported here (the symbolic
//! interpreter makes them a havoc).

use super::ExceptionKind;
use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::{Constant, Expr, ExprKind};
use crate::symbolic::chars::{CaseMap, CharTest, not_ascii_only};
use crate::symbolic::simplify::simplify;
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::strfn::{Side, SplitCall, StrFn, as_split, split_names};
use crate::symbolic::term::{ArithOp, CompareOp, Literal, Term};

impl Translator<'_> {
    /// `Some` when `attr` is one of this module's methods.
    pub(super) fn str_method(
        &self,
        e: &Expr,
        receiver: &Expr,
        attr: &str,
        args: &[Expr],
    ) -> Option<Result<Partial>> {
        if matches!(attr, "find" | "rfind" | "index" | "rindex") {
            return Some(self.find(e, receiver, attr, args));
        }
        if matches!(attr, "partition" | "rpartition") {
            return Some(self.partition(e, receiver, attr, args));
        }
        if let Some(side) = Side::from_method(attr) {
            return Some(self.strip(e, receiver, side, args));
        }
        if attr == "split" || attr == "rsplit" {
            return Some(self.split(e, receiver, attr));
        }
        if attr == "join" {
            return Some(self.join(e, receiver, args));
        }
        if attr == "count" || attr == "replace" {
            return Some(self.count_or_replace(e, receiver, attr, args));
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

    /// `s.find(sub)`, `s.rfind(sub)`, and `index`/`rindex`, which raise `ValueError` where
    /// those answer -1.
    fn find(&self, e: &Expr, receiver: &Expr, attr: &str, args: &[Expr]) -> Result<Partial> {
        let (mut fx, s, sub) = self.receiver_and_arg(e, receiver, attr, args)?;
        let fail = |err| self.sort_error(e, err);
        let value = if attr.starts_with('r') {
            Term::str_fn(StrFn::RFind, vec![s, sub])
        } else {
            Term::find(s, sub)
        }
        .map_err(fail)?;
        if attr.ends_with("index") {
            let absent = Term::compare(CompareOp::Lt, value.clone(), Term::int(0)).map_err(fail)?;
            fx.push(ExceptionKind::ValueError, absent);
        }
        Ok(fx.finish(value))
    }

    /// `s.partition(sep)` / `s.rpartition(sep)`: the 3-tuple around the first (last) `sep`,
    /// `(s, "", "")` (`("", "", s)`) without one; an empty `sep` raises `ValueError`.
    fn partition(&self, e: &Expr, receiver: &Expr, attr: &str, args: &[Expr]) -> Result<Partial> {
        let (mut fx, s, sep) = self.receiver_and_arg(e, receiver, attr, args)?;
        let fail = |err| self.sort_error(e, err);
        let empty = Term::str("").map_err(fail)?;
        let no_sep = Term::compare(CompareOp::Eq, sep.clone(), empty).map_err(fail)?;
        fx.push(ExceptionKind::ValueError, no_sep);
        let right = attr == "rpartition";
        let parts = (0..3)
            .map(|i| Term::str_fn(StrFn::Partition(right, i), vec![s.clone(), sep.clone()]))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(fail)?;
        let value = Term::items(SeqKind::Tuple, parts).map_err(fail)?;
        Ok(fx.finish(value))
    }

    /// The receiver of a `str` method of one argument and that argument, with the effects of
    /// evaluating them.
    fn receiver_and_arg(
        &self,
        e: &Expr,
        receiver: &Expr,
        attr: &str,
        args: &[Expr],
    ) -> Result<(Effects, Term, Term)> {
        let [arg] = args else {
            return Err(self.unsupported(e, format!(".{attr}() with {} argument(s)", args.len())));
        };
        let (mut fx, s) = self.str_receiver(e, receiver, attr)?;
        let arg = fx.then(self.expr(arg, false)?);
        Ok((fx, s, arg))
    }

    /// The receiver of a `str` method, with the effects of evaluating it.
    fn str_receiver(&self, e: &Expr, receiver: &Expr, attr: &str) -> Result<(Effects, Term)> {
        let mut fx = Effects::default();
        let s = fx.then(self.expr(receiver, false)?);
        if *s.sort() != Sort::Str {
            return Err(self.unsupported(e, format!("the method .{attr}() of a '{}'", s.sort())));
        }
        Ok((fx, s))
    }

    fn strip(&self, e: &Expr, receiver: &Expr, side: Side, args: &[Expr]) -> Result<Partial> {
        let attr = side.method();
        let chars = match args {
            [] => None,
            [arg] => match &arg.kind {
                ExprKind::Constant(Constant::Str(chars)) => Some(chars.clone()),
                ExprKind::Constant(Constant::None) => None,
                _ => return Err(self.unsupported(arg, format!(".{attr}() of a non-constant"))),
            },
            _ => {
                return Err(self.unsupported(e, format!(".{attr}() with {} arguments", args.len())));
            }
        };
        let (fx, s) = self.str_receiver(e, receiver, attr)?;
        let value = Term::str_fn(StrFn::Strip(side, chars), vec![s])
            .map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }

    /// `s.split(sep)`, `s.split(sep, k)`: the items a symbolic execution bound for this call once it forked on
    /// their number (see [`crate::symbolic::strfn::split_names`]); unsupported otherwise.
    fn split(&self, e: &Expr, receiver: &Expr, attr: &str) -> Result<Partial> {
        if as_split(e).is_none() {
            return Err(self.unsupported(
                e,
                format!(".{attr}() other than of a constant non-empty separator and maxsplit"),
            ));
        }
        let (fx, s) = self.str_receiver(e, receiver, attr)?;
        let (items, of) = split_names(e.span);
        match (self.env.get(&items), self.env.get(&of)) {
            (Some(items), Some(of)) if simplify(of) == simplify(&s) => Ok(fx.finish(items.clone())),
            _ => Err(self.unsupported(e, ".split() (a list of unknown length)")),
        }
    }

    /// `len(s.split(sep))` with a constant `sep` where the items are not known: `s.count(sep)
    /// + 1` (`None` for any other argument of `len`).
    pub(super) fn split_len(&self, e: &Expr, arg: &Expr) -> Option<Result<Partial>> {
        let (
            receiver,
            SplitCall {
                sep: Some(sep),
                max: None,
            },
        ) = as_split(arg)?
        else {
            return None;
        };
        if self.env.get(&split_names(arg.span).0).is_some() {
            return None;
        }
        Some(
            self.str_receiver(arg, receiver, "split")
                .and_then(|(fx, s)| {
                    let fail = |err| self.sort_error(e, err);
                    let sep = Term::str(sep).map_err(fail)?;
                    let count = Term::str_fn(StrFn::Count, vec![s, sep]).map_err(fail)?;
                    let n = Term::arith(ArithOp::Add, count, Term::int(1)).map_err(fail)?;
                    Ok(fx.finish(n))
                }),
        )
    }

    /// `sep.join(xs)` of a list or tuple of strs of known length: `xs[0] + sep + xs[1] + …`;
    /// `sep.join(reversed(xs))` from the last item; `''.join(reversed(s))` is `s[::-1]`.
    fn join(&self, e: &Expr, receiver: &Expr, args: &[Expr]) -> Result<Partial> {
        let [arg] = args else {
            return Err(self.unsupported(e, format!(".join() with {} argument(s)", args.len())));
        };
        let (mut fx, sep) = self.str_receiver(e, receiver, "join")?;
        let fail = |err| self.sort_error(e, err);
        let reversed = match &arg.kind {
            ExprKind::Call { func, args, .. } if func.as_name() == Some("reversed") => {
                match args.as_slice() {
                    [inner] => Some(inner),
                    _ => return Err(self.unsupported(arg, "reversed() of other than one value")),
                }
            }
            _ => None,
        };
        let xs = fx.then(self.expr(reversed.unwrap_or(arg), false)?);
        if reversed.is_some() && *xs.sort() == Sort::Str {
            // `''.join(reversed(s))` is `s[::-1]`; another separator goes between characters.
            if sep.literal() != Some(&Literal::Str(String::new())) {
                return Err(self.unsupported(e, "a non-empty separator joining reversed(s)"));
            }
            return Ok(fx.finish(Term::slice(xs, None, None, Some(-1)).map_err(fail)?));
        }
        let Sort::Fixed(_, items) = xs.sort().clone() else {
            return Err(self.unsupported(e, format!(".join() of a '{}'", xs.sort())));
        };
        if let Some(other) = items.iter().find(|s| **s != Sort::Str) {
            return Err(self.unsupported(e, format!(".join() of an item of sort '{other}'")));
        }
        let mut parts = Vec::with_capacity(2 * items.len());
        let order: Vec<usize> = if reversed.is_some() {
            (0..items.len()).rev().collect()
        } else {
            (0..items.len()).collect()
        };
        for (k, i) in order.into_iter().enumerate() {
            if k > 0 {
                parts.push(sep.clone());
            }
            parts.push(Term::index(xs.clone(), Term::int(i)).map_err(fail)?);
        }
        let value = match parts.len() {
            0 => Term::str("").map_err(fail)?,
            1 => parts.remove(0),
            _ => Term::concat(parts).map_err(fail)?,
        };
        Ok(fx.finish(value))
    }

    /// `s.count(sub)`; `s.replace(old, new)` with a constant non-empty `old`.
    fn count_or_replace(
        &self,
        e: &Expr,
        receiver: &Expr,
        attr: &str,
        args: &[Expr],
    ) -> Result<Partial> {
        let wanted = if attr == "count" { 1 } else { 2 };
        if args.len() != wanted {
            return Err(self.unsupported(e, format!(".{attr}() with {} argument(s)", args.len())));
        }
        let (mut fx, s) = self.str_receiver(e, receiver, attr)?;
        let mut operands = Vec::with_capacity(args.len());
        for a in args {
            operands.push(fx.then(self.expr(a, false)?));
        }
        let (f, rest) = if attr == "count" {
            (StrFn::Count, operands)
        } else {
            let Some(Literal::Str(old)) = operands[0].literal().cloned() else {
                return Err(self.unsupported(e, ".replace() of a non-constant old string"));
            };
            if old.is_empty() {
                return Err(self.unsupported(e, ".replace() of an empty old string"));
            }
            (StrFn::Replace(old), operands.split_off(1))
        };
        let value = Term::str_fn(f, std::iter::once(s).chain(rest).collect())
            .map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }

    /// `str(x)` of an int, bool or str; `int(s)` of a str; `chr(i)`; `ord(c)`, with the
    /// exceptions Python raises.
    pub(super) fn conversion(
        &self,
        e: &Expr,
        name: &str,
        mut fx: Effects,
        v: Term,
    ) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let value = match (name, v.sort()) {
            ("str", Sort::Str) => v,
            ("str", Sort::Bool) => Term::ite(
                v,
                Term::str("True").map_err(fail)?,
                Term::str("False").map_err(fail)?,
            )
            .map_err(fail)?,
            ("str", Sort::Int) => Term::str_fn(StrFn::FromInt, vec![v]).map_err(fail)?,
            ("int", Sort::Str) => {
                if let Some(why) = not_ascii_only(&v) {
                    return Err(self.unsupported(e, format!("int() of a str here ({why})")));
                }
                let accepts = Term::str_fn(StrFn::IsInt, vec![v.clone()]).map_err(fail)?;
                fx.push(ExceptionKind::ValueError, Term::not(accepts).map_err(fail)?);
                Term::str_fn(StrFn::ToInt, vec![v]).map_err(fail)?
            }
            ("chr", Sort::Int | Sort::Bool) => {
                let i = Term::to_int(v).map_err(fail)?;
                let below = Term::compare(CompareOp::Lt, i.clone(), Term::int(0)).map_err(fail)?;
                let above =
                    Term::compare(CompareOp::Gt, i.clone(), Term::int(0x10FFFF)).map_err(fail)?;
                fx.push(
                    ExceptionKind::ValueError,
                    Term::or(vec![below, above]).map_err(fail)?,
                );
                Term::str_fn(StrFn::Chr, vec![i]).map_err(fail)?
            }
            ("ord", Sort::Str) => {
                let len = Term::len(v.clone()).map_err(fail)?;
                let not_one = Term::compare(CompareOp::NotEq, len, Term::int(1)).map_err(fail)?;
                fx.push(ExceptionKind::TypeError, not_one);
                Term::str_fn(StrFn::Ord, vec![v]).map_err(fail)?
            }
            (_, sort) => return Err(self.unsupported(e, format!("{name}() of a '{sort}'"))),
        };
        Ok(fx.finish(value))
    }
}
