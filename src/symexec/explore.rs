//! The exploration: depth-first over the paths, one node per statement reached, forks
//! resolved with the incremental solver (infeasible alternatives pruned, a condition the
//! path already implies not added), leaves given a witness from a model of their path.

use std::rc::Rc;
use std::sync::Arc;

use super::SymexecError;
use super::flow::{Next, advance};
use super::havoc::float_note;
use super::path::{Answer, Oracle, Path, Witness};
use super::program::Program;
use super::state::{State, Store};
use super::step::{Branch, Machine};
use super::tree::{Leaf, Node, NodeId, Outcome, Status, Tree};
use crate::cancel::Cancel;
use crate::fxhash::FxHashMap;
use crate::symbolic::{Term, float_rounding};

/// The bounds of one exploration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Iterations of each loop (per entry into the loop) before the path is cut.
    pub unroll: u64,
    /// Nodes before exploration stops.
    pub node_limit: usize,
    /// Depth of nested calls before the path is cut.
    pub recursion_limit: u64,
    /// Z3's time per check.
    pub timeout_ms: u32,
    /// Show infeasible branches as `unsat` leaves instead of pruning them.
    pub keep_unsat: bool,
    /// Decide branches with the solver shortcuts (syntax, independence, cache); off, every
    /// branch is a check of the whole path (for differential tests).
    pub shortcuts: bool,
    /// Calls of a function inside itself before the path is cut (a `bound` leaf).
    pub depth: u64,
    /// Milliseconds of solver time the whole exploration may spend (0: no bound); past it,
    /// branches are "unknown" (kept, marked undecided).
    pub solver_budget_ms: u64,
    /// Z3's work in resource units (`None`: time alone bounds it).
    pub resource_limit: Option<ResourceLimit>,
}

/// A bound on Z3's work in resource units rather than time: the units a query needs do not
/// depend on the machine's load, so a bounded exploration gives the same tree on a busy
/// machine (the timeouts stay, as a safety net).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceLimit {
    /// Units each check may spend.
    pub per_check: u32,
    /// Checks that may spend all their units before every question the shortcuts cannot
    /// answer is "unknown" without a check.
    pub exhausted_checks: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            unroll: 4,
            node_limit: 400,
            recursion_limit: 200,
            timeout_ms: 5_000,
            keep_unsat: false,
            shortcuts: true,
            depth: 4,
            solver_budget_ms: 0,
            resource_limit: None,
        }
    }
}

/// What waits on the exploration stack.
enum Child<'p> {
    State(State<'p>),
    /// An infeasible alternative kept for display.
    Unsat {
        path: Path,
        store: Store,
        frame: Option<Arc<str>>,
    },
}

struct Explorer<'p> {
    program: &'p Program,
    machine: Machine<'p>,
    oracle: Oracle,
    options: &'p Options,
    nodes: Vec<Node>,
    leaves: Vec<Leaf>,
    /// Statement texts and frame names, one shared copy each (by the address of the
    /// program's text, which outlives the exploration).
    texts: FxHashMap<(usize, usize), Arc<str>>,
    havoc: Vec<(NodeId, Vec<String>)>,
    approximate: Vec<NodeId>,
}

/// Builds the symbolic execution tree of `program`.
pub fn execute(
    program: &Program,
    options: &Options,
    cancel: &Cancel,
) -> Result<Tree, SymexecError> {
    let mut ex = Explorer {
        program,
        machine: Machine {
            program,
            unroll: options.unroll,
            recursion_limit: options.recursion_limit,
            depth: options.depth,
        },
        oracle: if options.shortcuts {
            Oracle::new(options.timeout_ms, cancel).with_budget(options.solver_budget_ms)
        } else {
            Oracle::new(options.timeout_ms, cancel).plain()
        }
        .with_resource_limit(options.resource_limit),
        options,
        nodes: Vec::new(),
        leaves: Vec::new(),
        texts: FxHashMap::default(),
        havoc: Vec::new(),
        approximate: Vec::new(),
    };
    // One watcher thread serves every check (instead of a thread per check).
    let (truncated, unexplored) = crate::symbolic::solver::with_watcher(|| ex.run(cancel))?;
    // Sorted by node, so `Tree::is_approximate` and `Tree::havoc_notes` can search them.
    ex.havoc.sort_by_key(|(n, _)| *n);
    ex.approximate.sort_unstable();
    Ok(Tree {
        function: program.name.clone(),
        inputs: program.inputs.0.clone(),
        packed: program.packed.clone(),
        unroll: options.unroll,
        nodes: ex.nodes,
        leaves: ex.leaves,
        truncated,
        unexplored,
        node_limit: options.node_limit,
        stats: ex.oracle.stats,
        witness_names: program
            .input_env
            .iter()
            .map(|(n, _)| n.to_string())
            .collect(),
        values: ex.oracle.take_values(),
        havoc: ex.havoc,
        approximate: ex.approximate,
        inferred: program.inferred.clone(),
        preconditions: program.preconditions.clone(),
    })
}

fn frame_name<'s>(s: &'s State<'_>) -> Option<&'s str> {
    if s.frames.len() <= 1 {
        return None;
    }
    s.frames
        .last()
        .and_then(|f| f.function)
        .map(|f| f.name.as_str())
}

fn first_state<'a, 'p>(b: &'a Branch<'p>) -> Option<&'a State<'p>> {
    match b {
        Branch::Go(s) => Some(s),
        Branch::Split(alts) => alts.iter().find_map(|(_, b)| first_state(b)),
    }
}

/// Marks every state of `b` approximate, with `note`.
fn taint(b: &mut Branch<'_>, note: &str) {
    match b {
        Branch::Go(s) => s.havoc.mark(note.to_string()),
        Branch::Split(alts) => alts.iter_mut().for_each(|(_, b)| taint(b, note)),
    }
}

impl<'p> Explorer<'p> {
    fn run(&mut self, cancel: &Cancel) -> Result<(bool, usize), SymexecError> {
        let mut initial = State::initial(self.program)?;
        for (_, pre) in &self.program.preconditions {
            initial.path = self.oracle.extend(&initial.path, pre.clone(), false)?;
        }
        let mut stack: Vec<(Child<'p>, Option<NodeId>)> = vec![(Child::State(initial), None)];
        while let Some((child, parent)) = stack.pop() {
            cancel.check()?;
            let st = &self.oracle.stats;
            crate::work::explored(
                self.nodes.len(),
                self.leaves.len(),
                st.branch_checks + st.implication_checks + st.witness_checks,
            );
            if self.nodes.len() >= self.options.node_limit {
                return Ok((true, stack.len() + 1));
            }
            let mut s = match child {
                Child::Unsat { path, store, frame } => {
                    let empty = self.text("");
                    let id = self.push_node(
                        parent,
                        empty,
                        None,
                        frame,
                        path.shown.clone(),
                        store,
                        Status::Unsat,
                    );
                    self.leaves.push(Leaf {
                        node: id,
                        path_condition: path.condition(),
                        outcome: Outcome::Unsat,
                        witness: None,
                    });
                    continue;
                }
                Child::State(s) => s,
            };
            let next = advance(&mut s, self.program)?;
            let (text, line) = match &next {
                Next::Finished(outcome) => {
                    self.leaf(s, parent, outcome.clone())?;
                    continue;
                }
                Next::Stmt(st) | Next::LoopTest(st) => (self.text(&st.text), st.span.line),
            };
            let id = self.state_node(&s, parent, text, Some(line), Status::Inner);
            s.havoc.notes.clear();
            let (path, witness, undecided) = (s.path.clone(), s.witness.clone(), s.undecided);
            let branch = if parent.is_none() && !self.program.packed.is_empty() {
                // The entry: fork on the shape of each packed parameter first.
                let machine = &self.machine;
                machine.with_packed_inputs(s, &self.program.packed, &|s| machine.step(s, &next))?
            } else {
                self.machine.step(s, &next)?
            };
            let mut children = Vec::new();
            self.resolve(branch, path, witness, undecided, &mut children)?;
            stack.extend(children.into_iter().rev().map(|c| (c, Some(id))));
        }
        Ok((false, 0))
    }

    /// The shared copy of `text`.
    fn text(&mut self, text: &str) -> Arc<str> {
        self.texts
            .entry((text.as_ptr() as usize, text.len()))
            .or_insert_with(|| text.into())
            .clone()
    }

    #[allow(clippy::too_many_arguments)]
    fn push_node(
        &mut self,
        parent: Option<NodeId>,
        statement: Arc<str>,
        line: Option<u32>,
        frame: Option<Arc<str>>,
        path_condition: Arc<Vec<Term>>,
        store: Store,
        status: Status,
    ) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node {
            id,
            parent,
            statement,
            line,
            frame,
            path_condition,
            store,
            status,
            undecided: false,
        });
        id
    }

    fn state_node(
        &mut self,
        s: &State<'p>,
        parent: Option<NodeId>,
        statement: Arc<str>,
        line: Option<u32>,
        status: Status,
    ) -> NodeId {
        let store = s.frames.last().map(|f| f.store.clone()).unwrap_or_default();
        let frame = frame_name(s).map(|f| self.text(f));
        let id = self.push_node(
            parent,
            statement,
            line,
            frame,
            s.path.shown.clone(),
            store,
            status,
        );
        self.nodes[id].undecided = s.undecided;
        if !s.havoc.notes.is_empty() {
            self.havoc.push((id, s.havoc.notes.clone()));
        }
        id
    }

    fn leaf(
        &mut self,
        s: State<'p>,
        parent: Option<NodeId>,
        outcome: Outcome,
    ) -> Result<(), SymexecError> {
        let empty = self.text("");
        let id = self.state_node(&s, parent, empty, None, outcome.status());
        if s.havoc.approximate {
            self.approximate.push(id);
        }
        let model: Option<Rc<Witness>> = match s.witness.clone() {
            Some(m) => Some(m),
            None => self.oracle.model(&s.path)?.map(Rc::new),
        };
        let env = &self.program.input_env;
        let mut witness = match &model {
            Some(m) => self.oracle.inputs(m, env)?,
            None => None,
        };
        // An input whose parts lie in different models: one model of the whole path.
        if witness.is_none()
            && model.is_some()
            && let Some(m) = self.oracle.model_whole(&s.path)?
        {
            witness = self.oracle.inputs(&m, env)?;
        }
        self.leaves.push(Leaf {
            node: id,
            path_condition: s.path.condition(),
            outcome,
            witness,
        });
        Ok(())
    }

    /// Turns a step's branch into the children to explore, asking the solver which
    /// alternatives of each fork are feasible.
    fn resolve(
        &mut self,
        branch: Branch<'p>,
        path: Path,
        witness: Option<Rc<Witness>>,
        undecided: bool,
        out: &mut Vec<Child<'p>>,
    ) -> Result<(), SymexecError> {
        let alts = match branch {
            Branch::Go(mut s) => {
                s.path = path;
                s.witness = witness;
                s.undecided = undecided;
                out.push(Child::State(s));
                return Ok(());
            }
            Branch::Split(alts) => alts,
        };
        let mut alts: Vec<(Term, Branch<'p>)> = alts
            .into_iter()
            .filter(|(c, _)| c.bool_literal() != Some(false))
            .collect();
        // A fork on float arithmetic is decided over the reals: every alternative is
        // approximate (one the reals rule out may be taken in Python).
        if let Some(rounding) = alts.iter().find_map(|(c, _)| float_rounding(c)) {
            let note = float_note(rounding);
            for (_, b) in &mut alts {
                taint(b, &note);
            }
        }
        if alts.len() <= 1 {
            // The only possible alternative: the path implies its condition.
            return match alts.pop() {
                Some((_, b)) => self.resolve(b, path, witness, undecided, out),
                None => Ok(()),
            };
        }
        // The path's model, when at hand, shows one alternative feasible without a check.
        // The others are checked from the last (usually the exceptions, usually infeasible)
        // to the first, which needs no check when every other one is infeasible.
        let n = alts.len();
        let mut answers: Vec<Option<Answer>> = (0..n).map(|_| None).collect();
        let known = match &witness {
            Some(m) => alts.iter().position(|(c, _)| self.oracle.holds(m, c)),
            None => None,
        };
        if let (Some(i), Some(m)) = (known, &witness) {
            answers[i] = Some(Answer::Sat(m.clone()));
        }
        let unknown: Vec<usize> = (0..n).filter(|i| Some(*i) != known).collect();
        let (first, rest) = match (known, unknown.split_first()) {
            (None, Some((first, rest))) => (Some(*first), rest),
            _ => (None, unknown.as_slice()),
        };
        for &i in rest.iter().rev() {
            answers[i] = Some(self.oracle.check(&path, witness.as_deref(), &alts[i].0)?);
        }
        if let Some(first) = first
            && !rest
                .iter()
                .all(|&i| matches!(answers[i], Some(Answer::Unsat)))
        {
            answers[first] = Some(
                self.oracle
                    .check(&path, witness.as_deref(), &alts[first].0)?,
            );
        }
        let feasible = answers
            .iter()
            .filter(|a| !matches!(a, Some(Answer::Unsat)))
            .count();
        let any_unknown = answers.iter().any(|a| matches!(a, Some(Answer::Unknown)));
        let implied = feasible == 1 && !any_unknown;
        for ((c, b), answer) in alts.into_iter().zip(answers) {
            match answer {
                Some(Answer::Unsat) => {
                    self.oracle.stats.pruned += 1;
                    if self.options.keep_unsat
                        && let Some(st) = first_state(&b)
                    {
                        let mut shown = path.clone();
                        Arc::make_mut(&mut shown.shown).push(c);
                        let store = st
                            .frames
                            .last()
                            .map(|f| f.store.clone())
                            .unwrap_or_default();
                        let frame = frame_name(st).map(|f| self.text(f));
                        out.push(Child::Unsat {
                            path: shown,
                            store,
                            frame,
                        });
                    }
                }
                None => self.resolve(b, path.clone(), witness.clone(), undecided, out)?,
                Some(Answer::Sat(m)) => {
                    let next = self.oracle.extend(&path, c, implied)?;
                    self.resolve(b, next, Some(m), undecided, out)?;
                }
                Some(Answer::Unknown) => {
                    let next = self.oracle.extend(&path, c, false)?;
                    self.resolve(b, next, None, true, out)?;
                }
            }
        }
        Ok(())
    }
}
