//! The banner shown above every view when reading stopped early or records could not be decoded:
//! the first error with its offset, how many records came before it, and the way to them.

use yew::prelude::*;

use crate::display::grouped;
use crate::protocol::ProfileData;
use crate::state::shared::Shared;

/// Properties of [`ErrorBanner`].
#[derive(Properties, PartialEq)]
pub struct ErrorBannerProps {
    /// The analysis.
    pub profile: Shared<ProfileData>,
    /// "Show records" was pressed.
    pub on_show_records: Callback<()>,
}

/// A red strip with the first record error (nothing when there is none).
#[function_component(ErrorBanner)]
pub fn error_banner(props: &ErrorBannerProps) -> Html {
    let o = &props.profile.overview;
    let Some(first) = o.errors.first() else {
        return Html::default();
    };
    let more = o.error_count.saturating_sub(1);
    // A framing error ends the walk: nothing was read after it.
    let stopped = o
        .errors
        .last()
        .is_some_and(|last| last.records_before == o.records);
    let onclick = props.on_show_records.reform(|_: MouseEvent| ());
    html! {
        <div class="banner error" role="alert" id="record-error" data-field="record-error"
             data-offset={first.offset.to_string()} data-records-before={first.records_before.to_string()}>
            <strong>{ if stopped && more == 0 { "Reading stopped early. " } else { "Some records could not be read. " } }</strong>
            <span class="mono" data-field="record-error-message">{ &first.message }</span>
            <span>{ if stopped && more == 0 {
                format!(" — the {} records before it are shown", grouped(first.records_before))
            } else {
                format!(" — {} records were read", grouped(o.records))
            } }</span>
            if more > 0 { <span class="muted">{ format!(" ({} more errors)", grouped(more)) }</span> }
            <button type="button" class="link" id="show-records" {onclick}>{ "Show records" }</button>
        </div>
    }
}
