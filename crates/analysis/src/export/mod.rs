//! Exports: folded stacks (the input of inferno and FlameGraph.pl) and a standalone SVG flame
//! graph.

pub mod folded;
pub mod svg;
