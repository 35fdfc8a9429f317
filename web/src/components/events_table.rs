//! The events (attrs) of a file.

use perfscope_analysis::summary::{EventSummary, Summary};
use perfscope_format::constants::attr_type;
use yew::prelude::*;

use crate::display::grouped;
use crate::state::shared::Shared;

/// Properties of [`EventsTable`].
#[derive(Properties, PartialEq)]
pub struct EventsTableProps {
    /// The file's summary (its `events` are shown).
    pub summary: Shared<Summary>,
}

/// One row per event: name, type, config, sampling, sample_type, ids.
#[function_component(EventsTable)]
pub fn events_table(props: &EventsTableProps) -> Html {
    let events = &props.summary.events;
    if events.is_empty() {
        return html! { <p class="missing" data-field="events" data-missing="true">{ "No events in this file." }</p> };
    }
    html! {
        <table class="events" data-field="events">
            <thead>
                <tr>
                    <th class="num">{ "#" }</th>
                    <th>{ "Name" }</th>
                    <th>{ "Type" }</th>
                    <th class="num">{ "Config" }</th>
                    <th class="num">{ "Sampling" }</th>
                    <th>{ "sample_type" }</th>
                    <th class="num">{ "IDs" }</th>
                </tr>
            </thead>
            <tbody>
                { for events.iter().enumerate().map(|(i, e)| event_row(i, e)) }
            </tbody>
        </table>
    }
}

fn event_row(index: usize, e: &EventSummary) -> Html {
    let name = if e.name.is_empty() {
        html! {
            <span class="missing" data-field="event-name" data-missing="true" title="no name in HEADER_EVENT_DESC">
                { format!("{}:0x{:x}", type_name(e.type_), e.config) }
            </span>
        }
    } else {
        html! { <span class="mono" data-field="event-name">{ &e.name }</span> }
    };
    let sampling = match (e.sample_freq, e.sample_period) {
        (Some(freq), _) => format!("{} Hz", grouped(freq)),
        (None, Some(period)) => format!("every {}", grouped(period)),
        (None, None) => "—".to_string(),
    };
    html! {
        <tr data-event-index={index.to_string()}>
            <td class="num muted">{ index }</td>
            <td>{ name }</td>
            <td data-field="event-type">{ type_name(e.type_) }</td>
            <td class="num mono">{ format!("0x{:x}", e.config) }</td>
            <td class="num" data-field="event-sampling">{ sampling }</td>
            <td class="mono small" data-field="event-sample-type">{ e.sample_type.replace('|', " | ") }</td>
            <td class="num">{ e.ids }</td>
        </tr>
    }
}

/// `attr.type` as perf names it; dynamic PMU types print as their number.
fn type_name(type_: u32) -> String {
    match type_ {
        attr_type::HARDWARE => "hardware".into(),
        attr_type::SOFTWARE => "software".into(),
        attr_type::TRACEPOINT => "tracepoint".into(),
        attr_type::HW_CACHE => "hw-cache".into(),
        attr_type::RAW => "raw".into(),
        attr_type::BREAKPOINT => "breakpoint".into(),
        other => format!("pmu {other}"),
    }
}
