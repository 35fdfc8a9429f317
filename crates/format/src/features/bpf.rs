//! HEADER_BPF_PROG_INFO and HEADER_BPF_BTF: the BPF programs (and their BTF) that were loaded
//! while recording, so their JIT-ed code can be symbolized.
//!
//! perf refuses to interpret both for files of the other byte order; we decode the counts and
//! the leading `bpf_prog_info` fields in either order and keep the rest raw.

use alloc::vec::Vec;

use super::{read_count, with_capacity, RawStr};
use crate::bytes::{until_nul, Bytes};
use crate::endian::Endianness;
use crate::error::Result;

/// One entry of HEADER_BPF_PROG_INFO (`struct perf_bpil`: a `bpf_prog_info` followed by the
/// arrays it points to, pointers turned into offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BpfProgInfo<'a> {
    /// `info_len`: the size of `info` as written.
    pub info_len: u32,
    /// `data_len`: the size of `data`.
    pub data_len: u32,
    /// `arrays`: which of the info's arrays are in `data` (a bit per `BPIL_*`).
    pub arrays: u64,
    /// The `struct bpf_prog_info` bytes.
    pub info: &'a [u8],
    /// The arrays (jited ksyms, func lens, line info, …).
    pub data: &'a [u8],
    /// The byte order of `info` and `data`.
    pub endian: Endianness,
}

impl<'a> BpfProgInfo<'a> {
    fn u32_at(&self, at: usize) -> Option<u32> {
        let b = self.info.get(at..at.checked_add(4)?)?;
        Some(self.endian.u32(b.try_into().ok()?))
    }

    /// `bpf_prog_info.type` (`enum bpf_prog_type`).
    pub fn prog_type(&self) -> Option<u32> {
        self.u32_at(0)
    }

    /// `bpf_prog_info.id`: the program id.
    pub fn id(&self) -> Option<u32> {
        self.u32_at(4)
    }

    /// `bpf_prog_info.tag`: the 8-byte program tag perf shows in `bpf_prog_<tag>` names.
    pub fn tag(&self) -> Option<[u8; 8]> {
        self.info.get(8..16)?.try_into().ok()
    }

    /// `bpf_prog_info.jited_prog_len`: the size of the JIT-ed code.
    pub fn jited_prog_len(&self) -> Option<u32> {
        self.u32_at(16)
    }

    /// `bpf_prog_info.name` (up to 16 bytes).
    pub fn name(&self) -> Option<RawStr<'a>> {
        self.info.get(64..80).map(|n| RawStr(until_nul(n)))
    }

    /// `bpf_prog_info.nr_jited_ksyms`: how many functions the program has.
    pub fn nr_jited_ksyms(&self) -> Option<u32> {
        self.u32_at(104)
    }
}

/// Parses HEADER_BPF_PROG_INFO: `u32 count`, then per program `u32 info_len`, `u32 data_len`,
/// `u64 arrays`, `info_len` bytes of info and `data_len` bytes of data.
pub fn parse_bpf_prog_info(mut b: Bytes<'_>) -> Result<Vec<BpfProgInfo<'_>>> {
    let n = read_count(&mut b, "bpf_prog_info count", 16)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let info_len = b.read_u32("bpf_prog_info info_len")?;
        let data_len = b.read_u32("bpf_prog_info data_len")?;
        let arrays = b.read_u64("bpf_prog_info arrays")?;
        let info = b.read_bytes_u64(info_len.into(), "bpf_prog_info info")?;
        let data = b.read_bytes_u64(data_len.into(), "bpf_prog_info data")?;
        v.push(BpfProgInfo {
            info_len,
            data_len,
            arrays,
            info,
            data,
            endian: b.endian(),
        });
    }
    Ok(v)
}

/// One entry of HEADER_BPF_BTF (`struct btf_node`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BtfEntry<'a> {
    /// The BTF object id.
    pub id: u32,
    /// The BTF blob.
    pub data: &'a [u8],
}

/// Parses HEADER_BPF_BTF: `u32 count`, then per blob `u32 id`, `u32 data_size` and the data.
pub fn parse_bpf_btf(mut b: Bytes<'_>) -> Result<Vec<BtfEntry<'_>>> {
    let n = read_count(&mut b, "btf count", 8)?;
    let mut v = with_capacity(n);
    for _ in 0..n {
        let id = b.read_u32("btf id")?;
        let size = b.read_u32("btf data_size")?;
        let data = b.read_bytes_u64(size.into(), "btf data")?;
        v.push(BtfEntry { id, data });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn prog_info_and_btf_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut info = Builder::new(endian);
            info.u32(26)
                .u32(7)
                .raw(&[0x53, 0x0f, 0x69, 0x19, 0x0e, 0x63, 0xcf, 0xa0])
                .u32(72);
            info.buf.resize(64, 0);
            info.raw(b"fentry_blk_star");
            info.buf.resize(104, 0);
            info.u32(1);
            info.buf.resize(128, 0);
            let mut b = Builder::new(endian);
            b.u32(1)
                .u32(128)
                .u32(8)
                .u64(0x3)
                .raw(&info.buf)
                .u64(0xffff_ffff_c025_95a4);
            let v = parse_bpf_prog_info(b.bytes(0)).unwrap();
            let p = v[0];
            assert_eq!(
                (p.info_len, p.data_len, p.arrays, p.data.len()),
                (128, 8, 3, 8)
            );
            assert_eq!(
                (p.prog_type(), p.id(), p.jited_prog_len()),
                (Some(26), Some(7), Some(72))
            );
            assert_eq!(
                p.tag(),
                Some([0x53, 0x0f, 0x69, 0x19, 0x0e, 0x63, 0xcf, 0xa0])
            );
            assert_eq!(p.name(), Some(RawStr(b"fentry_blk_star")));
            assert_eq!(p.nr_jited_ksyms(), Some(1));

            let mut b = Builder::new(endian);
            b.u32(2).u32(51).u32(3).raw(&[1, 2, 3]).u32(52).u32(0);
            let v = parse_bpf_btf(b.bytes(0)).unwrap();
            assert_eq!(
                v,
                [
                    BtfEntry {
                        id: 51,
                        data: &[1, 2, 3]
                    },
                    BtfEntry { id: 52, data: &[] }
                ]
            );
        }
    }

    #[test]
    fn short_info_gives_none_and_overlong_data_an_error() {
        let endian = Endianness::Little;
        let mut b = Builder::new(endian);
        b.u32(1).u32(8).u32(100).u64(0).u32(1).u32(2);
        let err = parse_bpf_prog_info(b.bytes(0)).unwrap_err();
        assert_eq!(err.offset, 28);
        assert_eq!(
            err.kind,
            ErrorKind::UnexpectedEof {
                what: "bpf_prog_info data",
                needed: 100,
                available: 0
            }
        );
        b.buf.extend(core::iter::repeat_n(0, 100));
        let v = parse_bpf_prog_info(b.bytes(0)).unwrap();
        assert_eq!((v[0].id(), v[0].name(), v[0].tag()), (Some(2), None, None));
    }
}
