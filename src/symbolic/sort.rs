//! The sorts (types) of symbolic terms and the Python rules that relate them: numeric
//! promotion (`bool` < `int` < `float`), joins for conditional values, and what `==` means
//! across sorts.

use std::fmt::{self, Display, Formatter};

use crate::python::messages;

/// Whether a sequence is a `list` or a `tuple`: Python never considers the two equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SeqKind {
    List,
    Tuple,
}

/// The sort of a term. `Real` models Python's `float` as exact real numbers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    Bool,
    Int,
    Real,
    Str,
    /// A list or tuple of any length whose items share one sort: `list[int]`,
    /// `tuple[str, ...]`. The item sort is never `Fixed`.
    Seq(SeqKind, Box<Sort>),
    /// A list or tuple of known length: literals such as `(x, "a")`, parameters such as
    /// `tuple[int, str]`.
    Fixed(SeqKind, Vec<Sort>),
}

/// What `a == b` means for two sorts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Equality {
    /// Same sort: plain equality.
    Same,
    /// Numbers of different sorts: compared after promotion (`1 == 1.0 == True`).
    Numeric,
    /// Fixed-length sequences on either side: item by item.
    Itemwise,
    /// Sequences of the same kind whose items can never be equal: equal only when both
    /// are empty (`[] == []` for a `list[int]` and a `list[str]`).
    BothEmpty,
    /// Always `False` (`1 == "1"`, `[1] == (1,)`).
    Never,
    /// Decidable in Python but not encoded (e.g. `list[int] == list[float]`).
    Unsupported,
}

impl SeqKind {
    pub fn name(self) -> &'static str {
        match self {
            SeqKind::List => "list",
            SeqKind::Tuple => "tuple",
        }
    }

    /// CPython's message for a subscript out of range.
    pub fn index_out_of_range(self) -> &'static str {
        match self {
            SeqKind::List => messages::LIST_INDEX_OUT_OF_RANGE,
            SeqKind::Tuple => messages::TUPLE_INDEX_OUT_OF_RANGE,
        }
    }
}

impl Sort {
    /// Whether a value of this sort can be or contain a list (so cannot be hashed, and may
    /// be changed through another reference).
    pub fn may_hold_list(&self) -> bool {
        match self {
            Sort::Seq(SeqKind::List, _) | Sort::Fixed(SeqKind::List, _) => true,
            Sort::Seq(_, item) => item.may_hold_list(),
            Sort::Fixed(_, items) => items.iter().any(Sort::may_hold_list),
            _ => false,
        }
    }

    pub fn list(item: Sort) -> Sort {
        Sort::Seq(SeqKind::List, Box::new(item))
    }

    pub fn tuple(item: Sort) -> Sort {
        Sort::Seq(SeqKind::Tuple, Box::new(item))
    }

    /// `bool`, `int` or `float`.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Sort::Bool | Sort::Int | Sort::Real)
    }

    /// `str`, a sequence or a fixed-length sequence: what `len` and subscripts accept.
    pub fn is_sized(&self) -> bool {
        matches!(self, Sort::Str | Sort::Seq(..) | Sort::Fixed(..))
    }

    /// The sequence kind of a `Seq` or `Fixed` sort.
    pub fn seq_kind(&self) -> Option<SeqKind> {
        match self {
            Sort::Seq(kind, _) | Sort::Fixed(kind, _) => Some(*kind),
            _ => None,
        }
    }

    /// The sort an item of this sequence has: the `Seq` item sort, or the join of all
    /// items of a non-empty `Fixed` sort that has one and could be a `Seq` item.
    pub fn item_sort(&self) -> Option<Sort> {
        match self {
            Sort::Seq(_, item) => Some((**item).clone()),
            Sort::Fixed(_, items) => {
                let (first, rest) = items.split_first()?;
                let joined = rest
                    .iter()
                    .try_fold(first.clone(), |acc, s| Sort::join(&acc, s))?;
                (!matches!(joined, Sort::Fixed(..))).then_some(joined)
            }
            _ => None,
        }
    }

    /// The result sort of `+ - * // %` on two numbers: `int` unless a `float` is involved
    /// (`True + True` is `2`).
    pub fn arithmetic(a: &Sort, b: &Sort) -> Option<Sort> {
        if !a.is_numeric() || !b.is_numeric() {
            return None;
        }
        if *a == Sort::Real || *b == Sort::Real {
            Some(Sort::Real)
        } else {
            Some(Sort::Int)
        }
    }

    /// The sort that can hold a value of either sort, for `c if t else d` and `min`/`max`:
    /// numbers promote, fixed sequences join item by item, a fixed sequence joins a
    /// sequence of the same kind whose item sort holds every item.
    pub fn join(a: &Sort, b: &Sort) -> Option<Sort> {
        if a == b {
            return Some(a.clone());
        }
        match (a, b) {
            _ if a.is_numeric() && b.is_numeric() => {
                Some(if *a == Sort::Real || *b == Sort::Real {
                    Sort::Real
                } else {
                    Sort::Int
                })
            }
            (Sort::Fixed(ka, xs), Sort::Fixed(kb, ys)) if ka == kb => {
                let itemwise = (xs.len() == ys.len())
                    .then(|| xs.iter().zip(ys).map(|(x, y)| Sort::join(x, y)).collect())
                    .flatten();
                match itemwise {
                    Some(items) => Some(Sort::Fixed(*ka, items)),
                    // Different lengths: a sequence of the items' common sort.
                    None => {
                        let mut all = xs.iter().chain(ys);
                        let first = all.next()?;
                        let item = all.try_fold(first.clone(), |acc, s| Sort::join(&acc, s))?;
                        (!matches!(item, Sort::Fixed(..))).then(|| Sort::Seq(*ka, Box::new(item)))
                    }
                }
            }
            (Sort::Fixed(kf, items), Sort::Seq(ks, item))
            | (Sort::Seq(ks, item), Sort::Fixed(kf, items))
                if kf == ks && items.iter().all(|s| s.fits(item)) =>
            {
                Some(Sort::Seq(*ks, item.clone()))
            }
            _ => None,
        }
    }

    /// Whether a value of this sort can be stored as an item of `item` sort: the same
    /// sort, or a number promoted to a wider one (`True` in a `list[int]`).
    pub fn fits(&self, item: &Sort) -> bool {
        self == item || Sort::join(self, item).as_ref() == Some(item) && self.is_numeric()
    }

    /// What `==` means between values of these sorts.
    pub fn equality(a: &Sort, b: &Sort) -> Equality {
        if a == b && !matches!(a, Sort::Fixed(..)) {
            return Equality::Same;
        }
        match (a, b) {
            _ if a.is_numeric() && b.is_numeric() => Equality::Numeric,
            (Sort::Fixed(ka, _), Sort::Fixed(kb, _))
            | (Sort::Fixed(ka, _), Sort::Seq(kb, _))
            | (Sort::Seq(ka, _), Sort::Fixed(kb, _)) => {
                if ka != kb {
                    Equality::Never
                } else if fixed_items_comparable(a, b) {
                    Equality::Itemwise
                } else {
                    Equality::Unsupported
                }
            }
            (Sort::Seq(ka, x), Sort::Seq(kb, y)) => {
                if ka != kb {
                    Equality::Never
                } else {
                    match Sort::equality(x, y) {
                        Equality::Never => Equality::BothEmpty,
                        _ => Equality::Unsupported,
                    }
                }
            }
            _ => Equality::Never,
        }
    }
}

/// Whether every item pair of two same-kind sequences (one of them fixed) has an encoded
/// equality.
fn fixed_items_comparable(a: &Sort, b: &Sort) -> bool {
    let ok = |x: &Sort, y: &Sort| Sort::equality(x, y) != Equality::Unsupported;
    match (a, b) {
        (Sort::Fixed(_, xs), Sort::Fixed(_, ys)) => {
            xs.len() != ys.len() || xs.iter().zip(ys).all(|(x, y)| ok(x, y))
        }
        (Sort::Fixed(_, xs), Sort::Seq(_, y)) | (Sort::Seq(_, y), Sort::Fixed(_, xs)) => {
            xs.iter().all(|x| ok(x, y))
        }
        _ => false,
    }
}

impl Display for Sort {
    /// The Python annotation: `int`, `float`, `list[str]`, `tuple[int, ...]`,
    /// `tuple[int, str]`; a fixed-length list prints as `list[int, str]`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => f.write_str("bool"),
            Sort::Int => f.write_str("int"),
            Sort::Real => f.write_str("float"),
            Sort::Str => f.write_str("str"),
            Sort::Seq(SeqKind::List, item) => write!(f, "list[{item}]"),
            Sort::Seq(SeqKind::Tuple, item) => write!(f, "tuple[{item}, ...]"),
            Sort::Fixed(kind, items) if items.is_empty() => write!(f, "{}[()]", kind.name()),
            Sort::Fixed(kind, items) => {
                let items: Vec<String> = items.iter().map(Sort::to_string).collect();
                write!(f, "{}[{}]", kind.name(), items.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_follow_python_promotion() {
        assert_eq!(Sort::join(&Sort::Bool, &Sort::Int), Some(Sort::Int));
        assert_eq!(Sort::join(&Sort::Int, &Sort::Real), Some(Sort::Real));
        assert_eq!(Sort::join(&Sort::Int, &Sort::Str), None);
        assert_eq!(Sort::arithmetic(&Sort::Bool, &Sort::Bool), Some(Sort::Int));
        let pair = Sort::Fixed(SeqKind::Tuple, vec![Sort::Int, Sort::Int]);
        assert_eq!(
            Sort::join(&pair, &Sort::tuple(Sort::Int)),
            Some(Sort::tuple(Sort::Int))
        );
        assert_eq!(Sort::join(&pair, &Sort::list(Sort::Int)), None);
        assert_eq!(pair.item_sort(), Some(Sort::Int));
        let mixed = Sort::Fixed(SeqKind::List, vec![Sort::Int, Sort::Bool]);
        assert_eq!(
            Sort::join(&mixed, &Sort::list(Sort::Int)),
            Some(Sort::list(Sort::Int))
        );
        assert_eq!(Sort::join(&mixed, &Sort::list(Sort::Bool)), None);
        let longer = Sort::Fixed(SeqKind::List, vec![Sort::Int; 3]);
        assert_eq!(Sort::join(&mixed, &longer), Some(Sort::list(Sort::Int)));
    }

    #[test]
    fn equality_across_sorts() {
        assert_eq!(Sort::equality(&Sort::Int, &Sort::Real), Equality::Numeric);
        assert_eq!(Sort::equality(&Sort::Int, &Sort::Str), Equality::Never);
        let (li, ti) = (Sort::list(Sort::Int), Sort::tuple(Sort::Int));
        assert_eq!(Sort::equality(&li, &ti), Equality::Never);
        assert_eq!(
            Sort::equality(&li, &Sort::list(Sort::Str)),
            Equality::BothEmpty
        );
        assert_eq!(
            Sort::equality(&li, &Sort::list(Sort::Real)),
            Equality::Unsupported
        );
        let fixed = Sort::Fixed(SeqKind::List, vec![Sort::Int, Sort::Real]);
        assert_eq!(Sort::equality(&fixed, &li), Equality::Itemwise);
        assert_eq!(Sort::to_string(&fixed), "list[int, float]");
        assert_eq!(ti.to_string(), "tuple[int, ...]");
    }
}
