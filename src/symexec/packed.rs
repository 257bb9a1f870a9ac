//! Parameters made of several hidden solver inputs, so that the tree can fork on their
//! shape at the entry (see [`crate::symexec::step`]'s entry forks):
//!
//! - a dict parameter `d: dict[K, V]` is `d.keys` (a `list[K]`) and `d.values` (a
//!   `list[V]`), a set parameter `s: set[K]` is `s.items`; the path forks on the number of
//!   entries `k` from 0 to the unroll bound (longer ones end in a `bound` leaf), with the
//!   lengths `k` and the keys pairwise unequal, and the parameter holds the mapping
//!   ([`crate::symbolic::mapping::Mapping`]) of the first `k` keys and values in that
//!   order. A witness is the dict built from them in the keys' order, the insertion order
//!   the tree assumed (a set's order is one Python does not promise, and the mapping model
//!   answers only order-free questions about a set);
//! - an `Optional[T]` (`T | None`) parameter `x` is `x` (a `T`) and `x.is_none` (a
//!   `bool`); the path forks on `x.is_none`, and where it holds `x` is `None`;
//! - a keyword-only parameter is packed (even of a plain sort) to be passed by keyword;
//! - `*args` and `**kwargs` are no input: runs pass none, and the tree reads them as a
//!   havoc (the paths that use them are approximate, the others exact for any of them).

use crate::python::PyValue;
use crate::symbolic::Sort;
use crate::symbolic::mapping::MapKind;
use crate::symexec::check::same_key;
use crate::symexec::concolic::zero;

/// A parameter of several hidden inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    pub name: String,
    pub shape: Shape,
    /// A keyword-only parameter: runs pass it by keyword
    /// ([`crate::symexec::check::Runnable::with_keywords`]).
    pub keyword: bool,
}

/// What a packed parameter is.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A dict (`value` its values' sort) or a set (`value` unused).
    Map {
        kind: MapKind,
        key: Sort,
        value: Sort,
    },
    /// `T` or `None`.
    Optional(Sort),
    /// `*args` or `**kwargs`: no input (runs pass none, so it is empty); the tree reads it
    /// as a havoc, so the paths that use it are approximate.
    Unmodelled,
    /// One input, as a plain parameter (packed only to be passed by keyword).
    Plain(Sort),
}

impl Packed {
    /// The hidden input holding a mapping's keys (a set's items).
    pub fn keys_name(&self) -> String {
        match &self.shape {
            Shape::Map {
                kind: MapKind::Set, ..
            } => format!("{}.items", self.name),
            _ => format!("{}.keys", self.name),
        }
    }

    /// The hidden input holding a dict's values.
    pub fn values_name(&self) -> String {
        format!("{}.values", self.name)
    }

    /// The hidden input that is true where an optional parameter is `None`.
    pub fn none_name(&self) -> String {
        format!("{}.is_none", self.name)
    }

    /// The solver inputs with their sorts; the first stands where the parameter does.
    pub fn inputs(&self) -> Vec<(String, Sort)> {
        match &self.shape {
            Shape::Map { kind, key, value } => {
                let mut out = vec![(self.keys_name(), Sort::list(key.clone()))];
                if *kind == MapKind::Dict {
                    out.push((self.values_name(), Sort::list(value.clone())));
                }
                out
            }
            Shape::Optional(sort) => vec![
                (self.name.clone(), sort.clone()),
                (self.none_name(), Sort::Bool),
            ],
            Shape::Unmodelled => Vec::new(),
            Shape::Plain(sort) => vec![(self.name.clone(), sort.clone())],
        }
    }

    /// Whether `name` is one of its solver inputs.
    pub fn has_input(&self, name: &str) -> bool {
        self.inputs().iter().any(|(n, _)| n == name)
    }

    /// Whether `name` is one of its solver inputs that no Python name stands for.
    pub fn is_hidden(&self, name: &str) -> bool {
        name != self.name && self.has_input(name)
    }

    /// `dict[str, int]`, `set[int]`, `int | None`.
    pub fn describe(&self) -> String {
        self.shape.describe()
    }

    /// The parameter's value from its inputs' values: `dict(zip(keys, values))`,
    /// `set(items)`, `None` or the value. On every explored path the keys are distinct and
    /// as many as the values, so this is the mapping the path assumed, in its order.
    fn pack(&self, values: &[(String, PyValue)]) -> Option<PyValue> {
        let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| v);
        let list = |n: &str| match get(n) {
            Some(PyValue::List(xs)) => Some(xs),
            _ => None,
        };
        match &self.shape {
            Shape::Unmodelled => None,
            Shape::Plain(_) => get(&self.name).cloned(),
            Shape::Optional(_) => match get(&self.none_name())? {
                PyValue::Bool(true) => Some(PyValue::None),
                _ => get(&self.name).cloned(),
            },
            Shape::Map {
                kind: MapKind::Set, ..
            } => {
                let mut items: Vec<PyValue> = Vec::new();
                for k in list(&self.keys_name())? {
                    if !items.iter().any(|j| same_key(j, k)) {
                        items.push(k.clone());
                    }
                }
                Some(PyValue::Set(items))
            }
            Shape::Map { .. } => {
                let mut entries: Vec<(PyValue, PyValue)> = Vec::new();
                let keys = list(&self.keys_name())?;
                for (k, v) in keys.iter().zip(list(&self.values_name())?) {
                    match entries.iter_mut().find(|(j, _)| same_key(j, k)) {
                        Some(e) => e.1 = v.clone(),
                        None => entries.push((k.clone(), v.clone())),
                    }
                }
                Some(PyValue::Dict(entries))
            }
        }
    }

    /// Its inputs' values for a value of the parameter (`None` for another type).
    pub fn unpack(&self, v: &PyValue) -> Option<Vec<(String, PyValue)>> {
        let list = |xs: Vec<PyValue>| PyValue::List(xs);
        match (&self.shape, v) {
            (Shape::Map { kind, .. }, PyValue::Dict(entries)) if *kind == MapKind::Dict => {
                Some(vec![
                    (
                        self.keys_name(),
                        list(entries.iter().map(|(k, _)| k.clone()).collect()),
                    ),
                    (
                        self.values_name(),
                        list(entries.iter().map(|(_, v)| v.clone()).collect()),
                    ),
                ])
            }
            (Shape::Map { kind, .. }, PyValue::Set(items)) if *kind == MapKind::Set => {
                Some(vec![(self.keys_name(), list(items.clone()))])
            }
            (Shape::Optional(sort), PyValue::None) => Some(vec![
                (self.name.clone(), zero(sort)),
                (self.none_name(), PyValue::Bool(true)),
            ]),
            (Shape::Plain(_), v) => Some(vec![(self.name.clone(), v.clone())]),
            (Shape::Optional(_), other) => Some(vec![
                (self.name.clone(), other.clone()),
                (self.none_name(), PyValue::Bool(false)),
            ]),
            _ => None,
        }
    }

    /// Makes random inputs' values those of the parameter value they pack to (distinct
    /// keys, as many values as keys, an ignored value where `None`), so that the run and
    /// its prediction see one input.
    pub fn normalize(&self, run: &mut [(String, PyValue)]) {
        let Some(inputs) = self.pack(run).and_then(|v| self.unpack(&v)) else {
            return;
        };
        for (n, v) in run.iter_mut() {
            if let Some((_, x)) = inputs.iter().find(|(h, _)| h == n) {
                *v = x.clone();
            }
        }
    }
}

impl Shape {
    pub fn describe(&self) -> String {
        match self {
            Shape::Map {
                kind: MapKind::Dict,
                key,
                value,
            } => format!("dict[{key}, {value}]"),
            Shape::Map { key, .. } => format!("set[{key}]"),
            Shape::Optional(sort) => format!("{sort} | None"),
            Shape::Unmodelled => "not an input".into(),
            Shape::Plain(sort) => sort.to_string(),
        }
    }
}

/// For a consumer that passes each parameter one plain value by position (`%concolic`,
/// `%verify`): the `ARG:TYPE` sorts that make each optional parameter its `T`; `Err` says
/// which parameter it cannot take (a dict or set, a keyword-only one, and `*args` or
/// `**kwargs` unless `unmodelled_ok`: a consumer that passes none for them).
pub fn positional_sorts(
    packed: &[Packed],
    unmodelled_ok: bool,
) -> Result<Vec<(String, Sort)>, String> {
    let mut out = Vec::new();
    for p in packed {
        match &p.shape {
            _ if p.keyword => {
                return Err(format!("the keyword-only parameter {}", p.name));
            }
            Shape::Optional(sort) => out.push((p.name.clone(), sort.clone())),
            Shape::Unmodelled if unmodelled_ok => {}
            Shape::Unmodelled => return Err(format!("the parameter *{}", p.name)),
            Shape::Map { .. } | Shape::Plain(_) => {
                return Err(format!("the parameter {}: {}", p.name, p.describe()));
            }
        }
    }
    Ok(out)
}

/// The arguments of a run from the solver inputs' values (in input order): each packed
/// parameter's inputs become its value, at the place of its first one.
pub fn pack_all(packed: &[Packed], values: &[(String, PyValue)]) -> Vec<(String, PyValue)> {
    let mut out = Vec::with_capacity(values.len());
    for (n, v) in values {
        match packed.iter().find(|p| p.has_input(n)) {
            Some(p) if p.inputs().first().is_some_and(|(first, _)| first == n) => {
                if let Some(value) = p.pack(values) {
                    out.push((p.name.clone(), value));
                }
            }
            Some(_) => {}
            None => out.push((n.clone(), v.clone())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_pack_as_dict_zip_and_normalize_to_one_value() {
        let d = Packed {
            name: "d".into(),
            keyword: false,
            shape: Shape::Map {
                kind: MapKind::Dict,
                key: Sort::Str,
                value: Sort::Int,
            },
        };
        let s = |x: &str| PyValue::Str(x.into());
        let i = |x: i64| PyValue::Int(x.into());
        let mut run = vec![
            ("n".to_string(), i(7)),
            (
                "d.keys".to_string(),
                PyValue::List(vec![s("a"), s("b"), s("a")]),
            ),
            (
                "d.values".to_string(),
                PyValue::List(vec![i(1), i(2), i(3), i(4)]),
            ),
        ];
        d.normalize(&mut run);
        let args = pack_all(std::slice::from_ref(&d), &run);
        // dict(zip(['a', 'b', 'a'], [1, 2, 3, 4])) == {'a': 3, 'b': 2}
        assert_eq!(args[1].1.repr(), "{'a': 3, 'b': 2}");
        assert_eq!(run[1].1.repr(), "['a', 'b']");
        assert_eq!(run[2].1.repr(), "[3, 2]");
        let x = Packed {
            name: "x".into(),
            keyword: false,
            shape: Shape::Optional(Sort::Int),
        };
        let none = vec![
            ("x".to_string(), i(5)),
            ("x.is_none".to_string(), PyValue::Bool(true)),
        ];
        assert_eq!(
            pack_all(std::slice::from_ref(&x), &none)[0].1,
            PyValue::None
        );
        assert_eq!(x.describe(), "int | None");
    }
}
