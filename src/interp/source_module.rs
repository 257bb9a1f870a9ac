//! Modules written in Python (`prelude/*.py`): each runs once per session, the first time
//! a cell imports it anywhere in its code, and binds one global holding the module object
//! (an instance whose attributes are the module's names). `analysis` is one (see
//! `host.rs`); `contextlib` is another.

use super::RunError;
use super::machine::Machine;
use crate::python::ir;

/// A module the interpreter runs from Python source.
pub(crate) struct SourceModule {
    /// The import name.
    pub name: &'static str,
    /// The global the source binds to the module object.
    pub global: &'static str,
    source: &'static str,
}

pub(crate) const MODULES: &[SourceModule] = &[
    SourceModule {
        name: super::host::MODULE,
        global: super::host::GLOBAL,
        source: include_str!("prelude/analysis.py"),
    },
    SourceModule {
        name: "contextlib",
        global: "__contextlib__",
        source: include_str!("prelude/contextlib.py"),
    },
    SourceModule {
        name: "abc",
        global: "__abc__",
        source: include_str!("prelude/abc.py"),
    },
    SourceModule {
        name: "collections",
        global: "__collections__",
        source: include_str!("prelude/collections.py"),
    },
    SourceModule {
        name: "functools",
        global: "__functools__",
        source: include_str!("prelude/functools.py"),
    },
    SourceModule {
        name: "string",
        global: "__string__",
        source: include_str!("prelude/string.py"),
    },
    SourceModule {
        name: "typing",
        global: "__typing__",
        source: include_str!("prelude/typing.py"),
    },
];

/// The source module imported as `name`.
pub(crate) fn find(name: &str) -> Option<&'static SourceModule> {
    MODULES.iter().find(|m| m.name == name)
}

/// The module and qualified name CPython gives a class that a standard module's source
/// defines in its setup function (`__abc_setup__.<locals>.ABC` is `abc.ABC`).
pub(crate) fn library_class_name(qualname: &str) -> Option<(&'static str, &str)> {
    MODULES
        .iter()
        .filter(|m| m.name != super::host::MODULE)
        .find_map(|m| {
            let rest = qualname.strip_prefix("__")?.strip_prefix(m.name)?;
            Some((m.name, rest.strip_prefix("_setup__.<locals>.")?))
        })
}

/// Whether `name` is the global of a source module (hidden from the variables listing).
pub(crate) fn is_global(name: &str) -> bool {
    MODULES.iter().any(|m| m.global == name)
}

/// Runs the module's source unless it ran in this session.
pub(super) fn load(m: &mut Machine, module: &SourceModule) -> Result<(), RunError> {
    if m.globals.lookup(module.global).is_some() {
        return Ok(());
    }
    let code = crate::python::lower_module(module.source).map_err(|e| {
        RunError::Crashed(format!("the {} module does not parse: {e}", module.name))
    })?;
    super::worker::run_module(m, &code).map(|_| ())
}

/// Loads every source module the cell imports (at any depth) before it is compiled.
pub(super) fn load_imported(m: &mut Machine, cell: &ir::Module) -> Result<(), RunError> {
    let mut wanted = Vec::new();
    cell.walk(&mut |s| {
        let names: Vec<&str> = match &s.kind {
            ir::StmtKind::Import(names) => names.iter().map(|a| a.name.as_str()).collect(),
            ir::StmtKind::ImportFrom {
                module: Some(module),
                level: 0,
                ..
            } => vec![module.as_str()],
            _ => Vec::new(),
        };
        for name in names {
            if let Some(sm) = find(name) {
                if !wanted.iter().any(|w: &&SourceModule| w.name == sm.name) {
                    wanted.push(sm);
                }
            }
        }
    });
    for sm in wanted {
        load(m, sm)?;
    }
    Ok(())
}
