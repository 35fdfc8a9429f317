//! What the page shows while a file is read.

use yew::prelude::*;

use crate::display::size_with_bytes;
use crate::state::FileInfo;

/// Properties of [`LoadingView`].
#[derive(Properties, PartialEq)]
pub struct LoadingProps {
    /// The file being read.
    pub file: FileInfo,
}

/// A spinner with the file's name.
#[function_component(LoadingView)]
pub fn loading_view(props: &LoadingProps) -> Html {
    let size = props.file.size.map(|s| format!(" ({})", size_with_bytes(s))).unwrap_or_default();
    html! {
        <section class="loading" id="loading">
            <span class="spinner" aria-hidden="true" />
            <span>{ "Reading " }<strong>{ &props.file.name }</strong>{ size }{ "…" }</span>
        </section>
    }
}
