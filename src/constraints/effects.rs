//! What evaluating a statement's expressions does besides producing values: when it raises
//! (from the translatable parts), and which list variables it may change in place.

use crate::python::builtins;
use crate::python::ir::{Expr, ExprKind, Stmt, StmtKind};
use crate::symbolic::{Env, ExceptionKind, SortError, Term, Translated, translate};

/// List, str and dict methods that leave their receiver unchanged (a list has no `get`,
/// `keys`, `values` or `items`: there they raise, changing nothing).
const PURE_METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "copy",
    "count",
    "index",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "rindex",
    "partition",
    "rpartition",
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "join",
    "replace",
    "isdigit",
    "isalpha",
    "format",
];

/// The raise conditions of several expressions evaluated one after the other.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// In evaluation order, each meaning "raises here, nothing raised before".
    pub raises: Vec<(ExceptionKind, Term)>,
    /// Every expression was translated whole: `raises` is all that can go wrong.
    pub complete: bool,
    /// An untranslated part that raises for some values of its operands' types
    /// (`int(s)` of a str): completing is then not assumed.
    pub partial: Option<String>,
}

impl Effects {
    /// The effects of evaluating `exprs` in order. Untranslatable expressions contribute the
    /// raise conditions of the arguments they certainly evaluate (a call's arguments).
    pub fn of(exprs: &[&Expr], env: &Env) -> Effects {
        let mut fx = Effects {
            raises: Vec::new(),
            complete: true,
            partial: None,
        };
        for e in exprs {
            fx.add(e, env);
        }
        fx
    }

    fn add(&mut self, e: &Expr, env: &Env) {
        match translate(e, env) {
            Ok(t) => self.then(&t),
            Err(_) => {
                self.complete = false;
                if self.partial.is_none() && partial(e, env) {
                    self.partial = Some(e.to_string());
                }
                match &e.kind {
                    ExprKind::Call {
                        func,
                        args,
                        keywords,
                    } => {
                        if let ExprKind::Attribute { value, .. } = &func.kind {
                            self.add(value, env);
                        }
                        for a in args.iter().chain(keywords.iter().map(|(_, v)| v)) {
                            let a = match &a.kind {
                                ExprKind::Starred(inner) => inner,
                                _ => a,
                            };
                            self.add(a, env);
                        }
                    }
                    ExprKind::Tuple(items) | ExprKind::List(items) => {
                        items.iter().for_each(|i| self.add(i, env));
                    }
                    _ => {}
                }
            }
        }
    }

    /// Appends the raise conditions of a translation evaluated after everything so far.
    pub fn then(&mut self, t: &Translated) {
        self.raises.extend(t.raises.iter().cloned());
    }

    /// "Some exception is raised" (false when nothing can be).
    pub fn any(&self) -> Result<Term, SortError> {
        Term::or(self.raises.iter().map(|(_, c)| c.clone()).collect())
    }

    /// "`kind` is the exception raised": its condition, with nothing raised before it.
    pub fn kind(&self, kind: ExceptionKind) -> Result<Term, SortError> {
        let mut earlier = Vec::new();
        let mut out = Vec::new();
        for (k, c) in &self.raises {
            if *k == kind {
                let before = Term::not(Term::or(earlier.clone())?)?;
                out.push(Term::and(vec![before, c.clone()])?);
            }
            earlier.push(c.clone());
        }
        Term::or(out)
    }
}

/// `int(x)`/`float(x)` of a str: a conversion that raises `ValueError` for most strings;
/// `min(xs)`/`max(xs)` of a sequence (not a display), which raises `ValueError` when empty.
fn partial(e: &Expr, env: &Env) -> bool {
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &e.kind
    else {
        return false;
    };
    let sort_of = |a: &Expr| translate(a, env).ok().map(|t| t.value.sort().clone());
    match (func.as_name(), args.as_slice()) {
        (Some("int" | "float"), [a, ..]) => sort_of(a) == Some(crate::symbolic::Sort::Str),
        (Some("min" | "max"), [a]) => {
            keywords.is_empty() && matches!(sort_of(a), Some(crate::symbolic::Sort::Seq(..)))
        }
        _ => false,
    }
}

/// The names whose list values the statement may change in place: receivers of mutating
/// methods, arguments of calls that may mutate them, bases of subscript and attribute
/// targets, and `del` targets.
pub fn mutated_names(s: &Stmt) -> Vec<String> {
    let mut out = Vec::new();
    for e in s.exprs() {
        e.walk(&mut |x| {
            if let ExprKind::Call {
                func,
                args,
                keywords,
            } = &x.kind
            {
                let pure = match &func.kind {
                    ExprKind::Name(n) => builtins::is_pure(n),
                    ExprKind::Attribute { value, attr } => {
                        if !PURE_METHODS.contains(&attr.as_str()) {
                            push_base(value, &mut out);
                        }
                        false
                    }
                    _ => false,
                };
                if !pure {
                    for a in args.iter().chain(keywords.iter().map(|(_, v)| v)) {
                        push_base(a, &mut out);
                    }
                }
            }
        });
    }
    let targets: Vec<&Expr> = match &s.kind {
        StmtKind::Assign { targets, .. } => targets.iter().collect(),
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => vec![target],
        StmtKind::Delete(targets) => targets.iter().collect(),
        StmtKind::For { target, .. } => vec![target],
        _ => Vec::new(),
    };
    for t in targets {
        t.walk(&mut |x| {
            if let ExprKind::Subscript { value, .. } | ExprKind::Attribute { value, .. } = &x.kind {
                push_base(value, &mut out);
            }
        });
    }
    out
}

/// The variable at the base of `a`, `a[i]`, `a.f`, `*a`.
fn push_base(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        ExprKind::Subscript { value, .. }
        | ExprKind::Attribute { value, .. }
        | ExprKind::Starred(value) => push_base(value, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;
    use crate::symbolic::Sort;

    #[test]
    fn call_arguments_contribute_raises_and_mutations() {
        let module =
            lower_module("print(s[0], 10 // y)\nxs.append(1)\nf(a, b[1])\nys[0] = 2\nlen(zs)\n")
                .unwrap();
        let mut env = Env::new();
        env.declare("s", &Sort::Str).unwrap();
        env.declare("y", &Sort::Int).unwrap();
        let exprs = module.body[0].exprs();
        let fx = Effects::of(&exprs, &env);
        assert!(!fx.complete);
        assert_eq!(fx.raises.len(), 2);
        assert_eq!(
            fx.kind(ExceptionKind::ZeroDivisionError)
                .unwrap()
                .to_string(),
            "not (0 >= len(s) or 0 < -len(s)) and y == 0"
        );
        let mutated: Vec<Vec<String>> = module.body.iter().map(mutated_names).collect();
        assert_eq!(
            mutated,
            vec![
                vec![],
                vec!["xs".to_string()],
                vec!["a".into(), "b".into()],
                vec!["ys".into()],
                vec![]
            ]
        );
    }
}
