//! "Copy link": the page's address with the view state in its hash (`crate::state::url`). With
//! `?url=`, the link reopens the same hosted file in the same view.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// Writes `text` to the clipboard (`navigator.clipboard.writeText`); `false` when the browser
/// refuses.
async fn copy_to_clipboard(text: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let clipboard = js_sys::Reflect::get(&window, &JsValue::from_str("navigator"))
        .and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("clipboard")))
        .unwrap_or(JsValue::UNDEFINED);
    let Ok(write) = js_sys::Reflect::get(&clipboard, &JsValue::from_str("writeText")) else {
        return false;
    };
    let Some(write) = write.dyn_ref::<js_sys::Function>() else {
        return false;
    };
    let Ok(promise) = write.call1(&clipboard, &JsValue::from_str(text)) else {
        return false;
    };
    match promise.dyn_into::<js_sys::Promise>() {
        Ok(p) => JsFuture::from(p).await.is_ok(),
        Err(_) => false,
    }
}

/// Properties of [`CopyLink`].
#[derive(Properties, PartialEq)]
pub struct CopyLinkProps {
    /// The page was opened with `?url=` (else the link shows the view but not the file).
    pub hosted: bool,
}

/// The button, and the link it copied (selectable, for browsers without clipboard access).
#[function_component(CopyLink)]
pub fn copy_link(props: &CopyLinkProps) -> Html {
    let copied = use_state_eq(|| None::<(String, bool)>);
    let onclick = {
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            let href = web_sys::window()
                .and_then(|w| w.location().href().ok())
                .unwrap_or_default();
            let copied = copied.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let ok = copy_to_clipboard(&href).await;
                copied.set(Some((href, ok)));
            });
        })
    };
    let title = if props.hosted {
        "Copy a link that opens this file in this view"
    } else {
        "Copy a link to this view (the file itself is not in the link: open it from a URL with ?url= to share both)"
    };
    html! {
        <span class="copy-link">
            <button type="button" class="button" id="copy-link" {title} {onclick}>{ "Copy link" }</button>
            if let Some((href, ok)) = &*copied {
                <input type="text" readonly=true id="share-link" class="share-link" value={href.clone()} aria-label="Link to this view" />
                <span class="muted small" id="copy-status">{ if *ok { "Copied" } else { "Select and copy the link" } }</span>
            }
        </span>
    }
}
