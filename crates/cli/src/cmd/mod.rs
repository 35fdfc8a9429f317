//! One module per subcommand.

pub mod diff;
pub mod export;
pub mod info;
pub mod input;
pub mod sched;
pub mod script;
pub mod stats;
pub mod walk;
