//! PERF_RECORD_COMPRESSED and PERF_RECORD_COMPRESSED2: zstd-compressed runs of records. Only the
//! framing is decoded here; decompression is in `crate::compression`.

use crate::bytes::Bytes;
use crate::error::{Error, ErrorKind, Result};

/// `struct perf_record_compressed` / `perf_record_compressed2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressedRecord<'a> {
    /// COMPRESSED2's `data_size` (`None` for COMPRESSED, whose data is the whole body).
    pub data_size: Option<u64>,
    /// The compressed bytes (for COMPRESSED2, the first `data_size` bytes; the rest of the body
    /// is padding to 8 bytes).
    pub data: &'a [u8],
}

impl<'a> CompressedRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, v2: bool) -> Result<Self> {
        if !v2 {
            return Ok(CompressedRecord {
                data_size: None,
                data: b.remaining(),
            });
        }
        let at = b.offset();
        let data_size = b.read_u64("compressed2 data_size")?;
        let available = b.len() as u64;
        if data_size > available {
            return Err(Error::new(
                at,
                ErrorKind::UnexpectedEof {
                    what: "compressed2 data",
                    needed: data_size,
                    available,
                },
            ));
        }
        Ok(CompressedRecord {
            data_size: Some(data_size),
            data: b.read_bytes_u64(data_size, "compressed2 data")?,
        })
    }
}
