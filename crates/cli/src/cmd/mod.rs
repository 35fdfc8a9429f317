//! One module per subcommand.

pub mod collapse;
pub mod diff;
pub mod export;
pub mod flamegraph;
pub mod info;
pub mod input;
pub mod local_symbols;
pub mod report;
pub mod sched;
pub mod script;
pub mod stats;
pub mod timeline;
pub mod walk;
