//! Generator functions (`yield`, `yield from`): each generator runs its frame on its own
//! small stack as a stackful coroutine (`corosensei`), so the recursive tree-walker can
//! suspend mid-body at a `yield` and resume there later. See ARCHITECTURE.md for why.
//!
//! The machine is passed to the coroutine at every resume (a raw pointer: the coroutine
//! only uses it between a resume and the next suspend, while the resumer waits), and the
//! innermost running generator's yielder is kept in [`Machine::yielder`].

use std::rc::Rc;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::code::{Body, Code};
use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, fail, type_error};
use super::exec::Flow;
use super::iter::{IterState, put_back, take_running};
use super::machine::{Frame, Machine};
use super::value::Value;

/// Each generator's stack: reserved, committed by the kernel only as it is touched (a
/// generator that does not recurse uses a few pages).
const STACK_BYTES: usize = 32 << 20;
/// Kept free at the end of a generator's stack (the recursion guard's margin).
const STACK_MARGIN: usize = 1 << 20;
/// Finished generators' stacks kept for reuse.
const STACK_POOL: usize = 16;

/// What a resume passes in: the machine, and the value `yield` evaluates to (or an
/// exception to raise there).
pub(crate) type Input = (*mut Machine, Resume);
pub(crate) type Y = Yielder<Input, Value>;
type Co = Coroutine<Input, Value, R<Value>, DefaultStack>;

pub(crate) enum Resume {
    Send(Value),
    Throw(Unwind),
}

/// A generator object's state.
pub(crate) struct GenObj {
    pub code: Rc<Code>,
    co: Option<Co>,
    /// The highest address of its stack (stacks grow down), for the recursion guard.
    stack_top: usize,
    started: bool,
    /// The value of the `return` that finished it, until `next()` takes it for
    /// `StopIteration.value`.
    pub returned: Option<Value>,
}

thread_local! {
    static STACKS: std::cell::RefCell<Vec<DefaultStack>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn new_stack() -> R<DefaultStack> {
    if let Some(s) = STACKS.with_borrow_mut(Vec::pop) {
        return Ok(s);
    }
    DefaultStack::new(STACK_BYTES).map_err(|_| {
        Unwind::new(
            ExcKind::MemoryError,
            "no memory for another generator's stack",
        )
    })
}

fn recycle(co: Co) {
    if co.done() {
        let stack = co.into_stack();
        STACKS.with_borrow_mut(|pool| {
            if pool.len() < STACK_POOL {
                pool.push(stack);
            }
        });
    }
}

impl GenObj {
    /// A generator that will run `code`'s body in `frame`.
    pub fn new(code: Rc<Code>, mut frame: Frame) -> R<GenObj> {
        let stack = new_stack()?;
        let stack_top = {
            use corosensei::stack::Stack;
            stack.base().get()
        };
        let body_code = code.clone();
        let co = Co::with_stack(stack, move |yielder: &Y, (machine, first): Input| {
            // SAFETY: the resumer holds the machine and waits until this coroutine
            // suspends or returns; the pointer is valid for that whole time.
            let m = unsafe { &mut *machine };
            m.yielder = yielder as *const Y;
            if let Resume::Throw(e) = first {
                return Err(e);
            }
            let Body::Block(stmts) = &body_code.body else {
                return Err(Unwind::unsupported("a generator without a body"));
            };
            match m.exec_block(&mut frame, stmts)? {
                Flow::Return(v) => Ok(v),
                _ => Ok(Value::None),
            }
        });
        Ok(GenObj {
            code,
            co: Some(co),
            stack_top,
            started: false,
            returned: None,
        })
    }

    pub fn repr(&self) -> String {
        format!("<generator object {}>", self.code.qualname)
    }

    pub fn finished(&self) -> bool {
        self.co.is_none()
    }
}

impl Machine {
    /// A `for` loop leaving its iterator early: a suspended generator nothing else refers to
    /// is closed (its `finally` blocks run), as CPython does when it drops the last
    /// reference. An exception from closing is dropped, as CPython only reports it.
    pub fn release_iter(&mut self, it: IterState) -> R<()> {
        let IterState::Shared(rc) = it else {
            return Ok(());
        };
        let suspended = Rc::strong_count(&rc) == 1
            && matches!(&*rc.borrow(), IterState::Coroutine(g) if g.started && !g.finished());
        if !suspended {
            return Ok(());
        }
        match self.gen_close(&rc) {
            Ok(_) => Ok(()),
            Err(e) if e.is_raise() => Ok(()),
            Err(abort) => Err(abort),
        }
    }
}

impl Machine {
    /// Closes the suspended generators among the iterators stores, `del`s and finished
    /// frames let go of, when nothing else refers to them (see [`Machine::release_iter`]).
    pub fn release_dropped(&mut self) -> R<()> {
        while let Some(rc) = self.dropped.pop() {
            self.release_iter(IterState::Shared(rc))?;
        }
        Ok(())
    }
}

impl Machine {
    /// Resumes a generator: `Some(value)` when it yields, `None` when it returns (its value
    /// kept in [`GenObj::returned`]); an exception it raises finishes it.
    pub fn gen_resume(&mut self, g: &mut GenObj, input: Resume) -> R<Option<Value>> {
        let Some(co) = g.co.as_mut() else {
            return match input {
                Resume::Throw(e) => Err(e),
                Resume::Send(_) => Ok(None),
            };
        };
        if !g.started {
            if let Resume::Send(v) = &input {
                if !matches!(v, Value::None) {
                    return fail(
                        ExcKind::TypeError,
                        "can't send non-None value to a just-started generator",
                    );
                }
            }
            g.started = true;
        }
        self.enter(&g.code)?;
        let saved = (self.yielder, self.stack_base, self.stack_room);
        self.stack_base = g.stack_top;
        self.stack_room = STACK_BYTES - STACK_MARGIN;
        let machine: *mut Machine = self;
        let result = co.resume((machine, input));
        (self.yielder, self.stack_base, self.stack_room) = saved;
        self.leave();
        match result {
            CoroutineResult::Yield(v) => Ok(Some(v)),
            CoroutineResult::Return(r) => {
                if let Some(co) = g.co.take() {
                    recycle(co);
                }
                match r {
                    Ok(v) => {
                        g.returned = Some(v);
                        Ok(None)
                    }
                    Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::StopIteration)) => {
                        let mut e =
                            Unwind::new(ExcKind::RuntimeError, "generator raised StopIteration");
                        if let (Some(r), Some(raised)) = (e.raised_mut(), unwind.raised()) {
                            r.tb = raised.tb.clone();
                        }
                        Err(e)
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// `yield value` inside a generator's body: suspends it; the value sent back is the
    /// result (or an exception thrown in is raised here).
    pub fn yield_value(&mut self, v: Value) -> R<Value> {
        if self.yielder.is_null() {
            return Err(Unwind::unsupported("yield outside a running generator"));
        }
        // SAFETY: set by the running coroutine to its own yielder, which lives on its
        // stack for as long as it runs; reset by the resumer after every resume.
        let yielder = unsafe { &*self.yielder };
        let own = self.yielder;
        let (machine, input) = yielder.suspend(v);
        // SAFETY: as in `GenObj::new`: the resumer passed its machine, which is `self`.
        let m = unsafe { &mut *machine };
        m.yielder = own;
        match input {
            Resume::Send(x) => Ok(x),
            Resume::Throw(e) => Err(e),
        }
    }

    /// `yield from iterable`: passes every value of the inner iterator out (and sent
    /// values in, to an inner generator); its result is the inner generator's return value.
    pub fn yield_from(&mut self, iterable: Value) -> R<Value> {
        let it = self.iter_of(iterable)?;
        let shared = match it {
            IterState::Shared(rc) => rc,
            other => Rc::new(std::cell::RefCell::new(other)),
        };
        let mut input = Resume::Send(Value::None);
        loop {
            let step = {
                let mut state = take_running(&shared);
                let r = match (&mut state, input) {
                    (IterState::Coroutine(g), input) => self.gen_resume(g, input),
                    (IterState::Running, _) => {
                        fail(ExcKind::ValueError, "generator already executing")
                    }
                    // An exception thrown into a plain iterator is raised here.
                    (_, Resume::Throw(e)) => Err(e),
                    (other, Resume::Send(_)) => self.next(other),
                };
                let returned = match &mut state {
                    IterState::Coroutine(g) => g.returned.take(),
                    _ => None,
                };
                put_back(&shared, state);
                match r? {
                    Some(v) => Ok(v),
                    None => Err(returned.unwrap_or(Value::None)),
                }
            };
            match step {
                // An exception thrown into this generator goes on to the inner one.
                Ok(v) => {
                    input = match self.yield_value(v) {
                        Ok(sent) => Resume::Send(sent),
                        Err(e) if e.is_raise() => Resume::Throw(e),
                        Err(abort) => return Err(abort),
                    }
                }
                Err(result) => return Ok(result),
            }
        }
    }

    /// `g.send(value)`.
    pub fn gen_send(&mut self, shared: &Rc<std::cell::RefCell<IterState>>, v: Value) -> R<Value> {
        let mut state = take_running(&shared);
        let r = match &mut state {
            IterState::Coroutine(g) => {
                let r = self.gen_resume(g, Resume::Send(v));
                let returned = g.returned.take();
                r.map(|x| x.ok_or(returned))
            }
            IterState::Running => fail(ExcKind::ValueError, "generator already executing"),
            _ => fail(ExcKind::AttributeError, "object has no attribute 'send'"),
        };
        put_back(&shared, state);
        match r? {
            Ok(x) => Ok(x),
            Err(returned) => Err(stop_iteration(returned)),
        }
    }

    /// `g.throw(exc)` (an exception object or class; the old `throw(type, value)` form
    /// too): raised at the suspended `yield`; returns the next value the generator yields.
    /// Thrown into a generator that has not started, it finishes it without running it.
    pub fn gen_throw(
        &mut self,
        shared: &Rc<std::cell::RefCell<IterState>>,
        args: Vec<Value>,
    ) -> R<Value> {
        let exc = self.thrown(args)?;
        let mut state = take_running(&shared);
        let r = match &mut state {
            IterState::Coroutine(g) if !g.started => {
                if let Some(co) = g.co.take() {
                    recycle(co);
                }
                Err(exc)
            }
            IterState::Coroutine(g) => {
                let r = self.gen_resume(g, Resume::Throw(exc));
                let returned = g.returned.take();
                r.map(|x| x.ok_or(returned))
            }
            IterState::Running => fail(ExcKind::ValueError, "generator already executing"),
            _ => fail(ExcKind::AttributeError, "object has no attribute 'throw'"),
        };
        put_back(&shared, state);
        match r? {
            Ok(x) => Ok(x),
            Err(returned) => Err(stop_iteration(returned)),
        }
    }

    /// The exception `g.throw(...)` raises, from its arguments.
    fn thrown(&mut self, args: Vec<Value>) -> R<Unwind> {
        let mut args = args.into_iter();
        let (Some(first), second) = (args.next(), args.next()) else {
            return type_error("throw expected at least 1 argument, got 0");
        };
        let v = match (first, second) {
            (v @ Value::Exception(_), None | Some(Value::None)) => v,
            (Value::Exception(_), Some(_)) => {
                return type_error("instance exception may not have a separate value");
            }
            (class @ (Value::ExcType(_) | Value::UserExcType(_)), value) => match value {
                Some(v @ Value::Exception(_)) => v,
                None | Some(Value::None) => self.call(&class, Vec::new(), Vec::new())?,
                Some(Value::Tuple(items)) => self.call(&class, items.to_vec(), Vec::new())?,
                Some(v) => self.call(&class, vec![v], Vec::new())?,
            },
            (other, _) => {
                return type_error(format!(
                    "exceptions must be classes or instances deriving from BaseException, not {}",
                    other.type_name()
                ));
            }
        };
        match super::exec::exception_of(v) {
            Some(exc) => Ok(Unwind::raise(super::exc::Raised {
                exc,
                tb: Vec::new(),
            })),
            None => type_error("exceptions must derive from BaseException"),
        }
    }

    /// `g.close()`: a suspended generator gets `GeneratorExit` at its `yield` (its
    /// `finally` blocks run); yielding again is a `RuntimeError`.
    pub fn gen_close(&mut self, shared: &Rc<std::cell::RefCell<IterState>>) -> R<Value> {
        let mut state = take_running(&shared);
        let r = match &mut state {
            IterState::Coroutine(g) if g.started && !g.finished() => {
                let exit = Unwind::from_object(ExcObject::new(
                    ExcClass::Builtin(ExcKind::GeneratorExit),
                    Vec::new(),
                ));
                match self.gen_resume(g, Resume::Throw(exit)) {
                    Ok(Some(_)) => fail(ExcKind::RuntimeError, "generator ignored GeneratorExit"),
                    Ok(None) => Ok(Value::None),
                    Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::GeneratorExit)) => {
                        Ok(Value::None)
                    }
                    Err(e) => Err(e),
                }
            }
            IterState::Coroutine(g) => {
                g.co = None;
                Ok(Value::None)
            }
            IterState::Running => fail(ExcKind::ValueError, "generator already executing"),
            _ => Ok(Value::None),
        };
        put_back(&shared, state);
        r
    }
}

/// `StopIteration(value)` (no argument for `None`).
pub(crate) fn stop_iteration(value: Option<Value>) -> Unwind {
    let args = match value {
        None | Some(Value::None) => Vec::new(),
        Some(v) => vec![v],
    };
    Unwind::from_object(ExcObject::new(
        ExcClass::Builtin(ExcKind::StopIteration),
        args,
    ))
}

#[cfg(test)]
mod tests {
    use crate::cancel::Cancel;
    use crate::interp::{Interpreter, Limits, RunError};
    use crate::python::lower_module;

    fn run(src: &str, limits: Limits) -> (String, Result<(), RunError>) {
        let module = lower_module(src).expect("parses");
        let mut out = String::new();
        let r = Interpreter::new()
            .run_module(&module, &mut |_, t| out.push_str(t), &Cancel::new(), limits)
            .map(|_| ());
        (out, r)
    }

    #[test]
    fn many_live_generators_and_deep_recursion_inside_one() {
        let src = "def count(n):\n    i = n\n    while True:\n        yield i\n        i += 1\n\
                   gens = [count(i) for i in range(20000)]\n\
                   print(sum(next(g) for g in gens), sum(next(g) for g in gens))\n\
                   def rec(n):\n    return 0 if n == 0 else 1 + rec(n - 1)\n\
                   def deep():\n    yield rec(900)\n    yield rec(100000)\n\
                   d = deep()\nprint(next(d))\nnext(d)";
        let (out, r) = run(src, Limits::new(50_000_000, 3000));
        assert_eq!(out, "199990000 200010000\n900\n");
        match r {
            Err(RunError::Exception(e)) => {
                assert_eq!(e.type_name, "RecursionError");
                assert_eq!(e.traceback[1].function, "deep");
                assert_eq!(e.traceback[1].line, 12);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_endless_generator_stops_at_the_step_budget() {
        let src = "def forever():\n    while True:\n        yield 1\nfor x in forever():\n    pass";
        let (_, r) = run(src, Limits::new(100_000, 500));
        assert!(
            matches!(r, Err(RunError::StepBudgetExceeded { .. })),
            "{r:?}"
        );
        let src =
            "def spin():\n    yield 1\n    while True:\n        pass\ng = spin()\nnext(g)\nnext(g)";
        let (_, r) = run(src, Limits::new(100_000, 500));
        assert!(
            matches!(r, Err(RunError::StepBudgetExceeded { .. })),
            "{r:?}"
        );
    }
}
