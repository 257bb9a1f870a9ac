//! Symbolic inputs: `ARG:TYPE` specifications and the sorts of annotated parameters. A bare
//! `tuple` or `list` means a sequence of ints, as the book's `TUPLE_TYPE`.

use super::SymexecError;
use super::packed::{Packed, Shape};
use crate::python::ir::{Constant, Expr, ExprKind, Function, ParamKind};
use crate::python::lower_expression;
use crate::symbolic::mapping::MapKind;
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

/// What a parameter's type makes of it: one solver input of a sort, or several (see
/// [`super::packed`]).
enum ParamType {
    Plain(Sort),
    Packed(Shape),
}

fn map(kind: MapKind, key: Sort, value: Sort) -> ParamType {
    ParamType::Packed(Shape::Map { kind, key, value })
}

/// The parameter type an annotation names: a sort, `dict[K, V]` (`Dict`, `Mapping`,
/// `MutableMapping`; a bare `dict` is `dict[str, int]`), `set[K]` (`Set`, `AbstractSet`,
/// `MutableSet`; a bare `set` is `set[int]`).
fn param_type(annotation: &Expr) -> Result<ParamType, String> {
    const DICTS: &[&str] = &["dict", "Dict", "Mapping", "MutableMapping"];
    const SETS: &[&str] = &["set", "Set", "AbstractSet", "MutableSet"];
    let key = |k: &Expr| {
        let sort = expr_sort(k)?;
        match crate::symbolic::mapping::unhashable(&sort) {
            Some(why) => Err(format!("a key of {annotation}: {why}")),
            None => Ok(sort),
        }
    };
    match &annotation.kind {
        ExprKind::Name(n) if DICTS.contains(&n.as_str()) => {
            Ok(map(MapKind::Dict, Sort::Str, Sort::Int))
        }
        ExprKind::Name(n) if SETS.contains(&n.as_str()) => {
            Ok(map(MapKind::Set, Sort::Int, Sort::Bool))
        }
        ExprKind::Subscript { value, index } => match value.as_name() {
            Some(n) if DICTS.contains(&n) => match &index.kind {
                ExprKind::Tuple(parts) if parts.len() == 2 => {
                    Ok(map(MapKind::Dict, key(&parts[0])?, expr_sort(&parts[1])?))
                }
                _ => Err(format!(
                    "the annotation {annotation} is not a supported type"
                )),
            },
            Some(n) if SETS.contains(&n) => Ok(map(MapKind::Set, key(index)?, Sort::Bool)),
            _ => expr_sort(annotation).map(ParamType::Plain),
        },
        ExprKind::Constant(Constant::Str(s)) => {
            let e = lower_expression(s).map_err(|e| format!("the type {s:?}: {}", e.message))?;
            param_type(&e)
        }
        _ => expr_sort(annotation).map(ParamType::Plain),
    }
}

/// The inputs of a function: its parameters with their annotated sorts, or the sorts given
/// as `ARG:TYPE` (which take precedence), or sorts inferred for parameters without
/// annotation (see [`super::infer`]); with a note for each inferred or narrowed type, and
/// the dict and set parameters (whose hidden inputs stand in the inputs at their place).
pub fn function_inputs(
    f: &Function,
    functions: &[&Function],
    given: &[(String, Sort)],
) -> Result<(Inputs, Vec<String>, Vec<Packed>), SymexecError> {
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
    let mut packed = Vec::new();
    for p in &f.params {
        if matches!(p.kind, ParamKind::VarArgs | ParamKind::KwArgs) {
            let star = if p.kind == ParamKind::VarArgs {
                "*"
            } else {
                "**"
            };
            notes.push(format!(
                "{star}{}: not an input of the tree (runs pass none); reading it is a havoc",
                p.name
            ));
            packed.push(Packed {
                name: p.name.clone(),
                shape: Shape::Unmodelled,
                keyword: false,
            });
            continue;
        }
        let ty = match given.iter().find(|(n, _)| *n == p.name) {
            Some((_, s)) => ParamType::Plain(s.clone()),
            None => match &p.annotation {
                Some(a) => match optional_item(a) {
                    // `Optional[T]` of a plain `T` forks on None; of a dict or set, it is
                    // explored as the dict or set.
                    Some(item) => match param_type(item).map_err(|e| bad_type(p, &e))? {
                        ParamType::Plain(sort) => ParamType::Packed(Shape::Optional(sort)),
                        ty => {
                            notes.push(format!(
                                "{}: {a} is explored as {}: None is not an input of the tree (give {}:TYPE to choose)",
                                p.name,
                                ty.describe(),
                                p.name
                            ));
                            ty
                        }
                    },
                    None => param_type(a).map_err(|e| bad_type(p, &e))?,
                },
                None => match super::infer::infer_mapping(f, &p.name) {
                    Some((kind, key, value, why)) => {
                        let ty = map(kind, key, value);
                        notes.push(format!(
                            "{}: {} inferred from {why} (give {}:TYPE to override)",
                            p.name,
                            ty.describe(),
                            p.name
                        ));
                        ty
                    }
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
                        ParamType::Plain(sort.clone())
                    }
                },
            },
        };
        let keyword = p.kind == ParamKind::KeywordOnly;
        let ty = match ty {
            ParamType::Plain(sort) if keyword => ParamType::Packed(Shape::Plain(sort)),
            ty => ty,
        };
        match ty {
            ParamType::Plain(sort) => inputs.push((p.name.clone(), sort)),
            ParamType::Packed(shape) => {
                let it = Packed {
                    name: p.name.clone(),
                    shape,
                    keyword,
                };
                inputs.extend(it.inputs());
                packed.push(it);
            }
        }
    }
    notes.extend(crate::symbolic::chars::model_notes(f));
    Ok((Inputs(inputs), notes, packed))
}

impl ParamType {
    fn describe(&self) -> String {
        match self {
            ParamType::Plain(s) => s.to_string(),
            ParamType::Packed(shape) => shape.describe(),
        }
    }
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
