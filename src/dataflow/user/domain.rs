//! A domain written in a cell as an [`AbstractDomain`]: its elements are interpreter values
//! ([`UserElem`]) and every lattice operation and abstract operator calls the user's method
//! through [`crate::interp::host`], so the engine, the views and the checks treat it like a
//! built-in domain.
//!
//! The domain's instance lives in a thread-local [`Context`] for the duration of one command
//! ([`Context::enter`]). `⊥` and `⊤` are the sentinels [`UserElem::Bottom`] / [`UserElem::Top`]:
//! every value a method returns that equals the user's `bottom` / `top` is mapped to them, so
//! the engine's constants mean the user's elements. Operators are strict: an operand `⊥` gives
//! `⊥` without calling the user. The first exception (or stop) in user code is recorded with
//! the operation and the node that called it; later calls return at once without calling the
//! user, so the fixpoint ends quickly and the command reports the error.
//!
//! The user's methods are taken to be functions of their arguments: within one command, the
//! result of an operator, `leq` and `contains` on elements that are plain data (None, bool,
//! int, str, tuples and lists of these; keyed by their repr) is remembered and not asked
//! again ([`memo_hits`] counts the answers given from memory).

use std::cell::{Cell, OnceCell, RefCell};
use std::fmt;
use std::rc::Rc;

use num_bigint::BigInt;
use serde_json::Value;

use crate::dataflow::domains::{AbstractDomain, BinOp, CmpOp};
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use crate::fxhash::FxHashMap;
use crate::interp::RunError;
use crate::interp::host::{self, HostValue};

/// An element of a user's domain.
#[derive(Clone)]
pub enum UserElem {
    Bottom,
    Top,
    Val(Rc<Elem>),
}

/// A value other than `bottom`/`top`, with its text once shown and its memo id.
pub struct Elem {
    pub value: HostValue,
    text: OnceCell<String>,
    /// `(generation, id)`: its id in the context of that generation ([`NO_ID`]: not plain
    /// data; generation 0: not asked yet).
    id: Cell<(u64, u32)>,
}

/// The id of a value that is not plain data (it is never remembered).
const NO_ID: u32 = u32::MAX;
/// The ids of `⊥` and `⊤`.
const BOTTOM_ID: u32 = 0;
const TOP_ID: u32 = 1;

/// An exception or stop in the user's code, with the engine step that called it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserError {
    pub error: RunError,
    /// The method called (`add`, `join`, `abstract`, …).
    pub method: String,
    /// Its arguments as the domain shows them.
    pub args: Vec<String>,
    /// The CFG node whose transfer or edge called it, when the engine was running.
    pub node: Option<usize>,
}

/// The methods of the protocol a class overrides (the rest are `Domain`'s defaults).
#[derive(Clone, Copy, Debug, Default)]
pub struct Overrides {
    pub widen: bool,
    pub meet: bool,
    pub refine: bool,
    pub elements: bool,
}

/// The domain being used on this thread.
pub struct Context {
    pub name: &'static str,
    pub instance: HostValue,
    pub bottom: HostValue,
    pub top: HostValue,
    pub overrides: Overrides,
    /// `elements()`, normalized, when the domain enumerates a window.
    pub elements: Option<Vec<UserElem>>,
    error: Option<UserError>,
    calls: u64,
    /// `show(bottom)` and `show(top)`, once asked for.
    shown: [OnceCell<String>; 2],
    /// Ids of plain-data values and method names, by their repr (`⊥`/`⊤` are 0 and 1).
    ids: FxHashMap<Rc<str>, u32>,
    /// Answers of the user's methods, by [`memo_key`].
    memo: FxHashMap<Key, Memo>,
    /// Answers of `contains`, by element id and int (as `i128` when it fits: no allocation).
    contains_memo: FxHashMap<(u32, i128), bool>,
    contains_memo_big: FxHashMap<(u32, BigInt), bool>,
    memo_hits: u64,
    /// Calls per method (the profile `%check-domain` reports).
    by_method: std::collections::BTreeMap<String, u64>,
}

/// A remembered answer.
#[derive(Clone)]
enum Memo {
    Elem(UserElem),
    Bool(bool),
}

/// Answers remembered per command at most.
const MEMO_LIMIT: usize = 1 << 19;

/// A memo key: the method's id, then its arguments' ids ([`NO_ID`] past the last).
type Key = [u32; 5];

thread_local! {
    static GENERATION: Cell<u64> = const { Cell::new(0) };
    static CONTEXT: RefCell<Option<Context>> = const { RefCell::new(None) };
    static NODE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Ends the use of the domain when dropped.
pub struct Entered(());

impl Drop for Entered {
    fn drop(&mut self) {
        CONTEXT.with(|c| *c.borrow_mut() = None);
        NODE.with(|n| n.set(None));
    }
}

/// Records the node the engine is working on (called by abstract interpretation's transfer
/// and edge functions; cheap for built-in domains).
pub fn at_node(node: usize) {
    NODE.with(|n| n.set(Some(node)));
}

impl Context {
    /// Makes an instance of `class` the domain of this thread until the guard drops.
    pub fn enter(name: &'static str, class: &HostValue) -> Result<Entered, UserError> {
        let setup = |method: &str, e: RunError| UserError {
            error: e,
            method: method.to_string(),
            args: Vec::new(),
            node: None,
        };
        let instance = host::call(class, Vec::new()).map_err(|e| setup("__init__", e))?;
        let bottom = host::attr(&instance, "bottom").map_err(|e| setup("bottom", e))?;
        let top = host::attr(&instance, "top").map_err(|e| setup("top", e))?;
        if bottom.is_none() || top.is_none() {
            let missing = if bottom.is_none() { "bottom" } else { "top" };
            return Err(setup(
                missing,
                RunError::Exception(crate::interp::PyException {
                    type_name: "TypeError".into(),
                    builtin_type: "TypeError".into(),
                    message: format!(
                        "domain {name:?} must set `{missing}` (a class attribute: its element)"
                    ),
                    line: 0,
                    traceback: Vec::new(),
                }),
            ));
        }
        let module = host::module().map_err(|e| setup("analysis", e))?;
        let overrides_of = |method: &str| -> Result<bool, UserError> {
            host::call_method(
                &module,
                "overrides",
                vec![instance.clone(), HostValue::str(method)],
            )
            .and_then(|v| host::truthy(&v))
            .map_err(|e| setup(method, e))
        };
        let overrides = Overrides {
            widen: overrides_of("widen")?,
            meet: overrides_of("meet")?,
            refine: overrides_of("refine")?,
            elements: overrides_of("elements")?,
        };
        // Elements' cached ids are valid within one entry only.
        GENERATION.with(|g| g.set(g.get() + 1));
        CONTEXT.with(|c| {
            *c.borrow_mut() = Some(Context {
                name,
                instance: instance.clone(),
                bottom,
                top,
                overrides,
                elements: None,
                error: None,
                calls: 0,
                shown: [OnceCell::new(), OnceCell::new()],
                ids: FxHashMap::default(),
                memo: FxHashMap::default(),
                contains_memo: FxHashMap::default(),
                contains_memo_big: FxHashMap::default(),
                memo_hits: 0,
                by_method: std::collections::BTreeMap::new(),
            })
        });
        let guard = Entered(());
        if overrides.elements {
            let list = host::call_method(&instance, "elements", Vec::new())
                .and_then(|v| {
                    if v.is_none() {
                        Ok(None)
                    } else {
                        host::items(&v).map(Some)
                    }
                })
                .map_err(|e| setup("elements", e))?;
            if let Some(list) = list {
                let elems: Vec<UserElem> = list.into_iter().map(normalize).collect();
                if let Some(e) = take_error() {
                    return Err(e);
                }
                CONTEXT.with(|c| {
                    if let Some(ctx) = c.borrow_mut().as_mut() {
                        ctx.elements = Some(elems);
                    }
                });
            }
        }
        Ok(guard)
    }
}

impl Context {
    /// Counts one call of `method` (no allocation once the method is known).
    fn count(&mut self, method: &str) {
        self.calls += 1;
        match self.by_method.get_mut(method) {
            Some(n) => *n += 1,
            None => {
                self.by_method.insert(method.to_string(), 1);
            }
        }
    }
}

/// The domain's overrides and name (defaults when none is entered).
pub fn current() -> (&'static str, Overrides) {
    CONTEXT.with(|c| {
        c.borrow()
            .as_ref()
            .map_or(("user", Overrides::default()), |ctx| {
                (ctx.name, ctx.overrides)
            })
    })
}

/// The first error in user code since the domain was entered, removing it.
pub fn take_error() -> Option<UserError> {
    CONTEXT.with(|c| c.borrow_mut().as_mut().and_then(|ctx| ctx.error.take()))
}

/// Whether user code has failed (later calls are skipped).
pub fn failed() -> bool {
    CONTEXT.with(|c| c.borrow().as_ref().is_none_or(|ctx| ctx.error.is_some()))
}

/// Calls into user code so far.
pub fn calls() -> u64 {
    CONTEXT.with(|c| c.borrow().as_ref().map_or(0, |ctx| ctx.calls))
}

/// Calls into user code so far, per method.
pub fn calls_by_method() -> Vec<(String, u64)> {
    CONTEXT.with(|c| {
        c.borrow()
            .as_ref()
            .map(|ctx| ctx.by_method.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default()
    })
}

/// Answers given from memory so far (see the module's doc).
pub fn memo_hits() -> u64 {
    CONTEXT.with(|c| c.borrow().as_ref().map_or(0, |ctx| ctx.memo_hits))
}

/// The id of `text` (a repr or a method's name) in the context, made on first use.
fn id_of(ctx: &mut Context, text: &str) -> u32 {
    if let Some(&id) = ctx.ids.get(text) {
        return id;
    }
    let id = u32::try_from(ctx.ids.len() + 2).unwrap_or(NO_ID - 1);
    ctx.ids.insert(Rc::from(text), id);
    id
}

/// The memo id of an element: `⊥`/`⊤`, or the id of a plain-data value's repr (equal ids,
/// equal values); `None` for other values or when no domain is entered.
fn elem_id(e: &UserElem) -> Option<u32> {
    let v = match e {
        UserElem::Bottom => return Some(BOTTOM_ID),
        UserElem::Top => return Some(TOP_ID),
        UserElem::Val(v) => v,
    };
    let generation = GENERATION.with(Cell::get);
    let (g, id) = v.id.get();
    if g == generation && g != 0 {
        return (id != NO_ID).then_some(id);
    }
    let repr = v.value.to_py().map(|p| p.repr());
    let id = CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut()?;
        Some(repr.as_deref().map_or(NO_ID, |r| id_of(ctx, r)))
    })?;
    v.id.set((generation, id));
    (id != NO_ID).then_some(id)
}

/// The key of `method(*lead, *args)`, when every argument is plain data.
fn memo_key(method: &str, lead: &[HostValue], args: &[&UserElem]) -> Option<Key> {
    let mut key = [NO_ID; 5];
    if lead.len() + args.len() >= key.len() {
        return None;
    }
    let leads: Vec<String> = lead
        .iter()
        .map(|v| v.to_py().map(|p| p.repr()))
        .collect::<Option<_>>()?;
    for (slot, a) in key[1 + leads.len()..].iter_mut().zip(args) {
        *slot = elem_id(a)?;
    }
    CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut()?;
        key[0] = id_of(ctx, method);
        for (slot, text) in key[1..].iter_mut().zip(&leads) {
            *slot = id_of(ctx, text);
        }
        Some(key)
    })
}

/// The remembered answer for `key`, counted as a hit.
fn recall(key: &Option<Key>) -> Option<Memo> {
    let key = key.as_ref()?;
    CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut()?;
        let found = ctx.memo.get(key).cloned();
        if found.is_some() {
            ctx.memo_hits += 1;
        }
        found
    })
}

/// Remembers `answer` unless user code has failed (its answers are stand-ins).
fn remember(key: Option<Key>, answer: Memo) {
    let Some(key) = key else { return };
    CONTEXT.with(|c| {
        if let Some(ctx) = c.borrow_mut().as_mut()
            && ctx.error.is_none()
            && ctx.memo.len() < MEMO_LIMIT
        {
            ctx.memo.insert(key, answer);
        }
    });
}

/// The user's value of an element.
pub fn value_of(e: &UserElem) -> Option<HostValue> {
    match e {
        UserElem::Val(v) => Some(v.value.clone()),
        UserElem::Bottom => CONTEXT.with(|c| c.borrow().as_ref().map(|ctx| ctx.bottom.clone())),
        UserElem::Top => CONTEXT.with(|c| c.borrow().as_ref().map(|ctx| ctx.top.clone())),
    }
}

/// `instance.method(*args)` on elements and extra leading values; `None` after an error.
pub fn call(method: &str, lead: Vec<HostValue>, args: &[&UserElem]) -> Option<HostValue> {
    let instance = CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut()?;
        if ctx.error.is_some() {
            return None;
        }
        ctx.count(method);
        Some(ctx.instance.clone())
    })?;
    let mut values = lead.clone();
    for a in args {
        values.push(value_of(a)?);
    }
    match host::call_method(&instance, method, values) {
        Ok(v) => Some(v),
        Err(error) => {
            let mut shown: Vec<String> = lead
                .iter()
                .map(|v| host::repr_of(v).unwrap_or_default())
                .collect();
            shown.extend(args.iter().map(|a| show(a)));
            record(UserError {
                error,
                method: method.to_string(),
                args: shown,
                node: NODE.with(Cell::get),
            });
            None
        }
    }
}

/// Records a failure unless one is recorded already.
pub fn record(e: UserError) {
    CONTEXT.with(|c| {
        if let Some(ctx) = c.borrow_mut().as_mut() {
            ctx.error.get_or_insert(e);
        }
    });
}

/// A returned value as an element: the sentinels for values equal to `bottom` / `top`.
pub fn normalize(v: HostValue) -> UserElem {
    let Some((bottom, top)) = CONTEXT.with(|c| {
        c.borrow()
            .as_ref()
            .map(|ctx| (ctx.bottom.clone(), ctx.top.clone()))
    }) else {
        return UserElem::Top;
    };
    let equal = |other: &HostValue, which: &str| match host::eq(&v, other) {
        Ok(b) => b,
        Err(error) => {
            record(UserError {
                error,
                method: format!("__eq__ (comparing with {which})"),
                args: vec![host::repr_of(&v).unwrap_or_default()],
                node: NODE.with(Cell::get),
            });
            false
        }
    };
    if equal(&bottom, "bottom") {
        UserElem::Bottom
    } else if equal(&top, "top") {
        UserElem::Top
    } else {
        UserElem::Val(Rc::new(Elem {
            value: v,
            text: OnceCell::new(),
            id: Cell::new((0, NO_ID)),
        }))
    }
}

/// How the domain shows an element (`show`, by default `str`).
pub fn show(e: &UserElem) -> String {
    let text_of = |value: &HostValue| {
        let instance = CONTEXT.with(|c| c.borrow().as_ref().map(|x| x.instance.clone()));
        instance
            .and_then(|i| host::call_method(&i, "show", vec![value.clone()]).ok())
            .and_then(|s| host::str_of(&s).ok())
            .or_else(|| host::repr_of(value).ok())
            .unwrap_or_else(|| "?".into())
    };
    match e {
        UserElem::Bottom | UserElem::Top => {
            let i = usize::from(matches!(e, UserElem::Top));
            let cached = CONTEXT.with(|c| {
                c.borrow()
                    .as_ref()
                    .and_then(|ctx| ctx.shown[i].get().cloned())
            });
            if let Some(text) = cached {
                return text;
            }
            let Some(value) = value_of(e) else {
                return if i == 0 { "⊥".into() } else { "⊤".into() };
            };
            let text = text_of(&value);
            CONTEXT.with(|c| {
                if let Some(ctx) = c.borrow().as_ref() {
                    let _ = ctx.shown[i].set(text.clone());
                }
            });
            text
        }
        UserElem::Val(v) => v.text.get_or_init(|| text_of(&v.value)).clone(),
    }
}

/// `method(args)` as an element (`⊤` after an error), remembered.
pub fn op(method: &str, lead: Vec<HostValue>, args: &[&UserElem]) -> UserElem {
    let key = memo_key(method, &lead, args);
    if let Some(Memo::Elem(e)) = recall(&key) {
        return e;
    }
    let result = call(method, lead, args).map_or(UserElem::Top, normalize);
    remember(key, Memo::Elem(result.clone()));
    result
}

/// `bool(method(args))` (`after_error` after an error), remembered.
pub fn truth(method: &str, args: &[&UserElem], after_error: bool) -> bool {
    let key = memo_key(method, &[], args);
    if let Some(Memo::Bool(b)) = recall(&key) {
        return b;
    }
    let answer = truth_called(method, args, after_error);
    remember(key, Memo::Bool(answer));
    answer
}

fn truth_called(method: &str, args: &[&UserElem], after_error: bool) -> bool {
    call(method, Vec::new(), args)
        .and_then(|v| match host::truthy(&v) {
            Ok(b) => Some(b),
            Err(error) => {
                record(UserError {
                    error,
                    method: format!("bool() of {method}'s result"),
                    args: args.iter().map(|a| show(a)).collect(),
                    node: NODE.with(Cell::get),
                });
                None
            }
        })
        .unwrap_or(after_error)
}

/// The method implementing `op`.
pub fn method_of(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::FloorDiv => "floordiv",
        BinOp::Mod => "mod",
    }
}

impl PartialEq for UserElem {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (UserElem::Bottom, UserElem::Bottom) | (UserElem::Top, UserElem::Top) => true,
            (UserElem::Val(a), UserElem::Val(b)) => {
                Rc::ptr_eq(a, b)
                    || failed()
                    || elem_id(self).is_some_and(|k| Some(k) == elem_id(other))
                    || host::eq(&a.value, &b.value).unwrap_or_else(|error| {
                        record(UserError {
                            error,
                            method: "__eq__".into(),
                            args: vec![show(self), show(other)],
                            node: NODE.with(Cell::get),
                        });
                        true
                    })
            }
            _ => false,
        }
    }
}

impl Eq for UserElem {}

impl fmt::Debug for UserElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show(self))
    }
}

impl fmt::Display for UserElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show(self))
    }
}

fn replace(slot: &mut UserElem, new: UserElem) -> bool {
    if *slot == new {
        return false;
    }
    *slot = new;
    true
}

impl JoinSemiLattice for UserElem {
    fn join(&mut self, other: &Self) -> bool {
        match (&*self, other) {
            (_, UserElem::Bottom) | (UserElem::Top, _) => false,
            (UserElem::Bottom, _) => replace(self, other.clone()),
            _ => {
                let new = op("join", Vec::new(), &[self, other]);
                replace(self, new)
            }
        }
    }

    fn leq(&self, other: &Self) -> bool {
        match (self, other) {
            (UserElem::Bottom, _) | (_, UserElem::Top) => true,
            (_, UserElem::Bottom) | (UserElem::Top, _) => false,
            _ => truth("leq", &[self, other], true),
        }
    }
}

impl MeetSemiLattice for UserElem {
    fn meet(&mut self, other: &Self) -> bool {
        match (&*self, other) {
            (_, UserElem::Top) | (UserElem::Bottom, _) => false,
            (UserElem::Top, _) => replace(self, other.clone()),
            _ => {
                let new = op("meet", Vec::new(), &[self, other]);
                replace(self, new)
            }
        }
    }
}

impl HasBottom for UserElem {
    const BOTTOM: Self = UserElem::Bottom;
    fn is_bottom(&self) -> bool {
        matches!(self, UserElem::Bottom)
    }
}

impl HasTop for UserElem {
    const TOP: Self = UserElem::Top;
    fn is_top(&self) -> bool {
        matches!(self, UserElem::Top)
    }
}

impl Widening for UserElem {
    fn widen(&mut self, next: &Self) -> bool {
        if !current().1.widen {
            return self.join(next);
        }
        match (&*self, next) {
            (_, UserElem::Bottom) | (UserElem::Top, _) => false,
            (UserElem::Bottom, _) => replace(self, next.clone()),
            _ => {
                let new = op("widen", Vec::new(), &[self, next]);
                replace(self, new)
            }
        }
    }

    fn narrow(&mut self, next: &Self) -> bool {
        match (&*self, next) {
            (UserElem::Bottom, _) => false,
            _ => {
                let new = op("narrow", Vec::new(), &[self, next]);
                replace(self, new)
            }
        }
    }
}

impl AbstractDomain for UserElem {
    const NAME: &'static str = "user";

    fn alpha(i: &BigInt) -> Self {
        op("abstract", vec![HostValue::int(i)], &[])
    }

    fn contains(&self, i: &BigInt) -> bool {
        match self {
            UserElem::Bottom => false,
            UserElem::Top => true,
            _ => contains_int(self, i),
        }
    }

    fn binary(op_: BinOp, a: &Self, b: &Self) -> Self {
        if a.is_bottom() || b.is_bottom() {
            return UserElem::Bottom;
        }
        op(method_of(op_), Vec::new(), &[a, b])
    }

    fn negate(&self) -> Self {
        if self.is_bottom() {
            return UserElem::Bottom;
        }
        op("neg", Vec::new(), &[self])
    }

    fn refine(&self, cmp: CmpOp, other: &Self) -> Self {
        if self.is_bottom() || other.is_bottom() {
            return UserElem::Bottom;
        }
        op("refine", vec![HostValue::str(cmp.symbol())], &[self, other])
    }

    fn refine_mod_left(left: &Self, right: &Self, result: &Self) -> Self {
        if left.is_bottom() || right.is_bottom() || result.is_bottom() {
            return UserElem::Bottom;
        }
        op("refine_mod", Vec::new(), &[left, right, result])
    }

    fn must_be_zero(&self) -> bool {
        self.contains(&BigInt::ZERO)
            && [1, -1, 2, -2, 3, -3]
                .iter()
                .all(|n| !self.contains(&BigInt::from(*n)))
    }

    /// `{"value": V, "text": show}`: `V` is the element as JSON when it is plain data (None,
    /// bool, int, str, tuples and lists of these); only the text otherwise.
    fn to_json(&self) -> Value {
        let text = Value::String(show(self));
        match value_of(self).and_then(|v| v.to_py()) {
            Some(py) => serde_json::json!({"value": py.to_json(), "text": text}),
            None => serde_json::json!({"text": text}),
        }
    }

    fn finite_elements() -> Option<Vec<Self>> {
        CONTEXT.with(|c| c.borrow().as_ref().and_then(|ctx| ctx.elements.clone()))
    }
}

/// `contains(a, i)` as the user defines it (remembered).
fn contains_int(a: &UserElem, i: &BigInt) -> bool {
    let Some(id) = elem_id(a) else {
        return contains_called(a, i);
    };
    let small = i128::try_from(i).ok();
    let known = CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut()?;
        let found = match small {
            Some(n) => ctx.contains_memo.get(&(id, n)).copied(),
            None => ctx.contains_memo_big.get(&(id, i.clone())).copied(),
        };
        if found.is_some() {
            ctx.memo_hits += 1;
        }
        found
    });
    if let Some(b) = known {
        return b;
    }
    let answer = contains_called(a, i);
    CONTEXT.with(|c| {
        if let Some(ctx) = c.borrow_mut().as_mut()
            && ctx.error.is_none()
            && ctx.contains_memo.len() + ctx.contains_memo_big.len() < MEMO_LIMIT
        {
            match small {
                Some(n) => ctx.contains_memo.insert((id, n), answer),
                None => ctx.contains_memo_big.insert((id, i.clone()), answer),
            };
        }
    });
    answer
}

fn contains_called(a: &UserElem, i: &BigInt) -> bool {
    let Some(value) = value_of(a) else {
        return true;
    };
    let instance = CONTEXT.with(|c| c.borrow().as_ref().map(|x| x.instance.clone()));
    let Some(instance) = instance else {
        return true;
    };
    if failed() {
        return true;
    }
    CONTEXT.with(|c| {
        if let Some(ctx) = c.borrow_mut().as_mut() {
            ctx.count("contains");
        }
    });
    match host::call_method(&instance, "contains", vec![value, HostValue::int(i)])
        .and_then(|v| host::truthy(&v))
    {
        Ok(b) => b,
        Err(error) => {
            record(UserError {
                error,
                method: "contains".into(),
                args: vec![show(a), i.to_string()],
                node: NODE.with(Cell::get),
            });
            true
        }
    }
}
