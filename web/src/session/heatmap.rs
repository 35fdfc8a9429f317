//! The sub-second heatmap (FlameScope's view): a column per second from the first sample, a row
//! per `1e9 / rows` ns of the second, each cell the number of samples taken then.

use perfscope_analysis::profile::Profile;

use super::events::EventMap;
use super::timeline::Timeline;
use super::tree::sample_filter;
use crate::protocol::timeline::MAX_COLUMNS;
use crate::protocol::{Filter, HeatmapMeta, HeatmapReply};

/// Rows per second are kept within this.
pub const MAX_ROWS: u32 = 1000;

/// Counts the samples of `event` (all: `None`) and of the thread lanes `threads` (all: empty)
/// per cell. The origin is the first sample of all (so the cells do not move with the filter).
pub fn heatmap(
    profile: &Profile,
    timeline: &Timeline,
    events: &EventMap,
    event: Option<u32>,
    threads: &[u32],
    rows: u32,
) -> HeatmapReply {
    let rows = rows.clamp(1, MAX_ROWS);
    let row_ns = 1_000_000_000 / u64::from(rows);
    let s = &profile.samples;
    let Some((origin, last)) = s.time_range() else {
        return HeatmapReply {
            meta: HeatmapMeta {
                rows,
                row_ns,
                ..HeatmapMeta::default()
            },
            counts: Vec::new(),
        };
    };
    let columns = u32::try_from((last - origin) / 1_000_000_000 + 1)
        .unwrap_or(u32::MAX)
        .min(MAX_COLUMNS);
    let filter = sample_filter(
        &Filter {
            range: None,
            event,
            threads: threads.to_vec(),
            off_cpu: false,
        },
        timeline,
        events,
    );
    let all = filter == perfscope_analysis::samples::SampleFilter::all();
    let passes = filter.tester(s, &profile.threads);
    let mut counts = vec![0u32; columns as usize * rows as usize];
    let (mut samples, mut cut) = (0u64, 0u64);
    for (i, t) in s.times().iter().enumerate() {
        if !all && !passes(i) {
            continue;
        }
        let off = t - origin;
        let column = off / 1_000_000_000;
        if column >= u64::from(columns) {
            cut += 1;
            continue;
        }
        let row = ((off % 1_000_000_000) / row_ns).min(u64::from(rows) - 1);
        if let Some(c) = counts.get_mut(column as usize * rows as usize + row as usize) {
            *c += 1;
            samples += 1;
        }
    }
    let max = counts.iter().copied().max().unwrap_or(0);
    HeatmapReply {
        meta: HeatmapMeta {
            query: None,
            generation: 0,
            origin,
            columns,
            rows,
            row_ns,
            max,
            samples,
            cut,
        },
        counts,
    }
}
