//! A byte assembler for feature tests: writes fields in either byte order as perf does.

use alloc::vec::Vec;

use crate::bytes::Bytes;
use crate::endian::Endianness;

/// perf's `NAME_ALIGN`: strings are padded to this many bytes.
pub const NAME_ALIGN: usize = 64;

/// Assembles feature bytes in one byte order.
pub struct Builder {
    pub endian: Endianness,
    pub buf: Vec<u8>,
}

impl Builder {
    pub fn new(endian: Endianness) -> Builder {
        Builder {
            endian,
            buf: Vec::new(),
        }
    }

    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&self.endian.u16_bytes(v));
        self
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&self.endian.u32_bytes(v));
        self
    }

    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&self.endian.u64_bytes(v));
        self
    }

    pub fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(v);
        self
    }

    /// perf's `do_write_string`: `u32 len` (the string, its NUL and zero padding to 64 bytes),
    /// then those bytes.
    pub fn string(&mut self, s: &str) -> &mut Self {
        let len = (s.len() + 1).next_multiple_of(NAME_ALIGN);
        self.u32(len as u32);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.resize(self.buf.len() + len - s.len(), 0);
        self
    }

    /// A NUL-terminated string with no length and no padding (tracing data).
    pub fn cstr(&mut self, s: &str) -> &mut Self {
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        self
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// A cursor over the bytes, the first one at absolute `offset`.
    pub fn bytes(&self, offset: u64) -> Bytes<'_> {
        Bytes::new(&self.buf, offset, self.endian)
    }
}
