//! Abstract interpretation on small functions with hand-computed results.
