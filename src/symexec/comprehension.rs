//! Comprehensions run as the loops they stand for, so `%set` explores them exactly like a
//! `for` (unrolled per length, with "bound" leaves at the unroll bound): hoisting turns
//! `ys = [f(x) for x in xs if p(x)]` into
//!
//! ```text
//! $c1 = []
//! for x in xs:
//!     if p(x):
//!         $c1.append(f(x))
//! ys = $c1
//! ```
//!
//! and a generator expression that a builtin consumes whole (`sum`, `min`, `max`, `sorted`,
//! `list`, `tuple`, `sep.join`) the same way (`sum(x * x for x in xs)` is `sum($c1)`; consuming
//! it whole is what the builtin does, so no laziness is lost). `all`/`any` keep their
//! quantifier translation (it short-circuits and needs no unrolling). `sum(xs)` of anything
//! but a display or a comprehension runs as `sum(x for x in xs)` (the same additions in
//! the same order from the start `0`, and the same `TypeError`s), so a list of unknown
//! length is summed per length up to the unroll bound rather than havocked. The accumulator `$c…`
//! is owned (see `lists`): only the loop appends to it, and it is read once it is complete.
//! Set and dict comprehensions run the same way, from `$c1 = set()` with `$c1.add(f(x))`
//! and from `$c1 = {}` with `$c1[k(x)] = v(x)` (see `symexec::step::mappings`).
//! A list display of constants repeated by a count that is not a constant (`[0] * n`,
//! `n * [None, 0]`) runs as the comprehension `[$rep2 for $rep1 in range(n) for $rep2 in
//! [0]]`: the same items in the same order, `[]` for a count below one, and per count up to
//! the unroll bound (a `bound` leaf beyond). The items are constants, so evaluating them once
//! per repetition changes nothing; a count that is not an int raises the `TypeError` of `*`
//! (the loop over `range` knows its variable by the prefix [`REPEAT_PREFIX`]).
//! A comprehension's variable is local to it in Python, so one whose variable is also used
//! outside comprehensions in the same body is left as it is (not modelled).

use std::collections::BTreeSet;

use crate::python::ir::{BinOp, ComprehensionKind, Expr, ExprKind, Generator, Stmt, UnaryOp};

/// The prefix of the variables of a repetition run as a comprehension (see the module doc).
pub const REPEAT_PREFIX: &str = "$rep";

/// Builtins that consume a generator argument whole.
const CONSUMERS: &[&str] = &["sum", "min", "max", "sorted", "list", "tuple"];

/// `f(arg)` with one positional argument and no keywords: the called name and `arg`.
fn call_of_one(e: &Expr) -> Option<(&str, &Expr)> {
    match &e.kind {
        ExprKind::Call {
            func,
            args,
            keywords,
        } if keywords.is_empty() => match args.as_slice() {
            [arg] => Some((func.as_name()?, arg)),
            _ => None,
        },
        _ => None,
    }
}

/// The generator expression of `sum(g)` (and the other consumers, `sep.join(g)` too), if
/// `e` is one.
pub fn consumed_generator(e: &Expr) -> Option<&Expr> {
    let (consumer, g) = match call_of_one(e) {
        Some((f, g)) => (CONSUMERS.contains(&f), g),
        None => match &e.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => match (&func.kind, args.as_slice()) {
                (ExprKind::Attribute { attr, .. }, [g]) => (attr == "join", g),
                _ => return None,
            },
            _ => return None,
        },
    };
    let generator = matches!(
        g.kind,
        ExprKind::Comprehension {
            kind: ComprehensionKind::Generator,
            ..
        }
    );
    (consumer && generator).then_some(g)
}

/// The argument of `sum(xs)` to run as `sum(x for x in xs)`: one positional argument that
/// is not a display (whose length is known) or a comprehension (already a loop).
pub fn summed_iterable(e: &Expr) -> Option<&Expr> {
    let (f, xs) = call_of_one(e)?;
    let direct = !matches!(
        xs.kind,
        ExprKind::List(_)
            | ExprKind::Tuple(_)
            | ExprKind::Comprehension { .. }
            | ExprKind::Starred(_)
    );
    (f == "sum" && direct).then_some(xs)
}

/// `[c1, c2] * n` / `n * [c1, c2]`: the constant items and the count, if `e` is a list display
/// of constants repeated by a count that is not an integer literal.
pub fn repeated_display(e: &Expr) -> Option<(&[Expr], &Expr)> {
    fn constant(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Constant(_) => true,
            ExprKind::UnaryOp {
                op: UnaryOp::USub,
                operand,
            } => matches!(operand.kind, ExprKind::Constant(_)),
            _ => false,
        }
    }
    let ExprKind::BinOp {
        op: BinOp::Mult,
        left,
        right,
    } = &e.kind
    else {
        return None;
    };
    let (items, count) = match (&left.kind, &right.kind) {
        (ExprKind::List(items), _) => (items, &**right),
        (_, ExprKind::List(items)) => (items, &**left),
        _ => return None,
    };
    let literal = matches!(count.kind, ExprKind::Constant(_) | ExprKind::List(_));
    (!literal && !items.is_empty() && items.iter().all(constant)).then_some((items, count))
}

/// The comprehension a repeated display runs as (see the module doc); `next` numbers its
/// two variables.
pub fn repetition_as_comprehension(items: &[Expr], count: &Expr, like: &Expr, next: u32) -> Expr {
    let var = |k: u32| Expr::new(ExprKind::Name(format!("{REPEAT_PREFIX}{k}")), like.span);
    let range = Expr::new(
        ExprKind::Call {
            func: Box::new(Expr::new(ExprKind::Name("range".into()), like.span)),
            args: vec![count.clone()],
            keywords: Vec::new(),
        },
        count.span,
    );
    Expr::new(
        ExprKind::Comprehension {
            kind: ComprehensionKind::List,
            elt: Box::new(var(next + 1)),
            value: None,
            generators: vec![
                Generator {
                    target: var(next),
                    iter: range,
                    ifs: Vec::new(),
                },
                Generator {
                    target: var(next + 1),
                    iter: Expr::new(ExprKind::List(items.to_vec()), like.span),
                    ifs: Vec::new(),
                },
            ],
        },
        like.span,
    )
}

/// Whether `e` is a list comprehension or a consumed generator to run as a loop (not the
/// argument of `all`/`any`).
pub fn runs_as_loop(e: &Expr, parent: Option<&Expr>) -> bool {
    let quantified = parent.is_some_and(|p| {
        matches!(&p.kind, ExprKind::Call { func, .. } if matches!(func.as_name(), Some("all" | "any")))
    });
    let list = matches!(
        e.kind,
        ExprKind::Comprehension {
            kind: ComprehensionKind::List | ComprehensionKind::Set | ComprehensionKind::Dict,
            ..
        }
    );
    (list && !quantified)
        || consumed_generator(e).is_some()
        || summed_iterable(e).is_some()
        || repeated_display(e).is_some()
}

/// Whether `e` holds a comprehension to run as a loop.
pub fn has_loop(e: &Expr) -> bool {
    fn walk(e: &Expr, parent: Option<&Expr>) -> bool {
        runs_as_loop(e, parent) || e.children().into_iter().any(|c| walk(c, Some(e)))
    }
    walk(e, None)
}

/// Names `body` reads or binds outside comprehensions.
pub fn names_outside(body: &[Stmt]) -> BTreeSet<String> {
    fn expr(e: &Expr, out: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::Name(n) => {
                out.insert(n.clone());
            }
            ExprKind::Comprehension { .. } => {}
            _ => e.children().into_iter().for_each(|c| expr(c, out)),
        }
    }
    let mut out = BTreeSet::new();
    for s in body {
        s.walk(&mut |s: &Stmt| {
            out.extend(s.defined_names());
            for e in s.exprs() {
                expr(e, &mut out);
            }
        });
    }
    out
}

/// The names a comprehension's `for` clauses bind, if every target is a name or a tuple
/// of names.
pub fn targets(e: &Expr) -> Option<Vec<String>> {
    let ExprKind::Comprehension { generators, .. } = &e.kind else {
        return None;
    };
    fn simple(t: &Expr) -> bool {
        match &t.kind {
            ExprKind::Name(_) => true,
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().all(simple),
            _ => false,
        }
    }
    generators.iter().all(|g| simple(&g.target)).then(|| {
        generators
            .iter()
            .flat_map(|g| g.target.target_names())
            .collect()
    })
}
