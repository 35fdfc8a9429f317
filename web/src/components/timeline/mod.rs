//! The timeline view: a lane per thread grouped by process and a lane per CPU, with sample
//! density; wheel to zoom (shift+wheel to pan), drag to select a time range (shift+drag to pan),
//! keyboard (←/→ pan, +/− zoom, 0 reset, Enter zoom to the selection, Escape clear it). Clicking
//! a thread's name filters the other views to it. The selection filters every other view.

pub mod draw;
pub mod heatmap;
pub mod lanes;
pub mod layout;
pub mod tooltip;

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{
    AddEventListenerOptions, HtmlCanvasElement, KeyboardEvent, PointerEvent, WheelEvent,
};
use yew::prelude::*;

use super::canvas::{prepare, use_frame_scheduler, use_size, CssVars};
use super::controls::SampleControls;
use crate::display::{duration_ns, perf_time};
use crate::protocol::{ProfileData, Query};
use crate::state::shared::Shared;
use crate::state::{AppState, ViewAction};
use layout::{row_at, RowKind, TimeScale, GUTTER};

/// Properties of [`TimelineView`].
#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// The state.
    pub state: Rc<AppState>,
    /// The profile.
    pub profile: Shared<ProfileData>,
    /// The timeline query the view needs.
    pub wanted: Option<Query>,
    /// View changes.
    pub on_action: Callback<ViewAction>,
}

#[derive(Clone, Copy, PartialEq)]
enum DragKind {
    Select,
    Pan,
}

#[derive(Clone, Copy, PartialEq)]
struct Drag {
    kind: DragKind,
    x0: f64,
    x: f64,
    scale: TimeScale,
}

/// What the wheel handler (a plain DOM listener) needs at event time.
#[derive(Clone, Copy)]
struct Live {
    scale: TimeScale,
    limit: (u64, u64),
}

/// The timeline tab.
#[function_component(TimelineView)]
pub fn timeline_view(props: &TimelineProps) -> Html {
    let state = &props.state;
    let o = &props.profile.overview;
    let container = use_node_ref();
    let canvas = use_node_ref();
    let (width, view_height) = use_size(container.clone());
    let drag = use_state_eq(|| None::<Drag>);
    // The pointer in the rows' coordinates (y includes the scroll offset).
    let hover = use_state_eq(|| None::<(f64, f64)>);
    // The scroll offset of the lanes: the canvas is as tall as the view and shows the rows
    // from here (it sticks to the top of the scroll container).
    let scroll_top = use_state_eq(|| 0.0f64);
    let scheduler = use_frame_scheduler();
    let rows = use_memo(Shared::id(&props.profile), {
        let p = props.profile.clone();
        move |_| layout::rows(&p.overview)
    });
    let limit = o.sample_range.unwrap_or((0, 1));
    let (start, end) = state.view.viewport.unwrap_or(limit);
    let scale = TimeScale {
        start,
        end: end.max(start + 1),
        width: width.max(GUTTER + 100.0),
    };
    let height = layout::height(&rows);
    // The canvas: the view's height (all the rows when they fit, or before the view is sized).
    let view_h = if view_height > 0.0 {
        view_height.min(height)
    } else {
        height.min(720.0)
    };
    let top = scroll_top.clamp(0.0, (height - view_h).max(0.0));
    let density = state.results.timeline.clone();
    let current = density
        .as_ref()
        .is_some_and(|d| d.meta.query == props.wanted && d.meta.generation == o.generation);

    // The density has one bin per 3 plot pixels.
    {
        let on_action = props.on_action.clone();
        let bins = (scale.plot_width() / 3.0).round().max(0.0) as u32;
        use_effect_with(bins, move |&bins| {
            if bins > 10 {
                on_action.emit(ViewAction::TimelineBins(bins));
            }
        });
    }

    let live = use_mut_ref(|| Live { scale, limit });
    *live.borrow_mut() = Live { scale, limit };

    // The wheel needs a non-passive listener to keep the page from scrolling.
    {
        let (canvas, live, on_action) = (canvas.clone(), live.clone(), props.on_action.clone());
        use_effect_with((), move |_| {
            let el = canvas.cast::<HtmlCanvasElement>();
            let listener = el.map(|el| {
                let cb = Closure::<dyn Fn(WheelEvent)>::new(move |e: WheelEvent| {
                    let Live { scale, limit } = *live.borrow();
                    let x = f64::from(e.offset_x());
                    if x < GUTTER {
                        return;
                    }
                    e.prevent_default();
                    let (dx, dy) = (e.delta_x(), e.delta_y());
                    let range = if e.shift_key() || dx.abs() > dy.abs() {
                        scale.panned(-(if dx.abs() > dy.abs() { dx } else { dy }), limit)
                    } else {
                        scale.zoomed(x, (dy * 0.0015).exp(), limit)
                    };
                    on_action.emit(ViewAction::Viewport(Some(range)));
                });
                let options = AddEventListenerOptions::new();
                options.set_passive(false);
                let _ = el.add_event_listener_with_callback_and_add_event_listener_options(
                    "wheel",
                    cb.as_ref().unchecked_ref(),
                    &options,
                );
                (el, cb)
            });
            move || {
                if let Some((el, cb)) = listener {
                    let _ = el
                        .remove_event_listener_with_callback("wheel", cb.as_ref().unchecked_ref());
                }
            }
        });
    }

    let shown_selection = match *drag {
        Some(Drag {
            kind: DragKind::Select,
            x0,
            x,
            scale,
        }) if (x - x0).abs() > 2.0 => {
            let (a, b) = (scale.time(x0.min(x)), scale.time(x0.max(x)));
            Some((a, b))
        }
        _ => state.view.selection,
    };

    {
        let key = (
            density.as_ref().map(Shared::id),
            start,
            end,
            width.to_bits(),
            shown_selection,
            state.view.threads.clone(),
            (
                Shared::id(&props.profile),
                o.generation,
                top.to_bits(),
                view_h.to_bits(),
            ),
        );
        let (canvas, rows, profile, density, threads) = (
            canvas.clone(),
            rows.clone(),
            props.profile.clone(),
            density.clone(),
            state.view.threads.clone(),
        );
        let scheduler = scheduler.clone();
        let drawn = format!("{current}:{start}:{end}");
        use_effect_with(key, move |_| {
            scheduler.schedule(move || {
                let Some(el) = canvas.cast::<HtmlCanvasElement>() else {
                    return;
                };
                if scale.width <= GUTTER {
                    return;
                }
                let Some(ctx) = prepare(&el, scale.width, view_h) else {
                    return;
                };
                let v = CssVars::new();
                let colors = draw::Colors {
                    bg: v.get("--canvas-bg", "#fff"),
                    fg: v.get("--fg", "#111"),
                    muted: v.get("--muted", "#666"),
                    border: v.get("--border", "#ddd"),
                    thread: v.get("--lane-thread", "#2563eb"),
                    cpu: v.get("--lane-cpu", "#059669"),
                    accent: v.get("--accent", "#2563eb"),
                    run: v.get("--tl-run", "#16a34a"),
                    off: [
                        v.get("--tl-runnable", "#f59e0b"),
                        v.get("--tl-sleep", "#94a3b8"),
                        v.get("--tl-disk", "#dc2626"),
                        v.get("--tl-other", "#a78bfa"),
                    ],
                    lost: v.get("--tl-lost", "#dc2626"),
                    throttle: v.get("--tl-throttle", "#ea580c"),
                    tracepoint: v.get("--tl-tracepoint", "#9333ea"),
                    highlight: v.get("--tl-highlight", "#e11d74"),
                };
                let frame = draw::Frame {
                    overview: &profile.overview,
                    rows: &rows,
                    scale,
                    density: density.as_deref(),
                    selection: shown_selection,
                    threads: &threads,
                    height,
                    top,
                    view_h,
                    origin: profile.overview.sample_range.map_or(0, |r| r.0),
                };
                draw::draw(&ctx, &frame, &colors);
                let _ = el.set_attribute("data-drawn", &drawn);
                // The first row y shown, for tests: the frame drawn after a scroll.
                let _ = el.set_attribute("data-top", &top.to_string());
            });
        });
    }

    let onpointerdown = {
        let (drag, rows, on_action, threads) = (
            drag.clone(),
            rows.clone(),
            props.on_action.clone(),
            state.view.threads.clone(),
        );
        Callback::from(move |e: PointerEvent| {
            let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()) + top);
            if x < GUTTER {
                if let Some(RowKind::Thread(l)) = row_at(&rows, y).map(|r| r.kind) {
                    on_action.emit(ViewAction::Threads(if threads == [l] {
                        Vec::new()
                    } else {
                        vec![l]
                    }));
                }
                return;
            }
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
            let kind = if e.shift_key() || e.button() == 1 {
                DragKind::Pan
            } else {
                DragKind::Select
            };
            drag.set(Some(Drag {
                kind,
                x0: x,
                x,
                scale,
            }));
        })
    };
    let onpointermove = {
        let (drag, on_action, hover) = (drag.clone(), props.on_action.clone(), hover.clone());
        Callback::from(move |e: PointerEvent| {
            let x = f64::from(e.offset_x());
            hover.set((x >= GUTTER).then(|| (x, f64::from(e.offset_y()) + top)));
            let Some(d) = *drag else { return };
            if d.kind == DragKind::Pan {
                on_action.emit(ViewAction::Viewport(Some(d.scale.panned(x - d.x0, limit))));
            }
            drag.set(Some(Drag { x, ..d }));
        })
    };
    let onpointerup = {
        let (drag, on_action) = (drag.clone(), props.on_action.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(d) = *drag else { return };
            let x = f64::from(e.offset_x());
            if d.kind == DragKind::Select && (x - d.x0).abs() > 2.0 {
                on_action.emit(ViewAction::Select(Some((
                    d.scale.time(d.x0.min(x)),
                    d.scale.time(d.x0.max(x)),
                ))));
            }
            drag.set(None);
        })
    };
    let onkeydown = {
        let (on_action, selection) = (props.on_action.clone(), state.view.selection);
        Callback::from(move |e: KeyboardEvent| {
            let center = GUTTER + scale.plot_width() / 2.0;
            let action = match e.key().as_str() {
                "ArrowLeft" => Some(ViewAction::Viewport(Some(
                    scale.panned(scale.plot_width() * 0.1, limit),
                ))),
                "ArrowRight" => Some(ViewAction::Viewport(Some(
                    scale.panned(-scale.plot_width() * 0.1, limit),
                ))),
                "+" | "=" => Some(ViewAction::Viewport(Some(scale.zoomed(center, 0.8, limit)))),
                "-" | "_" => Some(ViewAction::Viewport(Some(
                    scale.zoomed(center, 1.25, limit),
                ))),
                "0" | "Home" => Some(ViewAction::Viewport(None)),
                "Enter" => selection.map(|s| ViewAction::Viewport(Some(s))),
                "Escape" => Some(ViewAction::Select(None)),
                _ => None,
            };
            if let Some(a) = action {
                e.prevent_default();
                on_action.emit(a);
            }
        })
    };
    let zoom_to_selection = {
        let (on_action, selection) = (props.on_action.clone(), state.view.selection);
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = selection {
                on_action.emit(ViewAction::Viewport(Some(s)));
            }
        })
    };
    let reset = props
        .on_action
        .reform(|_: MouseEvent| ViewAction::Viewport(None));
    let onpointerleave = {
        let hover = hover.clone();
        Callback::from(move |_: PointerEvent| hover.set(None))
    };
    let onscroll = {
        let (scroll_top, container) = (scroll_top.clone(), container.clone());
        Callback::from(move |_: Event| {
            if let Some(el) = container.cast::<web_sys::Element>() {
                scroll_top.set(f64::from(el.scroll_top()));
            }
        })
    };
    let func_name = state
        .view
        .selected_func
        .map(|f| crate::selectors::func_name(&props.profile, f).to_string());
    // Always one tooltip element (hidden when unused): a changing number of children would make
    // yew's unkeyed diff replace the canvas.
    let tip = match (*hover, density.as_ref(), drag.is_none()) {
        (Some((x, y)), Some(d), true) => {
            tooltip::lines(o, &rows, &scale, d, x, y, func_name.as_deref())
        }
        _ => None,
    };
    let tip = match tip {
        Some(lines) => html! {
            <div class="timeline-tip" data-field="timeline-tip" style={format!("left:{}px;top:{}px", (hover.map_or(0.0, |h| h.0) + 14.0).min(scale.width - 260.0).max(0.0), hover.map_or(0.0, |h| h.1) + 14.0)}>
                { for lines.iter().enumerate().map(|(i, l)| html! { <div class={(i == 0).then_some("strong")}>{ l }</div> }) }
            </div>
        },
        None => html! { <div class="timeline-tip" hidden=true /> },
    };
    // What the canvas shows besides density, for tests and tools: markers by kind, activity,
    // the highlighted samples. Once per reply (the highlight is lanes × bins), not per render.
    let (marker_summary, activity, highlighted) =
        (*use_memo((density.as_ref().map(Shared::id), o.threads.len()), {
            let (density, threads) = (density.clone(), o.threads.len());
            move |_| {
                let Some(d) = density.as_ref() else {
                    return (None, false, 0u64);
                };
                let mut by_kind = std::collections::BTreeMap::<&str, u64>::new();
                for (k, r) in d.detail.marker_kind.iter().zip(&d.detail.marker_records) {
                    if let Some(kind) = crate::protocol::MarkerKind::from_u8(*k) {
                        *by_kind.entry(kind.label()).or_default() += u64::from(*r);
                    }
                }
                let summary = by_kind
                    .iter()
                    .map(|(k, n)| format!("{k}:{n}"))
                    .collect::<Vec<_>>()
                    .join(",");
                let highlighted = d
                    .detail
                    .highlight
                    .iter()
                    .take(threads * d.meta.bins as usize)
                    .map(|&v| u64::from(v))
                    .sum();
                (Some(summary), !d.detail.on_cpu.is_empty(), highlighted)
            }
        }))
        .clone();
    let heatmap_mode = state.view.heatmap;
    let set_lanes = props
        .on_action
        .reform(|_: MouseEvent| ViewAction::Heatmap(false));
    let set_heatmap = props
        .on_action
        .reform(|_: MouseEvent| ViewAction::Heatmap(true));
    let mode_switch = html! {
        <span class="segmented" role="group" aria-label="Timeline view">
            <button type="button" class={classes!("seg", (!heatmap_mode).then_some("on"))} id="timeline-mode-lanes" aria-pressed={(!heatmap_mode).to_string()} onclick={set_lanes}>{ "Lanes" }</button>
            <button type="button" class={classes!("seg", heatmap_mode.then_some("on"))} id="timeline-mode-heatmap" aria-pressed={heatmap_mode.to_string()} onclick={set_heatmap} title="Sub-second heatmap: seconds across, 20 ms rows down">{ "Heatmap" }</button>
        </span>
    };
    let origin = o.sample_range.map_or(0, |r| r.0);

    html! {
        <section class="view timeline-view" id="panel-timeline" role="tabpanel" aria-labelledby="tab-timeline">
            <SampleControls state={props.state.clone()} profile={props.profile.clone()} on_action={props.on_action.clone()} />
            <div class="view-bar">
                { mode_switch }
                if !heatmap_mode {
                <span class="muted" data-field="timeline-range" data-start={start.to_string()} data-end={end.to_string()}>
                    { format!("{} – {} · {} shown", duration_ns(start.saturating_sub(origin)), duration_ns(end.saturating_sub(origin)), duration_ns(end - start)) }
                </span>
                <span class="muted small">{ format!("starts at {} s", perf_time(origin)) }</span>
                if o.idle_threads > 0 {
                    <span class="muted small" data-field="idle-threads">{ format!("· {} idle threads hidden", o.idle_threads) }</span>
                }
                <span class="spacer" />
                <span class="hint muted small" title="Drag to select a range (it filters every view) · Shift+drag to pan · wheel to zoom, Shift+wheel to pan · ←/→ pan, +/− zoom, 0 reset, Enter zoom to the selection, Esc clear it · click a thread's name to filter by it">{ "Drag: select · Wheel: zoom" }</span>
                <button type="button" class="button small" id="zoom-selection" disabled={state.view.selection.is_none()} onclick={zoom_to_selection}>{ "Zoom to selection" }</button>
                <button type="button" class="button small" id="reset-zoom" disabled={state.view.viewport.is_none()} onclick={reset}>{ "Reset zoom" }</button>
                }
            </div>
            <lanes::LaneList profile={props.profile.clone()} />
            // A fixed number of children here too (see the tooltip).
            <div class="heatmap-slot" hidden={!heatmap_mode}>
                if heatmap_mode {
                    <heatmap::HeatmapView state={props.state.clone()} wanted={crate::selectors::heatmap_query(state)} generation={o.generation} on_action={props.on_action.clone()} />
                }
            </div>
            // Kept while the heatmap shows (hidden), so that its width is observed throughout.
            <div ref={container} class="timeline-scroll" hidden={heatmap_mode} {onscroll}>
                <div class="timeline-rows" style={format!("height:{height}px")}>
                <canvas ref={canvas} class="timeline-canvas" tabindex="0" data-current={current.to_string()}
                        aria-label="Timeline: drag to select a time range, wheel to zoom, arrow keys to pan"
                        data-markers={marker_summary.unwrap_or_default()} data-activity={activity.to_string()} data-highlighted={highlighted.to_string()}
                        {onpointerdown} {onpointermove} {onpointerup} {onkeydown} {onpointerleave} />
                </div>
                { tip }
            </div>
        </section>
    }
}
