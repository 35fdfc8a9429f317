//! Test-only byte assembler that writes in either byte order.

use alloc::vec::Vec;

use crate::endian::Endianness;
use crate::records::{frame_record, RawRecord};

/// Appends integers in one byte order.
#[derive(Debug, Clone)]
pub struct Builder {
    pub endian: Endianness,
    pub buf: Vec<u8>,
}

impl Builder {
    pub fn new(endian: Endianness) -> Self {
        Builder {
            endian,
            buf: Vec::new(),
        }
    }

    pub fn u8(mut self, v: u8) -> Self {
        self.buf.push(v);
        self
    }

    pub fn u16(mut self, v: u16) -> Self {
        self.buf.extend_from_slice(&self.endian.u16_bytes(v));
        self
    }

    pub fn u32(mut self, v: u32) -> Self {
        self.buf.extend_from_slice(&self.endian.u32_bytes(v));
        self
    }

    pub fn u64(mut self, v: u64) -> Self {
        self.buf.extend_from_slice(&self.endian.u64_bytes(v));
        self
    }

    pub fn u64s(mut self, vs: &[u64]) -> Self {
        for &v in vs {
            self = self.u64(v);
        }
        self
    }

    pub fn bytes(mut self, b: &[u8]) -> Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// A NUL-terminated string padded with zeroes to a multiple of 8 bytes.
    pub fn cstr8(mut self, s: &str) -> Self {
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        while !self.buf.len().is_multiple_of(8) {
            self.buf.push(0);
        }
        self
    }

    /// A string in a fixed-size field.
    pub fn fixed_str(mut self, s: &str, n: usize) -> Self {
        let mut field = s.as_bytes().to_vec();
        field.resize(n, 0);
        self.buf.extend_from_slice(&field);
        self
    }

    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }

    /// Wraps the bytes built so far as the body of a record with header `type_`, `misc`.
    pub fn record(self, type_: u32, misc: u16) -> Vec<u8> {
        let size = u16::try_from(self.buf.len() + 8).unwrap();
        let mut out = Builder::new(self.endian)
            .u32(type_)
            .u16(misc)
            .u16(size)
            .into_vec();
        out.extend_from_slice(&self.buf);
        out
    }
}

/// Frames the one record in `bytes`, placed at absolute `offset`.
pub fn raw(bytes: &[u8], offset: u64, endian: Endianness) -> RawRecord<'_> {
    frame_record(bytes, offset, endian).unwrap()
}
