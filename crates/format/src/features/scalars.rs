//! Features made of a few fixed-size fields: HEADER_SAMPLE_TIME, HEADER_CLOCKID,
//! HEADER_CLOCK_DATA, HEADER_DIR_FORMAT and HEADER_COMPRESSED.

use crate::bytes::Bytes;
use crate::error::{Error, ErrorKind, Result};

/// HEADER_SAMPLE_TIME: the `time` of the first and last sample, in ns of the sampling clock.
///
/// Pipe-mode files carry zeroes: perf writes the feature before any sample is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleTime {
    /// `first_sample_time`.
    pub first: u64,
    /// `last_sample_time`.
    pub last: u64,
}

/// Parses HEADER_SAMPLE_TIME: two `u64`.
pub fn parse_sample_time(mut b: Bytes<'_>) -> Result<SampleTime> {
    let first = b.read_u64("first_sample_time")?;
    let last = b.read_u64("last_sample_time")?;
    Ok(SampleTime { first, last })
}

/// Parses HEADER_CLOCKID: `u64 clockid_res_ns`, the resolution of the sampling clock in ns
/// (perf prints `clockid_res_ns * 1000` as "clockid frequency … MHz").
pub fn parse_clockid(mut b: Bytes<'_>) -> Result<u64> {
    b.read_u64("clockid_res_ns")
}

/// Parses HEADER_DIR_FORMAT: `u64` version of the `perf record --threads` directory layout.
pub fn parse_dir_format(mut b: Bytes<'_>) -> Result<u64> {
    b.read_u64("dir format version")
}

/// HEADER_CLOCK_DATA: a pair of reference times taken together, so sample times (in the
/// sampling clock) can be converted to wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockData {
    /// The layout version (1).
    pub version: u32,
    /// The sampling clock (`CLOCK_MONOTONIC` = 1, …), see [`clockid_name`].
    pub clockid: u32,
    /// `tod_ns`: wall-clock time (`gettimeofday`) in ns since the epoch.
    pub tod_ns: u64,
    /// `clockid_ns`: the sampling clock at the same instant, in ns.
    pub clockid_ns: u64,
}

/// Parses HEADER_CLOCK_DATA: `u32 version` (1), `u32 clockid`, `u64 tod_ns`, `u64 clockid_ns`.
pub fn parse_clock_data(mut b: Bytes<'_>) -> Result<ClockData> {
    let at = b.offset();
    let version = b.read_u32("clock_data version")?;
    if version != 1 {
        return Err(Error::new(
            at,
            ErrorKind::BadValue {
                what: "clock_data version",
                value: version.into(),
            },
        ));
    }
    let clockid = b.read_u32("clock_data clockid")?;
    let tod_ns = b.read_u64("clock_data tod_ns")?;
    let clockid_ns = b.read_u64("clock_data clockid_ns")?;
    Ok(ClockData {
        version,
        clockid,
        tod_ns,
        clockid_ns,
    })
}

/// The name perf gives a POSIX clock id (`clockid_name` in `tools/perf/util/clockid.c`).
pub const fn clockid_name(clockid: u32) -> Option<&'static str> {
    match clockid {
        0 => Some("realtime"),
        1 => Some("monotonic"),
        4 => Some("monotonic_raw"),
        7 => Some("boottime"),
        11 => Some("tai"),
        _ => None,
    }
}

/// HEADER_COMPRESSED: how COMPRESSED records were made (`perf record -z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Compressed {
    /// `comp_ver`.
    pub version: u32,
    /// `comp_type`: [`Compressed::ZSTD`] or 0 (none).
    pub type_: u32,
    /// `comp_level`: the zstd level.
    pub level: u32,
    /// `comp_ratio`: the compression ratio perf saw while recording.
    pub ratio: u32,
    /// `comp_mmap_len`: the ring-buffer size, an upper bound of one decompressed chunk.
    pub mmap_len: u32,
}

impl Compressed {
    /// `PERF_COMP_ZSTD`.
    pub const ZSTD: u32 = 1;
}

/// Parses HEADER_COMPRESSED: five `u32`.
pub fn parse_compressed(mut b: Bytes<'_>) -> Result<Compressed> {
    Ok(Compressed {
        version: b.read_u32("comp_ver")?,
        type_: b.read_u32("comp_type")?,
        level: b.read_u32("comp_level")?,
        ratio: b.read_u32("comp_ratio")?,
        mmap_len: b.read_u32("comp_mmap_len")?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;

    #[test]
    fn scalars_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u64(3_938_996_551_000).u64(3_939_281_981_000);
            let t = parse_sample_time(b.bytes(0)).unwrap();
            assert_eq!(
                t,
                SampleTime {
                    first: 3_938_996_551_000,
                    last: 3_939_281_981_000
                }
            );

            let mut b = Builder::new(endian);
            b.u32(1)
                .u32(1)
                .u64(1_795_346_420_527_890_000)
                .u64(3_986_535_499_810);
            let c = parse_clock_data(b.bytes(0)).unwrap();
            assert_eq!(
                (c.clockid, c.tod_ns, c.clockid_ns),
                (1, 1_795_346_420_527_890_000, 3_986_535_499_810)
            );
            assert_eq!(clockid_name(c.clockid), Some("monotonic"));

            let mut b = Builder::new(endian);
            b.u32(1).u32(1).u32(1).u32(2).u32(528384);
            let z = parse_compressed(b.bytes(0)).unwrap();
            assert_eq!(
                z,
                Compressed {
                    version: 1,
                    type_: Compressed::ZSTD,
                    level: 1,
                    ratio: 2,
                    mmap_len: 528384
                }
            );

            let mut b = Builder::new(endian);
            b.u64(1);
            assert_eq!(parse_dir_format(b.bytes(0)).unwrap(), 1);
            assert_eq!(parse_clockid(b.bytes(0)).unwrap(), 1);
        }
    }

    #[test]
    fn errors_name_the_field() {
        let mut b = Builder::new(Endianness::Little);
        b.u32(2);
        let err = parse_clock_data(b.bytes(0x10)).unwrap_err();
        assert_eq!(
            err,
            Error::new(
                0x10,
                ErrorKind::BadValue {
                    what: "clock_data version",
                    value: 2
                }
            )
        );
        let mut b = Builder::new(Endianness::Little);
        b.u64(5);
        let err = parse_sample_time(b.bytes(0x10)).unwrap_err();
        assert_eq!(err.offset, 0x18);
        assert_eq!(
            err.kind,
            ErrorKind::UnexpectedEof {
                what: "last_sample_time",
                needed: 8,
                available: 0
            }
        );
    }
}
