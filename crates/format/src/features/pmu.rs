//! PMU features: HEADER_PMU_MAPPINGS, HEADER_CPU_PMU_CAPS and HEADER_PMU_CAPS, and the event
//! groups of HEADER_GROUP_DESC.

use alloc::vec::Vec;

use super::{read_count, read_string, with_capacity, RawStr};
use crate::bytes::Bytes;
use crate::error::Result;

/// One PMU of HEADER_PMU_MAPPINGS: its name and the `attr.type` of its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PmuMapping<'a> {
    /// `type`: the PMU's `attr.type` (`/sys/bus/event_source/devices/<name>/type`).
    pub type_: u32,
    /// The PMU name (`cpu`, `software`, `intel_pt`, …).
    pub name: RawStr<'a>,
}

/// Parses HEADER_PMU_MAPPINGS: `u32 pmu_num`, then per PMU `u32 type` and the name string.
pub fn parse_pmu_mappings(mut b: Bytes<'_>) -> Result<Vec<PmuMapping<'_>>> {
    let n = read_count(&mut b, "pmu mapping count", 8)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let type_ = b.read_u32("pmu type")?;
        let name = read_string(&mut b)?;
        v.push(PmuMapping { type_, name });
    }
    Ok(v)
}

/// One group of HEADER_GROUP_DESC (`struct group_desc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupDesc<'a> {
    /// The group's name; perf writes `{anon_group}` for groups given without a name.
    pub name: RawStr<'a>,
    /// `leader_idx`: the index (in attr order) of the group leader.
    pub leader_idx: u32,
    /// `nr_members`: how many events the group has, leader included.
    pub nr_members: u32,
}

impl GroupDesc<'_> {
    /// Whether the group has a user-given name (perf's dummy name is `{anon_group}`).
    pub fn is_named(&self) -> bool {
        self.name.0 != b"{anon_group}"
    }
}

/// Parses HEADER_GROUP_DESC: `u32 nr_groups`, then per group the name string, `u32 leader_idx`
/// and `u32 nr_members`.
pub fn parse_group_desc(mut b: Bytes<'_>) -> Result<Vec<GroupDesc<'_>>> {
    let n = read_count(&mut b, "group count", 12)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let name = read_string(&mut b)?;
        let leader_idx = b.read_u32("group leader_idx")?;
        let nr_members = b.read_u32("group nr_members")?;
        v.push(GroupDesc {
            name,
            leader_idx,
            nr_members,
        });
    }
    Ok(v)
}

/// One capability of a PMU (`/sys/bus/event_source/devices/<pmu>/caps/<name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PmuCap<'a> {
    /// The capability name (`max_precise`, `branches`, …).
    pub name: RawStr<'a>,
    /// Its value as text.
    pub value: RawStr<'a>,
}

fn read_caps<'a>(b: &mut Bytes<'a>) -> Result<Vec<PmuCap<'a>>> {
    let n = read_count(b, "pmu capability count", 8)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let name = read_string(b)?;
        let value = read_string(b)?;
        v.push(PmuCap { name, value });
    }
    Ok(v)
}

/// Parses HEADER_CPU_PMU_CAPS: `u32 nr_caps`, then name and value strings.
pub fn parse_cpu_pmu_caps(mut b: Bytes<'_>) -> Result<Vec<PmuCap<'_>>> {
    read_caps(&mut b)
}

/// The capabilities of one PMU in HEADER_PMU_CAPS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmuCaps<'a> {
    /// The PMU name.
    pub pmu_name: RawStr<'a>,
    /// Its capabilities.
    pub caps: Vec<PmuCap<'a>>,
}

/// Parses HEADER_PMU_CAPS (HEADER_HYBRID_CPU_PMU_CAPS before perf 6.1, same layout):
/// `u32 nr_pmu`, then per PMU the capabilities as in CPU_PMU_CAPS followed by the PMU name.
pub fn parse_pmu_caps(mut b: Bytes<'_>) -> Result<Vec<PmuCaps<'_>>> {
    let n = read_count(&mut b, "pmu count", 8)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let caps = read_caps(&mut b)?;
        let pmu_name = read_string(&mut b)?;
        v.push(PmuCaps { pmu_name, caps });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;
    use crate::error::ErrorKind;

    #[test]
    fn mappings_groups_and_caps_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u32(2).u32(1).string("software").u32(10).string("msr");
            let m = parse_pmu_mappings(b.bytes(0)).unwrap();
            assert_eq!(
                m[1],
                PmuMapping {
                    type_: 10,
                    name: RawStr(b"msr")
                }
            );

            let mut b = Builder::new(endian);
            b.u32(2)
                .string("{anon_group}")
                .u32(0)
                .u32(2)
                .string("mygroup")
                .u32(2)
                .u32(3);
            let g = parse_group_desc(b.bytes(0)).unwrap();
            assert!(!g[0].is_named());
            assert_eq!(
                g[1],
                GroupDesc {
                    name: RawStr(b"mygroup"),
                    leader_idx: 2,
                    nr_members: 3
                }
            );

            let mut b = Builder::new(endian);
            b.u32(2)
                .string("branches")
                .string("32")
                .string("max_precise")
                .string("3");
            let c = parse_cpu_pmu_caps(b.bytes(0)).unwrap();
            assert_eq!(
                c[1],
                PmuCap {
                    name: RawStr(b"max_precise"),
                    value: RawStr(b"3")
                }
            );

            let mut b = Builder::new(endian);
            b.u32(2);
            b.u32(1).string("branches").string("32").string("cpu_core");
            b.u32(0).string("cpu_atom");
            let p = parse_pmu_caps(b.bytes(0)).unwrap();
            assert_eq!(p[0].pmu_name, RawStr(b"cpu_core"));
            assert_eq!(
                p[0].caps,
                [PmuCap {
                    name: RawStr(b"branches"),
                    value: RawStr(b"32")
                }]
            );
            assert_eq!((p[1].pmu_name, p[1].caps.len()), (RawStr(b"cpu_atom"), 0));
        }
    }

    #[test]
    fn a_truncated_group_names_the_field() {
        let mut b = Builder::new(Endianness::Big);
        b.u32(1).string("g").u32(0);
        let end = b.len() as u64;
        let err = parse_group_desc(b.bytes(0x40)).unwrap_err();
        assert_eq!(err.offset, 0x40 + end);
        assert_eq!(
            err.kind,
            ErrorKind::UnexpectedEof {
                what: "group nr_members",
                needed: 4,
                available: 0
            }
        );
    }
}
