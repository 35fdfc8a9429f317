//! `struct perf_record_cpu_map_data` (PERF_RECORD_CPU_MAP and EVENT_UPDATE's CPUS) in all three
//! encodings, and PERF_RECORD_CPU_MAP.

use core::iter::FusedIterator;

use crate::bytes::Bytes;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// `PERF_CPU_MAP__CPUS`: a list of `u16` CPU numbers.
pub const CPU_MAP_CPUS: u16 = 0;
/// `PERF_CPU_MAP__MASK`: a bitmap of 32- or 64-bit words.
pub const CPU_MAP_MASK: u16 = 1;
/// `PERF_CPU_MAP__RANGE_CPUS`: a range of CPUs, perhaps with the "any CPU" (-1) entry.
pub const CPU_MAP_RANGE_CPUS: u16 = 2;

/// A CPU map as perf writes it (`struct perf_record_cpu_map_data`, packed: the union starts at
/// byte 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuMapData<'a> {
    /// `cpu_map_entries`: `u16 nr`, `u16 cpu[nr]` (65535 means -1, "any CPU").
    Cpus {
        /// The `nr` CPU numbers.
        cpus: &'a [u8],
        /// Byte order of the numbers.
        endian: Endianness,
    },
    /// `perf_record_mask_cpu_map32/64`: `u16 nr`, `u16 long_size`, (4 bytes of padding when
    /// `long_size` is 8,) then `nr` mask words; bit `i` of word `w` is CPU `w * long_size * 8 + i`.
    Mask {
        /// 4 or 8.
        long_size: u16,
        /// The mask words.
        words: &'a [u8],
        /// Byte order of the words.
        endian: Endianness,
    },
    /// `perf_record_range_cpu_map`: CPUs `start_cpu..=end_cpu`, and -1 first if `any_cpu`.
    Range {
        /// The map also holds -1 ("any CPU", e.g. for per-thread events).
        any_cpu: bool,
        /// First CPU.
        start_cpu: u16,
        /// Last CPU (inclusive).
        end_cpu: u16,
    },
    /// An encoding this crate does not know.
    Unknown {
        /// The `type` field.
        type_: u16,
    },
}

impl<'a> CpuMapData<'a> {
    /// Parses the map at the cursor.
    pub fn parse(b: &mut Bytes<'a>) -> Result<Self> {
        let endian = b.endian();
        let type_ = b.read_u16("cpu map type")?;
        match type_ {
            CPU_MAP_CPUS => {
                let nr = b.read_u16("cpu map nr")?;
                let cpus = b.read_bytes(usize::from(nr) * 2, "cpu map cpus")?;
                Ok(CpuMapData::Cpus { cpus, endian })
            }
            CPU_MAP_MASK => {
                let nr = b.read_u16("cpu map mask nr")?;
                let at = b.offset();
                let long_size = b.read_u16("cpu map mask long_size")?;
                match long_size {
                    4 => {}
                    8 => b.skip(4, "cpu map mask padding")?,
                    _ => {
                        return Err(Error::new(
                            at,
                            ErrorKind::BadValue {
                                what: "cpu map mask long_size",
                                value: long_size.into(),
                            },
                        ))
                    }
                }
                let words =
                    b.read_bytes(usize::from(nr) * usize::from(long_size), "cpu map mask")?;
                Ok(CpuMapData::Mask {
                    long_size,
                    words,
                    endian,
                })
            }
            CPU_MAP_RANGE_CPUS => {
                let any_cpu = b.read_u8("cpu map any_cpu")? != 0;
                b.skip(1, "cpu map range padding")?;
                let start_cpu = b.read_u16("cpu map start_cpu")?;
                let end_cpu = b.read_u16("cpu map end_cpu")?;
                Ok(CpuMapData::Range {
                    any_cpu,
                    start_cpu,
                    end_cpu,
                })
            }
            type_ => Ok(CpuMapData::Unknown { type_ }),
        }
    }

    /// The CPUs of the map in increasing order (-1 is "any CPU").
    pub fn cpus(&self) -> CpuMapIter<'a> {
        CpuMapIter { map: *self, pos: 0 }
    }
}

/// Iterator over the CPUs of a [`CpuMapData`].
#[derive(Debug, Clone)]
pub struct CpuMapIter<'a> {
    map: CpuMapData<'a>,
    pos: u32,
}

impl Iterator for CpuMapIter<'_> {
    type Item = i32;

    fn next(&mut self) -> Option<i32> {
        match self.map {
            CpuMapData::Cpus { cpus, endian } => {
                let at = self.pos as usize * 2;
                let v = endian.u16(cpus.get(at..at + 2)?.try_into().ok()?);
                self.pos += 1;
                Some(if v == u16::MAX { -1 } else { i32::from(v) })
            }
            CpuMapData::Mask {
                long_size,
                words,
                endian,
            } => {
                let bits = u32::try_from(words.len() * 8).unwrap_or(u32::MAX);
                while self.pos < bits {
                    let bit = self.pos;
                    self.pos += 1;
                    let word_bits = u32::from(long_size) * 8;
                    let start = ((bit / word_bits) * u32::from(long_size)) as usize;
                    let word = match long_size {
                        4 => u64::from(endian.u32(words.get(start..start + 4)?.try_into().ok()?)),
                        _ => endian.u64(words.get(start..start + 8)?.try_into().ok()?),
                    };
                    if word >> (bit % word_bits) & 1 != 0 {
                        return i32::try_from(bit).ok();
                    }
                }
                None
            }
            CpuMapData::Range {
                any_cpu,
                start_cpu,
                end_cpu,
            } => {
                let skip = u32::from(any_cpu);
                let pos = self.pos;
                if pos < skip {
                    self.pos += 1;
                    return Some(-1);
                }
                let cpu = u32::from(start_cpu) + (pos - skip);
                if cpu > u32::from(end_cpu) {
                    return None;
                }
                self.pos += 1;
                i32::try_from(cpu).ok()
            }
            CpuMapData::Unknown { .. } => None,
        }
    }
}

impl FusedIterator for CpuMapIter<'_> {}

/// `struct perf_record_cpu_map` (PERF_RECORD_CPU_MAP): the CPUs perf record opened events on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuMapRecord<'a> {
    /// The map.
    pub data: CpuMapData<'a>,
}

impl<'a> CpuMapRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        Ok(CpuMapRecord {
            data: CpuMapData::parse(&mut b)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Builder;
    use alloc::vec::Vec;

    fn cpus(data: &[u8], e: Endianness) -> Vec<i32> {
        CpuMapData::parse(&mut Bytes::new(data, 0, e))
            .unwrap()
            .cpus()
            .collect()
    }

    #[test]
    fn all_encodings_in_both_byte_orders() {
        for e in [Endianness::Little, Endianness::Big] {
            let list = Builder::new(e)
                .u16(0)
                .u16(3)
                .u16(0)
                .u16(2)
                .u16(0xffff)
                .into_vec();
            assert_eq!(cpus(&list, e), [0, 2, -1]);
            let mask32 = Builder::new(e)
                .u16(1)
                .u16(2)
                .u16(4)
                .u32(0b1010)
                .u32(1)
                .into_vec();
            assert_eq!(cpus(&mask32, e), [1, 3, 32]);
            let mask64 = Builder::new(e)
                .u16(1)
                .u16(1)
                .u16(8)
                .u32(0)
                .u64(1 << 63 | 1)
                .into_vec();
            assert_eq!(cpus(&mask64, e), [0, 63]);
            let range = Builder::new(e).u16(2).u8(1).u8(0).u16(4).u16(6).into_vec();
            assert_eq!(cpus(&range, e), [-1, 4, 5, 6]);
            let bad = Builder::new(e).u16(1).u16(1).u16(2).into_vec();
            let err = CpuMapData::parse(&mut Bytes::new(&bad, 0x10, e)).unwrap_err();
            assert_eq!(
                err,
                Error::new(
                    0x14,
                    ErrorKind::BadValue {
                        what: "cpu map mask long_size",
                        value: 2
                    }
                )
            );
        }
    }
}
