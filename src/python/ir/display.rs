//! Printing the IR as Python: minimal parentheses by Python's precedence, `repr`-style literals.

use std::fmt::{self, Display, Formatter, Write};

use super::{
    BinOp, BoolOp, ComprehensionKind, Constant, Conversion, Expr, ExprKind, FStringPart, Function,
    Module, Param, ParamKind, Pattern, Stmt, StmtKind, UnaryOp,
};

/// Binding strength of an expression, weakest first (as CPython's `ast.unparse`).
mod prec {
    pub const NAMED: u8 = 1;
    pub const TUPLE: u8 = 2;
    pub const TEST: u8 = 4;
    pub const OR: u8 = 5;
    pub const AND: u8 = 6;
    pub const NOT: u8 = 7;
    pub const CMP: u8 = 8;
    pub const BOR: u8 = 9;
    pub const BXOR: u8 = 10;
    pub const BAND: u8 = 11;
    pub const SHIFT: u8 = 12;
    pub const ARITH: u8 = 13;
    pub const TERM: u8 = 14;
    pub const FACTOR: u8 = 15;
    pub const POWER: u8 = 16;
    pub const AWAIT: u8 = 17;
    pub const ATOM: u8 = 18;
}

const INDENT: &str = "    ";

impl Display for Expr {
    /// Valid Python that re-parses to the same tree (a standalone expression: tuples and
    /// `:=` are parenthesized).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&expr_at(self, prec::TEST))
    }
}

impl Display for Constant {
    /// Python's `repr` of the constant.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Constant::Int(i) => write!(f, "{i}"),
            Constant::Float(x) => f.write_str(&float_repr(*x)),
            Constant::Str(s) => f.write_str(&str_repr(s)),
            Constant::Bytes(b) => f.write_str(&bytes_repr(b)),
            Constant::Bool(true) => f.write_str("True"),
            Constant::Bool(false) => f.write_str("False"),
            Constant::None => f.write_str("None"),
            Constant::Ellipsis => f.write_str("..."),
        }
    }
}

impl Display for Pattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&pattern(self, false))
    }
}

impl Display for Stmt {
    /// The statement with its nested blocks, indented by four spaces.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        stmt(self, 0, &mut out);
        f.write_str(out.trim_end_matches('\n'))
    }
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        block(&self.body, 0, &mut out);
        f.write_str(&out)
    }
}

impl Expr {
    fn precedence(&self) -> u8 {
        match &self.kind {
            ExprKind::NamedExpr { .. } => prec::NAMED,
            ExprKind::Tuple(es) if !es.is_empty() => prec::TUPLE,
            ExprKind::Lambda { .. } | ExprKind::IfExp { .. } => prec::TEST,
            ExprKind::BoolOp { op: BoolOp::Or, .. } => prec::OR,
            ExprKind::BoolOp {
                op: BoolOp::And, ..
            } => prec::AND,
            ExprKind::UnaryOp {
                op: UnaryOp::Not, ..
            } => prec::NOT,
            ExprKind::UnaryOp { .. } => prec::FACTOR,
            ExprKind::Compare { .. } => prec::CMP,
            ExprKind::BinOp { op, .. } => binop_precedence(*op),
            ExprKind::Constant(Constant::Int(i)) if i.sign() == num_bigint::Sign::Minus => {
                prec::FACTOR
            }
            ExprKind::Constant(Constant::Float(x)) if x.is_sign_negative() => prec::FACTOR,
            _ => prec::ATOM,
        }
    }
}

fn binop_precedence(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => prec::BOR,
        BinOp::BitXor => prec::BXOR,
        BinOp::BitAnd => prec::BAND,
        BinOp::LShift | BinOp::RShift => prec::SHIFT,
        BinOp::Add | BinOp::Sub => prec::ARITH,
        BinOp::Mult | BinOp::MatMult | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => prec::TERM,
        BinOp::Pow => prec::POWER,
    }
}

/// `e` printed where an expression of precedence `ctx` or stronger needs no parentheses.
fn expr_at(e: &Expr, ctx: u8) -> String {
    let inner = bare(e);
    if e.precedence() < ctx {
        format!("({inner})")
    } else {
        inner
    }
}

/// `e` without surrounding parentheses.
fn bare(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Constant(c) => c.to_string(),
        ExprKind::BinOp { op, left, right } => binop(*op, left, right),
        ExprKind::UnaryOp { op, operand } => {
            let ctx = if *op == UnaryOp::Not {
                prec::NOT
            } else {
                prec::FACTOR
            };
            format!("{}{}", op.symbol(), expr_at(operand, ctx))
        }
        ExprKind::BoolOp { op, values } => {
            let ctx = if *op == BoolOp::Or {
                prec::AND
            } else {
                prec::NOT
            };
            join(
                values.iter().map(|v| expr_at(v, ctx)),
                &format!(" {} ", op.symbol()),
            )
        }
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            let mut s = expr_at(left, prec::BOR);
            for (op, c) in ops.iter().zip(comparators) {
                let _ = write!(s, " {} {}", op.symbol(), expr_at(c, prec::BOR));
            }
            s
        }
        ExprKind::IfExp { test, body, orelse } => format!(
            "{} if {} else {}",
            expr_at(body, prec::OR),
            expr_at(test, prec::OR),
            expr_at(orelse, prec::TEST)
        ),
        ExprKind::Call {
            func,
            args,
            keywords,
        } => call(func, args, keywords),
        ExprKind::Attribute { value, attr } => format!("{}.{attr}", attribute_value(value)),
        ExprKind::Subscript { value, index } => {
            format!("{}[{}]", expr_at(value, prec::ATOM), subscript_index(index))
        }
        ExprKind::Slice { lower, upper, step } => slice(lower, upper, step),
        ExprKind::Tuple(es) => tuple(es),
        ExprKind::List(es) => format!("[{}]", elements(es)),
        ExprKind::Set(es) if es.is_empty() => "{*()}".to_string(),
        ExprKind::Set(es) => format!("{{{}}}", elements(es)),
        ExprKind::Dict { keys, values } => dict(keys, values),
        ExprKind::Lambda { params, body } => lambda(params, body),
        ExprKind::Comprehension {
            kind,
            elt,
            value,
            generators,
        } => comprehension(*kind, elt, value.as_deref(), generators),
        ExprKind::FString(parts) => fstring(parts),
        ExprKind::Starred(value) => format!("*{}", expr_at(value, prec::BOR)),
        ExprKind::NamedExpr { target, value } => {
            format!("{target} := {}", expr_at(value, prec::TEST))
        }
        ExprKind::Unsupported { text, .. } => format!("({text})"),
    }
}

fn binop(op: BinOp, left: &Expr, right: &Expr) -> String {
    let p = binop_precedence(op);
    let (lctx, rctx) = if op == BinOp::Pow {
        (prec::AWAIT, prec::FACTOR)
    } else {
        (p, p + 1)
    };
    format!(
        "{} {} {}",
        expr_at(left, lctx),
        op.symbol(),
        expr_at(right, rctx)
    )
}

fn join(items: impl Iterator<Item = String>, sep: &str) -> String {
    items.collect::<Vec<_>>().join(sep)
}

/// Comma-separated elements of a display (starred ones bare).
fn elements(es: &[Expr]) -> String {
    join(es.iter().map(|e| expr_at(e, prec::TEST)), ", ")
}

/// A tuple without parentheses: `a, b` or `a,`.
fn tuple(es: &[Expr]) -> String {
    match es {
        [] => "()".to_string(),
        [one] => format!("{},", expr_at(one, prec::TEST)),
        _ => elements(es),
    }
}

fn call(func: &Expr, args: &[Expr], keywords: &[(Option<String>, Expr)]) -> String {
    let args = args.iter().map(|a| expr_at(a, prec::TEST));
    let keywords = keywords.iter().map(|(k, v)| match k {
        Some(k) => format!("{k}={}", expr_at(v, prec::TEST)),
        None => format!("**{}", expr_at(v, prec::BOR)),
    });
    format!(
        "{}({})",
        expr_at(func, prec::ATOM),
        join(args.chain(keywords), ", ")
    )
}

/// The object of an attribute access: `(1).real`, not `1.real`.
fn attribute_value(value: &Expr) -> String {
    match &value.kind {
        ExprKind::Constant(Constant::Int(_)) => format!("({})", bare(value)),
        _ => expr_at(value, prec::ATOM),
    }
}

fn subscript_index(index: &Expr) -> String {
    match &index.kind {
        ExprKind::Tuple(es) if !es.is_empty() => tuple(es),
        _ => expr_at(index, prec::TEST),
    }
}

fn slice(lower: &Option<Box<Expr>>, upper: &Option<Box<Expr>>, step: &Option<Box<Expr>>) -> String {
    let part = |e: &Option<Box<Expr>>| {
        e.as_deref()
            .map(|e| expr_at(e, prec::TEST))
            .unwrap_or_default()
    };
    match step {
        Some(_) => format!("{}:{}:{}", part(lower), part(upper), part(step)),
        None => format!("{}:{}", part(lower), part(upper)),
    }
}

fn dict(keys: &[Option<Expr>], values: &[Expr]) -> String {
    let items = keys.iter().zip(values).map(|(k, v)| match k {
        Some(k) => format!("{}: {}", expr_at(k, prec::TEST), expr_at(v, prec::TEST)),
        None => format!("**{}", expr_at(v, prec::BOR)),
    });
    format!("{{{}}}", join(items, ", "))
}

fn lambda(params: &[Param], body: &Expr) -> String {
    let params = params_text(params, false);
    let sep = if params.is_empty() { "" } else { " " };
    format!("lambda{sep}{params}: {}", expr_at(body, prec::TEST))
}

/// A parameter list without parentheses, with `/` and `*` markers where needed.
fn params_text(params: &[Param], annotations: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    let has_posonly = params.iter().any(|p| p.kind == ParamKind::PositionalOnly);
    let has_varargs = params.iter().any(|p| p.kind == ParamKind::VarArgs);
    let mut kwonly_marked = false;
    for (i, p) in params.iter().enumerate() {
        if p.kind == ParamKind::KeywordOnly && !has_varargs && !kwonly_marked {
            out.push("*".to_string());
            kwonly_marked = true;
        }
        out.push(param(p, annotations));
        let last_posonly = params
            .get(i + 1)
            .is_none_or(|n| n.kind != ParamKind::PositionalOnly);
        if has_posonly && p.kind == ParamKind::PositionalOnly && last_posonly {
            out.push("/".to_string());
        }
    }
    out.join(", ")
}

fn param(p: &Param, annotations: bool) -> String {
    let star = match p.kind {
        ParamKind::VarArgs => "*",
        ParamKind::KwArgs => "**",
        _ => "",
    };
    let mut s = format!("{star}{}", p.name);
    let annotation = p.annotation.as_ref().filter(|_| annotations);
    if let Some(a) = annotation {
        let _ = write!(s, ": {}", expr_at(a, prec::TEST));
    }
    if let Some(d) = &p.default {
        let eq = if annotation.is_some() { " = " } else { "=" };
        let _ = write!(s, "{eq}{}", expr_at(d, prec::TEST));
    }
    s
}

fn comprehension(
    kind: ComprehensionKind,
    elt: &Expr,
    value: Option<&Expr>,
    generators: &[super::Generator],
) -> String {
    let mut s = match value {
        Some(v) => format!("{}: {}", expr_at(elt, prec::TEST), expr_at(v, prec::TEST)),
        None => expr_at(elt, prec::TEST),
    };
    for g in generators {
        let _ = write!(
            s,
            " for {} in {}",
            expr_at(&g.target, prec::TUPLE),
            expr_at(&g.iter, prec::OR)
        );
        for c in &g.ifs {
            let _ = write!(s, " if {}", expr_at(c, prec::OR));
        }
    }
    match kind {
        ComprehensionKind::List => format!("[{s}]"),
        ComprehensionKind::Set | ComprehensionKind::Dict => format!("{{{s}}}"),
        ComprehensionKind::Generator => format!("({s})"),
    }
}

/// An f-string, quoted with `'` unless a field's text holds `'` and no `"`.
fn fstring(parts: &[FStringPart]) -> String {
    let mut fields = Vec::new();
    collect_field_texts(parts, &mut fields);
    let double = fields.iter().any(|t| t.contains('\'')) && !fields.iter().any(|t| t.contains('"'));
    let quote = if double { '"' } else { '\'' };
    format!("f{quote}{}{quote}", fstring_body(parts, quote))
}

fn collect_field_texts(parts: &[FStringPart], out: &mut Vec<String>) {
    for part in parts {
        if let FStringPart::Expr {
            expr, format_spec, ..
        } = part
        {
            out.push(expr_at(expr, prec::OR));
            if let Some(spec) = format_spec {
                collect_field_texts(spec, out);
            }
        }
    }
}

fn fstring_body(parts: &[FStringPart], quote: char) -> String {
    let mut s = String::new();
    for part in parts {
        match part {
            FStringPart::Literal(text) => {
                let mut escaped = String::new();
                crate::python::repr::escape(text, quote, &mut escaped);
                s.push_str(&escaped.replace('{', "{{").replace('}', "}}"));
            }
            FStringPart::Expr {
                expr,
                conversion,
                format_spec,
            } => {
                let text = expr_at(expr, prec::OR);
                let pad = if text.starts_with('{') { " " } else { "" };
                let _ = write!(s, "{{{pad}{text}");
                if let Some(c) = conversion {
                    s.push_str(match c {
                        Conversion::Str => "!s",
                        Conversion::Repr => "!r",
                        Conversion::Ascii => "!a",
                    });
                }
                if let Some(spec) = format_spec {
                    let _ = write!(s, ":{}", fstring_body(spec, quote));
                }
                s.push('}');
            }
        }
    }
    s
}

/// Python's `repr` of a float (`1.0`, `1e+100`, `1e-05`), except that infinity prints as
/// `1e309`: source text that evaluates to it.
pub(crate) fn float_repr(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "1e309" } else { "-1e309" }.to_string();
    }
    crate::python::repr::float_repr(x)
}

pub(crate) use crate::python::repr::{bytes_repr, str_repr};

/// A pattern; `nested` when inside `|` or `as`, where `|` and `as` need parentheses.
fn pattern(p: &Pattern, nested: bool) -> String {
    let list = |ps: &[Pattern]| join(ps.iter().map(|p| pattern(p, false)), ", ");
    match p {
        Pattern::Value(e) => expr_at(e, prec::BOR),
        Pattern::Singleton(c) => c.to_string(),
        Pattern::Capture(n) => n.clone(),
        Pattern::Wildcard => "_".to_string(),
        Pattern::Sequence(ps) => format!("[{}]", list(ps)),
        Pattern::Star(name) => format!("*{}", name.as_deref().unwrap_or("_")),
        Pattern::Mapping {
            keys,
            patterns,
            rest,
        } => {
            let items = keys
                .iter()
                .zip(patterns)
                .map(|(k, p)| format!("{}: {}", expr_at(k, prec::BOR), pattern(p, false)));
            let rest = rest.iter().map(|r| format!("**{r}"));
            format!("{{{}}}", join(items.chain(rest), ", "))
        }
        Pattern::Class {
            cls,
            patterns,
            keywords,
        } => {
            let kws = keywords
                .iter()
                .map(|(k, p)| format!("{k}={}", pattern(p, false)));
            let args = patterns.iter().map(|p| pattern(p, false)).chain(kws);
            format!("{}({})", expr_at(cls, prec::ATOM), join(args, ", "))
        }
        Pattern::Or(ps) => {
            let s = join(ps.iter().map(|p| pattern(p, true)), " | ");
            if nested { format!("({s})") } else { s }
        }
        Pattern::As {
            pattern: inner,
            name,
        } => {
            let s = format!("{} as {name}", pattern(inner, true));
            if nested { format!("({s})") } else { s }
        }
    }
}

fn block(stmts: &[Stmt], depth: usize, out: &mut String) {
    if stmts.is_empty() {
        line(depth, "pass", out);
    }
    for s in stmts {
        stmt(s, depth, out);
    }
}

fn line(depth: usize, text: &str, out: &mut String) {
    for _ in 0..depth {
        out.push_str(INDENT);
    }
    out.push_str(text);
    out.push('\n');
}

/// A header line and its indented block.
fn clause(depth: usize, header: &str, body: &[Stmt], out: &mut String) {
    line(depth, header, out);
    block(body, depth + 1, out);
}

fn opt(e: &Option<Expr>, ctx: u8) -> Option<String> {
    e.as_ref().map(|e| expr_at(e, ctx))
}

fn stmt(s: &Stmt, depth: usize, out: &mut String) {
    let t = |e: &Expr| expr_at(e, prec::TUPLE);
    match &s.kind {
        StmtKind::Expr(e) => line(depth, &t(e), out),
        StmtKind::Assign { targets, value } => {
            let mut parts: Vec<String> = targets.iter().map(t).collect();
            parts.push(t(value));
            line(depth, &parts.join(" = "), out);
        }
        StmtKind::AugAssign { target, op, value } => {
            line(
                depth,
                &format!("{} {}= {}", t(target), op.symbol(), t(value)),
                out,
            );
        }
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => {
            let mut text = format!(
                "{}: {}",
                expr_at(target, prec::ATOM),
                expr_at(annotation, prec::TEST)
            );
            if let Some(v) = value {
                let _ = write!(text, " = {}", t(v));
            }
            line(depth, &text, out);
        }
        StmtKind::If { .. } => if_chain(s, depth, "if", out),
        StmtKind::While { test, body, orelse } => {
            clause(
                depth,
                &format!("while {}:", expr_at(test, prec::NAMED)),
                body,
                out,
            );
            else_clause(depth, orelse, out);
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            clause(
                depth,
                &format!("for {} in {}:", t(target), t(iter)),
                body,
                out,
            );
            else_clause(depth, orelse, out);
        }
        StmtKind::Break => line(depth, "break", out),
        StmtKind::Continue => line(depth, "continue", out),
        StmtKind::Pass => line(depth, "pass", out),
        StmtKind::Return(v) => line(depth, &keyword_with("return", opt(v, prec::TUPLE)), out),
        StmtKind::Raise { exc, cause } => {
            let mut text = keyword_with("raise", opt(exc, prec::TEST));
            if let Some(c) = opt(cause, prec::TEST) {
                let _ = write!(text, " from {c}");
            }
            line(depth, &text, out);
        }
        StmtKind::Assert { test, msg } => {
            let mut text = format!("assert {}", expr_at(test, prec::TEST));
            if let Some(m) = opt(msg, prec::TEST) {
                let _ = write!(text, ", {m}");
            }
            line(depth, &text, out);
        }
        StmtKind::Try { .. } => try_stmt(s, depth, out),
        StmtKind::With { items, body } => {
            let items = items.iter().map(|(e, var)| match var {
                Some(v) => format!("{} as {}", expr_at(e, prec::TEST), expr_at(v, prec::TEST)),
                None => expr_at(e, prec::TEST),
            });
            clause(depth, &format!("with {}:", join(items, ", ")), body, out);
        }
        StmtKind::Match { subject, cases } => {
            line(depth, &format!("match {}:", t(subject)), out);
            for c in cases {
                let guard = opt(&c.guard, prec::NAMED)
                    .map(|g| format!(" if {g}"))
                    .unwrap_or_default();
                clause(
                    depth + 1,
                    &format!("case {}{guard}:", pattern(&c.pattern, false)),
                    &c.body,
                    out,
                );
            }
        }
        StmtKind::FunctionDef(f) => function(f, depth, out),
        StmtKind::ClassDef {
            name,
            bases,
            keywords,
            decorators,
            body,
            ..
        } => {
            decorators
                .iter()
                .for_each(|d| line(depth, &format!("@{}", expr_at(d, prec::NAMED)), out));
            let args = call(
                &Expr::new(ExprKind::Name(name.clone()), s.span),
                bases,
                keywords,
            );
            let header = if bases.is_empty() && keywords.is_empty() {
                name.clone()
            } else {
                args
            };
            clause(depth, &format!("class {header}:"), body, out);
        }
        StmtKind::Import(names) => line(depth, &format!("import {}", aliases(names)), out),
        StmtKind::ImportFrom {
            module,
            names,
            level,
        } => {
            let dots = ".".repeat(*level as usize);
            let module = module.as_deref().unwrap_or("");
            line(
                depth,
                &format!("from {dots}{module} import {}", aliases(names)),
                out,
            );
        }
        StmtKind::Global(names) => line(depth, &format!("global {}", names.join(", ")), out),
        StmtKind::Nonlocal(names) => line(depth, &format!("nonlocal {}", names.join(", ")), out),
        StmtKind::Delete(targets) => line(depth, &format!("del {}", elements(targets)), out),
        StmtKind::Unsupported { .. } => {
            line(depth, &s.text, out);
            if s.text.ends_with(':') {
                line(depth + 1, "...", out);
            }
        }
    }
}

fn keyword_with(keyword: &str, value: Option<String>) -> String {
    match value {
        Some(v) => format!("{keyword} {v}"),
        None => keyword.to_string(),
    }
}

fn aliases(names: &[super::Alias]) -> String {
    join(
        names.iter().map(|a| match &a.asname {
            Some(asname) => format!("{} as {asname}", a.name),
            None => a.name.clone(),
        }),
        ", ",
    )
}

/// An `if` and its `elif`s: an `If` alone in `orelse` prints as `elif`.
fn if_chain(s: &Stmt, depth: usize, keyword: &str, out: &mut String) {
    let StmtKind::If { test, body, orelse } = &s.kind else {
        return;
    };
    clause(
        depth,
        &format!("{keyword} {}:", expr_at(test, prec::NAMED)),
        body,
        out,
    );
    match orelse.as_slice() {
        [only] if matches!(only.kind, StmtKind::If { .. }) => if_chain(only, depth, "elif", out),
        _ => else_clause(depth, orelse, out),
    }
}

fn else_clause(depth: usize, orelse: &[Stmt], out: &mut String) {
    if !orelse.is_empty() {
        clause(depth, "else:", orelse, out);
    }
}

fn try_stmt(s: &Stmt, depth: usize, out: &mut String) {
    let StmtKind::Try {
        body,
        handlers,
        orelse,
        finalbody,
        is_star,
    } = &s.kind
    else {
        return;
    };
    clause(depth, "try:", body, out);
    let except = if *is_star { "except*" } else { "except" };
    for h in handlers {
        let mut header = except.to_string();
        if let Some(t) = &h.type_ {
            let _ = write!(header, " {}", expr_at(t, prec::TEST));
        }
        if let Some(n) = &h.name {
            let _ = write!(header, " as {n}");
        }
        header.push(':');
        clause(depth, &header, &h.body, out);
    }
    else_clause(depth, orelse, out);
    if !finalbody.is_empty() {
        clause(depth, "finally:", finalbody, out);
    }
}

fn function(f: &Function, depth: usize, out: &mut String) {
    for d in &f.decorators {
        line(depth, &format!("@{}", expr_at(d, prec::NAMED)), out);
    }
    let returns = opt(&f.returns, prec::TEST)
        .map(|r| format!(" -> {r}"))
        .unwrap_or_default();
    let header = format!("def {}({}){returns}:", f.name, params_text(&f.params, true));
    clause(depth, &header, &f.body, out);
}
