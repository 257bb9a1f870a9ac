//! `enum.Flag` and `enum.IntFlag` as CPython 3.11 has them: members are bit flags, `|`,
//! `&`, `^` and `~` give members or pseudo-members (made once per value, so `is` holds),
//! `in`, iteration and `len` go by the canonical single-bit members. `Flag`'s boundary is
//! `STRICT` (out-of-range values raise CPython's `ValueError`), `IntFlag`'s is `KEEP`
//! (unknown bits stay, named by their number). The class's namespace holds generated
//! methods ([`FlagOp`]); `IntFlag` adds `IntEnum`'s int methods under them.

use std::rc::Rc;

use super::builtins::Builtin;
use super::class::{Class, Flavor, Instance};
use super::exc::{R, Unwind, type_error, value_error};
use super::machine::Machine;
use super::stdclass::ClassBuiltin;
use super::value::Value;

/// A generated method of `Flag`, by its dunder name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FlagOp(pub &'static &'static str);

const BINARY: &[(&str, &str)] = &[
    ("__or__", "__ror__"),
    ("__and__", "__rand__"),
    ("__xor__", "__rxor__"),
];

const OTHER: &[&str] = &[
    "__invert__",
    "__contains__",
    "__iter__",
    "__len__",
    "__bool__",
];

/// The namespace of the `Flag` library class (also laid over `IntFlag`'s int methods).
pub(crate) fn namespace() -> Vec<(Rc<str>, Value)> {
    let names = BINARY.iter().flat_map(|(n, r)| [n, r]);
    names
        .chain(OTHER.iter())
        .map(|n| {
            let m = Value::Builtin(Builtin::Class(ClassBuiltin::FlagOp(FlagOp(n))));
            (Rc::from(*n), m)
        })
        .collect()
}

/// The masks CPython keeps on a flag class.
struct Masks {
    /// Every bit of a named member.
    flag: i128,
    /// The bits of single-bit members.
    singles: i128,
    /// `2 ** flag.bit_length() - 1`.
    all: i128,
}

fn bit_length(v: i128) -> u32 {
    128 - v.unsigned_abs().leading_zeros()
}

/// The int value of a flag member.
fn value_of(m: &Value) -> Option<i64> {
    match m {
        Value::Instance(i) => match i.get("value") {
            Some(Value::Int(n)) => Some(n),
            Some(Value::Bool(b)) => Some(b as i64),
            _ => None,
        },
        _ => None,
    }
}

/// The named members of `c` in definition order, aliases included (`_member_map_`).
fn named_members(c: &Rc<Class>) -> Vec<Value> {
    let attrs = c.attrs.borrow();
    let own = |v: &&Value| matches!(v, Value::Instance(i) if Rc::ptr_eq(&i.class, c));
    attrs.iter().map(|(_, v)| v).filter(own).cloned().collect()
}

fn masks(c: &Rc<Class>) -> Masks {
    let (mut flag, mut singles) = (0i128, 0i128);
    for m in named_members(c) {
        let v = value_of(&m).unwrap_or(0) as i128;
        flag |= v;
        if v.count_ones() == 1 {
            singles |= v;
        }
    }
    let all = (1i128 << bit_length(flag)) - 1;
    Masks { flag, singles, all }
}

/// The `enum.bin` CPython's messages use: sign and digits, padded to `max_bits`.
fn enum_bin(num: i128, max_bits: u32) -> String {
    let ceiling = 1i128 << bit_length(num);
    let s = if num >= 0 {
        format!("0b{:b}", num + ceiling).replacen('1', "0", 1)
    } else {
        format!("0b{:b}", (!num ^ (ceiling - 1)) + ceiling)
    };
    let (sign, digits) = s.split_at(3);
    let mut digits = digits.to_string();
    if (digits.len() as u32) < max_bits {
        let pad = sign[2..].repeat(max_bits as usize);
        let all = pad + &digits;
        digits = all[all.len() - max_bits as usize..].to_string();
    }
    format!("{sign} {digits}")
}

fn py_bin(v: i128) -> String {
    if v < 0 {
        format!("-0b{:b}", v.unsigned_abs())
    } else {
        format!("0b{v:b}")
    }
}

fn too_wide() -> Unwind {
    Unwind::unsupported("a Flag value wider than 62 bits")
}

impl Machine {
    /// Checks the members of a new flag class and records its canonical members:
    /// `members` keeps the single-bit ones (iteration, `len`), `flag_values` every named one.
    pub(crate) fn make_flag_members(&mut self, c: &Rc<Class>, canonical: &[Value]) -> R<()> {
        let mut by_value = Vec::new();
        let mut singles = Vec::new();
        let mut single_bits = 0i64;
        let mut multi_bits = 0i64;
        for m in canonical {
            let v = match value_of(m) {
                Some(v) if (0..1 << 62).contains(&v) => v,
                _ => {
                    let name = match m {
                        Value::Instance(i) => i.get("name").unwrap_or(Value::None),
                        _ => Value::None,
                    };
                    return Err(Unwind::unsupported(format!(
                        "the Flag member {}.{} whose value is not a non-negative int",
                        c.name,
                        self.str_of(&name)?
                    )));
                }
            };
            if v.count_ones() == 1 {
                singles.push(m.clone());
                single_bits |= v;
            } else {
                multi_bits |= v;
            }
            by_value.push((v, m.clone()));
        }
        if multi_bits & !single_bits != 0 {
            return Err(Unwind::unsupported(format!(
                "the Flag class {} with a member whose bits no single-bit member has",
                c.name
            )));
        }
        *c.members.borrow_mut() = singles;
        *c.flag_values.borrow_mut() = by_value;
        Ok(())
    }

    /// `Perm(6)`: the member or pseudo-member with that value (CPython's `_missing_`).
    pub(crate) fn flag_lookup(&mut self, c: &Rc<Class>, v: &Value) -> R<Value> {
        let key = match v {
            Value::Int(n) => Some(*n),
            Value::Bool(b) => Some(*b as i64),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 4e18 => Some(*f as i64),
            _ => None,
        };
        if let Some(k) = key {
            let cached = (c.flag_values.borrow().iter())
                .find(|(n, _)| *n == k)
                .map(|(_, m)| m.clone());
            if let Some(m) = cached {
                return Ok(m);
            }
        }
        if matches!(
            c.lookup("_missing_"),
            Some(Value::Function(_) | Value::Descriptor(_))
        ) {
            return Err(Unwind::unsupported(format!(
                "a _missing_ method of the Flag class {}",
                c.name
            )));
        }
        match (v, key) {
            (Value::Int(_) | Value::Bool(_), Some(n)) => self.flag_missing(c, n as i128),
            (Value::Big(_), _) => Err(too_wide()),
            _ => value_error(format!(
                "{} is not a valid {}",
                self.repr_of(v)?,
                c.qualname
            )),
        }
    }

    fn flag_missing(&mut self, c: &Rc<Class>, n: i128) -> R<Value> {
        let m = masks(c);
        let strict = c.flavor == Flavor::Flag;
        let cls = self.repr_of(&Value::Class(c.clone()))?;
        let mut value = n;
        if !(!m.all <= value && value <= m.all) || value & (m.all ^ m.flag) != 0 {
            if strict {
                let max_bits = bit_length(value).max(bit_length(m.flag));
                return value_error(format!(
                    "{cls} invalid value {value}\n    given {}\n  allowed {}",
                    enum_bin(value, max_bits),
                    enum_bin(m.flag, max_bits)
                ));
            }
            if value < 0 {
                value += (m.all + 1).max(1i128 << bit_length(value));
            }
        }
        let mut neg_value = None;
        if value < 0 {
            neg_value = Some(value);
            value += m.all + 1;
        }
        let unknown = value & !m.flag;
        let aliases = value & !m.singles;
        let member_value = value & m.singles;
        if unknown != 0 && strict {
            return value_error(format!(
                "{}({value}) -->  unknown values {unknown} [{}]",
                c.name,
                py_bin(unknown)
            ));
        }
        let (Ok(value64), Ok(neg64)) =
            (i64::try_from(value), i64::try_from(neg_value.unwrap_or(0)))
        else {
            return Err(too_wide());
        };
        let cached = (c.flag_values.borrow().iter())
            .find(|(k, _)| *k == value64)
            .map(|(_, m)| m.clone());
        if let Some(found) = cached {
            if neg_value.is_some() {
                c.flag_values.borrow_mut().push((neg64, found.clone()));
            }
            return Ok(found);
        }
        let mut name = Value::None;
        if member_value != 0 || aliases != 0 {
            let mut members: Vec<Value> = Vec::new();
            let mut combined = 0i128;
            for s in c.members.borrow().iter() {
                let sv = value_of(s).unwrap_or(0) as i128;
                if sv & member_value == sv {
                    members.push(s.clone());
                    combined |= sv;
                }
            }
            if aliases != 0 {
                for pm in named_members(c) {
                    let pv = value_of(&pm).unwrap_or(0) as i128;
                    let seen = members.iter().any(|x| super::ops::is(x, &pm));
                    if !seen && pv != 0 && pv & value == pv {
                        members.push(pm);
                        combined |= pv;
                    }
                }
            }
            let unknown = value ^ combined;
            let mut names = Vec::new();
            for x in &members {
                if let Value::Instance(i) = x {
                    names.push(self.str_of(&i.get("name").unwrap_or(Value::None))?);
                }
            }
            if combined != 0 {
                if unknown != 0 && strict {
                    return value_error(format!("{cls}: no members with value {unknown}"));
                }
                let mut joined = names.join("|");
                if unknown != 0 {
                    joined.push_str(&format!("|{unknown}"));
                }
                name = Value::str(joined);
            }
        }
        let inst = Instance::new(c.clone());
        inst.attrs.borrow_mut().push(("name".into(), name));
        inst.attrs
            .borrow_mut()
            .push((super::names::intern("value"), Value::Int(value64)));
        let member = Value::Instance(Rc::new(inst));
        let mut cache = c.flag_values.borrow_mut();
        cache.push((value64, member.clone()));
        if neg_value.is_some() {
            cache.push((neg64, member.clone()));
        }
        Ok(member)
    }

    /// Calls a generated `Flag` method on `args` (the member first).
    pub(crate) fn call_flag_op(&mut self, op: FlagOp, args: Vec<Value>) -> R<Value> {
        let name = *op.0;
        let (c, v) = match args.first() {
            Some(m @ Value::Instance(i)) if i.class.is_flag() => match value_of(m) {
                Some(v) => (i.class.clone(), v),
                None => return type_error(format!("{name}() needs a flag member")),
            },
            _ => return type_error(format!("{name}() needs a flag member")),
        };
        if let Some((n, _)) = BINARY.iter().find(|(n, r)| *n == name || *r == name) {
            let other = match args.get(1) {
                Some(o @ Value::Instance(i)) if i.class.is_subclass_of(&c) => value_of(o),
                Some(Value::Int(n)) if c.flavor == Flavor::IntFlag => Some(*n),
                Some(Value::Bool(b)) if c.flavor == Flavor::IntFlag => Some(*b as i64),
                _ => None,
            };
            let Some(o) = other else {
                return Ok(Value::NotImplemented);
            };
            let r = match *n {
                "__or__" => v | o,
                "__and__" => v & o,
                _ => v ^ o,
            };
            return self.flag_lookup(&c, &Value::Int(r));
        }
        match name {
            "__invert__" => {
                let r = if c.flavor == Flavor::IntFlag {
                    !v
                } else {
                    (masks(&c).singles as i64) & !v
                };
                self.flag_lookup(&c, &Value::Int(r))
            }
            "__contains__" => match args.get(1) {
                Some(o @ Value::Instance(i)) if i.class.is_subclass_of(&c) => {
                    let ov = value_of(o).unwrap_or(0);
                    Ok(Value::Bool(ov & v == ov))
                }
                other => {
                    let t = match other {
                        Some(Value::Instance(i)) => i.class.qualname.to_string(),
                        Some(o) => o.type_name().to_string(),
                        None => "NoneType".into(),
                    };
                    type_error(format!(
                        "unsupported operand type(s) for 'in': '{t}' and '{}'",
                        c.qualname
                    ))
                }
            },
            "__iter__" => {
                let mask = masks(&c).flag as i64;
                let items: Vec<Value> = (c.members.borrow().iter())
                    .filter(|m| {
                        let s = value_of(m).unwrap_or(0);
                        s & v & mask == s
                    })
                    .cloned()
                    .collect();
                Ok(self.iter_of(Value::list(items))?.into_value())
            }
            "__len__" => Ok(Value::Int(v.count_ones() as i64)),
            "__bool__" => Ok(Value::Bool(v != 0)),
            _ => type_error(format!("Flag has no method {name}")),
        }
    }
}
