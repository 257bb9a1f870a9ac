//! The hook through which interprocedural analysis ([`crate::dataflow::interproc`]) gives
//! calls of the session's functions a value: without one, every call is `⊤`.

use crate::python::ir::Expr;

/// The abstract arguments of one call, as written.
#[derive(Clone, Debug)]
pub struct Args<D> {
    pub positional: Vec<D>,
    pub keywords: Vec<(String, D)>,
    /// A `*xs` or `**kw` argument: what binds to which parameter is not known.
    pub unpacked: bool,
}

/// Gives calls a value.
pub trait CallOracle<D> {
    /// The value of the call `call` of function `callee` with `args`: `⊥` when no call of it
    /// returns (yet), `None` when `callee` is not analysed (the call is then `⊤`).
    fn call(&self, call: &Expr, callee: &str, args: Args<D>) -> Option<D>;
}
