//! The built-in lattices of `%lattice KIND [ARGS]`.

use num_bigint::BigInt;

use super::{FiniteOrder, MAX_ELEMENTS, OrderError};
use crate::dataflow::domains::{AbstractDomain, Bound, Interval};
use crate::dataflow::lattice::{HasBottom, HasTop, JoinSemiLattice};
use crate::dataflow::registry;

/// The kinds `%lattice` knows, for help and completion: `powerset`, `flat`, the domains of the
/// registry that can be drawn, `product`.
pub const KINDS: &[&str] = &registry::LATTICE_KINDS;

/// Options of the kinds that take them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuiltinOptions {
    /// `interval --window LO HI`: the ints the finite bounds range over.
    pub window: Option<(i64, i64)>,
    /// `interval --unbounded`: also the intervals with an infinite bound.
    pub unbounded: bool,
}

/// The window `interval` uses without `--window`.
pub const DEFAULT_WINDOW: (i64, i64) = (-2, 2);

/// The lattice `KIND ARGS…` names.
pub fn build(args: &[String], options: &BuiltinOptions) -> Result<FiniteOrder, OrderError> {
    let Some((kind, rest)) = args.split_first() else {
        return Err(OrderError::Usage(format!(
            "name a lattice: one of {}",
            KINDS.join(", ")
        )));
    };
    let no_args = |order: Result<FiniteOrder, OrderError>| {
        if rest.is_empty() {
            order
        } else {
            Err(OrderError::Usage(format!(
                "{kind} takes no arguments, got {}",
                rest.join(" ")
            )))
        }
    };
    match kind.as_str() {
        "powerset" => powerset(rest),
        "flat" => flat(rest),
        "product" => product(rest),
        other => match registry::lattice_domain(other) {
            Some(entry) => no_args((entry.build)(options)),
            None => Err(OrderError::Usage(format!(
                "unknown lattice kind {other:?}: use one of {}",
                KINDS.join(", ")
            ))),
        },
    }
}

/// The lattice of a finite domain (its [`AbstractDomain::finite_elements`]).
pub fn of_domain<D: AbstractDomain>(_: &BuiltinOptions) -> Result<FiniteOrder, OrderError> {
    FiniteOrder::from_domain::<D>()
}

/// `interval` with `--window` and `--unbounded`.
pub fn interval_lattice(options: &BuiltinOptions) -> Result<FiniteOrder, OrderError> {
    interval(options.window.unwrap_or(DEFAULT_WINDOW), options.unbounded)
}

/// Every subset of `atoms`, ordered by inclusion; listed by size, then by the atoms' order.
pub fn powerset(atoms: &[String]) -> Result<FiniteOrder, OrderError> {
    if atoms.is_empty() {
        return Err(OrderError::Usage(
            "powerset needs the atoms of the set, e.g. powerset x y z".into(),
        ));
    }
    let name = format!("powerset {{{}}}", atoms.join(", "));
    let max_atoms = MAX_ELEMENTS.ilog2() as usize;
    if atoms.len() > max_atoms {
        return Err(OrderError::TooLarge {
            what: format!("the powerset of {} atoms", atoms.len()),
            count: 1u128.checked_shl(atoms.len() as u32).unwrap_or(u128::MAX),
            hint: format!(" (powersets of up to {max_atoms} atoms)"),
        });
    }
    super::check_unique(atoms)?;
    let mut subsets: Vec<u64> = (0..1u64 << atoms.len()).collect();
    let indices = |s: u64| (0..atoms.len()).filter(move |i| s & (1 << i) != 0);
    subsets.sort_by_key(|&s| (s.count_ones(), indices(s).collect::<Vec<_>>()));
    let label = |&s: &u64| {
        if s == 0 {
            "∅".to_string()
        } else {
            format!(
                "{{{}}}",
                indices(s)
                    .map(|i| atoms[i].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    FiniteOrder::from_leq(name, &subsets, label, |a, b| a & !b == 0)
}

/// `⊥`, the values (pairwise incomparable), `⊤`.
pub fn flat(values: &[String]) -> Result<FiniteOrder, OrderError> {
    if values.is_empty() {
        return Err(OrderError::Usage(
            "flat needs its values, e.g. flat 0 1 2".into(),
        ));
    }
    if let Some(v) = values.iter().find(|v| *v == "⊥" || *v == "⊤") {
        return Err(OrderError::Usage(format!(
            "{v} is the flat lattice's own bottom or top; list only the values"
        )));
    }
    let mut elements = vec!["⊥".to_string()];
    elements.extend(values.iter().cloned());
    elements.push("⊤".to_string());
    let top = elements.len() - 1;
    let pairs: Vec<(usize, usize)> = (1..top)
        .flat_map(|i| [(0, i), (i, top)])
        .chain([(0, top)])
        .collect();
    let name = format!("flat {{{}}}", values.join(", "));
    if elements.len() > MAX_ELEMENTS {
        return Err(OrderError::TooLarge {
            what: name,
            count: elements.len() as u128,
            hint: format!(" (at most {} values)", MAX_ELEMENTS - 2),
        });
    }
    FiniteOrder::from_pairs(name, elements, &pairs)
}

/// `⊥` and every interval `[a, b]` with `lo ≤ a ≤ b ≤ hi`; with `unbounded`, also those with
/// `a = -∞` or `b = +∞`. Listed by width, then by lower bound; ⊥ first.
pub fn interval(window: (i64, i64), unbounded: bool) -> Result<FiniteOrder, OrderError> {
    let (lo, hi) = window;
    if lo > hi {
        return Err(OrderError::Usage(format!(
            "--window {lo} {hi}: the first bound must not exceed the second"
        )));
    }
    let count_for =
        |w: u128| w.saturating_mul(w + 1) / 2 + 1 + if unbounded { 2 * w + 1 } else { 0 };
    let count = count_for((hi as i128 - lo as i128 + 1) as u128);
    let name = format!(
        "interval [{lo}, {hi}]{}",
        if unbounded { " with ±∞" } else { "" }
    );
    if count > MAX_ELEMENTS as u128 {
        let max_width = (1..)
            .take_while(|&w| count_for(w) <= MAX_ELEMENTS as u128)
            .last()
            .unwrap_or(1);
        return Err(OrderError::TooLarge {
            what: format!("the interval lattice over the window {lo} {hi}"),
            count,
            hint: format!(" (use a window of at most {max_width} ints)"),
        });
    }
    let mut elements = vec![Interval::BOTTOM];
    for a in lo..=hi {
        for b in a..=hi {
            elements.push(Interval::range(a, b));
        }
    }
    if unbounded {
        for v in lo..=hi {
            elements.push(Interval::at_most(v));
            elements.push(Interval::at_least(v));
        }
        elements.push(Interval::TOP);
    }
    elements.sort_by_cached_key(interval_key);
    FiniteOrder::from_leq(name, &elements, ToString::to_string, |a, b| a.leq(b))
}

/// ⊥; finite intervals by width, then lower bound; `[-∞, b]` by `b`; `[a, +∞]` by `a`; ⊤.
fn interval_key(i: &Interval) -> (u8, BigInt, BigInt) {
    let zero = BigInt::ZERO;
    match i.bounds() {
        None => (0, zero.clone(), zero),
        Some((Bound::Finite(l), Bound::Finite(h))) => (1, h - l, l.clone()),
        Some((Bound::NegInf, Bound::Finite(h))) => (2, zero, h.clone()),
        Some((Bound::Finite(l), Bound::PosInf)) => (3, zero, l.clone()),
        Some(_) => (4, zero.clone(), zero),
    }
}

/// `product A B` for two kinds without arguments.
fn product(args: &[String]) -> Result<FiniteOrder, OrderError> {
    let simple = registry::lattice_factors();
    let [a, b] = args else {
        return Err(OrderError::Usage(format!(
            "product takes two lattices, each one of {}",
            simple.join(", ")
        )));
    };
    let part = |k: &String| {
        if simple.contains(&k.as_str()) {
            build(std::slice::from_ref(k), &BuiltinOptions::default())
        } else {
            Err(OrderError::Usage(format!(
                "product of {k:?}: the factors may be {}",
                simple.join(", ")
            )))
        }
    };
    FiniteOrder::product(&part(a)?, &part(b)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn names(o: &FiniteOrder) -> String {
        o.elements().join(" ")
    }

    #[test]
    fn sizes_of_the_builtins() {
        let opts = BuiltinOptions::default();
        let size = |s: &str| build(&words(s), &opts).map(|o| (o.len(), o.covers().len()));
        assert_eq!(size("powerset x y z"), Ok((8, 12)));
        assert_eq!(size("flat 0 1 2"), Ok((5, 6)));
        assert_eq!(size("sign"), Ok((8, 12)));
        assert_eq!(size("zero"), Ok((4, 4)));
        assert_eq!(size("interval"), Ok((16, 25)));
        assert_eq!(size("product sign zero"), Ok((32, 80)));
        assert_eq!(size("powerset a b c d e f"), Ok((64, 192)));
    }

    #[test]
    fn element_orders_are_readable() {
        let o = build(&words("powerset x y z"), &BuiltinOptions::default()).unwrap();
        assert_eq!(names(&o), "∅ {x} {y} {z} {x, y} {x, z} {y, z} {x, y, z}");
        let i = interval((0, 1), true).unwrap();
        assert_eq!(
            names(&i),
            "⊥ [0, 0] [1, 1] [0, 1] [-∞, 0] [-∞, 1] [0, +∞] [1, +∞] [-∞, +∞]"
        );
    }

    #[test]
    fn refusals_are_clear() {
        let opts = BuiltinOptions::default();
        let err = |s: &str, o: &BuiltinOptions| build(&words(s), o).unwrap_err().to_string();
        assert_eq!(
            err("powerset a b c d e f g", &opts),
            "the powerset of 7 atoms has 128 elements; the largest lattice shown has 64 (powersets of up to 6 atoms)"
        );
        assert_eq!(
            err(
                "interval",
                &BuiltinOptions {
                    window: Some((-5, 5)),
                    unbounded: false
                }
            ),
            "the interval lattice over the window -5 5 has 67 elements; the largest lattice shown has 64 (use a window of at most 10 ints)"
        );
        assert!(
            err(
                "interval",
                &BuiltinOptions {
                    window: Some((i64::MIN, i64::MAX)),
                    unbounded: true
                }
            )
            .contains("has ")
        );
        assert!(
            err(
                "interval",
                &BuiltinOptions {
                    window: Some((2, 1)),
                    unbounded: false
                }
            )
            .contains("must not exceed")
        );
        assert_eq!(err("powerset x x", &opts), "\"x\" is listed twice");
        assert!(err("flat", &opts).contains("flat 0 1 2"));
        assert!(err("flat a ⊤", &opts).contains("own bottom or top"));
        assert!(err("product sign", &opts).contains("two lattices"));
        assert!(err("product sign flat", &opts).contains("the factors may be"));
        assert!(err("sign x", &opts).contains("takes no arguments"));
        assert!(err("lattic", &opts).contains("unknown lattice kind"));
        assert!(err("", &opts).contains("name a lattice"));
    }
}
