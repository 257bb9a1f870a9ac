//! The lattice-law check of a finite order: is it a partial order (a cycle is named), does
//! every pair have a unique least upper bound and greatest lower bound (a counterexample is
//! named), which elements are top and bottom, and does a given join table agree.

use super::FiniteOrder;
use crate::dataflow::bitset::BitSet;

/// Listed violations past this many are counted only (the JSON and text stay readable).
pub const MAX_VIOLATIONS: usize = 100;

/// One broken law, with the elements it is about (to highlight them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub message: String,
    pub elements: Vec<usize>,
}

/// What [`check`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LawReport {
    /// Antisymmetric (reflexivity and transitivity hold by construction).
    pub is_partial_order: bool,
    pub top: Option<usize>,
    pub bottom: Option<usize>,
    pub is_lattice: bool,
    /// The first [`MAX_VIOLATIONS`] violations, in element order.
    pub violations: Vec<Violation>,
    /// How many violations there are in all.
    pub violation_count: usize,
}

/// Checks the lattice laws of `order`.
pub fn check(order: &FiniteOrder) -> LawReport {
    let mut found = Found::default();
    let is_partial_order = order.is_antisymmetric();
    if !is_partial_order {
        report_cycle(order, &mut found);
    } else {
        report_bounds(order, &mut found);
    }
    if let Some(table) = order.join_table() {
        report_join_table(order, table, &mut found);
    }
    let extreme = |pick: fn(&FiniteOrder, usize, usize) -> bool| {
        let mut it = (0..order.len()).filter(|&t| (0..order.len()).all(|i| pick(order, i, t)));
        match (it.next(), it.next()) {
            (Some(t), None) => Some(t),
            _ => None,
        }
    };
    LawReport {
        is_partial_order,
        top: extreme(|o, i, t| o.leq(i, t)),
        bottom: extreme(|o, i, b| o.leq(b, i)),
        is_lattice: is_partial_order && found.count == 0,
        violation_count: found.count,
        violations: found.list,
    }
}

#[derive(Default)]
struct Found {
    list: Vec<Violation>,
    count: usize,
}

impl Found {
    fn add(&mut self, message: String, elements: Vec<usize>) {
        self.count += 1;
        if self.list.len() < MAX_VIOLATIONS {
            self.list.push(Violation { message, elements });
        }
    }
}

/// Names one cycle: the first element (in order) that lies on one, and a shortest path of given
/// pairs from it back to itself.
fn report_cycle(order: &FiniteOrder, found: &mut Found) {
    let n = order.len();
    let Some(start) =
        (0..n).find(|&a| (0..n).any(|b| b != a && order.leq(a, b) && order.leq(b, a)))
    else {
        return;
    };
    // Breadth-first search over the given pairs, back to `start`.
    let mut previous: Vec<Option<usize>> = vec![None; n];
    let mut queue = std::collections::VecDeque::from([start]);
    let mut visited = BitSet::from_indices(n, [start]);
    let mut last = None;
    'search: while let Some(a) = queue.pop_front() {
        for &(_, b) in order.given_pairs().iter().filter(|(l, _)| *l == a) {
            if b == start {
                last = Some(a);
                break 'search;
            }
            if visited.insert(b) {
                previous[b] = Some(a);
                queue.push_back(b);
            }
        }
    }
    // Walk back from the last element before `start`, then turn the walk around.
    let mut middle = Vec::new();
    let mut at = last;
    while let Some(a) = at.filter(|&a| a != start) {
        middle.push(a);
        at = previous[a];
    }
    middle.reverse();
    let mut cycle = vec![start];
    cycle.extend(middle);
    let text: Vec<&str> = cycle
        .iter()
        .chain([&start])
        .map(|&i| order.element(i))
        .collect();
    found.add(
        format!(
            "not a partial order: {} is a cycle (antisymmetry fails)",
            text.join(" < ")
        ),
        cycle,
    );
}

fn report_bounds(order: &FiniteOrder, found: &mut Found) {
    let n = order.len();
    let downs: Vec<BitSet> = (0..n).map(|i| order.down_set(i)).collect();
    let ups: Vec<BitSet> = (0..n).filter_map(|i| order.up_set(i).cloned()).collect();
    for a in 0..n {
        for b in a + 1..n {
            let mut upper = ups[a].clone();
            upper.intersect(&ups[b]);
            bound(
                order,
                a,
                b,
                &upper,
                |x, y| order.leq(x, y),
                Side::Upper,
                found,
            );
            let mut lower = downs[a].clone();
            lower.intersect(&downs[b]);
            bound(
                order,
                a,
                b,
                &lower,
                |x, y| order.leq(y, x),
                Side::Lower,
                found,
            );
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Upper,
    Lower,
}

/// Reports `a`, `b` when `bounds` (their upper or lower bounds) has no least (or greatest)
/// element. `below(x, y)` is the order in which "least" is meant.
fn bound(
    order: &FiniteOrder,
    a: usize,
    b: usize,
    bounds: &BitSet,
    below: impl Fn(usize, usize) -> bool,
    side: Side,
    found: &mut Found,
) {
    let (kind, best, extreme) = match side {
        Side::Upper => ("upper bound", "least upper bound", "minimal upper bounds"),
        Side::Lower => (
            "lower bound",
            "greatest lower bound",
            "maximal lower bounds",
        ),
    };
    let (ea, eb) = (order.element(a), order.element(b));
    let minimal: Vec<usize> = bounds
        .iter()
        .filter(|&m| bounds.iter().all(|u| u == m || !below(u, m)))
        .collect();
    match minimal.as_slice() {
        [] => found.add(format!("{ea} and {eb} have no {kind}"), vec![a, b]),
        [_] => {}
        many => {
            let names: Vec<&str> = many.iter().map(|&m| order.element(m)).collect();
            let list = match names.split_last() {
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            };
            let quantifier = if many.len() == 2 { "both" } else { "all" };
            let mut elements = vec![a, b];
            elements.extend(many);
            found.add(
                format!("{ea} and {eb} have no unique {best}: {list} are {quantifier} {extreme}"),
                elements,
            );
        }
    }
}

/// Checks that the table is idempotent, commutative and associative, and that it gives the
/// least upper bound of the order it defines.
fn report_join_table(order: &FiniteOrder, table: &[Vec<usize>], found: &mut Found) {
    let n = order.len();
    let join = |a: usize, b: usize| {
        table
            .get(a)
            .and_then(|row| row.get(b))
            .copied()
            .unwrap_or(a)
    };
    let name = |i: usize| order.element(i);
    for a in 0..n {
        if join(a, a) != a {
            found.add(
                format!(
                    "join table: {0} ⊔ {0} = {1}, not {0} (not idempotent)",
                    name(a),
                    name(join(a, a))
                ),
                vec![a],
            );
        }
        for b in a + 1..n {
            if join(a, b) != join(b, a) {
                found.add(
                    format!(
                        "join table: {} ⊔ {} = {} but {} ⊔ {} = {} (not commutative)",
                        name(a),
                        name(b),
                        name(join(a, b)),
                        name(b),
                        name(a),
                        name(join(b, a))
                    ),
                    vec![a, b],
                );
            }
        }
    }
    'assoc: for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                let (l, r) = (join(join(a, b), c), join(a, join(b, c)));
                if l != r {
                    found.add(
                        format!(
                            "join table: ({0} ⊔ {1}) ⊔ {2} = {3} but {0} ⊔ ({1} ⊔ {2}) = {4} (not associative)",
                            name(a),
                            name(b),
                            name(c),
                            name(l),
                            name(r)
                        ),
                        vec![a, b, c],
                    );
                    break 'assoc;
                }
            }
        }
    }
    if !order.is_antisymmetric() {
        return;
    }
    for a in 0..n {
        for b in a + 1..n {
            let j = join(a, b);
            if !(order.leq(a, j) && order.leq(b, j)) {
                found.add(
                    format!(
                        "join table: {} ⊔ {} = {} is not above both in the order the table defines",
                        name(a),
                        name(b),
                        name(j)
                    ),
                    vec![a, b, j],
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(names: &[&str], pairs: &[(usize, usize)]) -> FiniteOrder {
        FiniteOrder::from_pairs("t", names.iter().map(|s| s.to_string()).collect(), pairs).unwrap()
    }

    fn messages(r: &LawReport) -> Vec<&str> {
        r.violations.iter().map(|v| v.message.as_str()).collect()
    }

    #[test]
    fn a_diamond_is_a_lattice() {
        let r = check(&order(
            &["⊥", "a", "b", "⊤"],
            &[(0, 1), (0, 2), (1, 3), (2, 3)],
        ));
        assert!(r.is_partial_order && r.is_lattice, "{r:?}");
        assert_eq!((r.top, r.bottom), (Some(3), Some(0)));
        assert!(r.violations.is_empty());
    }

    /// `a < c, a < d, b < c, b < d`: the classic non-lattice.
    #[test]
    fn the_bowtie_is_not_a_lattice() {
        let r = check(&order(
            &["a", "b", "c", "d"],
            &[(0, 2), (0, 3), (1, 2), (1, 3)],
        ));
        assert!(r.is_partial_order && !r.is_lattice);
        assert_eq!((r.top, r.bottom), (None, None));
        assert_eq!(
            messages(&r),
            [
                "a and b have no unique least upper bound: c and d are both minimal upper bounds",
                "a and b have no lower bound",
                "c and d have no upper bound",
                "c and d have no unique greatest lower bound: a and b are both maximal lower bounds",
            ]
        );
        assert_eq!(r.violations[0].elements, [0, 1, 2, 3]);
    }

    #[test]
    fn b_and_c_with_two_minimal_upper_bounds() {
        // ⊥ < b, c < d, e < ⊤: b ⊔ c is not unique although there is a top.
        let r = check(&order(
            &["⊥", "b", "c", "d", "e", "⊤"],
            &[
                (0, 1),
                (0, 2),
                (1, 3),
                (1, 4),
                (2, 3),
                (2, 4),
                (3, 5),
                (4, 5),
            ],
        ));
        assert!(!r.is_lattice);
        assert_eq!((r.top, r.bottom), (Some(5), Some(0)));
        assert_eq!(
            messages(&r),
            [
                "b and c have no unique least upper bound: d and e are both minimal upper bounds",
                "d and e have no unique greatest lower bound: b and c are both maximal lower bounds",
            ]
        );
    }

    #[test]
    fn a_cycle_is_named() {
        let r = check(&order(
            &["x", "a", "b", "c"],
            &[(1, 2), (2, 3), (3, 1), (0, 1)],
        ));
        assert!(!r.is_partial_order && !r.is_lattice);
        assert_eq!(
            messages(&r),
            ["not a partial order: a < b < c < a is a cycle (antisymmetry fails)"]
        );
        assert_eq!(r.violations[0].elements, [1, 2, 3]);
        let two = check(&order(&["p", "q"], &[(0, 1), (1, 0)]));
        assert_eq!(
            messages(&two),
            ["not a partial order: p < q < p is a cycle (antisymmetry fails)"]
        );
    }

    #[test]
    fn three_minimal_upper_bounds() {
        let r = check(&order(
            &["a", "b", "x", "y", "z"],
            &[(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)],
        ));
        assert_eq!(
            r.violations[0].message,
            "a and b have no unique least upper bound: x, y and z are all minimal upper bounds"
        );
    }

    #[test]
    fn single_element_and_chains_are_lattices() {
        assert!(check(&order(&["only"], &[])).is_lattice);
        assert!(check(&order(&["0", "1", "2"], &[(0, 1), (1, 2)])).is_lattice);
        let antichain = check(&order(&["p", "q"], &[]));
        assert!(!antichain.is_lattice);
        assert_eq!(
            messages(&antichain),
            ["p and q have no upper bound", "p and q have no lower bound"]
        );
    }
}
