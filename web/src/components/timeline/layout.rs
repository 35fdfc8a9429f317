//! Timeline geometry: rows (process headers, thread lanes, CPU lanes) and the mapping between
//! time and x. Pure, shared by drawing and by the pointer handlers.

use crate::protocol::Overview;

/// Width of the label column, CSS px.
pub const GUTTER: f64 = 220.0;
/// Height of the time axis.
pub const AXIS: f64 = 22.0;
/// Height of a lane.
pub const LANE: f64 = 16.0;
/// Height of a group header.
pub const HEADER: f64 = 18.0;

/// What a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A process header (index into `overview.processes`).
    Process(u32),
    /// A thread lane (index into `overview.threads`; also its lane index).
    Thread(u32),
    /// The "CPUs" header.
    CpuHeader,
    /// A CPU lane (index into `overview.cpus`; its lane index is `threads.len() + i`).
    Cpu(u32),
}

/// One row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// What it shows.
    pub kind: RowKind,
    /// A process's only thread, shown on one row with the process's name.
    pub solo: bool,
    /// Top, CSS px.
    pub y: f64,
    /// Height.
    pub h: f64,
}

/// The rows of an overview, top to bottom, below the axis.
pub fn rows(o: &Overview) -> Vec<Row> {
    let mut out = Vec::new();
    let mut y = AXIS;
    let mut push = |kind, solo, h: f64| {
        out.push(Row { kind, solo, y, h });
        y += h;
    };
    // CPUs first: a few lanes that show the whole machine.
    if !o.cpus.is_empty() {
        push(RowKind::CpuHeader, false, HEADER);
        for c in 0..o.cpus.len() {
            push(RowKind::Cpu(c as u32), false, LANE);
        }
    }
    for (p, proc_) in o.processes.iter().enumerate() {
        if let [only] = proc_.threads.as_slice() {
            push(RowKind::Thread(*only), true, HEADER);
            continue;
        }
        push(RowKind::Process(p as u32), false, HEADER);
        for &t in &proc_.threads {
            push(RowKind::Thread(t), false, LANE);
        }
    }
    out
}

/// The total height of `rows`.
pub fn height(rows: &[Row]) -> f64 {
    rows.last().map_or(AXIS, |r| r.y + r.h) + 2.0
}

/// The row at `y`.
pub fn row_at(rows: &[Row], y: f64) -> Option<Row> {
    rows.iter().find(|r| y >= r.y && y < r.y + r.h).copied()
}

/// Maps times in `start..=end` to the plot `GUTTER..width`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeScale {
    /// First ns shown.
    pub start: u64,
    /// Last ns shown.
    pub end: u64,
    /// Canvas width, CSS px.
    pub width: f64,
}

impl TimeScale {
    /// Plot width.
    pub fn plot_width(&self) -> f64 {
        (self.width - GUTTER).max(1.0)
    }

    fn span(&self) -> f64 {
        (self.end.saturating_sub(self.start) as f64 + 1.0).max(1.0)
    }

    /// x of time `t` (may be outside the plot).
    pub fn x(&self, t: u64) -> f64 {
        GUTTER + (t as f64 - self.start as f64) / self.span() * self.plot_width()
    }

    /// The time at `x`, clamped to the shown range.
    pub fn time(&self, x: f64) -> u64 {
        let f = ((x - GUTTER) / self.plot_width()).clamp(0.0, 1.0);
        let t = self.start as f64 + f * self.span();
        (t.round() as u64).clamp(self.start, self.end)
    }

    /// The range `factor` times as long, keeping the time under `x` in place, within `limit`.
    pub fn zoomed(&self, x: f64, factor: f64, limit: (u64, u64)) -> (u64, u64) {
        let anchor = self.time(x) as f64;
        let (s, e) = (self.start as f64, self.end as f64);
        let max_span = (limit.1 - limit.0) as f64;
        let span = ((e - s) * factor).clamp(100.0_f64.min(max_span), max_span);
        let frac = if e > s { (anchor - s) / (e - s) } else { 0.5 };
        let mut ns = anchor - frac * span;
        ns = ns.clamp(limit.0 as f64, (limit.1 as f64 - span).max(limit.0 as f64));
        (ns.round() as u64, (ns + span).round() as u64)
    }

    /// The range moved by `dx` px, within `limit`.
    pub fn panned(&self, dx: f64, limit: (u64, u64)) -> (u64, u64) {
        let span = self.end - self.start;
        let shift = dx / self.plot_width() * self.span();
        let start = (self.start as f64 - shift)
            .clamp(limit.0 as f64, limit.1.saturating_sub(span) as f64)
            .round() as u64;
        (start, start + span)
    }
}

/// A "nice" tick step (1, 2 or 5 × 10^k ns) for about `px` pixels between ticks.
pub fn tick_step(scale: &TimeScale, px: f64) -> u64 {
    let raw = (scale.end - scale.start) as f64 / (scale.plot_width() / px).max(1.0);
    let mut step = 1u64;
    loop {
        for m in [1u64, 2, 5] {
            let s = step.saturating_mul(m);
            if s as f64 >= raw {
                return s.max(1);
            }
        }
        if step > u64::MAX / 10 {
            return step;
        }
        step *= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CpuInfo, ProcessInfo, ThreadInfo};

    #[test]
    fn rows_group_threads_under_processes_then_cpus() {
        let o = Overview {
            threads: vec![ThreadInfo::default(); 4],
            processes: vec![
                ProcessInfo {
                    threads: vec![0, 1],
                    ..ProcessInfo::default()
                },
                ProcessInfo {
                    threads: vec![2],
                    ..ProcessInfo::default()
                },
                ProcessInfo {
                    threads: vec![3],
                    ..ProcessInfo::default()
                },
            ],
            cpus: vec![CpuInfo::default(), CpuInfo::default()],
            ..Overview::default()
        };
        let r = rows(&o);
        let kinds: Vec<_> = r.iter().map(|r| r.kind).collect();
        use RowKind::*;
        // Single-thread processes take one row.
        assert_eq!(
            kinds,
            vec![
                CpuHeader,
                Cpu(0),
                Cpu(1),
                Process(0),
                Thread(0),
                Thread(1),
                Thread(2),
                Thread(3)
            ]
        );
        assert_eq!(
            r.iter().map(|r| r.solo).collect::<Vec<_>>(),
            vec![false, false, false, false, false, false, true, true]
        );
        assert_eq!(r[1].y, AXIS + HEADER);
        assert_eq!(
            row_at(&r, AXIS + HEADER + 1.0).map(|r| r.kind),
            Some(Cpu(0))
        );
        assert_eq!(height(&r), AXIS + 4.0 * HEADER + 4.0 * LANE + 2.0);
    }

    #[test]
    fn time_and_x_round_trip() {
        let s = TimeScale {
            start: 1000,
            end: 1999,
            width: GUTTER + 1000.0,
        };
        assert_eq!(s.x(1000), GUTTER);
        assert_eq!(s.time(GUTTER + 500.0), 1500);
        assert_eq!(s.time(0.0), 1000);
        assert_eq!(s.time(1e9), 1999);
        // Zoom in by 2 around the middle.
        let (a, b) = s.zoomed(GUTTER + 500.0, 0.5, (0, 10_000));
        assert!(
            (1249..=1251).contains(&a) && (499..=501).contains(&(b - a)),
            "{a}..{b}"
        );
        assert_eq!(s.panned(100.0, (0, 10_000)), (900, 1899));
        assert_eq!(s.panned(1e6, (500, 10_000)), (500, 1499));
    }

    #[test]
    fn ticks_are_round() {
        let s = TimeScale {
            start: 0,
            end: 1_000_000_000,
            width: GUTTER + 1000.0,
        };
        assert_eq!(tick_step(&s, 100.0), 100_000_000);
        let s = TimeScale {
            start: 0,
            end: 3_000_000,
            width: GUTTER + 1000.0,
        };
        assert_eq!(tick_step(&s, 100.0), 500_000);
    }
}
