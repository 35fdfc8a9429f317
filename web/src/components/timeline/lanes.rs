//! The lanes as a list for assistive technology and tests (the canvas draws them): a thread's
//! name, pid/tid and samples, a CPU's samples. Its own component, so that it renders once per
//! profile rather than on every zoom or pan step (a system-wide recording has thousands of
//! lanes).

use yew::prelude::*;

use crate::protocol::ProfileData;
use crate::state::shared::Shared;

/// Properties of [`LaneList`].
#[derive(Properties, PartialEq)]
pub struct LaneListProps {
    /// The profile.
    pub profile: Shared<ProfileData>,
}

/// A visually hidden list of the timeline's lanes.
#[function_component(LaneList)]
pub fn lane_list(props: &LaneListProps) -> Html {
    let o = &props.profile.overview;
    html! {
        <ol class="visually-hidden" data-field="lanes" aria-label="Threads and CPUs">
            { for o.threads.iter().enumerate().map(|(i, t)| html! {
                <li data-lane={i.to_string()} data-pid={t.pid.to_string()} data-tid={t.tid.to_string()} data-name={t.name.clone()} data-samples={t.samples.to_string()}>
                    { format!("{} {}/{}: {} samples", t.name, t.pid, t.tid, t.samples) }
                </li>
            }) }
            { for o.cpus.iter().map(|c| html! { <li data-cpu={c.cpu.to_string()} data-samples={c.samples.to_string()}>{ format!("CPU {}: {} samples", c.cpu, c.samples) }</li> }) }
        </ol>
    }
}
