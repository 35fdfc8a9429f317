//! The flame graph drawn while a big file is still being read: the worker's preview of the
//! samples read so far (an evenly spaced subset of them), drawn like the real one but without
//! interaction, under a caption that says what it is. The real flame graph replaces it when the
//! profile is complete.

use std::rc::Rc;

use yew::prelude::*;

use super::{draw, layout};
use crate::components::canvas::{css_var, timed, use_frame_scheduler, use_width};
use crate::display::{grouped, percent};
use crate::protocol::PreviewReply;
use crate::selectors::TreeIndex;
use crate::state::{ColorBy, Shared};

/// Properties of [`PreviewFlame`].
#[derive(Properties, PartialEq)]
pub struct PreviewProps {
    /// The latest preview.
    pub preview: Shared<PreviewReply>,
    /// Whether the file was read (the real flame graph is being made).
    #[prop_or_default]
    pub read: bool,
}

/// Files from this size on take long enough to read for a preview: its place is kept from the
/// start, so that the summary under it does not move down when it comes.
pub const PREVIEW_FILE_BYTES: u64 = 48 << 20;

/// The preview's place before it comes (same height), for a big perf.data (whose summary, read
/// from its header, shows at the same time).
#[function_component(PreviewPlace)]
pub fn preview_place() -> Html {
    html! {
        <section class="preview-flame" id="flame-preview-place" aria-hidden="true">
            <p class="muted small">{ "A preview of the flame graph comes here while the file is read." }</p>
            <div class="flame-scroll" />
        </section>
    }
}

/// What the preview shows, in words; `read`: the file was read since.
pub fn caption(p: &PreviewReply, read: bool) -> String {
    let share = if p.total > 0.0 {
        (p.bytes / p.total * 100.0).clamp(0.0, 100.0)
    } else {
        0.0
    };
    let event = p
        .event
        .as_deref()
        .map(|e| format!(" of {e}"))
        .unwrap_or_default();
    let of = if p.taken == p.seen {
        format!("{} samples{event}", grouped(p.taken))
    } else {
        format!(
            "{} of the {} samples{event} (every {})",
            grouped(p.taken),
            grouped(p.seen),
            ordinal(p.step)
        )
    };
    let next = if read {
        "The flame graph of every sample is being made."
    } else {
        "The full flame graph follows when the file is read."
    };
    format!("Preview: {of} in the first {share:.0} % of the file. {next}")
}

/// "2nd", "3rd", "10th".
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The preview flame graph (roots at the bottom, as the real one's default).
#[function_component(PreviewFlame)]
pub fn preview_flame(props: &PreviewProps) -> Html {
    let container = use_node_ref();
    let canvas = use_node_ref();
    let width = use_width(container.clone());
    let scheduler = use_frame_scheduler();
    let hover = use_state_eq(|| None::<super::Hover>);
    let p = props.preview.clone();
    let parts = use_memo(Shared::id(&p), {
        let p = p.clone();
        move |_| {
            let (data, nodes) = p.tree();
            let index = TreeIndex::new(&nodes);
            Rc::new((data, nodes, index))
        }
    });
    let rows = p.depth.iter().max().map_or(1, |d| d + 1);
    let vp = layout::Viewport::new(&parts.1, None, p.taken as f64, rows, width, false);
    let placed = Rc::new(layout::layout(&parts.1, &parts.2, &vp));
    // Roots too narrow to keep: the gray band under the roots, as in the real graph.
    let roots: f64 = parts
        .2
        .roots
        .iter()
        .filter_map(|&r| p.width.get(r as usize))
        .sum();
    let band = (roots < p.taken as f64).then(|| vp.row_y(0));
    {
        let (canvas, placed, parts) = (canvas.clone(), placed.clone(), parts.clone());
        let scheduler = scheduler.clone();
        let drawn = format!("{}:{}", p.taken, parts.1.len());
        let hovered = hover.map(|h| h.node);
        use_effect_with((Shared::id(&p), width.to_bits(), hovered), move |_| {
            scheduler.schedule(move || {
                let Some((el, ctx)) = super::sized_canvas(&canvas, &placed) else {
                    return;
                };
                let style = draw::Style {
                    profile: &parts.0,
                    nodes: &parts.1,
                    color_by: ColorBy::default(),
                    matched: None,
                    selected_func: None,
                    hovered,
                    accent: css_var("--accent", "#2563eb"),
                    background: css_var("--canvas-bg", "#ffffff"),
                    elided_band: band,
                    command_bands: &[],
                    elided_color: css_var("--elided", "#d9dde3"),
                };
                // Its own measure, so that the page's flame-graph timings stay the real one's.
                timed("perfscope:preview-draw", || {
                    draw::draw(&ctx, &placed, &style);
                });
                let _ = el.set_attribute("data-drawn", &drawn);
            });
        });
    }
    let onmousemove = {
        let (hover, placed) = (hover.clone(), placed.clone());
        Callback::from(move |e: MouseEvent| {
            let at = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            hover.set(layout::hit_test(&placed, at.0, at.1).map(|node| super::Hover::at(node, &e)));
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let tooltip = hover.and_then(|h| {
        let i = h.node as usize;
        let name = p.func.get(i).and_then(|&f| p.names.get(f as usize))?;
        let width = p.width.get(i).copied().unwrap_or(0.0);
        let (left, top) = super::tooltip_position(h);
        Some(html! {
            <div class="tooltip" role="tooltip" style={format!("left:{left}px;top:{top}px")} data-field="preview-tooltip">
                <div class="tt-name">{ name.clone() }</div>
                <div class="tt-module muted">{ format!("{} of the {} samples of the preview", percent(width / (p.taken.max(1) as f64)), grouped(p.taken)) }</div>
            </div>
        })
    });
    html! {
        <section class="preview-flame" id="flame-preview" aria-label="Flame graph preview">
            <p class="muted small" data-field="preview-caption">{ caption(&p, props.read) }</p>
            <div ref={container} class="flame-scroll bottom-up">
                <canvas ref={canvas} class="preview-canvas" aria-label="Flame graph of the samples read so far"
                        data-nodes={p.func.len().to_string()} data-taken={p.taken.to_string()}
                        {onmousemove} {onmouseleave} />
            </div>
            { tooltip.unwrap_or_default() }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captions_say_how_many_samples_of_how_much_of_the_file() {
        let p = PreviewReply {
            taken: 20_000,
            seen: 812_345,
            bytes: 31.0,
            total: 100.0,
            step: 41,
            event: Some("cycles".into()),
            ..PreviewReply::default()
        };
        assert_eq!(
            caption(&p, false),
            "Preview: 20,000 of the 812,345 samples of cycles (every 41st) in the first 31 % of \
             the file. The full flame graph follows when the file is read."
        );
        assert!(caption(&p, true).ends_with("file. The flame graph of every sample is being made."));
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(22), "22nd");
        assert_eq!(ordinal(3), "3rd");
    }
}
