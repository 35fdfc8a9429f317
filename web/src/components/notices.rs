//! Why the flame graph or call tree may be empty or misleading, said above them (and in the
//! summary): no samples, no call chains, DWARF stacks without binaries, unnamed frames, an event
//! without samples.

use std::rc::Rc;

use yew::prelude::*;

use crate::protocol::{ProfileData, Reason};
use crate::state::shared::Shared;
use crate::state::view::ViewAction;
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
    /// View changes (the naming of frames without a symbol).
    pub on_action: Callback<ViewAction>,
}

/// A compact list of notices (nothing when there are none).
#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    let reasons = current_reasons(&props.state, &props.profile);
    if reasons.is_empty() {
        return Html::default();
    }
    // Frames without a symbol: one per module (`[libc.so.6]`) or one per address
    // (`libc.so.6+0x1f`); the switch builds the profile again.
    // (None: the profile cannot be built again, it is not from a perf.data.)
    let switch = props.profile.overview.by_address.map(|by_address| {
        let on_action = props.on_action.clone();
        let (label, title) = if by_address {
            (
                "One frame per module",
                "Merge the addresses without a symbol into one frame per module ([libc.so.6]), as perf script's collapsers do: reads the file again",
            )
        } else {
            (
                "Each address",
                "Show each address without a symbol as its own frame (libc.so.6+0x1f): reads the file again, and takes longer and more memory on a big recording",
            )
        };
        html! {
            <button type="button" class="notice-switch" data-action="unnamed-by-address" aria-pressed={by_address.to_string()} {title}
                    onclick={Callback::from(move |_| on_action.emit(ViewAction::ByAddress(!by_address)))}>{ label }</button>
        }
    });
    let unnamed = |code: &str| matches!(code, "kernel-unnamed" | "user-unnamed");
    let last_unnamed = reasons.iter().rposition(|r| unnamed(&r.code));
    html! {
        <ul class="notices" data-field="notices">
            { for reasons.iter().enumerate().map(|(i, r)| html! {
                <li class={classes!("notice", r.code.clone())} data-reason={r.code.clone()} title={r.message.clone()}>
                    <span class="notice-text">{ &r.message }</span>
                    if Some(i) == last_unnamed { { switch.clone().unwrap_or_default() } }
                </li>
            }) }
        </ul>
    }
}
