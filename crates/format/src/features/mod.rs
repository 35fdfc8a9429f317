//! Header features: the sections after the data section (file mode) or the payloads of
//! HEADER_FEATURE records (pipe mode), decoded as `tools/perf/util/header.c` reads them.
//!
//! One module per feature (or per family of features that share a layout). [`parse_feature`]
//! is the single entry point; each module also exposes its own `parse_*` function.
//!
//! ```
//! use perfscope_format::bytes::Bytes;
//! use perfscope_format::features::{parse_feature, Feature, FeatureContext};
//! use perfscope_format::{Endianness, HeaderFeature};
//! // HEADER_NRCPUS: nr_cpus_avail = 4, then nr_cpus_online = 2.
//! let data = [4, 0, 0, 0, 2, 0, 0, 0];
//! let bytes = Bytes::new(&data, 0x1000, Endianness::Little);
//! let f = parse_feature(HeaderFeature::NRCPUS, bytes, &FeatureContext::default()).unwrap();
//! let Feature::NrCpus(n) = f else { panic!() };
//! assert_eq!((n.available, n.online), (4, 2));
//! ```

use core::fmt;

use alloc::vec::Vec;

use crate::bytes::Bytes;
use crate::constants::HeaderFeature;
use crate::error::{ErrorKind, Result};

pub mod auxtrace;
pub mod bpf;
pub mod build_id;
pub mod cache;
pub mod cpu_domain;
pub mod event_desc;
pub mod memory;
pub mod pmu;
pub mod scalars;
pub mod strings;
pub mod topology;
pub mod tracing_data;

#[cfg(test)]
pub(crate) mod builder;

pub use auxtrace::AuxtraceIndexEntry;
pub use bpf::{BpfProgInfo, BtfEntry};
pub use build_id::BuildIdEvent;
pub use cache::CacheLevel;
pub use cpu_domain::{CpuDomainInfo, CpuDomains, SchedDomain};
pub use event_desc::EventDesc;
pub use memory::{MemTopology, MemoryNode};
pub use pmu::{GroupDesc, PmuCap, PmuCaps, PmuMapping};
pub use scalars::{ClockData, Compressed, SampleTime};
pub use strings::NrCpus;
pub use topology::{CpuTopology, CpuTopologyIds, HybridNode, NumaNode};
pub use tracing_data::{TraceEventFormat, TracingData};

/// A string from the file: bytes that are usually UTF-8, printed lossily.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RawStr<'a>(pub &'a [u8]);

impl<'a> RawStr<'a> {
    /// The bytes.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The string if it is valid UTF-8.
    pub fn to_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.0).ok()
    }
}

impl fmt::Display for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{fffd}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// Reads a string as perf's `do_read_string` does: a `u32` length, then that many bytes holding
/// a NUL-terminated string padded with zeroes.
pub fn read_string<'a>(b: &mut Bytes<'a>) -> Result<RawStr<'a>> {
    let len = b.read_u32("string length")?;
    let bytes = b.read_bytes_u64(len.into(), "string")?;
    Ok(RawStr(crate::bytes::until_nul(bytes)))
}

/// Reads a `u32` count that must not exceed what `min_item_size`-byte items could fill in the
/// remaining bytes (so no allocation or loop is ever sized by an untrusted number).
pub fn read_count(b: &mut Bytes<'_>, what: &'static str, min_item_size: usize) -> Result<u32> {
    let at = b.offset();
    let n = b.read_u32(what)?;
    check_count(b, at, what, n.into(), min_item_size)?;
    Ok(n)
}

/// Like [`read_count`] for a `u64` count.
pub fn read_count_u64(b: &mut Bytes<'_>, what: &'static str, min_item_size: usize) -> Result<u64> {
    let at = b.offset();
    let n = b.read_u64(what)?;
    check_count(b, at, what, n, min_item_size)?;
    Ok(n)
}

fn check_count(
    b: &Bytes<'_>,
    at: u64,
    what: &'static str,
    n: u64,
    min_item_size: usize,
) -> Result<()> {
    let max = (b.len() / min_item_size.max(1)) as u64;
    if n > max {
        return Err(crate::Error::new(
            at,
            ErrorKind::BadValue { what, value: n },
        ));
    }
    Ok(())
}

/// A `Vec` with room for `n` items, `n` already checked by [`read_count`].
fn with_capacity<T>(n: impl TryInto<usize>) -> Vec<T> {
    Vec::with_capacity(n.try_into().unwrap_or(0))
}

/// What a feature parser may need from features read before it (perf keeps these in its
/// `perf_env`). Features are stored in bit order, so NRCPUS (7) always comes before the
/// features that depend on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatureContext {
    /// `nr_cpus_avail` from HEADER_NRCPUS: how many per-CPU entries CPU_TOPOLOGY holds.
    pub nr_cpus_avail: Option<u32>,
    /// `nr_cpus_online` from HEADER_NRCPUS: how many CPUs CPU_DOMAIN_INFO describes.
    pub nr_cpus_online: Option<u32>,
}

/// One decoded header feature.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Feature<'a> {
    /// HEADER_TRACING_DATA: the tracepoint formats (ftrace "tracing" data).
    TracingData(TracingData<'a>),
    /// HEADER_BUILD_ID: build ids of the DSOs with samples.
    BuildId(Vec<BuildIdEvent<'a>>),
    /// HEADER_HOSTNAME.
    Hostname(RawStr<'a>),
    /// HEADER_OSRELEASE.
    OsRelease(RawStr<'a>),
    /// HEADER_VERSION: the perf version that recorded.
    Version(RawStr<'a>),
    /// HEADER_ARCH.
    Arch(RawStr<'a>),
    /// HEADER_NRCPUS.
    NrCpus(NrCpus),
    /// HEADER_CPUDESC.
    CpuDesc(RawStr<'a>),
    /// HEADER_CPUID.
    CpuId(RawStr<'a>),
    /// HEADER_TOTAL_MEM in kB.
    TotalMem(u64),
    /// HEADER_CMDLINE: the argv of `perf record` (the perf binary's path first).
    Cmdline(Vec<RawStr<'a>>),
    /// HEADER_EVENT_DESC: each event's attr, name and ids.
    EventDesc(Vec<EventDesc<'a>>),
    /// HEADER_CPU_TOPOLOGY.
    CpuTopology(CpuTopology<'a>),
    /// HEADER_NUMA_TOPOLOGY.
    NumaTopology(Vec<NumaNode<'a>>),
    /// HEADER_BRANCH_STACK: an empty marker, "contains samples with branch stack".
    BranchStack,
    /// HEADER_PMU_MAPPINGS: PMU name to `attr.type`.
    PmuMappings(Vec<PmuMapping<'a>>),
    /// HEADER_GROUP_DESC: event groups.
    GroupDesc(Vec<GroupDesc<'a>>),
    /// HEADER_AUXTRACE: the index of AUXTRACE records in the data section.
    Auxtrace(Vec<AuxtraceIndexEntry>),
    /// HEADER_STAT: an empty marker, "contains stat data" (`perf stat record`).
    Stat,
    /// HEADER_CACHE: the CPU caches.
    Cache(Vec<CacheLevel<'a>>),
    /// HEADER_SAMPLE_TIME: the time of the first and last sample.
    SampleTime(SampleTime),
    /// HEADER_MEM_TOPOLOGY: memory blocks per node.
    MemTopology(MemTopology<'a>),
    /// HEADER_CLOCKID: `clockid_res_ns`, the resolution of the clock in ns.
    ClockId(u64),
    /// HEADER_DIR_FORMAT: the version of the `perf record --threads` directory format.
    DirFormat(u64),
    /// HEADER_BPF_PROG_INFO: `bpf_prog_info` of the BPF programs loaded while recording.
    BpfProgInfo(Vec<BpfProgInfo<'a>>),
    /// HEADER_BPF_BTF: BTF blobs of those programs.
    BpfBtf(Vec<BtfEntry<'a>>),
    /// HEADER_COMPRESSED: how the data section's COMPRESSED records were compressed.
    Compressed(Compressed),
    /// HEADER_CPU_PMU_CAPS: capabilities of the `cpu` PMU.
    CpuPmuCaps(Vec<PmuCap<'a>>),
    /// HEADER_CLOCK_DATA: a reference time pair (wall clock and the sampling clock).
    ClockData(ClockData),
    /// HEADER_HYBRID_TOPOLOGY: the CPUs of each core PMU on hybrid machines.
    HybridTopology(Vec<HybridNode<'a>>),
    /// HEADER_PMU_CAPS: capabilities of the other PMUs.
    PmuCaps(Vec<PmuCaps<'a>>),
    /// HEADER_CPU_DOMAIN_INFO: scheduler domains per CPU.
    CpuDomainInfo(CpuDomainInfo<'a>),
    /// A feature this crate does not know, kept raw.
    Unknown {
        /// The feature bit.
        id: HeaderFeature,
        /// Its bytes.
        data: &'a [u8],
    },
}

impl Feature<'_> {
    /// The feature bit this value was decoded from.
    pub fn id(&self) -> HeaderFeature {
        match self {
            Feature::TracingData(_) => HeaderFeature::TRACING_DATA,
            Feature::BuildId(_) => HeaderFeature::BUILD_ID,
            Feature::Hostname(_) => HeaderFeature::HOSTNAME,
            Feature::OsRelease(_) => HeaderFeature::OSRELEASE,
            Feature::Version(_) => HeaderFeature::VERSION,
            Feature::Arch(_) => HeaderFeature::ARCH,
            Feature::NrCpus(_) => HeaderFeature::NRCPUS,
            Feature::CpuDesc(_) => HeaderFeature::CPUDESC,
            Feature::CpuId(_) => HeaderFeature::CPUID,
            Feature::TotalMem(_) => HeaderFeature::TOTAL_MEM,
            Feature::Cmdline(_) => HeaderFeature::CMDLINE,
            Feature::EventDesc(_) => HeaderFeature::EVENT_DESC,
            Feature::CpuTopology(_) => HeaderFeature::CPU_TOPOLOGY,
            Feature::NumaTopology(_) => HeaderFeature::NUMA_TOPOLOGY,
            Feature::BranchStack => HeaderFeature::BRANCH_STACK,
            Feature::PmuMappings(_) => HeaderFeature::PMU_MAPPINGS,
            Feature::GroupDesc(_) => HeaderFeature::GROUP_DESC,
            Feature::Auxtrace(_) => HeaderFeature::AUXTRACE,
            Feature::Stat => HeaderFeature::STAT,
            Feature::Cache(_) => HeaderFeature::CACHE,
            Feature::SampleTime(_) => HeaderFeature::SAMPLE_TIME,
            Feature::MemTopology(_) => HeaderFeature::MEM_TOPOLOGY,
            Feature::ClockId(_) => HeaderFeature::CLOCKID,
            Feature::DirFormat(_) => HeaderFeature::DIR_FORMAT,
            Feature::BpfProgInfo(_) => HeaderFeature::BPF_PROG_INFO,
            Feature::BpfBtf(_) => HeaderFeature::BPF_BTF,
            Feature::Compressed(_) => HeaderFeature::COMPRESSED,
            Feature::CpuPmuCaps(_) => HeaderFeature::CPU_PMU_CAPS,
            Feature::ClockData(_) => HeaderFeature::CLOCK_DATA,
            Feature::HybridTopology(_) => HeaderFeature::HYBRID_TOPOLOGY,
            Feature::PmuCaps(_) => HeaderFeature::PMU_CAPS,
            Feature::CpuDomainInfo(_) => HeaderFeature::CPU_DOMAIN_INFO,
            Feature::Unknown { id, .. } => *id,
        }
    }
}

/// Decodes the bytes of feature `id` (a file section or a HEADER_FEATURE record's payload).
///
/// Errors carry the absolute offset of the field that could not be read. Unknown feature ids
/// are not errors: they come back as [`Feature::Unknown`].
pub fn parse_feature<'a>(
    id: HeaderFeature,
    b: Bytes<'a>,
    ctx: &FeatureContext,
) -> Result<Feature<'a>> {
    Ok(match id {
        HeaderFeature::TRACING_DATA => Feature::TracingData(tracing_data::parse_tracing_data(b)?),
        HeaderFeature::BUILD_ID => Feature::BuildId(build_id::parse_build_ids(b)?),
        HeaderFeature::HOSTNAME => Feature::Hostname(strings::parse_string(b)?),
        HeaderFeature::OSRELEASE => Feature::OsRelease(strings::parse_string(b)?),
        HeaderFeature::VERSION => Feature::Version(strings::parse_string(b)?),
        HeaderFeature::ARCH => Feature::Arch(strings::parse_string(b)?),
        HeaderFeature::NRCPUS => Feature::NrCpus(strings::parse_nrcpus(b)?),
        HeaderFeature::CPUDESC => Feature::CpuDesc(strings::parse_string(b)?),
        HeaderFeature::CPUID => Feature::CpuId(strings::parse_string(b)?),
        HeaderFeature::TOTAL_MEM => Feature::TotalMem(strings::parse_total_mem(b)?),
        HeaderFeature::CMDLINE => Feature::Cmdline(strings::parse_cmdline(b)?),
        HeaderFeature::EVENT_DESC => Feature::EventDesc(event_desc::parse_event_desc(b)?),
        HeaderFeature::CPU_TOPOLOGY => {
            Feature::CpuTopology(topology::parse_cpu_topology(b, ctx.nr_cpus_avail)?)
        }
        HeaderFeature::NUMA_TOPOLOGY => Feature::NumaTopology(topology::parse_numa_topology(b)?),
        HeaderFeature::BRANCH_STACK => Feature::BranchStack,
        HeaderFeature::PMU_MAPPINGS => Feature::PmuMappings(pmu::parse_pmu_mappings(b)?),
        HeaderFeature::GROUP_DESC => Feature::GroupDesc(pmu::parse_group_desc(b)?),
        HeaderFeature::AUXTRACE => Feature::Auxtrace(auxtrace::parse_auxtrace_index(b)?),
        HeaderFeature::STAT => Feature::Stat,
        HeaderFeature::CACHE => Feature::Cache(cache::parse_cache(b)?),
        HeaderFeature::SAMPLE_TIME => Feature::SampleTime(scalars::parse_sample_time(b)?),
        HeaderFeature::MEM_TOPOLOGY => Feature::MemTopology(memory::parse_mem_topology(b)?),
        HeaderFeature::CLOCKID => Feature::ClockId(scalars::parse_clockid(b)?),
        HeaderFeature::DIR_FORMAT => Feature::DirFormat(scalars::parse_dir_format(b)?),
        HeaderFeature::BPF_PROG_INFO => Feature::BpfProgInfo(bpf::parse_bpf_prog_info(b)?),
        HeaderFeature::BPF_BTF => Feature::BpfBtf(bpf::parse_bpf_btf(b)?),
        HeaderFeature::COMPRESSED => Feature::Compressed(scalars::parse_compressed(b)?),
        HeaderFeature::CPU_PMU_CAPS => Feature::CpuPmuCaps(pmu::parse_cpu_pmu_caps(b)?),
        HeaderFeature::CLOCK_DATA => Feature::ClockData(scalars::parse_clock_data(b)?),
        HeaderFeature::HYBRID_TOPOLOGY => {
            Feature::HybridTopology(topology::parse_hybrid_topology(b)?)
        }
        HeaderFeature::PMU_CAPS => Feature::PmuCaps(pmu::parse_pmu_caps(b)?),
        HeaderFeature::CPU_DOMAIN_INFO => {
            Feature::CpuDomainInfo(cpu_domain::parse_cpu_domain_info(b, ctx.nr_cpus_online)?)
        }
        _ => Feature::Unknown {
            id,
            data: b.remaining(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;

    #[test]
    fn every_known_id_dispatches_to_its_variant_and_unknown_ids_stay_raw() {
        for endian in [Endianness::Little, Endianness::Big] {
            let empty = Builder::new(endian);
            let ctx = FeatureContext::default();
            let f = parse_feature(HeaderFeature::BRANCH_STACK, empty.bytes(0), &ctx).unwrap();
            assert_eq!(f, Feature::BranchStack);
            assert_eq!(
                parse_feature(HeaderFeature::STAT, empty.bytes(0), &ctx).unwrap(),
                Feature::Stat
            );
            let raw = [1u8, 2, 3];
            let f = parse_feature(HeaderFeature(40), Bytes::new(&raw, 0, endian), &ctx).unwrap();
            assert_eq!(
                f,
                Feature::Unknown {
                    id: HeaderFeature(40),
                    data: &raw
                }
            );
            assert_eq!(f.id(), HeaderFeature(40));
            let mut b = Builder::new(endian);
            b.u64(1_000_000);
            let f = parse_feature(HeaderFeature::CLOCKID, b.bytes(0), &ctx).unwrap();
            assert_eq!(
                (f.id(), f),
                (HeaderFeature::CLOCKID, Feature::ClockId(1_000_000))
            );
        }
    }

    /// Arbitrary bytes under every feature id: errors, never a panic or a runaway allocation.
    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in [0usize, 1, 3, 4, 7, 8, 12, 16, 31, 64, 100, 300, 1000] {
            for round in 0..40 {
                let mut data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                // Small numbers make the parsers go deeper than random u32s would.
                if round % 2 == 0 {
                    for chunk in data.chunks_mut(4) {
                        if let Some(b) = chunk.first_mut() {
                            *b %= 4;
                        }
                        for b in chunk.iter_mut().skip(1) {
                            *b = 0;
                        }
                    }
                }
                for endian in [Endianness::Little, Endianness::Big] {
                    for id in 0..40 {
                        for ctx in [
                            FeatureContext::default(),
                            FeatureContext {
                                nr_cpus_avail: Some(3),
                                nr_cpus_online: Some(2),
                            },
                        ] {
                            let _ = parse_feature(
                                HeaderFeature(id),
                                Bytes::new(&data, 0, endian),
                                &ctx,
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn counts_larger_than_the_bytes_are_refused_with_their_offset() {
        let mut b = Builder::new(Endianness::Little);
        b.u64(3).u64(0);
        let mut cur = b.bytes(0x200);
        let err = read_count_u64(&mut cur, "n", 8).unwrap_err();
        assert_eq!(
            err,
            crate::Error::new(
                0x200,
                ErrorKind::BadValue {
                    what: "n",
                    value: 3
                }
            )
        );
    }
}
