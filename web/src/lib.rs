//! The Perfscope web app: a static page (yew, client-side rendered) that opens a `perf.data`
//! in the browser. Nothing is uploaded: the page hands the `File` to a Web Worker, which reads
//! it in slices, parses and analyzes it with `perfscope-analysis` (and through it
//! `perfscope-format`) compiled to wasm, and answers the page's queries with compact messages.
//!
//! Two binaries share this library:
//! - `app` (`src/main.rs`): the page, [`app::App`];
//! - `worker` (`src/bin/worker.rs`): the analysis worker, [`worker::start`].
//!
//! Layout (as in the Firefox Profiler): [`session`] computes (in the worker, plain Rust);
//! [`protocol`] is the message format between the two threads; [`state`] holds the view state
//! and its actions (a reducer); [`selectors`] derive queries and view data from it;
//! [`components`] only draw; [`display`] formats numbers for people.
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

pub mod app;
pub mod components;
pub mod display;
pub mod early_summary;
pub mod inflater;
pub mod page_warm_up;
pub mod protocol;
pub mod selectors;
pub mod session;
pub mod stack_helper;
pub mod state;
pub mod worker;
pub mod worker_client;
