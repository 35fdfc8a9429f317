//! The records view: every record of the file in file order, in a virtualized table (only the
//! visible rows exist in the DOM; rows come from the worker a page at a time), filtered by type,
//! pid, tid, CPU and the time selection. Selecting a sample shows its stack.

use std::rc::Rc;

use web_sys::{Element, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

use super::canvas::use_width;
use crate::display::{grouped, perf_time};
use crate::protocol::{ProfileData, Query, RecordFilter, RecordsReply, StackReply};
use crate::selectors::{basename, func_module, func_name};
use crate::state::shared::Shared;
use crate::state::{AppState, ViewAction};

use super::records_scroll::{RowScroll, ROW_HEIGHT};

/// Properties of [`RecordsView`].
#[derive(Properties, PartialEq)]
pub struct RecordsProps {
    /// The state.
    pub state: Rc<AppState>,
    /// The profile.
    pub profile: Shared<ProfileData>,
    /// The records query the view needs.
    pub wanted: Option<Query>,
    /// View changes.
    pub on_action: Callback<ViewAction>,
}

fn opt(v: u32) -> String {
    if v == u32::MAX {
        String::new()
    } else {
        v.to_string()
    }
}

fn parse_opt(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

/// The records tab.
#[function_component(RecordsView)]
pub fn records_view(props: &RecordsProps) -> Html {
    let view = &props.state.view;
    let o = &props.profile.overview;
    let reply: Option<Shared<RecordsReply>> = props.state.results.records.clone();
    let current = reply.as_ref().is_some_and(|r| r.meta.query == props.wanted);
    let scroller = use_node_ref();
    let _width = use_width(scroller.clone());
    let matching = reply.as_ref().map_or(0, |r| r.meta.matching);

    // Rows that fit: measured from the scroller.
    {
        let (scroller, on_action) = (scroller.clone(), props.on_action.clone());
        use_effect_with((), move |_| {
            if let Some(el) = scroller.cast::<Element>() {
                let rows = (f64::from(el.client_height()) / ROW_HEIGHT).ceil() as u32 + 1;
                on_action.emit(ViewAction::RecordRows(rows.max(10)));
            }
        });
    }
    // Pixels to rows (scaled for a table taller than a browser draws).
    let geometry = RowScroll {
        matching,
        visible: u64::from(view.record_rows.max(10).saturating_sub(1)),
    };
    let onscroll = {
        let (scroller, on_action, current_row) = (
            scroller.clone(),
            props.on_action.clone(),
            view.record_scroll,
        );
        Callback::from(move |_: Event| {
            if let Some(el) = scroller.cast::<Element>() {
                let row =
                    u32::try_from(geometry.row_at(f64::from(el.scroll_top()))).unwrap_or(u32::MAX);
                if row != current_row {
                    on_action.emit(ViewAction::RecordScroll(row));
                }
            }
        })
    };

    let filter = view.record_filter.clone();
    let set_filter = {
        let on_action = props.on_action.clone();
        move |f: RecordFilter| on_action.emit(ViewAction::RecordFilter(f))
    };
    let ontype = {
        let (f, set) = (filter.clone(), set_filter.clone());
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            set(RecordFilter {
                types: v.parse().map(|t| vec![t]).unwrap_or_default(),
                ..f.clone()
            });
        })
    };
    let number_input = |id: &'static str,
                        label: &'static str,
                        value: Option<u32>,
                        apply: fn(&mut RecordFilter, Option<u32>)| {
        let (f, set) = (filter.clone(), set_filter.clone());
        let onchange = Callback::from(move |e: Event| {
            let mut f = f.clone();
            apply(
                &mut f,
                parse_opt(&e.target_unchecked_into::<HtmlInputElement>().value()),
            );
            set(f);
        });
        html! {
            <label class="control small">
                <span>{ label }</span>
                <input id={id} type="text" inputmode="numeric" class="mono num-input" value={value.map(|v| v.to_string()).unwrap_or_default()} {onchange} />
            </label>
        }
    };
    let type_name = |t: u32| {
        o.record_counts
            .iter()
            .find(|c| c.type_ == t)
            .map_or_else(|| t.to_string(), |c| c.name.clone())
    };

    // The rows to draw: the visible window, from the page the worker sent.
    let first = view.record_scroll as u64;
    let count = u64::from(view.record_rows.max(10));
    let last = (first + count).min(matching);
    let rows_html = (first..last).map(|row| {
        let top = geometry.row_top(row, first);
        let style = format!("top:{top}px");
        let Some(r) = reply.as_ref().filter(|r| row >= u64::from(r.meta.start) && row < u64::from(r.meta.start) + r.rows.index.len() as u64) else {
            return html! { <div class="row loading" {style} data-row={row.to_string()}><span class="muted">{ "…" }</span></div> };
        };
        let k = (row - u64::from(r.meta.start)) as usize;
        let rows = &r.rows;
        let index = rows.index.get(k).copied().unwrap_or(0);
        let t = rows.type_.get(k).copied().unwrap_or(0);
        let time = rows.time.get(k).copied().unwrap_or(u64::MAX);
        let selected = view.record_selected == Some(index);
        let onclick = props.on_action.reform(move |_: MouseEvent| ViewAction::RecordSelect(Some(index)));
        html! {
            <div class={classes!("row", selected.then_some("selected"))} {style} role="row" aria-selected={selected.to_string()}
                 data-row={row.to_string()} data-index={index.to_string()} data-type={type_name(t)} {onclick}>
                <span class="c-index num muted">{ index }</span>
                <span class="c-type">{ type_name(t) }</span>
                <span class="c-time num mono">{ if time == u64::MAX { String::new() } else { perf_time(time) } }</span>
                <span class="c-cpu num">{ opt(rows.cpu.get(k).copied().unwrap_or(u32::MAX)) }</span>
                <span class="c-pid num">{ opt(rows.pid.get(k).copied().unwrap_or(u32::MAX)) }</span>
                <span class="c-tid num">{ opt(rows.tid.get(k).copied().unwrap_or(u32::MAX)) }</span>
                <span class="c-fields mono" title={rows.fields.get(k as u32).to_string()}>{ rows.fields.get(k as u32).to_string() }</span>
            </div>
        }
    });
    let onkeydown = {
        let (on_action, selected, matching) =
            (props.on_action.clone(), view.record_selected, matching);
        let reply = reply.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(r) = &reply else { return };
            let pos = selected
                .and_then(|s| r.rows.index.iter().position(|&i| i == s))
                .map(|p| u64::from(r.meta.start) + p as u64);
            let next = match e.key().as_str() {
                "ArrowDown" => Some(pos.map_or(0, |p| (p + 1).min(matching.saturating_sub(1)))),
                "ArrowUp" => pos.map(|p| p.saturating_sub(1)),
                _ => None,
            };
            if let Some(row) = next {
                e.prevent_default();
                if let Some(&index) = row
                    .checked_sub(u64::from(r.meta.start))
                    .and_then(|k| r.rows.index.get(k as usize))
                {
                    on_action.emit(ViewAction::RecordSelect(Some(index)));
                }
            }
        })
    };

    let details = view
        .record_selected
        .map(|index| details(&props.profile, props.state.results.stack.as_deref(), index));
    let selection_note = view
        .selection
        .map(|_| html! { <span class="muted small">{ " in the time selection" }</span> });
    html! {
        <section class="view records-view" id="panel-records" role="tabpanel" aria-labelledby="tab-records">
            <div class="controls">
                <label class="control">
                    <span>{ "Type" }</span>
                    <select id="record-type" onchange={ontype}>
                        <option value="" selected={filter.types.is_empty()}>{ format!("All types ({})", grouped(o.records)) }</option>
                        { for o.record_counts.iter().map(|c| html! {
                            <option value={c.type_.to_string()} selected={filter.types == [c.type_]}>{ format!("{} ({})", c.name, grouped(c.count)) }</option>
                        }) }
                    </select>
                </label>
                { number_input("record-pid", "PID", filter.pid, |f, v| f.pid = v) }
                { number_input("record-tid", "TID", filter.tid, |f, v| f.tid = v) }
                { number_input("record-cpu", "CPU", filter.cpu, |f, v| f.cpu = v) }
                <span class="spacer" />
                <span class="total" data-field="records-matching" data-current={current.to_string()} data-count={matching.to_string()}>
                    { format!("{} of {} records", grouped(matching), grouped(o.records)) }
                    { selection_note.unwrap_or_default() }
                </span>
            </div>
            <div class="records-body">
                <div class="records-table" role="grid" aria-label="Records" aria-rowcount={matching.to_string()}>
                    <div class="row head" role="row">
                        <span class="c-index num">{ "#" }</span>
                        <span class="c-type">{ "Type" }</span>
                        <span class="c-time num">{ "Time (s)" }</span>
                        <span class="c-cpu num">{ "CPU" }</span>
                        <span class="c-pid num">{ "PID" }</span>
                        <span class="c-tid num">{ "TID" }</span>
                        <span class="c-fields">{ "Fields" }</span>
                    </div>
                    <div ref={scroller} class="records-scroll" tabindex="0" {onscroll} {onkeydown}>
                        <div class="records-spacer" style={format!("height:{}px", geometry.spacer())}>
                            { for rows_html }
                        </div>
                    </div>
                </div>
                { details.unwrap_or_default() }
            </div>
        </section>
    }
}

fn details(p: &ProfileData, stack: Option<&StackReply>, index: u32) -> Html {
    let Some(s) = stack.filter(|s| s.record == index) else {
        return html! { <aside class="record-details" data-field="record-details" data-index={index.to_string()}><p class="muted small">{ "Loading…" }</p></aside> };
    };
    let type_name = p
        .overview
        .record_counts
        .iter()
        .find(|c| c.type_ == s.type_)
        .map_or_else(|| s.type_.to_string(), |c| c.name.clone());
    let is_sample = type_name == "SAMPLE";
    let stack_html = if !s.funcs.is_empty() {
        html! {
            <ol class="stack" data-field="record-stack">
                { for s.funcs.iter().map(|&f| html! {
                    <li><span class="fn-name">{ func_name(p, f).to_string() }</span>
                        <span class="muted small">{ format!(" {}", basename(func_module(p, f))) }</span></li>
                }) }
            </ol>
        }
    } else if is_sample {
        html! { <p class="muted small" data-field="record-stack-note">{ s.note.clone().unwrap_or_else(|| "empty stack".into()) }</p> }
    } else {
        Html::default()
    };
    html! {
        <aside class="record-details" data-field="record-details" data-index={index.to_string()}>
            <h3>{ format!("#{index} {type_name}") }</h3>
            <p class="muted small mono">
                { format!("at offset {:#x}", s.offset) }
                { s.time.map(|t| format!(" · {} s", perf_time(t))).unwrap_or_default() }
            </p>
            <pre class="fields">{ &s.fields }</pre>
            if is_sample { <h4>{ "Stack (leaf first)" }</h4> }
            { stack_html }
        </aside>
    }
}
