//! The builtins and library names of the data model: `super`, `property`, `staticmethod`,
//! `classmethod`, `getattr`/`setattr`/`hasattr`/`delattr`, `vars`, `hash`, `object`'s
//! methods, and the class-based library: `dataclasses` (`dataclass`, `field`,
//! `FrozenInstanceError`), `enum.Enum` (its `Flag`/`IntFlag`/`StrEnum`/`IntEnum` kinds have their
//! own modules), `typing.NamedTuple`, `collections.namedtuple`,
//! `functools.total_ordering`.

use std::rc::Rc;

use super::builtins::Builtin;
use super::call::{Kwargs, arity, no_kwargs, take_kwargs};
use super::class::{Class, Descriptor, Flavor, Instance};
use super::dict::Key;
use super::exc::{ExcClass, ExcKind, R, Unwind, UserClass, type_error, value_error};
use super::machine::Machine;
use super::value::Value;
use crate::python::ir::CmpOp;

/// A builtin of the data model (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassBuiltin {
    Super,
    Property,
    /// `prop.setter`: bound to the property, called with the setter function.
    PropertySetter,
    StaticMethod,
    ClassMethod,
    Getattr,
    Setattr,
    Hasattr,
    Delattr,
    Vars,
    Hash,
    Dataclass,
    /// `dataclass(frozen=..., order=..., eq=...)` waiting for its class: options are the
    /// receiver of a bound method.
    DataclassWith,
    Field,
    DcInit,
    DcRepr,
    DcEq,
    DcHash,
    DcCompare(CmpOp),
    TotalOrdering,
    /// A comparison `total_ordering` derives: the operator and the class's root operator.
    Derived(CmpOp, CmpOp),
    NamedTupleFactory,
    NtAsdict,
    NtReplace,
    /// `object.__init__`, `object.__repr__`, ...
    Object(&'static &'static str),
    IsDataclass,
    Asdict,
    Astuple,
    Replace,
    /// A method of `enum.IntEnum` (see `int_enum.rs`).
    IntEnumOp(super::int_enum::IntEnumOp),
    /// A method of `enum.Flag` / `enum.IntFlag` (see `flag_enum.rs`).
    FlagOp(super::flag_enum::FlagOp),
    /// `dataclasses.fields(class_or_instance)`.
    Fields,
    /// `enum.unique(enum_class)`.
    Unique,
    /// `NamedTuple._make(iterable)`: a class method.
    NtMake,
    /// `dataclasses.Field.type`'s getter (see `dataclass_fns.rs`).
    FieldType,
}

const NAMES: &[(&str, ClassBuiltin)] = &[
    ("super", ClassBuiltin::Super),
    ("property", ClassBuiltin::Property),
    ("staticmethod", ClassBuiltin::StaticMethod),
    ("classmethod", ClassBuiltin::ClassMethod),
    ("getattr", ClassBuiltin::Getattr),
    ("setattr", ClassBuiltin::Setattr),
    ("hasattr", ClassBuiltin::Hasattr),
    ("delattr", ClassBuiltin::Delattr),
    ("vars", ClassBuiltin::Vars),
    ("hash", ClassBuiltin::Hash),
];

const OBJECT_METHODS: &[&str] = &[
    "__init__",
    "__repr__",
    "__str__",
    "__eq__",
    "__ne__",
    "__hash__",
    "__setattr__",
    "__new__",
    "__init_subclass__",
];

impl ClassBuiltin {
    pub fn name(self) -> &'static str {
        match self {
            ClassBuiltin::DataclassWith => "wrap",
            ClassBuiltin::PropertySetter => "setter",
            ClassBuiltin::Dataclass => "dataclass",
            ClassBuiltin::Field => "field",
            ClassBuiltin::DcInit => "__init__",
            ClassBuiltin::DcRepr => "__repr__",
            ClassBuiltin::DcEq => "__eq__",
            ClassBuiltin::DcHash => "__hash__",
            ClassBuiltin::DcCompare(_) | ClassBuiltin::Derived(..) => "compare",
            ClassBuiltin::TotalOrdering => "total_ordering",
            ClassBuiltin::NamedTupleFactory => "namedtuple",
            ClassBuiltin::NtAsdict => "_asdict",
            ClassBuiltin::NtReplace => "_replace",
            ClassBuiltin::IsDataclass => "is_dataclass",
            ClassBuiltin::Asdict => "asdict",
            ClassBuiltin::Astuple => "astuple",
            ClassBuiltin::Replace => "replace",
            ClassBuiltin::IntEnumOp(op) => *op.0,
            ClassBuiltin::FlagOp(op) => *op.0,
            ClassBuiltin::Fields => "fields",
            ClassBuiltin::Unique => "unique",
            ClassBuiltin::NtMake => "_make",
            ClassBuiltin::FieldType => "type",
            ClassBuiltin::Object(n) => *n,
            b => NAMES.iter().find(|(_, x)| *x == b).map_or("?", |(n, _)| n),
        }
    }
}

/// Whether `v` is a method generated for a class (`@dataclass`, named tuples,
/// `total_ordering`, `object`'s): bound to instances like a function.
pub(crate) fn is_generated_method(v: &Value) -> bool {
    use ClassBuiltin as C;
    matches!(
        v,
        Value::Builtin(Builtin::Class(
            C::DcInit
                | C::DcRepr
                | C::DcEq
                | C::DcHash
                | C::DcCompare(_)
                | C::Derived(..)
                | C::NtAsdict
                | C::NtReplace
                | C::Object(_)
                | C::IntEnumOp(_)
                | C::FlagOp(_)
        ))
    )
}

/// The builtin named `name` among the data model's.
pub(crate) fn builtin_named(name: &str) -> Option<Value> {
    if name == "NotImplemented" {
        return Some(Value::NotImplemented);
    }
    NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| Value::Builtin(Builtin::Class(*b)))
}

impl Builtin {
    /// `object.name` for the methods every instance has.
    pub fn object_method(name: &str) -> Option<Builtin> {
        OBJECT_METHODS
            .iter()
            .find(|n| **n == name)
            .map(|n| Builtin::Class(ClassBuiltin::Object(n)))
    }
}

thread_local! {
    static LIBRARY: Library = Library::new();
}

/// The library classes, one per interpreter thread (so `isinstance` works across cells).
struct Library {
    enum_class: Rc<Class>,
    int_enum: Rc<Class>,
    flag: Rc<Class>,
    int_flag: Rc<Class>,
    str_enum: Rc<Class>,
    /// `enum.EnumType`, what `type()` of an enum class gives (not callable here).
    enum_type: Rc<Class>,
    named_tuple: Rc<Class>,
    field: Rc<Class>,
    frozen_error: Rc<UserClass>,
    object: Rc<Class>,
    /// `enum.auto`: its instances stand for the next member value.
    auto: Rc<Class>,
    /// `dataclasses.MISSING`.
    missing: Value,
}

impl Library {
    fn new() -> Library {
        let class = |name: &str, flavor, module: &str| {
            let mut c = Class::new(name.into(), name.into(), Vec::new(), Vec::new(), flavor)
                .unwrap_or_else(|_| unreachable_class());
            c.module = module.into();
            Rc::new(c)
        };
        let enum_class = class("Enum", Flavor::Enum, "enum");
        let derived = |name: &str, base: &Rc<Class>, attrs, flavor| {
            library_class(name, "enum", vec![base.clone()], attrs, flavor)
        };
        let int_enum = derived(
            "IntEnum",
            &enum_class,
            super::int_enum::namespace(false),
            Flavor::IntEnum,
        );
        let flag = derived(
            "Flag",
            &enum_class,
            super::flag_enum::namespace(),
            Flavor::Flag,
        );
        let mut int_flag_attrs = super::int_enum::namespace(false);
        for (k, v) in super::flag_enum::namespace() {
            super::class::set_attr(&mut int_flag_attrs, &k, v);
        }
        let int_flag = derived("IntFlag", &flag, int_flag_attrs, Flavor::IntFlag);
        let str_enum = derived(
            "StrEnum",
            &enum_class,
            super::int_enum::namespace(true),
            Flavor::StrEnum,
        );
        let refused = Value::Builtin(Builtin::Refused(&"calling enum.EnumType"));
        let enum_type = library_class(
            "EnumType",
            "enum",
            Vec::new(),
            vec![("__new__".into(), refused)],
            Flavor::Plain,
        );
        Library {
            enum_class,
            int_enum,
            flag,
            int_flag,
            str_enum,
            enum_type,
            named_tuple: class("NamedTuple", Flavor::NamedTuple, "typing"),
            field: field_class(),
            object: class("object", Flavor::Plain, "builtins"),
            auto: auto_class(),
            missing: Value::Instance(Rc::new(Instance::new(class(
                "_MISSING_TYPE",
                Flavor::Plain,
                "dataclasses",
            )))),
            frozen_error: Rc::new(UserClass::plain(
                "FrozenInstanceError".into(),
                ExcClass::Builtin(ExcKind::AttributeError),
            )),
        }
    }
}

/// `enum.auto`. Its values are resolved when the class is made, so combining them in the
/// body (`ALL = A | B`, resolved at assignment in CPython) is refused.
fn auto_class() -> Rc<Class> {
    let refused = Value::Builtin(Builtin::Refused(
        &"combining enum.auto() values in the class body",
    ));
    let ops = [
        "__or__", "__ror__", "__and__", "__rand__", "__xor__", "__rxor__", "__add__",
    ];
    let attrs = ops
        .iter()
        .map(|n| (Rc::from(*n), refused.clone()))
        .collect();
    library_class("auto", "enum", Vec::new(), attrs, Flavor::Plain)
}

/// A library class `module.name`.
fn library_class(
    name: &str,
    module: &str,
    bases: Vec<Rc<Class>>,
    attrs: Vec<(Rc<str>, Value)>,
    flavor: Flavor,
) -> Rc<Class> {
    match Class::new(name.into(), name.into(), bases, attrs, flavor) {
        Ok(mut c) => {
            c.module = module.into();
            Rc::new(c)
        }
        Err(_) => Rc::new(unreachable_class()),
    }
}

/// `dataclasses.Field`: `type` is the evaluated annotation, refused where the interpreter
/// does not evaluate it.
fn field_class() -> Rc<Class> {
    let refused = Value::Descriptor(Rc::new(Descriptor::Property {
        fget: Value::Builtin(Builtin::Class(ClassBuiltin::FieldType)),
        fset: None,
    }));
    let attrs = vec![(Rc::from("type"), refused)];
    let mut c = Class::new(
        "Field".into(),
        "Field".into(),
        Vec::new(),
        attrs,
        Flavor::Plain,
    )
    .unwrap_or_else(|_| unreachable_class());
    c.module = "dataclasses".into();
    Rc::new(c)
}

/// Whether `c` is a hidden base (the abc module's stand-in for `metaclass=ABCMeta`), which
/// `__bases__` and `__mro__` leave out.
pub(crate) fn is_hidden_base(c: &Class) -> bool {
    c.own("__hidden_base__").is_some()
}

/// `enum.EnumType`.
pub(crate) fn enum_type() -> Value {
    Value::Class(LIBRARY.with(|l| l.enum_type.clone()))
}

/// The metaclass CPython gives class `v`, when it is not `type`: `enum.EnumType` for an
/// enum class, `abc.ABCMeta` (the abc prelude's, named by `__abc_meta__` on its `ABC` and
/// hidden base) for a class deriving from them.
pub(crate) fn metaclass_of(v: &Value) -> Option<Value> {
    let Value::Class(c) = v else { return None };
    if c.is_enum() {
        return Some(enum_type());
    }
    let abc = std::iter::once(c).chain(c.mro.iter());
    abc.filter(|k| &*k.module == "abc")
        .find_map(|k| k.own("__abc_meta__"))
}

/// `isinstance(x, cls)` when `cls` is a metaclass the interpreter names (`EnumType`,
/// `ABCMeta`): whether `x` is a class with that metaclass.
pub(crate) fn metaclass_check(x: &Value, cls: &Value) -> Option<bool> {
    let Value::Class(m) = cls else { return None };
    let named = (&*m.module, &*m.name);
    if named != ("abc", "ABCMeta") && named != ("enum", "EnumType") {
        return None;
    }
    Some(matches!(metaclass_of(x), Some(Value::Class(k)) if Rc::ptr_eq(&k, m)))
}

/// Why `issubclass(x, cls)` is refused: `cls` is a metaclass (`ABCMeta`, `EnumType`).
pub(crate) fn metaclass_check_refusal(cls: &Value) -> Option<String> {
    match cls {
        Value::Class(c)
            if (&*c.module, &*c.name) == ("abc", "ABCMeta")
                || (&*c.module, &*c.name) == ("enum", "EnumType") =>
        {
            Some(format!("issubclass with {}.{}", c.module, c.name))
        }
        _ => None,
    }
}

/// `object()`: a featureless instance (sentinels).
pub(crate) fn plain_object(args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
    if !args.is_empty() || !kwargs.is_empty() {
        return type_error("object() takes no arguments");
    }
    let class = LIBRARY.with(|l| l.object.clone());
    Ok(Value::Instance(Rc::new(Instance::new(class))))
}

/// `dataclasses.MISSING`.
pub(crate) fn missing() -> Value {
    LIBRARY.with(|l| l.missing.clone())
}

/// A new `dataclasses.Field` object with the given attributes.
pub(crate) fn field_object(attrs: Vec<(Rc<str>, Value)>) -> Value {
    let field = Instance::new(LIBRARY.with(|l| l.field.clone()));
    *field.attrs.borrow_mut() = attrs;
    Value::Instance(Rc::new(field))
}

/// A class without bases always has an MRO.
fn unreachable_class() -> Class {
    Class {
        name: "?".into(),
        qualname: "?".into(),
        module: "?".into(),
        bases: Vec::new(),
        mro: Vec::new(),
        attrs: Default::default(),
        flavor: Flavor::Plain,
        frozen: Default::default(),
        members: Default::default(),
        flag_values: Default::default(),
        fields: Default::default(),
        field_types: Default::default(),
        has_property: Default::default(),
        special: Default::default(),
        slots: None,
    }
}

/// `dataclasses.FrozenInstanceError: cannot assign to field 'x'`.
pub(crate) fn frozen_error(name: &str) -> Unwind {
    frozen(format!("cannot assign to field '{name}'"))
}

/// `dataclasses.FrozenInstanceError: cannot delete field 'x'`.
pub(crate) fn frozen_delete_error(name: &str) -> Unwind {
    frozen(format!("cannot delete field '{name}'"))
}

fn frozen(message: String) -> Unwind {
    let class = LIBRARY.with(|l| l.frozen_error.clone());
    Unwind::from_object(super::exc::ExcObject::new(
        ExcClass::User(class),
        vec![Value::str(message)],
    ))
}

/// The class-based library modules (`functools` and `collections` only with
/// `total_ordering` and `namedtuple`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassModule {
    Dataclasses,
    Enum,
    Functools,
    Collections,
}

impl ClassModule {
    pub fn named(name: &str) -> Option<ClassModule> {
        Some(match name {
            "dataclasses" => ClassModule::Dataclasses,
            "enum" => ClassModule::Enum,
            "functools" => ClassModule::Functools,
            "collections" => ClassModule::Collections,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ClassModule::Dataclasses => "dataclasses",
            ClassModule::Enum => "enum",
            ClassModule::Functools => "functools",
            ClassModule::Collections => "collections",
        }
    }

    pub fn repr(self) -> &'static str {
        match self {
            ClassModule::Dataclasses => "<module 'dataclasses'>",
            ClassModule::Enum => "<module 'enum'>",
            ClassModule::Functools => "<module 'functools'>",
            ClassModule::Collections => "<module 'collections'>",
        }
    }
}

/// A name of a library module this part provides (`dataclasses`, `enum`, and
/// `typing.NamedTuple`, `collections.namedtuple`, `functools.total_ordering`).
pub(crate) fn module_attr(module: &str, name: &str) -> Option<Value> {
    let b = |c| Some(Value::Builtin(Builtin::Class(c)));
    match (module, name) {
        ("dataclasses", "dataclass") => b(ClassBuiltin::Dataclass),
        ("dataclasses", "field") => b(ClassBuiltin::Field),
        ("dataclasses", "is_dataclass") => b(ClassBuiltin::IsDataclass),
        ("dataclasses", "asdict") => b(ClassBuiltin::Asdict),
        ("dataclasses", "astuple") => b(ClassBuiltin::Astuple),
        ("dataclasses", "replace") => b(ClassBuiltin::Replace),
        ("dataclasses", "FrozenInstanceError") => {
            Some(Value::UserExcType(LIBRARY.with(|l| l.frozen_error.clone())))
        }
        ("enum", "Enum") => Some(Value::Class(LIBRARY.with(|l| l.enum_class.clone()))),
        ("enum", "IntEnum") => Some(Value::Class(LIBRARY.with(|l| l.int_enum.clone()))),
        ("enum", "Flag") => Some(Value::Class(LIBRARY.with(|l| l.flag.clone()))),
        ("enum", "IntFlag") => Some(Value::Class(LIBRARY.with(|l| l.int_flag.clone()))),
        ("enum", "StrEnum") => Some(Value::Class(LIBRARY.with(|l| l.str_enum.clone()))),
        ("enum", "EnumType" | "EnumMeta") => Some(enum_type()),
        ("dataclasses", "fields") => b(ClassBuiltin::Fields),
        ("dataclasses", "MISSING") => Some(missing()),
        ("dataclasses", "Field") => Some(Value::Class(LIBRARY.with(|l| l.field.clone()))),
        ("enum", "unique") => b(ClassBuiltin::Unique),
        ("enum", "auto") => Some(Value::Class(LIBRARY.with(|l| l.auto.clone()))),
        ("typing", "NamedTuple") => Some(Value::Class(LIBRARY.with(|l| l.named_tuple.clone()))),
        ("collections", "namedtuple") => b(ClassBuiltin::NamedTupleFactory),
        ("functools", "total_ordering") => b(ClassBuiltin::TotalOrdering),
        _ => None,
    }
}

/// The `field()` options kept per field: a `False` one marks the class with `__no{flag}_{f}`.
const FIELD_FLAGS: [&str; 3] = ["init", "repr", "compare"];

/// Whether field `f` of `c` has option `flag` (`init`, `repr`, `compare`) on.
pub(crate) fn field_has(c: &Class, flag: &str, f: &str) -> bool {
    c.lookup(&format!("__no{flag}_{f}")).is_none()
}

/// The field names of a dataclass or named tuple, bases' fields first (`InitVar`s left
/// out).
pub(crate) fn fields_of(c: &Rc<Class>) -> Vec<Rc<str>> {
    let mut out = init_fields_of(c);
    out.retain(|f| !super::dataclass_fns::is_initvar(c, f));
    out
}

/// The field names of a dataclass with its `InitVar`s, bases' first.
pub(crate) fn init_fields_of(c: &Rc<Class>) -> Vec<Rc<str>> {
    let mut out: Vec<Rc<str>> = Vec::new();
    for k in c.mro.iter().rev().chain(std::iter::once(c)) {
        if k.own("__dataclass_fields__").is_none() && !Rc::ptr_eq(k, c) {
            continue;
        }
        for f in k.fields.borrow().iter() {
            if !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
    out
}

/// Binds `args`/`kwargs` to `fields` (the first `n_positional` positional, the rest
/// keyword-only) as a generated `__init__`/`__new__` does, with CPython's messages (`qual`
/// is `D.__init__`; counts include `self`).
fn bind_fields(
    qual: &str,
    fields: &[Rc<str>],
    n_positional: usize,
    defaults: &[Option<Value>],
    args: Vec<Value>,
    kwargs: Kwargs,
) -> R<Vec<Option<Value>>> {
    let n = fields.len();
    let given = args.len();
    let mut values: Vec<Option<Value>> = args.into_iter().take(n_positional).map(Some).collect();
    values.resize(n, None);
    for (k, v) in kwargs {
        match fields.iter().position(|f| *f == k) {
            Some(i) if values[i].is_some() => {
                return type_error(format!("{qual}() got multiple values for argument '{k}'"));
            }
            Some(i) => values[i] = Some(v),
            None => {
                return type_error(format!("{qual}() got an unexpected keyword argument '{k}'"));
            }
        }
    }
    if given > n_positional {
        let with_default = defaults[..n_positional]
            .iter()
            .filter(|d| d.is_some())
            .count();
        let kwonly_given = values[n_positional..]
            .iter()
            .filter(|v| v.is_some())
            .count();
        return Err(super::call::too_many_positional(
            qual,
            n_positional + 1,
            with_default,
            given + 1,
            kwonly_given,
        ));
    }
    for (range, kind) in [
        (0..n_positional, "positional"),
        (n_positional..n, "keyword-only"),
    ] {
        let mut missing = Vec::new();
        for i in range {
            if values[i].is_none() {
                match &defaults[i] {
                    Some(d) => values[i] = Some(d.clone()),
                    None => missing.push(fields[i].clone()),
                }
            }
        }
        if !missing.is_empty() {
            return Err(super::call::missing_arguments(qual, kind, &missing));
        }
    }
    Ok(values)
}

fn class_of(v: &Value) -> Option<Rc<Class>> {
    match v {
        Value::Instance(i) => Some(i.class.clone()),
        _ => None,
    }
}

impl Machine {
    pub fn call_class_builtin(
        &mut self,
        b: ClassBuiltin,
        args: Vec<Value>,
        kwargs: Kwargs,
    ) -> R<Value> {
        use ClassBuiltin as C;
        let name = b.name();
        match b {
            C::IsDataclass => self.dc_is_dataclass(args, kwargs),
            C::Asdict => self.dc_convert(false, args, kwargs),
            C::Astuple => self.dc_convert(true, args, kwargs),
            C::Replace => self.dc_replace(args, kwargs),
            C::IntEnumOp(op) => {
                no_kwargs(name, &kwargs)?;
                self.call_int_enum_op(op, args)
            }
            C::FlagOp(op) => {
                no_kwargs(name, &kwargs)?;
                self.call_flag_op(op, args)
            }
            C::Unique => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                self.enum_unique(&args[0])?;
                Ok(args[0].clone())
            }
            C::Fields => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                self.dc_fields(&args[0])
            }
            C::NtMake => {
                no_kwargs(name, &kwargs)?;
                let (cls, rest) = receiver(args)?;
                arity("_make", &rest, 1, 1)?;
                let Value::Class(c) = &cls else {
                    return type_error("_make() needs a named-tuple class");
                };
                let values = self.collect(rest[0].clone())?;
                let fields = fields_of(c);
                if values.len() != fields.len() {
                    return type_error(format!(
                        "Expected {} arguments, got {}",
                        fields.len(),
                        values.len()
                    ));
                }
                Ok(self.named_tuple_instance(c, &fields, values))
            }
            C::Super => {
                no_kwargs(name, &kwargs)?;
                self.make_super(args)
            }
            C::Property => {
                let [fget_kw, fset_kw, _fdel, _doc] =
                    take_kwargs(name, kwargs, ["fget", "fset", "fdel", "doc"])?;
                arity(name, &args, 0, 4)?;
                let mut it = args.into_iter();
                let fget = it.next().or(fget_kw).unwrap_or(Value::None);
                let fset = it.next().or(fset_kw).filter(|v| !matches!(v, Value::None));
                Ok(Value::Descriptor(Rc::new(Descriptor::Property {
                    fget,
                    fset,
                })))
            }
            C::PropertySetter => {
                let (prop, rest) = receiver(args)?;
                let fget = match &prop {
                    Value::Descriptor(d) => match &**d {
                        Descriptor::Property { fget, .. } => fget.clone(),
                        _ => Value::None,
                    },
                    _ => Value::None,
                };
                let fset = rest.into_iter().next();
                Ok(Value::Descriptor(Rc::new(Descriptor::Property {
                    fget,
                    fset,
                })))
            }
            C::StaticMethod | C::ClassMethod => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                let f = args.into_iter().next().unwrap_or(Value::None);
                Ok(Value::Descriptor(Rc::new(if b == C::StaticMethod {
                    Descriptor::Static(f)
                } else {
                    Descriptor::ClassMethod(f)
                })))
            }
            C::Getattr => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 2, 3)?;
                let attr = attr_name("getattr", &args[1])?;
                match self.getattr(&args[0], &attr) {
                    Err(unwind)
                        if args.len() == 3
                            && unwind.raises(&ExcClass::Builtin(ExcKind::AttributeError)) =>
                    {
                        Ok(args[2].clone())
                    }
                    other => other,
                }
            }
            C::Hasattr => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 2, 2)?;
                let attr = attr_name("hasattr", &args[1])?;
                match self.getattr(&args[0], &attr) {
                    Ok(_) => Ok(Value::Bool(true)),
                    Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::AttributeError)) => {
                        Ok(Value::Bool(false))
                    }
                    Err(e) => Err(e),
                }
            }
            C::Setattr => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 3, 3)?;
                let attr = attr_name("setattr", &args[1])?;
                self.setattr(&args[0], &attr, args[2].clone())?;
                Ok(Value::None)
            }
            C::Delattr => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 2, 2)?;
                let attr = attr_name("delattr", &args[1])?;
                self.delattr(&args[0], &attr)?;
                Ok(Value::None)
            }
            C::Vars => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                match &args[0] {
                    Value::Instance(i) => Ok(self.instance_dict(&i.attrs.borrow())),
                    Value::Class(c) => Ok(self.class_dict(c)),
                    _ => type_error("vars() argument must have __dict__ attribute"),
                }
            }
            C::Hash => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                let key = self.hash_key(&args[0])?;
                Ok(Value::Int(hash_of_key(&key)))
            }
            C::Object(method) => self.object_builtin(method, args, kwargs),
            C::Dataclass => {
                refuse_options("dataclass", &kwargs, DATACLASS_REFUSED)?;
                if args.is_empty() {
                    let [init, repr, eq, order, frozen, kw_only] = take_kwargs(
                        name,
                        kwargs,
                        ["init", "repr", "eq", "order", "frozen", "kw_only"],
                    )?;
                    let flag = |v: Option<Value>, d: bool| {
                        Value::Bool(v.map_or(d, |v| super::ops::truthy(&v)))
                    };
                    let opts = Value::tuple(vec![
                        flag(init, true),
                        flag(repr, true),
                        flag(eq, true),
                        flag(order, false),
                        flag(frozen, false),
                        flag(kw_only, false),
                    ]);
                    return Ok(Value::Bound(Rc::new(super::class::Bound {
                        func: Value::Builtin(Builtin::Class(C::DataclassWith)),
                        receiver: opts,
                    })));
                }
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                self.make_dataclass(&args[0], [true, true, true, false, false, false])
            }
            C::DataclassWith => {
                let [opts, cls] = <[Value; 2]>::try_from(args)
                    .map_err(|_| Unwind::new(ExcKind::TypeError, "wrap() takes 1 argument"))?;
                let Value::Tuple(o) = &opts else {
                    return type_error("bad dataclass options");
                };
                let mut flags = [true, true, true, false, false, false];
                for (i, f) in flags.iter_mut().enumerate() {
                    *f = matches!(o.get(i), Some(Value::Bool(true)));
                }
                self.make_dataclass(&cls, flags)
            }
            C::Field => {
                arity(name, &args, 0, 0).map_err(|_| {
                    Unwind::new(ExcKind::TypeError, "field() takes 0 positional arguments")
                })?;
                let [
                    default,
                    factory,
                    repr,
                    compare,
                    init,
                    hash,
                    metadata,
                    kw_only,
                ] = take_kwargs(
                    name,
                    kwargs,
                    [
                        "default",
                        "default_factory",
                        "repr",
                        "compare",
                        "init",
                        "hash",
                        "metadata",
                        "kw_only",
                    ],
                )?;
                if default.is_some() && factory.is_some() {
                    return value_error("cannot specify both default and default_factory");
                }
                let field = Rc::new(Instance::new(LIBRARY.with(|l| l.field.clone())));
                for (flag, v) in [("repr", repr), ("compare", compare), ("init", init)] {
                    let on = v.as_ref().is_none_or(super::ops::truthy);
                    super::class::set_attr(&mut field.attrs.borrow_mut(), flag, Value::Bool(on));
                }
                if let Some(d) = default {
                    super::class::set_attr(&mut field.attrs.borrow_mut(), "default", d);
                }
                if let Some(f) = factory {
                    super::class::set_attr(&mut field.attrs.borrow_mut(), "default_factory", f);
                }
                let metadata = super::dataclass_fns::metadata_proxy(metadata)?;
                let kw_only = match kw_only {
                    None => None,
                    Some(v) => Some(Value::Bool(self.truth(&v)?)),
                };
                let hash = Some(hash.unwrap_or(Value::None));
                for (n, v) in [
                    ("hash", hash),
                    ("metadata", Some(metadata)),
                    ("kw_only", kw_only),
                ] {
                    if let Some(v) = v {
                        super::class::set_attr(&mut field.attrs.borrow_mut(), n, v);
                    }
                }
                Ok(Value::Instance(field))
            }
            C::DcInit => self.dataclass_init(args, kwargs),
            C::FieldType => {
                let (this, _) = receiver(args)?;
                super::dataclass_fns::field_type(&this)
            }
            C::DcRepr => {
                let (this, _) = receiver(args)?;
                let class = class_of(&this)
                    .ok_or_else(|| Unwind::new(ExcKind::TypeError, "not a dataclass"))?;
                let mut parts = Vec::new();
                for f in fields_of(&class) {
                    if !field_has(&class, "repr", &f) {
                        continue;
                    }
                    let v = self.getattr(&this, &f)?;
                    parts.push(format!("{f}={}", self.repr_of(&v)?));
                }
                Ok(Value::str(format!(
                    "{}({})",
                    class.qualname,
                    parts.join(", ")
                )))
            }
            C::DcEq | C::DcCompare(_) => {
                let (this, rest) = receiver(args)?;
                let other = rest.into_iter().next().unwrap_or(Value::None);
                let (Some(a), Some(bc)) = (class_of(&this), class_of(&other)) else {
                    return Ok(Value::NotImplemented);
                };
                if !Rc::ptr_eq(&a, &bc) {
                    return Ok(Value::NotImplemented);
                }
                let x = self.field_tuple(&this)?;
                let y = self.field_tuple(&other)?;
                let op = match b {
                    C::DcCompare(op) => op,
                    _ => CmpOp::Eq,
                };
                self.compare(op, &x, &y).map(Value::Bool)
            }
            C::DcHash => {
                let (this, _) = receiver(args)?;
                let t = self.hash_tuple(&this)?;
                let key = self.hash_key(&t)?;
                Ok(Value::Int(hash_of_key(&key)))
            }
            C::TotalOrdering => {
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                self.total_ordering(&args[0])?;
                Ok(args[0].clone())
            }
            C::Derived(op, root) => {
                let (a, rest) = receiver(args)?;
                let b = rest.into_iter().next().unwrap_or(Value::None);
                self.derived_compare(op, root, &a, &b)
            }
            C::NamedTupleFactory => self.namedtuple_factory(args, kwargs),
            C::NtAsdict => {
                let (this, _) = receiver(args)?;
                let class = class_of(&this)
                    .ok_or_else(|| Unwind::new(ExcKind::TypeError, "not a named tuple"))?;
                let mut d = super::dict::Dict::default();
                for f in fields_of(&class) {
                    let v = self.getattr(&this, &f)?;
                    let k = Value::str(&*f);
                    d.insert(super::dict::key_of(&k)?, k, v);
                }
                Ok(Value::Dict(Rc::new(std::cell::RefCell::new(d))))
            }
            C::NtReplace => {
                let (this, _) = receiver(args)?;
                let class = class_of(&this)
                    .ok_or_else(|| Unwind::new(ExcKind::TypeError, "not a named tuple"))?;
                let fields = fields_of(&class);
                let mut values = Vec::new();
                for f in &fields {
                    values.push(self.getattr(&this, f)?);
                }
                for (k, v) in kwargs {
                    match fields.iter().position(|f| *f == k) {
                        Some(i) => values[i] = v,
                        None => {
                            return value_error(format!("Got unexpected field names: ['{k}']"));
                        }
                    }
                }
                Ok(self.named_tuple_instance(&class, &fields, values))
            }
        }
    }

    /// `object.__init__(self)`, `object.__repr__(self)`, ...
    fn object_builtin(&mut self, method: &str, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        if method == "__new__" {
            return object_new(args, &kwargs);
        }
        let (this, rest) = receiver(args)?;
        match method {
            "__init_subclass__" => match (&this, kwargs.is_empty()) {
                (_, true) => Ok(Value::None),
                (Value::Class(c), false) => type_error(format!(
                    "{}.__init_subclass__() takes no keyword arguments",
                    c.name
                )),
                _ => type_error("__init_subclass__() takes no keyword arguments"),
            },
            "__init__" => Ok(Value::None),
            "__repr__" => match &this {
                Value::Instance(i) => Ok(Value::str(super::dunder::default_repr(i))),
                other => self.repr_of(other).map(Value::str),
            },
            "__str__" => self.repr_of(&this).map(Value::str),
            "__eq__" => Ok(match rest.first() {
                Some(o) if super::ops::is(&this, o) => Value::Bool(true),
                _ => Value::NotImplemented,
            }),
            "__ne__" => Ok(match rest.first() {
                Some(o) if super::ops::is(&this, o) => Value::Bool(false),
                _ => Value::NotImplemented,
            }),
            "__hash__" => match &this {
                Value::Instance(i) => Ok(Value::Int(
                    (Rc::as_ptr(i) as *const () as usize >> 4) as i64,
                )),
                other => {
                    let key = self.hash_key(other)?;
                    Ok(Value::Int(hash_of_key(&key)))
                }
            },
            "__setattr__" => {
                let [name, value] = <[Value; 2]>::try_from(rest).map_err(|_| {
                    Unwind::new(ExcKind::TypeError, "__setattr__ expected 2 arguments")
                })?;
                let name = attr_name("__setattr__", &name)?;
                self.raw_setattr(&this, &name, value)?;
                Ok(Value::None)
            }
            _ => Err(Unwind::unsupported(format!("object.{method}"))),
        }
    }

    /// The fields of a dataclass or named-tuple instance as a tuple.
    pub fn field_tuple(&mut self, v: &Value) -> R<Value> {
        let class =
            class_of(v).ok_or_else(|| Unwind::new(ExcKind::TypeError, "not a dataclass"))?;
        let mut items = Vec::new();
        for f in fields_of(&class) {
            if field_has(&class, "compare", &f) {
                items.push(self.getattr(v, &f)?);
            }
        }
        Ok(Value::tuple(items))
    }

    /// The fields a frozen dataclass hashes: `field(hash=...)`, else those it compares.
    fn hash_tuple(&mut self, v: &Value) -> R<Value> {
        let class =
            class_of(v).ok_or_else(|| Unwind::new(ExcKind::TypeError, "not a dataclass"))?;
        let mut items = Vec::new();
        for f in fields_of(&class) {
            let hashed = match class.lookup(&format!("__hash_{f}")) {
                Some(h) if !matches!(h, Value::None) => self.truth(&h)?,
                _ => field_has(&class, "compare", &f),
            };
            if hashed {
                items.push(self.getattr(v, &f)?);
            }
        }
        Ok(Value::tuple(items))
    }

    /// `@dataclass` with flags `[init, repr, eq, order, frozen, kw_only]`.
    fn make_dataclass(&mut self, cls: &Value, flags: [bool; 6]) -> R<Value> {
        let Value::Class(c) = cls else {
            return type_error(format!(
                "dataclass() should be called on a class, not {}",
                cls.type_name()
            ));
        };
        let [init, repr, eq, order, frozen, kw_only] = flags;
        if let Some(again) = c.own("__kw_only_again__") {
            return type_error(format!(
                "'{}' is KW_ONLY, but KW_ONLY has already been specified",
                self.str_of(&again)?
            ));
        }
        let own_fields = c.fields.borrow().clone();
        for f in &own_fields {
            // `field(kw_only=...)`, else after `_: KW_ONLY`, else the class's option.
            let explicit = match c.own(f) {
                Some(Value::Instance(i))
                    if Rc::ptr_eq(&i.class, &LIBRARY.with(|l| l.field.clone())) =>
                {
                    i.get("kw_only")
                }
                _ => None,
            };
            let marked = matches!(c.own(&format!("__kwonly_{f}")), Some(Value::Bool(true)));
            let kw = match explicit {
                Some(v) => matches!(v, Value::Bool(true)),
                None => marked || kw_only,
            };
            // Marked only when keyword-only, or to override a base's mark.
            if kw || super::dataclass_fns::is_kw_only(c, f) {
                c.set(&format!("__kwonly_{f}"), Value::Bool(kw));
            }
            let Some(v) = c.own(f) else { continue };
            if let Value::Instance(i) = &v {
                if Rc::ptr_eq(&i.class, &LIBRARY.with(|l| l.field.clone())) {
                    match i.get("default") {
                        Some(d) => c.set(f, d),
                        None => {
                            c.remove(f);
                        }
                    }
                    if let Some(factory) = i.get("default_factory") {
                        c.set(&format!("__factory_{f}"), factory);
                    }
                    // Kept when not the default (`None`, an empty mapping).
                    for kept in ["hash", "metadata"] {
                        match i.get(kept) {
                            None | Some(Value::None) => {}
                            Some(Value::Dict(d)) if d.borrow().len() == 0 => {}
                            Some(v) => c.set(&format!("__{kept}_{f}"), v),
                        }
                    }
                    for flag in FIELD_FLAGS {
                        if matches!(i.get(flag), Some(Value::Bool(false))) {
                            c.set(&format!("__no{flag}_{f}"), Value::Bool(true));
                        }
                    }
                    continue;
                }
            }
            if matches!(v, Value::List(_) | Value::Dict(_)) {
                return value_error(format!(
                    "mutable default <class '{}'> for field {f} is not allowed: use default_factory",
                    v.type_name()
                ));
            }
        }
        c.set(
            "__dataclass_fields__",
            Value::tuple(own_fields.iter().map(|f| Value::str(&**f)).collect()),
        );
        // The positional parameters of `__init__` (keyword-only ones follow them).
        let all: Vec<Rc<str>> = init_fields_of(c)
            .into_iter()
            .filter(|f| field_has(c, "init", f) && !super::dataclass_fns::is_kw_only(c, f))
            .collect();
        if init && c.own("__match_args__").is_none() {
            c.set(
                "__match_args__",
                Value::tuple(all.iter().map(|f| Value::str(&**f)).collect()),
            );
        }
        let mut seen_default = false;
        for f in &all {
            let has_default =
                c.lookup(f).is_some() || c.lookup(&format!("__factory_{f}")).is_some();
            if has_default {
                seen_default = true;
            } else if seen_default {
                return type_error(format!(
                    "non-default argument '{f}' follows default argument"
                ));
            }
        }
        let mk = |b| Value::Builtin(Builtin::Class(b));
        if init && c.own("__init__").is_none() {
            c.set("__init__", mk(ClassBuiltin::DcInit));
        }
        if repr && c.own("__repr__").is_none() {
            c.set("__repr__", mk(ClassBuiltin::DcRepr));
        }
        if eq && c.own("__eq__").is_none() {
            c.set("__eq__", mk(ClassBuiltin::DcEq));
        }
        if order {
            if !eq {
                return value_error("eq must be true if order is true");
            }
            for (n, op) in [
                ("__lt__", CmpOp::Lt),
                ("__le__", CmpOp::LtE),
                ("__gt__", CmpOp::Gt),
                ("__ge__", CmpOp::GtE),
            ] {
                if c.own(n).is_some() {
                    return type_error(format!(
                        "Cannot overwrite attribute {n} in class {}. Consider using functools.total_ordering",
                        c.name
                    ));
                }
                c.set(n, mk(ClassBuiltin::DcCompare(op)));
            }
        }
        if frozen {
            c.frozen.set(true);
        }
        if c.own("__hash__").is_none() || matches!(c.own("__hash__"), Some(Value::None)) {
            if eq && frozen {
                c.set("__hash__", mk(ClassBuiltin::DcHash));
            } else if eq {
                c.set("__hash__", Value::None);
            }
        }
        Ok(cls.clone())
    }

    fn dataclass_init(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        use super::dataclass_fns::{is_initvar, is_kw_only};
        let (this, rest) = receiver(args)?;
        let class =
            class_of(&this).ok_or_else(|| Unwind::new(ExcKind::TypeError, "not a dataclass"))?;
        let all = init_fields_of(&class);
        let init: Vec<&Rc<str>> = all
            .iter()
            .filter(|f| field_has(&class, "init", f))
            .collect();
        // Positional parameters first, then the keyword-only ones, as CPython's `__init__`.
        let mut params: Vec<Rc<str>> = Vec::with_capacity(init.len());
        params.extend(
            init.iter()
                .filter(|f| !is_kw_only(&class, f))
                .map(|f| (*f).clone()),
        );
        let n_positional = params.len();
        params.extend(
            init.iter()
                .filter(|f| is_kw_only(&class, f))
                .map(|f| (*f).clone()),
        );
        let mut defaults = Vec::with_capacity(params.len());
        for f in &params {
            defaults.push(match class.lookup(&format!("__factory_{f}")) {
                Some(_) => Some(Value::Ellipsis),
                None => class.lookup(f),
            });
        }
        let qual = format!("{}.__init__", class.qualname);
        let bound = bind_fields(&qual, &params, n_positional, &defaults, rest, kwargs)?;
        let mut bound: Vec<(Rc<str>, Option<Value>)> = params.into_iter().zip(bound).collect();
        // Every field in order: the bound value, or for an `init=False` field its default
        // (or factory's product); such a field without either is left unset. `InitVar`s go
        // to `__post_init__`, in order.
        let mut values = Vec::with_capacity(all.len());
        let mut initvars = Vec::new();
        for f in &all {
            let v = if field_has(&class, "init", f) {
                bound
                    .iter_mut()
                    .find(|(p, _)| p == f)
                    .and_then(|(_, v)| v.take())
            } else {
                class.lookup(f).or(Some(Value::Ellipsis))
            };
            let v = match (v, class.lookup(&format!("__factory_{f}"))) {
                (Some(Value::Ellipsis), Some(factory)) => {
                    Some(self.call(&factory, Vec::new(), Vec::new())?)
                }
                (Some(Value::Ellipsis), None) if !field_has(&class, "init", f) => None,
                (v, _) => v,
            };
            match v {
                Some(v) if is_initvar(&class, f) => initvars.push(v),
                Some(v) => values.push((f.clone(), v)),
                None => {}
            }
        }
        for (f, v) in &values {
            let (f, v) = (f, v.clone());
            if class.frozen.get() {
                self.raw_setattr(&this, f, v)?;
            } else {
                self.setattr(&this, f, v)?;
            }
        }
        if let Some(post) = class.lookup("__post_init__") {
            self.call_method_value(&post, this, initvars, Vec::new())?;
        }
        Ok(Value::None)
    }

    /// `@functools.total_ordering`.
    fn total_ordering(&mut self, cls: &Value) -> R<()> {
        let Value::Class(c) = cls else {
            return Err(Unwind::unsupported(
                "total_ordering on something other than a class",
            ));
        };
        let ops = [
            ("__lt__", CmpOp::Lt),
            ("__le__", CmpOp::LtE),
            ("__gt__", CmpOp::Gt),
            ("__ge__", CmpOp::GtE),
        ];
        let Some((_, root)) = ops.iter().find(|(n, _)| c.lookup(n).is_some()) else {
            return value_error("must define at least one ordering operation: < > <= >=");
        };
        for (n, op) in ops {
            if c.lookup(n).is_none() {
                c.set(
                    n,
                    Value::Builtin(Builtin::Class(ClassBuiltin::Derived(op, *root))),
                );
            }
        }
        Ok(())
    }

    fn derived_compare(&mut self, op: CmpOp, root: CmpOp, a: &Value, b: &Value) -> R<Value> {
        let root_name = match root {
            CmpOp::Lt => "__lt__",
            CmpOp::LtE => "__le__",
            CmpOp::Gt => "__gt__",
            _ => "__ge__",
        };
        let Some(r) = self.dunder(a, root_name, vec![b.clone()])? else {
            return Ok(Value::NotImplemented);
        };
        if matches!(r, Value::NotImplemented) {
            return Ok(r);
        }
        let r = self.truth(&r)?;
        let eq = |m: &mut Machine| m.values_eq(a, b);
        use CmpOp::*;
        let v = match (root, op) {
            (Lt, Gt) => !r && !eq(self)?,
            (Lt, LtE) => r || eq(self)?,
            (Lt, GtE) => !r,
            (LtE, GtE) => !r || eq(self)?,
            (LtE, Lt) => r && !eq(self)?,
            (LtE, Gt) => !r,
            (Gt, Lt) => !r && !eq(self)?,
            (Gt, GtE) => r || eq(self)?,
            (Gt, LtE) => !r,
            (GtE, LtE) => !r || eq(self)?,
            (GtE, Gt) => r && !eq(self)?,
            (GtE, Lt) => !r,
            _ => r,
        };
        Ok(Value::Bool(v))
    }

    /// Turns the plain attributes of a new enum class into its members.
    pub fn make_enum_members(&mut self, c: &Rc<Class>) -> R<()> {
        if c.own("__init__").is_some() || c.own("__new__").is_some() {
            return Err(Unwind::unsupported(format!(
                "the Enum class {} defining __init__ or __new__",
                c.name
            )));
        }
        let attrs = c.attrs.borrow().clone();
        let mut members: Vec<Value> = Vec::new();
        let auto = LIBRARY.with(|l| l.auto.clone());
        let mut last_values: Vec<Value> = Vec::new();
        for (name, value) in attrs {
            let dunder = name.starts_with('_');
            let callable = matches!(
                value,
                Value::Function(_) | Value::Descriptor(_) | Value::Builtin(_)
            );
            if dunder || callable {
                continue;
            }
            // `auto()`: CPython's `_generate_next_value_`, the last value that takes `+ 1`
            // (for flags the next power of two, for `StrEnum` the lower-cased name).
            let value = match &value {
                Value::Instance(i) if Rc::ptr_eq(&i.class, &auto) => {
                    self.auto_value(c, &name, &last_values)?
                }
                _ => value,
            };
            let int_flavor = matches!(c.flavor, Flavor::IntEnum | Flavor::IntFlag);
            if int_flavor && !matches!(value, Value::Int(_) | Value::Big(_)) {
                return Err(Unwind::unsupported(format!(
                    "the {} member {}.{name} whose value is not an int",
                    self.flavor_name(c),
                    c.name
                )));
            }
            if c.flavor == Flavor::StrEnum && !matches!(value, Value::Str(_)) {
                return type_error(format!("{} is not a string", self.repr_of(&value)?));
            }
            last_values.push(value.clone());
            let mut alias = None;
            for m in &members {
                if let Value::Instance(i) = m {
                    if let Some(v) = i.get("value") {
                        if self.values_eq(&v, &value)? {
                            alias = Some(m.clone());
                            break;
                        }
                    }
                }
            }
            let member = match alias {
                Some(m) => m,
                None => {
                    let inst = Instance::new(c.clone());
                    inst.attrs
                        .borrow_mut()
                        .push(("name".into(), Value::str(&*name)));
                    inst.attrs
                        .borrow_mut()
                        .push((super::names::intern("value"), value));
                    let m = Value::Instance(Rc::new(inst));
                    members.push(m.clone());
                    m
                }
            };
            c.set(&name, member);
        }
        if c.is_flag() {
            return self.make_flag_members(c, &members);
        }
        *c.members.borrow_mut() = members;
        Ok(())
    }

    /// The value `auto()` stands for: the class's own `_generate_next_value_(name, 1,
    /// count, last_values)` when it defines one, else CPython's: the lower-cased name for
    /// `StrEnum`, the next power of two for flags, otherwise the last value that takes `+ 1`.
    fn auto_value(&mut self, c: &Rc<Class>, name: &str, last_values: &[Value]) -> R<Value> {
        if let Some(f @ Value::Function(_)) = c.lookup("_generate_next_value_") {
            let count = Value::Int(last_values.len() as i64);
            let last = Value::list(last_values.to_vec());
            let args = vec![Value::str(name), Value::Int(1), count, last];
            return self.call(&f, args, Vec::new());
        }
        if c.flavor == Flavor::StrEnum {
            return Ok(Value::str(name.to_lowercase()));
        }
        if c.is_flag() {
            let mut high = 0i64;
            for v in last_values {
                match v {
                    Value::Int(n) if *n >= 0 => high = high.max(*n),
                    _ => {
                        return Err(Unwind::unsupported(format!(
                            "auto() after the Flag member value {}",
                            self.repr_of(v)?
                        )));
                    }
                }
            }
            return match (
                last_values.is_empty(),
                1i64.checked_shl(64 - high.leading_zeros()),
            ) {
                (true, _) => Ok(Value::Int(1)),
                (false, Some(p)) if p > 0 => Ok(Value::Int(p)),
                _ => Err(Unwind::unsupported("a Flag value wider than 62 bits")),
            };
        }
        let numeric = |v: &&Value| {
            matches!(
                v,
                Value::Int(_) | Value::Big(_) | Value::Float(_) | Value::Bool(_)
            )
        };
        match last_values.iter().rev().find(numeric) {
            Some(last) => super::ops::binary(crate::python::ir::BinOp::Add, last, &Value::Int(1)),
            None => Ok(Value::Int(1)),
        }
    }

    /// The library enum class `c` derives from (`IntEnum`, `Flag`, ...), for messages.
    fn flavor_name(&self, c: &Rc<Class>) -> Rc<str> {
        let library = std::iter::once(c).chain(c.mro.iter());
        library
            .filter(|k| &*k.module == "enum")
            .map(|k| k.name.clone())
            .next()
            .unwrap_or_else(|| c.name.clone())
    }

    /// `Color.__members__`: every member name (aliases too) to its member, in definition
    /// order, as a read-only `mappingproxy`.
    pub fn enum_members_proxy(&mut self, c: &Rc<Class>) -> Value {
        let mut d = super::dict::Dict::default();
        for k in c.mro.iter().rev().chain(std::iter::once(c)) {
            for (name, v) in k.attrs.borrow().iter() {
                let member = matches!(v, Value::Instance(i) if Rc::ptr_eq(&i.class, c));
                if member {
                    let key = Value::str(&**name);
                    if let Ok(hk) = super::dict::key_of(&key) {
                        d.insert(hk, key, v.clone());
                    }
                }
            }
        }
        d.flavor = Some(Rc::new(super::stdlib::Flavor::MappingProxy));
        Value::Dict(Rc::new(std::cell::RefCell::new(d)))
    }

    /// `enum.unique(c)`'s check: CPython's `ValueError` naming every alias and its member.
    fn enum_unique(&mut self, cls: &Value) -> R<()> {
        let Value::Class(c) = cls else {
            return Err(Unwind::unsupported(
                "enum.unique over a class that is not an Enum",
            ));
        };
        if !c.is_enum() {
            return Err(Unwind::unsupported(
                "enum.unique over a class that is not an Enum",
            ));
        }
        let mut aliases = Vec::new();
        for (alias, v) in c.attrs.borrow().iter() {
            if let Value::Instance(i) = v {
                if let (true, Some(Value::Str(n))) = (Rc::ptr_eq(&i.class, c), i.get("name")) {
                    if n.as_str() != &**alias {
                        aliases.push(format!("{alias} -> {}", n.as_str()));
                    }
                }
            }
        }
        if aliases.is_empty() {
            return Ok(());
        }
        value_error(format!(
            "duplicate values found in {}: {}",
            self.repr_of(cls)?,
            aliases.join(", ")
        ))
    }

    /// `Color(1)`: the member with that value.
    pub fn enum_lookup(&mut self, c: &Rc<Class>, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let functional = args.len() > 1 || kwargs.iter().any(|(k, _)| &**k == "names");
        if functional && c.members.borrow().is_empty() {
            return self.enum_functional(c, args, kwargs);
        }
        no_kwargs(&c.name, &kwargs)?;
        if c.members.borrow().is_empty() && c.mro.is_empty() {
            return Err(Unwind::unsupported("the functional API of Enum"));
        }
        arity(&c.name, &args, 1, 1)?;
        if c.is_flag() {
            return self.flag_lookup(c, &args[0]);
        }
        let members = c.members.borrow().clone();
        for m in &members {
            if let Value::Instance(i) = m {
                if let Some(v) = i.get("value") {
                    if self.values_eq(&v, &args[0])? {
                        return Ok(m.clone());
                    }
                }
            }
            if super::ops::is(m, &args[0]) {
                return Ok(m.clone());
            }
        }
        value_error(format!(
            "{} is not a valid {}",
            self.repr_of(&args[0])?,
            c.qualname
        ))
    }

    /// `Enum('Color', names)`: a new enum class deriving from `c`, whose members are named
    /// by a string (`'RED GREEN'`, commas allowed) or a sequence of names (valued `start`,
    /// `start + 1`, ...), a sequence of `(name, value)` pairs, or a dict.
    fn enum_functional(&mut self, c: &Rc<Class>, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [names_kw, start, module, qualname, ty, boundary] = take_kwargs(
            "__call__",
            kwargs,
            ["names", "start", "module", "qualname", "type", "boundary"],
        )?;
        if let Some(k) = [("module", &module), ("qualname", &qualname), ("type", &ty)]
            .iter()
            .chain([("boundary", &boundary)].iter())
            .find(|(_, v)| v.is_some())
        {
            return Err(Unwind::unsupported(format!(
                "the functional API of Enum with {}=",
                k.0
            )));
        }
        arity(&c.name, &args, 1, 2)?;
        let mut args = args.into_iter();
        let class_name = match args.next() {
            Some(Value::Str(s)) => s.as_str().to_string(),
            Some(other) => {
                return type_error(format!(
                    "type.__new__() argument 1 must be str, not {}",
                    other.type_name()
                ));
            }
            None => return type_error("the enum class needs a name"),
        };
        let Some(names) = args.next().or(names_kw) else {
            return type_error("the functional API of Enum needs names");
        };
        let start = start.unwrap_or(Value::Int(1));
        let items: Vec<Value> = match &names {
            Value::Str(s) => spelled_names(s.as_str()).map(Value::str).collect(),
            Value::Dict(d) => d
                .borrow()
                .iter()
                .map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()]))
                .collect(),
            other => self.collect(other.clone())?,
        };
        let mut attrs: Vec<(Rc<str>, Value)> = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let (name, value) = match item {
                Value::Str(s) => {
                    let offset = Value::Int(i as i64);
                    let v = super::ops::binary(crate::python::ir::BinOp::Add, &start, &offset)?;
                    (s, v)
                }
                other => {
                    let pair = self.collect(other)?;
                    match <[Value; 2]>::try_from(pair) {
                        Ok([Value::Str(s), v]) => (s, v),
                        _ => {
                            return Err(Unwind::unsupported(
                                "the functional API of Enum with names that are not strings or (name, value) pairs",
                            ));
                        }
                    }
                }
            };
            let name = super::names::intern(name.as_str());
            if attrs.iter().any(|(n, _)| *n == name) {
                return type_error(format!("'{name}' already defined as {}", {
                    let v = attrs
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| v.clone());
                    self.repr_of(&v.unwrap_or(Value::None))?
                }));
            }
            attrs.push((name, value));
        }
        let class = Rc::new(Class::new(
            class_name.as_str().into(),
            class_name.as_str().into(),
            vec![c.clone()],
            attrs,
            c.flavor,
        )?);
        self.make_enum_members(&class)?;
        Ok(Value::Class(class))
    }

    /// `Color['RED']`.
    pub fn enum_item(&mut self, c: &Rc<Class>, key: &Value) -> R<Value> {
        if let Value::Str(s) = key {
            if let Some(m @ Value::Instance(_)) = c.own(s.as_str()) {
                return Ok(m);
            }
        }
        Err(Unwind::from_object(super::exc::ExcObject::new(
            ExcClass::Builtin(ExcKind::KeyError),
            vec![key.clone()],
        )))
    }

    pub fn enum_repr(&mut self, i: &Instance) -> R<String> {
        let value = i.get("value").unwrap_or(Value::None);
        let name = i.get("name").unwrap_or(Value::None);
        // A flag pseudo-member without named bits (`Perm(0)`) has no name.
        if matches!(name, Value::None) && i.class.is_flag() {
            return Ok(format!("<{}: {}>", i.class.name, self.repr_of(&value)?));
        }
        Ok(format!(
            "<{}.{}: {}>",
            i.class.name,
            self.str_of(&name)?,
            self.repr_of(&value)?
        ))
    }

    pub fn enum_str(&mut self, i: &Instance) -> R<String> {
        let name = i.get("name").unwrap_or(Value::None);
        if matches!(name, Value::None) && i.class.is_flag() {
            let value = i.get("value").unwrap_or(Value::None);
            return Ok(format!("{}({})", i.class.name, self.repr_of(&value)?));
        }
        Ok(format!("{}.{}", i.class.name, self.str_of(&name)?))
    }

    /// Completes a `class P(NamedTuple)` statement.
    pub fn make_named_tuple(&mut self, c: &Rc<Class>) -> R<()> {
        let fields = c.fields.borrow().clone();
        let mut seen_default = false;
        for f in &fields {
            if c.own(f).is_some() {
                seen_default = true;
            } else if seen_default {
                return type_error(format!(
                    "Non-default namedtuple field {f} cannot follow default field"
                ));
            }
        }
        c.set("__dataclass_fields__", Value::None);
        c.set(
            "_fields",
            Value::tuple(fields.iter().map(|f| Value::str(&**f)).collect()),
        );
        c.set(
            "_asdict",
            Value::Builtin(Builtin::Class(ClassBuiltin::NtAsdict)),
        );
        c.set(
            "_replace",
            Value::Builtin(Builtin::Class(ClassBuiltin::NtReplace)),
        );
        c.set(
            "_make",
            Value::Descriptor(Rc::new(Descriptor::ClassMethod(Value::Builtin(
                Builtin::Class(ClassBuiltin::NtMake),
            )))),
        );
        let mut defaults = super::dict::Dict::default();
        for f in &fields {
            if let Some(v) = c.own(f) {
                let k = Value::str(&**f);
                defaults.insert(super::dict::key_of(&k)?, k, v);
            }
        }
        c.set(
            "_field_defaults",
            Value::Dict(Rc::new(std::cell::RefCell::new(defaults))),
        );
        Ok(())
    }

    /// `collections.namedtuple('P', 'x y')` or `namedtuple('P', ['x', 'y'])`.
    pub(crate) fn namedtuple_factory(&mut self, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        let [defaults] = take_kwargs("namedtuple", kwargs, ["defaults"])?;
        arity("namedtuple", &args, 2, 2)?;
        let Value::Str(name) = &args[0] else {
            return type_error("namedtuple() name must be a string");
        };
        let names: Vec<Rc<str>> = match &args[1] {
            Value::Str(s) => spelled_names(s.as_str()).map(Rc::from).collect(),
            other => {
                let items = self.collect(other.clone())?;
                let mut out = Vec::new();
                for i in items {
                    match i {
                        Value::Str(s) => out.push(Rc::from(s.as_str())),
                        _ => return type_error("Type names and field names must be strings"),
                    }
                }
                out
            }
        };
        let base = LIBRARY.with(|l| l.named_tuple.clone());
        let c = Rc::new(Class::new(
            name.as_str().into(),
            name.as_str().into(),
            vec![base],
            Vec::new(),
            Flavor::NamedTuple,
        )?);
        *c.fields.borrow_mut() = names.clone();
        if let Some(d) = defaults {
            let d = self.collect(d)?;
            if d.len() > names.len() {
                return type_error("Got more default values than field names");
            }
            for (f, v) in names[names.len() - d.len()..].iter().zip(d) {
                c.set(f, v);
            }
        }
        self.make_named_tuple(&c)?;
        Ok(Value::Class(c))
    }

    /// Calls a named-tuple class.
    pub fn named_tuple_new(&mut self, c: &Rc<Class>, args: Vec<Value>, kwargs: Kwargs) -> R<Value> {
        if c.fields.borrow().is_empty() && c.mro.is_empty() {
            return Err(Unwind::unsupported(
                "the functional form NamedTuple('P', [...])",
            ));
        }
        let fields = fields_of(c);
        let defaults: Vec<Option<Value>> = fields.iter().map(|f| c.lookup(f)).collect();
        let qual = format!("{}.__new__", c.name);
        let values = bind_fields(&qual, &fields, fields.len(), &defaults, args, kwargs)?;
        let values = values
            .into_iter()
            .map(|v| v.unwrap_or(Value::None))
            .collect();
        let obj = self.named_tuple_instance(c, &fields, values);
        if let Some(init) = c.own("__init__") {
            self.call_method_value(&init, obj.clone(), Vec::new(), Vec::new())?;
        }
        Ok(obj)
    }

    fn named_tuple_instance(&self, c: &Rc<Class>, fields: &[Rc<str>], values: Vec<Value>) -> Value {
        let inst = Instance::new(c.clone());
        for (f, v) in fields.iter().zip(values) {
            inst.attrs.borrow_mut().push((f.clone(), v));
        }
        Value::Instance(Rc::new(inst))
    }

    /// A named-tuple instance as its plain tuple (for indexing, iteration, comparison).
    pub fn as_tuple(&self, v: &Value) -> Option<Value> {
        let Value::Instance(i) = v else { return None };
        if !i.class.is_named_tuple() {
            return None;
        }
        let fields = fields_of(&i.class);
        Some(Value::tuple(
            fields
                .iter()
                .map(|f| i.get(f).unwrap_or(Value::None))
                .collect(),
        ))
    }
}

/// The receiver and the other arguments of a generated method.
/// `object.__new__(cls, *args, **kwargs)`: a new instance of a plain user class, with
/// CPython's checks and messages.
fn object_new(args: Vec<Value>, kwargs: &Kwargs) -> R<Value> {
    let Some(cls) = args.first() else {
        return type_error("object.__new__(): not enough arguments");
    };
    let c = match cls {
        Value::Class(c) => c,
        Value::Type(super::value::TypeKind::Object) => {
            return Err(Unwind::unsupported("object.__new__(object)"));
        }
        Value::Type(_) | Value::ExcType(_) | Value::UserExcType(_) => {
            let name = match cls {
                Value::Type(t) => t.name().to_string(),
                Value::ExcType(k) => k.name().to_string(),
                Value::UserExcType(u) => u.name.to_string(),
                _ => String::new(),
            };
            return type_error(format!(
                "object.__new__({name}) is not safe, use {name}.__new__()"
            ));
        }
        other => {
            return type_error(format!(
                "object.__new__(X): X is not a type object ({})",
                other.type_name()
            ));
        }
    };
    if c.flavor != Flavor::Plain {
        return Err(Unwind::unsupported(format!(
            "object.__new__ of the library-derived class {}",
            c.name
        )));
    }
    if args.len() > 1 || !kwargs.is_empty() {
        if c.defines("__new__") {
            return type_error(
                "object.__new__() takes exactly one argument (the type to instantiate)",
            );
        }
        if !c.defines("__init__") {
            return type_error(format!("{}() takes no arguments", c.name));
        }
    }
    Ok(Value::Instance(Rc::new(Instance::new(c.clone()))))
}

/// CPython 3.11's options of `dataclass()` and `field()` the interpreter does not model.
const DATACLASS_REFUSED: &[&str] = &["unsafe_hash", "match_args", "slots", "weakref_slot"];

/// Refuses by name a call `func(option=...)` passing one of `refused`.
fn refuse_options(func: &str, kwargs: &Kwargs, refused: &[&str]) -> R<()> {
    match kwargs.iter().find(|(k, _)| refused.contains(&&**k)) {
        Some((k, _)) => Err(Unwind::unsupported(format!("dataclasses.{func}({k}=...)"))),
        None => Ok(()),
    }
}

/// The names of `namedtuple('P', 'x, y')` and `Enum('E', 'A B')`: separated by commas or
/// whitespace.
fn spelled_names(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|n| !n.is_empty())
}

fn receiver(args: Vec<Value>) -> R<(Value, Vec<Value>)> {
    let mut it = args.into_iter();
    match it.next() {
        Some(this) => Ok((this, it.collect())),
        None => type_error("method needs an instance argument"),
    }
}

fn attr_name(func: &str, v: &Value) -> R<String> {
    match v {
        Value::Str(s) => Ok(s.as_str().to_string()),
        other => type_error(format!(
            "{func}(): attribute name must be string, not '{}'",
            other.type_name()
        )),
    }
}

const HASH_MODULUS: i64 = (1 << 61) - 1;

/// `hash()` of a key: CPython's values for ints and tuples of ints; other values hash
/// consistently within a run (CPython randomizes str hashes anyway).
pub(crate) fn hash_of_key(k: &Key) -> i64 {
    let h = match k {
        Key::Int(i) => {
            let r = i.rem_euclid(HASH_MODULUS);
            if *i < 0 && r != 0 {
                r - HASH_MODULUS
            } else {
                r
            }
        }
        Key::None => 0xFCA86420,
        Key::Hashed(h, _) => *h,
        Key::Tuple(items) => {
            const P1: u64 = 11400714785074694791;
            const P2: u64 = 14029467366897019727;
            const P5: u64 = 2870177450012600261;
            let mut acc = P5;
            for item in items {
                let lane = hash_of_key(item) as u64;
                acc = acc.wrapping_add(lane.wrapping_mul(P2));
                acc = acc.rotate_left(31);
                acc = acc.wrapping_mul(P1);
            }
            acc = acc.wrapping_add((items.len() as u64) ^ (P5 ^ 3527539));
            if acc == u64::MAX {
                return 1546275796;
            }
            acc as i64
        }
        other => {
            use std::hash::{Hash, Hasher};
            let mut s = crate::fxhash::FxHasher::default();
            other.hash(&mut s);
            (s.finish() >> 2) as i64
        }
    };
    if h == -1 { -2 } else { h }
}
