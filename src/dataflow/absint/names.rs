//! The variable table of one program: every name the abstract interpreter may bind, sorted,
//! each with a slot number, so that a state can be a dense vector indexed by slot.

use std::collections::BTreeSet;

use super::scope::Scope;
use crate::dataflow::analyses::Program;
use crate::fxhash::{FxHashMap, FxHashSet};

/// Sorted, distinct names; a name's slot is its position.
#[derive(Clone, Debug, Default)]
pub struct Names {
    names: Vec<String>,
    /// Each name's slot: looked up on every read and write of a variable.
    slots: FxHashMap<String, usize>,
}

impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names
    }
}

impl Eq for Names {}

impl Names {
    /// The table of `names` (sorted, duplicates dropped).
    pub fn new(names: impl IntoIterator<Item = String>) -> Names {
        let set: BTreeSet<String> = names.into_iter().collect();
        Names::sorted(set.into_iter().collect())
    }

    /// The table of sorted, distinct `names`.
    fn sorted(names: Vec<String>) -> Names {
        let slots = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Names { names, slots }
    }

    /// Every name `program` can bind or refine: parameters, the names its nodes bind, delete
    /// or read (a branch condition may refine a global at top level), and the names calls
    /// may rebind.
    pub fn of(program: &Program<'_>, scope: &Scope) -> Names {
        let mut out: FxHashSet<&str> = program.params.iter().map(|p| p.name.as_str()).collect();
        out.extend(scope.clobbered.iter().map(String::as_str));
        for info in &program.nodes {
            for n in [&info.uses, &info.defs, &info.deletes, &info.branch_defs] {
                out.extend(n.iter().map(String::as_str));
            }
        }
        let mut names: Vec<String> = out.into_iter().map(str::to_string).collect();
        names.sort();
        Names::sorted(names)
    }

    /// The slot of `name`, if the table has it.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.slots.get(name).copied()
    }

    /// The name in `slot`.
    pub fn name(&self, slot: usize) -> Option<&str> {
        self.names.get(slot).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    #[test]
    fn every_name_that_may_be_bound_has_a_slot() {
        let src = "def f(a, *rest):\n    global g\n    b, (c, d) = a, (1, 2)\n    if (w := a) > h:\n        pass\n    try:\n        del b\n    except ValueError as e:\n        pass\n    match a:\n        case [x, *ys]:\n            pass\n    import os.path as p\n    for i in range(a):\n        k = [j for j in rest if (m := j)]\n    def inner():\n        nonlocal c\n    return g\n";
        let m = lower_module(src).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("f").unwrap_or_else(|| panic!("no f"));
        let p = Program::function(f).unwrap_or_else(|e| panic!("{e}"));
        let names = Names::of(&p, &Scope::new(&p));
        let expected = "a rest b c d w h e x ys p i k m inner g range";
        for n in expected.split(' ') {
            assert!(names.slot(n).is_some(), "{n} has no slot");
        }
        let all: Vec<&str> = (0..names.len()).filter_map(|i| names.name(i)).collect();
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(all, sorted);
        assert_eq!(names.slot("nope"), None);
    }
}
