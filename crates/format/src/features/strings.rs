//! The string features (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID), CMDLINE, NRCPUS
//! and TOTAL_MEM.

use alloc::vec::Vec;

use super::{read_count, read_string, RawStr};
use crate::bytes::Bytes;
use crate::error::Result;

/// Reads a single-string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID).
pub fn parse_string<'a>(mut b: Bytes<'a>) -> Result<RawStr<'a>> {
    read_string(&mut b)
}

/// HEADER_CMDLINE: `u32 nr` then `nr` strings (the argv of `perf record`).
pub fn parse_cmdline<'a>(mut b: Bytes<'a>) -> Result<Vec<RawStr<'a>>> {
    let n = read_count(&mut b, "cmdline argument count", 4)?;
    let mut args = Vec::with_capacity(n as usize);
    for _ in 0..n {
        args.push(read_string(&mut b)?);
    }
    Ok(args)
}

/// HEADER_NRCPUS. `header.c` writes the number of CPUs *available* (`cpu__max_present_cpu`)
/// first and the number *online* second; the format document long had them the other way round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NrCpus {
    /// CPUs present (`nr_cpus_avail`).
    pub available: u32,
    /// CPUs online (`nr_cpus_online`).
    pub online: u32,
}

/// Parses HEADER_NRCPUS.
pub fn parse_nrcpus(mut b: Bytes<'_>) -> Result<NrCpus> {
    let available = b.read_u32("nr_cpus_avail")?;
    let online = b.read_u32("nr_cpus_online")?;
    Ok(NrCpus { available, online })
}

/// Parses HEADER_TOTAL_MEM: total memory in kB.
pub fn parse_total_mem(mut b: Bytes<'_>) -> Result<u64> {
    b.read_u64("total_mem")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endian::Endianness;

    fn string(endian: Endianness, s: &str, padded: usize) -> Vec<u8> {
        let mut v = endian.u32_bytes(padded as u32).to_vec();
        let mut body = s.as_bytes().to_vec();
        body.resize(padded, 0);
        v.extend(body);
        v
    }

    #[test]
    fn strings_and_cmdline_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let data = string(endian, "vm", 64);
            assert_eq!(
                parse_string(Bytes::new(&data, 0, endian)).unwrap(),
                RawStr(b"vm")
            );
            let mut cmd = endian.u32_bytes(2).to_vec();
            cmd.extend(string(endian, "/usr/bin/perf", 16));
            cmd.extend(string(endian, "record", 8));
            let args = parse_cmdline(Bytes::new(&cmd, 0, endian)).unwrap();
            assert_eq!(args, [RawStr(b"/usr/bin/perf"), RawStr(b"record")]);
            let mut nr = endian.u32_bytes(4).to_vec();
            nr.extend(endian.u32_bytes(2));
            assert_eq!(
                parse_nrcpus(Bytes::new(&nr, 0, endian)).unwrap(),
                NrCpus {
                    available: 4,
                    online: 2
                }
            );
            let mem = endian.u64_bytes(24_684_096);
            assert_eq!(
                parse_total_mem(Bytes::new(&mem, 0, endian)).unwrap(),
                24_684_096
            );
        }
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        let endian = Endianness::Little;
        let data = endian.u32_bytes(u32::MAX).to_vec();
        let err = parse_cmdline(Bytes::new(&data, 0x40, endian)).unwrap_err();
        assert_eq!(err.offset, 0x40);
    }
}
