//! One module per subcommand.

pub mod info;
pub mod input;
pub mod sched;
pub mod script;
pub mod stats;
pub mod walk;
