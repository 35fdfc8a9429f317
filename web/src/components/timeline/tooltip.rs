//! What the timeline's tooltip says about the point under the pointer: the lane, the bin's time
//! range, its samples (and the selected function's), on/off-CPU shares, and the markers there.
//! Pure: tested natively.

use super::layout::{Row, RowKind, TimeScale};
use crate::display::duration_ns;
use crate::protocol::timeline::off_state;
use crate::protocol::{MarkerKind, Overview, Query, TimelineReply};

/// The tooltip's lines for the point `(x, y)` (CSS px on the canvas); `None` off the lanes.
/// `func` names the highlighted function.
pub fn lines(
    o: &Overview,
    rows: &[Row],
    scale: &TimeScale,
    d: &TimelineReply,
    x: f64,
    y: f64,
    func: Option<&str>,
) -> Option<Vec<String>> {
    let row = rows.iter().find(|r| y >= r.y && y < r.y + r.h)?;
    let threads = o.threads.len();
    let (lane, label) = match row.kind {
        RowKind::Thread(l) => (
            l as usize,
            o.threads
                .get(l as usize)
                .map(|t| format!("{} {}/{}", t.name, t.pid, t.tid))?,
        ),
        RowKind::Cpu(i) => (
            threads + i as usize,
            o.cpus.get(i as usize).map(|c| format!("CPU {}", c.cpu))?,
        ),
        _ => return None,
    };
    let Some(Query::Timeline { start, end, .. }) = d.meta.query else {
        return None;
    };
    let t = scale.time(x);
    if t < start || t > end {
        return None;
    }
    let bins = u64::from(d.meta.bins.max(1));
    let span = u128::from(end - start) + 1;
    let k = ((u128::from(t - start) + 1) * u128::from(bins))
        .div_ceil(span)
        .saturating_sub(1)
        .min(u128::from(bins - 1)) as usize;
    let edge = |k: usize| start.saturating_add((span * k as u128 / u128::from(bins)) as u64);
    let origin = o.sample_range.map_or(0, |r| r.0);
    let at = lane * bins as usize + k;
    let mut out = vec![
        label,
        format!(
            "+{} – +{}",
            duration_ns(edge(k).saturating_sub(origin)),
            duration_ns(edge(k + 1).saturating_sub(origin))
        ),
    ];
    let n = d.counts.get(at).copied().unwrap_or(0);
    let mut samples = format!("{n} sample{}", if n == 1 { "" } else { "s" });
    if let (Some(h), Some(name)) = (d.detail.highlight.get(at), func) {
        samples.push_str(&format!(" · {h} in {name}"));
    }
    out.push(samples);
    let det = &d.detail;
    if let (Some(&on), Some(&off), Some(&st)) = (
        det.on_cpu.get(at),
        det.off_cpu.get(at),
        det.off_state.get(at),
    ) {
        let pct = |v: u8| (f64::from(v) / 2.55).round();
        let (what_on, what_off) = if matches!(row.kind, RowKind::Cpu(_)) {
            ("busy", "idle")
        } else {
            ("on-CPU", "off-CPU")
        };
        let state = if matches!(row.kind, RowKind::Thread(_)) && off > 0 {
            format!(
                " ({})",
                off_state::NAMES.get(usize::from(st)).copied().unwrap_or("")
            )
        } else {
            String::new()
        };
        out.push(format!(
            "{what_on} {}% · {what_off} {}%{state}",
            pct(on),
            pct(off)
        ));
    }
    // Markers of this lane within a bin of the pointer, and the recording's own (no CPU).
    for i in 0..det.markers() {
        let (Some(&ml), Some(&mb)) = (det.marker_lane.get(i), det.marker_bin.get(i)) else {
            continue;
        };
        if (ml as usize != lane && ml != u32::MAX) || (mb as usize).abs_diff(k) > 1 {
            continue;
        }
        let Some(kind) = det.marker_kind.get(i).and_then(|&v| MarkerKind::from_u8(v)) else {
            continue;
        };
        let records = det.marker_records.get(i).copied().unwrap_or(0);
        let count = det.marker_count.get(i).copied().unwrap_or(0);
        out.push(match kind {
            MarkerKind::Lost => format!(
                "PERF_RECORD_LOST ×{records}: {count} event{} lost",
                if count == 1 { "" } else { "s" }
            ),
            MarkerKind::LostSamples => format!(
                "PERF_RECORD_LOST_SAMPLES ×{records}: {count} sample{} lost",
                if count == 1 { "" } else { "s" }
            ),
            MarkerKind::Throttle | MarkerKind::Unthrottle => {
                format!("PERF_RECORD_{} ×{records}", kind.label())
            }
            MarkerKind::Tracepoint => {
                let name = det
                    .marker_event
                    .get(i)
                    .and_then(|&e| o.events.get(e as usize))
                    .map_or("tracepoint", |e| e.name.as_str());
                format!("{name} ×{records}")
            }
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::timeline::layout::{rows, GUTTER};
    use crate::protocol::{
        CpuInfo, EventInfo, ProcessInfo, ThreadInfo, TimelineDetail, TimelineMeta,
    };

    #[test]
    fn says_what_is_in_the_bin_under_the_pointer() {
        let o = Overview {
            threads: vec![ThreadInfo {
                pid: 5,
                tid: 6,
                name: "w".into(),
                samples: 3,
                first: 0,
                last: 99,
            }],
            processes: vec![ProcessInfo {
                pid: 5,
                threads: vec![0],
                name: "w".into(),
                samples: 3,
            }],
            cpus: vec![CpuInfo { cpu: 1, samples: 3 }],
            events: vec![EventInfo {
                name: "sched:sched_switch".into(),
                ..EventInfo::default()
            }],
            sample_range: Some((0, 99)),
            ..Overview::default()
        };
        let r = rows(&o);
        let scale = TimeScale {
            start: 0,
            end: 99,
            width: GUTTER + 100.0,
        };
        let d = TimelineReply {
            meta: TimelineMeta {
                query: Some(Query::Timeline {
                    start: 0,
                    end: 99,
                    bins: 4,
                    event: None,
                    func: Some(0),
                }),
                lanes: 2,
                bins: 4,
                ..TimelineMeta::default()
            },
            counts: vec![0, 2, 0, 1, 0, 2, 0, 1],
            detail: TimelineDetail {
                highlight: vec![0, 1, 0, 0, 0, 1, 0, 0],
                on_cpu: vec![0, 64, 0, 0, 0, 255, 0, 0],
                off_cpu: vec![0, 191, 0, 0, 0, 0, 0, 0],
                off_state: vec![0, 2, 0, 0, 0, 0, 0, 0],
                marker_lane: vec![0, 1],
                marker_bin: vec![1, 3],
                marker_kind: vec![MarkerKind::Tracepoint as u8, MarkerKind::Lost as u8],
                marker_event: vec![0, u32::MAX],
                marker_records: vec![2, 1],
                marker_count: vec![2, 23],
            },
        };
        // The thread's row (a solo process row) at bin 1 (25..50 ns).
        let thread_row = r.iter().find(|r| r.kind == RowKind::Thread(0)).unwrap();
        let l = lines(
            &o,
            &r,
            &scale,
            &d,
            GUTTER + 30.0,
            thread_row.y + 2.0,
            Some("leaf"),
        )
        .unwrap();
        assert_eq!(
            l,
            vec![
                "w 5/6",
                "+25 ns – +50 ns",
                "2 samples · 1 in leaf",
                "on-CPU 25% · off-CPU 75% (sleeping (S))",
                "sched:sched_switch ×2"
            ]
        );
        let cpu_row = r.iter().find(|r| r.kind == RowKind::Cpu(0)).unwrap();
        let l = lines(&o, &r, &scale, &d, GUTTER + 80.0, cpu_row.y + 2.0, None).unwrap();
        assert_eq!(
            l,
            vec![
                "CPU 1",
                "+75 ns – +100 ns",
                "1 sample",
                "busy 0% · idle 0%",
                "PERF_RECORD_LOST ×1: 23 events lost"
            ]
        );
        assert_eq!(lines(&o, &r, &scale, &d, GUTTER + 80.0, 1.0, None), None);
    }
}
