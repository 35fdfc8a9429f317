//! The parts of the summary that come from reading every record: samples per event and per
//! thread, record counts per type, lost and throttled samples, symbol files, and why the flame
//! graph may mislead.

use yew::prelude::*;

use crate::display::{duration_ns, grouped, perf_time};
use crate::protocol::ProfileData;
use crate::state::shared::Shared;

/// Properties of [`ProfileSummary`].
#[derive(Properties, PartialEq)]
pub struct ProfileSummaryProps {
    /// The analysis.
    pub profile: Shared<ProfileData>,
}

/// Rows of the threads table shown before "Show all": the busiest threads. A system-wide
/// recording has thousands (13 000 elements for 2 650 threads made the page take ~0.3 s more to
/// show a loaded profile); the timeline lists every one.
const THREAD_ROWS: usize = 200;

/// Warnings, then samples, threads, records and symbol cards.
#[function_component(ProfileSummary)]
pub fn profile_summary(props: &ProfileSummaryProps) -> Html {
    let o = &props.profile.overview;
    let all_threads = use_state_eq(|| false);
    let shown_threads = if *all_threads {
        o.comms.len()
    } else {
        o.comms.len().min(THREAD_ROWS)
    };
    let show_all = {
        let all_threads = all_threads.clone();
        Callback::from(move |_: MouseEvent| all_threads.set(true))
    };
    let l = &o.lost;
    let mut warnings = Vec::new();
    if l.lost_records > 0 {
        warnings.push(format!(
            "{} events were lost ({} PERF_RECORD_LOST records): the ring buffer overflowed, so the profile under-counts the busiest moments.",
            grouped(l.lost_events),
            grouped(l.lost_records)
        ));
    }
    if l.lost_samples_records > 0 {
        warnings.push(format!(
            "{} samples were lost ({} PERF_RECORD_LOST_SAMPLES records).",
            grouped(l.lost_samples),
            grouped(l.lost_samples_records)
        ));
    }
    if l.throttle > 0 {
        warnings.push(format!(
            "Sampling was throttled {} times ({} unthrottled): the kernel lowered the rate because sampling took too long; some periods have fewer samples.",
            grouped(l.throttle),
            grouped(l.unthrottle)
        ));
    }
    let span = o.sample_range.map(|(a, b)| {
        format!(
            "{} – {} s ({})",
            perf_time(a),
            perf_time(b),
            duration_ns(b - a)
        )
    });
    html! {
        <>
            if !warnings.is_empty() {
                <section class="panel warning" id="lost-warning" data-field="lost-warning">
                    <h2>{ "Samples are missing" }</h2>
                    <ul>{ for warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                </section>
            }
            if !o.reasons.is_empty() {
                <section class="panel info" id="reasons">
                    <h2>{ "About the flame graph" }</h2>
                    <ul>{ for o.reasons.iter().map(|r| html! { <li data-reason={r.code.clone()}>{ &r.message }</li> }) }</ul>
                </section>
            }
            <div class="grid">
                <section class="card" id="samples-card">
                    <h2>{ "Samples" }<span class="count" data-field="sample-count">{ grouped(o.samples) }</span></h2>
                    <dl class="facts">
                        <div class="fact"><dt>{ "Time span" }</dt><dd><span class="value mono small" data-field="sample-span">{ span.unwrap_or_else(|| "—".into()) }</span></dd></div>
                        <div class="fact"><dt>{ "Threads" }</dt><dd><span class="value">{ grouped(o.threads.len() as u64) }</span><span class="detail">{ format!("in {} processes", o.processes.len()) }</span></dd></div>
                        <div class="fact"><dt>{ "CPUs" }</dt><dd><span class="value">{ if o.cpus.is_empty() { "not recorded".to_string() } else { o.cpus.len().to_string() } }</span></dd></div>
                    </dl>
                    <table class="feature-table" data-field="event-samples">
                        <thead><tr><th>{ "Event" }</th><th class="num">{ "Samples" }</th><th class="num">{ "Period" }</th><th>{ "Stacks" }</th></tr></thead>
                        <tbody>
                            { for o.events.iter().map(|e| html! {
                                <tr data-event={e.name.clone()}>
                                    <td class="mono">{ &e.name }</td>
                                    <td class="num" data-field="event-sample-count">{ grouped(e.samples) }</td>
                                    <td class="num">{ grouped(e.period) }</td>
                                    <td>{ if e.dwarf { "DWARF" } else if e.callchain { "frame pointers" } else { "none" } }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </section>
                <section class="card" id="records-card">
                    <h2>{ "Records" }<span class="count" data-field="record-count">{ grouped(o.records) }</span></h2>
                    <table class="feature-table" data-field="record-counts">
                        <thead><tr><th>{ "Type" }</th><th class="num">{ "Count" }</th></tr></thead>
                        <tbody>
                            { for o.record_counts.iter().map(|c| html! {
                                <tr data-record-type={c.name.clone()}><td class="mono">{ &c.name }</td><td class="num" data-count={c.count.to_string()}>{ grouped(c.count) }</td></tr>
                            }) }
                        </tbody>
                    </table>
                </section>
            </div>
            <section class="card" id="threads-card">
                <h2>{ "Threads" }<span class="count">{ grouped(o.comms.len() as u64) }</span></h2>
                <div class="table-scroll short">
                    <table class="feature-table threads" data-field="threads">
                        <thead><tr><th>{ "Command" }</th><th class="num">{ "PID" }</th><th class="num">{ "TID" }</th><th class="num">{ "Samples" }</th></tr></thead>
                        <tbody>
                            { for o.comms.iter().take(shown_threads).map(|c| html! {
                                <tr data-field="thread-row" data-comm={c.comm.clone()} data-pid={c.pid.to_string()} data-tid={c.tid.to_string()} data-samples={c.samples.to_string()}>
                                    <td class="mono">{ &c.comm }</td><td class="num">{ c.pid }</td><td class="num">{ c.tid }</td><td class="num">{ grouped(c.samples) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
                if shown_threads < o.comms.len() {
                    <p class="more-rows" data-field="threads-more">
                        { format!("The {} busiest of {} threads. ", grouped(shown_threads as u64), grouped(o.comms.len() as u64)) }
                        <button type="button" class="link" id="show-all-threads" onclick={show_all}>{ "Show all" }</button>
                    </p>
                }
            </section>
            if !o.symbol_files.is_empty() {
                <section class="card" id="symbols-card">
                    <h2>{ "Symbol files" }</h2>
                    <table class="feature-table" data-field="symbol-files">
                        <thead><tr><th>{ "File" }</th><th>{ "Kind" }</th><th>{ "" }</th></tr></thead>
                        <tbody>
                            { for o.symbol_files.iter().map(|f| html! {
                                <tr class={classes!((!f.ok).then_some("bad"))} data-symbol-file={f.name.clone()} data-ok={f.ok.to_string()}>
                                    <td class="mono">{ &f.name }</td><td>{ &f.kind }</td><td>{ &f.detail }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </section>
            }
        </>
    }
}
