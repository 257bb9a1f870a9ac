//! Indexing and slicing of strs, lists, tuples, ranges and dicts: negative indices, slice
//! clamping and steps as CPython's `PySlice_AdjustIndices`, and CPython's messages.

use std::rc::Rc;

use num_traits::ToPrimitive;

use super::budget;
use super::dict::key_of;
use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, fail, type_error, value_error};
use super::machine::Machine;
use super::ops;
use super::value::{Range, TypeKind, Value};
use crate::python::messages;

/// An int used as an index, clamped to the i128 range.
pub(crate) fn as_index(v: &Value) -> Option<i128> {
    match v {
        Value::Bool(b) => Some(*b as i128),
        Value::Int(i) => Some(*i as i128),
        Value::Big(b) => Some(
            b.to_i128()
                .unwrap_or(if b.sign() == num_bigint::Sign::Minus {
                    i128::MIN
                } else {
                    i128::MAX
                }),
        ),
        _ => None,
    }
}

/// The position of index `i` in a sequence of `len` items.
fn position(i: &Value, len: usize, out_of_range: &str) -> R<Option<usize>> {
    let Some(mut k) = as_index(i) else {
        return Ok(None);
    };
    if let Value::Big(b) = i {
        if b.bits() > 63 {
            return fail(
                ExcKind::IndexError,
                "cannot fit 'int' into an index-sized integer",
            );
        }
    }
    if k < 0 {
        k += len as i128;
    }
    if k < 0 || k >= len as i128 {
        return fail(ExcKind::IndexError, out_of_range);
    }
    Ok(Some(k as usize))
}

fn key_error(key: &Value) -> Unwind {
    Unwind::from_object(ExcObject::new(
        ExcClass::Builtin(ExcKind::KeyError),
        vec![key.clone()],
    ))
}

/// `o[i]` for a non-slice index.
pub(crate) fn getitem(o: &Value, i: &Value) -> R<Value> {
    match o {
        Value::List(items) => {
            let items = items.borrow();
            match position(i, items.len(), messages::LIST_INDEX_OUT_OF_RANGE)? {
                Some(k) => Ok(items[k].clone()),
                None => type_error(format!(
                    "list indices must be integers or slices, not {}",
                    i.type_name()
                )),
            }
        }
        Value::Tuple(items) => {
            match position(i, items.len(), messages::TUPLE_INDEX_OUT_OF_RANGE)? {
                Some(k) => Ok(items[k].clone()),
                None => type_error(format!(
                    "tuple indices must be integers or slices, not {}",
                    i.type_name()
                )),
            }
        }
        Value::Str(s) => match position(i, s.len(), messages::STR_INDEX_OUT_OF_RANGE)? {
            Some(k) => Ok(Value::str(
                s.char_at(k).map(String::from).unwrap_or_default(),
            )),
            None => type_error(format!(
                "string indices must be integers, not '{}'",
                i.type_name()
            )),
        },
        Value::Bytes(b) => match position(i, b.len(), "index out of range")? {
            Some(k) => Ok(Value::Int(b[k] as i64)),
            None => type_error(format!(
                "byte indices must be integers or slices, not {}",
                i.type_name()
            )),
        },
        Value::Range(r) => {
            let len = usize::try_from(r.len()).unwrap_or(usize::MAX);
            match position(i, len, "range object index out of range")? {
                Some(k) => Ok(Value::int128(r.at(k as i128))),
                None => type_error(format!(
                    "range indices must be integers or slices, not {}",
                    i.type_name()
                )),
            }
        }
        Value::Dict(d) => {
            let key = key_of(i)?;
            let found = d.borrow().get(&key).cloned();
            found.ok_or_else(|| key_error(i))
        }
        Value::Type(t @ (TypeKind::List | TypeKind::Tuple | TypeKind::Dict | TypeKind::Type)) => {
            Ok(Value::Opaque(format!("{}[...]", t.name()).into()))
        }
        Value::Type(t) => type_error(format!("type '{}' is not subscriptable", t.name())),
        Value::Opaque(name) => Ok(Value::Opaque(name.clone())),
        Value::Unavailable(what) => Err(Unwind::unsupported(what.to_string())),
        _ => type_error(format!("'{}' object is not subscriptable", o.type_name())),
    }
}

/// CPython's slice normalization (`PySlice_AdjustIndices`): `(start, stop, step)` clamped
/// to a sequence of length `len`.
pub(crate) fn bounds(
    len: usize,
    lower: &Value,
    upper: &Value,
    step: &Value,
) -> R<(i128, i128, i128)> {
    let bound = |v: &Value| -> R<Option<i128>> {
        match v {
            Value::None => Ok(None),
            other => match as_index(other) {
                Some(i) => Ok(Some(i.clamp(i64::MIN as i128, i64::MAX as i128))),
                None => {
                    type_error("slice indices must be integers or None or have an __index__ method")
                }
            },
        }
    };
    let step = bound(step)?.unwrap_or(1);
    if step == 0 {
        return value_error("slice step cannot be zero");
    }
    let len = len as i128;
    let clamp = |v: Option<i128>, default: i128| -> i128 {
        match v {
            None => default,
            Some(mut i) => {
                if i < 0 {
                    i += len;
                    if i < 0 {
                        i = if step < 0 { -1 } else { 0 };
                    }
                } else if i >= len {
                    i = if step < 0 { len - 1 } else { len };
                }
                i
            }
        }
    };
    let start = clamp(bound(lower)?, if step < 0 { len - 1 } else { 0 });
    let stop = clamp(bound(upper)?, if step < 0 { -1 } else { len });
    Ok((start, stop, step))
}

/// `(start, step, count)` of a slice of a sequence of length `len`.
pub(crate) fn adjust(
    len: usize,
    lower: &Value,
    upper: &Value,
    step: &Value,
) -> R<(i128, i128, usize)> {
    let (start, stop, step) = bounds(len, lower, upper, step)?;
    let count = if step < 0 {
        if stop < start {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        }
    } else if start < stop {
        (stop - start - 1) / step + 1
    } else {
        0
    };
    Ok((start, step, count as usize))
}

fn select<T: Clone>(items: &[T], start: i128, step: i128, count: usize) -> Vec<T> {
    (0..count)
        .filter_map(|k| items.get((start + k as i128 * step) as usize).cloned())
        .collect()
}

/// `o[lower:upper:step]`.
pub(crate) fn get_slice(o: &Value, lower: &Value, upper: &Value, step: &Value) -> R<Value> {
    match o {
        Value::List(items) => {
            let items = items.borrow();
            let (start, st, count) = adjust(items.len(), lower, upper, step)?;
            budget::produce(count, ops::ITEM_BYTES)?;
            Ok(Value::list(select(&items, start, st, count)))
        }
        Value::Tuple(items) => {
            let (start, st, count) = adjust(items.len(), lower, upper, step)?;
            if start == 0 && st == 1 && count == items.len() {
                return Ok(o.clone());
            }
            budget::produce(count, ops::ITEM_BYTES)?;
            Ok(Value::tuple(select(items, start, st, count)))
        }
        Value::Bytes(b) => {
            let (start, st, count) = adjust(b.len(), lower, upper, step)?;
            if start == 0 && st == 1 && count == b.len() {
                return Ok(o.clone());
            }
            budget::produce(count, 1)?;
            Ok(super::bytes::new(select(b, start, st, count)))
        }
        Value::Str(s) => {
            let (start, st, count) = adjust(s.len(), lower, upper, step)?;
            budget::produce(count, 1)?;
            let text = if s.is_ascii() {
                let bytes = select(s.as_str().as_bytes(), start, st, count);
                String::from_utf8(bytes).unwrap_or_default()
            } else {
                select(&s.chars_vec(), start, st, count)
                    .into_iter()
                    .collect()
            };
            Ok(Value::str(text))
        }
        Value::Range(r) => {
            let len = usize::try_from(r.len())
                .map_err(|_| Unwind::unsupported("slicing a range of more than 2**64 elements"))?;
            let (start, st, count) = adjust(len, lower, upper, step)?;
            let new_step = st * r.step as i128;
            let new_start = r.at(start);
            let new_stop = new_start + count as i128 * new_step;
            let fit = |x: i128| {
                i64::try_from(x).map_err(|_| Unwind::unsupported("range bounds beyond 64 bits"))
            };
            Ok(Value::Range(Rc::new(Range {
                start: fit(new_start)?,
                stop: fit(new_stop)?,
                step: fit(new_step)?,
            })))
        }
        Value::Dict(_) => type_error("unhashable type: 'slice'"),
        Value::Instance(_) => Err(slice_objects_refused()),
        _ => type_error(format!("'{}' object is not subscriptable", o.type_name())),
    }
}

/// Slicing an instance passes a `slice` object to `__getitem__`/`__setitem__`/
/// `__delitem__`; slice objects are outside the subset.
pub(crate) fn slice_objects_refused() -> Unwind {
    Unwind::unsupported("slicing an instance of a user class (slice objects)")
}

/// `del o[lower:upper:step]`.
pub(crate) fn del_slice(o: &Value, lower: &Value, upper: &Value, step: &Value) -> R<()> {
    match o {
        Value::List(items) => {
            let mut items = items.borrow_mut();
            let (start, st, count) = adjust(items.len(), lower, upper, step)?;
            let mut doomed: Vec<usize> = (0..count)
                .map(|k| (start + k as i128 * st) as usize)
                .collect();
            doomed.sort_unstable();
            let mut k = 0;
            let mut i = 0;
            items.retain(|_| {
                let keep = doomed.get(k) != Some(&i);
                if !keep {
                    k += 1;
                }
                i += 1;
                keep
            });
            Ok(())
        }
        Value::Dict(_) => type_error("unhashable type: 'slice'"),
        Value::Instance(_) => Err(slice_objects_refused()),
        _ => type_error(format!(
            "'{}' object does not support item deletion",
            o.type_name()
        )),
    }
}

impl Machine {
    /// `o[lower:upper:step]`: a user class's `__getitem__` receives a slice object.
    pub fn get_slice_of(
        &mut self,
        o: &Value,
        lower: &Value,
        upper: &Value,
        step: &Value,
    ) -> R<Value> {
        match o {
            Value::Instance(_) => {
                let s = super::slice::new(lower.clone(), upper.clone(), step.clone());
                self.getitem(o, &s)
            }
            _ => get_slice(o, lower, upper, step),
        }
    }

    /// `del o[lower:upper:step]`: a user class's `__delitem__` receives a slice object.
    pub fn del_slice_of(&mut self, o: &Value, lower: &Value, upper: &Value, step: &Value) -> R<()> {
        match o {
            Value::Instance(_) => {
                let s = super::slice::new(lower.clone(), upper.clone(), step.clone());
                self.delitem(o, &s)
            }
            _ => del_slice(o, lower, upper, step),
        }
    }

    pub fn getitem(&mut self, o: &Value, i: &Value) -> R<Value> {
        if let Some([lo, hi, st]) = super::slice::parts(i) {
            if !matches!(o, Value::Instance(_) | Value::Class(_)) {
                return get_slice(o, lo, hi, st);
            }
        }
        match o {
            Value::Instance(_) => {
                if let Some(r) = self.dunder(o, "__getitem__", vec![i.clone()])? {
                    return Ok(r);
                }
                if let Some(t) = self.as_tuple(o) {
                    return getitem(&t, i);
                }
                type_error(format!("'{}' object is not subscriptable", o.type_name()))
            }
            Value::Class(c) if c.is_enum() => self.enum_item(c, i),
            Value::Class(c) => match c.lookup("__class_getitem__") {
                // implicitly a class method, as in CPython
                Some(f) => self.call_method_value(&f, o.clone(), vec![i.clone()], Vec::new()),
                None => type_error(format!("type '{}' is not subscriptable", c.name)),
            },
            Value::Dict(d) => {
                let key = self.hash_key(i)?;
                let found = d.borrow().get(&key).cloned();
                match found {
                    Some(v) => Ok(v),
                    // defaultdict and Counter answer missing keys.
                    None => match super::stdlib::getitem_missing(self, o, i) {
                        Some(r) => r,
                        None => Err(key_error(i)),
                    },
                }
            }
            Value::Std(_) => match getitem(o, i) {
                Err(e) => match super::stdlib::getitem_missing(self, o, i) {
                    Some(r) => r,
                    None => Err(e),
                },
                r => r,
            },
            _ => match i {
                // An `IntEnum` member indexes as its value.
                Value::Instance(m) if super::int_enum::member_value(m).is_some() => {
                    getitem(o, &super::int_enum::unwrap(i))
                }
                _ => getitem(o, i),
            },
        }
    }

    /// `o[i] = value`.
    pub fn setitem(&mut self, o: &Value, i: &Value, value: Value) -> R<()> {
        if let (Value::List(_), Some([lo, hi, st])) = (o, super::slice::parts(i)) {
            return self.set_slice(o, lo, hi, st, value);
        }
        if let (Value::List(_), Value::Instance(m)) = (o, i) {
            if super::int_enum::member_value(m).is_some() {
                return self.setitem(o, &super::int_enum::unwrap(i), value);
            }
        }
        match o {
            Value::List(items) => {
                let len = items.borrow().len();
                match position(i, len, "list assignment index out of range")? {
                    Some(k) => {
                        items.borrow_mut()[k] = value;
                        Ok(())
                    }
                    None => type_error(format!(
                        "list indices must be integers or slices, not {}",
                        i.type_name()
                    )),
                }
            }
            Value::Dict(d) if super::stdlib::is_proxy(d) => {
                type_error("'mappingproxy' object does not support item assignment")
            }
            Value::Dict(d) => {
                d.borrow().check_changeable()?;
                let key = self.hash_key(i)?;
                d.borrow_mut().insert(key, i.clone(), value);
                Ok(())
            }
            Value::Instance(_) => match self.dunder(o, "__setitem__", vec![i.clone(), value])? {
                Some(_) => Ok(()),
                None => type_error(format!(
                    "'{}' object does not support item assignment",
                    o.type_name()
                )),
            },
            Value::Std(s) => super::stdlib::setitem(s, i, value),
            _ => type_error(format!(
                "'{}' object does not support item assignment",
                o.type_name()
            )),
        }
    }

    /// `del o[i]`.
    pub fn delitem(&mut self, o: &Value, i: &Value) -> R<()> {
        if let (Value::List(_), Some([lo, hi, st])) = (o, super::slice::parts(i)) {
            return del_slice(o, lo, hi, st);
        }
        match o {
            Value::List(items) => {
                let len = items.borrow().len();
                match position(i, len, "list assignment index out of range")? {
                    Some(k) => {
                        items.borrow_mut().remove(k);
                        Ok(())
                    }
                    None => type_error(format!(
                        "list indices must be integers or slices, not {}",
                        i.type_name()
                    )),
                }
            }
            Value::Dict(d) if super::stdlib::is_proxy(d) => {
                type_error("'mappingproxy' object does not support item deletion")
            }
            Value::Dict(d) => {
                d.borrow().check_changeable()?;
                let key = self.hash_key(i)?;
                let removed = d.borrow_mut().remove(&key);
                removed.map(|_| ()).ok_or_else(|| key_error(i))
            }
            Value::Instance(_) => match self.dunder(o, "__delitem__", vec![i.clone()])? {
                Some(_) => Ok(()),
                None => type_error(format!(
                    "'{}' object doesn't support item deletion",
                    o.type_name()
                )),
            },
            _ => type_error(format!(
                "'{}' object doesn't support item deletion",
                o.type_name()
            )),
        }
    }

    /// `o[lower:upper:step] = value`.
    pub fn set_slice(
        &mut self,
        o: &Value,
        lower: &Value,
        upper: &Value,
        step: &Value,
        value: Value,
    ) -> R<()> {
        let Value::List(list) = o else {
            return match o {
                Value::Dict(_) => type_error("unhashable type: 'slice'"),
                Value::Instance(_) => {
                    let s = super::slice::new(lower.clone(), upper.clone(), step.clone());
                    self.setitem(o, &s, value)
                }
                _ => type_error(format!(
                    "'{}' object does not support item assignment",
                    o.type_name()
                )),
            };
        };
        let extended = !matches!(step, Value::None) && as_index(step) != Some(1);
        if !self.is_iterable(&value) {
            return type_error(if extended {
                "must assign iterable to extended slice"
            } else {
                "can only assign an iterable"
            });
        }
        let new = self.collect(value)?;
        let len = list.borrow().len();
        let (start, st, count) = adjust(len, lower, upper, step)?;
        if st == 1 {
            let start = start as usize;
            let stop = start + count;
            ops::check_len(len - count + new.len())?;
            list.borrow_mut().splice(start..stop, new);
            return Ok(());
        }
        if new.len() != count {
            return value_error(format!(
                "attempt to assign sequence of size {} to extended slice of size {count}",
                new.len()
            ));
        }
        let mut items = list.borrow_mut();
        for (k, v) in new.into_iter().enumerate() {
            if let Some(slot) = items.get_mut((start + k as i128 * st) as usize) {
                *slot = v;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adj(len: usize, lo: Option<i64>, hi: Option<i64>, st: Option<i64>) -> (i128, i128, usize) {
        let v = |x: Option<i64>| x.map_or(Value::None, Value::Int);
        adjust(len, &v(lo), &v(hi), &v(st)).unwrap()
    }

    #[test]
    fn slices_clamp_like_cpython() {
        assert_eq!(adj(5, None, None, Some(-1)), (4, -1, 5));
        assert_eq!(adj(5, Some(-100), Some(100), None), (0, 1, 5));
        assert_eq!(adj(5, Some(3), Some(1), None), (3, 1, 0));
        assert_eq!(adj(5, Some(10), None, Some(-2)), (4, -2, 3));
        assert_eq!(adj(5, Some(-1), Some(-10), Some(-3)), (4, -3, 2));
        assert!(adjust(5, &Value::None, &Value::None, &Value::Int(0)).is_err());
    }

    #[test]
    fn indexing_messages() {
        let s = Value::str("abc");
        assert!(
            matches!(getitem(&s, &Value::Int(-1)).unwrap(), Value::Str(c) if c.as_str() == "c")
        );
        let err = |r: R<Value>| match r {
            Err(e) if e.is_raise() => format!("{:?}", e.raised().map(|r| r.exc.args())),
            other => format!("{other:?}"),
        };
        assert!(err(getitem(&s, &Value::Int(3))).contains("string index out of range"));
        assert!(
            err(getitem(&Value::tuple(vec![]), &Value::Int(0)))
                .contains("tuple index out of range")
        );
        assert!(
            err(getitem(&Value::Int(1), &Value::Int(0)))
                .contains("'int' object is not subscriptable")
        );
        let r = Value::Range(Rc::new(Range {
            start: 0,
            stop: 10,
            step: 1,
        }));
        let sl = get_slice(&r, &Value::None, &Value::None, &Value::Int(-1)).unwrap();
        assert_eq!(super::super::repr::repr(&sl).unwrap(), "range(9, -1, -1)");
    }
}
