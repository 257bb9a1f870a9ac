//! Running a `class` statement: the body runs in its own frame, its locals become the
//! namespace, the bases give the MRO, `__class__` is filled for `super()`, then the
//! decorators apply. Exception classes (`class E(ValueError): pass`) stay exception classes.

use std::rc::Rc;

use super::class::{Class, Flavor};
use super::code::{Arg, ClassDef, Kwarg};
use super::exc::{ExcClass, R, UserClass, type_error};
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
        // `metaclass=ABCMeta` (the abc prelude's stand-in) adds its `ABC` base instead.
        let mut skip = None;
        if let Some(at) = def
            .keywords
            .iter()
            .position(|k| matches!(k, Kwarg::Named(n, _) if &**n == "metaclass"))
        {
            if let Kwarg::Named(_, e) = &def.keywords[at] {
                let meta = self.eval(f, e)?;
                if let Some(base) = metaclass_base(&meta) {
                    if !bases.iter().any(|b| is_subclass(b, &base)) {
                        bases.push(Value::Class(base));
                    }
                    skip = Some(at);
                }
            }
        }
        let def_keywords: Vec<&Kwarg> = (def.keywords.iter().enumerate())
            .filter(|(i, _)| Some(*i) != skip)
            .map(|(_, k)| k)
            .collect();
        // Exception classes: one exception base; the body's namespace holds their methods.
        let exc_base = match bases.as_slice() {
            [Value::ExcType(k)] => Some(ExcClass::Builtin(*k)),
            [Value::UserExcType(c)] => Some(ExcClass::User(c.clone())),
            _ => None,
        };
        if let (Some(base), true) = (exc_base, def_keywords.is_empty()) {
            let class = if def.trivial {
                let mut class = UserClass::plain(def.name.clone(), base);
                add_doc(&mut class.namespace, def);
                Rc::new(class)
            } else {
                let (mut namespace, frame) = self.class_namespace(f, def, &mut Vec::new())?;
                add_doc(&mut namespace, def);
                let class = Rc::new(UserClass {
                    name: def.name.clone(),
                    base,
                    namespace,
                });
                fill_class_cell(def, &frame, Value::UserExcType(class.clone()));
                class
            };
            let mut v = Value::UserExcType(class);
            for d in decorators.iter().rev() {
                v = self.call(d, vec![v], Vec::new())?;
            }
            self.store(f, def.target, v);
            return Ok(());
        }
        // Classes outside the subset are defined as unavailable, as before classes ran, so a
        // cell defining one next to functions still runs; using the class stops the run.
        match self.class_bases(&def_keywords, &bases)? {
            Ok((class_bases, flavor)) => {
                let mut keywords = Vec::new();
                for &k in &def_keywords {
                    if let Kwarg::Named(name, e) = k {
                        keywords.push((name.clone(), self.eval(f, e)?));
                    }
                }
                self.run_class_body(f, def, class_bases, flavor, keywords, decorators)
            }
            Err(reason) => {
                let v = Value::Unavailable(format!("the class {} ({reason})", def.name).into());
                self.store(f, def.target, v);
                Ok(())
            }
        }
    }

    /// The user-class bases of a class statement, or why the class is outside the subset
    /// (an exception class is made here).
    fn class_bases(
        &mut self,
        keywords: &[&Kwarg],
        bases: &[Value],
    ) -> R<Result<(Vec<Rc<Class>>, Flavor), String>> {
        // Other keywords go to `__init_subclass__`.
        if let Some(k) = keywords.iter().find(|k| match k {
            Kwarg::Named(name, _) => &**name == "metaclass",
            Kwarg::Splat(_) => true,
        }) {
            return Ok(Err(match k {
                Kwarg::Named(name, _) => format!("the class keyword `{name}=` is not supported"),
                Kwarg::Splat(_) => "class keywords `**` are not supported".into(),
            }));
        }
        let mut class_bases = Vec::new();
        let mut flavor = Flavor::Plain;
        for b in bases {
            match b {
                Value::Class(c) => {
                    if c.flavor != Flavor::Plain {
                        flavor = c.flavor;
                    }
                    class_bases.push(c.clone());
                }
                Value::Type(TypeKind::Object) => {}
                Value::Unavailable(what) => return Ok(Err(format!("it derives from {what}"))),
                Value::Type(t) => {
                    return Ok(Err(format!(
                        "deriving from the builtin type {} is not supported",
                        t.name()
                    )));
                }
                Value::ExcType(_) | Value::UserExcType(_) => {
                    return Ok(Err(
                        "exception classes with several bases or class keywords are not supported"
                            .into(),
                    ));
                }
                Value::Native(_) | Value::Opaque(_) => {
                    return Ok(Err(format!(
                        "deriving from {} is not supported",
                        self.repr_of(b)?
                    )));
                }
                other => {
                    return type_error(format!("bases must be types, not {}", other.type_name()));
                }
            }
        }
        // `boundary=` and other keywords go to `EnumType`, which is not modelled.
        if flavor != Flavor::Plain && flavor != Flavor::NamedTuple && !keywords.is_empty() {
            return Ok(Err(
                "class keywords of an Enum class are not supported".into()
            ));
        }
        Ok(Ok((class_bases, flavor)))
    }

    fn run_class_body(
        &mut self,
        f: &mut Frame,
        def: &ClassDef,
        class_bases: Vec<Rc<Class>>,
        flavor: Flavor,
        keywords: super::call::Kwargs,
        decorators: Vec<Value>,
    ) -> R<()> {
        let mut field_types = Vec::new();
        let (mut attrs, frame) = self.class_namespace(f, def, &mut field_types)?;
        // A class defining `__eq__` but not `__hash__` is unhashable, as in CPython.
        let defines = |attrs: &[(Rc<str>, Value)], n: &str| attrs.iter().any(|(k, _)| **k == *n);
        if defines(&attrs, "__eq__") && !defines(&attrs, "__hash__") {
            attrs.push(("__hash__".into(), Value::None));
        }
        add_doc(&mut attrs, def);
        let mut class = Class::new(
            def.name.clone(),
            def.code.qualname.clone(),
            class_bases,
            attrs,
            flavor,
        )?;
        if let Some((module, qualname)) =
            super::source_module::library_class_name(&def.code.qualname)
        {
            class.module = module.into();
            class.qualname = qualname.into();
        }
        let class = Rc::new(class);
        fill_class_cell(def, &frame, Value::Class(class.clone()));
        *class.fields.borrow_mut() = def.fields.clone();
        super::dataclass_fns::mark_fields(&class, &def.field_marks);
        *class.field_types.borrow_mut() = field_types;
        self.set_names(&class)?;
        if class.is_named_tuple() {
            self.make_named_tuple(&class)?;
        }
        if class.is_enum() {
            self.make_enum_members(&class)?;
        }
        self.init_subclass(&class, keywords)?;
        let mut v = Value::Class(class);
        for d in decorators.iter().rev() {
            v = self.call(d, vec![v], Vec::new())?;
        }
        self.store(f, def.target, v);
        Ok(())
    }

    /// The parent's `__init_subclass__` (an implicit classmethod) with the class keywords,
    /// as `type.__new__` calls it; `object`'s takes no keywords.
    fn init_subclass(&mut self, class: &Rc<Class>, keywords: super::call::Kwargs) -> R<()> {
        let hook = class.mro.iter().find_map(|b| b.own("__init_subclass__"));
        match hook {
            Some(f @ Value::Function(_)) => {
                self.call(&f, vec![Value::Class(class.clone())], keywords)?;
                Ok(())
            }
            Some(_) => Err(super::exc::Unwind::unsupported(
                "an __init_subclass__ that is not a plain function",
            )),
            None if keywords.is_empty() => Ok(()),
            None => type_error(format!(
                "{}.__init_subclass__() takes no keyword arguments",
                class.name
            )),
        }
    }

    /// Runs a class body in its own frame; its bound locals, in definition order, are the
    /// namespace. The frame is returned for its `__class__` cell.
    fn class_namespace(
        &mut self,
        f: &mut Frame,
        def: &ClassDef,
        types_out: &mut Vec<(Rc<str>, Result<Value, Rc<str>>)>,
    ) -> R<(Vec<(Rc<str>, Value)>, Frame)> {
        let closure = capture(f, &def.code.free_sources)?;
        let mut frame = Frame::new(&def.code, &closure);
        self.enter(&def.code)?;
        let ran = match &def.code.body {
            super::code::Body::Block(stmts) => self.exec_block(&mut frame, stmts),
            _ => Ok(super::exec::Flow::Normal),
        };
        let types = ran.and_then(|_| self.field_types(&mut frame, &def.field_types));
        self.leave();
        *types_out = types?;
        let mut attrs: Vec<(Rc<str>, Value)> = Vec::new();
        for (name, slot) in &def.names {
            if let Some(Some(v)) = frame.locals.get(*slot as usize) {
                attrs.push((super::names::intern(name), v.clone()));
            }
        }
        Ok((attrs, frame))
    }
}

/// Every class has its own `__doc__` (not inherited): its docstring, else None.
fn add_doc(attrs: &mut Vec<(Rc<str>, Value)>, def: &ClassDef) {
    if attrs.iter().any(|(k, _)| &**k == "__doc__") {
        return;
    }
    match super::funcattr::code_docstring(&def.code) {
        Some(doc) => attrs.insert(0, ("__doc__".into(), doc)),
        None => attrs.push(("__doc__".into(), Value::None)),
    }
}

/// Fills the body's `__class__` cell (what zero-argument `super()` reads) with the class.
fn fill_class_cell(def: &ClassDef, frame: &Frame, class: Value) {
    if let Some(i) = def.class_cell {
        if let Some(c) = frame.cells.get(i as usize) {
            *c.borrow_mut() = Some(class);
        }
    }
}

/// The base a metaclass stand-in contributes: a prelude class naming it in
/// `__metaclass_base__` (`abc.ABCMeta` names `abc.ABC`, whose `__new__` does ABCMeta's check).
fn metaclass_base(meta: &Value) -> Option<Rc<Class>> {
    let Value::Class(c) = meta else { return None };
    match c.lookup("__metaclass_base__")? {
        Value::Class(base) => Some(base),
        _ => None,
    }
}

/// Whether the base value `b` is (a subclass of) `class`.
fn is_subclass(b: &Value, class: &Rc<Class>) -> bool {
    matches!(b, Value::Class(c) if c.mro.iter().any(|m| Rc::ptr_eq(m, class)))
}
