//! Lowering ruff's AST to the IR (`ir`): statements here, expressions and patterns in `expr`.
//!
//! Only syntax errors fail; constructs outside the subset become `Unsupported` nodes.

use ruff_python_ast::token::{Token, TokenKind};
use ruff_python_ast::{self as ast};
use ruff_python_parser::parse_expression_range;
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::ir::{
    Alias, ExceptHandler, Expr, Function, MatchCase, Module, Param, ParamKind, Stmt, StmtId,
    StmtKind,
};
use super::source::{SourceError, SourceErrorKind, SourceMap};
use super::syntax::{self, dedent_docstring};

mod expr;

/// Lowering state: the source, its tokens (for header and label text) and the next id.
struct Lowerer<'a> {
    map: SourceMap<'a>,
    tokens: &'a [Token],
    next_id: u32,
}

/// Parses a module and lowers it; the first syntax error is returned with its position.
pub fn lower_module(source: &str) -> Result<Module, SourceError> {
    let map = SourceMap::new(source);
    let parsed = syntax::parse(&map)?;
    let mut lowerer = Lowerer {
        map,
        tokens: parsed.tokens(),
        next_id: 0,
    };
    let body = lowerer.block(&parsed.syntax().body, "");
    Ok(Module { body })
}

/// Parses and lowers a single expression, e.g. a precondition `x > 0 and len(s) < 3`
/// (leading white space allowed; spans are relative to `source`).
pub fn lower_expression(source: &str) -> Result<Expr, SourceError> {
    let map = SourceMap::new(source);
    let start = TextSize::of(source) - TextSize::of(source.trim_start());
    syntax::check_depth(&map)?;
    let parsed = parse_expression_range(source, TextRange::new(start, TextSize::of(source)))
        .map_err(|e| {
            map.error(
                SourceErrorKind::SyntaxError,
                e.error.to_string(),
                e.location,
            )
        })?;
    let lowerer = Lowerer {
        map,
        tokens: parsed.tokens(),
        next_id: 0,
    };
    Ok(lowerer.expr(parsed.expr()))
}

fn is_trivia(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Comment
            | TokenKind::NonLogicalNewline
            | TokenKind::Newline
            | TokenKind::Indent
            | TokenKind::Dedent
    )
}

fn qualify(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

impl<'a> Lowerer<'a> {
    fn fresh_id(&mut self) -> StmtId {
        let id = StmtId(self.next_id);
        self.next_id += 1;
        id
    }

    /// The tokens starting at or after `offset`.
    fn tokens_from(&self, offset: TextSize) -> &'a [Token] {
        let start = self.tokens.partition_point(|t| t.start() < offset);
        self.tokens.get(start..).unwrap_or(&[])
    }

    /// The source of `range` on one line: comments dropped, line breaks between tokens
    /// replaced by one space (none just inside brackets or before a comma).
    fn one_line(&self, range: TextRange) -> String {
        let text = self.map.slice(range);
        if !text.contains(['\n', '\r']) {
            return text.to_string();
        }
        let mut out = String::new();
        let mut prev: Option<&Token> = None;
        let tokens = self
            .tokens_from(range.start())
            .iter()
            .take_while(|t| t.end() <= range.end());
        for t in tokens.filter(|t| !is_trivia(t.kind())) {
            if let Some(p) = prev {
                let gap = self.map.slice(TextRange::new(p.end(), t.start()));
                if !gap.contains(['\n', '\r', '\\']) {
                    out.push_str(gap);
                } else if !matches!(
                    p.kind(),
                    TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace
                ) && !matches!(
                    t.kind(),
                    TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace | TokenKind::Comma
                ) {
                    out.push(' ');
                }
            }
            out.push_str(self.map.slice(t.range()));
            prev = Some(t);
        }
        if out.is_empty() {
            text.trim().to_string()
        } else {
            out
        }
    }

    /// From `start` through the header's `:`, the first colon outside brackets after `after`
    /// (the end of the header's last part).
    fn header_range(&self, start: TextSize, after: TextSize) -> TextRange {
        let mut depth = 0i32;
        for t in self.tokens_from(after) {
            match t.kind() {
                TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
                TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => depth -= 1,
                TokenKind::Colon if depth <= 0 => return TextRange::new(start, t.end()),
                TokenKind::Newline => break,
                _ => {}
            }
        }
        TextRange::new(start, after.max(start))
    }

    /// Where a statement starts: a `def`/`class` at its keyword, after any decorators.
    fn stmt_range(&self, s: &ast::Stmt) -> TextRange {
        let decorators = match s {
            ast::Stmt::FunctionDef(f) => &f.decorator_list[..],
            ast::Stmt::ClassDef(c) => &c.decorator_list[..],
            _ => &[],
        };
        let range = s.range();
        let Some(last) = decorators.last() else {
            return range;
        };
        let keyword = self
            .tokens_from(last.end())
            .iter()
            .find(|t| !is_trivia(t.kind()));
        let start = keyword
            .map_or(range.start(), |t| t.start())
            .min(range.end());
        TextRange::new(start, range.end())
    }

    /// The header of a compound statement starting at `start`; `None` for simple statements.
    fn header_of(&self, s: &ast::Stmt, start: TextSize) -> Option<TextRange> {
        let after = match s {
            ast::Stmt::FunctionDef(f) => f.returns.as_ref().map_or(f.parameters.end(), |r| r.end()),
            ast::Stmt::ClassDef(c) => c
                .arguments
                .as_ref()
                .map(|a| a.end())
                .or(c.type_params.as_ref().map(|t| t.end()))
                .unwrap_or(c.name.end()),
            ast::Stmt::If(i) => i.test.end(),
            ast::Stmt::While(w) => w.test.end(),
            ast::Stmt::For(f) => f.iter.end(),
            ast::Stmt::With(w) => w.items.last().map_or(start, |i| i.end()),
            ast::Stmt::Match(m) => m.subject.end(),
            ast::Stmt::Try(_) => start,
            _ => return None,
        };
        Some(self.header_range(start, after))
    }

    fn make_stmt(
        &self,
        id: StmtId,
        range: TextRange,
        header: Option<TextRange>,
        kind: StmtKind,
    ) -> Stmt {
        let label = header.unwrap_or(range);
        Stmt {
            id,
            span: self.map.span(range),
            header: self.map.span(label),
            text: self.one_line(label),
            kind,
        }
    }

    fn block(&mut self, stmts: &[ast::Stmt], scope: &str) -> Vec<Stmt> {
        stmts.iter().map(|s| self.stmt(s, scope)).collect()
    }

    /// Lowers one statement; its id is taken before those of the statements inside it.
    fn stmt(&mut self, s: &ast::Stmt, scope: &str) -> Stmt {
        let id = self.fresh_id();
        let range = self.stmt_range(s);
        let header = self.header_of(s, range.start());
        let kind = self.stmt_kind(s, scope, range);
        self.make_stmt(id, range, header, kind)
    }

    fn stmt_kind(&mut self, s: &ast::Stmt, scope: &str, range: TextRange) -> StmtKind {
        use ast::Stmt as S;
        match s {
            S::Expr(e) => StmtKind::Expr(self.expr(&e.value)),
            S::Assign(a) => StmtKind::Assign {
                targets: a.targets.iter().map(|t| self.expr(t)).collect(),
                value: self.expr(&a.value),
            },
            S::AugAssign(a) => StmtKind::AugAssign {
                target: self.expr(&a.target),
                op: expr::binop(a.op),
                value: self.expr(&a.value),
            },
            S::AnnAssign(a) => StmtKind::AnnAssign {
                target: self.expr(&a.target),
                annotation: self.expr(&a.annotation),
                value: a.value.as_deref().map(|v| self.expr(v)),
            },
            S::If(i) => self.if_stmt(i, scope),
            S::While(w) => StmtKind::While {
                test: self.expr(&w.test),
                body: self.block(&w.body, scope),
                orelse: self.block(&w.orelse, scope),
            },
            S::For(f) if f.is_async => StmtKind::Unsupported {
                construct: "async for",
            },
            S::For(f) => StmtKind::For {
                target: self.expr(&f.target),
                iter: self.expr(&f.iter),
                body: self.block(&f.body, scope),
                orelse: self.block(&f.orelse, scope),
            },
            S::Break(_) => StmtKind::Break,
            S::Continue(_) => StmtKind::Continue,
            S::Pass(_) => StmtKind::Pass,
            S::Return(r) => StmtKind::Return(r.value.as_deref().map(|v| self.expr(v))),
            S::Raise(r) => StmtKind::Raise {
                exc: r.exc.as_deref().map(|e| self.expr(e)),
                cause: r.cause.as_deref().map(|e| self.expr(e)),
            },
            S::Assert(a) => StmtKind::Assert {
                test: self.expr(&a.test),
                msg: a.msg.as_deref().map(|e| self.expr(e)),
            },
            S::Try(t) => self.try_stmt(t, scope),
            S::With(w) if w.is_async => StmtKind::Unsupported {
                construct: "async with",
            },
            S::With(w) => StmtKind::With {
                items: w
                    .items
                    .iter()
                    .map(|i| {
                        (
                            self.expr(&i.context_expr),
                            i.optional_vars.as_deref().map(|v| self.expr(v)),
                        )
                    })
                    .collect(),
                body: self.block(&w.body, scope),
            },
            S::Match(m) => StmtKind::Match {
                subject: self.expr(&m.subject),
                cases: m.cases.iter().map(|c| self.match_case(c, scope)).collect(),
            },
            S::FunctionDef(f) if f.is_async => StmtKind::Unsupported {
                construct: "async def",
            },
            S::FunctionDef(f) => StmtKind::FunctionDef(Box::new(self.function(f, scope, range))),
            S::ClassDef(c) => self.class(c, scope),
            S::Import(i) => StmtKind::Import(i.names.iter().map(alias).collect()),
            S::ImportFrom(i) => StmtKind::ImportFrom {
                module: i.module.as_ref().map(|m| m.to_string()),
                names: i.names.iter().map(alias).collect(),
                level: i.level,
            },
            S::Global(g) => StmtKind::Global(g.names.iter().map(|n| n.to_string()).collect()),
            S::Nonlocal(n) => StmtKind::Nonlocal(n.names.iter().map(|n| n.to_string()).collect()),
            S::Delete(d) => StmtKind::Delete(d.targets.iter().map(|t| self.expr(t)).collect()),
            S::TypeAlias(_) => StmtKind::Unsupported {
                construct: "type alias",
            },
            S::IpyEscapeCommand(_) => StmtKind::Unsupported {
                construct: "IPython escape command",
            },
        }
    }

    fn if_stmt(&mut self, i: &ast::StmtIf, scope: &str) -> StmtKind {
        StmtKind::If {
            test: self.expr(&i.test),
            body: self.block(&i.body, scope),
            orelse: self.elif_else(&i.elif_else_clauses, i.end(), scope),
        }
    }

    /// The `orelse` of an `if`: an `elif` becomes an `If` alone in it, spanning to `end`.
    fn elif_else(
        &mut self,
        clauses: &[ast::ElifElseClause],
        end: TextSize,
        scope: &str,
    ) -> Vec<Stmt> {
        let Some((first, rest)) = clauses.split_first() else {
            return Vec::new();
        };
        let Some(test) = &first.test else {
            return self.block(&first.body, scope);
        };
        let id = self.fresh_id();
        let start = first.start();
        let header = self.header_range(start, test.end());
        let kind = StmtKind::If {
            test: self.expr(test),
            body: self.block(&first.body, scope),
            orelse: self.elif_else(rest, end, scope),
        };
        vec![self.make_stmt(
            id,
            TextRange::new(start, end.max(start)),
            Some(header),
            kind,
        )]
    }

    fn try_stmt(&mut self, t: &ast::StmtTry, scope: &str) -> StmtKind {
        let body = self.block(&t.body, scope);
        let handlers = t.handlers.iter().map(|h| self.handler(h, scope)).collect();
        StmtKind::Try {
            body,
            handlers,
            orelse: self.block(&t.orelse, scope),
            finalbody: self.block(&t.finalbody, scope),
            is_star: t.is_star,
        }
    }

    fn handler(&mut self, h: &ast::ExceptHandler, scope: &str) -> ExceptHandler {
        let ast::ExceptHandler::ExceptHandler(h) = h;
        let id = self.fresh_id();
        let after = match (&h.name, &h.type_) {
            (Some(n), _) => n.end(),
            (None, Some(t)) => t.end(),
            (None, None) => h.start(),
        };
        let header = self.header_range(h.start(), after);
        ExceptHandler {
            id,
            type_: h.type_.as_deref().map(|t| self.expr(t)),
            name: h.name.as_ref().map(|n| n.to_string()),
            body: self.block(&h.body, scope),
            span: self.map.span(h.range),
            header: self.map.span(header),
            text: self.one_line(header),
        }
    }

    fn match_case(&mut self, c: &ast::MatchCase, scope: &str) -> MatchCase {
        let id = self.fresh_id();
        let after = c.guard.as_ref().map_or(c.pattern.end(), |g| g.end());
        let header = self.header_range(c.start(), after);
        MatchCase {
            id,
            pattern: self.pattern(&c.pattern),
            guard: c.guard.as_deref().map(|g| self.expr(g)),
            body: self.block(&c.body, scope),
            span: self.map.span(c.range),
            header: self.map.span(header),
            text: self.one_line(header),
        }
    }

    fn function(&mut self, f: &ast::StmtFunctionDef, scope: &str, range: TextRange) -> Function {
        let qualname = qualify(scope, &f.name);
        let docstring = f.body.first().and_then(|s| match s {
            ast::Stmt::Expr(e) => e
                .value
                .as_string_literal_expr()
                .map(|s| dedent_docstring(s.value.to_str())),
            _ => None,
        });
        Function {
            name: f.name.to_string(),
            params: self.params(&f.parameters),
            returns: f.returns.as_deref().map(|r| self.expr(r)),
            returns_text: f.returns.as_deref().map(|r| self.one_line(r.range())),
            docstring,
            body: self.block(&f.body, &qualname),
            span: self.map.span(range),
            decorators: f
                .decorator_list
                .iter()
                .map(|d| self.expr(&d.expression))
                .collect(),
            qualname,
        }
    }

    fn class(&mut self, c: &ast::StmtClassDef, scope: &str) -> StmtKind {
        let qualname = qualify(scope, &c.name);
        let keywords = c
            .keywords()
            .iter()
            .map(|k| (k.arg.as_ref().map(|a| a.to_string()), self.expr(&k.value)))
            .collect();
        StmtKind::ClassDef {
            name: c.name.to_string(),
            bases: c.bases().iter().map(|b| self.expr(b)).collect(),
            keywords,
            decorators: c
                .decorator_list
                .iter()
                .map(|d| self.expr(&d.expression))
                .collect(),
            body: self.block(&c.body, &qualname),
            qualname,
        }
    }

    /// Parameters in order, each with its kind.
    fn params(&self, p: &ast::Parameters) -> Vec<Param> {
        let with_default = |pd: &ast::ParameterWithDefault, kind| {
            self.param(&pd.parameter, pd.default.as_deref(), kind, pd.range)
        };
        let mut out: Vec<Param> = Vec::new();
        out.extend(
            p.posonlyargs
                .iter()
                .map(|pd| with_default(pd, ParamKind::PositionalOnly)),
        );
        out.extend(
            p.args
                .iter()
                .map(|pd| with_default(pd, ParamKind::Positional)),
        );
        out.extend(
            p.vararg
                .iter()
                .map(|v| self.param(v, None, ParamKind::VarArgs, v.range)),
        );
        out.extend(
            p.kwonlyargs
                .iter()
                .map(|pd| with_default(pd, ParamKind::KeywordOnly)),
        );
        out.extend(
            p.kwarg
                .iter()
                .map(|k| self.param(k, None, ParamKind::KwArgs, k.range)),
        );
        out
    }

    fn param(
        &self,
        p: &ast::Parameter,
        default: Option<&ast::Expr>,
        kind: ParamKind,
        range: TextRange,
    ) -> Param {
        Param {
            name: p.name.to_string(),
            kind,
            annotation: p.annotation.as_deref().map(|a| self.expr(a)),
            annotation_text: p.annotation.as_deref().map(|a| self.one_line(a.range())),
            default: default.map(|d| self.expr(d)),
            span: self.map.span(range),
        }
    }
}

fn alias(a: &ast::Alias) -> Alias {
    Alias {
        name: a.name.to_string(),
        asname: a.asname.as_ref().map(|n| n.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::python::ir::{Constant, ExprKind, Pattern};

    /// One line per statement/handler/case: `id span | text`, indented by depth.
    fn outline(source: &str) -> String {
        let module = lower_module(source).unwrap();
        let mut out = String::new();
        outline_block(&module.body, 0, &mut out);
        out
    }

    fn outline_block(stmts: &[Stmt], depth: usize, out: &mut String) {
        for s in stmts {
            outline_line(depth, s.id, s.span, &s.text, out);
            match &s.kind {
                StmtKind::Try {
                    body,
                    handlers,
                    orelse,
                    finalbody,
                    ..
                } => {
                    outline_block(body, depth + 1, out);
                    for h in handlers {
                        outline_line(depth, h.id, h.span, &h.text, out);
                        outline_block(&h.body, depth + 1, out);
                    }
                    outline_block(orelse, depth + 1, out);
                    outline_block(finalbody, depth + 1, out);
                }
                StmtKind::Match { cases, .. } => {
                    for c in cases {
                        outline_line(depth + 1, c.id, c.span, &c.text, out);
                        outline_block(&c.body, depth + 2, out);
                    }
                }
                _ => s
                    .blocks()
                    .into_iter()
                    .for_each(|b| outline_block(b, depth + 1, out)),
            }
        }
    }

    fn outline_line(
        depth: usize,
        id: StmtId,
        span: crate::python::Span,
        text: &str,
        out: &mut String,
    ) {
        let span = format!(
            "{}:{}-{}:{}",
            span.line, span.column, span.end_line, span.end_column
        );
        out.push_str(&format!("{}{} {span} | {text}\n", "  ".repeat(depth), id.0));
    }

    fn check(source: &str, expected: Expect) {
        expected.assert_eq(&outline(source));
    }

    #[test]
    fn simple_statements_with_ids_spans_text() {
        check(
            "x = 1\na = b = f(x,\n          2)  # two\nx += 1\ny: int = 3\nz: int\nassert x > 0, 'msg'\nraise ValueError('bad') from None\ndel a, b[0]\nimport os.path as p, sys\nfrom ..m import (a,\n    b as c)\nglobal g\npass\n",
            expect![[r#"
                0 1:1-1:6 | x = 1
                1 2:1-3:13 | a = b = f(x, 2)
                2 4:1-4:7 | x += 1
                3 5:1-5:11 | y: int = 3
                4 6:1-6:7 | z: int
                5 7:1-7:20 | assert x > 0, 'msg'
                6 8:1-8:34 | raise ValueError('bad') from None
                7 9:1-9:12 | del a, b[0]
                8 10:1-10:25 | import os.path as p, sys
                9 11:1-12:12 | from ..m import (a, b as c)
                10 13:1-13:9 | global g
                11 14:1-14:5 | pass
            "#]],
        );
    }

    #[test]
    fn compound_statements_have_header_text() {
        check(
            r#"@dec
@other(1)
def f(a: int,
      b=2) -> int:  # comment
    """Doc."""
    if a > 0:
        return a
    elif (a <
          -1):  # cmt
        pass
    elif a == 0:
        pass
    else:
        return b
    while i < n:
        i += 1
    else:
        pass
    for x in xs:
        break
    try:
        continue
    except (ValueError, TypeError) as e:
        pass
    except:
        raise
    else:
        pass
    finally:
        pass
    with open(f) as g, h:
        pass
    match cmd:
        case [x, y] if x > y:
            pass
        case {"k": 1, **rest}:
            pass
        case Point(x=0) | None:
            pass
        case _:
            pass

class C(B, metaclass=M):
    def m(self):
        def inner():
            pass
"#,
            expect![[r#"
                0 3:1-41:17 | def f(a: int, b=2) -> int:
                  1 5:5-5:15 | """Doc."""
                  2 6:5-14:17 | if a > 0:
                    3 7:9-7:17 | return a
                    4 8:5-14:17 | elif (a < -1):
                      5 10:9-10:13 | pass
                      6 11:5-14:17 | elif a == 0:
                        7 12:9-12:13 | pass
                        8 14:9-14:17 | return b
                  9 15:5-18:13 | while i < n:
                    10 16:9-16:15 | i += 1
                    11 18:9-18:13 | pass
                  12 19:5-20:14 | for x in xs:
                    13 20:9-20:14 | break
                  14 21:5-30:13 | try:
                    15 22:9-22:17 | continue
                  16 23:5-24:13 | except (ValueError, TypeError) as e:
                    17 24:9-24:13 | pass
                  18 25:5-26:14 | except:
                    19 26:9-26:14 | raise
                    20 28:9-28:13 | pass
                    21 30:9-30:13 | pass
                  22 31:5-32:13 | with open(f) as g, h:
                    23 32:9-32:13 | pass
                  24 33:5-41:17 | match cmd:
                    25 34:9-35:17 | case [x, y] if x > y:
                      26 35:13-35:17 | pass
                    27 36:9-37:17 | case {"k": 1, **rest}:
                      28 37:13-37:17 | pass
                    29 38:9-39:17 | case Point(x=0) | None:
                      30 39:13-39:17 | pass
                    31 40:9-41:17 | case _:
                      32 41:13-41:17 | pass
                33 43:1-46:17 | class C(B, metaclass=M):
                  34 44:5-46:17 | def m(self):
                    35 45:9-46:17 | def inner():
                      36 46:13-46:17 | pass
            "#]],
        );
    }
    #[test]
    fn functions_with_qualnames_params_and_docstrings() {
        let module = lower_module(
            "def outer(a, /, b: 'T' = 1, *args, c, d=2, **kw) -> bool:\n    '''Doc.\n\n        More.\n    '''\n    def inner():\n        pass\n    return True\nclass C:\n    @staticmethod\n    def m(x):\n        class D:\n            def n(self): pass\nif x:\n    def g(): pass\n",
        )
        .unwrap();
        let names: Vec<_> = module.functions().map(|f| f.qualname.as_str()).collect();
        assert_eq!(names, ["outer", "outer.inner", "C.m", "C.m.D.n", "g"]);
        let outer = module.function("outer").unwrap();
        let params: Vec<_> = outer
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.kind))
            .collect();
        use ParamKind::*;
        assert_eq!(
            params,
            [
                ("a", PositionalOnly),
                ("b", Positional),
                ("args", VarArgs),
                ("c", KeywordOnly),
                ("d", KeywordOnly),
                ("kw", KwArgs)
            ]
        );
        assert_eq!(outer.params[1].annotation_text.as_deref(), Some("'T'"));
        assert_eq!(
            outer.params[1]
                .default
                .as_ref()
                .and_then(|d| d.as_int())
                .map(|i| i.to_string()),
            Some("1".into())
        );
        assert_eq!(outer.returns_text.as_deref(), Some("bool"));
        assert_eq!(outer.docstring.as_deref(), Some("Doc.\n\nMore."));
        assert_eq!(outer.code().len(), 2);
        assert_eq!((outer.span.line, outer.span.end_line), (1, 8));
        let m = module.function("C.m").unwrap();
        assert_eq!(m.decorators[0].to_string(), "staticmethod");
        assert_eq!((m.span.line, m.span.column), (11, 5));
    }

    #[test]
    fn unsupported_constructs_keep_name_and_line() {
        let module = lower_module(
            "async def f():\n    pass\ndef g():\n    async for x in y:\n        pass\n    async with a as b:\n        pass\n    x = await h()\n    yield x\ntype T = int\n",
        )
        .unwrap();
        let mut found = Vec::new();
        module.walk(&mut |s| {
            if let StmtKind::Unsupported { construct } = &s.kind {
                found.push(format!("{construct} @{}: {}", s.span.line, s.text));
            }
            for e in s.exprs() {
                e.walk(&mut |e| {
                    if let ExprKind::Unsupported {
                        construct, text, ..
                    } = &e.kind
                    {
                        found.push(format!("{construct} @{}: {text}", e.span.line));
                    }
                });
            }
        });
        expect![[r#"
            [
                "async def @1: async def f():",
                "async for @4: async for x in y:",
                "async with @6: async with a as b:",
                "await @8: await h()",
                "yield @9: yield x",
                "type alias @10: type T = int",
            ]
        "#]]
        .assert_debug_eq(&found);
        assert_eq!(module.functions().count(), 1);
    }

    #[test]
    fn int_literals_are_exact() {
        let cases = [
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("0xFFFF_FFFF_FFFF_FFFF_FFFF", "1208925819614629174706175"),
            ("0o17", "15"),
            ("0b1010", "10"),
            ("1_000_000", "1000000"),
            ("0", "0"),
            ("00", "0"),
        ];
        for (source, value) in cases {
            let e = lower_expression(source).unwrap();
            assert_eq!(
                e.as_int().map(|i| i.to_string()).as_deref(),
                Some(value),
                "{source}"
            );
        }
        let e = lower_expression("2 ** 100 + 340282366920938463463374607431768211456").unwrap();
        assert_eq!(
            e.to_string(),
            "2 ** 100 + 340282366920938463463374607431768211456"
        );
    }

    #[test]
    fn constants_and_fstrings() {
        let e = lower_expression("f'a{x!r:>{w}}b' 'c' f\"{y=}\"").unwrap();
        assert_eq!(e.to_string(), "f'a{x!r:>{w}}bcy={y!r}'");
        let ExprKind::FString(parts) = &e.kind else {
            panic!("not an f-string")
        };
        assert_eq!(parts.len(), 4);
        assert_eq!(e.names_used(), ["x", "w", "y"]);
        let e = lower_expression("('ab' 'cd', b'\\x00', 1.5, True, None, ...)").unwrap();
        let ExprKind::Tuple(items) = &e.kind else {
            panic!("not a tuple")
        };
        let constants: Vec<_> = items
            .iter()
            .map(|i| match &i.kind {
                ExprKind::Constant(c) => c.clone(),
                _ => Constant::None,
            })
            .collect();
        assert_eq!(
            constants,
            [
                Constant::Str("abcd".into()),
                Constant::Bytes(vec![0]),
                Constant::Float(1.5),
                Constant::Bool(true),
                Constant::None,
                Constant::Ellipsis
            ]
        );
    }

    #[test]
    fn match_patterns() {
        let module = lower_module(
            "match p:\n    case [1, *rest] | (None as n):\n        pass\n    case Point(0, y=[_, z]) if z:\n        pass\n    case {'k': -1, **kw}:\n        pass\n",
        )
        .unwrap();
        let StmtKind::Match { cases, .. } = &module.body[0].kind else {
            panic!("not a match")
        };
        let patterns: Vec<String> = cases.iter().map(|c| c.pattern.to_string()).collect();
        assert_eq!(
            patterns,
            [
                "[1, *rest] | (None as n)",
                "Point(0, y=[_, z])",
                "{'k': -1, **kw}"
            ]
        );
        assert_eq!(cases[0].defined_names(), ["rest", "n"]);
        assert_eq!(cases[1].defined_names(), ["z"]);
        assert_eq!(cases[1].names_used(), ["Point", "z"]);
        assert!(
            matches!(&cases[0].pattern, Pattern::Or(ps) if matches!(ps[1], Pattern::As { .. }))
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = lower_module("x = 1\nif x\n    pass\n").unwrap_err();
        assert_eq!(err.kind, SourceErrorKind::SyntaxError);
        assert_eq!(err.line, 2);
        let err = lower_expression("x >").unwrap_err();
        assert_eq!((err.kind, err.line), (SourceErrorKind::SyntaxError, 1));
        assert!(lower_expression("").is_err());
        let e = lower_expression("  x > 0").unwrap();
        assert_eq!((e.span.column, e.to_string().as_str()), (3, "x > 0"));
    }

    #[test]
    fn ids_are_deterministic_and_unique() {
        let source = "def f(x):\n    if x:\n        return 1\n    for i in x:\n        try:\n            pass\n        except E:\n            pass\n    return 0\n";
        let a = lower_module(source).unwrap();
        let b = lower_module(source).unwrap();
        assert_eq!(a, b);
        let mut ids = Vec::new();
        a.walk(&mut |s| ids.push(s.id.0));
        assert_eq!(ids, [0, 1, 2, 3, 4, 5, 7, 8]);
        assert_eq!(a.stmt(StmtId(8)).map(|s| s.text.as_str()), Some("return 0"));
    }

    #[test]
    fn multi_line_text_is_joined_without_comments() {
        check(
            "x = [1,  # one\n     2,\n]\ny = 1 + \\\n    2\nwith (\n    open(a) as b,  # c\n    open(d) as e,\n):\n    pass\ndef f(\n    a,  # first\n    b: 'x:y',\n) -> dict[str, int]:\n    pass\n",
            expect![[r#"
                0 1:1-3:2 | x = [1, 2,]
                1 4:1-5:6 | y = 1 + 2
                2 6:1-10:9 | with (open(a) as b, open(d) as e,):
                  3 10:5-10:9 | pass
                4 11:1-15:9 | def f(a, b: 'x:y',) -> dict[str, int]:
                  5 15:5-15:9 | pass
            "#]],
        );
    }
}
