//! The flame graph view: a canvas drawn from the worker's tree, with zoom (click, breadcrumbs,
//! Escape), search with highlighted matches and the matched share, a hover tooltip, flame or
//! icicle, colors by name or module.

pub mod draw;
pub mod layout;
pub mod preview;

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlInputElement, KeyboardEvent, MouseEvent};
use yew::prelude::*;

use super::canvas::{css_var, prepare, use_frame_scheduler, use_width};
use super::controls::{roots_switch, view_toggle, SampleControls};
use super::notices::Notices;
use crate::display::{duration_ns, grouped, off_cpu_total, percent};
use crate::protocol::{ProfileData, Query, TreeReply, WeightKind};
use crate::selectors::{
    basename, find_path, func_module, func_name, path_of, search, search_query, search_share,
    TreeIndex,
};
use crate::state::shared::Shared;
use crate::state::{AppState, ColorBy, ViewAction};

/// Properties of [`FlameGraphView`].
#[derive(Properties, PartialEq)]
pub struct FlameGraphProps {
    /// The state (view settings and the worker's answers).
    pub state: Rc<AppState>,
    /// The loaded profile.
    pub profile: Shared<ProfileData>,
    /// The tree query the current view needs.
    pub wanted: Option<Query>,
    /// View changes.
    pub on_action: Callback<ViewAction>,
}

/// The hovered "node" of the band under the roots that stands for the roots left out.
const ELIDED_ROOTS: u32 = u32::MAX;
/// The hovered "node" of the band above command box `n`: `n | ELIDED_UNDER`.
const ELIDED_UNDER: u32 = 1 << 31;

/// From this share of the graph's width, the roots left out are also said above the graph.
const ELIDED_NOTE_SHARE: f64 = 0.1;

/// The node under the pointer, and where the pointer is (for the tooltip).
#[derive(Clone, Copy, PartialEq)]
pub(crate) struct Hover {
    node: u32,
    client_x: i32,
    client_y: i32,
}

impl Hover {
    /// Node `node`, under the pointer of `e`.
    pub(crate) fn at(node: u32, e: &MouseEvent) -> Hover {
        Hover {
            node,
            client_x: e.client_x(),
            client_y: e.client_y(),
        }
    }
}

/// The flame graph tab.
#[function_component(FlameGraphView)]
pub fn flame_graph_view(props: &FlameGraphProps) -> Html {
    let view = &props.state.view;
    let tree: Option<Shared<TreeReply>> = props.state.results.tree.clone();
    // The tree shown is of an earlier query while the worker makes the one wanted (a refilter of
    // millions of samples takes a second or two): dimmed, and said.
    let (current, stale) = crate::selectors::tree_freshness(
        &props.state,
        tree.as_deref(),
        props.wanted.as_ref(),
        props.profile.overview.generation,
    );
    let container = use_node_ref();
    let canvas = use_node_ref();
    let width = use_width(container.clone());
    let hover = use_state_eq(|| None::<Hover>);
    let scheduler = use_frame_scheduler();

    let empty = Shared::new(TreeReply::default());
    let t = tree.clone().unwrap_or(empty);
    let index = use_memo(Shared::id(&t), {
        let t = t.clone();
        move |_| TreeIndex::new(&t.nodes)
    });
    let zoom_node = find_path(&t.nodes, &index, &view.zoom);
    let matches = use_memo((Shared::id(&t), view.search.clone()), {
        let (t, p) = (t.clone(), props.profile.clone());
        move |(_, q)| search(&t, &p, q)
    });
    let vp = layout::Viewport::new(
        &t.nodes,
        zoom_node,
        t.meta.total,
        t.meta.depth,
        width,
        view.icicle,
    );
    let placed = use_memo((Shared::id(&t), zoom_node, width.to_bits(), view.icicle), {
        let (t, index) = (t.clone(), index.clone());
        move |_| Rc::new(layout::layout(&t.nodes, &index, &vp))
    });
    // Roots left out (narrower than the worker's detail) have no parent box to show them: a band
    // under the roots does, when the whole graph is shown.
    let band = (zoom_node.is_none() && t.meta.elided_count > 0 && !t.nodes.is_empty())
        .then(|| vp.row_y(0));
    // With commands as roots, a command's own roots left out are a band above its box.
    let command_bands = use_memo(
        (
            Shared::id(&t),
            zoom_node,
            width.to_bits(),
            view.icicle,
            props.profile.overview.generation,
        ),
        {
            let (placed, t, profile) = (placed.clone(), t.clone(), props.profile.clone());
            move |_| draw::command_bands(&placed, &t.nodes, &profile, view.icicle)
        },
    );

    // One draw per change, in the next animation frame.
    {
        // Keyed by what the picture depends on, not by the addresses of memoized values (a new
        // value may be allocated where the previous one was freed).
        let key = (
            (Shared::id(&t), zoom_node, width.to_bits(), view.icicle),
            view.search.clone(),
            view.selected_func,
            hover.map(|h| h.node),
            view.color_by,
            props.profile.overview.generation,
        );
        let (canvas, placed, matches, t, profile, command_bands) = (
            canvas.clone(),
            (*placed).clone(),
            matches.clone(),
            t.clone(),
            props.profile.clone(),
            command_bands.clone(),
        );
        let (selected_func, color_by, hovered) =
            (view.selected_func, view.color_by, hover.map(|h| h.node));
        let scheduler = scheduler.clone();
        let drawn_key = format!("{}:{}:{}", current, t.nodes.len(), matches.count);
        use_effect_with(key, move |_| {
            scheduler.schedule(move || {
                let Some((el, ctx)) = sized_canvas(&canvas, &placed) else {
                    return;
                };
                let style = draw::Style {
                    profile: &profile,
                    nodes: &t.nodes,
                    color_by,
                    matched: (matches.count > 0).then_some(matches.matched.as_slice()),
                    selected_func,
                    hovered,
                    accent: css_var("--accent", "#2563eb"),
                    background: css_var("--canvas-bg", "#ffffff"),
                    elided_band: band,
                    command_bands: &command_bands,
                    elided_color: css_var("--elided", "#d9dde3"),
                };
                draw::draw(&ctx, &placed, &style);
                let _ = el.set_attribute("data-drawn", &drawn_key);
            });
        });
    }

    let onmousemove = {
        let (hover, placed, t, profile, command_bands) = (
            hover.clone(),
            placed.clone(),
            t.clone(),
            props.profile.clone(),
            command_bands.clone(),
        );
        Callback::from(move |e: MouseEvent| {
            let (x, y) = (e.offset_x(), e.offset_y());
            let (fx, fy) = (f64::from(x), f64::from(y));
            let node = layout::hit_test(&placed, fx, fy)
                .or_else(|| {
                    band.filter(|&top| (top..top + layout::ROW_HEIGHT - 1.0).contains(&fy))
                        .map(|_| ELIDED_ROOTS)
                })
                .or_else(|| {
                    command_bands
                        .iter()
                        .find(|b| {
                            (b.x..b.x + b.w).contains(&fx)
                                && (b.y..b.y + layout::ROW_HEIGHT - 1.0).contains(&fy)
                        })
                        .map(|b| b.node | ELIDED_UNDER)
                });
            // What is under the pointer, published at once (tests read it after moving there).
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                let name = node
                    .and_then(|n| t.nodes.func.get(n as usize))
                    .map(|&f| func_name(&profile, f).to_string())
                    .unwrap_or_default();
                let _ = el.set_attribute("data-hover-name", &name);
                let _ = el.set_attribute("data-hover", &format!("{x},{y}"));
            }
            hover.set(node.map(|node| Hover::at(node, &e)));
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let onclick = {
        let (placed, t, on_action) = (placed.clone(), t.clone(), props.on_action.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some(node) =
                layout::hit_test(&placed, f64::from(e.offset_x()), f64::from(e.offset_y()))
            {
                // A click zooms to the box and selects its function (outlined here, highlighted
                // in the timeline and the call tree), as the call tree's selection does.
                on_action.emit(ViewAction::SelectFunc(
                    t.nodes.func.get(node as usize).copied(),
                ));
                on_action.emit(ViewAction::Zoom(path_of(&t.nodes, node)));
            }
        })
    };
    let onkeydown = {
        let (on_action, zoom) = (props.on_action.clone(), view.zoom.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" && !zoom.is_empty() {
                e.prevent_default();
                let mut parent = zoom.clone();
                parent.pop();
                on_action.emit(ViewAction::Zoom(parent));
            }
        })
    };
    let onsearch = props.on_action.reform(|e: InputEvent| {
        ViewAction::Search(e.target_unchecked_into::<HtmlInputElement>().value())
    });

    let highlighted = view.selected_func.map_or(0, |f| {
        placed
            .boxes
            .iter()
            .filter(|b| t.nodes.func.get(b.node as usize) == Some(&f))
            .count()
    });
    let total_samples = t.meta.samples;
    let weight_total = t.meta.total;
    let off_cpu = crate::selectors::off_cpu_shown(&props.state);
    let tooltip =
        hover.and_then(|h| tooltip(&props.profile, &t, h, view.weight, weight_total, off_cpu));
    let range_attr = view
        .selection
        .map(|(a, b)| format!("{a},{b}"))
        .unwrap_or_default();
    let crumbs = breadcrumbs(&props.profile, &view.zoom, &props.on_action);
    let toggle = |label: &'static str, id: &'static str, on: bool, action: ViewAction| {
        view_toggle(&props.on_action, label, id, on, action)
    };
    // The matched share is the worker's (over every sample: the tree is pruned); until its
    // reply for this text and filter comes, `data-search` stays empty.
    let share = search_share(
        props.state.results.search.as_deref(),
        search_query(&props.state).as_ref(),
        props.profile.overview.generation,
        view.weight,
    );
    let matched_text = if view.search.trim().is_empty() {
        String::new()
    } else {
        let share_text = share.map_or_else(|| "…".to_string(), |(_, s)| percent(s));
        format!(
            "{} match{} · {} matched",
            grouped(matches.count as u64),
            if matches.count == 1 { "" } else { "es" },
            share_text
        )
    };
    let (search_done, (matched_weight, matched_share)) =
        (share.is_some(), share.unwrap_or((0.0, 0.0)));

    // The band's roots said in words when they are a good part of the graph.
    let elided_share = if band.is_some() && weight_total > 0.0 {
        elided_roots_weight(&t, view.weight) / weight_total
    } else {
        0.0
    };
    // Whether the tree shown has a root per command (its left-out roots are commands).
    let by_command = matches!(
        t.meta.query,
        Some(crate::protocol::Query::Tree {
            by_command: true,
            ..
        })
    );
    let elided_note = (elided_share >= ELIDED_NOTE_SHARE).then(|| {
        let each = if t.meta.detail > 0 {
            format!(" (each under 1/{} of the graph)", grouped(t.meta.detail))
        } else {
            String::new()
        };
        let (what, advice) = if by_command {
            ("commands", "Pick one in the Command select")
        } else {
            (
                "root frames",
                "Show Commands as roots, pick a command above, or a thread's name in the timeline,",
            )
        };
        html! {
            <ul class="notices">
                <li class="notice elided-roots" data-field="flame-elided" data-count={t.meta.elided_count.to_string()}
                    data-samples={t.meta.elided_samples.to_string()} data-share={format!("{elided_share:.6}")}
                    title="Stacks begin at many different frames when they were unwound without frame pointers or cut at perf's frame limit.">
                    { format!(
                        "{} {what} too narrow to draw{each} hold {} of it: the gray band. {advice} to see its stacks alone.",
                        grouped(u64::from(t.meta.elided_count)),
                        percent(elided_share),
                    ) }
                </li>
            </ul>
        }
    });

    html! {
        <section class="view flame-view" id="panel-flame" role="tabpanel" aria-labelledby="tab-flame">
            <SampleControls state={props.state.clone()} profile={props.profile.clone()} on_action={props.on_action.clone()} />
            <div class="view-bar">
                <div class="segmented" role="group" aria-label="Orientation">
                    { toggle("Flame", "flame-mode-flame", !view.icicle, ViewAction::Icicle(false)) }
                    { toggle("Icicle", "flame-mode-icicle", view.icicle, ViewAction::Icicle(true)) }
                </div>
                <div class="segmented" role="group" aria-label="Direction">
                    { toggle("Top-down", "flame-topdown", !view.inverted, ViewAction::Inverted(false)) }
                    { toggle("Inverted", "flame-inverted", view.inverted, ViewAction::Inverted(true)) }
                </div>
                { roots_switch(&props.on_action, view.by_command, ("flame-roots-functions", "flame-roots-commands")) }
                <div class="segmented" role="group" aria-label="Colors">
                    { toggle("By name", "color-name", view.color_by == ColorBy::Name, ViewAction::ColorBy(ColorBy::Name)) }
                    { toggle("By module", "color-module", view.color_by == ColorBy::Module, ViewAction::ColorBy(ColorBy::Module)) }
                </div>
                <input type="search" id="flame-search" class="search" placeholder="Search functions…" aria-label="Search functions"
                       value={view.search.clone()} oninput={onsearch} />
                <span class="matched" data-field="search-matched" data-search={if search_done { view.search.clone() } else { String::new() }}
                      data-share={format!("{matched_share:.6}")} data-weight={matched_weight.to_string()} data-count={matches.count.to_string()}>{ matched_text }</span>
                <span class="spacer" />
                <span class="total" data-field="flame-total" data-current={current.to_string()} data-range={range_attr}
                      data-samples={total_samples.to_string()} data-period={t.meta.period.to_string()} data-off-cpu={off_cpu.to_string()}
                      data-worker-ms={format!("{:.1}", t.meta.ms)}>
                    // (The earlier tree's total is not the wanted one's: not shown meanwhile.)
                    if stale {
                        <span class="muted updating" data-field="flame-updating">{ "Updating…" }</span>
                    } else {
                        { match (tree.is_some(), off_cpu) {
                            (false, _) => "…".to_string(),
                            (true, false) => format!("{} samples", grouped(total_samples)),
                            (true, true) => off_cpu_total(t.meta.period, total_samples),
                        } }
                        if view.selection.is_some() { <span class="muted">{ " in the selection" }</span> }
                    }
                </span>
            </div>
            <nav class="breadcrumbs" aria-label="Zoom" data-field="breadcrumbs">{ crumbs }</nav>
            <Notices state={props.state.clone()} profile={props.profile.clone()} on_action={props.on_action.clone()} />
            { elided_note }
            if let (None, Some(p)) = (&tree, &props.state.results.preview) {
                <preview::PreviewFlame preview={p.clone()} read={true} />
            }
            <div ref={container} class={classes!("flame-scroll", (!view.icicle).then_some("bottom-up"), stale.then_some("stale"), (tree.is_none() && props.state.results.preview.is_some()).then_some("waiting"))}
                 aria-busy={stale.to_string()} data-field="flame-scroll">
                if tree.is_some() && t.nodes.is_empty() {
                    <p class="empty" data-field="flame-empty">{ "No samples to draw for this selection." }</p>
                }
                <canvas ref={canvas} class="flame-canvas" tabindex="0" aria-label="Flame graph: click a box to zoom, Escape to zoom out"
                        data-nodes={t.nodes.len().to_string()} data-zoom={zoom_node.map(|z| z.to_string()).unwrap_or_default()}
                        data-selected-func={view.selected_func.map(|f| func_name(&props.profile, f).to_string()).unwrap_or_default()}
                        data-highlighted={highlighted.to_string()} data-boxes={placed.boxes.len().to_string()}
                        {onmousemove} {onmouseleave} {onclick} {onkeydown} />
            </div>
            { tooltip.unwrap_or_default() }
        </section>
    }
}

/// The canvas of `canvas`, sized for `placed`, and its context (`None` before it is mounted or
/// while it has no width).
pub(crate) fn sized_canvas(
    canvas: &NodeRef,
    placed: &layout::Layout,
) -> Option<(HtmlCanvasElement, web_sys::CanvasRenderingContext2d)> {
    let el = canvas.cast::<HtmlCanvasElement>()?;
    if placed.width <= 0.0 {
        return None;
    }
    let ctx = prepare(&el, placed.width, placed.height)?;
    Some((el, ctx))
}

fn breadcrumbs(profile: &ProfileData, zoom: &[u32], on_action: &Callback<ViewAction>) -> Html {
    let all = {
        let cb = on_action.reform(|_: MouseEvent| ViewAction::Zoom(Vec::new()));
        html! { <button type="button" class={classes!("crumb", zoom.is_empty().then_some("current"))} data-depth="0" onclick={cb}>{ "All" }</button> }
    };
    let rest = zoom.iter().enumerate().map(|(i, &f)| {
        let path: Vec<u32> = zoom.iter().take(i + 1).copied().collect();
        let cb = on_action.reform(move |_: MouseEvent| ViewAction::Zoom(path.clone()));
        let last = i + 1 == zoom.len();
        html! {
            <>
                <span class="sep" aria-hidden="true">{ "›" }</span>
                <button type="button" class={classes!("crumb", last.then_some("current"))} data-depth={(i + 1).to_string()} data-field="crumb" onclick={cb}>
                    { func_name(profile, f).to_string() }
                </button>
            </>
        }
    });
    html! { <>{ all }{ for rest }</> }
}

fn tooltip(
    profile: &ProfileData,
    t: &TreeReply,
    h: Hover,
    weight: WeightKind,
    total: f64,
    off_cpu: bool,
) -> Option<Html> {
    if h.node == ELIDED_ROOTS {
        let elided = elided_roots_weight(t, weight);
        return Some(elided_tooltip(
            t,
            h,
            (t.meta.elided_count, elided),
            weight,
            total,
            off_cpu,
        ));
    }
    if h.node & ELIDED_UNDER != 0 {
        // The roots left out of a command's tree.
        let left_out = node_elided(t, (h.node & !ELIDED_UNDER) as usize, weight);
        return Some(elided_tooltip(t, h, left_out, weight, total, off_cpu));
    }
    let i = h.node as usize;
    let n = &t.nodes;
    let func = *n.func.get(i)?;
    let (ts, ss) = (*n.total_samples.get(i)?, *n.self_samples.get(i)?);
    let (tp, sp) = (*n.total_period.get(i)?, *n.self_period.get(i)?);
    let (elided_count, elided) = node_elided(t, i, weight);
    let all_samples = t.meta.samples.max(1) as f64;
    let share = |v: f64, all: f64| {
        if all > 0.0 {
            percent(v / all)
        } else {
            "–".to_string()
        }
    };
    let module = func_module(profile, func);
    let (left, top) = tooltip_position(h);
    Some(html! {
        <div class="tooltip" role="tooltip" style={format!("left:{left}px;top:{top}px")} data-field="tooltip">
            <div class="tt-name" data-field="tooltip-name">{ func_name(profile, func).to_string() }</div>
            <div class="tt-module muted" title={module.to_string()}>{ if module.is_empty() { "unknown module".to_string() } else { basename(module).to_string() } }</div>
            <table>
                <tr><th>{ "Total" }</th><td data-field="tooltip-total">{ format!("{} samples", grouped(ts as u64)) }</td><td>{ share(ts, all_samples) }</td></tr>
                <tr><th>{ "Self" }</th><td data-field="tooltip-self">{ format!("{} samples", grouped(ss as u64)) }</td><td>{ share(ss, all_samples) }</td></tr>
                if off_cpu {
                    <tr><th>{ "Total off-CPU" }</th><td data-field="tooltip-off-cpu">{ duration_ns(tp as u64) }</td><td>{ share(tp, total) }</td></tr>
                    <tr><th>{ "Self off-CPU" }</th><td>{ duration_ns(sp as u64) }</td><td>{ share(sp, total) }</td></tr>
                } else if weight == WeightKind::Period {
                    <tr><th>{ "Total period" }</th><td>{ grouped(tp as u64) }</td><td>{ share(tp, total) }</td></tr>
                    <tr><th>{ "Self period" }</th><td>{ grouped(sp as u64) }</td><td>{ share(sp, total) }</td></tr>
                }
                if elided_count > 0 {
                    { elided_row(elided_count, elided, weight, off_cpu, if weight == WeightKind::Samples { all_samples } else { total }) }
                }
            </table>
        </div>
    })
}

/// Where a tooltip goes: beside the pointer, flipped to its other side near the right and
/// bottom edges of the window so that it stays on screen.
pub(crate) fn tooltip_position(h: Hover) -> (i32, i32) {
    let (vw, vh) = web_sys::window()
        .map(|w| {
            (
                w.inner_width()
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(1280.0),
                w.inner_height()
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(720.0),
            )
        })
        .unwrap_or((1280.0, 720.0));
    let left = if f64::from(h.client_x) + 360.0 > vw {
        (h.client_x - 374).max(4)
    } else {
        h.client_x + 14
    };
    let top = if f64::from(h.client_y) + 150.0 > vh {
        (h.client_y - 140).max(4)
    } else {
        h.client_y + 14
    };
    (left, top)
}

/// A tooltip's row for what was left out: "+ N more", their weight and its share of `all`.
fn elided_row(count: u32, elided: f64, weight: WeightKind, off_cpu: bool, all: f64) -> Html {
    html! {
        <tr class="muted" data-field="tooltip-elided"><th>{ format!("+ {} more", grouped(u64::from(count))) }</th>
            <td>{ match (weight, off_cpu) {
                (_, true) => duration_ns(elided as u64),
                (WeightKind::Samples, false) => format!("{} samples", grouped(elided as u64)),
                (WeightKind::Period, false) => grouped(elided as u64),
            } }</td>
            <td>{ if all > 0.0 { percent(elided / all) } else { "–".to_string() } }</td></tr>
    }
}

/// The weight of the roots left out, in the graph's weight (`total` wide).
fn elided_roots_weight(t: &TreeReply, weight: WeightKind) -> f64 {
    match weight {
        WeightKind::Samples => t.meta.elided_samples as f64,
        WeightKind::Period => t.meta.elided_period as f64,
    }
}

/// How many children of node `i` were left out, and their weight in `weight` units.
fn node_elided(t: &TreeReply, i: usize, weight: WeightKind) -> (u32, f64) {
    let n = &t.nodes;
    let elided = match weight {
        WeightKind::Samples => n.elided_samples.get(i).copied().unwrap_or(0.0),
        WeightKind::Period => n.elided_period.get(i).copied().unwrap_or(0.0),
    };
    (n.elided_count.get(i).copied().unwrap_or(0), elided)
}

/// The tooltip of a band of roots left out (`count` of them, weighing `elided`): under the
/// graph's roots, or above a command's box.
fn elided_tooltip(
    t: &TreeReply,
    h: Hover,
    (count, elided): (u32, f64),
    weight: WeightKind,
    total: f64,
    off_cpu: bool,
) -> Html {
    let (left, top) = tooltip_position(h);
    let all = if weight == WeightKind::Samples {
        t.meta.samples.max(1) as f64
    } else {
        total
    };
    html! {
        <div class="tooltip" role="tooltip" style={format!("left:{left}px;top:{top}px")} data-field="tooltip">
            <div class="tt-name" data-field="tooltip-name">{ "Roots too narrow to draw" }</div>
            <div class="tt-module muted">{ detail_text(t.meta.detail) }</div>
            <table>{ elided_row(count, elided, weight, off_cpu, all) }</table>
        </div>
    }
}

/// "each narrower than 1/N of the graph", for the worker's detail N.
fn detail_text(detail: u64) -> String {
    if detail > 0 {
        format!("each narrower than 1/{} of the graph", grouped(detail))
    } else {
        "each too narrow to draw".to_string()
    }
}
