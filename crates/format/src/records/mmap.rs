//! PERF_RECORD_MMAP and PERF_RECORD_MMAP2: a file or anonymous region mapped executable (or, with
//! `mmap_data`, not).

use super::sample_id::SampleId;
use crate::bytes::{until_nul, Bytes};
use crate::constants::misc;
use crate::error::Result;
use crate::features::RawStr;

/// `struct perf_record_mmap` (PERF_RECORD_MMAP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmapRecord<'a> {
    /// `header.misc`: cpumode and `PERF_RECORD_MISC_MMAP_DATA`.
    pub misc: u16,
    /// `pid` (`u32::MAX`, i.e. -1, for the kernel).
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// `start`: the first mapped address.
    pub start: u64,
    /// `len`.
    pub len: u64,
    /// `pgoff`: the file offset mapped at `start`.
    pub pgoff: u64,
    /// `filename`.
    pub filename: RawStr<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> MmapRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, misc: u16, sample_id: SampleId) -> Result<Self> {
        let pid = b.read_u32("mmap pid")?;
        let tid = b.read_u32("mmap tid")?;
        let start = b.read_u64("mmap start")?;
        let len = b.read_u64("mmap len")?;
        let pgoff = b.read_u64("mmap pgoff")?;
        let filename = RawStr(until_nul(b.remaining()));
        Ok(MmapRecord {
            misc,
            pid,
            tid,
            start,
            len,
            pgoff,
            filename,
            sample_id,
        })
    }

    /// Whether the mapping is not executable (`PERF_RECORD_MISC_MMAP_DATA`).
    pub const fn is_data(&self) -> bool {
        self.misc & misc::MMAP_DATA != 0
    }
}

/// What identifies the mapped file in an MMAP2 record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mmap2FileId<'a> {
    /// Device and inode numbers.
    Inode {
        /// `maj`.
        maj: u32,
        /// `min`.
        min: u32,
        /// `ino`.
        ino: u64,
        /// `ino_generation`.
        ino_generation: u64,
    },
    /// The file's build id (`PERF_RECORD_MISC_MMAP_BUILD_ID`, from `attr.build_id`).
    BuildId(&'a [u8]),
}

/// `struct perf_record_mmap2` (PERF_RECORD_MMAP2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mmap2Record<'a> {
    /// `header.misc`: cpumode, `MMAP_DATA` and `MMAP_BUILD_ID`.
    pub misc: u16,
    /// `pid` (`u32::MAX`, i.e. -1, for the kernel).
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// `start`.
    pub start: u64,
    /// `len`.
    pub len: u64,
    /// `pgoff`.
    pub pgoff: u64,
    /// Device/inode or build id.
    pub file_id: Mmap2FileId<'a>,
    /// `prot` (`PROT_READ` 1, `PROT_WRITE` 2, `PROT_EXEC` 4). `None` in the first MMAP2 layout
    /// (Linux 3.12 to 3.15, and RHEL 7's 3.10), which had no `prot` and `flags`.
    pub prot: Option<u32>,
    /// `flags` (`MAP_SHARED` 1, `MAP_PRIVATE` 2). `None` in the first MMAP2 layout.
    pub flags: Option<u32>,
    /// `filename`.
    pub filename: RawStr<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> Mmap2Record<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, misc: u16, sample_id: SampleId) -> Result<Self> {
        let pid = b.read_u32("mmap2 pid")?;
        let tid = b.read_u32("mmap2 tid")?;
        let start = b.read_u64("mmap2 start")?;
        let len = b.read_u64("mmap2 len")?;
        let pgoff = b.read_u64("mmap2 pgoff")?;
        let file_id = if misc & misc::MMAP_BUILD_ID != 0 {
            let size = b.read_u8("mmap2 build_id_size")?;
            b.skip(3, "mmap2 build id reserved")?;
            let id = b.read_bytes(20, "mmap2 build_id")?;
            Mmap2FileId::BuildId(id.get(..usize::from(size).min(20)).unwrap_or(id))
        } else {
            Mmap2FileId::Inode {
                maj: b.read_u32("mmap2 maj")?,
                min: b.read_u32("mmap2 min")?,
                ino: b.read_u64("mmap2 ino")?,
                ino_generation: b.read_u64("mmap2 ino_generation")?,
            }
        };
        // MMAP2 first shipped (Linux 3.12) without `prot` and `flags`; they came in 3.16. The
        // kernel only ever writes PROT_READ | PROT_WRITE | PROT_EXEC in `prot`, while a file name
        // read as `prot` starts with '/' or '[': a larger value means the old layout. (perf does
        // not check, and prints garbage names for such records.)
        let (prot, flags) = match b.remaining().first_chunk::<4>().map(|p| b.endian().u32(*p)) {
            Some(p) if p > 7 => (None, None),
            _ => (
                Some(b.read_u32("mmap2 prot")?),
                Some(b.read_u32("mmap2 flags")?),
            ),
        };
        let filename = RawStr(until_nul(b.remaining()));
        Ok(Mmap2Record {
            misc,
            pid,
            tid,
            start,
            len,
            pgoff,
            file_id,
            prot,
            flags,
            filename,
            sample_id,
        })
    }

    /// Whether the mapping is not executable (`PERF_RECORD_MISC_MMAP_DATA`).
    pub const fn is_data(&self) -> bool {
        self.misc & misc::MMAP_DATA != 0
    }
}
