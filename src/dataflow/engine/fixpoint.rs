//! The worklist iteration: chains in processing order, joins (widening at loop heads) at
//! chain boundaries, then optional narrowing rounds.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use petgraph::graph::NodeIndex;

use super::layout::Layout;
use super::results::{Results, Stats};
use super::trace::{Cause, Phase, TraceStep};
use super::{Analysis, Direction, FixpointError, Options};
use crate::cfg::{Cfg, Edge};
use crate::dataflow::lattice::{JoinSemiLattice, MeetSemiLattice, Widening};

/// Runs `analysis` on `cfg` to its fixpoint.
pub fn iterate_to_fixpoint<'c, A: Analysis>(
    cfg: &'c Cfg,
    analysis: A,
    options: &Options<'_>,
) -> Result<Results<'c, A>, FixpointError> {
    let layout = Layout::new(cfg, A::DIRECTION);
    let (states, exc, stats, trace) = {
        let mut run = Run::new(cfg, &analysis, &layout, options);
        run.ascend()?;
        if A::DIRECTION == Direction::Forward && options.narrowing_rounds > 0 {
            run.narrow()?;
        }
        let trace = run.trace.map(|t| t.steps).unwrap_or_default();
        (run.states, run.exc, run.stats, trace)
    };
    Ok(Results::new(
        cfg, analysis, layout, states, exc, stats, trace,
    ))
}

/// The last recorded IN and OUT of every node, for the trace's old values.
struct Tracer<D> {
    steps: Vec<TraceStep<D>>,
    last: Vec<Option<(D, D)>>,
}

/// The mutable state of one computation.
struct Run<'r, 'o, A: Analysis> {
    cfg: &'r Cfg,
    analysis: &'r A,
    layout: &'r Layout,
    options: &'r Options<'o>,
    /// Per chain: the IN of its first node (forward), the OUT of its last node along normal
    /// edges (backward).
    states: Vec<A::Domain>,
    /// Per chain, backward: the join of the INs of its last node's exception successors.
    exc: Vec<Option<A::Domain>>,
    /// Per chain, when narrowing follows: what its last walk left, from its current state.
    exits: Vec<Option<Exit<A::Domain>>>,
    visits: Vec<u32>,
    queue: BinaryHeap<Reverse<(usize, usize)>>,
    queued: Vec<bool>,
    cause: Vec<Option<Cause>>,
    widened: Vec<bool>,
    stats: Stats,
    trace: Option<Tracer<A::Domain>>,
}

/// What a forward walk of a chain leaves: the IN of its last node (when it has exception
/// edges) and its OUT.
type Exit<D> = (Option<D>, D);

impl<'r, 'o, A: Analysis> Run<'r, 'o, A> {
    fn new(cfg: &'r Cfg, analysis: &'r A, layout: &'r Layout, options: &'r Options<'o>) -> Self {
        let count = layout.chains.len();
        let bottom = analysis.bottom();
        let mut states = vec![bottom.clone(); count];
        let boundary_node = match A::DIRECTION {
            Direction::Forward => cfg.entry,
            Direction::Backward => cfg.exit,
        };
        if let Some(&c) = layout.chain_of.get(boundary_node.index()) {
            states[c] = analysis.boundary();
        }
        let trace = options.trace.then(|| Tracer {
            steps: Vec::new(),
            last: vec![None; cfg.graph.node_count()],
        });
        Run {
            cfg,
            analysis,
            layout,
            options,
            states,
            exc: vec![None; count],
            exits: Vec::new(),
            visits: vec![0; count],
            queue: BinaryHeap::new(),
            queued: vec![false; count],
            cause: vec![None; count],
            widened: vec![false; count],
            stats: Stats::default(),
            trace,
        }
    }

    fn enqueue(&mut self, c: usize) {
        let chain = &self.layout.chains[c];
        if chain.live && !self.queued[c] {
            self.queued[c] = true;
            self.queue.push(Reverse((chain.priority, c)));
        }
    }

    fn count_visit(&mut self) -> Result<(), FixpointError> {
        self.stats.iterations += 1;
        if self.stats.iterations > self.options.max_steps {
            return Err(FixpointError::StepLimit {
                steps: self.options.max_steps,
            });
        }
        if self.stats.iterations % 512 == 0
            && let Some(cancel) = self.options.cancel
        {
            cancel.check()?;
        }
        Ok(())
    }

    /// Joins (or widens) `flowing` into chain `c`'s state; queues `c` when it changed.
    fn merge(&mut self, c: usize, flowing: &A::Domain, cause: Cause, exceptional: bool) {
        let head = self.layout.flow_head(c);
        let at_loop_head = head.is_some_and(|h| self.layout.widening_point[h.index()]);
        let widen = at_loop_head
            && self
                .options
                .widen_after
                .is_some_and(|k| self.visits[c] >= k);
        let slot = if exceptional {
            self.exc[c].get_or_insert_with(|| self.analysis.bottom())
        } else {
            &mut self.states[c]
        };
        let changed = if widen {
            slot.widen(flowing)
        } else {
            slot.join(flowing)
        };
        if changed {
            if widen {
                self.widened[c] = true;
                self.stats.widenings += 1;
            }
            self.cause[c] = Some(cause);
            self.enqueue(c);
        }
    }

    fn ascend(&mut self) -> Result<(), FixpointError> {
        let mut order: Vec<usize> = (0..self.layout.chains.len()).collect();
        order.sort_by_key(|&c| self.layout.chains[c].priority);
        for c in order {
            self.enqueue(c);
        }
        // Narrowing (forward analyses only) starts from the ascent's exits.
        let keep_exits = A::DIRECTION == Direction::Forward && self.options.narrowing_rounds > 0;
        if keep_exits {
            self.exits = vec![None; self.layout.chains.len()];
        }
        while let Some(Reverse((_, c))) = self.queue.pop() {
            self.queued[c] = false;
            self.visits[c] += 1;
            self.stats.chain_visits += 1;
            match A::DIRECTION {
                Direction::Forward => {
                    let exit = self.walk_forward(c, Phase::Ascending)?;
                    self.propagate_forward(c, &exit);
                    if keep_exits {
                        // A chain whose state changes later is walked again.
                        self.exits[c] = Some(exit);
                    }
                }
                Direction::Backward => self.walk_backward(c)?,
            }
        }
        Ok(())
    }

    /// Applies chain `c`'s transfers from its entry state; records trace steps.
    fn walk_forward(&mut self, c: usize, phase: Phase) -> Result<Exit<A::Domain>, FixpointError> {
        let layout = self.layout;
        let nodes = &layout.chains[c].nodes;
        let last = nodes.len() - 1;
        let needs_last_in = has_exception_edge(self.cfg, nodes[last]);
        let mut cause = self.cause[c].take().unwrap_or(Cause::Start);
        if phase == Phase::Narrowing {
            cause = Cause::Descending;
        }
        let mut widened = std::mem::take(&mut self.widened[c]);
        let mut state = self.states[c].clone();
        let mut last_in = None;
        for (i, &n) in nodes.iter().enumerate() {
            self.count_visit()?;
            let keep = self.trace.is_some() || (i == last && needs_last_in);
            let before = keep.then(|| state.clone());
            self.analysis.transfer(n, &mut state);
            let step_cause = if i == 0 {
                cause.clone()
            } else {
                Cause::Edge {
                    from: nodes[i - 1],
                    edge: Edge::Normal,
                }
            };
            if let Some(before) = &before {
                self.record(n, step_cause, phase, widened, before, &state);
            }
            widened = false;
            if i == last && needs_last_in {
                last_in = before;
            }
        }
        Ok((last_in, state))
    }

    /// Sends chain `c`'s exit state along the out-edges of its last node.
    fn propagate_forward(&mut self, c: usize, exit: &Exit<A::Domain>) {
        let cfg = self.cfg;
        let Some(&last) = self.layout.chains[c].nodes.last() else {
            return;
        };
        for (t, edge) in cfg.successors(last) {
            let base = edge_base(edge, exit);
            let effect = self.analysis.edge_effect(last, edge, t, &base);
            let flowing = effect.as_ref().unwrap_or(&base);
            let tc = self.layout.chain_of[t.index()];
            let cause = Cause::Edge {
                from: last,
                edge: edge.clone(),
            };
            self.merge(tc, flowing, cause, false);
        }
    }

    /// Applies chain `c`'s transfers backwards from its exit state and sends the result to
    /// the predecessors of its first node.
    fn walk_backward(&mut self, c: usize) -> Result<(), FixpointError> {
        let layout = self.layout;
        let nodes = &layout.chains[c].nodes;
        let last = nodes.len() - 1;
        let cause = self.cause[c].take().unwrap_or(Cause::Start);
        let mut widened = std::mem::take(&mut self.widened[c]);
        let mut state = self.states[c].clone();
        let exc = self.exc[c].clone();
        for (i, &n) in nodes.iter().enumerate().rev() {
            self.count_visit()?;
            let mut before = self.trace.is_some().then(|| state.clone());
            self.analysis.transfer(n, &mut state);
            if i == last
                && let Some(e) = &exc
            {
                // An exception leaves the node part-way: its successor's facts hold before it.
                state.join(e);
                if let Some(b) = &mut before {
                    b.join(e);
                }
            }
            let step_cause = if i == last {
                cause.clone()
            } else {
                Cause::Edge {
                    from: nodes[i + 1],
                    edge: Edge::Normal,
                }
            };
            if let Some(before) = &before {
                self.record(n, step_cause, Phase::Ascending, widened, &state, before);
            }
            widened = false;
        }
        let head = nodes[0];
        let cfg = self.cfg;
        for (p, edge) in cfg.predecessors(head) {
            let effect = self.analysis.edge_effect(p, edge, head, &state);
            let flowing = effect.as_ref().unwrap_or(&state);
            let pc = self.layout.chain_of[p.index()];
            let cause = Cause::Edge {
                from: head,
                edge: edge.clone(),
            };
            self.merge(pc, flowing, cause, edge.is_exception());
        }
        Ok(())
    }

    /// Records one visit of `node` with its new IN and OUT (program order).
    fn record(
        &mut self,
        node: NodeIndex,
        cause: Cause,
        phase: Phase,
        widened: bool,
        new_in: &A::Domain,
        new_out: &A::Domain,
    ) {
        let bottom = self.analysis.bottom();
        let Some(t) = &mut self.trace else {
            return;
        };
        let (old_in, old_out) = t.last[node.index()]
            .clone()
            .unwrap_or_else(|| (bottom.clone(), bottom));
        t.last[node.index()] = Some((new_in.clone(), new_out.clone()));
        t.steps.push(TraceStep {
            step: t.steps.len() + 1,
            node,
            cause,
            phase,
            widened,
            old_in,
            new_in: new_in.clone(),
            old_out,
            new_out: new_out.clone(),
        });
    }

    /// Descending rounds from the post-fixpoint (forward): each chain's entry state is
    /// recomputed from its predecessors and narrowed (loop heads) or met (elsewhere). A chain
    /// none of whose predecessors changed since it was last recomputed is skipped: narrowing
    /// and meeting with the same state again change nothing.
    fn narrow(&mut self) -> Result<(), FixpointError> {
        let chains = &self.layout.chains;
        let mut order: Vec<usize> = (0..chains.len()).filter(|&c| chains[c].live).collect();
        order.sort_by_key(|&c| chains[c].priority);
        let mut exits = std::mem::take(&mut self.exits);
        exits.resize(chains.len(), None);
        let cfg = self.cfg;
        // The chains each chain's exit flows into.
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); chains.len()];
        for &c in &order {
            for (p, _) in cfg.predecessors(chains[c].nodes[0]) {
                dependents[self.layout.chain_of[p.index()]].push(c);
            }
        }
        let mut dirty = vec![true; chains.len()];
        for _ in 0..self.options.narrowing_rounds {
            self.stats.narrowing_rounds += 1;
            let mut any = false;
            for &c in &order {
                if !std::mem::take(&mut dirty[c]) {
                    continue;
                }
                let head = self.layout.chains[c].nodes[0];
                let mut fresh = self.analysis.bottom();
                if head == cfg.entry {
                    fresh.join(&self.analysis.boundary());
                }
                for (p, edge) in cfg.predecessors(head) {
                    let Some(exit) = &exits[self.layout.chain_of[p.index()]] else {
                        continue;
                    };
                    let base = edge_base(edge, exit);
                    let effect = self.analysis.edge_effect(p, edge, head, &base);
                    fresh.join(effect.as_ref().unwrap_or(&base));
                }
                // An operator that reports no change leaves the state as it was.
                let changed = if self.layout.widening_point[head.index()] {
                    self.states[c].narrow(&fresh)
                } else {
                    self.states[c].meet(&fresh)
                };
                if changed {
                    any = true;
                    exits[c] = Some(self.walk_forward(c, Phase::Narrowing)?);
                    for &d in &dependents[c] {
                        dirty[d] = true;
                    }
                }
            }
            if !any {
                break;
            }
        }
        Ok(())
    }
}

/// The state leaving along `edge`: the OUT, or for an exception edge the join of IN and OUT.
fn edge_base<'e, D: Clone + JoinSemiLattice>(edge: &Edge, exit: &'e Exit<D>) -> Cow<'e, D> {
    match (&exit.0, edge.is_exception()) {
        (Some(before), true) => {
            let mut joined = before.clone();
            joined.join(&exit.1);
            Cow::Owned(joined)
        }
        _ => Cow::Borrowed(&exit.1),
    }
}

pub(super) fn has_exception_edge(cfg: &Cfg, n: NodeIndex) -> bool {
    cfg.graph
        .edges_directed(n, petgraph::Direction::Outgoing)
        .any(|e| e.weight().is_exception())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::function_cfg;
    use crate::dataflow::bitset::BitSet;
    use crate::dataflow::domains::{AbstractDomain, Interval};
    use crate::python::lower_module;

    fn cfg_of(source: &str) -> Cfg {
        let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        function_cfg(f).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Forward: the set of nodes on some path from the entry (each node adds itself).
    struct Visited(usize);

    impl Analysis for Visited {
        type Domain = BitSet;
        const DIRECTION: Direction = Direction::Forward;
        fn bottom(&self) -> BitSet {
            BitSet::new_empty(self.0)
        }
        fn boundary(&self) -> BitSet {
            BitSet::new_empty(self.0)
        }
        fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
            state.insert(node.index());
        }
    }

    /// Backward: the set of nodes on some path to the exit.
    struct Ahead(usize);

    impl Analysis for Ahead {
        type Domain = BitSet;
        const DIRECTION: Direction = Direction::Backward;
        fn bottom(&self) -> BitSet {
            BitSet::new_empty(self.0)
        }
        fn boundary(&self) -> BitSet {
            BitSet::new_empty(self.0)
        }
        fn transfer(&self, node: NodeIndex, state: &mut BitSet) {
            state.insert(node.index());
        }
    }

    /// A counter: `i = 0` at the entry, `+1` at every node; the value can grow forever in a
    /// loop, so only widening makes it stop.
    struct Counter;

    impl Analysis for Counter {
        type Domain = Interval;
        const DIRECTION: Direction = Direction::Forward;
        fn bottom(&self) -> Interval {
            Interval::Bottom
        }
        fn boundary(&self) -> Interval {
            Interval::range(0, 0)
        }
        fn transfer(&self, _: NodeIndex, state: &mut Interval) {
            *state = Interval::binary(
                crate::dataflow::domains::BinOp::Add,
                state,
                &Interval::range(1, 1),
            );
        }
    }

    const LOOP: &str =
        "def f(x):\n    y = 0\n    while x > 0:\n        x -= 1\n        y += 1\n    return y\n";

    fn node_at(cfg: &Cfg, line: u32) -> NodeIndex {
        cfg.nodes()
            .find(|&n| cfg.node(n).lines.0 == line && !cfg.node(n).stmts.is_empty())
            .unwrap_or_else(|| panic!("no node at line {line}"))
    }

    #[test]
    fn forward_reaches_every_node_on_a_path() {
        let cfg = cfg_of(LOOP);
        let n = cfg.graph.node_count();
        let r = iterate_to_fixpoint(&cfg, Visited(n), &Options::default()).unwrap();
        let states = r.node_states();
        let body = node_at(&cfg, 5);
        let ret = node_at(&cfg, 6);
        // The loop body has been on some path to the return, and to itself.
        assert!(states[ret.index()].before.contains(body.index()));
        assert!(states[body.index()].before.contains(body.index()));
        assert!(!states[cfg.entry.index()].before.contains(body.index()));
        assert_eq!(states[cfg.exit.index()].after.count(), n);
        assert!(r.stats.iterations as usize >= n);
    }

    #[test]
    fn backward_sees_every_node_ahead() {
        let cfg = cfg_of(LOOP);
        let n = cfg.graph.node_count();
        let r = iterate_to_fixpoint(&cfg, Ahead(n), &Options::default()).unwrap();
        let states = r.node_states();
        let head = node_at(&cfg, 3);
        let body = node_at(&cfg, 5);
        assert!(states[body.index()].after.contains(head.index()));
        assert!(states[head.index()].after.contains(body.index()));
        assert_eq!(states[cfg.entry.index()].before.count(), n);
        assert!(states[cfg.exit.index()].after.is_empty());
    }

    #[test]
    fn widening_makes_an_infinite_ascent_stop() {
        let cfg = cfg_of(LOOP);
        let options = Options {
            widen_after: Some(2),
            max_steps: 10_000,
            trace: true,
            ..Options::default()
        };
        let r = iterate_to_fixpoint(&cfg, Counter, &options).unwrap();
        let head = node_at(&cfg, 3);
        let at_head = &r.node_states()[head.index()].before;
        assert_eq!(at_head, &Interval::at_least(2));
        assert!(r.stats.widenings >= 1);
        assert!(r.trace.iter().any(|s| s.widened && s.node == head));
        // Without widening the same analysis runs into the step limit.
        let limited = Options {
            max_steps: 10_000,
            ..Options::default()
        };
        assert_eq!(
            iterate_to_fixpoint(&cfg, Counter, &limited).err(),
            Some(FixpointError::StepLimit { steps: 10_000 })
        );
    }

    #[test]
    fn trace_records_old_and_new_states() {
        let cfg = cfg_of(LOOP);
        let n = cfg.graph.node_count();
        let options = Options {
            trace: true,
            ..Options::default()
        };
        let r = iterate_to_fixpoint(&cfg, Visited(n), &options).unwrap();
        assert_eq!(r.trace.len() as u64, r.stats.iterations);
        assert_eq!(r.trace[0].node, cfg.entry);
        assert_eq!(r.trace[0].cause, Cause::Start);
        let head = node_at(&cfg, 3);
        let revisit = r
            .trace
            .iter()
            .filter(|s| s.node == head)
            .nth(1)
            .unwrap_or_else(|| panic!("the loop head is visited twice"));
        assert!(matches!(revisit.cause, Cause::Edge { .. }));
        assert!(revisit.in_changed());
        for (i, s) in r.trace.iter().enumerate() {
            assert_eq!(s.step, i + 1);
        }
    }

    #[test]
    fn cancellation_stops_the_iteration() {
        let cancel = crate::cancel::Cancel::new();
        cancel.cancel();
        let cfg = cfg_of(LOOP);
        let options = Options {
            widen_after: None,
            max_steps: 100_000,
            cancel: Some(&cancel),
            ..Options::default()
        };
        assert_eq!(
            iterate_to_fixpoint(&cfg, Counter, &options).err(),
            Some(FixpointError::Stopped(crate::cancel::Stopped(
                crate::cancel::Stop::Interrupted
            )))
        );
    }
}
