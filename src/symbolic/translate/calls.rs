//! Calls: the builtins `len`, `abs`, `min`, `max`, `int`, `float`, `bool`, `list`, `tuple`,
//! `sum`/`sorted` and the methods `count`/`index` of lists and tuples (see `lists`),
//! `all`/`any` of one comprehension (quantifiers, see `quantifier`), and the string methods
//! `startswith`/`endswith` (`find`, the other methods and `str`/`int`/`chr`/`ord` of
//! strings in `strings`). Any other call is unsupported.

use super::ExceptionKind;
use super::expr::{Effects, Partial, Result, Translator};
use crate::python::ir::{Expr, ExprKind};
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::term::{ArithOp, SortError, Term};

impl Translator<'_> {
    pub(super) fn call(
        &self,
        e: &Expr,
        func: &Expr,
        args: &[Expr],
        keywords: &[(Option<String>, Expr)],
    ) -> Result<Partial> {
        // `s.split(maxsplit=k)` and `sorted(xs, reverse=b)` read their keywords later.
        let read_later = crate::symbolic::strfn::as_split(e).is_some()
            || super::lists::sorted_reverse(e).is_some();
        if !keywords.is_empty() && !read_later {
            return Err(self.unsupported(e, "keyword arguments"));
        }
        if let Some(star) = args.iter().find(|a| matches!(a.kind, ExprKind::Starred(_))) {
            return Err(self.unsupported(star, "a starred argument"));
        }
        match &func.kind {
            ExprKind::Name(name) => self.builtin(e, name, args),
            ExprKind::Attribute { value, attr } => self.method(e, value, attr, args),
            _ => Err(self.unsupported(e, format!("calling {func}"))),
        }
    }

    fn builtin(&self, e: &Expr, name: &str, args: &[Expr]) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        if let ("all" | "any", [arg]) = (name, args)
            && let Some(q) = self.quantifier(e, name == "all", arg)
        {
            return q;
        }
        if let ("len", [arg]) = (name, args)
            && let Some(n) = self.split_len(e, arg)
        {
            return n;
        }
        if name == "list" || name == "tuple" {
            let kind = if name == "list" {
                SeqKind::List
            } else {
                SeqKind::Tuple
            };
            return self.convert_seq(e, kind, args);
        }
        let mut fx = Effects::default();
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(fx.then(self.expr(a, false)?));
        }
        let one = |values: Vec<Term>| -> Result<Term> {
            match <[Term; 1]>::try_from(values) {
                Ok([v]) => Ok(v),
                Err(v) => Err(self.sort_error(
                    e,
                    SortError(format!(
                        "{name}() takes exactly one argument ({} given)",
                        v.len()
                    )),
                )),
            }
        };
        let value = match name {
            "len" => Term::len(one(values)?).map_err(fail)?,
            "abs" => Term::abs(one(values)?).map_err(fail)?,
            "int" => {
                let v = one(values)?;
                if *v.sort() == Sort::Str {
                    return self.conversion(e, name, fx, v);
                }
                Term::to_int(v).map_err(fail)?
            }
            "str" | "chr" | "ord" => return self.conversion(e, name, fx, one(values)?),
            "float" => {
                let v = one(values)?;
                if *v.sort() == Sort::Str {
                    return Err(self.unsupported(e, "float() of a str"));
                }
                Term::to_real(v).map_err(fail)?
            }
            "bool" => Term::truthy(one(values)?).map_err(fail)?,
            "min" | "max" => self.extremum(e, name, values)?,
            "sum" => self.sum(e, values)?,
            "sorted" => self.sorted(e, values)?,
            "round" => {
                let v = one(values)?;
                if !matches!(v.sort(), Sort::Int | Sort::Bool) {
                    return Err(self.unsupported(e, format!("round() of a '{}'", v.sort())));
                }
                Term::to_int(v).map_err(fail)?
            }
            "divmod" => return self.divmod(e, fx, values),
            "set" | "frozenset" => {
                return Err(self.unsupported(e, format!("{name}() (outside `in`)")));
            }
            _ => return Err(self.unsupported(e, format!("the call {name}()"))),
        };
        Ok(fx.finish(value))
    }

    /// `divmod(a, b)` of ints: `(a // b, a % b)`, `ZeroDivisionError` when `b == 0`.
    fn divmod(&self, e: &Expr, mut fx: Effects, values: Vec<Term>) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let Ok([a, b]) = <[Term; 2]>::try_from(values) else {
            return Err(self.unsupported(e, "divmod() with other than two arguments"));
        };
        if [&a, &b]
            .iter()
            .any(|t| !matches!(t.sort(), Sort::Int | Sort::Bool))
        {
            let msg = format!("divmod() of a '{}' and a '{}'", a.sort(), b.sort());
            return Err(self.unsupported(e, msg));
        }
        let q = Term::arith(ArithOp::FloorDiv, a.clone(), b.clone()).map_err(fail)?;
        let r = Term::arith(ArithOp::Mod, a, b.clone()).map_err(fail)?;
        fx.push(
            ExceptionKind::ZeroDivisionError,
            super::expr::is_zero(b).map_err(fail)?,
        );
        Ok(fx.finish(Term::items(SeqKind::Tuple, vec![q, r]).map_err(fail)?))
    }

    /// `min(a, b, …)`, or `min(t)` of a fixed-length tuple.
    fn extremum(&self, e: &Expr, name: &str, mut values: Vec<Term>) -> Result<Term> {
        let fail = |err| self.sort_error(e, err);
        if values.len() == 1 {
            let seq = values.remove(0);
            let Sort::Fixed(_, items) = seq.sort() else {
                return Err(self.unsupported(e, format!("{name}() of a '{}'", seq.sort())));
            };
            if items.is_empty() {
                let msg = format!("{name}() arg is an empty sequence");
                return Err(self.always_raises(e, ExceptionKind::ValueError, &msg));
            }
            values = (0..items.len())
                .map(|i| Term::index(seq.clone(), Term::int(i)))
                .collect::<std::result::Result<_, _>>()
                .map_err(fail)?;
        }
        if name == "min" {
            Term::min(values).map_err(fail)
        } else {
            Term::max(values).map_err(fail)
        }
    }

    /// `list(x)` / `tuple(x)` of a display or a fixed-length value (or `reversed` of one),
    /// or of a sequence of the same kind.
    fn convert_seq(&self, e: &Expr, kind: SeqKind, args: &[Expr]) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let arg = match args {
            [] => return self.display(e, kind, &[]),
            [arg] => arg,
            _ => return Err(self.unsupported(e, "list()/tuple() with several arguments")),
        };
        if let ExprKind::List(items) | ExprKind::Tuple(items) = &arg.kind {
            return self.display(e, kind, items);
        }
        let mut fx = Effects::default();
        if let ExprKind::Call { func, args, .. } = &arg.kind
            && func.as_name() == Some("reversed")
            && let [inner] = args.as_slice()
        {
            let v = fx.then(self.expr(inner, false)?);
            let Sort::Fixed(_, items) = v.sort() else {
                return Err(self.unsupported(e, format!("reversed() of a '{}'", v.sort())));
            };
            let parts = (0..items.len())
                .rev()
                .map(|i| Term::index(v.clone(), Term::int(i)))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(fail)?;
            return Ok(fx.finish(Term::items(kind, parts).map_err(fail)?));
        }
        let v = fx.then(self.expr(arg, false)?);
        let value = match v.sort().clone() {
            Sort::Fixed(_, items) => {
                let parts = (0..items.len())
                    .map(|i| Term::index(v.clone(), Term::int(i)))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(fail)?;
                Term::items(kind, parts).map_err(fail)?
            }
            Sort::Seq(k, _) if k == kind => v,
            other => {
                return Err(self.unsupported(e, format!("{}() of a '{other}'", kind.name())));
            }
        };
        Ok(fx.finish(value))
    }

    fn method(&self, e: &Expr, receiver: &Expr, attr: &str, args: &[Expr]) -> Result<Partial> {
        if let Some(done) = self.seq_method(e, receiver, attr, args) {
            return done;
        }
        if let Some(done) = self.str_method(e, receiver, attr, args) {
            return done;
        }
        if attr != "startswith" && attr != "endswith" {
            return Err(self.unsupported(e, format!("the method .{attr}()")));
        }
        let [arg] = args else {
            return Err(self.unsupported(e, format!(".{attr}() with other than one argument")));
        };
        if matches!(arg.kind, ExprKind::Tuple(_)) {
            return Err(self.unsupported(arg, format!(".{attr}() of a tuple of strings")));
        }
        let mut fx = Effects::default();
        let s = fx.then(self.expr(receiver, false)?);
        let a = fx.then(self.expr(arg, false)?);
        if *s.sort() != Sort::Str {
            return Err(self.unsupported(e, format!("the method .{attr}() of a '{}'", s.sort())));
        }
        let value = if attr == "startswith" {
            Term::starts_with(s, a)
        } else {
            Term::ends_with(s, a)
        }
        .map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }
}
