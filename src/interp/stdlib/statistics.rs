//! `statistics`: `mean`, `fmean`, `median` (`_low`, `_high`), `mode`, `multimode`,
//! `variance`, `pvariance`, `stdev`, `pstdev`, `harmonic_mean`, `geometric_mean`,
//! `quantiles`, `median_grouped` with CPython's exact rational arithmetic
//! (the mean of ints is an int when it is integral, variances are exact fractions rounded
//! once, standard deviations the correctly rounded square root), over ints and floats.
//! Errors are `statistics.StatisticsError` (a `ValueError`).

use std::rc::Rc;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use super::StdFn;
use crate::interp::call::{Kwargs, arity, no_kwargs, take_kwargs};
use crate::interp::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, UserClass, type_error};
use crate::interp::machine::Machine;
use crate::interp::num::{int_true_div, num};
use crate::interp::ops;
use crate::interp::sort;
use crate::interp::value::Value;
use crate::python::ir::BinOp;

thread_local! {
    static ERROR: Rc<UserClass> = Rc::new(UserClass::plain("StatisticsError".into(), ExcClass::Builtin(ExcKind::ValueError)));
}

/// The class `statistics.StatisticsError`.
pub(crate) fn error_class() -> Value {
    Value::UserExcType(ERROR.with(Rc::clone))
}

fn stat_error<T>(message: &str) -> R<T> {
    Err(Unwind::from_object(ExcObject::new(
        ExcClass::User(ERROR.with(Rc::clone)),
        vec![Value::str(message)],
    )))
}

/// An exact fraction `n/d`, `d > 0`.
#[derive(Clone)]
struct Frac {
    n: BigInt,
    d: BigInt,
}

impl Frac {
    fn new(n: BigInt, d: BigInt) -> Frac {
        let (n, d) = if d.is_negative() { (-n, -d) } else { (n, d) };
        let g = n.gcd(&d);
        if g.is_zero() || g.is_one() {
            return Frac { n, d };
        }
        Frac {
            n: n / &g,
            d: d / &g,
        }
    }

    fn int(i: BigInt) -> Frac {
        Frac {
            n: i,
            d: BigInt::one(),
        }
    }

    fn add(&self, o: &Frac) -> Frac {
        Frac::new(&self.n * &o.d + &o.n * &self.d, &self.d * &o.d)
    }

    fn mul(&self, o: &Frac) -> Frac {
        Frac::new(&self.n * &o.n, &self.d * &o.d)
    }

    fn sub(&self, o: &Frac) -> Frac {
        self.add(&Frac::new(-o.n.clone(), o.d.clone()))
    }

    fn div_int(&self, k: usize) -> Frac {
        Frac::new(self.n.clone(), &self.d * BigInt::from(k))
    }

    fn to_f64(&self) -> R<f64> {
        int_true_div(&self.n, &self.d)
    }

    /// `_convert(value, T)`: an int when `T` is int and the value integral, else a float.
    fn convert(&self, all_int: bool) -> R<Value> {
        if all_int && self.d.is_one() {
            return Ok(Value::big(self.n.clone()));
        }
        Ok(Value::Float(self.to_f64()?))
    }
}

/// `x.as_integer_ratio()` of a finite float.
fn float_ratio(x: f64) -> Frac {
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let m = BigInt::from(mant) * sign;
    if e >= 0 {
        Frac::int(m << e as usize)
    } else {
        Frac::new(m, BigInt::one() << (-e) as usize)
    }
}

/// The data as exact fractions; `(fractions, all ints)`, or the float sum when a value is
/// not finite.
enum Data {
    Exact(Vec<Frac>, bool),
    NonFinite(f64, usize),
}

fn exact(values: &[Value]) -> R<Data> {
    let mut out = Vec::with_capacity(values.len());
    let mut all_int = true;
    for v in values {
        match v {
            Value::Float(f) if !f.is_finite() => {
                let mut s = 0.0;
                for x in values {
                    s += num(x).map_or(Ok(f64::NAN), |n| n.to_f64())?;
                }
                return Ok(Data::NonFinite(s, values.len()));
            }
            Value::Float(f) => {
                all_int = false;
                out.push(float_ratio(*f));
            }
            v if v.is_int() => out.push(Frac::int(v.to_bigint().unwrap_or_default())),
            other => {
                return type_error(format!(
                    "can't convert type '{}' to numerator/denominator",
                    other.type_name()
                ));
            }
        }
    }
    Ok(Data::Exact(out, all_int))
}

/// The exact sum of squared deviations from the mean (`_ss`).
fn sum_squares(xs: &[Frac]) -> Frac {
    let mut sx = Frac::int(BigInt::zero());
    let mut sxx = Frac::int(BigInt::zero());
    for x in xs {
        sx = sx.add(x);
        sxx = sxx.add(&x.mul(x));
    }
    let n = Frac::int(BigInt::from(xs.len()));
    n.mul(&sxx).sub(&sx.mul(&sx)).div_int(xs.len())
}

/// `_float_sqrt_of_frac(n, m)`: the correctly rounded square root of `n/m`.
fn sqrt_of_frac(f: &Frac) -> R<f64> {
    let rto = |n: &BigInt, m: &BigInt| -> BigInt {
        let a = (n / m).sqrt();
        let exact = &a * &a * m == *n;
        if exact { a } else { a | BigInt::one() }
    };
    let q = (f.n.bits() as i64 - f.d.bits() as i64 - 109).div_euclid(2);
    if q >= 0 {
        let num = rto(&f.n, &(&f.d << (2 * q) as usize)) << q as usize;
        int_true_div(&num, &BigInt::one())
    } else {
        let num = rto(&(&f.n << (-2 * q) as usize), &f.d);
        int_true_div(&num, &(BigInt::one() << (-q) as usize))
    }
}

/// Shewchuk-free exact float sum (`math.fsum`): the exact rational sum, rounded once.
fn fsum(values: &[Value]) -> R<f64> {
    match exact(values)? {
        Data::NonFinite(s, _) => Ok(s),
        Data::Exact(xs, _) => {
            let mut acc = Frac::int(BigInt::zero());
            for x in &xs {
                acc = acc.add(x);
            }
            acc.to_f64()
        }
    }
}

impl Machine {
    pub(super) fn call_statistics(
        &mut self,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let name = f.name();
        if f == StdFn::Quantiles {
            return self.quantiles(args, kwargs);
        }
        if f == StdFn::MedianGrouped {
            return self.median_grouped(args, kwargs);
        }
        let mut weights = None;
        if f == StdFn::HarmonicMean {
            let [weights_kw] = take_kwargs(name, kwargs, ["weights"])?;
            arity(name, &args, 1, 2)?;
            if let Some(w) = weights_kw.or(args.get(1).cloned()) {
                if !matches!(w, Value::None) {
                    weights = Some(w);
                }
            }
        } else {
            no_kwargs(name, &kwargs)?;
            arity(name, &args, 1, 1)?;
        }
        let data = self.collect(args[0].clone())?;
        crate::interp::budget::charge_items(data.len() * 8)?;
        let n = data.len();
        if let Some(weights) = weights {
            if n == 0 {
                return stat_error("harmonic_mean requires at least one data point");
            }
            let weights = self.collect(weights)?;
            return weighted_harmonic_mean(&data, &weights);
        }
        match f {
            StdFn::Mean => {
                if n == 0 {
                    return stat_error("mean requires at least one data point");
                }
                match exact(&data)? {
                    Data::NonFinite(s, k) => Ok(Value::Float(s / k as f64)),
                    Data::Exact(xs, all_int) => {
                        let mut acc = Frac::int(BigInt::zero());
                        for x in &xs {
                            acc = acc.add(x);
                        }
                        acc.div_int(n).convert(all_int)
                    }
                }
            }
            StdFn::FMean => {
                let total = fsum(&data)?;
                if n == 0 {
                    return stat_error("fmean requires at least one data point");
                }
                Ok(Value::Float(total / n as f64))
            }
            StdFn::Median | StdFn::MedianLow | StdFn::MedianHigh => {
                if n == 0 {
                    return stat_error("no median for empty data");
                }
                let sorted = sort::sort(self, data, Value::None, false)?;
                match f {
                    StdFn::MedianLow if n % 2 == 0 => Ok(sorted[n / 2 - 1].clone()),
                    StdFn::Median if n % 2 == 0 => {
                        let s = ops::binary(BinOp::Add, &sorted[n / 2 - 1], &sorted[n / 2])?;
                        ops::binary(BinOp::Div, &s, &Value::Int(2))
                    }
                    _ => Ok(sorted[n / 2].clone()),
                }
            }
            StdFn::Mode | StdFn::MultiMode => {
                let counter = self.call_std(StdFn::Counter, vec![Value::list(data)], Vec::new())?;
                let Value::Dict(d) = &counter else {
                    return type_error("Counter");
                };
                let entries: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
                let best = entries
                    .iter()
                    .filter_map(|(_, c)| crate::interp::builtins::index_arg(c).ok())
                    .max();
                let Some(best) = best else {
                    if f == StdFn::Mode {
                        return stat_error("no mode for empty data");
                    }
                    return Ok(Value::list(Vec::new()));
                };
                let modes: Vec<Value> = entries
                    .into_iter()
                    .filter(|(_, c)| matches!(c, Value::Int(k) if *k == best))
                    .map(|(k, _)| k)
                    .collect();
                if f == StdFn::Mode {
                    return Ok(modes.into_iter().next().unwrap_or(Value::None));
                }
                Ok(Value::list(modes))
            }
            StdFn::Variance | StdFn::PVariance | StdFn::Stdev | StdFn::PStdev => {
                let sample = matches!(f, StdFn::Variance | StdFn::Stdev);
                if sample && n < 2 {
                    return stat_error(&format!("{name} requires at least two data points"));
                }
                if n < 1 {
                    return stat_error(&format!("{name} requires at least one data point"));
                }
                let (xs, all_int) = match exact(&data)? {
                    Data::Exact(xs, all_int) => (xs, all_int),
                    Data::NonFinite(..) => return Ok(Value::Float(f64::NAN)),
                };
                let mss = sum_squares(&xs).div_int(if sample { n - 1 } else { n });
                if matches!(f, StdFn::Variance | StdFn::PVariance) {
                    mss.convert(all_int)
                } else {
                    sqrt_of_frac(&mss).map(Value::Float)
                }
            }
            StdFn::HarmonicMean => harmonic_mean(data),
            StdFn::GeometricMean => {
                let mut logs = Vec::with_capacity(n);
                for x in &data {
                    match crate::interp::modules::log_of(x, f64::ln) {
                        Ok(l) => logs.push(Value::Float(l)),
                        Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::ValueError)) => {
                            return stat_error(GEOMETRIC_ERROR);
                        }
                        Err(e) => return Err(e),
                    }
                }
                if n == 0 {
                    return stat_error(GEOMETRIC_ERROR);
                }
                Ok(Value::Float((fsum(&logs)? / n as f64).exp()))
            }
            _ => type_error(format!("{name} is not in statistics")),
        }
    }

    /// `median_grouped(data, interval=1)`: CPython 3.11's interpolation in floats.
    fn median_grouped(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [interval_kw] = take_kwargs("median_grouped", kwargs, ["interval"])?;
        arity("median_grouped", &args, 1, 2)?;
        let interval = args
            .get(1)
            .cloned()
            .or(interval_kw)
            .unwrap_or(Value::Int(1));
        let data = self.collect(args[0].clone())?;
        let data = sort::sort(self, data, Value::None, false)?;
        let n = data.len();
        if n == 0 {
            return stat_error("no median for empty data");
        }
        let x = data[n / 2].clone();
        // data[i:j] holds every item equal to x
        let (mut i, mut j) = (0, 0);
        for d in &data {
            if self.compare(crate::python::ir::CmpOp::Lt, d, &x)? {
                i += 1;
            }
            if !self.compare(crate::python::ir::CmpOp::Lt, &x, d)? {
                j += 1;
            }
        }
        let float = |v: &Value| match crate::interp::builtins::float_of(v) {
            Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::ValueError)) => {
                type_error("Value cannot be converted to a float")
            }
            other => other,
        };
        let (interval, x) = (float(&interval)?, float(&x)?);
        let lower = x - interval / 2.0;
        let within = (j - i) as f64;
        Ok(Value::Float(
            lower + interval * (n as f64 / 2.0 - i as f64) / within,
        ))
    }

    /// `quantiles(data, *, n=4, method='exclusive')`, CPython's interpolation with the
    /// data's own arithmetic.
    fn quantiles(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [n, method] = take_kwargs("quantiles", kwargs, ["n", "method"])?;
        arity("quantiles", &args, 1, 1)?;
        let n = match n {
            Some(v) => crate::interp::builtins::index_arg(&v)?,
            None => 4,
        };
        if n < 1 {
            return stat_error("n must be at least 1");
        }
        let data = self.collect(args[0].clone())?;
        let data = sort::sort(self, data, Value::None, false)?;
        let ld = data.len() as i64;
        if ld < 2 {
            return stat_error("must have at least two data points");
        }
        let inclusive = match &method {
            None => false,
            Some(Value::Str(s)) if s.as_str() == "exclusive" => false,
            Some(Value::Str(s)) if s.as_str() == "inclusive" => true,
            Some(other) => {
                return crate::interp::exc::value_error(format!(
                    "Unknown method: {}",
                    self.repr_of(other)?
                ));
            }
        };
        crate::interp::budget::charge_items(n as usize)?;
        let mut out = Vec::with_capacity(n as usize);
        for i in 1..n {
            // (index of the lower point, weight of the upper one)
            let (j, delta) = if inclusive {
                let m = ld - 1;
                ((i * m).div_euclid(n), (i * m).rem_euclid(n))
            } else {
                let m = ld + 1;
                let j = ((i * m).div_euclid(n)).clamp(1, ld - 1);
                (j - 1, i * m - j * n)
            };
            self.tick()?;
            let (lo, hi) = (&data[j as usize], &data[j as usize + 1]);
            let a = ops::binary(BinOp::Mult, lo, &Value::Int(n - delta))?;
            let b = ops::binary(BinOp::Mult, hi, &Value::Int(delta))?;
            let sum = ops::binary(BinOp::Add, &a, &b)?;
            out.push(ops::binary(BinOp::Div, &sum, &Value::Int(n))?);
        }
        Ok(Value::list(out))
    }
}

const GEOMETRIC_ERROR: &str =
    "geometric mean requires a non-empty dataset containing positive numbers";

/// `harmonic_mean(data)`: `n / sum(1 / x)` with the reciprocals as floats summed exactly;
/// a zero value makes it 0, a negative one (before any zero) an error.
const NEGATIVE_HARMONIC: &str = "harmonic mean does not support negative values";

fn negative(x: &Value) -> R<bool> {
    match num(x) {
        Some(v) => Ok(v.to_f64()? < 0.0),
        None => type_error("unsupported type"),
    }
}

/// `harmonic_mean(data, weights)` (data not empty): `sum(weights) / sum(w / x)` over exact
/// fractions of the weights and of the float terms, as CPython 3.11 computes it.
fn weighted_harmonic_mean(data: &[Value], weights: &[Value]) -> R<Value> {
    if weights.len() != data.len() {
        return stat_error("Number of weights does not match data size");
    }
    for w in weights {
        if negative(w)? {
            return stat_error(NEGATIVE_HARMONIC);
        }
    }
    let zero = || Frac::int(BigInt::zero());
    let sum_weights = match exact(weights)? {
        Data::Exact(ws, _) => ws.iter().fold(zero(), |acc, w| acc.add(w)),
        Data::NonFinite(..) => {
            return Err(Unwind::unsupported(
                "statistics.harmonic_mean with a weight that is not finite",
            ));
        }
    };
    let mut total = zero();
    for (w, x) in weights.iter().zip(data) {
        if negative(x)? {
            return stat_error(NEGATIVE_HARMONIC);
        }
        if num(w).is_some_and(|v| v.to_f64().is_ok_and(|f| f == 0.0)) {
            continue;
        }
        match ops::binary(BinOp::Div, w, x) {
            Ok(Value::Float(t)) if t.is_finite() => total = total.add(&float_ratio(t)),
            Ok(_) => {
                return Err(Unwind::unsupported(
                    "statistics.harmonic_mean with a term that is not finite",
                ));
            }
            Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::ZeroDivisionError)) => {
                return Ok(Value::Int(0));
            }
            Err(e) => return Err(e),
        }
    }
    if !total.n.is_positive() {
        return stat_error("Weighted sum must be positive");
    }
    Frac::new(sum_weights.n * &total.d, sum_weights.d * total.n)
        .to_f64()
        .map(Value::Float)
}

fn harmonic_mean(data: Vec<Value>) -> R<Value> {
    const NEGATIVE: &str = NEGATIVE_HARMONIC;
    let n = data.len();
    if n == 0 {
        return stat_error("harmonic_mean requires at least one data point");
    }
    if n == 1 {
        if negative(&data[0])? {
            return stat_error(NEGATIVE);
        }
        return Ok(data[0].clone());
    }
    let mut total = Frac::int(BigInt::zero());
    for x in &data {
        if negative(x)? {
            return stat_error(NEGATIVE);
        }
        let r = match x {
            Value::Float(f) if *f == 0.0 => return Ok(Value::Int(0)),
            Value::Float(f) => 1.0 / f,
            v => match v.to_bigint() {
                Some(b) if b.is_zero() => return Ok(Value::Int(0)),
                Some(b) => int_true_div(&BigInt::one(), &b)?,
                None => {
                    return type_error(format!(
                        "can't convert type '{}' to numerator/denominator",
                        v.type_name()
                    ));
                }
            },
        };
        if !r.is_finite() {
            return Ok(Value::Float(n as f64 / r));
        }
        total = total.add(&float_ratio(r));
    }
    if !total.n.is_positive() {
        return stat_error("Weighted sum must be positive");
    }
    Frac::new(BigInt::from(n) * &total.d, total.n)
        .to_f64()
        .map(Value::Float)
}

impl Machine {
    /// `math.prod(iterable, *, start=1)` and `math.fsum(iterable)` (correctly rounded).
    pub(super) fn call_math_iter(
        &mut self,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let name = f.name();
        if f == StdFn::Prod {
            let [start] = crate::interp::call::take_kwargs(name, kwargs, ["start"])?;
            arity(name, &args, 1, 1)?;
            let mut acc = start.unwrap_or(Value::Int(1));
            let mut it = self.iter_of(args[0].clone())?;
            while let Some(x) = self.next(&mut it)? {
                self.tick()?;
                acc = ops::binary(BinOp::Mult, &acc, &x)?;
            }
            return Ok(acc);
        }
        no_kwargs(name, &kwargs)?;
        arity(name, &args, 1, 1)?;
        let data = self.collect(args[0].clone())?;
        for v in &data {
            if num(v).is_none() {
                return type_error(format!("must be real number, not {}", v.type_name()));
            }
        }
        let floats: Vec<Value> = data
            .iter()
            .map(|v| {
                num(v)
                    .map_or(Ok(f64::NAN), |n| n.to_f64())
                    .map(Value::Float)
            })
            .collect::<R<_>>()?;
        Ok(Value::Float(fsum(&floats)?))
    }
}
