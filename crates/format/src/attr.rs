//! `struct perf_event_attr`, read from any of its sizes (64 to 136 bytes and beyond).

use crate::bytes::Bytes;
use crate::constants::{read_format, sample_type};
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// `PERF_ATTR_SIZE_VER0`: the size of the first `perf_event_attr`, implied by a size field of 0.
pub const ATTR_SIZE_VER0: u32 = 64;
/// The largest `perf_event_attr` this crate knows (`PERF_ATTR_SIZE_VER8`, with `config3`).
pub const ATTR_SIZE_KNOWN: u32 = 136;

/// `struct perf_event_attr`, with every field decoded to its true value whatever the byte order.
///
/// Fields beyond the attr's `size` are zero, as the kernel treats them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventAttr {
    /// `type`: `enum perf_type_id` or a dynamic PMU type.
    pub type_: u32,
    /// `size`: the size of the attr as written (0 means [`ATTR_SIZE_VER0`]).
    pub size: u32,
    /// `config`.
    pub config: u64,
    /// `sample_period` or `sample_freq` (see [`AttrFlags::FREQ`]).
    pub sample_period_or_freq: u64,
    /// `sample_type`: which fields a SAMPLE record holds.
    pub sample_type: u64,
    /// `read_format`: the layout of READ values.
    pub read_format: u64,
    /// The flag bitfield after `read_format` (`disabled`, `inherit`, …), bit 0 = `disabled`.
    pub flags: AttrFlags,
    /// `wakeup_events` or `wakeup_watermark`.
    pub wakeup: u32,
    /// `bp_type`.
    pub bp_type: u32,
    /// `bp_addr`, `kprobe_func`, `uprobe_path` or `config1`.
    pub config1: u64,
    /// `bp_len`, `kprobe_addr`, `probe_offset` or `config2`.
    pub config2: u64,
    /// `branch_sample_type`.
    pub branch_sample_type: u64,
    /// `sample_regs_user`: which user registers a sample holds.
    pub sample_regs_user: u64,
    /// `sample_stack_user`: the size of the user stack dump.
    pub sample_stack_user: u32,
    /// `clockid`.
    pub clockid: i32,
    /// `sample_regs_intr`.
    pub sample_regs_intr: u64,
    /// `aux_watermark`.
    pub aux_watermark: u32,
    /// `sample_max_stack`.
    pub sample_max_stack: u16,
    /// `aux_sample_size`.
    pub aux_sample_size: u32,
    /// `aux_action` (formerly `__reserved_3`).
    pub aux_action: u32,
    /// `sig_data`.
    pub sig_data: u64,
    /// `config3`.
    pub config3: u64,
}

/// The flag bitfield of `perf_event_attr`, normalized so that bit 0 is `disabled` in either byte
/// order. Unknown bits are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct AttrFlags(pub u64);

macro_rules! flag_bits {
    ($($(#[$m:meta])* $name:ident = $bit:literal => $text:literal,)*) => {
        impl AttrFlags {
            $( $(#[$m])* pub const $name: u64 = 1 << $bit; )*
            /// Each single-bit flag with perf's name, in bit order (`precise_ip` is separate).
            pub const NAMES: &'static [(u64, &'static str)] = &[$((1 << $bit, $text)),*];
        }
    };
}

flag_bits! {
    /// off by default
    DISABLED = 0 => "disabled",
    /// children inherit it
    INHERIT = 1 => "inherit",
    /// must always be on PMU
    PINNED = 2 => "pinned",
    /// only group on PMU
    EXCLUSIVE = 3 => "exclusive",
    /// don't count user
    EXCLUDE_USER = 4 => "exclude_user",
    /// don't count kernel
    EXCLUDE_KERNEL = 5 => "exclude_kernel",
    /// don't count hypervisor
    EXCLUDE_HV = 6 => "exclude_hv",
    /// don't count when idle
    EXCLUDE_IDLE = 7 => "exclude_idle",
    /// include mmap data
    MMAP = 8 => "mmap",
    /// include comm data
    COMM = 9 => "comm",
    /// use freq, not period
    FREQ = 10 => "freq",
    /// per task counts
    INHERIT_STAT = 11 => "inherit_stat",
    /// next exec enables
    ENABLE_ON_EXEC = 12 => "enable_on_exec",
    /// trace fork/exit
    TASK = 13 => "task",
    /// wakeup_watermark
    WATERMARK = 14 => "watermark",
    /// non-exec mmap data
    MMAP_DATA = 17 => "mmap_data",
    /// sample_type all events
    SAMPLE_ID_ALL = 18 => "sample_id_all",
    /// don't count in host
    EXCLUDE_HOST = 19 => "exclude_host",
    /// don't count in guest
    EXCLUDE_GUEST = 20 => "exclude_guest",
    /// exclude kernel callchains
    EXCLUDE_CALLCHAIN_KERNEL = 21 => "exclude_callchain_kernel",
    /// exclude user callchains
    EXCLUDE_CALLCHAIN_USER = 22 => "exclude_callchain_user",
    /// include mmap with inode data
    MMAP2 = 23 => "mmap2",
    /// flag comm events that are due to an exec
    COMM_EXEC = 24 => "comm_exec",
    /// use @clockid for time fields
    USE_CLOCKID = 25 => "use_clockid",
    /// context switch data
    CONTEXT_SWITCH = 26 => "context_switch",
    /// write ring buffer from end to beginning
    WRITE_BACKWARD = 27 => "write_backward",
    /// include namespaces data
    NAMESPACES = 28 => "namespaces",
    /// include ksymbol events
    KSYMBOL = 29 => "ksymbol",
    /// include bpf events
    BPF_EVENT = 30 => "bpf_event",
    /// generate AUX records instead of events
    AUX_OUTPUT = 31 => "aux_output",
    /// include cgroup events
    CGROUP = 32 => "cgroup",
    /// include text poke events
    TEXT_POKE = 33 => "text_poke",
    /// use build id in mmap2 events
    BUILD_ID = 34 => "build_id",
    /// children only inherit if cloned with CLONE_THREAD
    INHERIT_THREAD = 35 => "inherit_thread",
    /// event is removed from task on exec
    REMOVE_ON_EXEC = 36 => "remove_on_exec",
    /// send synchronous SIGTRAP on event
    SIGTRAP = 37 => "sigtrap",
    /// generate PERF_RECORD_CALLCHAIN_DEFERRED records
    DEFER_CALLCHAIN = 38 => "defer_callchain",
    /// output PERF_RECORD_CALLCHAIN_DEFERRED records
    DEFER_OUTPUT = 39 => "defer_output",
}

impl AttrFlags {
    /// Whether every bit of `mask` is set.
    pub const fn has(self, mask: u64) -> bool {
        self.0 & mask == mask
    }

    /// `precise_ip` (bits 15–16): the skid constraint, 0 to 3.
    pub const fn precise_ip(self) -> u8 {
        ((self.0 >> 15) & 3) as u8
    }

    /// Decodes the bitfield word as stored by a writer of byte order `endian`.
    ///
    /// C bitfields are allocated from the least significant bit on little-endian machines and
    /// from the most significant bit on big-endian ones, so a big-endian word read as a big-endian
    /// integer holds `disabled` in bit 63. Reversing all 64 bits puts every one-bit flag where a
    /// little-endian writer has it; the two bits of `precise_ip` then come out in the wrong order
    /// and are exchanged back.
    ///
    /// perf's `swap_bitfield` (`tools/perf/util/session.c`) reverses the bits inside each byte
    /// of the unswapped word, which equals the 64-bit reversal, but does not exchange the two
    /// `precise_ip` bits: for big-endian files read on a little-endian host perf prints
    /// `precise_ip` 1 where it is 2 and 2 where it is 1.
    pub const fn from_word(word: u64, endian: Endianness) -> AttrFlags {
        match endian {
            Endianness::Little => AttrFlags(word),
            Endianness::Big => {
                let r = word.reverse_bits();
                let lo = (r >> 15) & 1;
                let hi = (r >> 16) & 1;
                AttrFlags((r & !(3 << 15)) | (lo << 16) | (hi << 15))
            }
        }
    }
}

impl EventAttr {
    /// Parses an attr from `b`, which holds the attr's bytes (possibly more: the attr reads
    /// `size` bytes when that fits and zero-fills the fields beyond what is present).
    ///
    /// Returns the attr and the number of bytes its `size` field claims (64 when it is 0).
    pub fn parse(b: &Bytes<'_>) -> Result<(EventAttr, u32)> {
        let endian = b.endian();
        let offset = b.offset();
        let raw = b.remaining();
        let mut head = Bytes::new(raw, offset, endian);
        let type_ = head.read_u32("perf_event_attr.type")?;
        let size = head.read_u32("perf_event_attr.size")?;
        let claimed = if size == 0 { ATTR_SIZE_VER0 } else { size };
        if claimed < ATTR_SIZE_VER0 {
            return Err(Error::new(
                offset + 4,
                ErrorKind::BadValue {
                    what: "perf_event_attr.size",
                    value: size.into(),
                },
            ));
        }
        // Copy what is present (up to the fields we know) into a zero-filled buffer.
        let mut buf = [0u8; ATTR_SIZE_KNOWN as usize];
        let present = raw.len().min(claimed as usize).min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..present), raw.get(..present)) {
            dst.copy_from_slice(src);
        }
        let u16_at = |o: usize| {
            buf.get(o..o + 2)
                .and_then(|s| s.try_into().ok())
                .map_or(0, |a| endian.u16(a))
        };
        let u32_at = |o: usize| {
            buf.get(o..o + 4)
                .and_then(|s| s.try_into().ok())
                .map_or(0, |a| endian.u32(a))
        };
        let u64_at = |o: usize| {
            buf.get(o..o + 8)
                .and_then(|s| s.try_into().ok())
                .map_or(0, |a| endian.u64(a))
        };
        let attr = EventAttr {
            type_,
            size,
            config: u64_at(8),
            sample_period_or_freq: u64_at(16),
            sample_type: u64_at(24),
            read_format: u64_at(32),
            flags: AttrFlags::from_word(u64_at(40), endian),
            wakeup: u32_at(48),
            bp_type: u32_at(52),
            config1: u64_at(56),
            config2: u64_at(64),
            branch_sample_type: u64_at(72),
            sample_regs_user: u64_at(80),
            sample_stack_user: u32_at(88),
            // perf_event__attr_swap does not swap clockid, sample_regs_intr, aux_action, sig_data
            // or config3: perf shows them byte-swapped for other-endian files. We decode them.
            clockid: u32_at(92) as i32,
            sample_regs_intr: u64_at(96),
            aux_watermark: u32_at(104),
            sample_max_stack: u16_at(108),
            aux_sample_size: u32_at(112),
            aux_action: u32_at(116),
            sig_data: u64_at(120),
            config3: u64_at(128),
        };
        Ok((attr, claimed))
    }

    /// Whether the event samples by frequency (`freq` flag) rather than a fixed period.
    pub const fn freq(&self) -> bool {
        self.flags.has(AttrFlags::FREQ)
    }

    /// Whether non-sample records carry the `sample_id` trailer.
    pub const fn sample_id_all(&self) -> bool {
        self.flags.has(AttrFlags::SAMPLE_ID_ALL)
    }

    /// Whether samples carry a callchain.
    pub const fn has_callchain(&self) -> bool {
        self.sample_type & sample_type::CALLCHAIN != 0
    }

    /// Whether `read_format` has `GROUP`.
    pub const fn read_group(&self) -> bool {
        self.read_format & read_format::GROUP != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr_bytes(endian: Endianness, size: u32, flags_word: u64) -> alloc::vec::Vec<u8> {
        let mut v = alloc::vec::Vec::new();
        v.extend_from_slice(&endian.u32_bytes(1)); // type
        v.extend_from_slice(&endian.u32_bytes(size));
        v.extend_from_slice(&endian.u64_bytes(0x1234)); // config
        v.extend_from_slice(&endian.u64_bytes(4000)); // freq
        v.extend_from_slice(&endian.u64_bytes(0x107)); // sample_type
        v.extend_from_slice(&endian.u64_bytes(0x14)); // read_format
        v.extend_from_slice(&endian.u64_bytes(flags_word));
        v.resize(size as usize, 0);
        v
    }

    #[test]
    fn short_attrs_are_zero_filled() {
        for endian in [Endianness::Little, Endianness::Big] {
            let bytes = attr_bytes(endian, 64, 0);
            let (attr, claimed) = EventAttr::parse(&Bytes::new(&bytes, 0, endian)).unwrap();
            assert_eq!(claimed, 64);
            assert_eq!(attr.config, 0x1234);
            assert_eq!(attr.sample_period_or_freq, 4000);
            assert_eq!(attr.sample_type, 0x107);
            assert_eq!(attr.read_format, 0x14);
            assert_eq!(attr.branch_sample_type, 0);
        }
    }

    #[test]
    fn big_endian_flags_come_out_in_little_endian_bit_order() {
        // A big-endian writer puts `disabled` in the top bit and precise_ip = 2 (binary 10) in
        // bits 48..47 with its high bit at 48.
        let disabled_be = 1u64 << 63;
        let freq_be = 1u64 << (63 - 10);
        let precise2_be = 1u64 << 48;
        let bytes = attr_bytes(Endianness::Big, 128, disabled_be | freq_be | precise2_be);
        let (attr, _) = EventAttr::parse(&Bytes::new(&bytes, 0, Endianness::Big)).unwrap();
        assert!(attr.flags.has(AttrFlags::DISABLED));
        assert!(attr.freq());
        assert!(!attr.flags.has(AttrFlags::INHERIT));
        assert_eq!(attr.flags.precise_ip(), 2);
    }

    #[test]
    fn attr_size_below_64_is_an_error_with_offset() {
        let bytes = attr_bytes(Endianness::Little, 64, 0);
        let mut bad = bytes.clone();
        bad[4] = 32;
        let err = EventAttr::parse(&Bytes::new(&bad, 0x100, Endianness::Little)).unwrap_err();
        assert_eq!(err.offset, 0x104);
        assert_eq!(
            err.kind,
            ErrorKind::BadValue {
                what: "perf_event_attr.size",
                value: 32
            }
        );
    }
}
