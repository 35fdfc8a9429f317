//! Open-ended constant sets from `include/uapi/linux/perf_event.h` and perf's `tools/perf/util`.
//!
//! Each set is a newtype with associated constants; unknown values are kept and still print.

use core::fmt;

/// Defines a newtype over an integer with named associated constants and a `name()` lookup.
macro_rules! named_consts {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident($int:ty) { unknown = $unknown:literal;
            $( $(#[$cmeta:meta])* $const:ident = $value:expr => $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        $vis struct $name(pub $int);

        impl $name {
            $( $(#[$cmeta])* pub const $const: $name = $name($value); )*

            /// Every named value, in numeric order.
            pub const ALL: &'static [$name] = &[$($name::$const),*];

            /// The name perf uses for this value, or `None` if it is unknown.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( v if v == $value => Some($text), )*
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, concat!($unknown, " {}"), self.0),
                }
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

named_consts! {
    /// `enum perf_event_type` (kernel, 1..) and `enum perf_user_event_type` (perf tool, 64..).
    ///
    /// Names are those perf prints in `perf report --stats` (`perf_event__names` in
    /// `tools/perf/util/event.c`), so the perf-tool types read `ATTR`, `FEATURE`, … rather than
    /// `HEADER_ATTR`, `HEADER_FEATURE`.
    pub struct RecordType(u32) { unknown = "unknown record type";
        /// PERF_RECORD_MMAP
        MMAP = 1 => "MMAP",
        /// PERF_RECORD_LOST
        LOST = 2 => "LOST",
        /// PERF_RECORD_COMM
        COMM = 3 => "COMM",
        /// PERF_RECORD_EXIT
        EXIT = 4 => "EXIT",
        /// PERF_RECORD_THROTTLE
        THROTTLE = 5 => "THROTTLE",
        /// PERF_RECORD_UNTHROTTLE
        UNTHROTTLE = 6 => "UNTHROTTLE",
        /// PERF_RECORD_FORK
        FORK = 7 => "FORK",
        /// PERF_RECORD_READ
        READ = 8 => "READ",
        /// PERF_RECORD_SAMPLE
        SAMPLE = 9 => "SAMPLE",
        /// PERF_RECORD_MMAP2
        MMAP2 = 10 => "MMAP2",
        /// PERF_RECORD_AUX
        AUX = 11 => "AUX",
        /// PERF_RECORD_ITRACE_START
        ITRACE_START = 12 => "ITRACE_START",
        /// PERF_RECORD_LOST_SAMPLES
        LOST_SAMPLES = 13 => "LOST_SAMPLES",
        /// PERF_RECORD_SWITCH
        SWITCH = 14 => "SWITCH",
        /// PERF_RECORD_SWITCH_CPU_WIDE
        SWITCH_CPU_WIDE = 15 => "SWITCH_CPU_WIDE",
        /// PERF_RECORD_NAMESPACES
        NAMESPACES = 16 => "NAMESPACES",
        /// PERF_RECORD_KSYMBOL
        KSYMBOL = 17 => "KSYMBOL",
        /// PERF_RECORD_BPF_EVENT
        BPF_EVENT = 18 => "BPF_EVENT",
        /// PERF_RECORD_CGROUP
        CGROUP = 19 => "CGROUP",
        /// PERF_RECORD_TEXT_POKE
        TEXT_POKE = 20 => "TEXT_POKE",
        /// PERF_RECORD_AUX_OUTPUT_HW_ID
        AUX_OUTPUT_HW_ID = 21 => "AUX_OUTPUT_HW_ID",
        /// PERF_RECORD_CALLCHAIN_DEFERRED
        CALLCHAIN_DEFERRED = 22 => "CALLCHAIN_DEFERRED",
        /// PERF_RECORD_HEADER_ATTR
        HEADER_ATTR = 64 => "ATTR",
        /// PERF_RECORD_HEADER_EVENT_TYPE (deprecated)
        HEADER_EVENT_TYPE = 65 => "EVENT_TYPE",
        /// PERF_RECORD_HEADER_TRACING_DATA (followed by payload bytes not counted in its size)
        HEADER_TRACING_DATA = 66 => "TRACING_DATA",
        /// PERF_RECORD_HEADER_BUILD_ID
        HEADER_BUILD_ID = 67 => "BUILD_ID",
        /// PERF_RECORD_FINISHED_ROUND
        FINISHED_ROUND = 68 => "FINISHED_ROUND",
        /// PERF_RECORD_ID_INDEX
        ID_INDEX = 69 => "ID_INDEX",
        /// PERF_RECORD_AUXTRACE_INFO
        AUXTRACE_INFO = 70 => "AUXTRACE_INFO",
        /// PERF_RECORD_AUXTRACE (followed by payload bytes not counted in its size)
        AUXTRACE = 71 => "AUXTRACE",
        /// PERF_RECORD_AUXTRACE_ERROR
        AUXTRACE_ERROR = 72 => "AUXTRACE_ERROR",
        /// PERF_RECORD_THREAD_MAP
        THREAD_MAP = 73 => "THREAD_MAP",
        /// PERF_RECORD_CPU_MAP
        CPU_MAP = 74 => "CPU_MAP",
        /// PERF_RECORD_STAT_CONFIG
        STAT_CONFIG = 75 => "STAT_CONFIG",
        /// PERF_RECORD_STAT
        STAT = 76 => "STAT",
        /// PERF_RECORD_STAT_ROUND
        STAT_ROUND = 77 => "STAT_ROUND",
        /// PERF_RECORD_EVENT_UPDATE
        EVENT_UPDATE = 78 => "EVENT_UPDATE",
        /// PERF_RECORD_TIME_CONV
        TIME_CONV = 79 => "TIME_CONV",
        /// PERF_RECORD_HEADER_FEATURE
        HEADER_FEATURE = 80 => "FEATURE",
        /// PERF_RECORD_COMPRESSED (zstd)
        COMPRESSED = 81 => "COMPRESSED",
        /// PERF_RECORD_FINISHED_INIT
        FINISHED_INIT = 82 => "FINISHED_INIT",
        /// PERF_RECORD_COMPRESSED2 (zstd, with a data size and 8-byte padding)
        COMPRESSED2 = 83 => "COMPRESSED2",
        /// PERF_RECORD_BPF_METADATA
        BPF_METADATA = 84 => "BPF_METADATA",
        /// PERF_RECORD_SCHEDSTAT_CPU
        SCHEDSTAT_CPU = 85 => "SCHEDSTAT_CPU",
        /// PERF_RECORD_SCHEDSTAT_DOMAIN
        SCHEDSTAT_DOMAIN = 86 => "SCHEDSTAT_DOMAIN",
    }
}

impl RecordType {
    /// Whether this record type comes from the kernel (types below 64), so it may carry a
    /// `sample_id` trailer.
    pub const fn is_kernel(self) -> bool {
        self.0 < 64
    }
}

named_consts! {
    /// Header feature bits (`HEADER_*` in `tools/perf/util/header.h`).
    pub struct HeaderFeature(u32) { unknown = "unknown feature";
        /// HEADER_TRACING_DATA
        TRACING_DATA = 1 => "TRACING_DATA",
        /// HEADER_BUILD_ID
        BUILD_ID = 2 => "BUILD_ID",
        /// HEADER_HOSTNAME
        HOSTNAME = 3 => "HOSTNAME",
        /// HEADER_OSRELEASE
        OSRELEASE = 4 => "OSRELEASE",
        /// HEADER_VERSION
        VERSION = 5 => "VERSION",
        /// HEADER_ARCH
        ARCH = 6 => "ARCH",
        /// HEADER_NRCPUS
        NRCPUS = 7 => "NRCPUS",
        /// HEADER_CPUDESC
        CPUDESC = 8 => "CPUDESC",
        /// HEADER_CPUID
        CPUID = 9 => "CPUID",
        /// HEADER_TOTAL_MEM
        TOTAL_MEM = 10 => "TOTAL_MEM",
        /// HEADER_CMDLINE
        CMDLINE = 11 => "CMDLINE",
        /// HEADER_EVENT_DESC
        EVENT_DESC = 12 => "EVENT_DESC",
        /// HEADER_CPU_TOPOLOGY
        CPU_TOPOLOGY = 13 => "CPU_TOPOLOGY",
        /// HEADER_NUMA_TOPOLOGY
        NUMA_TOPOLOGY = 14 => "NUMA_TOPOLOGY",
        /// HEADER_BRANCH_STACK (an empty marker)
        BRANCH_STACK = 15 => "BRANCH_STACK",
        /// HEADER_PMU_MAPPINGS
        PMU_MAPPINGS = 16 => "PMU_MAPPINGS",
        /// HEADER_GROUP_DESC
        GROUP_DESC = 17 => "GROUP_DESC",
        /// HEADER_AUXTRACE
        AUXTRACE = 18 => "AUXTRACE",
        /// HEADER_STAT
        STAT = 19 => "STAT",
        /// HEADER_CACHE
        CACHE = 20 => "CACHE",
        /// HEADER_SAMPLE_TIME
        SAMPLE_TIME = 21 => "SAMPLE_TIME",
        /// HEADER_MEM_TOPOLOGY
        MEM_TOPOLOGY = 22 => "MEM_TOPOLOGY",
        /// HEADER_CLOCKID
        CLOCKID = 23 => "CLOCKID",
        /// HEADER_DIR_FORMAT
        DIR_FORMAT = 24 => "DIR_FORMAT",
        /// HEADER_BPF_PROG_INFO
        BPF_PROG_INFO = 25 => "BPF_PROG_INFO",
        /// HEADER_BPF_BTF
        BPF_BTF = 26 => "BPF_BTF",
        /// HEADER_COMPRESSED
        COMPRESSED = 27 => "COMPRESSED",
        /// HEADER_CPU_PMU_CAPS
        CPU_PMU_CAPS = 28 => "CPU_PMU_CAPS",
        /// HEADER_CLOCK_DATA
        CLOCK_DATA = 29 => "CLOCK_DATA",
        /// HEADER_HYBRID_TOPOLOGY
        HYBRID_TOPOLOGY = 30 => "HYBRID_TOPOLOGY",
        /// HEADER_PMU_CAPS
        PMU_CAPS = 31 => "PMU_CAPS",
        /// HEADER_CPU_DOMAIN_INFO
        CPU_DOMAIN_INFO = 32 => "CPU_DOMAIN_INFO",
    }
}

/// `enum perf_event_sample_format`: the bits of `sample_type`.
pub mod sample_type {
    #![allow(missing_docs)]
    pub const IP: u64 = 1 << 0;
    pub const TID: u64 = 1 << 1;
    pub const TIME: u64 = 1 << 2;
    pub const ADDR: u64 = 1 << 3;
    pub const READ: u64 = 1 << 4;
    pub const CALLCHAIN: u64 = 1 << 5;
    pub const ID: u64 = 1 << 6;
    pub const CPU: u64 = 1 << 7;
    pub const PERIOD: u64 = 1 << 8;
    pub const STREAM_ID: u64 = 1 << 9;
    pub const RAW: u64 = 1 << 10;
    pub const BRANCH_STACK: u64 = 1 << 11;
    pub const REGS_USER: u64 = 1 << 12;
    pub const STACK_USER: u64 = 1 << 13;
    pub const WEIGHT: u64 = 1 << 14;
    pub const DATA_SRC: u64 = 1 << 15;
    pub const IDENTIFIER: u64 = 1 << 16;
    pub const TRANSACTION: u64 = 1 << 17;
    pub const REGS_INTR: u64 = 1 << 18;
    pub const PHYS_ADDR: u64 = 1 << 19;
    pub const AUX: u64 = 1 << 20;
    pub const CGROUP: u64 = 1 << 21;
    pub const DATA_PAGE_SIZE: u64 = 1 << 22;
    pub const CODE_PAGE_SIZE: u64 = 1 << 23;
    pub const WEIGHT_STRUCT: u64 = 1 << 24;
    /// All bits this crate knows how to lay out.
    pub const KNOWN: u64 = (1 << 25) - 1;
    /// Names in bit order, as perf prints them.
    pub const NAMES: [&str; 25] = [
        "IP",
        "TID",
        "TIME",
        "ADDR",
        "READ",
        "CALLCHAIN",
        "ID",
        "CPU",
        "PERIOD",
        "STREAM_ID",
        "RAW",
        "BRANCH_STACK",
        "REGS_USER",
        "STACK_USER",
        "WEIGHT",
        "DATA_SRC",
        "IDENTIFIER",
        "TRANSACTION",
        "REGS_INTR",
        "PHYS_ADDR",
        "AUX",
        "CGROUP",
        "DATA_PAGE_SIZE",
        "CODE_PAGE_SIZE",
        "WEIGHT_STRUCT",
    ];
}

/// `enum perf_event_read_format`: the bits of `read_format`.
pub mod read_format {
    #![allow(missing_docs)]
    pub const TOTAL_TIME_ENABLED: u64 = 1 << 0;
    pub const TOTAL_TIME_RUNNING: u64 = 1 << 1;
    pub const ID: u64 = 1 << 2;
    pub const GROUP: u64 = 1 << 3;
    pub const LOST: u64 = 1 << 4;
    /// Names in bit order, as perf prints them.
    pub const NAMES: [&str; 5] = [
        "TOTAL_TIME_ENABLED",
        "TOTAL_TIME_RUNNING",
        "ID",
        "GROUP",
        "LOST",
    ];
}

/// `enum perf_branch_sample_type` bits that change the sample layout.
pub mod branch_sample_type {
    /// PERF_SAMPLE_BRANCH_HW_INDEX: a `u64 hw_idx` precedes the branch entries.
    pub const HW_INDEX: u64 = 1 << 17;
    /// PERF_SAMPLE_BRANCH_COUNTERS: a `u64` counter word follows the entries (when the group
    /// leader also asks for it).
    pub const COUNTERS: u64 = 1 << 19;
}

/// `enum perf_callchain_context`: markers inside callchains that are not addresses.
pub mod callchain_context {
    #![allow(missing_docs)]
    pub const HV: u64 = -32i64 as u64;
    pub const KERNEL: u64 = -128i64 as u64;
    pub const USER: u64 = -512i64 as u64;
    /// Followed by a u64 cookie naming a later PERF_RECORD_CALLCHAIN_DEFERRED.
    pub const USER_DEFERRED: u64 = -640i64 as u64;
    pub const GUEST: u64 = -2048i64 as u64;
    pub const GUEST_KERNEL: u64 = -2176i64 as u64;
    pub const GUEST_USER: u64 = -2560i64 as u64;
    /// Values at or above this are markers.
    pub const MAX: u64 = -4095i64 as u64;
}

/// `header.misc` bits.
pub mod misc {
    #![allow(missing_docs)]
    pub const CPUMODE_MASK: u16 = 7;
    pub const CPUMODE_UNKNOWN: u16 = 0;
    pub const KERNEL: u16 = 1;
    pub const USER: u16 = 2;
    pub const HYPERVISOR: u16 = 3;
    pub const GUEST_KERNEL: u16 = 4;
    pub const GUEST_USER: u16 = 5;
    /// MMAP: not executable. COMM: exec. SWITCH: out. (bit 13)
    pub const MMAP_DATA: u16 = 1 << 13;
    pub const COMM_EXEC: u16 = 1 << 13;
    pub const SWITCH_OUT: u16 = 1 << 13;
    /// MMAP2 carries a build id instead of device/inode numbers. (bit 14)
    pub const MMAP_BUILD_ID: u16 = 1 << 14;
    pub const EXACT_IP: u16 = 1 << 14;
    pub const SWITCH_OUT_PREEMPT: u16 = 1 << 14;
    pub const EXT_RESERVED: u16 = 1 << 15;
}

/// `enum perf_type_id`: the `type` of an event attr.
pub mod attr_type {
    #![allow(missing_docs)]
    pub const HARDWARE: u32 = 0;
    pub const SOFTWARE: u32 = 1;
    pub const TRACEPOINT: u32 = 2;
    pub const HW_CACHE: u32 = 3;
    pub const RAW: u32 = 4;
    pub const BREAKPOINT: u32 = 5;
}
