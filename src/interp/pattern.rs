//! The `match` statement: cases tried in order, patterns matched with CPython 3.11's rules
//! (sequence and mapping subjects, class patterns with `__match_args__` or the builtins that
//! match themselves), names bound only when a whole pattern matches, then the guard.

use std::rc::Rc;

use super::code::{Case, Expr, Pat, Var};
use super::dict::{Dict, key_of};
use super::exc::{ExcClass, ExcKind, R, Unwind, type_error};
use super::exec::Flow;
use super::machine::{Frame, Machine};
use super::ops;
use super::value::{TypeKind, Value};
use crate::python::ir::CmpOp;

/// Bindings made by a pattern, stored when the whole pattern matched.
type Bindings = Vec<(Var, Value)>;

/// The builtin types whose class pattern takes one positional sub-pattern matched against
/// the subject itself (CPython's `_Py_TPFLAGS_MATCH_SELF`).
const MATCH_SELF: &[TypeKind] = &[
    TypeKind::Bool,
    TypeKind::Bytes,
    TypeKind::Dict,
    TypeKind::Float,
    TypeKind::FrozenSet,
    TypeKind::Int,
    TypeKind::List,
    TypeKind::Set,
    TypeKind::Str,
    TypeKind::Tuple,
];

impl Machine {
    /// Runs the first case whose pattern matches and whose guard holds.
    pub fn exec_match(&mut self, f: &mut Frame, subject: &Expr, cases: &[Case]) -> R<Flow> {
        let value = self.eval(f, subject)?;
        for case in cases {
            let mut bound = Bindings::new();
            let matched = self
                .match_pattern(f, &case.pattern, &value, &mut bound)
                .map_err(|e| self.annotate(e, case.line, &case.text, &case.function))?;
            if !matched {
                continue;
            }
            for (var, v) in bound {
                self.store(f, var, v);
            }
            if let Some(g) = &case.guard {
                let holds = self
                    .eval_cond(f, g)
                    .map_err(|e| self.annotate(e, case.line, &case.text, &case.function))?;
                if !holds {
                    continue;
                }
            }
            return self.exec_block(f, &case.body);
        }
        Ok(Flow::Normal)
    }

    fn match_pattern(
        &mut self,
        f: &mut Frame,
        p: &Pat,
        v: &Value,
        bound: &mut Bindings,
    ) -> R<bool> {
        self.tick()?;
        match p {
            Pat::Wildcard => Ok(true),
            Pat::Capture(var) => {
                bound.push((*var, v.clone()));
                Ok(true)
            }
            Pat::Singleton(s) => Ok(ops::is(v, s)),
            Pat::Value(e) => {
                let want = self.eval(f, e)?;
                self.compare(CmpOp::Eq, v, &want)
            }
            Pat::As(inner, var) => {
                if !self.match_pattern(f, inner, v, bound)? {
                    return Ok(false);
                }
                bound.push((*var, v.clone()));
                Ok(true)
            }
            Pat::Or(alternatives) => {
                for alt in alternatives {
                    let mut attempt = Bindings::new();
                    if self.match_pattern(f, alt, v, &mut attempt)? {
                        bound.extend(attempt);
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Pat::Sequence { items, star } => self.match_sequence(f, items, star, v, bound),
            Pat::Mapping {
                keys,
                patterns,
                rest,
            } => self.match_mapping(f, keys, patterns, *rest, v, bound),
            Pat::Class {
                cls,
                patterns,
                keywords,
            } => {
                let cls = self.eval(f, cls)?;
                let names: Vec<Rc<str>> = keywords.iter().map(|(n, _)| n.clone()).collect();
                let Some(parts) = self.match_class(v, &cls, patterns.len(), &names)? else {
                    return Ok(false);
                };
                let subs = patterns.iter().chain(keywords.iter().map(|(_, q)| q));
                for (q, part) in subs.zip(parts) {
                    if !self.match_pattern(f, q, &part, bound)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    fn match_sequence(
        &mut self,
        f: &mut Frame,
        items: &[Pat],
        star: &Option<(usize, Option<Var>)>,
        v: &Value,
        bound: &mut Bindings,
    ) -> R<bool> {
        let values: Vec<Value> = match v {
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) => t.to_vec(),
            Value::Range(_) => self.collect(v.clone())?,
            _ => return Ok(false),
        };
        let n = items.len();
        match star {
            None => {
                if values.len() != n {
                    return Ok(false);
                }
                for (q, x) in items.iter().zip(&values) {
                    if !self.match_pattern(f, q, x, bound)? {
                        return Ok(false);
                    }
                }
            }
            Some((at, var)) => {
                if values.len() + 1 < n {
                    return Ok(false);
                }
                let after = n - at - 1;
                for (q, x) in items[..*at].iter().zip(&values) {
                    if !self.match_pattern(f, q, x, bound)? {
                        return Ok(false);
                    }
                }
                let tail = values.len() - after;
                if let Some(var) = var {
                    bound.push((*var, Value::list(values[*at..tail].to_vec())));
                }
                for (q, x) in items[at + 1..].iter().zip(&values[tail..]) {
                    if !self.match_pattern(f, q, x, bound)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    fn match_mapping(
        &mut self,
        f: &mut Frame,
        keys: &[Expr],
        patterns: &[Pat],
        rest: Option<Var>,
        v: &Value,
        bound: &mut Bindings,
    ) -> R<bool> {
        let Value::Dict(d) = v else {
            return Ok(false);
        };
        if d.borrow().len() < keys.len() {
            return Ok(false);
        }
        let mut seen = Vec::new();
        for (k, q) in keys.iter().zip(patterns) {
            let key = self.eval(f, k)?;
            let hashed = key_of(&key)?;
            if seen.contains(&hashed) {
                return Err(Unwind::new(
                    ExcKind::ValueError,
                    format!(
                        "mapping pattern checks duplicate key ({})",
                        super::repr::repr(&key)?
                    ),
                ));
            }
            let found = d.borrow().get(&hashed).cloned();
            seen.push(hashed);
            let Some(x) = found else {
                return Ok(false);
            };
            if !self.match_pattern(f, q, &x, bound)? {
                return Ok(false);
            }
        }
        if let Some(var) = rest {
            let mut copy = Dict::default();
            for (k, x) in d.borrow().iter() {
                let key = key_of(k)?;
                if !seen.contains(&key) {
                    copy.insert(key, k.clone(), x.clone());
                }
            }
            bound.push((var, Value::Dict(Rc::new(std::cell::RefCell::new(copy)))));
        }
        Ok(true)
    }

    /// CPython's `MATCH_CLASS`: whether `subject` is an instance of `cls`, and if so the
    /// values the `npos` positional sub-patterns (through `__match_args__`, or the subject
    /// itself for the builtins that match themselves) and the keyword sub-patterns (by
    /// attribute) are matched against; `None` when it does not match.
    pub fn match_class(
        &mut self,
        subject: &Value,
        cls: &Value,
        npos: usize,
        keywords: &[Rc<str>],
    ) -> R<Option<Vec<Value>>> {
        if let Value::Unavailable(what) = cls {
            return Err(Unwind::unsupported(what.to_string()));
        }
        if cls.type_kind() != Some(TypeKind::Type) {
            return type_error("called match pattern must be a type");
        }
        if !self.isinstance(subject, cls, false)? {
            return Ok(None);
        }
        let type_name = match cls {
            Value::Type(t) => t.name().to_string(),
            Value::ExcType(k) => k.name().to_string(),
            Value::UserExcType(c) => c.name.to_string(),
            other => match self.getattr(other, "__name__")? {
                Value::Str(s) => s.as_str().to_string(),
                _ => "?".into(),
            },
        };
        let mut parts = Vec::with_capacity(npos + keywords.len());
        let mut names: Vec<Rc<str>> = Vec::new();
        if npos > 0 {
            let match_args = match cls {
                Value::Type(_) | Value::ExcType(_) | Value::UserExcType(_) => None,
                other => self.attr_or_none(other, "__match_args__")?,
            };
            match match_args {
                Some(Value::Tuple(args)) => {
                    if npos > args.len() {
                        return type_error(format!(
                            "{type_name}() accepts {} positional sub-pattern{} ({npos} given)",
                            args.len(),
                            if args.len() == 1 { "" } else { "s" }
                        ));
                    }
                    for a in args.iter().take(npos) {
                        let Value::Str(name) = a else {
                            return type_error(format!(
                                "__match_args__ elements must be strings (got {})",
                                a.type_name()
                            ));
                        };
                        names.push(name.as_str().into());
                    }
                }
                Some(other) => {
                    return type_error(format!(
                        "{type_name}.__match_args__ must be a tuple (got {})",
                        other.type_name()
                    ));
                }
                None => {
                    let match_self = matches!(cls, Value::Type(t) if MATCH_SELF.contains(t));
                    let allowed = usize::from(match_self);
                    if npos > allowed {
                        return type_error(format!(
                            "{type_name}() accepts {allowed} positional sub-pattern{} ({npos} given)",
                            if allowed == 1 { "" } else { "s" }
                        ));
                    }
                    parts.push(subject.clone());
                }
            }
        }
        for name in names.iter().chain(keywords) {
            if names.iter().chain(keywords).filter(|n| *n == name).count() > 1 {
                return type_error(format!(
                    "{type_name}() got multiple sub-patterns for attribute '{name}'"
                ));
            }
            match self.attr_or_none(subject, name)? {
                Some(x) => parts.push(x),
                None => return Ok(None),
            }
        }
        Ok(Some(parts))
    }

    /// `getattr(o, name)`, or `None` on `AttributeError`.
    fn attr_or_none(&mut self, o: &Value, name: &str) -> R<Option<Value>> {
        match self.getattr(o, name) {
            Ok(v) => Ok(Some(v)),
            Err(unwind) if unwind.raises(&ExcClass::Builtin(ExcKind::AttributeError)) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::interp::RunError;

    fn result(src: &str) -> Result<(), RunError> {
        crate::interp::tests::run(src).result.map(|_| ())
    }

    #[test]
    fn unreachable_cases_are_syntax_errors_as_in_cpython() {
        let syntax = |src: &str| match result(src) {
            Err(RunError::Syntax { message, line }) => format!("{message} @{line}"),
            other => format!("{other:?}"),
        };
        assert_eq!(
            syntax("match 1:\n    case x:\n        pass\n    case 2:\n        pass"),
            "name capture 'x' makes remaining patterns unreachable @2"
        );
        assert_eq!(
            syntax("match 1:\n    case _:\n        pass\n    case 2:\n        pass"),
            "wildcard makes remaining patterns unreachable @2"
        );
        assert_eq!(
            syntax("match 1:\n    case [x] | (y, 2):\n        pass"),
            "alternative patterns bind different names @2"
        );
        assert_eq!(
            syntax("match 1:\n    case x if x:\n        pass\n    case _:\n        pass"),
            "Ok(())"
        );
    }
}
