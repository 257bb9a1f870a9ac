//! Running a `class` statement: the body runs in its own frame, its locals become the
//! namespace, the bases give the MRO, `__class__` is filled for `super()`, then the
//! decorators apply. Exception classes (`class E(ValueError): pass`) stay exception classes.

use std::rc::Rc;

use super::class::{Class, Flavor};
use super::code::{Arg, ClassDef, Kwarg};
use super::exc::{ExcClass, R, Unwind, UserClass, type_error};
use super::exec::capture;
use super::machine::{Frame, Machine};
use super::value::{TypeKind, Value};

impl Machine {
    pub fn exec_class(&mut self, f: &mut Frame, def: &ClassDef) -> R<()> {
        let decorators: Vec<Value> = def
            .decorators
            .iter()
            .map(|d| self.eval(f, d))
            .collect::<R<_>>()?;
        let mut bases = Vec::new();
        for b in &def.bases {
            match b {
                Arg::One(e) => bases.push(self.eval(f, e)?),
                Arg::Star(e) => {
                    let v = self.eval(f, e)?;
                    bases.extend(self.collect(v)?);
                }
            }
        }
        for k in &def.keywords {
            match k {
                Kwarg::Named(name, _) => {
                    return Err(Unwind::unsupported(format!("the class keyword `{name}=`")));
                }
                Kwarg::Splat(_) => return Err(Unwind::unsupported("class keywords `**`")),
            }
        }
        // Exception classes.
        let exc_base = match bases.as_slice() {
            [Value::ExcType(k)] => Some(ExcClass::Builtin(*k)),
            [Value::UserExcType(c)] => Some(ExcClass::User(c.clone())),
            _ => None,
        };
        if let Some(base) = exc_base {
            if !def.trivial {
                return Err(Unwind::unsupported(format!(
                    "the exception class {} with a body other than `pass` (methods on exception classes)",
                    def.name
                )));
            }
            let mut v = Value::UserExcType(Rc::new(UserClass {
                name: def.name.clone(),
                base,
            }));
            for d in decorators.iter().rev() {
                v = self.call(d, vec![v], Vec::new())?;
            }
            self.store(f, def.target, v);
            return Ok(());
        }
        let mut class_bases = Vec::new();
        let mut flavor = Flavor::Plain;
        for b in &bases {
            match b {
                Value::Class(c) => {
                    if c.flavor != Flavor::Plain {
                        flavor = c.flavor;
                    }
                    class_bases.push(c.clone());
                }
                Value::Type(TypeKind::Object) => {}
                Value::Unavailable(what) => return Err(Unwind::unsupported(what.to_string())),
                Value::Type(t) => {
                    return Err(Unwind::unsupported(format!(
                        "a class deriving from the builtin type {}",
                        t.name()
                    )));
                }
                Value::ExcType(_) | Value::UserExcType(_) => {
                    return Err(Unwind::unsupported("an exception class with several bases"));
                }
                Value::Native(_) | Value::Opaque(_) => {
                    return Err(Unwind::unsupported(format!(
                        "a class deriving from {}",
                        self.repr_of(b)?
                    )));
                }
                other => {
                    return type_error(format!("bases must be types, not {}", other.type_name()));
                }
            }
        }
        // The body.
        let closure = capture(f, &def.code.free_sources)?;
        let mut frame = Frame::new(&def.code, &closure);
        self.enter(&def.code)?;
        let ran = match &def.code.body {
            super::code::Body::Block(stmts) => self.exec_block(&mut frame, stmts),
            _ => Ok(super::exec::Flow::Normal),
        };
        self.leave();
        ran?;
        let mut attrs: Vec<(Rc<str>, Value)> = Vec::new();
        for (name, slot) in &def.names {
            if let Some(Some(v)) = frame.locals.get(*slot as usize) {
                attrs.push((name.clone(), v.clone()));
            }
        }
        // A class defining `__eq__` but not `__hash__` is unhashable, as in CPython.
        let defines = |n: &str| attrs.iter().any(|(k, _)| **k == *n);
        if defines("__eq__") && !defines("__hash__") {
            attrs.push(("__hash__".into(), Value::None));
        }
        let class = Rc::new(Class::new(
            def.name.clone(),
            def.code.qualname.clone(),
            class_bases,
            attrs,
            flavor,
        )?);
        if let Some(i) = def.class_cell {
            if let Some(c) = frame.cells.get(i as usize) {
                *c.borrow_mut() = Some(Value::Class(class.clone()));
            }
        }
        *class.fields.borrow_mut() = def.fields.clone();
        if class.is_named_tuple() {
            self.make_named_tuple(&class)?;
        }
        if flavor == Flavor::Enum {
            self.make_enum_members(&class)?;
        }
        let mut v = Value::Class(class);
        for d in decorators.iter().rev() {
            v = self.call(d, vec![v], Vec::new())?;
        }
        self.store(f, def.target, v);
        Ok(())
    }
}
