//! The Compare tab: the open profile against a base profile ("Compare with…"), as a
//! differential flame graph — the open profile's boxes colored by the change of their self
//! weight, red where it grew and blue where it shrank (FlameGraph's `difffolded.pl`) — and the
//! functions sorted by change.

use perfscope_analysis::diff::diff_color;
use yew::prelude::*;

use crate::display::duration_ns;
use crate::protocol::{DiffReply, ProfileData, Query};
use crate::selectors::func_name;
use crate::state::shared::Shared;
use crate::state::Compare;

/// The SVG's width in its own units (it scales to the panel).
const WIDTH: f64 = 1200.0;
/// A row's height.
const ROW: f64 = 17.0;
/// Boxes narrower than this are not drawn.
const MIN_WIDTH: f64 = 0.4;
/// Function-table rows shown.
const TABLE_ROWS: usize = 100;

/// Properties of [`CompareView`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// The open profile (names of the boxes).
    pub profile: Shared<ProfileData>,
    /// The comparison, once one was asked for.
    pub compare: Option<Compare>,
    /// The worker's diff.
    pub diff: Option<Shared<DiffReply>>,
}

fn percent(f: f64) -> String {
    format!("{:.2}%", f * 100.0)
}

fn signed_points(f: f64) -> String {
    format!("{:+.2} pp", f * 100.0)
}

/// Whether `d` compares off-CPU times (its weights are ns).
fn is_off_cpu(d: &DiffReply) -> bool {
    matches!(d.meta.query, Some(Query::Diff { off_cpu: true, .. }))
}

/// A weight of `d`: ns off-CPU as a duration, else the number.
fn weight_text(d: &DiffReply, w: f64) -> String {
    if is_off_cpu(d) {
        duration_ns(w.max(0.0).round() as u64)
    } else {
        format!("{w:.0}")
    }
}

/// The differential flame graph as SVG (roots at the bottom).
fn graph(profile: &ProfileData, d: &DiffReply) -> Html {
    let total = d.meta.total;
    if total <= 0.0 {
        return html! { <p class="muted">{ "No samples with stacks in the open profile." }</p> };
    }
    let scale = WIDTH / total;
    let depth = f64::from(d.meta.depth.max(1));
    let height = depth * ROW;
    let boxes = (0..d.func.len()).filter_map(|i| {
        let (x, w, row) = (d.x.get(i)? * scale, d.width.get(i)? * scale, f64::from(*d.depth.get(i)?));
        if w < MIN_WIDTH {
            return None;
        }
        let name = func_name(profile, *d.func.get(i)?);
        let delta = d.delta_self.get(i).copied().unwrap_or(0.0);
        let (r, g, b) = diff_color(delta, d.meta.max_abs_delta);
        let y = height - (row + 1.0) * ROW;
        let new_total = d.width.get(i).copied().unwrap_or(0.0);
        let base_total = d.base_total.get(i).copied().unwrap_or(0.0);
        let sign = if delta < 0.0 { "-" } else { "+" };
        let title = format!(
            "{name}\nnew {}, base {} (scaled), self change {sign}{}",
            weight_text(d, new_total),
            weight_text(d, base_total),
            weight_text(d, delta.abs())
        );
        let chars = ((w - 6.0) / 7.0).floor().max(0.0) as usize;
        let label: String = if chars >= 3 {
            if name.chars().count() > chars { format!("{}…", name.chars().take(chars - 1).collect::<String>()) } else { name.to_string() }
        } else {
            String::new()
        };
        Some(html! {
            <g class="diff-box" data-name={name.to_string()} data-delta={format!("{delta}")}>
                <title>{ title }</title>
                <rect x={format!("{x:.2}")} y={format!("{y:.2}")} width={format!("{:.2}", (w - 0.5).max(0.1))} height={format!("{}", ROW - 1.0)} fill={format!("rgb({r},{g},{b})")} />
                if !label.is_empty() { <text x={format!("{:.2}", x + 3.0)} y={format!("{:.2}", y + ROW - 5.0)}>{ label }</text> }
            </g>
        })
    });
    html! {
        <svg class="diff-graph" id="diff-graph" viewBox={format!("0 0 {WIDTH} {height}")} width={WIDTH.to_string()} height={height.to_string()} role="img" aria-label="Differential flame graph">
            { for boxes }
        </svg>
    }
}

/// The functions by change.
fn table(d: &DiffReply) -> Html {
    html! {
        <table class="data diff-table" id="diff-table">
            <thead><tr>
                <th scope="col">{ "Function" }</th>
                <th scope="col" class="num">{ "Base self" }</th>
                <th scope="col" class="num">{ "New self" }</th>
                <th scope="col" class="num">{ "Self change" }</th>
                <th scope="col" class="num">{ "Base total" }</th>
                <th scope="col" class="num">{ "New total" }</th>
            </tr></thead>
            <tbody>
                { for d.meta.rows.iter().take(TABLE_ROWS).map(|r| {
                    let delta = r.new_self - r.base_self;
                    let class = if delta > 0.0 { "grew" } else if delta < 0.0 { "shrank" } else { "" };
                    html! {
                        <tr data-name={r.name.clone()} data-delta={format!("{delta}")} class={class}>
                            <td class="name">{ &r.name }</td>
                            <td class="num">{ percent(r.base_self) }</td>
                            <td class="num">{ percent(r.new_self) }</td>
                            <td class="num delta">{ signed_points(delta) }</td>
                            <td class="num">{ percent(r.base_total) }</td>
                            <td class="num">{ percent(r.new_total) }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

/// A profile's total in the head line: ns off-CPU as a duration, else the number.
fn total_text(d: &DiffReply, total: u64) -> String {
    if is_off_cpu(d) {
        format!("{} off-CPU", duration_ns(total))
    } else {
        total.to_string()
    }
}

/// The tab.
#[function_component(CompareView)]
pub fn compare_view(props: &CompareProps) -> Html {
    let body = match (&props.compare, &props.diff) {
        (None, _) => html! {
            <p class="muted" id="compare-empty">
                { "Pick a base profile with " }<label class="link" for="compare-file">{ "Compare with…" }</label>
                { " (a perf.data or share file, with its symbol files): the open profile is shown against it." }
            </p>
        },
        (
            Some(Compare {
                error: Some(e),
                name,
                ..
            }),
            _,
        ) => html! {
            <div class="banner error" role="alert" id="compare-error">{ format!("Could not read {name}: {e}") }</div>
        },
        (
            Some(Compare {
                info: None, name, ..
            }),
            _,
        ) => html! { <p class="muted" id="compare-loading">{ format!("Reading {name}…") }</p> },
        (Some(c), None) => html! { <p class="muted">{ format!("Comparing with {}…", c.name) }</p> },
        (Some(_), Some(d)) if d.meta.error.is_some() => html! {
            <div class="banner error" role="alert" id="compare-diff-error">{ d.meta.error.clone().unwrap_or_default() }</div>
        },
        (Some(c), Some(d)) => html! {
            <>
                <p class="compare-head" id="compare-head">
                    { format!("Open profile ({} in all) against ", total_text(d, d.meta.new_total)) }<strong id="compare-base">{ &c.name }</strong>
                    { format!(" ({} in all, scaled to the same total). ", total_text(d, d.meta.base_total)) }
                    <span class="legend"><span class="swatch grew" />{ " grew " }<span class="swatch shrank" />{ " shrank (self weight; the most changed box is fully colored)" }</span>
                </p>
                { graph(&props.profile, d) }
                <h3>{ "Functions by change of their self share" }</h3>
                { table(d) }
            </>
        },
    };
    html! {
        <div class="view compare-view" id="panel-compare" role="tabpanel" aria-labelledby="tab-compare">{ body }</div>
    }
}
