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
    /// `id`: the cache instance id, in version 2 only (the layout proposed upstream to store
    /// instance ids; perf's own writer still uses version 1).
    pub id: Option<u32>,
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

/// Parses HEADER_CACHE: `u32 version` (1 or 2), `u32 cnt`, then per cache `u32 level`,
/// (version 2: `u32 id`), `u32 line_size`, `u32 sets`, `u32 ways` and three strings.
pub fn parse_cache(mut b: Bytes<'_>) -> Result<Vec<CacheLevel<'_>>> {
    let at = b.offset();
    let version = b.read_u32("cache version")?;
    if version != 1 && version != 2 {
        return Err(Error::new(
            at,
            ErrorKind::BadValue {
                what: "cache version",
                value: version.into(),
            },
        ));
    }
    let n = read_count(&mut b, "cache count", 28)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let level = b.read_u32("cache level")?;
        let id = if version >= 2 {
            Some(b.read_u32("cache id")?)
        } else {
            None
        };
        let line_size = b.read_u32("cache line_size")?;
        let sets = b.read_u32("cache sets")?;
        let ways = b.read_u32("cache ways")?;
        let type_ = read_string(&mut b)?;
        let size = read_string(&mut b)?;
        let map = read_string(&mut b)?;
        v.push(CacheLevel {
            level,
            id,
            line_size,
            sets,
            ways,
            type_,
            size,
            map,
        });
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
            b.u32(1)
                .u32(64)
                .u32(64)
                .u32(12)
                .string("Data")
                .string("48K")
                .string("0");
            b.u32(3)
                .u32(64)
                .u32(4096)
                .u32(16)
                .string("Unified")
                .string("266240K")
                .string("0-1");
            let c = parse_cache(b.bytes(0)).unwrap();
            assert_eq!(c.len(), 2);
            assert_eq!(
                c[1],
                CacheLevel {
                    level: 3,
                    id: None,
                    line_size: 64,
                    sets: 4096,
                    ways: 16,
                    type_: RawStr(b"Unified"),
                    size: RawStr(b"266240K"),
                    map: RawStr(b"0-1"),
                }
            );
            // Version 2 adds the instance id after the level.
            let mut b = Builder::new(endian);
            b.u32(2).u32(1);
            b.u32(2)
                .u32(5)
                .u32(64)
                .u32(1024)
                .u32(8)
                .string("Unified")
                .string("512K")
                .string("5,37");
            let c = parse_cache(b.bytes(0)).unwrap();
            assert_eq!(
                (c[0].level, c[0].id, c[0].sets, c[0].map),
                (2, Some(5), 1024, RawStr(b"5,37"))
            );
            let mut b = Builder::new(endian);
            b.u32(3).u32(0);
            let err = parse_cache(b.bytes(0x30)).unwrap_err();
            assert_eq!(
                err,
                Error::new(
                    0x30,
                    ErrorKind::BadValue {
                        what: "cache version",
                        value: 3
                    }
                )
            );
        }
    }
}
