//! Symbolic inputs: `ARG:TYPE` specifications and the sorts of annotated parameters. A bare
//! `tuple` or `list` means a sequence of ints, as the book's `TUPLE_TYPE`.

use super::SymexecError;
use crate::python::ir::{Constant, Expr, ExprKind, Function, ParamKind};
use crate::python::lower_expression;
use crate::symbolic::{Env, Sort, annotation_sort};

/// The inputs of a run, in order: parameters or `ARG:TYPE` names with their sorts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs(pub Vec<(String, Sort)>);

impl Inputs {
    /// The translation environment that declares every input (version 0).
    pub fn env(&self) -> Result<Env, SymexecError> {
        let mut env = Env::new();
        for (name, sort) in &self.0 {
            env.declare(name, sort)
                .map_err(|e| SymexecError::Input(format!("{name}: {e}")))?;
        }
        Ok(env)
    }

    /// `y: int, t: tuple[int, ...]`
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self.0.iter().map(|(n, s)| format!("{n}: {s}")).collect();
        parts.join(", ")
    }

    pub fn sort(&self, name: &str) -> Option<&Sort> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }
}

/// Parses `ARG:TYPE` words; a type may contain spaces inside brackets
/// (`t:tuple[int, ...]` arrives as two words).
pub fn parse_specs(words: &[String]) -> Result<Vec<(String, Sort)>, SymexecError> {
    let text = words.join(" ");
    let mut out: Vec<(String, Sort)> = Vec::new();
    for spec in split_specs(&text) {
        let (name, ty) = spec.split_once(':').ok_or_else(|| {
            SymexecError::Input(format!("expected ARG:TYPE (like y:int), got {spec:?}"))
        })?;
        let name = name.trim();
        if !is_identifier(name) {
            return Err(SymexecError::Input(format!(
                "{name:?} is not a variable name"
            )));
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(SymexecError::Input(format!(
                "the input {name} is given twice"
            )));
        }
        let sort = type_sort(ty.trim()).map_err(SymexecError::Input)?;
        out.push((name.to_string(), sort));
    }
    Ok(out)
}

/// Splits at whitespace outside brackets.
fn split_specs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth <= 0 {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    // `y: int` typed with a space after the colon: join a lone `NAME:` with the next word.
    let mut joined: Vec<String> = Vec::new();
    for w in out {
        match joined.last_mut() {
            Some(prev) if prev.ends_with(':') => prev.push_str(&w),
            _ => joined.push(w),
        }
    }
    joined
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The sort a type text names: `int`, `bool`, `float`, `str`, `tuple`/`list` (of ints),
/// `list[int]`, `tuple[int, ...]`, `tuple[int, str]`.
pub fn type_sort(text: &str) -> Result<Sort, String> {
    let expr = lower_expression(text).map_err(|e| format!("the type {text:?}: {}", e.message))?;
    expr_sort(&expr)
}

fn expr_sort(annotation: &Expr) -> Result<Sort, String> {
    match &annotation.kind {
        ExprKind::Name(n) if n == "tuple" || n == "Tuple" => Ok(Sort::tuple(Sort::Int)),
        ExprKind::Name(n) if n == "list" || n == "List" => Ok(Sort::list(Sort::Int)),
        ExprKind::Constant(Constant::Str(s)) => type_sort(s),
        _ => annotation_sort(annotation),
    }
}

/// The inputs of a function: its parameters with their annotated sorts, or the sorts given
/// as `ARG:TYPE` (which take precedence), or sorts inferred for parameters without
/// annotation (see [`super::infer`]); with a note for each inferred or narrowed type.
pub fn function_inputs(
    f: &Function,
    functions: &[&Function],
    given: &[(String, Sort)],
) -> Result<(Inputs, Vec<String>), SymexecError> {
    for (name, _) in given {
        if f.param(name).is_none() {
            return Err(SymexecError::Input(format!(
                "{} has no parameter {name}",
                f.qualname
            )));
        }
    }
    let unannotated: Vec<String> = f
        .params
        .iter()
        .filter(|p| p.annotation.is_none() && !given.iter().any(|(n, _)| *n == p.name))
        .map(|p| p.name.clone())
        .collect();
    let inferred = super::infer::infer(f, functions, &unannotated);
    let mut inputs = Vec::new();
    let mut notes = Vec::new();
    for p in &f.params {
        if matches!(
            p.kind,
            ParamKind::VarArgs | ParamKind::KwArgs | ParamKind::KeywordOnly
        ) {
            return Err(SymexecError::Input(format!(
                "the parameter {} of {}: *args, **kwargs and keyword-only parameters are not symbolic inputs",
                p.name, f.qualname
            )));
        }
        let sort = match given.iter().find(|(n, _)| *n == p.name) {
            Some((_, s)) => s.clone(),
            None => match &p.annotation {
                Some(a) => match optional_item(a) {
                    Some(item) => {
                        let sort = expr_sort(item).map_err(|e| bad_type(p, &e))?;
                        notes.push(format!(
                            "{}: {a} is explored as {sort}: None is not an input of the tree (give {}:TYPE to choose)",
                            p.name, p.name
                        ));
                        sort
                    }
                    None => expr_sort(a).map_err(|e| bad_type(p, &e))?,
                },
                None => {
                    let Some((_, sort, why)) = inferred.iter().find(|(n, _, _)| *n == p.name)
                    else {
                        return Err(SymexecError::Internal(format!(
                            "no type inferred for {}",
                            p.name
                        )));
                    };
                    notes.push(format!(
                        "{}: {sort} inferred from {why} (give {}:TYPE to override)",
                        p.name, p.name
                    ));
                    sort.clone()
                }
            },
        };
        inputs.push((p.name.clone(), sort));
    }
    notes.extend(crate::symbolic::chars::model_notes(f));
    Ok((Inputs(inputs), notes))
}

fn bad_type(p: &crate::python::ir::Param, e: &str) -> SymexecError {
    SymexecError::Input(format!(
        "the parameter {}: {e}; give {}:TYPE",
        p.name, p.name
    ))
}

/// `X` of `Optional[X]` (or `X | None`).
fn optional_item(a: &Expr) -> Option<&Expr> {
    match &a.kind {
        ExprKind::Subscript { value, index } if value.as_name() == Some("Optional") => Some(index),
        ExprKind::BinOp {
            op: crate::python::ir::BinOp::BitOr,
            left,
            right,
        } if matches!(right.kind, ExprKind::Constant(Constant::None)) => Some(left),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::SeqKind;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn specs_parse_with_spaces_inside_brackets() {
        let specs = parse_specs(&words(
            "y:int t:tuple[int, ...] s: str p:tuple[int, str] h:tuple",
        ))
        .unwrap();
        let expected = vec![
            ("y".to_string(), Sort::Int),
            ("t".to_string(), Sort::tuple(Sort::Int)),
            ("s".to_string(), Sort::Str),
            (
                "p".to_string(),
                Sort::Fixed(SeqKind::Tuple, vec![Sort::Int, Sort::Str]),
            ),
            ("h".to_string(), Sort::tuple(Sort::Int)),
        ];
        assert_eq!(specs, expected);
        assert!(parse_specs(&words("y")).is_err());
        assert!(parse_specs(&words("1y:int")).is_err());
        assert!(parse_specs(&words("y:complex")).is_err());
        assert!(parse_specs(&words("y:int y:str")).is_err());
    }
}
