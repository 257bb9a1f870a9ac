//! A domain registered by a Rust cell as an [`AbstractDomain`]: an element is the id the
//! cell's process gave it (ids are interned there, so equal ids are equal elements); every
//! operation is one request on the registration's connection. The connection is this
//! thread's for one command ([`enter`]); the first failure is recorded and later operations
//! answer `⊤` at once, so the fixpoint ends and the command reports the failure.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use num_bigint::BigInt;
use serde_json::Value;

use super::registry::{CallError, Conn};
use crate::cancel::Cancel;
use crate::dataflow::domains::{AbstractDomain, BinOp, CmpOp};
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice, MeetSemiLattice, Widening};
use crate::dataflow::user::domain::method_of;

/// An element of a Rust domain: its id in the cell's process (0 is `⊥`, 1 is `⊤`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RustElem(pub u32);

struct Current {
    /// The name the domain was registered under.
    name: &'static str,
    conn: Arc<Mutex<Conn>>,
    cancel: Cancel,
    error: Option<(String, CallError)>,
    shown: HashMap<u32, String>,
    calls: u64,
}

thread_local! {
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
}

/// Uses `conn` on this thread until the guard drops.
pub struct Entered;

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|c| c.borrow_mut().take());
    }
}

/// Uses `conn`, the connection of the domain registered as `name`, on this thread.
pub fn enter(name: &'static str, conn: Arc<Mutex<Conn>>, cancel: Cancel) -> Entered {
    CURRENT.with(|c| {
        *c.borrow_mut() = Some(Current {
            name,
            conn,
            cancel,
            error: None,
            shown: HashMap::new(),
            calls: 0,
        })
    });
    Entered
}

/// The first failure of this command: the operation and why.
pub fn take_error() -> Option<(String, CallError)> {
    CURRENT.with(|c| c.borrow_mut().as_mut().and_then(|c| c.error.take()))
}

/// One request; `None` after a failure (recorded).
fn call(fields: Vec<String>) -> Option<Vec<String>> {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        let cur = c.as_mut()?;
        if cur.error.is_some() {
            return None;
        }
        cur.calls += 1;
        let result = cur
            .conn
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .call(&fields, &cur.cancel);
        match result {
            Ok(r) => Some(r),
            Err(e) => {
                cur.error = Some((fields.join(" "), e));
                None
            }
        }
    })
}

fn id(s: &RustElem) -> String {
    s.0.to_string()
}

fn elem(fields: Vec<String>) -> RustElem {
    let fields = call(fields);
    match fields
        .as_ref()
        .and_then(|f| f.first())
        .and_then(|f| f.parse().ok())
    {
        Some(i) => RustElem(i),
        None => RustElem::TOP,
    }
}

fn flag(fields: Vec<String>) -> bool {
    call(fields).and_then(|f| f.first().cloned()).as_deref() == Some("1")
}

fn words(w: &[&str], elems: &[&RustElem]) -> Vec<String> {
    w.iter()
        .map(|s| s.to_string())
        .chain(elems.iter().map(|e| id(e)))
        .collect()
}

/// How the cell's `show` writes `e` (asked once per element and command).
pub fn show(e: &RustElem) -> String {
    if let Some(s) = CURRENT.with(|c| c.borrow().as_ref().and_then(|c| c.shown.get(&e.0).cloned()))
    {
        return s;
    }
    let text = call(words(&["show"], &[e]))
        .and_then(|f| f.first().cloned())
        .unwrap_or_else(|| format!("#{}", e.0));
    CURRENT.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            c.shown.insert(e.0, text.clone());
        }
    });
    text
}

impl fmt::Debug for RustElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show(self))
    }
}

impl fmt::Display for RustElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show(self))
    }
}

fn replace(slot: &mut RustElem, new: RustElem) -> bool {
    let changed = *slot != new;
    *slot = new;
    changed
}

impl JoinSemiLattice for RustElem {
    fn join(&mut self, other: &Self) -> bool {
        if self == other || other.is_bottom() || self.is_top() {
            return false;
        }
        let new = elem(words(&["join"], &[self, other]));
        replace(self, new)
    }

    fn leq(&self, other: &Self) -> bool {
        self == other || self.is_bottom() || other.is_top() || flag(words(&["leq"], &[self, other]))
    }
}

impl MeetSemiLattice for RustElem {
    fn meet(&mut self, other: &Self) -> bool {
        if self == other || other.is_top() || self.is_bottom() {
            return false;
        }
        let new = elem(words(&["meet"], &[self, other]));
        replace(self, new)
    }
}

impl HasBottom for RustElem {
    const BOTTOM: Self = RustElem(0);
    fn is_bottom(&self) -> bool {
        self.0 == 0
    }
}

impl HasTop for RustElem {
    const TOP: Self = RustElem(1);
    fn is_top(&self) -> bool {
        self.0 == 1
    }
}

impl Widening for RustElem {
    fn widen(&mut self, next: &Self) -> bool {
        if self == next || next.is_bottom() || self.is_top() {
            return false;
        }
        if self.is_bottom() {
            return replace(self, *next);
        }
        let new = elem(words(&["widen"], &[self, next]));
        replace(self, new)
    }
}

impl AbstractDomain for RustElem {
    const NAME: &'static str = "rust";

    fn alpha(i: &BigInt) -> Self {
        elem(vec!["alpha".into(), i.to_string()])
    }

    fn contains(&self, i: &BigInt) -> bool {
        match self.0 {
            0 => false,
            1 => true,
            _ => flag(vec!["contains".into(), id(self), i.to_string()]),
        }
    }

    fn binary(op: BinOp, a: &Self, b: &Self) -> Self {
        if a.is_bottom() || b.is_bottom() {
            return RustElem::BOTTOM;
        }
        elem(words(&["bin", method_of(op)], &[a, b]))
    }

    fn negate(&self) -> Self {
        if self.is_bottom() {
            return *self;
        }
        elem(words(&["neg"], &[self]))
    }

    fn refine(&self, op: CmpOp, other: &Self) -> Self {
        if self.is_bottom() || other.is_bottom() {
            return RustElem::BOTTOM;
        }
        elem(words(&["refine", op.symbol()], &[self, other]))
    }

    fn must_be_zero(&self) -> bool {
        !self.is_bottom()
            && self.contains(&BigInt::ZERO)
            && *self == Self::alpha(&BigInt::ZERO)
            && {
                // γ = {0} only if no other small int is in it.
                ![-1i64, 1].iter().any(|i| self.contains(&BigInt::from(*i)))
            }
    }

    fn to_json(&self) -> Value {
        Value::String(show(self))
    }

    fn finite_elements() -> Option<Vec<Self>> {
        let f = call(vec!["elements".into()])?;
        if f.first().map(String::as_str) != Some("some") {
            return None;
        }
        Some(
            f[1..]
                .iter()
                .filter_map(|i| i.parse().ok())
                .map(RustElem)
                .collect(),
        )
    }
}

/// What the user `%check-domain` (laws, monotonicity, termination) needs of a Rust domain.
impl crate::dataflow::user::check::Served for RustElem {
    /// The name the domain was registered under (the entered one's).
    fn name() -> &'static str {
        CURRENT.with(|c| {
            c.borrow()
                .as_ref()
                .map_or(<RustElem as AbstractDomain>::NAME, |c| c.name)
        })
    }
    fn leq_raw(a: &Self, b: &Self) -> bool {
        flag(words(&["leq"], &[a, b]))
    }
    fn join_raw(a: &Self, b: &Self) -> Self {
        elem(words(&["join"], &[a, b]))
    }
    fn failed() -> bool {
        CURRENT.with(|c| c.borrow().as_ref().is_none_or(|c| c.error.is_some()))
    }
    /// The socket does not say whether the cell's type overrides `widen`.
    fn widens() -> Option<bool> {
        None
    }
    fn calls() -> (u64, u64) {
        (
            CURRENT.with(|c| c.borrow().as_ref().map_or(0, |c| c.calls)),
            0,
        )
    }
}
