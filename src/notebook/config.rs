//! Session settings changed with `%config KEY=VALUE`: the defaults of the bounded analyses.

use std::time::Duration;

use super::CellError;
use crate::cancel::Budget;

/// One setting: its key, help text, and how to read and write it.
struct Setting {
    key: &'static str,
    help: &'static str,
    get: fn(&Config) -> u64,
    set: fn(&mut Config, u64),
    min: u64,
    max: u64,
}

/// The session's settings. Every long-running analysis reads its bound from here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Loop unrolling bound of symbolic execution.
    pub unroll: u64,
    /// Z3 timeout per query, in milliseconds.
    pub z3_timeout_ms: u64,
    /// Paths listed per `%constraints` view.
    pub path_limit: u64,
    /// Nodes of a symbolic execution tree before it is cut.
    pub node_limit: u64,
    /// Statements the concrete interpreter runs per cell before giving up.
    pub step_budget: u64,
    /// Depth of user-function calls (concrete and symbolic).
    pub recursion_limit: u64,
    /// Megabytes the kernel may use while a cell runs (0: no limit).
    pub memory_mb: u64,
    /// Seconds a cell may run (0: no limit).
    pub time_limit_s: u64,
    /// Random runs of `%check`.
    pub check_runs: u64,
    /// Seconds Graphviz may take for one layout.
    pub dot_timeout_s: u64,
    /// 1: `%check` also runs the user's functions in a `python3` child process (the oracle).
    pub cpython_oracle: u64,
    /// Settings `%config` may not change (a grader fixes the budgets of submissions).
    pub pinned: Vec<&'static str>,
    /// Calls of a function inside itself that `%set`/`%check` follow before the path is cut.
    pub depth: u64,
    /// Milliseconds between the steps `--step` shows.
    pub step_delay_ms: u64,
    /// Milliseconds of Z3 time one `%set`/`%check` exploration may spend (0: no bound).
    pub solver_budget_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            unroll: 4,
            z3_timeout_ms: INTERACTIVE_Z3_TIMEOUT_MS,
            path_limit: 64,
            node_limit: 400,
            step_budget: 100_000_000,
            recursion_limit: 200,
            memory_mb: 2048,
            time_limit_s: 0,
            check_runs: 100,
            dot_timeout_s: 60,
            cpython_oracle: 1,
            pinned: Vec::new(),
            depth: 4,
            step_delay_ms: 300,
            solver_budget_ms: INTERACTIVE_SOLVER_BUDGET_MS,
        }
    }
}

/// The Z3 timeout per query of an interactive session: short, so a cell answers in seconds;
/// a query past it is "unknown" (shown as such). Batch runs use [`BATCH_Z3_TIMEOUT_MS`].
pub const INTERACTIVE_Z3_TIMEOUT_MS: u64 = 1_000;
/// The solver time one exploration of an interactive session may spend.
pub const INTERACTIVE_SOLVER_BUDGET_MS: u64 = 3_000;
/// The Z3 timeout of batch runs (`analysis-kernel grade`, pinned): the old default, long
/// enough that a query's answer does not hang on the machine's load, with no solver time
/// budget, so a submission's trees do not depend on how busy the grader is.
pub const BATCH_Z3_TIMEOUT_MS: u64 = 5_000;

const SETTINGS: &[Setting] = &[
    Setting {
        key: "unroll",
        help: "loop unrolling bound of %set and %check",
        get: |c| c.unroll,
        set: |c, v| c.unroll = v,
        min: 0,
        max: 1_000,
    },
    Setting {
        key: "z3_timeout_ms",
        help: "Z3 timeout per query (ms); a timed-out query is \"unknown\"",
        get: |c| c.z3_timeout_ms,
        set: |c, v| c.z3_timeout_ms = v,
        min: 1,
        max: 3_600_000,
    },
    Setting {
        key: "path_limit",
        help: "paths listed by %constraints before `truncated`",
        get: |c| c.path_limit,
        set: |c, v| c.path_limit = v,
        min: 1,
        max: 1_000_000,
    },
    Setting {
        key: "node_limit",
        help: "nodes of a symbolic execution tree before it is cut",
        get: |c| c.node_limit,
        set: |c, v| c.node_limit = v,
        min: 1,
        max: 1_000_000,
    },
    Setting {
        key: "step_budget",
        help: "statements the interpreter runs per cell",
        get: |c| c.step_budget,
        set: |c, v| c.step_budget = v,
        min: 1,
        max: u64::MAX,
    },
    Setting {
        key: "recursion_limit",
        help: "depth of user-function calls",
        get: |c| c.recursion_limit,
        set: |c, v| c.recursion_limit = v,
        min: 1,
        max: 100_000,
    },
    Setting {
        key: "memory_mb",
        help: "MB the kernel may use while a cell runs (0: no limit); beyond it, MemoryError",
        get: |c| c.memory_mb,
        set: |c, v| c.memory_mb = v,
        min: 0,
        max: 1 << 24,
    },
    Setting {
        key: "time_limit_s",
        help: "seconds a cell may run (0: no limit); beyond it, TimeoutError",
        get: |c| c.time_limit_s,
        set: |c, v| c.time_limit_s = v,
        min: 0,
        max: 1 << 32,
    },
    Setting {
        key: "check_runs",
        help: "random concrete runs of %check",
        get: |c| c.check_runs,
        set: |c, v| c.check_runs = v,
        min: 0,
        max: 1_000_000,
    },
    Setting {
        key: "dot_timeout_s",
        help: "seconds Graphviz may take for one figure",
        get: |c| c.dot_timeout_s,
        set: |c, v| c.dot_timeout_s = v,
        min: 1,
        max: 3_600,
    },
    Setting {
        key: "cpython_oracle",
        help: "1: %check runs your functions in a python3 child process too; 0: off (ANALYSIS_KERNEL_NO_CPYTHON=1 forces 0)",
        get: |c| u64::from(c.cpython_oracle != 0 && !crate::symexec::check::cpython_forbidden()),
        set: |c, v| c.cpython_oracle = v,
        min: 0,
        max: 1,
    },
    Setting {
        key: "depth",
        help: "recursion depth of %set and %check: nested calls of a function in itself before the path is cut",
        get: |c| c.depth,
        set: |c, v| c.depth = v,
        min: 1,
        max: 10_000,
    },
    Setting {
        key: "step_delay_ms",
        help: "milliseconds between the steps --step shows (%dataflow, %absint)",
        get: |c| c.step_delay_ms,
        set: |c, v| c.step_delay_ms = v,
        min: 0,
        max: 10_000,
    },
    Setting {
        key: "solver_budget_ms",
        help: "Z3 time (ms) one %set/%check/%verify exploration may spend (0: no limit); past it, branches are \"unknown\"",
        get: |c| c.solver_budget_ms,
        set: |c, v| c.solver_budget_ms = v,
        min: 0,
        max: 3_600_000,
    },
];

impl Config {
    /// The time and memory budgets of a cell.
    pub fn budget(&self) -> Budget {
        Budget {
            time: (self.time_limit_s > 0).then(|| Duration::from_secs(self.time_limit_s)),
            memory: (self.memory_mb > 0)
                .then(|| usize::try_from(self.memory_mb << 20).unwrap_or(usize::MAX)),
        }
    }

    /// The keys, in the order `%config` lists them.
    pub fn keys() -> impl Iterator<Item = &'static str> {
        SETTINGS.iter().map(|s| s.key)
    }

    /// (key, value, help) for every setting.
    pub fn describe(&self) -> Vec<(&'static str, u64, &'static str)> {
        SETTINGS
            .iter()
            .map(|s| (s.key, (s.get)(self), s.help))
            .collect()
    }

    /// Applies `KEY=VALUE`.
    pub fn assign(&mut self, assignment: &str) -> Result<(), CellError> {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| CellError::usage(format!("expected KEY=VALUE, got {assignment:?}")))?;
        let (key, value) = (key.trim(), value.trim());
        let setting = SETTINGS.iter().find(|s| s.key == key).ok_or_else(|| {
            let hint = super::suggest(key, Config::keys())
                .map(|k| format!("; did you mean {k}?"))
                .unwrap_or_default();
            CellError::usage(format!("unknown setting {key:?}{hint} (see %config)"))
        })?;
        if self.pinned.contains(&setting.key) {
            return Err(CellError::usage(format!(
                "{key} is fixed here (the grader sets it) and cannot be changed"
            )));
        }
        let v: u64 = value
            .replace('_', "")
            .parse()
            .map_err(|_| CellError::usage(format!("{key} takes a whole number, got {value:?}")))?;
        if v < setting.min || v > setting.max {
            return Err(CellError::usage(format!(
                "{key} must be between {} and {}, got {v}",
                setting.min, setting.max
            )));
        }
        (setting.set)(self, v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assign_checks_keys_and_ranges() {
        let mut c = Config::default();
        c.assign("unroll=7").unwrap();
        assert_eq!(c.unroll, 7);
        c.assign(" step_budget = 1_000 ").unwrap();
        assert_eq!(c.step_budget, 1000);
        assert!(
            c.assign("unrol=3")
                .unwrap_err()
                .evalue
                .contains("did you mean unroll")
        );
        assert!(c.assign("unroll=-1").is_err());
        assert!(c.assign("z3_timeout_ms=0").is_err());
        assert!(c.assign("unroll").is_err());
        c.pinned = vec!["step_budget"];
        assert!(
            c.assign("step_budget=5")
                .unwrap_err()
                .evalue
                .contains("step_budget is fixed here")
        );
        assert_eq!(c.step_budget, 1000);
        c.pinned.clear();
        assert_eq!(c.budget().memory, Some(2048 << 20));
        c.assign("memory_mb=0").unwrap();
        c.assign("time_limit_s=3").unwrap();
        assert_eq!(
            c.budget(),
            Budget {
                time: Some(Duration::from_secs(3)),
                memory: None
            }
        );
    }
}
