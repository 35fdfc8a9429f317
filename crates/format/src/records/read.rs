//! Counter values laid out by `read_format` (`struct read_format` in the kernel header), as they
//! appear in SAMPLE records (PERF_SAMPLE_READ) and in PERF_RECORD_READ.

use core::iter::FusedIterator;

use super::callchain::read_array;
use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::constants::read_format as rf;
use crate::endian::Endianness;
use crate::error::Result;

/// The values of one read: the time totals and one value or a group of values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadData<'a> {
    /// `time_enabled` (PERF_FORMAT_TOTAL_TIME_ENABLED).
    pub time_enabled: Option<u64>,
    /// `time_running` (PERF_FORMAT_TOTAL_TIME_RUNNING).
    pub time_running: Option<u64>,
    /// The value (or the group's values).
    pub values: ReadValues<'a>,
}

/// One value, or the values of a group (PERF_FORMAT_GROUP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadValues<'a> {
    /// Without PERF_FORMAT_GROUP.
    Single(ReadValue),
    /// With PERF_FORMAT_GROUP: one value per group member, leader first.
    Group(ReadGroup<'a>),
}

/// One counter value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadValue {
    /// `value`.
    pub value: u64,
    /// `id` (PERF_FORMAT_ID).
    pub id: Option<u64>,
    /// `lost` (PERF_FORMAT_LOST).
    pub lost: Option<u64>,
}

/// The `nr` values of a group read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadGroup<'a> {
    bytes: &'a [u8],
    stride: usize,
    has_id: bool,
    has_lost: bool,
    endian: Endianness,
}

impl<'a> ReadGroup<'a> {
    /// The number of values (`nr`).
    pub const fn len(&self) -> usize {
        self.bytes.len() / self.stride
    }

    /// Whether there is no value.
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The values, leader first.
    pub fn iter(&self) -> ReadGroupIter<'a> {
        ReadGroupIter {
            group: *self,
            at: 0,
        }
    }
}

/// Iterator over the values of a [`ReadGroup`].
#[derive(Debug, Clone)]
pub struct ReadGroupIter<'a> {
    group: ReadGroup<'a>,
    at: usize,
}

impl Iterator for ReadGroupIter<'_> {
    type Item = ReadValue;

    fn next(&mut self) -> Option<ReadValue> {
        let g = &self.group;
        let chunk = g.bytes.get(self.at..self.at.checked_add(g.stride)?)?;
        self.at += g.stride;
        let word = |i: usize| crate::layout::read_u64_at(chunk, i * 8, g.endian);
        let value = word(0)?;
        let id = if g.has_id { word(1) } else { None };
        let lost = if g.has_lost {
            word(1 + usize::from(g.has_id))
        } else {
            None
        };
        Some(ReadValue { value, id, lost })
    }
}

impl FusedIterator for ReadGroupIter<'_> {}

impl<'a> ReadData<'a> {
    /// Reads values laid out by `read_format`, as the kernel writes them (`perf_output_read_one`,
    /// `perf_output_read_group`): `value` (or `nr`), the time totals, then `id` and `lost` (per
    /// value in a group), each only when its format bit is set.
    ///
    /// perf's `evsel__parse_sample` assumes PERF_FORMAT_ID is always set (perf record forces it
    /// for PERF_SAMPLE_READ); for files that lack it, this follows the kernel.
    pub(crate) fn parse(b: &mut Bytes<'a>, read_format: u64) -> Result<Self> {
        let group = read_format & rf::GROUP != 0;
        let nr_at = b.offset();
        let first = b.read_u64(if group {
            "read_format nr"
        } else {
            "read_format value"
        })?;
        let time_enabled = if read_format & rf::TOTAL_TIME_ENABLED != 0 {
            Some(b.read_u64("read_format time_enabled")?)
        } else {
            None
        };
        let time_running = if read_format & rf::TOTAL_TIME_RUNNING != 0 {
            Some(b.read_u64("read_format time_running")?)
        } else {
            None
        };
        let has_id = read_format & rf::ID != 0;
        let has_lost = read_format & rf::LOST != 0;
        let values = if group {
            let stride = 8 * (1 + usize::from(has_id) + usize::from(has_lost));
            let bytes = read_array(b, first, stride as u64, nr_at, "read_format group values")?;
            ReadValues::Group(ReadGroup {
                bytes,
                stride,
                has_id,
                has_lost,
                endian: b.endian(),
            })
        } else {
            let id = if has_id {
                Some(b.read_u64("read_format id")?)
            } else {
                None
            };
            let lost = if has_lost {
                Some(b.read_u64("read_format lost")?)
            } else {
                None
            };
            ReadValues::Single(ReadValue {
                value: first,
                id,
                lost,
            })
        };
        Ok(ReadData {
            time_enabled,
            time_running,
            values,
        })
    }
}

/// PERF_RECORD_READ: a counter read at task exit (`perf record -s`, inherit_stat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRecord<'a> {
    /// `pid`.
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// The values, laid out by the event's `read_format`.
    pub values: ReadData<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> ReadRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, read_format: u64, sample_id: SampleId) -> Result<Self> {
        let pid = b.read_u32("read pid")?;
        let tid = b.read_u32("read tid")?;
        let values = ReadData::parse(&mut b, read_format)?;
        Ok(ReadRecord {
            pid,
            tid,
            values,
            sample_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, ErrorKind};
    use crate::testutil::Builder;
    use alloc::vec::Vec;

    #[test]
    fn single_and_group_layouts() {
        for e in [Endianness::Little, Endianness::Big] {
            let all = rf::TOTAL_TIME_ENABLED | rf::TOTAL_TIME_RUNNING | rf::ID | rf::LOST;
            let data = Builder::new(e).u64s(&[100, 5, 4, 77, 1]).into_vec();
            let mut b = Bytes::new(&data, 0, e);
            let r = ReadData::parse(&mut b, all).unwrap();
            assert!(b.is_empty());
            assert_eq!((r.time_enabled, r.time_running), (Some(5), Some(4)));
            assert_eq!(
                r.values,
                ReadValues::Single(ReadValue {
                    value: 100,
                    id: Some(77),
                    lost: Some(1)
                })
            );

            let data = Builder::new(e).u64s(&[2, 9, 10, 1, 20, 2]).into_vec();
            let r = ReadData::parse(
                &mut Bytes::new(&data, 0, e),
                rf::GROUP | rf::TOTAL_TIME_ENABLED | rf::ID,
            )
            .unwrap();
            let ReadValues::Group(g) = r.values else {
                panic!()
            };
            assert_eq!(r.time_enabled, Some(9));
            let vals: Vec<_> = g.iter().collect();
            assert_eq!(
                vals,
                [
                    ReadValue {
                        value: 10,
                        id: Some(1),
                        lost: None
                    },
                    ReadValue {
                        value: 20,
                        id: Some(2),
                        lost: None
                    }
                ]
            );
            let err = ReadData::parse(
                &mut Bytes::new(&data, 0x20, e),
                rf::GROUP | rf::ID | rf::LOST,
            )
            .unwrap_err();
            assert_eq!(
                err,
                Error::new(
                    0x20,
                    ErrorKind::UnexpectedEof {
                        what: "read_format group values",
                        needed: 48,
                        available: 40
                    }
                )
            );
        }
    }
}
