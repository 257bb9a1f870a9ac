//! Trees of small programs.
