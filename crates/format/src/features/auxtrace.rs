//! HEADER_AUXTRACE: the index of the AUXTRACE records in the data section
//! (`auxtrace_index__write` in `tools/perf/util/auxtrace.c`).

use alloc::vec::Vec;

use super::{read_count_u64, with_capacity};
use crate::bytes::Bytes;
use crate::error::Result;

/// One entry of the AUXTRACE index (`struct auxtrace_index_entry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxtraceIndexEntry {
    /// `file_offset`: where the AUXTRACE record starts in the file.
    pub file_offset: u64,
    /// `sz`: the record's `header.size` (its AUX payload follows it).
    pub sz: u64,
}

/// Parses HEADER_AUXTRACE: `u64 nr`, then `nr` (`u64 file_offset`, `u64 sz`) pairs.
pub fn parse_auxtrace_index(mut b: Bytes<'_>) -> Result<Vec<AuxtraceIndexEntry>> {
    let n = read_count_u64(&mut b, "auxtrace index count", 16)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let file_offset = b.read_u64("auxtrace index file_offset")?;
        let sz = b.read_u64("auxtrace index sz")?;
        v.push(AuxtraceIndexEntry { file_offset, sz });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;
    use crate::error::ErrorKind;

    #[test]
    fn index_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u64(2).u64(0x1a8).u64(48).u64(0x2_0000).u64(48);
            let v = parse_auxtrace_index(b.bytes(0)).unwrap();
            assert_eq!(
                v,
                [
                    AuxtraceIndexEntry {
                        file_offset: 0x1a8,
                        sz: 48
                    },
                    AuxtraceIndexEntry {
                        file_offset: 0x2_0000,
                        sz: 48
                    }
                ]
            );
            let mut b = Builder::new(endian);
            b.u64(3).u64(1).u64(2);
            let err = parse_auxtrace_index(b.bytes(0x10)).unwrap_err();
            assert_eq!(
                err.kind,
                ErrorKind::BadValue {
                    what: "auxtrace index count",
                    value: 3
                }
            );
            assert_eq!(err.offset, 0x10);
        }
    }
}
