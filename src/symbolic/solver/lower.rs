//! Terms to Z3 with Python's semantics, where Z3's own operators differ:
//!
//! * `//` and `%` on ints: Z3's `div`/`mod` are Euclidean (the remainder is never negative),
//!   Python floors (the remainder takes the divisor's sign). For `b > 0` the two agree; for
//!   `b < 0`, `a // b == (-a) div (-b)` and `a % b == -((-a) mod (-b))`.
//! * `//` and `%` on floats: `floor(a / b)` and `a - b * floor(a / b)` over the reals.
//! * indexing normalizes negative indices (`s[i]` is `str.at(s, i + len(s))` for `i < 0`);
//!   out-of-range values are arbitrary, the translation's raise conditions cover them.
//! * slices: see `slice`.
//! * `==` across sorts follows [`Sort::equality`]; numbers promote `bool` < `int` < `float`.
//!
//! Shared subterms are lowered once (memoized by term identity).
//!
//! Length abstraction (see `lengths`): in a condition, `len(v)` of a str or sequence
//! variable is a fresh Int `len!v`; only a condition that uses `v` itself links the two.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use num_bigint::BigInt;
use num_traits::ToPrimitive;
use z3::ast::{self, Ast};

use super::SolverError;
use super::lengths;
use super::slice;
use crate::symbolic::sort::{Equality, Sort};
use crate::symbolic::strfn::StrFn;
use crate::symbolic::term::{ArithOp, CompareOp, Literal, Term, TermKind, Var, float_ratio};

pub(super) type Result<T> = std::result::Result<T, SolverError>;

/// Whether `t` mentions a quantifier's bound variable.
fn has_bound(t: &Term) -> bool {
    match t.kind() {
        TermKind::Var(v) => v.is_bound(),
        _ => t.children().into_iter().any(has_bound),
    }
}

/// Most values a quantifier is expanded over when it is evaluated in a model.
const MAX_EXPANDED: i64 = 100_000;

/// A lowered term: one Z3 term, or one per item of a fixed-length sequence.
#[derive(Clone, Debug)]
pub(super) enum Z {
    Bool(ast::Bool),
    Int(ast::Int),
    Real(ast::Real),
    Str(ast::String),
    Seq(ast::Seq),
    Fixed(Vec<Z>),
}

pub(super) struct Lowerer<'a> {
    /// Set when lowering a term to evaluate it in this model (slices are then unrolled to
    /// the model's lengths, see `slice`).
    model: Option<&'a z3::Model>,
    /// Keyed by term identity (an index into `lowered`); the term is kept so that its
    /// address is not reused by another term while the entry lives (a dropped temporary's
    /// address can be).
    memo: HashMap<usize, usize>,
    /// The lowered terms in the order lowered. Their Z3 terms are released in this order when
    /// the lowering is dropped: Z3 reuses the ids of released terms, and its search (hence
    /// the model it answers) depends on ids, so a hash order here made `%concolic`'s inputs
    /// differ from run to run.
    lowered: Vec<(Term, Z)>,
    /// Definitions of the auxiliary constants introduced, to assert with the term.
    pub definitions: Vec<ast::Bool>,
    /// The length abstraction's facts (`len!v >= 0`, `len(v) == len!v`), asserted with the
    /// term like `definitions`; kept apart because they never mention a quantifier's
    /// variable (a quantifier's body may add them).
    lengths: Vec<ast::Bool>,
    /// Variables whose `len!v >= 0` (`abstracted`) or link (`linked`) is in `lengths`.
    abstracted: HashSet<String>,
    linked: HashSet<String>,
    /// Quantified variables whose range starts at a literal `>= 0`, being lowered: an index
    /// by one needs no wrap-around for negative values (which Z3's instantiation of the
    /// quantifier does not see through).
    nonneg: HashSet<String>,
    /// `v` is ASCII, for each string variable `v` a character test or case map reads (see
    /// `symbolic::chars`), asserted with the term; `ascii_vars` names them.
    ascii: Vec<ast::Bool>,
    ascii_vars: HashSet<String>,
}

pub(super) fn internal(what: impl Into<String>) -> SolverError {
    SolverError::Internal(what.into())
}

impl Z {
    pub fn into_bool(self) -> Result<ast::Bool> {
        match self {
            Z::Bool(b) => Ok(b),
            other => Err(internal(format!("expected a bool, got {other:?}"))),
        }
    }

    pub fn into_int(self) -> Result<ast::Int> {
        match self {
            Z::Int(i) => Ok(i),
            Z::Bool(b) => Ok(b.ite(&ast::Int::from_i64(1), &ast::Int::from_i64(0))),
            other => Err(internal(format!("expected an int, got {other:?}"))),
        }
    }

    pub fn into_real(self) -> Result<ast::Real> {
        match self {
            Z::Real(r) => Ok(r),
            Z::Int(i) => Ok(i.to_real()),
            Z::Bool(b) => Ok(b.ite(
                &ast::Real::from_rational(1, 1),
                &ast::Real::from_rational(0, 1),
            )),
            other => Err(internal(format!("expected a float, got {other:?}"))),
        }
    }

    pub fn into_str(self) -> Result<ast::String> {
        match self {
            Z::Str(s) => Ok(s),
            other => Err(internal(format!("expected a str, got {other:?}"))),
        }
    }

    pub fn into_seq(self) -> Result<ast::Seq> {
        match self {
            Z::Seq(s) => Ok(s),
            other => Err(internal(format!("expected a sequence, got {other:?}"))),
        }
    }

    /// The one-item sequence of a scalar.
    pub fn unit(&self) -> Result<ast::Seq> {
        Ok(match self {
            Z::Bool(x) => ast::Seq::unit(x),
            Z::Int(x) => ast::Seq::unit(x),
            Z::Real(x) => ast::Seq::unit(x),
            Z::Str(x) => ast::Seq::unit(x),
            Z::Seq(x) => ast::Seq::unit(x),
            Z::Fixed(_) => return Err(internal("a fixed-length sequence as a sequence item")),
        })
    }

    /// A sequence item (`seq.nth`) read back at the item sort.
    pub fn from_dynamic(d: ast::Dynamic, sort: &Sort) -> Result<Z> {
        let bad = || internal(format!("a sequence item is not a {sort}"));
        Ok(match sort {
            Sort::Bool => Z::Bool(d.as_bool().ok_or_else(bad)?),
            Sort::Int => Z::Int(d.as_int().ok_or_else(bad)?),
            Sort::Real => Z::Real(d.as_real().ok_or_else(bad)?),
            Sort::Str => Z::Str(d.as_string().ok_or_else(bad)?),
            Sort::Seq(..) => Z::Seq(d.as_seq().ok_or_else(bad)?),
            Sort::Fixed(..) => return Err(bad()),
        })
    }

    /// `if c then self else other` for two values lowered at the same sort.
    pub fn ite(c: &ast::Bool, a: Z, b: Z) -> Result<Z> {
        Ok(match (a, b) {
            (Z::Bool(x), Z::Bool(y)) => Z::Bool(c.ite(&x, &y)),
            (Z::Int(x), Z::Int(y)) => Z::Int(c.ite(&x, &y)),
            (Z::Real(x), Z::Real(y)) => Z::Real(c.ite(&x, &y)),
            (Z::Str(x), Z::Str(y)) => Z::Str(c.ite(&x, &y)),
            (Z::Seq(x), Z::Seq(y)) => {
                if x.get_sort() != y.get_sort() {
                    return Err(internal("branches of different sequence sorts"));
                }
                Z::Seq(c.ite(&x, &y))
            }
            (Z::Fixed(xs), Z::Fixed(ys)) if xs.len() == ys.len() => Z::Fixed(
                xs.into_iter()
                    .zip(ys)
                    .map(|(x, y)| Z::ite(c, x, y))
                    .collect::<Result<_>>()?,
            ),
            (a, b) => return Err(internal(format!("branches {a:?} and {b:?} differ in sort"))),
        })
    }
}

/// The Z3 sort of a (non-fixed) sort.
pub(super) fn z3_sort(sort: &Sort) -> Result<z3::Sort> {
    Ok(match sort {
        Sort::Bool => z3::Sort::bool(),
        Sort::Int => z3::Sort::int(),
        Sort::Real => z3::Sort::real(),
        Sort::Str => z3::Sort::string(),
        Sort::Seq(_, item) => z3::Sort::seq(&z3_sort(item)?),
        Sort::Fixed(..) => return Err(internal("a fixed-length sequence has no single Z3 sort")),
    })
}

/// The Z3 name of a variable: `x`, `x@2` for version 2, `t[0]` for a tuple item.
pub(super) fn smt_name(v: &Var) -> String {
    let mut s = v.name.clone();
    if v.version > 0 {
        s.push_str(&format!("@{}", v.version));
    }
    for i in &v.path {
        s.push_str(&format!("[{i}]"));
    }
    s
}

pub(super) fn int_const(i: &BigInt) -> Result<ast::Int> {
    match i.to_i64() {
        Some(small) => Ok(ast::Int::from_i64(small)),
        None => {
            ast::Int::from_str(&i.to_string()).map_err(|()| internal(format!("the integer {i}")))
        }
    }
}

fn real_const(x: f64) -> Result<ast::Real> {
    let (n, d) = float_ratio(x).ok_or_else(|| internal(format!("the float {x}")))?;
    ast::Real::from_rational_str(&n.to_string(), &d.to_string())
        .ok_or_else(|| internal(format!("the float {x}")))
}

/// A Z3 string constant: backslashes and characters outside printable ASCII are written as
/// `\u{…}` escapes, which `Z3_mk_string` decodes.
pub(super) fn str_const(s: &str) -> Result<ast::String> {
    let mut escaped = String::with_capacity(s.len());
    for c in s.chars() {
        let code = c as u32;
        if c == '\\' || !(0x20..0x7f).contains(&code) {
            escaped.push_str(&format!("\\u{{{code:x}}}"));
        } else {
            escaped.push(c);
        }
    }
    ast::String::from_str(&escaped).map_err(|_| internal("a string constant"))
}

fn product_int(x: &ast::Int, n: usize) -> ast::Int {
    match n {
        0 => ast::Int::from_i64(1),
        1 => x.clone(),
        _ => ast::Int::mul(&vec![x; n]),
    }
}

fn product_real(x: &ast::Real, n: usize) -> ast::Real {
    match n {
        0 => ast::Real::from_rational(1, 1),
        1 => x.clone(),
        _ => ast::Real::mul(&vec![x; n]),
    }
}

fn safe_eq<T: Ast>(a: &T, b: &T) -> Result<ast::Bool> {
    eq_dyn(&ast::Dynamic::from_ast(a), &ast::Dynamic::from_ast(b))
}

fn eq_dyn(a: &ast::Dynamic, b: &ast::Dynamic) -> Result<ast::Bool> {
    a.safe_eq(b)
        .map_err(|e| internal(format!("equality of different sorts: {e:?}")))
}

impl<'a> Lowerer<'a> {
    /// A lowering for assertions.
    pub fn new() -> Lowerer<'a> {
        Lowerer {
            model: None,
            memo: HashMap::new(),
            lowered: Vec::new(),
            definitions: Vec::new(),
            lengths: Vec::new(),
            abstracted: HashSet::new(),
            linked: HashSet::new(),
            nonneg: HashSet::new(),
            ascii: Vec::new(),
            ascii_vars: HashSet::new(),
        }
    }

    /// Every fact to assert with the lowered term: the definitions, then the length
    /// abstraction's facts.
    pub fn all_definitions(&self) -> Vec<ast::Bool> {
        self.definitions
            .iter()
            .chain(&self.lengths)
            .chain(&self.ascii)
            .cloned()
            .collect()
    }

    /// Constrains each string variable of `s` to ASCII (not when evaluating in a model).
    fn assume_ascii(&mut self, s: &Term) -> Result<()> {
        if self.model.is_some() {
            return Ok(());
        }
        for (v, sort) in s.vars() {
            if sort == Sort::Str && self.ascii_vars.insert(smt_name(&v)) {
                let z = ast::String::new_const(smt_name(&v));
                self.ascii.push(super::strings::ascii(&z)?);
            }
        }
        Ok(())
    }

    /// A method or conversion of [`crate::symbolic::strfn`]; in a model, Python's result on
    /// the operands' values (Z3's model evaluation leaves fresh constants and quantifiers
    /// unreduced).
    fn str_fn(&mut self, f: &StrFn, args: &[Term]) -> Result<Z> {
        use crate::python::PyValue;
        if let Some(model) = self.model {
            let mut values = Vec::with_capacity(args.len());
            for a in args {
                let z = self.lower(a)?;
                values.push(match super::convert::value(model, &z, a.sort())? {
                    PyValue::Str(s) => Literal::Str(s),
                    PyValue::Int(i) => Literal::Int(i),
                    PyValue::Bool(b) => Literal::Bool(b),
                    other => return Err(internal(format!("{other:?} as an operand of {f:?}"))),
                });
            }
            let refs: Vec<&Literal> = values.iter().collect();
            // `None`: Python raises there (the raise conditions say so); any value will do.
            let value = match (f.eval(&refs), f) {
                (Some(Literal::Str(s)), _) => Term::str(s).map_err(|e| internal(e.0))?,
                (Some(Literal::Int(i)), _) => Term::int(i),
                (Some(Literal::Bool(b)), _) => Term::bool(b),
                (_, StrFn::IsInt | StrFn::SplitAtLeast(..)) => Term::bool(false),
                (_, StrFn::Count | StrFn::RFind | StrFn::ToInt | StrFn::Ord) => Term::int(0),
                _ => Term::str("").map_err(|e| internal(e.0))?,
            };
            return self.lower(&value);
        }
        if matches!(f, StrFn::ToInt | StrFn::IsInt) {
            for a in args {
                self.assume_ascii(a)?;
            }
        }
        let text = |i: usize| match args.get(i).and_then(Term::literal) {
            Some(Literal::Str(s)) => Some(s.as_str()),
            _ => None,
        };
        let mut zs = Vec::with_capacity(args.len());
        for a in args {
            zs.push(self.lower(a)?);
        }
        let str_at = |i: usize| -> Result<ast::String> {
            zs.get(i)
                .cloned()
                .ok_or_else(|| internal("an operand"))?
                .into_str()
        };
        let int_at = |i: usize| -> Result<ast::Int> {
            zs.get(i)
                .cloned()
                .ok_or_else(|| internal("an operand"))?
                .into_int()
        };
        let defs = &mut self.definitions;
        use super::{split as sp, strings as st};
        Ok(match f {
            StrFn::Strip(side, chars) => Z::Str(st::strip(
                *side,
                &StrFn::strip_set(chars.as_deref()),
                &str_at(0)?,
                defs,
            )?),
            StrFn::Count => Z::Int(st::count(&str_at(0)?, &str_at(1)?, text(1))?),
            StrFn::RFind => Z::Int(st::rfind(&str_at(0)?, &str_at(1)?, defs)?),
            StrFn::Partition(right, i) => {
                Z::Str(st::partition(*right, *i, &str_at(0)?, &str_at(1)?, defs)?)
            }
            StrFn::Replace(old) => Z::Str(st::replace(&str_at(0)?, old, &str_at(1)?)?),
            StrFn::FromInt => Z::Str(st::from_int(&int_at(0)?, defs)?),
            StrFn::ToInt => Z::Int(st::to_int(&str_at(0)?, defs)?),
            StrFn::IsInt => Z::Bool(st::is_int(&str_at(0)?)?),
            StrFn::Chr => Z::Str(st::chr(&int_at(0)?, defs)?),
            StrFn::Ord => Z::Int(st::ord(&str_at(0)?)?),
            StrFn::Repeat => Z::Str(st::repeat(&str_at(0)?, text(0), &int_at(1)?, defs)?),
            StrFn::SplitItem(sep, i) => Z::Str(sp::item(&str_at(0)?, sep.as_deref(), *i, defs)?),
            StrFn::SplitAtLeast(sep, k) => Z::Bool(sp::at_least(&str_at(0)?, sep.as_deref(), *k)?),
            StrFn::SplitRest(sep, k) => Z::Str(sp::rest(&str_at(0)?, sep.as_deref(), *k, defs)?),
        })
    }

    /// A lowering for evaluating terms in `model`.
    pub fn evaluating(model: &'a z3::Model) -> Lowerer<'a> {
        Lowerer {
            model: Some(model),
            ..Lowerer::new()
        }
    }

    pub fn model(&self) -> Option<&'a z3::Model> {
        self.model
    }

    pub fn boolean(&mut self, t: &Term) -> Result<ast::Bool> {
        self.lower(t)?.into_bool()
    }

    pub fn int(&mut self, t: &Term) -> Result<ast::Int> {
        self.lower(t)?.into_int()
    }

    pub fn real(&mut self, t: &Term) -> Result<ast::Real> {
        self.lower(t)?.into_real()
    }

    pub fn lower(&mut self, t: &Term) -> Result<Z> {
        if let Some((_, z)) = self.memo.get(&t.id()).and_then(|&k| self.lowered.get(k)) {
            return Ok(z.clone());
        }
        let z = self.node(t)?;
        self.memo.insert(t.id(), self.lowered.len());
        self.lowered.push((t.clone(), z.clone()));
        Ok(z)
    }

    /// Lowers `t` and converts it to `sort` (numbers promote, displays become sequences).
    pub fn lower_as(&mut self, t: &Term, sort: &Sort) -> Result<Z> {
        let z = self.lower(t)?;
        coerce(z, t.sort(), sort)
    }

    fn node(&mut self, t: &Term) -> Result<Z> {
        let sort = t.sort();
        Ok(match t.kind() {
            TermKind::Literal(l) => match l {
                Literal::Bool(b) => Z::Bool(ast::Bool::from_bool(*b)),
                Literal::Int(i) => Z::Int(int_const(i)?),
                Literal::Real(x) => Z::Real(real_const(*x)?),
                Literal::Str(s) => Z::Str(str_const(s)?),
            },
            TermKind::Var(v) => {
                let name = smt_name(v);
                let z = match sort {
                    Sort::Bool => Z::Bool(ast::Bool::new_const(name)),
                    Sort::Int => Z::Int(ast::Int::new_const(name)),
                    Sort::Real => Z::Real(ast::Real::new_const(name)),
                    Sort::Str => Z::Str(ast::String::new_const(name)),
                    Sort::Seq(_, item) => Z::Seq(ast::Seq::new_const(name, &z3_sort(item)?)),
                    Sort::Fixed(..) => return Err(internal("a variable of a fixed-length sort")),
                };
                if !lengths::abstracts(v, sort) {
                    return Ok(z);
                }
                match self.model {
                    Some(model) => lengths::read(model, v, sort, z)?,
                    None => {
                        if self.linked.insert(smt_name(v)) {
                            self.lengths.push(lengths::link(v, &z)?);
                        }
                        z
                    }
                }
            }
            TermKind::Neg(a) => match sort {
                Sort::Real => Z::Real(self.real(a)?.unary_minus()),
                _ => Z::Int(self.int(a)?.unary_minus()),
            },
            TermKind::Invert(a) => {
                let x = self.int(a)?;
                Z::Int(ast::Int::sub(&[&x.unary_minus(), &ast::Int::from_i64(1)]))
            }
            TermKind::Not(a) => Z::Bool(self.boolean(a)?.not()),
            TermKind::Arith(op, a, b) => self.arith(*op, a, b, sort)?,
            TermKind::Pow(a, n) => self.pow(a, *n, sort)?,
            TermKind::Compare(op, a, b) => Z::Bool(self.compare(*op, a, b)?),
            TermKind::And(xs) | TermKind::Or(xs) => {
                let parts = xs
                    .iter()
                    .map(|x| self.boolean(x))
                    .collect::<Result<Vec<_>>>()?;
                let refs: Vec<&ast::Bool> = parts.iter().collect();
                match t.kind() {
                    TermKind::And(_) => Z::Bool(ast::Bool::and(&refs)),
                    _ => Z::Bool(ast::Bool::or(&refs)),
                }
            }
            TermKind::Ite(c, a, b) => {
                let c = self.boolean(c)?;
                let (x, y) = (self.lower_as(a, sort)?, self.lower_as(b, sort)?);
                Z::ite(&c, x, y)?
            }
            TermKind::Abs(a) => match sort {
                Sort::Real => {
                    let x = self.real(a)?;
                    Z::Real(
                        x.lt(ast::Real::from_rational(0, 1))
                            .ite(&x.unary_minus(), &x),
                    )
                }
                _ => {
                    let x = self.int(a)?;
                    Z::Int(x.lt(ast::Int::from_i64(0)).ite(&x.unary_minus(), &x))
                }
            },
            TermKind::Min(xs) => self.extremum(xs, sort, true)?,
            TermKind::Max(xs) => self.extremum(xs, sort, false)?,
            TermKind::ToReal(a) => Z::Real(self.real(a)?),
            TermKind::ToInt(a) => match a.sort() {
                Sort::Real => {
                    // Truncation toward zero; Z3's to_int floors.
                    let x = self.real(a)?;
                    let zero = ast::Real::from_rational(0, 1);
                    Z::Int(
                        x.ge(&zero)
                            .ite(&x.to_int(), &x.unary_minus().to_int().unary_minus()),
                    )
                }
                _ => Z::Int(self.int(a)?),
            },
            TermKind::Len(a) => self.len(a)?,
            TermKind::Index(s, i) => self.index(s, i, sort)?,
            TermKind::Slice { .. } => slice::lower(self, t)?,
            TermKind::Contains(needle, hay) => Z::Bool(self.contains(needle, hay)?),
            TermKind::StartsWith(s, p) => {
                let (s, p) = (self.lower(s)?.into_str()?, self.lower(p)?.into_str()?);
                Z::Bool(p.prefix(&s))
            }
            TermKind::EndsWith(s, p) => {
                let (s, p) = (self.lower(s)?.into_str()?, self.lower(p)?.into_str()?);
                Z::Bool(p.suffix(&s))
            }
            TermKind::Find(s, p) => match (self.lower(s)?, self.lower(p)?) {
                (Z::Seq(s), item) => Z::Int(super::strings::seq_index(&s, &item.unit()?)?),
                (s, p) => Z::Int(super::strings::find(&s.into_str()?, &p.into_str()?)?),
            },
            TermKind::CharTest(test, s) => {
                self.assume_ascii(s)?;
                Z::Bool(super::strings::char_test(
                    *test,
                    &self.lower(s)?.into_str()?,
                )?)
            }
            TermKind::CaseMap(map, s) => {
                self.assume_ascii(s)?;
                let z = self.lower(s)?.into_str()?;
                match self.model {
                    // Z3's model evaluation leaves `seq.map` of a lambda unreduced: map the
                    // receiver's value here.
                    Some(model) => {
                        let text = match super::convert::value(model, &Z::Str(z), &Sort::Str)? {
                            crate::python::PyValue::Str(text) => text,
                            other => return Err(internal(format!("{other:?} as a str"))),
                        };
                        let mapped = map.eval(&text).ok_or_else(|| {
                            SolverError::Unsupported(format!(
                                ".{}() of the non-ASCII string {text:?}",
                                map.method()
                            ))
                        })?;
                        Z::Str(str_const(&mapped)?)
                    }
                    None => Z::Str(super::strings::case_map(*map, &z)?),
                }
            }
            TermKind::StrFn(f, args) => self.str_fn(f, args)?,
            TermKind::Concat(parts) => {
                let zs = parts
                    .iter()
                    .map(|p| self.lower_concat_part(p, sort))
                    .collect::<Result<Vec<_>>>()?;
                concat(zs, sort)?
            }
            TermKind::Repeat(a, n) => {
                let copies = usize::try_from((*n).max(0)).unwrap_or(0);
                let z = self.lower(a)?;
                concat(vec![z; copies], sort)?
            }
            TermKind::Items(_, items) => {
                Z::Fixed(items.iter().map(|i| self.lower(i)).collect::<Result<_>>()?)
            }
            TermKind::Quantified {
                forall,
                var,
                lo,
                hi,
                body,
            } => Z::Bool(self.quantified(*forall, var, lo, hi, body)?),
        })
    }

    /// `∀k. lo ≤ k < hi → body` (`forall`) or `∃k. lo ≤ k < hi ∧ body` as a Z3
    /// quantifier; in a model, the finite conjunction (disjunction) over the model's range.
    fn quantified(
        &mut self,
        forall: bool,
        var: &Var,
        lo: &Term,
        hi: &Term,
        body: &Term,
    ) -> Result<ast::Bool> {
        let k = ast::Int::new_const(smt_name(var));
        let (lo_term, hi_term) = (lo, hi);
        let (lo, hi) = (self.int(lo)?, self.int(hi)?);
        let before = self.definitions.len();
        let nonneg = lo_term
            .int_literal()
            .is_some_and(|v| v.sign() != num_bigint::Sign::Minus)
            && self.nonneg.insert(smt_name(var));
        let b = self.boolean(body);
        if nonneg {
            self.nonneg.remove(&smt_name(var));
        }
        let b = b?;
        if self.definitions.len() != before {
            return Err(SolverError::Unsupported(
                "a quantifier whose body needs auxiliary constants (an open slice)".into(),
            ));
        }
        if let Some(model) = self.model {
            if has_bound(lo_term) || has_bound(hi_term) {
                return Err(SolverError::Unsupported(
                    "evaluating a quantifier whose range depends on another's variable".into(),
                ));
            }
            let bound = |x: &ast::Int| {
                super::convert::evaluate(model, x)
                    .and_then(|v| v.as_i64())
                    .ok_or_else(|| internal("a quantifier's bound in a model"))
            };
            let (l, h) = (bound(&lo)?, bound(&hi)?);
            if h.saturating_sub(l) > MAX_EXPANDED {
                return Err(SolverError::Unsupported(format!(
                    "evaluating a quantifier over more than {MAX_EXPANDED} values"
                )));
            }
            let parts: Vec<ast::Bool> = (l..h.max(l))
                .map(|v| b.substitute(&[(&k, &ast::Int::from_i64(v))]))
                .collect();
            let refs: Vec<&ast::Bool> = parts.iter().collect();
            return Ok(if forall {
                ast::Bool::and(&refs)
            } else {
                ast::Bool::or(&refs)
            });
        }
        let range = ast::Bool::and(&[&lo.le(&k), &k.lt(&hi)]);
        let body = if forall {
            range.implies(&b)
        } else {
            ast::Bool::and(&[&range, &b])
        };
        // Weight 1, Z3's own default: the crate's `forall_const` passes 0, with which Z3's
        // instantiation did not decide `find`'s invariant (5.4).
        let name = smt_name(var);
        Ok(ast::quantifier_const(
            forall,
            1,
            format!("q!{name}"),
            format!("sk!{name}"),
            &[&k],
            &[],
            &[],
            &body,
        ))
    }

    /// A part of a concatenation, at the result's sort when that is a sequence.
    fn lower_concat_part(&mut self, p: &Term, sort: &Sort) -> Result<Z> {
        match sort {
            Sort::Seq(..) => self.lower_as(p, sort),
            _ => self.lower(p),
        }
    }

    fn arith(&mut self, op: ArithOp, a: &Term, b: &Term, sort: &Sort) -> Result<Z> {
        if op == ArithOp::TrueDiv || *sort == Sort::Real {
            let (x, y) = (self.real(a)?, self.real(b)?);
            let floor = |x: &ast::Real, y: &ast::Real| x.div(y).to_int().to_real();
            return Ok(Z::Real(match op {
                ArithOp::Add => ast::Real::add(&[&x, &y]),
                ArithOp::Sub => ast::Real::sub(&[&x, &y]),
                ArithOp::Mul => ast::Real::mul(&[&x, &y]),
                ArithOp::TrueDiv => x.div(&y),
                ArithOp::FloorDiv => floor(&x, &y),
                ArithOp::Mod => ast::Real::sub(&[&x, &ast::Real::mul(&[&y, &floor(&x, &y)])]),
            }));
        }
        let (x, y) = (self.int(a)?, self.int(b)?);
        Ok(Z::Int(match op {
            ArithOp::Add => ast::Int::add(&[&x, &y]),
            ArithOp::Sub => ast::Int::sub(&[&x, &y]),
            ArithOp::Mul => ast::Int::mul(&[&x, &y]),
            ArithOp::FloorDiv | ArithOp::Mod => {
                let floor_div = op == ArithOp::FloorDiv;
                // Euclidean and floored division agree for a positive divisor.
                let positive = if floor_div { x.div(&y) } else { x.modulo(&y) };
                let (nx, ny) = (x.unary_minus(), y.unary_minus());
                let negative = if floor_div {
                    nx.div(&ny)
                } else {
                    nx.modulo(&ny).unary_minus()
                };
                match b.int_literal().map(|v| v.sign()) {
                    Some(num_bigint::Sign::Plus) => positive,
                    Some(num_bigint::Sign::Minus) => negative,
                    _ => y.gt(ast::Int::from_i64(0)).ite(&positive, &negative),
                }
            }
            ArithOp::TrueDiv => return Err(internal("true division at int sort")),
        }))
    }

    fn pow(&mut self, a: &Term, n: i64, sort: &Sort) -> Result<Z> {
        let times = usize::try_from(n.unsigned_abs()).map_err(|_| internal("exponent"))?;
        if *sort == Sort::Int {
            return Ok(Z::Int(product_int(&self.int(a)?, times)));
        }
        let p = product_real(&self.real(a)?, times);
        Ok(Z::Real(if n < 0 {
            ast::Real::from_rational(1, 1).div(&p)
        } else {
            p
        }))
    }

    fn compare(&mut self, op: CompareOp, a: &Term, b: &Term) -> Result<ast::Bool> {
        match op {
            CompareOp::Eq => return self.equal(a, b),
            CompareOp::NotEq => return Ok(self.equal(a, b)?.not()),
            _ => {}
        }
        if *a.sort() == Sort::Str {
            let (x, y) = (self.lower(a)?.into_str()?, self.lower(b)?.into_str()?);
            return Ok(match op {
                CompareOp::Lt => x.str_lt(&y),
                CompareOp::LtE => x.str_le(&y),
                CompareOp::Gt => y.str_lt(&x),
                _ => y.str_le(&x),
            });
        }
        if *a.sort() == Sort::Real || *b.sort() == Sort::Real {
            let (x, y) = (self.real(a)?, self.real(b)?);
            return Ok(match op {
                CompareOp::Lt => x.lt(&y),
                CompareOp::LtE => x.le(&y),
                CompareOp::Gt => x.gt(&y),
                _ => x.ge(&y),
            });
        }
        let (x, y) = (self.int(a)?, self.int(b)?);
        Ok(match op {
            CompareOp::Lt => x.lt(&y),
            CompareOp::LtE => x.le(&y),
            CompareOp::Gt => x.gt(&y),
            _ => x.ge(&y),
        })
    }

    fn equal(&mut self, a: &Term, b: &Term) -> Result<ast::Bool> {
        let (x, y) = (self.lower(a)?, self.lower(b)?);
        equal_values(x, a.sort(), y, b.sort())
    }

    fn extremum(&mut self, xs: &[Term], sort: &Sort, is_min: bool) -> Result<Z> {
        let mut iter = xs.iter();
        let first = iter.next().ok_or_else(|| internal("min/max of nothing"))?;
        let mut best = self.lower_as(first, sort)?;
        for x in iter {
            let z = self.lower_as(x, sort)?;
            // Python keeps the earlier of equal values: `min` takes a later one only when
            // it is strictly smaller.
            let better = less(&z, &best, sort, is_min)?;
            best = Z::ite(&better, z, best)?;
        }
        Ok(best)
    }

    fn len(&mut self, a: &Term) -> Result<Z> {
        if let (TermKind::Var(v), None) = (a.kind(), self.model)
            && lengths::abstracts(v, a.sort())
        {
            let n = lengths::constant(v);
            if self.abstracted.insert(smt_name(v)) {
                self.lengths.push(n.ge(ast::Int::from_i64(0)));
            }
            return Ok(Z::Int(n));
        }
        Ok(Z::Int(match self.lower(a)? {
            Z::Str(s) => s.length(),
            Z::Seq(s) => s.length(),
            Z::Fixed(items) => ast::Int::from_u64(items.len() as u64),
            other => return Err(internal(format!("len of {other:?}"))),
        }))
    }

    /// `len(s) + i` for a negative `i`, else `i`.
    pub fn normalized_index(&mut self, i: &Term, len: &ast::Int) -> Result<ast::Int> {
        let x = self.int(i)?;
        if let TermKind::Var(v) = i.kind()
            && self.nonneg.contains(&smt_name(v))
        {
            return Ok(x);
        }
        Ok(match i.int_literal().map(|v| v.sign()) {
            Some(num_bigint::Sign::Minus) => ast::Int::add(&[len, &x]),
            Some(_) => x,
            None => x
                .lt(ast::Int::from_i64(0))
                .ite(&ast::Int::add(&[len, &x]), &x),
        })
    }

    fn index(&mut self, s: &Term, i: &Term, sort: &Sort) -> Result<Z> {
        match self.lower(s)? {
            Z::Str(x) => {
                let at = self.normalized_index(i, &x.length())?;
                Ok(Z::Str(x.at(&at)))
            }
            Z::Seq(x) => {
                let at = self.normalized_index(i, &x.length())?;
                Z::from_dynamic(x.nth(&at), sort)
            }
            Z::Fixed(items) => {
                let n = items.len() as i64;
                let Sort::Fixed(_, sorts) = s.sort() else {
                    return Err(internal("fixed value of a non-fixed sort"));
                };
                let parts = items
                    .into_iter()
                    .zip(sorts)
                    .map(|(z, from)| coerce(z, from, sort))
                    .collect::<Result<Vec<_>>>()?;
                if let Some(k) = i.int_literal().and_then(|v| v.to_i64()) {
                    let at = if k < 0 { k + n } else { k };
                    return usize::try_from(at)
                        .ok()
                        .and_then(|at| parts.get(at).cloned())
                        .ok_or_else(|| internal("fixed index out of range"));
                }
                let at = self.normalized_index(i, &ast::Int::from_i64(n))?;
                let mut iter = parts.into_iter().enumerate().rev();
                let (_, mut value) = iter.next().ok_or_else(|| internal("index into ()"))?;
                for (k, part) in iter {
                    let hit = at.eq(ast::Int::from_i64(k as i64));
                    value = Z::ite(&hit, part, value)?;
                }
                Ok(value)
            }
            other => Err(internal(format!("index into {other:?}"))),
        }
    }

    fn contains(&mut self, needle: &Term, hay: &Term) -> Result<ast::Bool> {
        let x = self.lower(needle)?;
        if let Some(Literal::Str(text)) = hay.literal()
            && text.chars().count() <= SMALL_HAYSTACK
        {
            return in_literal(&x.into_str()?, text);
        }
        match (self.lower(hay)?, hay.sort()) {
            (Z::Str(h), _) => Ok(h.contains(&x.into_str()?)),
            (Z::Fixed(items), Sort::Fixed(_, sorts)) => {
                let eqs = items
                    .into_iter()
                    .zip(sorts)
                    .map(|(item, s)| equal_values(x.clone(), needle.sort(), item, s))
                    .collect::<Result<Vec<_>>>()?;
                Ok(ast::Bool::or(&eqs.iter().collect::<Vec<_>>()))
            }
            (Z::Seq(h), Sort::Seq(_, item)) => seq_contains(&h, x, needle.sort(), item),
            (other, _) => Err(internal(format!("membership in {other:?}"))),
        }
    }
}

/// Longest string literal whose `in` is lowered as equalities with its substrings.
const SMALL_HAYSTACK: usize = 16;

/// `x in "aeiou"`: `x` equals one of the literal's substrings (the empty one included). The
/// same set of strings as `str.contains("aeiou", x)`, as equalities with constants, which Z3
/// decides at once where its string theory's search for a symbolic needle took seconds per
/// query (`count_vowels`).
fn in_literal(x: &ast::String, text: &str) -> Result<ast::Bool> {
    let chars: Vec<char> = text.chars().collect();
    let mut subs: Vec<String> = vec![String::new()];
    for i in 0..chars.len() {
        for j in i + 1..=chars.len() {
            subs.push(chars[i..j].iter().collect());
        }
    }
    subs.sort();
    subs.dedup();
    let eqs = subs
        .iter()
        .map(|u| safe_eq(x, &str_const(u)?))
        .collect::<Result<Vec<_>>>()?;
    Ok(ast::Bool::or(&eqs.iter().collect::<Vec<_>>()))
}

/// `a < b` (`is_min`) or `a > b` at a common sort.
fn less(a: &Z, b: &Z, sort: &Sort, is_min: bool) -> Result<ast::Bool> {
    let (x, y) = if is_min { (a, b) } else { (b, a) };
    Ok(match (x, y, sort) {
        (Z::Str(x), Z::Str(y), _) => x.str_lt(y),
        (x, y, Sort::Real) => x.clone().into_real()?.lt(&y.clone().into_real()?),
        (x, y, _) => x.clone().into_int()?.lt(&y.clone().into_int()?),
    })
}

/// `needle in seq` for a sequence with items of `item` sort.
fn seq_contains(seq: &ast::Seq, needle: Z, needle_sort: &Sort, item: &Sort) -> Result<ast::Bool> {
    let has = |z: Z| -> Result<ast::Bool> { Ok(seq.contains(&z.unit()?)) };
    if needle_sort == item {
        return has(needle);
    }
    match Sort::equality(needle_sort, item) {
        Equality::Never => Ok(ast::Bool::from_bool(false)),
        Equality::Numeric => match item {
            Sort::Real => has(Z::Real(needle.into_real()?)),
            Sort::Int if *needle_sort == Sort::Real => {
                // `2.0 in [2]` holds; `2.5 in [2]` does not.
                let x = needle.into_real()?;
                Ok(x.is_int()
                    .ite(&has(Z::Int(x.to_int()))?, &ast::Bool::from_bool(false)))
            }
            Sort::Int => has(Z::Int(needle.into_int()?)),
            _ => {
                // Items are bools: only 0 and 1 can be equal to one.
                let x = needle.into_real()?;
                let is = |v: i32, b: bool| -> Result<ast::Bool> {
                    Ok(ast::Bool::and(&[
                        &x.eq(ast::Real::from_rational(v.into(), 1)),
                        &has(Z::Bool(ast::Bool::from_bool(b)))?,
                    ]))
                };
                Ok(ast::Bool::or(&[&is(1, true)?, &is(0, false)?]))
            }
        },
        other => Err(internal(format!("membership with {other:?} equality"))),
    }
}

/// Python's `==` between two lowered values of the given sorts.
pub(super) fn equal_values(x: Z, sx: &Sort, y: Z, sy: &Sort) -> Result<ast::Bool> {
    match Sort::equality(sx, sy) {
        Equality::Same => match (x, y) {
            (Z::Bool(a), Z::Bool(b)) => safe_eq(&a, &b),
            (Z::Int(a), Z::Int(b)) => safe_eq(&a, &b),
            (Z::Real(a), Z::Real(b)) => safe_eq(&a, &b),
            (Z::Str(a), Z::Str(b)) => safe_eq(&a, &b),
            (Z::Seq(a), Z::Seq(b)) => safe_eq(&a, &b),
            (a, b) => Err(internal(format!("equality of {a:?} and {b:?}"))),
        },
        Equality::Numeric => {
            if *sx == Sort::Real || *sy == Sort::Real {
                safe_eq(&x.into_real()?, &y.into_real()?)
            } else {
                safe_eq(&x.into_int()?, &y.into_int()?)
            }
        }
        Equality::Never => Ok(ast::Bool::from_bool(false)),
        Equality::BothEmpty => {
            let zero = ast::Int::from_i64(0);
            let (a, b) = (x.into_seq()?, y.into_seq()?);
            Ok(ast::Bool::and(&[
                &a.length().eq(&zero),
                &b.length().eq(&zero),
            ]))
        }
        Equality::Itemwise => itemwise_equal(x, sx, y, sy),
        Equality::Unsupported => Err(SolverError::Unsupported(format!("'{sx}' == '{sy}'"))),
    }
}

fn itemwise_equal(x: Z, sx: &Sort, y: Z, sy: &Sort) -> Result<ast::Bool> {
    let and = |eqs: Vec<ast::Bool>| ast::Bool::and(&eqs.iter().collect::<Vec<_>>());
    match (x, sx, y, sy) {
        (Z::Fixed(xs), Sort::Fixed(_, xsorts), Z::Fixed(ys), Sort::Fixed(_, ysorts)) => {
            if xs.len() != ys.len() {
                return Ok(ast::Bool::from_bool(false));
            }
            let eqs = xs
                .into_iter()
                .zip(xsorts)
                .zip(ys.into_iter().zip(ysorts))
                .map(|((a, sa), (b, sb))| equal_values(a, sa, b, sb))
                .collect::<Result<Vec<_>>>()?;
            Ok(and(eqs))
        }
        (Z::Fixed(xs), Sort::Fixed(_, xsorts), Z::Seq(s), Sort::Seq(_, item))
        | (Z::Seq(s), Sort::Seq(_, item), Z::Fixed(xs), Sort::Fixed(_, xsorts)) => {
            if xsorts
                .iter()
                .any(|x| Sort::equality(x, item) == Equality::Never)
            {
                return Ok(ast::Bool::from_bool(false));
            }
            // The display as a sequence when every item converts exactly (Z3 reasons better
            // about `s == [a] ++ [b]` than about `len(s) == 2 and s[0] == a and s[1] == b`).
            let exact = |x: &Sort| {
                x == &**item || **item == Sort::Real || (*x == Sort::Bool && **item == Sort::Int)
            };
            if xsorts.iter().all(exact) {
                let whole = Sort::Fixed(crate::symbolic::sort::SeqKind::List, xsorts.clone());
                let as_seq =
                    coerce(Z::Fixed(xs), &whole, &Sort::list((**item).clone()))?.into_seq()?;
                return safe_eq(&s, &as_seq);
            }
            let mut eqs = vec![s.length().eq(ast::Int::from_u64(xs.len() as u64))];
            for (k, (a, sa)) in xs.into_iter().zip(xsorts).enumerate() {
                let b = Z::from_dynamic(s.nth(ast::Int::from_u64(k as u64)), item)?;
                eqs.push(equal_values(a, sa, b, item)?);
            }
            Ok(and(eqs))
        }
        _ => Err(internal("itemwise equality of non-sequences")),
    }
}

/// Converts a lowered value from one sort to another that holds it.
pub(super) fn coerce(z: Z, from: &Sort, to: &Sort) -> Result<Z> {
    if from == to {
        return Ok(z);
    }
    Ok(match (to, z, from) {
        (Sort::Int, z, _) => Z::Int(z.into_int()?),
        (Sort::Real, z, _) => Z::Real(z.into_real()?),
        (Sort::Seq(_, item), Z::Fixed(parts), Sort::Fixed(_, sorts)) => {
            let units = parts
                .into_iter()
                .zip(sorts)
                .map(|(p, s)| coerce(p, s, item)?.unit())
                .collect::<Result<Vec<_>>>()?;
            match units.len() {
                0 => Z::Seq(ast::Seq::empty(&z3_sort(item)?)),
                1 => Z::Seq(units.into_iter().next().ok_or_else(|| internal("unit"))?),
                _ => Z::Seq(ast::Seq::concat(&units)),
            }
        }
        (Sort::Fixed(_, to_sorts), Z::Fixed(parts), Sort::Fixed(_, from_sorts)) => Z::Fixed(
            parts
                .into_iter()
                .zip(from_sorts.iter().zip(to_sorts))
                .map(|(p, (f, t))| coerce(p, f, t))
                .collect::<Result<_>>()?,
        ),
        (to, z, from) => return Err(internal(format!("{z:?} from {from} to {to}"))),
    })
}

/// The concatenation of values already at the result sort (a string, a sequence, or the
/// items of fixed-length values).
fn concat(parts: Vec<Z>, sort: &Sort) -> Result<Z> {
    match sort {
        Sort::Str => {
            let strs = parts
                .into_iter()
                .map(Z::into_str)
                .collect::<Result<Vec<_>>>()?;
            Ok(Z::Str(match strs.len() {
                0 => str_const("")?,
                1 => strs.into_iter().next().ok_or_else(|| internal("concat"))?,
                _ => ast::String::concat(&strs),
            }))
        }
        Sort::Seq(_, item) => {
            let seqs = parts
                .into_iter()
                .map(Z::into_seq)
                .collect::<Result<Vec<_>>>()?;
            Ok(Z::Seq(match seqs.len() {
                0 => ast::Seq::empty(&z3_sort(item)?),
                1 => seqs.into_iter().next().ok_or_else(|| internal("concat"))?,
                _ => ast::Seq::concat(&seqs),
            }))
        }
        Sort::Fixed(..) => {
            let mut items = Vec::new();
            for p in parts {
                match p {
                    Z::Fixed(xs) => items.extend(xs),
                    other => return Err(internal(format!("concatenating {other:?} to a display"))),
                }
            }
            Ok(Z::Fixed(items))
        }
        other => Err(internal(format!("concatenation at sort {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Check, Solver};
    use super::*;
    use crate::symbolic::term::Var;

    #[test]
    fn modulo_differs_from_z3s_euclidean_mod() {
        // Python: 7 % -3 == -2. Z3's own `mod` is Euclidean: 7 mod -3 == 1.
        let raw = ast::Int::from_i64(7)
            .modulo(ast::Int::from_i64(-3))
            .simplify();
        assert_eq!(raw.as_i64(), Some(1));
        let x = Term::var(Var::input("x"), Sort::Int).unwrap();
        let m = Term::arith(ArithOp::Mod, x.clone(), Term::int(-3)).unwrap();
        let mut s = Solver::default();
        s.assert(&Term::compare(CompareOp::Eq, x, Term::int(7)).unwrap())
            .unwrap();
        let Check::Sat(model) = s.check() else {
            panic!("sat")
        };
        assert_eq!(
            model.value(&m).unwrap(),
            crate::python::PyValue::Int((-2).into())
        );
    }
}
