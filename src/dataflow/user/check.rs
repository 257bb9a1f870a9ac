//! `%check-domain` for a domain written in a cell (a Python class through [`UserElem`], on the
//! interpreter's thread, or a Rust cell's domain through the registry socket): the built-in
//! soundness check ([`check_domain`]), plus what a hand-written domain gets wrong and a
//! built-in cannot: the lattice laws of `leq` and `join` on the enumerated window (with the
//! failing triple), the monotonicity of each operator, and a termination hint for an infinite
//! ascending chain without `widen`. The checks are generic over [`Served`], what both kinds
//! of served domain provide.
//!
//! The window is `elements()` when the class defines it, else the abstractions of small ints
//! and their pairwise joins.

use std::fmt;

use num_bigint::BigInt;

use super::domain::{self, UserElem, method_of};
use crate::cancel::Cancel;
use crate::dataflow::domains::soundness::{
    CheckError, CheckOptions, SoundnessReport, check_domain,
};
use crate::dataflow::domains::{AbstractDomain, BinOp, CmpOp};
use crate::dataflow::lattice::joined;

/// Elements of a window at most (the law checks are cubic in it).
pub const MAX_WINDOW: usize = 24;
/// Elements of a window made from abstractions and joins, at most.
const DERIVED_WINDOW: usize = 16;
/// Second operands each monotonicity pair is tried with, at most.
const OTHERS: usize = 10;
/// Steps of the ascending chain tried for the termination hint.
const CHAIN: i64 = 40;

/// What the check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserCheck {
    /// The elements the laws and monotonicity were checked on.
    pub window: Vec<String>,
    /// Whether the window is the domain's own `elements()`.
    pub enumerated: bool,
    /// Lattice-law violations, each naming its elements.
    pub laws: Vec<String>,
    /// Operators that are not monotone, with the pair of operands.
    pub monotonicity: Vec<String>,
    /// The soundness failures in the user's terms (`your add(pos, neg) returned pos, but …`).
    pub soundness: Vec<String>,
    /// Hints: an infinite ascending chain without `widen`.
    pub termination: Vec<String>,
    /// Calls into the user's code, and answers given from memory instead.
    pub calls: u64,
    pub memo_hits: u64,
    /// Calls per method, when the transport counts them.
    pub calls_by_method: Vec<(String, u64)>,
}

impl UserCheck {
    pub fn passed(&self, report: &SoundnessReport) -> bool {
        report.is_sound() && self.laws.is_empty() && self.monotonicity.is_empty()
    }
}

/// A domain served by user code, as the checks need it beyond [`AbstractDomain`].
pub trait Served: AbstractDomain + fmt::Display {
    /// The domain's name in reports.
    fn name() -> &'static str;
    /// The user's `leq`, called even on `⊥`/`⊤` (the law check must not trust them).
    fn leq_raw(a: &Self, b: &Self) -> bool;
    /// The user's `join`, called even on `⊥`/`⊤`.
    fn join_raw(a: &Self, b: &Self) -> Self;
    /// Whether a call into user code has failed (later answers are stand-ins).
    fn failed() -> bool;
    /// Whether the domain defines its own `widen`; `None` when the transport cannot tell
    /// (no termination hint is given).
    fn widens() -> Option<bool>;
    /// Calls into user code so far, and answers given from memory.
    fn calls() -> (u64, u64);
    /// Calls per method (empty when not counted).
    fn calls_by_method() -> Vec<(String, u64)> {
        Vec::new()
    }
}

impl Served for UserElem {
    fn name() -> &'static str {
        domain::current().0
    }
    fn leq_raw(a: &Self, b: &Self) -> bool {
        domain::truth("leq", &[a, b], true)
    }
    fn join_raw(a: &Self, b: &Self) -> Self {
        domain::op("join", Vec::new(), &[a, b])
    }
    fn failed() -> bool {
        domain::failed()
    }
    fn widens() -> Option<bool> {
        Some(domain::current().1.widen)
    }
    fn calls() -> (u64, u64) {
        (domain::calls(), domain::memo_hits())
    }
    fn calls_by_method() -> Vec<(String, u64)> {
        domain::calls_by_method()
    }
}

/// The window of the entered domain.
fn window<D: Served>() -> (Vec<D>, bool) {
    if let Some(all) = D::finite_elements() {
        let mut all = all;
        all.truncate(MAX_WINDOW);
        return (all, true);
    }
    let mut out: Vec<D> = vec![D::BOTTOM, D::TOP];
    let push = |out: &mut Vec<D>, e: D| {
        if out.len() < DERIVED_WINDOW && !out.contains(&e) {
            out.push(e);
        }
    };
    let atoms: Vec<D> = [-2i64, -1, 0, 1, 2, 5]
        .iter()
        .map(|n| D::alpha(&BigInt::from(*n)))
        .collect();
    for a in &atoms {
        push(&mut out, a.clone());
    }
    for a in &atoms {
        for b in &atoms {
            push(&mut out, joined(a, b));
        }
    }
    (out, false)
}

/// Runs every check on the entered domain.
pub fn check<D: Served>(
    options: &CheckOptions,
    cancel: &Cancel,
) -> Result<(SoundnessReport, UserCheck), CheckError> {
    let (elems, enumerated) = window::<D>();
    let mut out = UserCheck {
        window: elems.iter().map(ToString::to_string).collect(),
        enumerated,
        ..UserCheck::default()
    };
    laws(&elems, &mut out.laws);
    monotonicity(&elems, &mut out.monotonicity, cancel)?;
    termination::<D>(&mut out.termination);
    if D::failed() {
        return Ok((empty_report::<D>(options), out));
    }
    let mut report = check_domain::<D>(options, cancel)?;
    report.domain = D::name();
    out.soundness = report.failures.iter().map(in_user_terms).collect();
    (out.calls, out.memo_hits) = D::calls();
    out.calls_by_method = D::calls_by_method();
    Ok((report, out))
}

fn empty_report<D: Served>(options: &CheckOptions) -> SoundnessReport {
    SoundnessReport {
        domain: D::name(),
        samples: crate::dataflow::domains::soundness::samples(options),
        abstract_values: 0,
        cases: 0,
        failures: Vec::new(),
        failing_cases: 0,
    }
}

/// `your add(pos, neg) returned pos, but 1 + -3 == -2`.
fn in_user_terms(f: &crate::dataflow::domains::soundness::Failure) -> String {
    let method = BinOp::ALL
        .iter()
        .find(|op| op.symbol() == f.operator)
        .map(|op| method_of(*op).to_string())
        .unwrap_or_else(|| match f.operator.as_str() {
            "-x" => "neg".into(),
            "α" => "abstract".into(),
            other => other.replace("refine ", "refine "),
        });
    let args = if f.right.is_empty() {
        f.left.clone()
    } else {
        format!("{}, {}", f.left, f.right)
    };
    let claim = match f.operator.as_str() {
        "α" => format!("but {} is not in it", f.witness),
        "join" | "meet" | "widen" => format!("which misses {}", f.witness),
        op if op.starts_with("refine") => {
            format!("which misses a value for which {} holds", f.witness)
        }
        "may_be_zero" | "must_be_zero" => format!("(witness {})", f.witness),
        _ => format!("but {}", f.witness.replacen(" = ", " == ", 1)),
    };
    format!("your {method}({args}) returned {}, {claim}", f.result)
}

/// `leq` is a partial order with `bottom` least and `top` greatest, and `join` is its least
/// upper bound, on the window.
fn laws<D: Served>(elems: &[D], out: &mut Vec<String>) {
    let leq = |a: &D, b: &D| D::leq_raw(a, b);
    let (bottom, top) = (D::BOTTOM, D::TOP);
    for a in elems {
        if !leq(a, a) {
            out.push(format!("leq is not reflexive: leq({a}, {a}) is False"));
        }
        if !leq(&bottom, a) {
            out.push(format!("bottom is not least: leq(⊥, {a}) is False"));
        }
        if !leq(a, &top) {
            out.push(format!("top is not greatest: leq({a}, ⊤) is False"));
        }
    }
    for a in elems {
        for b in elems {
            if D::failed() || out.len() >= 20 {
                return;
            }
            let ab = leq(a, b);
            if a != b && ab && leq(b, a) {
                out.push(format!(
                    "leq is not antisymmetric: {a} ⊑ {b} and {b} ⊑ {a} but they differ"
                ));
            }
            let j = D::join_raw(a, b);
            if !leq(a, &j) || !leq(b, &j) {
                out.push(format!(
                    "join({a}, {b}) = {j} is not an upper bound of {a} and {b}"
                ));
                continue;
            }
            for c in elems {
                if ab && leq(b, c) && !leq(a, c) {
                    out.push(format!(
                        "leq is not transitive: {a} ⊑ {b} and {b} ⊑ {c} but not {a} ⊑ {c}"
                    ));
                }
                if leq(a, c) && leq(b, c) && !leq(&j, c) {
                    out.push(format!(
                        "join is not the least upper bound: join({a}, {b}) = {j}, but {c} is an upper bound of both and {j} ⋢ {c}"
                    ));
                    break;
                }
            }
        }
    }
}

/// `a ⊑ a'` and `b ⊑ b'` imply `op(a, b) ⊑ op(a', b')`, for every operator and refinement.
fn monotonicity<D: Served>(
    elems: &[D],
    out: &mut Vec<String>,
    cancel: &Cancel,
) -> Result<(), CheckError> {
    let pairs: Vec<(&D, &D)> = elems
        .iter()
        .flat_map(|a| elems.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a != b && a.leq(b))
        .collect();
    type Op<D> = (String, Box<dyn Fn(&D, &D) -> D>);
    let mut ops: Vec<Op<D>> = BinOp::ALL
        .iter()
        .map(|&op| {
            let f: Box<dyn Fn(&D, &D) -> D> = Box::new(move |a, b| D::binary(op, a, b));
            (method_of(op).to_string(), f)
        })
        .collect();
    for op in CmpOp::ALL {
        ops.push((
            format!("refine {}", op.symbol()),
            Box::new(move |a, b| a.refine(op, b)),
        ));
    }
    for (name, f) in &ops {
        cancel.check()?;
        let call = |a: &D, b: &D| {
            if let Some(op) = name.strip_prefix("refine ") {
                format!("refine({op:?}, {a}, {b})")
            } else {
                format!("{name}({a}, {b})")
            }
        };
        'op: for (lo, hi) in &pairs {
            for other in elems.iter().take(OTHERS) {
                if D::failed() {
                    return Ok(());
                }
                for (a, a2, b, b2) in [(*lo, *hi, other, other), (other, other, *lo, *hi)] {
                    let (r, r2) = (f(a, b), f(a2, b2));
                    if !r.leq(&r2) {
                        out.push(format!(
                            "{name} is not monotone: {lo} ⊑ {hi} but {} = {r} ⋢ {} = {r2}",
                            call(a, b),
                            call(a2, b2)
                        ));
                        break 'op;
                    }
                }
            }
        }
    }
    for (lo, hi) in &pairs {
        let (r, r2) = (lo.negate(), hi.negate());
        if !r.leq(&r2) {
            out.push(format!(
                "neg is not monotone: {lo} ⊑ {hi} but neg({lo}) = {r} ⋢ neg({hi}) = {r2}"
            ));
            break;
        }
    }
    Ok(())
}

/// Without `widen`, joining the abstractions of 0, 1, 2, … must stop growing.
fn termination<D: Served>(out: &mut Vec<String>) {
    if D::widens() != Some(false) {
        return;
    }
    let mut acc = D::alpha(&BigInt::ZERO);
    let start = acc.clone();
    for k in 1..=CHAIN {
        if D::failed() || !acc.join(&D::alpha(&BigInt::from(k))) {
            return;
        }
    }
    out.push(format!(
        "an infinite ascending chain and no widen: joining abstract(0), abstract(1), …, abstract({CHAIN}) grows at every step ({start} ⊏ … ⊏ {acc}), so a loop counting up may never stabilise; define widen(a, b)"
    ));
}
