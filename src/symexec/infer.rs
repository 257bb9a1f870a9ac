//! Types of parameters without annotations, inferred from how the function uses them
//! (`n % 2` says int, `s.lower()` says str, `lst.append(x)` or `len(lst)` a list), from a
//! default value, from the annotated parameter of a function it is passed to, and, when
//! nothing else tells, from the parameter's name (`s`, `text` are strings, `nums`, `items`
//! lists); `int` otherwise. Each inference carries its reason, shown with the tree; an
//! `ARG:TYPE` overrides it.

use crate::python::ir::{
    BinOp, CmpOp, Constant, Expr, ExprKind, Function, Stmt, StmtKind, UnaryOp,
};
use crate::symbolic::mapping::MapKind;
use crate::symbolic::{Sort, annotation_sort};

/// What the uses of one parameter say.
#[derive(Default)]
struct Evidence {
    str_: Option<String>,
    list: Option<String>,
    float: Option<String>,
    int: Option<String>,
    /// Loop variables over the parameter (`for c in p`).
    items: Vec<String>,
    /// The sort of the annotated parameter it is passed to.
    passed: Option<(Sort, String)>,
    /// Names the function assigns a str literal (compared with them, a value is a str).
    str_names: Vec<String>,
    /// Its items are used as strings (`p[i] == " "`, `for c in p: c.lower()`).
    items_str: Option<String>,
    /// An item of it is assigned or deleted (`p[i] = v`): a list, as str cannot be.
    stored: Option<String>,
}

const STR_METHODS: &[&str] = &[
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "splitlines",
    "partition",
    "rpartition",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "replace",
    "isdigit",
    "isalpha",
    "isalnum",
    "isupper",
    "islower",
    "isspace",
    "title",
    "capitalize",
    "swapcase",
    "join",
    "format",
];
const LIST_METHODS: &[&str] = &["append", "extend", "pop", "insert", "sort", "remove"];
const STR_NAMES: &[&str] = &[
    "s", "text", "word", "sentence", "string", "name", "pw", "password", "phrase", "line", "char",
    "ch", "c", "letter", "email", "digits", "msg", "message",
];
const LIST_NAMES: &[&str] = &[
    "lst", "arr", "items", "nums", "numbers", "values", "seq", "xs", "scores", "data",
];

/// The reason given when nothing tells a parameter's type (it is then `int`).
pub const DEFAULT_GUESS: &str = "nothing else tells (the default guess)";

/// The sort of each unannotated parameter of `f` with the reason, in parameter order.
pub fn infer<'f>(
    f: &Function,
    functions: &[&'f Function],
    unannotated: &[String],
) -> Vec<(String, Sort, String)> {
    unannotated
        .iter()
        .map(|p| {
            let (sort, why) = infer_one(f, functions, p);
            (p.clone(), sort, why)
        })
        .collect()
}

fn infer_one(f: &Function, functions: &[&Function], p: &str) -> (Sort, String) {
    if let Some(d) = f.param(p).and_then(|x| x.default.as_ref()) {
        let from_default = match &d.kind {
            ExprKind::Constant(Constant::Int(_)) => Some(Sort::Int),
            ExprKind::Constant(Constant::Float(_)) => Some(Sort::Real),
            ExprKind::Constant(Constant::Bool(_)) => Some(Sort::Bool),
            ExprKind::Constant(Constant::Str(_)) => Some(Sort::Str),
            _ => None,
        };
        if let Some(sort) = from_default {
            return (sort, format!("its default value {d}"));
        }
    }
    let mut stmts: Vec<&Stmt> = Vec::new();
    for s in &f.body {
        s.walk(&mut |s: &Stmt| stmts.push(s));
    }
    let str_names = str_literal_names(&stmts);
    let mut ev = Evidence {
        str_names: str_names.clone(),
        ..Evidence::default()
    };
    for s in &stmts {
        // `c = p[i]`: c is an item of p, as a loop variable over p is.
        if let crate::python::ir::StmtKind::Assign { targets, value } = &s.kind
            && let [target] = targets.as_slice()
            && let Some(t) = target.as_name()
            && let ExprKind::Subscript { value: base, index } = &value.kind
            && is(base, p)
            && !matches!(index.kind, ExprKind::Slice { .. })
        {
            ev.items.push(t.to_string());
        }
        if let crate::python::ir::StmtKind::For { target, iter, .. } = &s.kind
            && iter.as_name() == Some(p)
            && let Some(t) = target.as_name()
        {
            ev.items.push(t.to_string());
            ev.list.get_or_insert_with(|| format!("`for {t} in {p}`"));
        }
        if ev.stored.is_none()
            && let Some(store) = item_store(s, p)
        {
            ev.stored = Some(format!("`{store}`"));
        }
        for e in s.exprs() {
            e.walk(&mut |e: &Expr| {
                // `… for c in p`: c is an item of p, as for a `for` loop.
                if let ExprKind::Comprehension { generators, .. } = &e.kind {
                    for g in generators {
                        if is(&g.iter, p)
                            && let Some(t) = g.target.as_name()
                        {
                            ev.items.push(t.to_string());
                        }
                    }
                }
                uses(e, p, functions, &mut ev)
            });
        }
    }
    // Items used as strings: a parameter iterated character by character is a str.
    for item in ev.items.clone() {
        let mut item_ev = Evidence {
            str_names: str_names.clone(),
            ..Evidence::default()
        };
        for s in &stmts {
            for e in s.exprs() {
                e.walk(&mut |e: &Expr| uses(e, &item, functions, &mut item_ev));
            }
        }
        if let Some(why) = item_ev.str_ {
            ev.items_str
                .get_or_insert(format!("its items are strings ({why})"));
        }
    }
    if let Some(why) = ev.str_ {
        return (Sort::Str, why);
    }
    if let Some(store) = ev.stored {
        return match ev.items_str {
            Some(items) => (
                Sort::list(Sort::Str),
                format!("{store} stores an item; {items}"),
            ),
            None => (Sort::list(Sort::Int), format!("{store} stores an item")),
        };
    }
    if let Some(why) = ev.items_str {
        return (Sort::Str, why);
    }
    if let Some((sort, why)) = ev.passed {
        return (sort, why);
    }
    if let Some(why) = ev.list {
        return (Sort::list(Sort::Int), why);
    }
    if let Some(why) = ev.float {
        return (Sort::Real, why);
    }
    if let Some(why) = ev.int {
        return (Sort::Int, why);
    }
    if STR_NAMES.contains(&p) {
        return (Sort::Str, "its name".into());
    }
    if LIST_NAMES.contains(&p) {
        return (Sort::list(Sort::Int), "its name".into());
    }
    (Sort::Int, DEFAULT_GUESS.into())
}

/// Methods only a dict has among the types inference knows (`pop` and `update` are a
/// list's or a set's too).
const DICT_METHODS: &[&str] = &["items", "keys", "values", "get", "setdefault"];

/// A parameter `p` used as a dict (`p.items()`, `p.get(k)`, `p["key"]`, …) and as nothing
/// else inference knows (no str or list method, no subscript by a number or slice):
/// `dict[str, V]`, `V` the sort of a literal
/// default of `p.get(k, default)` or `p.setdefault(k, default)`, else `int`; with the use
/// that tells.
pub fn infer_mapping(f: &Function, p: &str) -> Option<(MapKind, Sort, Sort, String)> {
    let mut why: Option<String> = None;
    let mut other = false;
    let mut value: Option<Sort> = None;
    let mut visit = |e: &Expr| {
        if let Some((target, attr, args)) = e.as_method_call()
            && is(target, p)
        {
            if DICT_METHODS.contains(&attr) {
                why.get_or_insert_with(|| format!("`{e}`"));
                if matches!(attr, "get" | "setdefault")
                    && let [_, default] = args
                    && let Some(sort) = literal_sort(default)
                {
                    value.get_or_insert(sort);
                }
            } else if STR_METHODS.contains(&attr) || LIST_METHODS.contains(&attr) {
                other = true;
            }
        }
        if let ExprKind::Subscript { value: base, index } = &e.kind
            && is(base, p)
        {
            match &index.kind {
                ExprKind::Constant(Constant::Str(_)) => {
                    why.get_or_insert_with(|| format!("`{e}`"));
                }
                // `p[0]`, `p[i + 1]`, `p[a:b]`: a sequence.
                ExprKind::Constant(_) | ExprKind::BinOp { .. } | ExprKind::Slice { .. } => {
                    other = true
                }
                _ => {}
            }
        }
    };
    for s in &f.body {
        s.walk(&mut |s: &Stmt| {
            for e in s.exprs() {
                e.walk(&mut visit);
            }
        });
    }
    let why = why.filter(|_| !other)?;
    Some((MapKind::Dict, Sort::Str, value.unwrap_or(Sort::Int), why))
}

/// The sort of a literal number, bool or str.
fn literal_sort(e: &Expr) -> Option<Sort> {
    match &e.kind {
        ExprKind::Constant(Constant::Int(_)) => Some(Sort::Int),
        ExprKind::Constant(Constant::Float(_)) => Some(Sort::Real),
        ExprKind::Constant(Constant::Bool(_)) => Some(Sort::Bool),
        ExprKind::Constant(Constant::Str(_)) => Some(Sort::Str),
        _ => None,
    }
}

/// The target of statement `s` that stores into or deletes an item of `p` (`p[i] = v`,
/// `p[i] += 1`, `del p[i]`), if any.
fn item_store<'s>(s: &'s Stmt, p: &str) -> Option<&'s Expr> {
    let targets: Vec<&Expr> = match &s.kind {
        StmtKind::Assign { targets, .. } => targets.iter().collect(),
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => vec![target],
        StmtKind::Delete(targets) => targets.iter().collect(),
        _ => return None,
    };
    targets
        .into_iter()
        .find(|t| matches!(&t.kind, ExprKind::Subscript { value, .. } if is(value, p)))
}

/// The names some statement assigns a str literal (`sep = "-"`), and no other value.
fn str_literal_names(stmts: &[&Stmt]) -> Vec<String> {
    let mut str_names: Vec<String> = Vec::new();
    let mut other: Vec<String> = Vec::new();
    for s in stmts {
        let crate::python::ir::StmtKind::Assign { targets, value } = &s.kind else {
            continue;
        };
        for t in targets {
            if let Some(n) = t.as_name() {
                if matches!(value.kind, ExprKind::Constant(Constant::Str(_))) {
                    str_names.push(n.to_string());
                } else {
                    other.push(n.to_string());
                }
            }
        }
    }
    str_names.retain(|n| !other.contains(n));
    str_names
}

fn is(e: &Expr, p: &str) -> bool {
    e.as_name() == Some(p)
}

fn uses(e: &Expr, p: &str, functions: &[&Function], ev: &mut Evidence) {
    let shown = || e.to_string();
    match &e.kind {
        ExprKind::Call { func, args, .. } => {
            if let ExprKind::Attribute { value, attr } = &func.kind {
                if is(value, p) && STR_METHODS.contains(&attr.as_str()) {
                    ev.str_.get_or_insert_with(|| format!("`{}`", shown()));
                }
                // `p[i].lower()`: p's items are strings, so p is a str.
                if let ExprKind::Subscript { value: base, index } = &value.kind
                    && is(base, p)
                    && !matches!(index.kind, ExprKind::Slice { .. })
                    && attr != "join"
                    && STR_METHODS.contains(&attr.as_str())
                {
                    ev.items_str
                        .get_or_insert_with(|| format!("its items are strings (`{}`)", shown()));
                }
                if is(value, p) && LIST_METHODS.contains(&attr.as_str()) {
                    ev.list.get_or_insert_with(|| format!("`{}`", shown()));
                }
                // `sep.join(p)`: p holds strings, a str or a list of them; a str is what
                // the tree can model.
                if attr == "join" && args.first().is_some_and(|a| is(a, p)) {
                    ev.str_.get_or_insert_with(|| format!("`{}`", shown()));
                }
            }
            if let Some(name) = func.as_name() {
                let arg0 = args.first().is_some_and(|a| is(a, p));
                match name {
                    "len" | "sorted" | "sum" | "max" | "min" | "reversed" | "enumerate" | "set"
                    | "list" | "any" | "all"
                        if arg0 && args.len() == 1 =>
                    {
                        ev.list.get_or_insert_with(|| format!("`{}`", shown()));
                    }
                    "range" | "abs" | "chr" | "bin" | "hex" if args.iter().any(|a| is(a, p)) => {
                        ev.int.get_or_insert_with(|| format!("`{}`", shown()));
                    }
                    "ord" | "int" if arg0 => {
                        ev.str_.get_or_insert_with(|| format!("`{}`", shown()));
                    }
                    _ => {}
                }
                if let Some(g) = functions.iter().find(|g| g.name == name) {
                    for (a, param) in args.iter().zip(&g.params) {
                        if is(a, p)
                            && let Some(ann) = &param.annotation
                            && let Ok(sort) = annotation_sort(ann)
                        {
                            ev.passed.get_or_insert_with(|| {
                                (sort, format!("it is passed to {name}() as {}", param.name))
                            });
                        }
                    }
                }
            }
        }
        ExprKind::BinOp { op, left, right } => {
            let (this, other) = if is(left, p) {
                (left, right)
            } else if is(right, p) {
                (right, left)
            } else {
                return;
            };
            let _ = this;
            match &other.kind {
                ExprKind::Constant(Constant::Str(_)) if *op == BinOp::Add => {
                    ev.str_.get_or_insert_with(|| format!("`{}`", shown()));
                }
                ExprKind::Constant(Constant::Float(_)) => {
                    ev.float.get_or_insert_with(|| format!("`{}`", shown()));
                }
                ExprKind::List(_) if *op == BinOp::Add => {
                    ev.list.get_or_insert_with(|| format!("`{}`", shown()));
                }
                _ if matches!(
                    op,
                    BinOp::Mod
                        | BinOp::FloorDiv
                        | BinOp::BitAnd
                        | BinOp::BitOr
                        | BinOp::BitXor
                        | BinOp::LShift
                        | BinOp::RShift
                        | BinOp::Sub
                ) =>
                {
                    ev.int.get_or_insert_with(|| format!("`{}`", shown()));
                }
                ExprKind::Constant(Constant::Int(_)) => {
                    ev.int.get_or_insert_with(|| format!("`{}`", shown()));
                }
                _ => {}
            }
        }
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            let operands: Vec<&Expr> = std::iter::once(left.as_ref())
                .chain(comparators.iter())
                .collect();
            // `p in {'a', 'b'}`: p is of the kind of the display's literals.
            for (i, op) in ops.iter().enumerate() {
                if matches!(op, CmpOp::In | CmpOp::NotIn)
                    && is(operands[i], p)
                    && let Some(kind) = literal_display_kind(operands[i + 1])
                {
                    let why = format!("`{}`", shown());
                    match kind {
                        Sort::Str => ev.str_.get_or_insert(why),
                        Sort::Real => ev.float.get_or_insert(why),
                        _ => ev.int.get_or_insert(why),
                    };
                }
            }
            let str_like = |o: &Expr| {
                matches!(o.kind, ExprKind::Constant(Constant::Str(_)))
                    || o.as_name()
                        .is_some_and(|n| ev.str_names.iter().any(|s| s == n))
            };
            // `p[i] == "-"`: p's items are strings, so p is a str.
            let item_of_p = |o: &&Expr| {
                matches!(&o.kind, ExprKind::Subscript { value, index }
                    if is(value, p) && !matches!(index.kind, ExprKind::Slice { .. }))
            };
            if operands.iter().any(item_of_p) && operands.iter().any(|o| str_like(o)) {
                ev.items_str
                    .get_or_insert_with(|| format!("its items are strings (`{}`)", shown()));
            }
            if !operands.iter().any(|o| is(o, p)) {
                return;
            }
            if operands
                .iter()
                .any(|o| o.as_name().is_some_and(|n| n != p) && str_like(o))
            {
                ev.str_.get_or_insert_with(|| format!("`{}`", shown()));
            }
            for o in &operands {
                match &o.kind {
                    ExprKind::Constant(Constant::Str(_)) => {
                        ev.str_.get_or_insert_with(|| format!("`{}`", shown()));
                    }
                    ExprKind::Constant(Constant::Float(_)) => {
                        ev.float.get_or_insert_with(|| format!("`{}`", shown()));
                    }
                    ExprKind::Constant(Constant::Int(_)) => {
                        ev.int.get_or_insert_with(|| format!("`{}`", shown()));
                    }
                    _ => {}
                }
            }
        }
        ExprKind::Subscript { value, .. } if is(value, p) => {
            ev.list.get_or_insert_with(|| format!("`{}`", shown()));
        }
        ExprKind::UnaryOp { op, operand } if is(operand, p) && *op != UnaryOp::Not => {
            ev.int.get_or_insert_with(|| format!("`{}`", shown()));
        }
        _ => {}
    }
}

/// The kind of a non-empty list, tuple or set display whose items are all literals of one
/// kind (str, float or int).
fn literal_display_kind(e: &Expr) -> Option<Sort> {
    let (ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items)) = &e.kind else {
        return None;
    };
    let kind = |i: &Expr| match i.kind {
        ExprKind::Constant(Constant::Str(_)) => Some(Sort::Str),
        ExprKind::Constant(Constant::Float(_)) => Some(Sort::Real),
        ExprKind::Constant(Constant::Int(_)) => Some(Sort::Int),
        _ => None,
    };
    let first = kind(items.first()?)?;
    items
        .iter()
        .all(|i| kind(i).as_ref() == Some(&first))
        .then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn inferred(src: &str) -> Vec<String> {
        let module = lower_module(src).unwrap();
        let functions: Vec<&Function> = module.functions().collect();
        let f = functions[functions.len() - 1];
        let names: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
        infer(f, &functions, &names)
            .into_iter()
            .map(|(n, s, why)| format!("{n}: {s} ({why})"))
            .collect()
    }

    #[test]
    fn an_item_store_makes_a_list_of_the_items_kind() {
        assert_eq!(
            inferred(
                "def f(chunks, i):\n    if chunks[i + 1] == ' ':\n        chunks[i + 1] = '  '\n    return chunks\n"
            ),
            [
                "chunks: list[str] (`chunks[i + 1]` stores an item; its items are strings (`chunks[i + 1] == ' '`))",
                "i: int (`i + 1`)"
            ]
        );
        assert_eq!(
            inferred("def f(counts, k):\n    counts[k] += 1\n"),
            [
                "counts: list[int] (`counts[k]` stores an item)",
                "k: int (nothing else tells (the default guess))"
            ]
        );
    }

    #[test]
    fn items_compared_with_strings_make_a_str() {
        assert_eq!(
            inferred(
                "def f(d):\n    sep = '-'\n    if len(d) > 4 and d[4] == sep:\n        return 1\n    return 0\n"
            ),
            ["d: str (its items are strings (`d[4] == sep`))"]
        );
        assert_eq!(
            inferred(
                "def f(fmt):\n    i = 0\n    while i < len(fmt):\n        ch = fmt[i]\n        if ch == '%':\n            return i\n        i += 1\n    return -1\n"
            ),
            ["fmt: str (its items are strings (`ch == '%'`))"]
        );
        assert_eq!(
            inferred(
                "def f(xs):\n    if len(xs) > 0 and xs[0] == 3:\n        return 1\n    return 0\n"
            ),
            ["xs: list[int] (`len(xs)`)"]
        );
    }

    #[test]
    fn string_methods_of_items_make_a_str() {
        assert_eq!(
            inferred(
                "def f(w):\n    if len(w) == 0:\n        return False\n    return w[0].lower() in 'aeiou'\n"
            ),
            ["w: str (its items are strings (`w[0].lower()`))"]
        );
        assert_eq!(
            inferred("def f(pw):\n    return len(pw) >= 8 and any(c.isdigit() for c in pw)\n"),
            ["pw: str (its items are strings (`c.isdigit()`))"]
        );
        assert_eq!(
            inferred("def f(v):\n    return v.rpartition('.')[2]\n"),
            ["v: str (`v.rpartition('.')`)"]
        );
        // Items of a list of ints stay ints.
        assert_eq!(
            inferred("def f(xs):\n    return len([x for x in xs if x > 0])\n"),
            ["xs: list[int] (its name)"]
        );
    }

    #[test]
    fn membership_in_a_display_of_literals_gives_their_kind() {
        assert_eq!(
            inferred(
                "def f(item):\n    if item in {'__name__', '__qualname__'}:\n        return 1\n    return 0\n"
            ),
            ["item: str (`item in {'__name__', '__qualname__'}`)"]
        );
        assert_eq!(
            inferred("def f(k):\n    return k not in (1.5, 2.5)\n"),
            ["k: float (`k not in (1.5, 2.5)`)"]
        );
        // Mixed literals say nothing: the default guess.
        assert_eq!(
            inferred("def f(k):\n    return k in [1, 'a']\n"),
            [format!("k: int ({DEFAULT_GUESS})")]
        );
    }

    #[test]
    fn types_come_from_uses_defaults_callees_and_names() {
        assert_eq!(
            inferred("def f(n):\n    return n % 2 == 0\n"),
            ["n: int (`n % 2`)"]
        );
        assert_eq!(
            inferred("def f(s, k=3, x=0.5):\n    return s.lower()\n"),
            [
                "s: str (`s.lower()`)",
                "k: int (its default value 3)",
                "x: float (its default value 0.5)"
            ]
        );
        assert_eq!(
            inferred("def f(lst):\n    lst.append(1)\n    return len(lst)\n"),
            ["lst: list[int] (`lst.append(1)`)"]
        );
        assert_eq!(
            inferred(
                "def f(s):\n    n = 0\n    for c in s:\n        if c in 'aeiou':\n            n += 1\n    return n\n"
            ),
            ["s: str (its items are strings (`c in 'aeiou'`))"]
        );
        assert_eq!(
            inferred("def g(x: float) -> float:\n    return x\n\ndef f(v):\n    return g(v)\n"),
            ["v: float (it is passed to g() as x)"]
        );
        assert_eq!(
            inferred("def f(text, q):\n    return q\n"),
            [
                "text: str (its name)",
                "q: int (nothing else tells (the default guess))"
            ]
        );
    }
}
