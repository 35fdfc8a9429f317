//! The sub-second heatmap (the view FlameScope made popular): a column per second from the first
//! sample, a row per 20 ms of the second (row 0 at the top), each cell colored by its sample
//! count. Pointing at a cell says its time range and count; dragging over cells selects their
//! time range, from the start of the first cell to the end of the last in time order (column
//! after column), which filters every other view.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, PointerEvent};
use yew::prelude::*;

use super::super::canvas::{css_var, prepare, use_frame_scheduler, use_width};
use crate::display::duration_ns;
use crate::protocol::{HeatmapReply, Query};
use crate::state::shared::Shared;
use crate::state::{AppState, ViewAction};

/// Left margin (row labels), CSS px.
pub const LEFT: f64 = 56.0;
/// Top margin (column labels), CSS px.
pub const TOP: f64 = 20.0;
/// Cell height, CSS px.
pub const CELL_H: f64 = 8.0;

/// Cell geometry of a heatmap drawn `width` CSS px wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Columns.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Cell width.
    pub cell_w: f64,
}

impl Grid {
    /// Cells as wide as fit (2 to 28 px; wider maps scroll).
    pub fn new(columns: u32, rows: u32, width: f64) -> Grid {
        let cell_w = ((width - LEFT - 8.0) / f64::from(columns.max(1)))
            .floor()
            .clamp(2.0, 28.0);
        Grid {
            columns,
            rows,
            cell_w,
        }
    }

    /// The canvas size.
    pub fn size(&self) -> (f64, f64) {
        // At least as wide as the legend.
        (
            (LEFT + f64::from(self.columns) * self.cell_w + 8.0).max(LEFT + 260.0),
            TOP + f64::from(self.rows) * CELL_H + 30.0,
        )
    }

    /// The cell at `(x, y)`, clamped to the grid when `clamp` (for drags), else `None` outside.
    pub fn cell_at(&self, x: f64, y: f64, clamp: bool) -> Option<(u32, u32)> {
        let (c, r) = (
            ((x - LEFT) / self.cell_w).floor(),
            ((y - TOP) / CELL_H).floor(),
        );
        let (maxc, maxr) = (f64::from(self.columns) - 1.0, f64::from(self.rows) - 1.0);
        if self.columns == 0 || self.rows == 0 {
            return None;
        }
        if clamp {
            return Some((c.clamp(0.0, maxc) as u32, r.clamp(0.0, maxr) as u32));
        }
        (c >= 0.0 && r >= 0.0 && c <= maxc && r <= maxr).then_some((c as u32, r as u32))
    }
}

/// A sequential palette from the background (0) to `hot` (the max), through `mid`.
fn heat(bg: (f64, f64, f64), mid: (f64, f64, f64), hot: (f64, f64, f64), f: f64) -> String {
    let f = f.clamp(0.0, 1.0);
    let lerp = |a: (f64, f64, f64), b: (f64, f64, f64), t: f64| {
        (
            a.0 + (b.0 - a.0) * t,
            a.1 + (b.1 - a.1) * t,
            a.2 + (b.2 - a.2) * t,
        )
    };
    let c = if f < 0.5 {
        lerp(bg, mid, f * 2.0)
    } else {
        lerp(mid, hot, (f - 0.5) * 2.0)
    };
    format!("rgb({},{},{})", c.0.round(), c.1.round(), c.2.round())
}

/// `#rrggbb` as numbers (black when not).
fn rgb(hex: &str) -> (f64, f64, f64) {
    let h = hex.trim().trim_start_matches('#');
    let v = |i: usize| {
        h.get(i..i + 2)
            .and_then(|s| u8::from_str_radix(s, 16).ok())
            .map_or(0.0, f64::from)
    };
    (v(0), v(2), v(4))
}

/// Properties of [`HeatmapView`].
#[derive(Properties, PartialEq)]
pub struct HeatmapProps {
    /// The state (its heatmap result, the selection).
    pub state: Rc<AppState>,
    /// The query the view needs.
    pub wanted: Option<Query>,
    /// The profile generation.
    pub generation: u32,
    /// View changes.
    pub on_action: Callback<ViewAction>,
}

fn draw(
    ctx: &CanvasRenderingContext2d,
    h: &HeatmapReply,
    g: &Grid,
    drag: Option<((u32, u32), (u32, u32))>,
    selection: Option<(u64, u64)>,
) {
    let (w, ht) = g.size();
    let bg = css_var("--canvas-bg", "#ffffff");
    let (fg, muted, accent) = (
        css_var("--fg", "#111"),
        css_var("--muted", "#666"),
        css_var("--accent", "#2563eb"),
    );
    let (b, mid, hot) = (
        rgb(&bg),
        rgb(&css_var("--heat-mid", "#fdba74")),
        rgb(&css_var("--heat-hot", "#b91c1c")),
    );
    ctx.set_fill_style_str(&bg);
    ctx.fill_rect(0.0, 0.0, w, ht);
    ctx.set_font("11px ui-sans-serif, system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    let m = &h.meta;
    let max = f64::from(m.max.max(1));
    let empty = css_var("--border", "#e5e7eb");
    for c in 0..g.columns {
        for r in 0..g.rows {
            let n = h.count(c, r);
            let (x, y) = (LEFT + f64::from(c) * g.cell_w, TOP + f64::from(r) * CELL_H);
            if n == 0 {
                ctx.set_fill_style_str(&empty);
                ctx.set_global_alpha(0.35);
            } else {
                ctx.set_fill_style_str(&heat(b, mid, hot, 0.12 + 0.88 * f64::from(n) / max));
            }
            ctx.fill_rect(x, y, (g.cell_w - 1.0).max(1.0), CELL_H - 1.0);
            ctx.set_global_alpha(1.0);
        }
    }
    // Selected cells: the drag in progress, else the cells inside the time selection.
    let in_sel = |c: u32, r: u32| -> bool {
        match drag {
            Some((a, z)) => {
                let (lo, hi) = if a <= z { (a, z) } else { (z, a) };
                (c, r) >= lo && (c, r) <= hi
            }
            None => {
                selection.is_some_and(|(s, e)| m.cell_start(c, r) <= e && m.cell_end(c, r) >= s)
            }
        }
    };
    ctx.set_stroke_style_str(&accent);
    ctx.set_line_width(1.5);
    for c in 0..g.columns {
        for r in 0..g.rows {
            if in_sel(c, r) {
                ctx.stroke_rect(
                    LEFT + f64::from(c) * g.cell_w + 0.75,
                    TOP + f64::from(r) * CELL_H + 0.75,
                    (g.cell_w - 2.5).max(0.5),
                    CELL_H - 2.5,
                );
            }
        }
    }
    // Row labels every 10 rows (200 ms), column labels as room allows.
    ctx.set_fill_style_str(&muted);
    ctx.set_text_align("right");
    for r in (0..g.rows).step_by(10) {
        let _ = ctx.fill_text(
            &format!("{} ms", u64::from(r) * m.row_ns / 1_000_000),
            LEFT - 6.0,
            TOP + f64::from(r) * CELL_H + CELL_H / 2.0,
        );
    }
    ctx.set_text_align("center");
    let every = ((36.0 / g.cell_w).ceil() as u32).max(1);
    for c in (0..g.columns).step_by(every as usize) {
        let _ = ctx.fill_text(
            &format!("{c} s"),
            LEFT + (f64::from(c) + 0.5) * g.cell_w,
            TOP / 2.0,
        );
    }
    ctx.set_text_align("left");
    // Legend: the palette from 1 sample to the max.
    let ly = TOP + f64::from(g.rows) * CELL_H + 12.0;
    ctx.set_fill_style_str(&fg);
    let _ = ctx.fill_text("samples:", LEFT, ly + 5.0);
    let lx = LEFT + 58.0;
    for i in 0..100 {
        ctx.set_fill_style_str(&heat(b, mid, hot, 0.12 + 0.88 * f64::from(i) / 99.0));
        ctx.fill_rect(lx + f64::from(i) * 1.2, ly, 1.3, 10.0);
    }
    ctx.set_fill_style_str(&fg);
    let _ = ctx.fill_text(&format!("1 – {} (max)", m.max), lx + 126.0, ly + 5.0);
}

/// The heatmap panel inside the timeline tab.
#[function_component(HeatmapView)]
pub fn heatmap_view(props: &HeatmapProps) -> Html {
    let container = use_node_ref();
    let canvas = use_node_ref();
    let width = use_width(container.clone());
    let scheduler = use_frame_scheduler();
    let drag = use_state_eq(|| None::<((u32, u32), (u32, u32))>);
    let hover = use_state_eq(|| None::<(u32, u32, f64, f64)>);
    let reply = props.state.results.heatmap.clone();
    let current = reply
        .as_ref()
        .is_some_and(|h| h.meta.query == props.wanted && h.meta.generation == props.generation);
    let grid = reply
        .as_ref()
        .map(|h| Grid::new(h.meta.columns, h.meta.rows, width.max(300.0)));
    let selection = props.state.view.selection;
    {
        let (canvas, reply, drag_now, scheduler) =
            (canvas.clone(), reply.clone(), *drag, scheduler.clone());
        let key = (
            reply.as_ref().map(Shared::id),
            grid.map(|g| g.cell_w.to_bits()),
            drag_now,
            selection,
            current,
        );
        use_effect_with(key, move |_| {
            scheduler.schedule(move || {
                let (Some(el), Some(h), Some(g)) =
                    (canvas.cast::<HtmlCanvasElement>(), reply, grid)
                else {
                    return;
                };
                let (w, ht) = g.size();
                let Some(ctx) = prepare(&el, w, ht) else {
                    return;
                };
                draw(&ctx, &h, &g, drag_now, selection);
                let _ = el.set_attribute("data-drawn", &current.to_string());
            });
        });
    }
    let onpointerdown = {
        let drag = drag.clone();
        Callback::from(move |e: PointerEvent| {
            let Some(cell) = grid
                .and_then(|g| g.cell_at(f64::from(e.offset_x()), f64::from(e.offset_y()), false))
            else {
                return;
            };
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
            drag.set(Some((cell, cell)));
        })
    };
    let onpointermove = {
        let (drag, hover) = (drag.clone(), hover.clone());
        Callback::from(move |e: PointerEvent| {
            let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            if let Some((a, _)) = *drag {
                if let Some(cell) = grid.and_then(|g| g.cell_at(x, y, true)) {
                    drag.set(Some((a, cell)));
                }
            }
            hover.set(
                grid.and_then(|g| g.cell_at(x, y, false))
                    .map(|(c, r)| (c, r, x, y)),
            );
        })
    };
    let onpointerup = {
        let (drag, on_action, reply) = (drag.clone(), props.on_action.clone(), reply.clone());
        Callback::from(move |_: PointerEvent| {
            if let (Some((a, z)), Some(h)) = (*drag, reply.as_ref()) {
                on_action.emit(ViewAction::Select(Some(h.meta.range(a, z))));
            }
            drag.set(None);
        })
    };
    let onpointerleave = {
        let hover = hover.clone();
        Callback::from(move |_: PointerEvent| hover.set(None))
    };
    // Always one tooltip element (hidden when unused): a changing number of children would make
    // yew's unkeyed diff replace the canvas.
    let tip = match (*hover, reply.as_ref()) {
        (Some((c, r, x, y)), Some(h)) => {
            let m = &h.meta;
            let (s, e) = (
                m.cell_start(c, r) - m.origin,
                m.cell_end(c, r) + 1 - m.origin,
            );
            let n = h.count(c, r);
            html! {
                <div class="timeline-tip" data-field="heatmap-tip" data-column={c.to_string()} data-row={r.to_string()} data-count={n.to_string()}
                     style={format!("left:{}px;top:{}px", x + 14.0, y + 14.0)}>
                    <div>{ format!("+{} – +{}", duration_ns(s), duration_ns(e)) }</div>
                    <div>{ format!("{n} sample{}", if n == 1 { "" } else { "s" }) }</div>
                </div>
            }
        }
        _ => html! { <div class="timeline-tip" hidden=true /> },
    };
    let meta = reply.as_ref().map(|h| h.meta.clone()).unwrap_or_default();
    let status = match reply.as_ref() {
        None => "Counting samples per 20 ms…".to_string(),
        Some(h) if h.meta.cut > 0 => format!(
            "{} samples · {} after the first {} s not shown",
            h.meta.samples, h.meta.cut, h.meta.columns
        ),
        Some(h) => format!(
            "{} samples in {} s × {} rows of {}",
            h.meta.samples,
            h.meta.columns,
            h.meta.rows,
            duration_ns(h.meta.row_ns)
        ),
    };
    html! {
        <div class="heatmap-panel">
            <div class="view-bar">
                <span class="muted small" data-field="heatmap-status">{ status }</span>
                <span class="spacer" />
                <span class="hint muted small">{ "Columns: seconds · rows: 20 ms of each second · drag over cells to select their time range" }</span>
            </div>
            <div ref={container} class="timeline-scroll heatmap-scroll">
                <canvas ref={canvas} class="heatmap-canvas" data-current={current.to_string()}
                        data-columns={meta.columns.to_string()} data-rows={meta.rows.to_string()} data-origin={meta.origin.to_string()}
                        data-row-ns={meta.row_ns.to_string()} data-max={meta.max.to_string()}
                        data-left={LEFT.to_string()} data-top={TOP.to_string()} data-cell-w={grid.map_or(0.0, |g| g.cell_w).to_string()} data-cell-h={CELL_H.to_string()}
                        aria-label="Sub-second heatmap: columns are seconds, rows 20 ms fractions; drag over cells to select a time range"
                        {onpointerdown} {onpointermove} {onpointerup} {onpointerleave} />
                { tip }
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_under_the_pointer() {
        let g = Grid::new(3, 50, LEFT + 8.0 + 3.0 * 20.0);
        assert_eq!(g.cell_w, 20.0);
        assert_eq!(g.cell_at(LEFT + 1.0, TOP + 1.0, false), Some((0, 0)));
        assert_eq!(
            g.cell_at(LEFT + 45.0, TOP + 8.0 * 49.0 + 7.0, false),
            Some((2, 49))
        );
        assert_eq!(g.cell_at(LEFT - 1.0, TOP + 1.0, false), None);
        assert_eq!(g.cell_at(LEFT - 1.0, TOP + 1e4, true), Some((0, 49)));
        assert_eq!(
            heat((255.0, 255.0, 255.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0),
            "rgb(255,255,255)"
        );
        assert_eq!(rgb("#ff8000"), (255.0, 128.0, 0.0));
    }
}
