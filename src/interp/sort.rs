//! Sorting as `list.sort` and `sorted` do: keys computed first, `<` as the only comparison,
//! stable, `reverse` keeping stability. Lists under 64 items follow CPython's algorithm
//! (a natural run, then binary insertion), so even a failing comparison is the same one
//! CPython makes; longer lists use a stable merge sort.

use super::exc::R;
use super::machine::Machine;
use super::ops;
use super::value::Value;
use crate::python::ir::CmpOp;

/// Sorts `items` by `key` (a callable, or `None` for the items themselves).
pub(crate) fn sort(
    m: &mut Machine,
    mut items: Vec<Value>,
    key: Value,
    reverse: bool,
) -> R<Vec<Value>> {
    let mut keys = match key {
        Value::None => items.clone(),
        f => {
            let mut keys = Vec::with_capacity(items.len());
            for item in &items {
                m.tick()?;
                keys.push(m.call(&f, vec![item.clone()], Vec::new())?);
            }
            keys
        }
    };
    if reverse {
        items.reverse();
        keys.reverse();
    }
    let mut pairs: Vec<(Value, Value)> = keys.into_iter().zip(items).collect();
    if pairs.len() < 64 {
        small_sort(m, &mut pairs)?;
    } else {
        pairs = merge_sort(m, pairs)?;
    }
    let mut out: Vec<Value> = pairs.into_iter().map(|(_, v)| v).collect();
    if reverse {
        out.reverse();
    }
    Ok(out)
}

fn lt(m: &mut Machine, a: &Value, b: &Value) -> R<bool> {
    m.tick()?;
    if let Value::Std(_) = a {
        return m.compare_std(CmpOp::Lt, a, b);
    }
    ops::compare(CmpOp::Lt, a, b)
}

/// CPython's path for short lists: count the initial run (reversing a strictly
/// descending one), then binary insertion of the rest.
fn small_sort(m: &mut Machine, v: &mut [(Value, Value)]) -> R<()> {
    let n = v.len();
    if n < 2 {
        return Ok(());
    }
    let mut run = 2;
    if lt(m, &v[1].0, &v[0].0)? {
        while run < n && lt(m, &v[run].0, &v[run - 1].0)? {
            run += 1;
        }
        v[..run].reverse();
    } else {
        while run < n && !lt(m, &v[run].0, &v[run - 1].0)? {
            run += 1;
        }
    }
    for start in run..n {
        let (mut l, mut r) = (0, start);
        while l < r {
            let p = l + ((r - l) >> 1);
            if lt(m, &v[start].0, &v[p].0)? {
                r = p;
            } else {
                l = p + 1;
            }
        }
        v[l..=start].rotate_right(1);
    }
    Ok(())
}

fn merge_sort(m: &mut Machine, v: Vec<(Value, Value)>) -> R<Vec<(Value, Value)>> {
    if v.len() < 64 {
        let mut v = v;
        small_sort(m, &mut v)?;
        return Ok(v);
    }
    let mut left = v;
    let right = left.split_off(left.len() / 2);
    let left = merge_sort(m, left)?;
    let right = merge_sort(m, right)?;
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    loop {
        let take_right = match (l.peek(), r.peek()) {
            (Some(a), Some(b)) => lt(m, &b.0, &a.0)?,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => break,
        };
        let next = if take_right { r.next() } else { l.next() };
        out.extend(next);
    }
    Ok(out)
}
