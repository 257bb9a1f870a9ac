//! User descriptors (CPython's descriptor protocol): a class attribute whose class defines
//! `__get__`, `__set__` or `__delete__` decides what reading, assigning and deleting the
//! attribute does; `__set_name__` is called when the owning class is created. A data
//! descriptor (`__set__` or `__delete__`) wins over the instance's own attribute, a
//! non-data one (`__get__` only) does not.

use std::rc::Rc;

use super::call::Kwargs;
use super::class::Class;
use super::exc::{ExcKind, R, fail};
use super::machine::Machine;
use super::value::Value;

/// Whether `v` is an instance of a class defining `__get__`, `__set__` or `__delete__`.
pub(crate) fn is_user_descriptor(v: &Value) -> bool {
    let Value::Instance(i) = v else { return false };
    let c = &i.class;
    c.defines("__get__") || c.defines("__set__") || c.defines("__delete__")
}

/// Whether `v` is a data descriptor (its class defines `__set__` or `__delete__`).
pub(crate) fn is_data_descriptor(v: &Value) -> bool {
    let Value::Instance(i) = v else { return false };
    i.class.defines("__set__") || i.class.defines("__delete__")
}

impl Machine {
    /// `attr.__get__(obj, owner)` when `attr` is a user descriptor with `__get__` (`obj` is
    /// `None` for an access through the class); `None` otherwise.
    pub(crate) fn descriptor_get(
        &mut self,
        attr: &Value,
        obj: Value,
        owner: &Rc<Class>,
    ) -> Option<R<Value>> {
        let Value::Instance(i) = attr else {
            return None;
        };
        let get = i.class.lookup_special("__get__")?;
        let args = vec![obj, Value::Class(owner.clone())];
        Some(self.call_method_value(&get, attr.clone(), args, Kwargs::new()))
    }

    /// `obj.name = value` through a data descriptor `attr`; `None` when `attr` is not one.
    pub(crate) fn descriptor_set(
        &mut self,
        attr: &Value,
        obj: &Value,
        value: Value,
    ) -> Option<R<()>> {
        self.data_descriptor_call(attr, "__set__", vec![obj.clone(), value])
    }

    /// `del obj.name` through a data descriptor `attr`; `None` when `attr` is not one.
    pub(crate) fn descriptor_delete(&mut self, attr: &Value, obj: &Value) -> Option<R<()>> {
        self.data_descriptor_call(attr, "__delete__", vec![obj.clone()])
    }

    /// Calls `attr.hook(*args)` for a data descriptor `attr`; `AttributeError: hook` when
    /// its class defines the other hook only, as CPython.
    fn data_descriptor_call(
        &mut self,
        attr: &Value,
        hook: &'static str,
        args: Vec<Value>,
    ) -> Option<R<()>> {
        let Value::Instance(i) = attr else {
            return None;
        };
        if !is_data_descriptor(attr) {
            return None;
        }
        Some(match i.class.lookup_special(hook) {
            Some(f) => self
                .call_method_value(&f, attr.clone(), args, Kwargs::new())
                .map(|_| ()),
            None => fail(ExcKind::AttributeError, hook),
        })
    }

    /// Calls `__set_name__(owner, name)` on each attribute of a new class whose class
    /// defines it, in definition order.
    pub(crate) fn set_names(&mut self, owner: &Rc<Class>) -> R<()> {
        let attrs: Vec<(Rc<str>, Value)> = owner.attrs.borrow().clone();
        for (name, v) in attrs {
            let Value::Instance(i) = &v else { continue };
            if let Some(hook) = i.class.lookup_special("__set_name__") {
                let args = vec![Value::Class(owner.clone()), Value::str(&*name)];
                self.call_method_value(&hook, v.clone(), args, Kwargs::new())?;
            }
        }
        Ok(())
    }
}
