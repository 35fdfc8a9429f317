//! Exports: folded stacks (the input of inferno and FlameGraph.pl), a standalone SVG flame
//! graph, pprof's `profile.proto`, speedscope's JSON, and perfscope's own share file.

pub mod folded;
pub mod pprof;
pub mod share;
pub mod speedscope;
pub mod svg;
