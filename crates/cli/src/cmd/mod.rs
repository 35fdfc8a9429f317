//! One module per subcommand.

pub mod info;
pub mod input;
pub mod stats;
pub mod walk;
