//! CPython 3.11's builtin exception classes and their bases: the one table that `cfg` (which
//! handlers catch what), `interp` (its classes' bases) and `symexec` (what `except` matches)
//! read. Checked against CPython by `tests/python_facts.rs`.

/// Builtin exception classes and their base classes (`BaseException` has none).
pub const HIERARCHY: &[(&str, &str)] = &[
    ("Exception", "BaseException"),
    ("KeyboardInterrupt", "BaseException"),
    ("SystemExit", "BaseException"),
    ("GeneratorExit", "BaseException"),
    ("BaseExceptionGroup", "BaseException"),
    ("ExceptionGroup", "Exception"),
    ("ArithmeticError", "Exception"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("FloatingPointError", "ArithmeticError"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("BufferError", "Exception"),
    ("EOFError", "Exception"),
    ("ImportError", "Exception"),
    ("ModuleNotFoundError", "ImportError"),
    ("LookupError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("MemoryError", "Exception"),
    ("NameError", "Exception"),
    ("UnboundLocalError", "NameError"),
    ("OSError", "Exception"),
    ("BlockingIOError", "OSError"),
    ("ChildProcessError", "OSError"),
    ("ConnectionError", "OSError"),
    ("BrokenPipeError", "ConnectionError"),
    ("ConnectionAbortedError", "ConnectionError"),
    ("ConnectionRefusedError", "ConnectionError"),
    ("ConnectionResetError", "ConnectionError"),
    ("FileExistsError", "OSError"),
    ("FileNotFoundError", "OSError"),
    ("InterruptedError", "OSError"),
    ("IsADirectoryError", "OSError"),
    ("NotADirectoryError", "OSError"),
    ("PermissionError", "OSError"),
    ("ProcessLookupError", "OSError"),
    ("TimeoutError", "OSError"),
    ("ReferenceError", "Exception"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("StopIteration", "Exception"),
    ("StopAsyncIteration", "Exception"),
    ("SyntaxError", "Exception"),
    ("IndentationError", "SyntaxError"),
    ("TabError", "IndentationError"),
    ("SystemError", "Exception"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
    ("UnicodeDecodeError", "UnicodeError"),
    ("UnicodeEncodeError", "UnicodeError"),
    ("UnicodeTranslateError", "UnicodeError"),
    ("Warning", "Exception"),
    ("BytesWarning", "Warning"),
    ("DeprecationWarning", "Warning"),
    ("EncodingWarning", "Warning"),
    ("FutureWarning", "Warning"),
    ("ImportWarning", "Warning"),
    ("PendingDeprecationWarning", "Warning"),
    ("ResourceWarning", "Warning"),
    ("RuntimeWarning", "Warning"),
    ("SyntaxWarning", "Warning"),
    ("UnicodeWarning", "Warning"),
    ("UserWarning", "Warning"),
];

/// The second bases of classes that have two (`class ExceptionGroup(BaseExceptionGroup,
/// Exception)`: the table lists `Exception`).
pub const SECOND_BASES: &[(&str, &str)] = &[("ExceptionGroup", "BaseExceptionGroup")];

/// `IOError` and `EnvironmentError` are `OSError`.
pub fn canonical(name: &str) -> &str {
    match name {
        "IOError" | "EnvironmentError" => "OSError",
        other => other,
    }
}

/// Whether `name` is a builtin exception class (or an alias of one).
pub fn is_builtin(name: &str) -> bool {
    let name = canonical(name);
    name == "BaseException" || HIERARCHY.iter().any(|(n, _)| *n == name)
}

/// The base class of builtin exception class `name`.
pub fn base_of(name: &str) -> Option<&'static str> {
    let name = canonical(name);
    HIERARCHY.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// Whether builtin class `base` is `exc` or one of its ancestors.
pub fn is_subclass(exc: &str, base: &str) -> bool {
    let base = canonical(base);
    let mut cur = Some(canonical(exc));
    while let Some(c) = cur {
        if c == base
            || SECOND_BASES
                .iter()
                .any(|(n, second)| *n == c && is_subclass(second, base))
        {
            return true;
        }
        cur = base_of(c);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_and_aliases() {
        assert!(is_subclass("ZeroDivisionError", "ArithmeticError"));
        assert!(is_subclass("FileNotFoundError", "IOError"));
        assert!(is_subclass("KeyboardInterrupt", "BaseException"));
        assert!(!is_subclass("KeyboardInterrupt", "Exception"));
        assert!(is_builtin("EnvironmentError") && !is_builtin("Foo"));
        assert_eq!(base_of("BaseException"), None);
        assert!(is_subclass("ExceptionGroup", "BaseExceptionGroup"));
        assert!(is_subclass("ExceptionGroup", "Exception"));
    }
}
