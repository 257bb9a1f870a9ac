//! Abstract interpretation of small Python functions (or a cell's code) over the numeric
//! domains of [`crate::dataflow::registry::DOMAINS`].
//!
//! The state at a program point is `MaybeReachable` of one abstract value per bound variable
//! (an absent variable is unbound): the map lattice `var → D`, which the analysis holds as a
//! dense [`Frame`] over the program's variable table ([`Names`]) with values shared between
//! states; [`Env`], keyed by name, is the same lattice in its reference form ([`Bindings`]
//! abstracts over both). Parameters start at
//! `⊤` (`0..1` when annotated `bool`); assignments evaluate IR expressions abstractly
//! ([`eval`]); True/False edges refine the state with their condition ([`refine`]), and a
//! condition refined to `⊥` makes its branch unreachable. Loops are widened at their heads
//! after [`WIDEN_AFTER`] visits, then narrowed ([`NARROWING_ROUNDS`] descending rounds).
//! Afterwards every reachable node is evaluated once more in its final state to collect
//! [`Warning`]s: divisions whose divisor may be (or must be) zero, and indices of tuples or
//! strings of known length possibly (or certainly) outside `[-len, len - 1]`.
//!
//! Values are analysed as ints (bools as 0 and 1). Names that may hold other values (floats,
//! strings, results of calls) are `⊤` and never refined by conditions, so a float cannot be
//! mistaken for the ints below it.

pub mod bindings;
pub mod calls;
mod eval;
pub mod frame;
pub mod names;
mod refine;
mod report;
pub mod scope;
mod transfer;
pub mod warnings;

use crate::dataflow::analyses::Program;
use crate::dataflow::domains::AbstractDomain;
use crate::dataflow::engine::{FixpointError, Options, iterate_to_fixpoint};
use crate::dataflow::lattice::MaybeReachable;
use crate::dataflow::map::MapLattice;

pub use crate::dataflow::report::AbsReport;
pub use bindings::Bindings;
pub use eval::exact_constants;
pub use frame::Frame;
pub use names::Names;
pub use report::{StateView, ValueView};
pub use transfer::AbsInt;
pub use warnings::{Warning, WarningKind};

/// One abstract value per bound variable, keyed by name.
pub type Env<D> = MapLattice<String, D>;

/// An abstract state over [`Env`].
pub type State<D> = MaybeReachable<Env<D>>;

/// Loop-head visits joined before widening starts.
pub const WIDEN_AFTER: u32 = 3;

/// Descending rounds after widening.
pub const NARROWING_ROUNDS: u32 = 3;

/// The engine options abstract interpretation runs with (widening and narrowing on).
pub fn options<'a>(trace: bool, cancel: Option<&'a crate::cancel::Cancel>) -> Options<'a> {
    Options {
        widen_after: Some(WIDEN_AFTER),
        narrowing_rounds: NARROWING_ROUNDS,
        trace,
        cancel,
        ..Options::default()
    }
}

/// Abstract interpretation of `program` in domain `D`, with its warnings.
pub fn analyze<D: AbstractDomain>(
    program: &Program<'_>,
    options: &Options<'_>,
) -> Result<AbsReport, FixpointError> {
    let results = iterate_to_fixpoint(&program.cfg, AbsInt::<D>::new(program), options)?;
    let states = results.node_states();
    Ok(finish(program, &results, &states))
}

/// The report of a finished run: its states, and the warnings found by running every
/// reachable node once more in its final state.
pub fn finish<D: AbstractDomain>(
    program: &Program<'_>,
    results: &crate::dataflow::engine::Results<'_, AbsInt<'_, D>>,
    states: &[crate::dataflow::engine::NodeStates<MaybeReachable<Frame<D>>>],
) -> AbsReport {
    let mut found = Vec::new();
    for (i, s) in states.iter().enumerate() {
        let mut state = s.before.clone();
        results.analysis.exec(
            petgraph::graph::NodeIndex::new(i),
            &mut state,
            Some(&mut found),
        );
    }
    report::build(program, results, states, warnings::normalize(found))
}

#[cfg(test)]
mod tests;
