//! Line tracing of a run, as `sys.settrace` sees it (`%run`): which function frames start and
//! end, and the line of each statement as it starts, plus the header line of a `while` at each
//! re-test and of a `for` at each further `next` (as CPython 3.11 reports them).
//!
//! Off unless [`start`] was called on the interpreter's thread; [`take`] ends it.

/// One event of a traced run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// A frame of the function with this `__qualname__` starts.
    Call(String),
    /// A statement on this cell line starts (or a loop header is tested again).
    Line(u32),
    /// The frame started last ends: by `return` or falling off its end, or (`raised`) by an
    /// exception.
    Return { raised: bool },
}

/// Longest trace kept; a longer run keeps its first events and says it was cut.
pub const MAX_EVENTS: usize = 1_000_000;

/// A traced run's events, and whether more happened than were kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub events: Vec<TraceEvent>,
    pub cut: bool,
    /// The next line event is a docstring's, which CPython compiles to nothing.
    skip: bool,
}

impl Trace {
    /// A function body starting with a string statement (its docstring) runs no line event
    /// for it.
    pub(crate) fn skip_docstring(&mut self, body: &super::code::Body) {
        use super::code::{Body, Expr, StmtKind};
        use super::value::Value;
        if let Body::Block(stmts) = body {
            self.skip = matches!(
                stmts.first().map(|s| &s.kind),
                Some(StmtKind::Expr(Expr::Const(Value::Str(_))))
            );
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, e: TraceEvent) {
        if self.skip && matches!(e, TraceEvent::Line(_)) {
            self.skip = false;
            return;
        }
        if self.events.len() < MAX_EVENTS {
            self.events.push(e);
        } else {
            self.cut = true;
        }
    }
}

/// Turns tracing on for the runs that follow (call from a host task).
pub fn start() -> Result<(), super::RunError> {
    super::host::with(|m| m.trace = Some(Trace::default()))
}

/// Turns tracing off and returns what was traced (call from a host task).
pub fn take() -> Result<Trace, super::RunError> {
    super::host::with(|m| m.trace.take().unwrap_or_default())
}
