//! An attr as text, field by field in the order and with the names of perf 6.1's
//! `perf_event_attr__fprintf` (what `perf report --header-only` and `perf evlist -v` print):
//! only non-zero fields, `type = 1, size = 128, config = 0x1, …`.

use perfscope_format::{AttrFlags, EventAttr};

/// `sample_type` bits in the order perf 6.1 prints them (it has no name for TRANSACTION).
const SAMPLE_TYPE: [(u32, &str); 24] = [
    (0, "IP"),
    (1, "TID"),
    (2, "TIME"),
    (3, "ADDR"),
    (4, "READ"),
    (5, "CALLCHAIN"),
    (6, "ID"),
    (7, "CPU"),
    (8, "PERIOD"),
    (9, "STREAM_ID"),
    (10, "RAW"),
    (11, "BRANCH_STACK"),
    (12, "REGS_USER"),
    (13, "STACK_USER"),
    (16, "IDENTIFIER"),
    (18, "REGS_INTR"),
    (15, "DATA_SRC"),
    (14, "WEIGHT"),
    (19, "PHYS_ADDR"),
    (20, "AUX"),
    (21, "CGROUP"),
    (22, "DATA_PAGE_SIZE"),
    (23, "CODE_PAGE_SIZE"),
    (24, "WEIGHT_STRUCT"),
];

/// `branch_sample_type` bits 0..=18 (perf 6.1).
const BRANCH_SAMPLE_TYPE: [&str; 19] = [
    "USER",
    "KERNEL",
    "HV",
    "ANY",
    "ANY_CALL",
    "ANY_RETURN",
    "IND_CALL",
    "ABORT_TX",
    "IN_TX",
    "NO_TX",
    "COND",
    "CALL_STACK",
    "IND_JUMP",
    "CALL",
    "NO_FLAGS",
    "NO_CYCLES",
    "TYPE_SAVE",
    "HW_INDEX",
    "PRIV_SAVE",
];

/// `read_format` bits (perf 6.1).
const READ_FORMAT: [&str; 5] = [
    "TOTAL_TIME_ENABLED",
    "TOTAL_TIME_RUNNING",
    "ID",
    "GROUP",
    "LOST",
];

/// The flag bits perf 6.1 prints, in its order (`precise_ip` comes after `watermark`).
const FLAGS: [(u64, &str); 36] = [
    (AttrFlags::DISABLED, "disabled"),
    (AttrFlags::INHERIT, "inherit"),
    (AttrFlags::PINNED, "pinned"),
    (AttrFlags::EXCLUSIVE, "exclusive"),
    (AttrFlags::EXCLUDE_USER, "exclude_user"),
    (AttrFlags::EXCLUDE_KERNEL, "exclude_kernel"),
    (AttrFlags::EXCLUDE_HV, "exclude_hv"),
    (AttrFlags::EXCLUDE_IDLE, "exclude_idle"),
    (AttrFlags::MMAP, "mmap"),
    (AttrFlags::COMM, "comm"),
    (AttrFlags::FREQ, "freq"),
    (AttrFlags::INHERIT_STAT, "inherit_stat"),
    (AttrFlags::ENABLE_ON_EXEC, "enable_on_exec"),
    (AttrFlags::TASK, "task"),
    (AttrFlags::WATERMARK, "watermark"),
    (0, "precise_ip"),
    (AttrFlags::MMAP_DATA, "mmap_data"),
    (AttrFlags::SAMPLE_ID_ALL, "sample_id_all"),
    (AttrFlags::EXCLUDE_HOST, "exclude_host"),
    (AttrFlags::EXCLUDE_GUEST, "exclude_guest"),
    (
        AttrFlags::EXCLUDE_CALLCHAIN_KERNEL,
        "exclude_callchain_kernel",
    ),
    (AttrFlags::EXCLUDE_CALLCHAIN_USER, "exclude_callchain_user"),
    (AttrFlags::MMAP2, "mmap2"),
    (AttrFlags::COMM_EXEC, "comm_exec"),
    (AttrFlags::USE_CLOCKID, "use_clockid"),
    (AttrFlags::CONTEXT_SWITCH, "context_switch"),
    (AttrFlags::WRITE_BACKWARD, "write_backward"),
    (AttrFlags::NAMESPACES, "namespaces"),
    (AttrFlags::KSYMBOL, "ksymbol"),
    (AttrFlags::BPF_EVENT, "bpf_event"),
    (AttrFlags::AUX_OUTPUT, "aux_output"),
    (AttrFlags::CGROUP, "cgroup"),
    (AttrFlags::TEXT_POKE, "text_poke"),
    (AttrFlags::BUILD_ID, "build_id"),
    (AttrFlags::INHERIT_THREAD, "inherit_thread"),
    (AttrFlags::REMOVE_ON_EXEC, "remove_on_exec"),
];

fn bits<'a>(value: u64, names: impl IntoIterator<Item = (u32, &'a str)>) -> String {
    let parts: Vec<&str> = names
        .into_iter()
        .filter(|(bit, _)| value & (1 << bit) != 0)
        .map(|(_, n)| n)
        .collect();
    parts.join("|")
}

/// `read_format` as perf 6.1 prints it (`ID|LOST`).
pub fn read_format_names(value: u64) -> String {
    bits(
        value,
        READ_FORMAT.iter().enumerate().map(|(i, n)| (i as u32, *n)),
    )
}

/// `branch_sample_type` as perf 6.1 prints it (`USER|CALL_STACK`).
pub fn branch_sample_type_names(value: u64) -> String {
    bits(
        value,
        BRANCH_SAMPLE_TYPE
            .iter()
            .enumerate()
            .map(|(i, n)| (i as u32, *n)),
    )
}

/// `sample_type` as perf 6.1 prints it (its bit order, no TRANSACTION, unknown bits dropped).
pub fn perf_sample_type_names(value: u64) -> String {
    bits(value, SAMPLE_TYPE)
}

/// The attr as perf 6.1's `perf_event_attr__fprintf` prints it, fields joined by `, `.
///
/// ```
/// use perfscope_format::{AttrFlags, EventAttr};
/// let attr = EventAttr { type_: 1, size: 128, config: 1, sample_period_or_freq: 4000,
///     sample_type: 0x107, flags: AttrFlags(AttrFlags::DISABLED | AttrFlags::FREQ),
///     ..EventAttr::default() };
/// assert_eq!(perfscope_analysis::attr_text::attr_text(&attr),
///     "type = 1, size = 128, config = 0x1, { sample_period, sample_freq } = 4000, \
///      sample_type = IP|TID|TIME|PERIOD, disabled = 1, freq = 1");
/// ```
pub fn attr_text(a: &EventAttr) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut num = |name: &str, v: u64| {
        if v != 0 {
            out.push(format!("{name} = {v}"));
        }
    };
    num("type", a.type_.into());
    num("size", a.size.into());
    let hex = |v: u64| format!("0x{v:x}");
    if a.config != 0 {
        out.push(format!("config = {}", hex(a.config)));
    }
    if a.sample_period_or_freq != 0 {
        out.push(format!(
            "{{ sample_period, sample_freq }} = {}",
            a.sample_period_or_freq
        ));
    }
    if a.sample_type != 0 {
        out.push(format!(
            "sample_type = {}",
            perf_sample_type_names(a.sample_type)
        ));
    }
    if a.read_format != 0 {
        out.push(format!(
            "read_format = {}",
            read_format_names(a.read_format)
        ));
    }
    for (mask, name) in FLAGS {
        let v = if mask == 0 {
            u64::from(a.flags.precise_ip())
        } else {
            u64::from(a.flags.has(mask))
        };
        if v != 0 {
            out.push(format!("{name} = {v}"));
        }
    }
    if a.flags.has(AttrFlags::SIGTRAP) {
        out.push("sigtrap = 1".into());
    }
    let mut field = |name: &str, v: u64, text: String| {
        if v != 0 {
            out.push(format!("{name} = {text}"));
        }
    };
    field(
        "{ wakeup_events, wakeup_watermark }",
        a.wakeup.into(),
        a.wakeup.to_string(),
    );
    field("bp_type", a.bp_type.into(), a.bp_type.to_string());
    field("{ bp_addr, config1 }", a.config1, hex(a.config1));
    field("{ bp_len, config2 }", a.config2, hex(a.config2));
    field(
        "branch_sample_type",
        a.branch_sample_type,
        branch_sample_type_names(a.branch_sample_type),
    );
    field(
        "sample_regs_user",
        a.sample_regs_user,
        hex(a.sample_regs_user),
    );
    field(
        "sample_stack_user",
        a.sample_stack_user.into(),
        a.sample_stack_user.to_string(),
    );
    field("clockid", a.clockid as u64, a.clockid.to_string());
    field(
        "sample_regs_intr",
        a.sample_regs_intr,
        hex(a.sample_regs_intr),
    );
    field(
        "aux_watermark",
        a.aux_watermark.into(),
        a.aux_watermark.to_string(),
    );
    field(
        "sample_max_stack",
        a.sample_max_stack.into(),
        a.sample_max_stack.to_string(),
    );
    field(
        "aux_sample_size",
        a.aux_sample_size.into(),
        a.aux_sample_size.to_string(),
    );
    field("sig_data", a.sig_data, a.sig_data.to_string());
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kitchen_sink_attr_prints_as_in_its_oracle() {
        // gen/kitchen-sink.data, first event (values from its header oracle).
        let f = AttrFlags::DISABLED
            | AttrFlags::MMAP
            | AttrFlags::COMM
            | AttrFlags::FREQ
            | AttrFlags::ENABLE_ON_EXEC
            | AttrFlags::TASK
            | AttrFlags::MMAP_DATA
            | AttrFlags::SAMPLE_ID_ALL
            | AttrFlags::EXCLUDE_GUEST
            | AttrFlags::EXCLUDE_CALLCHAIN_USER
            | AttrFlags::MMAP2
            | AttrFlags::COMM_EXEC
            | AttrFlags::KSYMBOL
            | AttrFlags::BPF_EVENT
            | AttrFlags::CGROUP;
        let a = EventAttr {
            type_: 1,
            size: 128,
            config: 1,
            sample_period_or_freq: 500,
            sample_type: [
                0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 15, 18, 19, 21, 22, 23, 24,
            ]
            .iter()
            .map(|b| 1u64 << b)
            .sum(),
            read_format: 0x1c,
            flags: AttrFlags(f),
            sample_regs_user: 0x1c0,
            sample_stack_user: 1024,
            sample_regs_intr: 0x180,
            ..EventAttr::default()
        };
        let text = attr_text(&a);
        assert!(
            text.starts_with(
                "type = 1, size = 128, config = 0x1, { sample_period, sample_freq } = 500, "
            ),
            "{text}"
        );
        assert!(text.contains(
            "sample_type = IP|TID|TIME|ADDR|READ|CALLCHAIN|ID|CPU|PERIOD|REGS_USER|STACK_USER|REGS_INTR|\
             DATA_SRC|PHYS_ADDR|CGROUP|DATA_PAGE_SIZE|CODE_PAGE_SIZE|WEIGHT_STRUCT, "
        ), "{text}");
        assert!(
            text.contains(
                "read_format = ID|GROUP|LOST, disabled = 1, mmap = 1, comm = 1, freq = 1,"
            ),
            "{text}"
        );
        assert!(text.ends_with(
            "cgroup = 1, sample_regs_user = 0x1c0, sample_stack_user = 1024, sample_regs_intr = 0x180"
        ), "{text}");
    }

    #[test]
    fn perf_6_1_names_and_their_order() {
        // IDENTIFIER is printed before REGS_INTR and DATA_SRC before WEIGHT; TRANSACTION is not.
        let st = (1 << 16) | (1 << 15) | (1 << 14) | (1 << 17) | (1 << 18) | 1;
        assert_eq!(
            perf_sample_type_names(st),
            "IP|IDENTIFIER|REGS_INTR|DATA_SRC|WEIGHT"
        );
        assert_eq!(
            branch_sample_type_names((1 << 0) | (1 << 11) | (1 << 14) | (1 << 15)),
            "USER|CALL_STACK|NO_FLAGS|NO_CYCLES"
        );
        assert_eq!(
            read_format_names(0x7),
            "TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID"
        );
        let a = EventAttr {
            clockid: -1,
            flags: AttrFlags(1 << 16),
            ..EventAttr::default()
        };
        assert_eq!(attr_text(&a), "precise_ip = 2, clockid = -1");
    }
}
