//! The header features as readable, owned, serializable facts (the parts of [`Summary`] beyond
//! the strings), converted from [`perfscope_format::features::Feature`].

use perfscope_format::features::{self, Feature, RawStr};
use serde::{Deserialize, Serialize};

use crate::summary::Summary;

/// One HEADER_BUILD_ID entry (or HEADER_BUILD_ID record).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BuildIdSummary {
    /// The machine: -1 host, 0 default guest, else a guest pid.
    pub pid: i32,
    /// `kernel`, `user`, `hypervisor`, `guest_kernel`, `guest_user` or `unknown`.
    pub cpumode: String,
    /// The build id in lowercase hex.
    pub build_id: String,
    /// The DSO path.
    pub filename: String,
}

/// HEADER_CPU_TOPOLOGY.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuTopologySummary {
    /// The CPUs of each package ("sibling sockets").
    pub sibling_sockets: Vec<String>,
    /// The CPUs of each die ("sibling dies"), when the file has them.
    pub sibling_dies: Option<Vec<String>>,
    /// The CPUs of each core ("sibling threads").
    pub sibling_threads: Vec<String>,
    /// Core, socket and die of each CPU, when the file has them.
    pub cpus: Option<Vec<CpuIdsSummary>>,
}

/// The topology of one CPU.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuIdsSummary {
    /// The CPU number.
    pub cpu: u32,
    /// Its core id.
    pub core_id: u32,
    /// Its socket id.
    pub socket_id: u32,
    /// Its die id (newer files).
    pub die_id: Option<u32>,
}

/// One NUMA node.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct NumaNodeSummary {
    /// The node number.
    pub node: u32,
    /// Total memory in kB.
    pub mem_total_kb: u64,
    /// Free memory in kB when recording.
    pub mem_free_kb: u64,
    /// The node's CPUs (`0-3`).
    pub cpus: String,
}

/// One PMU and its `attr.type`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PmuMappingSummary {
    /// The PMU name.
    pub name: String,
    /// Its type number.
    pub type_: u32,
}

/// One event group.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GroupSummary {
    /// The group's name, if the user gave one.
    pub name: Option<String>,
    /// Index (attr order) of the leader.
    pub leader_idx: u32,
    /// Number of events in the group.
    pub nr_members: u32,
    /// The names of the members, leader first.
    pub members: Vec<String>,
}

/// One CPU cache.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CacheSummary {
    /// Cache level (1, 2, 3).
    pub level: u32,
    /// Cache instance id (HEADER_CACHE version 2).
    pub id: Option<u32>,
    /// Line size in bytes.
    pub line_size: u32,
    /// Number of sets.
    pub sets: u32,
    /// Associativity.
    pub ways: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub type_: String,
    /// Size as the kernel writes it (`48K`).
    pub size: String,
    /// The CPUs sharing it.
    pub map: String,
}

/// HEADER_SAMPLE_TIME.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SampleTimeSummary {
    /// Time of the first sample (ns, sampling clock).
    pub first_ns: u64,
    /// Time of the last sample.
    pub last_ns: u64,
}

/// HEADER_MEM_TOPOLOGY.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MemTopologySummary {
    /// Bytes per memory block.
    pub block_size: u64,
    /// The nodes.
    pub nodes: Vec<MemNodeSummary>,
}

/// The memory of one node.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MemNodeSummary {
    /// Node number.
    pub node: u64,
    /// Number of memory blocks.
    pub blocks: u64,
    /// Memory in bytes (`blocks * block_size`).
    pub bytes: u64,
    /// The block indexes as ranges (`0-23,32-199`).
    pub map: String,
}

/// HEADER_CLOCK_DATA.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ClockDataSummary {
    /// The sampling clock id.
    pub clockid: u32,
    /// Its name (`monotonic`), if known.
    pub clockid_name: Option<String>,
    /// Wall-clock reference time in ns since the epoch.
    pub tod_ns: u64,
    /// The sampling clock at the same instant, in ns.
    pub clockid_ns: u64,
}

/// HEADER_COMPRESSED.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CompressedSummary {
    /// Format version.
    pub version: u32,
    /// Compression type number.
    pub type_: u32,
    /// `zstd` or `unknown`.
    pub type_name: String,
    /// Compression level.
    pub level: u32,
    /// Ratio observed while recording.
    pub ratio: u32,
    /// Ring-buffer size (bound of one decompressed chunk).
    pub mmap_len: u32,
}

/// A PMU capability.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PmuCapSummary {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
}

/// The capabilities of one PMU (HEADER_PMU_CAPS).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PmuCapsSummary {
    /// The PMU.
    pub pmu_name: String,
    /// Its capabilities.
    pub caps: Vec<PmuCapSummary>,
}

/// One node of HEADER_HYBRID_TOPOLOGY.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct HybridNodeSummary {
    /// The core PMU.
    pub pmu_name: String,
    /// Its CPUs.
    pub cpus: String,
}

/// One BPF program of HEADER_BPF_PROG_INFO.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BpfProgSummary {
    /// Program id.
    pub id: Option<u32>,
    /// `enum bpf_prog_type`.
    pub prog_type: Option<u32>,
    /// Program name.
    pub name: Option<String>,
    /// Program tag in hex.
    pub tag: Option<String>,
    /// JIT-ed code size.
    pub jited_prog_len: Option<u32>,
}

/// One BTF blob of HEADER_BPF_BTF.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BtfSummary {
    /// BTF id.
    pub id: u32,
    /// Size in bytes.
    pub size: usize,
}

/// HEADER_CPU_DOMAIN_INFO.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuDomainInfoSummary {
    /// `/proc/schedstat` version.
    pub schedstat_version: u32,
    /// One more than the highest domain number.
    pub max_sched_domains: u32,
    /// Per CPU: `(cpu, domains)`.
    pub cpus: Vec<(u32, Vec<SchedDomainSummary>)>,
}

/// One scheduler domain.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SchedDomainSummary {
    /// Domain number.
    pub domain: u32,
    /// Domain name (schedstat ≥ 17).
    pub name: Option<String>,
    /// CPU mask (hex).
    pub cpumask: String,
    /// CPU list.
    pub cpulist: String,
}

/// HEADER_TRACING_DATA (or a HEADER_TRACING_DATA record).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TracingDataSummary {
    /// Format version.
    pub version: String,
    /// Bytes of tracing data.
    pub size: u64,
    /// The tracepoint formats: `(system:name, id)`.
    pub events: Vec<(String, Option<u64>)>,
    /// A problem in the container, if any.
    pub error: Option<String>,
}

/// A feature this version does not know.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct UnknownFeatureSummary {
    /// Feature bit.
    pub id: u32,
    /// Size in bytes.
    pub size: u64,
}

fn s(r: RawStr<'_>) -> String {
    r.to_string()
}

/// Hex digits of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Ascending indexes as ranges, as perf's `bitmap_scnprintf` prints them: `0-23,32-199`.
pub fn ranges(indexes: impl IntoIterator<Item = u64>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(u64, u64)> = None;
    let flush = |run: (u64, u64), out: &mut Vec<String>| {
        out.push(if run.0 == run.1 {
            run.0.to_string()
        } else {
            format!("{}-{}", run.0, run.1)
        });
    };
    for i in indexes {
        run = match run {
            Some((a, b)) if b.checked_add(1) == Some(i) => Some((a, i)),
            Some(r) => {
                flush(r, &mut out);
                Some((i, i))
            }
            None => Some((i, i)),
        };
    }
    if let Some(r) = run {
        flush(r, &mut out);
    }
    out.join(",")
}

/// The name of a `misc` cpumode.
pub fn cpumode_name(cpumode: u16) -> &'static str {
    use perfscope_format::constants::misc;
    match cpumode {
        misc::KERNEL => "kernel",
        misc::USER => "user",
        misc::HYPERVISOR => "hypervisor",
        misc::GUEST_KERNEL => "guest_kernel",
        misc::GUEST_USER => "guest_user",
        _ => "unknown",
    }
}

/// A build id entry as a summary.
pub fn build_id_summary(e: &features::BuildIdEvent<'_>) -> BuildIdSummary {
    BuildIdSummary {
        pid: e.pid,
        cpumode: cpumode_name(e.cpumode()).into(),
        build_id: hex(e.build_id),
        filename: s(e.filename),
    }
}

/// Tracing data as a summary.
pub fn tracing_data_summary(t: &features::TracingData<'_>) -> TracingDataSummary {
    TracingDataSummary {
        version: s(t.version),
        size: t.size as u64,
        events: t
            .events
            .iter()
            .map(|e| (format!("{}:{}", e.system, e.name.unwrap_or_default()), e.id))
            .collect(),
        error: t.error.map(|e| e.to_string()),
    }
}

fn caps(v: &[features::PmuCap<'_>]) -> Vec<PmuCapSummary> {
    v.iter()
        .map(|c| PmuCapSummary {
            name: s(c.name),
            value: s(c.value),
        })
        .collect()
}

impl Summary {
    /// Stores the facts of one decoded feature (EVENT_DESC, GROUP_DESC and the naming inputs
    /// are handled by the caller, which needs them together).
    pub(crate) fn store_feature(&mut self, f: &Feature<'_>) {
        match f {
            Feature::Hostname(v) => self.hostname = Some(s(*v)),
            Feature::OsRelease(v) => self.os_release = Some(s(*v)),
            Feature::Version(v) => self.perf_version = Some(s(*v)),
            Feature::Arch(v) => self.arch = Some(s(*v)),
            Feature::CpuDesc(v) => self.cpu_desc = Some(s(*v)),
            Feature::CpuId(v) => self.cpuid = Some(s(*v)),
            Feature::TotalMem(v) => self.total_mem_kb = Some(*v),
            Feature::NrCpus(n) => {
                self.nr_cpus_online = Some(n.online);
                self.nr_cpus_available = Some(n.available);
            }
            Feature::Cmdline(args) => {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                self.cmdline = Some(args.join(" "));
                self.cmdline_args = Some(args);
            }
            Feature::BuildId(v) => self.build_ids.extend(v.iter().map(build_id_summary)),
            Feature::CpuTopology(t) => {
                let strs = |v: &[RawStr<'_>]| v.iter().map(|x| s(*x)).collect::<Vec<_>>();
                self.cpu_topology = Some(CpuTopologySummary {
                    sibling_sockets: strs(&t.package_cpus_lists),
                    sibling_dies: t.die_cpus_lists.as_deref().map(strs),
                    sibling_threads: strs(&t.core_cpus_lists),
                    cpus: t.cpus.as_ref().map(|c| {
                        c.iter()
                            .zip(0u32..)
                            .map(|(c, cpu)| CpuIdsSummary {
                                cpu,
                                core_id: c.core_id,
                                socket_id: c.socket_id,
                                die_id: c.die_id,
                            })
                            .collect()
                    }),
                });
            }
            Feature::NumaTopology(nodes) => {
                self.numa_nodes = nodes
                    .iter()
                    .map(|n| NumaNodeSummary {
                        node: n.node,
                        mem_total_kb: n.mem_total,
                        mem_free_kb: n.mem_free,
                        cpus: s(n.cpus),
                    })
                    .collect();
            }
            Feature::BranchStack => self.branch_stack = true,
            Feature::Stat => self.stat = true,
            Feature::PmuMappings(v) => {
                self.pmu_mappings = v
                    .iter()
                    .map(|m| PmuMappingSummary {
                        name: s(m.name),
                        type_: m.type_,
                    })
                    .collect();
            }
            Feature::Auxtrace(v) => self.auxtrace_index_entries = Some(v.len()),
            Feature::Cache(v) => {
                self.caches = v
                    .iter()
                    .map(|c| CacheSummary {
                        level: c.level,
                        id: c.id,
                        line_size: c.line_size,
                        sets: c.sets,
                        ways: c.ways,
                        type_: s(c.type_),
                        size: s(c.size),
                        map: s(c.map),
                    })
                    .collect();
            }
            Feature::SampleTime(t) => {
                self.sample_time = Some(SampleTimeSummary {
                    first_ns: t.first,
                    last_ns: t.last,
                })
            }
            Feature::MemTopology(t) => {
                self.memory_topology = Some(MemTopologySummary {
                    block_size: t.block_size,
                    nodes: t
                        .nodes
                        .iter()
                        .map(|n| {
                            let blocks = n.weight();
                            MemNodeSummary {
                                node: n.node,
                                blocks,
                                bytes: blocks.saturating_mul(t.block_size),
                                map: ranges(n.blocks()),
                            }
                        })
                        .collect(),
                });
            }
            Feature::ClockId(v) => self.clockid_res_ns = Some(*v),
            Feature::ClockData(c) => {
                self.clock_data = Some(ClockDataSummary {
                    clockid: c.clockid,
                    clockid_name: features::scalars::clockid_name(c.clockid).map(Into::into),
                    tod_ns: c.tod_ns,
                    clockid_ns: c.clockid_ns,
                });
            }
            Feature::DirFormat(v) => self.dir_format_version = Some(*v),
            Feature::Compressed(c) => {
                self.compressed = Some(CompressedSummary {
                    version: c.version,
                    type_: c.type_,
                    type_name: if c.type_ == features::Compressed::ZSTD {
                        "zstd"
                    } else {
                        "unknown"
                    }
                    .into(),
                    level: c.level,
                    ratio: c.ratio,
                    mmap_len: c.mmap_len,
                });
            }
            Feature::CpuPmuCaps(v) => self.cpu_pmu_caps = Some(caps(v)),
            Feature::PmuCaps(v) => {
                self.pmu_caps = v
                    .iter()
                    .map(|p| PmuCapsSummary {
                        pmu_name: s(p.pmu_name),
                        caps: caps(&p.caps),
                    })
                    .collect();
            }
            Feature::HybridTopology(v) => {
                self.hybrid_topology = v
                    .iter()
                    .map(|n| HybridNodeSummary {
                        pmu_name: s(n.pmu_name),
                        cpus: s(n.cpus),
                    })
                    .collect();
            }
            Feature::BpfProgInfo(v) => {
                self.bpf_progs = v
                    .iter()
                    .map(|p| BpfProgSummary {
                        id: p.id(),
                        prog_type: p.prog_type(),
                        name: p.name().map(s),
                        tag: p.tag().map(|t| hex(&t)),
                        jited_prog_len: p.jited_prog_len(),
                    })
                    .collect();
            }
            Feature::BpfBtf(v) => {
                self.bpf_btfs = v
                    .iter()
                    .map(|b| BtfSummary {
                        id: b.id,
                        size: b.data.len(),
                    })
                    .collect()
            }
            Feature::CpuDomainInfo(d) => {
                self.cpu_domain_info = Some(CpuDomainInfoSummary {
                    schedstat_version: d.schedstat_version,
                    max_sched_domains: d.max_sched_domains,
                    cpus: d
                        .cpus
                        .iter()
                        .map(|c| {
                            let domains = c
                                .domains
                                .iter()
                                .map(|x| SchedDomainSummary {
                                    domain: x.domain,
                                    name: x.name.map(s),
                                    cpumask: s(x.cpumask),
                                    cpulist: s(x.cpulist),
                                })
                                .collect();
                            (c.cpu, domains)
                        })
                        .collect(),
                });
            }
            Feature::TracingData(t) => self.tracing_data = Some(tracing_data_summary(t)),
            Feature::Unknown { id, data } => {
                self.unknown_features.push(UnknownFeatureSummary {
                    id: id.0,
                    size: data.len() as u64,
                });
            }
            // EVENT_DESC and GROUP_DESC are combined with the attrs by the caller.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_as_perf_prints_bitmaps() {
        assert_eq!(ranges([0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(ranges((0..24).chain(32..200)), "0-23,32-199");
        assert_eq!(ranges([]), "");
        assert_eq!(hex(&[0x64, 0x19, 0x0a]), "64190a");
    }
}
