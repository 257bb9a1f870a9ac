//! `eval(source)` and `exec(source)` of a string at a cell's top level: parsed by the
//! kernel's Python front end, compiled against the session's globals and run in a module
//! frame. With explicit `globals`/`locals` dicts, or inside a function (whose local variables
//! the compiled code could not see), they are refused by name.

use super::call::{Kwargs, arity, no_kwargs};
use super::code::{Body, StmtKind};
use super::compile::{CompileError, compile_module};
use super::exc::{ExcKind, R, Unwind, fail, type_error};
use super::exec::Flow;
use super::machine::{Frame, Machine};
use super::value::Value;
use crate::python::{ir, lower_expression, lower_module};

impl Machine {
    /// `eval(...)` (`exec` when `statements`).
    pub fn eval_source(&mut self, args: Vec<Value>, kwargs: Kwargs, statements: bool) -> R<Value> {
        let name = if statements { "exec" } else { "eval" };
        no_kwargs(name, &kwargs)?;
        arity(name, &args, 1, 3)?;
        if args.len() > 1 {
            return Err(Unwind::unsupported(format!(
                "{name}() with globals or locals dicts"
            )));
        }
        if self.depth > 0 {
            return Err(Unwind::unsupported(format!(
                "{name}() inside a function (the code would not see the function's local variables)"
            )));
        }
        let Value::Str(source) = &args[0] else {
            return type_error(format!(
                "{name}() arg 1 must be a string, bytes or code object"
            ));
        };
        let text = source.as_str();
        let module = if statements {
            lower_module(text).map_err(syntax_error)?
        } else {
            let trimmed = text.trim_start_matches([' ', '\t']);
            let expr = lower_expression(trimmed).map_err(syntax_error)?;
            ir::Module {
                body: vec![ir::Stmt {
                    id: ir::StmtId(0),
                    span: expr.span,
                    header: expr.span,
                    text: trimmed.to_string(),
                    kind: ir::StmtKind::Expr(expr),
                }],
            }
        };
        let code = compile_module(&module, &mut self.globals).map_err(|e| match e {
            CompileError::Syntax { message, .. } => syntax_error_text(message),
            CompileError::Unsupported { construct, .. } => Unwind::unsupported(construct),
        })?;
        let Body::Block(body) = &code.body else {
            return Ok(Value::None);
        };
        let mut frame = Frame::module();
        if statements {
            return match self.exec_block(&mut frame, body)? {
                Flow::Return(_) => fail(ExcKind::SyntaxError, "'return' outside function"),
                _ => Ok(Value::None),
            };
        }
        match body.first().map(|s| &s.kind) {
            Some(StmtKind::Expr(e)) => self.eval(&mut frame, e),
            _ => Ok(Value::None),
        }
    }
}

fn syntax_error(e: crate::python::SourceError) -> Unwind {
    syntax_error_text(e.message)
}

fn syntax_error_text(message: String) -> Unwind {
    Unwind::new(ExcKind::SyntaxError, message)
}

#[cfg(test)]
mod tests {
    use crate::interp::RunError;

    fn result(src: &str) -> Result<(), RunError> {
        crate::interp::tests::run(src).result.map(|_| ())
    }

    #[test]
    fn eval_is_refused_where_it_would_be_wrong() {
        let refused = |src: &str| match result(src) {
            Err(RunError::Unsupported { construct, line }) => format!("{construct} @{line}"),
            other => format!("{other:?}"),
        };
        assert_eq!(
            refused("def f(a):\n    return eval('a + 1')\nf(1)"),
            "eval() inside a function (the code would not see the function's local variables) @2"
        );
        assert_eq!(
            refused("x = eval('1', {})"),
            "eval() with globals or locals dicts @1"
        );
        assert_eq!(
            refused("exec('y = 1', {'a': 1})"),
            "exec() with globals or locals dicts @1"
        );
        assert_eq!(
            format!("{:?}", result("exec('q = 2')\nassert q == 2")),
            "Ok(())"
        );
    }
}
