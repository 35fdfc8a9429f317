//! HEADER_BUILD_ID: a table of `struct perf_record_header_build_id` entries, one per DSO that
//! had samples (the same layout as the PERF_RECORD_HEADER_BUILD_ID record).

use alloc::vec::Vec;

use super::RawStr;
use crate::bytes::{until_nul, Bytes};
use crate::constants::misc;
use crate::error::{Error, ErrorKind, Result};

/// `PERF_RECORD_MISC_BUILD_ID_SIZE`: the entry's `size` byte holds the build id length (perf
/// ≥ 5.10); without it the build id is 20 bytes.
pub const MISC_BUILD_ID_SIZE: u16 = 1 << 15;
/// `BUILD_ID_SIZE`: the length of a SHA-1 build id, the default.
pub const BUILD_ID_SIZE: usize = 20;
/// `HOST_KERNEL_ID`: the pid given to entries of the pre-2.6.34 layout (host kernel).
pub const HOST_KERNEL_ID: i32 = -1;
/// `DEFAULT_GUEST_KERNEL_ID`: the pid given to guest entries of the pre-2.6.34 layout.
pub const DEFAULT_GUEST_KERNEL_ID: i32 = 0;

/// Size of the entry head: `perf_event_header` (8), `pid` (4) and the 24-byte build id field.
const ENTRY_HEAD: usize = 36;
/// The same without `pid`, in the layout before perf 2.6.34 (`a1645ce1`).
const OLD_ENTRY_HEAD: usize = 32;

/// One build id entry (`struct perf_record_header_build_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildIdEvent<'a> {
    /// `header.misc`: the cpumode (kernel, user, guest …) and [`MISC_BUILD_ID_SIZE`].
    pub misc: u16,
    /// `pid`: the machine (`-1` host kernel, `0` default guest, else a guest's pid).
    pub pid: i32,
    /// The build id bytes (20, or the length the entry gives).
    pub build_id: &'a [u8],
    /// The DSO path (`[kernel.kallsyms]`, `/usr/lib/libc.so.6`, …).
    pub filename: RawStr<'a>,
}

impl BuildIdEvent<'_> {
    /// The cpumode bits of `misc` (see [`crate::constants::misc`]).
    pub const fn cpumode(&self) -> u16 {
        self.misc & misc::CPUMODE_MASK
    }
}

/// Reads one entry in the current layout from `b` (which may hold more entries).
pub fn parse_build_id_event<'a>(b: &mut Bytes<'a>) -> Result<BuildIdEvent<'a>> {
    parse_entry(b, false)
}

/// Reads the body (what follows the 8-byte record header) of a PERF_RECORD_HEADER_BUILD_ID
/// record whose header has `misc`.
pub fn parse_build_id_record(misc: u16, body: Bytes<'_>) -> Result<BuildIdEvent<'_>> {
    parse_body(misc, body, false)
}

fn parse_entry<'a>(b: &mut Bytes<'a>, old_layout: bool) -> Result<BuildIdEvent<'a>> {
    let at = b.offset();
    let mut head_bytes = *b;
    let _type = head_bytes.read_u32("build_id header type")?;
    let misc = head_bytes.read_u16("build_id header misc")?;
    let size = usize::from(head_bytes.read_u16("build_id header size")?);
    let head = if old_layout {
        OLD_ENTRY_HEAD
    } else {
        ENTRY_HEAD
    };
    if size < head {
        return Err(Error::new(
            at,
            ErrorKind::BadValue {
                what: "build_id entry size",
                value: size as u64,
            },
        ));
    }
    let mut e = b.split(size, "build_id entry")?;
    e.skip(8, "build_id header")?;
    parse_body(misc, e, old_layout)
}

fn parse_body(misc: u16, mut e: Bytes<'_>, old_layout: bool) -> Result<BuildIdEvent<'_>> {
    let pid = if old_layout {
        match misc {
            misc::GUEST_USER | misc::GUEST_KERNEL => DEFAULT_GUEST_KERNEL_ID,
            _ => HOST_KERNEL_ID,
        }
    } else {
        e.read_i32("build_id pid")?
    };
    let field = e.read_bytes(24, "build_id")?;
    let len = if misc & MISC_BUILD_ID_SIZE != 0 && !old_layout {
        usize::from(field.get(BUILD_ID_SIZE).copied().unwrap_or(0)).min(BUILD_ID_SIZE)
    } else {
        BUILD_ID_SIZE
    };
    let build_id = field.get(..len).unwrap_or(field);
    Ok(BuildIdEvent {
        misc,
        pid,
        build_id,
        filename: RawStr(until_nul(e.remaining())),
    })
}

/// Parses HEADER_BUILD_ID: entries until the section ends.
///
/// Like perf (`perf_header__read_build_ids`), a table whose file names start with
/// `nel.kallsyms]` was written in the layout without `pid` and is read again in that layout.
pub fn parse_build_ids(b: Bytes<'_>) -> Result<Vec<BuildIdEvent<'_>>> {
    match parse_table(b, false) {
        Ok(v) if v.iter().any(|e| e.filename.0.starts_with(b"nel.kallsyms]")) => {
            parse_table(b, true)
        }
        other => other,
    }
}

fn parse_table(mut b: Bytes<'_>, old_layout: bool) -> Result<Vec<BuildIdEvent<'_>>> {
    let mut v = Vec::new();
    while !(b.len() < 8 && b.remaining().iter().all(|&c| c == 0)) {
        v.push(parse_entry(&mut b, old_layout)?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;

    fn entry(b: &mut Builder, misc: u16, pid: Option<i32>, id: &[u8], name: &str) {
        let name_len = (name.len() + 1).next_multiple_of(64);
        let head = if pid.is_some() {
            ENTRY_HEAD
        } else {
            OLD_ENTRY_HEAD
        };
        b.u32(67).u16(misc).u16((head + name_len) as u16);
        if let Some(pid) = pid {
            b.u32(pid as u32);
        }
        let mut field = [0u8; 24];
        field[..id.len()].copy_from_slice(id);
        field[20] = id.len() as u8;
        b.raw(&field);
        b.raw(name.as_bytes());
        b.buf.resize(b.len() + name_len - name.len(), 0);
    }

    #[test]
    fn entries_with_and_without_the_size_flag_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            let kid: [u8; 20] = core::array::from_fn(|i| i as u8 + 1);
            entry(
                &mut b,
                misc::KERNEL | MISC_BUILD_ID_SIZE,
                Some(-1),
                &kid,
                "[kernel.kallsyms]",
            );
            entry(
                &mut b,
                misc::USER | MISC_BUILD_ID_SIZE,
                Some(-1),
                &[0xaa; 16],
                "/usr/bin/bash",
            );
            entry(&mut b, misc::USER, Some(-1), &[0xbb; 16], "/lib/old.so");
            let v = parse_build_ids(b.bytes(0)).unwrap();
            assert_eq!(v.len(), 3);
            assert_eq!(
                (v[0].pid, v[0].cpumode(), v[0].build_id),
                (-1, misc::KERNEL, &kid[..])
            );
            assert_eq!(v[0].filename, RawStr(b"[kernel.kallsyms]"));
            assert_eq!(v[1].build_id, &[0xaa; 16]);
            // Without the size flag the id is always 20 bytes (zero-padded here).
            assert_eq!(v[2].build_id.len(), 20);
            assert_eq!(&v[2].build_id[..16], &[0xbb; 16]);
        }
    }

    #[test]
    fn the_layout_without_pid_is_detected_as_perf_does() {
        let mut b = Builder::new(Endianness::Little);
        entry(&mut b, misc::KERNEL, None, &[7; 20], "[kernel.kallsyms]");
        entry(
            &mut b,
            misc::GUEST_KERNEL,
            None,
            &[8; 20],
            "[guest.kernel.kallsyms]",
        );
        let v = parse_build_ids(b.bytes(0)).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].pid, v[0].build_id, v[0].filename),
            (HOST_KERNEL_ID, &[7u8; 20][..], RawStr(b"[kernel.kallsyms]"))
        );
        assert_eq!(v[1].pid, DEFAULT_GUEST_KERNEL_ID);
    }

    #[test]
    fn a_size_below_the_head_is_an_error_not_a_loop() {
        let mut b = Builder::new(Endianness::Big);
        b.u32(67).u16(0).u16(8).u64(1);
        let err = parse_build_ids(b.bytes(0x500)).unwrap_err();
        assert_eq!(
            err,
            Error::new(
                0x500,
                ErrorKind::BadValue {
                    what: "build_id entry size",
                    value: 8
                }
            )
        );
    }
}
