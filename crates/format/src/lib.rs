//! `perfscope-format`: a parser for the Linux `perf.data` format.
//!
//! It reads file-mode and pipe-mode data in either byte order, every header feature and record
//! type that `perf` knows, without copying and without ever panicking on input: every problem is
//! an [`Error`] carrying the byte offset where it was found.
//!
//! ```
//! use perfscope_format::PerfFile;
//! // Not a perf.data: the error names the offset and the bytes found.
//! let err = PerfFile::parse(b"\x7fELF\x02\x01\x01\x00").unwrap_err();
//! assert!(err.to_string().starts_with("at offset 0x0: expected the perf.data magic"));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

extern crate alloc;

pub mod attr;
pub mod bytes;
pub mod compression;
pub mod constants;
pub mod endian;
pub mod error;
pub mod features;
pub mod file;
pub mod header;
pub mod layout;
pub mod metadata;
pub mod reader;
pub mod records;
pub mod stream;
#[cfg(test)]
mod testutil;
pub mod walk;

pub use attr::{AttrFlags, EventAttr};
pub use bytes::Bytes;
pub use constants::{HeaderFeature, RecordType};
pub use endian::Endianness;
pub use error::{Error, ErrorKind, Result};
pub use file::{FileAttr, PerfFile};
pub use header::{FileHeader, FileSection, Magic};
pub use layout::{EventIndex, EventLayout, EventTable};
pub use records::{parse_record, RawRecord, RawRecords, Record, RecordHeader};
