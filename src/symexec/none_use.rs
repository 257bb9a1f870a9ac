//! What CPython raises where a value that is `None` on the path is used as an operand:
//! `x + 1`, `x < y`, `len(x)`, `x.lower()`, `x[0]`, `-x`, `c in x`. Only where the use is
//! surely reached first: everything Python evaluates before it is a constant or a name with
//! a modelled value (which cannot raise), so the exception is the statement's. Anything
//! else stays what it was (a havoc of the `None` value).

use crate::python::ir::{BinOp, CmpOp, Constant, Expr, ExprKind, UnaryOp};
use crate::symbolic::Env;

use super::state::{exc, sort_type_name};
use super::tree::Exc;

/// What evaluating a part of the expression gives, as far as this module knows.
enum Part {
    /// A value of this Python type that cannot have raised (`NoneType` for `None`).
    Value(&'static str),
    /// The part raises this exception.
    Raises(Exc),
    /// Not known: the walk stops.
    Unknown,
}

/// The names a use sees: which hold `None`, which are bound to a modelled value, and
/// which call names are Python's builtins (not shadowed).
pub struct Scope<'a> {
    pub env: &'a Env,
    pub holds_none: &'a dyn Fn(&str) -> bool,
    pub is_builtin: &'a dyn Fn(&str) -> bool,
}

/// The exception evaluating `e` raises first, when it is a use of a `None` operand that
/// is surely reached; `None` when that is not known.
pub fn raised(e: &Expr, scope: &Scope) -> Option<Exc> {
    match part(e, scope) {
        Part::Raises(x) => Some(x),
        _ => None,
    }
}

const NONE: &str = "NoneType";

fn part(e: &Expr, scope: &Scope) -> Part {
    match &e.kind {
        ExprKind::Constant(c) => Part::Value(constant_type(c)),
        ExprKind::Name(n) if (scope.holds_none)(n) => Part::Value(NONE),
        ExprKind::Name(n) => match scope.env.get(n) {
            Some(t) => Part::Value(sort_type_name(t.sort())),
            None => Part::Unknown,
        },
        ExprKind::BinOp { op, left, right } => operands(&[left, right], scope, |types| {
            binary(*op, types[0], types[1])
        }),
        ExprKind::UnaryOp { op, operand } => operands(&[operand], scope, |types| {
            (types[0] == NONE && *op != UnaryOp::Not).then(|| {
                let sign = op.symbol();
                exc(
                    "TypeError",
                    format!("bad operand type for unary {sign}: 'NoneType'"),
                )
            })
        }),
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } if ops.len() == 1 => operands(&[left, &comparators[0]], scope, |types| {
            compare(ops[0], types[0], types[1])
        }),
        ExprKind::Subscript { value, index } => {
            let mut parts: Vec<&Expr> = vec![value];
            match &index.kind {
                ExprKind::Slice { lower, upper, step } => {
                    parts.extend([lower, upper, step].into_iter().flatten().map(|b| &**b))
                }
                _ => parts.push(index),
            }
            operands(&parts, scope, |types| {
                (types[0] == NONE).then(|| {
                    exc(
                        "TypeError",
                        "'NoneType' object is not subscriptable".to_string(),
                    )
                })
            })
        }
        // The attribute is looked up before any argument of a method call is evaluated.
        ExprKind::Attribute { value, attr } => operands(&[value], scope, |types| {
            (types[0] == NONE && !attr.starts_with("__")).then(|| {
                exc(
                    "AttributeError",
                    format!("'NoneType' object has no attribute '{attr}'"),
                )
            })
        }),
        ExprKind::Call {
            func,
            args,
            keywords,
        } => match &func.kind {
            ExprKind::Attribute { .. } => match part(func, scope) {
                Part::Raises(x) => Part::Raises(x),
                _ => Part::Unknown,
            },
            ExprKind::Name(name)
                if keywords.is_empty() && args.len() == 1 && (scope.is_builtin)(name) =>
            {
                operands(&[&args[0]], scope, |types| builtin(name, types[0]))
            }
            _ => Part::Unknown,
        },
        _ => Part::Unknown,
    }
}

/// Evaluates `parts` in order; when all are values, `apply` says what the operation
/// raises (`None`: not known).
fn operands(
    parts: &[&Expr],
    scope: &Scope,
    apply: impl FnOnce(&[&'static str]) -> Option<Exc>,
) -> Part {
    let mut types = Vec::with_capacity(parts.len());
    for p in parts {
        match part(p, scope) {
            Part::Value(t) => types.push(t),
            other => return other,
        }
    }
    match apply(&types) {
        Some(x) => Part::Raises(x),
        None => Part::Unknown,
    }
}

fn constant_type(c: &Constant) -> &'static str {
    match c {
        Constant::None => NONE,
        Constant::Bool(_) => "bool",
        Constant::Int(_) => "int",
        Constant::Float(_) => "float",
        Constant::Str(_) => "str",
        _ => "object",
    }
}

fn is_sequence(t: &str) -> bool {
    matches!(t, "str" | "list" | "tuple")
}

/// `a op b` with a `None` operand.
fn binary(op: BinOp, a: &str, b: &str) -> Option<Exc> {
    if a != NONE && b != NONE {
        return None;
    }
    let type_error = |m: String| Some(exc("TypeError", m));
    match op {
        // `'%s' % None` formats.
        BinOp::Mod if a == "str" => None,
        BinOp::Add if is_sequence(a) => {
            type_error(format!("can only concatenate {a} (not \"{b}\") to {a}"))
        }
        BinOp::Mult if is_sequence(a) || is_sequence(b) => {
            type_error("can't multiply sequence by non-int of type 'NoneType'".to_string())
        }
        _ if a == "object" || b == "object" => None,
        BinOp::Pow => type_error(format!(
            "unsupported operand type(s) for ** or pow(): '{a}' and '{b}'"
        )),
        _ => type_error(format!(
            "unsupported operand type(s) for {}: '{a}' and '{b}'",
            op.symbol()
        )),
    }
}

/// `a op b` with a `None` operand: ordering and `in`; `==`, `is` and `in` of a
/// container do not raise.
fn compare(op: CmpOp, a: &str, b: &str) -> Option<Exc> {
    if a == "object" || b == "object" {
        return None;
    }
    match op {
        CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE if a == NONE || b == NONE => Some(exc(
            "TypeError",
            format!(
                "'{}' not supported between instances of '{a}' and '{b}'",
                op.symbol()
            ),
        )),
        CmpOp::In | CmpOp::NotIn if b == NONE => Some(exc(
            "TypeError",
            "argument of type 'NoneType' is not iterable".to_string(),
        )),
        CmpOp::In | CmpOp::NotIn if b == "str" && a == NONE => Some(exc(
            "TypeError",
            "'in <string>' requires string as left operand, not NoneType".to_string(),
        )),
        _ => None,
    }
}

/// A builtin called with `None` as its one argument.
fn builtin(name: &str, t: &str) -> Option<Exc> {
    if t != NONE {
        return None;
    }
    let type_error = |m: &str| Some(exc("TypeError", m.to_string()));
    match name {
        "len" => type_error("object of type 'NoneType' has no len()"),
        "sum" | "sorted" | "list" | "tuple" | "set" | "min" | "max" | "any" | "all"
        | "enumerate" => type_error("'NoneType' object is not iterable"),
        "reversed" => type_error("'NoneType' object is not reversible"),
        "abs" => type_error("bad operand type for abs(): 'NoneType'"),
        "int" => type_error(
            "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
        ),
        "float" => type_error("float() argument must be a string or a real number, not 'NoneType'"),
        "ord" => type_error("ord() expected string of length 1, but NoneType found"),
        _ => None,
    }
}
