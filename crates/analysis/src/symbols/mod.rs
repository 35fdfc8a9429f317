//! Symbol sources and the resolver that picks among them.
//!
//! Every source is optional and builds a [`SymbolTable`]:
//! - [`kallsyms`]: `/proc/kallsyms` text for the kernel and its modules;
//! - [`elf`]: `.symtab`, `.dynsym`, `.gnu_debugdata`, build ids, PT_LOAD address translation;
//! - [`perf_map`]: `perf-PID.map` files written by JITs;
//! - [`jitdump`]: `jit-PID.dump` files;
//! - [`archive`]: a `perf archive` tarball holding the `.build-id` tree;
//! - [`compact`]: a dropped ELF file read only as far as symbolization needs;
//! - `dwarf` (feature `dwarf`): inline frames and file:line through `addr2line`.
//!
//! [`demangle`] turns Rust and C++ names into what perf and inferno print.

pub mod archive;
pub mod compact;
pub mod demangle;
#[cfg(feature = "dwarf")]
pub mod dwarf;
pub mod elf;
pub mod error;
pub mod jitdump;
pub mod kallsyms;
pub mod perf_map;
pub mod plt;
pub mod resolver;
pub mod table;

pub use error::SymbolError;
pub use table::{Binding, SymbolTable};
