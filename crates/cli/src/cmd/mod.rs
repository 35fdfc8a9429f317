//! One module per subcommand.

pub mod collapse;
pub mod flamegraph;
pub mod info;
pub mod input;
pub mod sched;
pub mod report;
pub mod script;
pub mod stats;
pub mod walk;
