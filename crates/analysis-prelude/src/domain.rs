//! Abstract domains of int values: what `%absint NAME f`, `%lattice NAME` and
//! `%check-domain NAME` run once [`crate::register_domain`] has registered one.
//!
//! The kernel's own engine does the abstract interpretation (assignments, arithmetic, branch
//! refinement, widening at loop heads); it calls the domain's operations over the kernel's
//! socket. `⊥` operands never reach the operators (the kernel's operators are strict).

use std::fmt::Debug;
use std::hash::Hash;

/// An arithmetic operator of Python ints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
}

impl BinOp {
    /// The operator's name on the wire (`add`, `sub`, `mul`, `floordiv`, `mod`).
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::FloorDiv => "floordiv",
            BinOp::Mod => "mod",
        }
    }

    /// The operator called `name`.
    pub fn from_name(name: &str) -> Option<BinOp> {
        [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::FloorDiv,
            BinOp::Mod,
        ]
        .into_iter()
        .find(|o| o.name() == name)
    }
}

/// A comparison, for branch refinement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    /// The operator as Python writes it (`<`, `<=`, …).
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }

    /// The comparison written `symbol`.
    pub fn from_symbol(symbol: &str) -> Option<Cmp> {
        [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne]
            .into_iter()
            .find(|c| c.symbol() == symbol)
    }
}

/// An abstract domain: a lattice of abstract ints with sound operators.
///
/// Only `bottom`, `top`, `leq`, `join` and `abstract_int` are required; every other method has a
/// sound default (`⊤` for operators, no refinement, `contains` through `abstract_int`).
///
/// ```
/// use analysis_prelude::prelude::*;
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// enum Sign { Bot, Neg, Zero, Pos, Top }
///
/// impl Domain for Sign {
///     fn bottom() -> Self { Sign::Bot }
///     fn top() -> Self { Sign::Top }
///     fn leq(&self, other: &Self) -> bool {
///         self == other || *self == Sign::Bot || *other == Sign::Top
///     }
///     fn join(&self, other: &Self) -> Self {
///         if self.leq(other) { other.clone() } else if other.leq(self) { self.clone() } else { Sign::Top }
///     }
///     fn abstract_int(n: i64) -> Self {
///         match n.signum() { -1 => Sign::Neg, 0 => Sign::Zero, _ => Sign::Pos }
///     }
///     fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
///         match (op, a, b) {
///             (BinOp::Mul, Sign::Zero, _) | (BinOp::Mul, _, Sign::Zero) => Sign::Zero,
///             (BinOp::Add, x, y) if x == y => x.clone(),
///             _ => Sign::Top,
///         }
///     }
/// }
///
/// assert_eq!(Sign::abstract_int(-3).join(&Sign::abstract_int(4)), Sign::Top);
/// assert!(Sign::Pos.contains(7) && !Sign::Pos.contains(0));
/// assert_eq!(Sign::binary(BinOp::Add, &Sign::Pos, &Sign::Pos), Sign::Pos);
/// ```
pub trait Domain: Clone + Debug + Eq + Hash + Send + 'static {
    /// `⊥`: no value (unreachable).
    fn bottom() -> Self;
    /// `⊤`: any value.
    fn top() -> Self;
    /// The order: `γ(self) ⊆ γ(other)`.
    fn leq(&self, other: &Self) -> bool;
    /// The least upper bound.
    fn join(&self, other: &Self) -> Self;
    /// The most precise element containing the int `n`.
    fn abstract_int(n: i64) -> Self;

    /// A lower bound of both (by default the smaller one, or `self`: an over-approximation
    /// of the meet, which is sound for refinement).
    fn meet(&self, other: &Self) -> Self {
        if other.leq(self) {
            other.clone()
        } else {
            self.clone()
        }
    }
    /// Widening at loop heads (by default the join: enough for finite-height domains).
    fn widen(&self, next: &Self) -> Self {
        self.join(next)
    }
    /// Whether `n ∈ γ(self)` (by default `abstract_int(n) ⊑ self`).
    fn contains(&self, n: i64) -> bool {
        Self::abstract_int(n).leq(self)
    }
    /// The abstraction of an int beyond `i64` (Python's ints are unbounded; `digits` is its
    /// decimal text, with `-` when negative); by default `⊤`.
    fn abstract_big(_digits: &str) -> Self {
        Self::top()
    }
    /// Whether the int beyond `i64` written `digits` is in `γ(self)`; by default only `⊤`
    /// says yes, so a domain whose operators can produce such ints (`*` of two large ints)
    /// should override it (and [`Domain::abstract_big`]) to pass `%check-domain`.
    fn contains_big(&self, _digits: &str) -> bool {
        *self == Self::top()
    }
    /// A sound `a op b` (never called with `⊥`); by default `⊤`.
    fn binary(_op: BinOp, _a: &Self, _b: &Self) -> Self {
        Self::top()
    }
    /// A sound `-a`; by default `⊤`.
    fn negate(&self) -> Self {
        Self::top()
    }
    /// The values of `self` for which `self op other` can hold; by default `self`.
    fn refine(&self, _op: Cmp, _other: &Self) -> Self {
        self.clone()
    }
    /// Every element, for `%lattice` and the law checks, when the domain is finite.
    fn elements() -> Option<Vec<Self>> {
        None
    }
    /// How views show the element (by default its `Debug`).
    fn show(&self) -> String {
        format!("{self:?}")
    }
}
