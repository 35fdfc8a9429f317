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
pub mod event_name;
pub mod feature_summary;
pub mod ordered;
pub mod summary;
