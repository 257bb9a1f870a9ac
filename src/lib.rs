//! analysis-kernel: a Jupyter kernel for literate program-analysis notebooks.
//!
//! Layers, dependencies pointing one way (see ARCHITECTURE.md):
//! `python` → `cfg` → `render` → `notebook` → `kernel`. `cancel` (the stop signal) and `memory`
//! (bytes in use) are shared by all; `child` runs the child processes (`dot`, `python3`).

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
pub mod splitmix;
pub mod symbolic;
pub mod symexec;

/// Every binary and test of the crate allocates through mimalloc: the analyses build and
/// drop many small terms, maps and vectors, and glibc's malloc spent a quarter of the
/// instructions of the constraints benchmark (`bench_constraints`). [`memory::Counting`]
/// counts the bytes in use for the memory budget (`%config memory_mb`).
#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting(mimalloc::MiMalloc);
