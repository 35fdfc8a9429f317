//! `perfscope-analysis`: what the views need beyond raw records. Pure logic, no I/O: every
//! function is handed bytes.
#![forbid(unsafe_code)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod attr_text;
pub mod delivery;
pub mod diff;
pub mod event_name;
pub mod feature_summary;
pub mod ordered;
pub mod summary;
pub mod builder;
pub mod call_tree;
pub mod pruned_tree;
pub mod export;
pub mod flame_graph;
pub mod heap;
pub mod import;
pub mod ids;
pub mod maps;
mod msd;
pub mod open;
pub mod profile;
pub mod samples;
pub mod stack_table;
pub mod string_table;
pub mod symbols;
pub mod text_samples;
pub mod timeline;
pub mod offcpu;
pub mod tracepoint;
pub mod unwind;
pub mod load;
pub mod collapse;
