//! Lowering expressions and `match` patterns.

use num_bigint::BigInt;
use ruff_python_ast::{self as ast, ConversionFlag, InterpolatedStringElement};
use ruff_text_size::Ranged;

use super::Lowerer;
use crate::python::ir::{
    BinOp, BoolOp, CmpOp, ComprehensionKind, Constant, Conversion, Expr, ExprKind, FStringPart,
    Generator, Pattern, UnaryOp,
};

pub(super) fn binop(op: ast::Operator) -> BinOp {
    use ast::Operator as O;
    match op {
        O::Add => BinOp::Add,
        O::Sub => BinOp::Sub,
        O::Mult => BinOp::Mult,
        O::MatMult => BinOp::MatMult,
        O::Div => BinOp::Div,
        O::Mod => BinOp::Mod,
        O::Pow => BinOp::Pow,
        O::LShift => BinOp::LShift,
        O::RShift => BinOp::RShift,
        O::BitOr => BinOp::BitOr,
        O::BitXor => BinOp::BitXor,
        O::BitAnd => BinOp::BitAnd,
        O::FloorDiv => BinOp::FloorDiv,
    }
}

fn unaryop(op: ast::UnaryOp) -> UnaryOp {
    match op {
        ast::UnaryOp::Invert => UnaryOp::Invert,
        ast::UnaryOp::Not => UnaryOp::Not,
        ast::UnaryOp::UAdd => UnaryOp::UAdd,
        ast::UnaryOp::USub => UnaryOp::USub,
    }
}

fn cmpop(op: ast::CmpOp) -> CmpOp {
    use ast::CmpOp as C;
    match op {
        C::Eq => CmpOp::Eq,
        C::NotEq => CmpOp::NotEq,
        C::Lt => CmpOp::Lt,
        C::LtE => CmpOp::LtE,
        C::Gt => CmpOp::Gt,
        C::GtE => CmpOp::GtE,
        C::Is => CmpOp::Is,
        C::IsNot => CmpOp::IsNot,
        C::In => CmpOp::In,
        C::NotIn => CmpOp::NotIn,
    }
}

/// The exact value of an int literal's source text (`0x_ff`, `1_000`, `0o17`, `0b1`, huge).
fn int_literal(text: &str) -> Option<BigInt> {
    let digits: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let (digits, radix) = match digits.get(..2) {
        Some("0x") => (&digits[2..], 16),
        Some("0o") => (&digits[2..], 8),
        Some("0b") => (&digits[2..], 2),
        _ => (&digits[..], 10),
    };
    BigInt::parse_bytes(digits.as_bytes(), radix)
}

/// Appends literal text, merging it with a preceding literal.
fn push_literal(parts: &mut Vec<FStringPart>, text: &str) {
    if let Some(FStringPart::Literal(last)) = parts.last_mut() {
        last.push_str(text);
    } else if !text.is_empty() {
        parts.push(FStringPart::Literal(text.to_string()));
    }
}

impl Lowerer<'_> {
    pub(super) fn expr(&self, e: &ast::Expr) -> Expr {
        Expr {
            span: self.map.span(e.range()),
            kind: self.expr_kind(e),
        }
    }

    fn exprs(&self, es: &[ast::Expr]) -> Vec<Expr> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn boxed(&self, e: &ast::Expr) -> Box<Expr> {
        Box::new(self.expr(e))
    }

    fn unsupported(&self, construct: &'static str, e: &ast::Expr) -> ExprKind {
        ExprKind::Unsupported {
            construct,
            text: self.one_line(e.range()),
            operand: None,
        }
    }

    fn expr_kind(&self, e: &ast::Expr) -> ExprKind {
        use ast::Expr as E;
        match e {
            E::BoolOp(b) => ExprKind::BoolOp {
                op: if b.op == ast::BoolOp::And {
                    BoolOp::And
                } else {
                    BoolOp::Or
                },
                values: self.exprs(&b.values),
            },
            E::Named(n) => match &*n.target {
                E::Name(t) => ExprKind::NamedExpr {
                    target: t.id.to_string(),
                    value: self.boxed(&n.value),
                },
                _ => self.unsupported("assignment expression", e),
            },
            E::BinOp(b) => ExprKind::BinOp {
                op: binop(b.op),
                left: self.boxed(&b.left),
                right: self.boxed(&b.right),
            },
            E::UnaryOp(u) => ExprKind::UnaryOp {
                op: unaryop(u.op),
                operand: self.boxed(&u.operand),
            },
            E::Lambda(l) => ExprKind::Lambda {
                params: l
                    .parameters
                    .as_deref()
                    .map(|p| self.params(p))
                    .unwrap_or_default(),
                body: self.boxed(&l.body),
            },
            E::If(i) => ExprKind::IfExp {
                test: self.boxed(&i.test),
                body: self.boxed(&i.body),
                orelse: self.boxed(&i.orelse),
            },
            E::Dict(d) => ExprKind::Dict {
                keys: d
                    .items
                    .iter()
                    .map(|i| i.key.as_ref().map(|k| self.expr(k)))
                    .collect(),
                values: d.items.iter().map(|i| self.expr(&i.value)).collect(),
            },
            E::Set(s) => ExprKind::Set(self.exprs(&s.elts)),
            E::ListComp(c) => {
                self.comprehension(ComprehensionKind::List, &c.elt, None, &c.generators, e)
            }
            E::SetComp(c) => {
                self.comprehension(ComprehensionKind::Set, &c.elt, None, &c.generators, e)
            }
            E::DictComp(c) => match &c.key {
                Some(key) => self.comprehension(
                    ComprehensionKind::Dict,
                    key,
                    Some(&c.value),
                    &c.generators,
                    e,
                ),
                None => self.unsupported("dict comprehension", e),
            },
            E::Generator(c) => {
                self.comprehension(ComprehensionKind::Generator, &c.elt, None, &c.generators, e)
            }
            E::Await(_) => self.unsupported("await", e),
            E::Yield(y) => ExprKind::Unsupported {
                construct: "yield",
                text: self.one_line(e.range()),
                operand: y.value.as_deref().map(|v| self.boxed(v)),
            },
            E::YieldFrom(y) => ExprKind::Unsupported {
                construct: "yield from",
                text: self.one_line(e.range()),
                operand: Some(self.boxed(&y.value)),
            },
            E::Compare(c) => ExprKind::Compare {
                left: self.boxed(&c.left),
                ops: c.ops.iter().map(|o| cmpop(*o)).collect(),
                comparators: self.exprs(&c.comparators),
            },
            E::Call(c) => ExprKind::Call {
                func: self.boxed(&c.func),
                args: self.exprs(&c.arguments.args),
                keywords: c
                    .arguments
                    .keywords
                    .iter()
                    .map(|k| (k.arg.as_ref().map(|a| a.to_string()), self.expr(&k.value)))
                    .collect(),
            },
            E::FString(f) => ExprKind::FString(self.fstring(f)),
            E::TString(_) => self.unsupported("t-string", e),
            E::StringLiteral(s) => ExprKind::Constant(Constant::Str(s.value.to_str().to_string())),
            E::BytesLiteral(b) => ExprKind::Constant(Constant::Bytes(b.value.bytes().collect())),
            E::NumberLiteral(n) => self.number(n, e),
            E::BooleanLiteral(b) => ExprKind::Constant(Constant::Bool(b.value)),
            E::NoneLiteral(_) => ExprKind::Constant(Constant::None),
            E::EllipsisLiteral(_) => ExprKind::Constant(Constant::Ellipsis),
            E::Attribute(a) => ExprKind::Attribute {
                value: self.boxed(&a.value),
                attr: a.attr.to_string(),
            },
            E::Subscript(s) => ExprKind::Subscript {
                value: self.boxed(&s.value),
                index: self.boxed(&s.slice),
            },
            E::Starred(s) => ExprKind::Starred(self.boxed(&s.value)),
            E::Name(n) => ExprKind::Name(n.id.to_string()),
            E::List(l) => ExprKind::List(self.exprs(&l.elts)),
            E::Tuple(t) => ExprKind::Tuple(self.exprs(&t.elts)),
            E::Slice(s) => ExprKind::Slice {
                lower: s.lower.as_deref().map(|x| self.boxed(x)),
                upper: s.upper.as_deref().map(|x| self.boxed(x)),
                step: s.step.as_deref().map(|x| self.boxed(x)),
            },
            E::IpyEscapeCommand(_) => self.unsupported("IPython escape command", e),
        }
    }

    fn number(&self, n: &ast::ExprNumberLiteral, e: &ast::Expr) -> ExprKind {
        match &n.value {
            ast::Number::Int(_) => match int_literal(self.map.slice(n.range)) {
                Some(i) => ExprKind::Constant(Constant::Int(i)),
                None => self.unsupported("integer literal", e),
            },
            ast::Number::Float(x) => ExprKind::Constant(Constant::Float(*x)),
            ast::Number::Complex { .. } => self.unsupported("complex number", e),
        }
    }

    fn comprehension(
        &self,
        kind: ComprehensionKind,
        elt: &ast::Expr,
        value: Option<&ast::Expr>,
        generators: &[ast::Comprehension],
        e: &ast::Expr,
    ) -> ExprKind {
        if generators.iter().any(|g| g.is_async) {
            return self.unsupported("async comprehension", e);
        }
        ExprKind::Comprehension {
            kind,
            elt: self.boxed(elt),
            value: value.map(|v| self.boxed(v)),
            generators: generators
                .iter()
                .map(|g| Generator {
                    target: self.expr(&g.target),
                    iter: self.expr(&g.iter),
                    ifs: self.exprs(&g.ifs),
                })
                .collect(),
        }
    }

    /// The parts of an f-string, implicitly concatenated literals merged.
    fn fstring(&self, f: &ast::ExprFString) -> Vec<FStringPart> {
        let mut parts = Vec::new();
        for part in f.value.iter() {
            match part {
                ast::FStringPart::Literal(s) => push_literal(&mut parts, &s.value),
                ast::FStringPart::FString(fs) => self.fstring_elements(&fs.elements, &mut parts),
            }
        }
        parts
    }

    /// Replacement fields; `{x=}` becomes the literal `x=` then `{x!r}` (as in CPython).
    fn fstring_elements(
        &self,
        elements: &ast::InterpolatedStringElements,
        parts: &mut Vec<FStringPart>,
    ) {
        for element in elements.iter() {
            let field = match element {
                InterpolatedStringElement::Literal(l) => {
                    push_literal(parts, &l.value);
                    continue;
                }
                InterpolatedStringElement::Interpolation(i) => i,
            };
            if let Some(debug) = &field.debug_text {
                push_literal(parts, debug.as_str());
            }
            let format_spec = field.format_spec.as_ref().map(|spec| {
                let mut inner = Vec::new();
                self.fstring_elements(&spec.elements, &mut inner);
                inner
            });
            let conversion = match field.conversion {
                ConversionFlag::Str => Some(Conversion::Str),
                ConversionFlag::Repr => Some(Conversion::Repr),
                ConversionFlag::Ascii => Some(Conversion::Ascii),
                ConversionFlag::None if field.debug_text.is_some() && format_spec.is_none() => {
                    Some(Conversion::Repr)
                }
                ConversionFlag::None => None,
            };
            parts.push(FStringPart::Expr {
                expr: self.boxed(&field.expression),
                conversion,
                format_spec,
            });
        }
    }

    pub(super) fn pattern(&self, p: &ast::Pattern) -> Pattern {
        use ast::Pattern as P;
        let name = |n: &Option<ast::Identifier>| n.as_ref().map(|n| n.to_string());
        match p {
            P::MatchValue(v) => Pattern::Value(self.expr(&v.value)),
            P::MatchSingleton(s) => Pattern::Singleton(match s.value {
                ast::Singleton::None => Constant::None,
                ast::Singleton::True => Constant::Bool(true),
                ast::Singleton::False => Constant::Bool(false),
            }),
            P::MatchSequence(s) => {
                Pattern::Sequence(s.patterns.iter().map(|p| self.pattern(p)).collect())
            }
            P::MatchMapping(m) => Pattern::Mapping {
                keys: self.exprs(&m.keys),
                patterns: m.patterns.iter().map(|p| self.pattern(p)).collect(),
                rest: name(&m.rest),
            },
            P::MatchClass(c) => Pattern::Class {
                cls: self.expr(&c.cls),
                patterns: c
                    .arguments
                    .patterns
                    .iter()
                    .map(|p| self.pattern(p))
                    .collect(),
                keywords: c
                    .arguments
                    .keywords
                    .iter()
                    .map(|k| (k.attr.to_string(), self.pattern(&k.pattern)))
                    .collect(),
            },
            P::MatchStar(s) => Pattern::Star(name(&s.name)),
            P::MatchAs(a) => match (&a.pattern, name(&a.name)) {
                (Some(inner), Some(n)) => Pattern::As {
                    pattern: Box::new(self.pattern(inner)),
                    name: n,
                },
                (Some(inner), None) => self.pattern(inner),
                (None, Some(n)) => Pattern::Capture(n),
                (None, None) => Pattern::Wildcard,
            },
            P::MatchOr(o) => Pattern::Or(o.patterns.iter().map(|p| self.pattern(p)).collect()),
        }
    }
}
