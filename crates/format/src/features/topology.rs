//! HEADER_CPU_TOPOLOGY, HEADER_NUMA_TOPOLOGY and HEADER_HYBRID_TOPOLOGY.

use alloc::vec::Vec;

use super::{read_count, read_string, with_capacity, RawStr};
use crate::bytes::Bytes;
use crate::error::Result;

/// The most CPUs tried when CPU_TOPOLOGY has to be read without HEADER_NRCPUS (perf's
/// `MAX_NR_CPUS` is 4096 in 6.1).
const MAX_INFERRED_CPUS: usize = 4096;

/// HEADER_CPU_TOPOLOGY (`write_cpu_topology`), in any of its three revisions:
///
/// 1. the CPU lists of each package and each core (perf ≤ 4.0);
/// 2. then a core id and a socket id for each of `nr_cpus_avail` CPUs;
/// 3. then the CPU lists of each die and a die id for each CPU (perf ≥ 5.2).
///
/// Like perf's `process_cpu_topology`, the revision is known from the bytes that remain.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuTopology<'a> {
    /// `package_cpus_list`: the CPUs of each package (perf prints them as "sibling sockets";
    /// its env calls them `sibling_cores`).
    pub package_cpus_lists: Vec<RawStr<'a>>,
    /// `core_cpus_list`: the CPUs of each core, hyperthreads together ("sibling threads").
    pub core_cpus_lists: Vec<RawStr<'a>>,
    /// `die_cpus_list`: the CPUs of each die ("sibling dies"), revision 3 only.
    pub die_cpus_lists: Option<Vec<RawStr<'a>>>,
    /// Per CPU (0 to `nr_cpus_avail - 1`): core, socket and (revision 3) die id. `None` in
    /// revision 1 files.
    pub cpus: Option<Vec<CpuTopologyIds>>,
}

/// The topology ids of one CPU (`struct cpu_topology_map` in perf's env).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTopologyIds {
    /// `core_id`.
    pub core_id: u32,
    /// `socket_id`.
    pub socket_id: u32,
    /// `die_id`, present in revision 3.
    pub die_id: Option<u32>,
}

fn read_strings<'a>(b: &mut Bytes<'a>, what: &'static str) -> Result<Vec<RawStr<'a>>> {
    let n = read_count(b, what, 4)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        v.push(read_string(b)?);
    }
    Ok(v)
}

/// Parses HEADER_CPU_TOPOLOGY. `nr_cpus_avail` (from HEADER_NRCPUS) is the number of per-CPU
/// entries; when unknown it is inferred from the size of what follows the lists.
pub fn parse_cpu_topology(mut b: Bytes<'_>, nr_cpus_avail: Option<u32>) -> Result<CpuTopology<'_>> {
    let mut t = CpuTopology {
        package_cpus_lists: read_strings(&mut b, "cpu_topology package count")?,
        core_cpus_lists: read_strings(&mut b, "cpu_topology core count")?,
        ..CpuTopology::default()
    };
    // Revision 1 ends here. Trailing zero padding (pipe-mode feature records are padded to
    // 8 bytes by newer perf) is not a revision 2 table.
    if is_padding(b.remaining()) {
        return Ok(t);
    }
    let n = match nr_cpus_avail {
        Some(n) => n as usize,
        None => infer_nr_cpus(b),
    };
    let (cpus, dies) = read_ids(&mut b, n)?;
    t.cpus = Some(cpus);
    t.die_cpus_lists = dies;
    Ok(t)
}

/// Whether `rest` is only the zero padding of a pipe-mode feature record (under 8 bytes).
fn is_padding(rest: &[u8]) -> bool {
    rest.len() < 8 && rest.iter().all(|&c| c == 0)
}

/// Reads `n` (core id, socket id) pairs, then the optional die section.
fn read_ids<'a>(
    b: &mut Bytes<'a>,
    n: usize,
) -> Result<(Vec<CpuTopologyIds>, Option<Vec<RawStr<'a>>>)> {
    // Each CPU takes 8 bytes: refuse counts the bytes cannot hold before allocating.
    let mut cpus = Vec::with_capacity(n.min(b.len() / 8));
    for _ in 0..n {
        let core_id = b.read_u32("cpu_topology core_id")?;
        let socket_id = b.read_u32("cpu_topology socket_id")?;
        cpus.push(CpuTopologyIds {
            core_id,
            socket_id,
            die_id: None,
        });
    }
    if is_padding(b.remaining()) {
        return Ok((cpus, None));
    }
    let dies = read_strings(b, "cpu_topology die count")?;
    for cpu in cpus.iter_mut() {
        cpu.die_id = Some(b.read_u32("cpu_topology die_id")?);
    }
    Ok((cpus, Some(dies)))
}

/// Without HEADER_NRCPUS: the CPU count for which the remaining bytes parse exactly, trying
/// revision 3 (ids, die lists, die ids) first and then revision 2 (8 bytes per CPU).
fn infer_nr_cpus(b: Bytes<'_>) -> usize {
    let rest = b.len();
    (1..=(rest / 12).min(MAX_INFERRED_CPUS))
        .find(|&n| is_revision3(b, n))
        .unwrap_or(rest / 8)
}

/// Whether `b` is exactly the revision 3 part of CPU_TOPOLOGY for `n` CPUs: what [`read_ids`]
/// would read with a die section of at most `n` lists, then only padding. Checked without
/// building anything, since [`infer_nr_cpus`] tries up to 4096 counts.
fn is_revision3(mut b: Bytes<'_>, n: usize) -> bool {
    let (Some(ids), Some(die_ids)) = (n.checked_mul(8), n.checked_mul(4)) else {
        return false;
    };
    if b.skip(ids, "cpu_topology ids").is_err() || is_padding(b.remaining()) {
        return false;
    }
    let dies = match b.read_u32("cpu_topology die count") {
        Ok(d) => d as usize,
        Err(_) => return false,
    };
    dies <= n
        && (0..dies).all(|_| read_string(&mut b).is_ok())
        && b.skip(die_ids, "cpu_topology die_id").is_ok()
        && is_padding(b.remaining())
}

/// One node of HEADER_NUMA_TOPOLOGY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumaNode<'a> {
    /// The node number.
    pub node: u32,
    /// `MemTotal` of the node in kB.
    pub mem_total: u64,
    /// `MemFree` of the node in kB.
    pub mem_free: u64,
    /// The node's CPUs as a list string (`0-3,8-11`).
    pub cpus: RawStr<'a>,
}

/// Parses HEADER_NUMA_TOPOLOGY: `u32 nr`, then per node `u32 node`, `u64 mem_total`,
/// `u64 mem_free` and the CPU list string.
pub fn parse_numa_topology(mut b: Bytes<'_>) -> Result<Vec<NumaNode<'_>>> {
    let n = read_count(&mut b, "numa node count", 24)?;
    let mut nodes = with_capacity(n);
    for _ in 0..n {
        let node = b.read_u32("numa node")?;
        let mem_total = b.read_u64("numa mem_total")?;
        let mem_free = b.read_u64("numa mem_free")?;
        let cpus = read_string(&mut b)?;
        nodes.push(NumaNode {
            node,
            mem_total,
            mem_free,
            cpus,
        });
    }
    Ok(nodes)
}

/// One node of HEADER_HYBRID_TOPOLOGY: a core PMU and its CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HybridNode<'a> {
    /// The PMU name (`cpu_core`, `cpu_atom`).
    pub pmu_name: RawStr<'a>,
    /// Its CPUs as a list string.
    pub cpus: RawStr<'a>,
}

/// Parses HEADER_HYBRID_TOPOLOGY: `u32 nr`, then per node two strings.
pub fn parse_hybrid_topology(mut b: Bytes<'_>) -> Result<Vec<HybridNode<'_>>> {
    let n = read_count(&mut b, "hybrid node count", 8)?;
    let mut nodes = with_capacity(n);
    for _ in 0..n {
        let pmu_name = read_string(&mut b)?;
        let cpus = read_string(&mut b)?;
        nodes.push(HybridNode { pmu_name, cpus });
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;
    use crate::error::ErrorKind;

    fn lists(b: &mut Builder) {
        b.u32(1).string("0-3");
        b.u32(2).string("0,2").string("1,3");
    }

    #[test]
    fn cpu_topology_all_three_revisions_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            // Revision 1: lists only.
            let mut b = Builder::new(endian);
            lists(&mut b);
            let t = parse_cpu_topology(b.bytes(0), Some(4)).unwrap();
            assert_eq!(t.package_cpus_lists, [RawStr(b"0-3")]);
            assert_eq!(t.core_cpus_lists, [RawStr(b"0,2"), RawStr(b"1,3")]);
            assert_eq!((t.cpus, t.die_cpus_lists), (None, None));

            // Revision 2: core and socket ids per CPU.
            for (core, socket) in [(0u32, 0u32), (1, 0), (0, 1), (1, 1)] {
                b.u32(core).u32(socket);
            }
            let t2 = parse_cpu_topology(b.bytes(0), Some(4)).unwrap();
            let cpus = t2.cpus.unwrap();
            assert_eq!(cpus.len(), 4);
            assert_eq!(
                cpus[2],
                CpuTopologyIds {
                    core_id: 0,
                    socket_id: 1,
                    die_id: None
                }
            );
            assert_eq!(t2.die_cpus_lists, None);
            // Without NRCPUS the count is inferred from the bytes.
            assert_eq!(
                parse_cpu_topology(b.bytes(0), None)
                    .unwrap()
                    .cpus
                    .unwrap()
                    .len(),
                4
            );

            // Revision 3: die lists and die ids.
            b.u32(1).string("0-3");
            b.u32(0).u32(0).u32(0).u32(7);
            let t3 = parse_cpu_topology(b.bytes(0), Some(4)).unwrap();
            assert_eq!(t3.die_cpus_lists, Some(alloc::vec![RawStr(b"0-3")]));
            let cpus = t3.cpus.unwrap();
            assert_eq!(
                cpus[3],
                CpuTopologyIds {
                    core_id: 1,
                    socket_id: 1,
                    die_id: Some(7)
                }
            );
            let inferred = parse_cpu_topology(b.bytes(0), None).unwrap();
            assert_eq!(inferred.cpus.unwrap()[3].die_id, Some(7));
        }
    }

    #[test]
    fn cpu_topology_with_record_padding_and_truncation() {
        let endian = Endianness::Little;
        let mut b = Builder::new(endian);
        lists(&mut b);
        b.u32(0); // pipe-mode padding
        let t = parse_cpu_topology(b.bytes(0), Some(4)).unwrap();
        assert_eq!(t.cpus, None);
        // A revision 2 table cut short: the error names the missing field and its offset.
        let mut b = Builder::new(endian);
        lists(&mut b);
        let at = b.len() as u64;
        b.u32(0).u32(0).u32(1).u32(0);
        let err = parse_cpu_topology(b.bytes(0x100), Some(4)).unwrap_err();
        assert_eq!(err.offset, 0x100 + at + 16);
        assert!(matches!(
            err.kind,
            ErrorKind::UnexpectedEof {
                what: "cpu_topology core_id",
                ..
            }
        ));
    }

    #[test]
    fn numa_and_hybrid_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u32(2);
            b.u32(0).u64(15034584).u64(7580248).string("0-1");
            b.u32(1).u64(99058912).u64(86439024).string("8-15,24-31");
            let nodes = parse_numa_topology(b.bytes(0)).unwrap();
            assert_eq!(
                nodes[1],
                NumaNode {
                    node: 1,
                    mem_total: 99058912,
                    mem_free: 86439024,
                    cpus: RawStr(b"8-15,24-31")
                }
            );
            let mut b = Builder::new(endian);
            b.u32(2)
                .string("cpu_core")
                .string("0-15")
                .string("cpu_atom")
                .string("16-23");
            let h = parse_hybrid_topology(b.bytes(0)).unwrap();
            assert_eq!(
                h[1],
                HybridNode {
                    pmu_name: RawStr(b"cpu_atom"),
                    cpus: RawStr(b"16-23")
                }
            );
            let mut b = Builder::new(endian);
            b.u32(1000);
            let err = parse_numa_topology(b.bytes(8)).unwrap_err();
            assert_eq!(
                err.kind,
                ErrorKind::BadValue {
                    what: "numa node count",
                    value: 1000
                }
            );
            assert_eq!(err.offset, 8);
        }
    }
}
