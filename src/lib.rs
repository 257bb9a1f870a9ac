//! analysis-kernel: a Jupyter kernel for literate program-analysis notebooks.
//!
//! Layers, dependencies pointing one way (see ARCHITECTURE.md):
//! `python` → `cfg` → `render` → `notebook` → `kernel`. `cancel` is shared by all.

pub mod cancel;
pub mod cfg;
pub mod constraints;
pub mod dataflow;
pub mod fuzz;
pub mod fxhash;
pub mod interp;
pub mod kernel;
pub mod notebook;
pub mod python;
pub mod render;
pub mod symbolic;
pub mod symexec;

/// Every binary and test of the crate allocates through mimalloc: the analyses build and
/// drop many small terms, maps and vectors, and glibc's malloc spent a quarter of the
/// instructions of the constraints benchmark (`bench_constraints`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
