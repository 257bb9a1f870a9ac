//! The soundness checker behind `%check-domain`: applies every concrete Python operation to
//! sampled ints and the abstract operation to abstract values containing them, and reports
//! each case where the abstract result misses the concrete one.
//!
//! Samples are edge values (0, ±1, ±2, …, values past 64 bits) and pseudo-random ints from a
//! fixed seed, so a report is the same on every run.

use num_bigint::BigInt;

use super::{AbstractDomain, BinOp, CmpOp};
use crate::cancel::Cancel;

/// The most random samples a check accepts.
pub const MAX_SAMPLES: usize = 1_000;
/// Failures kept with their witness; further ones are only counted.
pub const MAX_LISTED_FAILURES: usize = 100;
/// Members of one abstract value tried against each operator.
const REPRESENTATIVES: usize = 8;
/// Abstractions of single samples among the abstract operands (every pair of samples is
/// checked with its own abstractions separately), which bounds the work to pairs of operands.
const MAX_ALPHA_OPERANDS: usize = 48;

/// What to sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// Pseudo-random ints added to the edge values.
    pub random_samples: usize,
    pub seed: u64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            random_samples: 24,
            seed: 0x5eed,
        }
    }
}

/// One abstract result that misses a concrete result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The operator (`//`, `-x`, `refine <`, `α`, `join`, …).
    pub operator: String,
    pub left: String,
    /// The right operand; empty for unary checks.
    pub right: String,
    /// The abstract result.
    pub result: String,
    /// The concrete case it misses, e.g. `1 // 6 = 0`.
    pub witness: String,
}

/// The outcome of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoundnessReport {
    pub domain: &'static str,
    /// The concrete ints sampled, in increasing order.
    pub samples: Vec<BigInt>,
    /// How many abstract values the operands ranged over.
    pub abstract_values: usize,
    /// Concrete cases checked.
    pub cases: u64,
    /// The first failure of each (operator, left, right), at most [`MAX_LISTED_FAILURES`].
    pub failures: Vec<Failure>,
    /// Every failing concrete case, listed or not.
    pub failing_cases: u64,
}

impl SoundnessReport {
    pub fn is_sound(&self) -> bool {
        self.failing_cases == 0
    }
}

/// Why a check did not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("--samples {0} is too many (at most {MAX_SAMPLES})")]
    TooManySamples(usize),
    #[error("interrupted")]
    Stopped(#[from] crate::cancel::Stopped),
}

/// The edge values and `options.random_samples` pseudo-random ints, sorted, without repeats.
pub fn samples(options: &CheckOptions) -> Vec<BigInt> {
    let big = BigInt::from(u64::MAX) + 2u32;
    let huge = BigInt::from(10u32).pow(30u32);
    let mut values: Vec<BigInt> = [0i64, 1, 2, 3, 5, 6, 7, 10, 100, 1 << 31]
        .iter()
        .flat_map(|&v| [BigInt::from(v), BigInt::from(-v)])
        .collect();
    values.extend([big.clone(), -big, huge.clone(), -huge]);
    let mut rng = crate::splitmix::SplitMix64::new(options.seed);
    for _ in 0..options.random_samples {
        let r = rng.next_u64();
        let magnitude = match r % 4 {
            0 => BigInt::from(r >> 2) % 21,
            1 => BigInt::from(r >> 2) % 1001,
            2 => BigInt::from(rng.next_u64()),
            _ => (BigInt::from(rng.next_u64()) << 64) + rng.next_u64(),
        };
        values.push(if (r >> 63) & 1 == 1 {
            -magnitude
        } else {
            magnitude
        });
    }
    values.sort();
    values.dedup();
    values
}

/// Checks every abstract operator of `D` on the samples of `options`.
pub fn check_domain<D: AbstractDomain>(
    options: &CheckOptions,
    cancel: &Cancel,
) -> Result<SoundnessReport, CheckError> {
    if options.random_samples > MAX_SAMPLES {
        return Err(CheckError::TooManySamples(options.random_samples));
    }
    let samples = samples(options);
    let values = abstract_values::<D>(&samples);
    let reps: Vec<Vec<&BigInt>> = values
        .iter()
        .map(|a| representatives(a, &samples))
        .collect();
    let mut log = Log::new(D::NAME, values.len());

    for s in &samples {
        log.check(D::alpha(s).contains(s), || {
            fail("α", s, "", D::alpha(s), s.to_string())
        });
    }
    // The most precise operands: the abstractions of every pair of samples.
    for a in &samples {
        cancel.check()?;
        for b in &samples {
            for op in BinOp::ALL {
                check_binary(&mut log, op, &D::alpha(a), &D::alpha(b), &[a], &[b]);
            }
        }
    }
    for (x, xs) in values.iter().zip(&reps) {
        cancel.check()?;
        check_unary(&mut log, x, xs);
        for (y, ys) in values.iter().zip(&reps) {
            for op in BinOp::ALL {
                check_binary(&mut log, op, x, y, xs, ys);
            }
            for op in CmpOp::ALL {
                check_refine(&mut log, op, x, y, xs, ys);
            }
            check_bounds(&mut log, x, y, xs, ys);
        }
    }
    Ok(log.report(samples))
}

/// The abstract operands: ⊤, every finite element, the abstractions of up to
/// [`MAX_ALPHA_OPERANDS`] samples spread over all of them, joins of
/// pairs of small edge values and half-lines (⊤ refined by a comparison), without repeats.
fn abstract_values<D: AbstractDomain>(samples: &[BigInt]) -> Vec<D> {
    let mut values: Vec<D> = vec![D::TOP];
    values.extend(D::finite_elements().unwrap_or_default());
    let step = samples.len().div_ceil(MAX_ALPHA_OPERANDS).max(1);
    values.extend(samples.iter().step_by(step).map(D::alpha));
    let edges: Vec<BigInt> = [0, 1, -1, 2, -2, 7, -7, 100, -100]
        .into_iter()
        .map(BigInt::from)
        .collect();
    for (i, a) in edges.iter().enumerate() {
        for b in &edges[i + 1..] {
            let mut j = D::alpha(a);
            j.join(&D::alpha(b));
            values.push(j);
        }
        for op in [CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Ne] {
            values.push(D::TOP.refine(op, &D::alpha(a)));
        }
    }
    let mut unique: Vec<D> = Vec::new();
    for v in values {
        if !unique.contains(&v) {
            unique.push(v);
        }
    }
    unique
}

/// Up to [`REPRESENTATIVES`] samples in `γ(a)`: the extremes, the small edge values, and
/// evenly spread others.
fn representatives<'a, D: AbstractDomain>(a: &D, samples: &'a [BigInt]) -> Vec<&'a BigInt> {
    let members: Vec<&BigInt> = samples.iter().filter(|s| a.contains(s)).collect();
    if members.len() <= REPRESENTATIVES {
        return members;
    }
    let small = BigInt::from(2);
    let mut reps: Vec<&BigInt> = members
        .iter()
        .copied()
        .filter(|m| m.magnitude() <= small.magnitude())
        .collect();
    let slots = REPRESENTATIVES.saturating_sub(reps.len()).max(2);
    for i in 0..slots {
        let m = members[i * (members.len() - 1) / (slots - 1)];
        if !reps.contains(&m) {
            reps.push(m);
        }
    }
    reps.sort();
    reps
}

fn check_binary<D: AbstractDomain>(
    log: &mut Log,
    op: BinOp,
    x: &D,
    y: &D,
    xs: &[&BigInt],
    ys: &[&BigInt],
) {
    let r = D::binary(op, x, y);
    for a in xs {
        for b in ys {
            if let Some(v) = op.apply(a, b) {
                log.check(r.contains(&v), || {
                    fail(op.symbol(), x, y, &r, format!("{a} {op} {b} = {v}"))
                });
            }
        }
    }
}

fn check_unary<D: AbstractDomain>(log: &mut Log, x: &D, xs: &[&BigInt]) {
    let r = x.negate();
    for a in xs {
        let v = -*a;
        log.check(r.contains(&v), || {
            fail("-x", x, "", &r, format!("-({a}) = {v}"))
        });
    }
    let zero = BigInt::ZERO;
    if x.contains(&zero) {
        log.check(x.may_be_zero(), || {
            fail("may_be_zero", x, "", "false", "0".into())
        });
    }
    if x.must_be_zero() {
        for a in xs {
            log.check(**a == zero, || {
                fail("must_be_zero", x, "", "true", a.to_string())
            });
        }
    }
}

fn check_refine<D: AbstractDomain>(
    log: &mut Log,
    op: CmpOp,
    x: &D,
    y: &D,
    xs: &[&BigInt],
    ys: &[&BigInt],
) {
    let r = x.refine(op, y);
    for a in xs {
        if let Some(b) = ys.iter().find(|b| op.holds(a, b)) {
            log.check(r.contains(a), || {
                fail(&format!("refine {op}"), x, y, &r, format!("{a} {op} {b}"))
            });
        }
    }
}

/// Join, meet and widening keep the values they must.
fn check_bounds<D: AbstractDomain>(log: &mut Log, x: &D, y: &D, xs: &[&BigInt], ys: &[&BigInt]) {
    let mut j = x.clone();
    j.join(y);
    let mut w = x.clone();
    w.widen(y);
    let mut m = x.clone();
    m.meet(y);
    for a in xs.iter().chain(ys) {
        log.check(j.contains(a), || fail("join", x, y, &j, a.to_string()));
        log.check(w.contains(a), || fail("widen", x, y, &w, a.to_string()));
        if x.contains(a) && y.contains(a) {
            log.check(m.contains(a), || fail("meet", x, y, &m, a.to_string()));
        }
    }
}

fn fail(
    op: &str,
    left: impl ToString,
    right: impl ToString,
    result: impl ToString,
    witness: String,
) -> Failure {
    Failure {
        operator: op.to_string(),
        left: left.to_string(),
        right: right.to_string(),
        result: result.to_string(),
        witness,
    }
}

/// Counts cases and keeps the first failure of each (operator, left, right).
struct Log {
    domain: &'static str,
    abstract_values: usize,
    cases: u64,
    failures: Vec<Failure>,
    failing_cases: u64,
}

impl Log {
    fn new(domain: &'static str, abstract_values: usize) -> Log {
        Log {
            domain,
            abstract_values,
            cases: 0,
            failures: Vec::new(),
            failing_cases: 0,
        }
    }

    fn check(&mut self, ok: bool, failure: impl FnOnce() -> Failure) {
        self.cases += 1;
        if ok {
            return;
        }
        self.failing_cases += 1;
        let f = failure();
        let seen = self
            .failures
            .iter()
            .any(|g| g.operator == f.operator && g.left == f.left && g.right == f.right);
        if !seen && self.failures.len() < MAX_LISTED_FAILURES {
            self.failures.push(f);
        }
    }

    fn report(self, samples: Vec<BigInt>) -> SoundnessReport {
        SoundnessReport {
            domain: self.domain,
            samples,
            abstract_values: self.abstract_values,
            cases: self.cases,
            failures: self.failures,
            failing_cases: self.failing_cases,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use serde_json::Value;

    use super::*;
    use crate::dataflow::domains::{Interval, Zero};
    use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
    use crate::dataflow::registry::DOMAINS;

    #[test]
    fn every_domain_is_sound() {
        for d in DOMAINS {
            let report = (d.check)(&CheckOptions::default(), &Cancel::new()).unwrap();
            assert!(report.is_sound(), "{}: {:#?}", d.name, report.failures);
            assert!(
                report.cases > 10_000,
                "{}: only {} cases",
                d.name,
                report.cases
            );
        }
    }

    #[test]
    fn samples_are_deterministic_and_include_edges() {
        let o = CheckOptions {
            random_samples: 50,
            seed: 7,
        };
        let s = samples(&o);
        assert_eq!(s, samples(&o));
        assert_ne!(s, samples(&CheckOptions { seed: 8, ..o }));
        for v in [0i64, 1, -1, 2, -2] {
            assert!(s.contains(&BigInt::from(v)));
        }
        assert!(s.iter().any(|v| v.bits() > 64));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        let too_many = CheckOptions {
            random_samples: MAX_SAMPLES + 1,
            seed: 0,
        };
        assert_eq!(
            check_domain::<Zero>(&too_many, &Cancel::new()),
            Err(CheckError::TooManySamples(MAX_SAMPLES + 1))
        );
    }

    #[test]
    fn interrupt_stops_the_check() {
        let cancel = Cancel::new();
        cancel.cancel();
        assert_eq!(
            check_domain::<Interval>(&CheckOptions::default(), &cancel),
            Err(CheckError::Stopped(crate::cancel::Stopped(
                crate::cancel::Stop::Interrupted
            )))
        );
    }

    /// The course's zero domain: like [`Zero`] but with NONZERO // NONZERO = NONZERO.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct CourseZero(Zero);

    impl JoinSemiLattice for CourseZero {
        fn join(&mut self, other: &Self) -> bool {
            self.0.join(&other.0)
        }
    }
    impl MeetSemiLattice for CourseZero {
        fn meet(&mut self, other: &Self) -> bool {
            self.0.meet(&other.0)
        }
    }
    impl HasBottom for CourseZero {
        const BOTTOM: Self = CourseZero(Zero::BOTTOM);
        fn is_bottom(&self) -> bool {
            self.0.is_bottom()
        }
    }
    impl HasTop for CourseZero {
        const TOP: Self = CourseZero(Zero::TOP);
        fn is_top(&self) -> bool {
            self.0.is_top()
        }
    }
    impl Widening for CourseZero {}
    impl fmt::Display for CourseZero {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }
    impl AbstractDomain for CourseZero {
        const NAME: &'static str = "course-zero";
        fn alpha(i: &BigInt) -> Self {
            CourseZero(Zero::alpha(i))
        }
        fn contains(&self, i: &BigInt) -> bool {
            self.0.contains(i)
        }
        fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
            if op == BinOp::FloorDiv && a.0 == Zero::NONZERO && b.0 == Zero::NONZERO {
                return CourseZero(Zero::NONZERO);
            }
            CourseZero(Zero::binary(op, &a.0, &b.0))
        }
        fn negate(&self) -> Self {
            *self
        }
        fn refine(&self, op: CmpOp, other: &Self) -> Self {
            CourseZero(self.0.refine(op, &other.0))
        }
        fn must_be_zero(&self) -> bool {
            self.0.must_be_zero()
        }
        fn to_json(&self) -> Value {
            self.0.to_json()
        }
        fn finite_elements() -> Option<Vec<Self>> {
            Zero::finite_elements().map(|v| v.into_iter().map(CourseZero).collect())
        }
    }

    #[test]
    fn the_course_zero_division_is_caught() {
        let report = check_domain::<CourseZero>(&CheckOptions::default(), &Cancel::new()).unwrap();
        assert!(!report.is_sound());
        assert_eq!(report.failures.len(), 1, "{:#?}", report.failures);
        let f = &report.failures[0];
        assert_eq!(
            (
                f.operator.as_str(),
                f.left.as_str(),
                f.right.as_str(),
                f.result.as_str()
            ),
            ("//", "≠0", "≠0", "≠0")
        );
        // The witness is a quotient of two nonzero ints that is 0, like 1 // 6.
        assert!(f.witness.ends_with(" = 0"), "{}", f.witness);
        assert!(report.failing_cases > 1);
    }
}
