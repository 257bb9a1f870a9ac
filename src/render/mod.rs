//! Rendering: text, DOT, HTML tables, and DOT → SVG through Graphviz.

pub mod cfg;
pub mod cfg_summary;
pub mod constraints;
pub mod dependence;
pub mod facts;
pub mod graphviz;
pub mod html;
pub mod lattice;
pub mod run;
pub mod set;
pub mod set_summary;
pub mod verify;
