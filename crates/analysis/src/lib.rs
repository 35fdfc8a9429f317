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
pub mod builder;
pub mod call_tree;
pub mod chunked;
pub mod collapse;
pub mod delivery;
pub mod diff;
pub mod event_name;
pub mod export;
pub mod feature_summary;
pub mod flame_graph;
pub mod heap;
pub mod ids;
pub mod import;
pub mod load;
pub mod maps;
mod msd;
pub mod offcpu;
pub mod open;
pub mod ordered;
pub mod preview;
mod probe;
pub mod profile;
pub mod pruned_tree;
pub mod samples;
pub mod stack_table;
pub mod string_table;
pub mod summary;
pub mod symbols;
pub mod text_samples;
pub mod time_column;
pub mod timeline;
pub mod tracepoint;
pub mod unwind;
