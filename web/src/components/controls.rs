//! The bar above every sample view: the event and weight selectors, the time selection (typed
//! as `perf --time` takes it, or dragged in the timeline), the command filter and the thread
//! filter.

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

use crate::display::{duration_ns, grouped, parse_perf_range, perf_time};
use crate::protocol::{ProfileData, WeightKind};
use crate::selectors::{command_of, commands};
use crate::state::shared::Shared;
use crate::state::{AppState, ViewAction};

/// Properties of [`SampleControls`].
#[derive(Properties, PartialEq)]
pub struct SampleControlsProps {
    /// The state.
    pub state: Rc<AppState>,
    /// The profile.
    pub profile: Shared<ProfileData>,
    /// View changes.
    pub on_action: Callback<ViewAction>,
}

/// One button of a segmented group of view settings: pressed when `on`; a click applies
/// `action`.
pub fn view_toggle(
    on_action: &Callback<ViewAction>,
    label: &'static str,
    id: &'static str,
    on: bool,
    action: ViewAction,
) -> Html {
    let cb = on_action.reform(move |_: MouseEvent| action.clone());
    html! { <button type="button" id={id} class={classes!("seg", on.then_some("on"))} aria-pressed={on.to_string()} onclick={cb}>{ label }</button> }
}

/// The Functions / Commands switch of the flame graph and the call tree, its two buttons' ids
/// given.
pub fn roots_switch(
    on_action: &Callback<ViewAction>,
    by_command: bool,
    (functions, commands): (&'static str, &'static str),
) -> Html {
    html! {
        <div class="segmented" role="group" aria-label="Roots" title="Commands: a root per command (its processes by name), each over its own samples">
            { view_toggle(on_action, "Functions", functions, !by_command, ViewAction::ByCommand(false)) }
            { view_toggle(on_action, "Commands", commands, by_command, ViewAction::ByCommand(true)) }
        </div>
    }
}

/// `start,end` as perf prints and takes it.
pub fn range_text(range: Option<(u64, u64)>) -> String {
    match range {
        Some((a, b)) => format!(
            "{},{}",
            perf_time(a),
            if b == u64::MAX {
                String::new()
            } else {
                perf_time(b)
            }
        ),
        None => String::new(),
    }
}

/// The busiest commands offered in the command filter.
const COMMAND_OPTIONS: usize = 200;

/// Threads named in the thread filter's chip; the rest are counted.
const CHIP_THREADS: usize = 3;

/// Event, weight, time selection, command and thread filter.
#[function_component(SampleControls)]
pub fn sample_controls(props: &SampleControlsProps) -> Html {
    let view = &props.state.view;
    let overview = &props.profile.overview;
    let off_cpu = crate::selectors::off_cpu_shown(&props.state);
    let range_error = use_state_eq(|| false);

    let onevent = props.on_action.reform(|e: Event| {
        let v = e.target_unchecked_into::<HtmlSelectElement>().value();
        ViewAction::Event(v.parse().ok())
    });
    let onweight = props.on_action.reform(|e: Event| {
        let v = e.target_unchecked_into::<HtmlSelectElement>().value();
        match v.as_str() {
            "offcpu" => ViewAction::OffCpu(true),
            "period" => ViewAction::Weight(WeightKind::Period),
            _ => ViewAction::Weight(WeightKind::Samples),
        }
    });
    let apply_range = {
        let (on_action, range_error) = (props.on_action.clone(), range_error.clone());
        move |input: HtmlInputElement| {
            let text = input.value();
            if text.trim().is_empty() {
                range_error.set(false);
                on_action.emit(ViewAction::Select(None));
            } else if let Some(r) = parse_perf_range(&text) {
                range_error.set(false);
                on_action.emit(ViewAction::Select(Some(r)));
            } else {
                range_error.set(true);
            }
        }
    };
    let onkeydown = {
        let apply = apply_range.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                apply(e.target_unchecked_into::<HtmlInputElement>());
            }
        })
    };
    let onchange =
        Callback::from(move |e: Event| apply_range(e.target_unchecked_into::<HtmlInputElement>()));
    let clear = props
        .on_action
        .reform(|_: MouseEvent| ViewAction::Select(None));
    let clear_threads = props
        .on_action
        .reform(|_: MouseEvent| ViewAction::Threads(Vec::new()));
    let commands = use_memo(
        (
            props.profile.overview.generation,
            Shared::id(&props.profile),
        ),
        {
            let profile = props.profile.clone();
            move |_| commands(&profile.overview)
        },
    );
    let chosen = command_of(&commands, &view.threads);
    let oncommand = {
        let (on_action, commands) = (props.on_action.clone(), commands.clone());
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            match v.parse::<usize>().ok().and_then(|i| commands.get(i)) {
                Some(c) => on_action.emit(ViewAction::Threads(c.lanes.clone())),
                None if v.is_empty() => on_action.emit(ViewAction::Threads(Vec::new())),
                None => {}
            }
        })
    };
    // The chip: the command, or the first threads and how many more (only those named: a
    // command's thread filter may hold thousands).
    let picked: Vec<_> = view
        .threads
        .iter()
        .filter_map(|&l| overview.threads.get(l as usize))
        .collect();
    let chip = match chosen {
        Some(c) if c.lanes.len() > 1 => format!(
            "{}: {} threads in {} process{}",
            c.name,
            grouped(c.lanes.len() as u64),
            grouped(c.processes as u64),
            if c.processes == 1 { "" } else { "es" }
        ),
        _ => {
            let named: Vec<String> = picked
                .iter()
                .take(CHIP_THREADS)
                .map(|t| format!("{} {}/{}", t.name, t.pid, t.tid))
                .collect();
            match picked.len().checked_sub(CHIP_THREADS).filter(|&n| n > 0) {
                Some(more) => format!(
                    "{} + {} more threads",
                    named.join(", "),
                    grouped(more as u64)
                ),
                None => named.join(", "),
            }
        }
    };

    html! {
        <div class="controls">
            <label class="control">
                <span>{ "Event" }</span>
                <select id="event-select" onchange={onevent} disabled={overview.events.len() < 2 || off_cpu}
                        title={if off_cpu { "Off-CPU time is of every thread's switches, whatever the event" } else { "" }}>
                    <option value="" selected={view.event.is_none()}>{ "All events" }</option>
                    { for overview.events.iter().enumerate().map(|(i, e)| html! {
                        <option value={i.to_string()} selected={view.event == Some(i as u32)}>
                            { format!("{} ({} samples)", e.name, grouped(e.samples)) }
                        </option>
                    }) }
                </select>
            </label>
            <label class="control">
                <span>{ "Weight" }</span>
                <select id="weight-select" onchange={onweight}>
                    <option value="samples" selected={!off_cpu && view.weight == WeightKind::Samples}>{ "Samples" }</option>
                    <option value="period" selected={!off_cpu && view.weight == WeightKind::Period}>{ "Period" }</option>
                    if let Some(o) = &overview.off_cpu {
                        <option value="offcpu" selected={off_cpu}>
                            { format!("Off-CPU time ({}{})", duration_ns(o.ns), if o.approximate > 0 { ", approximate stacks" } else { "" }) }
                        </option>
                    }
                </select>
            </label>
            <label class="control range">
                <span title="Seconds, as perf script --time takes them: start,end">{ "Time" }</span>
                <input id="time-range" type="text" class={classes!("mono", range_error.then_some("invalid"))} spellcheck="false"
                       placeholder="start,end (s) — or drag in the timeline" aria-invalid={range_error.to_string()}
                       value={range_text(view.selection)} {onkeydown} {onchange} />
            </label>
            if let Some((a, b)) = view.selection {
                <span class="chip" data-field="selection" data-start={a.to_string()} data-end={b.to_string()}>
                    { if b == u64::MAX { "from start".to_string() } else { duration_ns(b - a) } }
                    <button type="button" class="chip-x" id="clear-selection" aria-label="Clear the time selection" onclick={clear}>{ "×" }</button>
                </span>
            }
            if commands.len() > 1 {
                <label class="control">
                    <span>{ "Command" }</span>
                    <select id="command-select" onchange={oncommand}>
                        <option value="" selected={view.threads.is_empty()}>{ format!("All commands ({})", grouped(commands.len() as u64)) }</option>
                        if !view.threads.is_empty() && chosen.is_none() {
                            <option value="threads" selected=true disabled=true>{ "Threads picked in the timeline" }</option>
                        }
                        { for commands.iter().take(COMMAND_OPTIONS).enumerate().map(|(i, c)| html! {
                            <option value={i.to_string()} selected={chosen.is_some_and(|x| std::ptr::eq(x, c))}>
                                { format!("{} ({} samples)", c.name, grouped(c.samples)) }
                            </option>
                        }) }
                    </select>
                </label>
            }
            if !picked.is_empty() {
                <span class="chip" data-field="thread-filter" data-threads={picked.len().to_string()}>
                    { chip }
                    <button type="button" class="chip-x" aria-label="Show all threads" onclick={clear_threads}>{ "×" }</button>
                </span>
            }
        </div>
    }
}
