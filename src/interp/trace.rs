//! Line tracing of a run, as `sys.settrace` sees it (`%run`): which function frames start and
//! end, and the line of each statement as it starts, plus the header line of a `while` at each
//! re-test and of a `for` at each further `next` (as CPython 3.11 reports them).
//!
//! Off unless [`start`] (or [`start_with_locals`]) was called on the interpreter's thread;
//! [`take`] ends it. With locals, each line event of the first [`MAX_SNAPSHOTS`] also keeps
//! the int and bool values of the frame's locals as the line starts (`%run --on absint`);
//! variables held in closure cells are not included.

use num_bigint::BigInt;

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

/// Line events whose locals are kept, at most.
pub const MAX_SNAPSHOTS: usize = 100_000;

/// The int (and bool, as 0 and 1) locals of a frame as a line starts, by name.
pub type Snapshot = Vec<(String, BigInt)>;

/// A traced run's events, and whether more happened than were kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub events: Vec<TraceEvent>,
    pub cut: bool,
    /// The next line event is a docstring's, which CPython compiles to nothing.
    skip: bool,
    /// With locals: (index in `events` of a line event, the locals then), in order.
    pub snapshots: Option<Vec<(usize, Snapshot)>>,
    /// With locals: the slot names of each running traced frame, innermost last.
    pub(crate) names: Vec<Vec<String>>,
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
    pub(crate) fn push(&mut self, e: TraceEvent) -> bool {
        if self.skip && matches!(e, TraceEvent::Line(_)) {
            self.skip = false;
            return false;
        }
        if self.events.len() < MAX_EVENTS {
            self.events.push(e);
            true
        } else {
            self.cut = true;
            false
        }
    }

    /// A frame of code with these slot names starts (only kept with locals).
    pub(crate) fn enter_frame(&mut self, names: &[std::rc::Rc<str>]) {
        if self.snapshots.is_some() {
            self.names
                .push(names.iter().map(|n| n.to_string()).collect());
        }
    }

    /// The frame started last ends.
    pub(crate) fn leave_frame(&mut self) {
        if self.snapshots.is_some() {
            self.names.pop();
        }
    }

    /// Keeps the int locals of the line event just pushed. A frame whose slots do not match
    /// the innermost traced frame's names (a generator's, resumed inside it) keeps nothing.
    pub(crate) fn snapshot(&mut self, locals: &[Option<super::value::Value>]) {
        let (Some(snaps), Some(names)) = (self.snapshots.as_mut(), self.names.last()) else {
            return;
        };
        if snaps.len() >= MAX_SNAPSHOTS || names.len() != locals.len() {
            return;
        }
        let values = names
            .iter()
            .zip(locals)
            .filter_map(|(n, v)| {
                let i = v.as_ref()?.to_bigint()?;
                Some((n.clone(), i))
            })
            .collect();
        snaps.push((self.events.len() - 1, values));
    }
}

/// Turns tracing on for the runs that follow (call from a host task).
pub fn start() -> Result<(), super::RunError> {
    super::host::with(|m| m.trace = Some(Trace::default()))
}

/// Turns tracing on, keeping the locals of line events too (call from a host task).
pub fn start_with_locals() -> Result<(), super::RunError> {
    super::host::with(|m| {
        m.trace = Some(Trace {
            snapshots: Some(Vec::new()),
            ..Trace::default()
        })
    })
}

/// Turns tracing off and returns what was traced (call from a host task).
pub fn take() -> Result<Trace, super::RunError> {
    super::host::with(|m| m.trace.take().unwrap_or_default())
}
