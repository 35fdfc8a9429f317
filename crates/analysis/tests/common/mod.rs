//! Shared by the corpus tests: finding the corpus and its oracles, and our facts written the way
//! perf 6.1's `perf report --header-only -I` prints them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    dead_code
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use perfscope_analysis::summary::Summary;

pub fn shared() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PERFSCOPE_SHARED") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    p.is_dir().then_some(p)
}

/// (file or directory, its header oracle, its buildid-list oracle if any).
pub fn corpus_files(root: &Path) -> Vec<(PathBuf, PathBuf, Option<PathBuf>)> {
    let mut out = Vec::new();
    for set in ["gen", "bigendian"] {
        let dir = root.join("corpus").join(set);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".data") {
                let oracle = dir.join("oracle").join(format!("{stem}.header.txt"));
                let ids = dir.join("oracle").join(format!("{stem}.buildids.txt"));
                out.push((e.path(), oracle, ids.is_file().then_some(ids)));
            }
        }
    }
    let public = root.join("corpus/public");
    for project in std::fs::read_dir(&public).into_iter().flatten().flatten() {
        for e in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            let oracle = project
                .path()
                .join("oracle")
                .join(format!("{name}.header.txt"));
            if e.path().is_file() && oracle.is_file() {
                out.push((e.path(), oracle, None));
            }
        }
    }
    out.sort();
    out
}

pub fn read_input(path: &Path) -> Vec<u8> {
    if path.is_dir() {
        std::fs::read(path.join("data")).unwrap()
    } else {
        std::fs::read(path).unwrap()
    }
}

/// perf's `timestamp__scnprintf_usec`.
pub fn usec(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// perf's `unit_number__scnprintf`.
pub fn unit_number(mut n: u64) -> String {
    let units = ['B', 'K', 'M', 'G'];
    let mut i = 0;
    while n / 1024 > 1 && i < 3 {
        n /= 1024;
        i += 1;
    }
    format!("{n}{}", units[i])
}

/// The 31 feature names perf 6.1 knows, in bit order (for "missing features").
pub const PERF_6_1_FEATURES: [&str; 31] = [
    "TRACING_DATA",
    "BUILD_ID",
    "HOSTNAME",
    "OSRELEASE",
    "VERSION",
    "ARCH",
    "NRCPUS",
    "CPUDESC",
    "CPUID",
    "TOTAL_MEM",
    "CMDLINE",
    "EVENT_DESC",
    "CPU_TOPOLOGY",
    "NUMA_TOPOLOGY",
    "BRANCH_STACK",
    "PMU_MAPPINGS",
    "GROUP_DESC",
    "AUXTRACE",
    "STAT",
    "CACHE",
    "SAMPLE_TIME",
    "MEM_TOPOLOGY",
    "CLOCKID",
    "DIR_FORMAT",
    "BPF_PROG_INFO",
    "BPF_BTF",
    "COMPRESSED",
    "CPU_PMU_CAPS",
    "CLOCK_DATA",
    "HYBRID_TOPOLOGY",
    "PMU_CAPS",
];

/// What we would print for each oracle line, grouped by fact. Each fact maps to the lines perf
/// printed for it; `compare` checks the oracle's lines of each fact against ours.
pub struct Facts {
    pub lines: Vec<(String, String)>,
}

impl Facts {
    fn push(&mut self, fact: &str, line: String) {
        self.lines.push((fact.to_string(), line));
    }
}

/// Our lines, in perf's words, for every fact `s` has.
pub fn our_lines(s: &Summary) -> Facts {
    let mut f = Facts { lines: Vec::new() };
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "(null)".into());
    // perf prints zeroes for pipe-mode streams, which have no sections.
    let (off, size) = if s.pipe_mode {
        (0, 0)
    } else {
        (s.data_offset, s.data_size)
    };
    f.push("data section", format!("# data offset    : {off}"));
    f.push("data section", format!("# data size      : {size}"));
    f.push(
        "data section",
        format!("# feat offset    : {}", off.wrapping_add(size)),
    );
    if s.hostname.is_some() {
        f.push("hostname", format!("# hostname : {}", opt(&s.hostname)));
    }
    if s.os_release.is_some() {
        f.push(
            "os release",
            format!("# os release : {}", opt(&s.os_release)),
        );
    }
    if s.perf_version.is_some() {
        f.push(
            "perf version",
            format!("# perf version : {}", opt(&s.perf_version)),
        );
    }
    if s.arch.is_some() {
        f.push("arch", format!("# arch : {}", opt(&s.arch)));
    }
    if let (Some(on), Some(av)) = (s.nr_cpus_online, s.nr_cpus_available) {
        f.push("nrcpus", format!("# nrcpus online : {on}"));
        f.push("nrcpus", format!("# nrcpus avail : {av}"));
    }
    f.push("cpudesc", format!("# cpudesc : {}", opt(&s.cpu_desc)));
    if s.cpuid.is_some() {
        f.push("cpuid", format!("# cpuid : {}", opt(&s.cpuid)));
    }
    if let Some(m) = s.total_mem_kb {
        f.push("total memory", format!("# total memory : {m} kB"));
    }
    if let Some(args) = &s.cmdline_args {
        let text: String = args
            .iter()
            .map(|a| format!("{} ", a.replace('\'', "\\'")))
            .collect();
        f.push("cmdline", format!("# cmdline : {text}"));
    }
    for e in &s.events {
        let ids: Vec<String> = e.sample_ids.iter().map(ToString::to_string).collect();
        let ids = if ids.is_empty() {
            String::new()
        } else {
            format!(", id = {{ {} }}", ids.join(", "))
        };
        let attr = if e.attr.is_empty() {
            String::new()
        } else {
            format!(", {}", e.attr)
        };
        f.push("event", format!("# event : name = {}, {ids}{attr}", e.name));
    }
    if let Some(t) = &s.cpu_topology {
        for v in &t.sibling_sockets {
            f.push("cpu topology", format!("# sibling sockets : {v}"));
        }
        for v in t.sibling_dies.iter().flatten() {
            f.push("cpu topology", format!("# sibling dies    : {v}"));
        }
        for v in &t.sibling_threads {
            f.push("cpu topology", format!("# sibling threads : {v}"));
        }
        match &t.cpus {
            Some(cpus) => {
                for c in cpus {
                    let line = match c.die_id {
                        Some(d) => format!(
                            "# CPU {}: Core ID {}, Die ID {d}, Socket ID {}",
                            c.cpu, c.core_id, c.socket_id
                        ),
                        None => format!(
                            "# CPU {}: Core ID {}, Socket ID {}",
                            c.cpu, c.core_id, c.socket_id
                        ),
                    };
                    f.push("cpu topology", line);
                }
            }
            None => f.push(
                "cpu topology",
                "# Core ID and Socket ID information is not available".into(),
            ),
        }
    }
    for n in &s.numa_nodes {
        f.push(
            "numa",
            format!(
                "# node{} meminfo  : total = {} kB, free = {} kB",
                n.node, n.mem_total_kb, n.mem_free_kb
            ),
        );
        f.push("numa", format!("# node{} cpu list : {}", n.node, n.cpus));
    }
    if s.branch_stack {
        f.push(
            "branch stack",
            "# contains samples with branch stack".into(),
        );
    }
    if s.auxtrace_index_entries.is_some() || s.features.iter().any(|x| x == "AUXTRACE") {
        f.push(
            "auxtrace",
            "# contains AUX area data (e.g. instruction trace)".into(),
        );
    }
    if s.stat {
        f.push("stat", "# contains stat data".into());
    }
    if s.features.iter().any(|x| x == "PMU_MAPPINGS") {
        let m: Vec<String> = s
            .pmu_mappings
            .iter()
            .map(|m| format!("{} = {}", m.name, m.type_))
            .collect();
        let text = if m.is_empty() {
            "not available".into()
        } else {
            m.join(", ")
        };
        f.push("pmu mappings", format!("# pmu mappings: {text}"));
    }
    for g in &s.groups {
        if g.nr_members > 1 {
            f.push(
                "group",
                format!(
                    "# group: {}{{{}}}",
                    g.name.clone().unwrap_or_default(),
                    g.members.join(",")
                ),
            );
        }
    }
    if s.features.iter().any(|x| x == "CACHE") {
        f.push("caches", "# CPU cache info:".into());
        for c in &s.caches {
            f.push(
                "caches",
                format!("#  L{} {:<15} {:>8} [{}]", c.level, c.type_, c.size, c.map),
            );
        }
    }
    if let Some(t) = &s.sample_time {
        f.push(
            "sample time",
            format!("# time of first sample : {}", usec(t.first_ns)),
        );
        f.push(
            "sample time",
            format!("# time of last sample : {}", usec(t.last_ns)),
        );
        let ms = t.last_ns.wrapping_sub(t.first_ns) as f64 / 1e6;
        f.push("sample time", format!("# sample duration : {ms:10.3} ms"));
    }
    if let Some(m) = &s.memory_topology {
        f.push(
            "memory",
            format!(
                "# memory nodes (nr {}, block size 0x{:x}):",
                m.nodes.len(),
                m.block_size
            ),
        );
        for n in &m.nodes {
            f.push(
                "memory",
                format!("#  {:3} [{}]: {}", n.node, unit_number(n.bytes), n.map),
            );
        }
    }
    if let Some(r) = s.clockid_res_ns {
        f.push(
            "clockid",
            format!("# clockid frequency: {} MHz", r.wrapping_mul(1000)),
        );
    }
    if let Some(c) = &s.clock_data {
        let name = c
            .clockid_name
            .clone()
            .unwrap_or_else(|| "(not found)".into());
        f.push("clock data", format!("# clockid: {name} ({})", c.clockid));
        // The date part depends on the time zone of the machine that ran perf: compare the rest.
        let rest = format!(
            " = {} (TOD) = {}.{:09} ({name})",
            usec(c.tod_ns),
            c.clockid_ns / 1_000_000_000,
            c.clockid_ns % 1_000_000_000
        );
        f.push("clock data", format!("# reference time: <date>{rest}"));
    }
    if let Some(v) = s.dir_format_version {
        f.push("dir format", format!("# directory data version : {v}"));
    }
    if let Some(c) = &s.compressed {
        let t = if c.type_name == "zstd" {
            "Zstd"
        } else {
            "Unknown"
        };
        f.push(
            "compressed",
            format!(
                "# compressed : {t}, level = {}, ratio = {}",
                c.level, c.ratio
            ),
        );
    }
    let caps = |v: &[perfscope_analysis::feature_summary::PmuCapSummary]| {
        if v.is_empty() {
            "not available".to_string()
        } else {
            v.iter()
                .map(|c| format!("{}={}", c.name, c.value))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    if let Some(c) = &s.cpu_pmu_caps {
        f.push(
            "cpu pmu caps",
            format!("# cpu pmu capabilities: {}", caps(c)),
        );
    }
    for p in &s.pmu_caps {
        f.push(
            "pmu caps",
            format!("# {} pmu capabilities: {}", p.pmu_name, caps(&p.caps)),
        );
    }
    if !s.hybrid_topology.is_empty() {
        f.push("hybrid", "# hybrid cpu system:".into());
        for n in &s.hybrid_topology {
            f.push("hybrid", format!("# {} cpu list : {}", n.pmu_name, n.cpus));
        }
    }
    if !s.pipe_mode {
        let have: BTreeSet<&str> = s.features.iter().map(String::as_str).collect();
        let missing: String = PERF_6_1_FEATURES
            .iter()
            .filter(|n| !have.contains(*n))
            .map(|n| format!("{n} "))
            .collect();
        f.push("missing features", format!("# missing features: {missing}"));
    }
    f
}

/// The fact an oracle line belongs to, if it is one we compare.
pub fn fact_of(line: &str) -> Option<&'static str> {
    let l = line.strip_prefix("# ")?;
    let starts = |p: &str| l.starts_with(p);
    Some(match () {
        _ if starts("data offset") || starts("data size") || starts("feat offset") => {
            "data section"
        }
        _ if starts("hostname :") => "hostname",
        _ if starts("os release :") => "os release",
        _ if starts("perf version :") => "perf version",
        _ if starts("arch :") => "arch",
        _ if starts("nrcpus ") => "nrcpus",
        _ if starts("cpudesc :") => "cpudesc",
        _ if starts("cpuid :") => "cpuid",
        _ if starts("total memory :") => "total memory",
        _ if starts("cmdline :") => "cmdline",
        _ if starts("event :") => "event",
        _ if starts("sibling ")
            || starts("CPU ") && l.contains(": Core ID")
            || starts("Core ID") =>
        {
            "cpu topology"
        }
        _ if starts("node") => "numa",
        _ if starts("contains samples with branch stack") => "branch stack",
        _ if starts("contains AUX area data") => "auxtrace",
        _ if starts("contains stat data") => "stat",
        _ if starts("pmu mappings:") => "pmu mappings",
        _ if starts("group:") => "group",
        _ if starts("CPU cache info:") || starts(" L") => "caches",
        _ if starts("time of ") || starts("sample duration") => "sample time",
        _ if starts("memory nodes") || starts("  ") && l.contains("]: ") => "memory",
        _ if starts("clockid frequency:") => "clockid",
        _ if starts("clockid:") || starts("reference time:") => "clock data",
        _ if starts("directory data version") => "dir format",
        _ if starts("compressed :") => "compressed",
        _ if starts("cpu pmu capabilities:") => "cpu pmu caps",
        _ if l.contains(" pmu capabilities:") => "pmu caps",
        _ if starts("hybrid cpu system:") || l.contains(" cpu list : ") => "hybrid",
        _ if starts("missing features:") => "missing features",
        _ => return None,
    })
}

/// The oracle line with what we cannot reproduce normalized (the local date of the reference
/// time).
pub fn normalize(line: &str) -> String {
    if let Some(rest) = line.strip_prefix("# reference time: ") {
        if let Some(eq) = rest.find(" = ") {
            return format!("# reference time: <date>{}", &rest[eq..]);
        }
    }
    line.trim_end_matches('\n').to_string()
}
