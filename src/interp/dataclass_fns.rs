//! The module functions of `dataclasses` over instances: `is_dataclass`, `asdict`,
//! `astuple` (recursive into dataclasses, named tuples, lists, tuples and plain dicts, other
//! values deep-copied, as CPython 3.11's `_asdict_inner`), `replace` (`InitVar`s without a
//! default must be given, `init=False` fields must not) and `fields` (whose `Field`s have
//! `name`, `default`, `default_factory`, `init`, `repr`, `compare`, `hash`, `kw_only` and
//! `metadata`, and `type`: the evaluated annotation for a (dotted) name, a string or
//! `None`, the annotation's text under `from __future__ import annotations`, refused
//! naming the annotation otherwise); and what annotations make of fields: `InitVar[...]`
//! and `KW_ONLY`, read by name.

use std::cell::RefCell;
use std::rc::Rc;

use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::class::Class;
use super::dict::{Dict, key_of};
use super::exc::{ExcKind, R, Unwind, fail, type_error};
use super::machine::Machine;
use super::value::Value;

/// What annotations make of a class body's fields: `x: InitVar[int]` an init-only
/// variable, every field after `_: KW_ONLY` keyword-only (read by name, as annotations are
/// not evaluated).
#[derive(Default)]
pub(crate) struct FieldMarks {
    pub initvars: Vec<Rc<str>>,
    pub kw_only: Vec<Rc<str>>,
    /// The names annotated `KW_ONLY`, in order (a second one is an error of `@dataclass`).
    pub kw_only_markers: Vec<Rc<str>>,
}

/// The annotated names of a class body and their marks.
pub(crate) struct FieldDecls {
    /// Annotated names (`ClassVar`s and `KW_ONLY` markers left out), in order.
    pub fields: Vec<Rc<str>>,
    pub marks: FieldMarks,
}

/// The annotated names of a class body (`x: int`, `x: int = 0`) with their annotations.
pub(crate) fn annotated_names(
    body: &[crate::python::ir::Stmt],
) -> impl Iterator<Item = (&str, &crate::python::ir::Expr)> {
    use crate::python::ir::{ExprKind, StmtKind};
    body.iter().filter_map(|st| match &st.kind {
        StmtKind::AnnAssign {
            target, annotation, ..
        } => match &target.kind {
            ExprKind::Name(n) => Some((n.as_str(), annotation)),
            _ => None,
        },
        _ => None,
    })
}

/// The fields a class body `body` declares (see [`FieldDecls`]).
pub(crate) fn field_decls(body: &[crate::python::ir::Stmt]) -> FieldDecls {
    let mut fields: Vec<Rc<str>> = Vec::new();
    let mut marks = FieldMarks::default();
    for (n, annotation) in annotated_names(body) {
        let n: Rc<str> = n.into();
        match annotation_head(annotation) {
            // A `ClassVar` annotation is a class attribute, never a field.
            Some("ClassVar") => continue,
            Some("KW_ONLY") => {
                marks.kw_only_markers.push(n);
                continue;
            }
            Some("InitVar") => marks.initvars.push(n.clone()),
            _ => {}
        }
        if !marks.kw_only_markers.is_empty() {
            marks.kw_only.push(n.clone());
        }
        if !fields.contains(&n) {
            fields.push(n);
        }
    }
    FieldDecls { fields, marks }
}

/// Records `marks` on a new class as hidden attributes `@dataclass` reads:
/// `__initvar_x`, `__kwonly_x` and `__kw_only_again__` (the second `KW_ONLY` name).
pub(crate) fn mark_fields(class: &Class, marks: &FieldMarks) {
    for f in &marks.initvars {
        class.set(&format!("__initvar_{f}"), Value::Bool(true));
    }
    for f in &marks.kw_only {
        class.set(&format!("__kwonly_{f}"), Value::Bool(true));
    }
    if let Some(again) = marks.kw_only_markers.get(1) {
        class.set("__kw_only_again__", Value::str(&**again));
    }
}

/// How a field's annotation becomes its `Field.type` when the class is made.
pub(crate) enum FieldType {
    /// A name or dotted name, evaluated in the class body; a value other than a class
    /// or `None` is refused (the text names it).
    Eval(super::code::Expr, Rc<str>),
    /// A string (written as one, or any annotation under `from __future__ import
    /// annotations`), or `None`.
    Const(Value),
    /// An annotation the interpreter does not evaluate faithfully (subscripts, unions): its
    /// text.
    Refused(Rc<str>),
}

/// The root name of a (dotted) name annotation; `None` for other shapes (which a class
/// body does not evaluate for `Field.type`).
pub(crate) fn annotation_root(annotation: &crate::python::ir::Expr) -> Option<&str> {
    use crate::python::ir::ExprKind;
    match &annotation.kind {
        ExprKind::Name(n) => Some(n),
        ExprKind::Attribute { value, .. } => annotation_root(value),
        _ => None,
    }
}

impl Machine {
    /// Evaluates the fields' annotations of a class body that has run in `frame` (see
    /// [`FieldType`]). `NameError` and other exceptions propagate, as CPython's; what the
    /// interpreter refuses leaves that field's type refused.
    pub(super) fn field_types(
        &mut self,
        frame: &mut super::machine::Frame,
        types: &[(Rc<str>, FieldType)],
    ) -> R<Vec<(Rc<str>, Result<Value, Rc<str>>)>> {
        let mut out = Vec::with_capacity(types.len());
        for (f, t) in types {
            let v = match t {
                FieldType::Const(v) => Ok(v.clone()),
                FieldType::Refused(text) => Err(text.clone()),
                FieldType::Eval(e, text) => match self.eval(frame, e) {
                    Ok(
                        v @ (Value::Type(_)
                        | Value::Class(_)
                        | Value::ExcType(_)
                        | Value::UserExcType(_)
                        | Value::None),
                    ) => Ok(v),
                    Ok(_) => Err(text.clone()),
                    // Refused inside the annotation: the type is refused; an interrupt or
                    // a spent budget still stops the run.
                    Err(e)
                        if matches!(
                            e.kind(),
                            super::exc::Unwound::Abort(super::exc::Abort::Unsupported { .. })
                        ) =>
                    {
                        Err(text.clone())
                    }
                    Err(e) => return Err(e),
                },
            };
            out.push((f.clone(), v));
        }
        Ok(out)
    }
}

/// `field.type`: the annotation of a field `fields()` made, refused by its text where the
/// interpreter does not evaluate it; `None` for a `Field` that `field()` made.
pub(crate) fn field_type(field: &Value) -> R<Value> {
    let Value::Instance(i) = field else {
        return Ok(Value::None);
    };
    if let Some(v) = i.get("__type") {
        return Ok(v);
    }
    match i.get("__type_refused") {
        Some(Value::Str(text)) => Err(Unwind::unsupported(format!(
            "dataclasses.Field.type of the annotation `{}`",
            text.as_str()
        ))),
        _ => Ok(Value::None),
    }
}

/// Whether field `f` of `c` is an `InitVar`: an `__init__` parameter, not a field.
pub(crate) fn is_initvar(c: &Class, f: &str) -> bool {
    matches!(c.lookup(&format!("__initvar_{f}")), Some(Value::Bool(true)))
}

/// Whether field `f` of `c` is keyword-only in `__init__`.
pub(crate) fn is_kw_only(c: &Class, f: &str) -> bool {
    matches!(c.lookup(&format!("__kwonly_{f}")), Some(Value::Bool(true)))
}

/// The name an annotation is headed by: `ClassVar` of `ClassVar[int]` and of
/// `typing.ClassVar[int]`, `int` of `int`.
pub(crate) fn annotation_head(annotation: &crate::python::ir::Expr) -> Option<&str> {
    use crate::python::ir::ExprKind;
    let mut e = annotation;
    if let ExprKind::Subscript { value, .. } = &e.kind {
        e = &**value;
    }
    match &e.kind {
        ExprKind::Name(n) => Some(n.as_str()),
        ExprKind::Attribute { attr, .. } => Some(attr.as_str()),
        _ => None,
    }
}

/// `Field.metadata` of `field(metadata=m)`: a read-only copy of the dict `m` (CPython's
/// `mappingproxy` of it), empty for `None`; other mappings are refused by name.
pub(crate) fn metadata_proxy(m: Option<Value>) -> R<Value> {
    let mut d = match m {
        None | Some(Value::None) => Dict::default(),
        Some(Value::Dict(d)) if d.borrow().flavor.is_none() => {
            let mut copy = Dict::default();
            for (k, v) in d.borrow().iter() {
                copy.insert(key_of(k)?, k.clone(), v.clone());
            }
            copy
        }
        Some(_) => {
            return Err(Unwind::unsupported(
                "dataclasses.field(metadata=...) with a mapping other than a dict",
            ));
        }
    };
    d.flavor = Some(Rc::new(super::stdlib::Flavor::MappingProxy));
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

/// Nesting beyond this raises `RecursionError` (CPython's recursion limit).
const MAX_DEPTH: usize = 1000;

/// What a class's `__dataclass_fields__` says it is.
#[derive(PartialEq, Eq)]
enum Kind {
    Dataclass,
    NamedTuple,
    Other,
}

fn kind(c: &Class) -> Kind {
    match c.lookup("__dataclass_fields__") {
        Some(Value::Tuple(_)) => Kind::Dataclass,
        Some(Value::None) => Kind::NamedTuple,
        _ => Kind::Other,
    }
}

fn instance_class(v: &Value) -> Option<Rc<Class>> {
    match v {
        Value::Instance(i) => Some(i.class.clone()),
        _ => None,
    }
}

fn dataclass_instance(v: &Value) -> Option<Rc<Class>> {
    instance_class(v).filter(|c| kind(c) == Kind::Dataclass)
}

impl Machine {
    /// `dataclasses.fields(class_or_instance)`: a tuple of `Field`s, bases' fields first.
    pub(super) fn dc_fields(&mut self, v: &Value) -> R<Value> {
        let class = match v {
            Value::Class(c) if kind(c) == Kind::Dataclass => c.clone(),
            v => match dataclass_instance(v) {
                Some(c) => c,
                None => return type_error("must be called with a dataclass type or instance"),
            },
        };
        let missing = super::stdclass::missing();
        let mut out = Vec::new();
        for f in super::stdclass::fields_of(&class) {
            let factory = class.lookup(&format!("__factory_{f}"));
            let default = match &factory {
                Some(_) => None,
                None => class.lookup(&f),
            };
            let flag = |n: &str| Value::Bool(super::stdclass::field_has(&class, n, &f));
            let annotation = std::iter::once(&class)
                .chain(class.mro.iter())
                .find_map(|k| {
                    k.field_types
                        .borrow()
                        .iter()
                        .find(|(n, _)| *n == f)
                        .map(|(_, t)| t.clone())
                })
                .unwrap_or_else(|| Err("an annotation".into()));
            let annotation = match annotation {
                Ok(v) => ("__type".into(), v),
                Err(text) => ("__type_refused".into(), Value::str(&*text)),
            };
            let metadata = match class.lookup(&format!("__metadata_{f}")) {
                Some(m) => m,
                None => metadata_proxy(None)?,
            };
            out.push(super::stdclass::field_object(vec![
                ("name".into(), Value::str(&*f)),
                ("default".into(), default.unwrap_or_else(|| missing.clone())),
                (
                    "default_factory".into(),
                    factory.unwrap_or_else(|| missing.clone()),
                ),
                ("init".into(), flag("init")),
                ("repr".into(), flag("repr")),
                ("compare".into(), flag("compare")),
                ("kw_only".into(), Value::Bool(is_kw_only(&class, &f))),
                (
                    "hash".into(),
                    class.lookup(&format!("__hash_{f}")).unwrap_or(Value::None),
                ),
                ("metadata".into(), metadata),
                annotation,
            ]));
        }
        Ok(Value::tuple(out))
    }

    /// `dataclasses.is_dataclass(obj)`: a dataclass or an instance of one.
    pub(super) fn dc_is_dataclass(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        no_kwargs("is_dataclass", &kwargs)?;
        arity("is_dataclass", &args, 1, 1)?;
        let yes = match &args[0] {
            Value::Class(c) => kind(c) == Kind::Dataclass,
            v => dataclass_instance(v).is_some(),
        };
        Ok(Value::Bool(yes))
    }

    /// `dataclasses.asdict(obj)` (`as_tuple` false) or `astuple(obj)`.
    pub(super) fn dc_convert(
        &mut self,
        as_tuple: bool,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        let (name, factory) = if as_tuple {
            ("astuple", "tuple_factory")
        } else {
            ("asdict", "dict_factory")
        };
        let [f] = take_kwargs(name, kwargs, [factory])?;
        if f.is_some() {
            return Err(Unwind::unsupported(format!(
                "dataclasses.{name}({factory}=...)"
            )));
        }
        arity(name, &args, 1, 1)?;
        if dataclass_instance(&args[0]).is_none() {
            return type_error(format!("{name}() should be called on dataclass instances"));
        }
        self.dc_inner(&args[0], as_tuple, 0)
    }

    fn dc_inner(&mut self, x: &Value, as_tuple: bool, depth: usize) -> R<Value> {
        if depth > MAX_DEPTH {
            return fail(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded while calling a Python object",
            );
        }
        self.tick()?;
        if let Some(class) = instance_class(x) {
            match kind(&class) {
                Kind::Dataclass => {
                    let fields = super::stdclass::fields_of(&class);
                    if as_tuple {
                        let mut items = Vec::with_capacity(fields.len());
                        for f in &fields {
                            let v = self.getattr(x, f)?;
                            items.push(self.dc_inner(&v, as_tuple, depth + 1)?);
                        }
                        return Ok(Value::tuple(items));
                    }
                    let mut d = Dict::default();
                    for f in &fields {
                        let v = self.getattr(x, f)?;
                        let v = self.dc_inner(&v, as_tuple, depth + 1)?;
                        let k = Value::str(&**f);
                        d.insert(key_of(&k)?, k, v);
                    }
                    return Ok(Value::Dict(Rc::new(RefCell::new(d))));
                }
                Kind::NamedTuple => {
                    let mut items = Vec::new();
                    for f in super::stdclass::fields_of(&class) {
                        let v = self.getattr(x, &f)?;
                        items.push(self.dc_inner(&v, as_tuple, depth + 1)?);
                    }
                    return self.call(&Value::Class(class), items, Vec::new());
                }
                Kind::Other => {}
            }
        }
        match x {
            Value::List(l) => {
                let items = l.borrow().clone();
                let mut out = Vec::with_capacity(items.len());
                for v in &items {
                    out.push(self.dc_inner(v, as_tuple, depth + 1)?);
                }
                Ok(Value::list(out))
            }
            Value::Tuple(t) => {
                let items: Vec<Value> = t.iter().cloned().collect();
                let mut out = Vec::with_capacity(items.len());
                for v in &items {
                    out.push(self.dc_inner(v, as_tuple, depth + 1)?);
                }
                Ok(Value::tuple(out))
            }
            Value::Dict(d) => {
                if d.borrow().flavor.is_some() {
                    return Err(Unwind::unsupported(
                        "dataclasses.asdict/astuple of a dict subclass (defaultdict, Counter, OrderedDict)",
                    ));
                }
                let pairs: Vec<(Value, Value)> = d.borrow().iter().cloned().collect();
                let mut out = Dict::default();
                for (k, v) in &pairs {
                    let k = self.dc_inner(k, as_tuple, depth + 1)?;
                    let v = self.dc_inner(v, as_tuple, depth + 1)?;
                    out.insert(key_of(&k)?, k, v);
                }
                Ok(Value::Dict(Rc::new(RefCell::new(out))))
            }
            other => self.deepcopy_value(other),
        }
    }

    /// `dataclasses.replace(obj, /, **changes)`: a new instance through the class's
    /// `__init__`, unchanged fields taken from `obj`.
    pub(super) fn dc_replace(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        if args.len() != 1 {
            return type_error(format!(
                "replace() takes 1 positional argument but {} were given",
                args.len()
            ));
        }
        let obj = &args[0];
        let Some(class) = dataclass_instance(obj) else {
            return type_error("replace() should be called on dataclass instances");
        };
        let mut changes = kwargs;
        for f in super::stdclass::init_fields_of(&class) {
            let given = changes.iter().any(|(k, _)| *k == f);
            if !super::stdclass::field_has(&class, "init", &f) {
                if given {
                    return fail(
                        ExcKind::ValueError,
                        format!(
                            "field {f} is declared with init=False, it cannot be specified with replace()"
                        ),
                    );
                }
                continue;
            }
            if given {
                continue;
            }
            let has_default =
                class.lookup(&f).is_some() || class.lookup(&format!("__factory_{f}")).is_some();
            if is_initvar(&class, &f) && !has_default {
                return fail(
                    ExcKind::ValueError,
                    format!("InitVar '{f}' must be specified with replace()"),
                );
            }
            let v = self.getattr(obj, &f)?;
            changes.push((f, v));
        }
        self.call(&Value::Class(class), Vec::new(), changes)
    }
}
