//! Operators on values: binary and unary arithmetic, sequence concatenation and repetition,
//! equality, ordering, identity, truthiness and membership, with CPython's error messages.

use std::cmp::Ordering;
use std::rc::Rc;

use super::budget;
use super::dict::key_of;
use super::exc::{ExcKind, R, Unwind, fail, type_error};
use super::limits;
use super::num::{self, Num, num};
use super::value::{Value, ViewKind};
use crate::python::ir::{BinOp, CmpOp, UnaryOp};

/// `a op b`.
#[inline]
pub(crate) fn binary(op: BinOp, a: &Value, b: &Value) -> R<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        if let Some(v) = num::int_fast(op, *x, *y) {
            return Ok(Value::Int(v));
        }
    }
    binary_slow(op, a, b)
}

fn binary_slow(op: BinOp, a: &Value, b: &Value) -> R<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        if let Some(r) = num::small_op(op, *x, *y) {
            return r;
        }
    }
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        let float = x.is_float() || y.is_float();
        let bitwise = matches!(
            op,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift
        );
        if op == BinOp::MatMult || (float && bitwise) {
            return unsupported_operands(op, a, b);
        }
        if let (Value::Bool(p), Value::Bool(q)) = (a, b) {
            match op {
                BinOp::BitAnd => return Ok(Value::Bool(*p & *q)),
                BinOp::BitOr => return Ok(Value::Bool(*p | *q)),
                BinOp::BitXor => return Ok(Value::Bool(*p ^ *q)),
                _ => {}
            }
        }
        return num::arith(op, x, y);
    }
    if let Some(r) = super::set_ops::binary(op, a, b) {
        return r;
    }
    if let Some(r) = super::set_ops::view_binary(op, a, b) {
        return r;
    }
    if let Some(r) = super::stdlib::counter_op(op, a, b) {
        return r;
    }
    if let Some(r) = super::bytes::binary(op, a, b) {
        return r;
    }
    match op {
        BinOp::Add => concat(a, b),
        BinOp::Mult => repeat(a, b),
        BinOp::Mod if matches!(a, Value::Str(_)) => match a {
            Value::Str(s) => super::format::percent(s.as_str(), b).map(Value::str),
            _ => unsupported_operands(op, a, b),
        },
        BinOp::BitOr => match (a, b) {
            (Value::Dict(x), Value::Dict(y)) => {
                let mut d = x.borrow().copy();
                let other: Vec<(Value, Value)> = y.borrow().iter().cloned().collect();
                for (k, v) in other {
                    d.insert(key_of(&k)?, k, v);
                }
                Ok(Value::Dict(Rc::new(std::cell::RefCell::new(d))))
            }
            _ => unsupported_operands(op, a, b),
        },
        _ => unsupported_operands(op, a, b),
    }
}

/// How CPython's binary-operator errors name `op` (`** or pow()` for `**`).
pub(crate) fn binary_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Pow => "** or pow()",
        _ => op.symbol(),
    }
}

pub(crate) fn unsupported_operands<T>(op: BinOp, a: &Value, b: &Value) -> R<T> {
    type_error(format!(
        "unsupported operand type(s) for {}: '{}' and '{}'",
        binary_symbol(op),
        a.type_name(),
        b.type_name()
    ))
}

/// The bytes of one item of a list or tuple.
pub(crate) const ITEM_BYTES: usize = std::mem::size_of::<Value>();

/// `MemoryError` unless a result of `n` items is within the size limit.
pub(crate) fn check_len(n: usize) -> R<()> {
    let max = limits::current().max_len;
    if n > max {
        return fail(
            ExcKind::MemoryError,
            format!(
                "the result would have {n} items; the interpreter limits strings and lists to {max}"
            ),
        );
    }
    Ok(())
}

fn concat(a: &Value, b: &Value) -> R<Value> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => {
            check_len(x.len() + y.len())?;
            budget::produce(x.as_str().len() + y.as_str().len(), 1)?;
            let mut s = String::with_capacity(x.as_str().len() + y.as_str().len());
            s.push_str(x.as_str());
            s.push_str(y.as_str());
            Ok(Value::str(s))
        }
        (Value::List(x), Value::List(y)) => {
            let (x, more) = (x.borrow(), y.borrow());
            check_len(x.len() + more.len())?;
            budget::produce(x.len() + more.len(), ITEM_BYTES)?;
            let mut items = x.clone();
            items.extend(more.iter().cloned());
            Ok(Value::list(items))
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            check_len(x.len() + y.len())?;
            budget::produce(x.len() + y.len(), ITEM_BYTES)?;
            Ok(Value::tuple(x.iter().chain(y.iter()).cloned().collect()))
        }
        (Value::Str(_) | Value::List(_) | Value::Tuple(_), _) => type_error(format!(
            "can only concatenate {} (not \"{}\") to {}",
            a.type_name(),
            b.type_name(),
            a.type_name()
        )),
        _ => unsupported_operands(BinOp::Add, a, b),
    }
}

/// The repetition count of `seq * n`: negative counts are 0.
pub(crate) fn repeat_count(n: &Value) -> R<Option<usize>> {
    Ok(match n {
        Value::Bool(b) => Some(*b as usize),
        Value::Int(i) => Some((*i).max(0) as usize),
        Value::Big(b) => {
            if b.sign() == num_bigint::Sign::Minus {
                Some(0)
            } else {
                return fail(
                    ExcKind::OverflowError,
                    "cannot fit 'int' into an index-sized integer",
                );
            }
        }
        _ => None,
    })
}

fn repeat(a: &Value, b: &Value) -> R<Value> {
    let (seq, n) = match (a, b) {
        (Value::Str(_) | Value::List(_) | Value::Tuple(_), _) => (a, b),
        (_, Value::Str(_) | Value::List(_) | Value::Tuple(_)) => (b, a),
        _ => return unsupported_operands(BinOp::Mult, a, b),
    };
    let Some(count) = repeat_count(n)? else {
        return type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            n.type_name()
        ));
    };
    match seq {
        Value::Str(s) => {
            check_len(s.len().saturating_mul(count))?;
            budget::produce(s.as_str().len().saturating_mul(count), 1)?;
            Ok(Value::str(s.as_str().repeat(count)))
        }
        Value::List(items) => {
            let items = items.borrow();
            check_len(items.len().saturating_mul(count))?;
            budget::produce(items.len() * count, ITEM_BYTES)?;
            Ok(Value::list(repeat_items(&items, count)))
        }
        Value::Tuple(items) => {
            check_len(items.len().saturating_mul(count))?;
            budget::produce(items.len() * count, ITEM_BYTES)?;
            Ok(Value::tuple(repeat_items(items, count)))
        }
        _ => unsupported_operands(BinOp::Mult, a, b),
    }
}

pub(crate) fn repeat_items(items: &[Value], count: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(items.len() * count);
    for _ in 0..count {
        out.extend(items.iter().cloned());
    }
    out
}

/// `op operand`.
pub(crate) fn unary(op: UnaryOp, v: &Value) -> R<Value> {
    match op {
        UnaryOp::Not => Ok(Value::Bool(!truthy(v))),
        UnaryOp::USub => match num(v) {
            Some(n) => Ok(num::negate(n)),
            None => bad_unary("-", v),
        },
        UnaryOp::UAdd => match num(v) {
            Some(Num::Float(f)) => Ok(Value::Float(f)),
            Some(Num::Small(i)) => Ok(Value::Int(i)),
            Some(Num::Big(_)) => Ok(v.clone()),
            None => bad_unary("+", v),
        },
        UnaryOp::Invert => match num(v) {
            Some(Num::Float(_)) | None => bad_unary("~", v),
            Some(n) => num::arith(BinOp::Sub, Num::Small(-1), n),
        },
    }
}

fn bad_unary<T>(symbol: &str, v: &Value) -> R<T> {
    type_error(format!(
        "bad operand type for unary {symbol}: '{}'",
        v.type_name()
    ))
}

/// Python truthiness.
#[inline]
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Big(_) => true,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => s.len() > 0,
        Value::Tuple(t) => !t.is_empty(),
        Value::List(l) => !l.borrow().is_empty(),
        Value::Dict(d) => d.borrow().len() > 0,
        Value::View(v) => v.dict.borrow().len() > 0,
        Value::Range(r) => r.len() > 0,
        Value::Set(s) => s.borrow().len() > 0,
        Value::Std(o) => o.truthy(),
        Value::Bytes(b) => !b.is_empty(),
        _ => true,
    }
}

/// `a is b`: identity for mutable objects and functions; type and value for ints, floats
/// and strs (whose identity CPython does not define).
pub(crate) fn is(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Big(x), Value::Big(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Tuple(x), Value::Tuple(y)) => Rc::ptr_eq(x, y) || (x.is_empty() && y.is_empty()),
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Rc::ptr_eq(x, y),
        (Value::View(x), Value::View(y)) => Rc::ptr_eq(x, y),
        (Value::Range(x), Value::Range(y)) => Rc::ptr_eq(x, y),
        (Value::Function(x), Value::Function(y)) => Rc::ptr_eq(x, y),
        (Value::Method(x), Value::Method(y)) => Rc::ptr_eq(x, y),
        (Value::Unbound(x), Value::Unbound(y)) => x.owner == y.owner && x.name == y.name,
        (Value::Builtin(x), Value::Builtin(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::ExcType(x), Value::ExcType(y)) => x == y,
        (Value::UserExcType(x), Value::UserExcType(y)) => Rc::ptr_eq(x, y),
        (Value::Exception(x), Value::Exception(y)) => Rc::ptr_eq(x, y),
        (Value::Iter(x), Value::Iter(y)) => Rc::ptr_eq(x, y),
        (Value::Native(x), Value::Native(y)) => x == y,
        (Value::Opaque(x), Value::Opaque(y)) => x == y,
        (Value::Unavailable(x), Value::Unavailable(y)) => Rc::ptr_eq(x, y),
        (Value::Class(x), Value::Class(y)) => Rc::ptr_eq(x, y),
        (Value::Instance(x), Value::Instance(y)) => Rc::ptr_eq(x, y),
        (Value::Bound(x), Value::Bound(y)) => Rc::ptr_eq(x, y),
        (Value::Descriptor(x), Value::Descriptor(y)) => Rc::ptr_eq(x, y),
        (Value::Super(x), Value::Super(y)) => Rc::ptr_eq(x, y),
        (Value::NotImplemented, Value::NotImplemented) => true,
        (Value::Set(x), Value::Set(y)) => Rc::ptr_eq(x, y),
        (Value::Std(x), Value::Std(y)) => Rc::ptr_eq(x, y),
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        _ => false,
    }
}

fn depth_error() -> Unwind {
    Unwind::new(
        ExcKind::RecursionError,
        "maximum recursion depth exceeded in comparison",
    )
}

/// `a == b`.
pub(crate) fn eq(a: &Value, b: &Value) -> R<bool> {
    eq_at(a, b, 0)
}

fn eq_at(a: &Value, b: &Value, depth: u32) -> R<bool> {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return Ok(num::compare(x, y) == Some(Ordering::Equal));
    }
    if depth > 0 && depth > limits::current().recursion_limit {
        return Err(depth_error());
    }
    if let (Value::View(_), _) | (_, Value::View(_)) = (a, b) {
        if let Some(r) = super::set_ops::view_compare(CmpOp::Eq, a, b) {
            return r;
        }
    }
    if let Some(r) = super::set_ops::eq(a, b) {
        return r;
    }
    if let (Some(x), Some(y)) = (super::slice::parts(a), super::slice::parts(b)) {
        return seq_eq(x, y, depth);
    }
    Ok(match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Tuple(x), Value::Tuple(y)) => Rc::ptr_eq(x, y) || seq_eq(x, y, depth)?,
        (Value::List(x), Value::List(y)) => {
            Rc::ptr_eq(x, y) || seq_eq(&x.borrow(), &y.borrow(), depth)?
        }
        (Value::Dict(x), Value::Dict(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ok(true);
            }
            let (x, y) = (x.borrow(), y.borrow());
            if x.len() != y.len() {
                return Ok(false);
            }
            for (k, v) in x.iter() {
                match y.get(&key_of(k)?) {
                    Some(w) if is(v, w) || eq_at(v, w, depth + 1)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (Value::Range(x), Value::Range(y)) => {
            let (n, m) = (x.len(), y.len());
            n == m && (n == 0 || (x.start == y.start && (n == 1 || x.step == y.step)))
        }
        (Value::Instance(_), _) | (_, Value::Instance(_)) => {
            return Err(super::dunder::needs_machine());
        }
        (Value::View(x), Value::View(y))
            if x.kind == ViewKind::Keys && y.kind == ViewKind::Keys =>
        {
            let (p, q) = (x.dict.borrow(), y.dict.borrow());
            p.len() == q.len()
                && p.iter()
                    .all(|(k, _)| key_of(k).map(|k| q.get(&k).is_some()).unwrap_or(false))
        }
        _ => is(a, b),
    })
}

fn seq_eq(x: &[Value], y: &[Value], depth: u32) -> R<bool> {
    if x.len() != y.len() {
        return Ok(false);
    }
    budget::charge_items(x.len())?;
    for (p, q) in x.iter().zip(y) {
        if !(is(p, q) || eq_at(p, q, depth + 1)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `a op b` for the six comparison operators.
pub(crate) fn compare(op: CmpOp, a: &Value, b: &Value) -> R<bool> {
    compare_at(op, a, b, 0)
}

fn compare_at(op: CmpOp, a: &Value, b: &Value, depth: u32) -> R<bool> {
    match op {
        CmpOp::Eq => return eq_at(a, b, depth),
        CmpOp::NotEq => return eq_at(a, b, depth).map(|e| !e),
        _ => {}
    }
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return Ok(num::compare(x, y).is_some_and(|o| holds(op, o)));
    }
    if depth > 0 && depth > limits::current().recursion_limit {
        return Err(depth_error());
    }
    if let Some(r) = super::set_ops::view_compare(op, a, b) {
        return r;
    }
    if let Some(r) = super::set_ops::compare(op, a, b) {
        return r;
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(holds(op, x.as_str().cmp(y.as_str()))),
        (Value::Tuple(x), Value::Tuple(y)) => seq_compare(op, x, y, depth),
        (Value::Bytes(x), Value::Bytes(y)) => super::bytes::compare(op, x, y),
        (Value::List(x), Value::List(y)) => {
            let (x, y) = (x.borrow().clone(), y.borrow().clone());
            seq_compare(op, &x, &y, depth)
        }
        (Value::Instance(_), _) | (_, Value::Instance(_)) => Err(super::dunder::needs_machine()),
        _ => type_error(format!(
            "'{}' not supported between instances of '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        )),
    }
}

fn seq_compare(op: CmpOp, x: &[Value], y: &[Value], depth: u32) -> R<bool> {
    budget::charge_items(x.len().min(y.len()))?;
    for (p, q) in x.iter().zip(y) {
        if !(is(p, q) || eq_at(p, q, depth + 1)?) {
            return compare_at(op, p, q, depth + 1);
        }
    }
    Ok(holds(op, x.len().cmp(&y.len())))
}

fn holds(op: CmpOp, o: Ordering) -> bool {
    match op {
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::LtE => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::GtE => o != Ordering::Less,
        CmpOp::Eq => o == Ordering::Equal,
        _ => o != Ordering::Equal,
    }
}

/// `item in container` for containers that need no iteration; `None` for iterators (the
/// caller consumes them).
pub(crate) fn contains(container: &Value, item: &Value) -> R<Option<bool>> {
    Ok(Some(match container {
        Value::Str(s) => match item {
            Value::Str(sub) => {
                budget::charge_items(s.as_str().len())?;
                s.as_str().contains(sub.as_str())
            }
            _ => {
                return type_error(format!(
                    "'in <string>' requires string as left operand, not {}",
                    item.type_name()
                ));
            }
        },
        Value::List(items) => {
            budget::charge_items(items.borrow().len())?;
            let items = items.borrow().clone();
            seq_contains(&items, item)?
        }
        Value::Tuple(items) => {
            budget::charge_items(items.len())?;
            seq_contains(items, item)?
        }
        Value::Set(s) => super::set_ops::contains(&s.borrow(), item)?,
        Value::Bytes(b) => super::bytes::contains(b, item)?,
        Value::Dict(d) => {
            let key = key_of(item)?;
            d.borrow().get(&key).is_some()
        }
        Value::View(v) => {
            let d = v.dict.borrow();
            match v.kind {
                ViewKind::Keys => d.get(&key_of(item)?).is_some(),
                ViewKind::Values => {
                    let values: Vec<Value> = d.iter().map(|(_, v)| v.clone()).collect();
                    seq_contains(&values, item)?
                }
                ViewKind::Items => match item {
                    Value::Tuple(pair) if pair.len() == 2 => match d.get(&key_of(&pair[0])?) {
                        Some(v) => is(v, &pair[1]) || eq(v, &pair[1])?,
                        None => false,
                    },
                    _ => false,
                },
            }
        }
        Value::Range(r) => match item {
            Value::Int(_) | Value::Bool(_) | Value::Big(_) => {
                let Some(i) = item.to_bigint().and_then(|b| i128::try_from(b).ok()) else {
                    return Ok(Some(false));
                };
                let (start, step, len) = (r.start as i128, r.step as i128, r.len());
                len > 0 && {
                    let off = i - start;
                    off % step == 0 && (0..len).contains(&(off / step))
                }
            }
            _ => {
                let mut found = false;
                for k in 0..r.len() {
                    if eq(&Value::int128(r.at(k)), item)? {
                        found = true;
                        break;
                    }
                }
                found
            }
        },
        Value::Iter(_) => return Ok(None),
        Value::Std(o) if o.len().is_some() => return Ok(None),
        _ => {
            return type_error(format!(
                "argument of type '{}' is not iterable",
                container.type_name()
            ));
        }
    }))
}

fn seq_contains(items: &[Value], item: &Value) -> R<bool> {
    for x in items {
        if is(x, item) || eq(x, item)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::str(text)
    }

    fn message(r: R<Value>) -> String {
        match r.as_ref().err().and_then(Unwind::raised) {
            Some(e) => match e.exc.first_arg() {
                Some(Value::Str(m)) => format!("{}: {}", e.exc.class.name(), m.as_str()),
                _ => e.exc.class.name().to_string(),
            },
            None => format!("{r:?}"),
        }
    }

    #[test]
    fn type_errors_name_both_operands() {
        // Messages as CPython 3.11 prints them.
        assert_eq!(
            message(binary(BinOp::Add, &Value::Int(1), &s("a"))),
            "TypeError: unsupported operand type(s) for +: 'int' and 'str'"
        );
        assert_eq!(
            message(binary(BinOp::Add, &s("a"), &Value::Int(1))),
            "TypeError: can only concatenate str (not \"int\") to str"
        );
        assert_eq!(
            message(binary(
                BinOp::Add,
                &Value::list(vec![]),
                &Value::tuple(vec![])
            )),
            "TypeError: can only concatenate list (not \"tuple\") to list"
        );
        assert_eq!(
            message(binary(BinOp::Mult, &s("a"), &Value::Float(1.5))),
            "TypeError: can't multiply sequence by non-int of type 'float'"
        );
        assert_eq!(
            message(binary(BinOp::BitOr, &Value::Int(1), &Value::Float(1.5))),
            "TypeError: unsupported operand type(s) for |: 'int' and 'float'"
        );
        assert_eq!(
            message(unary(UnaryOp::USub, &s("a"))),
            "TypeError: bad operand type for unary -: 'str'"
        );
        assert_eq!(
            message(compare(CmpOp::Lt, &Value::Int(1), &s("a")).map(Value::Bool)),
            "TypeError: '<' not supported between instances of 'int' and 'str'"
        );
    }

    #[test]
    fn sequences_concatenate_repeat_and_compare() {
        let r = binary(BinOp::Mult, &Value::Int(3), &s("ab")).unwrap();
        assert!(matches!(&r, Value::Str(x) if x.as_str() == "ababab"));
        let r = binary(BinOp::Mult, &s("ab"), &Value::Int(-2)).unwrap();
        assert!(matches!(&r, Value::Str(x) if x.as_str().is_empty()));
        let l = |xs: Vec<Value>| Value::list(xs);
        assert!(
            compare(
                CmpOp::Lt,
                &l(vec![Value::Int(1), Value::Int(2)]),
                &l(vec![Value::Int(1), Value::Int(3)])
            )
            .unwrap()
        );
        assert!(
            compare(
                CmpOp::Lt,
                &l(vec![Value::Int(1)]),
                &l(vec![Value::Int(1), s("a")])
            )
            .unwrap()
        );
        assert!(
            compare(
                CmpOp::Lt,
                &l(vec![Value::Int(1), Value::Int(2)]),
                &l(vec![Value::Int(1), s("a")])
            )
            .is_err()
        );
        assert!(eq(&Value::Int(1), &Value::Float(1.0)).unwrap());
        assert!(eq(&Value::Bool(true), &Value::Int(1)).unwrap());
        assert!(!eq(&l(vec![]), &Value::tuple(vec![])).unwrap());
        assert!(
            message(binary(BinOp::Mult, &s("a"), &Value::Int(1 << 40))).starts_with("MemoryError")
        );
    }

    #[test]
    fn membership() {
        assert_eq!(contains(&s("hello"), &s("ell")).unwrap(), Some(true));
        assert!(contains(&s("hello"), &Value::Int(1)).is_err());
        let r = Value::Range(Rc::new(super::super::value::Range {
            start: 10,
            stop: 0,
            step: -3,
        }));
        assert_eq!(contains(&r, &Value::Int(4)).unwrap(), Some(true));
        assert_eq!(contains(&r, &Value::Int(5)).unwrap(), Some(false));
        assert_eq!(contains(&r, &Value::Float(7.0)).unwrap(), Some(true));
        assert!(contains(&Value::Int(3), &Value::Int(1)).is_err());
    }

    #[test]
    fn truthiness_and_identity() {
        assert!(!truthy(&Value::Float(0.0)));
        assert!(!truthy(&s("")));
        assert!(truthy(&Value::tuple(vec![Value::None])));
        let l = Value::list(vec![]);
        assert!(is(&l, &l.clone()));
        assert!(!is(&l, &Value::list(vec![])));
    }
}
