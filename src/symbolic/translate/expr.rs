//! The translation of expressions: operators, comparisons, boolean logic, conditionals and
//! subscripts (calls are in `calls`).
//!
//! Raise conditions are gathered in evaluation order with "first one wins" meaning: each is
//! only the local condition and the short-circuit guard under which its subexpression runs.
//! [`translate`] turns them into mutually exclusive conditions at the end, which keeps them
//! small while composing.

use num_traits::ToPrimitive;

use super::{Env, ExceptionKind, TranslateError, Translated};
use crate::python::ir::{BinOp, BoolOp, CmpOp, Constant, Expr, ExprKind, UnaryOp};
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::term::{ArithOp, CompareOp, MAX_UNROLLED, SortError, Term};

/// A subexpression's value and raise conditions (first one wins).
pub(super) struct Partial {
    pub value: Term,
    pub raises: Vec<(ExceptionKind, Term)>,
}

/// Raise conditions of subexpressions evaluated one after the other.
#[derive(Default)]
pub(super) struct Effects {
    raises: Vec<(ExceptionKind, Term)>,
}

pub(super) struct Translator<'e> {
    pub env: &'e Env,
}

pub(super) type Result<T> = std::result::Result<T, TranslateError>;

pub(super) fn translate(expr: &Expr, env: &Env, condition: bool) -> Result<Translated> {
    let t = Translator { env };
    let partial = t.expr(expr, condition)?;
    let mut raises = Vec::with_capacity(partial.raises.len());
    let mut earlier = Vec::new();
    for (kind, cond) in partial.raises {
        let none_before = Term::not(Term::or(earlier.clone()).map_err(|e| t.sort_error(expr, e))?)
            .map_err(|e| t.sort_error(expr, e))?;
        let exclusive =
            Term::and(vec![cond.clone(), none_before]).map_err(|e| t.sort_error(expr, e))?;
        earlier.push(cond);
        if exclusive.bool_literal() != Some(false) {
            raises.push((kind, exclusive));
        }
    }
    Ok(Translated {
        value: partial.value,
        raises,
    })
}

impl Effects {
    /// Takes a subexpression evaluated unconditionally after the earlier ones.
    pub fn then(&mut self, p: Partial) -> Term {
        self.raises.extend(p.raises);
        p.value
    }

    /// Takes a subexpression evaluated only when `guard` holds (short-circuit).
    pub fn then_if(&mut self, guard: &Term, p: Partial) -> std::result::Result<Term, SortError> {
        for (kind, cond) in p.raises {
            self.push(kind, Term::and(vec![guard.clone(), cond])?);
        }
        Ok(p.value)
    }

    /// Whether nothing evaluated so far can raise.
    pub fn raises_nothing(&self) -> bool {
        self.raises.is_empty()
    }

    /// Raises `kind` when `cond` holds (and nothing earlier raised).
    pub fn push(&mut self, kind: ExceptionKind, cond: Term) {
        if cond.bool_literal() != Some(false) {
            self.raises.push((kind, cond));
        }
    }

    pub fn finish(self, value: Term) -> Partial {
        Partial {
            value,
            raises: self.raises,
        }
    }
}

impl Translator<'_> {
    pub fn unsupported(&self, e: &Expr, construct: impl Into<String>) -> TranslateError {
        TranslateError::Unsupported {
            construct: construct.into(),
            line: e.span.line,
            column: e.span.column,
        }
    }

    pub fn sort_error(&self, e: &Expr, err: SortError) -> TranslateError {
        TranslateError::Type {
            message: err.0,
            line: e.span.line,
            column: e.span.column,
        }
    }

    pub fn always_raises(
        &self,
        e: &Expr,
        exception: ExceptionKind,
        message: &str,
    ) -> TranslateError {
        TranslateError::AlwaysRaises {
            exception,
            message: message.to_string(),
            line: e.span.line,
            column: e.span.column,
        }
    }

    /// Translates `e`; as a condition, its value is its truth value.
    pub fn expr(&self, e: &Expr, condition: bool) -> Result<Partial> {
        if let Some(done) = self.mapping_expr(e, condition) {
            return done;
        }
        let mut p = match &e.kind {
            ExprKind::BoolOp { op, values } => return self.bool_op(e, *op, values, condition),
            ExprKind::IfExp { test, body, orelse } => {
                return self.if_exp(e, test, body, orelse, condition);
            }
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand,
            } => {
                let inner = self.expr(operand, true)?;
                let value = Term::not(inner.value).map_err(|err| self.sort_error(e, err))?;
                return Ok(Partial {
                    value,
                    raises: inner.raises,
                });
            }
            _ => self.value(e)?,
        };
        if condition {
            p.value = Term::truthy(p.value).map_err(|err| self.sort_error(e, err))?;
        }
        Ok(p)
    }

    fn value(&self, e: &Expr) -> Result<Partial> {
        let plain = |value: Term| Partial {
            value,
            raises: Vec::new(),
        };
        match &e.kind {
            ExprKind::Name(name) => match self.env.get(name) {
                Some(t) => Ok(plain(t.clone())),
                None => Err(TranslateError::UnknownName {
                    name: name.clone(),
                    line: e.span.line,
                    column: e.span.column,
                }),
            },
            ExprKind::Constant(c) => self.constant(e, c).map(plain),
            ExprKind::UnaryOp { op, operand } => self.unary(e, *op, operand),
            ExprKind::BinOp { op, left, right } => self.binary(e, *op, left, right),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.compare(e, left, ops, comparators),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(e, func, args, keywords),
            ExprKind::Subscript { value, index } => self.subscript(e, value, index),
            ExprKind::Tuple(items) => self.display(e, SeqKind::Tuple, items),
            ExprKind::List(items) => self.display(e, SeqKind::List, items),
            ExprKind::Set(_) => Err(self.unsupported(e, "a set display (outside `in`)")),
            ExprKind::Dict { .. } => Err(self.unsupported(e, "a dict display")),
            ExprKind::Attribute { attr, .. } => {
                Err(self.unsupported(e, format!("the attribute .{attr}")))
            }
            ExprKind::Slice { .. } => Err(self.unsupported(e, "a slice outside a subscript")),
            ExprKind::Lambda { .. } => Err(self.unsupported(e, "lambda")),
            ExprKind::Comprehension { .. } => Err(self.unsupported(e, "a comprehension")),
            ExprKind::FString(parts) => self.fstring(e, parts),
            ExprKind::Starred(_) => Err(self.unsupported(e, "a starred expression")),
            ExprKind::NamedExpr { .. } => Err(self.unsupported(e, "an assignment expression")),
            ExprKind::Unsupported { construct, .. } => Err(self.unsupported(e, *construct)),
            ExprKind::BoolOp { .. } | ExprKind::IfExp { .. } => self.expr(e, false),
        }
    }

    fn constant(&self, e: &Expr, c: &Constant) -> Result<Term> {
        match c {
            Constant::Int(i) => Ok(Term::int(i.clone())),
            Constant::Bool(b) => Ok(Term::bool(*b)),
            Constant::Float(x) => Term::real(*x).map_err(|err| self.unsupported(e, err.0)),
            Constant::Str(s) => Term::str(s.clone()).map_err(|err| self.unsupported(e, err.0)),
            Constant::None => Err(self.unsupported(e, "None")),
            Constant::Bytes(_) => Err(self.unsupported(e, "a bytes literal")),
            Constant::Ellipsis => Err(self.unsupported(e, "...")),
        }
    }

    fn unary(&self, e: &Expr, op: UnaryOp, operand: &Expr) -> Result<Partial> {
        let inner = self.expr(operand, false)?;
        let a = inner.value;
        let value = match op {
            UnaryOp::USub => Term::neg(a),
            UnaryOp::Invert => Term::invert(a),
            UnaryOp::UAdd if *a.sort() == Sort::Bool => Term::to_int(a),
            UnaryOp::UAdd if a.sort().is_numeric() => Ok(a),
            UnaryOp::UAdd => Err(SortError(format!(
                "bad operand type for unary +: '{}'",
                a.sort()
            ))),
            UnaryOp::Not => Term::truthy(a).and_then(Term::not),
        }
        .map_err(|err| self.sort_error(e, err))?;
        Ok(Partial {
            value,
            raises: inner.raises,
        })
    }

    fn binary(&self, e: &Expr, op: BinOp, left: &Expr, right: &Expr) -> Result<Partial> {
        let mut fx = Effects::default();
        let a = fx.then(self.expr(left, false)?);
        let b = fx.then(self.expr(right, false)?);
        let fail = |err| self.sort_error(e, err);
        let both_numeric = a.sort().is_numeric() && b.sort().is_numeric();
        let arith = match op {
            BinOp::Add if both_numeric => ArithOp::Add,
            BinOp::Add => return Ok(fx.finish(Term::concat(vec![a, b]).map_err(fail)?)),
            BinOp::Sub => ArithOp::Sub,
            BinOp::Mult if both_numeric => ArithOp::Mul,
            BinOp::Mult => return self.repeat(e, fx, a, b),
            BinOp::Div => ArithOp::TrueDiv,
            BinOp::FloorDiv => ArithOp::FloorDiv,
            BinOp::Mod if *a.sort() == Sort::Str => {
                return Err(self.unsupported(e, "str % formatting"));
            }
            BinOp::Mod => ArithOp::Mod,
            BinOp::Pow => return self.pow(e, right, fx, a, b),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift => {
                return self.bitwise(e, op, fx, a, b);
            }
            other => return Err(self.unsupported(e, format!("the operator {}", other.symbol()))),
        };
        let value = Term::arith(arith, a, b.clone()).map_err(fail)?;
        if matches!(arith, ArithOp::TrueDiv | ArithOp::FloorDiv | ArithOp::Mod) {
            fx.push(ExceptionKind::ZeroDivisionError, is_zero(b).map_err(fail)?);
        }
        Ok(fx.finish(value))
    }

    /// `s * n` / `n * s` with a constant count, or of a str.
    fn repeat(&self, e: &Expr, fx: Effects, a: Term, b: Term) -> Result<Partial> {
        let (seq, count) = if a.sort().is_sized() { (a, b) } else { (b, a) };
        if !seq.sort().is_sized() || !matches!(count.sort(), Sort::Int | Sort::Bool) {
            let msg = format!(
                "unsupported operand type(s) for *: '{}' and '{}'",
                seq.sort(),
                count.sort()
            );
            return Err(self.sort_error(e, SortError(msg)));
        }
        let Some(n) = count.int_literal() else {
            if *seq.sort() != Sort::Str {
                return Err(self.unsupported(e, "repetition by a non-constant count"));
            }
            let value = Term::str_fn(crate::symbolic::strfn::StrFn::Repeat, vec![seq, count])
                .map_err(|err| self.sort_error(e, err))?;
            return Ok(fx.finish(value));
        };
        let n = n.to_i64().filter(|n| *n <= MAX_UNROLLED).ok_or_else(|| {
            self.unsupported(e, format!("repetition more than {MAX_UNROLLED} times"))
        })?;
        let value = Term::repeat(seq, n).map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }

    /// `a ** n` with a constant integer exponent.
    fn pow(&self, e: &Expr, right: &Expr, mut fx: Effects, a: Term, b: Term) -> Result<Partial> {
        let Some(n) = b.int_literal() else {
            return Err(
                self.unsupported(right, "** with an exponent that is not an integer constant")
            );
        };
        let n = n
            .to_i64()
            .filter(|n| n.abs() <= MAX_UNROLLED)
            .ok_or_else(|| self.unsupported(right, format!("an exponent beyond {MAX_UNROLLED}")))?;
        let fail = |err| self.sort_error(e, err);
        let value = Term::pow(a.clone(), n).map_err(fail)?;
        if n < 0 {
            fx.push(ExceptionKind::ZeroDivisionError, is_zero(a).map_err(fail)?);
        }
        Ok(fx.finish(value))
    }

    fn bool_op(&self, e: &Expr, op: BoolOp, values: &[Expr], condition: bool) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let mut fx = Effects::default();
        let mut parts: Vec<Term> = Vec::new();
        // Truth values of the operands so far: operand i runs when all before were true
        // (`and`) or all false (`or`).
        let mut guards: Vec<Term> = Vec::new();
        for v in values {
            let guard = Term::and(guards.clone()).map_err(fail)?;
            let Some(value) = self.guarded(&mut fx, &guard, self.expr(v, condition), e)? else {
                // It raises whenever it runs: the result is decided by the operands before it.
                break;
            };
            let truth = Term::truthy(value.clone()).map_err(fail)?;
            guards.push(match op {
                BoolOp::And => truth,
                BoolOp::Or => Term::not(truth).map_err(fail)?,
            });
            parts.push(value);
        }
        if parts.iter().all(|p| *p.sort() == Sort::Bool) {
            let value = match op {
                BoolOp::And => Term::and(parts),
                BoolOp::Or => Term::or(parts),
            };
            return Ok(fx.finish(value.map_err(fail)?));
        }
        // A value: `a and b` is `b if a else a`, `a or b` is `a if a else b`.
        let mut rest = parts
            .pop()
            .ok_or_else(|| self.unsupported(e, "an empty boolean operation"))?;
        while let Some(a) = parts.pop() {
            let truth = Term::truthy(a.clone()).map_err(fail)?;
            let built = match op {
                BoolOp::And => Term::ite(truth, rest, a),
                BoolOp::Or => Term::ite(truth, a, rest),
            };
            rest = built.map_err(|_| {
                self.unsupported(
                    e,
                    "and/or of values of unrelated types (outside a condition)",
                )
            })?;
        }
        Ok(fx.finish(rest))
    }

    fn if_exp(
        &self,
        e: &Expr,
        test: &Expr,
        body: &Expr,
        orelse: &Expr,
        condition: bool,
    ) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let mut fx = Effects::default();
        let c = fx.then(self.expr(test, true)?);
        let then = self.guarded(&mut fx, &c, self.expr(body, condition), e)?;
        let not_c = Term::not(c.clone()).map_err(fail)?;
        let other = self.guarded(&mut fx, &not_c, self.expr(orelse, condition), e)?;
        let value = match (then, other) {
            (Some(then), Some(other)) => Term::ite(c, then, other).map_err(fail)?,
            // A branch that always raises never gives the value.
            (Some(value), None) | (None, Some(value)) => value,
            (None, None) => {
                return Err(self.unsupported(e, "a conditional whose branches both always raise"));
            }
        };
        Ok(fx.finish(value))
    }

    /// A subexpression evaluated only when `guard` holds (a short circuit or a branch of a
    /// conditional): its value, or `None` when it always raises, which then raises only
    /// under `guard` (`t and t[0]` with `t == []` returns `[]`).
    fn guarded(
        &self,
        fx: &mut Effects,
        guard: &Term,
        p: Result<Partial>,
        e: &Expr,
    ) -> Result<Option<Term>> {
        match p {
            Ok(p) => fx
                .then_if(guard, p)
                .map(Some)
                .map_err(|err| self.sort_error(e, err)),
            Err(TranslateError::AlwaysRaises { exception, .. })
                if guard.bool_literal() != Some(true) =>
            {
                fx.push(exception, guard.clone());
                Ok(None)
            }
            Err(err) => Err(err),
        }
    }

    /// `a < b < c`: `b` once, `c` only when `a < b`.
    fn compare(
        &self,
        e: &Expr,
        left: &Expr,
        ops: &[CmpOp],
        comparators: &[Expr],
    ) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let mut fx = Effects::default();
        let mut a = fx.then(self.expr(left, false)?);
        let mut results: Vec<Term> = Vec::new();
        for (op, right) in ops.iter().zip(comparators) {
            if matches!(op, CmpOp::Is | CmpOp::IsNot) {
                return Err(self.unsupported(e, format!("the operator '{}'", op.symbol())));
            }
            let guard = Term::and(results.clone()).map_err(fail)?;
            let operand = match op {
                CmpOp::In | CmpOp::NotIn => self.collection(right)?,
                _ => self.expr(right, false)?,
            };
            let b = fx.then_if(&guard, operand).map_err(fail)?;
            if matches!(op, CmpOp::In | CmpOp::NotIn) {
                self.hashable_needle(right, &a)?;
            }
            let result = match (op, compare_op(*op)) {
                (CmpOp::In, _) => Term::contains(a, b.clone()),
                (CmpOp::NotIn, _) => Term::contains(a, b.clone()).and_then(Term::not),
                (_, Some(cmp)) => Term::compare(cmp, a, b.clone()),
                (_, None) => {
                    return Err(self.unsupported(e, format!("the operator '{}'", op.symbol())));
                }
            }
            .map_err(fail)?;
            results.push(result);
            a = b;
        }
        Ok(fx.finish(Term::and(results).map_err(fail)?))
    }

    /// The right operand of `in`: set displays and `set(...)`/`frozenset(...)` of displays
    /// become lists (membership is the same); anything else is an ordinary value.
    fn collection(&self, e: &Expr) -> Result<Partial> {
        if let Some(done) = self.mapping_collection(e) {
            return done;
        }
        match &e.kind {
            ExprKind::Set(items) => self.display(e, SeqKind::List, items),
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => {
                let is_set =
                    matches!(&func.kind, ExprKind::Name(n) if n == "set" || n == "frozenset");
                match (is_set, args.as_slice()) {
                    (true, []) => self.display(e, SeqKind::List, &[]),
                    (true, [arg]) => match &arg.kind {
                        ExprKind::Set(items) | ExprKind::List(items) | ExprKind::Tuple(items) => {
                            self.display(e, SeqKind::List, items)
                        }
                        _ => Err(self.unsupported(e, "set() of a value that is not a display")),
                    },
                    _ => self.expr(e, false),
                }
            }
            _ => self.expr(e, false),
        }
    }

    pub fn display(&self, e: &Expr, kind: SeqKind, items: &[Expr]) -> Result<Partial> {
        let mut fx = Effects::default();
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(fx.then(self.expr(item, false)?));
        }
        let value = Term::items(kind, values).map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }

    fn subscript(&self, e: &Expr, value: &Expr, index: &Expr) -> Result<Partial> {
        let fail = |err| self.sort_error(e, err);
        let mut fx = Effects::default();
        let seq = fx.then(self.expr(value, false)?);
        if !seq.sort().is_sized() {
            let msg = format!("'{}' object is not subscriptable", seq.sort());
            return Err(self.sort_error(e, SortError(msg)));
        }
        if let ExprKind::Slice { lower, upper, step } = &index.kind {
            return self.slice(e, fx, seq, [lower, upper], step);
        }
        let i = fx.then(self.expr(index, false)?);
        if let (Sort::Fixed(kind, items), Some(lit)) = (seq.sort(), i.int_literal()) {
            let n = items.len() as i64;
            if lit.to_i64().is_none_or(|k| k >= n || k < -n) {
                let msg = kind.index_out_of_range();
                return Err(self.always_raises(e, ExceptionKind::IndexError, msg));
            }
        }
        if let Sort::Fixed(kind, items) = seq.sort()
            && items.is_empty()
            && matches!(i.sort(), Sort::Int | Sort::Bool)
            && fx.raises_nothing()
        {
            // An empty list has no item to index, whatever the index.
            let msg = kind.index_out_of_range();
            return Err(self.always_raises(e, ExceptionKind::IndexError, msg));
        }
        let len = Term::len(seq.clone()).map_err(fail)?;
        let out_of_range = Term::or(vec![
            Term::compare(CompareOp::GtE, i.clone(), len.clone()).map_err(fail)?,
            Term::compare(CompareOp::Lt, i.clone(), Term::neg(len).map_err(fail)?).map_err(fail)?,
        ])
        .map_err(fail)?;
        let value = Term::index(seq, i).map_err(fail)?;
        fx.push(ExceptionKind::IndexError, out_of_range);
        Ok(fx.finish(value))
    }

    fn slice(
        &self,
        e: &Expr,
        mut fx: Effects,
        seq: Term,
        bounds: [&Option<Box<Expr>>; 2],
        step: &Option<Box<Expr>>,
    ) -> Result<Partial> {
        let mut terms = Vec::with_capacity(2);
        for bound in bounds {
            terms.push(match bound.as_deref() {
                None
                | Some(Expr {
                    kind: ExprKind::Constant(Constant::None),
                    ..
                }) => None,
                Some(b) => Some(fx.then(self.expr(b, false)?)),
            });
        }
        let step = match step.as_deref() {
            None
            | Some(Expr {
                kind: ExprKind::Constant(Constant::None),
                ..
            }) => None,
            Some(s) => {
                let t = fx.then(self.expr(s, false)?);
                let n = t.int_literal().ok_or_else(|| {
                    self.unsupported(s, "a slice step that is not an integer constant")
                })?;
                Some(
                    n.to_i64()
                        .ok_or_else(|| self.unsupported(s, "a slice step beyond 64 bits"))?,
                )
            }
        };
        if step == Some(0) {
            fx.push(ExceptionKind::ValueError, Term::bool(true));
        }
        let [lower, upper]: [Option<Term>; 2] = terms
            .try_into()
            .map_err(|_| self.unsupported(e, "a malformed slice"))?;
        let value = Term::slice(seq, lower, upper, step).map_err(|err| self.sort_error(e, err))?;
        Ok(fx.finish(value))
    }
}

/// The term operator of a value comparison (`None` for `in`, `not in`, `is`, `is not`).
fn compare_op(op: CmpOp) -> Option<CompareOp> {
    Some(match op {
        CmpOp::Eq => CompareOp::Eq,
        CmpOp::NotEq => CompareOp::NotEq,
        CmpOp::Lt => CompareOp::Lt,
        CmpOp::LtE => CompareOp::LtE,
        CmpOp::Gt => CompareOp::Gt,
        CmpOp::GtE => CompareOp::GtE,
        CmpOp::In | CmpOp::NotIn | CmpOp::Is | CmpOp::IsNot => return None,
    })
}

/// `b == 0` for a divisor (folds for literals).
pub(super) fn is_zero(b: Term) -> std::result::Result<Term, SortError> {
    let zero = if *b.sort() == Sort::Real {
        Term::real(0.0)?
    } else {
        Term::int(0)
    };
    Term::compare(CompareOp::Eq, b, zero)
}
