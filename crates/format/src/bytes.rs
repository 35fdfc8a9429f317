//! A byte cursor whose reads cannot panic; every failure is an [`Error`] with an absolute offset.

use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// A cursor over a byte slice that knows the absolute offset of its first byte and the byte order.
#[derive(Debug, Clone, Copy)]
pub struct Bytes<'a> {
    data: &'a [u8],
    /// Absolute offset (in the file or stream) of `data[0]`.
    offset: u64,
    endian: Endianness,
}

impl<'a> Bytes<'a> {
    /// A cursor over `data`, whose first byte sits at absolute `offset`.
    pub const fn new(data: &'a [u8], offset: u64, endian: Endianness) -> Self {
        Bytes {
            data,
            offset,
            endian,
        }
    }

    /// The byte order used for integer reads.
    pub const fn endian(&self) -> Endianness {
        self.endian
    }

    /// The absolute offset of the next byte to be read.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The bytes not read yet.
    pub const fn remaining(&self) -> &'a [u8] {
        self.data
    }

    /// How many bytes remain.
    pub const fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether no bytes remain.
    pub const fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// An error of `kind` at the cursor's current offset.
    pub const fn error(&self, kind: ErrorKind) -> Error {
        Error::new(self.offset, kind)
    }

    fn eof(&self, what: &'static str, needed: u64) -> Error {
        self.error(ErrorKind::UnexpectedEof {
            what,
            needed,
            available: self.data.len() as u64,
        })
    }

    /// Takes the next `n` bytes.
    #[inline]
    pub fn read_bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        match self.data.split_at_checked(n) {
            Some((head, tail)) => {
                self.data = tail;
                self.offset += n as u64;
                Ok(head)
            }
            None => Err(self.eof(what, n as u64)),
        }
    }

    /// Takes the next `n` bytes, with `n` from the input (`u64`).
    pub fn read_bytes_u64(&mut self, n: u64, what: &'static str) -> Result<&'a [u8]> {
        match usize::try_from(n) {
            Ok(n) => self.read_bytes(n, what),
            Err(_) => Err(self.eof(what, n)),
        }
    }

    /// Takes a sub-cursor over the next `n` bytes.
    pub fn split(&mut self, n: usize, what: &'static str) -> Result<Bytes<'a>> {
        let offset = self.offset;
        let data = self.read_bytes(n, what)?;
        Ok(Bytes::new(data, offset, self.endian))
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.read_bytes(n, what).map(|_| ())
    }

    #[inline]
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        match self.data.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.data = tail;
                self.offset += N as u64;
                Ok(*head)
            }
            None => Err(self.eof(what, N as u64)),
        }
    }

    /// Reads a `u8`.
    #[inline]
    pub fn read_u8(&mut self, what: &'static str) -> Result<u8> {
        self.array::<1>(what).map(|[b]| b)
    }

    /// Reads a `u16` in the cursor's byte order.
    #[inline]
    pub fn read_u16(&mut self, what: &'static str) -> Result<u16> {
        let b = self.array(what)?;
        Ok(self.endian.u16(b))
    }

    /// Reads a `u32` in the cursor's byte order.
    #[inline]
    pub fn read_u32(&mut self, what: &'static str) -> Result<u32> {
        let b = self.array(what)?;
        Ok(self.endian.u32(b))
    }

    /// Reads an `i32` in the cursor's byte order.
    #[inline]
    pub fn read_i32(&mut self, what: &'static str) -> Result<i32> {
        self.read_u32(what).map(|v| v as i32)
    }

    /// Reads a `u64` in the cursor's byte order.
    #[inline]
    pub fn read_u64(&mut self, what: &'static str) -> Result<u64> {
        let b = self.array(what)?;
        Ok(self.endian.u64(b))
    }

    /// Reads `N` raw bytes as an array.
    pub fn read_array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        self.array(what)
    }

    /// Reads a string stored in a fixed-size field of `n` bytes, ending at the first NUL.
    pub fn read_fixed_str(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let field = self.read_bytes(n, what)?;
        Ok(until_nul(field))
    }

    /// Reads a NUL-terminated string padded to a multiple of 8 bytes (as in COMM and MMAP records),
    /// taking the rest of the data if no NUL is found.
    pub fn read_padded_cstr(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let s = until_nul(self.data);
        let with_nul = s.len().saturating_add(1);
        let padded = with_nul
            .checked_next_multiple_of(8)
            .unwrap_or(usize::MAX)
            .min(self.data.len());
        let take = padded.max(s.len().min(self.data.len()));
        self.skip(take, what)?;
        Ok(s)
    }
}

/// The bytes of `b` before its first NUL (all of `b` if there is none).
pub fn until_nul(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(i) => b.get(..i).unwrap_or(b),
        None => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_byte_orders_and_reports_offsets() {
        let data = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        let mut le = Bytes::new(&data, 100, Endianness::Little);
        assert_eq!(le.read_u16("a").unwrap(), 0x0201);
        assert_eq!(le.read_u32("b").unwrap(), 0x06050403);
        assert_eq!(le.offset(), 106);
        let err = le.read_u32("c").unwrap_err();
        assert_eq!(err.offset, 106);
        assert_eq!(
            err.kind,
            ErrorKind::UnexpectedEof {
                what: "c",
                needed: 4,
                available: 3
            }
        );
        let mut be = Bytes::new(&data, 0, Endianness::Big);
        assert_eq!(be.read_u64("d").unwrap(), 0x0102030405060708);
    }

    #[test]
    fn padded_cstr_skips_to_the_next_8_bytes() {
        let data = *b"abc\0\0\0\0\0tail";
        let mut b = Bytes::new(&data, 0, Endianness::Little);
        assert_eq!(b.read_padded_cstr("s").unwrap(), b"abc");
        assert_eq!(b.remaining(), b"tail");
        let mut unterminated = Bytes::new(b"abc", 0, Endianness::Little);
        assert_eq!(unterminated.read_padded_cstr("s").unwrap(), b"abc");
        assert!(unterminated.is_empty());
    }
}
