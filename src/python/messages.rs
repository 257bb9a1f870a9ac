//! CPython 3.11's messages for the errors that more than one engine raises (the interpreter
//! runs them, `%set` predicts them on its leaves): the one home of their text. Checked
//! against CPython by `tests/python_facts.rs`.

/// `int / 0`.
pub const DIVISION_BY_ZERO: &str = "division by zero";
/// `float / 0.0`.
pub const FLOAT_DIVISION_BY_ZERO: &str = "float division by zero";
/// `int // 0` (and `divmod(int, 0)`).
pub const INT_DIVISION_BY_ZERO: &str = "integer division or modulo by zero";
/// `int % 0`.
pub const INT_MODULO_BY_ZERO: &str = "integer modulo by zero";
/// `float // 0.0`.
pub const FLOAT_FLOOR_DIVISION_BY_ZERO: &str = "float floor division by zero";
/// `float % 0.0`.
pub const FLOAT_MODULO_BY_ZERO: &str = "float modulo";

/// `range(a, b, 0)`.
pub const RANGE_STEP_ZERO: &str = "range() arg 3 must not be zero";

/// `xs[i]` out of range, for a list.
pub const LIST_INDEX_OUT_OF_RANGE: &str = "list index out of range";
/// `t[i]` out of range, for a tuple.
pub const TUPLE_INDEX_OUT_OF_RANGE: &str = "tuple index out of range";
/// `s[i]` out of range, for a string.
pub const STR_INDEX_OUT_OF_RANGE: &str = "string index out of range";

/// `[].pop()` and `[].pop(i)`.
pub const POP_FROM_EMPTY_LIST: &str = "pop from empty list";
/// `xs.remove(x)` without such an item.
pub const LIST_REMOVE_MISSING: &str = "list.remove(x): x not in list";
/// `xs.pop(i)` out of range.
pub const POP_INDEX_OUT_OF_RANGE: &str = "pop index out of range";
/// `xs[i] = v` out of range.
pub const LIST_ASSIGNMENT_INDEX_OUT_OF_RANGE: &str = "list assignment index out of range";
