//! The top bar: the name, the file picker and the example button.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::protocol::js::NamedBlob;

/// Properties of [`Toolbar`].
#[derive(Properties, PartialEq)]
pub struct ToolbarProps {
    /// Files were picked (a perf.data and/or symbol files).
    pub on_open: Callback<Vec<NamedBlob>>,
    /// "Open example" was pressed.
    pub on_example: Callback<()>,
    /// Symbol files are being applied.
    #[prop_or_default]
    pub symbolizing: bool,
}

/// The top bar.
#[function_component(Toolbar)]
pub fn toolbar(props: &ToolbarProps) -> Html {
    let onchange = {
        let on_open = props.on_open.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(files) = input.files() {
                let list: Vec<NamedBlob> = (0..files.length())
                    .filter_map(|i| files.get(i))
                    .map(|f| NamedBlob {
                        name: f.name(),
                        blob: f.into(),
                    })
                    .collect();
                if !list.is_empty() {
                    on_open.emit(list);
                }
            }
            // So that picking the same file again is a change too.
            input.set_value("");
        })
    };
    let onclick = props.on_example.reform(|_: MouseEvent| ());
    html! {
        <header class="toolbar">
            <div class="brand">
                <svg class="logo" viewBox="0 0 16 16" aria-hidden="true">
                    <rect x="1" y="9" width="3" height="6" rx="0.5" />
                    <rect x="5" y="5" width="3" height="10" rx="0.5" />
                    <rect x="9" y="1" width="3" height="14" rx="0.5" />
                    <rect x="13" y="7" width="2" height="8" rx="0.5" />
                </svg>
                <span class="name">{ "Perfscope" }</span>
                <span class="tagline">{ "perf.data viewer · runs in your browser, nothing is uploaded" }</span>
            </div>
            <div class="actions">
                if props.symbolizing { <span class="muted small" id="symbolizing">{ "Applying symbols…" }</span> }
                <label class="button primary" for="file" title="Open a perf.data file, with symbol files if you have them (ELF binaries, kallsyms, perf-PID.map, perf archive)">{ "Open file…" }</label>
                <input type="file" id="file" class="visually-hidden" multiple=true {onchange} />
                <button type="button" id="open-example" class="button" {onclick}>{ "Open example" }</button>
            </div>
        </header>
    }
}
