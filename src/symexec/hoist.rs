//! Calls of user functions become statements of their own, so that the callee's tree can be
//! shown under the call: `x = f(a) + g(b)` runs as `$1 = f(a)`, `$2 = g(b)`, `x = $1 + $2`.
//!
//! Evaluation order is kept: operands evaluated before a call are computed into a temporary
//! first (names and constants, which cannot raise or change, stay in place), and calls that
//! only run under a short circuit run under the matching `if` (`a and f(x)` becomes
//! `$1 = a`, `if $1: $1 = f(x)`). A `while` whose test calls a function is run as
//! `while True:` with the test and the `else` body at the top of the loop. The forms a
//! call then takes are `x = f(...)`, `return f(...)` and `f(...)` with call-free arguments.

use super::SymexecError;
use super::comprehension;
use crate::python::ir::{
    BinOp, BoolOp, CmpOp, ComprehensionKind, Constant, Expr, ExprKind, FStringPart, Generator,
    Stmt, StmtKind, UnaryOp,
};

/// Calls the translation handles itself (and `print`, `range`, `enumerate`, `zip`,
/// `reversed`, which statements handle):
/// any other called name is a user function, resolved when the call runs.
const NOT_USER: &[&str] = &[
    "len",
    "abs",
    "min",
    "max",
    "int",
    "str",
    "chr",
    "ord",
    "float",
    "bool",
    "list",
    "tuple",
    "set",
    "frozenset",
    "print",
    "range",
    "enumerate",
    "zip",
    "reversed",
    "all",
    "any",
    "sum",
    "sorted",
    "round",
    "divmod",
];

/// A call of a user function: `name(args, key=value)`.
pub struct UserCall<'e> {
    pub name: &'e str,
    pub args: &'e [Expr],
    pub keywords: &'e [(Option<String>, Expr)],
}

/// `e` as a call of a user function, if it is one.
pub fn user_call(e: &Expr) -> Option<UserCall<'_>> {
    match &e.kind {
        ExprKind::Call {
            func,
            args,
            keywords,
        } => match &func.kind {
            ExprKind::Name(n) if !NOT_USER.contains(&n.as_str()) => Some(UserCall {
                name: n,
                args,
                keywords,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Whether evaluating `e` calls a user function.
fn has_user_call(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= user_call(x).is_some());
    found || comprehension::has_loop(e)
}

/// Whether evaluating `e` calls a user function or builds a set the statements must hold
/// in a name of their own (see [`set_to_hold`]).
pub fn has_call(e: &Expr) -> bool {
    has_user_call(e) || has_set_to_hold(e)
}

/// `set()` / `set(xs)` as an operand (`len(set(xs))`, `sorted(set(xs))`): computed into a
/// temporary, so that the statements build it as a dict or set of known structure (the
/// translation reads such names). Not `set` of a display right of `in` (the translation
/// reads `x in set([a, b])` itself), nor inside a comprehension, lambda, f-string or display.
/// So is `a & b`, `a | b`, `a - b`, `a ^ b` of two such sets (`set(a) & set(b)`).
fn set_to_hold(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            func.as_name() == Some("set")
                && keywords.is_empty()
                && args.len() <= 1
                && !args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)))
        }
        ExprKind::BinOp { op, left, right } => {
            matches!(
                op,
                BinOp::BitAnd | BinOp::BitOr | BinOp::Sub | BinOp::BitXor
            ) && set_to_hold(left)
                && set_to_hold(right)
        }
        _ => false,
    }
}

/// `set([...])` / `set((...))`: the translation reads `x in set([a, b])` itself.
fn set_of_display(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, args, .. }
        if func.as_name() == Some("set")
            && matches!(args.as_slice(), [a] if matches!(a.kind, ExprKind::List(_) | ExprKind::Tuple(_) | ExprKind::Set(_))))
}

fn has_set_to_hold(e: &Expr) -> bool {
    if set_to_hold(e) {
        return true;
    }
    match &e.kind {
        ExprKind::Comprehension { .. }
        | ExprKind::Lambda { .. }
        | ExprKind::FString(_)
        | ExprKind::Set(_)
        | ExprKind::Dict { .. }
        | ExprKind::NamedExpr { .. } => false,
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            has_set_to_hold(left)
                || ops.iter().zip(comparators).any(|(op, c)| {
                    if matches!(op, CmpOp::In | CmpOp::NotIn) && set_of_display(c) {
                        c.children().into_iter().any(has_set_to_hold)
                    } else {
                        has_set_to_hold(c)
                    }
                })
        }
        _ => e.children().into_iter().any(has_set_to_hold),
    }
}

/// `body` with every user call in a call form (nested function bodies are left alone).
pub fn hoist_block(body: &[Stmt]) -> Result<Vec<Stmt>> {
    let outside = comprehension::names_outside(body);
    Hoister { next: 0, outside }.block(body)
}

struct Hoister {
    next: u32,
    /// Names used outside comprehensions (see `comprehension`).
    outside: std::collections::BTreeSet<String>,
}

type Result<T> = std::result::Result<T, SymexecError>;

fn unsupported(construct: impl Into<String>, line: u32) -> SymexecError {
    SymexecError::Unsupported {
        construct: construct.into(),
        line,
    }
}

fn is_simple(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Name(_) | ExprKind::Constant(_))
}

fn name(n: &str, like: &Expr) -> Expr {
    Expr::new(ExprKind::Name(n.to_string()), like.span)
}

/// A statement made for `like` (same id and position) with its own text.
fn synthetic(like: &Stmt, kind: StmtKind) -> Stmt {
    let mut s = Stmt {
        id: like.id,
        span: like.span,
        header: like.header,
        text: String::new(),
        kind,
    };
    s.text = label(&s, like.text.starts_with("elif "));
    s
}

/// The one-line text of a statement (the header of a compound one).
fn label(s: &Stmt, elif: bool) -> String {
    match &s.kind {
        StmtKind::If { test, .. } if elif => format!("elif {test}:"),
        StmtKind::If { test, .. } => format!("if {test}:"),
        StmtKind::While { test, .. } => format!("while {test}:"),
        StmtKind::For { target, iter, .. } => format!("for {target} in {iter}:"),
        _ => s.to_string().lines().next().unwrap_or("").to_string(),
    }
}

impl Hoister {
    fn temp(&mut self) -> String {
        self.next += 1;
        format!("${}", self.next)
    }

    fn assign(&self, like: &Stmt, target: &str, value: Expr) -> Stmt {
        let kind = StmtKind::Assign {
            targets: vec![name(target, &value)],
            value,
        };
        synthetic(like, kind)
    }

    fn block(&mut self, body: &[Stmt]) -> Result<Vec<Stmt>> {
        let mut out = Vec::with_capacity(body.len());
        for s in body {
            let mark = out.len();
            match self.stmt(s, &mut out) {
                Ok(()) => {}
                // A statement whose calls cannot be hoisted runs as written: the call it
                // keeps is not modelled, and evaluating it is a havoc (see `havoc`).
                Err(SymexecError::Unsupported { .. }) => {
                    out.truncate(mark);
                    out.push(s.clone());
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    fn stmt(&mut self, s: &Stmt, out: &mut Vec<Stmt>) -> Result<()> {
        let line = s.span.line;
        let rebuilt = match &s.kind {
            StmtKind::Expr(e) if has_call(e) => {
                let e = self.top(s, e, out)?;
                synthetic(s, StmtKind::Expr(e))
            }
            StmtKind::Assign { targets, value }
                if has_call(value) || targets.iter().any(has_call) =>
            {
                if targets.iter().any(has_call) {
                    return Err(unsupported(
                        "a call of a user function in an assignment target",
                        line,
                    ));
                }
                let value = match targets.as_slice() {
                    [t] if t.as_name().is_some() => self.top(s, value, out)?,
                    _ => self.expr(s, value, out)?,
                };
                synthetic(
                    s,
                    StmtKind::Assign {
                        targets: targets.clone(),
                        value,
                    },
                )
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } if has_call(value) => {
                let value = match target.as_name() {
                    Some(_) => self.top(s, value, out)?,
                    None => self.expr(s, value, out)?,
                };
                synthetic(
                    s,
                    StmtKind::Assign {
                        targets: vec![target.clone()],
                        value,
                    },
                )
            }
            StmtKind::AugAssign { target, op, value } if has_call(value) || has_call(target) => {
                if target.as_name().is_none() {
                    return Err(unsupported(
                        "a call of a user function in an augmented assignment to a subscript",
                        line,
                    ));
                }
                let value = self.expr(s, value, out)?;
                synthetic(
                    s,
                    StmtKind::AugAssign {
                        target: target.clone(),
                        op: *op,
                        value,
                    },
                )
            }
            StmtKind::Return(Some(e)) if has_call(e) => {
                let e = self.top(s, e, out)?;
                synthetic(s, StmtKind::Return(Some(e)))
            }
            StmtKind::Raise { exc, cause } => {
                if cause.as_ref().is_some_and(has_call) {
                    return Err(unsupported(
                        "a call of a user function after `raise ... from`",
                        line,
                    ));
                }
                // `raise E(args)` constructs an exception: its arguments are hoisted, the
                // class call stays.
                let exc = match exc {
                    Some(e) if has_call(e) => Some(self.top(s, e, out)?),
                    other => other.clone(),
                };
                synthetic(
                    s,
                    StmtKind::Raise {
                        exc,
                        cause: cause.clone(),
                    },
                )
            }
            StmtKind::Assert { test, msg } => {
                if msg.as_ref().is_some_and(has_call) {
                    return Err(unsupported(
                        "a call of a user function in an assert message",
                        line,
                    ));
                }
                let test = if has_call(test) {
                    self.expr(s, test, out)?
                } else {
                    test.clone()
                };
                synthetic(
                    s,
                    StmtKind::Assert {
                        test,
                        msg: msg.clone(),
                    },
                )
            }
            StmtKind::If { test, body, orelse } => {
                let test = if has_call(test) {
                    self.expr(s, test, out)?
                } else {
                    test.clone()
                };
                let kind = StmtKind::If {
                    test,
                    body: self.block(body)?,
                    orelse: self.block(orelse)?,
                };
                synthetic(s, kind)
            }
            StmtKind::While { test, body, orelse } if has_call(test) => {
                self.while_calling(s, test, body, orelse)?
            }
            StmtKind::While { test, body, orelse } => {
                let kind = StmtKind::While {
                    test: test.clone(),
                    body: self.block(body)?,
                    orelse: self.block(orelse)?,
                };
                synthetic(s, kind)
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                if has_call(target) {
                    return Err(unsupported(
                        "a call of a user function in a for target",
                        line,
                    ));
                }
                let iter = if has_call(iter) {
                    self.expr(s, iter, out)?
                } else {
                    iter.clone()
                };
                let kind = StmtKind::For {
                    target: target.clone(),
                    iter,
                    body: self.block(body)?,
                    orelse: self.block(orelse)?,
                };
                synthetic(s, kind)
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                is_star,
            } => {
                let mut hs = handlers.clone();
                for h in &mut hs {
                    if h.type_.as_ref().is_some_and(has_call) {
                        return Err(unsupported("a call in an except clause", h.span.line));
                    }
                    h.body = self.block(&h.body)?;
                }
                let kind = StmtKind::Try {
                    body: self.block(body)?,
                    handlers: hs,
                    orelse: self.block(orelse)?,
                    finalbody: self.block(finalbody)?,
                    is_star: *is_star,
                };
                Stmt { kind, ..s.clone() }
            }
            _ => s.clone(),
        };
        out.push(rebuilt);
        Ok(())
    }

    /// An expression whose own call may stay in place (the value of `x = ...`, `return ...`,
    /// an expression statement): the arguments are hoisted, the call kept.
    fn top(&mut self, s: &Stmt, e: &Expr, out: &mut Vec<Stmt>) -> Result<Expr> {
        if user_call(e).is_some() || set_to_hold(e) {
            return self.held(s, e, out);
        }
        self.expr(s, e, out)
    }

    /// `t = e`, keeping a call of `e` itself in place.
    fn assign_value(&mut self, s: &Stmt, t: &str, e: &Expr, out: &mut Vec<Stmt>) -> Result<()> {
        let value = self.top(s, e, out)?;
        out.push(self.assign(s, t, value));
        Ok(())
    }

    /// `f(args)` with its arguments hoisted.
    fn call(&mut self, s: &Stmt, e: &Expr, out: &mut Vec<Stmt>) -> Result<Expr> {
        let ExprKind::Call {
            func,
            args,
            keywords,
        } = &e.kind
        else {
            return Ok(e.clone());
        };
        let mut operands: Vec<&Expr> = args.iter().collect();
        operands.extend(keywords.iter().map(|(_, v)| v));
        let mut hoisted = self.operands(s, &operands, out)?.into_iter();
        let args: Vec<Expr> = hoisted.by_ref().take(args.len()).collect();
        let keywords = keywords
            .iter()
            .map(|(k, _)| k.clone())
            .zip(hoisted)
            .collect();
        Ok(Expr::new(
            ExprKind::Call {
                func: func.clone(),
                args,
                keywords,
            },
            e.span,
        ))
    }

    /// Operands evaluated in order: those before the last one that calls are computed first.
    fn operands(&mut self, s: &Stmt, es: &[&Expr], out: &mut Vec<Stmt>) -> Result<Vec<Expr>> {
        let last = es.iter().rposition(|e| has_call(e));
        let mut result = Vec::with_capacity(es.len());
        for (i, e) in es.iter().enumerate() {
            let e = *e;
            result.push(match last {
                Some(l) if i < l && !is_simple(e) => {
                    let value = self.expr(s, e, out)?;
                    if value.as_name().is_some_and(|n| n.starts_with('$')) {
                        result.push(value); // a fresh temporary already
                        continue;
                    }
                    let t = self.temp();
                    out.push(self.assign(s, &t, value));
                    name(&t, e)
                }
                Some(l) if i <= l => self.expr(s, e, out)?,
                _ => e.clone(),
            });
        }
        Ok(result)
    }

    /// `e` with every user call computed beforehand into a temporary.
    fn expr(&mut self, s: &Stmt, e: &Expr, out: &mut Vec<Stmt>) -> Result<Expr> {
        if !has_call(e) {
            return Ok(e.clone());
        }
        let line = e.span.line;
        let rebuilt = |kind| Ok(Expr::new(kind, e.span));
        match &e.kind {
            ExprKind::Comprehension {
                kind: ComprehensionKind::List | ComprehensionKind::Set | ComprehensionKind::Dict,
                ..
            } => self.comprehension(s, e, out),
            _ if comprehension::consumed_generator(e).is_some() => {
                let ExprKind::Call { func, .. } = &e.kind else {
                    return Err(unsupported("a malformed call", line));
                };
                let g = comprehension::consumed_generator(e)
                    .ok_or_else(|| unsupported("a malformed call", line))?;
                let list = self.comprehension(s, g, out)?;
                rebuilt(ExprKind::Call {
                    func: func.clone(),
                    args: vec![list],
                    keywords: Vec::new(),
                })
            }
            ExprKind::Call { func, .. } if comprehension::summed_iterable(e).is_some() => {
                let xs = comprehension::summed_iterable(e)
                    .ok_or_else(|| unsupported("a malformed call", line))?;
                self.next += 1;
                let item = name(&format!("$s{}", self.next), xs);
                let generator = Expr::new(
                    ExprKind::Comprehension {
                        kind: ComprehensionKind::Generator,
                        elt: Box::new(item.clone()),
                        value: None,
                        generators: vec![Generator {
                            target: item,
                            iter: xs.clone(),
                            ifs: Vec::new(),
                        }],
                    },
                    xs.span,
                );
                let list = self.comprehension(s, &generator, out)?;
                rebuilt(ExprKind::Call {
                    func: func.clone(),
                    args: vec![list],
                    keywords: Vec::new(),
                })
            }
            _ if comprehension::repeated_display(e).is_some() => {
                let (items, count) = comprehension::repeated_display(e)
                    .ok_or_else(|| unsupported("a malformed repetition", line))?;
                self.next += 2;
                let comp =
                    comprehension::repetition_as_comprehension(items, count, e, self.next - 1);
                self.comprehension(s, &comp, out)
            }
            _ if user_call(e).is_some() || set_to_hold(e) => {
                let call = self.held(s, e, out)?;
                let t = self.temp();
                out.push(self.assign(s, &t, call));
                Ok(name(&t, e))
            }
            ExprKind::BoolOp { op, values } => self.bool_op(s, e, *op, values, out),
            ExprKind::IfExp { test, body, orelse } => {
                if !has_call(body) && !has_call(orelse) {
                    let test = self.expr(s, test, out)?;
                    return rebuilt(ExprKind::IfExp {
                        test: Box::new(test),
                        body: body.clone(),
                        orelse: orelse.clone(),
                    });
                }
                let test = self.expr(s, test, out)?;
                let t = self.temp();
                let mut then = Vec::new();
                self.assign_value(s, &t, body, &mut then)?;
                let mut other = Vec::new();
                self.assign_value(s, &t, orelse, &mut other)?;
                out.push(synthetic(
                    s,
                    StmtKind::If {
                        test,
                        body: then,
                        orelse: other,
                    },
                ));
                Ok(name(&t, e))
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                if ops.len() > 1 && comparators[1..].iter().any(has_call) {
                    return self.chain(s, e, left, ops, comparators, out);
                }
                let mut first: Vec<&Expr> = vec![left];
                first.push(&comparators[0]);
                let mut hoisted = self.operands(s, &first, out)?.into_iter();
                let (Some(l), Some(c0)) = (hoisted.next(), hoisted.next()) else {
                    return Err(unsupported("an empty comparison", line));
                };
                let mut comps = vec![c0];
                comps.extend(comparators[1..].iter().cloned());
                rebuilt(ExprKind::Compare {
                    left: Box::new(l),
                    ops: ops.clone(),
                    comparators: comps,
                })
            }
            ExprKind::BinOp { op, left, right } => self.bin_op(s, e, *op, left, right, out),
            ExprKind::UnaryOp { op, operand } => {
                let operand = self.expr(s, operand, out)?;
                rebuilt(ExprKind::UnaryOp {
                    op: *op,
                    operand: Box::new(operand),
                })
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                // A builtin or a method: the receiver, then the arguments.
                let mut operands: Vec<&Expr> = Vec::new();
                if let ExprKind::Attribute { value, .. } = &func.kind {
                    operands.push(value);
                }
                operands.extend(args.iter());
                operands.extend(keywords.iter().map(|(_, v)| v));
                let mut v = self.operands(s, &operands, out)?.into_iter();
                let func = match &func.kind {
                    ExprKind::Attribute { attr, .. } => {
                        let receiver = v
                            .next()
                            .ok_or_else(|| unsupported("a malformed call", line))?;
                        Box::new(Expr::new(
                            ExprKind::Attribute {
                                value: Box::new(receiver),
                                attr: attr.clone(),
                            },
                            func.span,
                        ))
                    }
                    _ => func.clone(),
                };
                let args: Vec<Expr> = v.by_ref().take(args.len()).collect();
                let keywords = keywords.iter().map(|(k, _)| k.clone()).zip(v).collect();
                rebuilt(ExprKind::Call {
                    func,
                    args,
                    keywords,
                })
            }
            ExprKind::Subscript { value, index } => match &index.kind {
                ExprKind::Slice { lower, upper, step } => {
                    let parts = [lower, upper, step];
                    let mut operands: Vec<&Expr> = vec![value];
                    operands.extend(parts.iter().filter_map(|p| p.as_deref()));
                    let mut v = self.operands(s, &operands, out)?.into_iter();
                    let value = v
                        .next()
                        .ok_or_else(|| unsupported("a malformed subscript", line))?;
                    let mut take =
                        |p: &Option<Box<Expr>>| p.as_ref().and_then(|_| v.next()).map(Box::new);
                    let (lower, upper, step) = (take(lower), take(upper), take(step));
                    let index = Expr::new(ExprKind::Slice { lower, upper, step }, index.span);
                    rebuilt(ExprKind::Subscript {
                        value: Box::new(value),
                        index: Box::new(index),
                    })
                }
                _ => {
                    let mut v = self.operands(s, &[value, index], out)?.into_iter();
                    let (Some(value), Some(index)) = (v.next(), v.next()) else {
                        return Err(unsupported("a malformed subscript", line));
                    };
                    rebuilt(ExprKind::Subscript {
                        value: Box::new(value),
                        index: Box::new(index),
                    })
                }
            },
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let refs: Vec<&Expr> = items.iter().collect();
                let items = self.operands(s, &refs, out)?;
                rebuilt(match &e.kind {
                    ExprKind::Tuple(_) => ExprKind::Tuple(items),
                    _ => ExprKind::List(items),
                })
            }
            ExprKind::Starred(inner) => {
                let inner = self.expr(s, inner, out)?;
                rebuilt(ExprKind::Starred(Box::new(inner)))
            }
            ExprKind::Attribute { value, attr } => {
                let value = self.expr(s, value, out)?;
                rebuilt(ExprKind::Attribute {
                    value: Box::new(value),
                    attr: attr.clone(),
                })
            }
            // The fields of an f-string, evaluated left to right (not those of a format
            // spec, which are evaluated after their field).
            ExprKind::FString(parts)
                if parts.iter().all(|p| {
                    matches!(
                        p,
                        FStringPart::Literal(_)
                            | FStringPart::Expr {
                                format_spec: None,
                                ..
                            }
                    )
                }) =>
            {
                let fields: Vec<&Expr> = parts
                    .iter()
                    .filter_map(|p| match p {
                        FStringPart::Expr { expr, .. } => Some(&**expr),
                        FStringPart::Literal(_) => None,
                    })
                    .collect();
                let mut fields = self.operands(s, &fields, out)?.into_iter();
                let parts = parts
                    .iter()
                    .map(|p| match p {
                        FStringPart::Expr {
                            expr, conversion, ..
                        } => FStringPart::Expr {
                            expr: Box::new(fields.next().unwrap_or_else(|| (**expr).clone())),
                            conversion: *conversion,
                            format_spec: None,
                        },
                        literal => literal.clone(),
                    })
                    .collect();
                rebuilt(ExprKind::FString(parts))
            }
            // Only sets to hold: where they cannot be held, the translation reads them.
            _ if !has_user_call(e) => Ok(e.clone()),
            _ => Err(unsupported(
                "a call of a user function inside a comprehension, lambda, format spec, set, dict or `:=`",
                line,
            )),
        }
    }

    /// A user call or a set to hold, its operands hoisted and itself kept.
    fn held(&mut self, s: &Stmt, e: &Expr, out: &mut Vec<Stmt>) -> Result<Expr> {
        match &e.kind {
            ExprKind::BinOp { op, left, right } => self.bin_op(s, e, *op, left, right, out),
            _ => self.call(s, e, out),
        }
    }

    /// `left op right` with its operands hoisted.
    fn bin_op(
        &mut self,
        s: &Stmt,
        e: &Expr,
        op: BinOp,
        left: &Expr,
        right: &Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<Expr> {
        let mut v = self.operands(s, &[left, right], out)?.into_iter();
        let (Some(l), Some(r)) = (v.next(), v.next()) else {
            return Err(unsupported("a malformed operation", e.span.line));
        };
        let kind = ExprKind::BinOp {
            op,
            left: Box::new(l),
            right: Box::new(r),
        };
        Ok(Expr::new(kind, e.span))
    }

    /// A comprehension as the loop it stands for (see `comprehension`): the accumulator's
    /// name.
    fn comprehension(&mut self, s: &Stmt, e: &Expr, out: &mut Vec<Stmt>) -> Result<Expr> {
        let line = e.span.line;
        let ExprKind::Comprehension {
            kind,
            elt,
            value,
            generators,
        } = &e.kind
        else {
            return Err(unsupported("a malformed comprehension", line));
        };
        let names = comprehension::targets(e)
            .ok_or_else(|| unsupported("a comprehension target other than names", line))?;
        if names.iter().any(|n| self.outside.contains(n)) {
            return Err(unsupported(
                "a comprehension whose variable is also used outside it",
                line,
            ));
        }
        let (Some(first), true) = (generators.first(), !generators.is_empty()) else {
            return Err(unsupported("a comprehension without for", line));
        };
        self.next += 1;
        let acc = format!("$c{}", self.next);
        let method = |attr: &str| {
            Expr::new(
                ExprKind::Call {
                    func: Box::new(Expr::new(
                        ExprKind::Attribute {
                            value: Box::new(name(&acc, e)),
                            attr: attr.to_string(),
                        },
                        elt.span,
                    )),
                    args: vec![(**elt).clone()],
                    keywords: Vec::new(),
                },
                elt.span,
            )
        };
        // The accumulator's start and what one item does to it: `$c.append(elt)`,
        // `$c.add(elt)`, `$c[elt] = value`.
        let (start, add) = match (kind, value) {
            (ComprehensionKind::Set, _) => (
                ExprKind::Call {
                    func: Box::new(name("set", e)),
                    args: Vec::new(),
                    keywords: Vec::new(),
                },
                StmtKind::Expr(method("add")),
            ),
            (ComprehensionKind::Dict, Some(v)) => (
                ExprKind::Dict {
                    keys: Vec::new(),
                    values: Vec::new(),
                },
                StmtKind::Assign {
                    targets: vec![Expr::new(
                        ExprKind::Subscript {
                            value: Box::new(name(&acc, e)),
                            index: elt.clone(),
                        },
                        elt.span,
                    )],
                    value: (**v).clone(),
                },
            ),
            _ => (ExprKind::List(Vec::new()), StmtKind::Expr(method("append"))),
        };
        let mut body = vec![synthetic(s, add)];
        for (k, g) in generators.iter().enumerate().rev() {
            for c in g.ifs.iter().rev() {
                body = vec![synthetic(
                    s,
                    StmtKind::If {
                        test: c.clone(),
                        body,
                        orelse: Vec::new(),
                    },
                )];
            }
            if k > 0 {
                body = vec![synthetic(
                    s,
                    StmtKind::For {
                        target: g.target.clone(),
                        iter: g.iter.clone(),
                        body,
                        orelse: Vec::new(),
                    },
                )];
            }
        }
        let body = self.block(&body)?;
        let iter = self.expr(s, &first.iter, out)?;
        out.push(self.assign(s, &acc, Expr::new(start, e.span)));
        out.push(synthetic(
            s,
            StmtKind::For {
                target: first.target.clone(),
                iter,
                body,
                orelse: Vec::new(),
            },
        ));
        Ok(name(&acc, e))
    }

    /// `a and f(x)`: the operands after the first run only while the result is undecided.
    fn bool_op(
        &mut self,
        s: &Stmt,
        e: &Expr,
        op: BoolOp,
        values: &[Expr],
        out: &mut Vec<Stmt>,
    ) -> Result<Expr> {
        let Some((first, rest)) = values.split_first() else {
            return Ok(e.clone());
        };
        if !rest.iter().any(has_call) {
            let first = self.expr(s, first, out)?;
            let mut values = vec![first];
            values.extend(rest.iter().cloned());
            return Ok(Expr::new(ExprKind::BoolOp { op, values }, e.span));
        }
        let t = self.temp();
        let v = self.expr(s, first, out)?;
        out.push(self.assign(s, &t, v));
        let rest_expr = match rest {
            [only] => only.clone(),
            _ => Expr::new(
                ExprKind::BoolOp {
                    op,
                    values: rest.to_vec(),
                },
                e.span,
            ),
        };
        let mut body = Vec::new();
        self.assign_value(s, &t, &rest_expr, &mut body)?;
        let test = match op {
            BoolOp::And => name(&t, e),
            BoolOp::Or => Expr::new(
                ExprKind::UnaryOp {
                    op: UnaryOp::Not,
                    operand: Box::new(name(&t, e)),
                },
                e.span,
            ),
        };
        out.push(synthetic(
            s,
            StmtKind::If {
                test,
                body,
                orelse: Vec::new(),
            },
        ));
        Ok(name(&t, e))
    }

    /// `a < b < f(x)`: `b` once (in a temporary unless it is a name or constant), the
    /// later comparisons under `and`.
    fn chain(
        &mut self,
        s: &Stmt,
        e: &Expr,
        left: &Expr,
        ops: &[CmpOp],
        comparators: &[Expr],
        out: &mut Vec<Stmt>,
    ) -> Result<Expr> {
        let n = comparators.len();
        if comparators[1..n - 1].iter().any(|c| !is_simple(c)) {
            return Err(unsupported(
                "a chained comparison with a call of a user function and computed middle operands",
                e.span.line,
            ));
        }
        let first = &comparators[0];
        let mut operands: Vec<Expr> = Vec::with_capacity(n + 1);
        if is_simple(first) {
            operands.push(left.clone());
            operands.push(first.clone());
        } else {
            let l = if is_simple(left) {
                left.clone()
            } else {
                let v = self.expr(s, left, out)?;
                let t = self.temp();
                out.push(self.assign(s, &t, v));
                name(&t, left)
            };
            let v = self.expr(s, first, out)?;
            let t = self.temp();
            out.push(self.assign(s, &t, v));
            operands.push(l);
            operands.push(name(&t, first));
        }
        operands.extend(comparators[1..].iter().cloned());
        let pairs = ops
            .iter()
            .enumerate()
            .map(|(i, op)| {
                Expr::new(
                    ExprKind::Compare {
                        left: Box::new(operands[i].clone()),
                        ops: vec![*op],
                        comparators: vec![operands[i + 1].clone()],
                    },
                    e.span,
                )
            })
            .collect();
        let and = Expr::new(
            ExprKind::BoolOp {
                op: BoolOp::And,
                values: pairs,
            },
            e.span,
        );
        self.expr(s, &and, out)
    }

    /// `while test(): body else: rest` as `while True:` with the test inside.
    fn while_calling(
        &mut self,
        s: &Stmt,
        test: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> Result<Stmt> {
        if breaks_out(orelse) {
            return Err(unsupported(
                "break or continue in the else of a while whose test calls a user function",
                s.span.line,
            ));
        }
        let mut inner = Vec::new();
        let test = self.expr(s, test, &mut inner)?;
        let not_test = Expr::new(
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand: Box::new(test),
            },
            s.span_expr(),
        );
        let mut exit = self.block(orelse)?;
        exit.push(synthetic(s, StmtKind::Break));
        inner.push(synthetic(
            s,
            StmtKind::If {
                test: not_test,
                body: exit,
                orelse: Vec::new(),
            },
        ));
        inner.extend(self.block(body)?);
        let truth = Expr::new(ExprKind::Constant(Constant::Bool(true)), s.span_expr());
        Ok(synthetic(
            s,
            StmtKind::While {
                test: truth,
                body: inner,
                orelse: Vec::new(),
            },
        ))
    }
}

trait SpanExpr {
    fn span_expr(&self) -> crate::python::Span;
}

impl SpanExpr for Stmt {
    fn span_expr(&self) -> crate::python::Span {
        self.header
    }
}

/// Whether a block has a `break` or `continue` that leaves it (not one of an inner loop).
fn breaks_out(block: &[Stmt]) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::While { orelse, .. } | StmtKind::For { orelse, .. } => breaks_out(orelse),
        StmtKind::FunctionDef(_) | StmtKind::ClassDef { .. } => false,
        _ => s.blocks().into_iter().any(breaks_out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    fn hoisted(src: &str) -> Vec<String> {
        let m = lower_module(src).unwrap();
        let mut out = Vec::new();
        fn walk(stmts: &[Stmt], depth: usize, out: &mut Vec<String>) {
            for s in stmts {
                out.push(format!("{}{}", "  ".repeat(depth), s.text));
                for b in s.blocks() {
                    walk(b, depth + 1, out);
                }
            }
        }
        walk(&hoist_block(&m.body).unwrap(), 0, &mut out);
        out
    }

    #[test]
    fn calls_become_statements_in_evaluation_order() {
        expect_test::expect![[r#"
            [
                "r = f(x)",
                "$1 = a // b",
                "$2 = f(x)",
                "y = $1 + $2 * len(t)",
                "$3 = g(x)",
                "$4 = f($3)",
                "if $4 > 0:",
                "  return f(y)",
                "$5 = a",
                "if $5:",
                "  $5 = f(a)",
                "z = $5",
                "while True:",
                "  $6 = f(z)",
                "  if not $6 < 3:",
                "    z = 0",
                "    break",
                "  z = z + 1",
            ]
        "#]]
        .assert_debug_eq(&hoisted(
            "r = f(x)\ny = a // b + f(x) * len(t)\nif f(g(x)) > 0:\n    return f(y)\nz = a and f(a)\nwhile f(z) < 3:\n    z = z + 1\nelse:\n    z = 0\n",
        ));
    }
}
