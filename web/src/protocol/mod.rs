//! The messages between the page and the analysis worker.
//!
//! Page → worker (plain JS objects, see [`js`]):
//! - `{op: "files", id, files: [{name, blob}]}`: open a perf.data (the `Blob`s travel as handles;
//!   the worker reads them in slices), possibly with symbol files; or, with only symbol files,
//!   re-symbolize the open profile;
//! - `{op: "query", id, json}`: a [`Query`] on the open profile.
//!
//! Cancelling terminates the worker (a worker busy parsing cannot read messages).
//!
//! Worker → page: [`packet::Packet`]s, each one [`WorkerMessage`]: `ready`, then per request
//! `progress`…, `summary`, `profile` (or `failed`); per query one reply. Replies carry a string
//! table and typed arrays, never one JSON object per sample or node.

pub mod js;
pub mod messages;
pub mod packet;
pub mod strings;
pub mod timeline;

pub use messages::*;
pub use timeline::{HeatmapMeta, HeatmapReply, MarkerKind, TimelineDetail};
