//! The session's Python functions as control-flow graphs, as the kernel hands them to a cell.
//!
//! Before each `%%rust` cell the kernel writes every function the session defined (its CFG
//! nodes with the names they bind and read, and its edges) to a file; [`function`] reads it.
//! The same [`Stmt`] is what a registered [`crate::Analysis`] receives from `%dataflow`.

use std::collections::BTreeSet;
use std::fmt;

use crate::wire;

/// One CFG node: a statement, a branch condition, or the entry/exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// The node's index in the CFG (the number the `%cfg` view shows).
    pub node: usize,
    /// `entry`, `exit`, `statement`, `condition`, … (as `%dataflow`'s Python protocol).
    pub kind: String,
    /// The first line of the node's label (its source text).
    pub text: String,
    /// The source line.
    pub line: u32,
    /// Names the node binds.
    pub targets: BTreeSet<String>,
    /// Names the node reads.
    pub uses: BTreeSet<String>,
    /// Names the node deletes (`del x`).
    pub deletes: BTreeSet<String>,
}

/// One CFG edge, with its label (`True`/`False` out of a condition, empty otherwise).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: String,
}

/// A function of the session: its parameters and CFG.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Program {
    pub name: String,
    pub params: Vec<String>,
    /// Indexed by [`Stmt::node`].
    pub stmts: Vec<Stmt>,
    pub edges: Vec<Edge>,
}

/// Why [`function`] found nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramError {
    /// Not run inside the kernel (no function file).
    NotInKernel,
    /// No function of that name; the names defined.
    Unknown { name: String, defined: Vec<String> },
    /// The file did not parse (a kernel bug).
    Malformed(String),
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramError::NotInKernel => write!(
                f,
                "no session functions: this code runs outside analysis-kernel's %%rust cells"
            ),
            ProgramError::Unknown { name, defined } => write!(
                f,
                "no function named {name:?} in the session (defined: {})",
                if defined.is_empty() {
                    "none".to_string()
                } else {
                    defined.join(", ")
                }
            ),
            ProgramError::Malformed(m) => write!(f, "the kernel's function file is malformed: {m}"),
        }
    }
}

impl std::error::Error for ProgramError {}

fn names(field: &str) -> BTreeSet<String> {
    field
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

impl Program {
    /// Successors of `node`.
    pub fn successors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges
            .iter()
            .filter(move |e| e.from == node)
            .map(|e| e.to)
    }

    /// Predecessors of `node`.
    pub fn predecessors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges
            .iter()
            .filter(move |e| e.to == node)
            .map(|e| e.from)
    }

    /// The entry node (kind `entry`), or node 0.
    pub fn entry(&self) -> usize {
        self.stmts
            .iter()
            .position(|s| s.kind == "entry")
            .unwrap_or(0)
    }

    /// The exit node (kind `exit`), or the last node.
    pub fn exit(&self) -> usize {
        self.stmts
            .iter()
            .position(|s| s.kind == "exit")
            .unwrap_or(self.stmts.len().saturating_sub(1))
    }

    /// Parses the kernel's text format: lines `function NAME PARAMS`, `node …`, `edge …`.
    pub fn parse_all(text: &str) -> Result<Vec<Program>, ProgramError> {
        let mut out: Vec<Program> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.is_empty() {
                continue;
            }
            let f = wire::fields(raw);
            let bad = || ProgramError::Malformed(format!("line {}: {raw:?}", i + 1));
            let num = |s: &str| s.parse::<usize>().map_err(|_| bad());
            match f.first().map(String::as_str) {
                Some("function") if f.len() == 3 => out.push(Program {
                    name: f[1].clone(),
                    params: f[2]
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                    ..Program::default()
                }),
                Some("node") if f.len() == 8 => {
                    let p = out.last_mut().ok_or_else(bad)?;
                    p.stmts.push(Stmt {
                        node: num(&f[1])?,
                        kind: f[2].clone(),
                        line: f[3].parse().map_err(|_| bad())?,
                        text: f[4].clone(),
                        targets: names(&f[5]),
                        uses: names(&f[6]),
                        deletes: names(&f[7]),
                    });
                }
                Some("edge") if f.len() == 4 => {
                    let p = out.last_mut().ok_or_else(bad)?;
                    p.edges.push(Edge {
                        from: num(&f[1])?,
                        to: num(&f[2])?,
                        label: f[3].clone(),
                    });
                }
                _ => return Err(bad()),
            }
        }
        Ok(out)
    }

    /// The graph in Graphviz DOT (drawn by [`crate::show`]).
    pub fn to_dot(&self) -> String {
        let mut dot = format!(
            "digraph \"{}\" {{\n  node [shape=box, fontname=\"monospace\"];\n",
            dot_escape(&self.name)
        );
        for s in &self.stmts {
            let label = if s.kind == "statement" || s.kind == "condition" {
                format!("{}: {}", s.node, s.text)
            } else {
                format!("{}: {}", s.node, s.kind)
            };
            dot.push_str(&format!(
                "  n{} [label=\"{}\"];\n",
                s.node,
                dot_escape(&label)
            ));
        }
        for e in &self.edges {
            dot.push_str(&format!(
                "  n{} -> n{} [label=\"{}\"];\n",
                e.from,
                e.to,
                dot_escape(&e.label)
            ));
        }
        dot.push_str("}\n");
        dot
    }
}

pub(crate) fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The session's function `name`, as the kernel wrote it before this cell.
///
/// ```
/// use analysis_prelude::prelude::*;
/// // Outside the kernel there is no session: a typed error, not a panic.
/// if std::env::var(analysis_prelude::wire::FUNCTIONS_ENV).is_err() {
///     assert_eq!(function("f").unwrap_err(), ProgramError::NotInKernel);
/// }
/// ```
pub fn function(name: &str) -> Result<Program, ProgramError> {
    let all = functions()?;
    let defined = all.iter().map(|p| p.name.clone()).collect();
    all.into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| ProgramError::Unknown {
            name: name.to_string(),
            defined,
        })
}

/// Every function of the session.
pub fn functions() -> Result<Vec<Program>, ProgramError> {
    let path = std::env::var_os(wire::FUNCTIONS_ENV).ok_or(ProgramError::NotInKernel)?;
    let text = std::fs::read_to_string(&path).map_err(|_| ProgramError::NotInKernel)?;
    Program::parse_all(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_kernel_format() {
        let text = "function\tf\tx,y\nnode\t0\tentry\t1\tf\t\t\t\nnode\t1\tstatement\t2\tz = x + y\tz\tx,y\t\nedge\t0\t1\t\n";
        let p = Program::parse_all(text).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].params, ["x", "y"]);
        assert_eq!(p[0].stmts[1].uses.len(), 2);
        assert_eq!(p[0].successors(0).collect::<Vec<_>>(), [1]);
        assert!(Program::parse_all("node\t0").is_err());
    }
}
