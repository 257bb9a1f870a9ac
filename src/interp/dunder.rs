//! Dunder dispatch: operators and builtins on instances of user classes call their
//! `__add__`/`__radd__`, `__eq__`, `__lt__`, `__hash__`, `__repr__`, `__str__`, `__len__`,
//! `__bool__`, `__iter__`, `__getitem__`, ... with `NotImplemented` fallbacks and CPython's
//! messages.
//!
//! The value-level helpers (`ops::eq`, `ops::compare`, `repr`, `key_of`) cannot run user
//! code: when they meet an instance they fail with the [`needs_machine`] marker, and the
//! machine-level versions here ([`Machine::values_eq`], [`Machine::repr_of`], ...) redo the
//! work with dispatch. Code paths that only have the value-level helpers report the marker
//! as an unsupported operation rather than a wrong answer.

use std::rc::Rc;

use super::call::Kwargs;
use super::class::Instance;
use super::dict::{Key, key_of};
use super::exc::{Abort, ExcKind, R, Unwind, fail, type_error};
use super::machine::Machine;
use super::ops;
use super::repr;
use super::value::Value;
use crate::python::ir::{BinOp, CmpOp, UnaryOp};

thread_local! {
    /// Per `__hash__` value, one instance of each `__eq__` class met (see `eq_class`).
    static EQ_CLASSES: std::cell::RefCell<crate::fxhash::FxHashMap<i64, Vec<Value>>> =
        std::cell::RefCell::new(Default::default());
}

const NEEDS_MACHINE: &str = "this operation on an instance of a user class";

/// The marker error of value-level helpers meeting an instance.
pub(crate) fn needs_machine() -> Unwind {
    Unwind::unsupported(NEEDS_MACHINE)
}

pub(crate) fn is_marker(e: &Unwind) -> bool {
    matches!(e.kind(), super::exc::Unwound::Abort(Abort::Unsupported { construct, .. }) if construct == NEEDS_MACHINE)
}

/// The names of a binary operator's method and its reflection.
fn binary_names(op: BinOp) -> (&'static str, &'static str, &'static str) {
    match op {
        BinOp::Add => ("__add__", "__radd__", "__iadd__"),
        BinOp::Sub => ("__sub__", "__rsub__", "__isub__"),
        BinOp::Mult => ("__mul__", "__rmul__", "__imul__"),
        BinOp::Div => ("__truediv__", "__rtruediv__", "__itruediv__"),
        BinOp::FloorDiv => ("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
        BinOp::Mod => ("__mod__", "__rmod__", "__imod__"),
        BinOp::Pow => ("__pow__", "__rpow__", "__ipow__"),
        BinOp::LShift => ("__lshift__", "__rlshift__", "__ilshift__"),
        BinOp::RShift => ("__rshift__", "__rrshift__", "__irshift__"),
        BinOp::BitOr => ("__or__", "__ror__", "__ior__"),
        BinOp::BitXor => ("__xor__", "__rxor__", "__ixor__"),
        BinOp::BitAnd => ("__and__", "__rand__", "__iand__"),
        BinOp::MatMult => ("__matmul__", "__rmatmul__", "__imatmul__"),
    }
}

/// The truth of what a comparison method returned. Comparisons here produce `bool`s, so a
/// method returning anything else (whose value CPython passes through) is refused by name.
fn comparison_result(r: &Value, method: &str) -> R<bool> {
    match r {
        Value::Bool(b) => Ok(*b),
        other => Err(Unwind::unsupported(format!(
            "a comparison method ({method}) returning a non-bool ({})",
            other.type_name()
        ))),
    }
}

/// Whether two class attributes looked up for an operator are the same object (both
/// missing counts as the same).
fn same_attr(x: Option<Value>, y: Option<Value>) -> bool {
    match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => ops::is(&x, &y),
        _ => false,
    }
}

pub(crate) fn is_instance(v: &Value) -> bool {
    matches!(v, Value::Instance(_))
}

impl Machine {
    /// Calls the method `name` of an instance if its class defines it.
    pub fn dunder(&mut self, v: &Value, name: &'static str, args: Vec<Value>) -> R<Option<Value>> {
        let Value::Instance(i) = v else {
            return Ok(None);
        };
        match i.class.lookup_special(name) {
            Some(Value::None) | None => Ok(None),
            Some(m) => self
                .call_method_value(&m, v.clone(), args, Kwargs::new())
                .map(Some),
        }
    }

    /// `a op b` where an operand is an instance, in CPython's order (`SLOT1BINFULL`): the
    /// right operand's reflected method first when its class is a proper subclass of the
    /// left's that overrides it; the reflected method never for two operands of one class.
    pub fn binary_dunder(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        let (name, rname, _) = binary_names(op);
        let same_class = matches!((a, b), (Value::Instance(x), Value::Instance(y))
            if Rc::ptr_eq(&x.class, &y.class));
        let mut reflected_tried = false;
        if let (Value::Instance(x), Value::Instance(y)) = (a, b) {
            if !same_class
                && y.class.is_subclass_of(&x.class)
                && !same_attr(x.class.lookup_special(rname), y.class.lookup_special(rname))
            {
                reflected_tried = true;
                if let Some(r) = self.dunder(b, rname, vec![a.clone()])? {
                    if !matches!(r, Value::NotImplemented) {
                        return Ok(r);
                    }
                }
            }
        }
        if let Some(r) = self.dunder(a, name, vec![b.clone()])? {
            if !matches!(r, Value::NotImplemented) {
                return Ok(r);
            }
        }
        if !same_class && !reflected_tried {
            if let Some(r) = self.dunder(b, rname, vec![a.clone()])? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
        }
        if !is_instance(a) && !is_instance(b) {
            return ops::binary(op, a, b);
        }
        // CPython then tries the left sequence's concatenation or repetition.
        match (op, a) {
            (BinOp::Add, Value::Str(_) | Value::List(_) | Value::Tuple(_)) => {
                let t = a.type_name();
                type_error(format!(
                    "can only concatenate {t} (not \"{}\") to {t}",
                    b.type_name()
                ))
            }
            (BinOp::Mult, Value::Str(_) | Value::List(_) | Value::Tuple(_)) => type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                b.type_name()
            )),
            _ => ops::unsupported_operands(op, a, b),
        }
    }

    /// `a op b` where the value-level operator met an instance inside an operand: `str %
    /// args` renders the instances first (`%s` with `str`, `%r` with `repr`).
    pub fn binary_slow(&mut self, op: BinOp, a: &Value, b: &Value, marker: Unwind) -> R<Value> {
        let (BinOp::Mod, Value::Str(fmt)) = (op, a) else {
            return Err(marker);
        };
        let conversions = percent_conversions(fmt.as_str());
        let items = match b {
            Value::Tuple(items) => items.to_vec(),
            other => vec![other.clone()],
        };
        let rendered = self.render_instances(items.clone(), Some(&conversions))?;
        // A `%r` whose argument was rendered to its repr text prints that text (`%s`).
        let changed: Vec<bool> = items
            .iter()
            .zip(&rendered)
            .map(|(x, y)| !ops::is(x, y))
            .collect();
        let mut text = String::with_capacity(fmt.as_str().len());
        let mut index = 0;
        let mut chars = fmt.as_str().chars();
        while let Some(c) = chars.next() {
            text.push(c);
            if c != '%' {
                continue;
            }
            for d in chars.by_ref() {
                if d == '%' {
                    text.push(d);
                    break;
                }
                if d.is_ascii_alphabetic() {
                    let rendered_here = changed.get(index).copied().unwrap_or(false);
                    text.push(if rendered_here && (d == 'r' || d == 'a') {
                        's'
                    } else {
                        d
                    });
                    index += 1;
                    break;
                }
                text.push(d);
            }
        }
        let args = match b {
            Value::Tuple(_) => Value::tuple(rendered),
            _ => rendered.into_iter().next().unwrap_or(Value::None),
        };
        ops::binary(op, &Value::str(text), &args)
    }

    /// Replaces instances among `args` by their `str` (or `repr` where the matching `%`
    /// conversion is `r`), for the value-level formatting functions.
    pub fn render_instances(
        &mut self,
        args: Vec<Value>,
        conversions: Option<&[char]>,
    ) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        for (i, v) in args.into_iter().enumerate() {
            let conv = conversions.and_then(|c| c.get(i).copied()).unwrap_or('s');
            out.push(match &v {
                Value::Instance(_) | Value::Bound(_) | Value::Exception(_)
                    if conv == 'r' || conv == 'a' =>
                {
                    Value::str(self.repr_of(&v)?)
                }
                Value::Instance(_) | Value::Bound(_) | Value::Exception(_) if conv == 's' => {
                    Value::str(self.str_of(&v)?)
                }
                Value::List(_) | Value::Tuple(_) | Value::Dict(_) if repr::repr(&v).is_err() => {
                    Value::str(if conv == 's' {
                        self.str_of(&v)?
                    } else {
                        self.repr_of(&v)?
                    })
                }
                _ => v,
            });
        }
        Ok(out)
    }

    /// `a op= b` where `a` is an instance: `__iop__`, then the binary operator.
    pub fn inplace_dunder(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        let (_, _, iname) = binary_names(op);
        if let Some(r) = self.dunder(a, iname, vec![b.clone()])? {
            if !matches!(r, Value::NotImplemented) {
                return Ok(r);
            }
        }
        self.binary_dunder(op, a, b)
    }

    pub fn unary_dunder(&mut self, op: UnaryOp, v: &Value) -> R<Value> {
        let (name, symbol) = match op {
            UnaryOp::USub => ("__neg__", "-"),
            UnaryOp::UAdd => ("__pos__", "+"),
            UnaryOp::Invert => ("__invert__", "~"),
            UnaryOp::Not => return self.truth(v).map(|t| Value::Bool(!t)),
        };
        match self.dunder(v, name, Vec::new())? {
            Some(r) => Ok(r),
            None => type_error(format!(
                "bad operand type for unary {symbol}: '{}'",
                v.type_name()
            )),
        }
    }

    /// Truth with `__bool__` and `__len__`.
    pub fn truth(&mut self, v: &Value) -> R<bool> {
        let Value::Instance(i) = v else {
            return Ok(ops::truthy(v));
        };
        if let Some(r) = self.dunder(v, "__bool__", Vec::new())? {
            return match r {
                Value::Bool(b) => Ok(b),
                other => type_error(format!(
                    "__bool__ should return bool, returned {}",
                    other.type_name()
                )),
            };
        }
        if i.class.defines("__len__") || i.class.is_named_tuple() {
            return Ok(self.len_of(v)? != 0);
        }
        Ok(true)
    }

    /// `len(v)`.
    pub fn len_of(&mut self, v: &Value) -> R<i64> {
        match v {
            Value::Instance(i) if !i.class.defines("__len__") && i.class.is_named_tuple() => {
                Ok(i.class.fields.borrow().len().max(i.attrs.borrow().len()) as i64)
            }
            Value::Instance(_) => match self.dunder(v, "__len__", Vec::new())? {
                Some(Value::Int(n)) if n >= 0 => Ok(n),
                Some(Value::Bool(b)) => Ok(b as i64),
                Some(Value::Int(_)) => fail(ExcKind::ValueError, "__len__() should return >= 0"),
                Some(other) => type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                )),
                None => type_error(format!("object of type '{}' has no len()", v.type_name())),
            },
            Value::Class(c) if c.is_enum() => Ok(c.members.borrow().len() as i64),
            other => match super::builtins::len(other)? {
                Value::Int(n) => Ok(n),
                _ => Ok(0),
            },
        }
    }

    /// `repr(v)`, running `__repr__` of instances (also inside containers).
    pub fn repr_of(&mut self, v: &Value) -> R<String> {
        match repr::repr(v) {
            Err(e) if is_marker(&e) => self.repr_slow(v),
            other => other,
        }
    }

    /// `str(v)`, running `__str__` (then `__repr__`) of instances.
    pub fn str_of(&mut self, v: &Value) -> R<String> {
        match v {
            Value::Instance(i) => {
                // `object.__str__` calls `__repr__` and checks it as `__str__`'s result.
                let own = i.class.lookup("__str__");
                let via_repr = || (!i.class.is_enum()).then(|| i.class.lookup("__repr__"))?;
                if let Some(m) = own.or_else(via_repr) {
                    let r = self.call_method_value(&m, v.clone(), Vec::new(), Kwargs::new())?;
                    return match r {
                        Value::Str(s) => Ok(s.as_str().to_string()),
                        other => type_error(format!(
                            "__str__ returned non-string (type {})",
                            other.type_name()
                        )),
                    };
                }
                if i.class.is_enum() {
                    return self.enum_str(i);
                }
                self.repr_of(v)
            }
            Value::Exception(e) => match self.exc_dunder_text(e, "__str__") {
                Some(r) => r,
                None => self.base_exc_str(e),
            },
            other => match repr::to_str(other) {
                Err(e) if is_marker(&e) => self.repr_slow(other),
                r => r,
            },
        }
    }

    fn repr_slow(&mut self, v: &Value) -> R<String> {
        self.tick()?;
        if self.depth >= self.limits.recursion_limit {
            return fail(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded while getting the repr of an object",
            );
        }
        self.depth += 1;
        let r = self.repr_inner(v);
        self.depth -= 1;
        r
    }

    fn repr_inner(&mut self, v: &Value) -> R<String> {
        let join = |m: &mut Machine, items: &[Value]| -> R<String> {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                parts.push(m.repr_of(item)?);
            }
            Ok(parts.join(", "))
        };
        Ok(match v {
            Value::Instance(i) => return self.instance_repr(i, v),
            Value::List(items) => {
                let items = items.borrow().clone();
                format!("[{}]", join(self, &items)?)
            }
            Value::Tuple(items) if items.len() == 1 => format!("({},)", join(self, items)?),
            Value::Tuple(items) => format!("({})", join(self, items)?),
            Value::Dict(d) => {
                let entries: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
                let mut parts = Vec::with_capacity(entries.len());
                for (k, v) in &entries {
                    parts.push(format!("{}: {}", self.repr_of(k)?, self.repr_of(v)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Value::Set(s) => {
                let (frozen, items) = {
                    let s = s.borrow();
                    (s.frozen, s.values())
                };
                let name = if frozen { "frozenset" } else { "set" };
                if items.is_empty() {
                    format!("{name}()")
                } else if frozen {
                    format!("frozenset({{{}}})", join(self, &items)?)
                } else {
                    format!("{{{}}}", join(self, &items)?)
                }
            }
            Value::Bound(b) => {
                let name = match &b.func {
                    Value::Function(f) => f.code.qualname.to_string(),
                    Value::Builtin(x) => format!("object.{}", x.name()),
                    other => other.type_name(),
                };
                format!("<bound method {name} of {}>", self.repr_of(&b.receiver)?)
            }
            Value::Exception(e) => match self.exc_dunder_text(e, "__repr__") {
                Some(r) => r?,
                None => self.base_exc_repr(e)?,
            },
            other => repr::repr(other)?,
        })
    }

    fn instance_repr(&mut self, i: &Rc<Instance>, v: &Value) -> R<String> {
        if let Some(m) = i.class.lookup("__repr__") {
            let r = self.call_method_value(&m, v.clone(), Vec::new(), Kwargs::new())?;
            return match r {
                Value::Str(s) => Ok(s.as_str().to_string()),
                other => type_error(format!(
                    "__repr__ returned non-string (type {})",
                    other.type_name()
                )),
            };
        }
        if i.class.is_enum() {
            return self.enum_repr(i);
        }
        if i.class.is_named_tuple() {
            let attrs = i.attrs.borrow().clone();
            let mut parts = Vec::with_capacity(attrs.len());
            for (k, v) in &attrs {
                parts.push(format!("{k}={}", self.repr_of(v)?));
            }
            return Ok(format!("{}({})", i.class.name, parts.join(", ")));
        }
        Ok(default_repr(i))
    }

    /// `a == b` with `__eq__` anywhere inside.
    pub fn values_eq(&mut self, a: &Value, b: &Value) -> R<bool> {
        if is_instance(a) || is_instance(b) {
            // What `ops::eq` would send to `eq_slow`, without making its marker error.
            self.tick()?;
            return self.rich_compare(CmpOp::Eq, a, b);
        }
        match ops::eq(a, b) {
            Err(e) if is_marker(&e) => self.eq_slow(a, b),
            other => other,
        }
    }

    fn eq_slow(&mut self, a: &Value, b: &Value) -> R<bool> {
        self.tick()?;
        match (a, b) {
            (Value::Instance(_), _) | (_, Value::Instance(_)) => self.rich_compare(CmpOp::Eq, a, b),
            (Value::List(x), Value::List(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.items_eq(&x, &y)
            }
            (Value::Tuple(x), Value::Tuple(y)) => self.items_eq(x, y),
            (Value::Dict(x), Value::Dict(y)) => {
                let xs: Vec<(Value, Value)> = x.borrow().iter().cloned().collect();
                if xs.len() != y.borrow().len() {
                    return Ok(false);
                }
                for (k, v) in &xs {
                    let key = self.hash_key(k)?;
                    let w = y.borrow().get(&key).cloned();
                    match w {
                        Some(w) if ops::is(v, &w) || self.values_eq(v, &w)? => {}
                        _ => return Ok(false),
                    }
                }
                Ok(true)
            }
            _ => Ok(ops::is(a, b)),
        }
    }

    fn items_eq(&mut self, x: &[Value], y: &[Value]) -> R<bool> {
        if x.len() != y.len() {
            return Ok(false);
        }
        for (p, q) in x.iter().zip(y) {
            if !(ops::is(p, q) || self.values_eq(p, q)?) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A comparison where the value-level one met an instance.
    pub fn compare_slow(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<bool> {
        match op {
            CmpOp::Eq => return self.values_eq(a, b),
            CmpOp::NotEq => {
                if is_instance(a) || is_instance(b) {
                    return self.rich_compare(op, a, b);
                }
                return self.values_eq(a, b).map(|e| !e);
            }
            _ => {}
        }
        let seqs = match (a, b) {
            (Value::List(x), Value::List(y)) => Some((x.borrow().clone(), y.borrow().clone())),
            (Value::Tuple(x), Value::Tuple(y)) => Some((x.to_vec(), y.to_vec())),
            _ => None,
        };
        if let Some((x, y)) = seqs {
            for (p, q) in x.iter().zip(&y) {
                if !(ops::is(p, q) || self.values_eq(p, q)?) {
                    return self.compare(op, p, q);
                }
            }
            return self.compare(op, &Value::Int(x.len() as i64), &Value::Int(y.len() as i64));
        }
        self.rich_compare(op, a, b)
    }

    /// `a op b` with `__eq__`/`__lt__`/... and their reflections.
    pub fn rich_compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<bool> {
        let (name, reflected) = match op {
            CmpOp::Eq => ("__eq__", "__eq__"),
            CmpOp::NotEq => ("__ne__", "__ne__"),
            CmpOp::Lt => ("__lt__", "__gt__"),
            CmpOp::LtE => ("__le__", "__ge__"),
            CmpOp::Gt => ("__gt__", "__lt__"),
            CmpOp::GtE => ("__ge__", "__le__"),
            _ => return type_error("not a rich comparison"),
        };
        let plain = |m: &Machine, v: &Value| match v {
            Value::Instance(i) if !i.class.defines(name) && !i.class.defines(reflected) => {
                m.as_tuple(v)
            }
            _ => None,
        };
        let (pa, pb) = (plain(self, a), plain(self, b));
        if pa.is_some() || pb.is_some() {
            let x = pa.unwrap_or_else(|| a.clone());
            let y = pb.unwrap_or_else(|| b.clone());
            if !is_instance(&x) && !is_instance(&y) {
                return self.compare(op, &x, &y);
            }
        }
        // CPython's `do_richcompare`: the right operand first when its class is a proper
        // subclass of the left's.
        let right_first = matches!((a, b), (Value::Instance(x), Value::Instance(y))
            if !Rc::ptr_eq(&x.class, &y.class) && y.class.is_subclass_of(&x.class));
        let order = if right_first {
            [(b, a, reflected), (a, b, name)]
        } else {
            [(a, b, name), (b, a, reflected)]
        };
        for (x, y, n) in order {
            if let Some(r) = self.dunder(x, n, vec![y.clone()])? {
                if !matches!(r, Value::NotImplemented) {
                    return comparison_result(&r, n);
                }
            } else if op == CmpOp::NotEq {
                if let Some(r) = self.dunder(x, "__eq__", vec![y.clone()])? {
                    if !matches!(r, Value::NotImplemented) {
                        return self.truth(&r).map(|t| !t);
                    }
                }
            }
        }
        match op {
            CmpOp::Eq => Ok(ops::is(a, b)),
            CmpOp::NotEq => Ok(!ops::is(a, b)),
            _ => type_error(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            )),
        }
    }

    /// The dict key of `v`, running `__hash__` of instances.
    pub fn hash_key(&mut self, v: &Value) -> R<Key> {
        match key_of(v) {
            Err(e) if is_marker(&e) => match v {
                Value::Tuple(items) => {
                    let mut keys = Vec::with_capacity(items.len());
                    for item in items.iter() {
                        keys.push(self.hash_key(item)?);
                    }
                    Ok(Key::Tuple(keys))
                }
                // An `IntEnum` member is the same key as its value, as in CPython.
                Value::Instance(i) if super::int_enum::member_value(i).is_some() => {
                    self.hash_key(&super::int_enum::unwrap(v))
                }
                Value::Instance(i) if i.class.is_named_tuple() && !i.class.defines("__hash__") => {
                    match self.as_tuple(v) {
                        Some(t) => self.hash_key(&t),
                        None => Err(e),
                    }
                }
                Value::Instance(i) => match i.class.lookup("__hash__") {
                    Some(Value::None) => type_error(format!("unhashable type: '{}'", i.class.name)),
                    Some(m) => {
                        let h = self.call_method_value(&m, v.clone(), Vec::new(), Kwargs::new())?;
                        let h = match h {
                            Value::Int(n) => n,
                            Value::Bool(b) => b as i64,
                            Value::Big(b) => (&*b % 2305843009213693951i64).try_into().unwrap_or(0),
                            _ => return type_error("__hash__ method should return an integer"),
                        };
                        Ok(Key::Hashed(h, self.eq_class(h, v)?))
                    }
                    None => Ok(Key::Id(Rc::as_ptr(i) as *const () as usize)),
                },
                _ => Err(e),
            },
            other => other,
        }
    }

    /// The number of `v`'s `__eq__` class among the instances met so far whose `__hash__`
    /// is `h`: instances with equal hashes are one key only when `__eq__` says so (the stored
    /// instance's `__eq__` is asked, as CPython asks the element already in the table). The
    /// first instance of each class is kept for the session as its representative.
    fn eq_class(&mut self, h: i64, v: &Value) -> R<u32> {
        let reps = EQ_CLASSES.with_borrow(|m| m.get(&h).cloned().unwrap_or_default());
        for (i, r) in reps.iter().enumerate() {
            self.tick()?;
            if ops::is(r, v) || self.values_eq(r, v)? {
                return Ok(i as u32);
            }
        }
        EQ_CLASSES.with_borrow_mut(|m| m.entry(h).or_default().push(v.clone()));
        Ok(reps.len() as u32)
    }

    /// The key of a set element or lookup (a set stands for its frozenset), running
    /// `__hash__` and `__eq__` of instances.
    pub fn element_key(&mut self, v: &Value) -> R<Key> {
        match v {
            Value::Set(_) => super::set::element_key(v),
            _ => self.hash_key(v),
        }
    }

    /// Adds `v` to a set, running `__hash__`/`__eq__` of instances.
    pub fn set_add(&mut self, s: &mut super::set::SetObj, v: Value) -> R<()> {
        let key = self.hash_key(&v)?;
        s.add_entry(super::set::py_hash(&key), key, v);
        Ok(())
    }

    /// `item in container` where the value-level test met an instance.
    pub fn contains_slow(&mut self, container: &Value, item: &Value) -> R<bool> {
        match container {
            Value::Dict(d) => {
                let k = self.hash_key(item)?;
                Ok(d.borrow().get(&k).is_some())
            }
            Value::Set(s) => {
                let k = self.element_key(item)?;
                Ok(s.borrow().contains_key(super::set::py_hash(&k), &k))
            }
            Value::List(items) => {
                let items = items.borrow().clone();
                self.any_eq(&items, item)
            }
            Value::Tuple(items) => self.any_eq(&items.clone(), item),
            Value::View(v) => {
                let entries: Vec<(Value, Value)> = v.dict.borrow().iter().cloned().collect();
                match v.kind {
                    super::value::ViewKind::Keys => {
                        let k = self.hash_key(item)?;
                        Ok(v.dict.borrow().get(&k).is_some())
                    }
                    super::value::ViewKind::Values => {
                        let values: Vec<Value> = entries.into_iter().map(|(_, x)| x).collect();
                        self.any_eq(&values, item)
                    }
                    super::value::ViewKind::Items => {
                        let pairs: Vec<Value> = entries
                            .into_iter()
                            .map(|(k, x)| Value::tuple(vec![k, x]))
                            .collect();
                        self.any_eq(&pairs, item)
                    }
                }
            }
            _ => type_error(format!(
                "argument of type '{}' is not iterable",
                container.type_name()
            )),
        }
    }

    fn any_eq(&mut self, items: &[Value], item: &Value) -> R<bool> {
        for v in items {
            self.tick()?;
            if ops::is(v, item) || self.values_eq(v, item)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The conversion characters of a `%` format, in order (`%%` skipped).
fn percent_conversions(fmt: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        for d in chars.by_ref() {
            if d == '%' {
                break;
            }
            if d.is_ascii_alphabetic() {
                out.push(d);
                break;
            }
        }
    }
    out
}

/// `<__main__.Point object>`: CPython's default repr without the address.
pub(crate) fn default_repr(i: &Instance) -> String {
    format!("<{}.{} object>", i.class.module, i.class.qualname)
}
