mod fastest;
#[cfg(test)]
mod fastest_tests;
pub use fastest::compress_fastest;
