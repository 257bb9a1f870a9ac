//! `operator`: the operators as functions, and `itemgetter`, `attrgetter`, `methodcaller`.

use std::rc::Rc;

use super::{StdFn, StdObj};
use crate::interp::call::{Kwargs, arity, no_kwargs};
use crate::interp::exc::{R, type_error};
use crate::interp::machine::Machine;
use crate::interp::ops::{self, truthy};
use crate::interp::value::Value;
use crate::python::ir::{BinOp, CmpOp, UnaryOp};

impl Machine {
    pub(super) fn call_operator(&mut self, f: StdFn, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        use StdFn::*;
        let name = f.name();
        if f != OpMethodCaller {
            no_kwargs(name, &kwargs)?;
        }
        let binop = match f {
            OpAdd | OpConcat => Some(BinOp::Add),
            OpSub => Some(BinOp::Sub),
            OpMul => Some(BinOp::Mult),
            OpTrueDiv => Some(BinOp::Div),
            OpFloorDiv => Some(BinOp::FloorDiv),
            OpMod => Some(BinOp::Mod),
            OpPow => Some(BinOp::Pow),
            OpAnd => Some(BinOp::BitAnd),
            OpOr => Some(BinOp::BitOr),
            OpXor => Some(BinOp::BitXor),
            OpLShift => Some(BinOp::LShift),
            OpRShift => Some(BinOp::RShift),
            _ => None,
        };
        if let Some(op) = binop {
            arity(name, &args, 2, 2)?;
            if f == OpConcat && !matches!(args[0], Value::List(_) | Value::Tuple(_) | Value::Str(_))
            {
                return type_error(format!(
                    "'{}' object can't be concatenated",
                    args[0].type_name()
                ));
            }
            return ops::binary(op, &args[0], &args[1]);
        }
        let cmp = match f {
            OpLt => Some(CmpOp::Lt),
            OpLe => Some(CmpOp::LtE),
            OpEq => Some(CmpOp::Eq),
            OpNe => Some(CmpOp::NotEq),
            OpGt => Some(CmpOp::Gt),
            OpGe => Some(CmpOp::GtE),
            OpIs => Some(CmpOp::Is),
            OpIsNot => Some(CmpOp::IsNot),
            _ => None,
        };
        if let Some(op) = cmp {
            arity(name, &args, 2, 2)?;
            return self.compare(op, &args[0], &args[1]).map(Value::Bool);
        }
        match f {
            OpNeg | OpPos | OpInvert => {
                arity(name, &args, 1, 1)?;
                let op = match f {
                    OpNeg => UnaryOp::USub,
                    OpPos => UnaryOp::UAdd,
                    _ => UnaryOp::Invert,
                };
                ops::unary(op, &args[0])
            }
            OpNot | OpTruth => {
                arity(name, &args, 1, 1)?;
                Ok(Value::Bool(truthy(&args[0]) == (f == OpTruth)))
            }
            OpAbs => self.call_builtin(crate::interp::builtins::Builtin::Abs, args, kwargs),
            OpIndex => {
                arity(name, &args, 1, 1)?;
                if args[0].is_int() {
                    return Ok(Value::big(args[0].to_bigint().unwrap_or_default()));
                }
                type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    args[0].type_name()
                ))
            }
            OpContains => {
                arity(name, &args, 2, 2)?;
                self.contains(&args[0], &args[1]).map(Value::Bool)
            }
            OpGetItem => {
                arity(name, &args, 2, 2)?;
                self.getitem(&args[0], &args[1])
            }
            OpItemGetter => {
                if args.is_empty() {
                    return type_error("itemgetter expected 1 argument, got 0");
                }
                Ok(StdObj::ItemGetter(args).into_value())
            }
            OpAttrGetter => {
                if args.is_empty() {
                    return type_error("attrgetter expected 1 argument, got 0");
                }
                let mut names = Vec::new();
                for a in &args {
                    match a {
                        Value::Str(s) => names.push(Rc::from(s.as_str())),
                        _ => return type_error("attribute name must be a string"),
                    }
                }
                Ok(StdObj::AttrGetter(names).into_value())
            }
            OpMethodCaller => {
                let mut it = args.into_iter();
                match it.next() {
                    Some(Value::Str(s)) => Ok(StdObj::MethodCaller {
                        name: s.as_str().into(),
                        args: it.collect(),
                        kwargs,
                    }
                    .into_value()),
                    Some(_) => type_error("method name must be a string"),
                    None => type_error("methodcaller needs at least one argument, the method name"),
                }
            }
            _ => type_error(format!("{name} is not in operator")),
        }
    }

    /// Calls an `itemgetter`, `attrgetter` or `methodcaller`.
    pub(super) fn call_getter(&mut self, o: &StdObj, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let what = match o {
            StdObj::ItemGetter(_) => "itemgetter",
            StdObj::AttrGetter(_) => "attrgetter",
            _ => "methodcaller",
        };
        no_kwargs(what, &kwargs)?;
        if args.len() != 1 {
            return type_error(format!("{what} expected 1 argument, got {}", args.len()));
        }
        let x = &args[0];
        match o {
            StdObj::ItemGetter(items) if items.len() == 1 => self.getitem(x, &items[0]),
            StdObj::ItemGetter(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.getitem(x, i)?);
                }
                Ok(Value::tuple(out))
            }
            StdObj::AttrGetter(names) => {
                let mut out = Vec::with_capacity(names.len());
                for n in names {
                    let mut v = x.clone();
                    for part in n.split('.') {
                        v = self.getattr(&v, part)?;
                    }
                    out.push(v);
                }
                if out.len() == 1 {
                    Ok(out.pop().unwrap_or(Value::None))
                } else {
                    Ok(Value::tuple(out))
                }
            }
            StdObj::MethodCaller { name, args, kwargs } => {
                self.call_method(x.clone(), name, args.clone(), kwargs.clone())
            }
            _ => type_error("not a getter"),
        }
    }
}
