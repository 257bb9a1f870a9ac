//! The data model's attribute and call protocol for user classes: instance and class
//! attribute lookup (properties, bound methods, static and class methods), assignment and
//! deletion, `super()`, creating instances (`__new__`, `__init__`) and calling them.

use std::rc::Rc;

use super::call::Kwargs;
use super::class::{self, Bound, Class, Descriptor, Instance, Super, SuperFrom};
use super::exc::{ExcKind, R, Unwind, fail, type_error};
use super::machine::Machine;
use super::value::Value;

/// `AttributeError` for an instance.
pub(crate) fn no_instance_attr(class: &Class, name: &str) -> Unwind {
    Unwind::new(
        ExcKind::AttributeError,
        format!("'{}' object has no attribute '{name}'", class.name),
    )
}

fn no_class_attr(class: &Class, name: &str) -> Unwind {
    Unwind::new(
        ExcKind::AttributeError,
        format!("type object '{}' has no attribute '{name}'", class.name),
    )
}

fn bind(func: Value, receiver: Value) -> Value {
    Value::Bound(Rc::new(Bound { func, receiver }))
}

impl Machine {
    /// Attributes of user classes, instances, bound methods, descriptors and `super()`;
    /// `None` when `o` is none of those.
    pub fn class_getattr(&mut self, o: &Value, name: &str) -> Option<R<Value>> {
        Some(match o {
            Value::Instance(inst) => self.instance_getattr(inst, o, name),
            Value::Class(c) => self.class_attr(c, name),
            Value::Bound(b) => match name {
                "__self__" => Ok(b.receiver.clone()),
                "__func__" => Ok(b.func.clone()),
                "__name__" | "__qualname__" => self.getattr(&b.func, name),
                _ => Err(Unwind::new(
                    ExcKind::AttributeError,
                    format!("'method' object has no attribute '{name}'"),
                )),
            },
            Value::Super(s) => self.super_getattr(s, name),
            Value::Exception(e) => return self.exc_getattr(e, o, name),
            Value::UserExcType(c) => {
                let class = super::exc::ExcClass::User(c.clone());
                return self.exc_class_getattr(&class, name).map(Ok);
            }
            Value::Descriptor(d) => match (&**d, name) {
                (Descriptor::Property { fget, .. }, "fget") => Ok(fget.clone()),
                (Descriptor::Static(f) | Descriptor::ClassMethod(f), "__func__") => Ok(f.clone()),
                (Descriptor::Property { .. }, "deleter" | "getter") => Err(Unwind::unsupported(
                    format!("the property decorator @prop.{name}"),
                )),
                (Descriptor::Property { .. }, "setter") => Ok(bind(
                    Value::Builtin(super::builtins::Builtin::Class(
                        super::stdclass::ClassBuiltin::PropertySetter,
                    )),
                    o.clone(),
                )),
                _ => Err(Unwind::new(
                    ExcKind::AttributeError,
                    format!("'{}' object has no attribute '{name}'", d.type_name()),
                )),
            },
            _ => return None,
        })
    }

    fn instance_getattr(&mut self, inst: &Rc<Instance>, o: &Value, name: &str) -> R<Value> {
        if !inst.class.any_property() {
            if let Some(v) = inst.get(name) {
                return Ok(v);
            }
        }
        let class_attr = inst.class.lookup(name);
        match &class_attr {
            Some(Value::Descriptor(d)) => {
                if let Descriptor::Property { fget, .. } = &**d {
                    return self.call(fget, vec![o.clone()], Vec::new());
                }
            }
            Some(attr @ Value::Instance(_)) if super::descriptor::is_data_descriptor(attr) => {
                if let Some(r) = self.descriptor_get(attr, o.clone(), &inst.class) {
                    return r;
                }
            }
            _ => {}
        }
        if let Some(v) = inst.get(name) {
            return Ok(v);
        }
        match class_attr {
            Some(attr @ Value::Instance(_)) => {
                match self.descriptor_get(&attr, o.clone(), &inst.class) {
                    Some(r) => r,
                    None => Ok(attr),
                }
            }
            Some(v) => Ok(self.bind_class_attr(v, o, &inst.class)),
            None => match name {
                "__class__" => Ok(Value::Class(inst.class.clone())),
                // A class without a docstring has `__doc__` None.
                "__doc__" => Ok(Value::None),
                "__dict__" if inst.class.slots.is_none() => {
                    Ok(self.instance_dict(&inst.attrs.borrow()))
                }
                _ => {
                    if let Some(hook) = inst.class.lookup_special("__getattr__") {
                        return self.call(&hook, vec![o.clone(), Value::str(name)], Vec::new());
                    }
                    if let Some(v) = self.object_method(o, name) {
                        return Ok(v);
                    }
                    // An `IntEnum`/`StrEnum` member has its value's methods.
                    if let Some(value) = super::int_enum::member_value(inst) {
                        if let Ok(v) = self.getattr(&value, name) {
                            return Ok(v);
                        }
                    }
                    Err(no_instance_attr(&inst.class, name))
                }
            },
        }
    }

    /// A class attribute seen through an instance: functions bind to it.
    fn bind_class_attr(&self, v: Value, receiver: &Value, class: &Rc<Class>) -> Value {
        match v {
            Value::Function(_) => bind(v, receiver.clone()),
            ref g if super::stdclass::is_generated_method(g) => bind(v, receiver.clone()),
            Value::Descriptor(d) => match &*d {
                Descriptor::Static(f) => f.clone(),
                Descriptor::ClassMethod(f) => bind(f.clone(), Value::Class(class.clone())),
                Descriptor::Property { .. } => Value::Descriptor(d.clone()),
            },
            other => other,
        }
    }

    /// `object`'s methods every instance has (`__init__`, `__repr__`, ...), bound.
    fn object_method(&self, o: &Value, name: &str) -> Option<Value> {
        let b = super::builtins::Builtin::object_method(name)?;
        if name == "__new__" {
            // A static method: not bound.
            return Some(Value::Builtin(b));
        }
        Some(bind(Value::Builtin(b), o.clone()))
    }

    fn class_attr(&mut self, c: &Rc<Class>, name: &str) -> R<Value> {
        if let Some(v) = c.lookup(name) {
            if let Some(r) = self.descriptor_get(&v, Value::None, c) {
                return r;
            }
            return Ok(match v {
                Value::Descriptor(d) => match &*d {
                    Descriptor::Static(f) => f.clone(),
                    Descriptor::ClassMethod(f) => bind(f.clone(), Value::Class(c.clone())),
                    Descriptor::Property { .. } => Value::Descriptor(d.clone()),
                },
                other => other,
            });
        }
        match name {
            "__name__" => Ok(Value::str(&*c.name)),
            "__qualname__" => Ok(Value::str(&*c.qualname)),
            "__module__" => Ok(Value::str(&*c.module)),
            "__doc__" => Ok(Value::None),
            "__bases__" => {
                let shown = c
                    .bases
                    .iter()
                    .filter(|b| !super::stdclass::is_hidden_base(b));
                let mut bases: Vec<Value> = shown.map(|b| Value::Class(b.clone())).collect();
                if bases.is_empty() {
                    bases.push(Value::Type(super::value::TypeKind::Object));
                }
                Ok(Value::tuple(bases))
            }
            "__mro__" => {
                let mut items = vec![Value::Class(c.clone())];
                let shown = c.mro.iter().filter(|b| !super::stdclass::is_hidden_base(b));
                items.extend(shown.map(|b| Value::Class(b.clone())));
                items.push(Value::Type(super::value::TypeKind::Object));
                Ok(Value::tuple(items))
            }
            "__dict__" => Ok(self.class_dict(c)),
            "__members__" if c.is_enum() => Ok(self.enum_members_proxy(c)),
            "mro" => Err(Unwind::unsupported(format!(
                "{}.mro() (read {0}.__mro__)",
                c.name
            ))),
            _ => match super::builtins::Builtin::object_method(name) {
                Some(b) => Ok(Value::Builtin(b)),
                // `EnumType.__getattr__` raises `AttributeError(name)`.
                None if c.is_enum() => fail(ExcKind::AttributeError, name),
                // The metaclass stand-ins have no attributes of their own.
                None if (&*c.module, &*c.name) == ("enum", "EnumType") => Err(Unwind::unsupported(
                    format!("the attribute enum.EnumType.{name}"),
                )),
                None => Err(no_class_attr(c, name)),
            },
        }
    }

    fn super_getattr(&mut self, s: &Super, name: &str) -> R<Value> {
        let after = match &s.after {
            SuperFrom::Class(c) => c,
            SuperFrom::Exception(e) => return self.exc_super_getattr(s, e, name),
        };
        let class = match &s.receiver {
            Value::Instance(i) => i.class.clone(),
            Value::Class(c) => c.clone(),
            _ => return type_error("super(type, obj): obj must be an instance or subtype of type"),
        };
        let mut order = vec![class.clone()];
        order.extend(class.mro.iter().cloned());
        let start = order
            .iter()
            .position(|c| Rc::ptr_eq(c, after))
            .map_or(order.len(), |i| i + 1);
        for c in &order[start..] {
            if let Some(v) = c.own(name) {
                if let Some(r) = self.descriptor_get(&v, s.receiver.clone(), &class) {
                    return r;
                }
                return Ok(match (&s.receiver, v) {
                    (Value::Instance(_), v) => self.bind_class_attr(v, &s.receiver, &class),
                    (_, Value::Descriptor(d)) => match &*d {
                        Descriptor::ClassMethod(f) => bind(f.clone(), s.receiver.clone()),
                        Descriptor::Static(f) => f.clone(),
                        Descriptor::Property { .. } => Value::Descriptor(d.clone()),
                    },
                    // An implicit classmethod.
                    (_, v @ Value::Function(_)) if name == "__init_subclass__" => {
                        bind(v, s.receiver.clone())
                    }
                    (_, v) => v,
                });
            }
        }
        if let (Value::Instance(_), _) | (_, "__new__" | "__init_subclass__") = (&s.receiver, name)
        {
            if let Some(v) = self.object_method(&s.receiver, name) {
                return Ok(v);
            }
        }
        fail(
            ExcKind::AttributeError,
            format!("'super' object has no attribute '{name}'"),
        )
    }

    /// `o.name = value` for instances and classes; `None` for other objects.
    pub fn class_setattr(&mut self, o: &Value, name: &str, value: Value) -> Option<R<()>> {
        Some(match o {
            Value::Instance(inst) => self.instance_setattr(inst, o, name, value),
            Value::Exception(e) => self.exc_setattr(e, o, name, value),
            Value::Class(c) => {
                c.set(name, value);
                Ok(())
            }
            Value::Function(f) => {
                super::funcattr::set(f, name, value);
                Ok(())
            }
            _ => return None,
        })
    }

    fn instance_setattr(
        &mut self,
        inst: &Rc<Instance>,
        o: &Value,
        name: &str,
        value: Value,
    ) -> R<()> {
        let class_attr = match inst.class.any_property() {
            true => inst.class.lookup(name),
            false => None,
        };
        if let Some(attr @ Value::Instance(_)) = &class_attr {
            if let Some(r) = self.descriptor_set(attr, o, value.clone()) {
                return r;
            }
        }
        if let Some(Value::Descriptor(d)) = class_attr {
            if let Descriptor::Property { fset, .. } = &*d {
                return match fset {
                    Some(setter) => self
                        .call(setter, vec![o.clone(), value], Vec::new())
                        .map(|_| ()),
                    None => fail(
                        ExcKind::AttributeError,
                        format!(
                            "property '{name}' of '{}' object has no setter",
                            inst.class.name
                        ),
                    ),
                };
            }
        }
        if let Some(hook) = inst.class.lookup_special("__setattr__") {
            return self
                .call(&hook, vec![o.clone(), Value::str(name), value], Vec::new())
                .map(|_| ());
        }
        if inst.class.frozen.get() || inst.class.mro.iter().any(|c| c.frozen.get()) {
            return Err(super::stdclass::frozen_error(name));
        }
        if inst.class.is_named_tuple() {
            return fail(ExcKind::AttributeError, "can't set attribute");
        }
        if let Some(slots) = &inst.class.slots {
            if !slots.iter().any(|s| &**s == name) {
                return Err(no_instance_attr(&inst.class, name));
            }
        }
        class::set_attr(&mut inst.attrs.borrow_mut(), name, value);
        Ok(())
    }

    /// `o.name = value`.
    pub fn setattr(&mut self, o: &Value, name: &str, value: Value) -> R<()> {
        match self.class_setattr(o, name, value) {
            Some(r) => r,
            None => fail(
                ExcKind::AttributeError,
                format!("'{}' object has no attribute '{name}'", o.type_name()),
            ),
        }
    }

    /// `del o.name`.
    pub fn delattr(&mut self, o: &Value, name: &str) -> R<()> {
        match self.class_delattr(o, name) {
            Some(r) => r,
            None => fail(
                ExcKind::AttributeError,
                format!("'{}' object has no attribute '{name}'", o.type_name()),
            ),
        }
    }

    /// `format(v, spec)` and f-string fields: `__format__`, or `str()` for an empty spec.
    pub fn format_of(&mut self, v: &Value, spec: &str) -> R<String> {
        let Value::Instance(i) = v else {
            if let (Value::Exception(_), "") = (v, spec) {
                return self.str_of(v);
            }
            return match super::format::format_value(v, spec) {
                // A container holding instances: `format(x, '')` is `str(x)`.
                Err(e) if super::dunder::is_marker(&e) && spec.is_empty() => self.str_of(v),
                r => r,
            };
        };
        if let Some(r) = self.dunder(v, "__format__", vec![Value::str(spec)])? {
            return match r {
                Value::Str(s) => Ok(s.as_str().to_string()),
                other => type_error(format!(
                    "__format__ must return a str, not {}",
                    other.type_name()
                )),
            };
        }
        if spec.is_empty() {
            return self.str_of(v);
        }
        type_error(format!(
            "unsupported format string passed to {}.__format__",
            i.class.name
        ))
    }

    /// Sets an instance attribute without hooks (`object.__setattr__`).
    pub fn raw_setattr(&mut self, o: &Value, name: &str, value: Value) -> R<()> {
        match o {
            Value::Instance(inst) => {
                if let Some(slots) = &inst.class.slots {
                    if !slots.iter().any(|s| &**s == name) {
                        return Err(no_instance_attr(&inst.class, name));
                    }
                }
                class::set_attr(&mut inst.attrs.borrow_mut(), name, value);
                Ok(())
            }
            other => fail(
                ExcKind::AttributeError,
                format!(
                    "'{}' object attribute '{name}' is read-only",
                    other.type_name()
                ),
            ),
        }
    }

    /// `del o.name`; `None` for objects other than instances and classes.
    pub fn class_delattr(&mut self, o: &Value, name: &str) -> Option<R<()>> {
        Some(match o {
            Value::Instance(inst) => {
                if let Some(attr) = inst.class.lookup(name) {
                    if let Some(r) = self.descriptor_delete(&attr, o) {
                        return Some(r);
                    }
                }
                if inst.class.frozen.get() {
                    return Some(Err(super::stdclass::frozen_delete_error(name)));
                }
                if class::remove_attr(&mut inst.attrs.borrow_mut(), name) {
                    Ok(())
                } else {
                    Err(no_instance_attr(&inst.class, name))
                }
            }
            Value::Class(c) => {
                if c.remove(name) {
                    Ok(())
                } else {
                    Err(no_class_attr(c, name))
                }
            }
            _ => return None,
        })
    }

    /// `vars(o)` / `o.__dict__` (a copy: updating it does not change the object).
    /// `C.__dict__` / `vars(C)` of a class: a read-only view in CPython (`mappingproxy`).
    pub fn class_dict(&self, c: &Class) -> Value {
        let d = self.vars_dict(&c.attrs.borrow());
        if let Value::Dict(d) = &d {
            d.borrow_mut().flavor = Some(Rc::new(super::stdlib::Flavor::MappingProxy));
        }
        d
    }

    /// `obj.__dict__` / `vars(obj)` of an instance: a copy, refusing changes.
    pub fn instance_dict(&self, attrs: &[(Rc<str>, Value)]) -> Value {
        let d = self.vars_dict(attrs);
        if let Value::Dict(dict) = &d {
            dict.borrow_mut().copy_of = Some("an instance's __dict__");
        }
        d
    }

    pub fn vars_dict(&self, attrs: &[(Rc<str>, Value)]) -> Value {
        let mut d = super::dict::Dict::default();
        for (k, v) in attrs {
            let key = Value::str(&**k);
            if let Ok(hk) = super::dict::key_of(&key) {
                d.insert(hk, key, v.clone());
            }
        }
        Value::Dict(Rc::new(std::cell::RefCell::new(d)))
    }

    /// Calls a user class: `__new__` when defined, then `__init__`.
    pub fn call_class(&mut self, c: &Rc<Class>, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        if c.is_enum() {
            return self.enum_lookup(c, args, kwargs);
        }
        if c.is_named_tuple() {
            return self.named_tuple_new(c, args, kwargs);
        }
        let obj = match c.lookup_special("__new__") {
            Some(new) => {
                let new = match &new {
                    Value::Descriptor(d) => match &**d {
                        Descriptor::Static(f) => f.clone(),
                        _ => new.clone(),
                    },
                    _ => new,
                };
                let mut all = vec![Value::Class(c.clone())];
                all.extend(args.iter().cloned());
                let obj = self.call(&new, all, kwargs.clone())?;
                match &obj {
                    Value::Instance(i) if i.class.is_subclass_of(c) => {}
                    _ => return Ok(obj),
                }
                obj
            }
            None => Value::Instance(Rc::new(Instance::new(c.clone()))),
        };
        match c.lookup_special("__init__") {
            Some(init) => {
                let r = self.call_method_value(&init, obj.clone(), args, kwargs)?;
                if !matches!(r, Value::None) {
                    return type_error(format!(
                        "__init__() should return None, not '{}'",
                        r.type_name()
                    ));
                }
            }
            None if (!args.is_empty() || !kwargs.is_empty())
                && c.lookup_special("__new__").is_none() =>
            {
                return type_error(format!("{}() takes no arguments", c.name));
            }
            None => {}
        }
        Ok(obj)
    }

    /// Calls a class attribute `func` as a method of `receiver`.
    pub fn call_method_value(
        &mut self,
        func: &Value,
        receiver: Value,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        match func {
            Value::Function(f) => {
                let (code, p) = (&f.code, &f.code.params);
                if kwargs.is_empty() && p.direct && args.len() + 1 == p.n_positional {
                    // The receiver and arguments go straight into the new frame's slots.
                    let mut locals = self.pool.pop().unwrap_or_default();
                    locals.reserve(code.nlocals);
                    locals.push(Some(receiver));
                    locals.extend(args.into_iter().map(Some));
                    locals.resize(code.nlocals, None);
                    return self.call_with_locals(f, locals);
                }
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push(receiver);
                all.extend(args);
                self.call_function(f, all, kwargs)
            }
            Value::Descriptor(d) => match &**d {
                Descriptor::Static(f) => self.call(f, args, kwargs),
                Descriptor::ClassMethod(f) => {
                    let class = match &receiver {
                        Value::Instance(i) => Value::Class(i.class.clone()),
                        other => other.clone(),
                    };
                    let mut all = vec![class];
                    all.extend(args);
                    self.call(f, all, kwargs)
                }
                Descriptor::Property { fget, .. } => {
                    let v = self.call(fget, vec![receiver], Vec::new())?;
                    self.call(&v, args, kwargs)
                }
            },
            generated if super::stdclass::is_generated_method(generated) => {
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push(receiver);
                all.extend(args);
                self.call(generated, all, kwargs)
            }
            other => self.call(other, args, kwargs),
        }
    }

    /// `obj.name(args)` on an instance, without creating the bound method when the
    /// attribute is a plain function of the class.
    pub fn call_instance_method(
        &mut self,
        inst: &Rc<Instance>,
        o: Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        if let Some(func @ Value::Function(_)) = inst.class.lookup(name) {
            if inst.get(name).is_none() {
                return self.call_method_value(&func, o, args, kwargs);
            }
        }
        let f = self.getattr(&o, name)?;
        self.call(&f, args, kwargs)
    }

    /// Calls a bound method.
    pub fn call_bound(&mut self, b: &Bound, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(b.receiver.clone());
        all.extend(args);
        self.call(&b.func, all, kwargs)
    }

    /// `super(cls, obj)`.
    pub fn make_super(&mut self, args: Vec<Value>) -> R<Value> {
        match args.as_slice() {
            [] => Err(Unwind::new(ExcKind::RuntimeError, "super(): no arguments")),
            [Value::Class(c), obj] => {
                let ok = match obj {
                    Value::Instance(i) => i.class.is_subclass_of(c),
                    Value::Class(k) => k.is_subclass_of(c),
                    _ => false,
                };
                if !ok {
                    return type_error(
                        "super(type, obj): obj must be an instance or subtype of type",
                    );
                }
                Ok(Value::Super(Rc::new(Super {
                    after: SuperFrom::Class(c.clone()),
                    receiver: obj.clone(),
                })))
            }
            [Value::UserExcType(c), obj] => {
                self.make_exc_super(super::exc::ExcClass::User(c.clone()), obj)
            }
            [Value::ExcType(k), obj] => self.make_exc_super(super::exc::ExcClass::Builtin(*k), obj),
            [other, _] => type_error(format!(
                "super() argument 1 must be a type, not {}",
                other.type_name()
            )),
            _ => Err(Unwind::unsupported("super() with one argument")),
        }
    }
}
