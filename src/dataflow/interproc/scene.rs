//! The functions an interprocedural bit-vector analysis covers: the entry function and every
//! session function reachable from it by calls by name, with their CFGs, their locals, the
//! module globals they touch, and the call nodes between them.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::NodeIndex;

use super::{InterError, Unfollowed, unfollowed_calls};
use crate::cfg::Item;
use crate::dataflow::analyses::Program;
use crate::python::ir::{ExprKind, Function, Stmt, StmtKind};

/// The functions analysed, the entry first.
pub struct Scene<'f> {
    pub names: Vec<String>,
    pub programs: Vec<Program<'f>>,
    pub locals: Vec<BTreeSet<String>>,
    /// The module globals tracked: names declared `global`, and names read without being
    /// bound that are neither called (functions, classes) nor builtins.
    pub globals: BTreeSet<String>,
    /// Per function: its nodes that call functions of the scene, with the callees (by index,
    /// in call order, repeats kept), and whether every such call surely runs when the node
    /// completes ([`surely_calls`]).
    pub call_nodes: Vec<Vec<(NodeIndex, Vec<usize>, bool)>>,
    /// Calls of anything else (methods, builtins, unknown names).
    pub unfollowed: Vec<Unfollowed>,
}

impl<'f> Scene<'f> {
    /// The scene of `entry` among `functions` (methods, never called by a plain name, are
    /// left out).
    pub fn new(functions: &[&'f Function], entry: &str) -> Result<Scene<'f>, InterError> {
        let callable: BTreeMap<&str, &'f Function> = functions
            .iter()
            .filter(|f| !f.qualname.contains('.'))
            .map(|f| (f.name.as_str(), *f))
            .collect();
        let root = *callable
            .get(entry)
            .ok_or_else(|| InterError::Unknown(entry.to_string()))?;
        let mut scene = Scene {
            names: Vec::new(),
            programs: Vec::new(),
            locals: Vec::new(),
            globals: BTreeSet::new(),
            call_nodes: Vec::new(),
            unfollowed: Vec::new(),
        };
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        let mut queue = vec![root];
        index.insert(root.name.clone(), 0);
        let mut i = 0;
        while i < queue.len() {
            let f = queue[i];
            i += 1;
            let program = Program::function(f).map_err(|e| InterError::Cfg(f.name.clone(), e))?;
            for n in program.cfg.nodes() {
                for callee in &program.cfg.node(n).calls {
                    if let Some(g) = callable.get(callee.as_str())
                        && !index.contains_key(callee)
                    {
                        index.insert(callee.clone(), queue.len());
                        queue.push(g);
                    }
                }
            }
            scene.names.push(f.name.clone());
            scene.locals.push(program.locals());
            scene.programs.push(program);
        }
        let names: BTreeSet<&str> = callable.keys().copied().collect();
        let mut called: BTreeSet<String> = BTreeSet::new();
        for p in &scene.programs {
            for n in p.cfg.nodes() {
                called.extend(p.cfg.node(n).calls.iter().cloned());
            }
        }
        for (f, p) in scene.programs.iter().enumerate() {
            let mut nodes = Vec::new();
            for n in p.cfg.nodes() {
                let callees: Vec<usize> = p
                    .cfg
                    .node(n)
                    .calls
                    .iter()
                    .filter_map(|c| index.get(c).copied())
                    .collect();
                if !callees.is_empty() {
                    let sure = matches!(p.item(n), Some(Item::Stmt(s)) if surely_calls(s));
                    nodes.push((n, callees, sure));
                }
                if let Some(Item::Stmt(s)) = p.item(n)
                    && let StmtKind::Global(declared) = &s.kind
                {
                    scene.globals.extend(declared.iter().cloned());
                }
                let info = p.info(n);
                for v in info.uses.iter().chain(&info.defs).chain(&info.deletes) {
                    if !scene.locals[f].contains(v)
                        && !called.contains(v)
                        && !names.contains(v.as_str())
                        && !is_builtin(v)
                    {
                        scene.globals.insert(v.clone());
                    }
                }
            }
            scene.call_nodes.push(nodes);
            scene
                .unfollowed
                .extend(unfollowed_calls(&scene.names[f], p, &names));
        }
        scene.unfollowed.sort();
        scene.unfollowed.dedup();
        Ok(scene)
    }

    /// Whether `var`, seen in function `f`, is tracked, and in which scope.
    pub fn scope(&self, f: usize, var: &str) -> Option<super::facts::Scope> {
        use super::facts::Scope;
        if self.locals[f].contains(var) {
            Some(Scope::Local(self.names[f].clone()))
        } else if self.globals.contains(var) {
            Some(Scope::Global)
        } else {
            None
        }
    }

    /// Function `f`'s callers: (caller, call node).
    pub fn callers(&self, f: usize) -> Vec<(usize, NodeIndex)> {
        let mut out = Vec::new();
        for (g, nodes) in self.call_nodes.iter().enumerate() {
            for (n, callees, _) in nodes {
                if callees.contains(&f) {
                    out.push((g, *n));
                }
            }
        }
        out
    }
}

/// A Python builtin (function, type, constant or exception) or a dunder the interpreter
/// provides.
fn is_builtin(name: &str) -> bool {
    crate::python::builtins::is_builtin(name) || (name.starts_with("__") && name.ends_with("__"))
}

/// Whether each call in `s`'s own expressions runs whenever `s` completes: a simple statement
/// or an `if`/`while` test with no `and`/`or`, conditional expression, chained comparison,
/// lambda or comprehension (which may skip a call). Then a call's effect on the globals
/// replaces the state instead of joining it.
pub fn surely_calls(s: &Stmt) -> bool {
    let simple = matches!(
        s.kind,
        StmtKind::Expr(_)
            | StmtKind::Assign { .. }
            | StmtKind::AugAssign { .. }
            | StmtKind::AnnAssign { .. }
            | StmtKind::Return(_)
            | StmtKind::If { .. }
            | StmtKind::While { .. }
    );
    let mut sure = simple;
    for e in s.exprs() {
        e.walk(&mut |e| {
            sure &= !matches!(
                &e.kind,
                ExprKind::BoolOp { .. }
                    | ExprKind::IfExp { .. }
                    | ExprKind::Lambda { .. }
                    | ExprKind::Comprehension { .. }
                    | ExprKind::Unsupported { .. }
            ) && !matches!(&e.kind, ExprKind::Compare { ops, .. } if ops.len() > 1);
        });
    }
    sure
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::lower_module;

    #[test]
    fn surely_calls_only_without_short_circuits() {
        let m = lower_module(
            "def f(a):\n    x = g(a)\n    y = a and g(a)\n    z = g(a) if a else 0\n    for i in g(a):\n        pass\n    if g(a):\n        pass\n    w = 0 < g(a) < 5\n    return g(a)\n\ndef g(a):\n    return a\n",
        )
        .unwrap();
        let f = m.function("f").unwrap();
        let sure: Vec<bool> = f.body.iter().map(surely_calls).collect();
        assert_eq!(sure, [true, false, false, false, true, false, true]);
    }

    #[test]
    fn the_scene_tracks_globals_not_functions_or_builtins() {
        let m = lower_module(
            "def f(a):\n    global g\n    g = len([a]) + h\n    return k(a)\n\ndef k(b):\n    return b + g\n\ndef unused():\n    return 0\n",
        )
        .unwrap();
        let fns: Vec<&Function> = m.functions().collect();
        let s = Scene::new(&fns, "f").unwrap();
        assert_eq!(s.names, ["f", "k"], "unused is not reached");
        let globals: Vec<&str> = s.globals.iter().map(String::as_str).collect();
        assert_eq!(globals, ["g", "h"]);
        assert_eq!(s.callers(1).len(), 1);
        assert!(s.unfollowed.iter().any(|u| u.callee == "len"));
    }
}
