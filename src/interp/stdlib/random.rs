//! `random`: CPython's Mersenne Twister (MT19937 seeded by `init_by_array` from the absolute
//! value of an int seed, or from a str by version-2 seeding with SHA-512), so seeded runs
//! give CPython's exact sequences for `random`, `getrandbits`, `randrange`/`randint`
//! (`_randbelow_with_getrandbits`), `choice`, `choices`, `shuffle`, `sample`, `uniform` and
//! `gauss`. The module functions share one generator per session; without `seed()` it is
//! seeded from the clock (CPython uses the OS's entropy: only seeded runs are reproducible).

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::{BigInt, Sign};
use num_traits::{Signed, ToPrimitive, Zero};
use sha2::{Digest, Sha512};

use super::{StdFn, StdObj};
use crate::interp::builtins::Builtin;
use crate::interp::call::{Kwargs, arity, no_kwargs, take_kwargs};
use crate::interp::exc::{ExcKind, R, Unwind, fail, type_error, value_error};
use crate::interp::machine::Machine;
use crate::interp::num::num;
use crate::interp::value::Value;

const N: usize = 624;
const M: usize = 397;

/// The generator's state (and `gauss`'s spare value).
#[derive(Clone)]
pub(crate) struct Mt {
    state: [u32; N],
    index: usize,
    gauss_next: Option<f64>,
}

thread_local! {
    /// The module-level generator of the session (one interpreter thread per session).
    static GLOBAL: RefCell<Option<Mt>> = const { RefCell::new(None) };
}

impl Mt {
    fn from_genrand(s: u32) -> Mt {
        let mut state = [0u32; N];
        state[0] = s;
        for i in 1..N {
            state[i] = 1_812_433_253u32
                .wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt {
            state,
            index: N,
            gauss_next: None,
        }
    }

    /// `init_by_array` of CPython's `_randommodule.c`.
    fn from_key(key: &[u32]) -> Mt {
        let mut mt = Mt::from_genrand(19_650_218);
        let s = &mut mt.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            s[i] = (s[i] ^ (s[i - 1] ^ (s[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            s[i] = (s[i] ^ (s[i - 1] ^ (s[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
        }
        s[0] = 0x8000_0000;
        mt
    }

    /// Seeded from an int, as CPython: the 32-bit words of `abs(n)`, least significant first.
    pub fn from_int(n: &BigInt) -> Mt {
        let mut key = n.abs().to_u32_digits().1;
        if key.is_empty() {
            key.push(0);
        }
        Mt::from_key(&key)
    }

    fn from_str(s: &str) -> Mt {
        let mut bytes = s.as_bytes().to_vec();
        bytes.extend_from_slice(&Sha512::digest(s.as_bytes()));
        Mt::from_int(&BigInt::from_bytes_be(Sign::Plus, &bytes))
    }

    fn from_clock() -> Mt {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Mt::from_int(&BigInt::from(nanos))
    }

    fn genrand(&mut self) -> u32 {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        const MATRIX_A: u32 = 0x9908_b0df;
        if self.index >= N {
            let s = &mut self.state;
            for kk in 0..N {
                let y = (s[kk] & UPPER) | (s[(kk + 1) % N] & LOWER);
                let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
                s[kk] = s[(kk + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    pub fn random(&mut self) -> f64 {
        let a = (self.genrand() >> 5) as f64;
        let b = (self.genrand() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    pub fn getrandbits(&mut self, k: u64) -> BigInt {
        if k == 0 {
            return BigInt::zero();
        }
        if k <= 32 {
            return BigInt::from(self.genrand() >> (32 - k));
        }
        let mut words = Vec::with_capacity(k.div_ceil(32) as usize);
        let mut left = k;
        while left > 0 {
            let mut r = self.genrand();
            if left < 32 {
                r >>= 32 - left;
            }
            words.push(r);
            left = left.saturating_sub(32);
        }
        BigInt::from_slice(Sign::Plus, &words)
    }

    /// `_randbelow_with_getrandbits(n)`, `n > 0`.
    pub fn below(&mut self, n: &BigInt) -> BigInt {
        let k = n.bits();
        let mut r = self.getrandbits(k);
        while &r >= n {
            r = self.getrandbits(k);
        }
        r
    }

    fn below_usize(&mut self, n: usize) -> usize {
        self.below(&BigInt::from(n)).to_usize().unwrap_or(0)
    }

    fn gauss(&mut self, mu: f64, sigma: f64) -> f64 {
        let z = match self.gauss_next.take() {
            Some(z) => z,
            None => {
                let x2pi = self.random() * std::f64::consts::TAU;
                let g2rad = (-2.0 * (1.0 - self.random()).ln()).sqrt();
                self.gauss_next = Some(x2pi.sin() * g2rad);
                x2pi.cos() * g2rad
            }
        };
        mu + z * sigma
    }
}

/// The module's constants.
pub(crate) fn constant(_name: &str) -> Option<Value> {
    None
}

/// Whether `name` is a method of `Random` instances.
pub(crate) fn is_method(name: &str) -> bool {
    matches!(
        name,
        "seed"
            | "random"
            | "getrandbits"
            | "randrange"
            | "randint"
            | "choice"
            | "choices"
            | "shuffle"
            | "sample"
            | "uniform"
            | "gauss"
    )
}

fn seeded(seed: Option<&Value>) -> R<Mt> {
    match seed {
        None | Some(Value::None) => Ok(Mt::from_clock()),
        Some(v) if v.is_int() => Ok(Mt::from_int(&v.to_bigint().unwrap_or_default())),
        Some(Value::Str(s)) => Ok(Mt::from_str(s.as_str())),
        Some(Value::Float(_)) => Err(Unwind::unsupported("random.seed() with a float seed")),
        Some(_) => type_error(
            "The only supported seed types are: None,\nint, float, str, bytes, and bytearray.",
        ),
    }
}

fn int_arg(v: &Value, what: &str) -> R<BigInt> {
    match v {
        Value::Float(f) if f.fract() == 0.0 && f.is_finite() => Err(Unwind::unsupported(format!(
            "a float {what} for randrange() (deprecated in Python 3.10)"
        ))),
        Value::Float(_) => value_error(format!("non-integer {what} for randrange()")),
        other => other.to_bigint().ok_or_else(|| {
            Unwind::new(
                ExcKind::TypeError,
                format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                ),
            )
        }),
    }
}

fn float_arg(v: &Value) -> R<f64> {
    match num(v) {
        Some(n) => n.to_f64(),
        None => type_error(format!("must be real number, not {}", v.type_name())),
    }
}

fn randrange(mt: &mut Mt, args: &[Value]) -> R<Value> {
    arity("randrange", args, 1, 3)?;
    let start = int_arg(&args[0], "arg 1")?;
    let Some(stop) = args.get(1).filter(|v| !matches!(v, Value::None)) else {
        if args.len() == 3 {
            return type_error("Missing a non-None stop argument");
        }
        if start.is_positive() {
            return Ok(Value::big(mt.below(&start)));
        }
        return value_error("empty range for randrange()");
    };
    let stop = int_arg(stop, "stop")?;
    let width = &stop - &start;
    let step = match args.get(2) {
        Some(s) => int_arg(s, "step")?,
        None => BigInt::from(1),
    };
    if step == BigInt::from(1) {
        if width.is_positive() {
            return Ok(Value::big(start + mt.below(&width)));
        }
        return value_error(format!(
            "empty range for randrange() ({start}, {stop}, {width})"
        ));
    }
    let n = if step.is_positive() {
        num_integer::Integer::div_floor(&(&width + &step - 1), &step)
    } else if step.is_negative() {
        num_integer::Integer::div_floor(&(&width + &step + 1), &step)
    } else {
        return value_error("zero step for randrange()");
    };
    if !n.is_positive() {
        return value_error("empty range for randrange()");
    }
    Ok(Value::big(start + step * mt.below(&n)))
}

impl Machine {
    /// A function of `random`, on the module's generator or on `Random` instance `inst`.
    pub(crate) fn call_random(
        &mut self,
        inst: Option<&Rc<StdObj>>,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if f == StdFn::RandomClass {
            no_kwargs("Random", &kwargs)?;
            arity("Random", &args, 0, 1)?;
            return Ok(StdObj::Random(RefCell::new(seeded(args.first())?)).into_value());
        }
        let mut mt = match inst {
            Some(o) => match &**o {
                StdObj::Random(m) => m.borrow().clone(),
                _ => return type_error("not a Random instance"),
            },
            None => GLOBAL.with(|g| g.borrow_mut().get_or_insert_with(Mt::from_clock).clone()),
        };
        let result = self.random_op(&mut mt, f, args, kwargs);
        match inst {
            Some(o) => {
                if let StdObj::Random(m) = &**o {
                    *m.borrow_mut() = mt;
                }
            }
            None => GLOBAL.with(|g| *g.borrow_mut() = Some(mt)),
        }
        result
    }

    fn random_op(&mut self, mt: &mut Mt, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let name = f.name();
        if !matches!(f, StdFn::Choices | StdFn::Sample | StdFn::Gauss) {
            no_kwargs(name, &kwargs)?;
        }
        match f {
            StdFn::Seed => {
                arity("seed", &args, 0, 2)?;
                *mt = seeded(args.first())?;
                Ok(Value::None)
            }
            StdFn::Random => {
                arity("random", &args, 0, 0)?;
                Ok(Value::Float(mt.random()))
            }
            StdFn::GetRandBits => {
                arity("getrandbits", &args, 1, 1)?;
                let k = int_arg(&args[0], "arg")?;
                if k.is_negative() {
                    return value_error("number of bits must be non-negative");
                }
                let k = k.to_u64().filter(|k| *k <= 1 << 24).ok_or_else(|| {
                    Unwind::new(
                        ExcKind::MemoryError,
                        "getrandbits() of more than 2**24 bits",
                    )
                })?;
                crate::interp::budget::charge(k / 32)?;
                Ok(Value::big(mt.getrandbits(k)))
            }
            StdFn::RandRange => randrange(mt, &args),
            StdFn::RandInt => {
                if args.len() != 2 {
                    return type_error(format!(
                        "Random.randint() missing {} required positional argument{}",
                        2usize.saturating_sub(args.len()),
                        if args.len() == 1 {
                            ": 'b'"
                        } else {
                            "s: 'a' and 'b'"
                        }
                    ));
                }
                let b = int_arg(&args[1], "stop")? + 1;
                randrange(mt, &[args[0].clone(), Value::big(b)])
            }
            StdFn::Uniform => {
                arity("uniform", &args, 2, 2)?;
                let (a, b) = (float_arg(&args[0])?, float_arg(&args[1])?);
                Ok(Value::Float(a + (b - a) * mt.random()))
            }
            StdFn::Gauss => {
                let [mu_kw, sigma_kw] = take_kwargs("gauss", kwargs, ["mu", "sigma"])?;
                arity("gauss", &args, 0, 2)?;
                let mu = args
                    .first()
                    .cloned()
                    .or(mu_kw)
                    .map_or(Ok(0.0), |v| float_arg(&v))?;
                let sigma = args
                    .get(1)
                    .cloned()
                    .or(sigma_kw)
                    .map_or(Ok(1.0), |v| float_arg(&v))?;
                Ok(Value::Float(mt.gauss(mu, sigma)))
            }
            StdFn::Choice => {
                arity("choice", &args, 1, 1)?;
                let n = self.std_len(&args[0])?;
                if n == 0 {
                    return fail(ExcKind::IndexError, "Cannot choose from an empty sequence");
                }
                let i = mt.below_usize(n);
                self.getitem(&args[0], &Value::Int(i as i64))
            }
            StdFn::Shuffle => {
                arity("shuffle", &args, 1, 1)?;
                let Value::List(list) = &args[0] else {
                    return Err(Unwind::unsupported(format!(
                        "random.shuffle() of a {}",
                        args[0].type_name()
                    )));
                };
                let n = list.borrow().len();
                for i in (1..n).rev() {
                    self.tick()?;
                    let j = mt.below_usize(i + 1);
                    let mut l = list.borrow_mut();
                    if i < l.len() && j < l.len() {
                        l.swap(i, j);
                    }
                }
                Ok(Value::None)
            }
            StdFn::Choices => self.choices(mt, args, kwargs),
            StdFn::Sample => self.sample(mt, args, kwargs),
            _ => type_error(format!("random.{name} is not a function of random")),
        }
    }

    fn choices(&mut self, mt: &mut Mt, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [w_kw, cum_kw, k_kw] = take_kwargs("choices", kwargs, ["weights", "cum_weights", "k"])?;
        arity("choices", &args, 1, 2)?;
        let population = args[0].clone();
        let weights = args
            .get(1)
            .cloned()
            .or(w_kw)
            .filter(|v| !matches!(v, Value::None));
        let cum = cum_kw.filter(|v| !matches!(v, Value::None));
        let k = match k_kw {
            Some(v) => crate::interp::builtins::index_arg(&v)?,
            None => 1,
        };
        let n = self.std_len(&population)?;
        let mut out = Vec::new();
        let cum: Vec<f64> = match (weights, cum) {
            (None, None) => {
                let nf = n as f64;
                for _ in 0..k.max(0) {
                    self.tick()?;
                    let i = (mt.random() * nf).floor() as i64;
                    out.push(self.getitem(&population, &Value::Int(i))?);
                }
                return Ok(Value::list(out));
            }
            (Some(_), Some(_)) => {
                return type_error("Cannot specify both weights and cumulative weights");
            }
            (Some(w), None) => {
                if w.is_int() {
                    return type_error(format!(
                        "The number of choices must be a keyword argument: k={}",
                        crate::interp::repr::repr(&w)?
                    ));
                }
                let ws = self.collect(w)?;
                let mut acc: Option<Value> = None;
                let mut cum = Vec::with_capacity(ws.len());
                for x in ws {
                    let next = match acc {
                        None => x,
                        Some(a) => {
                            crate::interp::ops::binary(crate::python::ir::BinOp::Add, &a, &x)?
                        }
                    };
                    cum.push(float_arg(&next)?);
                    acc = Some(next);
                }
                cum
            }
            (None, Some(c)) => self
                .collect(c)?
                .iter()
                .map(float_arg)
                .collect::<R<Vec<f64>>>()?,
        };
        if cum.len() != n {
            return value_error("The number of weights does not match the population");
        }
        let total = cum.last().copied().unwrap_or(0.0);
        if total <= 0.0 {
            return value_error("Total of weights must be greater than zero");
        }
        if !total.is_finite() {
            return value_error("Total of weights must be finite");
        }
        let hi = n - 1;
        for _ in 0..k.max(0) {
            self.tick()?;
            let x = mt.random() * total;
            let (mut lo, mut h) = (0usize, hi);
            while lo < h {
                let mid = (lo + h) / 2;
                if x < cum[mid] {
                    h = mid;
                } else {
                    lo = mid + 1;
                }
            }
            out.push(self.getitem(&population, &Value::Int(lo as i64))?);
        }
        Ok(Value::list(out))
    }

    fn sample(&mut self, mt: &mut Mt, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [k_kw, counts] = take_kwargs("sample", kwargs, ["k", "counts"])?;
        arity("sample", &args, 1, 2)?;
        if counts.as_ref().is_some_and(|c| !matches!(c, Value::None)) {
            return Err(Unwind::unsupported("random.sample() with counts="));
        }
        let population = args[0].clone();
        if !matches!(
            population,
            Value::List(_) | Value::Tuple(_) | Value::Str(_) | Value::Range(_)
        ) {
            return type_error("Population must be a sequence.  For dicts or sets, use sorted(d).");
        }
        let Some(k) = args.get(1).cloned().or(k_kw) else {
            return type_error("Random.sample() missing 1 required positional argument: 'k'");
        };
        let k = crate::interp::builtins::index_arg(&k)?;
        let n = self.std_len(&population)?;
        if k < 0 || k as usize > n {
            return value_error("Sample larger than population or is negative");
        }
        let k = k as usize;
        let mut setsize = 21usize;
        if k > 5 {
            let exp = ((k as f64 * 3.0).ln() / 4f64.ln()).ceil() as u32;
            setsize += 4usize.saturating_pow(exp);
        }
        let mut result = Vec::with_capacity(k);
        if n <= setsize {
            let mut pool = self.collect(population)?;
            for i in 0..k {
                self.tick()?;
                let j = mt.below_usize(n - i);
                result.push(pool[j].clone());
                pool[j] = pool[n - i - 1].clone();
            }
        } else {
            let mut selected = std::collections::HashSet::new();
            for _ in 0..k {
                self.tick()?;
                let mut j = mt.below_usize(n);
                while selected.contains(&j) {
                    self.tick()?;
                    j = mt.below_usize(n);
                }
                selected.insert(j);
                result.push(self.getitem(&population, &Value::Int(j as i64))?);
            }
        }
        Ok(Value::list(result))
    }

    /// `len(v)`.
    pub(crate) fn std_len(&mut self, v: &Value) -> R<usize> {
        let n = self.call_builtin(Builtin::Len, vec![v.clone()], Vec::new())?;
        Ok(crate::interp::builtins::index_arg(&n)?.max(0) as usize)
    }
}
