//! `itertools`: lazy iterators (an infinite `count()` under `islice` works), each step
//! charged to the step budget. Combinatoric iterators take their pools up front, as CPython
//! does. `groupby` reads each group ahead when the group is produced, so a group stays
//! complete even if the outer iterator advances first (CPython empties it).

use std::cell::RefCell;
use std::rc::Rc;

use super::StdFn;
use crate::interp::builtins::index_arg;
use crate::interp::call::{Kwargs, arity, no_kwargs, take_kwargs};
use crate::interp::exc::{R, type_error, value_error};
use crate::interp::iter::IterState;
use crate::interp::machine::Machine;
use crate::interp::ops::{self, truthy};
use crate::interp::value::{TypeKind, Value};
use crate::python::ir::BinOp;

/// The buffer `tee` iterators share.
pub(crate) struct TeeShared {
    inner: IterState,
    items: Vec<Value>,
}

/// Where an `itertools` iterator is.
pub(crate) enum StdIter {
    Count {
        next: Value,
        step: Value,
    },
    Cycle {
        inner: Option<IterState>,
        saved: Vec<Value>,
        index: usize,
    },
    Repeat {
        value: Value,
        times: Option<usize>,
    },
    Accumulate {
        inner: IterState,
        func: Value,
        acc: Option<Value>,
        initial: Option<Value>,
    },
    Chain {
        sources: IterState,
        current: Option<IterState>,
    },
    Compress {
        data: IterState,
        selectors: IterState,
    },
    DropWhile {
        pred: Value,
        inner: IterState,
        dropping: bool,
    },
    TakeWhile {
        pred: Value,
        inner: IterState,
        done: bool,
    },
    FilterFalse {
        pred: Value,
        inner: IterState,
    },
    GroupBy {
        inner: IterState,
        key: Value,
        /// The first item of the next group and its key.
        pending: Option<(Value, Value)>,
        started: bool,
    },
    ISlice {
        inner: IterState,
        next: usize,
        stop: Option<usize>,
        step: usize,
        pos: usize,
    },
    StarMap {
        func: Value,
        inner: IterState,
    },
    Tee {
        shared: Rc<RefCell<TeeShared>>,
        index: usize,
    },
    ZipLongest {
        inners: Vec<Option<IterState>>,
        fill: Value,
    },
    /// `product`, `permutations`, `combinations`, `combinations_with_replacement`: index
    /// vectors over materialized pools.
    Combinatoric {
        kind: StdFn,
        pools: Vec<Vec<Value>>,
        indices: Vec<usize>,
        cycles: Vec<usize>,
        r: usize,
        first: bool,
        done: bool,
    },
    Pairwise {
        inner: IterState,
        last: Option<Value>,
    },
    /// `heapq.merge`: each input's next item with its key; the input whose item was
    /// yielded last is advanced on the next call (the generator's laziness).
    Merge(Box<super::heapq::Merge>),
}

impl StdIter {
    pub fn name(&self) -> &'static str {
        match self {
            StdIter::Count { .. } => "count",
            StdIter::Cycle { .. } => "cycle",
            StdIter::Repeat { .. } => "repeat",
            StdIter::Accumulate { .. } => "accumulate",
            StdIter::Chain { .. } => "chain",
            StdIter::Compress { .. } => "compress",
            StdIter::DropWhile { .. } => "dropwhile",
            StdIter::TakeWhile { .. } => "takewhile",
            StdIter::FilterFalse { .. } => "filterfalse",
            StdIter::GroupBy { .. } => "groupby",
            StdIter::ISlice { .. } => "islice",
            StdIter::StarMap { .. } => "starmap",
            StdIter::Tee { .. } => "_tee",
            StdIter::ZipLongest { .. } => "zip_longest",
            StdIter::Combinatoric { kind, .. } => kind.name(),
            StdIter::Pairwise { .. } => "pairwise",
            StdIter::Merge(_) => "merge",
        }
    }

    pub(super) fn into_value(self) -> Value {
        IterState::Std(Box::new(self)).into_value()
    }
}

fn count_arg(v: &Value) -> R<usize> {
    let n = index_arg(v)?;
    Ok(n.max(0) as usize)
}

fn islice_arg(v: &Value, what: &str) -> R<Option<usize>> {
    match v {
        Value::None => Ok(None),
        v if v.is_int() => match index_arg(v) {
            Ok(n) if n >= 0 => Ok(Some(n as usize)),
            _ => value_error(format!(
                "{what} argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
            )),
        },
        _ => value_error(format!(
            "{what} argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
        )),
    }
}

impl Machine {
    pub(super) fn call_itertools(
        &mut self,
        f: StdFn,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        use StdFn::*;
        let name = f.name();
        if !matches!(
            f,
            Count
                | Accumulate
                | GroupBy
                | ZipLongest
                | Product
                | Combinations
                | Permutations
                | Repeat
        ) {
            no_kwargs(name, &kwargs)?;
        }
        let it = match f {
            Count => {
                let [start, step] = take_kwargs(name, kwargs, ["start", "step"])?;
                arity(name, &args, 0, 2)?;
                let next = args.first().cloned().or(start).unwrap_or(Value::Int(0));
                let step = args.get(1).cloned().or(step).unwrap_or(Value::Int(1));
                for v in [&next, &step] {
                    if crate::interp::num::num(v).is_none() {
                        return type_error("a number is required");
                    }
                }
                StdIter::Count { next, step }
            }
            Cycle => {
                arity(name, &args, 1, 1)?;
                StdIter::Cycle {
                    inner: Some(self.iter_of(args[0].clone())?),
                    saved: Vec::new(),
                    index: 0,
                }
            }
            Repeat => {
                let [times_kw] = take_kwargs(name, kwargs, ["times"])?;
                arity(name, &args, 1, 2)?;
                let times = match args.get(1).or(times_kw.as_ref()) {
                    Some(t) => Some(count_arg(t)?),
                    None => None,
                };
                StdIter::Repeat {
                    value: args[0].clone(),
                    times,
                }
            }
            Accumulate => {
                let [func_kw, initial] = take_kwargs(name, kwargs, ["func", "initial"])?;
                arity(name, &args, 1, 2)?;
                StdIter::Accumulate {
                    inner: self.iter_of(args[0].clone())?,
                    func: args.get(1).cloned().or(func_kw).unwrap_or(Value::None),
                    acc: None,
                    initial: initial.filter(|v| !matches!(v, Value::None)),
                }
            }
            Chain => StdIter::Chain {
                sources: self.iter_of(Value::tuple(args))?,
                current: None,
            },
            ChainFromIterable => {
                arity(name, &args, 1, 1)?;
                StdIter::Chain {
                    sources: self.iter_of(args[0].clone())?,
                    current: None,
                }
            }
            Compress => {
                arity(name, &args, 2, 2)?;
                StdIter::Compress {
                    data: self.iter_of(args[0].clone())?,
                    selectors: self.iter_of(args[1].clone())?,
                }
            }
            DropWhile | TakeWhile | FilterFalse | StarMap => {
                arity(name, &args, 2, 2)?;
                let pred = args[0].clone();
                let inner = self.iter_of(args[1].clone())?;
                match f {
                    DropWhile => StdIter::DropWhile {
                        pred,
                        inner,
                        dropping: true,
                    },
                    TakeWhile => StdIter::TakeWhile {
                        pred,
                        inner,
                        done: false,
                    },
                    FilterFalse => StdIter::FilterFalse { pred, inner },
                    _ => StdIter::StarMap { func: pred, inner },
                }
            }
            GroupBy => {
                let [key_kw] = take_kwargs(name, kwargs, ["key"])?;
                arity(name, &args, 1, 2)?;
                StdIter::GroupBy {
                    inner: self.iter_of(args[0].clone())?,
                    key: args.get(1).cloned().or(key_kw).unwrap_or(Value::None),
                    pending: None,
                    started: false,
                }
            }
            ISlice => {
                if args.len() < 2 || args.len() > 4 {
                    return type_error(format!(
                        "islice expected at {} 4 arguments, got {}",
                        if args.len() < 2 { "least" } else { "most" },
                        args.len()
                    ));
                }
                let inner = self.iter_of(args[0].clone())?;
                let (start, stop, step) = if args.len() == 2 {
                    (Some(0), islice_arg(&args[1], "Stop")?, Some(1))
                } else {
                    let start = islice_arg(&args[1], "Indices")?;
                    let stop = islice_arg(&args[2], "Stop")?;
                    let step = match args.get(3) {
                        Some(s) => match islice_arg(s, "Step")? {
                            Some(0) => {
                                return value_error(
                                    "Step for islice() must be a positive integer or None.",
                                );
                            }
                            s => s,
                        },
                        None => Some(1),
                    };
                    (start, stop, step)
                };
                StdIter::ISlice {
                    inner,
                    next: start.unwrap_or(0),
                    stop,
                    step: step.unwrap_or(1),
                    pos: 0,
                }
            }
            Tee => {
                arity(name, &args, 1, 2)?;
                let n = match args.get(1) {
                    Some(v) => index_arg(v)?,
                    None => 2,
                };
                if n < 0 {
                    return value_error("n must be >= 0");
                }
                let shared = Rc::new(RefCell::new(TeeShared {
                    inner: self.iter_of(args[0].clone())?,
                    items: Vec::new(),
                }));
                let its = (0..n)
                    .map(|_| {
                        StdIter::Tee {
                            shared: shared.clone(),
                            index: 0,
                        }
                        .into_value()
                    })
                    .collect();
                return Ok(Value::tuple(its));
            }
            ZipLongest => {
                let [fill] = take_kwargs(name, kwargs, ["fillvalue"])?;
                let mut inners = Vec::with_capacity(args.len());
                for a in args {
                    inners.push(Some(self.iter_of(a)?));
                }
                StdIter::ZipLongest {
                    inners,
                    fill: fill.unwrap_or(Value::None),
                }
            }
            Product => {
                let [repeat] = take_kwargs(name, kwargs, ["repeat"])?;
                let repeat = match repeat {
                    Some(r) => {
                        let r = index_arg(&r)?;
                        if r < 0 {
                            return value_error("repeat argument cannot be negative");
                        }
                        r as usize
                    }
                    None => 1,
                };
                let mut pools = Vec::new();
                for a in args {
                    pools.push(self.collect(a)?);
                }
                let mut all = Vec::new();
                for _ in 0..repeat {
                    crate::interp::budget::charge_items(pools.len())?;
                    all.extend(pools.iter().cloned());
                }
                let r = all.len();
                StdIter::Combinatoric {
                    kind: f,
                    done: all.iter().any(Vec::is_empty),
                    pools: all,
                    indices: vec![0; r],
                    cycles: Vec::new(),
                    r,
                    first: true,
                }
            }
            Permutations | Combinations | CombinationsWithReplacement => {
                let [r_kw] = if f == CombinationsWithReplacement {
                    [None]
                } else {
                    take_kwargs(name, kwargs, ["r"])?
                };
                let max = if f == Permutations { 2 } else { 2 };
                let min = if f == Permutations { 1 } else { 2 };
                if args.len() < min || args.len() > max {
                    return type_error(format!(
                        "{name}() missing required argument '{}' (pos {})",
                        if args.is_empty() { "iterable" } else { "r" },
                        args.len() + 1
                    ));
                }
                let pool = self.collect(args[0].clone())?;
                let n = pool.len();
                let r = match args.get(1).cloned().or(r_kw) {
                    Some(Value::None) | None => n,
                    Some(v) => {
                        let r = index_arg(&v)?;
                        if r < 0 {
                            return value_error("r must be non-negative");
                        }
                        r as usize
                    }
                };
                let (indices, cycles, done) = match f {
                    Permutations => (
                        (0..n).collect(),
                        (n.saturating_sub(r) + 1..=n).rev().collect(),
                        r > n,
                    ),
                    Combinations => ((0..r).collect(), Vec::new(), r > n),
                    _ => (vec![0; r], Vec::new(), n == 0 && r > 0),
                };
                StdIter::Combinatoric {
                    kind: f,
                    pools: vec![pool],
                    indices,
                    cycles,
                    r,
                    first: true,
                    done,
                }
            }
            Pairwise => {
                arity(name, &args, 1, 1)?;
                StdIter::Pairwise {
                    inner: self.iter_of(args[0].clone())?,
                    last: None,
                }
            }
            _ => return type_error(format!("{name} is not in itertools")),
        };
        Ok(it.into_value())
    }

    fn pred(&mut self, pred: &Value, x: &Value) -> R<bool> {
        if matches!(pred, Value::None) {
            return Ok(truthy(x));
        }
        Ok(truthy(&self.call(pred, vec![x.clone()], Vec::new())?))
    }

    /// The next item of an `itertools` iterator.
    pub(crate) fn std_next(&mut self, it: &mut StdIter) -> R<Option<Value>> {
        self.tick()?;
        match it {
            StdIter::Count { next, step } => {
                let v = next.clone();
                *next = ops::binary(BinOp::Add, next, step)?;
                Ok(Some(v))
            }
            StdIter::Cycle {
                inner,
                saved,
                index,
            } => {
                if let Some(i) = inner {
                    match self.next(i)? {
                        Some(v) => {
                            crate::interp::budget::produce(1, 16)?;
                            saved.push(v.clone());
                            return Ok(Some(v));
                        }
                        None => *inner = None,
                    }
                }
                if saved.is_empty() {
                    return Ok(None);
                }
                let v = saved[*index % saved.len()].clone();
                *index = (*index + 1) % saved.len();
                Ok(Some(v))
            }
            StdIter::Repeat { value, times } => match times {
                Some(0) => Ok(None),
                Some(n) => {
                    *n -= 1;
                    Ok(Some(value.clone()))
                }
                None => Ok(Some(value.clone())),
            },
            StdIter::Accumulate {
                inner,
                func,
                acc,
                initial,
            } => {
                if let Some(init) = initial.take() {
                    *acc = Some(init.clone());
                    return Ok(Some(init));
                }
                let Some(x) = self.next(inner)? else {
                    return Ok(None);
                };
                let v = match acc.take() {
                    None => x,
                    Some(a) => match func {
                        Value::None => ops::binary(BinOp::Add, &a, &x)?,
                        f => {
                            let f = f.clone();
                            self.call(&f, vec![a, x], Vec::new())?
                        }
                    },
                };
                *acc = Some(v.clone());
                Ok(Some(v))
            }
            StdIter::Chain { sources, current } => loop {
                self.tick()?;
                if let Some(c) = current {
                    if let Some(v) = self.next(c)? {
                        return Ok(Some(v));
                    }
                    *current = None;
                }
                match self.next(sources)? {
                    Some(src) => *current = Some(self.iter_of(src)?),
                    None => return Ok(None),
                }
            },
            StdIter::Compress { data, selectors } => loop {
                self.tick()?;
                let Some(d) = self.next(data)? else {
                    return Ok(None);
                };
                let Some(s) = self.next(selectors)? else {
                    return Ok(None);
                };
                if truthy(&s) {
                    return Ok(Some(d));
                }
            },
            StdIter::DropWhile {
                pred,
                inner,
                dropping,
            } => loop {
                self.tick()?;
                let Some(x) = self.next(inner)? else {
                    return Ok(None);
                };
                if *dropping {
                    let p = pred.clone();
                    if self.pred(&p, &x)? {
                        continue;
                    }
                    *dropping = false;
                }
                return Ok(Some(x));
            },
            StdIter::TakeWhile { pred, inner, done } => {
                if *done {
                    return Ok(None);
                }
                let Some(x) = self.next(inner)? else {
                    return Ok(None);
                };
                let p = pred.clone();
                if self.pred(&p, &x)? {
                    Ok(Some(x))
                } else {
                    *done = true;
                    Ok(None)
                }
            }
            StdIter::FilterFalse { pred, inner } => loop {
                self.tick()?;
                let Some(x) = self.next(inner)? else {
                    return Ok(None);
                };
                let p = pred.clone();
                if !self.pred(&p, &x)? {
                    return Ok(Some(x));
                }
            },
            StdIter::GroupBy {
                inner,
                key,
                pending,
                started,
            } => {
                let key = key.clone();
                let first = match pending.take() {
                    Some(p) => Some(p),
                    None if !*started => match self.next(inner)? {
                        Some(x) => {
                            let k = self.key_of_item(&key, &x)?;
                            Some((k, x))
                        }
                        None => None,
                    },
                    None => None,
                };
                *started = true;
                let Some((k, x)) = first else {
                    return Ok(None);
                };
                let mut group = vec![x];
                loop {
                    self.tick()?;
                    let Some(y) = self.next(inner)? else {
                        break;
                    };
                    let ky = self.key_of_item(&key, &y)?;
                    if ops::eq(&ky, &k)? {
                        crate::interp::budget::produce(1, 16)?;
                        group.push(y);
                    } else {
                        *pending = Some((ky, y));
                        break;
                    }
                }
                let g = IterState::Items {
                    items: group,
                    index: 0,
                    kind: TypeKind::ListIterator,
                }
                .into_value();
                Ok(Some(Value::tuple(vec![k, g])))
            }
            StdIter::ISlice {
                inner,
                next,
                stop,
                step,
                pos,
            } => {
                if stop.is_some_and(|s| *next >= s) {
                    // CPython consumes up to `stop` before finishing.
                    while stop.is_some_and(|s| *pos < s) {
                        self.tick()?;
                        if self.next(inner)?.is_none() {
                            break;
                        }
                        *pos += 1;
                    }
                    *next = usize::MAX;
                    *stop = Some(0);
                    return Ok(None);
                }
                loop {
                    self.tick()?;
                    let Some(x) = self.next(inner)? else {
                        *stop = Some(0);
                        *next = usize::MAX;
                        return Ok(None);
                    };
                    *pos += 1;
                    if *pos - 1 == *next {
                        *next = next.saturating_add(*step);
                        return Ok(Some(x));
                    }
                }
            }
            StdIter::StarMap { func, inner } => {
                let Some(x) = self.next(inner)? else {
                    return Ok(None);
                };
                let args = self.collect(x)?;
                let f = func.clone();
                self.call(&f, args, Vec::new()).map(Some)
            }
            StdIter::Tee { shared, index } => {
                let buffered = shared.borrow().items.get(*index).cloned();
                let v = match buffered {
                    Some(v) => v,
                    None => {
                        let mut inner =
                            std::mem::replace(&mut shared.borrow_mut().inner, IterState::Running);
                        let r = self.next(&mut inner);
                        shared.borrow_mut().inner = inner;
                        match r? {
                            Some(v) => {
                                crate::interp::budget::produce(1, 16)?;
                                shared.borrow_mut().items.push(v.clone());
                                v
                            }
                            None => return Ok(None),
                        }
                    }
                };
                *index += 1;
                Ok(Some(v))
            }
            StdIter::ZipLongest { inners, fill } => {
                let mut items = Vec::with_capacity(inners.len());
                let mut live = false;
                for slot in inners.iter_mut() {
                    let v = match slot {
                        Some(i) => match self.next(i)? {
                            Some(v) => {
                                live = true;
                                v
                            }
                            None => {
                                *slot = None;
                                fill.clone()
                            }
                        },
                        None => fill.clone(),
                    };
                    items.push(v);
                }
                if !live {
                    inners.clear();
                    return Ok(None);
                }
                Ok(Some(Value::tuple(items)))
            }
            StdIter::Combinatoric {
                kind,
                pools,
                indices,
                cycles,
                r,
                first,
                done,
            } => {
                if *done {
                    return Ok(None);
                }
                let r = *r;
                if !*first && !advance(*kind, pools, indices, cycles, r) {
                    *done = true;
                    return Ok(None);
                }
                *first = false;
                let item: Vec<Value> = match kind {
                    StdFn::Product => indices
                        .iter()
                        .zip(pools.iter())
                        .map(|(i, p)| p[*i].clone())
                        .collect(),
                    _ => indices[..r].iter().map(|i| pools[0][*i].clone()).collect(),
                };
                Ok(Some(Value::tuple(item)))
            }
            StdIter::Pairwise { inner, last } => {
                if last.is_none() {
                    match self.next(inner)? {
                        Some(v) => *last = Some(v),
                        None => return Ok(None),
                    }
                }
                let Some(b) = self.next(inner)? else {
                    *last = None;
                    return Ok(None);
                };
                let a = last.replace(b.clone()).unwrap_or(Value::None);
                Ok(Some(Value::tuple(vec![a, b])))
            }
            StdIter::Merge(m) => self.merge_next(m),
        }
    }

    pub(super) fn key_of_item(&mut self, key: &Value, x: &Value) -> R<Value> {
        match key {
            Value::None => Ok(x.clone()),
            k => self.call(k, vec![x.clone()], Vec::new()),
        }
    }
}

/// Steps the index vector of a combinatoric iterator as CPython's C code does; `false`
/// when there is no next item.
fn advance(
    kind: StdFn,
    pools: &[Vec<Value>],
    indices: &mut [usize],
    cycles: &mut [usize],
    r: usize,
) -> bool {
    match kind {
        StdFn::Product => {
            for i in (0..indices.len()).rev() {
                indices[i] += 1;
                if indices[i] < pools[i].len() {
                    return true;
                }
                indices[i] = 0;
            }
            false
        }
        StdFn::Combinations => {
            let n = pools[0].len();
            let Some(i) = (0..r).rev().find(|&i| indices[i] != i + n - r) else {
                return false;
            };
            indices[i] += 1;
            for j in i + 1..r {
                indices[j] = indices[j - 1] + 1;
            }
            true
        }
        StdFn::CombinationsWithReplacement => {
            let n = pools[0].len();
            let Some(i) = (0..r).rev().find(|&i| indices[i] != n - 1) else {
                return false;
            };
            let v = indices[i] + 1;
            for slot in indices[i..r].iter_mut() {
                *slot = v;
            }
            true
        }
        _ => {
            // permutations
            let n = pools[0].len();
            for i in (0..r).rev() {
                cycles[i] -= 1;
                if cycles[i] == 0 {
                    indices[i..].rotate_left(1);
                    cycles[i] = n - i;
                } else {
                    let j = cycles[i];
                    indices.swap(i, n - j);
                    return true;
                }
            }
            false
        }
    }
}
