//! The standard-library modules implemented natively beyond `math`, `sys` and `typing`:
//! `string`, `random`, `heapq`, `bisect`, `functools`, `itertools`, `operator`, `copy`,
//! `json` (one file each), and the refusal of every other import.
//!
//! Module functions are [`StdFn`]s (a [`Builtin::Std`]); objects they create (partials,
//! `Random` instances, item getters, `cmp_to_key` keys) are [`StdObj`]s (a `Value::Std`);
//! lazy iterators (`itertools`) are [`StdIter`]s inside an `IterState::Std`.

mod bisect;
mod collections;
mod copy;
mod functools;
mod heapq;
mod itertools;
mod json;
mod json_decode;
mod operator;
mod public_names;
mod random;
mod re;
mod statistics;

use std::cell::RefCell;
use std::rc::Rc;

use super::builtins::Builtin;
use super::call::Kwargs;
use super::exc::{ExcKind, R, Unwind};
use super::machine::Machine;
use super::value::{Native, TypeKind, Value};

pub(crate) use collections::{Flavor, counter_op, dict_repr, has_flavored_method, is_proxy};
pub(crate) use itertools::StdIter;

/// A module of this file's set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StdModule {
    String,
    Random,
    Heapq,
    Bisect,
    Functools,
    Itertools,
    Operator,
    Copy,
    Json,
    Collections,
    Statistics,
    Re,
    /// `math` functions that iterate (the rest of `math` is in `modules.rs`).
    Math,
}

const MODULES: &[(&str, StdModule)] = &[
    ("string", StdModule::String),
    ("random", StdModule::Random),
    ("heapq", StdModule::Heapq),
    ("bisect", StdModule::Bisect),
    ("functools", StdModule::Functools),
    ("itertools", StdModule::Itertools),
    ("operator", StdModule::Operator),
    ("copy", StdModule::Copy),
    ("json", StdModule::Json),
    ("collections", StdModule::Collections),
    ("statistics", StdModule::Statistics),
    ("re", StdModule::Re),
];

/// Modules of CPython's standard library that reach outside the sandbox (files, processes,
/// the network, the interpreter's internals): importing one is an `ImportError` saying so.
const SANDBOXED: &[&str] = &[
    "os",
    "io",
    "sys.modules",
    "subprocess",
    "socket",
    "shutil",
    "pathlib",
    "glob",
    "tempfile",
    "urllib",
    "http",
    "ftplib",
    "smtplib",
    "ssl",
    "select",
    "signal",
    "threading",
    "multiprocessing",
    "asyncio",
    "ctypes",
    "importlib",
    "pickle",
    "marshal",
    "shelve",
    "sqlite3",
    "builtins",
    "gc",
    "inspect",
    "resource",
    "pty",
    "fcntl",
    "posix",
    "mmap",
    "webbrowser",
    "platform",
    "time",
    "datetime",
    "zipfile",
    "tarfile",
    "gzip",
    "csv",
    "logging",
    "unittest",
    "doctest",
    "pdb",
    "code",
    "codeop",
    "runpy",
    "site",
    "traceback",
];

/// The provided module named `name`.
pub(crate) fn module(name: &str) -> Option<StdModule> {
    MODULES.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

impl StdModule {
    pub fn name(self) -> &'static str {
        MODULES
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
}

/// The error of `import name` for a module the interpreter does not provide:
/// `ImportError` naming the sandbox for modules that reach outside it, CPython's
/// `ModuleNotFoundError` for the others.
pub(crate) fn import_error(name: &str) -> (ExcKind, String) {
    let top = name.split('.').next().unwrap_or(name);
    if SANDBOXED.contains(&top) {
        (
            ExcKind::ImportError,
            format!(
                "module '{top}' is not available in the sandbox (no file, process or network access)"
            ),
        )
    } else {
        // CPython names the first part it cannot find: the top-level package.
        (
            ExcKind::ModuleNotFoundError,
            format!("No module named '{top}'"),
        )
    }
}

/// `module.name` for a public name of CPython's module `module` the interpreter does not
/// define: unavailable, refused by name when used.
pub(crate) fn unmodelled(module: &str, name: &str) -> Option<Value> {
    let (_, names) = public_names::PUBLIC_NAMES
        .iter()
        .find(|(m, _)| *m == module)?;
    names
        .contains(&name)
        .then(|| Value::Unavailable(format!("{module}.{name}").into()))
}

/// `module.name`.
pub(crate) fn attr(m: StdModule, name: &str) -> Option<Value> {
    if m == StdModule::String {
        return string_constant(name).map(Value::str);
    }
    if m == StdModule::Random {
        if let Some(v) = random::constant(name) {
            return Some(v);
        }
    }
    if m == StdModule::Statistics && name == "StatisticsError" {
        return Some(statistics::error_class());
    }
    if m == StdModule::Re {
        if let Some(v) = re::constant(name) {
            return Some(v);
        }
    }
    if m == StdModule::Json && name == "JSONDecodeError" {
        return Some(json_decode::error_class());
    }
    StdFn::find(m, name).map(|f| Value::Builtin(Builtin::Std(f)))
}

/// `f.name` of a module function: `chain.from_iterable`.
pub(crate) fn fn_attr(f: StdFn, name: &str) -> Option<Value> {
    match (f, name) {
        (StdFn::Chain, "from_iterable") => {
            Some(Value::Builtin(Builtin::Std(StdFn::ChainFromIterable)))
        }
        _ => None,
    }
}

fn string_constant(name: &str) -> Option<&'static str> {
    Some(match name {
        "ascii_letters" => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "ascii_lowercase" => "abcdefghijklmnopqrstuvwxyz",
        "ascii_uppercase" => "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "digits" => "0123456789",
        "hexdigits" => "0123456789abcdefABCDEF",
        "octdigits" => "01234567",
        "punctuation" => "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        "whitespace" => " \t\n\r\x0b\x0c",
        "printable" => {
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n\r\x0b\x0c"
        }
        _ => return None,
    })
}

macro_rules! std_fns {
    ($($variant:ident = $module:ident . $name:literal,)*) => {
        /// A function of one of the modules of [`StdModule`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum StdFn { $($variant,)* }

        const FUNCTIONS: &[(StdModule, &str, StdFn)] = &[
            $((StdModule::$module, $name, StdFn::$variant),)*
        ];
    };
}

std_fns! {
    HeapPush = Heapq."heappush",
    HeapPop = Heapq."heappop",
    Heapify = Heapq."heapify",
    HeapPushPop = Heapq."heappushpop",
    HeapReplace = Heapq."heapreplace",
    NLargest = Heapq."nlargest",
    NSmallest = Heapq."nsmallest",
    Merge = Heapq."merge",
    BisectLeft = Bisect."bisect_left",
    BisectRight = Bisect."bisect_right",
    Bisect = Bisect."bisect",
    InsortLeft = Bisect."insort_left",
    InsortRight = Bisect."insort_right",
    Insort = Bisect."insort",
    Reduce = Functools."reduce",
    Partial = Functools."partial",
    CmpToKey = Functools."cmp_to_key",
    LruCache = Functools."lru_cache",
    Cache = Functools."cache",
    Wraps = Functools."wraps",
    Count = Itertools."count",
    Cycle = Itertools."cycle",
    Repeat = Itertools."repeat",
    Accumulate = Itertools."accumulate",
    Chain = Itertools."chain",
    ChainFromIterable = Itertools."chain.from_iterable",
    Compress = Itertools."compress",
    DropWhile = Itertools."dropwhile",
    TakeWhile = Itertools."takewhile",
    FilterFalse = Itertools."filterfalse",
    GroupBy = Itertools."groupby",
    ISlice = Itertools."islice",
    StarMap = Itertools."starmap",
    Tee = Itertools."tee",
    ZipLongest = Itertools."zip_longest",
    Product = Itertools."product",
    Permutations = Itertools."permutations",
    Combinations = Itertools."combinations",
    CombinationsWithReplacement = Itertools."combinations_with_replacement",
    Pairwise = Itertools."pairwise",
    OpAdd = Operator."add",
    OpSub = Operator."sub",
    OpMul = Operator."mul",
    OpTrueDiv = Operator."truediv",
    OpFloorDiv = Operator."floordiv",
    OpMod = Operator."mod",
    OpPow = Operator."pow",
    OpNeg = Operator."neg",
    OpPos = Operator."pos",
    OpNot = Operator."not_",
    OpTruth = Operator."truth",
    OpAbs = Operator."abs",
    OpAnd = Operator."and_",
    OpOr = Operator."or_",
    OpXor = Operator."xor",
    OpInvert = Operator."invert",
    OpLShift = Operator."lshift",
    OpRShift = Operator."rshift",
    OpLt = Operator."lt",
    OpLe = Operator."le",
    OpEq = Operator."eq",
    OpNe = Operator."ne",
    OpGt = Operator."gt",
    OpGe = Operator."ge",
    OpIs = Operator."is_",
    OpIsNot = Operator."is_not",
    OpContains = Operator."contains",
    OpGetItem = Operator."getitem",
    OpIndex = Operator."index",
    OpConcat = Operator."concat",
    OpItemGetter = Operator."itemgetter",
    OpAttrGetter = Operator."attrgetter",
    OpMethodCaller = Operator."methodcaller",
    Copy = Copy."copy",
    DeepCopy = Copy."deepcopy",
    Seed = Random."seed",
    Random = Random."random",
    GetRandBits = Random."getrandbits",
    RandRange = Random."randrange",
    RandInt = Random."randint",
    Choice = Random."choice",
    Choices = Random."choices",
    Shuffle = Random."shuffle",
    Sample = Random."sample",
    Uniform = Random."uniform",
    Gauss = Random."gauss",
    RandomClass = Random."Random",
    Counter = Collections."Counter",
    DefaultDict = Collections."defaultdict",
    OrderedDict = Collections."OrderedDict",
    Deque = Collections."deque",
    Mean = Statistics."mean",
    FMean = Statistics."fmean",
    Median = Statistics."median",
    MedianLow = Statistics."median_low",
    MedianHigh = Statistics."median_high",
    Mode = Statistics."mode",
    MultiMode = Statistics."multimode",
    Variance = Statistics."variance",
    PVariance = Statistics."pvariance",
    Stdev = Statistics."stdev",
    PStdev = Statistics."pstdev",
    HarmonicMean = Statistics."harmonic_mean",
    GeometricMean = Statistics."geometric_mean",
    Quantiles = Statistics."quantiles",
    MedianGrouped = Statistics."median_grouped",
    Prod = Math."prod",
    FSum = Math."fsum",
    Dumps = Json."dumps",
    Loads = Json."loads",
    ReCompile = Re."compile",
    ReSearch = Re."search",
    ReMatch = Re."match",
    ReFullMatch = Re."fullmatch",
    ReFindAll = Re."findall",
    ReFindIter = Re."finditer",
    ReSub = Re."sub",
    ReSubn = Re."subn",
    ReSplit = Re."split",
    ReEscape = Re."escape",
    RePurge = Re."purge",
}

impl StdFn {
    fn find(m: StdModule, name: &str) -> Option<StdFn> {
        FUNCTIONS
            .iter()
            .find(|(fm, n, _)| *fm == m && *n == name)
            .map(|(_, _, f)| *f)
    }

    /// The function's `__name__`.
    pub fn name(self) -> &'static str {
        FUNCTIONS
            .iter()
            .find(|(_, _, f)| *f == self)
            .map_or("?", |(_, n, _)| n.rsplit('.').next().unwrap_or(n))
    }

    pub fn module(self) -> StdModule {
        FUNCTIONS
            .iter()
            .find(|(_, _, f)| *f == self)
            .map_or(StdModule::String, |(m, _, _)| *m)
    }

    /// Whether it is a class in CPython (`Random`, `partial`, the `itertools` iterators):
    /// its repr is `<class 'module.name'>`.
    fn is_class(self) -> bool {
        use StdFn::*;
        self.module() == StdModule::Itertools
            || matches!(
                self,
                RandomClass
                    | Partial
                    | OpItemGetter
                    | OpAttrGetter
                    | OpMethodCaller
                    | Counter
                    | DefaultDict
                    | OrderedDict
                    | Deque
            )
    }

    pub fn repr(self) -> String {
        if self.is_class() {
            let module = match self.module() {
                StdModule::Functools => "functools",
                StdModule::Operator => "operator",
                StdModule::Collections => "collections",
                m => m.name(),
            };
            format!("<class '{module}.{}'>", self.name())
        } else {
            format!("<built-in function {}>", self.name())
        }
    }
}

/// An object made by a module function.
pub(crate) enum StdObj {
    Partial {
        func: Value,
        args: Vec<Value>,
        kwargs: Kwargs,
    },
    /// The key `cmp_to_key(cmp)` wraps around `obj`, or the key function itself (`obj` None).
    CmpKey {
        cmp: Value,
        obj: Option<Value>,
    },
    /// A function memoized by `lru_cache`/`cache`.
    Cached(RefCell<functools::Cache>),
    /// `lru_cache(maxsize=...)` waiting for its function.
    CacheDecorator {
        maxsize: Option<usize>,
    },
    /// `wraps(f)` waiting for its wrapper function.
    Wraps(Value),
    ItemGetter(Vec<Value>),
    AttrGetter(Vec<Rc<str>>),
    MethodCaller {
        name: Rc<str>,
        args: Vec<Value>,
        kwargs: Kwargs,
    },
    Random(RefCell<random::Mt>),
    /// A `collections.deque` and its `maxlen`.
    Deque(RefCell<std::collections::VecDeque<Value>>, Option<usize>),
    /// An `re.Pattern`.
    RePattern(re::Pattern),
    /// An `re.Match`.
    ReMatch(re::MatchObj),
    /// A closure cell (`f.__closure__[i]`), read through `cell_contents`.
    Cell(crate::interp::value::Cell),
    /// A `slice` object: start, stop, step (see `interp::slice`).
    Slice([Value; 3]),
}

impl StdObj {
    pub fn type_name(&self) -> &'static str {
        match self {
            StdObj::Partial { .. } => "functools.partial",
            StdObj::CmpKey { obj: None, .. } => "functools.KeyWrapper",
            StdObj::CmpKey { .. } => "functools.KeyWrapper",
            StdObj::Cached(_) => "functools._lru_cache_wrapper",
            StdObj::CacheDecorator { .. } | StdObj::Wraps(_) => "function",
            StdObj::ItemGetter(_) => "operator.itemgetter",
            StdObj::AttrGetter(_) => "operator.attrgetter",
            StdObj::MethodCaller { .. } => "operator.methodcaller",
            StdObj::Random(_) => "random.Random",
            StdObj::Deque(..) => "collections.deque",
            StdObj::RePattern(_) => "re.Pattern",
            StdObj::ReMatch(_) => "re.Match",
            StdObj::Cell(_) => "cell",
            StdObj::Slice(_) => "slice",
        }
    }

    pub fn is_callable(&self) -> bool {
        !matches!(
            self,
            StdObj::Random(_)
                | StdObj::CmpKey { obj: Some(_), .. }
                | StdObj::Deque(..)
                | StdObj::RePattern(_)
                | StdObj::ReMatch(_)
                | StdObj::Cell(_)
                | StdObj::Slice(_)
        )
    }

    /// `len(obj)` for the sized objects (deques).
    pub fn len(&self) -> Option<usize> {
        match self {
            StdObj::Deque(q, _) => Some(q.borrow().len()),
            _ => None,
        }
    }

    pub fn truthy(&self) -> bool {
        self.len() != Some(0)
    }

    pub fn into_value(self) -> Value {
        Value::Std(Rc::new(self))
    }
}

/// `repr` of an object made by a module function.
pub(crate) fn obj_repr(o: &StdObj, repr: &dyn Fn(&Value) -> R<String>) -> R<String> {
    Ok(match o {
        StdObj::Slice(p) => crate::interp::slice::repr(p, repr)?,
        StdObj::Partial { func, args, kwargs } => {
            let mut parts = vec![repr(func)?];
            for a in args {
                parts.push(repr(a)?);
            }
            for (k, v) in kwargs {
                parts.push(format!("{k}={}", repr(v)?));
            }
            format!("functools.partial({})", parts.join(", "))
        }
        StdObj::ItemGetter(items) => format!(
            "operator.itemgetter({})",
            items.iter().map(repr).collect::<R<Vec<_>>>()?.join(", ")
        ),
        StdObj::AttrGetter(names) => format!(
            "operator.attrgetter({})",
            names
                .iter()
                .map(|n| super::repr::str_repr(n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StdObj::Cached(c) => repr(&c.borrow().func)?,
        StdObj::Random(_) => "<random.Random object>".into(),
        StdObj::Deque(q, maxlen) => {
            let items: Vec<Value> = q.borrow().iter().cloned().collect();
            let inner = items.iter().map(repr).collect::<R<Vec<_>>>()?.join(", ");
            match maxlen {
                Some(m) => format!("deque([{inner}], maxlen={m})"),
                None => format!("deque([{inner}])"),
            }
        }
        StdObj::RePattern(_) | StdObj::ReMatch(_) => re::repr(o).unwrap_or_default(),
        other => format!("<{} object>", other.type_name()),
    })
}

impl Machine {
    /// Calls a module function.
    pub fn call_std(&mut self, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match f.module() {
            StdModule::Heapq => self.call_heapq(f, args, kwargs),
            StdModule::Bisect => self.call_bisect(f, args, kwargs),
            StdModule::Functools => self.call_functools(f, args, kwargs),
            StdModule::Itertools => self.call_itertools(f, args, kwargs),
            StdModule::Operator => self.call_operator(f, args, kwargs),
            StdModule::Copy => self.call_copy(f, args, kwargs),
            StdModule::Random => self.call_random(None, f, args, kwargs),
            StdModule::Json => self.call_json(f, args, kwargs),
            StdModule::Collections => self.call_collections(f, args, kwargs),
            StdModule::Statistics => self.call_statistics(f, args, kwargs),
            StdModule::Math => self.call_math_iter(f, args, kwargs),
            StdModule::Re => self.call_re(f, args, kwargs),
            StdModule::String => Err(Unwind::new(ExcKind::TypeError, "not callable")),
        }
    }

    /// Calls an object made by a module function.
    pub fn call_std_obj(&mut self, o: &Rc<StdObj>, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match &**o {
            StdObj::Partial {
                func,
                args: bound,
                kwargs: kw,
            } => {
                let mut all = bound.clone();
                all.extend(args);
                let mut kws = kw.clone();
                for (k, v) in kwargs {
                    match kws.iter_mut().find(|(n, _)| *n == k) {
                        Some(slot) => slot.1 = v,
                        None => kws.push((k, v)),
                    }
                }
                let func = func.clone();
                self.call(&func, all, kws)
            }
            StdObj::CmpKey { cmp, obj: None } => {
                super::call::no_kwargs("K", &kwargs)?;
                super::call::arity("K", &args, 1, 1)?;
                let obj = args.into_iter().next();
                Ok(StdObj::CmpKey {
                    cmp: cmp.clone(),
                    obj,
                }
                .into_value())
            }
            StdObj::Cached(_) => self.call_cached(o, args, kwargs),
            StdObj::CacheDecorator { maxsize } => {
                super::call::arity("lru_cache", &args, 1, 1)?;
                let func = args.into_iter().next().unwrap_or(Value::None);
                Ok(functools::cached(func, *maxsize))
            }
            StdObj::Wraps(wrapped) => {
                super::call::arity("wraps", &args, 1, 1)?;
                let wrapper = args.into_iter().next().unwrap_or(Value::None);
                let mut copied = Vec::new();
                for name in crate::interp::funcattr::WRAPPER_ASSIGNMENTS {
                    if let Ok(v) = self.getattr(wrapped, name) {
                        copied.push((name, v));
                    }
                }
                let lookup = |n: &str| copied.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone());
                crate::interp::funcattr::update_wrapper(&wrapper, wrapped, lookup);
                Ok(wrapper)
            }
            StdObj::ItemGetter(_) | StdObj::AttrGetter(_) | StdObj::MethodCaller { .. } => {
                self.call_getter(o, args, kwargs)
            }
            StdObj::Random(_)
            | StdObj::CmpKey { .. }
            | StdObj::Deque(..)
            | StdObj::RePattern(_)
            | StdObj::ReMatch(_)
            | StdObj::Cell(_)
            | StdObj::Slice(_) => {
                super::exc::type_error(format!("'{}' object is not callable", o.type_name()))
            }
        }
    }

    /// `obj.name` of an object made by a module function.
    pub fn std_obj_attr(&mut self, o: &Rc<StdObj>, name: &str) -> Option<R<Value>> {
        match (&**o, name) {
            (StdObj::Partial { func, .. }, "func") => Some(Ok(func.clone())),
            (StdObj::Partial { args, .. }, "args") => Some(Ok(Value::tuple(args.clone()))),
            (StdObj::Partial { kwargs, .. }, "keywords") => {
                let mut d = crate::interp::dict::Dict::default();
                for (k, v) in kwargs {
                    let k = Value::str(&**k);
                    match crate::interp::dict::key_of(&k) {
                        Ok(key) => d.insert(key, k, v.clone()),
                        Err(e) => return Some(Err(e)),
                    }
                }
                Some(Ok(Value::Dict(Rc::new(RefCell::new(d)))))
            }
            (StdObj::Cached(c), "__name__") => Some(Ok(match &c.borrow().func {
                Value::Function(f) => Value::str(&*f.code.name),
                _ => Value::str("?"),
            })),
            (StdObj::Cached(c), "__wrapped__") => Some(Ok(c.borrow().func.clone())),
            (StdObj::Cached(_), "cache_info" | "cache_clear") => Some(Ok(bound_method(o, name))),
            (StdObj::Random(_), _) if random::is_method(name) => Some(Ok(bound_method(o, name))),
            (StdObj::Cell(c), "cell_contents") => Some(match &*c.borrow() {
                Some(v) => Ok(v.clone()),
                None => Err(Unwind::new(ExcKind::ValueError, "Cell is empty")),
            }),
            (StdObj::Slice(_), "indices") => Some(Ok(bound_method(o, name))),
            (StdObj::Slice(p), _) => crate::interp::slice::attr(p, name).map(Ok),
            (StdObj::Deque(_, maxlen), "maxlen") => {
                Some(Ok(maxlen.map_or(Value::None, |m| Value::Int(m as i64))))
            }
            (StdObj::Deque(..), _) if collections::DEQUE_METHODS.contains(&name) => {
                Some(Ok(bound_method(o, name)))
            }
            (StdObj::RePattern(_) | StdObj::ReMatch(_), _) => {
                if re::is_method(o, name) {
                    Some(Ok(bound_method(o, name)))
                } else {
                    re::attr(o, name).map(Ok)
                }
            }
            _ => None,
        }
    }

    /// Calls `obj.name(args)` bound by [`Machine::std_obj_attr`].
    pub fn call_std_method(
        &mut self,
        o: &Rc<StdObj>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        match &**o {
            StdObj::Cached(c) if name == "cache_info" => {
                let Value::Tuple(counts) = functools::cache_method(c, name, &args)? else {
                    return Err(Unwind::unsupported("cache_info()"));
                };
                let fields = "hits misses maxsize currsize";
                let class = self.namedtuple_factory(
                    vec![Value::str("CacheInfo"), Value::str(fields)],
                    Vec::new(),
                )?;
                self.call(&class, counts.to_vec(), Vec::new())
            }
            StdObj::Cached(c) if name == "__wrapped__" => {
                let func = c.borrow().func.clone();
                self.call(&func, args, kwargs)
            }
            StdObj::Cached(c) => functools::cache_method(c, name, &args),
            StdObj::Slice(p) => {
                super::call::no_kwargs("indices", &kwargs)?;
                crate::interp::slice::indices(p, &args)
            }
            StdObj::Deque(q, maxlen) => self.deque_method(q, *maxlen, name, args, kwargs),
            StdObj::RePattern(_) | StdObj::ReMatch(_) => self.call_re_method(o, name, args, kwargs),
            StdObj::Random(_) => {
                let f = StdFn::find(StdModule::Random, name)
                    .ok_or_else(|| Unwind::new(ExcKind::AttributeError, name.to_string()))?;
                self.call_random(Some(o), f, args, kwargs)
            }
            _ => Err(Unwind::new(
                ExcKind::AttributeError,
                format!("'{}' object has no attribute '{name}'", o.type_name()),
            )),
        }
    }
}

/// A method of a `StdObj` bound to it, as a `Value::Method` whose receiver is the object.
fn bound_method(o: &Rc<StdObj>, name: &str) -> Value {
    Value::Method(Rc::new(super::value::Method {
        receiver: Value::Std(o.clone()),
        name: name.into(),
    }))
}

/// The `Native` value of a provided module.
pub(crate) fn native(m: StdModule) -> Native {
    Native::Std(m)
}

/// The items of a sized object (a deque), for iteration.
pub(crate) fn items_of(o: &StdObj) -> Vec<Value> {
    match o {
        StdObj::Deque(q, _) => q.borrow().iter().cloned().collect(),
        _ => Vec::new(),
    }
}

/// `o[i] = value` for a deque.
pub(crate) fn setitem(o: &StdObj, i: &Value, value: Value) -> R<()> {
    match o {
        StdObj::Deque(q, _) => {
            let k = collections::deque_index(q, i)?;
            if let Some(slot) = q.borrow_mut().get_mut(k) {
                *slot = value;
            }
            Ok(())
        }
        other => super::exc::type_error(format!(
            "'{}' object does not support item assignment",
            other.type_name()
        )),
    }
}

/// `o[i]` where plain indexing failed: a deque's item, a missing key of a `Counter` or
/// `defaultdict`; `None` to keep the original error.
pub(crate) fn getitem_missing(m: &mut Machine, o: &Value, i: &Value) -> Option<R<Value>> {
    match o {
        Value::Dict(d) => {
            if d.borrow().flavor.is_none() {
                return None;
            }
            let present = match super::dict::key_of(i) {
                Ok(k) => d.borrow().get(&k).is_some(),
                Err(e) => return Some(Err(e)),
            };
            if present {
                return None;
            }
            m.dict_missing(d, i)
        }
        Value::Std(s) => match &**s {
            StdObj::Deque(q, _) => Some(
                collections::deque_index(q, i)
                    .map(|k| q.borrow().get(k).cloned().unwrap_or(Value::None)),
            ),
            other => re::getitem(other, i),
        },
        _ => None,
    }
}

/// The type name of a flavored dict.
pub(crate) fn flavor_name(d: &super::dict::Dict) -> &'static str {
    d.flavor.as_deref().map_or("dict", collections::type_name)
}

/// `type(d)` of a flavored dict: its `collections` class (`mappingproxy` for a proxy).
pub(crate) fn flavored_type(d: &std::cell::RefCell<super::dict::Dict>) -> Value {
    match d.borrow().flavor.as_deref() {
        Some(Flavor::Counter) => Value::Builtin(Builtin::Std(StdFn::Counter)),
        Some(Flavor::DefaultDict(_)) => Value::Builtin(Builtin::Std(StdFn::DefaultDict)),
        Some(Flavor::OrderedDict) => Value::Builtin(Builtin::Std(StdFn::OrderedDict)),
        Some(Flavor::MappingProxy) => Value::Type(TypeKind::MappingProxy),
        None => Value::Type(TypeKind::Dict),
    }
}
