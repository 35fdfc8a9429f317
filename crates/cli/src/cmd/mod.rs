//! One module per subcommand.

pub mod info;
pub mod input;
pub mod script;
pub mod stats;
pub mod walk;
