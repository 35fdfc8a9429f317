//! PERF_RECORD_NAMESPACES: the namespaces of a new task.

use core::iter::FusedIterator;

use super::callchain::read_array;
use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::endian::Endianness;
use crate::error::Result;

/// Names of the namespace slots, in index order (`NET_NS_INDEX` … `CGROUP_NS_INDEX`).
pub const NAMESPACE_NAMES: [&str; 7] = ["net", "uts", "ipc", "pid", "user", "mnt", "cgroup"];

/// `struct perf_record_namespaces` (PERF_RECORD_NAMESPACES).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamespacesRecord<'a> {
    /// `pid`.
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    link_info: &'a [u8],
    endian: Endianness,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

/// `struct perf_ns_link_info`: one namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NsLinkInfo {
    /// `dev`.
    pub dev: u64,
    /// `ino`.
    pub ino: u64,
}

impl<'a> NamespacesRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, sample_id: SampleId) -> Result<Self> {
        let pid = b.read_u32("namespaces pid")?;
        let tid = b.read_u32("namespaces tid")?;
        let at = b.offset();
        let nr = b.read_u64("namespaces nr_namespaces")?;
        let link_info = read_array(&mut b, nr, 16, at, "namespaces link_info")?;
        Ok(NamespacesRecord {
            pid,
            tid,
            link_info,
            endian: b.endian(),
            sample_id,
        })
    }

    /// `nr_namespaces`.
    pub const fn len(&self) -> usize {
        self.link_info.len() / 16
    }

    /// Whether there is no namespace.
    pub const fn is_empty(&self) -> bool {
        self.link_info.is_empty()
    }

    /// The namespaces, in index order (see [`NAMESPACE_NAMES`]).
    pub fn iter(&self) -> impl FusedIterator<Item = NsLinkInfo> + 'a {
        let e = self.endian;
        self.link_info.chunks_exact(16).map(move |c| NsLinkInfo {
            dev: crate::layout::read_u64_at(c, 0, e).unwrap_or(0),
            ino: crate::layout::read_u64_at(c, 8, e).unwrap_or(0),
        })
    }
}
