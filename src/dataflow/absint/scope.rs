//! What the abstract interpreter knows of a scope before running: which names are locals,
//! which may hold values other than ints (never refined by branch conditions), which always
//! hold a tuple or string of one known length, and which calls may rebind.

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::Item;
use crate::dataflow::analyses::Program;
use crate::fxhash::FxHashMap;
use crate::python::ir::{BinOp, Constant, Expr, ExprKind, ParamKind, Stmt, StmtKind, UnaryOp};

/// Calls whose result is an int (or bool) whatever their arguments.
const INT_CALLS: &[&str] = &["len", "int", "ord", "bool"];

/// Facts about the names of one scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// A function's locals (reading one that is unbound raises); empty for top-level code.
    pub locals: BTreeSet<String>,
    pub is_function: bool,
    /// Names that may hold a non-int (a float, a string, a call's result): branch conditions
    /// do not refine them, since the domains describe ints.
    pub opaque: BTreeSet<String>,
    /// Names bound only to tuple or string literals of one length.
    pub lengths: BTreeMap<String, usize>,
    /// Names that nested functions declare `global` or `nonlocal`: a call may rebind them.
    pub clobbered: BTreeSet<String>,
}

/// One binding of a name, for the opacity and length passes.
enum Binding<'a> {
    /// `name = value` (or `name: T = value`, or `name := value`).
    Value(&'a Expr),
    /// `name += value` and the like.
    Aug(BinOp, &'a Expr),
    /// A `for` target bound to the items of `iter`.
    Item(&'a Expr),
    /// Anything else: unpacking, `with`, `except ... as`, imports, `def`, patterns.
    Other,
}

impl Scope {
    pub fn new(program: &Program<'_>) -> Scope {
        // Iteration order does not matter below: opacity is a fixpoint, lengths are per name.
        let mut bindings: FxHashMap<String, Vec<Binding<'_>>> = FxHashMap::default();
        for n in program.cfg.nodes() {
            match program.item(n) {
                Some(Item::Stmt(s)) => collect_bindings(s, &mut bindings),
                Some(Item::Handler(h)) => {
                    if let Some(name) = &h.name {
                        bindings
                            .entry(name.clone())
                            .or_default()
                            .push(Binding::Other);
                    }
                }
                Some(Item::Case(c)) => {
                    for name in c.defined_names() {
                        bindings.entry(name).or_default().push(Binding::Other);
                    }
                }
                None => {}
            }
        }
        let mut opaque: BTreeSet<String> = BTreeSet::new();
        for p in program.params {
            let int_like = matches!(
                p.kind,
                ParamKind::PositionalOnly | ParamKind::Positional | ParamKind::KeywordOnly
            ) && p
                .annotation_text
                .as_deref()
                .is_none_or(|t| t == "int" || t == "bool");
            if !int_like {
                opaque.insert(p.name.clone());
            }
            if !bindings.contains_key(&p.name) {
                bindings.insert(p.name.clone(), Vec::new());
            }
        }
        // Opacity spreads through assignments (`y = x` with x opaque): iterate to a fixpoint.
        loop {
            let before = opaque.len();
            for (name, sites) in &bindings {
                if !opaque.contains(name)
                    && sites.iter().any(|b| binding_may_be_non_int(b, &opaque))
                {
                    opaque.insert(name.clone());
                }
            }
            if opaque.len() == before {
                break;
            }
        }
        let params: BTreeSet<&str> = program.params.iter().map(|p| p.name.as_str()).collect();
        let lengths = bindings
            .iter()
            .filter(|(name, _)| !params.contains(name.as_str()))
            .filter_map(|(name, sites)| Some((name.clone(), common_length(sites)?)))
            .collect();
        let mut clobbered = BTreeSet::new();
        let defs: Vec<_> = program
            .cfg
            .nodes()
            .filter_map(|n| match program.item(n) {
                Some(Item::Stmt(s)) => Some(s),
                _ => None,
            })
            .filter(|s| matches!(s.kind, StmtKind::FunctionDef(_)))
            .collect();
        let own: BTreeSet<_> = if defs.is_empty() {
            BTreeSet::new()
        } else {
            program
                .cfg
                .nodes()
                .filter_map(|n| program.cfg.node(n).stmts.first().map(|s| s.id))
                .collect()
        };
        for s in defs {
            if let StmtKind::FunctionDef(f) = &s.kind {
                for inner in &f.body {
                    inner.walk(&mut |x| {
                        if let StmtKind::Global(names) | StmtKind::Nonlocal(names) = &x.kind
                            && !own.contains(&x.id)
                        {
                            clobbered.extend(names.iter().cloned());
                        }
                    });
                }
            }
        }
        Scope {
            locals: program.locals(),
            is_function: program.is_function,
            opaque,
            lengths,
            clobbered,
        }
    }

    /// Whether a branch condition may refine `name`: an int-valued local (any name at top
    /// level, where calls that may rebind it clobber it).
    pub fn refinable(&self, name: &str) -> bool {
        !self.opaque.contains(name) && (!self.is_function || self.locals.contains(name))
    }
}

fn collect_bindings<'a>(s: &'a Stmt, out: &mut FxHashMap<String, Vec<Binding<'a>>>) {
    let mut add = |name: &str, b: Binding<'a>| match out.get_mut(name) {
        Some(sites) => sites.push(b),
        None => {
            out.insert(name.to_string(), vec![b]);
        }
    };
    for e in s.exprs() {
        e.walk(&mut |x| {
            if let ExprKind::NamedExpr { target, value } = &x.kind {
                add(target, Binding::Value(value));
            }
        });
    }
    match &s.kind {
        StmtKind::Assign { targets, value } => {
            for t in targets {
                bind_target(t, value, &mut add);
            }
        }
        StmtKind::AnnAssign {
            target,
            value: Some(value),
            ..
        } => bind_target(target, value, &mut add),
        StmtKind::AugAssign { target, op, value } => {
            if let Some(name) = target.as_name() {
                add(name, Binding::Aug(*op, value));
            }
        }
        StmtKind::For { target, iter, .. } => match target.as_name() {
            Some(name) => add(name, Binding::Item(iter)),
            None => target
                .target_names()
                .iter()
                .for_each(|n| add(n, Binding::Other)),
        },
        StmtKind::AnnAssign { value: None, .. } => {}
        _ => {
            let walrus: BTreeSet<String> =
                s.exprs().iter().flat_map(|e| e.walrus_targets()).collect();
            for name in s.defined_names() {
                if !walrus.contains(&name) {
                    add(&name, Binding::Other);
                }
            }
        }
    }
}

/// `a = v` binds a to v; `a, b = x, y` binds element-wise; other unpacking is opaque.
fn bind_target<'a>(target: &'a Expr, value: &'a Expr, add: &mut impl FnMut(&str, Binding<'a>)) {
    match (&target.kind, &value.kind) {
        (ExprKind::Name(n), _) => add(n, Binding::Value(value)),
        (ExprKind::Tuple(ts) | ExprKind::List(ts), ExprKind::Tuple(vs) | ExprKind::List(vs))
            if ts.len() == vs.len() && !ts.iter().chain(vs).any(is_starred) =>
        {
            for (t, v) in ts.iter().zip(vs) {
                bind_target(t, v, add);
            }
        }
        _ => target
            .target_names()
            .iter()
            .for_each(|n| add(n, Binding::Other)),
    }
}

fn is_starred(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Starred(_))
}

fn binding_may_be_non_int(b: &Binding<'_>, opaque: &BTreeSet<String>) -> bool {
    match b {
        Binding::Value(v) => may_be_non_int(v, opaque),
        Binding::Aug(op, v) => matches!(op, BinOp::Div | BinOp::Pow) || may_be_non_int(v, opaque),
        Binding::Item(iter) => !iterates_ints(iter, opaque),
        Binding::Other => true,
    }
}

/// Whether `e` may evaluate to something other than an int or a bool.
pub fn may_be_non_int(e: &Expr, opaque: &BTreeSet<String>) -> bool {
    match &e.kind {
        ExprKind::Constant(c) => !matches!(c, Constant::Int(_) | Constant::Bool(_)),
        ExprKind::Name(n) => opaque.contains(n),
        ExprKind::BinOp { op, left, right } => {
            matches!(op, BinOp::Div | BinOp::Pow | BinOp::MatMult)
                || may_be_non_int(left, opaque)
                || may_be_non_int(right, opaque)
        }
        ExprKind::UnaryOp { op, operand } => *op != UnaryOp::Not && may_be_non_int(operand, opaque),
        ExprKind::Compare { .. } => false,
        ExprKind::BoolOp { values, .. } => values.iter().any(|v| may_be_non_int(v, opaque)),
        ExprKind::IfExp { body, orelse, .. } => {
            may_be_non_int(body, opaque) || may_be_non_int(orelse, opaque)
        }
        ExprKind::NamedExpr { value, .. } => may_be_non_int(value, opaque),
        ExprKind::Call { func, .. } => !func.as_name().is_some_and(|f| INT_CALLS.contains(&f)),
        _ => true,
    }
}

/// `range(...)`, or a tuple or list literal of ints.
fn iterates_ints(iter: &Expr, opaque: &BTreeSet<String>) -> bool {
    match &iter.kind {
        ExprKind::Call { func, .. } => func.as_name() == Some("range"),
        ExprKind::Tuple(es) | ExprKind::List(es) => es
            .iter()
            .all(|e| !is_starred(e) && !may_be_non_int(e, opaque)),
        _ => false,
    }
}

/// The length of a tuple or string literal.
pub fn literal_length(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Tuple(es) if !es.iter().any(is_starred) => Some(es.len()),
        ExprKind::Constant(Constant::Str(s)) => Some(s.chars().count()),
        _ => None,
    }
}

/// The length every binding gives, when they all bind literals of the same length.
fn common_length(sites: &[Binding<'_>]) -> Option<usize> {
    let mut len = None;
    for b in sites {
        let Binding::Value(v) = b else {
            return None;
        };
        let l = literal_length(v)?;
        if len.is_some_and(|m| m != l) {
            return None;
        }
        len = Some(l);
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn scope(source: &str) -> Scope {
        let m = lower_module(source).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
        Scope::new(&p)
    }

    #[test]
    fn opacity_lengths_and_clobbering() {
        let s = scope(
            "def f(a, b: float, *rest):\n    x = 1.5\n    y = x + 1\n    z = a // 2\n    n = len(rest)\n    w = g(a)\n    t = (1, 2, 3)\n    u = 'ab'\n    u = 'cd'\n    v = (1,)\n    v = 'xy'\n    for i in range(n):\n        pass\n    for c in u:\n        pass\n    def h():\n        nonlocal z\n        z = 0\n    return t[i]\n",
        );
        let opaque: Vec<&str> = s.opaque.iter().map(String::as_str).collect();
        assert_eq!(
            opaque,
            ["b", "c", "h", "rest", "t", "u", "v", "w", "x", "y"]
        );
        let lengths: Vec<(&str, usize)> = s.lengths.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(lengths, [("t", 3), ("u", 2)]);
        assert!(s.clobbered.contains("z"));
        assert!(s.refinable("a") && s.refinable("z") && !s.refinable("x"));
        assert!(!s.refinable("print"), "not a local");
    }
}
