//! Zero-copy views of integer arrays inside a record, read in the file's byte order.

use core::fmt;
use core::iter::FusedIterator;
use core::slice::ChunksExact;

use crate::endian::Endianness;

/// A run of `u64` values borrowed from a record, in the file's byte order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct U64Array<'a> {
    bytes: &'a [u8],
    endian: Endianness,
}

impl<'a> U64Array<'a> {
    /// A view of `bytes` (a trailing partial value is ignored).
    pub fn new(bytes: &'a [u8], endian: Endianness) -> Self {
        let whole = bytes.len() - bytes.len() % 8;
        U64Array {
            bytes: bytes.get(..whole).unwrap_or(&[]),
            endian,
        }
    }

    /// An empty array.
    pub const fn empty(endian: Endianness) -> Self {
        U64Array { bytes: &[], endian }
    }

    /// The number of values.
    #[inline]
    pub const fn len(&self) -> usize {
        self.bytes.len() / 8
    }

    /// Whether there are no values.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The value at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        let at = i.checked_mul(8)?;
        crate::layout::read_u64_at(self.bytes, at, self.endian)
    }

    /// The values in order.
    #[inline]
    pub fn iter(&self) -> U64Iter<'a> {
        U64Iter {
            chunks: self.bytes.chunks_exact(8),
            endian: self.endian,
        }
    }

    /// Appends the values to `out`: one reservation and a plain loop per byte order, where
    /// extending from [`U64Array::iter`] pushes value by value (its length is not known to
    /// `Vec`).
    #[inline]
    pub fn append_to(&self, out: &mut alloc::vec::Vec<u64>) {
        let chunks = self.bytes.chunks_exact(8);
        let word = |c: &[u8]| <[u8; 8]>::try_from(c).unwrap_or([0; 8]);
        match self.endian {
            Endianness::Little => out.extend(chunks.map(|c| u64::from_le_bytes(word(c)))),
            Endianness::Big => out.extend(chunks.map(|c| u64::from_be_bytes(word(c)))),
        }
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The byte order the values are read in.
    pub const fn endian(&self) -> Endianness {
        self.endian
    }
}

impl fmt::Debug for U64Array<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().map(Hex)).finish()
    }
}

impl<'a> IntoIterator for U64Array<'a> {
    type Item = u64;
    type IntoIter = U64Iter<'a>;
    fn into_iter(self) -> U64Iter<'a> {
        self.iter()
    }
}

/// Prints a value in hex in `Debug` output.
struct Hex(u64);

impl fmt::Debug for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// Iterator over a [`U64Array`].
#[derive(Debug, Clone)]
pub struct U64Iter<'a> {
    chunks: ChunksExact<'a, u8>,
    endian: Endianness,
}

#[inline]
fn chunk_u64(c: &[u8], endian: Endianness) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(c.get(..8).unwrap_or(&[0; 8]));
    endian.u64(b)
}

impl Iterator for U64Iter<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        self.chunks.next().map(|c| chunk_u64(c, self.endian))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl DoubleEndedIterator for U64Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u64> {
        self.chunks.next_back().map(|c| chunk_u64(c, self.endian))
    }
}

impl ExactSizeIterator for U64Iter<'_> {}
impl FusedIterator for U64Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_in_file_order() {
        let bytes = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 9];
        let a = U64Array::new(&bytes, Endianness::Big);
        assert_eq!(a.len(), 2);
        assert_eq!(a.iter().collect::<alloc::vec::Vec<_>>(), [1, 2]);
        assert_eq!(a.iter().next_back(), Some(2));
        assert_eq!((a.get(1), a.get(2)), (Some(2), None));
        let le = U64Array::new(&bytes[..8], Endianness::Little);
        assert_eq!(le.get(0), Some(1 << 56));
        // Appended after what `out` holds, in each byte order.
        let mut out = alloc::vec![7];
        a.append_to(&mut out);
        le.append_to(&mut out);
        assert_eq!(out, [7, 1, 2, 1 << 56]);
    }
}
