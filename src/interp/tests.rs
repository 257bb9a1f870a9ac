//! Unit tests of the interpreter, by feature.
