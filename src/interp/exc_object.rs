//! Exception objects of classes with a body (`class E(ValueError): def __init__(...)`):
//! construction through `__init__`, attributes (instance, then the class bodies, then
//! `BaseException`'s), `super()` inside their methods, and `str`/`repr` through the
//! user's `__str__`/`__repr__`.

use std::rc::Rc;

use super::call::Kwargs;
use super::class::{Bound, Descriptor, Super, SuperFrom};
use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, type_error};
use super::machine::Machine;
use super::value::{Method, Value};

/// The methods `BaseException` gives every exception object here.
pub(crate) const BASE_METHODS: [&str; 4] = ["__init__", "__str__", "__repr__", "with_traceback"];

/// Whether `e.name(...)` is one of `BaseException`'s methods, not overridden by a class body.
pub(crate) fn has_base_method(e: &ExcObject, name: &str) -> bool {
    BASE_METHODS.contains(&name) && e.class.lookup(name).is_none()
}

fn bind(func: Value, receiver: Value) -> Value {
    Value::Bound(Rc::new(Bound { func, receiver }))
}

/// `BaseException`'s method `name` bound to `o`.
fn base_method(o: &Value, name: &str) -> Value {
    Value::Method(Rc::new(Method {
        receiver: o.clone(),
        name: name.into(),
    }))
}

impl Machine {
    /// `Class(args)` for an exception class: `args` become the object's `args`, then the
    /// class's `__init__` (if a body defines one) runs on it.
    pub(crate) fn construct_exception(
        &mut self,
        class: ExcClass,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let init = class.lookup("__init__");
        if init.is_none()
            && args.len() >= 2
            && class.is_subclass_of(&ExcClass::Builtin(ExcKind::OSError))
        {
            // CPython maps `OSError(errno, strerror, ...)` to a subclass by errno.
            return Err(super::exc::Unwind::unsupported(format!(
                "{}() with errno arguments",
                class.name()
            )));
        }
        if init.is_none() && !kwargs.is_empty() {
            return type_error(format!("{}() takes no keyword arguments", class.name()));
        }
        let obj = Value::Exception(Rc::new(ExcObject::new(class, args.clone())));
        if let Some(init) = init {
            let mut all = Vec::with_capacity(args.len() + 1);
            all.push(obj.clone());
            all.extend(args);
            let r = self.call(&init, all, kwargs)?;
            if !matches!(r, Value::None) {
                return type_error(format!(
                    "__init__() should return None, not '{}'",
                    r.type_name()
                ));
            }
        }
        Ok(obj)
    }

    /// `e.name` on an exception object; `None` when neither the object, its class bodies
    /// nor `BaseException` define it (the caller reports the AttributeError).
    pub(crate) fn exc_getattr(&mut self, e: &ExcObject, o: &Value, name: &str) -> Option<R<Value>> {
        if let Some((_, v)) = e.attrs.borrow().iter().find(|(n, _)| **n == *name) {
            return Some(Ok(v.clone()));
        }
        if let Some(v) = e.class.lookup(name) {
            return Some(self.bind_exc_attr(v, o, &e.class));
        }
        match name {
            "args" => Some(Ok(Value::tuple(e.args()))),
            _ if super::codec::unicode_error_attr(e, name).is_some() => {
                super::codec::unicode_error_attr(e, name).map(Ok)
            }
            "value"
                if e.class
                    .is_subclass_of(&ExcClass::Builtin(ExcKind::StopIteration)) =>
            {
                Some(Ok(e.first_arg().unwrap_or(Value::None)))
            }
            "__class__" => Some(Ok(e.class.as_value())),
            _ if super::exc_chain::default_attr(name).is_some() => {
                super::exc_chain::default_attr(name).map(Ok)
            }
            _ if BASE_METHODS.contains(&name) => Some(Ok(base_method(o, name))),
            _ => None,
        }
    }

    /// A class-body attribute seen through an exception object: functions bind to it,
    /// properties are read, static and class methods unwrap.
    fn bind_exc_attr(&mut self, v: Value, o: &Value, class: &ExcClass) -> R<Value> {
        Ok(match v {
            Value::Function(_) => bind(v, o.clone()),
            Value::Descriptor(d) => match &*d {
                Descriptor::Static(f) => f.clone(),
                Descriptor::ClassMethod(f) => bind(f.clone(), class.as_value()),
                Descriptor::Property { fget, .. } => {
                    return self.call(fget, vec![o.clone()], Kwargs::new());
                }
            },
            other => other,
        })
    }

    /// `E.name` on a user exception class: its body's attributes (functions unbound).
    pub(crate) fn exc_class_getattr(&mut self, class: &ExcClass, name: &str) -> Option<Value> {
        let v = class.lookup(name)?;
        Some(match v {
            Value::Descriptor(d) => match &*d {
                Descriptor::Static(f) => f.clone(),
                Descriptor::ClassMethod(f) => bind(f.clone(), class.as_value()),
                Descriptor::Property { .. } => Value::Descriptor(d.clone()),
            },
            other => other,
        })
    }

    /// `e.name = value`: `args` replaces the arguments, anything else is an instance
    /// attribute (a property with a setter runs it).
    pub(crate) fn exc_setattr(
        &mut self,
        e: &ExcObject,
        o: &Value,
        name: &str,
        value: Value,
    ) -> R<()> {
        if let Some(Value::Descriptor(d)) = e.class.lookup(name) {
            if let Descriptor::Property { fset, .. } = &*d {
                return match fset {
                    Some(f) => self
                        .call(f, vec![o.clone(), value], Kwargs::new())
                        .map(|_| ()),
                    None => Err(Unwind::new(
                        ExcKind::AttributeError,
                        format!("can't set attribute '{name}'"),
                    )),
                };
            }
        }
        if name == "args" {
            let items = self.collect(value)?;
            *e.args.borrow_mut() = items;
            return Ok(());
        }
        super::class::set_attr(&mut e.attrs.borrow_mut(), name, value);
        Ok(())
    }

    /// `BaseException`'s own methods called on `e`.
    pub(crate) fn exc_base_call(
        &mut self,
        e: &Rc<ExcObject>,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if !kwargs.is_empty() {
            return type_error(format!("{}() takes no keyword arguments", e.class.name()));
        }
        match name {
            "__init__" => {
                *e.args.borrow_mut() = args;
                Ok(Value::None)
            }
            "__str__" => Ok(Value::str(&self.base_exc_str(e)?)),
            "__repr__" => Ok(Value::str(&self.base_exc_repr(e)?)),
            _ => match args.as_slice() {
                [_] => Ok(Value::Exception(e.clone())),
                _ => type_error("with_traceback() takes exactly one argument"),
            },
        }
    }

    /// `BaseException.__str__`: empty, the single argument's `str` (`repr` for KeyError),
    /// or the arguments' tuple.
    pub(crate) fn base_exc_str(&mut self, e: &ExcObject) -> R<String> {
        match super::repr::exc_str_base(e) {
            Err(err) if super::dunder::is_marker(&err) => match e.args().as_slice() {
                [one] => self.str_of(one),
                args => self.repr_of(&Value::tuple(args.to_vec())),
            },
            other => other,
        }
    }

    /// `BaseException.__repr__`: the class name and the arguments' reprs.
    pub(crate) fn base_exc_repr(&mut self, e: &ExcObject) -> R<String> {
        let parts = e
            .args()
            .iter()
            .map(|a| self.repr_of(a))
            .collect::<R<Vec<_>>>()?;
        Ok(format!("{}({})", e.class.name(), parts.join(", ")))
    }

    /// `str(e)` and `repr(e)` through the class body's `__str__`/`__repr__`, if any.
    pub(crate) fn exc_dunder_text(&mut self, e: &Rc<ExcObject>, name: &str) -> Option<R<String>> {
        let m = e.class.lookup(name)?;
        let o = Value::Exception(e.clone());
        Some(match self.call(&m, vec![o], Kwargs::new()) {
            Ok(Value::Str(s)) => Ok(s.as_str().to_string()),
            Ok(other) => type_error(format!(
                "{name} returned non-string (type {})",
                other.type_name()
            )),
            Err(err) => Err(err),
        })
    }

    /// `super().name` inside a method of an exception class.
    pub(crate) fn exc_super_getattr(
        &mut self,
        s: &Super,
        after: &ExcClass,
        name: &str,
    ) -> R<Value> {
        let Value::Exception(e) = &s.receiver else {
            return type_error("super(type, obj): obj must be an instance or subtype of type");
        };
        if let Some(base) = after.base() {
            if let Some(v) = base.lookup(name) {
                return self.bind_exc_attr(v, &s.receiver, &e.class);
            }
        }
        if BASE_METHODS.contains(&name) {
            return Ok(base_method(&s.receiver, name));
        }
        Err(Unwind::new(
            ExcKind::AttributeError,
            format!("'super' object has no attribute '{name}'"),
        ))
    }

    /// `super(E, e)` for an exception class `E` and an exception object `e`.
    pub(crate) fn make_exc_super(&mut self, class: ExcClass, obj: &Value) -> R<Value> {
        match obj {
            Value::Exception(e) if e.class.is_subclass_of(&class) => {
                Ok(Value::Super(Rc::new(Super {
                    after: SuperFrom::Exception(class),
                    receiver: obj.clone(),
                })))
            }
            _ => type_error("super(type, obj): obj must be an instance or subtype of type"),
        }
    }
}
