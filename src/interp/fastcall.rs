//! The fast paths of user classes. Calls that evaluate their arguments straight into the
//! callee's frame, with no argument vector: `obj.method(a, b)` on an instance whose class
//! defines `method` as a plain function, and `Class(a, b)` for a plain class whose
//! `__init__` is one (and no `__new__`). Instance attributes read and written from compiled
//! code when no property, `__setattr__` or freezing applies. `xs.append(v)` without an
//! argument vector. Anything else takes the general path (`call.rs`, `instance.rs`,
//! `methods.rs`).

use std::rc::Rc;

use super::class::{Class, Flavor, Instance};
use super::code::{Arg, Expr};
use super::exc::{R, type_error};
use super::machine::{Frame, Machine};
use super::value::{Function, Value};

/// `func` binds `n` positional arguments straight into its first slots.
fn takes_directly(func: &Function, n: usize) -> bool {
    func.code.params.direct && func.code.params.n_positional == n
}

/// The plain function `inst.name(...)` calls with `nargs` arguments after `self`, looked
/// up before the arguments are evaluated as CPython's `LOAD_METHOD` does.
pub(crate) fn direct_method(inst: &Instance, name: &str, args: &[Arg]) -> Option<Rc<Function>> {
    let Some(Value::Function(func)) = inst.class.lookup(name) else {
        return None;
    };
    let plain = args.iter().all(|a| matches!(a, Arg::One(_)));
    (plain && takes_directly(&func, args.len() + 1) && inst.get(name).is_none()).then_some(func)
}

impl Machine {
    /// Runs `func` with `first` and the values of `args` (all `Arg::One`) as its locals.
    pub(crate) fn call_direct(
        &mut self,
        f: &mut Frame,
        func: &Rc<Function>,
        first: Value,
        args: &[Arg],
    ) -> R<Value> {
        let mut locals = self.pool.pop().unwrap_or_default();
        locals.reserve(func.code.nlocals);
        locals.push(Some(first));
        for a in args {
            if let Arg::One(e) = a {
                locals.push(Some(self.eval(f, e)?));
            }
        }
        locals.resize(func.code.nlocals, None);
        self.call_with_locals(func, locals)
    }

    /// `c(args)` with only positional arguments (all `Arg::One`): evaluated first, then
    /// the instance is made and initialized in one frame when the class allows it.
    pub(crate) fn construct_direct(
        &mut self,
        f: &mut Frame,
        c: &Rc<Class>,
        callee: &Value,
        args: &[Arg],
    ) -> R<Value> {
        let mut locals = self.pool.pop().unwrap_or_default();
        locals.push(None);
        for a in args {
            if let Arg::One(e) = a {
                locals.push(Some(self.eval(f, e)?));
            }
        }
        let init = match (c.flavor, c.lookup_special("__new__")) {
            (Flavor::Plain, None) => match c.lookup_special("__init__") {
                Some(Value::Function(init)) if takes_directly(&init, args.len() + 1) => Some(init),
                _ => None,
            },
            _ => None,
        };
        let Some(init) = init else {
            let values = locals.drain(1..).flatten().collect();
            locals.clear();
            self.pool.push(locals);
            return self.call(callee, values, Vec::new());
        };
        let obj = Value::Instance(Rc::new(Instance::new(c.clone())));
        locals[0] = Some(obj.clone());
        locals.resize(init.code.nlocals, None);
        let r = self.call_with_locals(&init, locals)?;
        if !matches!(r, Value::None) {
            return type_error(format!(
                "__init__() should return None, not '{}'",
                r.type_name()
            ));
        }
        Ok(obj)
    }
}

impl Machine {
    /// `o.name` from compiled code: an instance attribute of a class without properties is
    /// read here, anything else by [`Machine::getattr`].
    #[inline]
    pub(crate) fn load_attr(&mut self, o: &Value, name: &str) -> R<Value> {
        if let Value::Instance(inst) = o {
            if !inst.class.any_property() {
                if let Some(v) = inst.get(name) {
                    return Ok(v);
                }
            }
        }
        self.getattr(o, name)
    }

    /// `o.name = value` from compiled code (`name` interned): on an instance of a plain
    /// class without properties, `__setattr__`, `__slots__` or freezing, stored here, keeping the
    /// shared name; anything else by [`Machine::setattr`].
    pub(crate) fn store_attr(&mut self, o: &Value, name: &Rc<str>, value: Value) -> R<()> {
        if let Value::Instance(inst) = o {
            let c = &inst.class;
            let plain = c.flavor == Flavor::Plain
                && c.slots.is_none()
                && !c.any_property()
                && !c.frozen.get()
                && !c.mro.iter().any(|b| b.frozen.get())
                && c.lookup_special("__setattr__").is_none();
            if plain {
                let mut attrs = inst.attrs.borrow_mut();
                match super::names::position(&attrs, name) {
                    Some(i) => attrs[i].1 = value,
                    None => attrs.push((name.clone(), value)),
                }
                return Ok(());
            }
        }
        self.setattr(o, name, value)
    }
}

impl Machine {
    /// `l.append(e)`, as `methods.rs` does it.
    pub(crate) fn append_direct(
        &mut self,
        f: &mut Frame,
        l: &std::cell::RefCell<Vec<Value>>,
        e: &Expr,
    ) -> R<Value> {
        let v = self.eval(f, e)?;
        let len = l.borrow().len();
        super::ops::check_len(len + 1)?;
        l.borrow_mut().push(v);
        Ok(Value::None)
    }
}
