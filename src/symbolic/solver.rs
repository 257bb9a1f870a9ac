//! The one module that talks to Z3: a solver over [`Term`]s with a timeout, scopes and
//! cancellation, models read back as Python values, and the logical questions callers ask
//! (satisfiable? equivalent? implies?).
//!
//! Z3's context is per thread (the `z3` crate's thread-local context): a `Solver` and
//! everything it returns stay on the thread that made them (they are not `Send`).
//!
//! Creating a Z3 solver cost about 15 ms with Z3 4.8.12; with today's Z3 (PyPI's
//! `z3-solver` wheel) it costs under a millisecond. A query on a solver that is reused
//! (push, assert, check, pop) takes well under a millisecond. Make one `Solver` per analysis
//! and scope queries with `push`/`pop`, or check them with assumptions ([`Solver::assume`],
//! [`Solver::check_assuming`]), which open no scope and let many queries share one lowering
//! of each condition; the free functions
//! ([`is_satisfiable`], [`implies`], [`equivalent`]) reuse one per thread. A Z3 solver slows
//! down after thousands of scoped queries (measured: 10 to 30 times over 5,000
//! string queries), so a `Solver` replaces its Z3 solver every `RECYCLE_AFTER` checks,
//! replaying its assertions scope by scope. A reused solver works incrementally, without Z3's
//! preprocessing; when it answers `unknown` within a quarter of the time, a fresh solver with
//! every assertion (preprocessed) gets the rest. Once a quantifier is asserted, scopes are
//! no longer Z3's own but literals the checks assume (`scope_by_literals`): Z3's `push`
//! can then loop in its sequence theory where no interrupt reaches it.
//!
//! Timeouts and cancellation never hang a caller: every check runs with a watcher thread
//! that calls Z3's `ContextHandle::interrupt` at the deadline, or when the installed
//! [`Cancel`] is set, and Z3 then answers `Unknown(Reason("timeout"))` / `Unknown(Stopped(_))`. A
//! check does not start once the flag is set. The watcher is scoped to the check, or serves
//! a batch of checks ([`Solver::watching`], [`with_watcher`] for a whole thread): starting a
//! thread costs more than most checks. (Z3's own `timeout` parameter is not used: in Z3
//! 4.8.12 its timer could deadlock, and the watcher also serves cancellation.)

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::sort::Sort;
use super::term::{CompareOp, Term};
use super::translate::Env;
use crate::cancel::Cancel;
use crate::python::PyValue;
use z3::ast::Ast;

mod convert;
mod lengths;
mod lower;
mod scopes;
mod slice;
mod split;
mod strings;
mod watch;

use lower::Lowerer;
use watch::{Stopped, Watch};

pub use convert::ratio_to_f64;
pub use scopes::PathScopes;
pub use slice::UNROLL_LIMIT;

/// Why a check did not run or was cut short: the solver's budget (`set_budget`) is spent.
fn budget_spent(limit_ms: u64) -> String {
    format!("stopped: solver time budget spent (limit {limit_ms} ms)")
}

/// A Z3 solver in this thread's context whose checks may spend `rlimit` resource units
/// (0: no limit).
fn z3_solver(rlimit: u32) -> z3::Solver {
    let solver = z3::Solver::new();
    if rlimit > 0 {
        set_rlimit(&solver, rlimit);
    }
    solver
}

/// Sets the resource units each of `solver`'s checks may spend (Z3 counts from the check's
/// start; 0: no limit).
fn set_rlimit(solver: &z3::Solver, units: u32) {
    let mut params = z3::Params::new();
    params.set_u32("rlimit", units);
    solver.set_params(&params);
}

/// The timeout of the free functions and a sensible default for `Solver::new`.
pub const DEFAULT_TIMEOUT_MS: u32 = 5_000;

/// Checks after which a `Solver` starts over with a fresh Z3 solver.
const RECYCLE_AFTER: u32 = 200;

/// The incremental solver gets `1 / INCREMENTAL_SHARE` of a check's time.
const INCREMENTAL_SHARE: u32 = 4;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    /// Z3 answered `unknown`: a timeout, a cancellation, incompleteness (nonlinear
    /// arithmetic, facts about open slices that need induction).
    #[error("the solver could not decide ({0})")]
    Unknown(Unknown),
    #[error("only conditions can be asserted, not a '{0}'")]
    NotCondition(String),
    #[error("not supported by the solver: {0}")]
    Unsupported(String),
    #[error("pop without a matching push")]
    NoScope,
    #[error("internal solver error: {0}")]
    Internal(String),
}

/// A Z3 solver (in this thread's context) with Python semantics for our terms.
pub struct Solver {
    z3: z3::Solver,
    ctx: z3::Context,
    /// The assertions of each scope, the base first: replayed when recycling.
    frames: Vec<Vec<z3::ast::Bool>>,
    /// Each scope's number (the base first): an [`Assumption`] is usable while the scope
    /// whose assertions define it is open.
    scope_ids: Vec<u64>,
    /// The number of the next scope pushed.
    next_scope: u64,
    /// Checks since `z3` was made.
    checks: u32,
    cancel: Option<Cancel>,
    timeout_ms: u32,
    /// Checks after which the Z3 solver is replaced (`RECYCLE_AFTER` unless set).
    recycle_after: u32,
    usage: Usage,
    /// The watcher serving a batch of checks (`watching`).
    watch: Option<Arc<Watch>>,
    /// Time spent reading this solver's models (shared with them).
    reading: Rc<Cell<Duration>>,
    /// When checks stop, and the budget in milliseconds (`set_budget`).
    budget: Option<(Instant, u64)>,
    /// Z3's resource units per check (`rlimit`; 0: none), see [`Solver::set_rlimit`].
    rlimit: u32,
    /// `None` while `z3`'s own scopes hold the scopes; after a quantifier, one literal per
    /// open scope above the base, which implies that scope's assertions and which checks
    /// assume (see [`Solver::scope_by_literals`]).
    scope_literals: Option<Vec<z3::ast::Bool>>,
}

/// What a solver has done so far: Z3 checks (a check that falls back on a fresh solver
/// counts twice) and the time spent lowering terms to Z3, checking, reading models and
/// opening and closing scopes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub checks: u32,
    /// Checks the incremental solver left to a fresh one.
    pub fallbacks: u32,
    pub lowering: Duration,
    pub checking: Duration,
    pub reading: Duration,
    /// Pushing and popping scopes (a push makes Z3 take in what was asserted before it).
    pub scoping: Duration,
}

impl std::ops::Sub for Usage {
    type Output = Usage;

    fn sub(self, earlier: Usage) -> Usage {
        Usage {
            checks: self.checks - earlier.checks,
            fallbacks: self.fallbacks - earlier.fallbacks,
            lowering: self.lowering.saturating_sub(earlier.lowering),
            checking: self.checking.saturating_sub(earlier.checking),
            reading: self.reading.saturating_sub(earlier.reading),
            scoping: self.scoping.saturating_sub(earlier.scoping),
        }
    }
}

/// Why Z3 could not decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// The stop signal was set: the work must stop (`?` on [`Unknown::stopped`] carries it).
    Stopped(crate::cancel::Stopped),
    /// A timeout, a spent time budget, or Z3's own reason such as
    /// `(incomplete (theory arithmetic))`, in words.
    Reason(String),
    /// The check spent the resource units it was given ([`Solver::set_rlimit`]).
    ResourceLimit(u32),
}

impl Unknown {
    /// `Err` when the check was stopped by the stop signal.
    pub fn stopped(&self) -> Result<(), crate::cancel::Stopped> {
        match self {
            Unknown::Stopped(s) => Err(*s),
            Unknown::Reason(_) | Unknown::ResourceLimit(_) => Ok(()),
        }
    }
}

impl From<String> for Unknown {
    fn from(reason: String) -> Self {
        Unknown::Reason(reason)
    }
}

impl From<&str> for Unknown {
    fn from(reason: &str) -> Self {
        Unknown::Reason(reason.to_string())
    }
}

/// Said as before a reason was typed: `cancelled`, `timeout`, Z3's words.
impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unknown::Stopped(_) => f.write_str("cancelled"),
            Unknown::Reason(r) => f.write_str(r),
            Unknown::ResourceLimit(units) => write!(f, "resource limit of {units} units reached"),
        }
    }
}

/// The answer to a check.
#[derive(Debug)]
pub enum Check {
    Sat(Model),
    Unsat,
    /// Why Z3 could not decide.
    Unknown(Unknown),
}

/// The answer to a check that reads no model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckSat {
    Sat,
    Unsat,
    /// Why Z3 could not decide.
    Unknown(Unknown),
}

/// A check's answer, with the model if one was read.
enum Outcome {
    Sat(Option<Model>),
    Unsat,
    Unknown(Unknown),
}

/// A condition a check can assume without asserting it ([`Solver::check_assuming`]), so
/// that queries sharing a solver need no scope each: a Boolean variable or its negation as
/// it is, any other condition through a fresh Boolean asserted to imply it.
#[derive(Clone)]
pub struct Assumption {
    literal: z3::ast::Bool,
    /// The number of the scope whose assertions define `literal` (none for a variable).
    scope: Option<u64>,
}

/// A satisfying assignment, read as Python values.
pub struct Model {
    model: z3::Model,
    /// The solver's time spent reading models, which this model's reads add to.
    reading: Rc<Cell<Duration>>,
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("timeout_ms", &self.timeout_ms)
            .field("scopes", &(self.frames.len() - 1))
            .field("cancel", &self.cancel.is_some())
            .finish()
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Model").field(&self.model).finish()
    }
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new(DEFAULT_TIMEOUT_MS)
    }
}

impl Solver {
    /// A solver whose checks give up after `timeout_ms` milliseconds.
    pub fn new(timeout_ms: u32) -> Solver {
        Solver {
            z3: z3_solver(0),
            ctx: z3::Context::thread_local(),
            frames: vec![Vec::new()],
            scope_ids: vec![0],
            next_scope: 1,
            checks: 0,
            cancel: None,
            timeout_ms,
            recycle_after: RECYCLE_AFTER,
            usage: Usage::default(),
            watch: None,
            reading: Rc::default(),
            budget: None,
            rlimit: 0,
            scope_literals: None,
        }
    }

    /// Gives each check at most `units` of Z3's resource units (0: no limit), besides its
    /// timeout. Unlike time, the units a query needs do not depend on the machine's load, so
    /// a bound in units gives the same answers on a busy machine: a check that spends them
    /// answers [`Unknown::ResourceLimit`].
    pub fn set_rlimit(&mut self, units: u32) {
        self.rlimit = units;
        set_rlimit(&self.z3, units);
    }

    /// The resource units each check may spend (0: no limit).
    pub fn rlimit(&self) -> u32 {
        self.rlimit
    }

    /// Bounds the time of all checks from now on: once `limit_ms` have passed, checks answer
    /// `Unknown("stopped: …")` without running, and none runs past that instant (`None`: no
    /// bound but each check's timeout).
    pub fn set_budget(&mut self, limit_ms: Option<u64>) {
        self.budget = limit_ms.map(|ms| (Instant::now() + Duration::from_millis(ms), ms));
    }

    /// What this solver has done since it was made.
    pub fn usage(&self) -> Usage {
        Usage {
            reading: self.reading.get(),
            ..self.usage
        }
    }

    /// Checks stop (answering `Unknown::Stopped`) when `cancel` is set.
    pub fn with_cancel(mut self, cancel: Cancel) -> Solver {
        self.cancel = Some(cancel);
        self
    }

    /// Replaces the Z3 solver every `checks` checks instead of `RECYCLE_AFTER`: replacing
    /// costs about as much as making a solver, too much for callers whose queries are few
    /// per scope and who replace solvers themselves.
    pub fn recycling_after(mut self, checks: u32) -> Solver {
        self.recycle_after = checks.max(1);
        self
    }

    pub fn timeout_ms(&self) -> u32 {
        self.timeout_ms
    }

    pub fn push(&mut self) {
        let started = Instant::now();
        match &mut self.scope_literals {
            None => self.z3.push(),
            Some(literals) => literals.push(z3::ast::Bool::fresh_const("scope")),
        }
        self.frames.push(Vec::new());
        self.scope_ids.push(self.next_scope);
        self.next_scope += 1;
        self.usage.scoping += started.elapsed();
    }

    /// Removes everything asserted since the matching `push`.
    pub fn pop(&mut self) -> Result<(), SolverError> {
        if self.frames.len() <= 1 {
            return Err(SolverError::NoScope);
        }
        let started = Instant::now();
        self.frames.pop();
        self.scope_ids.pop();
        match &mut self.scope_literals {
            None => self.z3.pop(1),
            // The scope's assertions are implied by a literal no later check assumes.
            Some(literals) => {
                if let Some(closed) = literals.pop() {
                    self.z3.assert(&closed.not());
                }
            }
        }
        self.usage.scoping += started.elapsed();
        Ok(())
    }

    /// Starts over with a fresh Z3 solver holding the same assertions in the same scopes.
    fn recycle(&mut self) {
        self.z3 = z3_solver(self.rlimit);
        for (depth, frame) in self.frames.iter().enumerate() {
            let literal = match &self.scope_literals {
                None if depth > 0 => {
                    self.z3.push();
                    None
                }
                Some(literals) if depth > 0 => literals.get(depth - 1),
                _ => None,
            };
            for b in frame {
                self.z3.assert(&literal.map_or(b.clone(), |l| l.implies(b)));
            }
        }
        self.checks = 0;
    }

    /// From now on, scopes are literals that imply their assertions and that checks assume,
    /// not Z3's own: with a quantifier asserted, Z3's `push` (which propagates what was
    /// asserted before it) can loop in its sequence theory where no interrupt reaches it
    /// (`%constraints` of `_pydecimal._insert_thousands_sep`, whose dict parameter's keys
    /// are distinct by a quantified axiom, never returned).
    fn scope_by_literals(&mut self) {
        if self.scope_literals.is_none() {
            let literals = (1..self.frames.len())
                .map(|_| z3::ast::Bool::fresh_const("scope"))
                .collect();
            self.scope_literals = Some(literals);
            self.recycle();
        }
    }

    /// Asserts a condition (with the definitions of the auxiliary values it needs).
    pub fn assert(&mut self, t: &Term) -> Result<(), SolverError> {
        condition_sort(t)?;
        let started = Instant::now();
        let out = self.lower_and_assert(t);
        self.usage.lowering += started.elapsed();
        out
    }

    fn lower_and_assert(&mut self, t: &Term) -> Result<(), SolverError> {
        let lowered = lower_condition(t)?;
        if lowered.quantified {
            self.scope_by_literals();
        }
        self.assert_in_scope(lowered.conditions(), None)
    }

    /// Asserts `conditions` in the current scope, each implied by `guard` if there is one.
    fn assert_in_scope(
        &mut self,
        conditions: impl Iterator<Item = z3::ast::Bool>,
        guard: Option<&z3::ast::Bool>,
    ) -> Result<(), SolverError> {
        let frame = self.frames.last_mut().ok_or(SolverError::NoScope)?;
        for b in conditions {
            let b = guard.map_or(b.clone(), |g| g.implies(&b));
            match self.scope_literals.as_ref().and_then(|l| l.last()) {
                Some(scope) => self.z3.assert(&scope.implies(&b)),
                None => self.z3.assert(&b),
            }
            frame.push(b);
        }
        Ok(())
    }

    /// `t` as an assumption for later checks. A condition that is not a Boolean variable
    /// (or its negation) is lowered once here: a fresh Boolean is asserted, in the current
    /// scope, to imply it, and the assumption is usable while that scope is open.
    pub fn assume(&mut self, t: &Term) -> Result<Assumption, SolverError> {
        condition_sort(t)?;
        let started = Instant::now();
        let out = self.lower_assumption(t);
        self.usage.lowering += started.elapsed();
        out
    }

    fn lower_assumption(&mut self, t: &Term) -> Result<Assumption, SolverError> {
        let lowered = lower_condition(t)?;
        if lowered.quantified {
            self.scope_by_literals();
        }
        if lowered.definitions.is_empty() && assumable(&lowered.condition) {
            return Ok(Assumption {
                literal: lowered.condition,
                scope: None,
            });
        }
        let indicator = z3::ast::Bool::fresh_const("assumed");
        self.assert_in_scope(lowered.conditions(), Some(&indicator))?;
        Ok(Assumption {
            literal: indicator,
            scope: self.scope_ids.last().copied(),
        })
    }

    /// [`Solver::check`] of the assertions together with `assumed`, which stay unasserted.
    pub fn check_assuming(&mut self, assumed: &[Assumption]) -> Check {
        match self.assumed_literals(assumed) {
            Ok(literals) => outcome_check(self.check_reading(true, &literals)),
            Err(e) => Check::Unknown(e.to_string().into()),
        }
    }

    /// [`Solver::check_sat`] of the assertions together with `assumed`.
    pub fn check_sat_assuming(&mut self, assumed: &[Assumption]) -> CheckSat {
        match self.assumed_literals(assumed) {
            Ok(literals) => outcome_check_sat(self.check_reading(false, &literals)),
            Err(e) => CheckSat::Unknown(e.to_string().into()),
        }
    }

    /// The literals of `assumed`, all of whose defining scopes must still be open.
    fn assumed_literals(&self, assumed: &[Assumption]) -> Result<Vec<z3::ast::Bool>, SolverError> {
        assumed
            .iter()
            .map(|a| match a.scope {
                Some(id) if !self.scope_ids.contains(&id) => Err(SolverError::Internal(
                    "an assumption outlived the scope that defines it".into(),
                )),
                _ => Ok(a.literal.clone()),
            })
            .collect()
    }

    /// Checks the assertions.
    ///
    /// The reused (incremental) Z3 solver gets a quarter of the time. Without Z3's
    /// preprocessing it can get lost on queries a fresh solver settles at once (nonlinear
    /// `%` once the inputs are fixed), so when it answers `unknown`, a fresh solver holding
    /// every assertion gets the rest of the time.
    pub fn check(&mut self) -> Check {
        outcome_check(self.check_reading(true, &[]))
    }

    /// [`Solver::check`] without reading a model (which takes time).
    pub fn check_sat(&mut self) -> CheckSat {
        outcome_check_sat(self.check_reading(false, &[]))
    }

    /// A check assuming `literals`, reading a model if `model`.
    fn check_reading(&mut self, model: bool, literals: &[z3::ast::Bool]) -> Outcome {
        if let Some(cancel) = &self.cancel
            && let Err(stopped) = cancel.check()
        {
            return Outcome::Unknown(Unknown::Stopped(stopped));
        }
        if let Some((end, ms)) = self.budget
            && Instant::now() >= end
        {
            return Outcome::Unknown(budget_spent(ms).into());
        }
        let started = Instant::now();
        let (answer, fell_back) = self.check_counted(model, literals);
        self.usage.checks += 1 + u32::from(fell_back);
        self.usage.fallbacks += u32::from(fell_back);
        self.usage.checking += started.elapsed();
        answer
    }

    /// A check assuming `literals` (reading the model if `model`), and whether it fell back
    /// on a fresh solver.
    fn check_counted(&mut self, model: bool, literals: &[z3::ast::Bool]) -> (Outcome, bool) {
        if self.checks >= self.recycle_after {
            self.recycle();
        }
        self.checks += 1;
        let started = Instant::now();
        let budget = Duration::from_millis(u64::from(self.timeout_ms));
        let within = |deadline: Instant| self.budget.map_or(deadline, |(end, _)| end.min(deadline));
        let assumed: Vec<z3::ast::Bool> = match &self.scope_literals {
            Some(scopes) if !scopes.is_empty() => literals.iter().chain(scopes).cloned().collect(),
            _ => literals.to_vec(),
        };
        let first = self.watched_check(
            &self.z3,
            &assumed,
            within(started + budget / INCREMENTAL_SHARE),
        );
        let fresh;
        let fell_back = matches!(first, (z3::SatResult::Unknown, stopped) if stopped != Some(Stopped::Cancelled));
        let (solver, result, stopped) = match first {
            (z3::SatResult::Unknown, stopped) if stopped != Some(Stopped::Cancelled) => {
                fresh = z3_solver(self.rlimit);
                for b in self.frames.iter().flatten().chain(literals) {
                    fresh.assert(b);
                }
                let (result, stopped) = self.watched_check(&fresh, &[], within(started + budget));
                (&fresh, result, stopped)
            }
            (result, stopped) => (&self.z3, result, stopped),
        };
        let answer = match (result, stopped) {
            (z3::SatResult::Sat, _) if !model => Outcome::Sat(None),
            (z3::SatResult::Sat, _) => match solver.get_model() {
                Some(model) => Outcome::Sat(Some(Model {
                    model,
                    reading: Rc::clone(&self.reading),
                })),
                None => Outcome::Unknown("no model".into()),
            },
            (z3::SatResult::Unsat, _) => Outcome::Unsat,
            (z3::SatResult::Unknown, Some(Stopped::Cancelled)) => {
                Outcome::Unknown(Unknown::Stopped(self.cancel.as_ref().map_or(
                    crate::cancel::Stopped(crate::cancel::Stop::Interrupted),
                    Cancel::stopped,
                )))
            }
            (z3::SatResult::Unknown, Some(Stopped::TimedOut)) => match self.budget {
                Some((end, ms)) if Instant::now() >= end => {
                    Outcome::Unknown(budget_spent(ms).into())
                }
                _ => Outcome::Unknown("timeout".into()),
            },
            // Z3 says "canceled" when a check spends its resource units.
            (z3::SatResult::Unknown, None)
                if self.rlimit > 0
                    && solver.get_reason_unknown().as_deref() == Some("canceled") =>
            {
                Outcome::Unknown(Unknown::ResourceLimit(self.rlimit))
            }
            (z3::SatResult::Unknown, None) => Outcome::Unknown(Unknown::Reason(
                solver
                    .get_reason_unknown()
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| "unknown".into()),
            )),
        };
        (answer, fell_back)
    }

    /// Runs `solver`'s check on this thread while a watcher interrupts it at `deadline` or
    /// when the cancel flag is set; returns why it was stopped, if it was. (Z3's own
    /// `timeout` parameter is not used: its timer thread pool can deadlock in Z3 4.8.12,
    /// Z3Prover/z3#5369.)
    fn watched_check(
        &self,
        solver: &z3::Solver,
        literals: &[z3::ast::Bool],
        deadline: Instant,
    ) -> (z3::SatResult, Option<Stopped>) {
        let cancel = self.cancel.as_ref();
        let run = || {
            if literals.is_empty() {
                solver.check()
            } else {
                solver.check_assumptions(literals)
            }
        };
        let (result, stopped) = match self.serving_watch() {
            Some(watch) => watch.check(deadline, cancel, run),
            None => watch::check_alone(&self.ctx.handle(), cancel, deadline, run),
        };
        if stopped.is_some() {
            // An interrupt outlives the check it was meant for (Z3 4.8 keeps the context
            // interrupted, failing e.g. `simplify`) until a check clears it.
            z3::Solver::new().check();
        }
        (result, stopped)
    }

    /// The watcher serving this solver's checks, if any: its own (`watching`) or this
    /// thread's (`with_watcher`).
    fn serving_watch(&self) -> Option<Arc<Watch>> {
        match &self.watch {
            Some(watch) if watch.serving() => Some(Arc::clone(watch)),
            _ => thread_watch(),
        }
    }

    /// Runs `work` with one watcher thread serving all its checks, instead of a thread per
    /// check (none when this thread has one: see [`with_watcher`]).
    pub fn watching<T>(&mut self, work: impl FnOnce(&mut Solver) -> T) -> T {
        if self.serving_watch().is_some() {
            return work(self);
        }
        let ctx = self.ctx.clone();
        watch::serving(&ctx.handle(), |watch| {
            self.watch = Some(Arc::clone(watch));
            let out = work(self);
            self.watch = None;
            out
        })
    }

    /// Whether `t` is satisfiable together with the assertions.
    pub fn is_satisfiable(&mut self, t: &Term) -> Result<bool, SolverError> {
        self.push();
        let answer = self.assert(t).and_then(|()| match self.check() {
            Check::Sat(_) => Ok(true),
            Check::Unsat => Ok(false),
            Check::Unknown(reason) => Err(SolverError::Unknown(reason)),
        });
        self.pop()?;
        answer
    }

    /// Whether `a` implies `b` (under the assertions).
    pub fn implies(&mut self, a: &Term, b: &Term) -> Result<bool, SolverError> {
        let counter = Term::and(vec![a.clone(), Term::not(b.clone()).map_err(sort_error)?])
            .map_err(sort_error)?;
        Ok(!self.is_satisfiable(&counter)?)
    }

    /// Whether `a` and `b` have the same value under every assignment (`a != b` is
    /// unsatisfiable).
    pub fn equivalent(&mut self, a: &Term, b: &Term) -> Result<bool, SolverError> {
        Ok(self.counterexample(a, b)?.is_none())
    }

    /// Inputs on which `a` and `b` differ (the values of their variables), if any.
    pub fn counterexample(
        &mut self,
        a: &Term,
        b: &Term,
    ) -> Result<Option<Vec<(String, PyValue)>>, SolverError> {
        let differ = Term::compare(CompareOp::NotEq, a.clone(), b.clone()).map_err(sort_error)?;
        self.push();
        let answer = self.assert(&differ).and_then(|()| match self.check() {
            Check::Sat(model) => {
                let mut vars = a.vars();
                vars.extend(b.vars());
                vars.sort_by(|x, y| x.0.cmp(&y.0));
                vars.dedup_by(|x, y| x.0 == y.0);
                let mut values = Vec::with_capacity(vars.len());
                for (v, sort) in vars {
                    let t = Term::var(v.clone(), sort).map_err(sort_error)?;
                    values.push((v.display_name(), model.value(&t)?));
                }
                Ok(Some(values))
            }
            Check::Unsat => Ok(None),
            Check::Unknown(reason) => Err(SolverError::Unknown(reason)),
        });
        self.pop()?;
        answer
    }
}

/// A condition lowered to Z3, with the definitions of the auxiliary values it needs.
struct Lowered {
    definitions: Vec<z3::ast::Bool>,
    condition: z3::ast::Bool,
    /// Simplify before asserting: after a `push`, Z3 solves incrementally without its
    /// preprocessing, and unsimplified ground string terms can stall the string theory.
    /// (Connectives of Boolean variables have nothing to simplify worth the time.)
    simplify: bool,
    /// The condition holds a quantifier (see [`Solver::scope_by_literals`]).
    quantified: bool,
}

impl Lowered {
    /// What to assert: the definitions, then the condition.
    fn conditions(&self) -> impl Iterator<Item = z3::ast::Bool> + '_ {
        self.definitions.iter().chain([&self.condition]).map(|b| {
            if self.simplify {
                b.simplify()
            } else {
                b.clone()
            }
        })
    }
}

fn lower_condition(t: &Term) -> Result<Lowered, SolverError> {
    let mut low = Lowerer::new();
    let condition = low.boolean(t)?;
    let quantified = quantified(t);
    Ok(Lowered {
        definitions: low.all_definitions(),
        condition,
        // Z3's simplifier rewrites `seq.nth` under a quantifier into bounds cases that its
        // quantifier instantiation then cannot decide (`find`'s invariant timed out).
        simplify: !propositional(t) && !quantified,
        quantified,
    })
}

/// Whether `t` holds a quantifier (`all`/`any` of a comprehension).
fn quantified(t: &Term) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![t];
    while let Some(x) = stack.pop() {
        if !seen.insert(x.id()) {
            continue;
        }
        if matches!(x.kind(), super::term::TermKind::Quantified { .. }) {
            return true;
        }
        stack.extend(x.children());
    }
    false
}

fn outcome_check(outcome: Outcome) -> Check {
    match outcome {
        Outcome::Sat(Some(model)) => Check::Sat(model),
        Outcome::Sat(None) => Check::Unknown("no model".into()),
        Outcome::Unsat => Check::Unsat,
        Outcome::Unknown(reason) => Check::Unknown(reason),
    }
}

fn outcome_check_sat(outcome: Outcome) -> CheckSat {
    match outcome {
        Outcome::Sat(_) => CheckSat::Sat,
        Outcome::Unsat => CheckSat::Unsat,
        Outcome::Unknown(reason) => CheckSat::Unknown(reason),
    }
}

/// Whether `b` is a Boolean constant of ours or its negation: Z3 assumes only those.
fn assumable(b: &z3::ast::Bool) -> bool {
    let variable = |a: &z3::ast::Dynamic| {
        a.is_const()
            && a.safe_decl()
                .is_ok_and(|d| d.kind() == z3::DeclKind::Uninterpreted)
    };
    let dynamic = z3::ast::Dynamic::from_ast(b);
    if variable(&dynamic) {
        return true;
    }
    match b.safe_decl() {
        Ok(d) if d.kind() == z3::DeclKind::Not => b.children().first().is_some_and(variable),
        _ => false,
    }
}

/// Whether `t` only combines Boolean variables and literals with `not`, `and`, `or`.
fn propositional(t: &Term) -> bool {
    use super::term::TermKind::*;
    match t.kind() {
        Literal(_) | Var(_) => *t.sort() == Sort::Bool,
        Not(a) => propositional(a),
        And(xs) | Or(xs) => xs.iter().all(propositional),
        _ => false,
    }
}

fn condition_sort(t: &Term) -> Result<(), SolverError> {
    if *t.sort() != Sort::Bool {
        return Err(SolverError::NotCondition(t.sort().to_string()));
    }
    Ok(())
}

/// Whether [`Solver::assert`] accepts `t`, and if not why (without a solver).
pub fn assertable(t: &Term) -> Result<(), SolverError> {
    condition_sort(t)?;
    Lowerer::new().boolean(t).map(|_| ())
}

fn sort_error(e: super::term::SortError) -> SolverError {
    SolverError::Unsupported(e.0)
}

impl Model {
    /// The value of any term in this model (variables the model leaves open take Z3's
    /// default values).
    pub fn value(&self, t: &Term) -> Result<PyValue, SolverError> {
        let started = Instant::now();
        let out = self.read(t);
        self.reading.set(self.reading.get() + started.elapsed());
        out
    }

    fn read(&self, t: &Term) -> Result<PyValue, SolverError> {
        let mut low = Lowerer::evaluating(&self.model);
        let z = low.lower(t)?;
        convert::value(&self.model, &z, t.sort())
    }

    /// Whether a condition holds in this model.
    pub fn holds(&self, t: &Term) -> Result<bool, SolverError> {
        match self.value(t)? {
            PyValue::Bool(b) => Ok(b),
            other => Err(SolverError::NotCondition(other.type_name().into())),
        }
    }

    /// The value of every name bound in `env`, by name: a witness input.
    pub fn inputs(&self, env: &Env) -> Result<Vec<(String, PyValue)>, SolverError> {
        env.iter()
            .map(|(name, t)| Ok((name.to_string(), self.value(t)?)))
            .collect()
    }
}

/// Runs `work` on a thread of its own (with the kernel's stack size), so in a fresh Z3
/// context: Z3's model choice depends on the ids of the terms its context made before, so in
/// the session's context a command's witnesses would depend on the cells run before it.
pub fn in_fresh_context<T: Send>(
    name: &str,
    work: impl FnOnce() -> T + Send,
) -> Result<T, SolverError> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name(name.into())
            .stack_size(crate::python::depth::STACK_SIZE)
            .spawn_scoped(scope, work)
            .map_err(|e| SolverError::Internal(format!("no thread for the solver: {e}")))?
            .join()
            .map_err(|_| SolverError::Internal("the solver's thread panicked".into()))
    })
}

/// Nodes of the largest formula whose SMT-LIB text is printed.
pub const SMTLIB_MAX_NODES: usize = 20_000;

/// The SMT-LIB text of a term (Z3's printing of its lowering), followed by `(assert …)`
/// lines for the auxiliary constants it needs (open step-1 slices of sequences, the
/// `len!v` of the length abstraction).
pub fn smtlib(t: &Term) -> Result<String, SolverError> {
    // Z3's printer takes time in the written-out size and cannot be interrupted.
    let size = t.written_size(SMTLIB_MAX_NODES);
    if size > SMTLIB_MAX_NODES {
        return Err(SolverError::Unsupported(format!(
            "SMT-LIB text not printed: the formula has more than {SMTLIB_MAX_NODES} nodes written out"
        )));
    }
    let mut low = Lowerer::new();
    let lowered = match low.lower(t)? {
        lower::Z::Bool(x) => z3::ast::Dynamic::from_ast(&x),
        lower::Z::Int(x) => z3::ast::Dynamic::from_ast(&x),
        lower::Z::Real(x) => z3::ast::Dynamic::from_ast(&x),
        lower::Z::Str(x) => z3::ast::Dynamic::from_ast(&x),
        lower::Z::Seq(x) => z3::ast::Dynamic::from_ast(&x),
        lower::Z::Fixed(_) => {
            return Err(SolverError::Unsupported(format!(
                "SMT-LIB text of the display {t} (one term per item)"
            )));
        }
    };
    // The lowering repeats operands (`//` and `%` name each operand in both of their cases),
    // so a term of modest size can lower to one Z3 writes out at exponential length: the
    // fuzzer found `%constraints` stuck in Z3_ast_to_string (Z3 4.8.12 and 5.4 alike).
    let mut memo = std::collections::HashMap::new();
    let mut lowered_size = z3_written_size(&lowered, SMTLIB_MAX_NODES, &mut memo);
    let definitions = low.all_definitions();
    for d in &definitions {
        let d = z3::ast::Dynamic::from_ast(d);
        lowered_size =
            lowered_size.saturating_add(z3_written_size(&d, SMTLIB_MAX_NODES, &mut memo));
    }
    if lowered_size > SMTLIB_MAX_NODES {
        return Err(SolverError::Unsupported(format!(
            "SMT-LIB text not printed: the formula has more than {SMTLIB_MAX_NODES} nodes written out"
        )));
    }
    let text = lowered.to_string();
    let defs: Vec<String> = definitions
        .iter()
        .map(|d| format!("(assert {d})"))
        .collect();
    Ok(std::iter::once(text)
        .chain(defs)
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Nodes of a Z3 term written out in full (a shared subterm counted at each use), counted up
/// to `cap` (a larger size answers `cap + 1`): what Z3's printer spends its time in.
fn z3_written_size(
    a: &z3::ast::Dynamic,
    cap: usize,
    memo: &mut std::collections::HashMap<z3::ast::Dynamic, usize>,
) -> usize {
    if let Some(&n) = memo.get(a) {
        return n;
    }
    let mut n = 1usize;
    if a.kind() == z3::AstKind::App {
        for child in a.children() {
            n = n.saturating_add(z3_written_size(&child, cap, memo));
            if n > cap {
                break;
            }
        }
    }
    let n = n.min(cap.saturating_add(1));
    memo.insert(a.clone(), n);
    n
}

/// A complete SMT-LIB script (declarations and assertions) for conditions, as Z3 prints it.
pub fn smtlib_script(conditions: &[Term]) -> Result<String, SolverError> {
    let mut solver = Solver::new(DEFAULT_TIMEOUT_MS);
    for c in conditions {
        solver.assert(c)?;
    }
    Ok(solver.z3.to_smt2())
}

thread_local! {
    /// The watcher serving every check of this thread (`with_watcher`).
    static THREAD_WATCH: RefCell<Option<Arc<Watch>>> = const { RefCell::new(None) };
}

fn thread_watch() -> Option<Arc<Watch>> {
    THREAD_WATCH
        .with(|w| w.borrow().clone())
        .filter(|w| w.serving())
}

/// Restores this thread's previous watcher when dropped.
struct Installed(Option<Arc<Watch>>);

impl Drop for Installed {
    fn drop(&mut self) {
        let previous = self.0.take();
        THREAD_WATCH.with(|w| *w.borrow_mut() = previous);
    }
}

/// Runs `work` with one watcher thread serving every check this thread makes meanwhile,
/// whatever the solver: for callers that make many analyses in a row (a thread per
/// analysis costs more than most analyses). Nested calls share the outer watcher.
pub fn with_watcher<T>(work: impl FnOnce() -> T) -> T {
    if thread_watch().is_some() {
        return work();
    }
    let ctx = z3::Context::thread_local();
    watch::serving(&ctx.handle(), |watch| {
        let previous = THREAD_WATCH.with(|w| w.borrow_mut().replace(Arc::clone(watch)));
        let _installed = Installed(previous);
        work()
    })
}

thread_local! {
    /// The solver the free functions reuse (they only answer yes or no, so earlier queries
    /// cannot show in their results).
    static SHARED: RefCell<Option<Solver>> = const { RefCell::new(None) };
}

fn with_shared<T>(
    query: impl FnOnce(&mut Solver) -> Result<T, SolverError>,
) -> Result<T, SolverError> {
    SHARED.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => query(slot.get_or_insert_with(Solver::default)),
        Err(_) => query(&mut Solver::default()),
    })
}

/// Whether `t` is satisfiable (default timeout).
pub fn is_satisfiable(t: &Term) -> Result<bool, SolverError> {
    with_shared(|s| s.is_satisfiable(t))
}

/// Whether `a` implies `b` (default timeout).
pub fn implies(a: &Term, b: &Term) -> Result<bool, SolverError> {
    with_shared(|s| s.implies(a, b))
}

/// Whether `a` and `b` are equivalent (default timeout).
pub fn equivalent(a: &Term, b: &Term) -> Result<bool, SolverError> {
    with_shared(|s| s.equivalent(a, b))
}
