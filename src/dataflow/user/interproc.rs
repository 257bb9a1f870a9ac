//! `%absint NAME f --context K` / `--summaries` with a user domain: the interprocedural
//! analysis of [`crate::dataflow::interproc`] over [`UserElem`], run on the interpreter's
//! thread like the intraprocedural one ([`super::absint`]).

use std::sync::Arc;

use super::{Failure, UserElem, domain, enter, intern, user_failure};
use crate::cancel::Cancel;
use crate::dataflow::absint;
use crate::dataflow::interproc::{self, InterError, Interprocedural, Sensitivity, Shown};
use crate::python::ir;

/// Runs the analysis of `entry` in user domain `name`; the outer error is the user's code
/// failing, the inner one the analysis's own. Also returns the calls into user code.
pub fn run(
    name: &str,
    functions: Vec<Arc<ir::Function>>,
    entry: &str,
    sensitivity: Sensitivity,
    cancel: &Cancel,
) -> Result<(Result<Shown, InterError>, u64), Failure> {
    let _entered = enter(name)?;
    let refs: Vec<&ir::Function> = functions.iter().map(|f| &**f).collect();
    let options = absint::options(false, Some(cancel));
    let result = interproc::analyze::<UserElem>(&refs, entry, sensitivity, &options);
    if let Some(e) = domain::take_error() {
        return Err(user_failure(e, None));
    }
    let shown = result.map(Interprocedural::shown).map(|mut s| {
        s.domain = intern(name);
        for c in &mut s.contexts {
            c.report.name = intern(name);
        }
        s
    });
    Ok((shown, domain::calls()))
}
