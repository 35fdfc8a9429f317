//! The header features that are tables: CPU topology, NUMA, caches, memory, PMUs, groups,
//! build ids, clocks, compression, BPF, hybrid CPUs, tracing data and unknown features.

use perfscope_analysis::summary::Summary;
use yew::prelude::*;

use crate::display::{grouped, human_bytes, mem_kb, perf_time};
use crate::state::shared::Shared;

/// A small table: `headers` and rows of cells.
fn table(field: &str, headers: &[&str], rows: Vec<Vec<String>>) -> Html {
    html! {
        <table class="feature-table" data-field={field.to_string()}>
            <thead><tr>{ for headers.iter().map(|h| html! { <th>{ *h }</th> }) }</tr></thead>
            <tbody>
                { for rows.into_iter().map(|r| html! { <tr>{ for r.into_iter().map(|c| html! { <td>{ c }</td> }) }</tr> }) }
            </tbody>
        </table>
    }
}

/// A card with a title (the perf feature name as a tooltip) around `body`.
fn card(id: &str, title: &str, feature: &str, body: Html) -> Html {
    html! {
        <section class="card" id={id.to_string()}>
            <h2 title={feature.to_string()}>{ title }</h2>
            { body }
        </section>
    }
}

fn list(items: &[String]) -> String {
    items.join(" · ")
}

/// Properties of [`FeatureTables`].
#[derive(Properties, PartialEq)]
pub struct FeatureTablesProps {
    /// The summary.
    pub summary: Shared<Summary>,
}

/// One card per present table-like feature.
#[function_component(FeatureTables)]
pub fn feature_tables(props: &FeatureTablesProps) -> Html {
    let s = &*props.summary;
    let mut cards = Vec::new();
    if let Some(t) = &s.cpu_topology {
        let mut rows = vec![
            vec!["Sockets (core siblings)".into(), list(&t.sibling_sockets)],
            vec!["Threads (thread siblings)".into(), list(&t.sibling_threads)],
        ];
        if let Some(d) = &t.sibling_dies {
            rows.insert(1, vec!["Dies".into(), list(d)]);
        }
        let mut body = vec![table("cpu-topology", &["Level", "CPU lists"], rows)];
        if let Some(cpus) = &t.cpus {
            let rows = cpus
                .iter()
                .map(|c| {
                    vec![
                        c.cpu.to_string(),
                        c.core_id.to_string(),
                        c.socket_id.to_string(),
                        c.die_id.map(|d| d.to_string()).unwrap_or_default(),
                    ]
                })
                .collect();
            body.push(table("cpu-ids", &["CPU", "Core", "Socket", "Die"], rows));
        }
        cards.push(card(
            "topology-card",
            "CPU topology",
            "HEADER_CPU_TOPOLOGY",
            html! { <>{ for body }</> },
        ));
    }
    if !s.numa_nodes.is_empty() {
        let rows = s
            .numa_nodes
            .iter()
            .map(|n| {
                vec![
                    n.node.to_string(),
                    mem_kb(n.mem_total_kb),
                    mem_kb(n.mem_free_kb),
                    n.cpus.clone(),
                ]
            })
            .collect();
        cards.push(card(
            "numa-card",
            "NUMA nodes",
            "HEADER_NUMA_TOPOLOGY",
            table("numa", &["Node", "Memory", "Free", "CPUs"], rows),
        ));
    }
    if !s.caches.is_empty() {
        let rows = s
            .caches
            .iter()
            .map(|c| {
                vec![
                    format!("L{}", c.level),
                    c.type_.clone(),
                    c.size.clone(),
                    c.line_size.to_string(),
                    c.ways.to_string(),
                    c.sets.to_string(),
                    c.map.clone(),
                ]
            })
            .collect();
        cards.push(card(
            "caches-card",
            "Caches",
            "HEADER_CACHE",
            table(
                "caches",
                &[
                    "Level",
                    "Type",
                    "Size",
                    "Line",
                    "Ways",
                    "Sets",
                    "Shared by CPUs",
                ],
                rows,
            ),
        ));
    }
    if let Some(m) = &s.memory_topology {
        let rows = m
            .nodes
            .iter()
            .map(|n| {
                vec![
                    n.node.to_string(),
                    human_bytes(n.bytes),
                    grouped(n.blocks),
                    n.map.clone(),
                ]
            })
            .collect();
        let body = html! { <>
            <p class="muted small">{ format!("Block size {}", human_bytes(m.block_size)) }</p>
            { table("memory-topology", &["Node", "Size", "Blocks", "Block map"], rows) }
        </> };
        cards.push(card(
            "memory-card",
            "Memory topology",
            "HEADER_MEM_TOPOLOGY",
            body,
        ));
    }
    if !s.pmu_mappings.is_empty() {
        let rows = s
            .pmu_mappings
            .iter()
            .map(|p| vec![p.type_.to_string(), p.name.clone()])
            .collect();
        cards.push(card(
            "pmus-card",
            "PMUs",
            "HEADER_PMU_MAPPINGS",
            table("pmu-mappings", &["Type", "Name"], rows),
        ));
    }
    if !s.pmu_caps.is_empty() || s.cpu_pmu_caps.as_ref().is_some_and(|c| !c.is_empty()) {
        let mut rows: Vec<Vec<String>> = s
            .cpu_pmu_caps
            .iter()
            .flatten()
            .map(|c| vec!["cpu".into(), c.name.clone(), c.value.clone()])
            .collect();
        for p in &s.pmu_caps {
            rows.extend(
                p.caps
                    .iter()
                    .map(|c| vec![p.pmu_name.clone(), c.name.clone(), c.value.clone()]),
            );
        }
        cards.push(card(
            "pmu-caps-card",
            "PMU capabilities",
            "HEADER_PMU_CAPS",
            table("pmu-caps", &["PMU", "Capability", "Value"], rows),
        ));
    }
    if !s.hybrid_topology.is_empty() {
        let rows = s
            .hybrid_topology
            .iter()
            .map(|h| vec![h.pmu_name.clone(), h.cpus.clone()])
            .collect();
        cards.push(card(
            "hybrid-card",
            "Hybrid CPUs",
            "HEADER_HYBRID_TOPOLOGY",
            table("hybrid", &["PMU", "CPUs"], rows),
        ));
    }
    if !s.groups.is_empty() {
        let rows = s
            .groups
            .iter()
            .map(|g| {
                vec![
                    g.name.clone().unwrap_or_else(|| "(anonymous)".into()),
                    g.leader_idx.to_string(),
                    g.members.join(", "),
                ]
            })
            .collect();
        cards.push(card(
            "groups-card",
            "Event groups",
            "HEADER_GROUP_DESC",
            table("groups", &["Group", "Leader", "Members"], rows),
        ));
    }
    let mut clock_rows = Vec::new();
    if let Some(t) = &s.sample_time {
        clock_rows.push(vec![
            "First sample".into(),
            format!("{} s", perf_time(t.first_ns)),
        ]);
        clock_rows.push(vec![
            "Last sample".into(),
            format!("{} s", perf_time(t.last_ns)),
        ]);
        clock_rows.push(vec![
            "Duration".into(),
            crate::display::duration_ns(t.last_ns.saturating_sub(t.first_ns)),
        ]);
    }
    if let Some(c) = &s.clock_data {
        let name = c
            .clockid_name
            .clone()
            .unwrap_or_else(|| c.clockid.to_string());
        clock_rows.push(vec!["Clock".into(), name]);
        clock_rows.push(vec!["Wall clock at reference".into(), wall_clock(c.tod_ns)]);
        if let Some(t) = &s.sample_time {
            let at = |ns: u64| wall_clock(c.tod_ns.saturating_add(ns.saturating_sub(c.clockid_ns)));
            clock_rows.push(vec!["First sample (wall clock)".into(), at(t.first_ns)]);
        }
    }
    if let Some(r) = s.clockid_res_ns {
        clock_rows.push(vec!["Clock resolution".into(), format!("{r} ns")]);
    }
    if !clock_rows.is_empty() {
        cards.push(card(
            "time-card",
            "Time",
            "HEADER_SAMPLE_TIME, HEADER_CLOCK_DATA, HEADER_CLOCKID",
            table("time", &["", ""], clock_rows),
        ));
    }
    if let Some(c) = &s.compressed {
        let rows = vec![vec![
            c.type_name.clone(),
            c.level.to_string(),
            format!("{}×", c.ratio),
            human_bytes(u64::from(c.mmap_len)),
        ]];
        cards.push(card(
            "compressed-card",
            "Compression",
            "HEADER_COMPRESSED",
            table("compressed", &["Method", "Level", "Ratio", "Buffer"], rows),
        ));
    }
    if !s.build_ids.is_empty() {
        cards.push(card(
            "buildids-card",
            "Build ids",
            "HEADER_BUILD_ID",
            html! { <BuildIds summary={props.summary.clone()} /> },
        ));
    }
    if !s.bpf_progs.is_empty() || !s.bpf_btfs.is_empty() {
        let mut rows: Vec<Vec<String>> = s
            .bpf_progs
            .iter()
            .map(|p| {
                let opt = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_default();
                vec![
                    "prog".into(),
                    opt(p.id),
                    p.name.clone().unwrap_or_default(),
                    p.tag.clone().unwrap_or_default(),
                    opt(p.jited_prog_len),
                ]
            })
            .collect();
        rows.extend(s.bpf_btfs.iter().map(|b| {
            vec![
                "btf".into(),
                b.id.to_string(),
                String::new(),
                String::new(),
                b.size.to_string(),
            ]
        }));
        cards.push(card(
            "bpf-card",
            "BPF",
            "HEADER_BPF_PROG_INFO, HEADER_BPF_BTF",
            table("bpf", &["Kind", "Id", "Name", "Tag", "Size"], rows),
        ));
    }
    if let Some(t) = &s.tracing_data {
        let rows = t
            .events
            .iter()
            .map(|(name, id)| vec![name.clone(), id.map(|i| i.to_string()).unwrap_or_default()])
            .collect();
        let body = html! { <>
            <p class="muted small">{ format!("version {} · {}", t.version, human_bytes(t.size)) }
                { t.error.clone().map(|e| format!(" · {e}")).unwrap_or_default() }</p>
            { table("tracing-events", &["Tracepoint", "Id"], rows) }
        </> };
        cards.push(card(
            "tracing-card",
            "Tracing data",
            "HEADER_TRACING_DATA",
            body,
        ));
    }
    let mut misc = Vec::new();
    if let Some(n) = s.auxtrace_index_entries {
        misc.push(vec!["AUX trace index entries".into(), n.to_string()]);
    }
    if let Some(v) = s.dir_format_version {
        misc.push(vec!["Directory format version".into(), v.to_string()]);
    }
    if s.branch_stack {
        misc.push(vec!["Branch stacks".into(), "recorded".into()]);
    }
    if s.stat {
        misc.push(vec!["perf stat record".into(), "yes".into()]);
    }
    for u in &s.unknown_features {
        misc.push(vec![
            format!("Unknown feature {}", u.id),
            format!("{} bytes", grouped(u.size)),
        ]);
    }
    if !misc.is_empty() {
        cards.push(card(
            "misc-card",
            "Other features",
            "",
            table("misc-features", &["", ""], misc),
        ));
    }
    html! { <div class="grid features-grid">{ for cards }</div> }
}

/// A wall-clock time in ns since the epoch as `2026-11-23 12:30:54.123456789 UTC`.
pub fn wall_clock(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:09} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        ns % 1_000_000_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_clock_dates() {
        assert_eq!(wall_clock(0), "1970-01-01 00:00:00.000000000 UTC");
        // 2000-03-01 00:00:00 UTC = 951868800 s.
        assert_eq!(
            wall_clock(951_868_800_000_000_001),
            "2000-03-01 00:00:00.000000001 UTC"
        );
        // 2024-02-29 12:34:56 UTC = 1709210096 s.
        assert_eq!(
            wall_clock(1_709_210_096_500_000_000),
            "2024-02-29 12:34:56.500000000 UTC"
        );
    }
}

/// Rows of the build-id table shown before "Show all". A system-wide recording lists every
/// binary that ran (99 rows on big300-g: more than half of the summary's elements while the
/// file loads, and its render is what the summary waits for).
const BUILD_ID_ROWS: usize = 20;

/// The build-id table: the first [`BUILD_ID_ROWS`] until "Show all".
#[function_component(BuildIds)]
fn build_ids(props: &FeatureTablesProps) -> Html {
    let ids = &props.summary.build_ids;
    let all = use_state_eq(|| false);
    let shown = if *all {
        ids.len()
    } else {
        BUILD_ID_ROWS.min(ids.len())
    };
    let rows = ids
        .iter()
        .take(shown)
        .map(|b| {
            vec![
                b.filename.clone(),
                b.build_id.clone(),
                b.cpumode.clone(),
                b.pid.to_string(),
            ]
        })
        .collect();
    let show_all = {
        let all = all.clone();
        Callback::from(move |_| all.set(true))
    };
    html! {
        <>
            { table("build-ids", &["File", "Build id", "Mode", "PID"], rows) }
            if shown < ids.len() {
                <p class="more-rows" data-field="build-ids-more">
                    { format!("The first {shown} of {} build ids. ", ids.len()) }
                    <button type="button" class="link" id="show-all-build-ids" onclick={show_all}>{ "Show all" }</button>
                </p>
            }
        </>
    }
}
