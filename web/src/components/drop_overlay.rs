//! The overlay shown while a file is dragged over the window.

use yew::prelude::*;

/// "Drop to open" overlay; the drop itself is handled by the app's root element.
#[function_component(DropOverlay)]
pub fn drop_overlay() -> Html {
    html! {
        <div class="drop-overlay" aria-hidden="true">
            <div class="drop-target">
                <div class="drop-title">{ "Drop to open" }</div>
                <div class="drop-hint">{ "The file is read in this tab; nothing is uploaded." }</div>
            </div>
        </div>
    }
}
