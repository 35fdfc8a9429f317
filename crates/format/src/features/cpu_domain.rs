//! HEADER_CPU_DOMAIN_INFO: the scheduler domains of each CPU, from `/proc/schedstat`
//! (written for `perf sched stats`).

use alloc::vec::Vec;

use super::{read_count, read_string, RawStr};
use crate::bytes::Bytes;
use crate::error::Result;

/// HEADER_CPU_DOMAIN_INFO.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuDomainInfo<'a> {
    /// The `/proc/schedstat` version; domain names are present from version 17.
    pub schedstat_version: u32,
    /// One more than the highest domain number.
    pub max_sched_domains: u32,
    /// The CPUs, in the order written.
    pub cpus: Vec<CpuDomains<'a>>,
}

/// The domains of one CPU.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuDomains<'a> {
    /// The CPU number.
    pub cpu: u32,
    /// Its domains.
    pub domains: Vec<SchedDomain<'a>>,
}

/// One scheduler domain (`struct domain_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedDomain<'a> {
    /// The domain number.
    pub domain: u32,
    /// The domain name (`SMT`, `MC`, …), schedstat version 17 and later.
    pub name: Option<RawStr<'a>>,
    /// The CPU mask as hex text.
    pub cpumask: RawStr<'a>,
    /// The same CPUs as a list (`0-3`).
    pub cpulist: RawStr<'a>,
}

/// Parses HEADER_CPU_DOMAIN_INFO: `u32 schedstat_version`, `u32 max_sched_domains`, then per
/// CPU `u32 cpu`, `u32 nr_domains` and per domain `u32 domain`, the name string (version ≥ 17),
/// the cpumask string and the cpulist string.
///
/// perf reads `nr_cpus_online` CPUs; without it, CPUs are read until the bytes end.
pub fn parse_cpu_domain_info(
    mut b: Bytes<'_>,
    nr_cpus_online: Option<u32>,
) -> Result<CpuDomainInfo<'_>> {
    let schedstat_version = b.read_u32("schedstat_version")?;
    let max_sched_domains = b.read_u32("max_sched_domains")?;
    let mut info = CpuDomainInfo {
        schedstat_version,
        max_sched_domains,
        cpus: Vec::new(),
    };
    let named = schedstat_version >= 17;
    let min_domain = if named { 16 } else { 12 };
    loop {
        let done = match nr_cpus_online {
            Some(n) => info.cpus.len() >= n as usize,
            None => b.len() < 8,
        };
        if done {
            break;
        }
        let cpu = b.read_u32("cpu_domain cpu")?;
        let n = read_count(&mut b, "cpu_domain nr_domains", min_domain)?;
        let mut domains = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let domain = b.read_u32("sched domain")?;
            let name = if named {
                Some(read_string(&mut b)?)
            } else {
                None
            };
            let cpumask = read_string(&mut b)?;
            let cpulist = read_string(&mut b)?;
            domains.push(SchedDomain {
                domain,
                name,
                cpumask,
                cpulist,
            });
        }
        info.cpus.push(CpuDomains { cpu, domains });
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;

    #[test]
    fn domains_with_and_without_names_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u32(17).u32(2);
            b.u32(0)
                .u32(2)
                .u32(0)
                .string("SMT")
                .string("00000003")
                .string("0-1");
            b.u32(1).string("MC").string("0000000f").string("0-3");
            b.u32(1).u32(0);
            let info = parse_cpu_domain_info(b.bytes(0), Some(2)).unwrap();
            assert_eq!(
                (
                    info.schedstat_version,
                    info.max_sched_domains,
                    info.cpus.len()
                ),
                (17, 2, 2)
            );
            assert_eq!(
                info.cpus[0].domains[1],
                SchedDomain {
                    domain: 1,
                    name: Some(RawStr(b"MC")),
                    cpumask: RawStr(b"0000000f"),
                    cpulist: RawStr(b"0-3")
                }
            );
            assert_eq!(
                info.cpus[1],
                CpuDomains {
                    cpu: 1,
                    domains: alloc::vec![]
                }
            );
            assert_eq!(parse_cpu_domain_info(b.bytes(0), None).unwrap(), info);

            let mut b = Builder::new(endian);
            b.u32(15)
                .u32(1)
                .u32(3)
                .u32(1)
                .u32(0)
                .string("8")
                .string("3");
            let info = parse_cpu_domain_info(b.bytes(0), None).unwrap();
            assert_eq!(info.cpus[0].cpu, 3);
            assert_eq!(info.cpus[0].domains[0].name, None);
            assert_eq!(info.cpus[0].domains[0].cpulist, RawStr(b"3"));
        }
    }
}
