//! The timeline's extra columns (on/off-CPU activity, markers, the selected function's bins) and
//! the sub-second heatmap reply, with their packet encodings.

use serde::{Deserialize, Serialize};

use super::messages::Query;
use super::packet::{same_len, Column, Packet};

/// What a [`TimelineDetail`] marker marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum MarkerKind {
    /// `PERF_RECORD_LOST` (count: events lost).
    Lost = 0,
    /// `PERF_RECORD_LOST_SAMPLES` (count: samples lost).
    LostSamples = 1,
    /// `PERF_RECORD_THROTTLE`.
    Throttle = 2,
    /// `PERF_RECORD_UNTHROTTLE`.
    Unthrottle = 3,
    /// A sample of a tracepoint event (`event` names it).
    Tracepoint = 4,
}

impl MarkerKind {
    /// The kind of a column value.
    pub fn from_u8(v: u8) -> Option<MarkerKind> {
        Some(match v {
            0 => MarkerKind::Lost,
            1 => MarkerKind::LostSamples,
            2 => MarkerKind::Throttle,
            3 => MarkerKind::Unthrottle,
            4 => MarkerKind::Tracepoint,
            _ => return None,
        })
    }

    /// For people.
    pub fn label(self) -> &'static str {
        match self {
            MarkerKind::Lost => "LOST",
            MarkerKind::LostSamples => "LOST_SAMPLES",
            MarkerKind::Throttle => "THROTTLE",
            MarkerKind::Unthrottle => "UNTHROTTLE",
            MarkerKind::Tracepoint => "tracepoint",
        }
    }
}

/// Off-CPU state classes of [`TimelineDetail::off_state`] (0: no off-CPU time in the bin).
pub mod off_state {
    /// Preempted, still runnable (`R`).
    pub const RUNNABLE: u8 = 1;
    /// Sleeping (`S`, or a voluntary switch record).
    pub const SLEEPING: u8 = 2;
    /// Uninterruptible, usually I/O (`D`).
    pub const DISK: u8 = 3;
    /// Another state (`T`, `t`, `I`, ...).
    pub const OTHER: u8 = 4;
    /// Names, by class.
    pub const NAMES: [&str; 5] = [
        "",
        "runnable (R)",
        "sleeping (S)",
        "uninterruptible (D)",
        "other",
    ];
}

/// What a timeline reply shows besides the density; bins as the density's. Empty columns when
/// the recording has nothing of the kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimelineDetail {
    /// `lanes × bins` samples whose stack contains the query's function (empty without one).
    pub highlight: Vec<u32>,
    /// `lanes × bins` share of the bin the thread ran (CPU lanes: was busy), 0..=255, rounded up
    /// (any time is at least 1). Empty when the recording has no context switches.
    pub on_cpu: Vec<u8>,
    /// `lanes × bins` share of the bin the thread was switched out (CPU lanes: idle), 0..=255.
    pub off_cpu: Vec<u8>,
    /// `lanes × bins` the off-CPU state with the most time in the bin ([`off_state`]).
    pub off_state: Vec<u8>,
    /// Per marker: the lane (`u32::MAX`: the recording as a whole, no CPU known).
    pub marker_lane: Vec<u32>,
    /// Per marker: the bin. Markers of one lane, kind and event in one bin are merged.
    pub marker_bin: Vec<u32>,
    /// Per marker: [`MarkerKind`].
    pub marker_kind: Vec<u8>,
    /// Per marker: the event (attr index) for tracepoint samples and LOST, `u32::MAX` otherwise.
    pub marker_event: Vec<u32>,
    /// Per marker: records merged.
    pub marker_records: Vec<u32>,
    /// Per marker: events or samples lost (LOST, LOST_SAMPLES), else = records.
    pub marker_count: Vec<u64>,
}

impl TimelineDetail {
    /// Adds the columns to a timeline packet.
    pub fn into_columns(self, p: Packet) -> Packet {
        p.with("highlight", Column::U32(self.highlight))
            .with("on_cpu", Column::U8(self.on_cpu))
            .with("off_cpu", Column::U8(self.off_cpu))
            .with("off_state", Column::U8(self.off_state))
            .with("marker_lane", Column::U32(self.marker_lane))
            .with("marker_bin", Column::U32(self.marker_bin))
            .with("marker_kind", Column::U8(self.marker_kind))
            .with("marker_event", Column::U32(self.marker_event))
            .with("marker_records", Column::U32(self.marker_records))
            .with("marker_count", Column::U64(self.marker_count))
    }

    /// Takes the columns out of a timeline packet; `cells` = lanes × bins.
    pub fn from_packet(p: &mut Packet, cells: usize) -> Result<TimelineDetail, String> {
        let d = TimelineDetail {
            highlight: p.take_u32("highlight")?,
            on_cpu: p.take_u8("on_cpu")?,
            off_cpu: p.take_u8("off_cpu")?,
            off_state: p.take_u8("off_state")?,
            marker_lane: p.take_u32("marker_lane")?,
            marker_bin: p.take_u32("marker_bin")?,
            marker_kind: p.take_u8("marker_kind")?,
            marker_event: p.take_u32("marker_event")?,
            marker_records: p.take_u32("marker_records")?,
            marker_count: p.take_u64("marker_count")?,
        };
        for (name, len) in [
            ("highlight", d.highlight.len()),
            ("on_cpu", d.on_cpu.len()),
            ("off_cpu", d.off_cpu.len()),
            ("off_state", d.off_state.len()),
        ] {
            if len != 0 && len != cells {
                return Err(format!(
                    "timeline message: {len} {name} values for {cells} cells"
                ));
            }
        }
        same_len(
            "timeline markers",
            &[
                ("marker_lane", d.marker_lane.len()),
                ("marker_bin", d.marker_bin.len()),
                ("marker_kind", d.marker_kind.len()),
                ("marker_event", d.marker_event.len()),
                ("marker_records", d.marker_records.len()),
                ("marker_count", d.marker_count.len()),
            ],
        )?;
        Ok(d)
    }

    /// Number of markers.
    pub fn markers(&self) -> usize {
        self.marker_lane.len()
    }
}

/// The JSON part of a heatmap reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeatmapMeta {
    /// The query answered.
    pub query: Option<Query>,
    /// The profile generation.
    pub generation: u32,
    /// Time of cell (0, 0)'s start: the first sample's (of every event and thread), ns.
    pub origin: u64,
    /// Columns: one per second from the origin.
    pub columns: u32,
    /// Rows per column (row 0 is the start of each second).
    pub rows: u32,
    /// Length of a row, ns (`1e9 / rows`).
    pub row_ns: u64,
    /// Largest cell.
    pub max: u32,
    /// Samples counted.
    pub samples: u64,
    /// Samples after the last column shown (the map stops at [`MAX_COLUMNS`]).
    pub cut: u64,
}

/// The heatmap has at most this many columns (seconds).
pub const MAX_COLUMNS: u32 = 3600;

impl HeatmapMeta {
    /// Start (ns) of cell `(column, row)`.
    pub fn cell_start(&self, column: u32, row: u32) -> u64 {
        self.origin
            .saturating_add(u64::from(column) * 1_000_000_000)
            .saturating_add(u64::from(row) * self.row_ns)
    }

    /// Last ns of cell `(column, row)` (both ends included, as selections are).
    pub fn cell_end(&self, column: u32, row: u32) -> u64 {
        let next = if row + 1 >= self.rows {
            self.origin
                .saturating_add((u64::from(column) + 1) * 1_000_000_000)
        } else {
            self.cell_start(column, row + 1)
        };
        next.saturating_sub(1)
    }

    /// The time range of the cells from `a` to `b` (either order), in time order across columns
    /// (as FlameScope selects): from the start of the earlier cell to the end of the later one.
    pub fn range(&self, a: (u32, u32), b: (u32, u32)) -> (u64, u64) {
        let (first, last) = if a <= b { (a, b) } else { (b, a) };
        (
            self.cell_start(first.0, first.1),
            self.cell_end(last.0, last.1),
        )
    }
}

/// Sample counts per second (columns) and fraction of a second (rows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatmapReply {
    /// Sizes and the query.
    pub meta: HeatmapMeta,
    /// `columns × rows` counts, column after column.
    pub counts: Vec<u32>,
}

impl HeatmapReply {
    /// The count of a cell.
    pub fn count(&self, column: u32, row: u32) -> u32 {
        self.counts
            .get(column as usize * self.meta.rows as usize + row as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Encodes the reply.
    pub fn into_packet(self, id: u32) -> Packet {
        Packet::new("heatmap", id, &self.meta).with("counts", Column::U32(self.counts))
    }

    /// Decodes a `heatmap` packet.
    pub fn from_packet(p: &mut Packet) -> Result<HeatmapReply, String> {
        let meta: HeatmapMeta = p.json()?;
        let counts = p.take_u32("counts")?;
        let want = (meta.columns as usize).saturating_mul(meta.rows as usize);
        if counts.len() != want {
            return Err(format!(
                "heatmap message: {} counts for {} columns × {} rows",
                counts.len(),
                meta.columns,
                meta.rows
            ));
        }
        Ok(HeatmapReply { meta, counts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cover_each_second_without_gaps() {
        let m = HeatmapMeta {
            origin: 1_000,
            columns: 3,
            rows: 50,
            row_ns: 20_000_000,
            ..HeatmapMeta::default()
        };
        assert_eq!(m.cell_start(0, 0), 1_000);
        assert_eq!(m.cell_end(0, 0), 1_000 + 20_000_000 - 1);
        assert_eq!(m.cell_end(0, 49) + 1, m.cell_start(1, 0));
        // Dragging backwards across columns selects in time order.
        assert_eq!(
            m.range((2, 3), (1, 40)),
            (m.cell_start(1, 40), m.cell_end(2, 3))
        );
        assert_eq!(
            m.range((1, 40), (1, 40)),
            (1_000 + 1_800_000_000, 1_000 + 1_820_000_000 - 1)
        );
    }

    #[test]
    fn replies_round_trip_and_ragged_ones_are_refused() {
        let h = HeatmapReply {
            meta: HeatmapMeta {
                columns: 2,
                rows: 2,
                row_ns: 500_000_000,
                max: 3,
                ..HeatmapMeta::default()
            },
            counts: vec![1, 0, 3, 2],
        };
        let mut p = h.clone().into_packet(4);
        assert_eq!(HeatmapReply::from_packet(&mut p).unwrap(), h);
        let mut p = HeatmapReply {
            counts: vec![1],
            ..h
        }
        .into_packet(4);
        assert!(HeatmapReply::from_packet(&mut p)
            .unwrap_err()
            .contains("1 counts for 2 columns × 2 rows"));
        let d = TimelineDetail {
            on_cpu: vec![1, 2],
            off_cpu: vec![0, 3],
            off_state: vec![0, 2],
            marker_lane: vec![1],
            marker_bin: vec![0],
            marker_kind: vec![4],
            marker_event: vec![0],
            marker_records: vec![2],
            marker_count: vec![2],
            ..TimelineDetail::default()
        };
        let mut p = d.clone().into_columns(Packet::default());
        assert_eq!(TimelineDetail::from_packet(&mut p, 2).unwrap(), d);
        let mut p = d.into_columns(Packet::default());
        assert!(TimelineDetail::from_packet(&mut p, 3).is_err());
    }
}
