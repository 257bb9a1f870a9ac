//! `enum.IntEnum` (and `IntFlag`'s int side) and `enum.StrEnum`: enums whose members are
//! ints or strs. The library class's namespace holds generated methods ([`IntEnumOp`])
//! that replace members by their values and apply the value's operation, so comparisons,
//! arithmetic, hashing, `str`/`format` (the value's, as in CPython 3.11) and
//! `int()`/indexing behave as with the plain value; other attributes (`upper`,
//! `bit_length`) are read from the value.

use std::rc::Rc;

use super::builtins::Builtin;
use super::class::Instance;
use super::exc::{R, type_error};
use super::machine::Machine;
use super::stdclass::ClassBuiltin;
use super::value::Value;
use crate::python::ir::{BinOp, CmpOp, UnaryOp};

/// A generated method of `IntEnum`, by its dunder name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntEnumOp(pub &'static &'static str);

const COMPARISONS: &[(&str, CmpOp)] = &[
    ("__eq__", CmpOp::Eq),
    ("__ne__", CmpOp::NotEq),
    ("__lt__", CmpOp::Lt),
    ("__le__", CmpOp::LtE),
    ("__gt__", CmpOp::Gt),
    ("__ge__", CmpOp::GtE),
];

/// (method, reflected method, operator).
const ARITHMETIC: &[(&str, &str, BinOp)] = &[
    ("__add__", "__radd__", BinOp::Add),
    ("__sub__", "__rsub__", BinOp::Sub),
    ("__mul__", "__rmul__", BinOp::Mult),
    ("__truediv__", "__rtruediv__", BinOp::Div),
    ("__floordiv__", "__rfloordiv__", BinOp::FloorDiv),
    ("__mod__", "__rmod__", BinOp::Mod),
    ("__pow__", "__rpow__", BinOp::Pow),
    ("__lshift__", "__rlshift__", BinOp::LShift),
    ("__rshift__", "__rrshift__", BinOp::RShift),
    ("__and__", "__rand__", BinOp::BitAnd),
    ("__or__", "__ror__", BinOp::BitOr),
    ("__xor__", "__rxor__", BinOp::BitXor),
];

const UNARY: &[(&str, UnaryOp)] = &[
    ("__neg__", UnaryOp::USub),
    ("__pos__", UnaryOp::UAdd),
    ("__invert__", UnaryOp::Invert),
];

const OTHER: &[&str] = &[
    "__hash__",
    "__str__",
    "__format__",
    "__bool__",
    "__abs__",
    "__index__",
];

/// str's operators for `StrEnum` members.
const STR_ARITHMETIC: &[&str] = &["__add__", "__radd__", "__mul__", "__rmul__", "__mod__"];

/// str's protocols for `StrEnum` members.
const STR_OTHER: &[&str] = &[
    "__hash__",
    "__str__",
    "__format__",
    "__bool__",
    "__len__",
    "__contains__",
    "__getitem__",
    "__iter__",
];

/// The namespace of the `IntEnum` library class (`StrEnum`'s when `str`).
pub(crate) fn namespace(str: bool) -> Vec<(Rc<str>, Value)> {
    let comparisons = COMPARISONS.iter().map(|(n, _)| n);
    let names: Vec<&'static &'static str> = if str {
        comparisons
            .chain(STR_ARITHMETIC.iter())
            .chain(STR_OTHER.iter())
            .collect()
    } else {
        comparisons
            .chain(ARITHMETIC.iter().flat_map(|(n, r, _)| [n, r]))
            .chain(UNARY.iter().map(|(n, _)| n))
            .chain(OTHER.iter())
            .collect()
    };
    names
        .into_iter()
        .map(|n| {
            let m = Value::Builtin(Builtin::Class(ClassBuiltin::IntEnumOp(IntEnumOp(n))));
            (Rc::from(*n), m)
        })
        .collect()
}

/// The value of an `IntEnum`, `IntFlag` or `StrEnum` member (an int or a str).
pub(crate) fn member_value(i: &Instance) -> Option<Value> {
    use super::class::Flavor;
    if !matches!(
        i.class.flavor,
        Flavor::IntEnum | Flavor::IntFlag | Flavor::StrEnum
    ) {
        return None;
    }
    i.get("value")
}

/// `v`, or its value when it is an `IntEnum` member.
pub(crate) fn unwrap(v: &Value) -> Value {
    match v {
        Value::Instance(i) => member_value(i).unwrap_or_else(|| v.clone()),
        other => other.clone(),
    }
}

fn is_number(v: &Value) -> bool {
    super::num::num(v).is_some()
}

/// Whether `a` (a member's value) and `b` meet in the value type's operation: two numbers,
/// or a str with a str (a number too for `*` and anything plain for `%`).
fn operands_meet(name: &str, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(_), Value::Str(_)) => true,
        (Value::Str(_), _) if matches!(name, "__mul__" | "__rmul__") => is_number(b),
        (Value::Str(_), _) if name == "__mod__" => !matches!(b, Value::Instance(_)),
        _ => is_number(a) && is_number(b),
    }
}

impl Machine {
    /// Calls a generated `IntEnum` method on `args` (the member first).
    pub(crate) fn call_int_enum_op(&mut self, op: IntEnumOp, args: Vec<Value>) -> R<Value> {
        let name = *op.0;
        let mut it = args.iter().map(unwrap);
        let Some(this) = it.next() else {
            return type_error(format!("{name}() needs an argument"));
        };
        let other = it.next();
        if let Some((_, cmp)) = COMPARISONS.iter().find(|(n, _)| *n == name) {
            return match other {
                Some(o) if operands_meet(name, &this, &o) => {
                    self.compare(*cmp, &this, &o).map(Value::Bool)
                }
                _ => Ok(Value::NotImplemented),
            };
        }
        if let Some((n, _, bin)) = ARITHMETIC.iter().find(|(n, r, _)| *n == name || *r == name) {
            return match other {
                Some(o) if operands_meet(name, &this, &o) => {
                    if *n == name {
                        super::ops::binary(*bin, &this, &o)
                    } else {
                        super::ops::binary(*bin, &o, &this)
                    }
                }
                _ => Ok(Value::NotImplemented),
            };
        }
        if let Some((_, u)) = UNARY.iter().find(|(n, _)| *n == name) {
            return super::ops::unary(*u, &this);
        }
        match name {
            "__hash__" => {
                let key = super::dict::key_of(&this)?;
                Ok(Value::Int(super::stdclass::hash_of_key(&key)))
            }
            "__str__" => self.str_of(&this).map(Value::str),
            "__format__" => {
                let spec = match other {
                    Some(Value::Str(s)) => s.as_str().to_string(),
                    _ => String::new(),
                };
                super::format::format_value(&this, &spec).map(Value::str)
            }
            "__bool__" => Ok(Value::Bool(super::ops::truthy(&this))),
            "__abs__" => self.call_builtin(Builtin::Abs, vec![this], Vec::new()),
            "__index__" => Ok(this),
            "__len__" => self.len_of(&this).map(Value::Int),
            "__contains__" => match other {
                Some(o) => self.contains(&this, &o).map(Value::Bool),
                None => type_error("__contains__() needs an argument"),
            },
            "__getitem__" => match other {
                Some(o) => self.getitem(&this, &o),
                None => type_error("__getitem__() needs an argument"),
            },
            "__iter__" => Ok(self.iter_of(this)?.into_value()),
            _ => type_error(format!("IntEnum has no method {name}")),
        }
    }
}
