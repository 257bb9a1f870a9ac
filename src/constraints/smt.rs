//! The SMT-LIB text of a path's constraints: declarations, then one `(assert …)` per
//! constraint as Z3 prints its lowering. Written here rather than through a solver, which
//! would cost a Z3 solver per path; each term is printed once however many paths share it.

use std::collections::BTreeMap;

use crate::symbolic::solver::smtlib;
use crate::symbolic::{SolverError, Sort, Term, TermMemo, Var};

/// A term's variables and `(assert …)` lines.
type Printed = Result<(Vec<(Var, Sort)>, Vec<String>), SolverError>;

/// Writes scripts, printing each term (by identity) once.
#[derive(Default)]
pub struct Scripts {
    printed: TermMemo<Printed>,
}

impl Scripts {
    /// The SMT-LIB script asserting every term.
    pub fn script(&mut self, terms: &[&Term]) -> Result<String, SolverError> {
        let mut vars: BTreeMap<Var, Sort> = BTreeMap::new();
        let mut asserts = Vec::with_capacity(terms.len());
        for t in terms {
            let (term_vars, lines) = self
                .printed
                .get_or(t, print)
                .as_ref()
                .map_err(Clone::clone)?;
            vars.extend(term_vars.iter().cloned());
            asserts.extend(lines.iter().cloned());
        }
        let mut out: Vec<String> = vars
            .iter()
            .map(|(v, s)| Ok(format!("(declare-const {} {})", symbol(v), sort_name(s)?)))
            .collect::<Result<_, SolverError>>()?;
        out.extend(asserts);
        Ok(out.join("\n"))
    }
}

/// A term's variables and `(assert …)` lines (with those of its auxiliary constants).
fn print(t: &Term) -> Printed {
    let text = smtlib(t)?;
    let mut asserts = Vec::new();
    let mut lines = text.lines();
    if let Some(first) = lines.next() {
        asserts.push(format!("(assert {first})"));
    }
    asserts.extend(lines.map(str::to_string));
    Ok((t.vars(), asserts))
}

/// The SMT-LIB script asserting every term.
#[cfg(test)]
pub fn script(terms: &[&Term]) -> Result<String, SolverError> {
    Scripts::default().script(terms)
}

/// The variable's Z3 name (`x`, `x@2`, `t[0]`), quoted unless it is a simple symbol.
fn symbol(v: &Var) -> String {
    let mut name = v.name.clone();
    if v.version > 0 {
        name.push_str(&format!("@{}", v.version));
    }
    for i in &v.path {
        name.push_str(&format!("[{i}]"));
    }
    let simple_char = |c: char| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c);
    let simple = name.chars().all(simple_char)
        && name
            .chars()
            .next()
            .is_some_and(|c| !c.is_ascii_digit() && c != '@');
    if simple { name } else { format!("|{name}|") }
}

fn sort_name(s: &Sort) -> Result<String, SolverError> {
    Ok(match s {
        Sort::Bool => "Bool".into(),
        Sort::Int => "Int".into(),
        Sort::Real => "Real".into(),
        Sort::Str => "String".into(),
        Sort::Seq(_, item) => format!("(Seq {})", sort_name(item)?),
        Sort::Fixed(..) => {
            return Err(SolverError::Unsupported(format!(
                "a variable of sort '{s}'"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_expression;
    use crate::symbolic::{Env, translate_condition};

    #[test]
    fn declarations_then_assertions() {
        let mut env = Env::new();
        env.declare("x", &Sort::Int).unwrap();
        env.declare("s", &Sort::Str).unwrap();
        env.bind(
            "y",
            Term::var(
                Var {
                    name: "y".into(),
                    version: 2,
                    path: vec![],
                },
                Sort::Real,
            )
            .unwrap(),
        );
        let a = translate_condition(&lower_expression("x > 0 and y < 1.5").unwrap(), &env).unwrap();
        let b = translate_condition(&lower_expression("s[-1] == 'a'").unwrap(), &env).unwrap();
        let text = script(&[&a.value, &b.value]).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            &lines[..3],
            [
                "(declare-const s String)",
                "(declare-const x Int)",
                "(declare-const y@2 Real)"
            ]
        );
        assert!(lines[3].starts_with("(assert (and (> x 0)"), "{text}");
        assert!(
            lines.iter().skip(4).all(|l| l.starts_with("(assert")),
            "{text}"
        );
    }
}
