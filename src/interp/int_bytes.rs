//! `int.to_bytes` and `int.from_bytes`, with CPython's defaults (`length=1`,
//! `byteorder='big'`, `signed=False`) and messages.

use std::rc::Rc;

use num_bigint::{BigInt, Sign};

use super::call::{Kwargs, take_kwargs};
use super::exc::{ExcKind, R, Unwind, fail, type_error, value_error};
use super::ops::truthy;
use super::value::Value;

/// Whether the bytes run from the least significant one.
fn little(order: Option<&Value>) -> R<bool> {
    match order {
        None => Ok(false),
        Some(Value::Str(s)) if s.as_str() == "big" => Ok(false),
        Some(Value::Str(s)) if s.as_str() == "little" => Ok(true),
        Some(Value::Str(_)) => value_error("byteorder must be either 'little' or 'big'"),
        Some(other) => type_error(format!(
            "to_bytes() argument 'byteorder' must be str, not {}",
            other.type_name()
        )),
    }
}

/// Positional `[a, b]` merged with keywords `names`, plus `signed` (keyword only).
fn params(
    name: &str,
    args: Vec<Value>,
    kwargs: Kwargs,
    names: [&str; 2],
) -> R<(Option<Value>, Option<Value>, bool)> {
    if args.len() > 2 {
        return type_error(format!(
            "{name}() takes at most 2 positional arguments ({} given)",
            args.len()
        ));
    }
    let [a, b, signed] = take_kwargs(name, kwargs, [names[0], names[1], "signed"])?;
    let mut it = args.into_iter();
    let (first, second) = (it.next(), it.next());
    for (pos, kw, n) in [(&first, &a, names[0]), (&second, &b, names[1])] {
        if pos.is_some() && kw.is_some() {
            return type_error(format!(
                "argument for {name}() given by name ('{n}') and position"
            ));
        }
    }
    Ok((
        first.or(a),
        second.or(b),
        signed.as_ref().is_some_and(truthy),
    ))
}

/// `n.to_bytes(length=1, byteorder='big', *, signed=False)`.
pub(crate) fn to_bytes(n: &BigInt, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
    let (length, order, signed) = params("to_bytes", args, kwargs, ["length", "byteorder"])?;
    let length = match length {
        None => 1,
        Some(Value::Int(l)) if l < 0 => return value_error("length argument must be non-negative"),
        Some(Value::Int(l)) => l as usize,
        Some(other) => {
            return type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ));
        }
    };
    let little = little(order.as_ref())?;
    if !signed && n.sign() == Sign::Minus {
        return fail(
            ExcKind::OverflowError,
            "can't convert negative int to unsigned",
        );
    }
    let mut bytes = match (n.sign(), signed) {
        (Sign::NoSign, _) => Vec::new(),
        (_, true) => n.to_signed_bytes_le(),
        (_, false) => n.magnitude().to_bytes_le(),
    };
    if bytes.len() > length {
        return fail(ExcKind::OverflowError, "int too big to convert");
    }
    let pad = if n.sign() == Sign::Minus { 0xff } else { 0 };
    bytes.resize(length, pad);
    if !little {
        bytes.reverse();
    }
    Ok(Value::Bytes(Rc::new(bytes)))
}

/// `int.from_bytes(bytes, byteorder='big', *, signed=False)`.
pub(crate) fn from_bytes(args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
    let (data, order, signed) = params("from_bytes", args, kwargs, ["bytes", "byteorder"])?;
    let mut bytes: Vec<u8> = match data {
        Some(Value::Bytes(b)) => b.to_vec(),
        Some(Value::List(l)) => byte_items(&l.borrow())?,
        Some(Value::Tuple(t)) => byte_items(&t)?,
        Some(Value::Str(_)) => return type_error("cannot convert 'str' object to bytes"),
        Some(other @ (Value::Int(_) | Value::Float(_) | Value::None | Value::Bool(_))) => {
            return type_error(format!(
                "cannot convert '{}' object to bytes",
                other.type_name()
            ));
        }
        Some(other) => {
            return Err(Unwind::unsupported(format!(
                "int.from_bytes() of a {} object",
                other.type_name()
            )));
        }
        None => {
            return type_error("from_bytes() missing required argument 'bytes' (pos 1)");
        }
    };
    if !little(order.as_ref())? {
        bytes.reverse();
    }
    Ok(Value::big(if signed {
        BigInt::from_signed_bytes_le(&bytes)
    } else {
        BigInt::from_bytes_le(Sign::Plus, &bytes)
    }))
}

/// The items of a list or tuple as bytes, as `bytes(items)` checks them.
fn byte_items(items: &[Value]) -> R<Vec<u8>> {
    items
        .iter()
        .map(|v| match v {
            Value::Int(i) if (0..256).contains(i) => Ok(*i as u8),
            Value::Int(_) => value_error("bytes must be in range(0, 256)"),
            Value::Bool(b) => Ok(u8::from(*b)),
            other => type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            )),
        })
        .collect()
}
