//! PERF_RECORD_HEADER_BUILD_ID: a DSO's build id (pipe mode, `perf inject -b`).

use crate::bytes::{until_nul, Bytes};
use crate::error::Result;
use crate::features::RawStr;

/// `PERF_RECORD_MISC_BUILD_ID_SIZE`: the record's `size` byte is valid.
pub const MISC_BUILD_ID_SIZE: u16 = 1 << 15;

/// `struct perf_record_header_build_id` (PERF_RECORD_HEADER_BUILD_ID).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderBuildIdRecord<'a> {
    /// `header.misc`: cpumode of the DSO and [`MISC_BUILD_ID_SIZE`].
    pub misc: u16,
    /// `pid` (-1 for the kernel).
    pub pid: i32,
    /// The build id: `size` bytes when `misc` has [`MISC_BUILD_ID_SIZE`], else all 20.
    pub build_id: &'a [u8],
    /// `filename`.
    pub filename: RawStr<'a>,
}

impl<'a> HeaderBuildIdRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, misc: u16) -> Result<Self> {
        let pid = b.read_i32("build_id pid")?;
        let data = b.read_bytes(20, "build_id data")?;
        let size = b.read_u8("build_id size")?;
        b.skip(3, "build_id reserved")?;
        let build_id = if misc & MISC_BUILD_ID_SIZE != 0 {
            data.get(..usize::from(size).min(20)).unwrap_or(data)
        } else {
            data
        };
        Ok(HeaderBuildIdRecord {
            misc,
            pid,
            build_id,
            filename: RawStr(until_nul(b.remaining())),
        })
    }
}
