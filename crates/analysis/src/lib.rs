//! `perfscope-analysis`: what the views need beyond raw records. Pure logic, no I/O: every
//! function is handed bytes.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic))]

pub mod summary;
pub mod ids;
pub mod symbols;
