//! Drawing the timeline: axis, lane labels, thread lifetimes, sample density, the selection.
//!
//! The canvas is as tall as the scroll container's view, not as the lanes: a frame draws the
//! rows that intersect the view (`top .. top + view_h` of the lanes' height), so its cost
//! depends on the lanes shown and the bins, not on the number of lanes or samples. Density
//! bars are one path per lane (one fill), not a rectangle call per bin.

use web_sys::CanvasRenderingContext2d;

use super::layout::{tick_step, Row, RowKind, TimeScale, AXIS, GUTTER};
use crate::components::canvas::timed;
use crate::protocol::{Overview, TimelineReply};

/// Theme colors.
pub struct Colors {
    /// Background.
    pub bg: String,
    /// Text.
    pub fg: String,
    /// Secondary text and grid.
    pub muted: String,
    /// Lines between groups.
    pub border: String,
    /// Thread density.
    pub thread: String,
    /// CPU density.
    pub cpu: String,
    /// Selection.
    pub accent: String,
    /// On-CPU periods.
    pub run: String,
    /// Off-CPU periods by state class (runnable, sleeping, uninterruptible, other).
    pub off: [String; 4],
    /// Lost records and samples.
    pub lost: String,
    /// Throttling.
    pub throttle: String,
    /// Tracepoint samples.
    pub tracepoint: String,
    /// The selected function's samples.
    pub highlight: String,
}

/// Everything a frame shows.
pub struct Frame<'a> {
    /// Lanes and names.
    pub overview: &'a Overview,
    /// Rows.
    pub rows: &'a [Row],
    /// Time mapping.
    pub scale: TimeScale,
    /// Density (possibly for another range, remapped while a newer one is on its way).
    pub density: Option<&'a TimelineReply>,
    /// The selection, or the one being dragged.
    pub selection: Option<(u64, u64)>,
    /// Thread lanes filtering the views.
    pub threads: &'a [u32],
    /// Height of all the rows (the scrollable height).
    pub height: f64,
    /// The first y of the rows shown (the scroll offset).
    pub top: f64,
    /// The canvas height: the rows shown are `top .. top + view_h`.
    pub view_h: f64,
    /// Where times are counted from (the first sample).
    pub origin: u64,
}

/// A tick's time from the origin, with as many decimals as the step needs: `+1.25 s`, `+200 ms`.
pub fn tick_label(ns: u64, step: u64) -> String {
    // The largest unit of which the step is at least half.
    let (unit, div) = if step >= 500_000_000 {
        ("s", 1e9)
    } else if step >= 500_000 {
        ("ms", 1e6)
    } else if step >= 500 {
        ("µs", 1e3)
    } else {
        ("ns", 1.0)
    };
    let v = ns as f64 / div;
    let step_v = step as f64 / div;
    let decimals = if step_v >= 1.0 {
        0
    } else {
        (-step_v.log10()).ceil().clamp(0.0, 9.0) as usize
    };
    format!("+{v:.decimals$} {unit}")
}

fn fit(ctx: &CanvasRenderingContext2d, text: &str, max: f64) -> String {
    if ctx.measure_text(text).map_or(0.0, |m| m.width()) <= max {
        return text.to_string();
    }
    let mut s: Vec<char> = text.chars().collect();
    while !s.is_empty() {
        s.pop();
        let t: String = s.iter().collect::<String>() + "…";
        if ctx.measure_text(&t).map_or(0.0, |m| m.width()) <= max {
            return t;
        }
    }
    String::new()
}

/// Draws a frame, timed as the measure `perfscope:timeline-draw`.
pub fn draw(ctx: &CanvasRenderingContext2d, f: &Frame<'_>, c: &Colors) {
    timed("perfscope:timeline-draw", || draw_frame(ctx, f, c));
}

/// Whether `row` intersects the rows shown.
fn visible(f: &Frame<'_>, row: &Row) -> bool {
    row.y + row.h > f.top && row.y < f.top + f.view_h
}

fn draw_frame(ctx: &CanvasRenderingContext2d, f: &Frame<'_>, c: &Colors) {
    let w = f.scale.width;
    // Everything below is drawn in the rows' coordinates; the canvas shows `top..top + view_h`.
    let _ = ctx.translate(0.0, -f.top);
    let bottom = f.top + f.view_h;
    ctx.set_fill_style_str(&c.bg);
    ctx.fill_rect(0.0, f.top, w, f.view_h);
    ctx.set_font("11px ui-sans-serif, system-ui, -apple-system, 'Segoe UI', sans-serif");
    ctx.set_text_baseline("middle");

    // Axis: ticks relative to the first sample.
    let step = tick_step(&f.scale, 110.0);
    // Ticks at round times from the first sample.
    let first = if f.scale.start >= f.origin {
        f.origin.saturating_add(
            (f.scale.start - f.origin)
                .div_ceil(step)
                .saturating_mul(step),
        )
    } else {
        f.scale.start.div_ceil(step).saturating_mul(step)
    };
    ctx.set_stroke_style_str(&c.border);
    ctx.set_line_width(1.0);
    ctx.set_fill_style_str(&c.muted);
    let mut t = first;
    while t <= f.scale.end {
        let x = f.scale.x(t).round() + 0.5;
        ctx.begin_path();
        ctx.move_to(x, (AXIS - 6.0).max(f.top));
        ctx.line_to(x, bottom.min(f.height));
        ctx.set_global_alpha(0.35);
        ctx.stroke();
        ctx.set_global_alpha(1.0);
        let _ = ctx.fill_text(
            &tick_label(t.saturating_sub(f.origin), step),
            x + 3.0,
            AXIS / 2.0,
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }

    let counts = f.density;
    let lanes_threads = f.overview.threads.len();
    // Rows are in y order: the ones shown are a contiguous run.
    let first = f.rows.partition_point(|r| r.y + r.h <= f.top);
    for row in f.rows.iter().skip(first).take_while(|r| r.y < bottom) {
        let mid = row.y + row.h / 2.0;
        match row.kind {
            RowKind::Process(p) => {
                let Some(proc_) = f.overview.processes.get(p as usize) else {
                    continue;
                };
                ctx.set_fill_style_str(&c.border);
                ctx.fill_rect(0.0, row.y, w, 1.0);
                ctx.set_font("600 11px ui-sans-serif, system-ui, sans-serif");
                ctx.set_fill_style_str(&c.fg);
                let plural = if proc_.samples == 1 { "" } else { "s" };
                let label = fit(
                    ctx,
                    &format!(
                        "{} {} · {} sample{plural}",
                        proc_.name, proc_.pid, proc_.samples
                    ),
                    GUTTER - 12.0,
                );
                let _ = ctx.fill_text(&label, 6.0, mid);
                ctx.set_font("11px ui-sans-serif, system-ui, sans-serif");
            }
            RowKind::CpuHeader => {
                ctx.set_fill_style_str(&c.border);
                ctx.fill_rect(0.0, row.y, w, 1.0);
                ctx.set_font("600 11px ui-sans-serif, system-ui, sans-serif");
                ctx.set_fill_style_str(&c.fg);
                let _ = ctx.fill_text("CPUs", 6.0, mid);
                ctx.set_font("11px ui-sans-serif, system-ui, sans-serif");
            }
            RowKind::Thread(l) | RowKind::Cpu(l) => {
                let is_cpu = matches!(row.kind, RowKind::Cpu(_));
                let lane = if is_cpu {
                    lanes_threads + l as usize
                } else {
                    l as usize
                };
                let label = if is_cpu {
                    f.overview
                        .cpus
                        .get(l as usize)
                        .map(|c| format!("CPU {}", c.cpu))
                        .unwrap_or_default()
                } else {
                    f.overview
                        .threads
                        .get(l as usize)
                        .map(|t| format!("{} {}", t.name, t.tid))
                        .unwrap_or_default()
                };
                let filtered = !is_cpu && f.threads.contains(&l);
                if row.solo {
                    // A process with one thread: one row, labelled like a process.
                    ctx.set_fill_style_str(&c.border);
                    ctx.fill_rect(0.0, row.y, w, 1.0);
                    let t = f.overview.threads.get(l as usize);
                    let samples = t.map_or(0, |t| t.samples);
                    let text = t
                        .map(|t| {
                            format!(
                                "{} {} · {} sample{}",
                                t.name,
                                t.pid,
                                samples,
                                if samples == 1 { "" } else { "s" }
                            )
                        })
                        .unwrap_or_default();
                    ctx.set_font("600 11px ui-sans-serif, system-ui, sans-serif");
                    ctx.set_fill_style_str(if filtered { &c.accent } else { &c.fg });
                    let label = fit(ctx, &text, GUTTER - 12.0);
                    let _ = ctx.fill_text(&label, 6.0, mid);
                    ctx.set_font("11px ui-sans-serif, system-ui, sans-serif");
                } else {
                    ctx.set_fill_style_str(if filtered { &c.accent } else { &c.muted });
                    let label = fit(ctx, &label, GUTTER - 24.0);
                    let _ = ctx.fill_text(&label, 16.0, mid);
                }
                // Thread lifetime: first to last sample.
                if let Some(t) = f.overview.threads.get(l as usize).filter(|_| {
                    !is_cpu
                        && f.overview
                            .threads
                            .get(l as usize)
                            .is_some_and(|t| t.samples > 0)
                }) {
                    let (x0, x1) = (f.scale.x(t.first).max(GUTTER), f.scale.x(t.last).min(w));
                    if x1 >= x0 {
                        ctx.set_fill_style_str(&c.border);
                        ctx.set_global_alpha(0.45);
                        ctx.fill_rect(x0, row.y + 2.0, (x1 - x0).max(1.0), row.h - 4.0);
                        ctx.set_global_alpha(1.0);
                    }
                }
                if let Some(d) = counts {
                    activity(ctx, f, d, lane, row, c);
                    density(
                        ctx,
                        f,
                        d,
                        lane,
                        row,
                        is_cpu,
                        if is_cpu { &c.cpu } else { &c.thread },
                        false,
                    );
                    if !d.detail.highlight.is_empty() {
                        density(ctx, f, d, lane, row, is_cpu, &c.highlight, true);
                    }
                }
            }
        }
    }

    if let Some(d) = counts {
        markers(ctx, f, d, c);
    }

    // The gutter's edge.
    ctx.set_fill_style_str(&c.border);
    ctx.fill_rect(GUTTER - 1.0, f.top, 1.0, f.view_h);

    if let Some((a, b)) = f.selection {
        let (x0, x1) = (
            f.scale.x(a).max(GUTTER),
            f.scale.x(b.min(f.scale.end.max(a))).min(w),
        );
        if x1 >= x0 - 1.0 {
            ctx.set_fill_style_str(&c.accent);
            ctx.set_global_alpha(0.16);
            ctx.fill_rect(x0, f.top, (x1 - x0).max(1.0), f.view_h);
            ctx.set_global_alpha(1.0);
            ctx.fill_rect(x0, f.top, 1.0, f.view_h);
            ctx.fill_rect(x1, f.top, 1.0, f.view_h);
        }
    }
}

/// The x range of bin `k` of a reply, clipped to the plot; `None` when outside.
fn bin_x(f: &Frame<'_>, d: &TimelineReply, k: usize) -> Option<(f64, f64)> {
    let Some(crate::protocol::Query::Timeline { start, end, .. }) = d.meta.query else {
        return None;
    };
    let bin_span = (end.saturating_sub(start) as f64 + 1.0) / f64::from(d.meta.bins.max(1));
    let t0 = start as f64 + k as f64 * bin_span;
    let (x0, x1) = (
        f.scale.x(t0.max(0.0) as u64),
        f.scale.x((t0 + bin_span).max(0.0) as u64),
    );
    if x1 < GUTTER || x0 > f.scale.width {
        return None;
    }
    Some((x0.max(GUTTER), x1.min(f.scale.width)))
}

/// Height of the on/off-CPU strip at the top of a lane.
pub const STRIP: f64 = 3.0;

/// On/off-CPU periods: a strip at the top of the lane, in the run color where the thread ran
/// most of the bin, else in its off-CPU state's color; stronger the more of the bin it covers.
fn activity(
    ctx: &CanvasRenderingContext2d,
    f: &Frame<'_>,
    d: &TimelineReply,
    lane: usize,
    row: &Row,
    c: &Colors,
) {
    let bins = d.meta.bins as usize;
    let det = &d.detail;
    let (Some(on), Some(off), Some(state)) = (
        det.on_cpu.get(lane * bins..(lane + 1) * bins),
        det.off_cpu.get(lane * bins..(lane + 1) * bins),
        det.off_state.get(lane * bins..(lane + 1) * bins),
    ) else {
        return;
    };
    for k in 0..bins {
        let (o, fo, st) = (
            on.get(k).copied().unwrap_or(0),
            off.get(k).copied().unwrap_or(0),
            state.get(k).copied().unwrap_or(0),
        );
        if o == 0 && fo == 0 {
            continue;
        }
        let Some((x0, x1)) = bin_x(f, d, k) else {
            continue;
        };
        let (color, share) = if o >= fo {
            (c.run.as_str(), o)
        } else {
            (
                c.off
                    .get(usize::from(st.max(1)) - 1)
                    .map_or(c.muted.as_str(), String::as_str),
                fo,
            )
        };
        ctx.set_fill_style_str(color);
        ctx.set_global_alpha(0.35 + 0.65 * f64::from(share) / 255.0);
        ctx.fill_rect(x0, row.y + 1.0, (x1 - x0).max(1.0), STRIP);
    }
    ctx.set_global_alpha(1.0);
}

/// Markers: a tick across the lane per (bin, kind); LOST and LOST_SAMPLES with a triangle on top.
/// Markers without a CPU lane go on the time axis.
fn markers(ctx: &CanvasRenderingContext2d, f: &Frame<'_>, d: &TimelineReply, c: &Colors) {
    use crate::protocol::MarkerKind;
    let det = &d.detail;
    let threads = f.overview.threads.len();
    // Lane → row, for the rows shown.
    let mut shown: std::collections::HashMap<u32, &Row> = std::collections::HashMap::new();
    for r in f.rows.iter().filter(|r| visible(f, r)) {
        match r.kind {
            RowKind::Thread(l) => shown.insert(l, r),
            RowKind::Cpu(i) => shown.insert((threads + i as usize) as u32, r),
            _ => None,
        };
    }
    let row_of = |lane: u32| -> Option<&Row> { shown.get(&lane).copied() };
    for i in 0..det.markers() {
        let (Some(&lane), Some(&bin), Some(kind)) = (
            det.marker_lane.get(i),
            det.marker_bin.get(i),
            det.marker_kind.get(i).and_then(|&k| MarkerKind::from_u8(k)),
        ) else {
            continue;
        };
        let Some((x0, x1)) = bin_x(f, d, bin as usize) else {
            continue;
        };
        let x = ((x0 + x1) / 2.0).round();
        let (y, h) = match row_of(lane) {
            Some(r) => (r.y + 1.0, r.h - 2.0),
            None if lane == u32::MAX && f.top < AXIS => (AXIS - 8.0, 8.0),
            None => continue,
        };
        let color = match kind {
            MarkerKind::Lost | MarkerKind::LostSamples => &c.lost,
            MarkerKind::Throttle | MarkerKind::Unthrottle => &c.throttle,
            MarkerKind::Tracepoint => &c.tracepoint,
        };
        ctx.set_fill_style_str(color);
        match kind {
            MarkerKind::Tracepoint => ctx.fill_rect(x - 0.5, y + h * 0.45, 1.0, h * 0.55),
            _ => {
                ctx.fill_rect(x - 1.0, y, 2.0, h);
                ctx.begin_path();
                ctx.move_to(x - 4.0, y);
                ctx.line_to(x + 4.0, y);
                ctx.line_to(x, y + 5.0);
                ctx.close_path();
                ctx.fill();
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn density(
    ctx: &CanvasRenderingContext2d,
    f: &Frame<'_>,
    d: &TimelineReply,
    lane: usize,
    row: &Row,
    is_cpu: bool,
    color: &str,
    highlight: bool,
) {
    let Some(crate::protocol::Query::Timeline { start, end, .. }) = d.meta.query.clone() else {
        return;
    };
    let bins = d.meta.bins as usize;
    let source = if highlight {
        &d.detail.highlight
    } else {
        &d.counts
    };
    let Some(values) = source.get(lane * bins..(lane + 1) * bins) else {
        return;
    };
    let max = f64::from(
        if is_cpu {
            d.meta.max_cpu
        } else {
            d.meta.max_thread
        }
        .max(1),
    );
    let bin_span = (end.saturating_sub(start) as f64 + 1.0) / bins.max(1) as f64;
    let strip = if d.detail.on_cpu.is_empty() {
        0.0
    } else {
        STRIP + 1.0
    };
    let h = row.h - 2.0 - strip;
    ctx.set_fill_style_str(color);
    ctx.begin_path();
    for (k, &v) in values.iter().enumerate() {
        if v == 0 {
            continue;
        }
        let t0 = start as f64 + k as f64 * bin_span;
        let x0 = f.scale.x(t0.max(0.0) as u64);
        let x1 = f.scale.x((t0 + bin_span).max(0.0) as u64);
        if x1 < GUTTER || x0 > f.scale.width {
            continue;
        }
        let x0 = x0.max(GUTTER);
        let bh = (f64::from(v) / max * h).max(1.5);
        ctx.rect(x0, row.y + row.h - 1.0 - bh, (x1 - x0).max(1.0), bh);
    }
    ctx.fill();
}

#[cfg(test)]
mod tests {
    use super::tick_label;

    #[test]
    fn tick_labels_have_the_step_s_precision() {
        assert_eq!(tick_label(0, 100_000_000), "+0 ms");
        assert_eq!(tick_label(200_000_000, 100_000_000), "+200 ms");
        assert_eq!(tick_label(1_250_000_000, 250_000_000), "+1250 ms");
        assert_eq!(tick_label(12_500_000_000, 500_000_000), "+12.5 s");
        assert_eq!(tick_label(3_000_000_000, 1_000_000_000), "+3 s");
        assert_eq!(tick_label(1_500, 500), "+1.5 µs");
        assert_eq!(tick_label(150, 50), "+150 ns");
        assert_eq!(tick_label(2_500_000, 500_000), "+2.5 ms");
    }
}
