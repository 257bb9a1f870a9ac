//! What `%dataflow`/`%absint` (and their `%%` forms) analyse: a defined function named on the
//! line, or the rest of the cell (its top-level code; or each function it defines when it
//! has no other code).

use std::sync::Arc;

use crate::cfg::{CfgError, scope_code};
use crate::dataflow::analyses::Program;
use crate::notebook::invocation::Invocation;
use crate::notebook::output::CellError;
use crate::notebook::session::Session;
use crate::python::ir::{Function, Module, StmtKind};
use crate::python::lower_module;

/// Code to analyse.
pub enum Subject {
    Function(Arc<Function>),
    /// A cell's top-level code.
    Module(Module),
}

/// The command's first argument (the analysis or domain) and the code it names.
pub struct Request {
    pub which: String,
    pub subjects: Vec<Subject>,
    /// Where the code came from, for error messages: `None` for a defined function.
    pub cell_body: Option<String>,
}

/// Parses `%cmd WHICH NAME` or `%%cmd WHICH` + body. `choices` lists what WHICH may be.
pub fn request(session: &Session, inv: &Invocation, choices: &str) -> Result<Request, CellError> {
    let cmd = &inv.name;
    if inv.cell {
        let [which] = inv.args.as_slice() else {
            return Err(CellError::usage(format!(
                "%%{cmd} takes one argument ({choices}) and analyses the rest of the cell"
            )));
        };
        if inv.body.trim().is_empty() {
            return Err(CellError::usage(format!(
                "%%{cmd} needs Python code in the rest of the cell"
            )));
        }
        let module = lower_module(&inv.body)?;
        let subjects = if has_top_level_code(&module) {
            vec![Subject::Module(module)]
        } else {
            module
                .functions()
                .map(|f| Subject::Function(Arc::new(f.clone())))
                .collect()
        };
        return Ok(Request {
            which: which.clone(),
            subjects,
            cell_body: Some(inv.body.clone()),
        });
    }
    match inv.args.as_slice() {
        [which, name] => {
            let f = session.require_lowered(name)?.clone();
            Ok(Request {
                which: which.clone(),
                subjects: vec![Subject::Function(f)],
                cell_body: None,
            })
        }
        [_] => Err(CellError::usage(format!(
            "%{cmd} needs a function name after the {choices} argument (or use %%{cmd} on a cell)"
        ))),
        _ => Err(CellError::usage(format!(
            "usage: %{cmd} {choices} NAME [--trace] (see %help {cmd})"
        ))),
    }
}

impl Subject {
    /// The subject's CFG and facts; control-flow errors become `SyntaxError`s.
    pub fn program(&self, cell_body: Option<&str>) -> Result<Program<'_>, CellError> {
        let result = match self {
            Subject::Function(f) => Program::function(f),
            Subject::Module(m) => Program::module(m),
        };
        result.map_err(|e| cfg_error(e, self, cell_body))
    }
}

fn cfg_error(e: CfgError, subject: &Subject, cell_body: Option<&str>) -> CellError {
    match (cell_body, subject) {
        (Some(body), _) => {
            let text = body
                .lines()
                .nth(e.line().saturating_sub(1) as usize)
                .unwrap_or("")
                .to_string();
            let column = (text.len() - text.trim_start().len() + 1) as u32;
            CellError::new("SyntaxError", e.to_string()).at_cell_line(e.line(), &text, column)
        }
        (None, Subject::Function(f)) => {
            CellError::new("SyntaxError", format!("in {}: {e}", f.qualname))
        }
        (None, Subject::Module(_)) => CellError::new("SyntaxError", e.to_string()),
    }
}

/// Whether the module does more than define functions.
fn has_top_level_code(module: &Module) -> bool {
    let code = scope_code(&module.body);
    code.is_empty()
        || code
            .iter()
            .any(|s| !matches!(s.kind, StmtKind::FunctionDef(_)))
}
