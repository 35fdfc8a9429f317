//! Header features: the sections after the data section (file mode) or the payloads of
//! HEADER_FEATURE records (pipe mode), decoded as `tools/perf/util/header.c` reads them.
//!
//! One module per feature (or per family of features that share a layout).

use core::fmt;

use crate::bytes::Bytes;
use crate::error::{ErrorKind, Result};

pub mod event_desc;
pub mod strings;

/// A string from the file: bytes that are usually UTF-8, printed lossily.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RawStr<'a>(pub &'a [u8]);

impl<'a> RawStr<'a> {
    /// The bytes.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The string if it is valid UTF-8.
    pub fn to_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.0).ok()
    }
}

impl fmt::Display for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{fffd}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// Reads a string as perf's `do_read_string` does: a `u32` length, then that many bytes holding
/// a NUL-terminated string padded with zeroes.
pub fn read_string<'a>(b: &mut Bytes<'a>) -> Result<RawStr<'a>> {
    let len = b.read_u32("string length")?;
    let bytes = b.read_bytes_u64(len.into(), "string")?;
    Ok(RawStr(crate::bytes::until_nul(bytes)))
}

/// Reads a `u32` count that must not exceed what `min_item_size`-byte items could fill in the
/// remaining bytes (so no allocation or loop is ever sized by an untrusted number).
pub fn read_count(b: &mut Bytes<'_>, what: &'static str, min_item_size: usize) -> Result<u32> {
    let at = b.offset();
    let n = b.read_u32(what)?;
    let max = b.len() / min_item_size.max(1);
    if n as usize > max {
        return Err(crate::Error::new(at, ErrorKind::BadValue { what, value: n.into() }));
    }
    Ok(n)
}
