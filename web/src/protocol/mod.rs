//! The messages between the page and the analysis worker.
//!
//! Page → worker (plain JS objects, see [`js`]):
//! - `{op: "files", id, files: [{name, blob}]}`: open a perf.data (the `Blob`s travel as handles;
//!   the worker reads them in slices), possibly with symbol files; or, with only symbol files,
//!   re-symbolize the open profile;
//! - `{op: "compare", id, files: [{name, blob}]}`: read a profile (and its symbol files) as the
//!   base to compare the open one with (`compared`, then [`Query::Diff`] replies);
//! - `{op: "query", id, json}`: a [`Query`] on the open profile (an `export` query answers with
//!   the file's bytes, which the page downloads).
//!
//! Cancelling terminates the worker (a worker busy parsing cannot read messages).
//!
//! Worker → page: [`packet::Packet`]s, each one [`WorkerMessage`]: `ready`, then per request
//! `progress`…, `summary`, `profile` (or `failed`); per query one reply. Replies carry a string
//! table and typed arrays, never one JSON object per sample or node.

pub mod js;
pub mod messages;
pub mod packet;
pub mod share;
pub mod strings;
pub mod timeline;

pub use messages::*;
pub use share::*;
pub use timeline::{HeatmapMeta, HeatmapReply, MarkerKind, TimelineDetail};
