//! analysis-kernel: a Jupyter kernel for literate program-analysis notebooks.
//!
//! Layers, dependencies pointing one way (see ARCHITECTURE.md):
//! `python` → `cfg` → `render` → `notebook` → `kernel`. `cancel` is shared by all.

pub mod cancel;
pub mod kernel;
pub mod notebook;
pub mod python;
pub mod render;
