//! [`Bindings`]: what the abstract interpreter needs of an environment, so that the same
//! evaluation and refinement code runs on the dense [`Frame`] the analysis iterates over and
//! on the name-keyed [`Env`] (the reference form, and the one small tests build by hand).

use std::sync::Arc;

use super::Env;
use super::frame::Frame;
use super::names::Names;
use crate::dataflow::domains::AbstractDomain;
use crate::dataflow::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};

/// One abstract value per bound variable; an unbound variable is `⊥`.
pub trait Bindings<D>: Clone + Eq + JoinSemiLattice + MeetSemiLattice + Widening {
    /// Every variable of the table unbound.
    fn unbound(names: &Arc<Names>) -> Self;

    /// The value bound to `name`, `None` when unbound.
    fn value(&self, name: &str) -> Option<&D>;

    /// Binds `name` to `value` (a strong update; `⊥` unbinds).
    fn bind(&mut self, name: &str, value: D);

    /// Calls `f` on every bound variable, in name order.
    fn each(&self, f: &mut dyn FnMut(&str, &D));
}

impl<D: AbstractDomain> Bindings<D> for Env<D> {
    fn unbound(_: &Arc<Names>) -> Self {
        Env::new()
    }

    fn value(&self, name: &str) -> Option<&D> {
        self.get_by(name)
    }

    fn bind(&mut self, name: &str, value: D) {
        self.set(name.to_string(), value);
    }

    fn each(&self, f: &mut dyn FnMut(&str, &D)) {
        for (k, v) in self.iter() {
            f(k, v);
        }
    }
}

impl<D: AbstractDomain> Bindings<D> for Frame<D> {
    fn unbound(names: &Arc<Names>) -> Self {
        Frame::new(Arc::clone(names))
    }

    fn value(&self, name: &str) -> Option<&D> {
        self.get_ref(name)
    }

    fn bind(&mut self, name: &str, value: D) {
        self.set(name, value);
    }

    fn each(&self, f: &mut dyn FnMut(&str, &D)) {
        for (k, v) in self.iter() {
            f(k, v);
        }
    }
}
