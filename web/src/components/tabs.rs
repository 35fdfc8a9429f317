//! The tab bar: a WAI-ARIA tablist. ←/→, Home and End move between tabs; the digits 1–5 anywhere
//! on the page (outside text fields) jump to a tab.

use web_sys::{HtmlElement, KeyboardEvent};
use yew::prelude::*;

use crate::state::Tab;

/// Properties of [`Tabs`].
#[derive(Properties, PartialEq)]
pub struct TabsProps {
    /// The tab shown.
    pub current: Tab,
    /// A tab was chosen.
    pub on_select: Callback<Tab>,
}

fn focus_tab(tab: Tab) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(&format!("tab-{}", tab.id())));
    if let Some(el) = el.and_then(|e| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(e).ok()) {
        let _ = el.focus();
    }
}

/// The tabs.
#[function_component(Tabs)]
pub fn tabs(props: &TabsProps) -> Html {
    let onkeydown = {
        let (on_select, current) = (props.on_select.clone(), props.current);
        Callback::from(move |e: KeyboardEvent| {
            let i = Tab::ALL.iter().position(|&t| t == current).unwrap_or(0);
            let n = Tab::ALL.len();
            let next = match e.key().as_str() {
                "ArrowRight" => Some((i + 1) % n),
                "ArrowLeft" => Some((i + n - 1) % n),
                "Home" => Some(0),
                "End" => Some(n - 1),
                _ => None,
            };
            if let Some(tab) = next.and_then(|j| Tab::ALL.get(j).copied()) {
                e.prevent_default();
                on_select.emit(tab);
                focus_tab(tab);
            }
        })
    };
    html! {
        <div class="tabs" role="tablist" aria-label="Views" {onkeydown}>
            { for Tab::ALL.iter().enumerate().map(|(i, &tab)| {
                let selected = tab == props.current;
                let onclick = props.on_select.reform(move |_: MouseEvent| tab);
                html! {
                    <button type="button" role="tab" id={format!("tab-{}", tab.id())} class={classes!("tab", selected.then_some("on"))}
                            aria-selected={selected.to_string()} aria-controls={format!("panel-{}", tab.id())}
                            tabindex={if selected { "0" } else { "-1" }} title={format!("{} ({})", tab.label(), i + 1)} {onclick}>
                        { tab.label() }
                    </button>
                }
            }) }
        </div>
    }
}
