//! The Perfscope web app: a static page (yew, client-side rendered) that opens a `perf.data`
//! in the browser. Nothing is uploaded: the page hands the `File` to a Web Worker, which reads
//! it, parses it with `perfscope-analysis` (and through it `perfscope-format`) compiled to wasm,
//! and posts the result back.
//!
//! Two binaries share this library:
//! - `app` (`src/main.rs`): the page, [`app::App`];
//! - `worker` (`src/bin/worker.rs`): the parser worker, [`worker::start`].
//!
//! Layout: [`protocol`] is the message format between the two; [`state`] holds the view state
//! and its actions; [`components`] only draw; [`display`] formats numbers for people.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic))]

pub mod app;
pub mod components;
pub mod display;
pub mod protocol;
pub mod state;
pub mod worker;
pub mod worker_client;
