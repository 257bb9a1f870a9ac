//! What a run executes: the entry (a function, or a snippet of top-level code), its inputs,
//! and every function it may call with its body prepared (calls hoisted, local names known).

use std::collections::{BTreeMap, BTreeSet};

use super::SymexecError;
use super::exceptions::Classes;
use super::hoist::hoist_block;
use super::inputs::{Inputs, function_inputs};
use super::packed::Packed;
use crate::python::ir::{ExprKind, Function, Module, Param, Stmt, StmtId, StmtKind};
use crate::symbolic::{Env, Sort, Term, translate_condition};

/// A function ready to run: its body with calls hoisted, the names it binds locally.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// How the program refers to it (`find`; `cell:7` for a def in a snippet).
    pub key: String,
    pub name: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    /// Parameters and every name the body assigns (reading one before it is bound raises
    /// `UnboundLocalError`).
    pub locals: BTreeSet<String>,
}

/// Where execution starts.
#[derive(Clone, Debug)]
pub enum Entry {
    /// The function with this key.
    Function(String),
    /// Top-level code (calls hoisted); a `return` ends it like a function's.
    Snippet(Vec<Stmt>),
}

/// A program to execute symbolically.
#[derive(Debug)]
pub struct Program {
    /// The function's name, or `<cell>`.
    pub name: String,
    pub entry: Entry,
    pub inputs: Inputs,
    /// The parameters of several hidden inputs (dicts, sets, optionals), whose inputs
    /// stand in [`Program::inputs`].
    pub packed: Vec<Packed>,
    /// Declares every input: the terms witnesses are read from.
    pub input_env: Env,
    /// Functions by key; preparing one may have failed (reported when it is called).
    pub functions: BTreeMap<String, Result<Prepared, SymexecError>>,
    /// The key of each `def` statement of a snippet.
    pub defs: BTreeMap<StmtId, String>,
    pub classes: Classes,
    /// Notes on the inputs' types: inferred for parameters without annotation, or narrowed
    /// (`Optional[str]` explored as `str`).
    pub inferred: Vec<String>,
    /// The entry function's docstring preconditions (read by the parser `%constraints`
    /// uses), assumed at the root: their text and condition (true and not raising).
    pub preconditions: Vec<(String, crate::symbolic::Term)>,
    /// Preconditions that could not be translated, with the reason.
    pub ignored_preconditions: Vec<(String, String)>,
}

impl Program {
    /// `%set NAME`: the function `name`, calling any of `functions` (the session's).
    pub fn function<'f>(
        name: &str,
        functions: impl IntoIterator<Item = &'f Function>,
        given: &[(String, Sort)],
    ) -> Result<Program, SymexecError> {
        let mut table = BTreeMap::new();
        let mut entry = None;
        let functions: Vec<&Function> = functions.into_iter().collect();
        for f in functions.iter().copied() {
            if f.qualname.contains('.') {
                continue;
            }
            if f.qualname == name {
                entry = Some(f);
            }
            table.insert(f.qualname.clone(), prepare(f, f.qualname.clone()));
        }
        let f = entry.ok_or_else(|| SymexecError::Input(format!("no function named {name:?}")))?;
        if let Some(Err(e)) = table.get(name) {
            return Err(e.clone());
        }
        let (inputs, inferred, packed) = function_inputs(f, &functions, given)?;
        let input_env = inputs.env()?;
        let (preconditions, ignored_preconditions) = preconditions(f, &input_env);
        Ok(Program {
            preconditions,
            ignored_preconditions,
            name: name.to_string(),
            entry: Entry::Function(name.to_string()),
            input_env,
            inputs,
            packed,
            functions: table,
            defs: BTreeMap::new(),
            classes: Classes::default(),
            inferred,
        })
    }

    /// `%%set ARG:TYPE ...`: a snippet (with `functions` of the session callable). A snippet
    /// that only defines one function is that function.
    pub fn snippet<'f>(
        module: &Module,
        functions: impl IntoIterator<Item = &'f Function>,
        given: &[(String, Sort)],
    ) -> Result<Program, SymexecError> {
        let session: Vec<&Function> = functions.into_iter().collect();
        let own_defs: Vec<&Function> = module
            .functions()
            .filter(|f| !f.qualname.contains('.'))
            .collect();
        let only_defs = module.body.iter().all(|s| {
            matches!(s.kind, StmtKind::FunctionDef(_) | StmtKind::Pass)
                || matches!(&s.kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Constant(_)))
        });
        if only_defs && let [single] = own_defs.as_slice() {
            let all = session
                .iter()
                .copied()
                .filter(|f| f.qualname != single.qualname)
                .chain([*single]);
            return Program::function(&single.qualname, all, given);
        }
        let mut table = BTreeMap::new();
        for f in &session {
            if !f.qualname.contains('.') {
                table.insert(f.qualname.clone(), prepare(f, f.qualname.clone()));
            }
        }
        let mut defs = BTreeMap::new();
        let mut classes = Classes::default();
        module.walk(&mut |s: &Stmt| match &s.kind {
            StmtKind::FunctionDef(f) if !f.qualname.contains('.') => {
                let key = format!("cell:{}", s.id.0);
                defs.insert(s.id, key.clone());
                table.insert(key.clone(), prepare(f, key));
            }
            StmtKind::ClassDef {
                name, bases, body, ..
            } if is_exception_class(bases, body) => {
                if let [base] = bases.as_slice()
                    && let ExprKind::Name(b) = &base.kind
                {
                    classes.define(name, b);
                }
            }
            _ => {}
        });
        let inputs = Inputs(given.to_vec());
        Ok(Program {
            name: "<cell>".into(),
            entry: Entry::Snippet(hoist_block(&module.body)?),
            input_env: inputs.env()?,
            inputs,
            packed: Vec::new(),
            functions: table,
            defs,
            classes,
            inferred: Vec::new(),
            preconditions: Vec::new(),
            ignored_preconditions: Vec::new(),
        })
    }

    pub fn is_snippet(&self) -> bool {
        matches!(self.entry, Entry::Snippet(_))
    }

    /// The entry function (for a function entry).
    pub fn entry_function(&self) -> Option<&Prepared> {
        match &self.entry {
            Entry::Function(key) => self.functions.get(key).and_then(|f| f.as_ref().ok()),
            Entry::Snippet(_) => None,
        }
    }
}

/// `class E(Base): pass` (a docstring or `pass` body, one base).
fn is_exception_class(bases: &[crate::python::ir::Expr], body: &[Stmt]) -> bool {
    bases.len() == 1
        && body.iter().all(|s| {
            matches!(s.kind, StmtKind::Pass)
                || matches!(&s.kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Constant(_)))
        })
}

/// The docstring's preconditions of `f` over its inputs: translated (true and raising
/// nothing), or ignored with the reason.
#[allow(clippy::type_complexity)]
fn preconditions(f: &Function, env: &Env) -> (Vec<(String, Term)>, Vec<(String, String)>) {
    let mut used = Vec::new();
    let mut ignored = Vec::new();
    let doc = f.docstring.as_deref().unwrap_or("");
    for w in crate::constraints::docstring::preconditions(doc) {
        let built = w.expr.and_then(|e| {
            let t = translate_condition(&e, env).map_err(|e| e.to_string())?;
            t.holds().map_err(|e| e.0)
        });
        match built {
            Ok(t) => used.push((w.text, crate::symbolic::simplify::simplify(&t))),
            Err(reason) => ignored.push((w.text, reason)),
        }
    }
    (used, ignored)
}

fn prepare(f: &Function, key: String) -> Result<Prepared, SymexecError> {
    let body = hoist_block(f.code())?;
    let mut locals: BTreeSet<String> = f.params.iter().map(|p| p.name.clone()).collect();
    collect_locals(&body, &mut locals);
    Ok(Prepared {
        key,
        name: f.qualname.clone(),
        params: f.params.clone(),
        body,
        locals,
    })
}

/// Names bound in a block, nested blocks included, nested function bodies excluded.
fn collect_locals(block: &[Stmt], out: &mut BTreeSet<String>) {
    for s in block {
        out.extend(s.defined_names());
        if let StmtKind::Try { handlers, .. } = &s.kind {
            out.extend(handlers.iter().filter_map(|h| h.name.clone()));
        }
        if matches!(s.kind, StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. }) {
            continue;
        }
        for b in s.blocks() {
            collect_locals(b, out);
        }
    }
}
