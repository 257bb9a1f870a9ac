//! Concrete runs in the kernel's interpreter. A function is called with the inputs as its
//! arguments; a snippet runs as the body of a function whose parameters are the inputs and
//! which, when the body ends without `return`, returns a marker with the final values of the
//! snippet's variables (those bound at that point).

use super::CheckError;
use crate::cancel::Cancel;
use crate::interp::{Interpreter, Limits, Outcome, RunError};
use crate::python::ir::{Module, Stmt, StmtKind};
use crate::python::{PyValue, lower_module};

/// The name of a snippet's wrapping function.
pub const SNIPPET_FUNCTION: &str = "__analysis_kernel_snippet__";
/// The name of the function that passes a run's last arguments by keyword.
pub const KEYWORD_CALL: &str = "__analysis_kernel_keywords__";
/// The first item of what a snippet's wrapper returns when its body ran to its end.
pub const NORMAL_END: &str = "__analysis_kernel_normal_end__";

/// Python source to run concretely and the function to call.
#[derive(Clone, Debug, PartialEq)]
pub struct Runnable {
    pub source: String,
    pub function: String,
    /// A snippet: results may be the normal-end marker.
    pub snippet: bool,
}

/// What one concrete run did.
#[derive(Clone, Debug, PartialEq)]
pub enum Concrete {
    Return(PyValue),
    Raised {
        type_name: String,
        message: String,
    },
    /// A snippet ran to its end: its variables.
    Normal(Vec<(String, PyValue)>),
    /// The run gave no result (a value with no `PyValue`, an unsupported construct).
    NoResult(String),
    /// The run did not finish within its budget (interpreter steps or CPython's seconds):
    /// it is reported, not judged.
    Unfinished(String),
}

impl Runnable {
    /// Calls `name`, defined in `definitions` (function sources).
    pub fn function(definitions: &[String], name: &str) -> Runnable {
        Runnable {
            source: definitions.join("\n\n"),
            function: name.to_string(),
            snippet: false,
        }
    }

    /// Runs `body` with `inputs` as parameters, reporting the variables `captured` at its end.
    pub fn snippet(
        definitions: &[String],
        body: &str,
        inputs: &[String],
        captured: &[String],
    ) -> Runnable {
        let mut source = definitions.join("\n\n");
        source.push_str(&format!(
            "\n\ndef {SNIPPET_FUNCTION}({}):\n",
            inputs.join(", ")
        ));
        for line in body.lines() {
            if !line.trim().is_empty() {
                source.push_str("    ");
                source.push_str(line);
            }
            source.push('\n');
        }
        source.push_str("    pass\n    __store = []\n");
        let mut names: Vec<&String> = Vec::new();
        for n in captured {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        for name in names {
            source.push_str(&format!(
                "    try:\n        __store.append(('{name}', {name}))\n    except NameError:\n        pass\n"
            ));
        }
        source.push_str(&format!("    return ('{NORMAL_END}', __store)\n"));
        Runnable {
            source,
            function: SNIPPET_FUNCTION.to_string(),
            snippet: true,
        }
    }

    /// Calls the function through a wrapper that passes the arguments after the first
    /// `positional` by keyword, as `keywords` (keyword-only parameters); itself when there
    /// are none.
    pub fn with_keywords(&self, positional: usize, keywords: &[String]) -> Runnable {
        if keywords.is_empty() {
            return self.clone();
        }
        let passed: Vec<String> = keywords
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{k}=args[{}]", positional + i))
            .collect();
        Runnable {
            source: format!(
                "{}

def {KEYWORD_CALL}(*args):
    return {}(*args[:{positional}], {})
",
                self.source,
                self.function,
                passed.join(", ")
            ),
            function: KEYWORD_CALL.to_string(),
            snippet: self.snippet,
        }
    }

    /// A result of the function as what the run did.
    pub fn outcome(&self, value: PyValue) -> Concrete {
        if self.snippet
            && let PyValue::Tuple(parts) = &value
            && let [PyValue::Str(marker), PyValue::List(pairs)] = parts.as_slice()
            && marker == NORMAL_END
        {
            let store = pairs
                .iter()
                .filter_map(|p| match p {
                    PyValue::Tuple(kv) => match kv.as_slice() {
                        [PyValue::Str(k), v] => Some((k.clone(), v.clone())),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            return Concrete::Normal(store);
        }
        Concrete::Return(value)
    }
}

/// The variables a snippet binds at its top level (not functions or classes it defines).
pub fn snippet_variables(module: &Module) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    collect(&module.body, &mut out);
    out
}

fn collect(block: &[Stmt], out: &mut Vec<String>) {
    for s in block {
        match &s.kind {
            StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. } => continue,
            _ => {
                for n in s.defined_names() {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
        for b in s.blocks() {
            collect(b, out);
        }
    }
}

/// Runs every input list in the kernel's interpreter, each within `limits`; what each run
/// did and the steps it used.
pub fn interpret(
    r: &Runnable,
    inputs: &[Vec<PyValue>],
    limits: Limits,
    cancel: &Cancel,
) -> Result<Vec<(Concrete, u64)>, CheckError> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let module = lower_module(&r.source).map_err(|e| CheckError::Program(e.to_string()))?;
    let mut interp = Interpreter::new();
    let mut quiet = |_: crate::interp::Stream, _: &str| {};
    interp
        .run_module(&module, &mut quiet, cancel, limits)
        .map_err(|e| CheckError::Program(e.to_string()))?;
    let mut out = Vec::with_capacity(inputs.len());
    for args in inputs {
        cancel.check()?;
        let result = interp.call(&r.function, args.clone(), &mut quiet, cancel, limits);
        let concrete = match result {
            Ok(Outcome::Returned(v)) => r.outcome(v),
            Ok(Outcome::Raised(e)) => Concrete::Raised {
                type_name: e.type_name,
                message: e.message,
            },
            Err(RunError::Stopped(s)) => return Err(s.into()),
            Err(RunError::Exception(e)) => Concrete::Raised {
                type_name: e.type_name,
                message: e.message,
            },
            Err(RunError::StepBudgetExceeded { budget }) => {
                Concrete::Unfinished(format!("did not finish within {budget} steps"))
            }
            Err(other) => Concrete::NoResult(other.to_string()),
        };
        out.push((concrete, interp.last_steps()));
        crate::work::ran();
    }
    Ok(out)
}
