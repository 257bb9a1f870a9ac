//! Builtin functions and the constructors of builtin types, with CPython's argument rules
//! and messages for the common cases.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::Signed;

use super::Stream;
use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::dict::{Dict, key_of};
use super::dunder::is_instance;
use super::exc::{ExcClass, ExcKind, R, Unwind, fail, type_error, value_error};
use super::format;
use super::iter::IterState;
use super::machine::Machine;
use super::modules::{self, MathFn};
use super::num::{self, Num, num};
use super::ops::{self, truthy};
use super::repr::{self, repr};
use super::sort;
use super::value::{Native, Range, TypeKind, Value, ViewKind};
use crate::python::ir::{BinOp, CmpOp};

/// A builtin function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    Abs,
    All,
    Any,
    Ascii,
    Bin,
    Callable,
    Chr,
    Divmod,
    Format,
    Hex,
    Isinstance,
    Issubclass,
    Iter,
    Len,
    Max,
    Min,
    Next,
    Oct,
    Ord,
    Pow,
    Print,
    Repr,
    Round,
    Sorted,
    Sum,
    Math(MathFn),
    SysGetRecursionLimit,
    Hash,
    Eval,
    Exec,
    /// A builtin of Python outside the subset: refused when called. (A thin reference, so
    /// that a `Value` stays two words.)
    Refused(&'static &'static str),
    /// A builtin of the data model (`super`, `property`, `getattr`, ...), see `stdclass`.
    Class(super::stdclass::ClassBuiltin),
    /// A function of a standard-library module (`interp::stdlib`).
    Std(super::stdlib::StdFn),
}

const FUNCTIONS: &[(&str, Builtin)] = &[
    ("abs", Builtin::Abs),
    ("all", Builtin::All),
    ("any", Builtin::Any),
    ("ascii", Builtin::Ascii),
    ("bin", Builtin::Bin),
    ("callable", Builtin::Callable),
    ("chr", Builtin::Chr),
    ("divmod", Builtin::Divmod),
    ("format", Builtin::Format),
    ("hex", Builtin::Hex),
    ("isinstance", Builtin::Isinstance),
    ("issubclass", Builtin::Issubclass),
    ("iter", Builtin::Iter),
    ("len", Builtin::Len),
    ("max", Builtin::Max),
    ("min", Builtin::Min),
    ("next", Builtin::Next),
    ("oct", Builtin::Oct),
    ("ord", Builtin::Ord),
    ("pow", Builtin::Pow),
    ("print", Builtin::Print),
    ("repr", Builtin::Repr),
    ("round", Builtin::Round),
    ("sorted", Builtin::Sorted),
    ("sum", Builtin::Sum),
    ("hash", Builtin::Hash),
    ("eval", Builtin::Eval),
    ("exec", Builtin::Exec),
];

const REFUSED: &[&str] = &[
    "open",
    "input",
    "bytearray",
    "memoryview",
    "complex",
    "compile",
    "globals",
    "locals",
    "dir",
    "id",
    "breakpoint",
    "help",
    "exit",
    "quit",
    "__import__",
    "aiter",
    "anext",
    "copyright",
    "credits",
    "license",
];

/// The builtin value of a global name, if Python has one the interpreter knows.
pub(crate) fn lookup(name: &str) -> Option<Value> {
    if let Some((_, b)) = FUNCTIONS.iter().find(|(n, _)| *n == name) {
        return Some(Value::Builtin(*b));
    }
    if let Some(t) = TypeKind::from_builtin_name(name) {
        return Some(Value::Type(t));
    }
    if let Some(k) = ExcKind::from_name(crate::python::exceptions::canonical(name)) {
        return Some(Value::ExcType(k));
    }
    if let Some(v) = super::stdclass::builtin_named(name) {
        return Some(v);
    }
    if let Some(r) = REFUSED.iter().find(|r| **r == name) {
        return Some(Value::Builtin(Builtin::Refused(r)));
    }
    match name {
        "Ellipsis" => Some(Value::Ellipsis),
        // Builtin exception classes with behaviour of their own (exit codes, groups).
        "SystemExit" | "BaseExceptionGroup" | "ExceptionGroup" => Some(Value::Unavailable(
            format!("the exception class {name}").into(),
        )),
        "NotImplemented" => Some(Value::Builtin(Builtin::Refused(&"NotImplemented"))),
        _ => None,
    }
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Math(m) => m.name(),
            Builtin::SysGetRecursionLimit => "getrecursionlimit",
            Builtin::Refused(name) => *name,
            Builtin::Class(c) => c.name(),
            Builtin::Std(f) => f.name(),
            b => FUNCTIONS
                .iter()
                .find(|(_, x)| *x == b)
                .map_or("?", |(n, _)| n),
        }
    }
}

/// An int argument as `i64` (`TypeError` for non-ints, `OverflowError` beyond 64 bits).
pub(crate) fn index_arg(v: &Value) -> R<i64> {
    match v {
        Value::Bool(b) => Ok(*b as i64),
        Value::Int(i) => Ok(*i),
        Value::Big(_) => fail(
            ExcKind::OverflowError,
            "Python int too large to convert to C ssize_t",
        ),
        Value::Instance(i) if super::int_enum::member_value(i).is_some() => {
            index_arg(&super::int_enum::unwrap(v))
        }
        other => type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        )),
    }
}

fn one(name: &str, args: Vec<Value>, kwargs: &Kwargs) -> R<Value> {
    no_kwargs(name, kwargs)?;
    arity(name, &args, 1, 1)?;
    Ok(args.into_iter().next().unwrap_or(Value::None))
}

impl Machine {
    pub fn call_builtin(&mut self, b: Builtin, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match b {
            Builtin::Eval => self.eval_source(args, kwargs, false),
            Builtin::Exec => self.eval_source(args, kwargs, true),
            Builtin::Hash => {
                let v = one("hash", args, &kwargs)?;
                match super::set::hash_value(&v) {
                    // An instance (or a tuple holding one): its `__hash__` runs.
                    Err(e) if super::dunder::is_marker(&e) => {
                        let key = self.hash_key(&v)?;
                        Ok(Value::Int(super::set::py_hash(&key)))
                    }
                    other => other.map(Value::Int),
                }
            }
            Builtin::Abs => {
                let v = one("abs", args, &kwargs)?;
                match num(&v) {
                    Some(n) if num::is_negative(n) => Ok(num::negate(n)),
                    Some(Num::Small(i)) => Ok(Value::Int(i)),
                    Some(_) => Ok(v),
                    None => match self.dunder(&v, "__abs__", Vec::new())? {
                        Some(r) => Ok(r),
                        None => {
                            type_error(format!("bad operand type for abs(): '{}'", v.type_name()))
                        }
                    },
                }
            }
            Builtin::All | Builtin::Any => {
                let want = b == Builtin::Any;
                let v = one(b.name(), args, &kwargs)?;
                let mut it = self.iter_of(v)?;
                while let Some(x) = self.next(&mut it)? {
                    self.tick()?;
                    if self.truth(&x)? == want {
                        return Ok(Value::Bool(want));
                    }
                }
                Ok(Value::Bool(!want))
            }
            Builtin::Ascii => {
                let v = one("ascii", args, &kwargs)?;
                Ok(Value::str(format::ascii(&repr(&v)?)))
            }
            Builtin::Bin | Builtin::Hex | Builtin::Oct => {
                let v = one(b.name(), args, &kwargs)?;
                let v = match &v {
                    Value::Instance(_) if v.to_bigint().is_none() => {
                        self.number_dunder(&v, &["__index__"])?.unwrap_or(v)
                    }
                    _ => v,
                };
                let Some(i) = v.to_bigint() else {
                    return type_error(format!(
                        "'{}' object cannot be interpreted as an integer",
                        v.type_name()
                    ));
                };
                let (prefix, radix) = match b {
                    Builtin::Bin => ("0b", 2),
                    Builtin::Oct => ("0o", 8),
                    _ => ("0x", 16),
                };
                let sign = if i.is_negative() { "-" } else { "" };
                Ok(Value::str(format!(
                    "{sign}{prefix}{}",
                    i.abs().to_str_radix(radix)
                )))
            }
            Builtin::Callable => {
                let v = one("callable", args, &kwargs)?;
                if let Value::Instance(i) = &v {
                    return Ok(Value::Bool(i.class.defines("__call__")));
                }
                Ok(Value::Bool(
                    matches!(
                        v,
                        Value::Class(_)
                            | Value::Bound(_)
                            | Value::Function(_)
                            | Value::Builtin(_)
                            | Value::Method(_)
                            | Value::Unbound(_)
                            | Value::Type(_)
                            | Value::ExcType(_)
                            | Value::UserExcType(_)
                    ) || matches!(&v, Value::Std(o) if o.is_callable()),
                ))
            }
            Builtin::Chr => {
                let v = one("chr", args, &kwargs)?;
                let i = index_arg(&v).or_else(|_| match v {
                    Value::Big(_) => fail(
                        ExcKind::OverflowError,
                        "Python int too large to convert to C int",
                    ),
                    _ => type_error(format!(
                        "'{}' object cannot be interpreted as an integer",
                        v.type_name()
                    )),
                })?;
                if !(0..0x110000).contains(&i) {
                    return value_error("chr() arg not in range(0x110000)");
                }
                match char::from_u32(i as u32) {
                    Some(c) => Ok(Value::str(c.to_string())),
                    None => Err(Unwind::unsupported("surrogate characters")),
                }
            }
            Builtin::Divmod => {
                no_kwargs("divmod", &kwargs)?;
                arity("divmod", &args, 2, 2)?;
                match (num(&args[0]), num(&args[1])) {
                    (Some(x), Some(y)) => {
                        let (q, r) = num::divmod(x, y)?;
                        Ok(Value::tuple(vec![q, r]))
                    }
                    _ => type_error(format!(
                        "unsupported operand type(s) for divmod(): '{}' and '{}'",
                        args[0].type_name(),
                        args[1].type_name()
                    )),
                }
            }
            Builtin::Format => {
                no_kwargs("format", &kwargs)?;
                arity("format", &args, 1, 2)?;
                let spec = match args.get(1) {
                    Some(Value::Str(s)) => s.as_str().to_string(),
                    Some(other) => {
                        return type_error(format!(
                            "format() argument 2 must be str, not {}",
                            other.type_name()
                        ));
                    }
                    None => String::new(),
                };
                self.format_of(&args[0], &spec).map(Value::str)
            }
            Builtin::Isinstance | Builtin::Issubclass => {
                no_kwargs(b.name(), &kwargs)?;
                arity(b.name(), &args, 2, 2)?;
                if b == Builtin::Isinstance {
                    if let Some(r) = super::stdclass::metaclass_check(&args[0], &args[1]) {
                        return Ok(Value::Bool(r));
                    }
                } else if let Some(why) = super::stdclass::metaclass_check_refusal(&args[1]) {
                    return Err(Unwind::unsupported(why));
                }
                if b == Builtin::Issubclass && !is_class(&args[0]) && !collections_class(&args[0]) {
                    return type_error("issubclass() arg 1 must be a class");
                }
                self.isinstance(&args[0], &args[1], b == Builtin::Issubclass)
                    .map(Value::Bool)
            }
            Builtin::Iter => {
                let v = one("iter", args, &kwargs)?;
                if let Value::Iter(_) = v {
                    return Ok(v);
                }
                if let (Value::Instance(i), false) = (&v, self.as_tuple(&v).is_some()) {
                    if i.class.defines("__iter__") {
                        if let Some(r) = self.dunder(&v, "__iter__", Vec::new())? {
                            return Ok(r);
                        }
                    }
                }
                Ok(self.iter_of(v)?.into_value())
            }
            Builtin::Len => {
                let v = one("len", args, &kwargs)?;
                self.len_of(&v).map(Value::Int)
            }
            Builtin::Max | Builtin::Min => self.min_max(b, args, kwargs),
            Builtin::Next => {
                no_kwargs("next", &kwargs)?;
                arity("next", &args, 1, 2)?;
                if let Value::Instance(_) = &args[0] {
                    return match self.dunder(&args[0], "__next__", Vec::new()) {
                        Ok(Some(v)) => Ok(v),
                        Ok(None) => type_error(format!(
                            "'{}' object is not an iterator",
                            args[0].type_name()
                        )),
                        Err(e) => Err(e),
                    }
                    .or_else(|e| match args.get(1) {
                        Some(d) if e.raises(&ExcClass::Builtin(ExcKind::StopIteration)) => {
                            Ok(d.clone())
                        }
                        _ => Err(e),
                    });
                }
                let Value::Iter(it) = &args[0] else {
                    return type_error(format!(
                        "'{}' object is not an iterator",
                        args[0].type_name()
                    ));
                };
                let mut state = IterState::Shared(it.clone());
                match self.next(&mut state)? {
                    Some(v) => Ok(v),
                    None => match args.get(1) {
                        Some(d) => Ok(d.clone()),
                        None => {
                            let returned = match &mut *it.borrow_mut() {
                                IterState::Coroutine(g) => g.returned.take(),
                                _ => None,
                            };
                            Err(super::generator::stop_iteration(returned))
                        }
                    },
                }
            }
            Builtin::Ord => {
                let v = one("ord", args, &kwargs)?;
                match &v {
                    Value::Str(s) if s.len() == 1 => {
                        Ok(Value::Int(s.char_at(0).map_or(0, |c| c as i64)))
                    }
                    Value::Str(s) => type_error(format!(
                        "ord() expected a character, but string of length {} found",
                        s.len()
                    )),
                    other => type_error(format!(
                        "ord() expected string of length 1, but {} found",
                        other.type_name()
                    )),
                }
            }
            Builtin::Pow => {
                let [base, exp, modulus] = take_kwargs("pow", kwargs, ["base", "exp", "mod"])?;
                let mut it = args.into_iter();
                let base = it.next().or(base).ok_or_else(|| {
                    Unwind::new(
                        ExcKind::TypeError,
                        "pow() missing required argument 'base' (pos 1)",
                    )
                })?;
                let exp = it.next().or(exp).ok_or_else(|| {
                    Unwind::new(
                        ExcKind::TypeError,
                        "pow() missing required argument 'exp' (pos 2)",
                    )
                })?;
                let modulus = it.next().or(modulus).unwrap_or(Value::None);
                if it.next().is_some() {
                    return type_error("pow expected at most 3 arguments");
                }
                if let Value::None = modulus {
                    return ops::binary(BinOp::Pow, &base, &exp);
                }
                match (base.to_bigint(), exp.to_bigint(), modulus.to_bigint()) {
                    (Some(x), Some(y), Some(m)) => num::int_pow_mod(&x, &y, &m),
                    _ => type_error(
                        "pow() 3rd argument not allowed unless all arguments are integers",
                    ),
                }
            }
            Builtin::Print => self.print(args, kwargs),
            Builtin::Repr => {
                let v = one("repr", args, &kwargs)?;
                self.repr_of(&v).map(Value::str)
            }
            Builtin::Round => {
                let [number, ndigits] = take_kwargs("round", kwargs, ["number", "ndigits"])?;
                let mut it = args.into_iter();
                let number = it.next().or(number).ok_or_else(|| {
                    Unwind::new(
                        ExcKind::TypeError,
                        "round() missing required argument 'number' (pos 1)",
                    )
                })?;
                let ndigits = it.next().or(ndigits).unwrap_or(Value::None);
                round(&number, &ndigits)
            }
            Builtin::Sorted => {
                let [key, reverse] = take_kwargs("sorted", kwargs, ["key", "reverse"])?;
                arity("sorted", &args, 1, 1)?;
                let items = self.collect(args.into_iter().next().unwrap_or(Value::None))?;
                let sorted = sort::sort(
                    self,
                    items,
                    key.unwrap_or(Value::None),
                    reverse.as_ref().is_some_and(truthy),
                )?;
                Ok(Value::list(sorted))
            }
            Builtin::Sum => {
                let [start] = take_kwargs("sum", kwargs, ["start"])?;
                if args.is_empty() {
                    return type_error("sum() takes at least 1 positional argument (0 given)");
                }
                if args.len() > 2 {
                    return type_error(format!(
                        "sum() takes at most 2 arguments ({} given)",
                        args.len()
                    ));
                }
                let mut it = args.into_iter();
                let iterable = it.next().unwrap_or(Value::None);
                let mut acc = it.next().or(start).unwrap_or(Value::Int(0));
                if let Value::Str(_) = acc {
                    return type_error("sum() can't sum strings [use ''.join(seq) instead]");
                }
                let mut state = self.iter_of(iterable)?;
                while let Some(x) = self.next(&mut state)? {
                    self.tick()?;
                    acc = if is_instance(&acc) || is_instance(&x) {
                        self.binary_dunder(BinOp::Add, &acc, &x)?
                    } else {
                        ops::binary(BinOp::Add, &acc, &x)?
                    };
                }
                Ok(acc)
            }
            Builtin::Math(m) => modules::call_math(m, &args, &kwargs),
            Builtin::SysGetRecursionLimit => {
                arity("getrecursionlimit", &args, 0, 0)?;
                Ok(Value::Int(self.limits.recursion_limit as i64))
            }
            Builtin::Refused(&"open") => Err(Unwind::unsupported(
                "the builtin open() (cells run in a sandbox: no file, process or network access)",
            )),
            Builtin::Refused(name) => Err(Unwind::unsupported(format!("the builtin {name}()"))),
            Builtin::Class(c) => self.call_class_builtin(c, args, kwargs),
            Builtin::Std(f) => self.call_std(f, args, kwargs),
        }
    }

    fn print(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [sep, end, file, _flush] =
            take_kwargs("print", kwargs, ["sep", "end", "file", "flush"])?;
        let text_arg = |v: Option<Value>, name: &str, default: &str| -> R<String> {
            match v {
                None | Some(Value::None) => Ok(default.to_string()),
                Some(Value::Str(s)) => Ok(s.as_str().to_string()),
                Some(other) => type_error(format!(
                    "{name} must be None or a string, not {}",
                    other.type_name()
                )),
            }
        };
        let sep = text_arg(sep, "sep", " ")?;
        let end = text_arg(end, "end", "\n")?;
        let stream = match file {
            None | Some(Value::None) | Some(Value::Native(Native::Stdout)) => Stream::Stdout,
            Some(Value::Native(Native::Stderr)) => Stream::Stderr,
            Some(other) => {
                return fail(
                    ExcKind::AttributeError,
                    format!("'{}' object has no attribute 'write'", other.type_name()),
                );
            }
        };
        let mut text = String::new();
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                text.push_str(&sep);
            }
            text.push_str(&self.str_of(a)?);
        }
        text.push_str(&end);
        self.write(stream, &text);
        Ok(Value::None)
    }

    fn min_max(&mut self, b: Builtin, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let name = b.name();
        let [key, default] = take_kwargs(name, kwargs, ["key", "default"])?;
        let key = key.filter(|k| !matches!(k, Value::None));
        let items = match args.len() {
            0 => return type_error(format!("{name} expected at least 1 argument, got 0")),
            1 => {
                let v = args.into_iter().next().unwrap_or(Value::None);
                self.collect(v)?
            }
            _ => {
                if default.is_some() {
                    return type_error(format!(
                        "Cannot specify a default for {name}() with multiple positional arguments"
                    ));
                }
                args
            }
        };
        let op = if b == Builtin::Max {
            CmpOp::Gt
        } else {
            CmpOp::Lt
        };
        let mut best: Option<(Value, Value)> = None;
        for item in items {
            self.tick()?;
            let k = match &key {
                Some(f) => self.call(f, vec![item.clone()], Vec::new())?,
                None => item.clone(),
            };
            best = match best {
                None => Some((k, item)),
                Some((bk, bv)) => {
                    if self.compare(op, &k, &bk)? {
                        Some((k, item))
                    } else {
                        Some((bk, bv))
                    }
                }
            };
        }
        match (best, default) {
            (Some((_, v)), _) => Ok(v),
            (None, Some(d)) => Ok(d),
            (None, None) => value_error(format!("{name}() arg is an empty sequence")),
        }
    }

    /// `isinstance(v, cls)` (or `issubclass` when `subclass`).
    pub(crate) fn isinstance(&mut self, v: &Value, cls: &Value, subclass: bool) -> R<bool> {
        let exc_class = |x: &Value| -> Option<ExcClass> {
            match x {
                Value::ExcType(k) => Some(ExcClass::Builtin(*k)),
                Value::UserExcType(c) => Some(ExcClass::User(c.clone())),
                _ => None,
            }
        };
        match cls {
            Value::Tuple(items) => {
                for c in items.iter() {
                    if self.isinstance(v, c, subclass)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Class(c) => Ok(match (subclass, v) {
                (true, Value::Class(k)) => k.is_subclass_of(c),
                (true, other) if !is_class(other) => {
                    return type_error("issubclass() arg 1 must be a class");
                }
                (false, Value::Instance(i)) => i.class.is_subclass_of(c),
                _ => false,
            }),
            Value::Type(TypeKind::Object) if subclass && matches!(v, Value::Class(_)) => Ok(true),
            Value::Type(TypeKind::Tuple)
                if !subclass && matches!(v, Value::Instance(i) if i.class.is_named_tuple()) =>
            {
                Ok(true)
            }
            Value::Type(t @ (TypeKind::Int | TypeKind::Str))
                if !subclass
                    && matches!(v, Value::Instance(i) if super::int_enum::member_value(i).is_some()) =>
            {
                let value = match v {
                    Value::Instance(i) => super::int_enum::member_value(i),
                    _ => None,
                };
                Ok(matches!(
                    (t, value),
                    (TypeKind::Int, Some(Value::Int(_) | Value::Big(_)))
                        | (TypeKind::Str, Some(Value::Str(_)))
                ))
            }
            // `issubclass(Counter, dict)`: the dict-like classes derive from `dict`.
            Value::Type(t) if subclass && collections_class(v) => Ok(*t == TypeKind::Object
                || (*t == TypeKind::Dict
                    && !matches!(v, Value::Builtin(Builtin::Std(super::stdlib::StdFn::Deque))))),
            Value::Type(t) => Ok(match (subclass, v) {
                (true, Value::Type(s)) => s.is_subtype_of(*t),
                (true, _) => exc_class(v).is_some() && *t == TypeKind::Object,
                (false, Value::Exception(_)) => *t == TypeKind::Object,
                (false, _) => v.type_kind().is_some_and(|k| k.is_subtype_of(*t)),
            }),
            Value::ExcType(_) | Value::UserExcType(_) => {
                let Some(target) = exc_class(cls) else {
                    return Ok(false);
                };
                Ok(match (subclass, v) {
                    (true, other) => exc_class(other).is_some_and(|c| c.is_subclass_of(&target)),
                    (false, Value::Exception(e)) => e.class.is_subclass_of(&target),
                    (false, _) => false,
                })
            }
            c if collections_class(c) => Ok(if subclass {
                if !is_class(v) && !collections_class(v) {
                    return type_error("issubclass() arg 1 must be a class");
                }
                super::ops::is(v, c)
            } else {
                super::ops::is(&type_of(v), c)
            }),
            // `isinstance(C.__dict__['x'], property)`, also `staticmethod`/`classmethod`.
            Value::Builtin(Builtin::Class(c))
                if !subclass && matches!(c.name(), "property" | "staticmethod" | "classmethod") =>
            {
                Ok(matches!(v, Value::Descriptor(d) if d.type_name() == c.name()))
            }
            Value::Builtin(Builtin::Refused(name)) => Err(Unwind::unsupported(format!(
                "the builtin type {name} (in {}())",
                if subclass { "issubclass" } else { "isinstance" }
            ))),
            _ => type_error(format!(
                "{}() arg 2 must be a type, a tuple of types, or a union",
                if subclass { "issubclass" } else { "isinstance" }
            )),
        }
    }

    /// Calls a builtin type: `int(x)`, `list(it)`, `range(n)`, ...
    pub fn construct(&mut self, t: TypeKind, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        match t {
            TypeKind::Object => super::stdclass::plain_object(args, kwargs),
            TypeKind::Slice => super::slice::construct(args, &kwargs),
            TypeKind::Int => {
                let [x, base] = take_kwargs("int", kwargs, ["x", "base"])?;
                if args.len() > 2 {
                    return type_error(format!(
                        "int() takes at most 2 arguments ({} given)",
                        args.len()
                    ));
                }
                let mut it = args.into_iter();
                let x = it.next().or(x);
                let base = it.next().or(base);
                if let (Some(v), None) = (&x, &base) {
                    if let Some(r) = self.number_dunder(v, &["__int__", "__index__"])? {
                        return Ok(r);
                    }
                }
                int_of(x, base)
            }
            TypeKind::Float => {
                no_kwargs("float", &kwargs)?;
                arity("float", &args, 0, 1)?;
                match args.first() {
                    None => Ok(Value::Float(0.0)),
                    Some(v) => match self.number_dunder(v, &["__float__", "__index__"])? {
                        Some(Value::Int(i)) => Ok(Value::Float(i as f64)),
                        Some(r @ Value::Float(_)) => Ok(r),
                        Some(big) => float_of(&big).map(Value::Float),
                        None => float_of(v).map(Value::Float),
                    },
                }
            }
            TypeKind::Str if args.len() > 1 || !kwargs.is_empty() => self.str_decode(args, kwargs),
            TypeKind::Str => match args.first() {
                None => Ok(Value::str("")),
                Some(v) => self.str_of(v).map(Value::str),
            },
            TypeKind::Bool => {
                no_kwargs("bool", &kwargs)?;
                if args.len() > 1 {
                    return type_error(format!(
                        "bool expected at most 1 argument, got {}",
                        args.len()
                    ));
                }
                match args.first() {
                    Some(v) => self.truth(v).map(Value::Bool),
                    None => Ok(Value::Bool(false)),
                }
            }
            TypeKind::List | TypeKind::Tuple => {
                no_kwargs(t.name(), &kwargs)?;
                if args.len() > 1 {
                    return type_error(format!(
                        "{} expected at most 1 argument, got {}",
                        t.name(),
                        args.len()
                    ));
                }
                let items = match args.into_iter().next() {
                    Some(v) => self.collect(v)?,
                    None => Vec::new(),
                };
                Ok(if t == TypeKind::List {
                    Value::list(items)
                } else {
                    Value::tuple(items)
                })
            }
            TypeKind::Dict => {
                if args.len() > 1 {
                    return type_error(format!(
                        "dict expected at most 1 argument, got {}",
                        args.len()
                    ));
                }
                let d = Rc::new(RefCell::new(Dict::default()));
                self.dict_update(&d, args.into_iter().next().unwrap_or(Value::None), kwargs)?;
                Ok(Value::Dict(d))
            }
            TypeKind::Range => {
                no_kwargs("range", &kwargs)?;
                let ints = args.iter().map(index_arg_range).collect::<R<Vec<i64>>>()?;
                let (start, stop, step) = match ints.as_slice() {
                    [stop] => (0, *stop, 1),
                    [start, stop] => (*start, *stop, 1),
                    [start, stop, step] => (*start, *stop, *step),
                    [] => return type_error("range expected at least 1 argument, got 0"),
                    _ => {
                        return type_error(format!(
                            "range expected at most 3 arguments, got {}",
                            ints.len()
                        ));
                    }
                };
                if step == 0 {
                    return value_error(crate::python::messages::RANGE_STEP_ZERO);
                }
                Ok(Value::Range(Rc::new(Range { start, stop, step })))
            }
            TypeKind::Type => {
                no_kwargs("type", &kwargs)?;
                match args.as_slice() {
                    [v] => Ok(super::stdclass::metaclass_of(v).unwrap_or_else(|| type_of(v))),
                    _ => Err(Unwind::unsupported(
                        "type() with three arguments (class creation)",
                    )),
                }
            }
            TypeKind::Enumerate => {
                let [iterable, start] = take_kwargs("enumerate", kwargs, ["iterable", "start"])?;
                let mut it = args.into_iter();
                let iterable = it.next().or(iterable).ok_or_else(|| {
                    Unwind::new(
                        ExcKind::TypeError,
                        "enumerate() missing required argument 'iterable' (pos 1)",
                    )
                })?;
                let count = it.next().or(start).unwrap_or(Value::Int(0));
                if !count.is_int() {
                    return type_error(format!(
                        "'{}' object cannot be interpreted as an integer",
                        count.type_name()
                    ));
                }
                let inner = Box::new(self.iter_of(iterable)?);
                Ok(IterState::Enumerate { inner, count }.into_value())
            }
            TypeKind::Zip => {
                let [strict] = take_kwargs("zip", kwargs, ["strict"])?;
                let strict = match strict {
                    Some(v) => self.truth(&v)?,
                    None => false,
                };
                let inners = args
                    .into_iter()
                    .map(|a| self.iter_of(a))
                    .collect::<R<_>>()?;
                Ok(IterState::Zip { inners, strict }.into_value())
            }
            TypeKind::Map => {
                no_kwargs("map", &kwargs)?;
                if args.len() < 2 {
                    return type_error("map() must have at least two arguments.");
                }
                let mut it = args.into_iter();
                let func = it.next().unwrap_or(Value::None);
                let inners = it.map(|a| self.iter_of(a)).collect::<R<_>>()?;
                Ok(IterState::Map { func, inners }.into_value())
            }
            TypeKind::Filter => {
                no_kwargs("filter", &kwargs)?;
                arity("filter", &args, 2, 2)?;
                let mut it = args.into_iter();
                let func = it.next().unwrap_or(Value::None);
                let inner = Box::new(self.iter_of(it.next().unwrap_or(Value::None))?);
                Ok(IterState::Filter { func, inner }.into_value())
            }
            TypeKind::Set | TypeKind::FrozenSet => self.construct_set(t, args, kwargs),
            TypeKind::Bytes => self.construct_bytes(args, kwargs),
            TypeKind::Reversed => {
                no_kwargs("reversed", &kwargs)?;
                arity("reversed", &args, 1, 1)?;
                let v = args.into_iter().next().unwrap_or(Value::None);
                if let Value::Instance(i) = &v {
                    if let Some(r) = self.dunder(&v, "__reversed__", Vec::new())? {
                        return Ok(r);
                    }
                    if i.class.lookup_special("__getitem__").is_some() {
                        return Err(Unwind::unsupported(
                            "reversed() of an instance without __reversed__ (the sequence protocol)",
                        ));
                    }
                }
                reversed(v)
            }
            other => Err(Unwind::unsupported(format!(
                "creating {} objects",
                other.name()
            ))),
        }
    }

    /// `d.update(other, **kwargs)`.
    pub fn dict_update(&mut self, d: &Rc<RefCell<Dict>>, other: Value, kwargs: Kwargs) -> R<()> {
        match other {
            Value::None => {}
            Value::Dict(o) => {
                let entries: Vec<(Value, Value)> = o.borrow().iter().cloned().collect();
                for (k, v) in entries {
                    {
                        let key = self.hash_key(&k)?;
                        d.borrow_mut().insert(key, k, v);
                    }
                }
            }
            // A mapping that is not a dict: its `keys()` and its items, as CPython does.
            Value::Instance(obj) if obj.class.lookup("keys").is_some() => {
                let o = Value::Instance(obj);
                let keys = self.call_method(o.clone(), "keys", Vec::new(), Vec::new())?;
                for k in self.collect(keys)? {
                    let v = self.getitem(&o, &k)?;
                    let key = self.hash_key(&k)?;
                    d.borrow_mut().insert(key, k, v);
                }
            }
            other => {
                let items = self.collect(other)?;
                for (i, item) in items.into_iter().enumerate() {
                    if !self.is_iterable(&item) {
                        return type_error(format!(
                            "cannot convert dictionary update sequence element #{i} to a sequence"
                        ));
                    }
                    let pair = self.collect(item)?;
                    let [k, v]: [Value; 2] = pair.try_into().map_err(|p: Vec<Value>| {
                        Unwind::new(
                            ExcKind::ValueError,
                            format!("dictionary update sequence element #{i} has length {}; 2 is required", p.len()),
                        )
                    })?;
                    {
                        let key = self.hash_key(&k)?;
                        d.borrow_mut().insert(key, k, v);
                    }
                }
            }
        }
        for (k, v) in kwargs {
            let key = Value::str(&*k);
            d.borrow_mut().insert(key_of(&key)?, key, v);
        }
        Ok(())
    }
}

fn index_arg_range(v: &Value) -> R<i64> {
    match v {
        Value::Big(_) => Err(Unwind::unsupported("range bounds beyond 64 bits")),
        other => index_arg(other),
    }
}

fn is_class(v: &Value) -> bool {
    matches!(
        v,
        Value::Type(_) | Value::ExcType(_) | Value::UserExcType(_) | Value::Class(_)
    )
}

/// `type(v)`.
pub(crate) fn type_of(v: &Value) -> Value {
    match v {
        Value::Exception(e) => e.class.as_value(),
        Value::Instance(i) => Value::Class(i.class.clone()),
        Value::Dict(d) if d.borrow().flavor.is_some() => super::stdlib::flavored_type(d),
        Value::Std(o) if matches!(**o, super::stdlib::StdObj::Deque(..)) => {
            Value::Builtin(Builtin::Std(super::stdlib::StdFn::Deque))
        }
        other => Value::Type(other.type_kind().unwrap_or(TypeKind::Object)),
    }
}

/// The dict-like classes of `collections` (`Counter`, `defaultdict`, `OrderedDict`, `deque`).
fn collections_class(v: &Value) -> bool {
    use super::stdlib::StdFn;
    matches!(
        v,
        Value::Builtin(Builtin::Std(
            StdFn::Counter | StdFn::DefaultDict | StdFn::OrderedDict | StdFn::Deque
        ))
    )
}

/// `len(v)`.
pub(crate) fn len(v: &Value) -> R<Value> {
    let n = match v {
        Value::Str(s) => s.len(),
        Value::List(l) => l.borrow().len(),
        Value::Tuple(t) => t.len(),
        Value::Dict(d) => d.borrow().len(),
        Value::View(view) => view.dict.borrow().len(),
        Value::Set(s) => s.borrow().len(),
        Value::Bytes(b) => b.len(),
        Value::Std(o) if o.len().is_some() => o.len().unwrap_or(0),
        Value::Range(r) => {
            return i64::try_from(r.len()).map(Value::Int).or_else(|_| {
                fail(
                    ExcKind::OverflowError,
                    "Python int too large to convert to C ssize_t",
                )
            });
        }
        other => {
            return type_error(format!(
                "object of type '{}' has no len()",
                other.type_name()
            ));
        }
    };
    Ok(Value::Int(n as i64))
}

fn reversed(v: Value) -> R<Value> {
    Ok(match v {
        Value::List(l) => {
            let index = l.borrow().len();
            IterState::ListReversed {
                list: Some(l),
                index,
            }
        }
        Value::Range(r) => {
            let len = r.len();
            let last = r.start as i128 + (len - 1) * r.step as i128;
            IterState::Range {
                next: last,
                remaining: len,
                step: -(r.step as i128),
            }
        }
        Value::Tuple(t) => IterState::Items {
            items: t.iter().rev().cloned().collect(),
            index: 0,
            kind: TypeKind::Reversed,
        },
        Value::Bytes(b) => IterState::Items {
            items: b.iter().rev().map(|x| Value::Int(*x as i64)).collect(),
            index: 0,
            kind: TypeKind::Reversed,
        },
        Value::Str(s) => IterState::Items {
            items: s
                .as_str()
                .chars()
                .rev()
                .map(|c| Value::str(c.to_string()))
                .collect(),
            index: 0,
            kind: TypeKind::Reversed,
        },
        Value::Dict(d) => IterState::Items {
            items: d.borrow().keys().into_iter().rev().collect(),
            index: 0,
            kind: TypeKind::DictKeyIterator,
        },
        Value::View(view) => {
            let d = view.dict.borrow();
            let items: Vec<Value> = match view.kind {
                ViewKind::Keys => d.iter().map(|(k, _)| k.clone()).collect(),
                ViewKind::Values => d.iter().map(|(_, v)| v.clone()).collect(),
                ViewKind::Items => d
                    .iter()
                    .map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()]))
                    .collect(),
            };
            IterState::Items {
                items: items.into_iter().rev().collect(),
                index: 0,
                kind: TypeKind::Reversed,
            }
        }
        other => return type_error(format!("'{}' object is not reversible", other.type_name())),
    }
    .into_value())
}

fn round(number: &Value, ndigits: &Value) -> R<Value> {
    let digits = match ndigits {
        Value::None => None,
        Value::Big(b) => Some(if b.is_negative() { i64::MIN } else { i64::MAX }),
        other => Some(index_arg(other)?),
    };
    match (num(number), digits) {
        (Some(Num::Float(f)), None) => num::round_float(f),
        (Some(Num::Float(f)), Some(d)) => num::round_float_digits(f, d).map(Value::Float),
        (Some(n), None) => Ok(Value::big(n.to_big())),
        (Some(n), Some(d)) => Ok(num::round_int(&n.to_big(), d)),
        (None, _) => type_error(format!(
            "type {} doesn't define __round__ method",
            number.type_name()
        )),
    }
}

/// `int(x, base)`.
fn int_of(x: Option<Value>, base: Option<Value>) -> R<Value> {
    let x = x.map(|x| super::int_enum::unwrap(&x));
    let Some(x) = x else {
        return match base {
            Some(_) => type_error("int() missing string argument"),
            None => Ok(Value::Int(0)),
        };
    };
    if let Value::Bytes(_) = x {
        return Err(Unwind::unsupported("int() of bytes"));
    }
    if let Some(b) = base {
        let Value::Str(s) = &x else {
            return type_error("int() can't convert non-string with explicit base");
        };
        let base = index_arg(&b)?;
        if base != 0 && !(2..=36).contains(&base) {
            return value_error("int() base must be >= 2 and <= 36, or 0");
        }
        return parse_int(s.as_str(), base as u32);
    }
    match &x {
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::Int(_) | Value::Big(_) => Ok(x.clone()),
        Value::Float(f) => num::float_to_int(*f),
        Value::Str(s) => parse_int(s.as_str(), 10),
        other => type_error(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            other.type_name()
        )),
    }
}

/// Python's whitespace (`str.isspace`).
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Parses an int literal as `int(text, base)` does.
pub(crate) fn parse_int(text: &str, base: u32) -> R<Value> {
    let invalid = || {
        value_error(format!(
            "invalid literal for int() with base {base}: {}",
            repr::str_repr(text)
        ))
    };
    let t = text.trim_matches(is_space);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = digits.to_ascii_lowercase();
    let (radix, body, prefixed) = match (base, lower.get(..2)) {
        (0 | 16, Some("0x")) => (16, &digits[2..], true),
        (0 | 8, Some("0o")) => (8, &digits[2..], true),
        (0 | 2, Some("0b")) => (2, &digits[2..], true),
        (0, _) => (10, digits, false),
        (b, _) => (b, digits, false),
    };
    // Underscores only between digits (or right after a base prefix).
    let body = if prefixed {
        body.strip_prefix('_').unwrap_or(body)
    } else {
        body
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return invalid();
    }
    let clean: String = body.chars().filter(|c| *c != '_').collect();
    if !clean.chars().all(|c| c.is_digit(radix)) {
        return invalid();
    }
    if base == 0
        && radix == 10
        && clean.len() > 1
        && clean.starts_with('0')
        && clean.chars().any(|c| c != '0')
    {
        return invalid();
    }
    if radix == 10 && clean.len() > repr::MAX_STR_DIGITS {
        return repr::too_many_digits(clean.len());
    }
    let Some(mut n) = BigInt::parse_bytes(clean.as_bytes(), radix) else {
        return invalid();
    };
    if negative {
        n = -n;
    }
    Ok(Value::big(n))
}

impl Machine {
    /// `int(v)`/`float(v)`/`bin(v)`… of an instance: the first of `names` its class defines,
    /// whose result must be an int (a float for `__float__`), with CPython's messages.
    fn number_dunder(&mut self, v: &Value, names: &[&'static str]) -> R<Option<Value>> {
        for &name in names {
            let Some(r) = self.dunder(v, name, Vec::new())? else {
                continue;
            };
            return match (name, r) {
                ("__float__", r @ Value::Float(_)) => Ok(Some(r)),
                ("__float__", r) => type_error(format!(
                    "{}.__float__ returned non-float (type {})",
                    v.type_name(),
                    r.type_name()
                )),
                (_, Value::Bool(b)) => Ok(Some(Value::Int(i64::from(b)))),
                (_, r) if r.is_int() => Ok(Some(r)),
                (_, r) => type_error(format!("{name} returned non-int (type {})", r.type_name())),
            };
        }
        Ok(None)
    }
}

/// `float(v)`.
pub(crate) fn float_of(v: &Value) -> R<f64> {
    if let Value::Instance(i) = v {
        if let Some(x) = super::int_enum::member_value(i) {
            return float_of(&x);
        }
    }
    match v {
        Value::Str(s) => parse_float(s.as_str()),
        Value::Bytes(_) => Err(Unwind::unsupported("float() of bytes")),
        other => match num(other) {
            Some(n) => n.to_f64(),
            None => type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                other.type_name()
            )),
        },
    }
}

fn parse_float(text: &str) -> R<f64> {
    let invalid = || {
        value_error(format!(
            "could not convert string to float: {}",
            repr::str_repr(text)
        ))
    };
    let t = text.trim_matches(is_space);
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return t.to_ascii_lowercase().parse::<f64>().or_else(|_| invalid());
    }
    let ok_chars = unsigned
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_'));
    if !ok_chars || unsigned.is_empty() {
        return invalid();
    }
    // Underscores must sit between two digits.
    let chars: Vec<char> = t.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == '_' {
            let before = i > 0 && chars[i - 1].is_ascii_digit();
            let after = chars.get(i + 1).is_some_and(|c| c.is_ascii_digit());
            if !(before && after) {
                return invalid();
            }
        }
    }
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    clean.parse::<f64>().or_else(|_| invalid())
}
