//! Event names derived from an attr the way perf 6.1's `evsel__name` does when a file carries
//! no name for the event (no HEADER_EVENT_DESC: old files, simpleperf files, pipe mode without
//! EVENT_UPDATE records): `cycles:u`, `L1-dcache-load-misses`, `mem:0x404078:w`, `raw 0x1c2`.

use perfscope_format::constants::attr_type;
use perfscope_format::{AttrFlags, EventAttr};

/// `evsel__hw_names` (`PERF_COUNT_HW_*`).
const HW_NAMES: [&str; 10] = [
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
];

/// `evsel__sw_names` (`PERF_COUNT_SW_*`).
const SW_NAMES: [&str; 12] = [
    "cpu-clock",
    "task-clock",
    "page-faults",
    "context-switches",
    "cpu-migrations",
    "minor-faults",
    "major-faults",
    "alignment-faults",
    "emulation-faults",
    "dummy",
    "bpf-output",
    "cgroup-switches",
];

/// `evsel__hw_cache` (first name of each `PERF_COUNT_HW_CACHE_*` type).
const CACHE_TYPES: [&str; 7] = [
    "L1-dcache",
    "L1-icache",
    "LLC",
    "dTLB",
    "iTLB",
    "branch",
    "node",
];
/// `evsel__hw_cache_op`: the singular and plural name of each op.
const CACHE_OPS: [(&str, &str); 3] = [
    ("load", "loads"),
    ("store", "stores"),
    ("prefetch", "prefetches"),
];
/// `evsel__hw_cache_result`.
const CACHE_RESULTS: [&str; 2] = ["refs", "misses"];
/// `evsel__hw_cache_stat`: which ops each cache type has (bit = op).
const CACHE_STAT: [u8; 7] = [0b111, 0b101, 0b111, 0b111, 0b001, 0b001, 0b111];

/// The name perf 6.1 gives an event that has no recorded name (`evsel__name` without
/// `evsel->name`), modifiers included.
///
/// Tracepoints need the tracing data to be named `sys:name`; here they get `tracepoint:<config>`
/// (perf itself prints "unknown tracepoint").
///
/// ```
/// use perfscope_format::{AttrFlags, EventAttr};
/// use perfscope_analysis::event_name::derived_name;
/// let cycles_user = EventAttr {
///     type_: 0,
///     flags: AttrFlags(AttrFlags::EXCLUDE_KERNEL | AttrFlags::EXCLUDE_HV),
///     ..EventAttr::default()
/// };
/// assert_eq!(derived_name(&cycles_user), "cycles:u");
/// ```
pub fn derived_name(attr: &EventAttr) -> String {
    let base = match attr.type_ {
        attr_type::HARDWARE => HW_NAMES
            .get(index(attr.config))
            .copied()
            .unwrap_or("unknown-hardware")
            .to_string(),
        attr_type::SOFTWARE => SW_NAMES
            .get(index(attr.config))
            .copied()
            .unwrap_or("unknown-software")
            .to_string(),
        attr_type::HW_CACHE => hw_cache_name(attr.config),
        attr_type::RAW => format!("raw 0x{:x}", attr.config),
        attr_type::BREAKPOINT => breakpoint_name(attr),
        attr_type::TRACEPOINT => return format!("tracepoint:{}", attr.config),
        other => return format!("unknown attr type: {other}"),
    };
    base + &modifiers(attr)
}

fn index(config: u64) -> usize {
    usize::try_from(config).unwrap_or(usize::MAX)
}

/// `__evsel__hw_cache_name`: `type-op-result` (or `type-ops` for accesses).
fn hw_cache_name(config: u64) -> String {
    let type_ = (config & 0xff) as usize;
    let op = ((config >> 8) & 0xff) as usize;
    let result = ((config >> 16) & 0xff) as usize;
    let Some(type_name) = CACHE_TYPES.get(type_) else {
        return "unknown-ext-hardware-cache-type".into();
    };
    let Some((op_name, op_plural)) = CACHE_OPS.get(op) else {
        return "unknown-ext-hardware-cache-op".into();
    };
    let Some(result_name) = CACHE_RESULTS.get(result) else {
        return "unknown-ext-hardware-cache-result".into();
    };
    if CACHE_STAT.get(type_).is_none_or(|ops| ops & (1 << op) == 0) {
        return "invalid-cache".into();
    }
    if result == 0 {
        format!("{type_name}-{op_plural}")
    } else {
        format!("{type_name}-{op_name}-{result_name}")
    }
}

/// `__evsel__bp_name`: `mem:0xADDR:rwx`.
fn breakpoint_name(attr: &EventAttr) -> String {
    let mut s = format!("mem:0x{:x}:", attr.config1);
    for (bit, c) in [(1, 'r'), (2, 'w'), (4, 'x')] {
        if attr.bp_type & bit != 0 {
            s.push(c);
        }
    }
    s
}

/// `evsel__add_modifiers` as in perf 6.1: `:k`/`:u`/`:h` for what is not excluded when
/// something is, `p`s for `precise_ip`, and `H`/`G` when `exclude_guest` differs from what
/// perf would have defaulted it to.
pub fn modifiers(attr: &EventAttr) -> String {
    let f = attr.flags;
    let has = |m| f.has(m);
    let mut mods = String::new();
    let mut exclude_guest_default = false;
    if has(AttrFlags::EXCLUDE_KERNEL) || has(AttrFlags::EXCLUDE_USER) || has(AttrFlags::EXCLUDE_HV)
    {
        for (m, c) in [
            (AttrFlags::EXCLUDE_KERNEL, 'k'),
            (AttrFlags::EXCLUDE_USER, 'u'),
            (AttrFlags::EXCLUDE_HV, 'h'),
        ] {
            if !has(m) {
                mods.push(c);
            }
        }
        exclude_guest_default = true;
    }
    let precise = usize::from(f.precise_ip());
    if precise > 0 {
        mods.push_str(&"ppp"[..precise.min(3)]);
        exclude_guest_default = true;
    }
    if has(AttrFlags::EXCLUDE_HOST) || has(AttrFlags::EXCLUDE_GUEST) == exclude_guest_default {
        for (m, c) in [
            (AttrFlags::EXCLUDE_HOST, 'H'),
            (AttrFlags::EXCLUDE_GUEST, 'G'),
        ] {
            if !has(m) {
                mods.push(c);
            }
        }
    }
    if mods.is_empty() {
        mods
    } else {
        format!(":{mods}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(type_: u32, config: u64, flags: u64) -> EventAttr {
        EventAttr {
            type_,
            config,
            flags: AttrFlags(flags),
            ..EventAttr::default()
        }
    }

    #[test]
    fn names_and_modifiers_as_perf_6_1_prints_them() {
        let g = AttrFlags::EXCLUDE_GUEST;
        // perf ≥ 3.4 sets exclude_guest by default: no modifier.
        assert_eq!(derived_name(&attr(0, 0, g)), "cycles");
        // simpleperf leaves exclude_guest clear: perf prints HG.
        assert_eq!(derived_name(&attr(0, 0, 0)), "cycles:HG");
        assert_eq!(derived_name(&attr(1, 0, 0)), "cpu-clock:HG");
        // `:u` makes exclude_guest the default: clear it is (autofdo's ro_sample `cycles:u`),
        // set it shows `H`.
        let user = AttrFlags::EXCLUDE_KERNEL | AttrFlags::EXCLUDE_HV;
        assert_eq!(derived_name(&attr(0, 0, user)), "cycles:u");
        assert_eq!(derived_name(&attr(1, 0, user | g)), "cpu-clock:uH");
        // precise_ip 3 with exclude_guest set: perf prints pppH (gen/weight.data's event).
        assert_eq!(derived_name(&attr(1, 0, g | (3 << 15))), "cpu-clock:pppH");
        assert_eq!(derived_name(&attr(1, 0, 3 << 15)), "cpu-clock:ppp");
        // precise_ip makes exclude_guest the default: H is printed since the host is counted.
        assert_eq!(derived_name(&attr(0, 0, g | (2 << 15))), "cycles:ppH");
        assert_eq!(derived_name(&attr(1, 9, 0)), "dummy:HG");
        assert_eq!(derived_name(&attr(1, 99, g)), "unknown-software");
        assert_eq!(derived_name(&attr(0, 42, g)), "unknown-hardware");
    }

    #[test]
    fn cache_raw_breakpoint_and_tracepoint_names() {
        let g = AttrFlags::EXCLUDE_GUEST;
        assert_eq!(derived_name(&attr(3, 0x10000, g)), "L1-dcache-load-misses");
        assert_eq!(derived_name(&attr(3, 0x0, g)), "L1-dcache-loads");
        assert_eq!(derived_name(&attr(3, 0x10103, g)), "dTLB-store-misses");
        assert_eq!(derived_name(&attr(3, 0x104, g)), "invalid-cache");
        assert_eq!(
            derived_name(&attr(3, 0x9, g)),
            "unknown-ext-hardware-cache-type"
        );
        assert_eq!(derived_name(&attr(4, 0x1c2, g)), "raw 0x1c2");
        let bp = EventAttr {
            type_: 5,
            config1: 0x404078,
            bp_type: 2,
            flags: AttrFlags(g),
            ..EventAttr::default()
        };
        assert_eq!(derived_name(&bp), "mem:0x404078:w");
        assert_eq!(derived_name(&attr(2, 0x531, g)), "tracepoint:1329");
        assert_eq!(derived_name(&attr(8, 0, g)), "unknown attr type: 8");
    }
}
