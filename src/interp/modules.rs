//! The modules a program may import: `math` (functions and constants, computed by the same
//! C library CPython uses), `sys` (the standard streams, `maxsize`, `getrecursionlimit`) and
//! `typing` (names usable in annotations, which the interpreter does not evaluate).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::builtins::Builtin;
use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::exc::{ExcKind, R, Unwind, fail, type_error, value_error};
use super::num::{self, num};
use super::value::{Native, Value};

/// A function of `math`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MathFn {
    Sqrt,
    Floor,
    Ceil,
    Trunc,
    Fabs,
    Gcd,
    Lcm,
    Isqrt,
    Factorial,
    Comb,
    Perm,
    Log,
    Log2,
    Log10,
    Exp,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Hypot,
    Pow,
    Copysign,
    Isfinite,
    Isinf,
    Isnan,
    Isclose,
    Degrees,
    Radians,
}

const MATH: &[(&str, MathFn)] = &[
    ("sqrt", MathFn::Sqrt),
    ("floor", MathFn::Floor),
    ("ceil", MathFn::Ceil),
    ("trunc", MathFn::Trunc),
    ("fabs", MathFn::Fabs),
    ("gcd", MathFn::Gcd),
    ("lcm", MathFn::Lcm),
    ("isqrt", MathFn::Isqrt),
    ("factorial", MathFn::Factorial),
    ("comb", MathFn::Comb),
    ("perm", MathFn::Perm),
    ("log", MathFn::Log),
    ("log2", MathFn::Log2),
    ("log10", MathFn::Log10),
    ("exp", MathFn::Exp),
    ("sin", MathFn::Sin),
    ("cos", MathFn::Cos),
    ("tan", MathFn::Tan),
    ("asin", MathFn::Asin),
    ("acos", MathFn::Acos),
    ("atan", MathFn::Atan),
    ("atan2", MathFn::Atan2),
    ("hypot", MathFn::Hypot),
    ("pow", MathFn::Pow),
    ("copysign", MathFn::Copysign),
    ("isfinite", MathFn::Isfinite),
    ("isinf", MathFn::Isinf),
    ("isnan", MathFn::Isnan),
    ("isclose", MathFn::Isclose),
    ("degrees", MathFn::Degrees),
    ("radians", MathFn::Radians),
];

const TYPING: &[&str] = &[
    "Any",
    "Callable",
    "ClassVar",
    "DefaultDict",
    "Deque",
    "Dict",
    "Final",
    "FrozenSet",
    "Generator",
    "Hashable",
    "Iterable",
    "Iterator",
    "List",
    "Literal",
    "Mapping",
    "MutableMapping",
    "Optional",
    "Sequence",
    "Set",
    "Tuple",
    "Type",
    "Union",
];

/// Every public name of CPython 3.11's `typing` (`typing.__all__`): one the interpreter
/// does not define is bound as unavailable, refused by name when the program uses it.
const TYPING_ALL: &[&str] = &[
    "AbstractSet",
    "Annotated",
    "Any",
    "AnyStr",
    "AsyncContextManager",
    "AsyncGenerator",
    "AsyncIterable",
    "AsyncIterator",
    "Awaitable",
    "BinaryIO",
    "ByteString",
    "Callable",
    "ChainMap",
    "ClassVar",
    "Collection",
    "Concatenate",
    "Container",
    "ContextManager",
    "Coroutine",
    "Counter",
    "DefaultDict",
    "Deque",
    "Dict",
    "Final",
    "ForwardRef",
    "FrozenSet",
    "Generator",
    "Generic",
    "Hashable",
    "IO",
    "ItemsView",
    "Iterable",
    "Iterator",
    "KeysView",
    "List",
    "Literal",
    "LiteralString",
    "Mapping",
    "MappingView",
    "Match",
    "MutableMapping",
    "MutableSequence",
    "MutableSet",
    "NamedTuple",
    "Never",
    "NewType",
    "NoReturn",
    "NotRequired",
    "Optional",
    "OrderedDict",
    "ParamSpec",
    "ParamSpecArgs",
    "ParamSpecKwargs",
    "Pattern",
    "Protocol",
    "Required",
    "Reversible",
    "Self",
    "Sequence",
    "Set",
    "Sized",
    "SupportsAbs",
    "SupportsBytes",
    "SupportsComplex",
    "SupportsFloat",
    "SupportsIndex",
    "SupportsInt",
    "SupportsRound",
    "TYPE_CHECKING",
    "Text",
    "TextIO",
    "Tuple",
    "Type",
    "TypeAlias",
    "TypeGuard",
    "TypeVar",
    "TypeVarTuple",
    "TypedDict",
    "Union",
    "Unpack",
    "ValuesView",
    "assert_never",
    "assert_type",
    "cast",
    "clear_overloads",
    "dataclass_transform",
    "final",
    "get_args",
    "get_origin",
    "get_overloads",
    "get_type_hints",
    "is_typeddict",
    "no_type_check",
    "no_type_check_decorator",
    "overload",
    "reveal_type",
    "runtime_checkable",
];

/// `m.name` for a real name of CPython's module `m` the interpreter does not model:
/// unavailable, refused by name when used.
pub(crate) fn unmodelled(m: Native, name: &str) -> Option<Value> {
    match m {
        Native::Typing => TYPING_ALL
            .contains(&name)
            .then(|| Value::Unavailable(format!("typing.{name}").into())),
        _ => super::stdlib::unmodelled(native_name(m), name),
    }
}

impl MathFn {
    pub fn name(self) -> &'static str {
        MATH.iter()
            .find(|(_, f)| *f == self)
            .map_or("?", |(n, _)| n)
    }
}

/// The module of an `import` name.
pub(crate) fn module(name: &str) -> Option<Native> {
    match name {
        "sys" => Some(Native::Sys),
        "math" => Some(Native::Math),
        "typing" => Some(Native::Typing),
        "dataclasses" | "enum" => super::stdclass::ClassModule::named(name).map(Native::Classes),
        _ => super::stdlib::module(name).map(super::stdlib::native),
    }
}

pub(crate) fn native_name(n: Native) -> &'static str {
    match n {
        Native::Sys => "sys",
        Native::Math => "math",
        Native::Typing => "typing",
        Native::Stdout => "stdout",
        Native::Stderr => "stderr",
        Native::Classes(m) => m.name(),
        Native::Std(m) => m.name(),
    }
}

pub(crate) fn native_repr(n: Native) -> &'static str {
    match n {
        Native::Sys => "<module 'sys' (built-in)>",
        Native::Math => "<module 'math' (built-in)>",
        Native::Typing => "<module 'typing'>",
        Native::Stdout => "<_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>",
        Native::Stderr => "<_io.TextIOWrapper name='<stderr>' mode='w' encoding='utf-8'>",
        Native::Classes(m) => m.repr(),
        Native::Std(m) => match m.name() {
            "itertools" => "<module 'itertools' (built-in)>",
            "string" => "<module 'string' from 'string.py'>",
            _ => "<module>",
        },
    }
}

/// `from module import name`.
pub(crate) fn import_name(m: Native, name: &str) -> Option<Value> {
    attr(m, name).ok()
}

/// `module.name`.
pub(crate) fn attr(m: Native, name: &str) -> R<Value> {
    let found = match m {
        Native::Math => match name {
            "pi" => Some(Value::Float(std::f64::consts::PI)),
            "e" => Some(Value::Float(std::f64::consts::E)),
            "tau" => Some(Value::Float(std::f64::consts::TAU)),
            "inf" => Some(Value::Float(f64::INFINITY)),
            "nan" => Some(Value::Float(f64::NAN)),
            "prod" => Some(Value::Builtin(Builtin::Std(super::stdlib::StdFn::Prod))),
            "fsum" => Some(Value::Builtin(Builtin::Std(super::stdlib::StdFn::FSum))),
            _ => MATH
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, f)| Value::Builtin(Builtin::Math(*f))),
        },
        Native::Sys => match name {
            "stdout" => Some(Value::Native(Native::Stdout)),
            "stderr" => Some(Value::Native(Native::Stderr)),
            "maxsize" => Some(Value::Int(i64::MAX)),
            "getrecursionlimit" => Some(Value::Builtin(Builtin::SysGetRecursionLimit)),
            "setrecursionlimit" => Some(Value::Builtin(Builtin::Refused(
                &"sys.setrecursionlimit (use %config recursion_limit=N)",
            ))),
            // Trace and profile hooks: `%run` reports a cell's line events instead.
            "settrace" => Some(Value::Builtin(Builtin::Refused(&"sys.settrace (use %run)"))),
            "gettrace" => Some(Value::Builtin(Builtin::Refused(&"sys.gettrace (use %run)"))),
            "setprofile" => Some(Value::Builtin(Builtin::Refused(&"sys.setprofile"))),
            "_getframe" => Some(Value::Builtin(Builtin::Refused(&"sys._getframe"))),
            _ => None,
        },
        Native::Typing => super::stdclass::module_attr("typing", name).or_else(|| {
            TYPING
                .iter()
                .find(|n| **n == name)
                .map(|n| Value::Opaque(std::rc::Rc::new(n.to_string())))
        }),
        Native::Classes(module) => super::stdclass::module_attr(module.name(), name),
        Native::Stdout | Native::Stderr => None,
        // `functools` and `collections` also hold the class-based library's names.
        Native::Std(m) => {
            super::stdlib::attr(m, name).or_else(|| super::stdclass::module_attr(m.name(), name))
        }
    };
    found.ok_or_else(|| {
        Unwind::new(
            ExcKind::AttributeError,
            format!("module '{}' has no attribute '{name}'", native_name(m)),
        )
    })
}

fn float_arg(v: &Value) -> R<f64> {
    match num(v) {
        Some(n) => n.to_f64(),
        None => type_error(format!("must be real number, not {}", v.type_name())),
    }
}

fn int_arg(v: &Value) -> R<BigInt> {
    match v {
        Value::Float(_) => type_error("'float' object cannot be interpreted as an integer"),
        other => other.to_bigint().map_or_else(
            || {
                type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                ))
            },
            Ok,
        ),
    }
}

fn domain<T>() -> R<T> {
    value_error("math domain error")
}

/// A float result; `inf` from finite arguments is `OverflowError`, NaN a domain error.
fn checked(result: f64, args_finite: bool) -> R<Value> {
    if result.is_nan() && args_finite {
        return domain();
    }
    if result.is_infinite() && args_finite {
        return fail(ExcKind::OverflowError, "math range error");
    }
    Ok(Value::Float(result))
}

/// `log` of an int or float, also for ints beyond the float range (as CPython's loghelper).
pub(crate) fn log_of(v: &Value, f: fn(f64) -> f64) -> R<f64> {
    if let Some(b) = v.to_bigint().filter(|_| v.is_int()) {
        if !b.is_positive() {
            return domain();
        }
        if let Some(x) = b.to_f64().filter(|x| x.is_finite()) {
            return Ok(f(x));
        }
        let shift = b.bits() - 60;
        let top = (b >> shift).to_f64().unwrap_or(1.0);
        return Ok(f(top) + f(2.0) * shift as f64);
    }
    let x = float_arg(v)?;
    if x.is_nan() || x == f64::INFINITY {
        return Ok(x);
    }
    if x <= 0.0 {
        return domain();
    }
    Ok(f(x))
}

fn to_int_value(f: f64) -> R<Value> {
    num::float_to_int(f)
}

pub(crate) fn call_math(m: MathFn, args: &[Value], kwargs: &Kwargs) -> R<Value> {
    use MathFn::*;
    let name = m.name();
    if m != Isclose {
        no_kwargs(name, kwargs)?;
    }
    let unary = |args: &[Value]| -> R<f64> {
        arity(name, args, 1, 1)?;
        float_arg(&args[0])
    };
    match m {
        Sqrt => {
            let x = unary(args)?;
            if x < 0.0 {
                return domain();
            }
            Ok(Value::Float(x.sqrt()))
        }
        Floor | Ceil | Trunc => {
            arity(name, args, 1, 1)?;
            if args[0].is_int() {
                return Ok(Value::big(args[0].to_bigint().unwrap_or_default()));
            }
            let x = float_arg(&args[0])?;
            to_int_value(match m {
                Floor => x.floor(),
                Ceil => x.ceil(),
                _ => x.trunc(),
            })
        }
        Fabs => Ok(Value::Float(unary(args)?.abs())),
        Gcd | Lcm => {
            let mut acc = if m == Gcd {
                BigInt::zero()
            } else {
                BigInt::one()
            };
            for a in args {
                let b = int_arg(a)?;
                acc = if m == Gcd {
                    acc.gcd(&b)
                } else if acc.is_zero() || b.is_zero() {
                    BigInt::zero()
                } else {
                    acc.lcm(&b)
                };
            }
            Ok(Value::big(acc))
        }
        Isqrt => {
            arity(name, args, 1, 1)?;
            let n = int_arg(&args[0])?;
            if n.is_negative() {
                return value_error("isqrt() argument must be nonnegative");
            }
            Ok(Value::big(n.sqrt()))
        }
        Factorial => {
            arity(name, args, 1, 1)?;
            let n = int_arg(&args[0])?;
            if n.is_negative() {
                return value_error("factorial() not defined for negative values");
            }
            let n = n.to_u64().filter(|n| *n <= 20_000).ok_or_else(|| {
                Unwind::new(
                    ExcKind::MemoryError,
                    "factorial() of more than 20000 is beyond the interpreter's limits",
                )
            })?;
            let mut acc = BigInt::one();
            for k in 2..=n {
                acc *= k;
            }
            Ok(Value::big(acc))
        }
        Comb | Perm => {
            arity(name, args, if m == Perm { 1 } else { 2 }, 2)?;
            let n = int_arg(&args[0])?;
            let k = match args.get(1) {
                Some(v) => int_arg(v)?,
                None => n.clone(),
            };
            if n.is_negative() {
                return value_error("n must be a non-negative integer");
            }
            if k.is_negative() {
                return value_error("k must be a non-negative integer");
            }
            if k > n {
                return Ok(Value::Int(0));
            }
            let k = k.to_u64().filter(|k| *k <= 20_000).ok_or_else(|| {
                Unwind::new(
                    ExcKind::MemoryError,
                    "comb()/perm() with k beyond 20000 exceed the interpreter's limits",
                )
            })?;
            let k = if m == Comb {
                k.min((&n - BigInt::from(k)).to_u64().unwrap_or(k))
            } else {
                k
            };
            let mut acc = BigInt::one();
            for i in 0..k {
                acc *= &n - BigInt::from(i);
                if m == Comb {
                    acc /= BigInt::from(i + 1);
                }
            }
            Ok(Value::big(acc))
        }
        Log => {
            arity(name, args, 1, 2)?;
            let x = log_of(&args[0], f64::ln)?;
            match args.get(1) {
                None => Ok(Value::Float(x)),
                Some(base) => {
                    let b = log_of(base, f64::ln)?;
                    if b == 0.0 {
                        return fail(
                            ExcKind::ZeroDivisionError,
                            crate::python::messages::FLOAT_DIVISION_BY_ZERO,
                        );
                    }
                    Ok(Value::Float(x / b))
                }
            }
        }
        Log2 | Log10 => {
            arity(name, args, 1, 1)?;
            Ok(Value::Float(log_of(
                &args[0],
                if m == Log2 { f64::log2 } else { f64::log10 },
            )?))
        }
        Exp => {
            let x = unary(args)?;
            checked(x.exp(), x.is_finite())
        }
        Sin | Cos | Tan => {
            let x = unary(args)?;
            if x.is_infinite() {
                return domain();
            }
            Ok(Value::Float(match m {
                Sin => x.sin(),
                Cos => x.cos(),
                _ => x.tan(),
            }))
        }
        Asin | Acos => {
            let x = unary(args)?;
            if !(-1.0..=1.0).contains(&x) && !x.is_nan() {
                return domain();
            }
            Ok(Value::Float(if m == Asin { x.asin() } else { x.acos() }))
        }
        Atan => Ok(Value::Float(unary(args)?.atan())),
        Atan2 | Copysign | Pow => {
            arity(name, args, 2, 2)?;
            let (x, y) = (float_arg(&args[0])?, float_arg(&args[1])?);
            match m {
                Atan2 => Ok(Value::Float(x.atan2(y))),
                Copysign => Ok(Value::Float(x.copysign(y))),
                _ => {
                    if x == 0.0 && y < 0.0 && y.is_finite() {
                        return domain();
                    }
                    if x < 0.0 && x.is_finite() && y.is_finite() && y.fract() != 0.0 {
                        return domain();
                    }
                    checked(x.powf(y), x.is_finite() && y.is_finite())
                }
            }
        }
        Hypot => {
            let mut acc = 0.0f64;
            for a in args {
                acc = acc.hypot(float_arg(a)?);
            }
            Ok(Value::Float(acc))
        }
        Isfinite | Isinf | Isnan => {
            let x = unary(args)?;
            Ok(Value::Bool(match m {
                Isfinite => x.is_finite(),
                Isinf => x.is_infinite(),
                _ => x.is_nan(),
            }))
        }
        Isclose => {
            arity(name, args, 2, 2)?;
            let [rel, abs] = take_kwargs(name, kwargs.clone(), ["rel_tol", "abs_tol"])?;
            let rel = rel.as_ref().map_or(Ok(1e-9), float_arg)?;
            let abs = abs.as_ref().map_or(Ok(0.0), float_arg)?;
            if rel < 0.0 || abs < 0.0 {
                return value_error("tolerances must be non-negative");
            }
            let (a, b) = (float_arg(&args[0])?, float_arg(&args[1])?);
            if a == b {
                return Ok(Value::Bool(true));
            }
            if a.is_infinite() || b.is_infinite() {
                return Ok(Value::Bool(false));
            }
            let diff = (b - a).abs();
            Ok(Value::Bool(
                diff <= (rel * b).abs() || diff <= (rel * a).abs() || diff <= abs,
            ))
        }
        Degrees => Ok(Value::Float(unary(args)?.to_degrees())),
        Radians => Ok(Value::Float(unary(args)?.to_radians())),
    }
}
