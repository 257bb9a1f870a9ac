//! analysis-kernel: a Jupyter kernel for literate program-analysis notebooks.
//!
//! Layers, dependencies pointing one way (see ARCHITECTURE.md):
//! `python` (the IR and Python's facts: exceptions, `//` and `%`) → `cfg` → the analyses
//! (`symbolic`, `constraints`, `symexec`, `dataflow`; `interp` beside them) → `render` (text,
//! DOT from the graph plus a style, HTML) → `notebook` → `kernel` / `grade`.
//! Shared by all: `cancel` (the stop signal and `Stopped`, the one stop error), `memory`
//! (bytes in use), `child` (the one child-process runner: `dot`, `python3`) and `splitmix`
//! (the one seeded random generator).

pub mod cancel;
pub mod cfg;
pub mod child;
pub mod constraints;
pub mod dataflow;
pub mod fuzz;
pub mod fxhash;
pub mod grade;
pub mod interp;
pub mod kernel;
pub mod memory;
pub mod notebook;
pub mod python;
pub mod render;
pub mod rustcell;
pub mod splitmix;
pub mod symbolic;
pub mod symexec;
pub mod work;

/// Every binary and test of the crate allocates through mimalloc: the analyses build and
/// drop many small terms, maps and vectors, and glibc's malloc spent a quarter of the
/// instructions of the constraints benchmark (`bench_constraints`). [`memory::Counting`]
/// counts the bytes in use for the memory budget (`%config memory_mb`).
#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting(mimalloc::MiMalloc);
