//! What the page shows while a file is read: a progress bar (bytes, then records) and Cancel.

use yew::prelude::*;

use crate::display::{grouped, size_with_bytes};
use crate::protocol::{Phase, Progress};
use crate::state::FileInfo;

/// Properties of [`LoadingView`].
#[derive(Properties, PartialEq)]
pub struct LoadingProps {
    /// The file being read.
    pub file: FileInfo,
    /// The last progress report.
    #[prop_or_default]
    pub progress: Option<Progress>,
    /// Cancel was pressed.
    pub on_cancel: Callback<()>,
}

/// The phase as words.
pub fn phase_label(p: Phase) -> &'static str {
    match p {
        Phase::Read => "Reading the file",
        Phase::Records => "Reading records",
        Phase::Profile => "Building the profile",
        Phase::Symbols => "Reading symbol files",
    }
}

/// A progress bar with the file's name and a Cancel button.
#[function_component(LoadingView)]
pub fn loading_view(props: &LoadingProps) -> Html {
    let size = props
        .file
        .size
        .map(|s| format!(" ({})", size_with_bytes(s)))
        .unwrap_or_default();
    let (label, value, detail) = match props.progress {
        Some(p) => {
            let frac = if p.total > 0.0 {
                (p.bytes / p.total).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let detail = if p.records > 0.0 {
                format!("{} records", grouped(p.records as u64))
            } else {
                String::new()
            };
            (phase_label(p.phase), frac, detail)
        }
        None => ("Starting", 0.0, String::new()),
    };
    let onclick = props.on_cancel.reform(|_: MouseEvent| ());
    html! {
        <section class="loading" id="loading" aria-busy="true">
            <div class="loading-line">
                // Spins until the first report, then the bar and the counts move instead (a
                // spinning ring makes the compositor draw every frame: ~10 % of a core during
                // an open). Hidden, it keeps its place: the line does not jump.
                <span class={classes!("spinner", props.progress.is_some().then_some("still"))} aria-hidden="true" />
                <span>{ "Opening " }<strong>{ &props.file.name }</strong>{ size }{ "…" }</span>
                <button type="button" class="button small" id="cancel" {onclick}>{ "Cancel" }</button>
            </div>
            <progress id="progress" max="1" value={value.to_string()} data-phase={label} aria-label={label} />
            <div class="progress-text muted small" data-field="progress">
                { format!("{label} · {:.0}%", value * 100.0) }
                if !detail.is_empty() { { format!(" · {detail}") } }
            </div>
        </section>
    }
}
