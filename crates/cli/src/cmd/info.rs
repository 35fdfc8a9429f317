//! `perfscope info`: every header fact of a perf.data, like `perf report --header-only -I`
//! (the same facts, our own layout), or the [`Summary`] as JSON.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::summary::Summary;

use super::input::Input;

/// Arguments of `perfscope info`.
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// Runs `perfscope info`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let input = Input::read(&args.file)?;
    let s = Summary::from_bytes(&input.bytes);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", text(&args.file.display().to_string(), &s));
    }
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(e) = &s.error {
        eprintln!("error: {}: {e}", args.file.display());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// perf's `timestamp__scnprintf_usec`: seconds with 6 decimals.
fn usec(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// perf's `unit_number__scnprintf`: 24G, 512M, …
fn unit_number(mut n: u64) -> String {
    let units = ['B', 'K', 'M', 'G'];
    let mut i = 0;
    while n / 1024 > 1 && i < 3 {
        n /= 1024;
        i += 1;
    }
    format!("{n}{}", units.get(i).unwrap_or(&'?'))
}

/// The whole report as text.
fn text(name: &str, s: &Summary) -> String {
    let mut o = String::new();
    let mut line = |k: &str, v: &dyn std::fmt::Display| {
        let _ = writeln!(o, "{k:<16}: {v}");
    };
    line("file", &format!("{name} ({} bytes)", s.file_size));
    if s.byte_order.is_empty() {
        return o;
    }
    line("byte order", &s.byte_order);
    line("mode", &if s.pipe_mode { "pipe" } else { "file" });
    if let Some(a) = s.attr_size {
        line("attr size", &a);
    }
    line(
        "data",
        &format!("{} bytes at 0x{:x}", s.data_size, s.data_offset),
    );
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let num = |v: Option<u32>| v.map_or_else(|| "-".into(), |v| v.to_string());
    line("hostname", &opt(&s.hostname));
    line("os release", &opt(&s.os_release));
    line("perf version", &opt(&s.perf_version));
    line("arch", &opt(&s.arch));
    line("nrcpus online", &num(s.nr_cpus_online));
    line("nrcpus avail", &num(s.nr_cpus_available));
    line("cpudesc", &opt(&s.cpu_desc));
    line("cpuid", &opt(&s.cpuid));
    if let Some(m) = s.total_mem_kb {
        line("total memory", &format!("{m} kB"));
    }
    line("cmdline", &opt(&s.cmdline));
    for e in &s.events {
        let ids: Vec<String> = e.sample_ids.iter().map(ToString::to_string).collect();
        line(
            "event",
            &format!(
                "name = {} ({}), id = {{ {} }}, {}",
                e.name,
                e.name_source,
                ids.join(", "),
                e.attr
            ),
        );
    }
    if let Some(t) = &s.cpu_topology {
        for v in &t.sibling_sockets {
            line("sibling sockets", v);
        }
        for v in t.sibling_dies.iter().flatten() {
            line("sibling dies", v);
        }
        for v in &t.sibling_threads {
            line("sibling threads", v);
        }
        match &t.cpus {
            Some(cpus) => {
                for c in cpus {
                    let die = c.die_id.map(|d| format!("die {d}, ")).unwrap_or_default();
                    line(
                        &format!("CPU {}", c.cpu),
                        &format!("core {}, {die}socket {}", c.core_id, c.socket_id),
                    );
                }
            }
            None => line("CPU ids", &"not in the file"),
        }
    }
    for n in &s.numa_nodes {
        line(
            &format!("node{}", n.node),
            &format!(
                "total {} kB, free {} kB, cpus {}",
                n.mem_total_kb, n.mem_free_kb, n.cpus
            ),
        );
    }
    if s.branch_stack {
        line("branch stack", &"samples have branch stacks");
    }
    if !s.pmu_mappings.is_empty() {
        let m: Vec<String> = s
            .pmu_mappings
            .iter()
            .map(|m| format!("{} = {}", m.name, m.type_))
            .collect();
        line("pmu mappings", &m.join(", "));
    }
    for g in &s.groups {
        line(
            "group",
            &format!(
                "{}{{{}}}",
                g.name.clone().unwrap_or_default(),
                g.members.join(",")
            ),
        );
    }
    if let Some(n) = s.auxtrace_index_entries {
        line("auxtrace", &format!("AUX area data, index of {n} entries"));
    }
    if s.stat {
        line("stat", &"perf stat record data");
    }
    for c in &s.caches {
        line(
            "cache",
            &format!("L{} {:<15} {:>8} [{}]", c.level, c.type_, c.size, c.map),
        );
    }
    if let Some(t) = &s.sample_time {
        let ms = t.last_ns.saturating_sub(t.first_ns) as f64 / 1e6;
        line(
            "sample time",
            &format!(
                "first {}, last {}, duration {ms:.3} ms",
                usec(t.first_ns),
                usec(t.last_ns)
            ),
        );
    }
    if let Some(m) = &s.memory_topology {
        line(
            "memory nodes",
            &format!("nr {}, block size 0x{:x}", m.nodes.len(), m.block_size),
        );
        for n in &m.nodes {
            line(
                &format!("memory node{}", n.node),
                &format!("[{}]: {}", unit_number(n.bytes), n.map),
            );
        }
    }
    if let Some(r) = s.clockid_res_ns {
        line("clock resolution", &format!("{r} ns"));
    }
    if let Some(c) = &s.clock_data {
        let name = c.clockid_name.clone().unwrap_or_else(|| "unknown".into());
        line("clockid", &format!("{name} ({})", c.clockid));
        line(
            "reference time",
            &format!(
                "{} (TOD) = {}.{:09} ({name})",
                usec(c.tod_ns),
                c.clockid_ns / 1_000_000_000,
                c.clockid_ns % 1_000_000_000
            ),
        );
    }
    if let Some(v) = s.dir_format_version {
        line("directory data", &format!("version {v}"));
    }
    if let Some(c) = &s.compressed {
        line(
            "compressed",
            &format!("{}, level = {}, ratio = {}", c.type_name, c.level, c.ratio),
        );
    }
    if let Some(caps) = &s.cpu_pmu_caps {
        let c: Vec<String> = caps
            .iter()
            .map(|c| format!("{}={}", c.name, c.value))
            .collect();
        line("cpu pmu caps", &c.join(", "));
    }
    for p in &s.pmu_caps {
        let c: Vec<String> = p
            .caps
            .iter()
            .map(|c| format!("{}={}", c.name, c.value))
            .collect();
        line(&format!("{} pmu caps", p.pmu_name), &c.join(", "));
    }
    for n in &s.hybrid_topology {
        line(&format!("{} cpus", n.pmu_name), &n.cpus);
    }
    for p in &s.bpf_progs {
        let id = p.id.map_or_else(|| "?".into(), |i| i.to_string());
        let name = p
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .map(|n| format!("_{n}"))
            .unwrap_or_default();
        let len = p
            .jited_prog_len
            .map(|l| format!(", {l} bytes of code"))
            .unwrap_or_default();
        line(
            "bpf prog",
            &format!(
                "{id}: bpf_prog_{}{name}{len}",
                p.tag.clone().unwrap_or_default()
            ),
        );
    }
    for b in &s.bpf_btfs {
        line("btf", &format!("id {} ({} bytes)", b.id, b.size));
    }
    if let Some(d) = &s.cpu_domain_info {
        line(
            "schedstat",
            &format!(
                "version {}, max sched domains {}",
                d.schedstat_version, d.max_sched_domains
            ),
        );
        for (cpu, domains) in &d.cpus {
            for dom in domains {
                let name = dom
                    .name
                    .clone()
                    .map(|n| format!(" {n}"))
                    .unwrap_or_default();
                line(
                    &format!("cpu{cpu} domain{}", dom.domain),
                    &format!("{name} {} [{}]", dom.cpumask, dom.cpulist),
                );
            }
        }
    }
    if let Some(t) = &s.tracing_data {
        line(
            "tracing data",
            &format!(
                "version {}, {} bytes, {} event formats",
                t.version,
                t.size,
                t.events.len()
            ),
        );
        for (name, id) in &t.events {
            line(
                "  tracepoint",
                &format!(
                    "{name} (id {})",
                    id.map_or_else(|| "?".into(), |i| i.to_string())
                ),
            );
        }
    }
    for b in &s.build_ids {
        line(
            "build id",
            &format!(
                "{} {} ({}, pid {})",
                b.build_id, b.filename, b.cpumode, b.pid
            ),
        );
    }
    for u in &s.unknown_features {
        line("unknown feature", &format!("{} ({} bytes)", u.id, u.size));
    }
    line("features", &s.features.join(" "));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_number_formats() {
        assert_eq!(usec(3_938_996_551_234), "3938.996551");
        assert_eq!(usec(0), "0.000000");
        assert_eq!(unit_number(192 * 0x800_0000), "24G");
        assert_eq!(unit_number(1536), "1536B");
        assert_eq!(unit_number(2048), "2K");
    }
}
