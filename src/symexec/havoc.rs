//! "Havoc": what the symbolic interpreter does not model does not refuse the function. A
//! condition it cannot translate becomes a fresh boolean (both ways are explored), any other
//! value becomes [`Value::Havoc`] (anything), a statement it does not model binds what it may
//! bind to havoc values, and names an unmodelled call may mutate (`lst.sort()`,
//! `random.shuffle(lst)`) become havoc too. Each such step leaves a note on the next node,
//! and every leaf below it is *approximate*: its path condition, outcome and witness are not
//! claimed exact (the taint is per path, so no unmodelled raise, mutation or alias can make
//! an exact claim false), and `%check` judges only exact leaves.

use super::state::State;
use super::tree::Value;
use crate::python::ir::{Expr, ExprKind, Stmt, StmtKind};
use crate::symbolic::{Sort, Term, Var};

/// The note of a branch on float arithmetic ([`crate::symbolic::float_rounding`]).
pub fn float_note(rounding: &Term) -> String {
    note(
        &format!(
            "float arithmetic `{rounding}` (floats are modelled as exact reals, without rounding)"
        ),
        0,
    )
}

/// What one path did not model.
#[derive(Clone, Debug, Default)]
pub struct Taint {
    /// Notes since the last node (shown on the next one).
    pub notes: Vec<String>,
    /// The path went through a havoc: every leaf below is approximate.
    pub approximate: bool,
    /// Fresh variables made on this path.
    pub fresh: u32,
}

/// The base name fresh variables share (`$havoc_3`): not a Python name, so no input or
/// variable can clash with it.
pub const FRESH: &str = "$havoc";

/// The note of a havoc: `havoc: the method .append(), line 4`.
pub fn note(construct: &str, line: u32) -> String {
    if line > 0 {
        format!("havoc: {construct}, line {line}")
    } else {
        format!("havoc: {construct}")
    }
}

impl Taint {
    /// Records a havoc on this path.
    pub fn mark(&mut self, note: String) {
        self.approximate = true;
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// A fresh boolean: an untranslatable condition, or whether an unknown iterable has one
    /// more item.
    pub fn fresh_bool(&mut self, note: String) -> Term {
        self.mark(note);
        self.fresh += 1;
        let var = Var {
            name: FRESH.to_string(),
            version: self.fresh,
            path: Vec::new(),
        };
        Term::var(var, Sort::Bool).unwrap_or_else(|_| Term::bool(true))
    }
}

/// The name a target or receiver expression stores into: `x` for `x`, `x[i]`, `x.a[j]`.
pub fn base_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n) => Some(n),
        ExprKind::Subscript { value, .. } | ExprKind::Attribute { value, .. } => base_name(value),
        _ => None,
    }
}

/// Names an unmodelled evaluation of `e` may have mutated: receivers of method calls and
/// name arguments of calls through an attribute (`random.shuffle(lst)`).
pub fn mutated(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    collect_mutated(e, &mut out);
    out
}

fn collect_mutated(e: &Expr, out: &mut Vec<String>) {
    e.walk(&mut |c: &Expr| {
        if let ExprKind::Call { func, args, .. } = &c.kind
            && let ExprKind::Attribute { value, .. } = &func.kind
        {
            out.extend(base_name(value).map(str::to_string));
            out.extend(args.iter().filter_map(|a| a.as_name().map(str::to_string)));
        }
    });
}

/// Binds each of `names` in the current frame to a havoc value with `note`.
pub fn havoc_names<'p>(
    s: &mut State<'p>,
    names: impl IntoIterator<Item = String>,
    note: &str,
) -> Result<(), super::SymexecError> {
    for n in names {
        if n.starts_with('$') {
            continue;
        }
        s.assign(&n, Value::Havoc(note.to_string()))?;
    }
    Ok(())
}

/// The names a statement may bind (its own targets, nested blocks included).
pub fn bound_names(stmt: &Stmt) -> Vec<String> {
    let mut out: Vec<String> = stmt.defined_names().into_iter().collect();
    if let StmtKind::Delete(targets) = &stmt.kind {
        out.extend(
            targets
                .iter()
                .filter_map(|t| base_name(t).map(str::to_string)),
        );
    }
    if !matches!(
        stmt.kind,
        StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. }
    ) {
        for b in stmt.blocks() {
            for s in b {
                for n in bound_names(s) {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
    }
    out
}
