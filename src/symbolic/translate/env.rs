//! What names mean during translation: parameters declared from their annotations, and any
//! other binding a caller makes (an SSA version of a variable, a known value).

use std::collections::BTreeMap;

use crate::python::ir::{BinOp, Constant, Expr, ExprKind, Param, ParamKind};
use crate::symbolic::mapping::Mapping;
use crate::symbolic::seqmap::SeqMapping;
use crate::symbolic::sort::{SeqKind, Sort};
use crate::symbolic::term::{SortError, Term, Var};

/// Names and the terms they stand for.
#[derive(Clone, Debug, Default)]
pub struct Env {
    bindings: BTreeMap<String, Term>,
    /// Names bound to a dict or set of known structure (see `mapping`).
    mappings: BTreeMap<String, Mapping>,
    /// Names bound to a dict or set of symbolic size (see `seqmap`).
    seqmaps: BTreeMap<String, SeqMapping>,
}

impl Env {
    pub fn new() -> Env {
        Env::default()
    }

    /// Binds `name` to a term, replacing an earlier binding.
    pub fn bind(&mut self, name: impl Into<String>, term: Term) {
        self.bindings.insert(name.into(), term);
    }

    /// Declares the input `name: sort` (version 0) and returns its term (a `tuple[int, str]`
    /// is the display `(t[0], t[1])` of one variable per item).
    pub fn declare(&mut self, name: &str, sort: &Sort) -> Result<Term, SortError> {
        let term = Term::input(Var::input(name), sort)?;
        self.bind(name, term.clone());
        Ok(term)
    }

    /// Binds `name` to a dict or set of known structure.
    pub fn bind_mapping(&mut self, name: impl Into<String>, mapping: Mapping) {
        self.mappings.insert(name.into(), mapping);
    }

    /// The dict or set `name` is bound to.
    pub fn mapping(&self, name: &str) -> Option<&Mapping> {
        self.mappings.get(name)
    }

    /// Binds `name` to a dict or set of symbolic size.
    pub fn bind_seqmap(&mut self, name: impl Into<String>, mapping: SeqMapping) {
        self.seqmaps.insert(name.into(), mapping);
    }

    /// The dict or set of symbolic size `name` is bound to.
    pub fn seqmap(&self, name: &str) -> Option<&SeqMapping> {
        self.seqmaps.get(name)
    }

    pub fn get(&self, name: &str) -> Option<&Term> {
        self.bindings.get(name)
    }

    /// The bindings, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Term)> {
        self.bindings.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Declares every positional or keyword parameter whose annotation names a supported
    /// sort. The others come back with the reason, for the caller to report.
    pub fn from_params(params: &[Param]) -> (Env, Vec<(String, String)>) {
        let mut env = Env::new();
        let mut skipped = Vec::new();
        for p in params {
            let sort = match (&p.kind, &p.annotation) {
                (ParamKind::VarArgs | ParamKind::KwArgs, _) => {
                    Err("*args and **kwargs are not modelled".to_string())
                }
                (_, None) => Err("no annotation".to_string()),
                (_, Some(a)) => annotation_sort(optional_inner(a).unwrap_or(a)),
            };
            match sort.and_then(|s| env.declare(&p.name, &s).map_err(|e| e.0)) {
                Ok(_) => {}
                Err(reason) => skipped.push((p.name.clone(), reason)),
            }
        }
        (env, skipped)
    }
}

/// The `T` of an annotation that admits `None` besides `T`: `Optional[T]`, `T | None`,
/// `None | T`, `Union[T, None]` (and `typing.`-qualified forms are not recognised).
pub fn optional_inner(annotation: &Expr) -> Option<&Expr> {
    let is_none = |e: &Expr| matches!(e.kind, ExprKind::Constant(Constant::None));
    match &annotation.kind {
        ExprKind::Subscript { value, index } => match (&value.kind, &index.kind) {
            (ExprKind::Name(g), _) if g == "Optional" => Some(index),
            (ExprKind::Name(g), ExprKind::Tuple(parts)) if g == "Union" => match parts.as_slice() {
                [a, b] if is_none(b) => Some(a),
                [a, b] if is_none(a) => Some(b),
                _ => None,
            },
            _ => None,
        },
        ExprKind::BinOp {
            op: BinOp::BitOr,
            left,
            right,
        } => match (is_none(left), is_none(right)) {
            (false, true) => Some(left),
            (true, false) => Some(right),
            _ => None,
        },
        _ => None,
    }
}

/// The sort an annotation names: `int`, `float`, `bool`, `str`, `list[T]`, `tuple[T, ...]`,
/// `tuple[A, B]` (and `typing`'s `List`/`Tuple`).
pub fn annotation_sort(annotation: &Expr) -> Result<Sort, String> {
    let unsupported = || format!("the annotation {annotation} is not a supported type");
    match &annotation.kind {
        ExprKind::Name(n) => match n.as_str() {
            "int" => Ok(Sort::Int),
            "float" => Ok(Sort::Real),
            "bool" => Ok(Sort::Bool),
            "str" => Ok(Sort::Str),
            _ => Err(unsupported()),
        },
        ExprKind::Subscript { value, index } => {
            let ExprKind::Name(generic) = &value.kind else {
                return Err(unsupported());
            };
            match (generic.as_str(), &index.kind) {
                ("list" | "List", _) => seq_item(index).map(Sort::list),
                ("tuple" | "Tuple", ExprKind::Tuple(parts)) => match parts.as_slice() {
                    [
                        item,
                        Expr {
                            kind: ExprKind::Constant(Constant::Ellipsis),
                            ..
                        },
                    ] => seq_item(item).map(Sort::tuple),
                    _ => parts
                        .iter()
                        .map(annotation_sort)
                        .collect::<Result<Vec<_>, _>>()
                        .map(|items| Sort::Fixed(SeqKind::Tuple, items)),
                },
                ("tuple" | "Tuple", _) => {
                    annotation_sort(index).map(|s| Sort::Fixed(SeqKind::Tuple, vec![s]))
                }
                _ => Err(unsupported()),
            }
        }
        _ => Err(unsupported()),
    }
}

/// The item sort of a `list[...]`/`tuple[..., ...]`: anything but a fixed-length tuple.
fn seq_item(annotation: &Expr) -> Result<Sort, String> {
    let sort = annotation_sort(annotation)?;
    match sort {
        Sort::Fixed(..) => Err(format!(
            "sequences of fixed-length tuples ({annotation}) are not modelled"
        )),
        _ => Ok(sort),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    #[test]
    fn parameters_get_sorts_from_annotations() {
        let module = lower_module(
            "def f(a: int, b: float, c: list[str], d: tuple[int, ...], e: tuple[int, str], g, *h: int, k: dict):\n    pass\n",
        )
        .unwrap();
        let f = module.function("f").unwrap();
        let (env, skipped) = Env::from_params(&f.params);
        let sort = |n: &str| env.get(n).map(|t| t.sort().to_string());
        assert_eq!(sort("a").as_deref(), Some("int"));
        assert_eq!(sort("b").as_deref(), Some("float"));
        assert_eq!(sort("c").as_deref(), Some("list[str]"));
        assert_eq!(sort("d").as_deref(), Some("tuple[int, ...]"));
        assert_eq!(sort("e").as_deref(), Some("tuple[int, str]"));
        assert_eq!(env.get("e").unwrap().to_string(), "(e[0], e[1])");
        let names: Vec<&str> = skipped.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["g", "h", "k"]);
    }
}
