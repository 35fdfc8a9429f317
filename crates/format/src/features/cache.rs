//! HEADER_CACHE: the CPU caches (`struct cpu_cache_level`), from
//! `/sys/devices/system/cpu/cpu*/cache/index*`.

use alloc::vec::Vec;

use super::{read_count, read_string, with_capacity, RawStr};
use crate::bytes::Bytes;
use crate::error::{Error, ErrorKind, Result};

/// One cache (`struct cpu_cache_level`). perf prints it as
/// `L{level} {type:<15} {size:>8} [{map}]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLevel<'a> {
    /// `level`: 1, 2, 3, …
    pub level: u32,
    /// `line_size` in bytes.
    pub line_size: u32,
    /// `sets`.
    pub sets: u32,
    /// `ways`.
    pub ways: u32,
    /// `type`: `Data`, `Instruction` or `Unified`.
    pub type_: RawStr<'a>,
    /// `size` as sysfs writes it (`48K`).
    pub size: RawStr<'a>,
    /// `map`: the CPUs sharing the cache (`0-1`).
    pub map: RawStr<'a>,
}

/// Parses HEADER_CACHE: `u32 version` (1), `u32 cnt`, then per cache four `u32` and three
/// strings.
pub fn parse_cache(mut b: Bytes<'_>) -> Result<Vec<CacheLevel<'_>>> {
    let at = b.offset();
    let version = b.read_u32("cache version")?;
    if version != 1 {
        return Err(Error::new(at, ErrorKind::BadValue { what: "cache version", value: version.into() }));
    }
    let n = read_count(&mut b, "cache count", 28)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let level = b.read_u32("cache level")?;
        let line_size = b.read_u32("cache line_size")?;
        let sets = b.read_u32("cache sets")?;
        let ways = b.read_u32("cache ways")?;
        let type_ = read_string(&mut b)?;
        let size = read_string(&mut b)?;
        let map = read_string(&mut b)?;
        v.push(CacheLevel { level, line_size, sets, ways, type_, size, map });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;

    #[test]
    fn caches_in_both_byte_orders_and_bad_version() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u32(1).u32(2);
            b.u32(1).u32(64).u32(64).u32(12).string("Data").string("48K").string("0");
            b.u32(3).u32(64).u32(4096).u32(16).string("Unified").string("266240K").string("0-1");
            let c = parse_cache(b.bytes(0)).unwrap();
            assert_eq!(c.len(), 2);
            assert_eq!(
                c[1],
                CacheLevel {
                    level: 3,
                    line_size: 64,
                    sets: 4096,
                    ways: 16,
                    type_: RawStr(b"Unified"),
                    size: RawStr(b"266240K"),
                    map: RawStr(b"0-1"),
                }
            );
            let mut b = Builder::new(endian);
            b.u32(2).u32(0);
            let err = parse_cache(b.bytes(0x30)).unwrap_err();
            assert_eq!(err, Error::new(0x30, ErrorKind::BadValue { what: "cache version", value: 2 }));
        }
    }
}
