//! CPython 3.11's builtin names other than the exception classes (those are in
//! [`super::exceptions`]): the one list that `symexec` (a builtin it does not model is not a
//! `NameError`), `constraints` (which calls cannot change their arguments), interprocedural
//! analysis (which calls are builtins) and completion (names and their one-line docs) read.
//! Checked against CPython's `builtins` module by `tests/python_facts.rs`.

/// What a builtin name is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `True`, `None`, `Ellipsis`, ...
    Constant,
    /// A builtin function (`len`, `print`).
    Function,
    /// A builtin class (`int`, `list`, `enumerate`).
    Type,
    /// Added by CPython's `site` module for the interactive prompt (`help`, `exit`).
    Site,
}

/// One builtin name.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub name: &'static str,
    pub kind: Kind,
    /// Called on any arguments, it neither changes them nor calls back into user code (as the
    /// path-constraint encoder assumes).
    pub pure: bool,
    /// The first line of CPython's docstring (empty for constants and `site` objects).
    pub doc: &'static str,
}

/// Every builtin name, sorted as `dir(builtins)` sorts them.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "Ellipsis",
        kind: Kind::Constant,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "False",
        kind: Kind::Constant,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "None",
        kind: Kind::Constant,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "NotImplemented",
        kind: Kind::Constant,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "True",
        kind: Kind::Constant,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "abs",
        kind: Kind::Function,
        pure: true,
        doc: "Return the absolute value of the argument.",
    },
    Builtin {
        name: "aiter",
        kind: Kind::Function,
        pure: false,
        doc: "Return an AsyncIterator for an AsyncIterable object.",
    },
    Builtin {
        name: "all",
        kind: Kind::Function,
        pure: true,
        doc: "Return True if bool(x) is True for all values x in the iterable.",
    },
    Builtin {
        name: "anext",
        kind: Kind::Function,
        pure: false,
        doc: "async anext(aiterator[, default])",
    },
    Builtin {
        name: "any",
        kind: Kind::Function,
        pure: true,
        doc: "Return True if bool(x) is True for any x in the iterable.",
    },
    Builtin {
        name: "ascii",
        kind: Kind::Function,
        pure: false,
        doc: "Return an ASCII-only representation of an object.",
    },
    Builtin {
        name: "bin",
        kind: Kind::Function,
        pure: false,
        doc: "Return the binary representation of an integer.",
    },
    Builtin {
        name: "bool",
        kind: Kind::Type,
        pure: true,
        doc: "bool(x) -> bool",
    },
    Builtin {
        name: "breakpoint",
        kind: Kind::Function,
        pure: false,
        doc: "breakpoint(*args, **kws)",
    },
    Builtin {
        name: "bytearray",
        kind: Kind::Type,
        pure: false,
        doc: "bytearray(iterable_of_ints) -> bytearray",
    },
    Builtin {
        name: "bytes",
        kind: Kind::Type,
        pure: false,
        doc: "bytes(iterable_of_ints) -> bytes",
    },
    Builtin {
        name: "callable",
        kind: Kind::Function,
        pure: false,
        doc: "Return whether the object is callable (i.e., some kind of function).",
    },
    Builtin {
        name: "chr",
        kind: Kind::Function,
        pure: true,
        doc: "Return a Unicode string of one character with ordinal i; 0 <= i <= 0x10ffff.",
    },
    Builtin {
        name: "classmethod",
        kind: Kind::Type,
        pure: false,
        doc: "classmethod(function) -> method",
    },
    Builtin {
        name: "compile",
        kind: Kind::Function,
        pure: false,
        doc: "Compile source into a code object that can be executed by exec() or eval().",
    },
    Builtin {
        name: "complex",
        kind: Kind::Type,
        pure: false,
        doc: "Create a complex number from a real part and an optional imaginary part.",
    },
    Builtin {
        name: "copyright",
        kind: Kind::Site,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "credits",
        kind: Kind::Site,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "delattr",
        kind: Kind::Function,
        pure: false,
        doc: "Deletes the named attribute from the given object.",
    },
    Builtin {
        name: "dict",
        kind: Kind::Type,
        pure: false,
        doc: "dict() -> new empty dictionary",
    },
    Builtin {
        name: "dir",
        kind: Kind::Function,
        pure: false,
        doc: "dir([object]) -> list of strings",
    },
    Builtin {
        name: "divmod",
        kind: Kind::Function,
        pure: false,
        doc: "Return the tuple (x//y, x%y).  Invariant: div*y + mod == x.",
    },
    Builtin {
        name: "enumerate",
        kind: Kind::Type,
        pure: true,
        doc: "Return an enumerate object.",
    },
    Builtin {
        name: "eval",
        kind: Kind::Function,
        pure: false,
        doc: "Evaluate the given source in the context of globals and locals.",
    },
    Builtin {
        name: "exec",
        kind: Kind::Function,
        pure: false,
        doc: "Execute the given source in the context of globals and locals.",
    },
    Builtin {
        name: "exit",
        kind: Kind::Site,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "filter",
        kind: Kind::Type,
        pure: false,
        doc: "filter(function or None, iterable) --> filter object",
    },
    Builtin {
        name: "float",
        kind: Kind::Type,
        pure: true,
        doc: "Convert a string or number to a floating point number, if possible.",
    },
    Builtin {
        name: "format",
        kind: Kind::Function,
        pure: true,
        doc: "Return value.__format__(format_spec)",
    },
    Builtin {
        name: "frozenset",
        kind: Kind::Type,
        pure: true,
        doc: "frozenset() -> empty frozenset object",
    },
    Builtin {
        name: "getattr",
        kind: Kind::Function,
        pure: false,
        doc: "getattr(object, name[, default]) -> value",
    },
    Builtin {
        name: "globals",
        kind: Kind::Function,
        pure: false,
        doc: "Return the dictionary containing the current scope's global variables.",
    },
    Builtin {
        name: "hasattr",
        kind: Kind::Function,
        pure: false,
        doc: "Return whether the object has an attribute with the given name.",
    },
    Builtin {
        name: "hash",
        kind: Kind::Function,
        pure: false,
        doc: "Return the hash value for the given object.",
    },
    Builtin {
        name: "help",
        kind: Kind::Site,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "hex",
        kind: Kind::Function,
        pure: false,
        doc: "Return the hexadecimal representation of an integer.",
    },
    Builtin {
        name: "id",
        kind: Kind::Function,
        pure: false,
        doc: "Return the identity of an object.",
    },
    Builtin {
        name: "input",
        kind: Kind::Function,
        pure: false,
        doc: "Read a string from standard input.  The trailing newline is stripped.",
    },
    Builtin {
        name: "int",
        kind: Kind::Type,
        pure: true,
        doc: "int([x]) -> integer",
    },
    Builtin {
        name: "isinstance",
        kind: Kind::Function,
        pure: true,
        doc: "Return whether an object is an instance of a class or of a subclass thereof.",
    },
    Builtin {
        name: "issubclass",
        kind: Kind::Function,
        pure: false,
        doc: "Return whether 'cls' is derived from another class or is the same class.",
    },
    Builtin {
        name: "iter",
        kind: Kind::Function,
        pure: false,
        doc: "iter(iterable) -> iterator",
    },
    Builtin {
        name: "len",
        kind: Kind::Function,
        pure: true,
        doc: "Return the number of items in a container.",
    },
    Builtin {
        name: "license",
        kind: Kind::Site,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "list",
        kind: Kind::Type,
        pure: true,
        doc: "Built-in mutable sequence.",
    },
    Builtin {
        name: "locals",
        kind: Kind::Function,
        pure: false,
        doc: "Return a dictionary containing the current scope's local variables.",
    },
    Builtin {
        name: "map",
        kind: Kind::Type,
        pure: false,
        doc: "map(func, *iterables) --> map object",
    },
    Builtin {
        name: "max",
        kind: Kind::Function,
        pure: true,
        doc: "max(iterable, *[, default=obj, key=func]) -> value",
    },
    Builtin {
        name: "memoryview",
        kind: Kind::Type,
        pure: false,
        doc: "Create a new memoryview object which references the given object.",
    },
    Builtin {
        name: "min",
        kind: Kind::Function,
        pure: true,
        doc: "min(iterable, *[, default=obj, key=func]) -> value",
    },
    Builtin {
        name: "next",
        kind: Kind::Function,
        pure: false,
        doc: "next(iterator[, default])",
    },
    Builtin {
        name: "object",
        kind: Kind::Type,
        pure: false,
        doc: "The base class of the class hierarchy.",
    },
    Builtin {
        name: "oct",
        kind: Kind::Function,
        pure: false,
        doc: "Return the octal representation of an integer.",
    },
    Builtin {
        name: "open",
        kind: Kind::Function,
        pure: false,
        doc: "Open file and return a stream.  Raise OSError upon failure.",
    },
    Builtin {
        name: "ord",
        kind: Kind::Function,
        pure: true,
        doc: "Return the Unicode code point for a one-character string.",
    },
    Builtin {
        name: "pow",
        kind: Kind::Function,
        pure: false,
        doc: "Equivalent to base**exp with 2 arguments or base**exp % mod with 3 arguments",
    },
    Builtin {
        name: "print",
        kind: Kind::Function,
        pure: true,
        doc: "Prints the values to a stream, or to sys.stdout by default.",
    },
    Builtin {
        name: "property",
        kind: Kind::Type,
        pure: false,
        doc: "Property attribute.",
    },
    Builtin {
        name: "quit",
        kind: Kind::Site,
        pure: false,
        doc: "",
    },
    Builtin {
        name: "range",
        kind: Kind::Type,
        pure: true,
        doc: "range(stop) -> range object",
    },
    Builtin {
        name: "repr",
        kind: Kind::Function,
        pure: true,
        doc: "Return the canonical string representation of the object.",
    },
    Builtin {
        name: "reversed",
        kind: Kind::Type,
        pure: true,
        doc: "Return a reverse iterator over the values of the given sequence.",
    },
    Builtin {
        name: "round",
        kind: Kind::Function,
        pure: true,
        doc: "Round a number to a given precision in decimal digits.",
    },
    Builtin {
        name: "set",
        kind: Kind::Type,
        pure: true,
        doc: "set() -> new empty set object",
    },
    Builtin {
        name: "setattr",
        kind: Kind::Function,
        pure: false,
        doc: "Sets the named attribute on the given object to the specified value.",
    },
    Builtin {
        name: "slice",
        kind: Kind::Type,
        pure: false,
        doc: "slice(stop)",
    },
    Builtin {
        name: "sorted",
        kind: Kind::Function,
        pure: true,
        doc: "Return a new list containing all items from the iterable in ascending order.",
    },
    Builtin {
        name: "staticmethod",
        kind: Kind::Type,
        pure: false,
        doc: "staticmethod(function) -> method",
    },
    Builtin {
        name: "str",
        kind: Kind::Type,
        pure: true,
        doc: "str(object='') -> str",
    },
    Builtin {
        name: "sum",
        kind: Kind::Function,
        pure: true,
        doc: "Return the sum of a 'start' value (default: 0) plus an iterable of numbers",
    },
    Builtin {
        name: "super",
        kind: Kind::Type,
        pure: false,
        doc: "super() -> same as super(__class__, <first argument>)",
    },
    Builtin {
        name: "tuple",
        kind: Kind::Type,
        pure: true,
        doc: "Built-in immutable sequence.",
    },
    Builtin {
        name: "type",
        kind: Kind::Type,
        pure: true,
        doc: "type(object) -> the object's type",
    },
    Builtin {
        name: "vars",
        kind: Kind::Function,
        pure: false,
        doc: "vars([object]) -> dictionary",
    },
    Builtin {
        name: "zip",
        kind: Kind::Type,
        pure: true,
        doc: "zip(*iterables, strict=False) --> Yield tuples until an input is exhausted.",
    },
];

/// The builtin named `name`, if Python has one (exception classes excepted).
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Whether `name` is a Python builtin: a name from [`BUILTINS`] or a builtin exception class.
pub fn is_builtin(name: &str) -> bool {
    get(name).is_some() || super::exceptions::is_builtin(name)
}

/// Whether calling builtin `name` leaves its arguments unchanged and runs no user code.
pub fn is_pure(name: &str) -> bool {
    get(name).is_some_and(|b| b.pure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_unique() {
        assert!(BUILTINS.windows(2).all(|w| w[0].name < w[1].name));
    }

    #[test]
    fn exceptions_count_as_builtins_and_are_not_listed() {
        assert!(is_builtin("ValueError") && get("ValueError").is_none());
        assert!(is_builtin("len") && is_pure("len") && !is_pure("setattr"));
        assert!(!is_builtin("List"));
    }
}
