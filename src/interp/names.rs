//! Attribute names shared by pointer: the compiler interns every attribute name it meets
//! and namespaces store interned keys, so a lookup from compiled code usually finds its key
//! by comparing pointers, without comparing text. Text comparison stays the fallback, so a
//! name that was not interned (from `getattr(o, s)`) is still found.

use std::rc::Rc;

use crate::fxhash::FxHashSet;

thread_local! {
    /// The interpreter thread's names (bounded by the attribute names of the programs run).
    static NAMES: std::cell::RefCell<FxHashSet<Rc<str>>> = Default::default();
}

/// The shared copy of `name`.
pub(crate) fn intern(name: &str) -> Rc<str> {
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some(n) = names.get(name) {
            return n.clone();
        }
        let n: Rc<str> = name.into();
        names.insert(n.clone());
        n
    })
}

/// The index of the entry named `name`: by pointer first, then by text.
#[inline]
pub(crate) fn position<V>(entries: &[(Rc<str>, V)], name: &str) -> Option<usize> {
    let p = name.as_ptr();
    entries
        .iter()
        .position(|(n, _)| n.as_ptr() == p && n.len() == name.len())
        .or_else(|| entries.iter().position(|(n, _)| **n == *name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_names_are_shared_and_found_by_text_too() {
        let a = intern("pos");
        assert!(Rc::ptr_eq(&a, &intern("pos")));
        let entries = vec![(intern("x"), 1), (a.clone(), 2)];
        assert_eq!(position(&entries, &a), Some(1));
        let text = String::from("pos");
        assert_eq!(position(&entries, &text), Some(1));
        assert_eq!(position(&entries, "y"), None);
    }
}
