//! Printing terms as Python: `x > 0 and not (y == 0)`, `x // 2`, `s[-1]`, `len(s) > 2`,
//! `s[1:5:2]`, `0 < x < 10`.
//!
//! Parentheses follow Python's precedence (as `ast.unparse`), with one deliberate extra: the
//! operand of `not` is parenthesized unless it is atomic-ish (`not (y == 0)` reads better than
//! the equivalent `not y == 0`). Conjunctions of comparisons that share an operand print as a
//! chain (`0 < x and x < 10` as `0 < x < 10`, the same condition since terms have no side
//! effects). The text re-parses to a term with the same meaning.

use std::fmt::{self, Display, Formatter};

use super::sort::SeqKind;
use super::strfn::StrFn;
use super::term::{ArithOp, Literal, Term, TermKind};
use crate::python::value::{float_repr, str_repr};

/// Binding strength, weakest first (the table of `python::ir::display`).
mod prec {
    pub const TEST: u8 = 4;
    pub const OR: u8 = 5;
    pub const AND: u8 = 6;
    pub const NOT: u8 = 7;
    pub const CMP: u8 = 8;
    pub const BOR: u8 = 9;
    pub const ARITH: u8 = 13;
    pub const TERM: u8 = 14;
    pub const FACTOR: u8 = 15;
    pub const POWER: u8 = 16;
    pub const AWAIT: u8 = 17;
    pub const ATOM: u8 = 18;
}

impl Display for Term {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&at(self, prec::TEST))
    }
}

impl Display for Literal {
    /// Python's `repr`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Bool(true) => f.write_str("True"),
            Literal::Bool(false) => f.write_str("False"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Real(x) => f.write_str(&float_repr(*x)),
            Literal::Str(s) => f.write_str(&str_repr(s)),
        }
    }
}

fn precedence(t: &Term) -> u8 {
    match t.kind() {
        TermKind::Literal(Literal::Int(i)) if i.sign() == num_bigint::Sign::Minus => prec::FACTOR,
        TermKind::Literal(Literal::Real(x)) if x.is_sign_negative() => prec::FACTOR,
        TermKind::Neg(_) | TermKind::Invert(_) => prec::FACTOR,
        TermKind::Not(inner) if matches!(inner.kind(), TermKind::Contains(..)) => prec::CMP,
        TermKind::Not(_) => prec::NOT,
        TermKind::Arith(op, ..) => arith_precedence(*op),
        TermKind::Concat(_) => prec::ARITH,
        TermKind::Repeat(..) | TermKind::StrFn(StrFn::Repeat, _) => prec::TERM,
        TermKind::Pow(..) => prec::POWER,
        TermKind::Compare(..)
        | TermKind::Contains(..)
        | TermKind::StrFn(StrFn::SplitAtLeast(..), _) => prec::CMP,
        TermKind::And(_) => prec::AND,
        TermKind::Or(_) => prec::OR,
        TermKind::Ite(..) => prec::TEST,
        _ => prec::ATOM,
    }
}

fn arith_precedence(op: ArithOp) -> u8 {
    match op {
        ArithOp::Add | ArithOp::Sub => prec::ARITH,
        _ => prec::TERM,
    }
}

/// `t` printed where an expression of precedence `ctx` or stronger needs no parentheses.
fn at(t: &Term, ctx: u8) -> String {
    let inner = bare(t);
    if precedence(t) < ctx {
        format!("({inner})")
    } else {
        inner
    }
}

fn join(parts: &[Term], ctx: u8, sep: &str) -> String {
    parts
        .iter()
        .map(|p| at(p, ctx))
        .collect::<Vec<_>>()
        .join(sep)
}

fn call(name: &str, args: &[&Term]) -> String {
    let args: Vec<String> = args.iter().map(|a| at(a, prec::TEST)).collect();
    format!("{name}({})", args.join(", "))
}

fn bare(t: &Term) -> String {
    match t.kind() {
        TermKind::Literal(l) => l.to_string(),
        TermKind::Var(v) => v.display_name(),
        TermKind::Neg(a) => format!("-{}", at(a, prec::FACTOR)),
        TermKind::Invert(a) => format!("~{}", at(a, prec::FACTOR)),
        TermKind::Not(a) => match a.kind() {
            TermKind::Contains(needle, hay) => {
                format!("{} not in {}", at(needle, prec::BOR), at(hay, prec::BOR))
            }
            _ => format!("not {}", at(a, prec::BOR)),
        },
        TermKind::Arith(op, a, b) => {
            let p = arith_precedence(*op);
            format!("{} {} {}", at(a, p), op.symbol(), at(b, p + 1))
        }
        TermKind::Concat(parts) => {
            let mut s = at(&parts[0], prec::ARITH);
            for p in &parts[1..] {
                s.push_str(" + ");
                s.push_str(&at(p, prec::ARITH + 1));
            }
            s
        }
        TermKind::Repeat(a, n) => format!("{} * {n}", at(a, prec::TERM)),
        TermKind::Pow(a, n) => {
            let exp = if *n < 0 {
                format!("{n}")
            } else {
                n.to_string()
            };
            format!("{} ** {exp}", at(a, prec::AWAIT))
        }
        TermKind::Compare(op, a, b) => {
            format!("{} {} {}", at(a, prec::BOR), op.symbol(), at(b, prec::BOR))
        }
        TermKind::Contains(needle, hay) => {
            format!("{} in {}", at(needle, prec::BOR), at(hay, prec::BOR))
        }
        TermKind::And(parts) => conjunction(parts),
        TermKind::Or(parts) => join(parts, prec::AND, " or "),
        TermKind::Ite(c, a, b) => format!(
            "{} if {} else {}",
            at(a, prec::OR),
            at(c, prec::OR),
            at(b, prec::TEST)
        ),
        TermKind::Abs(a) => call("abs", &[a]),
        TermKind::Min(xs) => call("min", &xs.iter().collect::<Vec<_>>()),
        TermKind::Max(xs) => call("max", &xs.iter().collect::<Vec<_>>()),
        TermKind::ToReal(a) => call("float", &[a]),
        TermKind::ToInt(a) => call("int", &[a]),
        TermKind::Len(a) => call("len", &[a]),
        TermKind::Index(s, i) => format!("{}[{}]", at(s, prec::ATOM), at(i, prec::TEST)),
        TermKind::Slice {
            seq,
            lower,
            upper,
            step,
        } => {
            let bound =
                |b: &Option<Term>| b.as_ref().map(|t| at(t, prec::TEST)).unwrap_or_default();
            let mut s = format!("{}[{}:{}", at(seq, prec::ATOM), bound(lower), bound(upper));
            if let Some(step) = step {
                s.push_str(&format!(":{step}"));
            }
            s.push(']');
            s
        }
        TermKind::StartsWith(s, p) => {
            format!("{}.startswith({})", at(s, prec::ATOM), at(p, prec::TEST))
        }
        TermKind::EndsWith(s, p) => {
            format!("{}.endswith({})", at(s, prec::ATOM), at(p, prec::TEST))
        }
        TermKind::Find(s, p) => {
            format!("{}.find({})", at(s, prec::ATOM), at(p, prec::TEST))
        }
        TermKind::CharTest(test, s) => format!("{}.{}()", at(s, prec::ATOM), test.method()),
        TermKind::CaseMap(map, s) => format!("{}.{}()", at(s, prec::ATOM), map.method()),
        TermKind::StrFn(f, args) => str_fn(f, args),
        TermKind::Items(kind, items) => {
            let body = join(items, prec::TEST, ", ");
            match kind {
                SeqKind::List => format!("[{body}]"),
                SeqKind::Tuple if items.len() == 1 => format!("({body},)"),
                SeqKind::Tuple => format!("({body})"),
            }
        }
        TermKind::Quantified {
            forall,
            var,
            lo,
            hi,
            body,
        } => {
            let range = if lo.int_literal().is_some_and(|l| l == 0.into()) {
                call("range", &[hi])
            } else {
                call("range", &[lo, hi])
            };
            format!(
                "{}({} for {} in {range})",
                if *forall { "all" } else { "any" },
                at(body, prec::OR),
                var.display_name()
            )
        }
    }
}

/// `a and b and …`, with runs of comparisons that share operands printed as chains.
fn conjunction(parts: &[Term]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let TermKind::Compare(op, a, b) = parts[i].kind() else {
            out.push(at(&parts[i], prec::NOT));
            i += 1;
            continue;
        };
        let mut chain = format!("{} {} {}", at(a, prec::BOR), op.symbol(), at(b, prec::BOR));
        let mut last = b;
        i += 1;
        while let Some(TermKind::Compare(op, a, b)) = parts.get(i).map(Term::kind) {
            if a != last {
                break;
            }
            chain.push_str(&format!(" {} {}", op.symbol(), at(b, prec::BOR)));
            last = b;
            i += 1;
        }
        out.push(chain);
    }
    out.join(" and ")
}

#[cfg(test)]
mod tests {
    use super::super::sort::Sort;
    use super::super::term::{CompareOp, Var};
    use super::*;

    fn var(name: &str, sort: Sort) -> Term {
        Term::var(Var::input(name), sort).unwrap()
    }

    #[test]
    fn prints_python_with_minimal_parentheses() {
        let (x, y) = (var("x", Sort::Int), var("y", Sort::Int));
        let s = var("s", Sort::Str);
        let gt = Term::compare(CompareOp::Gt, x.clone(), Term::int(0)).unwrap();
        let eq = Term::compare(CompareOp::Eq, y.clone(), Term::int(0)).unwrap();
        let t = Term::and(vec![gt, Term::not(eq).unwrap()]).unwrap();
        assert_eq!(t.to_string(), "x > 0 and not (y == 0)");
        let fd = Term::arith(ArithOp::FloorDiv, x.clone(), Term::int(2)).unwrap();
        assert_eq!(fd.to_string(), "x // 2");
        let sum = Term::arith(ArithOp::Add, x.clone(), y.clone()).unwrap();
        let prod = Term::arith(ArithOp::Mul, sum.clone(), Term::int(3)).unwrap();
        assert_eq!(prod.to_string(), "(x + y) * 3");
        let diff = Term::arith(ArithOp::Sub, x.clone(), sum).unwrap();
        assert_eq!(diff.to_string(), "x - (x + y)");
        let neg_pow = Term::pow(Term::neg(x.clone()).unwrap(), 2).unwrap();
        assert_eq!(neg_pow.to_string(), "(-x) ** 2");
        let last = Term::index(s.clone(), Term::int(-1)).unwrap();
        assert_eq!(last.to_string(), "s[-1]");
        let len =
            Term::compare(CompareOp::Gt, Term::len(s.clone()).unwrap(), Term::int(2)).unwrap();
        assert_eq!(len.to_string(), "len(s) > 2");
        let sl = Term::slice(s.clone(), Some(Term::int(1)), Some(Term::int(5)), Some(2)).unwrap();
        assert_eq!(sl.to_string(), "s[1:5:2]");
        let rev = Term::slice(s.clone(), None, None, Some(-1)).unwrap();
        assert_eq!(rev.to_string(), "s[::-1]");
        let chain = Term::and(vec![
            Term::compare(CompareOp::Lt, Term::int(0), x.clone()).unwrap(),
            Term::compare(CompareOp::Lt, x.clone(), Term::int(10)).unwrap(),
        ])
        .unwrap();
        assert_eq!(chain.to_string(), "0 < x < 10");
        let not_in = Term::not(Term::contains(Term::str("a").unwrap(), s).unwrap()).unwrap();
        assert_eq!(not_in.to_string(), "'a' not in s");
        let ite = Term::ite(Term::bool(false).clone(), x.clone(), y.clone());
        assert_eq!(ite.unwrap().to_string(), "y");
        let one = Term::items(SeqKind::Tuple, vec![x]).unwrap();
        assert_eq!(one.to_string(), "(x,)");
    }
}

/// A method or conversion of [`crate::symbolic::strfn`] as the Python that computes it
/// (`int_accepts(s)`, which Python lacks, is "`int(s)` does not raise").
fn str_fn(f: &StrFn, args: &[Term]) -> String {
    let refs: Vec<&Term> = args.iter().collect();
    let method = |name: &str, rest: Vec<String>| {
        let receiver = args.first().map(|s| at(s, prec::ATOM)).unwrap_or_default();
        format!("{receiver}.{name}({})", rest.join(", "))
    };
    let arg = |i: usize| args.get(i).map(|a| at(a, prec::TEST)).unwrap_or_default();
    match f {
        StrFn::Strip(side, chars) => {
            method(side.method(), chars.iter().map(|c| str_repr(c)).collect())
        }
        StrFn::Count => method("count", vec![arg(1)]),
        StrFn::RFind => method("rfind", vec![arg(1)]),
        StrFn::Partition(right, i) => {
            let name = if *right { "rpartition" } else { "partition" };
            format!("{}[{i}]", method(name, vec![arg(1)]))
        }
        StrFn::Replace(old) => method("replace", vec![str_repr(old), arg(1)]),
        StrFn::FromInt => call("str", &refs),
        StrFn::ToInt => call("int", &refs),
        StrFn::IsInt => call("int_accepts", &refs),
        StrFn::Chr => call("chr", &refs),
        StrFn::Ord => call("ord", &refs),
        StrFn::SplitItem(sep, i) => {
            let sep = sep.iter().map(|c| str_repr(c)).collect();
            format!("{}[{i}]", method("split", sep))
        }
        StrFn::SplitRest(sep, k) => {
            let sep = match sep {
                Some(sep) => str_repr(sep),
                None => "None".to_string(),
            };
            format!("{}[{k}]", method("split", vec![sep, k.to_string()]))
        }
        StrFn::SplitAtLeast(sep, k) => {
            let sep = sep.iter().map(|c| str_repr(c)).collect();
            format!("len({}) >= {k}", method("split", sep))
        }
        StrFn::Repeat => format!(
            "{} * {}",
            args.first().map(|s| at(s, prec::TERM)).unwrap_or_default(),
            args.get(1).map(|k| at(k, prec::FACTOR)).unwrap_or_default()
        ),
    }
}
