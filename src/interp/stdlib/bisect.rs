//! `bisect`: `bisect_left`/`bisect_right`/`insort_*` with `lo`, `hi` and `key=`, comparing
//! with `<` in CPython's order of operands.

use super::StdFn;
use crate::interp::builtins::index_arg;
use crate::interp::call::{Kwargs, arity, take_kwargs};
use crate::interp::exc::{R, type_error, value_error};
use crate::interp::machine::Machine;
use crate::interp::value::Value;
use crate::python::ir::CmpOp;

impl Machine {
    /// The insertion point of `x` in `a[lo:hi]` (`right`: after equal items).
    fn bisect(
        &mut self,
        a: &Value,
        x: &Value,
        lo: i64,
        hi: Option<i64>,
        key: &Value,
        right: bool,
    ) -> R<i64> {
        if lo < 0 {
            return value_error("lo must be non-negative");
        }
        let (mut lo, mut hi) = (
            lo,
            match hi {
                Some(h) => h,
                None => self.std_len(a)? as i64,
            },
        );
        while lo < hi {
            self.tick()?;
            let mid = (lo + hi) / 2;
            let mut item = self.getitem(a, &Value::Int(mid))?;
            if !matches!(key, Value::None) {
                item = self.call(key, vec![item], Vec::new())?;
            }
            let go_left = if right {
                self.compare(CmpOp::Lt, x, &item)?
            } else {
                !self.compare(CmpOp::Lt, &item, x)?
            };
            if go_left {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(lo)
    }

    pub(super) fn call_bisect(&mut self, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let name = f.name();
        let [lo_kw, hi_kw, key] = take_kwargs(name, kwargs, ["lo", "hi", "key"])?;
        arity(name, &args, 2, 4)?;
        let key = key.unwrap_or(Value::None);
        let lo = match args.get(2).or(lo_kw.as_ref()) {
            Some(v) => index_arg(v)?,
            None => 0,
        };
        let hi = match args.get(3).or(hi_kw.as_ref()) {
            None | Some(Value::None) => None,
            Some(v) => Some(index_arg(v)?),
        };
        let (a, x) = (&args[0], &args[1]);
        let right = !matches!(f, StdFn::BisectLeft | StdFn::InsortLeft);
        match f {
            StdFn::BisectLeft | StdFn::BisectRight | StdFn::Bisect => {
                Ok(Value::Int(self.bisect(a, x, lo, hi, &key, right)?))
            }
            _ => {
                let probe = match key {
                    Value::None => x.clone(),
                    ref k => self.call(k, vec![x.clone()], Vec::new())?,
                };
                let at = self.bisect(a, &probe, lo, hi, &key, right)?;
                match a {
                    Value::List(l) => {
                        let mut l = l.borrow_mut();
                        let at = (at.max(0) as usize).min(l.len());
                        l.insert(at, x.clone());
                        Ok(Value::None)
                    }
                    other => type_error(format!(
                        "'{}' object has no attribute 'insert'",
                        other.type_name()
                    )),
                }
            }
        }
    }
}
