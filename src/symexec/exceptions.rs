//! Exceptions: the builtin class hierarchy `except` clauses match along, classes a program
//! defines (`class Invalid(ValueError): pass`), and CPython 3.11's messages for the
//! exceptions the translation reports only by kind.

use std::collections::{BTreeMap, BTreeSet};

use crate::python::ir::{BinOp, Constant, Expr, ExprKind, UnaryOp};
use crate::python::{exceptions, messages};
use crate::symbolic::{Env, ExceptionKind, SeqKind, Sort, translate};

/// Exception classes: the builtin ones and those the program defines.
#[derive(Clone, Debug, Default)]
pub struct Classes {
    user: BTreeMap<String, String>,
}

impl Classes {
    /// Adds `class name(base): ...`; `false` when `base` is not an exception class.
    pub fn define(&mut self, name: &str, base: &str) -> bool {
        if !self.is_class(base) {
            return false;
        }
        self.user.insert(name.to_string(), base.to_string());
        true
    }

    pub fn is_class(&self, name: &str) -> bool {
        name == "BaseException" || self.base(name).is_some()
    }

    fn base(&self, name: &str) -> Option<&str> {
        self.user
            .get(name)
            .map(String::as_str)
            .or_else(|| exceptions::base_of(name))
    }

    /// Whether `exc` is `class` or derives from it.
    pub fn is_subclass(&self, exc: &str, class: &str) -> bool {
        let mut current = Some(exc);
        let mut seen = BTreeSet::new();
        while let Some(c) = current {
            if c == class {
                return true;
            }
            if !seen.insert(c) {
                return false;
            }
            current = self.base(c);
        }
        false
    }
}

/// CPython's message for an exception of `kind` raised while evaluating `expr`, when every
/// operation in it that can raise `kind` gives the same message.
pub fn message_for(expr: &Expr, kind: ExceptionKind, env: &Env) -> Option<String> {
    let mut messages = BTreeSet::new();
    let mut unknown = false;
    expr.walk(&mut |e| {
        let found = match (&e.kind, kind) {
            (ExprKind::BinOp { op, left, right }, ExceptionKind::ZeroDivisionError) => {
                division_message(*op, left, right, env)
            }
            (ExprKind::Call { func, args, .. }, ExceptionKind::ZeroDivisionError)
                if func.as_name() == Some("divmod") && args.len() == 2 =>
            {
                division_message(BinOp::FloorDiv, &args[0], &args[1], env)
            }
            (ExprKind::Subscript { value, index }, ExceptionKind::IndexError)
                if !matches!(index.kind, ExprKind::Slice { .. }) =>
            {
                Some(sort_of(value, env).and_then(|s| index_message(&s)))
            }
            (ExprKind::Call { func, args, .. }, ExceptionKind::ValueError)
                if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "index" || attr == "rindex") =>
            {
                Some(search_message(func, args, env))
            }
            (ExprKind::Subscript { index, .. }, ExceptionKind::ValueError)
                if matches!(&index.kind, ExprKind::Slice { step: Some(_), .. }) =>
            {
                Some(Some("slice step cannot be zero".to_string()))
            }
            _ => None,
        };
        match found {
            Some(Some(m)) => {
                messages.insert(m);
            }
            Some(None) => unknown = true,
            None => {}
        }
    });
    if unknown || messages.len() != 1 {
        return None;
    }
    messages.pop_first()
}

/// `None`: this operation cannot divide by zero; `Some(None)`: it can, message unknown.
fn division_message(op: BinOp, left: &Expr, right: &Expr, env: &Env) -> Option<Option<String>> {
    if op == BinOp::Pow {
        let negative = match &right.kind {
            ExprKind::Constant(Constant::Int(i)) => i.sign() == num_bigint::Sign::Minus,
            ExprKind::UnaryOp {
                op: UnaryOp::USub,
                operand,
            } => {
                matches!(operand.kind, ExprKind::Constant(Constant::Int(_)))
            }
            _ => false,
        };
        return negative.then(|| Some("0.0 cannot be raised to a negative power".to_string()));
    }
    if !matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod) {
        return None;
    }
    if let ExprKind::Constant(c) = &right.kind {
        let nonzero = match c {
            Constant::Int(i) => !num_traits::Zero::is_zero(i),
            Constant::Float(f) => *f != 0.0,
            Constant::Bool(b) => *b,
            _ => false,
        };
        if nonzero {
            return None;
        }
    }
    let (Some(a), Some(b)) = (sort_of(left, env), sort_of(right, env)) else {
        return Some(None);
    };
    let float = a == Sort::Real || b == Sort::Real;
    Some(Some(
        match (op, float) {
            (BinOp::Div, false) => messages::DIVISION_BY_ZERO,
            (BinOp::Div, true) => messages::FLOAT_DIVISION_BY_ZERO,
            (BinOp::FloorDiv, false) => messages::INT_DIVISION_BY_ZERO,
            (BinOp::FloorDiv, true) => messages::FLOAT_FLOOR_DIVISION_BY_ZERO,
            (_, false) => messages::INT_MODULO_BY_ZERO,
            (_, true) => messages::FLOAT_MODULO_BY_ZERO,
        }
        .to_string(),
    ))
}

/// `xs.index(x)` finding nothing: `tuple.index(x): x not in tuple`, or `3 is not in list`
/// (the item's repr: known here for an integer constant only).
fn search_message(func: &Expr, args: &[Expr], env: &Env) -> Option<String> {
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    let sort = sort_of(value, env)?;
    if sort == Sort::Str {
        return Some("substring not found".to_string());
    }
    if attr != "index" {
        return None;
    }
    match sort.seq_kind()? {
        SeqKind::Tuple => Some("tuple.index(x): x not in tuple".to_string()),
        SeqKind::List => {
            let item = match args {
                [x] => match &x.kind {
                    ExprKind::Constant(Constant::Int(i)) => i.to_string(),
                    ExprKind::UnaryOp {
                        op: UnaryOp::USub,
                        operand,
                    } => match &operand.kind {
                        ExprKind::Constant(Constant::Int(i)) => (-i.clone()).to_string(),
                        _ => return None,
                    },
                    _ => return None,
                },
                _ => return None,
            };
            Some(format!("{item} is not in list"))
        }
    }
}

fn index_message(sort: &Sort) -> Option<String> {
    let message = match sort {
        Sort::Str => messages::STR_INDEX_OUT_OF_RANGE,
        Sort::Seq(kind, _) | Sort::Fixed(kind, _) => kind.index_out_of_range(),
        _ => return None,
    };
    Some(message.to_string())
}

fn sort_of(e: &Expr, env: &Env) -> Option<Sort> {
    translate(e, env).ok().map(|t| t.value.sort().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_expression;

    #[test]
    fn hierarchy_and_messages() {
        let mut c = Classes::default();
        assert!(c.is_subclass("ZeroDivisionError", "ArithmeticError"));
        assert!(c.is_subclass("IndexError", "Exception"));
        assert!(!c.is_subclass("ValueError", "LookupError"));
        assert!(c.define("Invalid", "ValueError"));
        assert!(!c.define("Odd", "object"));
        assert!(c.is_subclass("Invalid", "Exception"));
        let mut env = Env::new();
        env.declare("x", &Sort::Int).unwrap();
        env.declare("f", &Sort::Real).unwrap();
        env.declare("t", &Sort::tuple(Sort::Int)).unwrap();
        let m = |src: &str, k| message_for(&lower_expression(src).unwrap(), k, &env);
        use ExceptionKind::*;
        assert_eq!(
            m("x // x", ZeroDivisionError).as_deref(),
            Some("integer division or modulo by zero")
        );
        assert_eq!(
            m("x % x + x // 2", ZeroDivisionError).as_deref(),
            Some("integer modulo by zero")
        );
        assert_eq!(
            m("f / x", ZeroDivisionError).as_deref(),
            Some("float division by zero")
        );
        assert_eq!(m("x / x + x // x", ZeroDivisionError), None);
        assert_eq!(
            m("t[x]", IndexError).as_deref(),
            Some("tuple index out of range")
        );
    }
}
