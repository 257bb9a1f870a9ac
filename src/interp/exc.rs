//! Python exceptions inside the interpreter: the builtin class hierarchy, exception objects,
//! and `Unwind`, what every evaluation step returns on failure.

use std::cell::RefCell;
use std::rc::Rc;

use super::value::Value;

/// The builtin exception classes the interpreter knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ExcKind {
    BaseException,
    KeyboardInterrupt,
    Exception,
    ArithmeticError,
    ZeroDivisionError,
    OverflowError,
    AssertionError,
    AttributeError,
    LookupError,
    IndexError,
    KeyError,
    NameError,
    UnboundLocalError,
    RuntimeError,
    RecursionError,
    NotImplementedError,
    TypeError,
    ValueError,
    MemoryError,
    StopIteration,
    GeneratorExit,
    SyntaxError,
    ImportError,
    ModuleNotFoundError,
    FloatingPointError,
    BufferError,
    EOFError,
    ReferenceError,
    SystemError,
    UnicodeError,
    UnicodeDecodeError,
    UnicodeEncodeError,
    UnicodeTranslateError,
    Warning,
    BytesWarning,
    DeprecationWarning,
    EncodingWarning,
    FutureWarning,
    ImportWarning,
    PendingDeprecationWarning,
    ResourceWarning,
    RuntimeWarning,
    SyntaxWarning,
    UnicodeWarning,
    UserWarning,
    StopAsyncIteration,
    IndentationError,
    TabError,
    OSError,
    BlockingIOError,
    ChildProcessError,
    ConnectionError,
    BrokenPipeError,
    ConnectionAbortedError,
    ConnectionRefusedError,
    ConnectionResetError,
    FileExistsError,
    FileNotFoundError,
    InterruptedError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
    ProcessLookupError,
    TimeoutError,
}

impl ExcKind {
    pub const ALL: [ExcKind; 64] = [
        ExcKind::BaseException,
        ExcKind::KeyboardInterrupt,
        ExcKind::Exception,
        ExcKind::ArithmeticError,
        ExcKind::ZeroDivisionError,
        ExcKind::OverflowError,
        ExcKind::AssertionError,
        ExcKind::AttributeError,
        ExcKind::LookupError,
        ExcKind::IndexError,
        ExcKind::KeyError,
        ExcKind::NameError,
        ExcKind::UnboundLocalError,
        ExcKind::RuntimeError,
        ExcKind::RecursionError,
        ExcKind::NotImplementedError,
        ExcKind::TypeError,
        ExcKind::ValueError,
        ExcKind::MemoryError,
        ExcKind::StopIteration,
        ExcKind::GeneratorExit,
        ExcKind::SyntaxError,
        ExcKind::ImportError,
        ExcKind::ModuleNotFoundError,
        ExcKind::FloatingPointError,
        ExcKind::BufferError,
        ExcKind::EOFError,
        ExcKind::ReferenceError,
        ExcKind::SystemError,
        ExcKind::UnicodeError,
        ExcKind::UnicodeDecodeError,
        ExcKind::UnicodeEncodeError,
        ExcKind::UnicodeTranslateError,
        ExcKind::Warning,
        ExcKind::BytesWarning,
        ExcKind::DeprecationWarning,
        ExcKind::EncodingWarning,
        ExcKind::FutureWarning,
        ExcKind::ImportWarning,
        ExcKind::PendingDeprecationWarning,
        ExcKind::ResourceWarning,
        ExcKind::RuntimeWarning,
        ExcKind::SyntaxWarning,
        ExcKind::UnicodeWarning,
        ExcKind::UserWarning,
        ExcKind::StopAsyncIteration,
        ExcKind::IndentationError,
        ExcKind::TabError,
        ExcKind::OSError,
        ExcKind::BlockingIOError,
        ExcKind::ChildProcessError,
        ExcKind::ConnectionError,
        ExcKind::BrokenPipeError,
        ExcKind::ConnectionAbortedError,
        ExcKind::ConnectionRefusedError,
        ExcKind::ConnectionResetError,
        ExcKind::FileExistsError,
        ExcKind::FileNotFoundError,
        ExcKind::InterruptedError,
        ExcKind::IsADirectoryError,
        ExcKind::NotADirectoryError,
        ExcKind::PermissionError,
        ExcKind::ProcessLookupError,
        ExcKind::TimeoutError,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ExcKind::BaseException => "BaseException",
            ExcKind::KeyboardInterrupt => "KeyboardInterrupt",
            ExcKind::Exception => "Exception",
            ExcKind::ArithmeticError => "ArithmeticError",
            ExcKind::ZeroDivisionError => "ZeroDivisionError",
            ExcKind::OverflowError => "OverflowError",
            ExcKind::AssertionError => "AssertionError",
            ExcKind::AttributeError => "AttributeError",
            ExcKind::LookupError => "LookupError",
            ExcKind::IndexError => "IndexError",
            ExcKind::KeyError => "KeyError",
            ExcKind::NameError => "NameError",
            ExcKind::UnboundLocalError => "UnboundLocalError",
            ExcKind::RuntimeError => "RuntimeError",
            ExcKind::RecursionError => "RecursionError",
            ExcKind::NotImplementedError => "NotImplementedError",
            ExcKind::TypeError => "TypeError",
            ExcKind::ValueError => "ValueError",
            ExcKind::MemoryError => "MemoryError",
            ExcKind::StopIteration => "StopIteration",
            ExcKind::GeneratorExit => "GeneratorExit",
            ExcKind::SyntaxError => "SyntaxError",
            ExcKind::ImportError => "ImportError",
            ExcKind::ModuleNotFoundError => "ModuleNotFoundError",
            ExcKind::FloatingPointError => "FloatingPointError",
            ExcKind::BufferError => "BufferError",
            ExcKind::EOFError => "EOFError",
            ExcKind::ReferenceError => "ReferenceError",
            ExcKind::SystemError => "SystemError",
            ExcKind::UnicodeError => "UnicodeError",
            ExcKind::UnicodeDecodeError => "UnicodeDecodeError",
            ExcKind::UnicodeEncodeError => "UnicodeEncodeError",
            ExcKind::UnicodeTranslateError => "UnicodeTranslateError",
            ExcKind::Warning => "Warning",
            ExcKind::BytesWarning => "BytesWarning",
            ExcKind::DeprecationWarning => "DeprecationWarning",
            ExcKind::EncodingWarning => "EncodingWarning",
            ExcKind::FutureWarning => "FutureWarning",
            ExcKind::ImportWarning => "ImportWarning",
            ExcKind::PendingDeprecationWarning => "PendingDeprecationWarning",
            ExcKind::ResourceWarning => "ResourceWarning",
            ExcKind::RuntimeWarning => "RuntimeWarning",
            ExcKind::SyntaxWarning => "SyntaxWarning",
            ExcKind::UnicodeWarning => "UnicodeWarning",
            ExcKind::UserWarning => "UserWarning",
            ExcKind::StopAsyncIteration => "StopAsyncIteration",
            ExcKind::IndentationError => "IndentationError",
            ExcKind::TabError => "TabError",
            ExcKind::OSError => "OSError",
            ExcKind::BlockingIOError => "BlockingIOError",
            ExcKind::ChildProcessError => "ChildProcessError",
            ExcKind::ConnectionError => "ConnectionError",
            ExcKind::BrokenPipeError => "BrokenPipeError",
            ExcKind::ConnectionAbortedError => "ConnectionAbortedError",
            ExcKind::ConnectionRefusedError => "ConnectionRefusedError",
            ExcKind::ConnectionResetError => "ConnectionResetError",
            ExcKind::FileExistsError => "FileExistsError",
            ExcKind::FileNotFoundError => "FileNotFoundError",
            ExcKind::InterruptedError => "InterruptedError",
            ExcKind::IsADirectoryError => "IsADirectoryError",
            ExcKind::NotADirectoryError => "NotADirectoryError",
            ExcKind::PermissionError => "PermissionError",
            ExcKind::ProcessLookupError => "ProcessLookupError",
            ExcKind::TimeoutError => "TimeoutError",
        }
    }

    pub fn from_name(name: &str) -> Option<ExcKind> {
        ExcKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The direct base class (`None` for `BaseException`), from CPython's hierarchy
    /// (`python::exceptions`).
    pub fn base(self) -> Option<ExcKind> {
        crate::python::exceptions::base_of(self.name()).and_then(ExcKind::from_name)
    }
}

/// An exception class defined by the user: `class E(ValueError): ...`, with the namespace
/// its body defined (methods and class attributes; empty for a body of `pass`).
#[derive(Debug)]
pub(crate) struct UserClass {
    pub name: Rc<str>,
    pub base: ExcClass,
    pub namespace: Vec<(Rc<str>, Value)>,
}

impl UserClass {
    /// A class with an empty body.
    pub fn plain(name: Rc<str>, base: ExcClass) -> UserClass {
        UserClass {
            name,
            base,
            namespace: Vec::new(),
        }
    }
}

/// An exception class, builtin or user-defined.
#[derive(Clone, Debug)]
pub(crate) enum ExcClass {
    Builtin(ExcKind),
    User(Rc<UserClass>),
}

impl ExcClass {
    pub fn name(&self) -> &str {
        match self {
            ExcClass::Builtin(k) => k.name(),
            ExcClass::User(c) => &c.name,
        }
    }

    pub fn base(&self) -> Option<ExcClass> {
        match self {
            ExcClass::Builtin(k) => k.base().map(ExcClass::Builtin),
            ExcClass::User(c) => Some(c.base.clone()),
        }
    }

    /// Whether `self` is `other` or derives from it.
    pub fn is_subclass_of(&self, other: &ExcClass) -> bool {
        let mut cur = Some(self.clone());
        while let Some(c) = cur {
            if c.same(other) {
                return true;
            }
            cur = c.base();
        }
        false
    }

    pub fn same(&self, other: &ExcClass) -> bool {
        match (self, other) {
            (ExcClass::Builtin(a), ExcClass::Builtin(b)) => a == b,
            (ExcClass::User(a), ExcClass::User(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The nearest builtin ancestor (what the public API reports for user classes' kind).
    pub fn builtin_ancestor(&self) -> ExcKind {
        match self {
            ExcClass::Builtin(k) => *k,
            ExcClass::User(c) => c.base.builtin_ancestor(),
        }
    }

    /// The attribute `name` defined in the body of this class or of a user-defined
    /// ancestor (the builtin ancestors define no Python-level methods here).
    pub fn lookup(&self, name: &str) -> Option<Value> {
        let mut cur = Some(self.clone());
        while let Some(c) = cur {
            if let ExcClass::User(u) = &c {
                if let Some((_, v)) = u.namespace.iter().find(|(n, _)| **n == *name) {
                    return Some(v.clone());
                }
            }
            cur = c.base();
        }
        None
    }

    pub fn as_value(&self) -> Value {
        match self {
            ExcClass::Builtin(k) => Value::ExcType(*k),
            ExcClass::User(c) => Value::UserExcType(c.clone()),
        }
    }
}

/// An exception instance: its class, its `args` (the constructor's arguments until
/// `BaseException.__init__` or an assignment sets them) and its instance attributes.
#[derive(Debug)]
pub(crate) struct ExcObject {
    pub class: ExcClass,
    pub args: RefCell<Vec<Value>>,
    pub attrs: RefCell<Vec<(Rc<str>, Value)>>,
}

impl ExcObject {
    pub fn new(class: ExcClass, args: Vec<Value>) -> ExcObject {
        ExcObject {
            class,
            args: RefCell::new(args),
            attrs: RefCell::new(Vec::new()),
        }
    }

    /// A copy of `args`.
    pub fn args(&self) -> Vec<Value> {
        self.args.borrow().clone()
    }

    /// The first of `args`.
    pub fn first_arg(&self) -> Option<Value> {
        self.args.borrow().first().cloned()
    }
}

/// One frame of a traceback, innermost first in [`Raised::tb`].
#[derive(Clone, Debug)]
pub(crate) struct TbEntry {
    /// Call depth of the frame (0 for module code).
    pub depth: u32,
    pub function: Rc<str>,
    pub line: u32,
    pub text: Rc<str>,
}

/// A Python exception in flight.
#[derive(Debug)]
pub(crate) struct Raised {
    pub exc: Rc<ExcObject>,
    pub tb: Vec<TbEntry>,
}

/// Why the interpreter stops without a Python exception: nothing in the program can catch it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Abort {
    StepBudget(u64),
    Stopped(crate::cancel::Stopped),
    /// A construct outside the subset; `line` is 0 until a statement fills it in.
    Unsupported {
        construct: String,
        line: u32,
    },
}

/// Why evaluation did not produce a value: one pointer, so that a result (`R<Value>`) is
/// two words and comes back in registers on the hot paths.
#[derive(Debug)]
pub(crate) struct Unwind(Box<Unwound>);

/// What an [`Unwind`] carries.
#[derive(Debug)]
pub(crate) enum Unwound {
    Raise(Raised),
    Abort(Abort),
}

pub(crate) type R<T> = Result<T, Unwind>;

impl Unwind {
    pub fn new(kind: ExcKind, message: impl Into<String>) -> Unwind {
        let message: String = message.into();
        let args = if message.is_empty() {
            Vec::new()
        } else {
            vec![Value::str(message)]
        };
        Unwind::from_object(ExcObject::new(ExcClass::Builtin(kind), args))
    }

    pub fn from_object(exc: ExcObject) -> Unwind {
        Unwind::raise(Raised {
            exc: Rc::new(exc),
            tb: Vec::new(),
        })
    }

    pub fn unsupported(construct: impl Into<String>) -> Unwind {
        Unwind::abort(Abort::Unsupported {
            construct: construct.into(),
            line: 0,
        })
    }

    pub fn raise(raised: Raised) -> Unwind {
        Unwind(Box::new(Unwound::Raise(raised)))
    }

    pub fn abort(abort: Abort) -> Unwind {
        Unwind(Box::new(Unwound::Abort(abort)))
    }

    /// The Python exception, unless the run is aborting.
    pub fn raised(&self) -> Option<&Raised> {
        match &*self.0 {
            Unwound::Raise(r) => Some(r),
            Unwound::Abort(_) => None,
        }
    }

    pub fn raised_mut(&mut self) -> Option<&mut Raised> {
        match &mut *self.0 {
            Unwound::Raise(r) => Some(r),
            Unwound::Abort(_) => None,
        }
    }

    /// Whether this is a Python exception (which a program can catch), not an abort.
    pub fn is_raise(&self) -> bool {
        self.raised().is_some()
    }

    /// Whether this is a Python exception of `class` or a subclass of it.
    pub fn raises(&self, class: &ExcClass) -> bool {
        self.raised()
            .is_some_and(|r| r.exc.class.is_subclass_of(class))
    }

    pub fn kind(&self) -> &Unwound {
        &self.0
    }

    pub fn kind_mut(&mut self) -> &mut Unwound {
        &mut self.0
    }

    pub fn into_kind(self) -> Unwound {
        *self.0
    }
}

/// `Err` of a new builtin exception.
pub(crate) fn fail<T>(kind: ExcKind, message: impl Into<String>) -> R<T> {
    Err(Unwind::new(kind, message))
}

pub(crate) fn type_error<T>(message: impl Into<String>) -> R<T> {
    fail(ExcKind::TypeError, message)
}

pub(crate) fn value_error<T>(message: impl Into<String>) -> R<T> {
    fail(ExcKind::ValueError, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy_matches_python() {
        let zde = ExcClass::Builtin(ExcKind::ZeroDivisionError);
        assert!(zde.is_subclass_of(&ExcClass::Builtin(ExcKind::ArithmeticError)));
        assert!(zde.is_subclass_of(&ExcClass::Builtin(ExcKind::Exception)));
        assert!(!zde.is_subclass_of(&ExcClass::Builtin(ExcKind::LookupError)));
        let key = ExcClass::Builtin(ExcKind::KeyError);
        assert!(key.is_subclass_of(&ExcClass::Builtin(ExcKind::LookupError)));
        let ki = ExcClass::Builtin(ExcKind::KeyboardInterrupt);
        assert!(!ki.is_subclass_of(&ExcClass::Builtin(ExcKind::Exception)));
        let user = ExcClass::User(Rc::new(UserClass::plain("E".into(), key)));
        assert!(user.is_subclass_of(&ExcClass::Builtin(ExcKind::LookupError)));
        assert_eq!(user.builtin_ancestor(), ExcKind::KeyError);
        for k in ExcKind::ALL {
            assert_eq!(ExcKind::from_name(k.name()), Some(k));
        }
        // Values are two words, and so are evaluation results (a value or a pointer): they
        // come back in registers.
        assert_eq!(std::mem::size_of::<Value>(), 16);
        assert_eq!(std::mem::size_of::<R<Value>>(), 16);
    }
}
