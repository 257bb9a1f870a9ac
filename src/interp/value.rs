//! Runtime values: Python objects of the supported types, shared by reference where Python
//! shares them (lists, dicts, functions), and their conversion to and from [`PyValue`].

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::ToPrimitive;

use super::builtins::Builtin;
use super::code::Code;
use super::dict::Dict;
use super::exc::{ExcKind, ExcObject, UserClass};
use super::iter::IterState;
use super::set::SetObj;
use crate::python::PyValue;

/// A variable of a closure, shared between the defining frame and the functions it creates.
pub(crate) type Cell = Rc<RefCell<Option<Value>>>;

/// A runtime value. `Int` holds every int that fits in an `i64`, `Big` only the others.
#[derive(Clone)]
pub(crate) enum Value {
    None,
    Ellipsis,
    Bool(bool),
    Int(i64),
    Big(Rc<BigInt>),
    Float(f64),
    Str(Rc<Str>),
    Tuple(Rc<Vec<Value>>),
    List(Rc<RefCell<Vec<Value>>>),
    Dict(Rc<RefCell<Dict>>),
    /// `d.keys()`, `d.values()`, `d.items()`.
    View(Rc<View>),
    Range(Rc<Range>),
    Function(Rc<Function>),
    Builtin(Builtin),
    /// A method of a builtin type bound to its receiver: `xs.append`.
    Method(Rc<Method>),
    /// A method of a builtin type taken from the type: `str.lower`.
    Unbound(Rc<Unbound>),
    Type(TypeKind),
    ExcType(ExcKind),
    UserExcType(Rc<UserClass>),
    Exception(Rc<ExcObject>),
    Iter(Rc<RefCell<IterState>>),
    Native(Native),
    /// A name imported from `typing` (only meaningful in annotations, which are not run).
    Opaque(Rc<String>),
    /// Something a cell may define or import but a program may not use: a class other than
    /// an exception class, a module the interpreter does not provide, an `async def`.
    /// Calling it, or taking its attributes or items, stops the run as unsupported.
    Unavailable(Rc<String>),
    /// A user class (`class Point: ...`), see `class.rs`.
    Class(Rc<super::class::Class>),
    /// An instance of a user class.
    Instance(Rc<super::class::Instance>),
    /// A function bound to its receiver (a method, or a classmethod bound to its class).
    Bound(Rc<super::class::Bound>),
    /// `staticmethod`, `classmethod` and `property` objects.
    Descriptor(Rc<super::class::Descriptor>),
    /// `super()`.
    Super(Rc<super::class::Super>),
    NotImplemented,
    /// A `set` or `frozenset` (by [`SetObj::frozen`]).
    Set(Rc<RefCell<SetObj>>),
    /// An object made by a standard-library module function (`functools.partial`, ...).
    Std(Rc<super::stdlib::StdObj>),
    /// A `bytes` object, see `bytes.rs`.
    Bytes(Rc<Vec<u8>>),
}

/// A str with its length in characters (strings index by character, stored as UTF-8).
pub(crate) struct Str {
    text: String,
    chars: usize,
}

/// `range(start, stop, step)` with bounds in `i64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}

/// A user function: its code, evaluated defaults and captured cells.
pub(crate) struct Function {
    pub code: Rc<Code>,
    /// Defaults of the last `defaults.len()` positional parameters.
    pub defaults: Vec<Value>,
    /// One per keyword-only parameter.
    pub kwdefaults: Vec<Option<Value>>,
    pub closure: Vec<Cell>,
    /// Attributes set on the function (`funcattr.rs`).
    pub attrs: std::cell::RefCell<Vec<(Rc<str>, Value)>>,
}

/// A builtin method bound to its receiver.
pub(crate) struct Method {
    pub receiver: Value,
    pub name: Rc<str>,
}

/// A method of a builtin type, not bound to an instance.
pub(crate) struct Unbound {
    pub owner: TypeKind,
    pub name: Rc<str>,
}

/// Which view of a dict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ViewKind {
    Keys,
    Values,
    Items,
}

/// A live view of a dict.
pub(crate) struct View {
    pub dict: Rc<RefCell<Dict>>,
    pub kind: ViewKind,
}

/// Objects of the few modules the interpreter provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Native {
    Sys,
    Math,
    Typing,
    Stdout,
    Stderr,
    /// A module of the class-based library (`dataclasses`, `enum`; `functools` and
    /// `collections` with only `total_ordering` and `namedtuple`), see `stdclass`.
    Classes(super::stdclass::ClassModule),
    /// A module of `interp::stdlib`.
    Std(super::stdlib::StdModule),
}

/// The builtin types (exception classes are separate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TypeKind {
    Object,
    NoneType,
    Ellipsis,
    Bool,
    Int,
    Float,
    Str,
    Tuple,
    List,
    Dict,
    DictKeys,
    DictValues,
    DictItems,
    /// Only as `type(C.__dict__)`: a class's `__dict__` is a read-only dict otherwise.
    MappingProxy,
    Range,
    Function,
    BuiltinFunction,
    Method,
    MethodDescriptor,
    Type,
    Module,
    TextIO,
    Enumerate,
    Zip,
    Map,
    Filter,
    Reversed,
    ListIterator,
    ListReverseIterator,
    TupleIterator,
    StrIterator,
    RangeIterator,
    DictKeyIterator,
    DictValueIterator,
    DictItemIterator,
    Generator,
    Set,
    FrozenSet,
    SetIterator,
    Bytes,
    BytesIterator,
    Slice,
}

impl TypeKind {
    pub fn name(self) -> &'static str {
        use TypeKind::*;
        match self {
            Object => "object",
            NoneType => "NoneType",
            Ellipsis => "ellipsis",
            Bool => "bool",
            Int => "int",
            Float => "float",
            Str => "str",
            Tuple => "tuple",
            List => "list",
            Dict => "dict",
            DictKeys => "dict_keys",
            DictValues => "dict_values",
            DictItems => "dict_items",
            MappingProxy => "mappingproxy",
            Range => "range",
            Function => "function",
            BuiltinFunction => "builtin_function_or_method",
            Method => "builtin_function_or_method",
            MethodDescriptor => "method_descriptor",
            Type => "type",
            Module => "module",
            TextIO => "_io.TextIOWrapper",
            Enumerate => "enumerate",
            Zip => "zip",
            Map => "map",
            Filter => "filter",
            Reversed => "reversed",
            ListIterator => "list_iterator",
            ListReverseIterator => "list_reverseiterator",
            TupleIterator => "tuple_iterator",
            StrIterator => "str_ascii_iterator",
            RangeIterator => "range_iterator",
            DictKeyIterator => "dict_keyiterator",
            DictValueIterator => "dict_valueiterator",
            DictItemIterator => "dict_itemiterator",
            Generator => "generator",
            Set => "set",
            FrozenSet => "frozenset",
            SetIterator => "set_iterator",
            Bytes => "bytes",
            BytesIterator => "bytes_iterator",
            Slice => "slice",
        }
    }

    /// The type's name as a builtin, for the types a program can name.
    pub fn from_builtin_name(name: &str) -> Option<TypeKind> {
        use TypeKind::*;
        Some(match name {
            "object" => Object,
            "bool" => Bool,
            "int" => Int,
            "float" => Float,
            "str" => Str,
            "tuple" => Tuple,
            "list" => List,
            "dict" => Dict,
            "range" => Range,
            "type" => Type,
            "enumerate" => Enumerate,
            "zip" => Zip,
            "map" => Map,
            "filter" => Filter,
            "reversed" => Reversed,
            "set" => Set,
            "frozenset" => FrozenSet,
            "bytes" => Bytes,
            "slice" => Slice,
            _ => return None,
        })
    }

    /// Whether every instance of `self` is an instance of `other`.
    pub fn is_subtype_of(self, other: TypeKind) -> bool {
        self == other
            || other == TypeKind::Object
            || (self == TypeKind::Bool && other == TypeKind::Int)
    }
}

impl Str {
    pub fn new(text: String) -> Str {
        let chars = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        Str { text, chars }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Length in characters.
    pub fn len(&self) -> usize {
        self.chars
    }

    pub fn is_ascii(&self) -> bool {
        self.chars == self.text.len()
    }

    /// The character at character index `i` (< `len()`).
    pub fn char_at(&self, i: usize) -> Option<char> {
        if self.is_ascii() {
            self.text.as_bytes().get(i).map(|b| *b as char)
        } else {
            self.text.chars().nth(i)
        }
    }

    pub fn push_str(&mut self, more: &str) {
        self.chars += if more.is_ascii() {
            more.len()
        } else {
            more.chars().count()
        };
        self.text.push_str(more);
    }

    /// The characters, indexable (for slicing non-ASCII text).
    pub fn chars_vec(&self) -> Vec<char> {
        self.text.chars().collect()
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        self.text == other.text
    }
}
impl Eq for Str {}
impl std::hash::Hash for Str {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl Range {
    /// The number of elements (as i128: `range(-2**63, 2**63 - 1)` has more than `i64::MAX`).
    pub fn len(&self) -> i128 {
        let (start, stop, step) = (self.start as i128, self.stop as i128, self.step as i128);
        if step > 0 && start < stop {
            (stop - start - 1) / step + 1
        } else if step < 0 && start > stop {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        }
    }

    /// Element `i` (0 ≤ i < len).
    pub fn at(&self, i: i128) -> i128 {
        self.start as i128 + i * self.step as i128
    }
}

impl Value {
    pub fn str(text: impl Into<String>) -> Value {
        Value::Str(Rc::new(Str::new(text.into())))
    }

    pub fn big(i: BigInt) -> Value {
        match i.to_i64() {
            Some(small) => Value::Int(small),
            None => Value::Big(Rc::new(i)),
        }
    }

    pub fn int128(i: i128) -> Value {
        match i64::try_from(i) {
            Ok(small) => Value::Int(small),
            Err(_) => Value::Big(Rc::new(BigInt::from(i))),
        }
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items))
    }

    /// The type of a non-exception value.
    pub fn type_kind(&self) -> Option<TypeKind> {
        Some(match self {
            Value::None => TypeKind::NoneType,
            Value::Ellipsis => TypeKind::Ellipsis,
            Value::Bool(_) => TypeKind::Bool,
            Value::Int(_) | Value::Big(_) => TypeKind::Int,
            Value::Float(_) => TypeKind::Float,
            Value::Str(_) => TypeKind::Str,
            Value::Tuple(_) => TypeKind::Tuple,
            Value::List(_) => TypeKind::List,
            Value::Dict(_) => TypeKind::Dict,
            Value::View(v) => match v.kind {
                ViewKind::Keys => TypeKind::DictKeys,
                ViewKind::Values => TypeKind::DictValues,
                ViewKind::Items => TypeKind::DictItems,
            },
            Value::Range(_) => TypeKind::Range,
            Value::Function(_) => TypeKind::Function,
            Value::Builtin(_) => TypeKind::BuiltinFunction,
            Value::Method(_) => TypeKind::Method,
            Value::Unbound(_) => TypeKind::MethodDescriptor,
            Value::Type(_) | Value::ExcType(_) | Value::UserExcType(_) => TypeKind::Type,
            Value::Iter(it) => it.borrow().type_kind(),
            Value::Native(Native::Stdout | Native::Stderr) => TypeKind::TextIO,
            Value::Native(_) => TypeKind::Module,
            Value::Std(o) if matches!(**o, super::stdlib::StdObj::Slice(_)) => TypeKind::Slice,
            Value::Opaque(_) | Value::Unavailable(_) | Value::Std(_) => TypeKind::Object,
            Value::Class(_) => TypeKind::Type,
            Value::Instance(_) => TypeKind::Object,
            Value::Bound(_) => TypeKind::Method,
            Value::Descriptor(_) | Value::Super(_) | Value::NotImplemented => TypeKind::Object,
            Value::Set(s) if s.borrow().frozen => TypeKind::FrozenSet,
            Value::Set(_) => TypeKind::Set,
            Value::Bytes(_) => TypeKind::Bytes,
            Value::Exception(_) => return None,
        })
    }

    /// The Python type name, as error messages show it.
    pub fn type_name(&self) -> String {
        match self {
            Value::Exception(e) => e.class.name().to_string(),
            Value::Opaque(_) => "typing._SpecialForm".into(),
            Value::Instance(i) => i.class.name.to_string(),
            Value::Bound(_) => "method".into(),
            Value::Descriptor(d) => d.type_name().into(),
            Value::Super(_) => "super".into(),
            Value::NotImplemented => "NotImplementedType".into(),
            Value::Std(o) => o.type_name().into(),
            Value::Dict(d) if d.borrow().flavor.is_some() => {
                super::stdlib::flavor_name(&d.borrow()).into()
            }
            other => other
                .type_kind()
                .map_or("object", TypeKind::name)
                .to_string(),
        }
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Big(_) | Value::Bool(_))
    }

    /// The value as an exact integer, for ints and bools.
    pub fn to_bigint(&self) -> Option<BigInt> {
        match self {
            Value::Bool(b) => Some(BigInt::from(*b as i64)),
            Value::Int(i) => Some(BigInt::from(*i)),
            Value::Big(b) => Some((**b).clone()),
            _ => None,
        }
    }

    /// Converts a data value; `None` for functions, iterators and the like, and for data
    /// nested deeper than [`MAX_PY_DEPTH`] (or cyclic).
    pub fn to_py(&self) -> Option<PyValue> {
        self.to_py_at(0)
    }

    fn to_py_at(&self, depth: usize) -> Option<PyValue> {
        if depth > MAX_PY_DEPTH {
            return None;
        }
        let all = |items: &[Value]| {
            items
                .iter()
                .map(|v| v.to_py_at(depth + 1))
                .collect::<Option<Vec<_>>>()
        };
        Some(match self {
            Value::None => PyValue::None,
            Value::Bool(b) => PyValue::Bool(*b),
            Value::Int(i) => PyValue::Int(BigInt::from(*i)),
            Value::Big(b) => PyValue::Int((**b).clone()),
            Value::Float(f) => PyValue::Float(*f),
            Value::Str(s) => PyValue::Str(s.as_str().to_string()),
            Value::Tuple(items) => PyValue::Tuple(all(items)?),
            Value::List(items) => PyValue::List(all(&items.borrow())?),
            Value::Dict(d) => {
                let d = d.borrow();
                if d.flavor.is_some() {
                    return None;
                }
                let mut entries = Vec::with_capacity(d.len());
                for (k, v) in d.iter() {
                    entries.push((k.to_py_at(depth + 1)?, v.to_py_at(depth + 1)?));
                }
                PyValue::Dict(entries)
            }
            Value::Set(s) if !s.borrow().frozen => PyValue::Set(all(&s.borrow().values())?),
            _ => return None,
        })
    }

    pub fn from_py(v: &PyValue) -> Value {
        match v {
            PyValue::None => Value::None,
            PyValue::Bool(b) => Value::Bool(*b),
            PyValue::Int(i) => Value::big(i.clone()),
            PyValue::Float(f) => Value::Float(*f),
            PyValue::Str(s) => Value::str(s.clone()),
            PyValue::Tuple(items) => Value::tuple(items.iter().map(Value::from_py).collect()),
            PyValue::List(items) => Value::list(items.iter().map(Value::from_py).collect()),
            // Keys and set items of a `PyValue` are hashable (witnesses and results never
            // hold a list as a key): an unhashable one cannot occur and is left out.
            PyValue::Dict(entries) => {
                let mut d = Dict::default();
                for (k, v) in entries {
                    let k = Value::from_py(k);
                    if let Ok(key) = super::dict::key_of(&k) {
                        d.insert(key, k, Value::from_py(v));
                    }
                }
                Value::Dict(Rc::new(RefCell::new(d)))
            }
            PyValue::Set(items) => {
                let mut s = SetObj::new(false);
                for x in items {
                    let _ = s.add(Value::from_py(x));
                }
                super::set_ops::new_set(s)
            }
        }
    }
}

/// How deep a value converted to [`PyValue`] may nest (it is dropped recursively on the
/// caller's thread, whose stack is small).
pub(crate) const MAX_PY_DEPTH: usize = 1000;

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Big(b) => write!(f, "{b}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => write!(f, "{:?}", s.as_str()),
            Value::None => f.write_str("None"),
            other => write!(f, "<{}>", other.type_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyvalues_round_trip() {
        let v = PyValue::List(vec![
            PyValue::Int(BigInt::from(2).pow(80)),
            PyValue::Tuple(vec![
                PyValue::Str("é".into()),
                PyValue::Float(-0.5),
                PyValue::None,
            ]),
            PyValue::Bool(true),
            PyValue::Int((-7).into()),
        ]);
        let rt = Value::from_py(&v);
        assert!(matches!(&rt, Value::List(_)));
        assert_eq!(rt.to_py(), Some(v));
        assert!(Value::Builtin(Builtin::Len).to_py().is_none());
    }

    #[test]
    fn ranges_count_like_python() {
        let r = |start, stop, step| Range { start, stop, step }.len();
        assert_eq!(r(0, 10, 3), 4);
        assert_eq!(r(10, 0, -3), 4);
        assert_eq!(r(0, 0, 1), 0);
        assert_eq!(r(5, 0, 1), 0);
        assert_eq!(r(i64::MIN, i64::MAX, 1), u64::MAX as i128);
    }

    #[test]
    fn strings_index_by_character() {
        let s = Str::new("añb".into());
        assert_eq!(s.len(), 3);
        assert_eq!(s.char_at(1), Some('ñ'));
        assert!(!s.is_ascii());
    }
}
