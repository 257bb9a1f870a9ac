//! `with` statements: `__enter__` binds the `as` target, `__exit__` runs on every way out
//! with the exception (type, value, `None` for the traceback) and suppresses it when it
//! returns a true value. Several items nest left to right.

use super::call::Kwargs;
use super::code::{Stmt, Target};
use super::exc::{R, type_error};
use super::exec::Flow;
use super::machine::{Frame, Handled, Machine};
use super::value::Value;

impl Machine {
    pub fn exec_with(
        &mut self,
        f: &mut Frame,
        items: &[(super::code::Expr, Option<Target>)],
        body: &[Stmt],
    ) -> R<Flow> {
        let Some(((expr, target), rest)) = items.split_first() else {
            return self.exec_block(f, body);
        };
        let manager = self.eval(f, expr)?;
        let (enter, exit) = match &manager {
            Value::Instance(i) => (i.class.lookup("__enter__"), i.class.lookup("__exit__")),
            _ => (None, None),
        };
        let (Some(enter), Some(exit)) = (enter, exit) else {
            let missing = match &manager {
                Value::Instance(i) if i.class.lookup("__enter__").is_some() => {
                    " (missed __exit__ method)"
                }
                _ => "",
            };
            return type_error(format!(
                "'{}' object does not support the context manager protocol{missing}",
                manager.type_name()
            ));
        };
        let entered = self.call_method_value(&enter, manager.clone(), Vec::new(), Kwargs::new())?;
        let result = match target {
            Some(t) => self.assign(f, t, entered),
            None => Ok(()),
        }
        .and_then(|()| self.exec_with(f, rest, body));
        match result {
            Err(unwind) if unwind.is_raise() => {
                let Some(raised) = unwind.raised() else {
                    return Err(unwind);
                };
                let exc = Value::Exception(raised.exc.clone());
                let args = vec![super::builtins::type_of(&exc), exc, Value::None];
                self.handling.push(Handled {
                    exc: raised.exc.clone(),
                    tb: raised.tb.clone(),
                });
                let r = self.call_method_value(&exit, manager, args, Kwargs::new());
                self.handling.pop();
                super::exc_chain::chain_leaving(&r, &raised.exc);
                if self.truth(&r?)? {
                    Ok(Flow::Normal)
                } else {
                    Err(unwind)
                }
            }
            Err(abort) => Err(abort),
            Ok(flow) => {
                let none = vec![Value::None, Value::None, Value::None];
                self.call_method_value(&exit, manager, none, Kwargs::new())?;
                Ok(flow)
            }
        }
    }
}
