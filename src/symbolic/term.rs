//! Our own typed term tree: Python-level operators (`//`, `%`, `s[i]`, `s[a:b:c]`, `in`, …)
//! kept as such, so terms print as the Python the user wrote and carry Python semantics to
//! whatever lowers them. No solver types appear here.
//!
//! Terms are immutable and shared (`Arc`), and built only through the constructors below,
//! which check sorts: every `Term` that exists is well-sorted. Constructors fold constants
//! only where that cannot change what a term prints to in a surprising way (`not True`,
//! `-(3)`, `1 < 2`, `and`/`or` with literal operands, `(a, b)[0]`).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use super::chars::{CaseMap, CharTest};
use super::sort::{Equality, SeqKind, Sort};
use super::strfn::StrFn;

/// Largest constant exponent of `**` and count of `*` repetition a term may carry: the
/// lowering multiplies or concatenates that many copies.
pub const MAX_UNROLLED: i64 = 256;

/// Highest code point a string constant may hold: Z3's strings stop at U+2FFFF (4.8 and 5.4 alike).
pub const MAX_CHAR: u32 = 0x2FFFF;

/// The first version of a quantifier's bound variable ([`Var::bound`]).
pub const BOUND_VERSION: u32 = u32::MAX - 1024;

/// A constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    Int(BigInt),
    /// A finite float, denoting its exact (dyadic) value.
    Real(f64),
    Str(String),
}

/// A variable: a base name, an SSA version (0 for inputs) and, for the items of a
/// fixed-length tuple parameter, the item path (`t[0][1]` is path `[0, 1]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var {
    pub name: String,
    pub version: u32,
    pub path: Vec<u32>,
}

/// `+ - * / // %` on numbers (string and sequence `+` is [`TermKind::Concat`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    TrueDiv,
    FloorDiv,
    Mod,
}

/// `== != < <= > >=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
}

/// The node of a term. Read it with [`Term::kind`]; build terms with `Term`'s constructors.
#[derive(Clone, Debug, PartialEq)]
pub enum TermKind {
    Literal(Literal),
    Var(Var),
    /// `-a`
    Neg(Term),
    /// `~a`
    Invert(Term),
    /// `not a` (of a condition).
    Not(Term),
    Arith(ArithOp, Term, Term),
    /// `a ** n` with a constant exponent.
    Pow(Term, i64),
    Compare(CompareOp, Term, Term),
    And(Vec<Term>),
    Or(Vec<Term>),
    /// `then if cond else other`
    Ite(Term, Term, Term),
    Abs(Term),
    Min(Vec<Term>),
    Max(Vec<Term>),
    /// `float(a)`
    ToReal(Term),
    /// `int(a)`: `bool` to 0/1, `float` truncated toward zero.
    ToInt(Term),
    Len(Term),
    /// `seq[index]`, negative indices counting from the end.
    Index(Term, Term),
    /// `seq[lower:upper:step]` with a constant step.
    Slice {
        seq: Term,
        lower: Option<Term>,
        upper: Option<Term>,
        step: Option<i64>,
    },
    /// `needle in container`: a substring, an item of a sequence.
    Contains(Term, Term),
    /// `s.startswith(prefix)`
    StartsWith(Term, Term),
    /// `s.endswith(suffix)`
    EndsWith(Term, Term),
    /// `a + b + …` on strings or sequences.
    Concat(Vec<Term>),
    /// `s * n` with a constant count.
    Repeat(Term, i64),
    /// A list or tuple display, `[a, b]` / `(a, b)`: a fixed-length sequence.
    Items(SeqKind, Vec<Term>),
    /// `all(body for var in range(lo, hi))` (`forall`: ∀var. lo ≤ var < hi → body) or
    /// `any(...)` (∃var. lo ≤ var < hi ∧ body), `var` a bound variable ([`Var::bound`]).
    Quantified {
        forall: bool,
        var: Var,
        lo: Term,
        hi: Term,
        body: Term,
    },
    /// `s.find(sub)`: the first index of `sub` in `s`, or -1.
    Find(Term, Term),
    /// `s.isdigit()` and its kin, over ASCII (see [`crate::symbolic::chars`]).
    CharTest(CharTest, Term),
    /// `s.lower()`, `s.upper()`, `s.swapcase()`, over ASCII.
    CaseMap(CaseMap, Term),
    /// A string method or conversion of [`crate::symbolic::strfn`], with its operands.
    StrFn(StrFn, Vec<Term>),
}

/// Results of work on terms, by term identity ([`Term::id`]), for callers that meet the
/// same shared terms many times (the paths of one function share their constraints). Each
/// term is kept with its result, so that its identity is not reused.
#[derive(Debug)]
pub struct TermMemo<V> {
    done: std::collections::HashMap<usize, (Term, V)>,
}

impl<V> Default for TermMemo<V> {
    fn default() -> Self {
        TermMemo {
            done: std::collections::HashMap::new(),
        }
    }
}

impl<V> TermMemo<V> {
    /// The result of `work` on `t`, computed the first time `t` is met.
    pub fn get_or(&mut self, t: &Term, work: impl FnOnce(&Term) -> V) -> &V {
        &self
            .done
            .entry(t.id())
            .or_insert_with(|| (t.clone(), work(t)))
            .1
    }
}

/// A term whose sorts do not fit its operator.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SortError(pub String);

/// A well-sorted, immutable, shared term.
#[derive(Clone)]
pub struct Term(Arc<Node>);

#[derive(Debug, PartialEq)]
struct Node {
    kind: TermKind,
    sort: Sort,
}

type Built = Result<Term, SortError>;

fn err<T>(message: impl Into<String>) -> Result<T, SortError> {
    Err(SortError(message.into()))
}

impl PartialEq for Term {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.0.kind, self.0.sort)
    }
}

impl Var {
    /// An input variable (version 0).
    pub fn input(name: impl Into<String>) -> Var {
        Var {
            name: name.into(),
            version: 0,
            path: Vec::new(),
        }
    }

    /// The variable bound by a quantifier ([`TermKind::Quantified`]) written `name`, at
    /// nesting `depth` (its version is past every SSA version; it prints as `name`).
    pub fn bound(name: impl Into<String>, depth: u32) -> Var {
        Var {
            name: name.into(),
            version: BOUND_VERSION.saturating_add(depth),
            path: Vec::new(),
        }
    }

    /// Whether a quantifier binds this variable (it is not free: no input, no witness).
    pub fn is_bound(&self) -> bool {
        self.version >= BOUND_VERSION
    }

    /// The Python text: `x`, `x_2` for version 2, `t[0]` for an item of a tuple `t`.
    pub fn display_name(&self) -> String {
        let mut s = self.name.clone();
        if self.version > 0 && !self.is_bound() {
            s.push_str(&format!("_{}", self.version));
        }
        for i in &self.path {
            s.push_str(&format!("[{i}]"));
        }
        s
    }
}

impl CompareOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::NotEq => "!=",
            CompareOp::Lt => "<",
            CompareOp::LtE => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtE => ">=",
        }
    }

    /// The comparison that holds exactly when this one does not, on totally ordered
    /// operands (`<` and `>=`); `==` and `!=` are each other's for any operands.
    pub fn opposite(self) -> CompareOp {
        match self {
            CompareOp::Eq => CompareOp::NotEq,
            CompareOp::NotEq => CompareOp::Eq,
            CompareOp::Lt => CompareOp::GtE,
            CompareOp::LtE => CompareOp::Gt,
            CompareOp::Gt => CompareOp::LtE,
            CompareOp::GtE => CompareOp::Lt,
        }
    }

    fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CompareOp::Eq => ord == Equal,
            CompareOp::NotEq => ord != Equal,
            CompareOp::Lt => ord == Less,
            CompareOp::LtE => ord != Greater,
            CompareOp::Gt => ord == Greater,
            CompareOp::GtE => ord != Less,
        }
    }
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::TrueDiv => "/",
            ArithOp::FloorDiv => "//",
            ArithOp::Mod => "%",
        }
    }
}

impl Term {
    fn make(kind: TermKind, sort: Sort) -> Term {
        Term(Arc::new(Node { kind, sort }))
    }

    pub fn kind(&self) -> &TermKind {
        &self.0.kind
    }

    pub fn sort(&self) -> &Sort {
        &self.0.sort
    }

    /// An identity for memoizing work on shared subterms (stable while the term lives).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The value of a literal.
    pub fn literal(&self) -> Option<&Literal> {
        match self.kind() {
            TermKind::Literal(l) => Some(l),
            _ => None,
        }
    }

    /// The value of an `int` or `bool` literal.
    pub fn int_literal(&self) -> Option<BigInt> {
        match self.literal()? {
            Literal::Int(i) => Some(i.clone()),
            Literal::Bool(b) => Some(BigInt::from(u8::from(*b))),
            _ => None,
        }
    }

    pub fn bool_literal(&self) -> Option<bool> {
        match self.literal()? {
            Literal::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The free variables with their sorts, sorted by variable.
    pub fn vars(&self) -> Vec<(Var, Sort)> {
        let mut found = BTreeMap::new();
        let mut seen = std::collections::HashSet::new();
        self.collect_vars(&mut found, &mut seen);
        found.into_iter().collect()
    }

    fn collect_vars(
        &self,
        found: &mut BTreeMap<Var, Sort>,
        seen: &mut std::collections::HashSet<usize>,
    ) {
        if !seen.insert(self.id()) {
            return;
        }
        if let TermKind::Var(v) = self.kind()
            && !v.is_bound()
        {
            found.insert(v.clone(), self.sort().clone());
        }
        for child in self.children() {
            child.collect_vars(found, seen);
        }
    }

    /// Nodes of the term written out in full, as a printer that does not share subterms
    /// writes it (a shared subterm counts at each use, `x ** n` and `s * n` as `n` copies),
    /// counted up to `cap` (a larger size answers `cap + 1`).
    pub fn written_size(&self, cap: usize) -> usize {
        fn size(t: &Term, cap: usize, memo: &mut std::collections::HashMap<usize, usize>) -> usize {
            if let Some(&n) = memo.get(&t.id()) {
                return n;
            }
            let copies = match t.kind() {
                TermKind::Pow(_, n) | TermKind::Repeat(_, n) => usize::try_from(n.unsigned_abs())
                    .unwrap_or(usize::MAX)
                    .max(1),
                _ => 1,
            };
            let mut n = 1usize;
            for child in t.children() {
                n = n.saturating_add(size(child, cap, memo).saturating_mul(copies));
                if n > cap {
                    break;
                }
            }
            let n = n.min(cap.saturating_add(1));
            memo.insert(t.id(), n);
            n
        }
        size(self, cap, &mut std::collections::HashMap::new())
    }

    /// The direct subterms, in evaluation order.
    pub fn children(&self) -> Vec<&Term> {
        use TermKind::*;
        match self.kind() {
            Literal(_) | Var(_) => vec![],
            Neg(a)
            | Invert(a)
            | Not(a)
            | Pow(a, _)
            | Abs(a)
            | ToReal(a)
            | ToInt(a)
            | Len(a)
            | Repeat(a, _)
            | CharTest(_, a)
            | CaseMap(_, a) => vec![a],
            Arith(_, a, b)
            | Compare(_, a, b)
            | Index(a, b)
            | Contains(a, b)
            | StartsWith(a, b)
            | EndsWith(a, b)
            | Find(a, b) => vec![a, b],
            Ite(c, a, b) => vec![c, a, b],
            And(xs)
            | Or(xs)
            | Min(xs)
            | Max(xs)
            | Concat(xs)
            | Items(_, xs)
            | TermKind::StrFn(_, xs) => xs.iter().collect(),
            Slice {
                seq, lower, upper, ..
            } => std::iter::once(seq)
                .chain(lower.iter())
                .chain(upper.iter())
                .collect(),
            Quantified { lo, hi, body, .. } => vec![lo, hi, body],
        }
    }

    // ---- leaves ----

    pub fn bool(b: bool) -> Term {
        Term::make(TermKind::Literal(Literal::Bool(b)), Sort::Bool)
    }

    pub fn int(i: impl Into<BigInt>) -> Term {
        Term::make(TermKind::Literal(Literal::Int(i.into())), Sort::Int)
    }

    /// A float constant; infinities and NaN have no real value.
    pub fn real(x: f64) -> Built {
        if !x.is_finite() {
            return err(format!("the float {x} has no real value"));
        }
        Ok(Term::make(TermKind::Literal(Literal::Real(x)), Sort::Real))
    }

    /// A string constant (code points up to U+2FFFF, Z3's limit).
    pub fn str(s: impl Into<String>) -> Built {
        let s = s.into();
        if let Some(c) = s.chars().find(|c| *c as u32 > MAX_CHAR) {
            return err(format!(
                "the character U+{:X} is beyond what the solver's strings hold (U+{MAX_CHAR:X})",
                c as u32
            ));
        }
        Ok(Term::make(TermKind::Literal(Literal::Str(s)), Sort::Str))
    }

    /// A variable of a scalar or sequence sort (fixed-length tuples are `Items` of
    /// variables, see [`Term::input`]).
    pub fn var(var: Var, sort: Sort) -> Built {
        check_storable(&sort)?;
        Ok(Term::make(TermKind::Var(var), sort))
    }

    /// The term for a variable of any sort: a `Fixed` sort becomes the display of one
    /// variable per item (`t[0]`, `t[1]`).
    pub fn input(var: Var, sort: &Sort) -> Built {
        match sort {
            Sort::Fixed(kind, items) => {
                let parts = items
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let mut v = var.clone();
                        v.path.push(i as u32);
                        Term::input(v, s)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Term::items(*kind, parts)
            }
            _ => Term::var(var, sort.clone()),
        }
    }

    // ---- numbers ----

    /// `-a`; folds literals.
    #[allow(clippy::should_implement_trait)] // fallible, so not `std::ops::Neg`
    pub fn neg(a: Term) -> Built {
        if let Some(l) = a.literal() {
            match l {
                Literal::Int(i) => return Ok(Term::int(-i)),
                Literal::Bool(b) => return Ok(Term::int(-i64::from(*b))),
                Literal::Real(x) => return Term::real(-x),
                Literal::Str(_) => {}
            }
        }
        let sort = numeric(&a, "unary -")?;
        Ok(Term::make(TermKind::Neg(a), sort))
    }

    /// `~a` on `int` or `bool`.
    pub fn invert(a: Term) -> Built {
        if !matches!(a.sort(), Sort::Int | Sort::Bool) {
            return err(format!("bad operand type for unary ~: '{}'", a.sort()));
        }
        if let Some(i) = a.int_literal() {
            return Ok(Term::int(-i - 1));
        }
        Ok(Term::make(TermKind::Invert(a), Sort::Int))
    }

    pub fn arith(op: ArithOp, a: Term, b: Term) -> Built {
        let Some(sort) = Sort::arithmetic(a.sort(), b.sort()) else {
            return err(format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                op.symbol(),
                a.sort(),
                b.sort()
            ));
        };
        let sort = if op == ArithOp::TrueDiv {
            Sort::Real
        } else {
            sort
        };
        Ok(Term::make(TermKind::Arith(op, a, b), sort))
    }

    /// `a ** n`: an `int` for an integral base and `n >= 0`, a `float` otherwise.
    pub fn pow(a: Term, n: i64) -> Built {
        if n.abs() > MAX_UNROLLED {
            return err(format!("exponent {n} is beyond {MAX_UNROLLED}"));
        }
        let base = numeric(&a, "**")?;
        let sort = if base == Sort::Int && n >= 0 {
            Sort::Int
        } else {
            Sort::Real
        };
        Ok(Term::make(TermKind::Pow(a, n), sort))
    }

    pub fn abs(a: Term) -> Built {
        let sort = numeric(&a, "abs()")?;
        Ok(Term::make(TermKind::Abs(a), sort))
    }

    pub fn min(args: Vec<Term>) -> Built {
        let sort = extremum_sort(&args, "min")?;
        Ok(Term::make(TermKind::Min(args), sort))
    }

    pub fn max(args: Vec<Term>) -> Built {
        let sort = extremum_sort(&args, "max")?;
        Ok(Term::make(TermKind::Max(args), sort))
    }

    /// `float(a)` of a number (a `float` is returned as is).
    pub fn to_real(a: Term) -> Built {
        numeric(&a, "float()")?;
        if *a.sort() == Sort::Real {
            return Ok(a);
        }
        Ok(Term::make(TermKind::ToReal(a), Sort::Real))
    }

    /// `int(a)` of a number (an `int` is returned as is).
    pub fn to_int(a: Term) -> Built {
        numeric(&a, "int()")?;
        if *a.sort() == Sort::Int {
            return Ok(a);
        }
        Ok(Term::make(TermKind::ToInt(a), Sort::Int))
    }

    // ---- conditions ----

    /// `a op b`. `==`/`!=` accept any sorts with an encoded meaning (unrelated sorts are
    /// never equal); ordering needs two numbers or two strings. Literals fold.
    pub fn compare(op: CompareOp, a: Term, b: Term) -> Built {
        let ordering = !matches!(op, CompareOp::Eq | CompareOp::NotEq);
        if ordering {
            let ok = (a.sort().is_numeric() && b.sort().is_numeric())
                || (*a.sort() == Sort::Str && *b.sort() == Sort::Str);
            if !ok {
                return err(format!(
                    "'{}' not supported between instances of '{}' and '{}'",
                    op.symbol(),
                    a.sort(),
                    b.sort()
                ));
            }
        } else if Sort::equality(a.sort(), b.sort()) == Equality::Unsupported {
            return err(format!(
                "comparing '{}' with '{}' is not supported",
                a.sort(),
                b.sort()
            ));
        }
        if let (Some(x), Some(y)) = (a.literal(), b.literal())
            && let Some(ord) = literal_order(x, y)
        {
            return Ok(Term::bool(op.holds(ord)));
        }
        Ok(Term::make(TermKind::Compare(op, a, b), Sort::Bool))
    }

    /// `not a` of a condition; folds literals and double negation.
    #[allow(clippy::should_implement_trait)] // fallible, so not `std::ops::Not`
    pub fn not(a: Term) -> Built {
        expect_bool(&a, "not")?;
        if let Some(b) = a.bool_literal() {
            return Ok(Term::bool(!b));
        }
        if let TermKind::Not(inner) = a.kind() {
            return Ok(inner.clone());
        }
        Ok(Term::make(TermKind::Not(a), Sort::Bool))
    }

    /// The conjunction of conditions: flattened, `True` dropped, `False` absorbing.
    pub fn and(args: Vec<Term>) -> Built {
        Term::connective(args, true)
    }

    /// The disjunction of conditions: flattened, `False` dropped, `True` absorbing.
    pub fn or(args: Vec<Term>) -> Built {
        Term::connective(args, false)
    }

    fn connective(args: Vec<Term>, is_and: bool) -> Built {
        let mut flat = Vec::with_capacity(args.len());
        for a in args {
            expect_bool(&a, if is_and { "and" } else { "or" })?;
            match (a.bool_literal(), a.kind()) {
                (Some(b), _) if b == is_and => {}
                (Some(_), _) => return Ok(Term::bool(!is_and)),
                (_, TermKind::And(xs)) if is_and => flat.extend(xs.iter().cloned()),
                (_, TermKind::Or(xs)) if !is_and => flat.extend(xs.iter().cloned()),
                _ => flat.push(a),
            }
        }
        Ok(match flat.len() {
            0 => Term::bool(is_and),
            1 => flat.remove(0),
            _ if is_and => Term::make(TermKind::And(flat), Sort::Bool),
            _ => Term::make(TermKind::Or(flat), Sort::Bool),
        })
    }

    /// `then if cond else other`: the branches join (`1 if c else 2.5` is a `float`).
    pub fn ite(cond: Term, then: Term, other: Term) -> Built {
        expect_bool(&cond, "a conditional expression")?;
        let Some(sort) = Sort::join(then.sort(), other.sort()) else {
            return err(format!(
                "the branches of a conditional expression have unrelated sorts '{}' and '{}'",
                then.sort(),
                other.sort()
            ));
        };
        match cond.bool_literal() {
            Some(true) if *then.sort() == sort => Ok(then),
            Some(false) if *other.sort() == sort => Ok(other),
            _ => Ok(Term::make(TermKind::Ite(cond, then, other), sort)),
        }
    }

    /// Python's truth value of `a` as a condition: `x != 0`, `s != ''`, `len(xs) > 0`.
    pub fn truthy(a: Term) -> Built {
        match a.sort().clone() {
            Sort::Bool => Ok(a),
            Sort::Int => Term::compare(CompareOp::NotEq, a, Term::int(0)),
            Sort::Real => Term::compare(CompareOp::NotEq, a, Term::real(0.0)?),
            Sort::Str => Term::compare(CompareOp::NotEq, a, Term::str("")?),
            Sort::Seq(..) => Term::compare(CompareOp::Gt, Term::len(a)?, Term::int(0)),
            Sort::Fixed(_, items) => Ok(Term::bool(!items.is_empty())),
        }
    }

    // ---- strings and sequences ----

    pub fn len(a: Term) -> Built {
        if !a.sort().is_sized() {
            return err(format!("object of type '{}' has no len()", a.sort()));
        }
        Ok(Term::make(TermKind::Len(a), Sort::Int))
    }

    /// `seq[index]`. A literal index into a display folds to the item.
    pub fn index(seq: Term, index: Term) -> Built {
        expect_index(&index, "indices")?;
        let sort = match seq.sort() {
            Sort::Str => Sort::Str,
            Sort::Seq(_, item) => (**item).clone(),
            Sort::Fixed(kind, items) => match index.int_literal() {
                Some(i) => {
                    let Some(at) = normalize(&i, items.len()) else {
                        return err(kind.index_out_of_range().to_string());
                    };
                    if let TermKind::Items(_, parts) = seq.kind() {
                        return Ok(parts[at].clone());
                    }
                    items[at].clone()
                }
                None => match seq.sort().item_sort() {
                    Some(s) => s,
                    None => {
                        return err(format!(
                            "a variable index into '{}' (items of unrelated sorts)",
                            seq.sort()
                        ));
                    }
                },
            },
            other => return err(format!("'{other}' object is not subscriptable")),
        };
        Ok(Term::make(TermKind::Index(seq, index), sort))
    }

    /// `seq[lower:upper:step]`; the step is a constant (0 raises `ValueError` when run).
    pub fn slice(seq: Term, lower: Option<Term>, upper: Option<Term>, step: Option<i64>) -> Built {
        for bound in lower.iter().chain(upper.iter()) {
            expect_index(bound, "slice indices")?;
        }
        let sort = match seq.sort() {
            Sort::Str | Sort::Seq(..) => seq.sort().clone(),
            Sort::Fixed(_, items) if items.is_empty() => seq.sort().clone(),
            Sort::Fixed(kind, items) => {
                let lit = |b: &Option<Term>| match b {
                    None => Some(None),
                    Some(t) => t.int_literal().map(Some),
                };
                match (lit(&lower), lit(&upper)) {
                    (Some(l), Some(u)) => {
                        let picked = slice_positions(items.len(), l, u, step.unwrap_or(1));
                        Sort::Fixed(
                            *kind,
                            picked.into_iter().map(|i| items[i].clone()).collect(),
                        )
                    }
                    _ => match seq.sort().item_sort() {
                        Some(item) => Sort::Seq(*kind, Box::new(item)),
                        None => {
                            return err(format!(
                                "slicing '{}' (items of unrelated sorts) with variable bounds",
                                seq.sort()
                            ));
                        }
                    },
                }
            }
            other => return err(format!("'{other}' object is not subscriptable")),
        };
        Ok(Term::make(
            TermKind::Slice {
                seq,
                lower,
                upper,
                step,
            },
            sort,
        ))
    }

    /// `needle in container`.
    pub fn contains(needle: Term, container: Term) -> Built {
        let ok = match container.sort() {
            Sort::Str => *needle.sort() == Sort::Str,
            Sort::Seq(_, item) => {
                !matches!(
                    Sort::equality(needle.sort(), item),
                    Equality::Unsupported | Equality::BothEmpty
                ) && !matches!(needle.sort(), Sort::Fixed(..))
            }
            Sort::Fixed(_, items) => items
                .iter()
                .all(|s| Sort::equality(needle.sort(), s) != Equality::Unsupported),
            _ => false,
        };
        if !ok {
            return err(format!(
                "'in <{}>' with a '{}' operand is not supported",
                container.sort(),
                needle.sort()
            ));
        }
        Ok(Term::make(
            TermKind::Contains(needle, container),
            Sort::Bool,
        ))
    }

    pub fn starts_with(s: Term, prefix: Term) -> Built {
        expect_strs(&s, &prefix, "startswith")?;
        Ok(Term::make(TermKind::StartsWith(s, prefix), Sort::Bool))
    }

    pub fn ends_with(s: Term, suffix: Term) -> Built {
        expect_strs(&s, &suffix, "endswith")?;
        Ok(Term::make(TermKind::EndsWith(s, suffix), Sort::Bool))
    }

    /// `s.find(sub)`; of a sequence and an item of its item sort, the first index of the
    /// item or -1 (how a dict's value is found by its key, [`crate::symbolic::seqmap`]).
    pub fn find(s: Term, sub: Term) -> Built {
        let item_of_seq = matches!(s.sort(), Sort::Seq(_, item) if **item == *sub.sort());
        if !item_of_seq {
            expect_strs(&s, &sub, "find")?;
        }
        Ok(Term::make(TermKind::Find(s, sub), Sort::Int))
    }

    /// `s.isdigit()` and its kin.
    pub fn char_test(test: CharTest, s: Term) -> Built {
        expect_strs(&s, &s, test.method())?;
        Ok(Term::make(TermKind::CharTest(test, s), Sort::Bool))
    }

    /// `s.lower()`, `s.upper()`, `s.swapcase()`.
    pub fn case_map(map: CaseMap, s: Term) -> Built {
        expect_strs(&s, &s, map.method())?;
        Ok(Term::make(TermKind::CaseMap(map, s), Sort::Str))
    }

    /// A method or conversion of [`crate::symbolic::strfn`]; `str(n)`, `chr(i)` and the
    /// count of `s * k` take an int (a `bool` is converted), the others strs.
    pub fn str_fn(f: StrFn, args: Vec<Term>) -> Built {
        if args.len() != f.arity() {
            return err(format!("{f:?} takes {} operand(s)", f.arity()));
        }
        let wants_int = |i: usize| match f {
            StrFn::FromInt | StrFn::Chr => true,
            StrFn::Repeat => i == 1,
            _ => false,
        };
        let mut checked = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            checked.push(match (wants_int(i), a.sort()) {
                (true, Sort::Int) | (false, Sort::Str) => a,
                (true, Sort::Bool) => Term::to_int(a)?,
                (_, other) => return err(format!("{f:?} of a '{other}'")),
            });
        }
        let sort = match f {
            StrFn::Count | StrFn::RFind | StrFn::ToInt | StrFn::Ord => Sort::Int,
            StrFn::IsInt | StrFn::SplitAtLeast(..) => Sort::Bool,
            _ => Sort::Str,
        };
        Ok(Term::make(TermKind::StrFn(f, checked), sort))
    }

    /// `a + b + …` of strings, or of sequences of one kind (displays join a sequence whose
    /// item sort they match).
    pub fn concat(parts: Vec<Term>) -> Built {
        let Some(first) = parts.first() else {
            return err("nothing to concatenate");
        };
        let sort = parts[1..].iter().try_fold(first.sort().clone(), |acc, p| {
            concat_sort(&acc, p.sort()).ok_or_else(|| {
                SortError(format!(
                    "can only concatenate {acc} (not \"{}\") to {acc}",
                    p.sort()
                ))
            })
        })?;
        if !sort.is_sized() {
            return err(format!(
                "'+' of '{sort}' values is arithmetic, not concatenation"
            ));
        }
        Ok(Term::make(TermKind::Concat(parts), sort))
    }

    /// `seq * n` for a constant `n` (`n <= 0` gives an empty value).
    pub fn repeat(seq: Term, n: i64) -> Built {
        if n > MAX_UNROLLED {
            return err(format!("repetition count {n} is beyond {MAX_UNROLLED}"));
        }
        let sort = match seq.sort() {
            Sort::Str | Sort::Seq(..) => seq.sort().clone(),
            Sort::Fixed(kind, items) => {
                let times = usize::try_from(n.max(0)).unwrap_or(0);
                Sort::Fixed(
                    *kind,
                    items
                        .iter()
                        .cycle()
                        .take(items.len() * times)
                        .cloned()
                        .collect(),
                )
            }
            other => {
                return err(format!(
                    "can't multiply sequence by non-int of type '{other}'"
                ));
            }
        };
        Ok(Term::make(TermKind::Repeat(seq, n), sort))
    }

    /// `all(body for var in range(lo, hi))` (`forall`) or `any(...)`: `var` must be a
    /// bound variable ([`Var::bound`]) of sort `int`, `body` a condition.
    pub fn quantified(forall: bool, var: Var, lo: Term, hi: Term, body: Term) -> Built {
        if !var.is_bound() {
            return err(format!("{} is not a bound variable", var.display_name()));
        }
        expect_index(&lo, "a quantifier's lower bound")?;
        expect_index(&hi, "a quantifier's upper bound")?;
        expect_bool(&body, "a quantifier's body")?;
        if let Some(b) = body.bool_literal()
            && b == forall
        {
            return Ok(Term::bool(forall));
        }
        Ok(Term::make(
            TermKind::Quantified {
                forall,
                var,
                lo,
                hi,
                body,
            },
            Sort::Bool,
        ))
    }

    /// A list or tuple display.
    pub fn items(kind: SeqKind, items: Vec<Term>) -> Built {
        let sorts = items.iter().map(|t| t.sort().clone()).collect();
        Ok(Term::make(
            TermKind::Items(kind, items),
            Sort::Fixed(kind, sorts),
        ))
    }
}

/// The positions `range(len)[lower:upper:step]` picks (Python's `slice.indices`).
pub fn slice_positions(
    len: usize,
    lower: Option<BigInt>,
    upper: Option<BigInt>,
    step: i64,
) -> Vec<usize> {
    if step == 0 {
        return Vec::new();
    }
    let n = BigInt::from(len);
    let adjust = |v: Option<BigInt>, default: BigInt, lo: BigInt, hi: BigInt| match v {
        None => default,
        Some(v) if v.is_negative() => (v + &n).max(lo),
        Some(v) => v.min(hi),
    };
    let (start, stop) = if step > 0 {
        (
            adjust(lower, BigInt::zero(), BigInt::zero(), n.clone()),
            adjust(upper, n.clone(), BigInt::zero(), n.clone()),
        )
    } else {
        let last: BigInt = &n - 1;
        (
            adjust(lower, last.clone(), BigInt::from(-1), last.clone()),
            adjust(upper, BigInt::from(-1), BigInt::from(-1), last),
        )
    };
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        if let Some(p) = i.to_usize() {
            out.push(p);
        }
        i += step;
    }
    out
}

/// Where a literal index lands in a sequence of `len` items, if in range.
fn normalize(i: &BigInt, len: usize) -> Option<usize> {
    let n = BigInt::from(len);
    let at = if i.is_negative() { i + &n } else { i.clone() };
    (!at.is_negative() && at < n)
        .then(|| at.to_usize())
        .flatten()
}

fn literal_order(x: &Literal, y: &Literal) -> Option<std::cmp::Ordering> {
    use Literal::*;
    let exact = |l: &Literal| -> Option<(BigInt, BigInt)> {
        match l {
            Bool(b) => Some((BigInt::from(u8::from(*b)), BigInt::from(1))),
            Int(i) => Some((i.clone(), BigInt::from(1))),
            Real(f) => float_ratio(*f),
            Str(_) => None,
        }
    };
    match (x, y) {
        (Str(a), Str(b)) => Some(a.chars().cmp(b.chars())),
        _ => {
            let (an, ad) = exact(x)?;
            let (bn, bd) = exact(y)?;
            Some((an * bd).cmp(&(bn * ad)))
        }
    }
}

/// The exact value of a finite float as `numerator / denominator` (`denominator > 0`),
/// like Python's `float.as_integer_ratio`.
pub fn float_ratio(x: f64) -> Option<(BigInt, BigInt)> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some((BigInt::zero(), BigInt::from(1)));
    }
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exp) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent - 1075)
    };
    let tz = mantissa.trailing_zeros() as i64;
    let (mantissa, exp) = (mantissa >> tz, exp + tz);
    let mut num = BigInt::from(mantissa);
    let mut den = BigInt::from(1);
    if exp >= 0 {
        num <<= exp as usize;
    } else {
        den <<= (-exp) as usize;
    }
    Some((if negative { -num } else { num }, den))
}

fn numeric(a: &Term, what: &str) -> Result<Sort, SortError> {
    match a.sort() {
        Sort::Bool | Sort::Int => Ok(Sort::Int),
        Sort::Real => Ok(Sort::Real),
        other => err(format!("bad operand type for {what}: '{other}'")),
    }
}

fn expect_bool(a: &Term, what: &str) -> Result<(), SortError> {
    if *a.sort() == Sort::Bool {
        Ok(())
    } else {
        err(format!(
            "{what} needs a condition, not a '{}' (apply Term::truthy)",
            a.sort()
        ))
    }
}

fn expect_index(a: &Term, what: &str) -> Result<(), SortError> {
    if matches!(a.sort(), Sort::Int | Sort::Bool) {
        Ok(())
    } else {
        err(format!("{what} must be integers, not '{}'", a.sort()))
    }
}

fn expect_strs(s: &Term, arg: &Term, method: &str) -> Result<(), SortError> {
    if *s.sort() == Sort::Str && *arg.sort() == Sort::Str {
        Ok(())
    } else {
        err(format!(
            "{method} needs str operands, not '{}' and '{}'",
            s.sort(),
            arg.sort()
        ))
    }
}

/// Sequence sorts a variable can have: no `Fixed` at any depth.
fn check_storable(sort: &Sort) -> Result<(), SortError> {
    match sort {
        Sort::Fixed(..) => err(format!(
            "a variable of sort '{sort}' is an Items term of its item variables"
        )),
        Sort::Seq(_, item) => check_storable(item),
        _ => Ok(()),
    }
}

fn extremum_sort(args: &[Term], name: &str) -> Result<Sort, SortError> {
    let Some(first) = args.first() else {
        return err(format!("{name} expected at least 1 argument, got 0"));
    };
    let sort = args[1..].iter().try_fold(first.sort().clone(), |acc, a| {
        Sort::join(&acc, a.sort())
            .ok_or_else(|| SortError(format!("{name}() of '{acc}' and '{}'", a.sort())))
    })?;
    match sort {
        Sort::Bool | Sort::Int | Sort::Real | Sort::Str => Ok(sort),
        other => err(format!("{name}() of '{other}' values is not supported")),
    }
}

fn concat_sort(a: &Sort, b: &Sort) -> Option<Sort> {
    match (a, b) {
        (Sort::Str, Sort::Str) => Some(Sort::Str),
        (Sort::Fixed(ka, xs), Sort::Fixed(kb, ys)) if ka == kb => {
            Some(Sort::Fixed(*ka, xs.iter().chain(ys).cloned().collect()))
        }
        (Sort::Seq(ka, x), Sort::Seq(kb, y)) if ka == kb && x == y => Some(a.clone()),
        (Sort::Seq(ks, item), Sort::Fixed(kf, items))
        | (Sort::Fixed(kf, items), Sort::Seq(ks, item))
            if ks == kf && items.iter().all(|s| s.fits(item)) =>
        {
            Some(Sort::Seq(*ks, item.clone()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Term {
        Term::var(Var::input("x"), Sort::Int).unwrap()
    }

    #[test]
    fn constructors_check_sorts() {
        let s = Term::var(Var::input("s"), Sort::Str).unwrap();
        assert!(Term::arith(ArithOp::Add, x(), s.clone()).is_err());
        assert!(Term::compare(CompareOp::Lt, x(), s.clone()).is_err());
        assert!(Term::compare(CompareOp::Eq, x(), s.clone()).is_ok());
        assert!(Term::not(x()).is_err());
        assert!(Term::index(x(), Term::int(0)).is_err());
        assert!(Term::index(s.clone(), s.clone()).is_err());
        assert_eq!(
            *Term::arith(ArithOp::TrueDiv, x(), x()).unwrap().sort(),
            Sort::Real
        );
        assert_eq!(*Term::pow(x(), -1).unwrap().sort(), Sort::Real);
        assert_eq!(*Term::pow(x(), 2).unwrap().sort(), Sort::Int);
        assert!(Term::str("\u{10FFFF}").is_err());
        assert!(Term::real(f64::INFINITY).is_err());
        let fixed = Sort::Fixed(SeqKind::Tuple, vec![Sort::Int]);
        assert!(Term::var(Var::input("t"), fixed).is_err());
    }

    #[test]
    fn constants_fold() {
        let t = Term::and(vec![
            Term::bool(true),
            Term::compare(CompareOp::Lt, Term::int(1), Term::int(2)).unwrap(),
        ])
        .unwrap();
        assert_eq!(t.bool_literal(), Some(true));
        assert_eq!(
            Term::neg(Term::int(3)).unwrap().int_literal(),
            Some(BigInt::from(-3))
        );
        let c = Term::compare(CompareOp::Eq, Term::real(0.5).unwrap(), Term::int(1)).unwrap();
        assert_eq!(c.bool_literal(), Some(false));
        let pair = Term::items(SeqKind::Tuple, vec![x(), Term::int(7)]).unwrap();
        assert_eq!(Term::index(pair.clone(), Term::int(-2)).unwrap(), x());
        assert!(Term::index(pair, Term::int(2)).is_err());
    }

    #[test]
    fn slice_positions_match_python() {
        // list(range(6))[1::2], [::-1], [-4:], [6:3:-2], [10:-10:-3]
        let p = |l: Option<i64>, u: Option<i64>, s: i64| {
            slice_positions(6, l.map(BigInt::from), u.map(BigInt::from), s)
        };
        assert_eq!(p(Some(1), None, 2), vec![1, 3, 5]);
        assert_eq!(p(None, None, -1), vec![5, 4, 3, 2, 1, 0]);
        assert_eq!(p(Some(-4), None, 1), vec![2, 3, 4, 5]);
        assert_eq!(p(Some(6), Some(3), -2), vec![5]);
        assert_eq!(p(Some(10), Some(-10), -3), vec![5, 2]);
    }

    #[test]
    fn float_ratio_is_exact() {
        assert_eq!(float_ratio(0.5), Some((BigInt::from(1), BigInt::from(2))));
        assert_eq!(float_ratio(-3.0), Some((BigInt::from(-3), BigInt::from(1))));
        let (n, d) = float_ratio(0.1).unwrap();
        assert_eq!(
            (n.to_string(), d.to_string()),
            ("3602879701896397".into(), "36028797018963968".into())
        );
    }
}
