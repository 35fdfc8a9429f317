//! Why the flame graph or call tree may be empty or misleading, said above them (and in the
//! summary): no samples, no call chains, DWARF stacks without binaries, unnamed frames, an event
//! without samples.

use std::rc::Rc;

use yew::prelude::*;

use crate::protocol::{ProfileData, Reason};
use crate::state::shared::Shared;
use crate::state::AppState;

/// The reasons that apply to the current view state.
pub fn current_reasons(state: &AppState, profile: &ProfileData) -> Vec<Reason> {
    let o = &profile.overview;
    let mut out: Vec<Reason> = o.reasons.clone();
    if let Some(e) = state.view.event.and_then(|e| o.events.get(e as usize)) {
        if e.samples == 0 && o.samples > 0 {
            out.insert(
                0,
                Reason {
                    code: "no-event-samples".into(),
                    message: format!(
                        "There are no samples for the event {}: pick another event above.",
                        e.name
                    ),
                },
            );
        }
        // Keep only the per-event reasons of the chosen event.
        out.retain(|r| {
            !matches!(r.code.as_str(), "no-callchains" | "dwarf-no-binaries")
                || r.message.contains(&e.name)
        });
    }
    out
}

/// Properties of [`Notices`].
#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    /// The state.
    pub state: Rc<AppState>,
    /// The profile.
    pub profile: Shared<ProfileData>,
}

/// A compact list of notices (nothing when there are none).
#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    let reasons = current_reasons(&props.state, &props.profile);
    if reasons.is_empty() {
        return Html::default();
    }
    html! {
        <ul class="notices" data-field="notices">
            { for reasons.iter().map(|r| html! {
                <li class={classes!("notice", r.code.clone())} data-reason={r.code.clone()} title={r.message.clone()}>{ &r.message }</li>
            }) }
        </ul>
    }
}
