//! Which exceptions a statement may raise, and which `except` clauses catch them.
//!
//! The model is deliberately small and stated here, since edges follow it:
//! - anything that runs code we cannot see raises an unknown exception ([`Raises::Any`]): calls,
//!   imports, `for` headers (iteration), `with` headers, `*x` unpacking, comprehensions,
//!   class creation, decorators, `await`/`yield`;
//! - operators raise their characteristic exceptions: `/ // %` ZeroDivisionError and
//!   TypeError; other arithmetic, bitwise, unary `- + ~` and ordering comparisons (`< <= > >= in
//!   not in`) TypeError; subscripts IndexError and KeyError; attribute access AttributeError;
//!   `del name` NameError; `assert` AssertionError; `raise X(...)` X; a bare `raise` re-raises
//!   what the enclosing handler caught (RuntimeError outside a handler);
//! - reading a name (NameError), `==`/`is` and literals are taken not to raise.

use std::collections::BTreeSet;

use crate::python::exceptions::{is_builtin, is_subclass as builtin_subclass};
use crate::python::ir::{BinOp, CmpOp, ExceptHandler, Expr, ExprKind, Stmt, StmtKind, UnaryOp};

/// What a statement may raise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Raises {
    /// These exception classes (by name, `mod.Error` for dotted names).
    Known(BTreeSet<String>),
    /// Anything.
    Any,
}

/// Whether an `except` clause catches an exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Catch {
    Yes,
    /// Cannot tell (user classes, computed handler types): an edge, and the search goes on.
    Maybe,
    No,
}

impl Raises {
    fn none() -> Raises {
        Raises::Known(BTreeSet::new())
    }

    fn one(name: &str) -> Raises {
        Raises::Known(BTreeSet::from([name.to_string()]))
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Raises::Known(s) if s.is_empty())
    }

    /// The known names, sorted (empty for `Any`).
    pub fn names(&self) -> Vec<String> {
        match self {
            Raises::Known(s) => s.iter().cloned().collect(),
            Raises::Any => Vec::new(),
        }
    }

    pub fn union(&mut self, other: Raises) {
        match (&mut *self, other) {
            (Raises::Any, _) => {}
            (_, Raises::Any) => *self = Raises::Any,
            (Raises::Known(a), Raises::Known(b)) => a.extend(b),
        }
    }

    fn add(&mut self, names: &[&str]) {
        if let Raises::Known(s) = self {
            s.extend(names.iter().map(|n| n.to_string()));
        }
    }
}

/// The class names an `except` clause names; `None` for a bare `except:` and `Some([])`
/// when the type is computed (a call, a subscript).
pub fn handler_classes(h: &ExceptHandler) -> Option<Vec<String>> {
    let t = h.type_.as_ref()?;
    let items: Vec<&Expr> = match &t.kind {
        ExprKind::Tuple(es) => es.iter().collect(),
        _ => vec![t],
    };
    Some(items.into_iter().filter_map(dotted_name).collect())
}

/// `a.b.c` for names and attribute chains.
pub fn dotted_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.clone()),
        ExprKind::Attribute { value, attr } => Some(format!("{}.{attr}", dotted_name(value)?)),
        _ => None,
    }
}

/// Whether a handler naming `classes` (`None`: bare) catches exception `exc`.
pub fn catches(classes: Option<&[String]>, computed: bool, exc: &str) -> Catch {
    let Some(classes) = classes else {
        return Catch::Yes;
    };
    let mut best = if computed { Catch::Maybe } else { Catch::No };
    for class in classes {
        let c = class.rsplit('.').next().unwrap_or(class);
        let e = exc.rsplit('.').next().unwrap_or(exc);
        let verdict = if class == exc || c == "BaseException" {
            Catch::Yes
        } else if is_builtin(c) && is_builtin(e) && !class.contains('.') && !exc.contains('.') {
            if builtin_subclass(e, c) {
                Catch::Yes
            } else {
                Catch::No
            }
        } else if c == "Exception" && !class.contains('.') {
            // A user-defined exception derives from Exception.
            Catch::Yes
        } else if is_builtin(e) && !exc.contains('.') {
            // A builtin exception is no instance of a user class.
            Catch::No
        } else {
            Catch::Maybe
        };
        best = match (best, verdict) {
            (Catch::Yes, _) | (_, Catch::Yes) => Catch::Yes,
            (Catch::Maybe, _) | (_, Catch::Maybe) => Catch::Maybe,
            _ => Catch::No,
        };
    }
    best
}

/// Whether a handler naming `classes` catches an unknown exception.
pub fn catches_any(classes: Option<&[String]>) -> Catch {
    match classes {
        None => Catch::Yes,
        Some(cs) if cs.iter().any(|c| c == "Exception" || c == "BaseException") => Catch::Yes,
        Some(_) => Catch::Maybe,
    }
}

/// What a handler catches, as raised again by a bare `raise` in its body.
pub fn caught_by(h: &ExceptHandler) -> Raises {
    match handler_classes(h) {
        Some(cs) if !cs.is_empty() && h.type_.is_some() && !is_computed(h) => {
            if cs.iter().any(|c| c == "Exception" || c == "BaseException") {
                Raises::Any
            } else {
                Raises::Known(cs.into_iter().collect())
            }
        }
        _ => Raises::Any,
    }
}

/// Whether the handler's type is more than names (a call, a subscript, a computed tuple).
pub fn is_computed(h: &ExceptHandler) -> bool {
    let Some(t) = &h.type_ else { return false };
    let items: Vec<&Expr> = match &t.kind {
        ExprKind::Tuple(es) => es.iter().collect(),
        _ => vec![t],
    };
    items.iter().any(|e| dotted_name(e).is_none())
}

/// What statement `s` may raise at its own node (nested blocks excluded). `reraise` is what
/// a bare `raise` raises here: the enclosing handler's catch, if any.
pub fn raised_by(s: &Stmt, reraise: Option<&Raises>) -> Raises {
    let mut r = Raises::none();
    match &s.kind {
        StmtKind::Raise { exc: None, .. } => {
            return reraise
                .cloned()
                .unwrap_or_else(|| Raises::one("RuntimeError"));
        }
        StmtKind::Raise {
            exc: Some(e),
            cause,
        } => {
            let mut r = raised_class(e);
            if let Some(c) = cause {
                r.union(expr_raises(c));
            }
            return r;
        }
        StmtKind::Assert { test, msg } => {
            r.add(&["AssertionError"]);
            r.union(expr_raises(test));
            if let Some(m) = msg {
                r.union(expr_raises(m));
            }
        }
        StmtKind::For { .. }
        | StmtKind::With { .. }
        | StmtKind::Import(_)
        | StmtKind::ImportFrom { .. }
        | StmtKind::Unsupported { .. } => return Raises::Any,
        StmtKind::ClassDef { .. } => return Raises::Any,
        StmtKind::FunctionDef(f) if !f.decorators.is_empty() => return Raises::Any,
        StmtKind::Delete(targets) => {
            for t in targets {
                r.union(target_raises(t, true));
            }
        }
        StmtKind::Assign { targets, value } => {
            r.union(expr_raises(value));
            for t in targets {
                r.union(target_raises(t, false));
            }
        }
        StmtKind::AugAssign { target, op, value } => {
            r.union(expr_raises(value));
            r.union(target_raises(target, false));
            r.union(expr_raises(target));
            r.add(binop_raises(*op));
        }
        StmtKind::AnnAssign {
            target,
            value: Some(value),
            ..
        } => {
            r.union(expr_raises(value));
            r.union(target_raises(target, false));
        }
        _ => {
            for e in s.exprs() {
                r.union(expr_raises(e));
            }
        }
    }
    r
}

/// What `raise e` raises: the class `e` names or calls, when that looks like a class.
fn raised_class(e: &Expr) -> Raises {
    let (class, args) = match &e.kind {
        ExprKind::Call {
            func,
            args,
            keywords,
        } => (
            dotted_name(func),
            Some((args, keywords.iter().map(|(_, v)| v))),
        ),
        _ => (dotted_name(e), None),
    };
    let Some(class) = class.filter(|c| looks_like_class(c)) else {
        return Raises::Any;
    };
    let mut r = Raises::one(&class);
    if let Some((args, kws)) = args {
        for a in args.iter().chain(kws) {
            if !expr_raises(a).is_empty() {
                r = Raises::Any;
            }
        }
    }
    r
}

/// `ValueError`, `errors.ParseError`: a builtin exception or a capitalised name.
fn looks_like_class(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    is_builtin(last) || last.chars().next().is_some_and(char::is_uppercase)
}

fn binop_raises(op: BinOp) -> &'static [&'static str] {
    match op {
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod => &["TypeError", "ZeroDivisionError"],
        _ => &["TypeError"],
    }
}

/// What assigning to (or deleting) target `t` raises, its own reads excluded.
fn target_raises(t: &Expr, delete: bool) -> Raises {
    match &t.kind {
        ExprKind::Name(_) if delete => Raises::one("NameError"),
        ExprKind::Name(_) => Raises::none(),
        ExprKind::Tuple(es) | ExprKind::List(es) => {
            // Unpacking a value of the wrong length raises ValueError.
            let mut r = if delete {
                Raises::none()
            } else {
                Raises::Known(BTreeSet::from([
                    "TypeError".to_string(),
                    "ValueError".to_string(),
                ]))
            };
            for e in es {
                r.union(target_raises(e, delete));
            }
            r
        }
        ExprKind::Starred(e) => target_raises(e, delete),
        ExprKind::Subscript { value, index } => {
            let mut r = expr_raises(value);
            r.union(expr_raises(index));
            r.add(&["IndexError", "KeyError"]);
            r
        }
        ExprKind::Attribute { value, .. } => {
            let mut r = expr_raises(value);
            r.add(&["AttributeError"]);
            r
        }
        _ => expr_raises(t),
    }
}

/// What evaluating `e` may raise.
pub fn expr_raises(e: &Expr) -> Raises {
    let mut r = Raises::none();
    match &e.kind {
        ExprKind::Call { .. }
        | ExprKind::Comprehension { .. }
        | ExprKind::Starred(_)
        | ExprKind::Unsupported { .. } => return Raises::Any,
        ExprKind::Lambda { params, .. } => {
            for d in params.iter().filter_map(|p| p.default.as_ref()) {
                r.union(expr_raises(d));
            }
            return r;
        }
        ExprKind::BinOp { op, .. } => r.add(binop_raises(*op)),
        ExprKind::UnaryOp { op, operand }
            if *op != UnaryOp::Not && !matches!(operand.kind, ExprKind::Constant(_)) =>
        {
            r.add(&["TypeError"])
        }
        ExprKind::Compare { ops, .. } => {
            let ordering = ops
                .iter()
                .any(|op| !matches!(op, CmpOp::Eq | CmpOp::NotEq | CmpOp::Is | CmpOp::IsNot));
            if ordering {
                r.add(&["TypeError"]);
            }
        }
        ExprKind::Subscript { .. } => r.add(&["IndexError", "KeyError"]),
        ExprKind::Attribute { .. } => r.add(&["AttributeError"]),
        _ => {}
    }
    for c in e.children() {
        r.union(expr_raises(c));
        if r == Raises::Any {
            break;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn raises(src: &str) -> String {
        let m = lower_module(src).unwrap();
        match raised_by(&m.body[0], None) {
            Raises::Any => "any".into(),
            Raises::Known(s) => s.into_iter().collect::<Vec<_>>().join(","),
        }
    }

    #[test]
    fn statements_raise_their_characteristic_exceptions() {
        assert_eq!(raises("x = a / b"), "TypeError,ZeroDivisionError");
        assert_eq!(raises("x = a[i]"), "IndexError,KeyError");
        assert_eq!(raises("x = 1"), "");
        assert_eq!(raises("x = -1"), "");
        assert_eq!(raises("x = -y"), "TypeError");
        assert_eq!(raises("x = f(1)"), "any");
        assert_eq!(raises("assert x == 1"), "AssertionError");
        assert_eq!(raises("raise ValueError('bad')"), "ValueError");
        assert_eq!(raises("raise errors.Bad"), "errors.Bad");
        assert_eq!(raises("raise exc"), "any");
        assert_eq!(raises("raise"), "RuntimeError");
        assert_eq!(raises("return x.y"), "AttributeError");
        assert_eq!(raises("if x == y:\n    pass"), "");
        assert_eq!(raises("if x < y:\n    pass"), "TypeError");
    }

    #[test]
    fn handlers_match_by_class() {
        let zde = "ZeroDivisionError";
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(catches(None, false, zde), Catch::Yes);
        assert_eq!(
            catches(Some(&names(&["ArithmeticError"])), false, zde),
            Catch::Yes
        );
        assert_eq!(
            catches(Some(&names(&["ValueError"])), false, zde),
            Catch::No
        );
        assert_eq!(catches(Some(&names(&["MyError"])), false, zde), Catch::No);
        assert_eq!(
            catches(Some(&names(&["MyError"])), false, "Other"),
            Catch::Maybe
        );
        assert_eq!(
            catches(Some(&names(&["Exception"])), false, "Other"),
            Catch::Yes
        );
        assert_eq!(
            catches(Some(&names(&["OSError"])), false, "IOError"),
            Catch::Yes
        );
        assert_eq!(
            catches(Some(&names(&["Exception"])), false, "KeyboardInterrupt"),
            Catch::No
        );
        assert_eq!(catches_any(Some(&names(&["ValueError"]))), Catch::Maybe);
    }
}
