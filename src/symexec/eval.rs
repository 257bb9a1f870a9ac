//! Expressions of one path: the translation's value and raise conditions (simplified), with
//! each exception's type and message, and translation failures turned into what Python
//! does at run time (`TypeError`, `NameError`) or into a clear "not supported".

use super::SymexecError;
use super::exceptions::message_for;
use super::havoc::note;
use super::none_use;
use super::program::Program;
use super::state::{Callee, State, exc};
use super::tree::{Exc, Message};
use crate::python::ir::{Expr, ExprKind};
use crate::symbolic::simplify::simplify;
use crate::symbolic::{Env, ExceptionKind, Term, TranslateError, translate, translate_condition};

/// What evaluating an expression does on a path.
pub enum Eval {
    /// The value where no raise condition holds; raise conditions in evaluation order,
    /// mutually exclusive.
    Value {
        value: Term,
        raises: Vec<(Exc, Term)>,
    },
    /// It raises whatever the inputs are.
    Raise(Exc),
    /// It is not modelled: the note says what (see [`super::havoc`]).
    Havoc(String),
}

/// Sort errors of the translation that are Python's own `TypeError`s (the others are limits
/// of the encoding).
const PYTHON_TYPE_ERRORS: &[&str] = &[
    "unsupported operand type",
    "not supported between instances of",
    "bad operand type",
    "object of type",
    "object is not subscriptable",
    "can only concatenate",
    "indices must be integers",
    "can't multiply sequence",
    "unhashable type",
];

/// Evaluates `e` (as a condition: its truth value) in `state`.
pub fn evaluate(
    state: &State<'_>,
    program: &Program,
    e: &Expr,
    condition: bool,
) -> Result<Eval, SymexecError> {
    let env = state.env(program)?;
    let folded = crate::symbolic::none::fold(e, &|n| state.holds_none(program, n), condition);
    let e = folded.as_ref().unwrap_or(e);
    let translated = if condition {
        translate_condition(e, &env)
    } else {
        translate(e, &env)
    };
    match translated {
        Ok(t) => {
            let raises = t
                .raises
                .iter()
                .map(|(kind, cond)| {
                    let message = match message_for(e, *kind, &env) {
                        Some(known) => Message::Known(known),
                        None if *kind == ExceptionKind::KeyError => key_error_message(e, &env),
                        None => Message::Unknown,
                    };
                    let exc = Exc {
                        type_name: kind.name().to_string(),
                        message,
                    };
                    (exc, simplify(cond))
                })
                .filter(|(_, c)| c.bool_literal() != Some(false))
                .collect();
            Ok(Eval::Value {
                value: simplify(&t.value),
                raises,
            })
        }
        Err(TranslateError::AlwaysRaises {
            exception, message, ..
        }) => Ok(Eval::Raise(exc(exception.name(), message))),
        Err(TranslateError::Type { message, line, .. }) => {
            if PYTHON_TYPE_ERRORS.iter().any(|p| message.contains(p)) {
                Ok(Eval::Raise(exc("TypeError", cpython_message(message))))
            } else {
                Ok(Eval::Havoc(note(&message, line)))
            }
        }
        Err(TranslateError::UnknownName { name, line, .. }) => {
            if state.holds_none(program, &name) == Some(true) {
                let scope = none_use::Scope {
                    env: &env,
                    holds_none: &|n| state.holds_none(program, n) == Some(true),
                    is_builtin: &|n| matches!(state.callee(program, n), Ok(Callee::Builtin)),
                };
                if let Some(x) = none_use::raised(e, &scope) {
                    return Ok(Eval::Raise(x));
                }
            }
            match state.missing_name(program, &name, line) {
                Ok(x) => Ok(Eval::Raise(x)),
                Err(SymexecError::Unsupported { construct, line }) => {
                    Ok(Eval::Havoc(note(&construct, line)))
                }
                Err(other) => Err(other),
            }
        }
        Err(TranslateError::Unsupported {
            construct, line, ..
        }) => Ok(Eval::Havoc(note(&construct, line))),
    }
}

/// The translation reports `1 + 'a'` as a failed concatenation; CPython says the operand
/// types are unsupported unless the left operand is a sequence.
/// The message of a `KeyError` raised while evaluating `e`, when one operation in it can
/// raise one (a subscript, `.pop(k)`, `.remove(k)`): `repr` of its key.
fn key_error_message(e: &Expr, env: &Env) -> Message {
    let mut keys = Vec::new();
    e.walk(&mut |x| match &x.kind {
        ExprKind::Subscript { index, .. } if !matches!(index.kind, ExprKind::Slice { .. }) => {
            keys.push(&**index)
        }
        ExprKind::Call { func, args, .. } => {
            if let (ExprKind::Attribute { attr, .. }, Some(key)) = (&func.kind, args.first())
                && matches!(attr.as_str(), "pop" | "remove")
            {
                keys.push(key);
            }
        }
        _ => {}
    });
    let [key] = keys.as_slice() else {
        return Message::Unknown;
    };
    match translate(key, env) {
        Ok(t) if t.raises.is_empty() => Message::of_key(&simplify(&t.value)),
        _ => Message::Unknown,
    }
}

fn cpython_message(message: String) -> String {
    let Some(rest) = message.strip_prefix("can only concatenate ") else {
        return message;
    };
    let left = rest.split(' ').next().unwrap_or("");
    let right = rest.split('"').nth(1).unwrap_or("");
    if matches!(left, "int" | "float" | "bool") {
        format!("unsupported operand type(s) for +: '{left}' and '{right}'")
    } else {
        message
    }
}
