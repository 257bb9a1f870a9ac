//! Rendering: text, DOT, HTML tables, and DOT → SVG through Graphviz.

pub mod graphviz;
pub mod html;
