//! Shared by the examples: a recording loaded as the measurements of issue 6 load it.
#![allow(dead_code, clippy::panic)]

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{load, LoadExtras, LoadOptions};
use perfscope_analysis::profile::Profile;

/// The profile of the perf.data at `path`, without symbols, one frame per address
/// (`module+0xoffset`).
pub fn load_by_address(path: &str) -> Profile {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let options = LoadOptions {
        symbolize: false,
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    };
    load(&data, &[], options, LoadExtras::default())
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .profile
}
